/* End-to-end ATOMIC tests: host library (post_send of ATOMIC_CMP_AND_SWP and
 * ATOMIC_FETCH_AND_ADD, poll_cq) -> BAR doorbell -> RTL -> COMPARE_SWAP /
 * FETCH_ADD request with an AtomicETH on the wire -> the responder's RTL
 * (QP access, alignment, rkey, bounds and REMOTE_ATOMIC checks, the
 * read-modify-write of its host memory) -> ATOMIC ACKNOWLEDGE with the
 * original value -> the requester's RTL -> the 8-byte local SGE -> CQE, two
 * simulated NICs back to back. Side 0 requests and side 1 responds, except
 * where a case says otherwise.
 *
 *   rnic-e2e-atomic --width 64|512 [--seed N] [--pcap-dir DIR] [--quick]
 *
 * Every buffer has guard zones, and for each the case keeps an image of what
 * it must hold at the end: an ATOMIC reads the 8 bytes of its target's
 * image, writes that original value (host byte order) into the images of
 * its local SGEs and the result (swap when the compare matched, the sum)
 * into the target's image; READs and WRITEs copy images as in
 * rnic-e2e-read; all in posting order, which one QP keeps. At the end the
 * memory of both sides must equal the images byte for byte, guards
 * included, and each work request must have completed exactly once, in
 * posting order per QP, with the expected wr_id, status, opcode, byte_len
 * (8 for an ATOMIC) and, for a NAK, the AETH syndrome in vendor_err. A
 * frame hook counts READ and ATOMIC requests and their responses per QP on
 * the wire (with max_rd_atomic 1 no second one may be in flight), keeps
 * the fields of the last AtomicETH and AtomicAckETH each side sent and, for
 * the duplicate case, replays an ATOMIC request into the responder.
 *
 * Where several QPs hit one counter at once (the atomicity case) the order
 * is the responder's choice: the counter must end at the exact sum and the
 * returned originals, sorted, must be the partial sums of the adds in one
 * order, each value once.
 *
 * Each case prints PASS/FAIL; the closing line is "N passed, N failed". A
 * case that fails leaves its QPs in an unknown state, so the world is then
 * rebuilt (a new capture file, suffix _rN) before the next case.
 *
 * Captures (--pcap-dir): wW_atomic_* hold only frames the NICs sent;
 * wW_atomic_lossy come from a link that corrupts frames on purpose. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"
#include "e2e_common.h"
#include "e2e_ops.h"

#define OUTSTANDING 24    /* ATOMICs posted at once on one QP: more than max_rd_atomic (16) */

/* Access of an ATOMIC's target (REMOTE_ATOMIC needs LOCAL_WRITE) and of its
 * local result buffer. */
#define TGT_ACCESS (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_ATOMIC)
#define RES_ACCESS RNIC_ACCESS_LOCAL_WRITE
#define ALL_ACCESS (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ | \
		    RNIC_ACCESS_REMOTE_ATOMIC)

/* ---------------------------------------------------------------- wire */

/* What the frame hook saw, by requester side s and QP pair q, counted as
 * each frame arrives at the far end of its cable. In-flight requests
 * (request arrived, its ATOMIC ACKNOWLEDGE or last READ response not yet)
 * mean something on a lossless link only. */
struct wire {
	uint64_t frames[2][SIM_PAIR_MAX_QPS];   /* frames side s sent on QP pair q */
	uint64_t atomics[2][SIM_PAIR_MAX_QPS];  /* ATOMIC requests side s sent */
	uint64_t acks[2][SIM_PAIR_MAX_QPS];     /* ATOMIC ACKNOWLEDGEs side s received */
	int inflight[2][SIM_PAIR_MAX_QPS];      /* READ and ATOMIC requests */
	int max_inflight[2][SIM_PAIR_MAX_QPS];
	int psn_high[2], psn_low[2];            /* side s sent an ATOMIC at PSN >= 0xfffff0 / < 16 */
	/* the last ATOMIC request side s sent */
	int req_seen[2];
	uint8_t req_opcode[2];
	uint64_t req_va[2], req_swap[2], req_cmp[2];
	uint32_t req_rkey[2];
	/* the last ATOMIC ACKNOWLEDGE side s received */
	int ack_seen[2];
	uint8_t ack_syndrome[2];
	uint64_t ack_orig[2];
	/* replay: with dup_w set, the first ATOMIC request side 0 sends is
	 * kept and queued once more into side 1's receive path when side 0 has
	 * received dup_after READ response packets of the same QP pair */
	struct rnic_world *dup_w;
	int dup_after, dup_resps, dup_injected;
	size_t dup_len;
	uint8_t dup_frame[256];
};

struct aworld {
	struct e2e_world e;
	struct e2e_tap tap;
	struct wire wire;
};

/* Counts what each side sends on each QP pair. */
static void frame_hook(void *state, int port, int q, const uint8_t *bth, size_t len)
{
	struct wire *wr = state;
	const uint8_t *ext = bth + RNIC_BTH_BYTES;
	uint32_t op = bth[0], psn = (uint32_t)e2e_get_be(bth + 9, 3);

	wr->frames[port][q]++;
	if (wr->dup_w && !wr->dup_injected) {
		if (port == 0 && !wr->dup_len && (op == RNIC_OP_COMPARE_SWAP || op == RNIC_OP_FETCH_ADD) &&
		    len <= sizeof(wr->dup_frame)) {
			memcpy(wr->dup_frame, bth - E2E_BTH_OFFSET, len);
			wr->dup_len = len;
		} else if (port == 1 && wr->dup_len && op >= RNIC_OP_RDMA_READ_RESPONSE_FIRST &&
			   op <= RNIC_OP_RDMA_READ_RESPONSE_ONLY && ++wr->dup_resps == wr->dup_after) {
			wr->dup_injected = rnic_sim_inject_frame(wr->dup_w, 1, wr->dup_frame, wr->dup_len) == 0;
		}
	}
	if (op == RNIC_OP_COMPARE_SWAP || op == RNIC_OP_FETCH_ADD) {
		if (len < E2E_BTH_OFFSET + RNIC_BTH_BYTES + RNIC_ATOMICETH_BYTES)
			return;
		wr->atomics[port][q]++;
		wr->req_seen[port] = 1;
		wr->req_opcode[port] = (uint8_t)op;
		wr->req_va[port] = e2e_get_be(ext, 8);
		wr->req_rkey[port] = (uint32_t)e2e_get_be(ext + 8, 4);
		wr->req_swap[port] = e2e_get_be(ext + 12, 8);
		wr->req_cmp[port] = e2e_get_be(ext + 20, 8);
		if (psn >= 0xfffff0)
			wr->psn_high[port] = 1;
		if (psn < 16)
			wr->psn_low[port] = 1;
	}
	if (op == RNIC_OP_COMPARE_SWAP || op == RNIC_OP_FETCH_ADD || op == RNIC_OP_RDMA_READ_REQUEST) {
		if (++wr->inflight[port][q] > wr->max_inflight[port][q])
			wr->max_inflight[port][q] = wr->inflight[port][q];
	} else if (op == RNIC_OP_ATOMIC_ACKNOWLEDGE || op == RNIC_OP_RDMA_READ_RESPONSE_LAST ||
		   op == RNIC_OP_RDMA_READ_RESPONSE_ONLY) {
		if (wr->inflight[1 - port][q] > 0)
			wr->inflight[1 - port][q]--;
		if (op == RNIC_OP_ATOMIC_ACKNOWLEDGE &&
		    len >= E2E_BTH_OFFSET + RNIC_BTH_BYTES + RNIC_AETH_BYTES + RNIC_ATOMICACKETH_BYTES) {
			wr->acks[1 - port][q]++;
			wr->ack_seen[1 - port] = 1;
			wr->ack_syndrome[1 - port] = ext[0];
			wr->ack_orig[1 - port] = e2e_get_be(ext + RNIC_AETH_BYTES, 8);
		}
	}
}

static void world_init(struct aworld *aw, const char *name, const struct sim_pair_opts *o)
{
	e2e_tap_world_init(&aw->e, &aw->tap, name, o, frame_hook, &aw->wire, sizeof(aw->wire));
}

static struct wire *wire_of(struct e2e_world *x)
{
	return e2e_tap_state(x);
}

/* A value with bits in both halves, from the seed. */
static uint64_t pattern(void)
{
	return e2e_rng() | 0x8000000100000000ull;
}

/* ---------------------------------------------------------------- cases */

/* One ATOMIC by side s on QP pair q on the 8 bytes at +16 of a 40-byte
 * remote buffer (random bytes around it) holding init; the original value
 * goes into an 8-byte result buffer. The AtomicETH on the wire must carry
 * the target's address and rkey and the operands as IBTA 9.3.5 places them
 * (compare-and-swap: swap data, compare data; fetch-and-add: add data,
 * compare 0), the AtomicAckETH the original value. */
static void one_case(struct e2e_world *x, int s, int q, int cas, uint64_t init, uint64_t cmp_add, uint64_t swap,
		     const char *what)
{
	struct wire *wr = wire_of(x);
	struct e2e_mem m = {0};
	struct e2e_op op;
	struct e2e_run r;
	uint64_t want_res, got_res = 0, got_tgt = 0;
	int tgt, res, ok = 0, wire_ok = 0;

	tgt = e2e_mem_add(&m, x, 1 - s, "target", 40, TGT_ACCESS, 1);
	res = e2e_mem_add(&m, x, s, "result", 8, RES_ACCESS, 0);
	if (tgt < 0 || res < 0) {
		e2e_result(0, "%s: buffer setup", what);
		goto out;
	}
	e2e_mem_set64(&m, tgt, 16, init);
	op = e2e_op_atomic(s, q, cas, res, 0, tgt, 16, cmp_add, swap);
	wr->req_seen[s] = wr->ack_seen[s] = 0;
	ok = e2e_run_ops(x, &m, &op, 1, &r);
	got_res = e2e_mem_get64(&m, res, 0);
	got_tgt = e2e_mem_get64(&m, tgt, 16);
	want_res = cas ? (init == cmp_add ? swap : init) : init + cmp_add;
	if (got_res != init || got_tgt != want_res)
		ok = 0; /* mem_check said so already; kept for the line below */
	wire_ok = wr->req_seen[s] && wr->ack_seen[s] &&
		  wr->req_opcode[s] == (cas ? RNIC_OP_COMPARE_SWAP : RNIC_OP_FETCH_ADD) &&
		  wr->req_va[s] == (uint64_t)(uintptr_t)(m.b[tgt].p + 16) && wr->req_rkey[s] == m.b[tgt].mr->rkey &&
		  wr->req_swap[s] == (cas ? swap : cmp_add) && wr->req_cmp[s] == (cas ? cmp_add : 0) &&
		  wr->ack_orig[s] == init && (wr->ack_syndrome[s] >> 5) == RNIC_AETH_KIND_ACK;
	if (!wire_ok)
		printf("  wire: request %s opcode 0x%02x va 0x%llx rkey 0x%x swap/add 0x%llx compare 0x%llx; ACK %s syndrome 0x%02x original 0x%llx\n",
		       wr->req_seen[s] ? "seen" : "not seen", wr->req_opcode[s], (unsigned long long)wr->req_va[s],
		       wr->req_rkey[s], (unsigned long long)wr->req_swap[s], (unsigned long long)wr->req_cmp[s],
		       wr->ack_seen[s] ? "seen" : "not seen", wr->ack_syndrome[s],
		       (unsigned long long)wr->ack_orig[s]);
	e2e_result(ok && wire_ok,
		   "%s by side %d on QP pair %d: remote 0x%016llx -> 0x%016llx (want 0x%016llx), returned 0x%016llx (want 0x%016llx): %s; AtomicETH and AtomicAckETH as posted: %s",
		   what, s, q, (unsigned long long)init, (unsigned long long)got_tgt, (unsigned long long)want_res,
		   (unsigned long long)got_res, (unsigned long long)init, e2e_st(&r, 0), wire_ok ? "yes" : "no");
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok && wire_ok);
}

static void basic_cases(struct e2e_world *x)
{
	uint64_t v = pattern(), w = pattern();

	one_case(x, 0, 0, 1, v, v, w, "CAS, compare matches");
	if (!e2e_world_ready(x))
		return;
	v = pattern();
	w = pattern();
	/* the compare differs only in the upper half */
	one_case(x, 0, 0, 1, v, v ^ 0x0000010000000000ull, w, "CAS, compare differs in bit 40");
	if (!e2e_world_ready(x))
		return;
	v = pattern();
	one_case(x, 0, 1, 1, v, v ^ 1, pattern(), "CAS, compare differs in bit 0");
	if (!e2e_world_ready(x))
		return;
	one_case(x, 0, 0, 0, pattern(), e2e_rng() >> 8, 0x5a5a5a5a5a5a5a5aull, "FAA (swap operand ignored)");
	if (!e2e_world_ready(x))
		return;
	one_case(x, 0, 0, 0, 0x00000000ffffffffull, 1, 0, "FAA, carry from bit 31 into bit 32");
	if (!e2e_world_ready(x))
		return;
	one_case(x, 0, 1, 0, 0xfffffffffffffff0ull, 0x25, 0, "FAA, 64-bit wrap-around");
	if (!e2e_world_ready(x))
		return;
	one_case(x, 0, 0, 0, pattern(), 0xffffffffffffffffull, 0, "FAA of -1 (2^64 - 1)");
	if (!e2e_world_ready(x))
		return;
	v = pattern();
	one_case(x, 1, 0, 1, v, v, pattern(), "CAS, compare matches,");
	if (!e2e_world_ready(x))
		return;
	v = pattern();
	one_case(x, 1, 1, 1, v, ~v, pattern(), "CAS, compare differs in every bit,");
	if (!e2e_world_ready(x))
		return;
	one_case(x, 1, 1, 0, 0xffffffffffffffffull, 2, 0, "FAA, 64-bit wrap-around,");
}

/* Where an ATOMIC's target and result may lie: the first and the last 8
 * bytes of the remote MR; the original value into an odd local address and
 * split over 2 SGEs (3 bytes and 5 bytes in two MRs). */
static void placement_case(struct e2e_world *x)
{
	struct e2e_mem m = {0};
	struct e2e_op ops[4];
	struct e2e_run r;
	int tgt, res, res2, ok = 0;
	const size_t tlen = 4096 + 64;

	tgt = e2e_mem_add(&m, x, 1, "target", tlen, TGT_ACCESS, 1);
	res = e2e_mem_add(&m, x, 0, "result", 64, RES_ACCESS, 0);
	res2 = e2e_mem_add(&m, x, 0, "second result MR", 16, RES_ACCESS, 0);
	if (tgt < 0 || res < 0 || res2 < 0) {
		e2e_result(0, "ATOMIC placement: buffer setup");
		goto out;
	}
	ops[0] = e2e_op_atomic(0, 0, 0, res, 5, tgt, 0, e2e_rng(), 0);
	ops[1] = e2e_op_atomic(0, 0, 1, res, 17, tgt, (long)tlen - 8, 0, pattern());
	ops[1].cmp_add = e2e_get_le64(e2e_want_at(&m, tgt, (long)tlen - 8)); /* matches */
	ops[2] = e2e_op_new(0, 0, RNIC_WR_ATOMIC_FETCH_AND_ADD);
	e2e_op_sge(&ops[2], res, 33, 3);
	e2e_op_sge(&ops[2], res2, 7, 5);
	ops[2].rbuf = tgt;
	ops[2].roff = 4096; /* in the MR's second page */
	ops[2].cmp_add = e2e_rng();
	/* a CAS of the first 8 bytes, which the first op changed: no match */
	ops[3] = e2e_op_atomic(0, 0, 1, res, 41, tgt, 0, 0, pattern());
	ok = e2e_run_ops(x, &m, ops, 4, &r);
	e2e_result(ok, "ATOMICs on the first and last 8 bytes of a remote MR, results at odd local addresses and over 2 SGEs (3 B + 5 B in two MRs): %s, %s, %s, %s",
		   e2e_st(&r, 0), e2e_st(&r, 1), e2e_st(&r, 2), e2e_st(&r, 3));
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

/* A chain of n ATOMICs on one 8-byte target by one QP: fetch-and-adds and
 * compare-and-swaps, each CAS's compare chosen to match or not from the
 * value the chain has made so far. Appends to ops; returns the count. */
static int chain(struct e2e_op *ops, int s, int q, int res, size_t res_off, int tgt, long toff, uint64_t start, int n)
{
	uint64_t v = start;

	for (int i = 0; i < n; i++) {
		uint64_t r = e2e_rng();

		if (r % 3 == 0) {
			uint64_t add = e2e_rng() >> (r % 5 ? 8 : 0);

			ops[i] = e2e_op_atomic(s, q, 0, res, res_off + 8 * (size_t)i, tgt, toff, add, 0);
			v += add;
		} else {
			int match = r % 3 == 1;
			uint64_t nv = pattern();

			ops[i] = e2e_op_atomic(s, q, 1, res, res_off + 8 * (size_t)i, tgt, toff,
					   match ? v : v ^ (1ull << (r % 64)), nv);
			if (match)
				v = nv;
		}
	}
	return n;
}

/* nper ATOMICs on each of QP pairs 0 and 1, posted alternately, each QP on
 * its own target, the two targets adjacent in one MR (reverse: QP pair 1's
 * by side 1, into side 0's memory). */
static void two_qp_case(struct e2e_world *x, int nper, int reverse)
{
	struct e2e_mem m = {0};
	struct e2e_op ops[E2E_MAX_OPS], tmp[2][32];
	struct e2e_run r;
	int tgt[2], res[2], n = 0, ok = 0;

	for (int q = 0; q < 2; q++) {
		int s = reverse && q ? 1 : 0;

		tgt[q] = (q && !reverse) ? tgt[0] :
			 e2e_mem_add(&m, x, 1 - s, q ? "target of QP pair 1" : "targets", 32, TGT_ACCESS, 1);
		res[q] = e2e_mem_add(&m, x, s, q ? "results of QP pair 1" : "results of QP pair 0",
				 8 * (size_t)nper, RES_ACCESS, 0);
	}
	if (tgt[0] < 0 || tgt[1] < 0 || res[0] < 0 || res[1] < 0 || nper > 32) {
		e2e_result(0, "two QPs: buffer setup");
		goto out;
	}
	for (int q = 0; q < 2; q++)
		chain(tmp[q], reverse && q ? 1 : 0, q, res[q], 0, tgt[q], 8 + 8 * q,
		      e2e_get_le64(e2e_want_at(&m, tgt[q], 8 + 8 * q)), nper);
	for (int i = 0; i < nper; i++)
		for (int q = 0; q < 2; q++)
			ops[n++] = tmp[q][i];
	ok = e2e_run_ops(x, &m, ops, n, &r);
	e2e_result(ok, "two QP pairs, %d ATOMICs (FAA and CAS, matching or not) each posted alternately%s, adjacent targets: %d of %d completions, first %s",
		   nper, reverse ? ", QP pair 1's by side 1" : " by side 0", e2e_got(&r), e2e_wanted(&r), e2e_st(&r, 0));
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

/* Both sides' ATOMICs on QP pair 0 at once: each QP is requester and
 * responder at the same time. */
static void bidir_case(struct e2e_world *x)
{
	enum { PER = 6 };
	struct e2e_mem m = {0};
	struct e2e_op ops[2 * PER], tmp[2][PER];
	struct e2e_run r;
	int tgt[2], res[2], n = 0, ok = 0;

	for (int s = 0; s < 2; s++) {
		tgt[s] = e2e_mem_add(&m, x, 1 - s, s ? "target of side 1" : "target of side 0", 8, TGT_ACCESS, 1);
		res[s] = e2e_mem_add(&m, x, s, s ? "results of side 1" : "results of side 0", 8 * PER, RES_ACCESS, 0);
	}
	if (tgt[0] < 0 || tgt[1] < 0 || res[0] < 0 || res[1] < 0) {
		e2e_result(0, "both ways: buffer setup");
		goto out;
	}
	for (int s = 0; s < 2; s++)
		chain(tmp[s], s, 0, res[s], 0, tgt[s], 0, e2e_get_le64(e2e_want_at(&m, tgt[s], 0)), PER);
	for (int i = 0; i < PER; i++)
		for (int s = 0; s < 2; s++)
			ops[n++] = tmp[s][i];
	ok = e2e_run_ops(x, &m, ops, n, &r);
	e2e_result(ok, "both sides ATOMIC into each other on one QP pair, %d each: %d of %d completions, first %s",
		   PER, e2e_got(&r), e2e_wanted(&r), e2e_st(&r, 0));
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

/* OUTSTANDING ATOMICs in one post_send on QP pair 1, chains on 3 targets:
 * the requester keeps at most max_rd_atomic (16) in flight. */
static void outstanding_case(struct e2e_world *x)
{
	struct e2e_mem m = {0};
	struct e2e_op ops[OUTSTANDING];
	struct e2e_run r;
	struct wire *wr = wire_of(x);
	int tgt, res, ok = 0, n = 0, per = OUTSTANDING / 3;

	tgt = e2e_mem_add(&m, x, 1, "targets", 24, TGT_ACCESS, 1);
	res = e2e_mem_add(&m, x, 0, "results", 8 * OUTSTANDING, RES_ACCESS, 0);
	if (tgt < 0 || res < 0) {
		e2e_result(0, "%d ATOMICs outstanding: buffer setup", OUTSTANDING);
		goto out;
	}
	wr->max_inflight[0][1] = 0;
	for (int t = 0; t < 3; t++)
		n += chain(ops + n, 0, 1, res, 8 * (size_t)n, tgt, 8 * t, e2e_get_le64(e2e_want_at(&m, tgt, 8 * t)), per);
	ok = e2e_run_ops(x, &m, ops, n, &r);
	if (wr->max_inflight[0][1] > RNIC_MAX_RD_ATOMIC || wr->max_inflight[0][1] < 2) {
		printf("  %d ATOMICs of the QP were in flight at once on the wire, want 2..%d\n",
		       wr->max_inflight[0][1], RNIC_MAX_RD_ATOMIC);
		ok = 0;
	}
	e2e_result(ok, "%d ATOMICs posted at once on one QP (3 chains): %d of %d completions, first %s; up to %d in flight on the wire (max_rd_atomic %d)",
		   n, e2e_got(&r), e2e_wanted(&r), e2e_st(&r, 0), wr->max_inflight[0][1], RNIC_MAX_RD_ATOMIC);
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

/* WRITEs, ATOMICs and READs on one QP in one post_send, all on one 64-byte
 * remote range: each sees what the ones before it did (a READ after an
 * ATOMIC sees its result; a CAS compares against what a WRITE wrote). */
static void mixed_case(struct e2e_world *x)
{
	struct e2e_mem m = {0};
	struct e2e_op ops[12];
	struct e2e_run r;
	int lsrc, ldst, res, rmem, n = 0, ok = 0;

	lsrc = e2e_mem_add(&m, x, 0, "WRITE source", 128, RNIC_ACCESS_LOCAL_WRITE, 1);
	ldst = e2e_mem_add(&m, x, 0, "READ destination", 256, RNIC_ACCESS_LOCAL_WRITE, 0);
	res = e2e_mem_add(&m, x, 0, "results", 64, RES_ACCESS, 0);
	rmem = e2e_mem_add(&m, x, 1, "remote memory", 64, ALL_ACCESS, 1);
	if (lsrc < 0 || ldst < 0 || res < 0 || rmem < 0) {
		e2e_result(0, "mixed: buffer setup");
		goto out;
	}
	/* 0: WRITE the whole range; 1: FAA at +8; 2: READ of all of it */
	ops[n++] = e2e_op_rw(0, 0, RNIC_WR_RDMA_WRITE, lsrc, 0, rmem, 0, 64);
	ops[n++] = e2e_op_atomic(0, 0, 0, res, 0, rmem, 8, e2e_rng(), 0);
	ops[n++] = e2e_op_rw(0, 0, RNIC_WR_RDMA_READ, ldst, 0, rmem, 0, 64);
	/* 3: CAS at +16 comparing with what WRITE 0 put there (matches); 4: READ of 8 bytes */
	ops[n++] = e2e_op_atomic(0, 0, 1, res, 8, rmem, 16, e2e_get_le64(m.b[lsrc].p + 16), pattern());
	ops[n++] = e2e_op_rw(0, 0, RNIC_WR_RDMA_READ, ldst, 64, rmem, 16, 8);
	/* 5: WRITE 8 bytes over the FAA's target; 6: FAA there; 7: READ 24 bytes from +4 */
	ops[n++] = e2e_op_rw(0, 0, RNIC_WR_RDMA_WRITE, lsrc, 64, rmem, 8, 8);
	ops[n++] = e2e_op_atomic(0, 0, 0, res, 16, rmem, 8, 3, 0);
	ops[n++] = e2e_op_rw(0, 0, RNIC_WR_RDMA_READ, ldst, 80, rmem, 4, 24);
	/* 8: CAS at +16 against the value before CAS 3 (no match now); 9: READ 1 byte of it */
	ops[n++] = e2e_op_atomic(0, 0, 1, res, 24, rmem, 16, e2e_get_le64(m.b[lsrc].p + 16), pattern());
	ops[n++] = e2e_op_rw(0, 0, RNIC_WR_RDMA_READ, ldst, 120, rmem, 23, 1);
	/* 10: WRITE 3 bytes into the middle of +56; 11: FAA of +56 */
	ops[n++] = e2e_op_rw(0, 0, RNIC_WR_RDMA_WRITE, lsrc, 100, rmem, 58, 3);
	ops[n++] = e2e_op_atomic(0, 0, 0, res, 32, rmem, 56, 1ull << 40, 0);
	ok = e2e_run_ops(x, &m, ops, n, &r);
	e2e_result(ok, "WRITE, FAA, READ over it, CAS (matching what the WRITE wrote), READ, WRITE, FAA, READ, CAS (no match), READ, WRITE 3 B, FAA on one QP: %d of %d completions, READ after the FAA %s",
		   e2e_got(&r), e2e_wanted(&r), e2e_st(&r, 2));
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

#define RUN(call) E2E_RUN(&aw.e, call)

/* A signaled work request with one SGE. */
static void signaled_wr(struct rnic_send_wr *wr, uint64_t id, struct rnic_sg_entry *sge, uint32_t opcode)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = opcode;
	wr->send_flags = RNIC_SEND_SIGNALED;
}

/* An ATOMIC waits for its own QP's READs only: side 0 asks for a long READ
 * on QP pair 0 and then for a FETCH_ADD on QP pair 1. The responder may not
 * hold the ATOMIC, and with it its whole receive path, until the other
 * QP's READ responses have all gone to the wire: the ATOMIC must complete
 * while the READ is still streaming, in under a quarter of the READ's time,
 * and both with the right data. */
static void cross_qp_read_case(struct e2e_world *x)
{
	const size_t len = e2e_width == 512 ? (size_t)1 << 20 : (size_t)256 << 10;
	const uint64_t init = pattern(), add = 0x1234;
	struct e2e_mem m = {0};
	struct rnic_send_wr rd, at, *bad = NULL;
	struct rnic_sg_entry rsge, asge;
	struct rnic_wc wc;
	uint64_t c0, done[2] = {0, 0};
	int src, dst, tgt, res, ok = 0, got = 0, order_ok = 1;

	src = e2e_mem_add(&m, x, 1, "READ source", len, ALL_ACCESS, 1);
	dst = e2e_mem_add(&m, x, 0, "READ destination", len, RES_ACCESS, 0);
	tgt = e2e_mem_add(&m, x, 1, "target", 8, TGT_ACCESS, 1);
	res = e2e_mem_add(&m, x, 0, "result", 8, RES_ACCESS, 0);
	if (src < 0 || dst < 0 || tgt < 0 || res < 0) {
		e2e_result(0, "ATOMIC beside another QP's READ: buffer setup");
		goto out;
	}
	e2e_mem_set64(&m, tgt, 0, init);
	memcpy(e2e_want_at(&m, dst, 0), e2e_want_at(&m, src, 0), len);
	e2e_put_le64(e2e_want_at(&m, tgt, 0), init + add);
	e2e_put_le64(e2e_want_at(&m, res, 0), init);

	rsge = e2e_sg(m.b[dst].p, (uint32_t)len, m.b[dst].mr->lkey);
	signaled_wr(&rd, 1, &rsge, RNIC_WR_RDMA_READ);
	rd.wr.rdma.remote_addr = (uint64_t)(uintptr_t)m.b[src].p;
	rd.wr.rdma.rkey = m.b[src].mr->rkey;
	asge = e2e_sg(m.b[res].p, 8, m.b[res].mr->lkey);
	signaled_wr(&at, 2, &asge, RNIC_WR_ATOMIC_FETCH_AND_ADD);
	at.wr.atomic.remote_addr = (uint64_t)(uintptr_t)m.b[tgt].p;
	at.wr.atomic.compare_add = add;
	at.wr.atomic.rkey = m.b[tgt].mr->rkey;

	c0 = rnic_world_cycle(x->w);
	if (rnic_post_send(x->p.side[0].qp[0], &rd, &bad) || rnic_post_send(x->p.side[0].qp[1], &at, &bad)) {
		e2e_result(0, "ATOMIC beside another QP's READ: post_send");
		goto out;
	}
	while (got < 2 && sim_pair_wait(x->p.side[0].cq, &wc, 1, 40000000ull) == 1) {
		if ((wc.wr_id != 1 && wc.wr_id != 2) || done[wc.wr_id - 1] || wc.status != RNIC_WC_SUCCESS)
			order_ok = 0;
		else
			done[wc.wr_id - 1] = rnic_world_cycle(x->w) - c0;
		got++;
	}
	ok = got == 2 && order_ok && e2e_mem_check(&m) && done[1] != 0 && done[1] < done[0] / 4;
	e2e_result(ok, "ATOMIC on QP pair 1 beside a %zu KiB READ on QP pair 0: ATOMIC done after %llu cycles, READ after %llu (want the ATOMIC under a quarter of it); %d of 2 completions, data %s",
		   len >> 10, (unsigned long long)done[1], (unsigned long long)done[0], got,
		   got == 2 && order_ok ? "checked" : "not checked");
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

static void base_opts(struct sim_pair_opts *o, int nqp)
{
	sim_pair_default_opts(o);
	o->nqp = nqp;
	o->path_mtu = RNIC_IB_MTU_1024;
	o->max_send_wr = 128;
	o->max_recv_wr = 0;
	o->max_recv_sge = 0;
}

static void basic_suite(void)
{
	struct sim_pair_opts o;
	struct aworld aw;

	base_opts(&o, 2);
	world_init(&aw, "atomic_basic", &o);
	if (!e2e_world_up(&aw.e))
		return;
	RUN(basic_cases(&aw.e));
	RUN(placement_case(&aw.e));
	RUN(two_qp_case(&aw.e, 10, 0));
	RUN(two_qp_case(&aw.e, 10, 1));
	RUN(bidir_case(&aw.e));
	RUN(outstanding_case(&aw.e));
	RUN(mixed_case(&aw.e));
	RUN(cross_qp_read_case(&aw.e));
	e2e_world_down(&aw.e);
}

/* ---------------------------------------------------------------- limits */

/* max_rd_atomic 1: eight ATOMICs posted at once (or ATOMICs and READs
 * alternately) complete in order, and the wire never holds two of them. */
static void rd_atomic1_case(struct e2e_world *x, int with_reads)
{
	struct e2e_mem m = {0};
	struct e2e_op ops[16], tmp[8];
	struct e2e_run r;
	struct wire *wr = wire_of(x);
	int tgt, res, src, dst, n = 0, ok = 0, atomics;

	tgt = e2e_mem_add(&m, x, 1, "target", 8, TGT_ACCESS, 1);
	res = e2e_mem_add(&m, x, 0, "results", 64, RES_ACCESS, 0);
	src = e2e_mem_add(&m, x, 1, "READ source", 8 * 1024, RNIC_ACCESS_REMOTE_READ, 1);
	dst = e2e_mem_add(&m, x, 0, "READ destination", 8 * 1024, RNIC_ACCESS_LOCAL_WRITE, 0);
	if (tgt < 0 || res < 0 || src < 0 || dst < 0) {
		e2e_result(0, "max_rd_atomic 1: buffer setup");
		goto out;
	}
	memset(wr->max_inflight[0], 0, sizeof(wr->max_inflight[0]));
	atomics = (int)wr->atomics[0][0];
	chain(tmp, 0, 0, res, 0, tgt, 0, e2e_get_le64(e2e_want_at(&m, tgt, 0)), 8);
	for (int i = 0; i < 8; i++) {
		ops[n++] = tmp[i];
		if (with_reads)
			ops[n++] = e2e_op_rw(0, 0, RNIC_WR_RDMA_READ, dst, 1024 * (size_t)i, src, 1024 * i + 1,
					 100 + 100 * (uint32_t)i);
	}
	ok = e2e_run_ops(x, &m, ops, n, &r);
	atomics = (int)wr->atomics[0][0] - atomics;
	if (wr->max_inflight[0][0] != 1) {
		printf("  at most %d READs and ATOMICs of the QP were in flight at once on the wire, want 1\n",
		       wr->max_inflight[0][0]);
		ok = 0;
	}
	e2e_result(ok, "max_rd_atomic 1: 8 ATOMICs%s posted at once: %d of %d completions, first %s; %d ATOMIC requests on the wire, at most %d request in flight",
		   with_reads ? " each followed by a READ" : "", e2e_got(&r), e2e_wanted(&r), e2e_st(&r, 0), atomics,
		   wr->max_inflight[0][0]);
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

static void rd_atomic1_suite(void)
{
	struct sim_pair_opts o;
	struct aworld aw;

	base_opts(&o, 1);
	o.max_rd_atomic = 1;
	world_init(&aw, "atomic_rd_atomic1", &o);
	if (!e2e_world_up(&aw.e))
		return;
	RUN(rd_atomic1_case(&aw.e, 0));
	RUN(rd_atomic1_case(&aw.e, 1));
	e2e_world_down(&aw.e);
}

/* A duplicate ATOMIC abandons no READ: side 0 posts a fetch-and-add and
 * then a READ of DUP_READ_LEN bytes; while the READ's responses stream,
 * the ATOMIC request frame arrives at side 1 once more (a copy of the
 * frame, as a link that duplicates it would deliver). The responder must
 * answer it from its saved result (counted as a duplicate, the add not
 * executed twice: the memory images) and keep answering the READ: it
 * completes with no ACK timeout and no retry at the requester. */
#define DUP_READ_LEN (256u << 10)

static void dup_atomic_case(struct e2e_world *x)
{
	struct wire *wr = wire_of(x);
	struct e2e_mem m = {0};
	struct e2e_op ops[2];
	struct e2e_run r;
	uint32_t dup0, tmo0, retry0, dup, tmo, retry;
	int tgt, res, src, dst, ok = 0;

	tgt = e2e_mem_add(&m, x, 1, "target", 8, TGT_ACCESS, 1);
	res = e2e_mem_add(&m, x, 0, "result", 8, RES_ACCESS, 0);
	src = e2e_mem_add(&m, x, 1, "READ source", DUP_READ_LEN, RNIC_ACCESS_REMOTE_READ, 1);
	dst = e2e_mem_add(&m, x, 0, "READ destination", DUP_READ_LEN, RNIC_ACCESS_LOCAL_WRITE, 0);
	if (tgt < 0 || res < 0 || src < 0 || dst < 0) {
		e2e_result(0, "duplicate ATOMIC during a READ: buffer setup");
		goto out;
	}
	dup0 = e2e_counter_or(x->p.side[1].ctx, RNIC_REG_STAT_RX_DUPLICATE, 0xffffffffu);
	tmo0 = e2e_counter_or(x->p.side[0].ctx, RNIC_REG_STAT_ACK_TIMEOUT, 0xffffffffu);
	retry0 = e2e_counter_or(x->p.side[0].ctx, RNIC_REG_STAT_RETRY, 0xffffffffu);
	wr->dup_len = 0;
	wr->dup_resps = 0;
	wr->dup_injected = 0;
	wr->dup_after = 4;
	wr->dup_w = x->w;
	ops[0] = e2e_op_atomic(0, 0, 0, res, 0, tgt, 0, pattern(), 0);
	ops[1] = e2e_op_rw(0, 0, RNIC_WR_RDMA_READ, dst, 0, src, 0, DUP_READ_LEN);
	ok = e2e_run_ops(x, &m, ops, 2, &r);
	wr->dup_w = NULL;
	dup = e2e_counter_or(x->p.side[1].ctx, RNIC_REG_STAT_RX_DUPLICATE, 0xffffffffu) - dup0;
	tmo = e2e_counter_or(x->p.side[0].ctx, RNIC_REG_STAT_ACK_TIMEOUT, 0xffffffffu) - tmo0;
	retry = e2e_counter_or(x->p.side[0].ctx, RNIC_REG_STAT_RETRY, 0xffffffffu) - retry0;
	if (!wr->dup_injected || dup != 1 || tmo != 0 || retry != 0)
		ok = 0;
	e2e_result(ok, "duplicate ATOMIC request during a %u B READ of the same QP: ATOMIC %s, READ %s; copy %s, responder duplicates %u (want 1), requester ACK timeouts %u, retries %u (want 0, 0)",
		   DUP_READ_LEN, e2e_st(&r, 0), e2e_st(&r, 1), wr->dup_injected ? "delivered" : "not delivered", dup,
		   tmo, retry);
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

static void dup_suite(void)
{
	struct sim_pair_opts o;
	struct aworld aw;

	base_opts(&o, 1);
	o.timeout = 5; /* 131 us: a READ left unanswered would time out well within the case */
	world_init(&aw, "atomic_dup", &o);
	if (!e2e_world_up(&aw.e))
		return;
	RUN(dup_atomic_case(&aw.e));
	e2e_world_down(&aw.e);
}

/* PSNs wrap from 0xffffff to 0 among the ATOMICs of both sides. */
static void psn_wrap_suite(void)
{
	enum { PER = 12 };
	struct sim_pair_opts o;
	struct aworld aw;
	struct e2e_world *x = &aw.e;
	struct e2e_mem m = {0};
	struct e2e_op ops[2 * PER];
	struct e2e_run r;
	int tgt[2], res[2], n = 0, ok;

	base_opts(&o, 1);
	o.psn[0] = 0xfffffa;
	o.psn[1] = 0xfffff8;
	world_init(&aw, "atomic_psn_wrap", &o);
	if (!e2e_world_up(x))
		return;
	for (int s = 0; s < 2; s++) {
		tgt[s] = e2e_mem_add(&m, x, 1 - s, s ? "target of side 1" : "target of side 0", 8, TGT_ACCESS, 1);
		res[s] = e2e_mem_add(&m, x, s, s ? "results of side 1" : "results of side 0", 8 * PER, RES_ACCESS, 0);
	}
	if (tgt[0] < 0 || tgt[1] < 0 || res[0] < 0 || res[1] < 0) {
		e2e_result(0, "PSN wrap: buffer setup");
		goto out;
	}
	for (int s = 0; s < 2; s++)
		n += chain(ops + n, s, 0, res[s], 0, tgt[s], 0, e2e_get_le64(e2e_want_at(&m, tgt[s], 0)), PER);
	ok = e2e_run_ops(x, &m, ops, n, &r);
	for (int s = 0; s < 2; s++)
		if (!wire_of(x)->psn_high[s] || !wire_of(x)->psn_low[s]) {
			printf("  side %d's ATOMICs did not cross the PSN wrap on the wire\n", s);
			ok = 0;
		}
	e2e_result(ok, "%d ATOMICs by each side from PSN 0x%06x / 0x%06x across the wrap to 0: %d of %d completions, first %s",
		   PER, o.psn[0], o.psn[1], e2e_got(&r), e2e_wanted(&r), e2e_st(&r, 0));
	e2e_case_done(x, ok);
out:
	e2e_mem_free(&m);
	e2e_world_down(x);
}

/* ---------------------------------------------------------------- atomicity */

/* Sort originals (with their adds) by value. */
struct orig_add {
	uint64_t orig, add;
};

static int cmp_orig(const void *a, const void *b)
{
	const struct orig_add *x = a, *y = b;

	return x->orig < y->orig ? -1 : x->orig > y->orig;
}

/* PER fetch-and-adds by side s on each of nqp QP pairs on one counter of
 * the other side, all posted at once, interleaved (and the same by the
 * other side on a counter of side s): each counter ends at its start plus
 * the sum of its adds, and its returned originals, sorted, are the partial
 * sums of the adds in one order: every original once, none lost or
 * doubled. */
static void atomicity_suite(void)
{
	enum { NQP = 3, PER = 12 };
	struct sim_pair_opts o;
	struct aworld aw;
	struct e2e_world *x = &aw.e;
	struct e2e_mem m = {0};
	struct e2e_op ops[2 * NQP * PER];
	struct e2e_run r;
	uint64_t start[2], sum[2] = {0, 0};
	int ctr[2], res[2], n = 0, ok;

	base_opts(&o, NQP);
	world_init(&aw, "atomic_atomicity", &o);
	if (!e2e_world_up(x))
		return;
	for (int s = 0; s < 2; s++) {
		ctr[s] = e2e_mem_add(&m, x, 1 - s, s ? "counter hit by side 1" : "counter hit by side 0", 24, TGT_ACCESS, 1);
		res[s] = e2e_mem_add(&m, x, s, s ? "originals of side 1" : "originals of side 0", 8 * NQP * PER,
				 RES_ACCESS, 0);
	}
	if (ctr[0] < 0 || ctr[1] < 0 || res[0] < 0 || res[1] < 0) {
		e2e_result(0, "atomicity: buffer setup");
		goto out;
	}
	for (int s = 0; s < 2; s++) {
		start[s] = e2e_rng() >> 16;
		e2e_mem_set64(&m, ctr[s], 8, start[s]);
	}
	for (int i = 0; i < PER; i++)
		for (int q = 0; q < NQP; q++)
			for (int s = 0; s < 2; s++) {
				uint64_t add = 1 + (e2e_rng() >> 40);
				int k = q * PER + i;

				ops[n] = e2e_op_atomic(s, q, 0, res[s], 8 * (size_t)k, ctr[s], 8, add, 0);
				ops[n++].unordered = 1;
				sum[s] += add;
			}
	for (int s = 0; s < 2; s++)
		e2e_put_le64(e2e_want_at(&m, ctr[s], 8), start[s] + sum[s]);
	ok = e2e_run_ops(x, &m, ops, n, &r);
	e2e_result(ok, "%d FAAs on one counter by side 0 over %d QP pairs and %d by side 1 on another, interleaved: %d of %d completions; counters 0x%llx / 0x%llx (want 0x%llx / 0x%llx), guards intact",
		   NQP * PER, NQP, NQP * PER, e2e_got(&r), e2e_wanted(&r), (unsigned long long)e2e_mem_get64(&m, ctr[0], 8),
		   (unsigned long long)e2e_mem_get64(&m, ctr[1], 8), (unsigned long long)(start[0] + sum[0]),
		   (unsigned long long)(start[1] + sum[1]));
	for (int s = 0; s < 2; s++) {
		struct orig_add oa[NQP * PER];
		uint64_t v = start[s];
		int k, good = r.wc_ok;

		for (int i = 0, j = 0; i < n; i++)
			if (ops[i].side == s) {
				oa[j].orig = e2e_mem_get64(&m, res[s], ops[i].sge[0].off);
				oa[j++].add = ops[i].cmp_add;
			}
		qsort(oa, NQP * PER, sizeof(oa[0]), cmp_orig);
		for (k = 0; k < NQP * PER && oa[k].orig == v; k++)
			v += oa[k].add;
		if (k < NQP * PER) {
			printf("  side %d: the %d-th smallest original is 0x%llx, want 0x%llx (the partial sum so far)\n",
			       s, k + 1, (unsigned long long)oa[k].orig, (unsigned long long)v);
			good = 0;
		}
		e2e_result(good, "side %d's %d originals are the partial sums of its adds in one order (each once): %d of %d in sequence",
			   s, NQP * PER, k, NQP * PER);
		ok &= good;
	}
	e2e_case_done(x, ok);
out:
	e2e_mem_free(&m);
	e2e_world_down(x);
}

/* ---------------------------------------------------------------- errors */

enum err_kind {
	E_RKEY,             /* rkey with another tag */
	E_NO_REMOTE_ATOMIC, /* target MR registered without REMOTE_ATOMIC */
	E_QP_ACCESS,        /* responder QP without REMOTE_ATOMIC in its access flags */
	E_MISALIGNED,       /* target address 4 bytes past an 8-byte boundary */
	E_PAST_END,         /* target runs 4 bytes past the MR */
	E_BEFORE_START,     /* target 8 bytes before the MR */
	E_LKEY,             /* result SGE with another tag in its lkey */
	E_NO_LOCAL_WRITE,   /* result SGE in an MR without LOCAL_WRITE */
	E_SGE_PAST_MR,      /* result SGE runs 4 bytes past its MR */
	E_COUNT
};

static const struct e2e_err_def err_case_def[E_COUNT] = {
	{"wrong rkey", RNIC_WC_REM_ACCESS_ERR, E2E_NAK(RNIC_AETH_NAK_REM_ACCESS_ERR)},
	{"target MR without REMOTE_ATOMIC", RNIC_WC_REM_ACCESS_ERR, E2E_NAK(RNIC_AETH_NAK_REM_ACCESS_ERR)},
	{"responder QP without REMOTE_ATOMIC", RNIC_WC_REM_INV_REQ_ERR, E2E_NAK(RNIC_AETH_NAK_INVALID_REQ)},
	{"target not 8-byte aligned", RNIC_WC_REM_INV_REQ_ERR, E2E_NAK(RNIC_AETH_NAK_INVALID_REQ)},
	{"target 4 bytes past the MR", RNIC_WC_REM_ACCESS_ERR, E2E_NAK(RNIC_AETH_NAK_REM_ACCESS_ERR)},
	{"target 8 bytes before the MR", RNIC_WC_REM_ACCESS_ERR, E2E_NAK(RNIC_AETH_NAK_REM_ACCESS_ERR)},
	{"wrong lkey", RNIC_WC_LOC_PROT_ERR, E2E_ANY},
	{"result MR without LOCAL_WRITE", RNIC_WC_LOC_PROT_ERR, E2E_ANY},
	{"result SGE 4 bytes past its MR", RNIC_WC_LOC_PROT_ERR, E2E_ANY},
};

/* On QP pair k, side 0 posts the ATOMIC under test, a good FAA and a good
 * WRITE in one post_send. The first fails as the kind says and the QP
 * enters the error state: the other two complete with WR_FLUSH_ERR and never
 * run. No byte of either side's memory changes (the target, the bytes
 * around it, the result buffers); for a local failure nothing is sent at
 * all. */
static void error_case(struct e2e_world *x, int k, enum err_kind kind)
{
	struct wire *wr = wire_of(x);
	struct e2e_mem m = {0};
	struct e2e_op ops[3];
	struct e2e_run r;
	int tgt, natgt, res, rores, res2, wsrc, wdst, ok = 0, local;
	uint64_t frames0 = wr->frames[0][k], frames;

	tgt = e2e_mem_add(&m, x, 1, "target", 20, TGT_ACCESS, 1);
	natgt = e2e_mem_add(&m, x, 1, "target without REMOTE_ATOMIC", 16,
			RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ, 1);
	wdst = e2e_mem_add(&m, x, 1, "WRITE target", 64, ALL_ACCESS, 1);
	res = e2e_mem_add(&m, x, 0, "result", 12, RES_ACCESS, 0);
	rores = e2e_mem_add(&m, x, 0, "result without LOCAL_WRITE", 8, RNIC_ACCESS_REMOTE_READ, 0);
	res2 = e2e_mem_add(&m, x, 0, "second result", 8, RES_ACCESS, 0);
	wsrc = e2e_mem_add(&m, x, 0, "WRITE source", 64, RNIC_ACCESS_LOCAL_WRITE, 1);
	if (tgt < 0 || natgt < 0 || wdst < 0 || res < 0 || rores < 0 || res2 < 0 || wsrc < 0) {
		e2e_result(0, "ATOMIC error %s: buffer setup", err_case_def[kind].name);
		goto out;
	}
	ops[0] = e2e_op_atomic(0, k, k % 2, res, 0, tgt, 8, 0, pattern());
	ops[0].cmp_add = e2e_get_le64(e2e_want_at(&m, tgt, 8)); /* a CAS that would match */
	switch (kind) {
	case E_RKEY: ops[0].rkey_xor = 0x80; break; /* same MPT entry, other tag */
	case E_NO_REMOTE_ATOMIC: ops[0].rbuf = natgt; break;
	case E_MISALIGNED: ops[0].roff = 4; break;
	case E_PAST_END: ops[0].roff = 16; break;
	case E_BEFORE_START: ops[0].roff = -8; break;
	case E_LKEY: ops[0].lkey_xor = 0x80; break;
	case E_NO_LOCAL_WRITE: ops[0].sge[0].buf = rores; break;
	case E_SGE_PAST_MR: ops[0].sge[0].off = 8; break;
	case E_QP_ACCESS:
		if (e2e_qp_access(x, 1, k, RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ)) {
			e2e_result(0, "ATOMIC error %s: modify_qp of the responder", err_case_def[kind].name);
			goto out;
		}
		break;
	default: break;
	}
	local = e2e_op_fails(&ops[0], &err_case_def[kind]);
	ops[1] = e2e_op_atomic(0, k, 0, res2, 0, tgt, 0, 1, 0);
	ops[2] = e2e_op_rw(0, k, RNIC_WR_RDMA_WRITE, wsrc, 0, wdst, 0, 64);
	ops[1].status = ops[2].status = RNIC_WC_WR_FLUSH_ERR;
	ok = e2e_run_ops(x, &m, ops, 3, &r);
	if (x->p.side[0].qp[k]->state != RNIC_QPS_ERR) {
		printf("  library: requester QP state %u after the error completion\n", x->p.side[0].qp[k]->state);
		ok = 0;
	}
	/* the responder's QP in error, its host told how (no CQE there) */
	ok = ok && e2e_resp_event_ok(x, k, &err_case_def[kind]);
	frames = wr->frames[0][k] - frames0;
	if (local && frames) {
		printf("  %llu frames sent on the QP, want none\n", (unsigned long long)frames);
		ok = 0;
	}
	e2e_result(ok, "ATOMIC error %s (%s): %s (want %s), then FAA %s, WRITE %s (want both flushed); memory untouched; %llu frames sent",
		   err_case_def[kind].name, e2e_op_name(ops[0].opcode), e2e_st(&r, 0),
		   rnic_wc_status_str(err_case_def[kind].status), e2e_st(&r, 1), e2e_st(&r, 2), (unsigned long long)frames);
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

/* An ATOMIC whose SGEs do not hold exactly 8 bytes (4, 16, none) is refused
 * at post time with EINVAL, nothing is rung or sent, and the QP stays
 * usable: an ATOMIC posted next succeeds. */
static void length_case(struct e2e_world *x, int k)
{
	struct wire *wr = wire_of(x);
	struct e2e_mem m = {0};
	struct e2e_op op;
	struct e2e_run r;
	struct rnic_sg_entry sg[2];
	struct rnic_send_wr w, *bad;
	int tgt, res, ok = 0, errs[3];
	static const int lens[3] = {4, 16, 0};
	uint64_t frames0 = wr->frames[0][k], frames;

	tgt = e2e_mem_add(&m, x, 1, "target", 8, TGT_ACCESS, 1);
	res = e2e_mem_add(&m, x, 0, "result", 16, RES_ACCESS, 0);
	if (tgt < 0 || res < 0) {
		e2e_result(0, "ATOMIC length: buffer setup");
		goto out;
	}
	for (int i = 0; i < 3; i++) {
		memset(&w, 0, sizeof(w));
		w.wr_id = e2e_wr_seq++;
		w.opcode = i == 1 ? RNIC_WR_ATOMIC_CMP_AND_SWP : RNIC_WR_ATOMIC_FETCH_AND_ADD;
		w.send_flags = RNIC_SEND_SIGNALED;
		sg[0] = e2e_sg(m.b[res].p, lens[i] > 8 ? 8 : (uint32_t)lens[i], m.b[res].mr->lkey);
		sg[1] = e2e_sg(m.b[res].p + 8, 8, m.b[res].mr->lkey);
		w.sg_list = lens[i] ? sg : NULL;
		w.num_sge = lens[i] > 8 ? 2 : lens[i] ? 1 : 0;
		w.wr.atomic.remote_addr = (uint64_t)(uintptr_t)m.b[tgt].p;
		w.wr.atomic.rkey = m.b[tgt].mr->rkey;
		w.wr.atomic.compare_add = 1;
		bad = NULL;
		errs[i] = rnic_post_send(x->p.side[0].qp[k], &w, &bad);
		if (errs[i] != EINVAL || bad != &w) {
			printf("  %s with %d bytes of SGEs: post_send %s, bad_wr %s\n", e2e_op_name(w.opcode), lens[i],
			       strerror(errs[i]), bad == &w ? "the WR" : "not the WR");
			ok = -1;
		}
	}
	/* the QP took nothing: a good FAA completes, and only its frames go out */
	rnic_world_step(x->w, 2000);
	frames = wr->frames[0][k] - frames0;
	if (frames) {
		printf("  %llu frames sent after the refused posts, want none\n", (unsigned long long)frames);
		ok = -1;
	}
	op = e2e_op_atomic(0, k, 0, res, 0, tgt, 0, 7, 0);
	ok = e2e_run_ops(x, &m, &op, 1, &r) && ok == 0;
	e2e_result(ok, "ATOMICs with 4, 16 and 0 bytes of SGEs: post_send %s, %s, %s (want EINVAL each); nothing sent; then an FAA on the QP: %s",
		   strerror(errs[0]), strerror(errs[1]), strerror(errs[2]), e2e_st(&r, 0));
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

static void error_suite(void)
{
	struct sim_pair_opts o;
	struct aworld aw;
	uint32_t c0[3];

	base_opts(&o, E_COUNT + 1);
	world_init(&aw, "atomic_errors", &o);
	if (!e2e_world_up(&aw.e))
		return;
	e2e_err_counters(&aw.e, c0);
	for (int k = 0; k < E_COUNT; k++)
		RUN(error_case(&aw.e, k, (enum err_kind)k));
	RUN(length_case(&aw.e, E_COUNT));
	e2e_err_counters_check(&aw.e, c0, "ATOMIC", 6, 4, 3);
	e2e_world_down(&aw.e);
}

/* ---------------------------------------------------------------- lossy link */

/* One round on the lossy link: side 0 on QP pair 0 and side 1 on QP pair 1,
 * per work requests each, all posted at once: an FAA chain on a counter, a
 * CAS chain next to it (every other compare is the value the chain has by
 * then), and every 8th a READ of the counters or a WRITE after them. A
 * retried READ is executed again (IBTA 9.7.5.1.2) and would see what later
 * requests changed meanwhile, so the request after a READ is fenced. Every
 * work request completes exactly once, in order; every counter ends at its
 * exact sum and every returned original is exact, so no duplicate ATOMIC
 * was executed twice. Returns the number of ATOMICs. */
static int lossy_round(struct e2e_world *x, int round, int per)
{
	struct e2e_mem m = {0};
	struct e2e_op ops[E2E_MAX_OPS];
	struct e2e_run r;
	int tgt[2], res[2], lsrc[2], ldst[2], n = 0, extra, natomic = 0;

	for (int s = 0; s < 2; s++) {
		tgt[s] = e2e_mem_add(&m, x, 1 - s, s ? "targets of side 1" : "targets of side 0", 2048, ALL_ACCESS, 1);
		res[s] = e2e_mem_add(&m, x, s, s ? "results of side 1" : "results of side 0", 8 * (size_t)per, RES_ACCESS, 0);
		lsrc[s] = e2e_mem_add(&m, x, s, s ? "WRITE source of side 1" : "WRITE source of side 0", 2048,
				  RNIC_ACCESS_LOCAL_WRITE, 1);
		ldst[s] = e2e_mem_add(&m, x, s, s ? "READ destination of side 1" : "READ destination of side 0",
				  8 * 2048, RNIC_ACCESS_LOCAL_WRITE, 0);
	}
	for (int s = 0; s < 2; s++)
		if (tgt[s] < 0 || res[s] < 0 || lsrc[s] < 0 || ldst[s] < 0 || 2 * per > E2E_MAX_OPS) {
			e2e_result(0, "%s round %d: buffer setup", x->tag, round);
			goto out;
		}
	for (int s = 0; s < 2; s++) {
		uint64_t v = e2e_get_le64(e2e_want_at(&m, tgt[s], 8));
		int reads = 0, ncas = 0;

		for (int i = 0; i < per; i++) {
			uint64_t rv = e2e_rng();
			int fence = i > 0 && ops[n - 1].opcode == RNIC_WR_RDMA_READ;

			if (i % 8 == 7) {
				if (rv % 2 && reads < 8)
					ops[n++] = e2e_op_rw(s, s, RNIC_WR_RDMA_READ, ldst[s], 2048 * (size_t)reads++, tgt[s],
							 0, 32 + (uint32_t)(rv % 2000));
				else
					ops[n++] = e2e_op_rw(s, s, RNIC_WR_RDMA_WRITE, lsrc[s], 0, tgt[s], 48,
							 1500 + (uint32_t)(rv % 500));
				ops[n - 1].fence = fence;
				continue;
			}
			if (i % 4 == 3) {
				uint64_t nv = pattern();

				ops[n++] = e2e_op_atomic(s, s, 1, res[s], 8 * (size_t)i, tgt[s], 8, ncas++ % 2 ? v ^ 0x10 : v, nv);
				if (ops[n - 1].cmp_add == v)
					v = nv;
			} else {
				ops[n++] = e2e_op_atomic(s, s, 0, res[s], 8 * (size_t)i, tgt[s], 0, 1 + (rv >> 24), 0);
			}
			ops[n - 1].fence = fence;
			natomic++;
		}
	}
	e2e_run_ops(x, &m, ops, n, &r);
	/* nothing may complete twice: let retransmissions and duplicates settle */
	extra = e2e_drain_quiet(x, 50000);
	e2e_result(r.wc_ok && r.mem_ok && extra == 0,
		   "%s round %d: %d work requests (%d ATOMICs), side 0 on QP pair 0, side 1 on pair 1: %d of %d completions, %d not as expected, %d late; memory %s (FAA counters 0x%016llx / 0x%016llx); %llu cycles",
		   x->tag, round, n, natomic, e2e_got(&r), e2e_wanted(&r), r.bad_wc, extra,
		   r.mem_ok ? "exact" : "NOT as it must be", (unsigned long long)e2e_mem_get64(&m, tgt[0], 0),
		   (unsigned long long)e2e_mem_get64(&m, tgt[1], 0), (unsigned long long)r.cycles);
	e2e_case_done(x, r.wc_ok && r.mem_ok && extra == 0);
out:
	e2e_mem_free(&m);
	return natomic;
}

/* The responders' duplicate counters, summed (all ones where unreadable). */
static uint64_t lossy_dups(struct e2e_world *x)
{
	uint64_t n = 0;

	for (int s = 0; s < 2; s++)
		n += e2e_counter_or(x->p.side[s].ctx, RNIC_REG_STAT_RX_DUPLICATE, 0xffffffffu);
	return n;
}

/* Rounds of lossy_round over a link with 1% drop, 1% reorder, 1%
 * duplication and 0.1% corruption; then the link must have done its
 * damage, retransmitted ATOMIC requests must have reached the responders
 * and been counted there as duplicates. Past `rounds`, rounds go on (up
 * to max_rounds) until a responder has counted a duplicate: whether a
 * fault of a short run hits a request the responder already executed
 * depends on the timing, and without one the check proves nothing. */
static void lossy_suite(int rounds, int max_rounds, int per)
{
	struct sim_pair_opts o;
	struct aworld aw;
	struct e2e_world *x = &aw.e;
	struct rnic_sim_link_stats ls;
	uint32_t retry[2], dup[2];
	uint64_t on_wire;
	int natomic = 0;

	base_opts(&o, 2);
	o.timeout = 5; /* 131 us: a lost last packet costs that much */
	o.retry_cnt = 7;
	world_init(&aw, "atomic_lossy", &o);
	if (!e2e_lossy_up(x))
		return;
	for (int i = 0; i < max_rounds && (i < rounds || lossy_dups(x) == 0); i++)
		if (e2e_world_ready(x))
			natomic += lossy_round(x, i, per);
	if (!x->up)
		return;
	rnic_world_link_stats(x->w, &ls);
	for (int s = 0; s < 2; s++) {
		retry[s] = e2e_counter_or(x->p.side[s].ctx, RNIC_REG_STAT_RETRY, 0xffffffffu);
		dup[s] = e2e_counter_or(x->p.side[s].ctx, RNIC_REG_STAT_RX_DUPLICATE, 0xffffffffu);
	}
	on_wire = wire_of(x)->atomics[0][0] + wire_of(x)->atomics[1][1];
	e2e_result(x->generation == 0 && ls.dropped + ls.corrupted + ls.reordered > 0 && retry[0] + retry[1] > 0 &&
		   on_wire > (uint64_t)natomic && dup[0] + dup[1] > 0,
		   "%s: link dropped %llu, reordered %llu, duplicated %llu, corrupted %llu; %llu ATOMIC requests arrived for %d ATOMICs; STAT_RETRY %u/%u, STAT_RX_DUPLICATE %u/%u (side 0/1)",
		   x->tag, (unsigned long long)ls.dropped, (unsigned long long)ls.reordered,
		   (unsigned long long)ls.duplicated, (unsigned long long)ls.corrupted, (unsigned long long)on_wire,
		   natomic, retry[0], retry[1], dup[0], dup[1]);
	e2e_world_down(x);
}

int main(int argc, char **argv)
{
	int rc = e2e_parse_args(argc, argv, "rnic-e2e-atomic",
				"End-to-end ATOMIC (compare-and-swap, fetch-and-add) tests on two simulated NICs.\n"
				"--quick: 1 round on the lossy link instead of 10 (more, up to 10, until a\n"
				"responder has counted a duplicate request).\n");

	if (rc >= 0)
		return rc;
	e2e_rng_seed(e2e_seed);
	basic_suite();
	rd_atomic1_suite();
	dup_suite();
	psn_wrap_suite();
	atomicity_suite();
	error_suite();
	lossy_suite(e2e_quick ? 1 : 10, 10, 56);
	return e2e_summary();
}
