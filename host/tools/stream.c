/* Streaming messages between the two NICs of a sim_pair (stream.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_bind.h"
#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "stream.h"

const char *stream_prog = "rnic";

/* ---------------------------------------------------------------- data */

uint64_t stream_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Byte i of the message tagged `tag`. */
static uint8_t pat(uint64_t tag, size_t i)
{
	return (uint8_t)(stream_mix64(tag ^ ((uint64_t)(i >> 3) << 24)) >> (8 * (i & 7)));
}

static void pat_fill(uint8_t *buf, size_t len, uint64_t tag)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pat(tag, i);
}

/* Offset of the first byte that differs from the message's pattern, or -1. */
static long pat_check(const uint8_t *buf, size_t len, uint64_t tag)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != pat(tag, i))
			return (long)i;
	return -1;
}

int stream_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

size_t stream_stride(size_t msg)
{
	size_t stride = msg + (msg < 4096 ? msg : 4096);

	return stride < msg + 64 ? msg + 64 : stride;
}

/* ---------------------------------------------------------------- streaming */

static int is_send(const struct stream *st)
{
	return st->opcode == RNIC_WR_SEND;
}

static int is_atomic(const struct stream *st)
{
	return st->opcode == RNIC_WR_ATOMIC_FETCH_AND_ADD;
}

static uint8_t *slot(const struct stream *st, int side, int q, uint64_t s)
{
	return st->buf[side] + ((size_t)q * (size_t)st->depth + (size_t)(s % (uint64_t)st->depth)) * st->stride;
}

/* The side whose buffer the data come from and the one they go to. */
static int src_side(const struct stream *st)
{
	return st->opcode == RNIC_WR_RDMA_READ || is_atomic(st) ? 1 : 0;
}

static uint64_t tag(const struct stream *st, int q, uint64_t s)
{
	return st->salt ^ ((uint64_t)q << 40) ^ s;
}

/* ATOMIC: QP q's counter (slot 0 of the responder), its start value and addend. */
static uint64_t atomic_start(const struct stream *st, int q)
{
	return stream_mix64(tag(st, q, ~0ull));
}

static uint64_t atomic_addend(const struct stream *st, int q)
{
	return stream_mix64(tag(st, q, ~1ull)) | 1;
}

static uint64_t get64(const uint8_t *b)
{
	uint64_t v;

	memcpy(&v, b, sizeof(v));
	return v;
}

int stream_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", stream_prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return -1;
}

/* The NIC of a role (0: the requester, 1: the responder) and its QP q of
 * the stream. */
static struct sim_pair_side *side_of(const struct stream *st, int role)
{
	return &st->p->side[role ^ st->dir];
}

static struct rnic_qp *qp_of(const struct stream *st, int role, int q)
{
	return side_of(st, role)->qp[st->qp0 + q];
}

static int qp_index(const struct stream *st, int role, uint32_t qp_num)
{
	for (int q = 0; q < st->qps; q++)
		if (qp_of(st, role, q)->qp_num == qp_num)
			return q;
	return -1;
}

/* Message s of QP q has arrived: its destination slot holds its pattern
 * (ATOMIC: its local slot holds the counter's value before it). */
static int check_msg(const struct stream *st, int q, uint64_t s)
{
	long off;

	if (is_atomic(st)) {
		uint64_t got = get64(slot(st, 0, q, s)), want = atomic_start(st, q) + s * atomic_addend(st, q);

		if (got != want)
			return stream_err("QP %d atomic %" PRIu64 ": returned 0x%016" PRIx64 ", want 0x%016" PRIx64, q, s,
				   got, want);
		return 0;
	}
	off = pat_check(slot(st, 1 - src_side(st), q, s), st->msg, tag(st, q, s));
	if (off >= 0)
		return stream_err("QP %d message %" PRIu64 ": destination differs at byte %ld", q, s, off);
	return 0;
}

static int post_one(struct stream *st, int q)
{
	uint64_t s = st->posted[q];
	struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)slot(st, 0, q, s), (uint32_t)st->msg, st->mr[0]->lkey};
	struct rnic_send_wr wr, *badwr;
	int err;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = s;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = st->opcode;
	wr.send_flags = ((s + 1) % (uint64_t)st->signal_every == 0 || s + 1 == st->n[q]) ? RNIC_SEND_SIGNALED : 0;
	if (is_atomic(st)) {
		/* the slot's previous result has been checked */
		memset(slot(st, 0, q, s), STREAM_GUARD, st->msg);
		wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)slot(st, 1, q, 0);
		wr.wr.atomic.compare_add = atomic_addend(st, q);
		wr.wr.atomic.rkey = st->rkey[q];
	} else {
		/* the slot's previous message has completed and been checked */
		pat_fill(slot(st, src_side(st), q, s), st->msg, tag(st, q, s));
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)slot(st, 1, q, s);
		wr.wr.rdma.rkey = st->rkey[q];
		if (st->opcode != RNIC_WR_RDMA_READ && st->msg <= st->inline_max)
			wr.send_flags |= RNIC_SEND_INLINE;
	}
	st->t_post = rnic_world_cycle(st->p->world);
	err = rnic_post_send(qp_of(st, 0, q), &wr, &badwr);
	if (err)
		return stream_err("post_send QP %d message %" PRIu64 ": %s", q, s, strerror(err));
	st->posted[q]++;
	return 0;
}

static int post_recv_one(struct stream *st, int q)
{
	uint64_t r = st->rposted[q];
	struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)slot(st, 1, q, r), (uint32_t)st->msg, st->mr[1]->lkey};
	struct rnic_recv_wr wr = {.wr_id = r, .sg_list = &sge, .num_sge = 1}, *badwr;
	int err = rnic_post_recv(qp_of(st, 1, q), &wr, &badwr);

	if (err)
		return stream_err("post_recv QP %d receive %" PRIu64 ": %s", q, r, strerror(err));
	st->rposted[q]++;
	return 0;
}

/* A requester completion of the stream's QP q: it and the unsignaled WQEs
 * before it are done. */
static int send_done(struct stream *st, int q, const struct rnic_wc *wc)
{
	static const uint32_t want_op[] = {
		[RNIC_WR_RDMA_WRITE] = RNIC_WC_RDMA_WRITE,
		[RNIC_WR_SEND] = RNIC_WC_SEND,
		[RNIC_WR_RDMA_READ] = RNIC_WC_RDMA_READ,
		[RNIC_WR_ATOMIC_FETCH_AND_ADD] = RNIC_WC_FETCH_ADD,
	};
	uint64_t now = rnic_world_cycle(st->p->world);

	if (wc->status != RNIC_WC_SUCCESS || wc->opcode != want_op[st->opcode] ||
	    wc->wr_id < st->done[q] || wc->wr_id >= st->posted[q] ||
	    ((st->opcode == RNIC_WR_RDMA_READ || is_atomic(st)) && wc->byte_len != st->msg))
		return stream_err("completion QP %d wr_id %" PRIu64 " (outstanding %" PRIu64 "..%" PRIu64
			   "): %s, opcode %u, byte_len %u",
			   q, wc->wr_id, st->done[q], st->posted[q],
			   rnic_wc_status_str(wc->status), wc->opcode, wc->byte_len);
	if (st->lat)
		st->lat[wc->wr_id] = now - st->t_post;
	for (; st->done[q] <= wc->wr_id; st->done[q]++) {
		if (!is_send(st) && check_msg(st, q, st->done[q]))
			return -1;
		if (st->t_done && st->ndone < st->count)
			st->t_done[st->ndone] = now;
		st->ndone++;
	}
	return 0;
}

/* A receive completion of a SEND on the stream's QP q: check the message,
 * post the next receive. */
static int recv_done(struct stream *st, int q, const struct rnic_wc *wc)
{
	if (wc->status != RNIC_WC_SUCCESS || wc->opcode != RNIC_WC_RECV ||
	    wc->wr_id != st->rdone[q] || wc->byte_len != st->msg)
		return stream_err("receive completion QP %d wr_id %" PRIu64 " (want %" PRIu64 "): %s, opcode %u, byte_len %u",
			   q, wc->wr_id, st->rdone[q], rnic_wc_status_str(wc->status), wc->opcode,
			   wc->byte_len);
	if (check_msg(st, q, st->rdone[q]))
		return -1;
	st->rdone[q]++;
	if (st->rposted[q] < st->n[q])
		return post_recv_one(st, q);
	return 0;
}

/* Post round robin until no QP has room: one WQE per QP per round. */
static int post_round_robin(struct stream *st)
{
	for (int progress = 1; progress;) {
		progress = 0;
		for (int q = 0; q < st->qps; q++) {
			if (st->posted[q] >= st->n[q] || st->posted[q] - st->done[q] >= (uint64_t)st->depth)
				continue;
			/* SEND: only into a receive WQE already posted (no RNR) */
			if (is_send(st) && st->posted[q] >= st->rposted[q])
				continue;
			if (post_one(st, q))
				return -1;
			progress = 1;
		}
	}
	return 0;
}

static int all_done(const struct stream *st)
{
	for (int q = 0; q < st->qps; q++)
		if (st->done[q] < st->n[q] || (is_send(st) && st->rdone[q] < st->n[q]))
			return 0;
	return 1;
}

/* First byte from off on of b[off..len) that is not the guard byte, or -1. */
static long guard_check(const uint8_t *b, size_t off, size_t len)
{
	for (size_t i = off; i < len; i++)
		if (b[i] != STREAM_GUARD)
			return (long)i;
	return -1;
}

/* ATOMIC at the end: every counter holds its start value plus its QP's
 * addends, everything else on the responder is still the guard byte. */
static int check_counters(const struct stream *st)
{
	for (int q = 0; q < st->qps; q++) {
		const uint8_t *b = slot(st, 1, q, 0);
		uint64_t want = atomic_start(st, q) + st->n[q] * atomic_addend(st, q), got = get64(b);
		long off;

		if (got != want)
			return stream_err("QP %d: counter 0x%016" PRIx64 " at the end, want 0x%016" PRIx64, q, got, want);
		off = guard_check(b, st->msg, (size_t)st->depth * st->stride);
		if (off >= 0)
			return stream_err("QP %d: responder buffer changed at byte %ld", q, off);
	}
	return 0;
}

/* The whole destination: every slot holds the last message it received
 * (untouched slots still the guard byte), every gap the guard byte. */
static int check_dest(const struct stream *st)
{
	const int side = 1 - src_side(st);

	if (is_atomic(st))
		return check_counters(st);
	for (int q = 0; q < st->qps; q++) {
		for (uint64_t j = 0; j < (uint64_t)st->depth; j++) {
			const uint8_t *b = slot(st, side, q, j);
			uint64_t last;
			long off = -1;

			if (j < st->n[q]) {
				last = j + (st->n[q] - 1 - j) / (uint64_t)st->depth * (uint64_t)st->depth;
				off = pat_check(b, st->msg, tag(st, q, last));
			} else {
				off = guard_check(b, 0, st->msg);
			}
			if (off < 0)
				off = guard_check(b, st->msg, st->stride);
			if (off >= 0)
				return stream_err("QP %d slot %" PRIu64 ": destination wrong at byte %ld at the end", q, j, off);
		}
	}
	return 0;
}

/* mw: side 1's windows, one per QP over its slots, bound by side 1's QP;
 * each bind's completion polled on side 1's CQ. */
static int bind_windows(struct stream *st)
{
	struct sim_pair *p = st->p;
	unsigned int rights = st->opcode == RNIC_WR_RDMA_READ ? RNIC_ACCESS_REMOTE_READ
			      : is_atomic(st) ? RNIC_ACCESS_REMOTE_ATOMIC : RNIC_ACCESS_REMOTE_WRITE;

	for (int q = 0; q < st->qps; q++) {
		struct rnic_mw *mw = rnic_alloc_mw(side_of(st, 1)->pd, st->mw == 1 ? RNIC_MW_TYPE_1 : RNIC_MW_TYPE_2);
		struct rnic_mw_bind_info bi = {st->mr[1], (uint64_t)(uintptr_t)slot(st, 1, q, 0),
					       (uint64_t)st->depth * st->stride, rights};
		uint64_t c0 = rnic_world_cycle(p->world);
		struct rnic_wc wc;
		int err, n;

		if (!mw)
			return stream_err("alloc_mw (type %d) for QP %d: %s", st->mw, q, strerror(errno));
		st->win[q] = mw;
		st->rkey[q] = rnic_inc_rkey(mw->rkey);
		err = mw_post_bind(qp_of(st, 1, q), mw, &bi, (uint64_t)q, st->rkey[q]);
		if (!err && st->mw == 1 && mw->rkey != st->rkey[q])
			return stream_err("rnic_bind_mw: key %#x, not %#x", mw->rkey, st->rkey[q]);
		if (err)
			return stream_err("binding QP %d's window: %s", q, strerror(err));
		while ((n = rnic_poll_cq(side_of(st, 1)->cq, 1, &wc)) == 0)
			if (rnic_world_cycle(p->world) - c0 > STREAM_HANG_CYCLES)
				return stream_err("the bind of QP %d's window did not complete", q);
		if (n < 0 || wc.status != RNIC_WC_SUCCESS || wc.opcode != RNIC_WC_BIND_MW || wc.wr_id != (uint64_t)q)
			return stream_err("the bind of QP %d's window completed with %s, opcode %u", q,
					  n < 0 ? strerror(-n) : rnic_wc_status_str(wc.status), n < 0 ? 0 : wc.opcode);
		if (st->mw == 2)
			mw->rkey = st->rkey[q];
	}
	return 0;
}

static int stream_setup(struct stream *st, size_t len)
{
	for (int q = 0; q < st->qps; q++)
		st->n[q] = st->count / (uint64_t)st->qps + ((uint64_t)q < st->count % (uint64_t)st->qps);
	for (int s = 0; s < 2; s++) {
		st->buf[s] = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
		if (!st->buf[s])
			return stream_err("out of memory");
		memset(st->buf[s], STREAM_GUARD, len);
		/* mw: side 1's MR grants no remote access; its windows do */
		st->mr[s] = rnic_reg_mr(side_of(st, s)->pd, st->buf[s], len,
					s && st->mw ? RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_MW_BIND
						    : RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE |
							      RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC);
		if (!st->mr[s])
			return stream_err("reg_mr: %s", strerror(errno));
	}
	for (int q = 0; q < st->qps; q++)
		st->rkey[q] = st->mr[1]->rkey;
	if (st->mw && (is_send(st) ? stream_err("SENDs reach no window") : bind_windows(st)))
		return -1;
	if (is_atomic(st)) {
		for (int q = 0; q < st->qps; q++) {
			uint64_t v = atomic_start(st, q);

			memcpy(slot(st, 1, q, 0), &v, sizeof(v));
		}
	}
	if (is_send(st))
		for (int q = 0; q < st->qps; q++)
			while (st->rposted[q] < st->n[q] && st->rposted[q] < (uint64_t)st->depth)
				if (post_recv_one(st, q))
					return -1;
	return 0;
}

static int stream_hung(const struct stream *st)
{
	uint64_t r = 0;

	for (int q = 0; q < st->qps; q++)
		r += st->rdone[q];
	return stream_err("no completion for %u cycles: %" PRIu64 " of %" PRIu64 " messages done (%" PRIu64 " received)",
		   STREAM_HANG_CYCLES, st->ndone, st->count, r);
}

/* A completion polled on NIC `nic`: to the stream, role and QP it belongs
 * to (a responder completes nothing but the receives of SENDs). */
static int dispatch(struct stream **sts, int n, int nic, const struct rnic_wc *wc)
{
	for (int i = 0; i < n; i++) {
		int role = nic ^ sts[i]->dir, q;

		if (role == 1 && !is_send(sts[i]))
			continue;
		q = qp_index(sts[i], role, wc->qp_num);
		if (q >= 0)
			return role == 0 ? send_done(sts[i], q, wc) : recv_done(sts[i], q, wc);
	}
	return stream_err("NIC %d: a completion of QP %u no stream expects (%s, opcode %u)", nic, wc->qp_num,
			  rnic_wc_status_str(wc->status), wc->opcode);
}

/* Whether a stream expects completions on NIC `nic` (its requester's, or
 * its responder's receives of SENDs); the others' CQs are not polled. */
static int expects(struct stream **sts, int n, int nic)
{
	for (int i = 0; i < n; i++)
		if (sts[i]->dir == nic || is_send(sts[i]))
			return 1;
	return 0;
}

/* stream_run_all's wait for the receiver's doorbells: QUIET_CYCLES in a row
 * with nothing moving in the world (no BAR access, DMA burst or frame) */
#define QUIET_CYCLES 256
#define QUIET_MAX_CYCLES 1000000
struct quiet_arg {
	struct rnic_world *w;
	int *quiet;
};

static int world_quiet(void *arg)
{
	struct quiet_arg *q = arg;

	*q->quiet = rnic_world_busy(q->w) ? 0 : *q->quiet + 1;
	return *q->quiet >= QUIET_CYCLES;
}

uint64_t stream_run(struct stream *st)
{
	return stream_run_all(&st, 1);
}

uint64_t stream_run_all(struct stream **sts, int n)
{
	struct sim_pair *p = sts[0]->p;
	uint64_t c0, last, cycles = 0;
	int ok = 0, set = 0;

	for (int i = 0; i < n; i++) {
		struct stream *st = sts[i];

		st->cycles = st->reported = 0;
		if (is_atomic(st) && st->msg != 8) {
			stream_err("atomic operations are 8 bytes, not %zu", st->msg);
			goto out;
		}
		set = i + 1;
		if (stream_setup(st, (size_t)st->qps * (size_t)st->depth * st->stride))
			goto out;
	}
	/* SENDs: the receiver's WQEs were posted in the setup; the world runs
	 * until their doorbells have reached its NIC and nothing has moved for
	 * QUIET_CYCLES, before the first request is posted, as perftest's
	 * server posts its receives before the handshake that starts the
	 * client (the doorbells are posted writes: without this the first
	 * SENDs would race them) */
	for (int i = 0; i < n; i++)
		if (is_send(sts[i])) {
			int quiet = 0;

			if (rnic_world_run_until(p->world, world_quiet, &(struct quiet_arg){p->world, &quiet},
						 QUIET_MAX_CYCLES)) {
				stream_err("the receiver's doorbells still moving after %d cycles", QUIET_MAX_CYCLES);
				goto out;
			}
			break;
		}
	c0 = last = rnic_world_cycle(p->world);
	for (;;) {
		struct rnic_wc wc[16];
		int got = 0, done = 1;

		for (int i = 0; i < n; i++)
			if (post_round_robin(sts[i]))
				goto out;
		for (int nic = 0; nic < 2; nic++) {
			int k;

			if (!expects(sts, n, nic))
				continue;
			k = rnic_poll_cq(p->side[nic].cq, 16, wc);

			if (k < 0) {
				stream_err("poll_cq: %s", strerror(-k));
				goto out;
			}
			for (int j = 0; j < k; j++)
				if (dispatch(sts, n, nic, &wc[j]))
					goto out;
			got += k;
		}
		if (!got) {
			if (rnic_world_cycle(p->world) - last > STREAM_HANG_CYCLES) {
				for (int i = 0; i < n; i++)
					if (!all_done(sts[i]))
						stream_hung(sts[i]);
				goto out;
			}
			continue;
		}
		last = rnic_world_cycle(p->world);
		for (int i = 0; i < n; i++) {
			struct stream *st = sts[i];
			/* progress every 4096 messages or 64 MiB, whichever comes first */
			uint64_t every = st->msg > 16384 ? (64u << 20) / st->msg : 4096;

			if (st->progress && st->ndone - st->reported >= every) {
				st->reported = st->ndone;
				st->progress(st->progress_arg, st->ndone, st->count);
			}
			if (!st->cycles && all_done(st))
				st->cycles = last - c0;
			done &= st->cycles != 0;
		}
		if (done)
			break;
	}
	cycles = rnic_world_cycle(p->world) - c0;
	ok = 1;
	for (int i = 0; i < n; i++)
		if (check_dest(sts[i]))
			ok = 0;
	for (int s = 0; s < 2 && ok; s++) {
		uint64_t f = rnic_sim_nic_faults(rnic_world_nic(p->world, s), NULL, 0);

		if (f) {
			stream_err("NIC %d made %" PRIu64 " DMA faults", s, f);
			ok = 0;
		}
	}
out:
	for (int i = 0; i < set; i++) {
		struct stream *st = sts[i];

		/* the windows first: the MR cannot go while one is bound to it */
		for (int q = 0; q < st->qps; q++) {
			if (st->win[q] && rnic_dealloc_mw(st->win[q])) {
				stream_err("dealloc_mw of QP %d's window failed", q);
				ok = 0;
			}
			st->win[q] = NULL;
		}
		for (int s = 0; s < 2; s++) {
			if (st->mr[s])
				rnic_dereg_mr(st->mr[s]);
			free(st->buf[s]);
			st->mr[s] = NULL;
			st->buf[s] = NULL;
		}
		if (!ok)
			st->cycles = 0;
	}
	return ok ? cycles : 0;
}
