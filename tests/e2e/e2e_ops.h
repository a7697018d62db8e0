/* Lists of work requests checked against images of memory, shared by the
 * end-to-end READ and ATOMIC programs: a frame hook on a world, the buffers
 * of one case with the image of what each must hold at the end, the
 * operations (READ, WRITE, SEND with its receive, ATOMIC compare-and-swap
 * and fetch-and-add) and a runner that posts them, waits for every
 * completion and checks the completions and both sides' memory.
 *
 * An op takes effect on the images in posting order (which one QP keeps):
 * a READ copies its source's image into the images of its local SGEs, a
 * WRITE or SEND the other way; an ATOMIC reads the 8 bytes of its target's
 * image, writes that original value (host byte order) over the images of
 * its SGEs and the result (swap when the compare matched, the sum) into the
 * target's image. */
#ifndef RNIC_E2E_OPS_H
#define RNIC_E2E_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"
#include "e2e_common.h"

#define E2E_MAX_BUFS 16
#define E2E_MAX_OPS 128
#define E2E_MAX_PRINT 6 /* completions described per run; the rest are counted */
#define E2E_BTH_OFFSET (RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES + RNIC_UDP_HDR_BYTES)
#define E2E_NAK(code) (RNIC_AETH_KIND_NAK << 5 | (code))

/* Every work request of the program has its own wr_id, from this. */
extern uint64_t e2e_wr_seq;

uint64_t e2e_get_be(const uint8_t *p, int n);
uint64_t e2e_get_le64(const uint8_t *p);
void e2e_put_le64(uint8_t *p, uint64_t v);

/* ---------------------------------------------------------------- wire */

/* The QP pair whose QP on side s has number qpn, or -1. */
int e2e_pair_of(const struct sim_pair *p, int s, uint32_t qpn);
/* The BTH of a RoCEv2 frame over IPv4 (every QP here uses IPv4-mapped
 * GIDs), or NULL. */
const uint8_t *e2e_bth_of(const uint8_t *f, size_t len);

/* Called for each RoCEv2 frame over IPv4 that side port sent to a QP of
 * QP pair q, as it arrives at the far end of its cable: bth is its BTH,
 * len the length of the whole frame, state the hook's state. */
typedef void e2e_frame_fn(void *state, int port, int q, const uint8_t *bth, size_t len);

/* A frame hook and its state: x->priv of a world made by e2e_tap_world_init. */
struct e2e_tap {
	e2e_frame_fn *fn;
	void *state;
	size_t size;
};

/* e2e_world_init with a frame hook: each time the world comes up the state
 * (size bytes) is zeroed, then fn sees every frame of the QPs. */
void e2e_tap_world_init(struct e2e_world *x, struct e2e_tap *tap, const char *name,
			const struct sim_pair_opts *o, e2e_frame_fn *fn, void *state, size_t size);

/* The state of the frame hook of x. */
static inline void *e2e_tap_state(const struct e2e_world *x)
{
	return ((const struct e2e_tap *)x->priv)->state;
}

/* Before each case: rebuild a dirty world, then make the call. */
#define E2E_RUN(x, call)                  \
	do {                              \
		if (e2e_world_ready(x))   \
			call;             \
	} while (0)

/* Make x lossy (1% drop, 1% reorder, 1% duplication, 0.1% corruption, and
 * waits long enough for retransmissions), bring it up and print the seed:
 * 1 when it is up. */
int e2e_lossy_up(struct e2e_world *x);

/* ---------------------------------------------------------------- memory */

/* The buffers of one case and, for each, the image of what its whole span
 * (guards included) must hold at the end. */
struct e2e_mem {
	int n;
	struct e2e_buf b[E2E_MAX_BUFS];
	uint8_t *want[E2E_MAX_BUFS]; /* from p - E2E_GUARD to p + len + E2E_GUARD */
	int side[E2E_MAX_BUFS];
	const char *name[E2E_MAX_BUFS];
};

/* A buffer on side s (random contents with fill_random, else the guard
 * pattern): its index, or -1. */
int e2e_mem_add(struct e2e_mem *m, struct e2e_world *x, int s, const char *name, size_t len, int access,
		int fill_random);
void e2e_mem_free(struct e2e_mem *m);
/* Where the image of byte off of buffer i lies. */
uint8_t *e2e_want_at(struct e2e_mem *m, int i, long off);
/* Set the 8 bytes at off of buffer i, in memory and image. */
void e2e_mem_set64(struct e2e_mem *m, int i, size_t off, uint64_t v);
/* The 8 bytes at off of buffer i, from memory. */
uint64_t e2e_mem_get64(const struct e2e_mem *m, int i, size_t off);
/* Every buffer equals its image; prints the first difference of each. */
int e2e_mem_check(const struct e2e_mem *m);

/* ---------------------------------------------------------------- work */

struct e2e_lsge {
	int buf;
	size_t off;
	uint32_t len;
};

/* One work request and what it must do. */
struct e2e_op {
	int side;             /* the requester */
	int qp;               /* QP pair */
	uint32_t opcode;      /* RNIC_WR_RDMA_READ, _RDMA_WRITE, _SEND or _ATOMIC_* */
	int nsge;
	struct e2e_lsge sge[RNIC_MAX_SEND_SGE];
	int rbuf;             /* READ source, WRITE or ATOMIC target, SEND receive buffer; -1: address 0, rkey 0 */
	long roff;            /* from the start of rbuf; may lie outside it */
	uint64_t cmp_add, swap; /* ATOMIC operands */
	uint32_t rkey_xor;    /* bits flipped in the rkey */
	int rkey_set;         /* use rkey below */
	uint32_t rkey;
	int raddr_set;        /* send raddr as the remote address (roff still names the bytes: a zero-based window) */
	uint64_t raddr;
	uint32_t lkey_xor;    /* bits flipped in the first SGE's lkey */
	uint32_t status;      /* the completion's status; the op takes effect only with SUCCESS */
	long long vendor_err; /* E2E_ANY or the AETH syndrome of the NAK */
	int sge_free;         /* failed: its own SGEs may have been written */
	int unordered;        /* other QPs change its target at the same time: the case checks it */
	int fence;            /* RNIC_SEND_FENCE: waits for the READs and ATOMICs before it */
};

int e2e_is_atomic(uint32_t opcode);
struct e2e_op e2e_op_new(int side, int qp, uint32_t opcode);
void e2e_op_sge(struct e2e_op *o, int buf, size_t off, uint32_t len);
/* A READ, WRITE (or SEND into a receive buffer at roff of rbuf) of len
 * bytes between roff of rbuf and one SGE at off of buf. */
struct e2e_op e2e_op_rw(int side, int qp, uint32_t opcode, int buf, size_t off, int rbuf, long roff,
			uint32_t len);
/* A compare-and-swap (cas) or fetch-and-add of the 8 bytes at roff of rbuf,
 * the original value into 8 bytes at off of buf. */
struct e2e_op e2e_op_atomic(int side, int qp, int cas, int buf, size_t off, int rbuf, long roff,
			    uint64_t cmp_add, uint64_t swap);
uint32_t e2e_op_len(const struct e2e_op *o);
const char *e2e_op_name(uint32_t opcode);

/* How an op must fail: its status and the AETH syndrome of the NAK (or
 * E2E_ANY). */
struct e2e_err_def {
	const char *name;
	uint32_t status;
	long long syndrome;
};

/* Set o to fail as d says; 1 when that is a local protection error. */
int e2e_op_fails(struct e2e_op *o, const struct e2e_err_def *d);
/* After an error case on QP pair k whose responder writes no CQE: side 1
 * got exactly the asynchronous event a NAK of d's syndrome calls for on its
 * QP k (invalid request: QP_REQ_ERR; remote access error: QP_ACCESS_ERR;
 * remote operational error: QP_FATAL), and that QP is in ERR; no event
 * where d has no NAK. 1 if so; else prints what came. */
int e2e_resp_event_ok(struct e2e_world *x, int k, const struct e2e_err_def *d);
/* Move the QP of side s on QP pair q to RTS with these access flags: 0 or
 * the errno of modify_qp. */
int e2e_qp_access(struct e2e_world *x, int s, int q, unsigned int access);
/* The counters of an error suite: the NAKs side 1 sent (STAT_TX_NAK), the
 * access errors it counted (STAT_RX_ACCESS_ERR), and side 0's local
 * protection errors (STAT_LOC_PROT_ERR). */
void e2e_err_counters(struct e2e_world *x, uint32_t c[3]);
/* The closing line of an error suite "<what> errors: ...": since c0, side 1
 * sent nak NAKs and counted acc access errors, side 0 counted prot local
 * protection errors. Nothing when the world is down or was rebuilt. */
void e2e_err_counters_check(struct e2e_world *x, const uint32_t c0[3], const char *what, uint32_t nak,
			    uint32_t acc, uint32_t prot);

/* What e2e_run_ops saw. */
struct e2e_run {
	int want[2], got[2];           /* completions per side */
	int bad_wc;                    /* completions not as expected */
	int wc_ok, mem_ok;
	long long status[E2E_MAX_OPS]; /* of each op's (send) completion, or -1 */
	uint64_t cycles;
};

/* The status op j completed with. */
const char *e2e_st(const struct e2e_run *r, int j);
int e2e_got(const struct e2e_run *r);
int e2e_wanted(const struct e2e_run *r);

/* Post ops (first a receive for each SEND, then the work requests in
 * order, consecutive ones of one side and QP in one post_send), wait for
 * all their completions, check them (each the next op of its QP, receive
 * completions the next SEND towards it), then both sides' memory against
 * the images (the SGEs of an unordered op or one with sge_free are taken
 * as they are). Returns 1 when everything is as expected. */
int e2e_run_ops(struct e2e_world *x, struct e2e_mem *m, struct e2e_op *ops, int n, struct e2e_run *r);

#endif
