/* End-to-end RDMA READ tests: host library (post_send of RDMA_READ, poll_cq)
 * -> BAR doorbell -> RTL -> read request on the wire -> the responder's RTL
 * (rkey, bounds and access checks, DMA read of its host memory) -> read
 * responses -> the requester's RTL -> local SGEs -> CQE, two simulated NICs
 * back to back. Side 0 requests and side 1 responds, except where a case
 * says otherwise.
 *
 *   rnic-e2e-read --width 64|512 [--seed N] [--pcap-dir DIR] [--quick]
 *
 * Every buffer has guard zones, and for each the case keeps an image of what
 * it must hold at the end: a READ copies its source's image into the images
 * of its local SGEs, a WRITE or SEND the other way, in posting order (so a
 * READ after a WRITE on one QP must see the WRITE's data). At the end the
 * memory of both sides must equal the images byte for byte, guards
 * included, and each work request must have completed exactly once, in
 * posting order per QP, with the expected wr_id, status, opcode, byte_len
 * (the message length for a READ) and, for a NAK, the AETH syndrome in
 * vendor_err. A frame hook counts READ requests and responses of each QP on
 * the wire: with max_rd_atomic 1 no second READ may be in flight. A
 * requester that keeps more READs and ATOMICs outstanding than the
 * responder's max_dest_rd_atomic gets the invalid request NAK.
 *
 * Each case prints PASS/FAIL; the closing line is "N passed, N failed". A
 * case that fails leaves its QPs in an unknown state, so the world is then
 * rebuilt (a new capture file, suffix _rN) before the next case.
 *
 * Captures (--pcap-dir): wW_read_* hold only frames the NICs sent;
 * wW_read_lossy_* come from a link that corrupts frames on purpose. */
#include <stdio.h>
#include <string.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"
#include "e2e_common.h"
#include "e2e_ops.h"

#define RQ_SIZE 32
#define BIG (1u << 20)
#define OUTSTANDING 24    /* READs posted at once on one QP: more than max_rd_atomic (16) */

/* Access of a READ's source (all it needs) and of its local SGEs. */
#define SRC_ACCESS RNIC_ACCESS_REMOTE_READ
#define DST_ACCESS RNIC_ACCESS_LOCAL_WRITE
#define ALL_ACCESS (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ)

/* ---------------------------------------------------------------- wire */

/* What the frame hook saw, by requester side s and QP pair q, counted as
 * each frame arrives at the far end of its cable. In-flight READs (request
 * arrived, last response not yet) mean something on a lossless link only. */
struct wire {
	uint64_t frames[2][SIM_PAIR_MAX_QPS]; /* frames side s sent on QP pair q */
	uint64_t reads[2][SIM_PAIR_MAX_QPS];  /* READ requests side s sent */
	uint64_t resps[2][SIM_PAIR_MAX_QPS];  /* READ response packets side s received */
	int inflight[2][SIM_PAIR_MAX_QPS];
	int max_inflight[2][SIM_PAIR_MAX_QPS];
};

struct rworld {
	struct e2e_world e;
	struct e2e_tap tap;
	struct wire wire;
};

/* Counts what each side sends on each QP pair. */
static void frame_hook(void *state, int port, int q, const uint8_t *bth, size_t len)
{
	struct wire *wr = state;
	uint32_t op = bth[0];

	(void)len;
	wr->frames[port][q]++;
	if (op == RNIC_OP_RDMA_READ_REQUEST) {
		wr->reads[port][q]++;
		if (++wr->inflight[port][q] > wr->max_inflight[port][q])
			wr->max_inflight[port][q] = wr->inflight[port][q];
	} else if (op >= RNIC_OP_RDMA_READ_RESPONSE_FIRST && op <= RNIC_OP_RDMA_READ_RESPONSE_ONLY) {
		wr->resps[1 - port][q]++;
		if ((op == RNIC_OP_RDMA_READ_RESPONSE_LAST || op == RNIC_OP_RDMA_READ_RESPONSE_ONLY) &&
		    wr->inflight[1 - port][q] > 0)
			wr->inflight[1 - port][q]--;
	}
}

static void world_init(struct rworld *rw, const char *name, const struct sim_pair_opts *o)
{
	e2e_tap_world_init(&rw->e, &rw->tap, name, o, frame_hook, &rw->wire, sizeof(rw->wire));
}

static struct wire *wire_of(struct e2e_world *x)
{
	return e2e_tap_state(x);
}

/* A READ of len bytes at roff of rbuf into one SGE at off of buf. */
static struct e2e_op op_read(int side, int qp, int buf, size_t off, int rbuf, long roff, uint32_t len)
{
	return e2e_op_rw(side, qp, RNIC_WR_RDMA_READ, buf, off, rbuf, roff, len);
}

/* ---------------------------------------------------------------- cases */

/* One READ of len bytes by side s on QP pair q into a single SGE. */
static void read_case(struct e2e_world *x, int s, int q, size_t len, uint32_t mtu, const char *note)
{
	struct e2e_mem m = {0};
	struct e2e_op op;
	struct e2e_run r;
	int src, dst, ok = 0;

	src = e2e_mem_add(&m, x, 1 - s, "source", len, SRC_ACCESS, 1);
	dst = e2e_mem_add(&m, x, s, "destination", len, DST_ACCESS, 0);
	if (src < 0 || dst < 0) {
		e2e_result(0, "mtu%u READ %zu B: buffer setup", mtu, len);
		goto out;
	}
	op = op_read(s, q, dst, 0, src, 0, (uint32_t)len);
	ok = e2e_run_ops(x, &m, &op, 1, &r);
	e2e_result(ok, "mtu%u qp%d READ %zu B by side %d from side %d%s: %s, %llu cycles", mtu, q, len, s, 1 - s,
		   note, e2e_st(&r, 0), (unsigned long long)r.cycles);
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

/* Local SGE layouts of one READ: SGE i is sge[i].len bytes at sge[i].off
 * of local MR sge[i].buf (of nmr). */
struct layout {
	const char *name;
	int nmr, nsge;
	struct e2e_lsge sge[RNIC_MAX_SEND_SGE];
};

static const struct layout layouts[] = {
	{"1 SGE from +4093 across a page boundary", 1, 1, {{0, 4093, 5003}}},
	{"2 SGEs: 1 B, then 12289 B from +4095 over 4 pages", 1, 2, {{0, 0, 1}, {0, 4095, 12289}}},
	{"3 SGEs in 2 MRs out of address order: 333 B, 2049 B, 1 B", 2, 3, {{1, 4097, 333}, {0, 7, 2049}, {1, 1, 1}}},
	{"4 SGEs in 4 MRs: 1 B, 4097 B across pages, 1023 B, 13 B", 4, 4,
	 {{0, 3, 1}, {1, 4000, 4097}, {2, 4095, 1023}, {3, 0, 13}}},
	{"4 SGEs in one MR with gaps: 777 B, 1 B, 3001 B across a page, 2 B", 1, 4,
	 {{0, 1, 777}, {0, 800, 1}, {0, 4090, 3001}, {0, 7100, 2}}},
};

/* One READ from an odd remote offset scattered over a layout's SGEs: each
 * SGE gets its part of the message, the gaps and guards around them stay. */
static void scatter_case(struct e2e_world *x, const struct layout *ly, uint32_t mtu)
{
	static const char *const names[4] = {"local MR 0", "local MR 1", "local MR 2", "local MR 3"};
	struct e2e_mem m = {0};
	struct e2e_op op = e2e_op_new(0, 1, RNIC_WR_RDMA_READ);
	struct e2e_run r;
	size_t mr_len[4] = {0, 0, 0, 0};
	int mr[4], src, ok = 0, setup = 1;

	for (int i = 0; i < ly->nsge; i++) {
		size_t end = ly->sge[i].off + ly->sge[i].len + 64;

		if (end > mr_len[ly->sge[i].buf])
			mr_len[ly->sge[i].buf] = end;
	}
	for (int i = 0; i < ly->nmr; i++) {
		mr[i] = e2e_mem_add(&m, x, 0, names[i], mr_len[i], DST_ACCESS, 0);
		setup &= mr[i] >= 0;
	}
	for (int i = 0; setup && i < ly->nsge; i++)
		e2e_op_sge(&op, mr[ly->sge[i].buf], ly->sge[i].off, ly->sge[i].len);
	src = e2e_mem_add(&m, x, 1, "source", e2e_op_len(&op) + 10, SRC_ACCESS, 1);
	if (!setup || src < 0) {
		e2e_result(0, "mtu%u scatter %s: buffer setup", mtu, ly->name);
		goto out;
	}
	op.rbuf = src;
	op.roff = 5;
	ok = e2e_run_ops(x, &m, &op, 1, &r);
	e2e_result(ok, "mtu%u READ %u B from remote offset +5 into %s: %s", mtu, e2e_op_len(&op), ly->name,
		   e2e_st(&r, 0));
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

/* nper READs on each of QP pairs 0 and 1 by side 0, posted alternately
 * (reverse: QP pair 1's READs by side 1, both NICs requester and responder
 * at once); each QP completes its own in order. */
static void two_qp_case(struct e2e_world *x, int nper, int reverse, uint32_t mtu)
{
	struct e2e_mem m = {0};
	struct e2e_op ops[E2E_MAX_OPS];
	struct e2e_run r;
	size_t stride = 4 * (size_t)mtu + 64;
	int src[2], dst[2], n = 0, ok = 0;

	for (int q = 0; q < 2; q++) {
		int s = reverse && q ? 1 : 0;

		src[q] = e2e_mem_add(&m, x, 1 - s, q ? "source of QP pair 1" : "source of QP pair 0",
				 (size_t)nper * stride, SRC_ACCESS, 1);
		dst[q] = e2e_mem_add(&m, x, s, q ? "destination of QP pair 1" : "destination of QP pair 0",
				 (size_t)nper * stride, DST_ACCESS, 0);
	}
	if (src[0] < 0 || src[1] < 0 || dst[0] < 0 || dst[1] < 0) {
		e2e_result(0, "mtu%u two QPs: buffer setup", mtu);
		goto out;
	}
	for (int i = 0; i < nper; i++)
		for (int q = 0; q < 2; q++) {
			uint32_t len = 2 * mtu + 1 + (uint32_t)(e2e_rng() % (2 * mtu));
			size_t at = (size_t)i * stride;

			ops[n++] = op_read(reverse && q ? 1 : 0, q, dst[q], at + 1, src[q], (long)at + 3, len);
		}
	ok = e2e_run_ops(x, &m, ops, n, &r);
	e2e_result(ok, "mtu%u two QP pairs, %d READs each posted alternately%s: %d of %d completions, first READ %s",
		   mtu, nper, reverse ? ", QP pair 1's by side 1" : "", e2e_got(&r), e2e_wanted(&r), e2e_st(&r, 0));
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

/* Both sides READ from each other on QP pair 0 at the same time: each QP is
 * requester and responder at once. */
static void bidir_case(struct e2e_world *x, uint32_t mtu)
{
	enum { PER = 4 };
	struct e2e_mem m = {0};
	struct e2e_op ops[2 * PER];
	struct e2e_run r;
	size_t stride = 3 * (size_t)mtu + 32;
	int src[2], dst[2], n = 0, ok = 0;

	for (int s = 0; s < 2; s++) {
		src[s] = e2e_mem_add(&m, x, 1 - s, s ? "source of side 1's READs" : "source of side 0's READs",
				 PER * stride, SRC_ACCESS, 1);
		dst[s] = e2e_mem_add(&m, x, s, s ? "destination of side 1's READs" : "destination of side 0's READs",
				 PER * stride, DST_ACCESS, 0);
	}
	if (src[0] < 0 || src[1] < 0 || dst[0] < 0 || dst[1] < 0) {
		e2e_result(0, "mtu%u both ways: buffer setup", mtu);
		goto out;
	}
	for (int i = 0; i < PER; i++)
		for (int s = 0; s < 2; s++) {
			uint32_t len = (uint32_t)(e2e_rng() % (3 * mtu + 1));

			ops[n++] = op_read(s, 0, dst[s], (size_t)i * stride, src[s], (long)(i * stride), len);
		}
	ok = e2e_run_ops(x, &m, ops, n, &r);
	e2e_result(ok, "mtu%u both sides READ from each other on one QP pair, %d each: %d of %d completions, first READ %s",
		   mtu, PER, e2e_got(&r), e2e_wanted(&r), e2e_st(&r, 0));
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

/* OUTSTANDING READs (random sizes 0..3 MTU, random source offsets) posted
 * in one post_send on QP pair 1 before any poll. */
static void outstanding_case(struct e2e_world *x, uint32_t mtu)
{
	struct e2e_mem m = {0};
	struct e2e_op ops[OUTSTANDING];
	struct e2e_run r;
	struct wire *wr = wire_of(x);
	size_t stride = 3 * (size_t)mtu + 16, src_len = 8 * (size_t)mtu;
	int src, dst, ok = 0;

	src = e2e_mem_add(&m, x, 1, "source", src_len, SRC_ACCESS, 1);
	dst = e2e_mem_add(&m, x, 0, "destination", OUTSTANDING * stride, DST_ACCESS, 0);
	if (src < 0 || dst < 0) {
		e2e_result(0, "mtu%u %d READs outstanding: buffer setup", mtu, OUTSTANDING);
		goto out;
	}
	wr->max_inflight[0][1] = 0;
	for (int i = 0; i < OUTSTANDING; i++) {
		uint32_t len = (uint32_t)(e2e_rng() % (3 * mtu + 1));
		long roff = (long)(e2e_rng() % (src_len - len + 1));

		ops[i] = op_read(0, 1, dst, (size_t)i * stride, src, roff, len);
	}
	ok = e2e_run_ops(x, &m, ops, OUTSTANDING, &r);
	e2e_result(ok, "mtu%u %d READs posted at once on one QP: %d of %d completions, first READ %s; up to %d READs were in flight on the wire",
		   mtu, OUTSTANDING, e2e_got(&r), e2e_wanted(&r), e2e_st(&r, 0), wr->max_inflight[0][1]);
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

/* READs, WRITEs and SENDs on QP pair 0 in one post_send; READs 2 and 6
 * read what WRITEs 1 and 5 wrote before them (one QP keeps them in order).
 * No WRITE goes where an earlier READ of the same QP reads. */
static void mixed_case(struct e2e_world *x, uint32_t mtu)
{
	struct e2e_mem m = {0};
	struct e2e_op ops[9];
	struct e2e_run r;
	int lsrc, ldst, rmem, rrecv, n = 0, ok = 0;
	uint32_t big = 2 * mtu + 3;

	lsrc = e2e_mem_add(&m, x, 0, "WRITE and SEND source", 4 * (size_t)mtu, RNIC_ACCESS_LOCAL_WRITE, 1);
	ldst = e2e_mem_add(&m, x, 0, "READ destination", 12 * (size_t)mtu, DST_ACCESS, 0);
	rmem = e2e_mem_add(&m, x, 1, "remote memory", 12 * (size_t)mtu, ALL_ACCESS, 1);
	rrecv = e2e_mem_add(&m, x, 1, "receive buffers", 4 * (size_t)mtu, RNIC_ACCESS_LOCAL_WRITE, 0);
	if (lsrc < 0 || ldst < 0 || rmem < 0 || rrecv < 0) {
		e2e_result(0, "mtu%u mixed: buffer setup", mtu);
		goto out;
	}
	/* 0: READ of remote data no one writes */
	ops[n++] = op_read(0, 0, ldst, 0, rmem, 8 * (long)mtu, mtu + 9);
	/* 1, 2: WRITE, then READ of a range around it: old and new bytes */
	ops[n++] = e2e_op_rw(0, 0, RNIC_WR_RDMA_WRITE, lsrc, 0, rmem, (long)mtu / 2, big);
	ops[n++] = op_read(0, 0, ldst, 2 * (size_t)mtu, rmem, 0, 3 * mtu);
	/* 3: SEND */
	ops[n++] = e2e_op_rw(0, 0, RNIC_WR_SEND, lsrc, 5, rrecv, 0, mtu + 5);
	/* 4: READ over 2 SGEs */
	ops[n] = e2e_op_new(0, 0, RNIC_WR_RDMA_READ);
	e2e_op_sge(&ops[n], ldst, 6 * (size_t)mtu, 17);
	e2e_op_sge(&ops[n], ldst, 6 * (size_t)mtu + 100, 2 * mtu);
	ops[n].rbuf = rmem;
	ops[n++].roff = 9 * (long)mtu + 1;
	/* 5, 6: a small unaligned WRITE, then a READ of just that */
	ops[n++] = e2e_op_rw(0, 0, RNIC_WR_RDMA_WRITE, lsrc, 3 * (size_t)mtu, rmem, 5 * (long)mtu + 3, 29);
	ops[n++] = op_read(0, 0, ldst, 9 * (size_t)mtu, rmem, 5 * (long)mtu + 3, 29);
	/* 7, 8: a zero-length SEND, a 1-byte READ */
	ops[n++] = e2e_op_rw(0, 0, RNIC_WR_SEND, lsrc, 0, rrecv, 2 * (long)mtu, 0);
	ops[n++] = op_read(0, 0, ldst, 10 * (size_t)mtu, rmem, 11 * (long)mtu, 1);
	ok = e2e_run_ops(x, &m, ops, n, &r);
	e2e_result(ok, "mtu%u READ, WRITE, READ over it, SEND, READ (2 SGEs), WRITE, READ of it, SEND 0 B, READ 1 B on one QP: %d of %d completions, READ over the WRITE %s",
		   mtu, e2e_got(&r), e2e_wanted(&r), e2e_st(&r, 2));
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

/* A WRITE of len bytes, then a READ of exactly that range, in one
 * post_send on QP pair 1: the READ returns the WRITE's data, not what the
 * memory held before. */
static void raw_case(struct e2e_world *x, size_t len, uint32_t mtu)
{
	struct e2e_mem m = {0};
	struct e2e_op ops[2];
	struct e2e_run r;
	int lsrc, ldst, rmem, ok = 0;

	lsrc = e2e_mem_add(&m, x, 0, "WRITE source", len, RNIC_ACCESS_LOCAL_WRITE, 1);
	ldst = e2e_mem_add(&m, x, 0, "READ destination", len, DST_ACCESS, 0);
	rmem = e2e_mem_add(&m, x, 1, "remote memory", len + 2, ALL_ACCESS, 1);
	if (lsrc < 0 || ldst < 0 || rmem < 0) {
		e2e_result(0, "mtu%u READ after WRITE: buffer setup", mtu);
		goto out;
	}
	ops[0] = e2e_op_rw(0, 1, RNIC_WR_RDMA_WRITE, lsrc, 0, rmem, 1, (uint32_t)len);
	ops[1] = op_read(0, 1, ldst, 0, rmem, 1, (uint32_t)len);
	ok = e2e_run_ops(x, &m, ops, 2, &r);
	e2e_result(ok, "mtu%u WRITE %zu B, then a READ of the same remote range sees the WRITE's data: WRITE %s, READ %s",
		   mtu, len, e2e_st(&r, 0), e2e_st(&r, 1));
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

#define RUN(call) E2E_RUN(&rw.e, call)

static void base_opts(struct sim_pair_opts *o, int nqp, uint32_t mtu_code)
{
	sim_pair_default_opts(o);
	o->nqp = nqp;
	o->path_mtu = mtu_code;
	o->max_recv_wr = RQ_SIZE;
	o->max_recv_sge = 1;
}

static void mtu_suite(uint32_t mtu_code, int quick)
{
	uint32_t mtu = 128u << mtu_code;
	size_t sizes[] = {0, 1, mtu - 1, mtu, mtu + 1, BIG};
	int nsizes = (quick && mtu_code != RNIC_IB_MTU_4096) ? 5 : 6;
	struct sim_pair_opts o;
	struct rworld rw;
	char name[32];

	base_opts(&o, 2, mtu_code);
	snprintf(name, sizeof(name), "read_mtu%u", mtu);
	world_init(&rw, name, &o);
	if (!e2e_world_up(&rw.e))
		return;
	for (int i = 0; i < nsizes; i++)
		RUN(read_case(&rw.e, 0, i % 2, sizes[i], mtu, ""));
	RUN(read_case(&rw.e, 1, 0, mtu + 1, mtu, ""));
	RUN(read_case(&rw.e, 1, 1, 3 * (size_t)mtu + 5, mtu, ""));
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		RUN(scatter_case(&rw.e, &layouts[i], mtu));
	RUN(two_qp_case(&rw.e, 3, 0, mtu));
	RUN(two_qp_case(&rw.e, 3, 1, mtu));
	RUN(bidir_case(&rw.e, mtu));
	RUN(outstanding_case(&rw.e, mtu));
	RUN(mixed_case(&rw.e, mtu));
	RUN(raw_case(&rw.e, 3 * (size_t)mtu + 7, mtu));
	RUN(raw_case(&rw.e, 1, mtu));
	e2e_world_down(&rw.e);
}

/* ---------------------------------------------------------------- limits */

/* max_rd_atomic `limit`: eight READs posted at once (and READs between
 * WRITEs) complete in order, and the wire never holds more than `limit`
 * READs of the QP. */
static void rd_atomic_case(struct e2e_world *x, int limit, int with_writes, uint32_t mtu)
{
	static const uint32_t lens[8] = {0, 1, 1023, 1025, 3 * 1024, 5000, 1, 2 * 1024 + 3};
	struct e2e_mem m = {0};
	struct e2e_op ops[16];
	struct e2e_run r;
	struct wire *wr = wire_of(x);
	size_t stride = 8192;
	int src, dst, wsrc, wdst, n = 0, ok = 0, reads;

	src = e2e_mem_add(&m, x, 1, "source", 8 * stride, SRC_ACCESS, 1);
	dst = e2e_mem_add(&m, x, 0, "destination", 8 * stride, DST_ACCESS, 0);
	wsrc = e2e_mem_add(&m, x, 0, "WRITE source", 8 * stride, RNIC_ACCESS_LOCAL_WRITE, 1);
	wdst = e2e_mem_add(&m, x, 1, "WRITE target", 8 * stride, ALL_ACCESS, 0);
	if (src < 0 || dst < 0 || wsrc < 0 || wdst < 0) {
		e2e_result(0, "max_rd_atomic %d: buffer setup", limit);
		goto out;
	}
	memset(wr->max_inflight[0], 0, sizeof(wr->max_inflight[0]));
	reads = (int)wr->reads[0][0];
	for (int i = 0; i < 8; i++) {
		ops[n++] = op_read(0, 0, dst, (size_t)i * stride + 1, src, (long)(i * stride) + 2, lens[i]);
		if (with_writes)
			ops[n++] = e2e_op_rw(0, 0, RNIC_WR_RDMA_WRITE, wsrc, (size_t)i * stride, wdst,
					    (long)(i * stride), lens[7 - i]);
	}
	ok = e2e_run_ops(x, &m, ops, n, &r);
	reads = (int)wr->reads[0][0] - reads;
	if (wr->max_inflight[0][0] > limit) {
		printf("  %d READs of the QP were in flight at once on the wire\n", wr->max_inflight[0][0]);
		ok = 0;
	}
	e2e_result(ok, "max_rd_atomic %d, mtu%u: 8 READs%s posted at once: %d of %d completions, first READ %s; %d READ requests on the wire, at most %d in flight",
		   limit, mtu, with_writes ? " each followed by a WRITE" : "", e2e_got(&r), e2e_wanted(&r), e2e_st(&r, 0),
		   reads, wr->max_inflight[0][0]);
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

static void rd_atomic1_suite(void)
{
	struct sim_pair_opts o;
	struct rworld rw;

	base_opts(&o, 1, RNIC_IB_MTU_1024);
	o.max_rd_atomic = 1;
	world_init(&rw, "read_rd_atomic1", &o);
	if (!e2e_world_up(&rw.e))
		return;
	RUN(rd_atomic_case(&rw.e, 1, 0, 1024));
	RUN(rd_atomic_case(&rw.e, 1, 1, 1024));
	e2e_world_down(&rw.e);
}

/* max_dest_rd_atomic: the responder serves at most that many READs and
 * ATOMICs at once. A requester that keeps as many outstanding (here both
 * max_rd_atomic and max_dest_rd_atomic are MAX_DEST) is served in full; one
 * that sends more gets the invalid request NAK for the first request over
 * the limit, and the responder's QP enters the error state. */
#define MAX_DEST 2
#define OVER_LEN 65536 /* long enough that none is answered before the next request arrives */

static void rd_atomic_limit_suite(void)
{
	struct sim_pair_opts o;
	struct rworld rw;

	base_opts(&o, 1, RNIC_IB_MTU_1024);
	o.max_rd_atomic = MAX_DEST;
	o.max_dest_rd_atomic = MAX_DEST;
	world_init(&rw, "read_rd_atomic2", &o);
	if (!e2e_world_up(&rw.e))
		return;
	RUN(rd_atomic_case(&rw.e, MAX_DEST, 0, 1024));
	RUN(rd_atomic_case(&rw.e, MAX_DEST, 1, 1024));
	e2e_world_down(&rw.e);
}

/* On QP pair q (requester side 0 with max_rd_atomic 16, responder side 1
 * with max_dest_rd_atomic MAX_DEST), one post_send of MAX_DEST long READs,
 * then the request over the limit (a READ, or with `atomic` a fetch-and-add),
 * then a READ and a WRITE: the first MAX_DEST complete, the next one with
 * REM_INV_REQ_ERR (invalid request NAK), the last two are flushed. Then the
 * responder's QP is in the error state: a WRITE it posts on the same QP
 * is flushed, and nothing more reaches side 0. */
static void over_limit_case(struct e2e_world *x, int q, int atomic)
{
	struct wire *wr = wire_of(x);
	struct e2e_mem m = {0};
	struct e2e_op ops[MAX_DEST + 3], back;
	struct e2e_run r, rb;
	int src, dst, tgt, orig, wsrc, wdst, n = 0, ok = 0;
	uint32_t nak0 = e2e_counter_or(x->p.side[1].ctx, RNIC_REG_STAT_TX_NAK, 0xffffffffu), nak;
	uint64_t frames;

	src = e2e_mem_add(&m, x, 1, "source", (MAX_DEST + 2) * (size_t)OVER_LEN, SRC_ACCESS, 1);
	dst = e2e_mem_add(&m, x, 0, "destination", (MAX_DEST + 2) * (size_t)OVER_LEN, DST_ACCESS, 0);
	tgt = e2e_mem_add(&m, x, 1, "ATOMIC target", 64, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_ATOMIC, 1);
	orig = e2e_mem_add(&m, x, 0, "ATOMIC original", 8, DST_ACCESS, 0);
	wsrc = e2e_mem_add(&m, x, 0, "WRITE source", 4096, RNIC_ACCESS_LOCAL_WRITE, 1);
	wdst = e2e_mem_add(&m, x, 1, "WRITE target", 4096, ALL_ACCESS, 0);
	if (src < 0 || dst < 0 || tgt < 0 || orig < 0 || wsrc < 0 || wdst < 0) {
		e2e_result(0, "max_dest_rd_atomic %d: buffer setup", MAX_DEST);
		goto out;
	}
	for (int i = 0; i < MAX_DEST; i++)
		ops[n++] = op_read(0, q, dst, (size_t)i * OVER_LEN, src, (long)i * OVER_LEN, OVER_LEN);
	if (atomic)
		ops[n] = e2e_op_atomic(0, q, 0, orig, 0, tgt, 8, 1, 0);
	else
		ops[n] = op_read(0, q, dst, (size_t)n * OVER_LEN, src, (long)n * OVER_LEN, OVER_LEN);
	ops[n].status = RNIC_WC_REM_INV_REQ_ERR;
	ops[n++].vendor_err = E2E_NAK(RNIC_AETH_NAK_INVALID_REQ);
	ops[n] = op_read(0, q, dst, (size_t)n * OVER_LEN, src, (long)n * OVER_LEN, 100);
	ops[n++].status = RNIC_WC_WR_FLUSH_ERR;
	ops[n] = e2e_op_rw(0, q, RNIC_WR_RDMA_WRITE, wsrc, 0, wdst, 0, 4096);
	ops[n++].status = RNIC_WC_WR_FLUSH_ERR;
	ok = e2e_run_ops(x, &m, ops, n, &r);
	nak = e2e_counter_or(x->p.side[1].ctx, RNIC_REG_STAT_TX_NAK, 0xffffffffu) - nak0;
	if (nak != 1) {
		printf("  the responder sent %u NAKs, want 1\n", nak);
		ok = 0;
	}
	/* the responder's QP is in error: what its own side posts is flushed */
	frames = wr->frames[1][q];
	back = e2e_op_rw(1, q, RNIC_WR_RDMA_WRITE, wdst, 0, wsrc, 0, 4096);
	back.status = RNIC_WC_WR_FLUSH_ERR;
	if (!e2e_run_ops(x, &m, &back, 1, &rb))
		ok = 0;
	frames = wr->frames[1][q] - frames;
	if (frames) {
		printf("  the responder's QP sent %llu frames after its error, want none\n", (unsigned long long)frames);
		ok = 0;
	}
	e2e_result(ok, "max_dest_rd_atomic %d, max_rd_atomic 16: %d READs of %d B, then a %s: %s, %s, then %s (want %s); the responder sent %u NAK; its own WRITE after the error: %s",
		   MAX_DEST, MAX_DEST, OVER_LEN, atomic ? "fetch-and-add" : "READ", e2e_st(&r, 0), e2e_st(&r, MAX_DEST - 1),
		   e2e_st(&r, MAX_DEST), rnic_wc_status_str(RNIC_WC_REM_INV_REQ_ERR), nak, e2e_st(&rb, 0));
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

static void over_limit_suite(void)
{
	struct sim_pair_opts o;
	struct rworld rw;

	base_opts(&o, 2, RNIC_IB_MTU_1024);
	o.max_rd_atomic = RNIC_MAX_RD_ATOMIC;
	o.max_dest_rd_atomic = MAX_DEST;
	world_init(&rw, "read_max_dest", &o);
	if (!e2e_world_up(&rw.e))
		return;
	/* each case leaves its QP pair in the error state */
	RUN(over_limit_case(&rw.e, 0, 0));
	RUN(over_limit_case(&rw.e, 1, 1));
	e2e_world_down(&rw.e);
}

/* PSNs wrap from 0xffffff to 0 inside the READ responses (side 0's PSNs)
 * and inside side 1's READ requests. */
static void psn_wrap_suite(void)
{
	struct sim_pair_opts o;
	struct rworld rw;

	base_opts(&o, 1, RNIC_IB_MTU_256);
	o.psn[0] = 0xfffff0;
	o.psn[1] = 0xfffffe;
	world_init(&rw, "read_psn_wrap", &o);
	if (!e2e_world_up(&rw.e))
		return;
	RUN(read_case(&rw.e, 0, 0, 64 * 256 + 9, 256, ", responses' PSNs wrap"));
	RUN(read_case(&rw.e, 1, 0, 1000, 256, ", requests' PSNs wrap"));
	RUN(read_case(&rw.e, 0, 0, 1000, 256, " after the wrap"));
	e2e_world_down(&rw.e);
}

/* ---------------------------------------------------------------- errors */

enum err_kind {
	E_RKEY,           /* rkey with another tag */
	E_NO_REMOTE_READ, /* remote MR registered without REMOTE_READ */
	E_PAST_END,       /* remote range runs 1 byte past the MR */
	E_BEFORE_START,   /* remote range starts 8 bytes before the MR */
	E_QP_ACCESS,      /* responder QP without REMOTE_READ in its access flags */
	E_NO_LOCAL_WRITE, /* local SGE in an MR without LOCAL_WRITE */
	E_LKEY,           /* local SGE with another tag in its lkey */
	E_SGE_PAST_MR,    /* local SGE runs 8 bytes past its MR */
	E_ZERO_LEN,       /* zero-length READ with an rkey of nothing: succeeds */
	E_COUNT
};

static const struct e2e_err_def err_case_def[E_COUNT] = {
	{"wrong rkey", RNIC_WC_REM_ACCESS_ERR, E2E_NAK(RNIC_AETH_NAK_REM_ACCESS_ERR)},
	{"remote MR without REMOTE_READ", RNIC_WC_REM_ACCESS_ERR, E2E_NAK(RNIC_AETH_NAK_REM_ACCESS_ERR)},
	{"remote range 1 byte past the MR", RNIC_WC_REM_ACCESS_ERR, E2E_NAK(RNIC_AETH_NAK_REM_ACCESS_ERR)},
	{"remote range from 8 bytes before the MR", RNIC_WC_REM_ACCESS_ERR, E2E_NAK(RNIC_AETH_NAK_REM_ACCESS_ERR)},
	{"responder QP without REMOTE_READ", RNIC_WC_REM_INV_REQ_ERR, E2E_NAK(RNIC_AETH_NAK_INVALID_REQ)},
	{"local MR without LOCAL_WRITE", RNIC_WC_LOC_PROT_ERR, E2E_ANY},
	{"wrong lkey", RNIC_WC_LOC_PROT_ERR, E2E_ANY},
	{"local SGE 8 bytes past its MR", RNIC_WC_LOC_PROT_ERR, E2E_ANY},
	{"zero-length READ, rkey 0x5a5a5a5a, address 0", RNIC_WC_SUCCESS, E2E_ANY},
};

/* On QP pair k, side 0 posts the READ under test, a good READ and a good
 * WRITE in one post_send. The first fails as the kind says and the QP
 * enters the error state: the other two complete with WR_FLUSH_ERR and
 * never run. No byte of either side's memory outside the failing READ's
 * SGEs changes; inside them neither when the local check refuses it, and
 * for an MR without LOCAL_WRITE nothing is sent at all. A zero-length READ
 * needs no valid rkey: all three succeed. */
static void error_case(struct e2e_world *x, int k, enum err_kind kind)
{
	const uint32_t len = 3000, len2 = 1000;
	struct wire *wr = wire_of(x);
	struct e2e_mem m = {0};
	struct e2e_op ops[3];
	struct e2e_run r;
	int src, nrsrc, ldst, rodst, ldst2, wsrc, wdst, ok = 0, local = 0;
	uint64_t frames0 = wr->frames[0][k], frames;

	src = e2e_mem_add(&m, x, 1, "source", len, SRC_ACCESS, 1);
	nrsrc = e2e_mem_add(&m, x, 1, "source without REMOTE_READ", len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 1);
	wdst = e2e_mem_add(&m, x, 1, "WRITE target", len2, ALL_ACCESS, 0);
	ldst = e2e_mem_add(&m, x, 0, "destination", len, DST_ACCESS, 0);
	rodst = e2e_mem_add(&m, x, 0, "destination without LOCAL_WRITE", len, RNIC_ACCESS_REMOTE_READ, 0);
	ldst2 = e2e_mem_add(&m, x, 0, "second READ's destination", len2, DST_ACCESS, 0);
	wsrc = e2e_mem_add(&m, x, 0, "WRITE source", len2, RNIC_ACCESS_LOCAL_WRITE, 1);
	if (src < 0 || nrsrc < 0 || wdst < 0 || ldst < 0 || rodst < 0 || ldst2 < 0 || wsrc < 0) {
		e2e_result(0, "READ error %s: buffer setup", err_case_def[kind].name);
		goto out;
	}
	ops[0] = op_read(0, k, ldst, 0, src, 0, len);
	switch (kind) {
	case E_RKEY: ops[0].rkey_xor = 0x80; break; /* same MPT entry, other tag */
	case E_NO_REMOTE_READ: ops[0].rbuf = nrsrc; break;
	case E_PAST_END: ops[0].roff = 1; break;
	case E_BEFORE_START: ops[0].roff = -8; break;
	case E_NO_LOCAL_WRITE: ops[0].sge[0].buf = rodst; break;
	case E_LKEY: ops[0].lkey_xor = 0x80; break;
	case E_SGE_PAST_MR: ops[0].sge[0].off = 8; break;
	case E_ZERO_LEN:
		ops[0].nsge = 0;
		ops[0].rbuf = -1;
		ops[0].rkey_set = 1;
		ops[0].rkey = 0x5a5a5a5a;
		break;
	case E_QP_ACCESS:
		if (e2e_qp_access(x, 1, k, RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_ATOMIC)) {
			e2e_result(0, "READ error %s: modify_qp of the responder", err_case_def[kind].name);
			goto out;
		}
		break;
	default: break;
	}
	local = e2e_op_fails(&ops[0], &err_case_def[kind]);
	ops[0].sge_free = !local && kind != E_ZERO_LEN;
	ops[1] = op_read(0, k, ldst2, 0, src, 100, len2);
	ops[2] = e2e_op_rw(0, k, RNIC_WR_RDMA_WRITE, wsrc, 0, wdst, 0, len2);
	if (kind != E_ZERO_LEN)
		ops[1].status = ops[2].status = RNIC_WC_WR_FLUSH_ERR;
	ok = e2e_run_ops(x, &m, ops, 3, &r);
	if (kind != E_ZERO_LEN && x->p.side[0].qp[k]->state != RNIC_QPS_ERR) {
		printf("  library: requester QP state %u after the error completion\n", x->p.side[0].qp[k]->state);
		ok = 0;
	}
	/* the responder's QP in error, its host told how (no CQE there) */
	ok = ok && e2e_resp_event_ok(x, k, &err_case_def[kind]);
	frames = wr->frames[0][k] - frames0;
	if (kind == E_NO_LOCAL_WRITE && frames) {
		printf("  %llu frames sent on the QP, want none\n", (unsigned long long)frames);
		ok = 0;
	}
	e2e_result(ok, "READ error %s: %s (want %s), then READ %s, WRITE %s (want both %s); %llu frames sent",
		   err_case_def[kind].name, e2e_st(&r, 0), rnic_wc_status_str(err_case_def[kind].status), e2e_st(&r, 1),
		   e2e_st(&r, 2), kind == E_ZERO_LEN ? "success" : "flushed", (unsigned long long)frames);
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

static void error_suite(void)
{
	struct sim_pair_opts o;
	struct rworld rw;
	uint32_t c0[3];

	base_opts(&o, E_COUNT, RNIC_IB_MTU_1024);
	world_init(&rw, "read_errors", &o);
	if (!e2e_world_up(&rw.e))
		return;
	e2e_err_counters(&rw.e, c0);
	for (int k = 0; k < E_COUNT; k++)
		RUN(error_case(&rw.e, k, (enum err_kind)k));
	e2e_err_counters_check(&rw.e, c0, "READ", 5, 4, 3);
	e2e_world_down(&rw.e);
}

/* ---------------------------------------------------------------- lossy link */

/* READs of sizes 0, 1, MTU-1, MTU, MTU+1, 64 KiB (and one of 1 MiB) by side
 * 0 on QP pair 0 and of the same sizes by side 1 on QP pair 1, all posted
 * at once, over a link with 1% drop, 1% reorder, 1% duplication and 0.1%
 * corruption: every READ completes exactly once, in order, and the data
 * are byte-exact. */
static void lossy_suite(uint32_t mtu_code, int with_big)
{
	uint32_t mtu = 128u << mtu_code;
	const uint32_t sizes[] = {0, 1, mtu - 1, mtu, mtu + 1, 65536};
	const int nsizes = (int)(sizeof(sizes) / sizeof(sizes[0]));
	struct sim_pair_opts o;
	struct rworld rw;
	struct e2e_mem m = {0};
	struct e2e_op ops[2 * 6 + 1];
	struct e2e_run r;
	struct rnic_sim_link_stats ls;
	struct e2e_world *x = &rw.e;
	char name[32];
	size_t arena = 0;
	int src[2], dst[2], n = 0, extra;
	uint32_t retry[2], tmo[2], nak[2], dup[2];

	base_opts(&o, 2, mtu_code);
	o.max_send_wr = 64;
	o.timeout = 5; /* 131 us: a lost last packet costs that much */
	o.retry_cnt = 7;
	snprintf(name, sizeof(name), "read_lossy_mtu%u", mtu);
	world_init(&rw, name, &o);
	if (!e2e_lossy_up(x))
		return;
	for (int i = 0; i < nsizes; i++)
		arena += sizes[i] + 64;
	arena += with_big ? BIG + 64 : 0;
	for (int q = 0; q < 2; q++) {
		src[q] = e2e_mem_add(&m, x, 1 - q, q ? "source of side 1's READs" : "source of side 0's READs", arena,
				 SRC_ACCESS, 1);
		dst[q] = e2e_mem_add(&m, x, q, q ? "destination of side 1's READs" : "destination of side 0's READs",
				 arena, DST_ACCESS, 0);
	}
	if (src[0] < 0 || src[1] < 0 || dst[0] < 0 || dst[1] < 0) {
		e2e_result(0, "%s: buffer setup", x->tag);
		goto out;
	}
	for (int q = 0; q < 2; q++) {
		size_t at = 0;

		for (int i = 0; i < nsizes + (with_big && q == 0); i++) {
			uint32_t len = i < nsizes ? sizes[i] : BIG;

			ops[n++] = op_read(q, q, dst[q], at, src[q], (long)at, len);
			at += len + 64;
		}
	}
	e2e_run_ops(x, &m, ops, n, &r);
	/* nothing may complete twice: let retransmissions and duplicates settle */
	extra = e2e_drain_quiet(x, 100000);
	e2e_result(r.wc_ok && extra == 0,
		   "%s: %d READs on 2 QP pairs (side 0 on pair 0, side 1 on pair 1), each to complete once, in order: %d of %d completions, %d not as expected, %d late; %llu cycles",
		   x->tag, n, e2e_got(&r), e2e_wanted(&r), r.bad_wc, extra, (unsigned long long)r.cycles);
	e2e_result(r.mem_ok, "%s: both sides' memory byte-exact, guards intact", x->tag);
	rnic_world_link_stats(x->w, &ls);
	for (int s = 0; s < 2; s++) {
		retry[s] = e2e_counter_or(x->p.side[s].ctx, RNIC_REG_STAT_RETRY, 0xffffffffu);
		tmo[s] = e2e_counter_or(x->p.side[s].ctx, RNIC_REG_STAT_ACK_TIMEOUT, 0xffffffffu);
		nak[s] = e2e_counter_or(x->p.side[s].ctx, RNIC_REG_STAT_RX_NAK, 0xffffffffu);
		dup[s] = e2e_counter_or(x->p.side[s].ctx, RNIC_REG_STAT_RX_DUPLICATE, 0xffffffffu);
	}
	e2e_result(ls.dropped + ls.corrupted + ls.reordered > 0 && retry[0] + retry[1] > 0,
		   "%s: link dropped %llu, reordered %llu, duplicated %llu, corrupted %llu; READ requests %llu/%llu, response packets %llu/%llu; STAT_RETRY %u/%u, STAT_ACK_TIMEOUT %u/%u, STAT_RX_NAK %u/%u, STAT_RX_DUPLICATE %u/%u (side 0/1)",
		   x->tag, (unsigned long long)ls.dropped, (unsigned long long)ls.reordered,
		   (unsigned long long)ls.duplicated, (unsigned long long)ls.corrupted,
		   (unsigned long long)wire_of(x)->reads[0][0], (unsigned long long)wire_of(x)->reads[1][1],
		   (unsigned long long)wire_of(x)->resps[0][0], (unsigned long long)wire_of(x)->resps[1][1], retry[0],
		   retry[1], tmo[0], tmo[1], nak[0], nak[1], dup[0], dup[1]);
out:
	e2e_mem_free(&m);
	e2e_world_down(x);
}

int main(int argc, char **argv)
{
	int rc = e2e_parse_args(argc, argv, "rnic-e2e-read",
				"End-to-end RDMA READ tests on two simulated NICs.\n"
				"--quick: path MTU 1024 only, no 1 MiB READ, no lossy link at MTU 4096.\n");

	if (rc >= 0)
		return rc;
	e2e_rng_seed(e2e_seed);
	e2e_mtu_suites(mtu_suite);
	rd_atomic1_suite();
	rd_atomic_limit_suite();
	over_limit_suite();
	psn_wrap_suite();
	error_suite();
	lossy_suite(RNIC_IB_MTU_1024, !e2e_quick);
	if (!e2e_quick)
		lossy_suite(RNIC_IB_MTU_4096, 1);
	return e2e_summary();
}
