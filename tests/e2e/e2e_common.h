/* What the end-to-end programs share: the PASS/FAIL printer and its
 * counters, the command line, the seeded test data, counter reads, the
 * checks made on each NIC before its world goes away, guarded buffers, a
 * world of two NICs that is rebuilt after a failed case, waiting for
 * completions and checking them. */
#ifndef RNIC_E2E_COMMON_H
#define RNIC_E2E_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"

/* From the command line (--width, --seed, --pcap-dir, --quick). */
extern int e2e_width;
extern unsigned int e2e_board; /* --board: RNIC_SIM_BOARD_* */
extern uint64_t e2e_seed;
extern const char *e2e_pcap_dir;
extern int e2e_quick;
extern int e2e_passed, e2e_failed;

/* Parse the common options; prog names the program in messages, help is
 * printed after the usage line. Returns -1 to go on, else the exit code. */
int e2e_parse_args(int argc, char **argv, const char *prog, const char *help);

/* One line "PASS wW ..." or "FAIL wW ...", counted. */
void e2e_result(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The closing line "N passed, N failed"; returns the exit code. */
int e2e_summary(void);

/* A program's suite at each path MTU: 256, 1024 and 4096, or with --quick
 * 1024 only; suite(mtu, quick) is told whether to leave its big cases out. */
void e2e_mtu_suites(void (*suite)(uint32_t mtu, int quick));

/* splitmix64: deterministic test data from the seed */
void e2e_rng_seed(uint64_t s);
uint64_t e2e_rng(void);

/* A statistics counter, or on_error when it cannot be read. */
uint32_t e2e_counter_or(struct rnic_context *ctx, uint32_t reg, uint32_t on_error);
static inline uint32_t e2e_counter(struct rnic_context *ctx, uint32_t reg)
{
	return e2e_counter_or(ctx, reg, 0);
}

struct e2e_nic_health {
	uint64_t faults;          /* DMA outside mapped memory */
	uint64_t protocol_errors; /* AXI4 rule broken (4 KiB crossing, bad burst) */
	uint64_t bar_errors;
	struct rnic_sim_memcheck_stats mc; /* the memory-protection checker */
};

void e2e_nic_health(struct rnic_sim_nic *nic, struct e2e_nic_health *h);

/* One PASS/FAIL line per NIC of w: no DMA fault, no AXI protocol error, no
 * memory-protection violation (with the checker's counts) and, with bar
 * set, no BAR error. Made before each world goes away. */
void e2e_check_nics(struct rnic_world *w, const char *tag, int bar);

/* ---------------------------------------------------------------- buffers */

#define E2E_GUARD 4096      /* guard bytes on each side of a buffer */
#define E2E_GUARD_BYTE 0xa5 /* what the guards (and unwritten buffers) hold */

/* A buffer with guard zones on both sides; only the middle is registered. */
struct e2e_buf {
	uint8_t *base;
	uint8_t *p;         /* base + E2E_GUARD */
	size_t len;
	struct rnic_mr *mr; /* [p, p + len) (one byte for len 0) */
	int access;
};

/* 0 or an errno. The whole buffer holds E2E_GUARD_BYTE, the middle random
 * bytes (e2e_rng) with fill_random. */
int e2e_buf_init(struct e2e_buf *b, struct rnic_pd *pd, size_t len, int access, int fill_random);
/* Deregisters and frees (a buffer of a world that is up goes to a cache
 * instead, and e2e_buf_init of the same PD, length and access takes it back
 * refilled: registrations are firmware commands); a zeroed or freed buffer
 * is left alone. */
void e2e_buf_free(struct e2e_buf *b);
/* Bytes [from, to) of the buffer (offsets from p, from -E2E_GUARD up to
 * len + E2E_GUARD) still hold the guard pattern. */
int e2e_untouched(const struct e2e_buf *b, long from, long to);
/* Everything but [off, off + n) is untouched, guards included. */
int e2e_only_written(const struct e2e_buf *b, size_t off, size_t n);

struct rnic_sg_entry e2e_sg(const void *addr, uint32_t len, uint32_t lkey);

/* ---------------------------------------------------------------- worlds */

#define E2E_IDLE_CYCLES 30000u         /* no frame and no DMA beat this long: stuck */
#define E2E_MAX_WAIT_CYCLES 3000000ull /* ceiling of one wait (a 1 MiB message at MTU 256: ~0.5M) */
#define E2E_MAX_BAD_CQES 4             /* a wait gives up after this many CQEs poll_cq refused */

/* Two NICs (sim_pair) in one world whose capture is DIR/<tag>.pcap. A case
 * that fails marks the world dirty; e2e_world_ready then rebuilds it (a new
 * capture, suffix _rN) before the next case, since the failed case may have
 * left its QPs in any state. */
struct e2e_world {
	struct rnic_world *w;
	struct sim_pair p;
	struct sim_pair_opts o;
	char tag[64];              /* "wW_<name>" */
	int up;
	int dirty;                 /* a case failed: rebuild before the next one */
	int generation;            /* rebuilds so far */
	uint32_t recv_done[2];     /* receive completions polled on each side */
	uint32_t recv_cqe_base[2]; /* STAT_RECV_CQE when the world came up */
	/* Set by e2e_world_init; may be changed before e2e_world_up. */
	double p_drop, p_reorder, p_dup, p_corrupt; /* link faults (0) */
	uint64_t idle_cycles;      /* e2e_wait_cqs gives up after this long without movement */
	uint64_t max_wait_cycles;  /* ... or after this long in all */
	void (*on_up)(struct e2e_world *x);   /* the QPs are connected (NULL: nothing) */
	void (*on_down)(struct e2e_world *x); /* before the QPs go away (NULL: nothing) */
	void *priv;                /* for the hooks */
};

/* Fill x: tag "w<width>_<name>", the pair's options, the defaults above. */
void e2e_world_init(struct e2e_world *x, const char *name, const struct sim_pair_opts *o);
/* Create the world and connect the QPs; 1 on success, else 0 (after a FAIL
 * line). */
int e2e_world_up(struct e2e_world *x);
/* e2e_world_init, then e2e_world_up. */
int e2e_world_open(struct e2e_world *x, const char *name, const struct sim_pair_opts *o);
/* The end of a world: no stray completion, the NICs counted every receive
 * completion the host polled (STAT_RECV_CQE), on_down, then e2e_check_nics
 * (with BAR errors). Nothing when the world is not up. */
void e2e_world_down(struct e2e_world *x);
/* Before each case: rebuild a dirty world; 1 when a world is up. */
int e2e_world_ready(struct e2e_world *x);
/* After each case: a failure makes the world dirty. */
void e2e_case_done(struct e2e_world *x, int ok);
/* Poll both CQs for this many cycles; prints and returns the completions
 * that arrived (and CQEs poll_cq refused): none is expected. */
int e2e_drain_quiet(struct e2e_world *x, unsigned int cycles);

/* Poll side 0's CQ for n0 completions and side 1's for n1, until both have
 * them, nothing moved (no frame, no DMA beat) for x->idle_cycles,
 * x->max_wait_cycles passed or poll_cq refused E2E_MAX_BAD_CQES CQEs
 * (naming no outstanding WQE). Each empty poll costs one cycle. Returns 1
 * when all arrived and no CQE was refused; *got0, *got1 (may be NULL) tell
 * how many arrived. */
int e2e_wait_cqs(struct e2e_world *x, struct rnic_wc *wc0, int n0, struct rnic_wc *wc1, int n1,
		 int *got0, int *got1);

/* ---------------------------------------------------------------- work */

/* The immediate of every WITH_IMM work request e2e_post_send1 posts. */
extern const uint8_t e2e_imm_bytes[4];

/* One work request (a WITH_IMM one carries e2e_imm_bytes); 0 or the errno
 * of post_send / post_recv, printed. */
int e2e_post_send1(struct rnic_qp *qp, uint64_t wr_id, uint32_t opcode, struct rnic_sg_entry *sge,
		   int nsge, unsigned int flags, uint64_t raddr, uint32_t rkey);
int e2e_post_recv1(struct rnic_qp *qp, uint64_t wr_id, struct rnic_sg_entry *sge, int nsge);
/* A UD QP (or QP1) from any state through RESET, INIT (port 1, P_Key index
 * 0, qkey) and RTR to RTS with sq_psn: 0, or the errno of the move that
 * failed (printed). */
int e2e_ud_to_rts(struct rnic_qp *qp, uint32_t qkey, uint32_t sq_psn);

/* What a completion must hold; E2E_ANY leaves a field unchecked. */
#define E2E_ANY (-1LL)
struct e2e_want {
	uint64_t wr_id;
	uint32_t status;
	long long opcode, byte_len, qp_num, src_qp, wc_flags, imm, vendor_err;
	const uint8_t *smac;  /* the receive's source MAC (UD, QP1); NULL: any */
};

/* wr_id, status and qp_num; the rest E2E_ANY. */
struct e2e_want e2e_want_status(uint64_t wr_id, uint32_t status, const struct rnic_qp *qp);
/* 1 if wc holds what w asks; else prints each difference after `what`. */
int e2e_wc_check(const char *what, const struct rnic_wc *wc, const struct e2e_want *w);
/* The status string of the first of n completions, or "no completion". */
const char *e2e_wcs(int n, const struct rnic_wc *wc);

#endif
