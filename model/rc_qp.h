/* RC queue pair of the C reference model (model/README.md): requester,
 * completer and responder state machines of IBTA Vol. 1 ch. 9 over an
 * abstract host memory, with ibv-style work requests and completions.
 *
 * A QP never sees a wall clock: every call that may start or check a timer
 * takes `now`, a time in ticks whose length the QP configuration gives
 * (tick_ps). Packets leave through a callback as decoded struct rc_pkt
 * (rc_codec.h) and arrive through rc_qp_recv; what carries them (an
 * in-memory link, the simulator, a pcap) is the caller's business. Same calls
 * in the same order give the same packets: the model is deterministic.
 *
 * Where the spec leaves a choice the model follows Linux rxe unless a
 * configuration field selects the OpenRNIC RTL's policy; model/README.md
 * lists each choice.
 */
#ifndef RC_QP_H
#define RC_QP_H

#include <stddef.h>
#include <stdint.h>

#include "rc_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t rc_time_t;
#define RC_TIME_NEVER UINT64_MAX

#define RC_MAX_SGE RNIC_MAX_SEND_SGE
#define RC_MAX_RECV_SGE RNIC_MAX_RECV_SGE
#define RC_MEM_MAX_MR 256
#define RC_MAX_RD_ATOMIC 16 /* responder resources kept for duplicate READ / ATOMIC */

/* ------------------------------------------------------------ memory */

/* One registered memory region: the bytes [buf, buf + length) seen by the
 * peer as virtual addresses [va, va + length). lkey == rkey ==
 * index << RNIC_MKEY_TAG_BITS | tag, as the RTL's keys. */
struct rc_mr {
	uint8_t *buf;
	uint64_t va, length;
	uint32_t key;
	uint32_t pd;
	unsigned int access; /* RNIC_ACCESS_* */
	int valid;
};

struct rc_mem {
	struct rc_mr mr[RC_MEM_MAX_MR];
	uint8_t tag; /* tag of the next key */
};

void rc_mem_init(struct rc_mem *m);
/* Register; returns the key (never 0) or 0 when the table is full. */
uint32_t rc_mem_reg(struct rc_mem *m, uint32_t pd, void *buf, uint64_t va, uint64_t length,
		    unsigned int access);
int rc_mem_dereg(struct rc_mem *m, uint32_t key);
/* The bytes of [va, va + len) in the MR named by key if the key matches a
 * valid MR of protection domain pd that grants `access` (0: local read) and
 * holds the whole range; NULL otherwise. len 0 passes any key: *ok says
 * whether the check passed. */
uint8_t *rc_mem_resolve(struct rc_mem *m, uint32_t key, uint32_t pd, uint64_t va, uint64_t len,
			unsigned int access, int *ok);

/* ------------------------------------------------------------ completions */

/* struct ibv_wc, with the ibv values of rnic_hw.h. imm_data is the ImmDt
 * field as a number (the wire carries it big-endian). */
struct rc_wc {
	uint64_t wr_id;
	uint32_t status;     /* RNIC_WC_* status */
	uint32_t opcode;     /* RNIC_WC_* opcode */
	uint32_t vendor_err; /* AETH syndrome of the NAK that ended the WQE, else 0 */
	uint32_t byte_len;
	uint32_t imm_data;
	uint32_t qp_num;
	uint32_t src_qp;
	unsigned int wc_flags; /* RNIC_WC_FLAG_WITH_IMM */
};

struct rc_cq {
	struct rc_wc *ring;
	uint32_t size, head, tail; /* entries [tail, head) are unpolled */
	uint64_t overruns;         /* completions lost because the ring was full */
};

/* size entries (a ring, not resized). Returns 0 or -1 (no memory). */
int rc_cq_init(struct rc_cq *cq, uint32_t size);
void rc_cq_free(struct rc_cq *cq);
int rc_cq_poll(struct rc_cq *cq, struct rc_wc *wc, int n);
uint32_t rc_cq_count(const struct rc_cq *cq);

/* ------------------------------------------------------------ work requests */

struct rc_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

enum rc_send_flags {
	RC_SEND_FENCE = 1u << 0,     /* the ibv_send_flags values */
	RC_SEND_SIGNALED = 1u << 1,
	RC_SEND_SOLICITED = 1u << 2,
	RC_SEND_INLINE = 1u << 3,
};

struct rc_send_wr {
	uint64_t wr_id;
	uint32_t opcode;      /* RNIC_WR_* */
	unsigned int flags;   /* RC_SEND_* */
	struct rc_sge sg_list[RC_MAX_SGE];
	int num_sge;
	const void *inline_data; /* RC_SEND_INLINE: the payload (copied at post time) */
	uint32_t inline_len;     /* up to RNIC_MAX_INLINE_BYTES */
	uint32_t imm_data;
	uint64_t remote_addr;
	uint32_t rkey;
	uint64_t compare_add, swap;
};

struct rc_recv_wr {
	uint64_t wr_id;
	struct rc_sge sg_list[RC_MAX_RECV_SGE];
	int num_sge;
};

/* ------------------------------------------------------------ the QP */

/* Addressing of every packet a QP sends. */
struct rc_qp_addr {
	uint8_t smac[6], dmac[6];
	uint8_t sgid[16], dgid[16]; /* IPv4-mapped GIDs send IPv4 */
	uint8_t tclass, hop_limit;
	uint32_t flow_label;
	uint16_t udp_sport;
	uint16_t pkey;
	uint16_t ip_id;      /* IPv4 identification of the first packet */
	uint8_t ip_id_inc;   /* 1: count it up per packet (Linux); 0: constant (the RTL sends 0) */
	uint8_t ip_df;       /* IPv4 DF bit */
};

/* Which packets carry the BTH AckReq bit (besides the last of a message). */
enum rc_ackreq_policy {
	RC_ACKREQ_LAST = 0,  /* only the last packet of each message */
	RC_ACKREQ_EVERY_N,   /* also every ackreq_every-th packet of a message (the RTL: index % N == N - 1) */
	RC_ACKREQ_RXE,       /* also after ackreq_every unacknowledged packets (rxe: RXE_MAX_PKT_PER_ACK) */
};

struct rc_qp_cfg {
	uint32_t qpn, dest_qpn;
	uint32_t mtu;          /* path MTU in bytes: 256 .. 4096 */
	uint32_t sq_psn;       /* first PSN the requester sends */
	uint32_t rq_psn;       /* first PSN the responder expects */
	uint32_t pd;
	unsigned int access;   /* remote operations the QP allows (RNIC_ACCESS_REMOTE_*) */
	uint8_t retry_cnt;     /* 0..7 transport retries */
	uint8_t rnr_retry;     /* 0..7, 7 = infinite */
	uint8_t timeout;       /* local ACK timeout 4.096 us * 2^timeout; 0 = none */
	uint8_t min_rnr_timer; /* RNR NAK timer code this QP's responder sends (IBTA Table 45) */
	uint8_t max_rd_atomic;      /* READ/ATOMIC the requester keeps outstanding (>= 1) */
	uint8_t max_dest_rd_atomic; /* responder resources; 0 refuses READ/ATOMIC */
	uint32_t sq_size, rq_size;  /* work requests each queue holds */
	uint32_t max_unacked_psn;   /* requester window in PSNs (rxe: 128) */
	uint32_t tick_ps;           /* length of one tick of `now` in picoseconds */
	/* AckReq policy of the requester */
	enum rc_ackreq_policy ackreq_policy;
	uint32_t ackreq_every;
	/* ACK policy of the responder for SEND/WRITE packets: an ACK on AckReq,
	 * and with ack_on_last on the last packet of each message, and with
	 * ack_every every that many packets (rxe: neither; the RTL: both, 8) */
	uint8_t ack_on_last;
	uint32_t ack_every;
	struct rc_qp_addr addr;
};

/* Defaults: MTU 1024, PSNs 0, queues of 256, retry_cnt 7, rnr_retry 7,
 * timeout 14, min_rnr_timer 12, max_rd_atomic 16 both ways, window 128,
 * tick 1 ns, rxe AckReq policy (64), ACK on AckReq only, pkey 0xffff, hop
 * limit 64, DF set, IP id counting. */
void rc_qp_cfg_default(struct rc_qp_cfg *cfg);

/* The responder's view of what it cannot know by itself, for a checker that
 * watches another NIC's responder (rc_scoreboard.c). When set, the responder
 * asks instead of looking at its memory and receive queue, and moves no
 * data (reads return zeros). */
enum rc_oracle_q {
	RC_ORACLE_RKEY_OK,      /* remote key, bounds and MR access of this request pass */
	RC_ORACLE_RECV_READY,   /* a receive WQE is posted (SEND first/only, WRITE with immediate) */
	RC_ORACLE_RECV_SGE_OK,  /* the receive WQE's SGEs pass their lkey check */
	RC_ORACLE_RECV_FITS,    /* the message so far fits the receive buffer */
};

struct rc_oracle {
	int (*ask)(void *arg, enum rc_oracle_q q, const struct rc_pkt *req);
	void *arg;
};

struct rc_qp_stats {
	uint64_t tx_pkts, tx_bytes;     /* packets sent (requests and responses), payload bytes */
	uint64_t tx_requests, tx_retransmits;
	uint64_t tx_acks, tx_naks, tx_rnr_naks, tx_read_resps, tx_atomic_acks;
	uint64_t rx_requests, rx_responses;
	uint64_t rx_duplicates, rx_psn_errors;   /* requests behind / ahead of the expected PSN */
	uint64_t rx_acks, rx_naks, rx_rnr_naks, rx_stale;
	uint64_t timeouts, retries, rnr_waits;   /* requester: timer fired, go-back-N restarts, RNR waits */
	uint64_t sends_delivered;                /* receive WQEs completed successfully */
	uint64_t dup_reads, dup_atomics;         /* duplicate READs re-executed, ATOMICs answered again */
	uint64_t dropped;                        /* packets ignored (QP state, wrong direction, ...) */
};

struct rc_qp;

typedef void (*rc_tx_fn)(void *arg, const struct rc_pkt *pkt);

/* A QP in RTS with cfg, over memory mem, completing into scq and rcq (may be
 * the same CQ). Returns NULL on a bad configuration or no memory. */
struct rc_qp *rc_qp_create(const struct rc_qp_cfg *cfg, struct rc_mem *mem, struct rc_cq *scq,
			   struct rc_cq *rcq);
void rc_qp_destroy(struct rc_qp *qp);
const struct rc_qp_cfg *rc_qp_get_cfg(const struct rc_qp *qp);

/* Where the QP's packets go. pkt (and its payload) live until the call returns. */
void rc_qp_set_tx(struct rc_qp *qp, rc_tx_fn tx, void *arg);
void rc_qp_set_oracle(struct rc_qp *qp, const struct rc_oracle *oracle);

/* Post work requests. 0, or EINVAL (bad request), ENOMEM (queue full). In
 * the error state a posted request completes at once with WR_FLUSH_ERR. */
int rc_qp_post_send(struct rc_qp *qp, const struct rc_send_wr *wr);
int rc_qp_post_recv(struct rc_qp *qp, const struct rc_recv_wr *wr);

/* A packet addressed to this QP (dest_qpn == cfg.qpn) arrived at `now`.
 * Requests go to the responder, responses to the completer. */
void rc_qp_recv(struct rc_qp *qp, rc_time_t now, const struct rc_pkt *pkt);

/* Fire due timers, then send up to max_pkts packets (responses first, then
 * requests). Returns the number sent. */
int rc_qp_progress(struct rc_qp *qp, rc_time_t now, int max_pkts);

/* Earliest time a timer of this QP fires, or RC_TIME_NEVER. */
rc_time_t rc_qp_next_timer(const struct rc_qp *qp);
/* Something to send right now (queued responses, or requests the window allows). */
int rc_qp_has_work(const struct rc_qp *qp, rc_time_t now);

/* RNIC_QPS_*: RTS while healthy, ERR after an error or rc_qp_set_error. */
int rc_qp_state(const struct rc_qp *qp);
/* Move to the error state: flush both queues (WR_FLUSH_ERR). */
void rc_qp_set_error(struct rc_qp *qp);
const struct rc_qp_stats *rc_qp_stats(const struct rc_qp *qp);
/* Send WQEs posted and not yet completed. */
uint32_t rc_qp_sq_outstanding(const struct rc_qp *qp);
uint32_t rc_qp_rq_posted(const struct rc_qp *qp);
/* The responder's next expected PSN and MSN; the requester's next PSN and
 * oldest unacknowledged PSN. */
uint32_t rc_qp_epsn(const struct rc_qp *qp);
uint32_t rc_qp_msn(const struct rc_qp *qp);
uint32_t rc_qp_next_psn(const struct rc_qp *qp);
uint32_t rc_qp_una_psn(const struct rc_qp *qp);

/* ------------------------------------------------------------ timers */

/* Minimum RNR wait of an RNR NAK timer code (IBTA Vol. 1 Table 45), in ns. */
uint64_t rc_rnr_timer_ns(unsigned int code);
/* Local ACK timeout of a timeout code: 4.096 us * 2^code in ns; 0 for 0 (none). */
uint64_t rc_ack_timeout_ns(unsigned int code);

#ifdef __cplusplus
}
#endif

#endif
