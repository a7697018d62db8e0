/* End-to-end SEND/RECV tests: host library (post_recv, post_send, poll_cq)
 * -> BAR doorbells -> RTL -> wire -> RTL -> receive WQE -> host memory ->
 * receive CQE, two simulated NICs back to back. Side 0 sends, side 1
 * receives (except where a case says otherwise).
 *
 *   rnic-e2e-send --width 64|512 [--seed N] [--pcap-dir DIR] [--quick]
 *
 * Each case prints PASS/FAIL; the closing line is "N passed, N failed". A
 * case that fails leaves its QPs in an unknown state, so the world is then
 * rebuilt (a new capture file, suffix _rN) before the next case. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"
#include "e2e_common.h"

#define SLACK 64                   /* receive buffer bytes past the message */
#define RQ_SIZE 16
#define MIN_RNR_TIMER 14

static uint32_t imm_be; /* e2e_imm_bytes as a network-order uint32 */

/* ---------------------------------------------------------------- completions */

/* an RC receive completion carries no source MAC (the CQE's smac is 0) */
static const uint8_t no_smac[6];

/* The receive completion of a message that arrived whole. */
static struct e2e_want want_recv(uint64_t wr_id, uint32_t opcode, size_t len, const struct rnic_qp *rqp,
				 const struct rnic_qp *sqp, int with_imm)
{
	struct e2e_want w = {wr_id, RNIC_WC_SUCCESS, opcode, (long long)len, rqp->qp_num, sqp->qp_num,
			     with_imm ? RNIC_WC_WITH_IMM : 0, with_imm ? imm_be : E2E_ANY, E2E_ANY, no_smac};

	return w;
}

static struct e2e_want want_send(uint64_t wr_id, uint32_t opcode, const struct rnic_qp *sqp)
{
	struct e2e_want w = e2e_want_status(wr_id, RNIC_WC_SUCCESS, sqp);

	w.opcode = opcode;
	return w;
}

/* ---------------------------------------------------------------- cases */

/* One SEND of len bytes from side 0's QP qpi into a receive buffer of
 * len + SLACK bytes on side 1 (opcode SEND or SEND_WITH_IMM). */
static void send_case(struct e2e_world *x, int qpi, size_t len, uint32_t opcode, uint32_t mtu)
{
	struct rnic_qp *sqp = x->p.side[0].qp[qpi], *rqp = x->p.side[1].qp[qpi];
	struct e2e_buf src, dst;
	struct rnic_sg_entry ss, rs;
	struct rnic_wc ws, wr;
	struct e2e_want w;
	int imm = opcode == RNIC_WR_SEND_WITH_IMM, ok = 0, g0 = 0, g1 = 0;
	uint64_t id = ((uint64_t)mtu << 32) | len, c0;

	if (!x->up)
		return;
	if (e2e_buf_init(&src, x->p.side[0].pd, len, RNIC_ACCESS_LOCAL_WRITE, 1) |
	    e2e_buf_init(&dst, x->p.side[1].pd, len + SLACK, RNIC_ACCESS_LOCAL_WRITE, 0)) {
		e2e_result(0, "mtu%u send %zu B: buffer setup", mtu, len);
		goto out;
	}
	ss = e2e_sg(src.p, (uint32_t)len, src.mr->lkey);
	rs = e2e_sg(dst.p, (uint32_t)(len + SLACK), dst.mr->lkey);
	c0 = rnic_world_cycle(x->w);
	if (e2e_post_recv1(rqp, id ^ 0xaa, &rs, 1) || e2e_post_send1(sqp, id, opcode, &ss, 1, RNIC_SEND_SIGNALED, 0, 0))
		goto report;
	ok = e2e_wait_cqs(x, &ws, 1, &wr, 1, &g0, &g1);
	if (ok) {
		w = want_send(id, RNIC_WC_SEND, sqp);
		ok &= e2e_wc_check("send completion", &ws, &w);
		w = want_recv(id ^ 0xaa, RNIC_WC_RECV, len, rqp, sqp, imm);
		ok &= e2e_wc_check("receive completion", &wr, &w);
	}
	if (memcmp(src.p, dst.p, len)) {
		printf("  data differ\n");
		ok = 0;
	}
	if (!e2e_only_written(&dst, 0, len)) {
		printf("  bytes outside the message changed (slack or guards)\n");
		ok = 0;
	}
report:
	e2e_result(ok, "mtu%u qp%d %s %zu B: send %s, receive %s, %llu cycles", mtu, qpi,
	           imm ? "SEND_WITH_IMM" : "SEND", len, g0 ? e2e_wcs(g0, &ws) : "no completion", e2e_wcs(g1, &wr),
	           (unsigned long long)(rnic_world_cycle(x->w) - c0));
out:
	e2e_buf_free(&src);
	e2e_buf_free(&dst);
	e2e_case_done(x, ok);
}

/* One SEND gathered from 4 SGEs at odd offsets of one buffer, scattered into
 * a receive WQE of 4 SGEs in 4 MRs: odd sizes and alignments, one of them
 * zero bytes long. The data land split exactly across the non-empty ones. */
static void scatter_case(struct e2e_world *x, uint32_t mtu)
{
	static const size_t soff[4] = {3, 1001, 2077, 3999}, slen[4] = {501, 999, 1213, 611};
	const size_t total = 501 + 999 + 1213 + 611;
	/* receive SGEs: 13 B at +1, 0 B at +2, 2047 B at +3, the rest + 50 at +5 */
	const size_t roff[4] = {1, 2, 3, 5};
	const size_t rlen[4] = {13, 0, 2047, total - 13 - 2047 + 50};
	struct rnic_qp *sqp = x->p.side[0].qp[0], *rqp = x->p.side[1].qp[0];
	struct e2e_buf src, dst[4];
	struct rnic_sg_entry ss[4], rs[4];
	struct rnic_wc ws, wr;
	struct e2e_want w;
	uint8_t *msg = NULL;
	int ok = 0, g0 = 0, g1 = 0, setup = 0;
	size_t at = 0;

	if (!x->up)
		return;
	memset(dst, 0, sizeof(dst));
	setup |= e2e_buf_init(&src, x->p.side[0].pd, 5000, RNIC_ACCESS_LOCAL_WRITE, 1);
	for (int i = 0; i < 4; i++)
		setup |= e2e_buf_init(&dst[i], x->p.side[1].pd, rlen[i] + 16, RNIC_ACCESS_LOCAL_WRITE, 0);
	msg = malloc(total);
	if (setup || !msg) {
		e2e_result(0, "mtu%u scatter: buffer setup", mtu);
		goto out;
	}
	for (int i = 0; i < 4; i++) {
		ss[i] = e2e_sg(src.p + soff[i], (uint32_t)slen[i], src.mr->lkey);
		memcpy(msg + at, src.p + soff[i], slen[i]);
		at += slen[i];
		rs[i] = e2e_sg(dst[i].p + roff[i], (uint32_t)rlen[i], dst[i].mr->lkey);
	}
	if (e2e_post_recv1(rqp, 0x5ca7, rs, 4) ||
	    e2e_post_send1(sqp, 0x5ca8, RNIC_WR_SEND, ss, 4, RNIC_SEND_SIGNALED, 0, 0))
		goto report;
	ok = e2e_wait_cqs(x, &ws, 1, &wr, 1, &g0, &g1);
	if (ok) {
		w = want_send(0x5ca8, RNIC_WC_SEND, sqp);
		ok &= e2e_wc_check("send completion", &ws, &w);
		w = want_recv(0x5ca7, RNIC_WC_RECV, total, rqp, sqp, 0);
		ok &= e2e_wc_check("receive completion", &wr, &w);
	}
	at = 0;
	for (int i = 0; i < 4; i++) {
		size_t n = rlen[i] < total - at ? rlen[i] : total - at;

		if (memcmp(dst[i].p + roff[i], msg + at, n) || !e2e_only_written(&dst[i], roff[i], n)) {
			printf("  receive SGE %d (%zu B at +%zu): wrong data or bytes around it changed\n", i,
			       rlen[i], roff[i]);
			ok = 0;
		}
		at += n;
	}
report:
	e2e_result(ok, "mtu%u scatter: %zu B from 4 SGEs at odd offsets into 4 receive SGEs (13, 0, 2047, %zu B): send %s, receive %s",
	           mtu, total, rlen[3], e2e_wcs(g0, &ws), e2e_wcs(g1, &wr));
out:
	free(msg);
	e2e_buf_free(&src);
	for (int i = 0; i < 4; i++)
		e2e_buf_free(&dst[i]);
	e2e_case_done(x, ok);
}

/* RDMA WRITE with immediate: the data go to the remote address, a receive
 * WQE is consumed (its buffer untouched), the receive CQE carries the
 * immediate and the WRITE's length. */
static void write_imm_case(struct e2e_world *x, size_t len, uint32_t mtu)
{
	struct rnic_qp *sqp = x->p.side[0].qp[1], *rqp = x->p.side[1].qp[1];
	struct e2e_buf src, dst, rbuf;
	struct rnic_sg_entry ss, rs;
	struct rnic_wc ws, wr;
	struct e2e_want w;
	int ok = 0, g0 = 0, g1 = 0;

	if (!x->up)
		return;
	if (e2e_buf_init(&src, x->p.side[0].pd, len, RNIC_ACCESS_LOCAL_WRITE, 1) |
	    e2e_buf_init(&dst, x->p.side[1].pd, len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0) |
	    e2e_buf_init(&rbuf, x->p.side[1].pd, 256, RNIC_ACCESS_LOCAL_WRITE, 0)) {
		e2e_result(0, "mtu%u WRITE_WITH_IMM %zu B: buffer setup", mtu, len);
		goto out;
	}
	ss = e2e_sg(src.p, (uint32_t)len, src.mr->lkey);
	rs = e2e_sg(rbuf.p, 256, rbuf.mr->lkey);
	if (e2e_post_recv1(rqp, 0x3171, &rs, 1) ||
	    e2e_post_send1(sqp, 0x3172, RNIC_WR_RDMA_WRITE_WITH_IMM, &ss, 1, RNIC_SEND_SIGNALED,
		       (uint64_t)(uintptr_t)dst.p, dst.mr->rkey))
		goto report;
	ok = e2e_wait_cqs(x, &ws, 1, &wr, 1, &g0, &g1);
	if (ok) {
		w = want_send(0x3172, RNIC_WC_RDMA_WRITE, sqp);
		ok &= e2e_wc_check("send completion", &ws, &w);
		w = want_recv(0x3171, RNIC_WC_RECV_RDMA_WITH_IMM, len, rqp, sqp, 1);
		ok &= e2e_wc_check("receive completion", &wr, &w);
	}
	if (memcmp(src.p, dst.p, len) || !e2e_only_written(&dst, 0, len)) {
		printf("  WRITE data wrong or bytes around them changed\n");
		ok = 0;
	}
	if (!e2e_only_written(&rbuf, 0, 0)) {
		printf("  the receive buffer was written\n");
		ok = 0;
	}
report:
	e2e_result(ok, "mtu%u RDMA_WRITE_WITH_IMM %zu B: data at the remote address, receive buffer untouched, send %s, receive %s",
	           mtu, len, e2e_wcs(g0, &ws), e2e_wcs(g1, &wr));
out:
	e2e_buf_free(&src);
	e2e_buf_free(&dst);
	e2e_buf_free(&rbuf);
	e2e_case_done(x, ok);
}

/* Inline SENDs: the payload is copied into the WQE, the source (no MR at
 * all) is overwritten right after post_send returns. A single inline WR goes
 * through the doorbell page's WQE window: the sender's NIC takes it from
 * there (STAT_TX_WQE_WINDOW) and reads nothing from host memory to send it,
 * neither the WQE nor the payload. */
static void inline_case(struct e2e_world *x, size_t len, uint32_t opcode, uint32_t mtu)
{
	struct rnic_qp *sqp = x->p.side[0].qp[0], *rqp = x->p.side[1].qp[0];
	uint8_t data[RNIC_MAX_INLINE_BYTES], want_data[RNIC_MAX_INLINE_BYTES];
	struct e2e_buf dst;
	struct rnic_sg_entry ss[2], rs;
	struct rnic_wc ws, wr;
	struct e2e_want w;
	int imm = opcode == RNIC_WR_SEND_WITH_IMM, ok = 0, g0 = 0, g1 = 0;
	size_t half = len / 2;
	struct rnic_sim_mem_stats m0 = {0}, m1 = {0};
	uint32_t win0 = 0, win1 = 0;

	if (!x->up)
		return;
	for (size_t i = 0; i < len; i++)
		want_data[i] = data[i] = (uint8_t)e2e_rng();
	if (e2e_buf_init(&dst, x->p.side[1].pd, len + SLACK, RNIC_ACCESS_LOCAL_WRITE, 0)) {
		e2e_result(0, "mtu%u inline %zu B: buffer setup", mtu, len);
		goto out;
	}
	/* two SGEs without a key: inline data need no MR */
	ss[0] = e2e_sg(data, (uint32_t)half, 0);
	ss[1] = e2e_sg(data + half, (uint32_t)(len - half), 0);
	rs = e2e_sg(dst.p, (uint32_t)(len + SLACK), dst.mr->lkey);
	if (e2e_post_recv1(rqp, 0x1a1, &rs, 1) || e2e_drain_quiet(x, 2000))
		goto report;
	/* the receive WQE is fetched before the SEND is posted, so that the
	 * sender's reads below are the SEND's own */
	e2e_drain_quiet(x, 2000);
	win0 = e2e_counter(x->p.side[0].ctx, RNIC_REG_STAT_TX_WQE_WINDOW);
	rnic_sim_nic_mem_stats(rnic_world_nic(x->w, 0), &m0);
	if (e2e_post_send1(sqp, 0x1a2, opcode, ss, 2, RNIC_SEND_SIGNALED | RNIC_SEND_INLINE, 0, 0))
		goto report;
	memset(data, 0, sizeof(data));
	ok = e2e_wait_cqs(x, &ws, 1, &wr, 1, &g0, &g1);
	rnic_sim_nic_mem_stats(rnic_world_nic(x->w, 0), &m1);
	win1 = e2e_counter(x->p.side[0].ctx, RNIC_REG_STAT_TX_WQE_WINDOW);
	if (win1 - win0 != 1 || m1.rd_bursts != m0.rd_bursts) {
		printf("  sender: %u WQEs taken from the window (want 1), %llu host-memory reads (want 0)\n",
		       win1 - win0, (unsigned long long)(m1.rd_bursts - m0.rd_bursts));
		ok = 0;
	}
	if (ok) {
		w = want_send(0x1a2, RNIC_WC_SEND, sqp);
		ok &= e2e_wc_check("send completion", &ws, &w);
		w = want_recv(0x1a1, RNIC_WC_RECV, len, rqp, sqp, imm);
		ok &= e2e_wc_check("receive completion", &wr, &w);
	}
	if (memcmp(dst.p, want_data, len) || !e2e_only_written(&dst, 0, len)) {
		printf("  inline data wrong or bytes around them changed\n");
		ok = 0;
	}
report:
	e2e_result(ok, "mtu%u inline %s %zu B (source overwritten after posting): send %s, receive %s, "
	           "%u from the WQE window", mtu, imm ? "SEND_WITH_IMM" : "SEND", len, e2e_wcs(g0, &ws),
	           e2e_wcs(g1, &wr), win1 - win0);
out:
	e2e_buf_free(&dst);
	e2e_case_done(x, ok);
}

/* A WQE taken from the window and then sent again: the responder has no
 * receive WQE, answers the inline SEND with an RNR NAK, and the sender's
 * retry after the RNR timer reads the WQE from the SQ ring (the window only
 * serves a WQE's first transmission). */
static void window_retry_case(struct e2e_world *x, uint32_t mtu)
{
	struct rnic_qp *sqp = x->p.side[0].qp[1], *rqp = x->p.side[1].qp[1];
	uint8_t data[48];
	struct e2e_buf dst;
	struct rnic_sg_entry ss, rs;
	struct rnic_wc ws, wr;
	struct e2e_want w;
	struct rnic_sim_mem_stats m0 = {0}, m1 = {0};
	uint32_t win0 = 0, win1 = 0, rnr0 = 0, rnr1 = 0;
	int ok = 0, g0 = 0, g1 = 0;

	if (!x->up)
		return;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)e2e_rng();
	if (e2e_buf_init(&dst, x->p.side[1].pd, sizeof(data) + SLACK, RNIC_ACCESS_LOCAL_WRITE, 0)) {
		e2e_result(0, "mtu%u window retry: buffer setup", mtu);
		goto out;
	}
	if (e2e_drain_quiet(x, 2000))
		goto report;
	win0 = e2e_counter(x->p.side[0].ctx, RNIC_REG_STAT_TX_WQE_WINDOW);
	rnr0 = e2e_counter(x->p.side[0].ctx, RNIC_REG_STAT_RX_RNR_NAK);
	rnic_sim_nic_mem_stats(rnic_world_nic(x->w, 0), &m0);
	ss = e2e_sg(data, sizeof(data), 0);
	if (e2e_post_send1(sqp, 0x1b2, RNIC_WR_SEND, &ss, 1, RNIC_SEND_SIGNALED | RNIC_SEND_INLINE, 0, 0))
		goto report;
	for (int i = 0; i < 100 && rnr1 == rnr0; i++) {
		rnic_world_step(x->w, 100);
		rnr1 = e2e_counter(x->p.side[0].ctx, RNIC_REG_STAT_RX_RNR_NAK);
	}
	if (rnr1 == rnr0) {
		printf("  no RNR NAK came back for the SEND\n");
		goto report;
	}
	rs = e2e_sg(dst.p, (uint32_t)(sizeof(data) + SLACK), dst.mr->lkey);
	if (e2e_post_recv1(rqp, 0x1b1, &rs, 1))
		goto report;
	/* the RNR timer (MIN_RNR_TIMER) runs with nothing on the wire */
	rnic_world_step(x->w, (uint64_t)(RNIC_RNR_TIMER_14_NS / 1000 * RNIC_CLOCK_MHZ) + 10000);
	ok = e2e_wait_cqs(x, &ws, 1, &wr, 1, &g0, &g1);
	if (ok) {
		w = want_send(0x1b2, RNIC_WC_SEND, sqp);
		ok &= e2e_wc_check("send completion", &ws, &w);
		w = want_recv(0x1b1, RNIC_WC_RECV, sizeof(data), rqp, sqp, 0);
		ok &= e2e_wc_check("receive completion", &wr, &w);
	}
	if (memcmp(dst.p, data, sizeof(data)) || !e2e_only_written(&dst, 0, sizeof(data))) {
		printf("  data wrong or bytes around them changed\n");
		ok = 0;
	}
	rnic_sim_nic_mem_stats(rnic_world_nic(x->w, 0), &m1);
	win1 = e2e_counter(x->p.side[0].ctx, RNIC_REG_STAT_TX_WQE_WINDOW);
	if (win1 - win0 != 1 || m1.rd_bursts == m0.rd_bursts) {
		printf("  sender: %u WQEs taken from the window (want 1), %llu host-memory reads (want the retry's)\n",
		       win1 - win0, (unsigned long long)(m1.rd_bursts - m0.rd_bursts));
		ok = 0;
	}
report:
	e2e_result(ok, "mtu%u inline SEND from the WQE window, RNR NAK, retry from the SQ ring: send %s, receive %s, "
	           "%u RNR NAK(s), %llu sender read(s)", mtu, e2e_wcs(g0, &ws), e2e_wcs(g1, &wr), rnr1 - rnr0,
	           (unsigned long long)(m1.rd_bursts - m0.rd_bursts));
out:
	e2e_buf_free(&dst);
	e2e_case_done(x, ok);
}

/* Two inline SENDs posted back to back on two QPs: the second WQE's window
 * writes reach the NIC while it may still be about to take the first, which
 * it then fetches from the SQ ring instead. Both arrive intact either way. */
static void window_overwrite_case(struct e2e_world *x, uint32_t mtu)
{
	struct rnic_qp *sqp[2] = {x->p.side[0].qp[0], x->p.side[0].qp[1]};
	struct rnic_qp *rqp[2] = {x->p.side[1].qp[0], x->p.side[1].qp[1]};
	uint8_t data[2][RNIC_MAX_INLINE_BYTES];
	struct e2e_buf dst[2] = {0};
	struct rnic_sg_entry ss, rs;
	struct rnic_wc ws[2], wr[2];
	uint32_t win0 = 0, win1 = 0;
	int ok = 0, g0 = 0, g1 = 0;

	if (!x->up)
		return;
	for (int q = 0; q < 2; q++) {
		for (size_t i = 0; i < sizeof(data[q]); i++)
			data[q][i] = (uint8_t)e2e_rng();
		if (e2e_buf_init(&dst[q], x->p.side[1].pd, sizeof(data[q]) + SLACK, RNIC_ACCESS_LOCAL_WRITE, 0)) {
			e2e_result(0, "mtu%u window overwrite: buffer setup", mtu);
			goto out;
		}
		rs = e2e_sg(dst[q].p, (uint32_t)(sizeof(data[q]) + SLACK), dst[q].mr->lkey);
		if (e2e_post_recv1(rqp[q], 0x1c0 + (uint64_t)q, &rs, 1))
			goto report;
	}
	if (e2e_drain_quiet(x, 2000))
		goto report;
	win0 = e2e_counter(x->p.side[0].ctx, RNIC_REG_STAT_TX_WQE_WINDOW);
	for (int q = 0; q < 2; q++) {
		ss = e2e_sg(data[q], sizeof(data[q]), 0);
		if (e2e_post_send1(sqp[q], 0x1d0 + (uint64_t)q, RNIC_WR_SEND, &ss, 1,
				   RNIC_SEND_SIGNALED | RNIC_SEND_INLINE, 0, 0))
			goto report;
	}
	ok = e2e_wait_cqs(x, ws, 2, wr, 2, &g0, &g1);
	for (int i = 0; ok && i < 2; i++) {
		int q = ws[i].qp_num == sqp[1]->qp_num;
		struct e2e_want w = want_send(0x1d0 + (uint64_t)q, RNIC_WC_SEND, sqp[q]);

		ok &= e2e_wc_check("send completion", &ws[i], &w);
		q = wr[i].qp_num == rqp[1]->qp_num;
		w = want_recv(0x1c0 + (uint64_t)q, RNIC_WC_RECV, sizeof(data[q]), rqp[q], sqp[q], 0);
		ok &= e2e_wc_check("receive completion", &wr[i], &w);
	}
	for (int q = 0; q < 2; q++)
		if (memcmp(dst[q].p, data[q], sizeof(data[q])) || !e2e_only_written(&dst[q], 0, sizeof(data[q]))) {
			printf("  QP %d: data wrong or bytes around them changed\n", q);
			ok = 0;
		}
	win1 = e2e_counter(x->p.side[0].ctx, RNIC_REG_STAT_TX_WQE_WINDOW);
	if (win1 - win0 < 1 || win1 - win0 > 2) {
		printf("  sender: %u WQEs taken from the window (want 1 or 2)\n", win1 - win0);
		ok = 0;
	}
report:
	e2e_result(ok, "mtu%u two inline SENDs on two QPs back to back: sends %d/2, receives %d/2, "
	           "%u from the WQE window, the rest fetched", mtu, g0, g1, win1 - win0);
out:
	for (int q = 0; q < 2; q++)
		e2e_buf_free(&dst[q]);
	e2e_case_done(x, ok);
}

/* A zero-length SEND into a receive WQE without any SGE. */
static void empty_recv_case(struct e2e_world *x, uint32_t mtu)
{
	struct rnic_qp *sqp = x->p.side[0].qp[1], *rqp = x->p.side[1].qp[1];
	struct rnic_wc ws, wr;
	struct e2e_want w;
	int ok = 0, g0 = 0, g1 = 0;

	if (!x->up)
		return;
	if (e2e_post_recv1(rqp, 0xe0, NULL, 0) || e2e_post_send1(sqp, 0xe1, RNIC_WR_SEND, NULL, 0, RNIC_SEND_SIGNALED, 0, 0))
		goto report;
	ok = e2e_wait_cqs(x, &ws, 1, &wr, 1, &g0, &g1);
	if (ok) {
		w = want_send(0xe1, RNIC_WC_SEND, sqp);
		ok &= e2e_wc_check("send completion", &ws, &w);
		w = want_recv(0xe0, RNIC_WC_RECV, 0, rqp, sqp, 0);
		ok &= e2e_wc_check("receive completion", &wr, &w);
	}
report:
	e2e_result(ok, "mtu%u zero-length SEND into a receive WQE without SGEs: send %s, receive %s", mtu,
	           e2e_wcs(g0, &ws), e2e_wcs(g1, &wr));
	e2e_case_done(x, ok);
}

/* Four unsignaled SENDs and a signaled one in one post_send: one send
 * completion; the receiver gets all five, in order. */
static void unsignaled_case(struct e2e_world *x, uint32_t mtu)
{
	enum { N = 5 };
	const size_t len[N] = {17, mtu + 3, 0, 2 * mtu, 333};
	struct rnic_qp *sqp = x->p.side[0].qp[0], *rqp = x->p.side[1].qp[0];
	struct e2e_buf src[N], dst[N];
	struct rnic_sg_entry ss[N], rs[N];
	struct rnic_send_wr swr[N], *sbad = NULL;
	struct rnic_wc ws[2], wr[N];
	struct e2e_want w;
	int ok = 0, g0 = 0, g1 = 0, setup = 0, extra;

	if (!x->up)
		return;
	memset(src, 0, sizeof(src));
	memset(dst, 0, sizeof(dst));
	memset(swr, 0, sizeof(swr));
	for (int i = 0; i < N; i++) {
		setup |= e2e_buf_init(&src[i], x->p.side[0].pd, len[i], RNIC_ACCESS_LOCAL_WRITE, 1);
		setup |= e2e_buf_init(&dst[i], x->p.side[1].pd, len[i] + SLACK, RNIC_ACCESS_LOCAL_WRITE, 0);
	}
	if (setup) {
		e2e_result(0, "mtu%u unsignaled: buffer setup", mtu);
		goto out;
	}
	for (int i = 0; i < N; i++) {
		ss[i] = e2e_sg(src[i].p, (uint32_t)len[i], src[i].mr->lkey);
		rs[i] = e2e_sg(dst[i].p, (uint32_t)(len[i] + SLACK), dst[i].mr->lkey);
		if (e2e_post_recv1(rqp, 0x700 + (uint64_t)i, &rs[i], 1))
			goto report;
		swr[i].wr_id = 0x800 + (uint64_t)i;
		swr[i].next = i + 1 < N ? &swr[i + 1] : NULL;
		swr[i].sg_list = &ss[i];
		swr[i].num_sge = 1;
		swr[i].opcode = RNIC_WR_SEND;
		swr[i].send_flags = i == N - 1 ? RNIC_SEND_SIGNALED : 0;
	}
	if (rnic_post_send(sqp, swr, &sbad))
		goto report;
	ok = e2e_wait_cqs(x, ws, 1, wr, N, &g0, &g1);
	if (ok) {
		w = want_send(0x800 + N - 1, RNIC_WC_SEND, sqp);
		ok &= e2e_wc_check("send completion", &ws[0], &w);
		for (int i = 0; i < N; i++) {
			w = want_recv(0x700 + (uint64_t)i, RNIC_WC_RECV, len[i], rqp, sqp, 0);
			ok &= e2e_wc_check("receive completion", &wr[i], &w);
		}
	}
	for (int i = 0; i < N; i++)
		if (memcmp(src[i].p, dst[i].p, len[i]) || !e2e_only_written(&dst[i], 0, len[i])) {
			printf("  message %d: wrong data or bytes around it changed\n", i);
			ok = 0;
		}
	extra = e2e_drain_quiet(x, 3000);
	ok &= extra == 0;
report:
	e2e_result(ok, "mtu%u 4 unsignaled SENDs + 1 signaled: %d send completion(s), %d receive completions in order",
	           mtu, g0, g1);
out:
	for (int i = 0; i < N; i++) {
		e2e_buf_free(&src[i]);
		e2e_buf_free(&dst[i]);
	}
	e2e_case_done(x, ok);
}

/* Eight inline SENDs in one post_send (a list: no WQE window): the sender's
 * NIC reads the eight WQEs from the SQ ring together, not one read each,
 * and sends them in one turn; the receiver's NIC reads the eight receive
 * WQEs posted for them together too, and gets all eight messages, in order.
 * Inline payloads need no read, so each side's host-memory reads are its
 * WQE read's bursts only: one, or a few where the run crosses the end of
 * the ring or a 4 KiB page. */
static void batch_case(struct e2e_world *x, uint32_t mtu)
{
	enum { N = 8 };
	struct rnic_qp *sqp = x->p.side[0].qp[0], *rqp = x->p.side[1].qp[0];
	uint8_t data[N][RNIC_MAX_INLINE_BYTES];
	size_t len[N];
	struct e2e_buf dst[N];
	struct rnic_sg_entry ss[N], rs[N];
	struct rnic_send_wr swr[N], *sbad = NULL;
	struct rnic_wc ws[1], wr[N];
	struct rnic_sim_mem_stats m0 = {0}, m1 = {0}, r0 = {0}, r1 = {0};
	struct e2e_want w;
	int ok = 0, g0 = 0, g1 = 0, setup = 0;
	unsigned long long reads = 0, rreads = 0;

	if (!x->up)
		return;
	memset(dst, 0, sizeof(dst));
	memset(swr, 0, sizeof(swr));
	for (int i = 0; i < N; i++) {
		len[i] = 1 + (size_t)(e2e_rng() % RNIC_MAX_INLINE_BYTES);
		for (size_t b = 0; b < len[i]; b++)
			data[i][b] = (uint8_t)e2e_rng();
		setup |= e2e_buf_init(&dst[i], x->p.side[1].pd, len[i] + SLACK, RNIC_ACCESS_LOCAL_WRITE, 0);
	}
	if (setup) {
		e2e_result(0, "mtu%u batch: buffer setup", mtu);
		goto out;
	}
	for (int i = 0; i < N; i++) {
		ss[i] = e2e_sg(data[i], (uint32_t)len[i], 0);
		rs[i] = e2e_sg(dst[i].p, (uint32_t)(len[i] + SLACK), dst[i].mr->lkey);
		if (e2e_post_recv1(rqp, 0xb00 + (uint64_t)i, &rs[i], 1))
			goto report;
		swr[i].wr_id = 0xc00 + (uint64_t)i;
		swr[i].next = i + 1 < N ? &swr[i + 1] : NULL;
		swr[i].sg_list = &ss[i];
		swr[i].num_sge = 1;
		swr[i].opcode = RNIC_WR_SEND;
		swr[i].send_flags = RNIC_SEND_INLINE | (i == N - 1 ? RNIC_SEND_SIGNALED : 0);
	}
	/* the receive WQEs are fetched first, so the sender's reads below are
	 * the SENDs' own */
	e2e_drain_quiet(x, 2000);
	rnic_sim_nic_mem_stats(rnic_world_nic(x->w, 0), &m0);
	rnic_sim_nic_mem_stats(rnic_world_nic(x->w, 1), &r0);
	if (rnic_post_send(sqp, swr, &sbad))
		goto report;
	ok = e2e_wait_cqs(x, ws, 1, wr, N, &g0, &g1);
	rnic_sim_nic_mem_stats(rnic_world_nic(x->w, 0), &m1);
	rnic_sim_nic_mem_stats(rnic_world_nic(x->w, 1), &r1);
	reads = (unsigned long long)(m1.rd_bursts - m0.rd_bursts);
	rreads = (unsigned long long)(r1.rd_bursts - r0.rd_bursts);
	if (reads == 0 || reads > 3 || rreads == 0 || rreads > 3) {
		printf("  %llu sender and %llu receiver host-memory read bursts for %d WQEs each (want 1 to 3)\n",
		       reads, rreads, N);
		ok = 0;
	}
	if (ok) {
		w = want_send(0xc00 + N - 1, RNIC_WC_SEND, sqp);
		ok &= e2e_wc_check("send completion", &ws[0], &w);
		for (int i = 0; i < N; i++) {
			w = want_recv(0xb00 + (uint64_t)i, RNIC_WC_RECV, len[i], rqp, sqp, 0);
			ok &= e2e_wc_check("receive completion", &wr[i], &w);
		}
	}
	for (int i = 0; i < N; i++)
		if (memcmp(data[i], dst[i].p, len[i]) || !e2e_only_written(&dst[i], 0, len[i])) {
			printf("  message %d: wrong data or bytes around it changed\n", i);
			ok = 0;
		}
report:
	e2e_result(ok, "mtu%u %d inline SENDs in one post_send: %llu sender and %llu receiver read burst(s), "
	           "%d receive completions in order", mtu, N, reads, rreads, g1);
out:
	for (int i = 0; i < N; i++)
		e2e_buf_free(&dst[i]);
	e2e_case_done(x, ok);
}

/* Two QP pairs at once, SENDs posted alternately: each receiver QP gets its
 * own messages, in its own order. */
static void two_qp_case(struct e2e_world *x, uint32_t mtu)
{
	enum { PER = 3 };
	struct e2e_buf src[2][PER], dst[2][PER];
	struct rnic_sg_entry ss[2][PER], rs[2][PER];
	struct rnic_wc ws[2 * PER], wr[2 * PER];
	int seen[2] = {0, 0}, ok = 0, g0 = 0, g1 = 0, setup = 0;
	size_t len[2][PER];

	if (!x->up)
		return;
	memset(src, 0, sizeof(src));
	memset(dst, 0, sizeof(dst));
	for (int q = 0; q < 2; q++)
		for (int i = 0; i < PER; i++) {
			len[q][i] = 2 * mtu + 1 + (size_t)(e2e_rng() % (2 * mtu));
			setup |= e2e_buf_init(&src[q][i], x->p.side[0].pd, len[q][i], RNIC_ACCESS_LOCAL_WRITE, 1);
			setup |= e2e_buf_init(&dst[q][i], x->p.side[1].pd, len[q][i] + SLACK, RNIC_ACCESS_LOCAL_WRITE, 0);
		}
	if (setup) {
		e2e_result(0, "mtu%u two QPs: buffer setup", mtu);
		goto out;
	}
	for (int q = 0; q < 2; q++)
		for (int i = 0; i < PER; i++) {
			rs[q][i] = e2e_sg(dst[q][i].p, (uint32_t)(len[q][i] + SLACK), dst[q][i].mr->lkey);
			ss[q][i] = e2e_sg(src[q][i].p, (uint32_t)len[q][i], src[q][i].mr->lkey);
			if (e2e_post_recv1(x->p.side[1].qp[q], 0x900 + (uint64_t)(q * 16 + i), &rs[q][i], 1))
				goto report;
		}
	for (int i = 0; i < PER; i++)
		for (int q = 0; q < 2; q++)
			if (e2e_post_send1(x->p.side[0].qp[q], 0xa00 + (uint64_t)(q * 16 + i), RNIC_WR_SEND, &ss[q][i], 1,
				       RNIC_SEND_SIGNALED, 0, 0))
				goto report;
	ok = e2e_wait_cqs(x, ws, 2 * PER, wr, 2 * PER, &g0, &g1);
	for (int k = 0; ok && k < 2 * PER; k++) {
		int q = wr[k].qp_num == x->p.side[1].qp[1]->qp_num;
		struct e2e_want w;

		if (seen[q] >= PER) {
			printf("  too many receive completions on QP %u\n", wr[k].qp_num);
			ok = 0;
			break;
		}
		w = want_recv(0x900 + (uint64_t)(q * 16 + seen[q]), RNIC_WC_RECV, len[q][seen[q]],
			      x->p.side[1].qp[q], x->p.side[0].qp[q], 0);
		ok &= e2e_wc_check("receive completion", &wr[k], &w);
		seen[q]++;
	}
	for (int k = 0; ok && k < 2 * PER; k++)
		ok &= ws[k].status == RNIC_WC_SUCCESS;
	for (int q = 0; q < 2; q++)
		for (int i = 0; i < PER; i++)
			if (memcmp(src[q][i].p, dst[q][i].p, len[q][i]) || !e2e_only_written(&dst[q][i], 0, len[q][i])) {
				printf("  QP pair %d message %d: wrong data or bytes around it changed\n", q, i);
				ok = 0;
			}
report:
	e2e_result(ok, "mtu%u two QP pairs, %d interleaved SENDs each: %d send and %d receive completions, each QP its own data",
	           mtu, PER, g0, g1);
out:
	for (int q = 0; q < 2; q++)
		for (int i = 0; i < PER; i++) {
			e2e_buf_free(&src[q][i]);
			e2e_buf_free(&dst[q][i]);
		}
	e2e_case_done(x, ok);
}

/* Rounds of RQ_SIZE receives (the RQ full: one more is refused with
 * ENOMEM) and as many SENDs of random sizes: receive completions in posting
 * order with the right wr_id and length; over the rounds the RQ wraps. */
static void many_case(struct e2e_world *x, int rounds, uint32_t mtu)
{
	struct rnic_qp *sqp = x->p.side[0].qp[1], *rqp = x->p.side[1].qp[1];
	struct e2e_buf src, dst;
	struct rnic_wc ws[RQ_SIZE], wr[RQ_SIZE];
	size_t stride = 2 * mtu + SLACK, len[RQ_SIZE], off[RQ_SIZE];
	int ok = 1, g0 = 0, g1 = 0, total = 0;

	if (!x->up)
		return;
	if (e2e_buf_init(&src, x->p.side[0].pd, 2 * (size_t)mtu, RNIC_ACCESS_LOCAL_WRITE, 1) |
	    e2e_buf_init(&dst, x->p.side[1].pd, RQ_SIZE * stride, RNIC_ACCESS_LOCAL_WRITE, 0)) {
		e2e_result(0, "mtu%u many receives: buffer setup", mtu);
		ok = 0;
		goto out;
	}
	for (int r = 0; ok && r < rounds; r++) {
		struct rnic_recv_wr extra = {0}, *bad = NULL;
		struct rnic_sg_entry es = e2e_sg(dst.p, 1, dst.mr->lkey);

		memset(dst.p, E2E_GUARD_BYTE, RQ_SIZE * stride);
		for (int i = 0; ok && i < RQ_SIZE; i++) {
			struct rnic_sg_entry rs = e2e_sg(dst.p + (size_t)i * stride, (uint32_t)stride, dst.mr->lkey);

			ok &= !e2e_post_recv1(rqp, 0x10000 + (uint64_t)(r * RQ_SIZE + i), &rs, 1);
		}
		extra.sg_list = &es;
		extra.num_sge = 1;
		if (rnic_post_recv(rqp, &extra, &bad) != ENOMEM || bad != &extra) {
			printf("  round %d: a receive beyond the %d-entry RQ was not refused with ENOMEM\n", r, RQ_SIZE);
			ok = 0;
		}
		for (int i = 0; ok && i < RQ_SIZE; i++) {
			struct rnic_sg_entry ss;

			off[i] = (size_t)(e2e_rng() % mtu);
			len[i] = (size_t)(e2e_rng() % (2 * mtu - off[i] + 1));
			ss = e2e_sg(src.p + off[i], (uint32_t)len[i], src.mr->lkey);
			ok &= !e2e_post_send1(sqp, 0x20000 + (uint64_t)(r * RQ_SIZE + i), RNIC_WR_SEND, &ss, 1,
					  RNIC_SEND_SIGNALED, 0, 0);
		}
		if (!ok)
			break;
		ok = e2e_wait_cqs(x, ws, RQ_SIZE, wr, RQ_SIZE, &g0, &g1);
		for (int i = 0; ok && i < RQ_SIZE; i++) {
			size_t n = len[i];
			struct e2e_want w = want_recv(0x10000 + (uint64_t)(r * RQ_SIZE + i), RNIC_WC_RECV, n, rqp, sqp, 0);
			struct e2e_want v = want_send(0x20000 + (uint64_t)(r * RQ_SIZE + i), RNIC_WC_SEND, sqp);
			uint8_t *d = dst.p + (size_t)i * stride;

			ok &= e2e_wc_check("receive completion", &wr[i], &w);
			ok &= e2e_wc_check("send completion", &ws[i], &v);
			if (memcmp(d, src.p + off[i], n) || !e2e_untouched(&dst, (long)(d - dst.p + n), (long)(d - dst.p + stride))) {
				printf("  round %d message %d: wrong data or bytes after it changed\n", r, i);
				ok = 0;
			}
		}
		total += g1;
	}
out:
	e2e_result(ok, "mtu%u %d rounds of %d receives and SENDs (RQ of %d wraps): %d receive completions in posting order",
	           mtu, rounds, RQ_SIZE, RQ_SIZE, total);
	e2e_buf_free(&src);
	e2e_buf_free(&dst);
	e2e_case_done(x, ok);
}

#define RUN(call)                          \
	do {                               \
		if (e2e_world_ready(&x))   \
			call;              \
	} while (0)

static void mtu_suite(uint32_t mtu_code, int quick)
{
	uint32_t mtu = 128u << mtu_code;
	struct sim_pair_opts o;
	struct e2e_world x;
	char tag[32];
	size_t sizes[] = {0, 1, mtu - 1, mtu, mtu + 1, 1u << 20};
	int nsizes = (quick && mtu_code != RNIC_IB_MTU_4096) ? 5 : 6;

	sim_pair_default_opts(&o);
	o.nqp = 2;
	o.path_mtu = mtu_code;
	o.max_recv_wr = RQ_SIZE;
	o.max_recv_sge = RNIC_MAX_RECV_SGE;
	o.min_rnr_timer = MIN_RNR_TIMER;
	snprintf(tag, sizeof(tag), "send_mtu%u", mtu);
	if (!e2e_world_open(&x, tag, &o))
		return;
	for (int i = 0; i < nsizes; i++)
		RUN(send_case(&x, i % 2, sizes[i], RNIC_WR_SEND, mtu));
	RUN(scatter_case(&x, mtu));
	RUN(send_case(&x, 0, mtu + 7, RNIC_WR_SEND_WITH_IMM, mtu));
	RUN(send_case(&x, 1, 0, RNIC_WR_SEND_WITH_IMM, mtu));
	RUN(write_imm_case(&x, 2 * mtu + 3, mtu));
	RUN(write_imm_case(&x, 0, mtu));
	RUN(inline_case(&x, 1, RNIC_WR_SEND, mtu));
	RUN(inline_case(&x, RNIC_MAX_INLINE_BYTES, RNIC_WR_SEND, mtu));
	RUN(inline_case(&x, 20, RNIC_WR_SEND_WITH_IMM, mtu));
	RUN(window_retry_case(&x, mtu));
	RUN(window_overwrite_case(&x, mtu));
	RUN(empty_recv_case(&x, mtu));
	RUN(unsignaled_case(&x, mtu));
	RUN(batch_case(&x, mtu));
	RUN(two_qp_case(&x, mtu));
	RUN(many_case(&x, mtu_code == RNIC_IB_MTU_1024 ? 5 : 3, mtu));
	e2e_world_down(&x);
}

/* ---------------------------------------------------------------- errors */

enum err_kind {
	E_RNR_SEND,        /* no receive posted: RNR NAK */
	E_RNR_WRITE_IMM,   /* no receive posted for a WRITE with immediate */
	E_SHORT_FIRST,     /* receive buffer shorter than the first packet */
	E_SHORT_LAST,      /* the first packet fits, the last does not */
	E_LKEY_TAG,        /* receive SGE: wrong key tag */
	E_LKEY_PD,         /* receive SGE: MR of another PD */
	E_LKEY_BOUNDS,     /* receive SGE: runs past its MR */
	E_LKEY_NO_LWRITE,  /* receive SGE: MR without LOCAL_WRITE */
	E_COUNT
};

static const char *const err_name[E_COUNT] = {
	"RNR: SEND, no receive posted",
	"RNR: WRITE_WITH_IMM, no receive posted",
	"receive buffer shorter than the first packet",
	"receive buffer one packet short at the end",
	"receive SGE with a wrong key",
	"receive SGE in an MR of another PD",
	"receive SGE past the end of its MR",
	"receive SGE in an MR without LOCAL_WRITE",
};

/* Side 0 sends two signaled WRs on QP pair k; the first fails. Sender: the
 * first completes with the error the responder's NAK names (AETH syndrome
 * in vendor_err), the second with WR_FLUSH_ERR. Responder: the receive WQE
 * that met the error completes with its local error and the ones behind it
 * flush; a receive posted after that flushes too; the receive buffers never
 * see a byte outside the message's place. */
static void error_case(struct e2e_world *x, int k, enum err_kind kind)
{
	struct rnic_qp *sqp = x->p.side[0].qp[k], *rqp = x->p.side[1].qp[k];
	struct rnic_pd *pd2 = NULL;
	struct e2e_buf src, bad, good[2], wdst, late;
	struct rnic_sg_entry ss, bs, gs[2], ls;
	struct rnic_send_wr swr[2], *sbad = NULL;
	struct rnic_wc ws[2], wr[4];
	struct e2e_want w;
	size_t len = 1500, blen = 4000;
	int ok = 0, g0 = 0, g1 = 0, nrecv = 0, setup = 0;
	int rnr = kind == E_RNR_SEND || kind == E_RNR_WRITE_IMM;
	uint32_t rnr0 = 0, rnr1, want_send_st, want_recv_st = 0, syndrome;

	if (!x->up)
		return;
	memset(&bad, 0, sizeof(bad));
	memset(good, 0, sizeof(good));
	memset(&wdst, 0, sizeof(wdst));
	memset(&late, 0, sizeof(late));
	switch (kind) {
	case E_SHORT_FIRST: blen = 1000; break;           /* 1500 B message, first packet 1024 */
	case E_SHORT_LAST: len = 1030; blen = 1028; break; /* 1024 fit, 6 B into 4 do not */
	case E_RNR_WRITE_IMM: len = 100; break;            /* one WRITE ONLY with immediate */
	case E_LKEY_BOUNDS: len = blen; break;             /* fills the SGE, which overhangs its MR */
	default: break;
	}
	setup |= e2e_buf_init(&src, x->p.side[0].pd, len, RNIC_ACCESS_LOCAL_WRITE, 1);
	if (kind == E_LKEY_PD) {
		pd2 = rnic_alloc_pd(x->p.side[1].ctx);
		setup |= !pd2 || e2e_buf_init(&bad, pd2, blen, RNIC_ACCESS_LOCAL_WRITE, 0);
	} else {
		setup |= e2e_buf_init(&bad, x->p.side[1].pd, blen,
				   kind == E_LKEY_NO_LWRITE ? RNIC_ACCESS_REMOTE_READ : RNIC_ACCESS_LOCAL_WRITE, 0);
	}
	for (int i = 0; i < 2; i++)
		setup |= e2e_buf_init(&good[i], x->p.side[1].pd, 2048, RNIC_ACCESS_LOCAL_WRITE, 0);
	setup |= e2e_buf_init(&late, x->p.side[1].pd, 2048, RNIC_ACCESS_LOCAL_WRITE, 0);
	setup |= e2e_buf_init(&wdst, x->p.side[1].pd, len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0);
	if (setup) {
		e2e_result(0, "error %s: setup", err_name[kind]);
		goto out;
	}
	ss = e2e_sg(src.p, (uint32_t)len, src.mr->lkey);
	bs = e2e_sg(bad.p, (uint32_t)blen, bad.mr->lkey);
	if (kind == E_LKEY_TAG)
		bs.lkey ^= 0x80; /* same MPT entry, other tag */
	if (kind == E_LKEY_BOUNDS)
		bs.addr += 8; /* the last 8 bytes of the SGE lie past the MR */
	for (int i = 0; i < 2; i++)
		gs[i] = e2e_sg(good[i].p, 2048, good[i].mr->lkey);
	if (!rnr) {
		/* the bad receive first, two good ones behind it */
		nrecv = 3;
		if (e2e_post_recv1(rqp, 0xe00, &bs, 1) || e2e_post_recv1(rqp, 0xe01, &gs[0], 1) ||
		    e2e_post_recv1(rqp, 0xe02, &gs[1], 1))
			goto report;
	}
	memset(swr, 0, sizeof(swr));
	for (int i = 0; i < 2; i++) {
		swr[i].wr_id = 0xf00 + (uint64_t)i;
		swr[i].sg_list = &ss;
		swr[i].num_sge = 1;
		swr[i].opcode = RNIC_WR_SEND;
		swr[i].send_flags = RNIC_SEND_SIGNALED;
	}
	swr[0].next = &swr[1];
	if (kind == E_RNR_WRITE_IMM) {
		swr[0].opcode = RNIC_WR_RDMA_WRITE_WITH_IMM;
		swr[0].imm_data = imm_be;
		swr[0].wr.rdma.remote_addr = (uint64_t)(uintptr_t)wdst.p;
		swr[0].wr.rdma.rkey = wdst.mr->rkey;
	}
	rnr0 = e2e_counter(x->p.side[1].ctx, RNIC_REG_STAT_TX_RNR_NAK);
	if (rnic_post_send(sqp, swr, &sbad)) {
		printf("  post_send failed\n");
		goto report;
	}
	ok = e2e_wait_cqs(x, ws, 2, wr, nrecv, &g0, &g1);
	switch (kind) {
	case E_RNR_SEND:
	case E_RNR_WRITE_IMM:
		want_send_st = RNIC_WC_RNR_RETRY_EXC_ERR;
		syndrome = RNIC_AETH_KIND_RNR << 5 | MIN_RNR_TIMER;
		break;
	case E_SHORT_FIRST:
	case E_SHORT_LAST:
		want_send_st = RNIC_WC_REM_INV_REQ_ERR;
		want_recv_st = RNIC_WC_LOC_LEN_ERR;
		syndrome = RNIC_AETH_KIND_NAK << 5 | RNIC_AETH_NAK_INVALID_REQ;
		break;
	default:
		want_send_st = RNIC_WC_REM_OP_ERR;
		want_recv_st = RNIC_WC_LOC_PROT_ERR;
		syndrome = RNIC_AETH_KIND_NAK << 5 | RNIC_AETH_NAK_REM_OP_ERR;
		break;
	}
	if (ok) {
		w = e2e_want_status(0xf00, want_send_st, sqp);
		w.vendor_err = syndrome;
		ok &= e2e_wc_check("sender's first completion", &ws[0], &w);
		w = e2e_want_status(0xf01, RNIC_WC_WR_FLUSH_ERR, sqp);
		ok &= e2e_wc_check("sender's second completion", &ws[1], &w);
		if (!rnr) {
			w = e2e_want_status(0xe00, want_recv_st, rqp);
			w.opcode = RNIC_WC_RECV;
			ok &= e2e_wc_check("responder's failed receive", &wr[0], &w);
			for (int i = 1; i < 3; i++) {
				w = e2e_want_status(0xe00 + (uint64_t)i, RNIC_WC_WR_FLUSH_ERR, rqp);
				w.opcode = RNIC_WC_RECV;
				ok &= e2e_wc_check("responder's flushed receive", &wr[i], &w);
			}
		}
	}
	/* nothing lands outside the receive buffer's MR (a partly written
	 * buffer is allowed where the error shows only in a later packet); a
	 * buffer whose key or rights fail is never written; the good buffers
	 * and, for an RNR-refused WRITE with immediate, the target stay
	 * untouched */
	if (!e2e_untouched(&bad, -E2E_GUARD, 0) || !e2e_untouched(&bad, (long)blen, (long)blen + E2E_GUARD)) {
		printf("  bytes around the failing receive buffer's MR changed\n");
		ok = 0;
	}
	if (kind == E_RNR_SEND || kind == E_LKEY_TAG || kind == E_LKEY_PD || kind == E_LKEY_NO_LWRITE) {
		if (!e2e_untouched(&bad, -E2E_GUARD, (long)blen + E2E_GUARD)) {
			printf("  the refused receive buffer was written\n");
			ok = 0;
		}
	}
	for (int i = 0; i < 2; i++)
		if (!e2e_only_written(&good[i], 0, 0)) {
			printf("  receive buffer %d behind the failing one was written\n", i);
			ok = 0;
		}
	if (!e2e_only_written(&wdst, 0, 0)) {
		printf("  the WRITE target was written\n");
		ok = 0;
	}
	if (rnr) {
		rnr1 = e2e_counter(x->p.side[1].ctx, RNIC_REG_STAT_TX_RNR_NAK);
		if (rnr1 - rnr0 != 1) {
			printf("  responder STAT_TX_RNR_NAK advanced by %u, want 1\n", rnr1 - rnr0);
			ok = 0;
		}
	} else if (ok) {
		/* the responder's QP is in error: a receive posted now flushes */
		struct rnic_wc lw;
		int gl = 0;

		ls = e2e_sg(late.p, 2048, late.mr->lkey);
		if (rqp->state != RNIC_QPS_ERR) {
			printf("  library: responder QP state %u after its error completion\n", rqp->state);
			ok = 0;
		}
		if (e2e_post_recv1(rqp, 0xe10, &ls, 1)) {
			ok = 0;
		} else {
			ok &= e2e_wait_cqs(x, NULL, 0, &lw, 1, NULL, &gl);
			if (gl) {
				w = e2e_want_status(0xe10, RNIC_WC_WR_FLUSH_ERR, rqp);
				w.opcode = RNIC_WC_RECV;
				ok &= e2e_wc_check("receive posted after the error", &lw, &w);
			} else {
				printf("  a receive posted in the error state did not complete\n");
			}
		}
		ok &= e2e_only_written(&late, 0, 0);
	}
report:
	e2e_result(ok, "error %s: sender %s, then %s; responder %s%s", err_name[kind], e2e_wcs(g0, &ws[0]),
	           g0 > 1 ? rnic_wc_status_str(ws[1].status) : "no completion",
	           rnr ? "sent an RNR NAK" : e2e_wcs(g1, &wr[0]),
	           rnr ? "" : g1 == 3 ? ", then 2 flushed" : ", flushes missing");
out:
	e2e_buf_free(&src);
	e2e_buf_free(&bad);
	e2e_buf_free(&good[0]);
	e2e_buf_free(&good[1]);
	e2e_buf_free(&wdst);
	e2e_buf_free(&late);
	if (pd2)
		rnic_dealloc_pd(pd2);
	e2e_case_done(x, ok);
}

/* modify_qp(ERR) on healthy QPs: the peer first (its posted receives
 * flush), then side 0's QP with three receives and three SENDs outstanding
 * (the peer in error drops them, nothing acknowledges them): every one of
 * them completes with WR_FLUSH_ERR, in order. */
static void modify_err_case(struct e2e_world *x, int k)
{
	struct rnic_qp *q0 = x->p.side[0].qp[k], *q1 = x->p.side[1].qp[k];
	struct e2e_buf src, buf[2][3];
	struct rnic_sg_entry ss, rs[2][3];
	struct rnic_qp_attr a;
	struct rnic_wc w0[6], w1[3], sq[3], rq[3];
	struct e2e_want w;
	int ok = 0, g0 = 0, g1 = 0, setup = 0, ns = 0, nr = 0, early0 = 0, early1 = 0;

	if (!x->up)
		return;
	memset(buf, 0, sizeof(buf));
	setup |= e2e_buf_init(&src, x->p.side[0].pd, 2000, RNIC_ACCESS_LOCAL_WRITE, 1);
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < 3; i++)
			setup |= e2e_buf_init(&buf[s][i], x->p.side[s].pd, 2048, RNIC_ACCESS_LOCAL_WRITE, 0);
	if (setup) {
		e2e_result(0, "modify_qp(ERR): setup");
		goto out;
	}
	ss = e2e_sg(src.p, 2000, src.mr->lkey);
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < 3; i++)
			rs[s][i] = e2e_sg(buf[s][i].p, 2048, buf[s][i].mr->lkey);
	/* the peer: three receives, then ERR */
	for (int i = 0; i < 3; i++)
		if (e2e_post_recv1(q1, 0xc10 + (uint64_t)i, &rs[1][i], 1))
			goto report;
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_ERR;
	if (rnic_modify_qp(q1, &a, RNIC_QP_STATE)) {
		printf("  modify_qp(ERR) of the peer failed\n");
		goto report;
	}
	ok = e2e_wait_cqs(x, NULL, 0, w1, 3, NULL, &g1);
	for (int i = 0; ok && i < 3; i++) {
		w = e2e_want_status(0xc10 + (uint64_t)i, RNIC_WC_WR_FLUSH_ERR, q1);
		w.opcode = RNIC_WC_RECV;
		ok &= e2e_wc_check("peer's flushed receive", &w1[i], &w);
	}
	e2e_result(ok, "modify_qp(ERR) of a QP with 3 receives posted: %d flushed (WR_FLUSH_ERR, in order)", g1);
	if (!ok)
		goto out;
	/* side 0: three receives and three SENDs the peer drops */
	for (int i = 0; i < 3; i++)
		if (e2e_post_recv1(q0, 0xc00 + (uint64_t)i, &rs[0][i], 1) ||
		    e2e_post_send1(q0, 0xc20 + (uint64_t)i, RNIC_WR_SEND, &ss, 1, RNIC_SEND_SIGNALED, 0, 0)) {
			ok = 0;
			goto report;
		}
	rnic_world_step(x->w, 20000);
	early0 = rnic_poll_cq(x->p.side[0].cq, 6, w0);
	early1 = rnic_poll_cq(x->p.side[1].cq, 3, w1);
	if (early0 || early1) {
		printf("  %d/%d completions before modify_qp(ERR) (the SENDs went to a QP in error)\n", early0, early1);
		ok = 0;
		goto report;
	}
	if (rnic_modify_qp(q0, &a, RNIC_QP_STATE)) {
		printf("  modify_qp(ERR) failed\n");
		ok = 0;
		goto report;
	}
	ok = e2e_wait_cqs(x, w0, 6, NULL, 0, &g0, NULL);
	for (int i = 0; i < g0; i++) {
		if (w0[i].opcode & RNIC_WC_RECV)
			rq[nr < 3 ? nr : 2] = w0[i], nr++;
		else
			sq[ns < 3 ? ns : 2] = w0[i], ns++;
	}
	ok &= ns == 3 && nr == 3;
	for (int i = 0; ok && i < 3; i++) {
		w = e2e_want_status(0xc20 + (uint64_t)i, RNIC_WC_WR_FLUSH_ERR, q0);
		ok &= e2e_wc_check("flushed send", &sq[i], &w);
		w = e2e_want_status(0xc00 + (uint64_t)i, RNIC_WC_WR_FLUSH_ERR, q0);
		w.opcode = RNIC_WC_RECV;
		ok &= e2e_wc_check("flushed receive", &rq[i], &w);
	}
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < 3; i++)
			if (!e2e_only_written(&buf[s][i], 0, 0)) {
				printf("  side %d receive buffer %d was written\n", s, i);
				ok = 0;
			}
report:
	e2e_result(ok, "modify_qp(ERR) of an RTS QP with 3 SENDs and 3 receives outstanding: %d send and %d receive completions flushed",
	           ns, nr);
out:
	e2e_buf_free(&src);
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < 3; i++)
			e2e_buf_free(&buf[s][i]);
	e2e_case_done(x, ok);
}

static void error_suite(void)
{
	struct sim_pair_opts o;
	struct e2e_world x;
	uint32_t nak0, nak1;

	sim_pair_default_opts(&o);
	o.nqp = E_COUNT + 1;
	o.path_mtu = RNIC_IB_MTU_1024;
	o.max_recv_wr = 8;
	o.max_recv_sge = RNIC_MAX_RECV_SGE;
	o.rnr_retry = 0; /* no RNR retries: the first RNR NAK ends the sender's WQE */
	o.min_rnr_timer = MIN_RNR_TIMER;
	if (!e2e_world_open(&x, "send_errors", &o))
		return;
	nak0 = e2e_counter(x.p.side[1].ctx, RNIC_REG_STAT_TX_RNR_NAK);
	for (int k = 0; k < E_COUNT; k++)
		RUN(error_case(&x, k, (enum err_kind)k));
	if (x.up && x.generation == 0) {
		nak1 = e2e_counter(x.p.side[1].ctx, RNIC_REG_STAT_TX_RNR_NAK);
		e2e_result(nak1 - nak0 == 2, "send_errors: responder STAT_TX_RNR_NAK advanced by %u over the suite (2 RNR cases)",
		           nak1 - nak0);
	}
	RUN(modify_err_case(&x, E_COUNT));
	e2e_world_down(&x);
}

int main(int argc, char **argv)
{
	int rc = e2e_parse_args(argc, argv, "rnic-e2e-send",
				"End-to-end SEND/RECV tests on two simulated NICs.\n"
				"--quick: path MTU 1024 only (no 1 MiB SEND).\n");

	if (rc >= 0)
		return rc;
	e2e_rng_seed(e2e_seed);
	memcpy(&imm_be, e2e_imm_bytes, 4);
	e2e_mtu_suites(mtu_suite);
	error_suite();
	return e2e_summary();
}
