/* Regression of a bug the receive-path fuzzer found (docs/memcheck.md, "A QP
 * reset under a response"): a QP reset while the NIC handled a response of
 * that QP left the QP's send queue indices wrong.
 *
 * One NIC, one QP in RTS made through the mailbox; an ATOMIC fetch-and-add
 * posted (the request goes to a peer that is not there). The host then sends
 * MODIFY_QP RTS -> RESET, and the ATOMIC ACKNOWLEDGE for the request is
 * injected d cycles after CMD_CTRL. After RESET -> INIT -> RTR -> RTS one new
 * RDMA READ is posted (producer index 1). Right: the NIC fetches that one
 * WQE and sends the READ request, no CQE. Wrong (before the fix in
 * rtl/rnic_compl.sv): it took the SQ for wrapped (tens of thousands of
 * WQEs), flushed them into the CQ and did not send the READ; with the
 * default seed at d = 5250 and 5500 (the acknowledgement landing while the
 * firmware writes the QPC).
 *
 *   rnic-qp-reset-race [--width 64|512] [--from D] [--to D] [--step D]
 * Prints one line per d; exits 1 if any d went wrong.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fz_common.h"

#define PG (1u << RNIC_MTT_PAGE_SHIFT)
#define CQ_LOG 10

/* 1 if the NIC behaved after a reset with the acknowledgement d cycles into
 * the command; -1 on a setup failure. */
static int one(unsigned int width, unsigned int d)
{
	struct fz_nic f;
	uint32_t pd, cqn, qpn, key, cqe0, tx0, st = 1;
	uint32_t in[RNIC_CMD_MODIFY_QP_IN_WORDS] = {0};
	uint8_t *cq = aligned_alloc(PG, (size_t)RNIC_CQE_BYTES << CQ_LOG);
	uint8_t *sq = aligned_alloc(PG, PG), *rq = aligned_alloc(PG, PG), *buf = aligned_alloc(PG, PG);
	struct rnic_wqe *w = (struct rnic_wqe *)sq;
	struct rc_pkt p;
	uint8_t fr[RC_MAX_FRAME];
	int len, ok = -1;

	if (!cq || !sq || !rq || !buf || fz_open(&f, width, 1, 1))
		goto out;
	memset(cq, 0, (size_t)RNIC_CQE_BYTES << CQ_LOG);
	memset(sq, 0, PG);
	memset(rq, 0, PG);
	memset(buf, 0, PG);
	if (fz_alloc_pd(&f, &pd) || fz_create_cq(&f, CQ_LOG, cq, &cqn) ||
	    fz_create_qp(&f, pd, cqn, 4, sq, 4, rq, &qpn) ||
	    fz_qp_connect(&f, qpn, pd, RNIC_ACCESS_REMOTE_WRITE, 0x55, 0x100, 0x200, RNIC_IB_MTU_1024) ||
	    fz_reg_mr(&f, pd, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, buf, PG, &key, NULL))
		goto out;
	w->opcode = RNIC_WR_ATOMIC_FETCH_AND_ADD;
	w->flags = RNIC_WQE_FLAG_SIGNALED;
	w->num_sge = 1;
	w->remote_addr = 0x1000;
	w->rkey = 5;
	w->length = 8;
	w->sge[0].addr = (uintptr_t)buf + 64;
	w->sge[0].length = 8;
	w->sge[0].lkey = key;
	rnic_sim_bar_write32(f.nic, RNIC_REG_DB_SQ, qpn << 16 | 1);
	rnic_world_step(f.w, 3000);

	fz_pkt_init(&p, RNIC_OP_ATOMIC_ACKNOWLEDGE, qpn, 0x200);
	p.aeth_syndrome = rc_aeth(RNIC_AETH_KIND_ACK, RNIC_AETH_CREDITS_INVALID);
	p.aeth_msn = 1;
	p.atomic_orig = 0x1122334455667788ull;
	len = rc_encode(&p, fr, sizeof(fr), 0);

	/* MODIFY_QP to RESET by hand, to inject the frame while it runs */
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QPN, qpn);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, PD, pd);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, ATTR_MASK, RNIC_QP_ATTR_STATE);
	RNIC_CTX_SET(in, CMD_MODIFY_QP_IN, QP_STATE, RNIC_QPS_RESET);
	for (unsigned int i = 0; i < RNIC_CMD_MODIFY_QP_IN_WORDS; i++)
		rnic_sim_bar_write32(f.nic, RNIC_REG_CMD_IN + 4 * i, in[i]);
	f.token++;
	rnic_sim_bar_write32(f.nic, RNIC_REG_CMD_CTRL, (uint32_t)f.token << 16 | RNIC_CMD_OP_MODIFY_QP);
	rnic_world_step(f.w, d);
	rnic_sim_inject_frame(f.w, 0, fr, (size_t)len);
	for (int i = 0; i < 100000 && (st & 1); i++) /* CMD_STATUS bit 0: busy */
		st = rnic_sim_bar_read32(f.nic, RNIC_REG_CMD_STATUS);
	rnic_world_step(f.w, 2000);

	if (fz_qp_connect(&f, qpn, pd, RNIC_ACCESS_REMOTE_WRITE, 0x55, 0x300, 0x400, RNIC_IB_MTU_1024))
		goto out;
	cqe0 = rnic_sim_bar_read32(f.nic, RNIC_REG_STAT_CQE);
	tx0 = rnic_sim_bar_read32(f.nic, RNIC_REG_STAT_TX_FRAMES);
	w->opcode = RNIC_WR_RDMA_READ;
	w->length = 100;
	w->sge[0].length = 100;
	rnic_sim_bar_write32(f.nic, RNIC_REG_DB_SQ, qpn << 16 | 1);
	rnic_world_step(f.w, 20000);
	{
		uint32_t cqes = rnic_sim_bar_read32(f.nic, RNIC_REG_STAT_CQE) - cqe0;
		uint32_t tx = rnic_sim_bar_read32(f.nic, RNIC_REG_STAT_TX_FRAMES) - tx0;

		ok = cqes == 0 && tx == 1;
		printf("%s d=%u: after the reset one READ posted: %u CQE(s) (0 expected), %u frame(s) sent (1 expected)\n",
		       ok ? "PASS" : "FAIL", d, cqes, tx);
	}
out:
	if (f.w)
		fz_close(&f);
	free(cq);
	free(sq);
	free(rq);
	free(buf);
	return ok;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"width", required_argument, NULL, 'w'}, {"from", required_argument, NULL, 'f'},
		{"to", required_argument, NULL, 't'},    {"step", required_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
	};
	unsigned int width = 64, from = 5000, to = 6000, step = 250;
	int c, bad = 0;

	while ((c = getopt_long(argc, argv, "w:f:t:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'w': width = (unsigned int)atoi(optarg); break;
		case 'f': from = (unsigned int)atoi(optarg); break;
		case 't': to = (unsigned int)atoi(optarg); break;
		case 's': step = (unsigned int)atoi(optarg); break;
		default:
			fprintf(c == 'h' ? stdout : stderr,
				"usage: rnic-qp-reset-race [--width 64|512] [--from D] [--to D] [--step D]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (step == 0)
		step = 1;
	for (unsigned int d = from; d <= to; d += step) {
		int r = one(width, d);

		if (r < 0) {
			printf("FAIL d=%u: setup\n", d);
			return 2;
		}
		bad += !r;
	}
	printf("%d delay(s) went wrong\n", bad);
	return bad ? 1 : 0;
}
