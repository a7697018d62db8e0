/* What the memory-protection test and the fuzzers share: a one-NIC world
 * whose objects are made through the firmware's command mailbox (so the
 * simulator's memory-protection checker mirrors them), frames addressed to
 * that NIC built with the reference model's codec (valid ICRC), and a
 * context write through the CTX window behind the checker's back. */
#ifndef RNIC_FZ_COMMON_H
#define RNIC_FZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "rc_codec.h"
#include "rnic/rnic_hw.h"
#include "rnic_sim.h"

struct fz_nic {
	struct rnic_world *w;
	struct rnic_sim_nic *nic;
	uint16_t token;
	uint64_t last_cycles; /* the last command, CMD_CTRL to done */
	uint32_t last_status; /* CMD_STATUS when it was seen done */
};

/* The NIC's and the simulated peer's addresses. */
extern const uint8_t fz_nic_mac[6], fz_peer_mac[6];
extern const uint8_t fz_nic_gid[16], fz_peer_gid[16];

/* Create a one-NIC world (memcheck_nonfatal as given), wait for the
 * firmware, set the port's MAC and GID 0. 0 or -1 (message on stderr). */
int fz_open(struct fz_nic *f, unsigned int width, uint64_t seed, int memcheck_nonfatal);
void fz_close(struct fz_nic *f);

/* One command: CMD_IN words, CMD_CTRL, poll CMD_STATUS; on CMD_ST_OK the
 * output words into out. Returns the status, or -1 if it never completed,
 * echoed another token or the firmware halted. */
int fz_cmd(struct fz_nic *f, unsigned int op, const uint32_t *in, unsigned int nin,
	   uint32_t *out, unsigned int nout);

/* A GID (network order) into a 128-bit command field at lsb. */
void fz_set_gid(uint32_t *w, unsigned int lsb, const uint8_t gid[16]);

/* The objects, through commands; each returns the CMD_ST_* status (or -1). */
int fz_alloc_pd(struct fz_nic *f, uint32_t *pd);
int fz_create_cq(struct fz_nic *f, unsigned int log_size, void *ring, uint32_t *cqn);
int fz_create_qp(struct fz_nic *f, uint32_t pd, uint32_t cqn, unsigned int sq_log, void *sq,
		 unsigned int rq_log, void *rq, uint32_t *qpn);
/* The same with the QP type (RNIC_QP_TYPE_RC, _UD or _GSI: QP1). */
int fz_create_qp_type(struct fz_nic *f, unsigned int type, uint32_t pd, uint32_t cqn, unsigned int sq_log,
		      void *sq, unsigned int rq_log, void *rq, uint32_t *qpn);
/* RESET -> INIT -> RTR -> RTS with the peer as the remote side. */
int fz_qp_connect(struct fz_nic *f, uint32_t qpn, uint32_t pd, unsigned int access,
		  uint32_t dest_qpn, uint32_t rq_psn, uint32_t sq_psn, unsigned int mtu);
int fz_qp_modify_state(struct fz_nic *f, uint32_t qpn, uint32_t pd, unsigned int state);
/* A UD (or the GSI) QP from any state to RTS, the IB spec's way: RESET,
 * INIT (port 1, P_Key index 0, the Q_Key), RTR, RTS (the send PSN). */
int fz_qp_ud_rts(struct fz_nic *f, uint32_t qpn, uint32_t pd, uint32_t qkey, uint32_t sq_psn);
/* Map [va, va + len) page by page in the IOMMU, REG_MR, WRITE_MTT every
 * page. *key, *mtt_base (may be NULL) from REG_MR. */
int fz_reg_mr(struct fz_nic *f, uint32_t pd, unsigned int access, void *va, size_t len,
	      uint32_t *key, uint32_t *mtt_base);

/* Non-zero while a window request waits for the firmware's answer
 * (CTX_STATUS bit 2): the firmware may be writing the CTX window. */
int fz_mw_req_pending(struct fz_nic *f);
/* A context record through the CTX window (what the firmware does; here
 * behind the checker's back). 0, or -1 on a CTX_STATUS error or timeout. */
int fz_ctx_write(struct fz_nic *f, unsigned int table, unsigned int op, uint32_t index,
		 const uint32_t *words, unsigned int nwords);

/* A packet from the peer to the NIC: addresses, UDP port, P_Key, TVer. */
void fz_pkt_init(struct rc_pkt *p, unsigned int opcode, uint32_t qpn, uint32_t psn);

/* splitmix64 */
uint64_t fz_rand(uint64_t *s);

#endif
