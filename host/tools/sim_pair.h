/* Two simulated NICs in one process, wired back to back, each with a PD, a
 * CQ and connected RC QPs: the setup shared by the demo, the end-to-end
 * tests and the benchmarks. */
#ifndef RNIC_SIM_PAIR_H
#define RNIC_SIM_PAIR_H

#include <stdint.h>

#include "rnic/verbs.h"

#define SIM_PAIR_MAX_QPS 64

struct sim_pair_side {
	struct rnic_context *ctx;
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	struct rnic_qp *qp[SIM_PAIR_MAX_QPS];
	uint8_t mac[6];
	union rnic_gid gid;                       /* GID table entry 0 */
	union rnic_gid gids[RNIC_GID_TABLE_SIZE]; /* the GID table as filled */
	int ngid;                                 /* entries filled (1, or all with all_gids) */
	struct rnic_srq *srq;                     /* with srq_wr: the SRQ of side 1's QPs */
};

struct sim_pair {
	struct rnic_world *world;
	struct sim_pair_side side[2];
	int nqp;
};

struct sim_pair_av {
	uint8_t sgid_index;    /* < RNIC_GID_TABLE_SIZE; > 0 needs all_gids */
	uint8_t traffic_class;
	uint8_t hop_limit;     /* 0: the library's default */
	uint32_t flow_label;   /* 20 bits; 0: derived from the QP numbers */
};

struct sim_pair_opts {
	int nqp;            /* connected QP pairs (QP i of side 0 <-> QP i of side 1) */
	uint32_t path_mtu;  /* RNIC_IB_MTU_* */
	uint32_t psn[2];    /* first send PSN of each side's QPs (QP i adds i) */
	int cqe;            /* CQ entries per side */
	int max_send_wr;
	int max_recv_wr;    /* RQ entries per QP (0: no receive queue) */
	int max_recv_sge;   /* 0..RNIC_MAX_RECV_SGE */
	uint8_t rnr_retry;  /* RNR retries of every QP (7 = infinite) */
	uint8_t min_rnr_timer; /* RNR NAK timer code every QP's responder sends */
	uint8_t timeout;    /* local ACK timeout code (4.096 us * 2^timeout; 0 = off) */
	uint8_t retry_cnt;  /* transport retries */
	uint8_t max_rd_atomic;      /* READ/ATOMIC outstanding as requester (default RNIC_MAX_RD_ATOMIC) */
	uint8_t max_dest_rd_atomic; /* ... served at once as responder (default RNIC_MAX_RD_ATOMIC) */
	/* all_gids: fill every GID table entry of side s (s = 0, 1) with
	 *   0  ::ffff:198.18.0.(1+s)  IPv4-mapped (the only entry otherwise)
	 *   1  fe80::ff:fe00:(0a+s)   IPv6 link-local (EUI-64 of the MAC)
	 *   2  2001:db8::(1+s)        IPv6 global (documentation prefix)
	 *   3  2001:db8:1::(1+s)      IPv6 global
	 * av: when not NULL, nqp address vectors, QP i of both sides uses av[i]
	 * (its sgid_index also names the peer's entry used as dgid); NULL: GID
	 * index 0, traffic class 0, hop limit 64, flow label 0. */
	int all_gids;
	const struct sim_pair_av *av;
	/* srq_wr > 0: side 1's QPs take their receive WQEs from one SRQ of
	 * srq_wr entries (limit srq_limit, 0: not armed) instead of an RQ */
	int srq_wr;
	uint32_t srq_limit;
};

void sim_pair_default_opts(struct sim_pair_opts *o);
/* 0 or an errno; prints what failed. */
int sim_pair_open(struct sim_pair *p, struct rnic_world *world, const struct sim_pair_opts *o);
void sim_pair_close(struct sim_pair *p);
/* QP pair i (opened with o) back through RESET and connected again, side
 * s sending from psn[s]. 0 or an errno. */
int sim_pair_reconnect(struct sim_pair *p, const struct sim_pair_opts *o, int i, uint32_t psn[2]);

/* Poll cq until n completions arrived or max_polls empty polls passed (each
 * advances simulated time by one cycle). Returns the number received. */
int sim_pair_wait(struct rnic_cq *cq, struct rnic_wc *wc, int n, uint64_t max_polls);

#endif
