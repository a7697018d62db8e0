/* The host library's fast path, call by call: rnic_post_send of one
 * signaled RDMA WRITE (one SGE, WQE build and doorbell) and rnic_poll_cq of
 * one CQE, each called `iters` times on a QP in RTS of the fake device. With
 * "inline" after the count, the WRITE's 64 bytes are inline and post_send
 * takes the low-latency path: the WQE also goes into the doorbell page's WQE
 * window (32 more BAR writes)
 * (fake_backend.h; its BAR write is one store and a log entry). Meant to run
 * under valgrind --tool=callgrind with --toggle-collect on the two calls
 * (make bench does, and prints instructions per call); run natively it
 * checks that every call succeeded and every completion came back in order.
 *
 * The device's side (the CQE for each WQE) is written between the calls,
 * outside what callgrind collects. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_backend.h"
#include "rnic/verbs.h"

/* Write the CQE the device would for WQE counter `counter`: body, then owner. */
static void device_cqe(struct fake_nic *f, struct rnic_cq *cq, uint32_t pi, uint32_t qpn,
		       uint16_t counter)
{
	uint32_t log = (uint32_t)RNIC_CTX_GET(f->cqc[cq->handle], CQC, LOG_SIZE);
	struct rnic_cqe *ring = fake_va(RNIC_CTX_GET(f->cqc[cq->handle], CQC, BASE));
	struct rnic_cqe *e = &ring[pi & ((1u << log) - 1)];

	memset(e, 0, sizeof(*e) - 1);
	e->qpn = qpn;
	e->wqe_counter = counter;
	e->opcode = RNIC_WC_RDMA_WRITE;
	e->byte_len = 64;
	__atomic_store_n(&e->owner, (uint8_t)(((pi >> log) & 1) ^ 1), __ATOMIC_RELEASE);
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "fastpath_bench: %s: %s\n", what, strerror(err));
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	int inl = argc > 2 && strcmp(argv[2], "inline") == 0;
	unsigned int log0;
	static char buf[4096] __attribute__((aligned(4096)));
	struct fake_nic *f = calloc(1, sizeof(*f));
	struct rnic_qp_init_attr ia = {0};
	struct rnic_qp_attr a;
	struct rnic_context *ctx;
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	struct rnic_qp *qp;
	struct rnic_mr *mr;
	struct rnic_sg_entry sge;
	struct rnic_send_wr wr, *bad;
	struct rnic_wc wc;
	int err;

	if (!f || iters == 0)
		return 1;
	fake_init(f);
	ctx = rnic_open_backend(&fake_ops, f);
	if (!ctx)
		return fail("open", errno);
	pd = rnic_alloc_pd(ctx);
	cq = rnic_create_cq(ctx, 256);
	mr = pd ? rnic_reg_mr(pd, buf, sizeof(buf), RNIC_ACCESS_LOCAL_WRITE) : NULL;
	if (!pd || !cq || !mr)
		return fail("pd, cq or mr", errno);
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = RNIC_QPT_RC;
	ia.cap.max_send_wr = 256;
	ia.cap.max_send_sge = 1;
	ia.cap.max_inline_data = 64;
	qp = rnic_create_qp(pd, &ia);
	if (!qp)
		return fail("create_qp", errno);
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = RNIC_ACCESS_LOCAL_WRITE;
	err = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_PKEY_INDEX | RNIC_QP_PORT |
				     RNIC_QP_ACCESS_FLAGS);
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RTR;
	a.path_mtu = RNIC_IB_MTU_1024;
	a.dest_qp_num = 0x11;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid.raw[10] = 0xff;
	a.ah_attr.grh.dgid.raw[11] = 0xff;
	if (!err)
		err = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_AV | RNIC_QP_PATH_MTU |
					     RNIC_QP_DEST_QPN | RNIC_QP_RQ_PSN |
					     RNIC_QP_MAX_DEST_RD_ATOMIC | RNIC_QP_MIN_RNR_TIMER);
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	if (!err)
		err = rnic_modify_qp(qp, &a, RNIC_QP_STATE | RNIC_QP_SQ_PSN | RNIC_QP_TIMEOUT |
					     RNIC_QP_RETRY_CNT | RNIC_QP_RNR_RETRY |
					     RNIC_QP_MAX_QP_RD_ATOMIC);
	if (err)
		return fail("modify_qp to RTS", err);

	sge = (struct rnic_sg_entry){ .addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = RNIC_WR_RDMA_WRITE;
	wr.send_flags = RNIC_SEND_SIGNALED | (inl ? RNIC_SEND_INLINE : 0);
	wr.wr.rdma.remote_addr = 0x10000;
	wr.wr.rdma.rkey = 0x1234;
	log0 = f->nlog;
	for (unsigned long i = 0; i < iters; i++) {
		wr.wr_id = i;
		err = rnic_post_send(qp, &wr, &bad);
		if (err)
			return fail("post_send", err);
		device_cqe(f, cq, (uint32_t)i, qp->qp_num, (uint16_t)i);
		if (rnic_poll_cq(cq, 1, &wc) != 1 || wc.status != RNIC_WC_SUCCESS || wc.wr_id != i)
			return fail("poll_cq: no completion, or not this WQE's", EIO);
	}
	if (rnic_poll_cq(cq, 1, &wc) != 0)
		return fail("poll_cq: a completion too many", EIO);
	/* the first post: the window's words, then DB_SQ_WQE (or DB_SQ) */
	if (log0 + RNIC_REG_DB_WQE_COUNT >= FAKE_MAX_LOG ||
	    f->log[inl ? log0 + RNIC_REG_DB_WQE_COUNT : log0].off != (inl ? RNIC_REG_DB_SQ_WQE : RNIC_REG_DB_SQ))
		return fail("post_send did not ring the doorbell it should", EIO);
	rnic_destroy_qp(qp);
	rnic_dereg_mr(mr);
	rnic_destroy_cq(cq);
	rnic_dealloc_pd(pd);
	rnic_close_device(ctx);
	free(f);
	printf("fastpath_bench: %lu %spost_send + poll_cq pairs, every completion in order\n", iters,
	       inl ? "inline (WQE window) " : "");
	return 0;
}
