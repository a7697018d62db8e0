/* End-to-end tests of shared receive queues (IBTA Vol. 1 10.2.9, 11.2.3):
 * side 1's QPs take their receive WQEs from one SRQ, side 0's QPs send.
 *
 *   rnic-e2e-srq --width 64|512 [--seed N] [--pcap-dir DIR] [--quick]
 *
 * Cases:
 *   shared   8 QPs on one SRQ receive SENDs (8 B .. 3 packets, interleaved
 *            over the QPs) from the peer's 8 QPs: every byte checked, every
 *            receive WQE consumed exactly once, each QP's messages in WQEs
 *            of rising SRQ index (the SRQ's posting order), nothing written
 *            outside the messages; then one more WQE and SEND: it takes the
 *            next WQE in order.
 * All in one world whose link drops, reorders and duplicates 2% of the
 * frames each.
 *   limit    the SRQ limit event: armed with MODIFY_SRQ, none while the
 *            WQEs left are not below it, exactly one when they drop below,
 *            QUERY_SRQ then says disarmed, none on the next take; re-armed,
 *            one again.
 *   rnr      SENDs on two QPs find the SRQ empty: RNR NAKs and no
 *            completion; WQEs posted: both complete, data checked.
 *   qp-error one QP of the SRQ moved to ERR: last-WQE-reached for it, no
 *            flush completion (it held no WQE), the SRQ's WQEs all go to
 *            another QP's SENDs; post_recv on a QP of an SRQ is refused.
 *   destroy  DESTROY_SRQ refused (EBUSY) while QPs use the SRQ, accepted
 *            once they are destroyed.
 * Every world ends with the memory-protection checker's verdict: the
 * responder wrote only into buffers of WQEs fetched from the SRQ's ring. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"
#include "e2e_common.h"

#define NQP 8
#define BUF_BYTES 4096   /* each receive buffer */
#define MAX_MSG 3000     /* up to 3 packets at MTU 1024 */

static int post_srq1(struct rnic_srq *srq, uint64_t wr_id, struct rnic_sg_entry *sge)
{
	struct rnic_recv_wr wr = {wr_id, NULL, sge, 1}, *bad = NULL;
	int err = rnic_post_srq_recv(srq, &wr, &bad);

	if (err)
		printf("  post_srq_recv: %s\n", strerror(err));
	return err;
}

/* The asynchronous events of side s now; counts those of type t naming obj. */
static int take_events(struct e2e_world *x, int s, enum rnic_event_type t, const void *obj, int *other)
{
	struct rnic_async_event ev;
	int n = 0;

	while (rnic_get_async_event(x->p.side[s].ctx, &ev) == 0) {
		const void *e = t == RNIC_EVENT_SRQ_LIMIT_REACHED ? (const void *)ev.element.srq
								  : (const void *)ev.element.qp;

		if (ev.event_type == t && e == obj) {
			n++;
		} else {
			printf("  side %d: event %s\n", s, rnic_event_type_str(ev.event_type));
			(*other)++;
		}
	}
	return n;
}

/* Let the wire and both NICs run a while. */
static void run_cycles(struct e2e_world *x, unsigned int n)
{
	rnic_world_step(x->w, n);
}

/* ---------------------------------------------------------------- shared */

static void shared_case(struct e2e_world *x, int nmsg)
{
	struct rnic_srq *srq = x->p.side[1].srq;
	struct e2e_buf src, dst[NQP * 8 + 1];
	struct rnic_wc ws[NQP * 8 + 1], wr[NQP * 8 + 1];
	size_t len[NQP * 8 + 1], off[NQP * 8 + 1];
	int taken[NQP * 8 + 1], got_msg[NQP * 8 + 1], last_slot[NQP];
	int ok = 0, g0 = 0, g1 = 0, n = nmsg, total = nmsg + 1;
	size_t at = 0;

	if (!x->up)
		return;
	memset(dst, 0, sizeof(dst));
	memset(taken, 0, sizeof(taken));
	memset(got_msg, 0, sizeof(got_msg));
	/* message m goes from QP m % NQP, its m / NQP-th */
	for (int m = 0; m < total; m++) {
		len[m] = 8 + e2e_rng() % (MAX_MSG - 8);
		off[m] = at;
		at += len[m];
	}
	if (e2e_buf_init(&src, x->p.side[0].pd, at, RNIC_ACCESS_LOCAL_WRITE, 1)) {
		e2e_result(0, "shared: buffer setup");
		goto out;
	}
	for (int m = 0; m < total; m++) {
		/* a header naming the message: which QP sends it, its number */
		src.p[off[m]] = (uint8_t)(m % NQP);
		src.p[off[m] + 1] = (uint8_t)m;
		if (e2e_buf_init(&dst[m], x->p.side[1].pd, BUF_BYTES, RNIC_ACCESS_LOCAL_WRITE, 0)) {
			e2e_result(0, "shared: buffer setup");
			goto out;
		}
	}
	/* the SRQ gets n WQEs, wr_id = posting order */
	for (int k = 0; k < n; k++) {
		struct rnic_sg_entry sg = e2e_sg(dst[k].p, BUF_BYTES, dst[k].mr->lkey);

		if (post_srq1(srq, (uint64_t)k, &sg))
			goto report;
	}
	for (int m = 0; m < n; m++) {
		struct rnic_sg_entry sg = e2e_sg(src.p + off[m], (uint32_t)len[m], src.mr->lkey);

		if (e2e_post_send1(x->p.side[0].qp[m % NQP], (uint64_t)m, RNIC_WR_SEND, &sg, 1,
				   RNIC_SEND_SIGNALED, 0, 0))
			goto report;
	}
	ok = e2e_wait_cqs(x, ws, n, wr, n, &g0, &g1);
	for (int i = 0; i < NQP; i++)
		last_slot[i] = -1;
	for (int i = 0; i < g0; i++)
		if (ws[i].status != RNIC_WC_SUCCESS) {
			printf("  send completion wr_id %llu: %s\n", (unsigned long long)ws[i].wr_id,
			       rnic_wc_status_str(ws[i].status));
			ok = 0;
		}
	for (int i = 0; i < g1; i++) {
		int slot = (int)wr[i].wr_id, m, qi = -1;

		if (wr[i].status != RNIC_WC_SUCCESS || wr[i].opcode != RNIC_WC_RECV || slot < 0 || slot >= n) {
			printf("  receive completion %d: wr_id %llu %s\n", i, (unsigned long long)wr[i].wr_id,
			       rnic_wc_status_str(wr[i].status));
			ok = 0;
			continue;
		}
		if (taken[slot]++) {
			printf("  receive WQE %d completed twice\n", slot);
			ok = 0;
			continue;
		}
		for (int q = 0; q < NQP; q++)
			if (x->p.side[1].qp[q]->qp_num == wr[i].qp_num)
				qi = q;
		m = dst[slot].p[1];
		if (qi < 0 || m >= n || dst[slot].p[0] != (uint8_t)qi || m % NQP != qi || got_msg[m]++ ||
		    wr[i].byte_len != len[m] || wr[i].src_qp != x->p.side[0].qp[qi]->qp_num) {
			printf("  WQE %d: QP %u (#%d) holds message %d of QP %u, %u bytes: not one this QP was sent, or twice\n",
			       slot, wr[i].qp_num, qi, m, dst[slot].p[0], wr[i].byte_len);
			ok = 0;
			continue;
		}
		if (memcmp(dst[slot].p, src.p + off[m], len[m]) || !e2e_only_written(&dst[slot], 0, len[m])) {
			printf("  WQE %d: message %d's bytes differ or bytes outside it changed\n", slot, m);
			ok = 0;
		}
		/* a QP's messages arrive in its order, so in WQEs of rising
		 * SRQ index: the SRQ hands out WQEs in posting order */
		if (slot <= last_slot[qi]) {
			printf("  QP #%d: message %d in WQE %d after WQE %d\n", qi, m, slot, last_slot[qi]);
			ok = 0;
		}
		last_slot[qi] = slot;
	}
	for (int k = 0; k < n; k++)
		if (!taken[k]) {
			printf("  receive WQE %d never completed\n", k);
			ok = 0;
		}
	/* one more: the next WQE in the SRQ's order, on any QP */
	if (ok) {
		struct rnic_sg_entry rs = e2e_sg(dst[n].p, BUF_BYTES, dst[n].mr->lkey);
		struct rnic_sg_entry ss = e2e_sg(src.p + off[n], (uint32_t)len[n], src.mr->lkey);
		int q = n % NQP;

		ok = !post_srq1(srq, (uint64_t)n, &rs) &&
		     !e2e_post_send1(x->p.side[0].qp[q], (uint64_t)n, RNIC_WR_SEND, &ss, 1, RNIC_SEND_SIGNALED, 0, 0) &&
		     e2e_wait_cqs(x, ws, 1, wr, 1, NULL, NULL);
		if (ok && (wr[0].status != RNIC_WC_SUCCESS || wr[0].wr_id != (uint64_t)n ||
			   wr[0].qp_num != x->p.side[1].qp[q]->qp_num || wr[0].byte_len != len[n] ||
			   memcmp(dst[n].p, src.p + off[n], len[n]))) {
			printf("  the last SEND: wr_id %llu qp %u %u bytes, %s\n", (unsigned long long)wr[0].wr_id,
			       wr[0].qp_num, wr[0].byte_len, rnic_wc_status_str(wr[0].status));
			ok = 0;
		}
	}
report:
	{
		struct rnic_sim_link_stats ls;

		rnic_world_link_stats(x->w, &ls);
		e2e_result(ok, "shared: %d SENDs of 8..%d B from %d QPs into one SRQ of side 1's %d QPs, each WQE once, in SRQ order, then one more; link dropped %llu, duplicated %llu, reordered %llu frames; %d/%d completions",
			   n + 1, MAX_MSG, NQP, NQP, (unsigned long long)ls.dropped,
			   (unsigned long long)ls.duplicated, (unsigned long long)ls.reordered, g0, g1);
	}
out:
	e2e_buf_free(&src);
	for (int m = 0; m < total; m++)
		e2e_buf_free(&dst[m]);
	e2e_case_done(x, ok);
}

/* ---------------------------------------------------------------- limit */

/* One SEND of 64 B on QP 0 into the SRQ; 1 if it completed on both sides. */
static int one_send(struct e2e_world *x, struct e2e_buf *src, uint64_t id)
{
	struct rnic_sg_entry ss = e2e_sg(src->p, 64, src->mr->lkey);
	struct rnic_wc ws, wr;

	if (e2e_post_send1(x->p.side[0].qp[0], id, RNIC_WR_SEND, &ss, 1, RNIC_SEND_SIGNALED, 0, 0))
		return 0;
	if (!e2e_wait_cqs(x, &ws, 1, &wr, 1, NULL, NULL))
		return 0;
	if (ws.status != RNIC_WC_SUCCESS || wr.status != RNIC_WC_SUCCESS) {
		printf("  SEND %llu: %s / %s\n", (unsigned long long)id, rnic_wc_status_str(ws.status),
		       rnic_wc_status_str(wr.status));
		return 0;
	}
	return 1;
}

static void limit_case(struct e2e_world *x)
{
	struct rnic_srq *srq = x->p.side[1].srq;
	struct rnic_srq_attr a;
	struct e2e_buf src, dst;
	int ok = 0, other = 0, ev[6] = {0}, err;
	uint32_t lim_after = 99;

	if (!x->up)
		return;
	memset(&dst, 0, sizeof(dst));
	if (e2e_buf_init(&src, x->p.side[0].pd, 64, RNIC_ACCESS_LOCAL_WRITE, 1) ||
	    e2e_buf_init(&dst, x->p.side[1].pd, 16 * 64, RNIC_ACCESS_LOCAL_WRITE, 0)) {
		e2e_result(0, "limit: buffer setup");
		goto out;
	}
	for (int k = 0; k < 8; k++) {
		struct rnic_sg_entry sg = e2e_sg(dst.p + 64 * k, 64, dst.mr->lkey);

		if (post_srq1(srq, (uint64_t)k, &sg))
			goto report;
	}
	/* arm at 4: 8 posted */
	a.srq_limit = 4;
	if ((err = rnic_modify_srq(srq, &a, RNIC_SRQ_LIMIT)) || (err = rnic_query_srq(srq, &a)) ||
	    a.srq_limit != 4) {
		printf("  arm: %s, limit %u\n", strerror(err), a.srq_limit);
		goto report;
	}
	ok = 1;
	/* 8 -> 5 -> 4 left: not below 4, no event */
	for (int k = 0; k < 4 && ok; k++)
		ok = one_send(x, &src, 100 + (uint64_t)k);
	run_cycles(x, 1200);
	ev[0] = take_events(x, 1, RNIC_EVENT_SRQ_LIMIT_REACHED, srq, &other);
	/* 4 -> 3: below, one event */
	ok = ok && one_send(x, &src, 104);
	run_cycles(x, 1200);
	ev[1] = take_events(x, 1, RNIC_EVENT_SRQ_LIMIT_REACHED, srq, &other);
	if (ok && !rnic_query_srq(srq, &a))
		lim_after = a.srq_limit;
	/* 3 -> 2: disarmed, none */
	ok = ok && one_send(x, &src, 105);
	run_cycles(x, 1200);
	ev[2] = take_events(x, 1, RNIC_EVENT_SRQ_LIMIT_REACHED, srq, &other);
	/* re-armed at 3 with 2 left: the next take (2 -> 1) raises it once */
	a.srq_limit = 3;
	if (ok && (err = rnic_modify_srq(srq, &a, RNIC_SRQ_LIMIT))) {
		printf("  re-arm: %s\n", strerror(err));
		ok = 0;
	}
	run_cycles(x, 1200);
	ev[3] = take_events(x, 1, RNIC_EVENT_SRQ_LIMIT_REACHED, srq, &other);
	ok = ok && one_send(x, &src, 106);
	run_cycles(x, 1200);
	ev[4] = take_events(x, 1, RNIC_EVENT_SRQ_LIMIT_REACHED, srq, &other);
	ok = ok && one_send(x, &src, 107);
	run_cycles(x, 1200);
	ev[5] = take_events(x, 1, RNIC_EVENT_SRQ_LIMIT_REACHED, srq, &other);
	/* a limit not below the SRQ's size is refused */
	a.srq_limit = 128;
	if (ok && rnic_modify_srq(srq, &a, RNIC_SRQ_LIMIT) != EINVAL) {
		printf("  limit 128 on a 128-entry SRQ was not refused with EINVAL\n");
		ok = 0;
	}
	ok = ok && ev[0] == 0 && ev[1] == 1 && lim_after == 0 && ev[2] == 0 && ev[3] == 0 && ev[4] == 1 &&
	     ev[5] == 0 && other == 0;
report:
	e2e_result(ok, "limit: armed at 4 with 8 posted: events after 4 takes %d, the 5th %d (limit then %u), the 6th %d; re-armed at 3: %d, the 7th take %d, the 8th %d; other events %d",
		   ev[0], ev[1], lim_after, ev[2], ev[3], ev[4], ev[5], other);
out:
	e2e_buf_free(&src);
	e2e_buf_free(&dst);
	e2e_case_done(x, ok);
}

/* ---------------------------------------------------------------- rnr */

static void rnr_case(struct e2e_world *x)
{
	struct rnic_srq *srq = x->p.side[1].srq;
	struct e2e_buf src, dst;
	struct rnic_wc ws[2], wr[2];
	uint32_t rnr0, rnr1 = 0;
	int ok = 0, g0 = 0, g1 = 0, early = 0;

	if (!x->up)
		return;
	memset(&dst, 0, sizeof(dst));
	if (e2e_buf_init(&src, x->p.side[0].pd, 2 * 1500, RNIC_ACCESS_LOCAL_WRITE, 1) ||
	    e2e_buf_init(&dst, x->p.side[1].pd, 2 * 2048, RNIC_ACCESS_LOCAL_WRITE, 0)) {
		e2e_result(0, "rnr: buffer setup");
		goto out;
	}
	rnr0 = e2e_counter(x->p.side[1].ctx, RNIC_REG_STAT_TX_RNR_NAK);
	for (int q = 0; q < 2; q++) {
		struct rnic_sg_entry ss = e2e_sg(src.p + 1500 * q, 1500, src.mr->lkey);

		if (e2e_post_send1(x->p.side[0].qp[q + 1], (uint64_t)q, RNIC_WR_SEND, &ss, 1,
				   RNIC_SEND_SIGNALED, 0, 0))
			goto report;
	}
	/* the SRQ is empty: RNR NAKs, nothing completes */
	run_cycles(x, 16000);
	for (int s = 0; s < 2; s++) {
		int r = rnic_poll_cq(x->p.side[s].cq, 2, ws);

		early += r;
	}
	rnr1 = e2e_counter(x->p.side[1].ctx, RNIC_REG_STAT_TX_RNR_NAK);
	for (int k = 0; k < 2; k++) {
		struct rnic_sg_entry sg = e2e_sg(dst.p + 2048 * k, 2048, dst.mr->lkey);

		if (post_srq1(srq, (uint64_t)k, &sg))
			goto report;
	}
	ok = e2e_wait_cqs(x, ws, 2, wr, 2, &g0, &g1) && early == 0 && rnr1 - rnr0 >= 2;
	for (int i = 0; i < g1 && ok; i++) {
		int slot = (int)wr[i].wr_id, q = wr[i].qp_num == x->p.side[1].qp[1]->qp_num ? 0 : 1;

		if (wr[i].status != RNIC_WC_SUCCESS || slot < 0 || slot > 1 || wr[i].byte_len != 1500 ||
		    memcmp(dst.p + 2048 * slot, src.p + 1500 * q, 1500)) {
			printf("  receive %d: %s wr_id %d %u bytes or data differ\n", i,
			       rnic_wc_status_str(wr[i].status), slot, wr[i].byte_len);
			ok = 0;
		}
	}
	for (int i = 0; i < g0 && ok; i++)
		ok = ws[i].status == RNIC_WC_SUCCESS;
report:
	e2e_result(ok, "rnr: SENDs on 2 QPs into an empty SRQ: %u RNR NAKs, %d early completions; 2 WQEs posted: %d/%d completions, data checked",
		   rnr1 - rnr0, early, g0, g1);
out:
	e2e_buf_free(&src);
	e2e_buf_free(&dst);
	e2e_case_done(x, ok);
}

/* ---------------------------------------------------------------- qp error */

static void qp_error_case(struct e2e_world *x)
{
	struct rnic_srq *srq = x->p.side[1].srq;
	struct rnic_qp *dead = x->p.side[1].qp[0];
	struct rnic_qp_attr a;
	struct e2e_buf src, dst;
	struct rnic_wc ws[4], wr[4];
	struct rnic_recv_wr rw;
	struct rnic_sg_entry sg;
	int ok = 0, g0 = 0, g1 = 0, last = 0, other = 0, err, flushed = 0, refused = 0;

	if (!x->up)
		return;
	memset(&dst, 0, sizeof(dst));
	if (e2e_buf_init(&src, x->p.side[0].pd, 4 * 256, RNIC_ACCESS_LOCAL_WRITE, 1) ||
	    e2e_buf_init(&dst, x->p.side[1].pd, 4 * 256, RNIC_ACCESS_LOCAL_WRITE, 0)) {
		e2e_result(0, "qp-error: buffer setup");
		goto out;
	}
	/* a QP on an SRQ has no RQ: post_recv is refused */
	sg = e2e_sg(dst.p, 256, dst.mr->lkey);
	rw = (struct rnic_recv_wr){77, NULL, &sg, 1};
	refused = rnic_post_recv(dead, &rw, NULL) == EINVAL;
	for (int k = 0; k < 4; k++) {
		sg = e2e_sg(dst.p + 256 * k, 256, dst.mr->lkey);
		if (post_srq1(srq, (uint64_t)k, &sg))
			goto report;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_ERR;
	if ((err = rnic_modify_qp(dead, &a, RNIC_QP_STATE))) {
		printf("  modify_qp(ERR): %s\n", strerror(err));
		goto report;
	}
	run_cycles(x, 5000);
	last = take_events(x, 1, RNIC_EVENT_QP_LAST_WQE_REACHED, dead, &other);
	/* no flush: the SRQ's WQEs stay */
	flushed = e2e_drain_quiet(x, 2000);
	/* QP 1 takes all four */
	for (int k = 0; k < 4; k++) {
		struct rnic_sg_entry ss = e2e_sg(src.p + 256 * k, 200, src.mr->lkey);

		if (e2e_post_send1(x->p.side[0].qp[1], (uint64_t)k, RNIC_WR_SEND, &ss, 1, RNIC_SEND_SIGNALED, 0, 0))
			goto report;
	}
	ok = e2e_wait_cqs(x, ws, 4, wr, 4, &g0, &g1);
	for (int i = 0; i < g1 && ok; i++)
		if (wr[i].status != RNIC_WC_SUCCESS || wr[i].wr_id != (uint64_t)i ||
		    wr[i].qp_num != x->p.side[1].qp[1]->qp_num || wr[i].byte_len != 200 ||
		    memcmp(dst.p + 256 * i, src.p + 256 * i, 200)) {
			printf("  receive %d: %s wr_id %llu qp %u\n", i, rnic_wc_status_str(wr[i].status),
			       (unsigned long long)wr[i].wr_id, wr[i].qp_num);
			ok = 0;
		}
	run_cycles(x, 1200);
	last += take_events(x, 1, RNIC_EVENT_QP_LAST_WQE_REACHED, dead, &other);
	ok = ok && refused && last == 1 && other == 0 && flushed == 0;
report:
	e2e_result(ok, "qp-error: post_recv on a QP of an SRQ refused (%d); one QP to ERR: %d last-WQE-reached event(s), %d other, %d flush completions; its peer's 4 WQEs taken by another QP in order: %d/%d",
		   refused, last, other, flushed, g0, g1);
out:
	e2e_buf_free(&src);
	e2e_buf_free(&dst);
	e2e_case_done(x, ok);
}

/* ---------------------------------------------------------------- destroy */

static void destroy_case(struct e2e_world *x)
{
	struct sim_pair_side *sd = &x->p.side[1];
	struct rnic_srq_attr a;
	int busy, gone = -1, q = -1;

	if (!x->up)
		return;
	busy = rnic_destroy_srq(sd->srq);
	if (busy == 0)
		sd->srq = NULL;
	/* the QPs go; the SRQ's use count with them */
	for (int i = 0; i < x->p.nqp; i++)
		if (sd->qp[i] && rnic_destroy_qp(sd->qp[i]) == 0)
			sd->qp[i] = NULL;
	if (sd->srq) {
		q = rnic_query_srq(sd->srq, &a);
		gone = rnic_destroy_srq(sd->srq);
		if (gone == 0)
			sd->srq = NULL;
	}
	e2e_result(busy == EBUSY && q == 0 && gone == 0,
		   "destroy: DESTROY_SRQ with %d QPs on it: %s; after they are destroyed: query %s, destroy %s",
		   x->p.nqp, strerror(busy), strerror(q), strerror(gone));
	e2e_case_done(x, busy == EBUSY && gone == 0);
}

int main(int argc, char **argv)
{
	struct sim_pair_opts o;
	struct e2e_world x;
	int rc = e2e_parse_args(argc, argv, "rnic-e2e-srq",
				"End-to-end tests of shared receive queues on two simulated NICs.\n"
				"--quick: 24 SENDs in the lossy case instead of 64.\n");

	if (rc >= 0)
		return rc;
	e2e_rng_seed(e2e_seed);
	sim_pair_default_opts(&o);
	o.nqp = NQP;
	o.path_mtu = RNIC_IB_MTU_1024;
	o.max_recv_sge = 1;
	o.srq_wr = 128;
	o.rnr_retry = 7;
	o.min_rnr_timer = 1;  /* 10 us */
	o.timeout = 4;        /* 65 us ACK timeout: a lost tail packet is sent again soon */
	o.retry_cnt = 7;

	/* one world, its link lossy throughout */
	e2e_world_init(&x, "srq", &o);
	x.p_drop = 0.02;
	x.p_reorder = 0.02;
	x.p_dup = 0.02;
	if (e2e_world_up(&x)) {
		shared_case(&x, e2e_quick ? 24 : NQP * 8);
		if (e2e_world_ready(&x))
			limit_case(&x);
		if (e2e_world_ready(&x))
			rnr_case(&x);
		if (e2e_world_ready(&x))
			qp_error_case(&x);
		if (e2e_world_ready(&x))
			destroy_case(&x);
		e2e_world_down(&x);
	}
	return e2e_summary();
}
