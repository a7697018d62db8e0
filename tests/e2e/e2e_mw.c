/* End-to-end tests of memory windows (IBA Vol. 1 10.6.7; docs/mw.md) on two
 * simulated NICs: side 1 allocates windows over its MRs, side 0 aims RDMA
 * WRITE, READ and ATOMIC at them.
 *
 *   rnic-e2e-mw --width 64|512 [--seed N] [--pcap-dir DIR] [--quick]
 *
 * Cases:
 *   unbound  the rkey of a window of type 1 and of type 2 that is not
 *            bound (its MPT entry invalid) reaches nothing: a WRITE, a READ
 *            and a fetch-and-add through it, each on a QP pair of its own,
 *            end with REM_ACCESS_ERR (NAK remote access error), no byte of
 *            the MR below, its guards or the local buffers changes; the
 *            responder counts six NAKs and six access errors.
 *   mr       the MR below (registered with MW_BIND) is an ordinary MR: a
 *            WRITE, a READ and a fetch-and-add through its own rkey succeed,
 *            memory checked byte for byte.
 *   objects  a window holds its PD (dealloc_pd: EBUSY) but not its MR
 *            (unbound windows do not keep dereg_mr from succeeding); keys
 *            of windows and MRs never collide, a window allocated again
 *            gets a key no earlier object had.
 *   bound    a type 1 window (rnic_bind_mw) and a type 2 window (a BIND_MW
 *            WQE) bound by side 1's QP over the middle of an MR: a WRITE,
 *            READ or fetch-and-add inside the window succeeds (memory checked
 *            byte for byte); then type 1 is bound again to another range
 *            (an access there succeeds, one to its old range fails) and
 *            type 2 is invalidated by LOCAL_INV (an access through its old
 *            key fails with REM_ACCESS_ERR); completions WC_BIND_MW and
 *            WC_LOCAL_INV.
 *   zero     a zero-based type 2 window: addresses are offsets from 0; an
 *            access inside it succeeds, one past its end fails.
 *   bind errors  complete with MW_BIND_ERR (and the QP goes to error): the
 *            MR without MW_BIND, a range past the MR's end, a type 2 window
 *            bound twice, a window of another PD.
 *   dereg    dereg_mr of an MR with a bound window: EBUSY; after the
 *            window is unbound (a type 1 bind of length 0) it succeeds.
 *   send_inv a type 2 window bound by side 1's QP: side 0's SEND with
 *            invalidate of its key (three packets, the IETH on the last)
 *            completes on both sides, the receive with WITH_INV and the
 *            key, the bytes as sent; a WRITE through the key then fails
 *            with REM_ACCESS_ERR. Again with the receive posted only after
 *            side 1's RNR NAK: side 0 sends the three packets again from
 *            the first, IETH included (go-back-N), and the same holds.
 *   write/inv  a WRITE of 128 KiB through a type 2 window, LOCAL_INV of its
 *            key once its first bytes landed: every later packet is checked
 *            again: NAK remote access error, the WRITE fails, nothing past
 *            the packets before the invalidation is written.
 *   send_inv refused  a type 1 window's key, a type 2 window's key after
 *            LOCAL_INV, an MR's key: both sides complete with
 *            REM_INV_REQ_ERR (NAK invalid request), nothing is written.
 * Every world ends with the memory-protection checker's verdict. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"
#include "e2e_common.h"
#include "e2e_ops.h"

#define NQP 30
#define ALL_REMOTE (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ | \
		    RNIC_ACCESS_REMOTE_ATOMIC)
#define MR_ACCESS (ALL_REMOTE | RNIC_ACCESS_MW_BIND)

static const struct e2e_err_def rem_access = {
	"window not bound", RNIC_WC_REM_ACCESS_ERR, E2E_NAK(RNIC_AETH_NAK_REM_ACCESS_ERR)
};

/* One op through the rkey of an unbound window of the given type, on QP
 * pair k: it fails, nothing changes. */
static void unbound_case(struct e2e_world *x, int k, uint32_t opcode, int type)
{
	struct e2e_mem m = {0};
	struct rnic_mw *mw = NULL;
	struct e2e_op op;
	struct e2e_run r;
	int tgt, loc, ok = 0;

	tgt = e2e_mem_add(&m, x, 1, "MR below the window", 4096, MR_ACCESS, 1);
	loc = e2e_mem_add(&m, x, 0, "local buffer", 4096, RNIC_ACCESS_LOCAL_WRITE, 1);
	mw = rnic_alloc_mw(x->p.side[1].pd, type);
	if (tgt < 0 || loc < 0 || !mw) {
		e2e_result(0, "unbound type %d window, %s: setup (%s)", type, e2e_op_name(opcode),
			   mw ? "buffers" : strerror(errno));
		goto out;
	}
	if (e2e_is_atomic(opcode))
		op = e2e_op_atomic(0, k, 0, loc, 0, tgt, 64, 5, 0);
	else
		op = e2e_op_rw(0, k, opcode, loc, 0, tgt, 100, 1000);
	/* the window's key, aimed at bytes the MR holds */
	op.rkey_set = 1;
	op.rkey = mw->rkey;
	e2e_op_fails(&op, &rem_access);
	ok = e2e_run_ops(x, &m, &op, 1, &r);
	e2e_result(ok, "%s through the rkey 0x%08x of an unbound type %d window: %s (want %s); memory untouched",
		   e2e_op_name(opcode), mw->rkey, type, e2e_st(&r, 0), rnic_wc_status_str(rem_access.status));
out:
	if (mw && rnic_dealloc_mw(mw)) {
		printf("  dealloc_mw refused\n");
		ok = 0;
	}
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

#define WIN_RIGHTS (RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_ATOMIC)

/* Wait for the one completion of a window operation posted on side 1's QP
 * of pair k: its status want (and, on success, opcode wc_op). */
static int wait_local(struct e2e_world *x, const char *what, uint32_t want, uint32_t wc_op)
{
	struct rnic_wc wc;
	uint64_t c0 = rnic_world_cycle(x->w);
	int got = 0;

	if (!e2e_wait_cqs(x, NULL, 0, &wc, 1, NULL, &got) || got != 1) {
		printf("  %s: no completion\n", what);
		return 0;
	}
	printf("  %s: %s, opcode %u, after %llu cycles\n", what, rnic_wc_status_str(wc.status), wc.opcode,
	       (unsigned long long)(rnic_world_cycle(x->w) - c0));
	return wc.status == want && (want != RNIC_WC_SUCCESS || wc.opcode == wc_op);
}

/* Bind mw over [addr, addr + len) of mr by side 1's QP of pair k (type 1:
 * rnic_bind_mw, type 2: a BIND_MW WQE with the next tag); *key gets the
 * window's key after it. 1 when it completes with want. */
static int bind_win(struct e2e_world *x, int k, struct rnic_mw *mw, struct rnic_mr *mr, uint64_t addr,
		    uint64_t len, unsigned int access, uint32_t want, uint32_t *key)
{
	struct rnic_qp *qp = x->p.side[1].qp[k];
	int err;

	if (mw->type == RNIC_MW_TYPE_1) {
		struct rnic_mw_bind b = {
			.wr_id = 0x4d57, .send_flags = RNIC_SEND_SIGNALED,
			.bind_info = {.mr = mr, .addr = addr, .length = len, .mw_access_flags = access},
		};

		err = rnic_bind_mw(qp, mw, &b);
		*key = mw->rkey;
	} else {
		struct rnic_send_wr wr, *bad = NULL;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 0x4d57;
		wr.opcode = RNIC_WR_BIND_MW;
		wr.send_flags = RNIC_SEND_SIGNALED;
		wr.wr.bind_mw.mw = mw;
		wr.wr.bind_mw.rkey = rnic_inc_rkey(*key ? *key : mw->rkey);
		wr.wr.bind_mw.bind_info = (struct rnic_mw_bind_info){mr, addr, len, access};
		err = rnic_post_send(qp, &wr, &bad);
		if (!err && want == RNIC_WC_SUCCESS)
			*key = wr.wr.bind_mw.rkey;
	}
	if (err) {
		printf("  bind: %s\n", strerror(err));
		return 0;
	}
	return wait_local(x, "bind", want, RNIC_WC_BIND_MW);
}

/* LOCAL_INV of key by side 1's QP of pair k. */
static int local_inv(struct e2e_world *x, int k, uint32_t key, uint32_t want)
{
	struct rnic_send_wr wr, *bad = NULL;
	int err;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x494e56;
	wr.opcode = RNIC_WR_LOCAL_INV;
	wr.send_flags = RNIC_SEND_SIGNALED;
	wr.invalidate_rkey = key;
	err = rnic_post_send(x->p.side[1].qp[k], &wr, &bad);
	if (err) {
		printf("  local_inv: %s\n", strerror(err));
		return 0;
	}
	return wait_local(x, "local_inv", want, RNIC_WC_LOCAL_INV);
}

/* One op of side 0 on pair k through key at roff of the MR buffer tgt. */
static struct e2e_op win_op(int k, uint32_t opcode, int loc, int tgt, long roff, uint32_t key)
{
	struct e2e_op op = e2e_is_atomic(opcode) ? e2e_op_atomic(0, k, 0, loc, 0, tgt, roff, 9, 0)
						: e2e_op_rw(0, k, opcode, loc, 0, tgt, roff, 300);

	op.rkey_set = 1;
	op.rkey = key;
	return op;
}

struct rnr_seen {
	struct rnic_context *ctx;
	uint32_t from;
};

static int rnr_sent(void *arg)
{
	const struct rnr_seen *r = arg;

	return e2e_counter(r->ctx, RNIC_REG_STAT_TX_RNR_NAK) != r->from;
}

/* SEND with invalidate of len bytes from side 0's buffer loc into side 1's
 * receive buffer rcv on pair k, naming key: the send and the receive
 * complete with want (success: the receive CQE has WITH_INV and key, the
 * bytes arrive; refused: nothing of a one-packet SEND is written). With
 * late, the receive is posted only once side 1 has answered the SEND with
 * an RNR NAK: side 0 sends the whole message again, IETH included. */
static int send_inv(struct e2e_world *x, struct e2e_mem *m, int k, int loc, int rcv, uint32_t len, uint32_t key,
		    uint32_t want, int late)
{
	struct rnr_seen rnr = {x->p.side[1].ctx, e2e_counter(x->p.side[1].ctx, RNIC_REG_STAT_TX_RNR_NAK)};
	struct rnic_sg_entry ss = e2e_sg(m->b[loc].p, len, m->b[loc].mr->lkey);
	struct rnic_sg_entry rs = e2e_sg(m->b[rcv].p, len, m->b[rcv].mr->lkey);
	struct rnic_send_wr wr, *bad = NULL;
	struct rnic_wc wc0, wc1;
	uint64_t c0 = rnic_world_cycle(x->w);
	int g0 = 0, g1 = 0, err, ok;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x53494e56;
	wr.opcode = RNIC_WR_SEND_WITH_INV;
	wr.send_flags = RNIC_SEND_SIGNALED;
	wr.sg_list = &ss;
	wr.num_sge = 1;
	wr.invalidate_rkey = key;
	if (!late && e2e_post_recv1(x->p.side[1].qp[k], 0x52435600, &rs, 1))
		return 0;
	err = rnic_post_send(x->p.side[0].qp[k], &wr, &bad);
	if (err) {
		printf("  send_inv: %s\n", strerror(err));
		return 0;
	}
	if (late) {
		if (rnic_world_run_until(x->w, rnr_sent, &rnr, E2E_MAX_WAIT_CYCLES)) {
			printf("  send_inv: no RNR NAK\n");
			return 0;
		}
		printf("  send_inv: RNR NAK after %llu cycles, the receive posted\n",
		       (unsigned long long)(rnic_world_cycle(x->w) - c0));
		if (e2e_post_recv1(x->p.side[1].qp[k], 0x52435600, &rs, 1))
			return 0;
	}
	if (want == RNIC_WC_SUCCESS)
		memcpy(e2e_want_at(m, rcv, 0), m->b[loc].p, len);
	if (!e2e_wait_cqs(x, &wc0, 1, &wc1, 1, &g0, &g1) || g0 != 1 || g1 != 1) {
		printf("  send_inv: completions %d and %d of 1 and 1\n", g0, g1);
		return 0;
	}
	printf("  send_inv of 0x%08x (%u B): send %s opcode %u; receive %s opcode %u, flags 0x%x, invalidated_rkey 0x%08x, %u B, after %llu cycles\n",
	       key, len, rnic_wc_status_str(wc0.status), wc0.opcode, rnic_wc_status_str(wc1.status), wc1.opcode,
	       wc1.wc_flags, wc1.invalidated_rkey, wc1.byte_len,
	       (unsigned long long)(rnic_world_cycle(x->w) - c0));
	ok = wc0.status == want && wc1.status == want && wc0.wr_id == wr.wr_id && wc1.wr_id == 0x52435600;
	if (want == RNIC_WC_SUCCESS)
		ok = ok && wc0.opcode == RNIC_WC_SEND && wc1.opcode == RNIC_WC_RECV &&
		     (wc1.wc_flags & RNIC_WC_WITH_INV) && !(wc1.wc_flags & RNIC_WC_WITH_IMM) &&
		     wc1.invalidated_rkey == key && wc1.byte_len == len;
	else
		ok = ok && !(wc1.wc_flags & RNIC_WC_WITH_INV) && wc0.vendor_err == E2E_NAK(RNIC_AETH_NAK_INVALID_REQ);
	return e2e_mem_check(m) && ok;
}

/* A type 2 window bound by side 1's QP of pair k over [1024, 3072) of an
 * MR: a WRITE through it succeeds; side 0's SEND with invalidate of its key
 * (three packets at MTU 1024: the IETH on the last) completes on both
 * sides with WITH_INV and the key, the bytes arrive; a WRITE through the
 * key then fails (NAK remote access error), the MR untouched. */
static void send_inv_case(struct e2e_world *x, int k, int late)
{
	struct e2e_mem m = {0};
	struct rnic_mw *mw = NULL;
	struct e2e_op ops[1];
	struct e2e_run r1, r2;
	uint32_t key = 0;
	int tgt, loc, rcv, ok = 0;

	tgt = e2e_mem_add(&m, x, 1, "MR below the window", 8192, MR_ACCESS, 1);
	loc = e2e_mem_add(&m, x, 0, "send buffer", 4096, RNIC_ACCESS_LOCAL_WRITE, 1);
	rcv = e2e_mem_add(&m, x, 1, "receive buffer", 4096, RNIC_ACCESS_LOCAL_WRITE, 1);
	mw = rnic_alloc_mw(x->p.side[1].pd, RNIC_MW_TYPE_2);
	if (tgt < 0 || loc < 0 || rcv < 0 || !mw ||
	    !bind_win(x, k, mw, m.b[tgt].mr, (uint64_t)(uintptr_t)m.b[tgt].p + 1024, 2048, WIN_RIGHTS,
		      RNIC_WC_SUCCESS, &key)) {
		e2e_result(0, "SEND with invalidate: setup and bind");
		goto out;
	}
	ops[0] = win_op(k, RNIC_WR_RDMA_WRITE, loc, tgt, 1024 + 200, key);
	ok = e2e_run_ops(x, &m, ops, 1, &r1);
	ok = ok && send_inv(x, &m, k, loc, rcv, 2500, key, RNIC_WC_SUCCESS, late);
	ops[0] = win_op(k, RNIC_WR_RDMA_WRITE, loc, tgt, 1024 + 600, key);
	e2e_op_fails(&ops[0], &rem_access);
	ok = ok && e2e_run_ops(x, &m, ops, 1, &r2);
	e2e_result(ok, "type 2 window 0x%08x: WRITE %s; SEND with invalidate of 2500 B%s: WITH_INV 0x%08x on both sides, data as sent; then a WRITE through it %s (want %s)",
		   key, e2e_st(&r1, 0), late ? ", sent again after an RNR NAK" : "", key, e2e_st(&r2, 0),
		   rnic_wc_status_str(rem_access.status));
out:
	if (mw && rnic_dealloc_mw(mw))
		ok = 0;
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

struct landed {
	const uint8_t *dst, *src;
};

static int first_landed(void *arg)
{
	const struct landed *l = arg;

	return memcmp(l->dst, l->src, 256) == 0;
}

#define WINV_BYTES (128 * 1024)
#define WINV_OFF 4096

/* A WRITE of 128 KiB (128 packets at MTU 1024) from side 0 through a type
 * 2 window bound by side 1's QP of pair k over the middle of an MR; once
 * its first bytes have landed, side 1 posts LOCAL_INV of the window's key.
 * The invalidation completes while the WRITE's later packets are still
 * coming, and every one of them is checked against the MPT again: the
 * responder answers the first one after it with NAK remote access error,
 * the WRITE fails with REM_ACCESS_ERR (the NAK names a PSN inside it while
 * the requester still sends it: the status waits for its record), the MR holds whole packets of it from the start and nothing
 * after them. */
static void write_inv_case(struct e2e_world *x, int k)
{
	struct e2e_mem m = {0};
	struct rnic_mw *mw = NULL;
	struct rnic_sg_entry sge;
	struct rnic_send_wr wr, inv, *bad = NULL;
	struct rnic_wc wc0, wc1;
	struct landed l;
	uint32_t key = 0, c0[3], c1[3];
	uint8_t *dst;
	long n = 0;
	int tgt, loc, g0 = 0, g1 = 0, ok = 0, err;

	tgt = e2e_mem_add(&m, x, 1, "MR below the window", WINV_BYTES + 2 * WINV_OFF, MR_ACCESS, 1);
	loc = e2e_mem_add(&m, x, 0, "source", WINV_BYTES, RNIC_ACCESS_LOCAL_WRITE, 1);
	mw = rnic_alloc_mw(x->p.side[1].pd, RNIC_MW_TYPE_2);
	if (tgt < 0 || loc < 0 || !mw ||
	    !bind_win(x, k, mw, m.b[tgt].mr, (uint64_t)(uintptr_t)m.b[tgt].p + WINV_OFF, WINV_BYTES, WIN_RIGHTS,
		      RNIC_WC_SUCCESS, &key)) {
		e2e_result(0, "WRITE across an invalidation: setup and bind");
		goto out;
	}
	dst = m.b[tgt].p + WINV_OFF;
	sge = e2e_sg(m.b[loc].p, WINV_BYTES, m.b[loc].mr->lkey);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x57494e56;
	wr.opcode = RNIC_WR_RDMA_WRITE;
	wr.send_flags = RNIC_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)dst;
	wr.wr.rdma.rkey = key;
	memset(&inv, 0, sizeof(inv));
	inv.wr_id = 0x494e56;
	inv.opcode = RNIC_WR_LOCAL_INV;
	inv.send_flags = RNIC_SEND_SIGNALED;
	inv.invalidate_rkey = key;
	l.dst = dst;
	l.src = m.b[loc].p;
	e2e_err_counters(x, c0);
	err = rnic_post_send(x->p.side[0].qp[k], &wr, &bad);
	if (!err && rnic_world_run_until(x->w, first_landed, &l, E2E_MAX_WAIT_CYCLES)) {
		printf("  the WRITE's first bytes never landed\n");
		err = ETIMEDOUT;
	}
	if (!err)
		err = rnic_post_send(x->p.side[1].qp[k], &inv, &bad);
	if (err || !e2e_wait_cqs(x, &wc0, 1, &wc1, 1, &g0, &g1)) {
		e2e_result(0, "WRITE across an invalidation: %s, completions %d and %d of 1 and 1", strerror(err), g0, g1);
		goto out;
	}
	/* how far it went: whole packets from the start */
	while (n + 1024 <= WINV_BYTES && memcmp(dst + n, m.b[loc].p + n, 1024) == 0)
		n += 1024;
	memcpy(e2e_want_at(&m, tgt, WINV_OFF), m.b[loc].p, (size_t)n);
	/* the responder refused a packet with NAK remote access error; the
	 * WRITE it lies in ends with that NAK's status and syndrome, recorded
	 * before or after the NAK came (docs/mw.md) */
	e2e_err_counters(x, c1);
	ok = wc0.wr_id == wr.wr_id && wc0.status == RNIC_WC_REM_ACCESS_ERR &&
	     wc0.vendor_err == E2E_NAK(RNIC_AETH_NAK_REM_ACCESS_ERR) &&
	     c1[0] - c0[0] == 1 && c1[1] - c0[1] == 1 && wc1.wr_id == inv.wr_id &&
	     wc1.status == RNIC_WC_SUCCESS && wc1.opcode == RNIC_WC_LOCAL_INV && n > 0 && n < WINV_BYTES;
	ok = e2e_mem_check(&m) && ok;
	e2e_result(ok, "WRITE of %d B through type 2 window 0x%08x, LOCAL_INV once its first bytes landed (%s): the responder sent %u NAK, counted %u access error (want 1, 1), the WRITE %s; %ld B written (whole packets from the start), nothing after",
		   WINV_BYTES, key, rnic_wc_status_str(wc1.status), c1[0] - c0[0], c1[1] - c0[1],
		   rnic_wc_status_str(wc0.status), n);
out:
	if (mw && rnic_dealloc_mw(mw))
		ok = 0;
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

enum sinv_err { SI_TYPE1, SI_INVALID, SI_MR };

/* A SEND with invalidate the responder refuses, on pair k: a type 1
 * window's key, a type 2 window's key after LOCAL_INV, an MR's key. Both
 * sides complete with REM_INV_REQ_ERR (NAK invalid request); nothing is
 * written into the receive buffer. */
static void send_inv_err_case(struct e2e_world *x, int k, enum sinv_err e)
{
	static const char *const what[] = {"a bound type 1 window's key", "a type 2 window's key after LOCAL_INV",
					   "an MR's key"};
	struct e2e_mem m = {0};
	struct rnic_mw *mw = NULL;
	uint32_t key = 0;
	int tgt, loc, rcv, ok = 0;

	tgt = e2e_mem_add(&m, x, 1, "MR", 4096, MR_ACCESS, 1);
	loc = e2e_mem_add(&m, x, 0, "send buffer", 4096, RNIC_ACCESS_LOCAL_WRITE, 1);
	rcv = e2e_mem_add(&m, x, 1, "receive buffer", 4096, RNIC_ACCESS_LOCAL_WRITE, 1);
	if (e != SI_MR)
		mw = rnic_alloc_mw(x->p.side[1].pd, e == SI_TYPE1 ? RNIC_MW_TYPE_1 : RNIC_MW_TYPE_2);
	if (tgt < 0 || loc < 0 || rcv < 0 || (e != SI_MR && !mw)) {
		e2e_result(0, "SEND with invalidate of %s: setup", what[e]);
		goto out;
	}
	if (e == SI_MR) {
		key = m.b[tgt].mr->rkey;
		ok = 1;
	} else {
		ok = bind_win(x, k, mw, m.b[tgt].mr, (uint64_t)(uintptr_t)m.b[tgt].p, 1024, WIN_RIGHTS,
			      RNIC_WC_SUCCESS, &key);
		if (e == SI_INVALID)
			ok = ok && local_inv(x, k, key, RNIC_WC_SUCCESS);
	}
	ok = ok && send_inv(x, &m, k, loc, rcv, 200, key, RNIC_WC_REM_INV_REQ_ERR, 0);
	e2e_result(ok, "SEND with invalidate of %s 0x%08x: %s on both sides, receive buffer untouched", what[e], key,
		   rnic_wc_status_str(RNIC_WC_REM_INV_REQ_ERR));
out:
	if (mw && rnic_dealloc_mw(mw))
		ok = 0;
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

/* A window of the given type bound over [1024, 3072) of an 8 KiB MR: an op
 * inside; then type 1 bound again over [4096, 6144) (an op there, then one
 * in the old range fails), type 2 invalidated (an op through its old key
 * fails). */
static void bound_case(struct e2e_world *x, int k, uint32_t opcode, int type)
{
	struct e2e_mem m = {0};
	struct rnic_mw *mw = NULL;
	struct e2e_op ops[2];
	struct e2e_run r1, r2;
	uint32_t key = 0, key1 = 0;
	int tgt, loc, ok = 0, n = 0;
	uint8_t *base;

	tgt = e2e_mem_add(&m, x, 1, "MR below the window", 8192, MR_ACCESS, 1);
	loc = e2e_mem_add(&m, x, 0, "local buffer", 4096, RNIC_ACCESS_LOCAL_WRITE, 1);
	mw = rnic_alloc_mw(x->p.side[1].pd, type);
	if (tgt < 0 || loc < 0 || !mw) {
		e2e_result(0, "bound type %d window, %s: setup", type, e2e_op_name(opcode));
		goto out;
	}
	base = m.b[tgt].p;
	if (!bind_win(x, k, mw, m.b[tgt].mr, (uint64_t)(uintptr_t)base + 1024, 2048, WIN_RIGHTS,
		      RNIC_WC_SUCCESS, &key)) {
		e2e_result(0, "type %d window bound over [1024, 3072) of the MR", type);
		goto out;
	}
	key1 = key;
	ops[0] = win_op(k, opcode, loc, tgt, 1024 + 200, key);
	ok = e2e_run_ops(x, &m, ops, 1, &r1);
	if (type == RNIC_MW_TYPE_1) {
		ok = ok && bind_win(x, k, mw, m.b[tgt].mr, (uint64_t)(uintptr_t)base + 4096, 2048, WIN_RIGHTS,
				    RNIC_WC_SUCCESS, &key);
		ops[n++] = win_op(k, opcode, loc, tgt, 4096 + 600, key);
	} else {
		ok = ok && local_inv(x, k, key, RNIC_WC_SUCCESS);
	}
	ops[n] = win_op(k, opcode, loc, tgt, 1024 + 200, key1);
	e2e_op_fails(&ops[n++], &rem_access);
	ok = ok && e2e_run_ops(x, &m, ops, n, &r2);
	e2e_result(ok, "type %d window 0x%08x over [1024, 3072): %s inside %s; %s: %s",
		   type, key1, e2e_op_name(opcode), e2e_st(&r1, 0),
		   type == RNIC_MW_TYPE_1 ? "bound again over [4096, 6144), there" : "after LOCAL_INV",
		   type == RNIC_MW_TYPE_1 ? e2e_st(&r2, 0) : e2e_st(&r2, 0));
	if (type == RNIC_MW_TYPE_1)
		printf("  the old range through the new key 0x%08x: %s (want %s)\n", key, e2e_st(&r2, 1),
		       rnic_wc_status_str(rem_access.status));
out:
	if (mw && rnic_dealloc_mw(mw)) {
		printf("  dealloc_mw refused\n");
		ok = 0;
	}
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

/* A zero-based type 2 window over [2048, 3072) of the MR: offset 104 is
 * the MR's byte 2152; an op reaching past offset 1024 fails. */
static void zero_based_case(struct e2e_world *x, int k, uint32_t opcode)
{
	struct e2e_mem m = {0};
	struct rnic_mw *mw = NULL;
	struct e2e_op ops[2];
	struct e2e_run r;
	uint32_t key = 0;
	int tgt, loc, ok = 0;

	tgt = e2e_mem_add(&m, x, 1, "MR below the window", 4096, MR_ACCESS, 1);
	loc = e2e_mem_add(&m, x, 0, "local buffer", 4096, RNIC_ACCESS_LOCAL_WRITE, 1);
	mw = rnic_alloc_mw(x->p.side[1].pd, RNIC_MW_TYPE_2);
	if (tgt < 0 || loc < 0 || !mw ||
	    !bind_win(x, k, mw, m.b[tgt].mr, (uint64_t)(uintptr_t)m.b[tgt].p + 2048, 1024,
		      WIN_RIGHTS | RNIC_ACCESS_ZERO_BASED, RNIC_WC_SUCCESS, &key)) {
		e2e_result(0, "zero-based type 2 window: setup and bind");
		goto out;
	}
	ops[0] = win_op(k, opcode, loc, tgt, 2048 + 104, key);
	ops[0].raddr_set = 1;
	ops[0].raddr = 104;
	/* past the end: an ATOMIC's 8 aligned bytes at 1024, 300 bytes at 1000 */
	ops[1] = win_op(k, opcode, loc, tgt, 2048 + (e2e_is_atomic(opcode) ? 1024 : 1000), key);
	ops[1].raddr_set = 1;
	ops[1].raddr = e2e_is_atomic(opcode) ? 1024 : 1000;
	e2e_op_fails(&ops[1], &rem_access);
	ok = e2e_run_ops(x, &m, ops, 2, &r);
	e2e_result(ok, "zero-based type 2 window 0x%08x over [2048, 3072): %s at offset 104 %s, past offset 1024 %s (want %s)",
		   key, e2e_op_name(opcode), e2e_st(&r, 0), e2e_st(&r, 1), rnic_wc_status_str(rem_access.status));
out:
	if (mw && rnic_dealloc_mw(mw))
		ok = 0;
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

enum bind_err { BE_NO_MW_BIND, BE_RANGE, BE_TWICE, BE_PD };

/* A bind the NIC refuses, on pair k: WC_MW_BIND_ERR. */
static void bind_err_case(struct e2e_world *x, int k, enum bind_err e)
{
	static const char *const what[] = {"MR without MW_BIND", "range past the MR's end",
					   "type 2 window bound twice", "window of another PD"};
	struct rnic_pd *pd = x->p.side[1].pd, *pd2 = NULL;
	struct rnic_mw *mw = NULL;
	struct rnic_mr *mr = NULL;
	static uint8_t buf[4096];
	uint64_t a = (uint64_t)(uintptr_t)buf;
	uint32_t key = 0;
	int ok = 0;

	if (e == BE_PD)
		pd2 = rnic_alloc_pd(x->p.side[1].ctx);
	mr = rnic_reg_mr(pd, buf, sizeof(buf), e == BE_NO_MW_BIND ? ALL_REMOTE : MR_ACCESS);
	mw = rnic_alloc_mw(pd2 ? pd2 : pd, RNIC_MW_TYPE_2);
	if (!mr || !mw || (e == BE_PD && !pd2)) {
		e2e_result(0, "bind error, %s: setup", what[e]);
		goto out;
	}
	if (e == BE_TWICE)
		ok = bind_win(x, k, mw, mr, a, 512, WIN_RIGHTS, RNIC_WC_SUCCESS, &key) &&
		     bind_win(x, k, mw, mr, a + 1024, 512, WIN_RIGHTS, RNIC_WC_MW_BIND_ERR, &key);
	else if (e == BE_RANGE)
		ok = bind_win(x, k, mw, mr, a + 3072, 2048, WIN_RIGHTS, RNIC_WC_MW_BIND_ERR, &key);
	else
		ok = bind_win(x, k, mw, mr, a, 512, WIN_RIGHTS, RNIC_WC_MW_BIND_ERR, &key);
	e2e_result(ok, "bind error, %s: %s", what[e], rnic_wc_status_str(RNIC_WC_MW_BIND_ERR));
out:
	if (mw && rnic_dealloc_mw(mw))
		ok = 0;
	if (mr && rnic_dereg_mr(mr))
		ok = 0;
	if (pd2 && rnic_dealloc_pd(pd2))
		ok = 0;
	e2e_case_done(x, ok);
}

/* dereg_mr refused while a window is bound to the MR, allowed once it is
 * unbound. */
static void dereg_case(struct e2e_world *x, int k)
{
	static uint8_t buf[4096];
	struct rnic_mr *mr = rnic_reg_mr(x->p.side[1].pd, buf, sizeof(buf), MR_ACCESS);
	struct rnic_mw *mw = rnic_alloc_mw(x->p.side[1].pd, RNIC_MW_TYPE_1);
	uint32_t key = 0;
	int ok = 0, e1 = -1, e2 = -1;

	if (mr && mw && bind_win(x, k, mw, mr, (uint64_t)(uintptr_t)buf + 256, 1024, WIN_RIGHTS,
				 RNIC_WC_SUCCESS, &key)) {
		e1 = rnic_dereg_mr(mr);
		if (bind_win(x, k, mw, NULL, 0, 0, 0, RNIC_WC_SUCCESS, &key)) {
			e2 = rnic_dereg_mr(mr);
			if (e2 == 0)
				mr = NULL;
		}
		ok = e1 == EBUSY && e2 == 0;
	}
	e2e_result(ok, "dereg_mr with a type 1 window bound: %s (want EBUSY); after an unbind: %s",
		   strerror(e1), strerror(e2));
	if (mw && rnic_dealloc_mw(mw))
		ok = 0;
	if (mr && rnic_dereg_mr(mr))
		ok = 0;
	e2e_case_done(x, ok);
}

/* WRITE, READ and fetch-and-add through the MR's own rkey on QP pair k. */
static void mr_case(struct e2e_world *x, int k)
{
	struct e2e_mem m = {0};
	struct e2e_op ops[3];
	struct e2e_run r;
	int tgt, loc, ok = 0;

	tgt = e2e_mem_add(&m, x, 1, "MR with MW_BIND", 8192, MR_ACCESS, 1);
	loc = e2e_mem_add(&m, x, 0, "local buffer", 8192, RNIC_ACCESS_LOCAL_WRITE, 1);
	if (tgt < 0 || loc < 0) {
		e2e_result(0, "MR with MW_BIND: buffer setup");
		goto out;
	}
	ops[0] = e2e_op_rw(0, k, RNIC_WR_RDMA_WRITE, loc, 0, tgt, 10, 3000);
	ops[1] = e2e_op_rw(0, k, RNIC_WR_RDMA_READ, loc, 4096, tgt, 5000, 2000);
	ops[2] = e2e_op_atomic(0, k, 0, loc, 7000, tgt, 8000, 3, 0);
	ok = e2e_run_ops(x, &m, ops, 3, &r);
	e2e_result(ok, "MR registered with MW_BIND, its own rkey: WRITE %s, READ %s, FETCH_ADD %s; memory as expected",
		   e2e_st(&r, 0), e2e_st(&r, 1), e2e_st(&r, 2));
out:
	e2e_mem_free(&m);
	e2e_case_done(x, ok);
}

/* Windows and the objects around them on side 1. */
static void objects_case(struct e2e_world *x)
{
	struct rnic_context *ctx = x->p.side[1].ctx;
	struct rnic_pd *pd = rnic_alloc_pd(ctx);
	struct rnic_mw *w1 = NULL, *w2 = NULL, *w3 = NULL;
	struct rnic_mr *mr = NULL;
	static char buf[256];
	uint32_t old1 = 0, old2 = 0, mrkey = 0;
	int ok = pd != NULL, e_pd = 0, e_mr = -1;

	if (ok) {
		mr = rnic_reg_mr(pd, buf, sizeof(buf), RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_MW_BIND);
		w1 = rnic_alloc_mw(pd, RNIC_MW_TYPE_1);
		w2 = rnic_alloc_mw(pd, RNIC_MW_TYPE_2);
		ok = mr && w1 && w2;
	}
	if (ok) {
		old1 = w1->rkey;
		old2 = w2->rkey;
		mrkey = mr->lkey;
		if (w1->rkey >> 8 == mr->lkey >> 8 || w2->rkey >> 8 == mr->lkey >> 8 ||
		    w1->rkey >> 8 == w2->rkey >> 8) {
			printf("  keys share an MPT index: MR 0x%08x, windows 0x%08x 0x%08x\n", mr->lkey, w1->rkey,
			       w2->rkey);
			ok = 0;
		}
		e_mr = rnic_dereg_mr(mr); /* no window is bound to it */
		if (e_mr == 0)
			mr = NULL;
		e_pd = rnic_dealloc_pd(pd); /* the windows hold it */
		if (rnic_dealloc_mw(w1) == 0)
			w1 = NULL;
		w3 = rnic_alloc_mw(pd, RNIC_MW_TYPE_1);
		if (!w3 || w3->rkey == old1 || w3->rkey == old2 || w3->rkey == mrkey) {
			printf("  a window allocated again: key 0x%08x (earlier 0x%08x 0x%08x 0x%08x)\n",
			       w3 ? w3->rkey : 0, old1, old2, mrkey);
			ok = 0;
		}
		ok = ok && e_mr == 0 && e_pd == EBUSY && !w1;
	}
	e2e_result(ok, "objects: window keys 0x%08x 0x%08x beside MR 0x%08x; dereg_mr with unbound windows: %s; dealloc_pd with windows: %s (want EBUSY); a new window: 0x%08x",
		   old1, old2, mrkey, strerror(e_mr), strerror(e_pd), w3 ? w3->rkey : 0);
	if (w1 && rnic_dealloc_mw(w1))
		ok = 0;
	if (w2 && rnic_dealloc_mw(w2))
		ok = 0;
	if (w3 && rnic_dealloc_mw(w3))
		ok = 0;
	if (mr && rnic_dereg_mr(mr))
		ok = 0;
	if (pd && rnic_dealloc_pd(pd))
		ok = 0;
	e2e_case_done(x, ok);
}

int main(int argc, char **argv)
{
	static const uint32_t ops[3] = {RNIC_WR_RDMA_WRITE, RNIC_WR_RDMA_READ, RNIC_WR_ATOMIC_FETCH_AND_ADD};
	struct sim_pair_opts o;
	struct e2e_world x;
	uint32_t c0[3];
	int k = 0;
	int rc = e2e_parse_args(argc, argv, "rnic-e2e-mw",
				"End-to-end tests of memory windows on two simulated NICs.\n");

	if (rc >= 0)
		return rc;
	e2e_rng_seed(e2e_seed);
	sim_pair_default_opts(&o);
	o.nqp = NQP;
	o.path_mtu = RNIC_IB_MTU_1024;
	o.max_recv_wr = 2; /* the SENDs with invalidate */
	o.max_recv_sge = 1;
	o.min_rnr_timer = 1; /* 10 us: the SEND with invalidate sent again soon */
	e2e_world_init(&x, "mw", &o);
	if (!e2e_world_up(&x))
		return e2e_summary();
	e2e_err_counters(&x, c0);
	for (int type = RNIC_MW_TYPE_1; type <= RNIC_MW_TYPE_2; type++)
		for (int i = 0; i < 3; i++, k++)
			E2E_RUN(&x, unbound_case(&x, k, ops[i], type));
	e2e_err_counters_check(&x, c0, "window", 6, 6, 0);
	E2E_RUN(&x, objects_case(&x));
	for (int type = RNIC_MW_TYPE_1; type <= RNIC_MW_TYPE_2; type++)
		for (int i = 0; i < 3; i++)
			E2E_RUN(&x, bound_case(&x, k++, ops[i], type));
	for (int i = 0; i < 3; i++)
		E2E_RUN(&x, zero_based_case(&x, k++, ops[i]));
	for (int e = BE_NO_MW_BIND; e <= BE_PD; e++)
		E2E_RUN(&x, bind_err_case(&x, k++, (enum bind_err)e));
	E2E_RUN(&x, dereg_case(&x, k++));
	E2E_RUN(&x, write_inv_case(&x, k++));
	E2E_RUN(&x, send_inv_case(&x, k++, 0));
	E2E_RUN(&x, send_inv_case(&x, k++, 1));
	for (int e = SI_TYPE1; e <= SI_MR; e++)
		E2E_RUN(&x, send_inv_err_case(&x, k++, (enum sinv_err)e));
	/* last: the checker keeps what an MR's own rkey opened until the MR
	 * goes (docs/memcheck.md), and the buffers of a world are reused, so a
	 * stale window's access is flagged only where no MR rkey reached */
	E2E_RUN(&x, mr_case(&x, k++));
	e2e_world_down(&x);
	return e2e_summary();
}
