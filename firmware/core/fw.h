/* OpenRNIC firmware core: the control plane's state and its entry points.
 *
 * Everything here is plain C11 over structs, freestanding (no libc), and is
 * compiled both for the control processor (rv32im) and natively for the unit
 * tests. Register access only through hal/mmio.h.
 *
 * Conventions: a fallible function returns enum fw_status (the CMD_ST_* value
 * the host sees) and is marked FW_MUST_CHECK; outputs go through out-params;
 * every guard runs before the first side effect, so a function that fails
 * has changed nothing (tables, registers). */
#ifndef FW_CORE_FW_H
#define FW_CORE_FW_H

#include <stddef.h>
#include <stdint.h>

#include "rnic/rnic_hw.h"

#define FW_MUST_CHECK __attribute__((warn_unused_result))

enum fw_status {
	FW_OK = RNIC_CMD_ST_OK,
	FW_BAD_OPCODE = RNIC_CMD_ST_BAD_OPCODE,
	FW_BAD_PARAM = RNIC_CMD_ST_BAD_PARAM,
	FW_BAD_HANDLE = RNIC_CMD_ST_BAD_HANDLE,
	FW_BAD_STATE = RNIC_CMD_ST_BAD_STATE,
	FW_BAD_ATTR_MASK = RNIC_CMD_ST_BAD_ATTR_MASK,
	FW_PD_MISMATCH = RNIC_CMD_ST_PD_MISMATCH,
	FW_NO_RESOURCES = RNIC_CMD_ST_NO_RESOURCES,
	FW_BUSY = RNIC_CMD_ST_BUSY,
	FW_INTERNAL = RNIC_CMD_ST_INTERNAL,
};

/* The firmware's own tables: the device may have more contexts (DEV block),
 * the firmware manages at most this many of each. A build for a core with
 * smaller tables sets them lower (FW_DEFS in firmware/rules.mk) and fits a
 * smaller RAM: the QP attributes alone take 72 bytes per QP. */
#ifndef FW_MAX_QPS
#define FW_MAX_QPS 1024
#endif
#ifndef FW_MAX_CQS
#define FW_MAX_CQS 1024
#endif
#ifndef FW_MAX_MRS
#define FW_MAX_MRS 4096
#endif
#ifndef FW_MAX_MTT
#define FW_MAX_MTT 16384
#endif
#ifndef FW_MAX_PDS
#define FW_MAX_PDS 1024
#endif
#ifndef FW_MAX_SRQS
#define FW_MAX_SRQS 256
#endif
#ifndef FW_MAX_AHS
#define FW_MAX_AHS 512
#endif
/* multicast group table entries: the data path's (DEV_NUM_MCGS) exactly */
#define FW_MAX_MCGS (RNIC_MCAST_WAYS << RNIC_MCAST_BUCKET_BITS)
/* MRs registered whose page list is not complete yet (REG_MR done, not every
 * WRITE_MTT): each holds va, length and access until the MPT entry is
 * written. */
#define FW_MAX_PENDING_MRS 8
/* CTX_STATUS polls before a context write counts as failed. */
#define FW_CTX_POLLS 1000

#define FW_BITMAP_WORDS(n) (((n) + 31) / 32)

#define FW_ACCESS_ALL (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | \
		       RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC)

/* QP transport types (fw_qp.type). */
#define FW_QPT_RC 0
#define FW_QPT_UD 1 /* QP1 (the GSI QP) is a UD QP with QPN RNIC_GSI_QPN */

/* Every attribute a QPC is built from, packed: 72 bytes per QP. The
 * creation parameters (pd, CQs, rings) stay from CREATE_QP to DESTROY_QP;
 * the attributes are zero in RESET. */
struct fw_qp {
	uint32_t sq_base_lo, sq_base_hi;
	uint32_t rq_base_lo, rq_base_hi;
	uint32_t dgid[4];              /* dgid[0] = bits 31:0 of the 128-bit GID */
	uint32_t dmac_lo;              /* MAC bits 31:0 */
	uint32_t dest_qpn : 24, state : 4, pmtu : 4;
	uint32_t sq_psn : 24, access : 4, retry_cnt : 4;
	uint32_t rq_psn : 24, sgid_index : 4, rnr_retry : 4;
	uint32_t flow_label : 20, timeout : 6, min_rnr_timer : 6;
	uint32_t sq_log : 5, rq_log : 5, max_rd_atomic : 5, max_dest_rd_atomic : 5;
	uint32_t type : 2;             /* FW_QPT_* */
	uint8_t traffic_class, hop_limit;
	uint16_t dmac_hi;              /* MAC bits 47:32 */
	uint16_t pd, send_cqn, recv_cqn;
	uint16_t srqn;                 /* shared receive queue, 0: its own RQ */
	uint32_t qkey;                 /* UD */
};

/* One MR: the key's tag, its PD and the first entry of its MTT run (the
 * run's length is in the MTT run-start bitmap). Whether the MR is valid
 * (MPT written) or pending is in mr_valid. A memory window (its bit set in
 * fw.mw) takes an entry too: tag and PD as an MR's, mtt_base holding the
 * MPT index of the MR it is bound to (FW_MW_MR_MASK, 0: not bound) and
 * FW_MW_TYPE2; mr_valid set while it is bound (its MPT entry valid). */
struct fw_mr {
	uint32_t mtt_base : 14, pd : 10, tag : 8;
};
#define FW_MW_MR_MASK 0xfffu
#define FW_MW_TYPE2 0x1000u

struct fw_pending_mr {
	uint32_t mr_index; /* 0: slot free (MPT index 0 is never used) */
	uint32_t written;  /* pages written by WRITE_MTT so far */
	uint32_t npages;
	uint32_t va_lo, va_hi, len_lo, len_hi;
	uint32_t access;
};

/* Table sizes in use: the DEV block's, capped by the firmware's arrays. */
struct fw_caps {
	uint32_t num_qps, num_cqs, num_mrs, num_mtt, num_pds, num_srqs;
	uint32_t num_ahs;
	uint32_t num_mcgs; /* FW_MAX_MCGS, or 0 (no multicast) when the DEV block differs */
};

/* One multicast group table entry as written to the data path (count 0:
 * free). */
struct fw_mcg {
	uint32_t mgid[4]; /* mgid[0] = bits 31:0 of the 128-bit GID */
	uint16_t qpn[RNIC_MCAST_GROUP_QPS];
	uint16_t count;
};

/* One shared receive queue: its ring, PD, WQE size, the limit as armed
 * (0 once the limit event has been given) and the QPs that use it. */
struct fw_srq {
	uint32_t base_lo, base_hi;
	uint16_t pd, limit;
	uint8_t log_size, max_sge;
	uint16_t qp_count;
};

struct fw {
	struct fw_caps caps;
	uint32_t pd_used[FW_BITMAP_WORDS(FW_MAX_PDS)];
	uint32_t cq_used[FW_BITMAP_WORDS(FW_MAX_CQS)];
	uint32_t qp_used[FW_BITMAP_WORDS(FW_MAX_QPS)];
	uint32_t mr_used[FW_BITMAP_WORDS(FW_MAX_MRS)];
	uint32_t mr_valid[FW_BITMAP_WORDS(FW_MAX_MRS)];
	uint32_t mw[FW_BITMAP_WORDS(FW_MAX_MRS)];        /* the entry is a memory window */
	uint32_t mtt_used[FW_BITMAP_WORDS(FW_MAX_MTT)];
	uint32_t mtt_start[FW_BITMAP_WORDS(FW_MAX_MTT)]; /* first entry of each run */
	uint32_t mr_seen[FW_BITMAP_WORDS(FW_MAX_MRS)];   /* mr[i].tag counts since boot */
	struct fw_pending_mr pending[FW_MAX_PENDING_MRS];
	uint32_t pd_hint, cq_hint, qp_hint, mr_hint;   /* next index to try */
	/* Asynchronous events for the host (EQ_* registers). */
	uint32_t cq_err[FW_BITMAP_WORDS(FW_MAX_CQS)];  /* CQ_ERR given since CREATE_CQ */
	uint32_t eq_pi, eq_lost;
	/* Shared receive queues (core/srq.c): used bits (the entries: srq[]). */
	uint32_t srq_used[FW_BITMAP_WORDS(FW_MAX_SRQS)];
	uint32_t srq_hint;
	/* Address handles (UD): used bits (each one's PD: ah_pd[]). */
	uint32_t ah_used[FW_BITMAP_WORDS(FW_MAX_AHS)];
	uint32_t ah_hint;
	/* Multicast groups (core/mcast.c), slot = way << MCAST_BUCKET_BITS | bucket. */
	struct fw_mcg mcg[FW_MAX_MCGS];
	/* From here on fw_init clears nothing (most of the RAM, ~100 KiB; the
	 * control processor zeroes ~4 bytes in 7 cycles): an entry is set
	 * whole when its bit in the *_used bitmap above is set, and nothing
	 * reads it while the bit is clear. A reference count starts at zero
	 * when its object is made; an MR's tag when mr_seen says so. */
	uint16_t pd_refcnt[FW_MAX_PDS];                  /* QPs and MRs */
	uint16_t cq_refcnt[FW_MAX_CQS];                  /* QP references */
	struct fw_qp qp[FW_MAX_QPS];
	struct fw_mr mr[FW_MAX_MRS];
	struct fw_srq srq[FW_MAX_SRQS];
	uint16_t ah_pd[FW_MAX_AHS];
};

_Static_assert(sizeof(struct fw_qp) == 72, "fw_qp packs into 72 bytes");
_Static_assert(sizeof(struct fw_mr) == 4, "fw_mr packs into 4 bytes");
_Static_assert(sizeof(struct fw_srq) == 16, "fw_srq packs into 16 bytes");
_Static_assert(RNIC_CMD_MAX_LOG_SRQ_WR < 16 && RNIC_SRQC_LIMIT_W == 16, "SRQ sizes and limits fit 16 bits");
_Static_assert(FW_MAX_MTT <= 1 << 14, "fw_mr.mtt_base is 14 bits");
_Static_assert(FW_MAX_MRS <= FW_MW_MR_MASK + 1 && FW_MW_TYPE2 < 1 << 14,
	       "a window's MR index and type fit fw_mr.mtt_base");
_Static_assert(FW_MAX_PDS <= 1 << 10, "fw_mr.pd is 10 bits");
_Static_assert(RNIC_MKEY_TAG_BITS == 8, "fw_mr.tag is 8 bits");
_Static_assert(RNIC_CMD_MAX_LOG_WR < 32 && RNIC_CMD_MAX_LOG_CQE < 32, "log sizes fit 5 bits");
_Static_assert(RNIC_MAX_RD_ATOMIC < 32, "rd_atomic fits 5 bits");
_Static_assert(RNIC_GID_TABLE_SIZE <= 16, "sgid_index fits 4 bits");

/* ---------------------------------------------------------------- tables */

/* Empty tables for a device of the given sizes (capped to the arrays). */
void fw_init(struct fw *fw, const struct fw_caps *dev);
/* The next tag of MPT entry idx (an MR or a window being made there): one
 * more than the last one given since boot, 1 for the first, never one that
 * makes the key RNIC_INVALID_LKEY. Returns the new key. */
uint32_t fw_mkey_next(struct fw *fw, uint32_t idx);

/* ---------------------------------------------------------------- QP state machine (pure) */

/* Required and optional attributes of the RC transition cur -> next (the
 * QP_ATTR_STATE bit not included); FW_BAD_STATE if there is no such
 * transition or a state is out of range. */
FW_MUST_CHECK enum fw_status fw_qp_transition(uint32_t cur, uint32_t next, uint32_t *req,
					      uint32_t *opt);
/* The whole check of a MODIFY_QP mask against the QP's state: next state,
 * cur_qp_state, the transition, required and forbidden attributes. */
FW_MUST_CHECK enum fw_status fw_qp_check_mask(uint32_t cur, uint32_t mask, uint32_t qp_state,
					      uint32_t cur_qp_state, uint32_t *next);
/* The same for a QP of type FW_QPT_* (UD: IBTA Vol. 1 10.3.1 and
 * ibv_modify_qp(3): Q_Key at INIT, nothing at RTR, SQ PSN at RTS). */
FW_MUST_CHECK enum fw_status fw_qp_check_mask_type(uint32_t type, uint32_t cur, uint32_t mask,
						   uint32_t qp_state, uint32_t cur_qp_state,
						   uint32_t *next);
FW_MUST_CHECK enum fw_status fw_qp_transition_type(uint32_t type, uint32_t cur, uint32_t next,
						   uint32_t *req, uint32_t *opt);
/* Attribute bits the firmware does not implement: never taken. */
#define FW_QP_ATTR_UNSUPPORTED (RNIC_QP_ATTR_EN_SQD_ASYNC_NOTIFY | RNIC_QP_ATTR_ALT_PATH | \
				RNIC_QP_ATTR_PATH_MIG_STATE)
/* Every defined attribute bit. */
#define FW_QP_ATTR_ALL ((RNIC_QP_ATTR_DEST_QPN << 1) - 1)

/* The context operation that carries a QP from cur to next (as the host
 * library did it): CTX_OP_WRITE out of or into RESET, CTX_OP_QP_RTR for
 * INIT -> RTR, CTX_OP_QP_RTS for RTR -> RTS, else CTX_OP_MODIFY. */
uint32_t fw_qpc_op(uint32_t cur, uint32_t next);

/* The QPC record of a QP (all zero in RESET). */
void fw_qpc_encode(uint32_t w[restrict RNIC_QPC_WORDS], const struct fw_qp *restrict q, uint32_t qpn);

/* ---------------------------------------------------------------- the data path */

/* fw_ctx_write (core/ctx.h) writes a context record through the CTX window. */

/* ---------------------------------------------------------------- commands */

struct fw_cmd {
	uint8_t in_words, out_words; /* CMD_IN words read, CMD_OUT words written on success */
	enum fw_status (*run)(struct fw *fw, const uint32_t *in, uint32_t *out);
};

/* The SRQ commands (core/srq.c); whether srqn names a live SRQ; a live SRQ
 * of pd (FW_BAD_HANDLE, FW_PD_MISMATCH). A QP may use an SRQ of another PD
 * (as ibv_create_qp): the SRQ's PD checks its receive WQEs' lkeys. */
int fw_srq_live(const struct fw *fw, uint64_t srqn);

/* Multicast (core/mcast.c): the commands, the bucket of a GID in way 0 or 1
 * (the data path's hash), and the detach of a QP from every group (before
 * DESTROY_QP frees it). */
enum fw_status fw_cmd_attach_mcast(struct fw *fw, const uint32_t *in, uint32_t *out);
enum fw_status fw_cmd_detach_mcast(struct fw *fw, const uint32_t *in, uint32_t *out);
uint32_t fw_mcast_bucket(const uint32_t gid[4], int way);
FW_MUST_CHECK enum fw_status fw_mcast_detach_qp(struct fw *fw, uint32_t qpn);
enum fw_status fw_cmd_create_srq(struct fw *fw, const uint32_t *in, uint32_t *out);
enum fw_status fw_cmd_modify_srq(struct fw *fw, const uint32_t *in, uint32_t *out);
enum fw_status fw_cmd_query_srq(struct fw *fw, const uint32_t *in, uint32_t *out);
enum fw_status fw_cmd_destroy_srq(struct fw *fw, const uint32_t *in, uint32_t *out);
FW_MUST_CHECK enum fw_status fw_srq_check(const struct fw *fw, uint64_t srqn, uint64_t pd);

/* Memory windows (core/mw.c, docs/mw.md). */
enum fw_status fw_cmd_alloc_mw(struct fw *fw, const uint32_t *in, uint32_t *out);
enum fw_status fw_cmd_dealloc_mw(struct fw *fw, const uint32_t *in, uint32_t *out);
/* Whether any window is bound to the MR at MPT index mr (DEREG_MR waits). */
int fw_mr_has_windows(const struct fw *fw, uint32_t mr);

/* A BIND_MW work request as the requester hands it over: the WQE's fields
 * and what its lkey check of bind_lkey over [addr, addr + length) found in
 * the MR's MPT entry (the check passed: key, PD of the QP, range). */
struct fw_mw_bind {
	uint32_t qpn;               /* the QP that posted it */
	uint32_t mw_rkey, new_rkey; /* the window's key before and after */
	uint32_t mr_key;            /* bind_lkey */
	uint32_t access;            /* bind_access */
	uint32_t mr_access;         /* the MR's ACCESS_* bits */
	uint64_t addr, length;      /* length 0: unbind (type 1) */
	uint64_t pa;                /* the MR's pa translated for addr */
};
/* Bind (or, type 1 with length 0, unbind) a window: every check of IBA
 * 10.6.7 the firmware can make, then the window's MPT entry. Returns the
 * WC status of the WQE: WC_SUCCESS, WC_MW_BIND_ERR (refused, nothing
 * changed) or WC_GENERAL_ERR (the context write failed). */
FW_MUST_CHECK uint32_t fw_mw_bind(struct fw *fw, const struct fw_mw_bind *b);
/* Invalidate the type 2 window rkey names, for a LOCAL_INV posted on qpn
 * (remote 0) or a SEND with invalidate received on qpn (remote 1). Returns
 * WC_SUCCESS; WC_LOC_QP_OP_ERR (local) or WC_REM_INV_REQ_ERR (remote) when
 * refused: rkey not a window's current key, a type 1 window, a window not
 * bound, another PD than the QP's (an MR's key: MRs are not invalidated by
 * a work request here); WC_GENERAL_ERR if the context write failed. */
FW_MUST_CHECK uint32_t fw_mw_invalidate(struct fw *fw, uint32_t qpn, uint32_t rkey, int remote);

/* Serve the window request in MW_REQ (docs/mw.md), if one waits: the
 * requester's BIND_MW runs fw_mw_bind, its LOCAL_INV fw_mw_invalidate
 * (local), the responder's SEND with invalidate (MW_REQ_OP_REMOTE_INV)
 * fw_mw_invalidate (remote); a request of a QP the firmware has in ERR or
 * RESET is answered WR_FLUSH_ERR and changes nothing, an unknown op
 * LOC_QP_OP_ERR. The WC status goes to MW_ANSWER, which lets the requester
 * record the WQE or the responder complete (or refuse) the SEND. Returns 1 if a
 * request was served. The requester's send engine waits meanwhile, so the
 * main loop serves requests between commands as it takes events. */
int fw_mw_poll(struct fw *fw);

/* The command of an opcode, NULL if there is none. */
const struct fw_cmd *fw_cmd_find(uint32_t opcode);

/* Run one command: its input record's words in in[], its output record into
 * out[] (those words zeroed first; the rest of out[] is left alone). */
FW_MUST_CHECK enum fw_status fw_cmd_run(struct fw *fw, uint32_t opcode, const uint32_t *in,
					uint32_t *out);

/* ---------------------------------------------------------------- the mailbox */

/* Read the DEV block, set up the tables, then announce the firmware in
 * FW_STATE. */
void fw_boot(struct fw *fw);
/* One turn of the main loop: if CMD_STATUS is busy, read CMD_OPCODE and the
 * command's CMD_IN words, run it, write its CMD_OUT words (on success), then
 * CMD_DONE with the status. Returns 1 if a command was handled. */
int fw_mailbox_poll(struct fw *fw);

/* ---------------------------------------------------------------- events */

/* Take one data-path event (EVT_POP) and act on it: a QP's error completion
 * moves the firmware's QP to ERR (a QP in RESET or already in ERR stays) and
 * gives the host ASYNC_EVENT_QP_FATAL; a CQ overrun gives ASYNC_EVENT_CQ_ERR
 * once per CQ; an SRQ's limit reached disarms the firmware's copy of the
 * limit and gives ASYNC_EVENT_SRQ_LIMIT_REACHED; a QP on an SRQ that reached
 * its last WQE gives ASYNC_EVENT_QP_LAST_WQE_REACHED. Events lost on the way count in EQ_LOST. Returns 1 if an
 * event was taken. The main loop drains them before each command, so a
 * command never acts on a QP whose error the firmware has not seen. */
int fw_event_poll(struct fw *fw);
/* Put an event on the host's ring (EQ_ENTRY, EQ_PI), or count it lost in
 * EQ_LOST when the host has not read far enough (EQ_CI). */
void fw_eq_push(struct fw *fw, uint32_t type, uint32_t num);

#endif /* FW_CORE_FW_H */
