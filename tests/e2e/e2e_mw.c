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
 * Every world ends with the memory-protection checker's verdict.
 *
 * Binding (rnic_bind_mw, BIND_MW), LOCAL_INV and SEND_WITH_INV are not in
 * the data path yet (docs/mw.md, "Not yet"): their cases come with it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"
#include "e2e_common.h"
#include "e2e_ops.h"

#define NQP 8
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
	e2e_world_init(&x, "mw", &o);
	if (!e2e_world_up(&x))
		return e2e_summary();
	e2e_err_counters(&x, c0);
	for (int type = RNIC_MW_TYPE_1; type <= RNIC_MW_TYPE_2; type++)
		for (int i = 0; i < 3; i++, k++)
			E2E_RUN(&x, unbound_case(&x, k, ops[i], type));
	e2e_err_counters_check(&x, c0, "window", 6, 6, 0);
	E2E_RUN(&x, mr_case(&x, k));
	E2E_RUN(&x, objects_case(&x));
	e2e_world_down(&x);
	return e2e_summary();
}
