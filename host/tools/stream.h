/* Streaming messages between the two NICs of a sim_pair, every message
 * checked: the core of rnic-bench and rnic-perf --sim.
 *
 * One run posts `count` messages of `msg` bytes of one operation, split
 * evenly over the first `qps` QPs of the pair and posted round robin, one
 * WQE (and one doorbell) at a time, to every QP with room in its send queue.
 * Message s of QP q uses slot s % depth of the QP's slots in a source and a
 * destination buffer (the requester's and the responder's for WRITE and
 * SEND, the other way round for READ); slots are `stride` bytes apart, the
 * bytes between them guards. Every message carries its own pattern and is
 * checked byte for byte in its destination when it completes; the whole
 * destination (with the guards) is checked at the end.
 *
 * dir says which NIC requests (0: side 0, the default; 1: side 1; "side 0"
 * and "side 1" below are the requester and the responder), qp0 which QP
 * pair is the stream's first: two streams on disjoint QP pairs, one each
 * way, run at once with stream_run_all (both directions of the link busy).
 *
 * mw 1 or 2 (WRITE, READ, ATOMIC): side 1's MR grants no remote access;
 * each QP's part of side 1's buffer is reached through a memory window of
 * that type over it with only the operation's right, bound by side 1's QP
 * (type 1: rnic_bind_mw; type 2: a BIND_MW WQE, reached on that QP only)
 * before the first message, its completion checked.
 *
 * ATOMIC fetch-and-add (msg 8): every message of QP q adds the QP's own
 * addend to one 8-byte counter on the responder; message s must return the
 * counter's start value plus s addends into its local slot, and the counter
 * must hold the start value plus all of them at the end.
 */
#ifndef RNIC_TOOLS_STREAM_H
#define RNIC_TOOLS_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "sim_pair.h"

#define STREAM_GUARD 0xa5
#define STREAM_HANG_CYCLES 2500000u  /* 10 ms without a completion (retries end after ~1 ms): failed */

struct stream {
	struct sim_pair *p;
	uint32_t opcode;   /* RNIC_WR_RDMA_WRITE, _RDMA_READ, _SEND or _ATOMIC_FETCH_AND_ADD */
	size_t msg, stride;
	uint64_t count;
	int qps, depth, signal_every;
	int dir;           /* the requesting NIC: 0 or 1 */
	int qp0;           /* the stream's QP pairs are qp0 .. qp0 + qps - 1 */
	uint32_t inline_max; /* WRITE and SEND of at most this many bytes go inline */
	int mw;            /* 0, or side 1 reached through windows of type 1 or 2 */
	uint64_t salt;
	uint64_t *lat;     /* not NULL: cycles from post to completion of each message (depth 1) */
	uint64_t *t_done;  /* not NULL: cycle at which the k-th message (of all QPs) completed */
	/* may be NULL; called every 4096 messages or 64 MiB completed */
	void (*progress)(void *arg, uint64_t done, uint64_t count);
	void *progress_arg;

	uint8_t *buf[2];   /* side 0's and side 1's */
	struct rnic_mr *mr[2];
	struct rnic_mw *win[SIM_PAIR_MAX_QPS]; /* mw: side 1's window of each QP */
	uint32_t rkey[SIM_PAIR_MAX_QPS];       /* the rkey side 0's QP q names: the window's or the MR's */
	uint64_t n[SIM_PAIR_MAX_QPS];       /* messages of each QP */
	uint64_t posted[SIM_PAIR_MAX_QPS];  /* send WQEs posted */
	uint64_t done[SIM_PAIR_MAX_QPS];    /* send WQEs completed */
	uint64_t rposted[SIM_PAIR_MAX_QPS]; /* SEND: receive WQEs posted */
	uint64_t rdone[SIM_PAIR_MAX_QPS];   /* SEND: receive WQEs completed */
	uint64_t ndone;    /* messages completed, all QPs */
	uint64_t t_post;   /* cycle of the last post (lat) */
	uint64_t reported; /* ndone at the last progress call */
	uint64_t cycles;   /* stream_run_all: first doorbell to this stream's last completion */
};

/* Messages are reported as "<stream_prog>: ..." on stderr. */
extern const char *stream_prog;

/* Print "<stream_prog>: ..." and a newline on stderr; returns -1. */
int stream_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

uint64_t stream_mix64(uint64_t x);

/* Run it. Returns the cycles from the first doorbell to the last completion
 * polled, 0 on any failure (reported on stderr). */
uint64_t stream_run(struct stream *st);

/* Run n streams at once (on disjoint QP pairs of one sim_pair); each one's
 * own cycles in its `cycles`. Returns the cycles from the first doorbell to
 * the last completion of all, 0 on any failure. */
uint64_t stream_run_all(struct stream **sts, int n);

/* The stride rnic-bench uses for msg: slots keep the message's natural
 * alignment up to a page, with at least 64 guard bytes between them. */
size_t stream_stride(size_t msg);

/* qsort comparison of uint64_t (latency samples). */
int stream_cmp_u64(const void *a, const void *b);

#endif
