/* OpenRNIC host library: the verbs-shaped API.
 *
 * Names follow libibverbs (<infiniband/verbs.h>) with an rnic_ prefix; structure
 * and field names are those of the ibv_* originals, so code written against
 * libibverbs reads the same. Numeric values (access flags, opcodes, states,
 * RNIC_WC_*, RNIC_IB_MTU_*) are the ibv values, defined once in docs/formats.toml and
 * generated into <rnic/rnic_hw.h>.
 *
 * Conventions (as in libibverbs):
 * - calls returning a pointer return NULL on failure and set errno;
 * - calls returning int return 0 or a positive errno value;
 * - rnic_poll_cq returns the number of completions or a negative errno value.
 * The library is not thread-safe: serialize calls on one context.
 * docs/api.md is the reference for every call.
 */
#ifndef RNIC_VERBS_H
#define RNIC_VERBS_H

#include <stddef.h>
#include <stdint.h>

#include "rnic/rnic_hw.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rnic_world; /* the simulator (sim/include/rnic_sim.h) */

/* ---------------------------------------------------------------- enums */

enum rnic_qp_type {
	RNIC_QPT_RC = 2, /* IBV_QPT_RC */
	RNIC_QPT_UD = 4, /* IBV_QPT_UD */
	/* The general services QP: a UD QP that gets QPN 1 (RNIC_GSI_QPN), one
	 * per device, for the management datagram (MAD) software (as IB_QPT_GSI is in the kernel). */
	RNIC_QPT_GSI = RNIC_QP_TYPE_GSI,
};

/* enum ibv_qp_attr_mask, same bit values. */
enum rnic_qp_attr_mask {
	RNIC_QP_STATE = 1 << 0,
	RNIC_QP_CUR_STATE = 1 << 1,
	RNIC_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2, /* not supported */
	RNIC_QP_ACCESS_FLAGS = 1 << 3,
	RNIC_QP_PKEY_INDEX = 1 << 4,
	RNIC_QP_PORT = 1 << 5,
	RNIC_QP_QKEY = 1 << 6, /* UD only */
	RNIC_QP_AV = 1 << 7,
	RNIC_QP_PATH_MTU = 1 << 8,
	RNIC_QP_TIMEOUT = 1 << 9,
	RNIC_QP_RETRY_CNT = 1 << 10,
	RNIC_QP_RNR_RETRY = 1 << 11,
	RNIC_QP_RQ_PSN = 1 << 12,
	RNIC_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	RNIC_QP_ALT_PATH = 1 << 14, /* not supported */
	RNIC_QP_MIN_RNR_TIMER = 1 << 15,
	RNIC_QP_SQ_PSN = 1 << 16,
	RNIC_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	RNIC_QP_PATH_MIG_STATE = 1 << 18, /* not supported */
	RNIC_QP_CAP = 1 << 19, /* not supported */
	RNIC_QP_DEST_QPN = 1 << 20,
};

/* enum ibv_send_flags, same bit values. */
enum rnic_send_flags {
	RNIC_SEND_FENCE = 1 << 0,
	RNIC_SEND_SIGNALED = 1 << 1,
	RNIC_SEND_SOLICITED = 1 << 2,
	RNIC_SEND_INLINE = 1 << 3,
};

/* enum ibv_wc_flags, same bit values. */
enum rnic_wc_flags {
	RNIC_WC_GRH = 1 << 0,
	RNIC_WC_WITH_IMM = 1 << 1,
	RNIC_WC_WITH_INV = 1 << 3, /* invalidated_rkey is valid (IBV_WC_WITH_INV) */
};

/* ---------------------------------------------------------------- objects */

/* The opened device. Opaque: the backend, the register block addresses found
 * by walking the block chain, the resource tables. */
struct rnic_device;

struct rnic_context {
	struct rnic_device *device;
	int num_comp_vectors; /* always 0: no completion channels yet */
};

/* struct ibv_device_attr, the fields that mean something here, plus the
 * device's own figures from the DEV block. */
struct rnic_device_attr {
	char fw_ver[64];         /* "<dev block major>.<minor>" */
	uint32_t vendor_id;      /* PCI vendor ID */
	uint32_t vendor_part_id; /* PCI device ID */
	uint32_t hw_ver;         /* DEV block VERSION register (major << 16 | minor) */
	uint64_t max_mr_size;
	int max_qp;              /* QPs the library can create (QPN 0 and 1 are reserved) */
	int max_qp_wr;           /* SQ entries per QP */
	int max_sge;             /* SGEs per send WQE */
	int max_cq;
	int max_cqe;
	int max_mr;
	int max_pd;
	int max_qp_rd_atom;
	int max_qp_init_rd_atom;
	uint8_t phys_port_cnt;   /* 1 */
	/* OpenRNIC figures */
	uint32_t data_width;     /* data-path width in bits */
	uint32_t clock_mhz;      /* stated core clock */
	uint32_t max_inflight;   /* send WQEs a QP may have unacknowledged */
	uint32_t max_inline_data;
	uint8_t mac[6];          /* port 1 MAC address, mac[0] first on the wire */
	int wqe_window;          /* rnic_post_send writes a single inline WQE into the doorbell page */
	/* shared receive queues (appended: struct ibv_device_attr's names) */
	int max_srq;
	int max_srq_wr;
	int max_srq_sge;
	/* UD */
	int max_ah;              /* address handles */
	/* memory windows: they take MPT indices from the same pool as the MRs */
	int max_mw;
	uint32_t max_ud_payload; /* bytes a UD SEND may carry: the port's MTU (rnic_set_port_mtu) */
	/* multicast (struct ibv_device_attr's names) */
	int max_mcast_grp;             /* groups (the device's group table) */
	int max_mcast_qp_attach;       /* QPs per group */
	int max_total_mcast_qp_attach; /* attachments of all groups together */
};

struct rnic_pd {
	struct rnic_context *context;
	uint32_t handle; /* protection domain number (the PD field of MPT and QPC) */
};

struct rnic_mr {
	struct rnic_context *context;
	struct rnic_pd *pd;
	void *addr;
	size_t length;
	uint32_t handle; /* MPT index */
	uint32_t lkey;
	uint32_t rkey;   /* equal to lkey */
};

/* struct ibv_mw: a memory window (docs/mw.md). type is RNIC_MW_TYPE_1 or
 * RNIC_MW_TYPE_2; rkey is its current key (not usable for remote access
 * until the window is bound). */
struct rnic_mw {
	struct rnic_context *context;
	struct rnic_pd *pd;
	uint32_t rkey;
	uint32_t handle; /* MPT index */
	int type;
};

struct rnic_cq {
	struct rnic_context *context;
	void *cq_context;
	uint32_t handle; /* CQ number */
	int cqe;         /* entries in the ring (a power of two, >= the request) */
};

struct rnic_qp_cap {
	uint32_t max_send_wr;    /* 1..32768; rounded up to a power of two */
	uint32_t max_recv_wr;    /* 0..32768; rounded up to a power of two; 0: no RQ ring */
	uint32_t max_send_sge;   /* 0..RNIC_MAX_SEND_SGE */
	uint32_t max_recv_sge;   /* 0..RNIC_MAX_RECV_SGE */
	uint32_t max_inline_data; /* 0..RNIC_MAX_INLINE_BYTES */
};

/* ---------------------------------------------------------------- shared receive queues */

/* struct ibv_srq: receive WQEs shared by every QP created with it. */
struct rnic_srq {
	struct rnic_context *context;
	void *srq_context;
	struct rnic_pd *pd;
	uint32_t handle;         /* SRQ number */
};

/* struct ibv_srq_attr. */
struct rnic_srq_attr {
	uint32_t max_wr;         /* 1..max_srq_wr; rounded up to a power of two */
	uint32_t max_sge;        /* 0..max_srq_sge */
	uint32_t srq_limit;      /* the limit event is armed at this many WQEs (0: not armed) */
};

struct rnic_srq_init_attr {
	void *srq_context;
	struct rnic_srq_attr attr;
};

/* enum ibv_srq_attr_mask, same bit values. */
enum rnic_srq_attr_mask {
	RNIC_SRQ_MAX_WR = 1 << 0, /* not supported (no resizing) */
	RNIC_SRQ_LIMIT = 1 << 1,
};

struct rnic_qp_init_attr {
	void *qp_context;
	struct rnic_cq *send_cq;
	struct rnic_cq *recv_cq;
	struct rnic_srq *srq;    /* take receive WQEs from this SRQ (then max_recv_wr 0), or NULL */
	struct rnic_qp_cap cap;
	enum rnic_qp_type qp_type;
	int sq_sig_all;          /* every WQE signaled, whatever its send_flags */
};

union rnic_gid {
	uint8_t raw[16];
};

struct rnic_global_route {
	union rnic_gid dgid;     /* IPv6 GID, or IPv4-mapped ::ffff:a.b.c.d (sends IPv4) */
	uint32_t flow_label;     /* 20 bits; 0 = derive from the QP numbers */
	uint8_t sgid_index;      /* index into the port GID table */
	uint8_t hop_limit;       /* IPv4 TTL / IPv6 hop limit; 0 = RNIC_IPV4_DEFAULT_TTL */
	uint8_t traffic_class;
};

struct rnic_ah_attr {
	struct rnic_global_route grh;
	uint16_t dlid;           /* unused on RoCE */
	uint8_t sl;              /* unused */
	uint8_t src_path_bits;   /* unused */
	uint8_t static_rate;     /* unused */
	uint8_t is_global;       /* must be 1: RoCE always carries a GRH */
	uint8_t port_num;        /* unused: the device has port 1 only */
	uint8_t dmac[6];         /* next-hop MAC address, dmac[0] first on the wire */
};

struct rnic_qp_attr {
	uint32_t qp_state;        /* RNIC_QPS_* (enum ibv_qp_state) */
	uint32_t cur_qp_state;
	uint32_t path_mtu;       /* RNIC_IB_MTU_* (enum ibv_mtu) */
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	unsigned int qp_access_flags;
	struct rnic_qp_cap cap;
	struct rnic_ah_attr ah_attr;
	uint16_t pkey_index;     /* must be 0 */
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t port_num;        /* must be 1 */
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint32_t qkey;           /* UD: Q_Key (RNIC_QP_QKEY) */
};

/* ibv_ah: the destination of UD sends (rnic_create_ah). */
struct rnic_ah {
	struct rnic_context *context;
	struct rnic_pd *pd;
	uint32_t handle;         /* AH number (the AH table index a send WQE names) */
};

struct rnic_qp {
	struct rnic_context *context;
	void *qp_context;
	struct rnic_pd *pd;
	struct rnic_cq *send_cq;
	struct rnic_cq *recv_cq;
	uint32_t handle;
	uint32_t qp_num;
	uint32_t state;          /* RNIC_QPS_* as the library last set it */
	enum rnic_qp_type qp_type;
};

/* struct ibv_sge. (struct rnic_sge is the 16-byte wire SGE of rnic_hw.h.) */
struct rnic_sg_entry {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/* struct ibv_mw_bind_info: the MR a window is bound to, the window's range
 * inside it (addr is an offset from 0 with RNIC_ACCESS_ZERO_BASED) and its
 * rights (RNIC_ACCESS_REMOTE_*, RNIC_ACCESS_ZERO_BASED). length 0 unbinds
 * a type 1 window (mr may then be NULL). */
struct rnic_mw_bind_info {
	struct rnic_mr *mr;
	uint64_t addr;
	uint64_t length;
	unsigned int mw_access_flags;
};

/* struct ibv_mw_bind (rnic_bind_mw). */
struct rnic_mw_bind {
	uint64_t wr_id;
	unsigned int send_flags; /* RNIC_SEND_SIGNALED, RNIC_SEND_FENCE */
	struct rnic_mw_bind_info bind_info;
};

struct rnic_send_wr {
	uint64_t wr_id;
	struct rnic_send_wr *next;
	struct rnic_sg_entry *sg_list;
	int num_sge;
	uint32_t opcode;         /* RNIC_WR_* (enum ibv_wr_opcode) */
	unsigned int send_flags; /* RNIC_SEND_* */
	uint32_t imm_data;       /* network byte order, as ibv's __be32 imm_data */
	uint32_t invalidate_rkey; /* RNIC_WR_LOCAL_INV, RNIC_WR_SEND_WITH_INV (RC): the type 2 window's key to invalidate */
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {             /* RNIC_WR_BIND_MW (type 2 windows) */
			struct rnic_mw *mw;
			uint32_t rkey;   /* the window's key after the bind: its index, a new tag */
			struct rnic_mw_bind_info bind_info;
		} bind_mw;
		struct {             /* UD QPs */
			struct rnic_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey; /* bit 31 set: send the QP's own Q_Key */
		} ud;
	} wr;
};

/* struct ibv_recv_wr: one receive buffer, scattered over num_sge SGEs. */
struct rnic_recv_wr {
	uint64_t wr_id;
	struct rnic_recv_wr *next;
	struct rnic_sg_entry *sg_list;
	int num_sge;             /* 0..the QP's cap.max_recv_sge */
};

/* struct ibv_wc. For a receive completion (opcode RNIC_WC_RECV or
 * RNIC_WC_RECV_RDMA_WITH_IMM) wr_id is the receive WR's, byte_len the bytes
 * the message carried and src_qp the sending QP. */
struct rnic_wc {
	uint64_t wr_id;
	uint32_t status;         /* RNIC_WC_* status (enum ibv_wc_status) */
	uint32_t opcode;         /* RNIC_WC_* opcode (enum ibv_wc_opcode) */
	uint32_t vendor_err;     /* AETH syndrome of the NAK that ended the WQE, else 0 */
	uint32_t byte_len;
	uint32_t imm_data;       /* network byte order */
	uint32_t qp_num;
	uint32_t src_qp;
	unsigned int wc_flags;   /* RNIC_WC_GRH, RNIC_WC_WITH_IMM, RNIC_WC_WITH_INV */
	uint32_t invalidated_rkey; /* with RNIC_WC_WITH_INV: the rkey the responder invalidated */
	uint8_t smac[6];         /* a UD or GSI QP's receive (not a flush): the frame's Ethernet
				  * source MAC (the kernel's ib_wc.smac); else 0 */
};

/* ---------------------------------------------------------------- calls */

/* Device. */
struct rnic_context *rnic_open_sim(struct rnic_world *world, int nic_index);
int rnic_close_device(struct rnic_context *context);
int rnic_query_device(struct rnic_context *context, struct rnic_device_attr *device_attr);

/* Protection domains and memory regions. */
struct rnic_pd *rnic_alloc_pd(struct rnic_context *context);
int rnic_dealloc_pd(struct rnic_pd *pd);
struct rnic_mr *rnic_reg_mr(struct rnic_pd *pd, void *addr, size_t length, int access);
int rnic_dereg_mr(struct rnic_mr *mr);
/* Memory windows (ibv_alloc_mw, ibv_dealloc_mw): type RNIC_MW_TYPE_1 or
 * RNIC_MW_TYPE_2. rnic_dereg_mr of an MR with a window bound to it fails
 * with EBUSY. */
struct rnic_mw *rnic_alloc_mw(struct rnic_pd *pd, int type);
int rnic_dealloc_mw(struct rnic_mw *mw);
/* ibv_bind_mw: bind (or, length 0, unbind) the type 1 window mw by a
 * BIND_MW WQE posted on qp (docs/mw.md); the library chooses the next tag
 * and sets mw->rkey to the new key (rnic_inc_rkey) when the WQE is posted.
 * 0 or an errno, nothing posted (as rdma-core's ibv_bind_mw and its
 * providers: EINVAL: a NULL argument, not a type 1 window, another
 * device's objects, rights other than RNIC_ACCESS_REMOTE_* (zero-based
 * too: o10-36.2.2), send flags other than SIGNALED and FENCE, no MR with a
 * nonzero address or length, the QP not in RTS; EPERM: the MR of another
 * PD than the window's; ENOMEM: the SQ is full). The device's refusals
 * (the MR lacks RNIC_ACCESS_MW_BIND, the range is outside it, the QP of
 * another PD) complete the WQE with RNIC_WC_MW_BIND_ERR. */
int rnic_bind_mw(struct rnic_qp *qp, struct rnic_mw *mw, struct rnic_mw_bind *mw_bind);
/* ibv_inc_rkey: the key after rkey, same MPT index, the next tag (the
 * invalid lkey skipped). rnic_bind_mw gives a type 1 window this key of
 * its current one; a BIND_MW WQE of a type 2 window usually names it. */
static inline uint32_t rnic_inc_rkey(uint32_t rkey)
{
	uint32_t m = (1u << RNIC_MKEY_TAG_BITS) - 1, k = (rkey & ~m) | ((rkey + 1) & m);

	return k == RNIC_INVALID_LKEY ? (k & ~m) | ((k + 1) & m) : k;
}

/* Completion queues. */
struct rnic_cq *rnic_create_cq(struct rnic_context *context, int cqe);
int rnic_destroy_cq(struct rnic_cq *cq);
int rnic_poll_cq(struct rnic_cq *cq, int num_entries, struct rnic_wc *wc);

/* Queue pairs. */
struct rnic_qp *rnic_create_qp(struct rnic_pd *pd, struct rnic_qp_init_attr *qp_init_attr);
int rnic_modify_qp(struct rnic_qp *qp, struct rnic_qp_attr *attr, int attr_mask);
int rnic_query_qp(struct rnic_qp *qp, struct rnic_qp_attr *attr, int attr_mask,
		  struct rnic_qp_init_attr *init_attr);
int rnic_destroy_qp(struct rnic_qp *qp);
int rnic_post_send(struct rnic_qp *qp, struct rnic_send_wr *wr, struct rnic_send_wr **bad_wr);
/* Post receive buffers to the QP's RQ; allowed in every state but RESET
 * (in ERR the device flushes them with RNIC_WC_WR_FLUSH_ERR). */
int rnic_post_recv(struct rnic_qp *qp, struct rnic_recv_wr *wr, struct rnic_recv_wr **bad_wr);

/* Shared receive queues (ibv_create_srq and friends; docs/api.md). */
struct rnic_srq *rnic_create_srq(struct rnic_pd *pd, struct rnic_srq_init_attr *srq_init_attr);
int rnic_modify_srq(struct rnic_srq *srq, struct rnic_srq_attr *srq_attr, int srq_attr_mask);
int rnic_query_srq(struct rnic_srq *srq, struct rnic_srq_attr *srq_attr);
/* EBUSY while a QP uses the SRQ. */
int rnic_destroy_srq(struct rnic_srq *srq);
int rnic_post_srq_recv(struct rnic_srq *srq, struct rnic_recv_wr *recv_wr,
		       struct rnic_recv_wr **bad_recv_wr);
/* Address handles (UD): is_global must be 1 (RoCE); grh.dgid IPv6 or
 * IPv4-mapped; dmac the next hop's MAC as for an RC path, except for a
 * multicast dgid, whose MAC the library derives (01:00:5e + the low 23 bits
 * of an IPv4 group, 33:33 + the low 32 bits of an IPv6 one). */
struct rnic_ah *rnic_create_ah(struct rnic_pd *pd, struct rnic_ah_attr *attr);
int rnic_destroy_ah(struct rnic_ah *ah);
/* Multicast (ibv_attach_mcast / ibv_detach_mcast): a UD QP (not QP1) joins
 * or leaves the group gid (IPv6 ff00::/8, or IPv4-mapped ::ffff:224.0.0.0/4);
 * lid must be 0. The port then takes UD SENDs to the multicast QPN 0xFFFFFF
 * of that group and hands each attached QP a copy. 0 or an errno: EINVAL
 * (not a UD QP, not a multicast GID, lid not 0, detach of a QP that is not
 * attached), ENOMEM (the group has max_mcast_qp_attach QPs, or the group
 * table has no room for a new group: docs/multicast.md). Attaching a QP
 * that is attached already changes nothing; destroying a QP detaches it. */
int rnic_attach_mcast(struct rnic_qp *qp, const union rnic_gid *gid, uint16_t lid);
int rnic_detach_mcast(struct rnic_qp *qp, const union rnic_gid *gid, uint16_t lid);

/* Port 1 addressing. A GID table entry is an IPv6 address or an IPv4-mapped
 * one (::ffff:a.b.c.d, made by rnic_gid_from_ipv4); a QP whose dgid is
 * IPv4-mapped sends IPv4. These return 0 or an errno (EINVAL: bad index). */
int rnic_set_port_mac(struct rnic_context *context, const uint8_t mac[6]);
int rnic_set_gid(struct rnic_context *context, int index, const union rnic_gid *gid);
int rnic_query_gid(struct rnic_context *context, uint8_t port_num, int index, union rnic_gid *gid);
/* The port's active MTU (RNIC_IB_MTU_*, 256..4096): every UD QP's path MTU
 * from its next move to INIT on; RNIC_IB_MTU_4096 after reset. */
int rnic_set_port_mtu(struct rnic_context *context, uint32_t mtu);
void rnic_gid_from_ipv4(union rnic_gid *gid, const uint8_t ip[4]);

/* Read one STAT_* counter (reg is an RNIC_REG_STAT_* address). */
int rnic_read_counter(struct rnic_context *context, uint32_t reg, uint32_t *value);

/* Asynchronous events (enum ibv_event_type values: RNIC_ASYNC_EVENT_* in
 * rnic_hw.h), from the firmware's event ring. */
enum rnic_event_type {
	RNIC_EVENT_CQ_ERR = 0,   /* the CQ overran: completions were lost */
	RNIC_EVENT_QP_FATAL = 1, /* the device moved the QP to the error state */
	RNIC_EVENT_QP_REQ_ERR = 2,    /* its responder refused an invalid request: QP in error */
	RNIC_EVENT_QP_ACCESS_ERR = 3, /* its responder refused a request's rkey or access: QP in error */
	RNIC_EVENT_SRQ_LIMIT_REACHED = 15,   /* the SRQ's WQEs fell below its limit (now disarmed) */
	RNIC_EVENT_QP_LAST_WQE_REACHED = 16, /* a QP on an SRQ, in error, takes no more of its WQEs */
};

struct rnic_async_event {
	union {
		struct rnic_cq *cq;
		struct rnic_qp *qp;
		struct rnic_srq *srq;
	} element;
	enum rnic_event_type event_type;
};

/* ibv_get_async_event without blocking: 0 and the oldest event not yet
 * taken, or EAGAIN when there is none (EINVAL: NULL argument). Events of
 * objects destroyed since are skipped. A QP_FATAL, QP_REQ_ERR or
 * QP_ACCESS_ERR event also sets the QP's state to RNIC_QPS_ERR. */
int rnic_get_async_event(struct rnic_context *context, struct rnic_async_event *event);
/* Events the device dropped because the ring was full (EQ_LOST). */
uint32_t rnic_async_events_lost(struct rnic_context *context);

/* Strings. */
const char *rnic_wc_status_str(uint32_t status);
const char *rnic_event_type_str(enum rnic_event_type type);

#ifdef __cplusplus
}
#endif

#endif /* RNIC_VERBS_H */
