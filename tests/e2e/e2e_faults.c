/* End-to-end reliability tests: RDMA WRITE, SEND, SEND with immediate and
 * RDMA WRITE with immediate between two simulated NICs over a link that
 * drops, reorders, duplicates and corrupts frames (seeded), and the retry
 * limits: ACK timeout exhaustion, RNR retry that succeeds, RNR exhaustion,
 * PSN wrap-around under faults; fairness between QPs (a long message
 * does not hold up a short one on another QP); messages sent one at a time
 * over a lossy link (the send window must not leave one waiting mid-message);
 * traffic on one QP pair while the firmware rewrites another's contexts again
 * and again; a responder QP reset in the middle of a long READ response;
 * and a responder whose host write fails (NAK Remote Operational Error).
 *
 *   rnic-e2e-faults --width 64|512 [--seed N] [--pcap-dir DIR] [--quick] [--only NAME]
 *
 * What every mixed run checks: each send WQE completes exactly once, in
 * order, successfully; each receive WQE completes exactly once, in order,
 * with the right opcode, length and immediate; the receiving side's memory
 * equals the expected image byte for byte (guard bytes everywhere else);
 * retransmission actually happened; no DMA fault or AXI protocol error.
 * The closing line is "N passed, N failed". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"
#include "e2e_common.h"

#define SLOT_GAP 256              /* guard bytes between two buffers */
#define MAX_OPS 128
#define NQP 2
#define MAX_CYCLES 60000000ull    /* ceiling of one mixed run */
#define QUIET_CYCLES 200000ull    /* after the last completion: nothing more may come */

static struct rnic_world *make_world(const char *name, double p_drop, double p_reorder, double p_dup,
				     double p_corrupt)
{
	struct rnic_sim_cfg cfg;
	char path[512];
	struct rnic_world *w;

	rnic_sim_cfg_default(&cfg);
	cfg.data_width = (unsigned int)e2e_width;
	cfg.seed = e2e_seed;
	cfg.p_drop = p_drop;
	cfg.p_reorder = p_reorder;
	cfg.p_dup = p_dup;
	cfg.p_corrupt = p_corrupt;
	if (e2e_pcap_dir) {
		snprintf(path, sizeof(path), "%s/w%d_%s.pcap", e2e_pcap_dir, e2e_width, name);
		cfg.pcap_path = path;
	}
	w = rnic_world_create(&cfg);
	if (!w)
		fprintf(stderr, "e2e-faults: world %s: %s\n", name, strerror(errno));
	return w;
}

/* The end of a test with one world, one pair and a source and sink buffer
 * with their MRs (any of them NULL when setup stopped early). */
static void pair_teardown(struct sim_pair *p, struct rnic_world *w, struct rnic_mr *smr,
			  struct rnic_mr *dmr, void *src, void *dst)
{
	if (smr)
		rnic_dereg_mr(smr);
	if (dmr)
		rnic_dereg_mr(dmr);
	sim_pair_close(p);
	rnic_world_destroy(w);
	free(src);
	free(dst);
}

static int memory_clean(struct sim_pair *p)
{
	int ok = 1;

	for (int s = 0; s < 2; s++) {
		struct e2e_nic_health h;

		e2e_nic_health(rnic_world_nic(p->world, s), &h);
		if (h.faults || h.protocol_errors) {
			printf("  NIC %d: %llu DMA faults, %llu AXI protocol errors\n", s,
			       (unsigned long long)h.faults, (unsigned long long)h.protocol_errors);
			ok = 0;
		}
	}
	return ok;
}

/* ------------------------------------------------------------ mixed run */

struct op {
	int qp;
	uint32_t opcode; /* RNIC_WR_* */
	uint32_t len;
	size_t src_off;  /* in side 0's arena */
	size_t dst_off;  /* in side 1's arena: WRITE target or receive buffer */
	int recv;        /* consumes a receive WQE */
	uint32_t imm;
};

struct mix {
	const char *name;
	uint32_t mtu;      /* RNIC_IB_MTU_* */
	uint32_t psn0, psn1;
	double p_drop, p_reorder, p_dup, p_corrupt;
	const uint32_t *sizes;
	int nsizes;
	uint32_t big;      /* 0 or one more WRITE and SEND of this size on QP 0 */
};

static const uint32_t all_ops[] = {RNIC_WR_RDMA_WRITE, RNIC_WR_SEND, RNIC_WR_SEND_WITH_IMM,
				   RNIC_WR_RDMA_WRITE_WITH_IMM};

static void run_mix(const struct mix *m)
{
	static struct op ops[MAX_OPS];
	uint32_t mtu_bytes = 128u << m->mtu;
	struct sim_pair_opts o;
	struct sim_pair p;
	struct rnic_world *w;
	struct rnic_mr *smr = NULL, *dmr = NULL;
	uint8_t *src = NULL, *dst = NULL, *want = NULL;
	size_t src_len = SLOT_GAP, dst_len = SLOT_GAP;
	int nops = 0, nsend[NQP] = {0}, nrecv[NQP] = {0};
	int sent_done[NQP] = {0}, recv_done[NQP] = {0}, send_total = 0, recv_total = 0;
	int ok = 1, extra = 0;
	uint64_t start, cycles;
	struct rnic_sim_link_stats ls;
	uint32_t retries, timeouts;

	/* the work: every operation at every size on every QP, then the big ones */
	for (int q = 0; q < NQP; q++) {
		for (int si = 0; si < m->nsizes; si++) {
			for (size_t k = 0; k < sizeof(all_ops) / sizeof(all_ops[0]); k++) {
				struct op *op = &ops[nops++];

				op->qp = q;
				op->opcode = all_ops[k];
				op->len = m->sizes[si] == 0xffffffffu ? mtu_bytes - 1 :
					  m->sizes[si] == 0xfffffffeu ? mtu_bytes :
					  m->sizes[si] == 0xfffffffdu ? mtu_bytes + 1 : m->sizes[si];
			}
		}
	}
	if (m->big) {
		ops[nops++] = (struct op){.qp = 0, .opcode = RNIC_WR_RDMA_WRITE, .len = m->big};
		ops[nops++] = (struct op){.qp = 0, .opcode = RNIC_WR_SEND, .len = m->big};
	}
	for (int i = 0; i < nops; i++) {
		struct op *op = &ops[i];

		op->recv = op->opcode != RNIC_WR_RDMA_WRITE;
		op->imm = 0x10000000u + (uint32_t)i;
		op->src_off = src_len;
		op->dst_off = dst_len;
		src_len += op->len + SLOT_GAP;
		dst_len += op->len + SLOT_GAP;
		nsend[op->qp]++;
		if (op->recv)
			nrecv[op->qp]++;
		send_total++;
		recv_total += op->recv;
	}

	w = make_world(m->name, m->p_drop, m->p_reorder, m->p_dup, m->p_corrupt);
	if (!w) {
		e2e_result(0, "%s: world", m->name);
		return;
	}
	sim_pair_default_opts(&o);
	o.nqp = NQP;
	o.path_mtu = m->mtu;
	o.psn[0] = m->psn0;
	o.psn[1] = m->psn1;
	o.max_send_wr = 64;
	o.max_recv_wr = 64;
	o.max_recv_sge = 1;
	o.timeout = 5;     /* 131 us: a lost last packet costs that much */
	o.retry_cnt = 7;
	o.rnr_retry = 7;
	o.min_rnr_timer = 1;
	if (sim_pair_open(&p, w, &o)) {
		e2e_result(0, "%s: connect", m->name);
		rnic_world_destroy(w);
		return;
	}
	src = aligned_alloc(4096, (src_len + 4095) & ~(size_t)4095);
	dst = aligned_alloc(4096, (dst_len + 4095) & ~(size_t)4095);
	want = malloc(dst_len);
	if (!src || !dst || !want)
		goto out_fail;
	e2e_rng_seed(e2e_seed * 0x51ed2701u + m->mtu);
	for (size_t i = 0; i < src_len; i++)
		src[i] = (uint8_t)e2e_rng();
	memset(dst, E2E_GUARD_BYTE, dst_len);
	memset(want, E2E_GUARD_BYTE, dst_len);
	smr = rnic_reg_mr(p.side[0].pd, src, src_len, RNIC_ACCESS_LOCAL_WRITE);
	dmr = rnic_reg_mr(p.side[1].pd, dst, dst_len,
			  RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
	if (!smr || !dmr)
		goto out_fail;

	/* receives first (no RNR in a mixed run), then every send */
	for (int i = 0; i < nops; i++) {
		struct op *op = &ops[i];
		struct rnic_sg_entry sg = {.addr = (uintptr_t)(dst + op->dst_off), .length = op->len,
					   .lkey = dmr->lkey};
		struct rnic_recv_wr rw = {.wr_id = (uint64_t)i, .sg_list = &sg,
					  .num_sge = op->opcode == RNIC_WR_RDMA_WRITE_WITH_IMM ? 0 : 1};
		struct rnic_recv_wr *bad;

		if (op->recv && rnic_post_recv(p.side[1].qp[op->qp], &rw, &bad))
			goto out_fail;
		memcpy(want + op->dst_off, src + op->src_off, op->len);
	}
	start = rnic_world_cycle(w);
	for (int i = 0; i < nops; i++) {
		struct op *op = &ops[i];
		struct rnic_sg_entry sg = {.addr = (uintptr_t)(src + op->src_off), .length = op->len,
					   .lkey = smr->lkey};
		struct rnic_send_wr sw;
		struct rnic_send_wr *bad;

		memset(&sw, 0, sizeof(sw));
		sw.wr_id = (uint64_t)i;
		sw.sg_list = &sg;
		sw.num_sge = 1;
		sw.opcode = op->opcode;
		sw.send_flags = RNIC_SEND_SIGNALED;
		sw.imm_data = __builtin_bswap32(op->imm);
		sw.wr.rdma.remote_addr = (uintptr_t)(dst + op->dst_off);
		sw.wr.rdma.rkey = dmr->rkey;
		if (rnic_post_send(p.side[0].qp[op->qp], &sw, &bad))
			goto out_fail;
	}

	/* completions: each exactly once, in order per QP */
	{
		int next_send[NQP] = {0}, next_recv[NQP] = {0};
		int done_send = 0, done_recv = 0;

		while ((done_send < send_total || done_recv < recv_total) &&
		       rnic_world_cycle(w) - start < MAX_CYCLES) {
			struct rnic_wc wc[16];
			int n0 = rnic_poll_cq(p.side[0].cq, 16, wc);

			for (int k = 0; k < n0; k++) {
				int i = (int)wc[k].wr_id, q;

				if (i < 0 || i >= nops) {
					printf("  send completion with unknown wr_id %llu\n",
					       (unsigned long long)wc[k].wr_id);
					ok = 0;
					continue;
				}
				q = ops[i].qp;
				while (next_send[q] < nops && ops[next_send[q]].qp != q)
					next_send[q]++;
				if (i != next_send[q] || wc[k].status != RNIC_WC_SUCCESS ||
				    wc[k].qp_num != p.side[0].qp[q]->qp_num ||
				    wc[k].opcode != ((ops[i].opcode == RNIC_WR_SEND ||
						      ops[i].opcode == RNIC_WR_SEND_WITH_IMM)
							     ? RNIC_WC_SEND
							     : RNIC_WC_RDMA_WRITE)) {
					printf("  send completion wr %d (want %d) status %s opcode %u\n", i,
					       next_send[q], rnic_wc_status_str(wc[k].status), wc[k].opcode);
					ok = 0;
				}
				next_send[q] = i + 1;
				sent_done[q]++;
				done_send++;
			}
			int n1 = rnic_poll_cq(p.side[1].cq, 16, wc);

			for (int k = 0; k < n1; k++) {
				int i = (int)wc[k].wr_id, q;
				int imm;

				if (i < 0 || i >= nops || !ops[i].recv) {
					printf("  receive completion with unknown wr_id %llu\n",
					       (unsigned long long)wc[k].wr_id);
					ok = 0;
					continue;
				}
				q = ops[i].qp;
				while (next_recv[q] < nops && (ops[next_recv[q]].qp != q || !ops[next_recv[q]].recv))
					next_recv[q]++;
				imm = ops[i].opcode != RNIC_WR_SEND;
				if (i != next_recv[q] || wc[k].status != RNIC_WC_SUCCESS ||
				    wc[k].byte_len != ops[i].len ||
				    wc[k].opcode != (ops[i].opcode == RNIC_WR_RDMA_WRITE_WITH_IMM
							     ? RNIC_WC_RECV_RDMA_WITH_IMM
							     : RNIC_WC_RECV) ||
				    !!(wc[k].wc_flags & RNIC_WC_WITH_IMM) != imm ||
				    (imm && wc[k].imm_data != __builtin_bswap32(ops[i].imm)) ||
				    wc[k].src_qp != p.side[0].qp[q]->qp_num) {
					printf("  receive completion wr %d (want %d) status %s opcode %u len %u "
					       "(want %u) flags %u\n",
					       i, next_recv[q], rnic_wc_status_str(wc[k].status), wc[k].opcode,
					       wc[k].byte_len, ops[i].len, wc[k].wc_flags);
					ok = 0;
				}
				next_recv[q] = i + 1;
				recv_done[q]++;
				done_recv++;
			}
			if (n0 <= 0 && n1 <= 0)
				rnic_world_step(w, 32);
		}
		cycles = rnic_world_cycle(w) - start;
		/* nothing may complete twice: let retransmissions and duplicates settle */
		rnic_world_step(w, QUIET_CYCLES);
		for (;;) {
			struct rnic_wc wc[16];
			int n = rnic_poll_cq(p.side[0].cq, 16, wc);
			int n1 = rnic_poll_cq(p.side[1].cq, 16, wc);

			if (n <= 0 && n1 <= 0)
				break;
			extra += (n > 0 ? n : 0) + (n1 > 0 ? n1 : 0);
		}
	}
	for (int q = 0; q < NQP; q++)
		if (sent_done[q] != nsend[q] || recv_done[q] != nrecv[q])
			ok = 0;
	e2e_result(ok && extra == 0, "%s: %d send and %d receive completions on %d QPs, each once and in order "
	           "(%d+%d arrived, %d extra), %llu cycles",
	           m->name, send_total, recv_total, NQP, sent_done[0] + sent_done[1],
	           recv_done[0] + recv_done[1], extra, (unsigned long long)cycles);
	e2e_result(memcmp(dst, want, dst_len) == 0, "%s: receiver memory byte-exact (%zu bytes, guards intact)",
	           m->name, dst_len);
	rnic_world_link_stats(w, &ls);
	retries = e2e_counter_or(p.side[0].ctx, RNIC_REG_STAT_RETRY, 0xffffffffu);
	timeouts = e2e_counter_or(p.side[0].ctx, RNIC_REG_STAT_ACK_TIMEOUT, 0xffffffffu);
	if (m->p_drop > 0)
		e2e_result(ls.dropped + ls.corrupted + ls.reordered > 0 && retries > 0,
		           "%s: link dropped %llu, reordered %llu, duplicated %llu, corrupted %llu; "
		           "sender restarts %u, ACK timeouts %u, PSN NAKs received %u",
		           m->name, (unsigned long long)ls.dropped, (unsigned long long)ls.reordered,
		           (unsigned long long)ls.duplicated, (unsigned long long)ls.corrupted, retries, timeouts,
		           e2e_counter_or(p.side[0].ctx, RNIC_REG_STAT_RX_NAK, 0xffffffffu));
	e2e_result(memory_clean(&p), "%s: no DMA fault or AXI protocol error", m->name);
	goto out;
out_fail:
	e2e_result(0, "%s: setup or posting failed", m->name);
out:
	pair_teardown(&p, w, smr, dmr, src, dst);
	free(want);
}

/* ------------------------------------------------------------ limits */

struct small {
	struct rnic_world *w;
	struct sim_pair p;
	uint8_t *buf[2];
	struct rnic_mr *mr[2];
};

static int small_open(struct small *s, const char *name, double p_drop, uint8_t timeout, uint8_t retry_cnt,
		      uint8_t rnr_retry, uint8_t rnr_timer)
{
	struct sim_pair_opts o;

	memset(s, 0, sizeof(*s));
	s->w = make_world(name, p_drop, 0, 0, 0);
	if (!s->w)
		return -1;
	sim_pair_default_opts(&o);
	o.path_mtu = RNIC_IB_MTU_1024;
	o.max_recv_wr = 16;
	o.max_recv_sge = 1;
	o.timeout = timeout;
	o.retry_cnt = retry_cnt;
	o.rnr_retry = rnr_retry;
	o.min_rnr_timer = rnr_timer;
	if (sim_pair_open(&s->p, s->w, &o))
		return -1;
	for (int i = 0; i < 2; i++) {
		s->buf[i] = aligned_alloc(4096, 65536);
		if (!s->buf[i])
			return -1;
		memset(s->buf[i], i ? E2E_GUARD_BYTE : 0x3c, 65536);
		s->mr[i] = rnic_reg_mr(s->p.side[i].pd, s->buf[i], 65536,
				       RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
		if (!s->mr[i])
			return -1;
	}
	return 0;
}

static void small_close(struct small *s)
{
	for (int i = 0; i < 2; i++) {
		if (s->mr[i])
			rnic_dereg_mr(s->mr[i]);
	}
	if (s->w) {
		sim_pair_close(&s->p);
		rnic_world_destroy(s->w);
	}
	for (int i = 0; i < 2; i++)
		free(s->buf[i]);
}

static int small_send(struct small *s, uint32_t opcode, uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct rnic_sg_entry sg = {.addr = (uintptr_t)(s->buf[0] + off), .length = len, .lkey = s->mr[0]->lkey};
	struct rnic_send_wr sw, *bad;

	memset(&sw, 0, sizeof(sw));
	sw.wr_id = wr_id;
	sw.sg_list = &sg;
	sw.num_sge = 1;
	sw.opcode = opcode;
	sw.send_flags = RNIC_SEND_SIGNALED;
	sw.wr.rdma.remote_addr = (uintptr_t)(s->buf[1] + off);
	sw.wr.rdma.rkey = s->mr[1]->rkey;
	return rnic_post_send(s->p.side[0].qp[0], &sw, &bad);
}

static int small_recv(struct small *s, uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct rnic_sg_entry sg = {.addr = (uintptr_t)(s->buf[1] + off), .length = len, .lkey = s->mr[1]->lkey};
	struct rnic_recv_wr rw = {.wr_id = wr_id, .sg_list = &sg, .num_sge = 1}, *bad;

	return rnic_post_recv(s->p.side[1].qp[0], &rw, &bad);
}

/* small_close for a test with two MRs of its own over src and dst (each may
 * be NULL): the world's hooks off, the MRs deregistered, the pair closed,
 * the buffers freed */
static void small_close_big(struct small *s, struct rnic_mr *smr, struct rnic_mr *dmr, void *src, void *dst)
{
	if (s->w) {
		rnic_world_set_frame_hook(s->w, NULL, NULL);
		rnic_world_set_drop_filter(s->w, NULL, NULL);
	}
	if (smr)
		rnic_dereg_mr(smr);
	if (dmr)
		rnic_dereg_mr(dmr);
	small_close(s);
	free(src);
	free(dst);
}

/* The data path moved side `side`'s QP 0 to ERR: the firmware saw it
 * (QUERY_QP says ERR), that side's host gets exactly one event `want` for
 * the QP and, with `peer_quiet`, the other side none. */
static void check_qp_event(struct small *s, int side, enum rnic_event_type want, int peer_quiet, const char *what)
{
	struct rnic_async_event ev;
	struct rnic_qp_attr qa;
	struct rnic_qp_init_attr qi;
	struct rnic_qp *qp = s->p.side[side].qp[0];
	int got = EAGAIN, more, other = EAGAIN, q;

	/* data path -> firmware -> ring: a few firmware loop turns */
	for (int i = 0; i < 100 && got == EAGAIN; i++) {
		got = rnic_get_async_event(s->p.side[side].ctx, &ev);
		if (got == EAGAIN)
			rnic_world_step(s->w, 1000);
	}
	more = rnic_get_async_event(s->p.side[side].ctx, &(struct rnic_async_event){0});
	if (peer_quiet)
		other = rnic_get_async_event(s->p.side[!side].ctx, &(struct rnic_async_event){0});
	q = rnic_query_qp(qp, &qa, 0, &qi);
	e2e_result(got == 0 && ev.event_type == want && ev.element.qp == qp &&
		   more == EAGAIN && other == EAGAIN && q == 0 && qa.qp_state == RNIC_QPS_ERR &&
		   qp->state == RNIC_QPS_ERR,
		   "%s: side %d's asynchronous event %s (%s, want %s) for QP %u, then %s; the peer %s; "
		   "QUERY_QP state %u (want ERR %u)",
		   what, side, got ? strerror(got) : "taken", got ? "-" : rnic_event_type_str(ev.event_type),
		   rnic_event_type_str(want), got ? 0 : ev.element.qp->qp_num, more == EAGAIN ? "none" : "more",
		   !peer_quiet ? "not checked" : other == EAGAIN ? "none" : "got one", q ? 99u : qa.qp_state,
		   RNIC_QPS_ERR);
}

/* A CQ of 2 entries and 5 signaled WRITEs nobody polls: the CQ overruns;
 * the host gets one CQ_ERR for it and STAT_CQ_OVERRUN counts the dropped
 * CQEs. */
static void test_cq_overrun(void)
{
	struct sim_pair_opts o;
	struct sim_pair p;
	struct rnic_world *w;
	struct rnic_async_event ev;
	uint8_t *buf = aligned_alloc(4096, 8192);
	struct rnic_mr *mr[2] = {0};
	int got = EAGAIN, posted = 0, more;
	uint32_t ovr;

	w = buf ? make_world("cq_overrun", 0, 0, 0, 0) : NULL;
	sim_pair_default_opts(&o);
	o.cqe = 2;
	o.max_send_wr = 8;
	if (!w || sim_pair_open(&p, w, &o)) {
		e2e_result(0, "CQ overrun: setup");
		if (w)
			rnic_world_destroy(w);
		free(buf);
		return;
	}
	mr[0] = rnic_reg_mr(p.side[0].pd, buf, 4096, RNIC_ACCESS_LOCAL_WRITE);
	mr[1] = rnic_reg_mr(p.side[1].pd, buf + 4096, 4096,
			    RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
	for (int i = 0; mr[0] && mr[1] && i < 5; i++) {
		struct rnic_sg_entry sg = {.addr = (uintptr_t)buf, .length = 64, .lkey = mr[0]->lkey};
		struct rnic_send_wr sw = {0}, *bad;

		sw.wr_id = (uint64_t)i;
		sw.sg_list = &sg;
		sw.num_sge = 1;
		sw.opcode = RNIC_WR_RDMA_WRITE;
		sw.send_flags = RNIC_SEND_SIGNALED;
		sw.wr.rdma.remote_addr = (uintptr_t)(buf + 4096);
		sw.wr.rdma.rkey = mr[1]->rkey;
		posted += rnic_post_send(p.side[0].qp[0], &sw, &bad) == 0;
	}
	for (int i = 0; i < 200 && got == EAGAIN; i++) {
		rnic_world_step(w, 1000);
		got = rnic_get_async_event(p.side[0].ctx, &ev);
	}
	more = rnic_get_async_event(p.side[0].ctx, &(struct rnic_async_event){0});
	ovr = e2e_counter_or(p.side[0].ctx, RNIC_REG_STAT_CQ_OVERRUN, 0xffffffffu);
	e2e_result(posted == 5 && got == 0 && ev.event_type == RNIC_EVENT_CQ_ERR &&
		   ev.element.cq == p.side[0].cq && more == EAGAIN && ovr == 3,
		   "CQ overrun (2 entries, 5 completions): event %s (%s), then %s; CQEs dropped %u (want 3)",
		   got ? strerror(got) : "taken", got ? "-" : rnic_event_type_str(ev.event_type),
		   more == EAGAIN ? "none" : "more", ovr);
	for (int i = 0; i < 2; i++)
		if (mr[i])
			rnic_dereg_mr(mr[i]);
	sim_pair_close(&p);
	e2e_check_nics(w, "cq_overrun", 1);
	rnic_world_destroy(w);
	free(buf);
}

/* Every frame lost: the ACK timer runs out retry_cnt + 1 times, then the
 * oldest WQE fails with RETRY_EXC_ERR and the next one is flushed. */
static void test_retry_exhausted(void)
{
	struct small s;
	struct rnic_wc wc[4];
	int n, ok;
	uint32_t to, rt, tx;

	if (small_open(&s, "retry_exhausted", 1.0, 1, 2, 0, 1) || small_send(&s, RNIC_WR_RDMA_WRITE, 1, 0, 100) ||
	    small_send(&s, RNIC_WR_RDMA_WRITE, 2, 4096, 100)) {
		e2e_result(0, "retry exhausted: setup");
		small_close(&s);
		return;
	}
	n = sim_pair_wait(s.p.side[0].cq, wc, 2, 2000000);
	to = e2e_counter_or(s.p.side[0].ctx, RNIC_REG_STAT_ACK_TIMEOUT, 0xffffffffu);
	rt = e2e_counter_or(s.p.side[0].ctx, RNIC_REG_STAT_RETRY, 0xffffffffu);
	tx = e2e_counter_or(s.p.side[0].ctx, RNIC_REG_STAT_TX_FRAMES, 0xffffffffu);
	ok = n == 2 && wc[0].wr_id == 1 && wc[0].status == RNIC_WC_RETRY_EXC_ERR && wc[1].wr_id == 2 &&
	     wc[1].status == RNIC_WC_WR_FLUSH_ERR;
	e2e_result(ok && to == 3 && rt == 2 && tx == 6,
	           "retry exhausted (all frames lost, retry_cnt 2): %s then %s; ACK timeouts %u (want 3), "
	           "restarts %u (want 2), frames sent %u (want 6: 2 WQEs x 3 tries)",
	           n > 0 ? rnic_wc_status_str(wc[0].status) : "none",
	           n > 1 ? rnic_wc_status_str(wc[1].status) : "none", to, rt, tx);
	e2e_result(s.buf[1][0] == E2E_GUARD_BYTE, "retry exhausted: receiver memory untouched");
	check_qp_event(&s, 0, RNIC_EVENT_QP_FATAL, 1, "retry exhausted");
	small_close(&s);
}

/* A SEND finds no receive WQE; the RNR NAKs make the requester wait and
 * retry; the receive is posted meanwhile and the SEND then succeeds. */
static void test_rnr_retry_succeeds(void)
{
	struct small s;
	struct rnic_wc wc[2];
	uint32_t rnr_tx = 0;
	int n, m, ok;

	if (small_open(&s, "rnr_retry", 0, 14, 7, 7, 1) || small_send(&s, RNIC_WR_SEND, 7, 0, 3000)) {
		e2e_result(0, "RNR retry: setup");
		small_close(&s);
		return;
	}
	for (int i = 0; i < 400 && rnr_tx < 2; i++) {
		rnic_world_step(s.w, 500);
		rnr_tx = e2e_counter_or(s.p.side[1].ctx, RNIC_REG_STAT_TX_RNR_NAK, 0xffffffffu);
	}
	ok = rnr_tx >= 2 && small_recv(&s, 9, 128, 4096) == 0;
	n = sim_pair_wait(s.p.side[0].cq, wc, 1, 2000000);
	ok = ok && n == 1 && wc[0].wr_id == 7 && wc[0].status == RNIC_WC_SUCCESS;
	m = sim_pair_wait(s.p.side[1].cq, wc + 1, 1, 2000000);
	ok = ok && m == 1 && wc[1].wr_id == 9 && wc[1].status == RNIC_WC_SUCCESS && wc[1].byte_len == 3000 &&
	     memcmp(s.buf[1] + 128, s.buf[0], 3000) == 0 && s.buf[1][128 + 3000] == E2E_GUARD_BYTE;
	e2e_result(ok && e2e_counter_or(s.p.side[0].ctx, RNIC_REG_STAT_RX_RNR_NAK, 0xffffffffu) == rnr_tx &&
		       e2e_counter_or(s.p.side[0].ctx, RNIC_REG_STAT_RETRY, 0xffffffffu) == rnr_tx,
	           "RNR retry: %u RNR NAKs, receive posted, then the SEND succeeds (data exact); sender counted "
	           "%u RNR NAKs and %u restarts",
	           rnr_tx, e2e_counter_or(s.p.side[0].ctx, RNIC_REG_STAT_RX_RNR_NAK, 0xffffffffu),
	           e2e_counter_or(s.p.side[0].ctx, RNIC_REG_STAT_RETRY, 0xffffffffu));
	small_close(&s);
}

/* rnr_retry 2: the first RNR NAK and two retries, then RNR_RETRY_EXC_ERR. */
static void test_rnr_exhausted(void)
{
	struct small s;
	struct rnic_wc wc[2];
	int n;
	uint32_t tx, rx;

	if (small_open(&s, "rnr_exhausted", 0, 14, 7, 2, 1) || small_send(&s, RNIC_WR_SEND, 5, 0, 64)) {
		e2e_result(0, "RNR exhausted: setup");
		small_close(&s);
		return;
	}
	n = sim_pair_wait(s.p.side[0].cq, wc, 1, 2000000);
	tx = e2e_counter_or(s.p.side[1].ctx, RNIC_REG_STAT_TX_RNR_NAK, 0xffffffffu);
	rx = e2e_counter_or(s.p.side[0].ctx, RNIC_REG_STAT_RX_RNR_NAK, 0xffffffffu);
	e2e_result(n == 1 && wc[0].wr_id == 5 && wc[0].status == RNIC_WC_RNR_RETRY_EXC_ERR && tx == 3 && rx == 3,
	           "RNR exhausted (rnr_retry 2): %s; RNR NAKs sent %u, received %u (want 3)",
	           n ? rnic_wc_status_str(wc[0].status) : "no completion", tx, rx);
	small_close(&s);
}

/* The responder's host write fails: side 1's target MR stays registered but
 * its pages leave the IOMMU, so the payload write is answered SLVERR. The
 * responder answers NAK Remote Operational Error: the WRITE (32 KiB, 32
 * packets) completes REM_OP_ERR at the requester and the WRITE behind it
 * is flushed; the responder's QP stops writing once a write failed (its
 * packets already on the way are dropped), nothing else is written. */
static void test_host_write_fault(void)
{
	struct small s;
	struct rnic_wc wc[2];
	struct rnic_sim_fault f[16];
	struct rnic_mr *mr = NULL;
	uint8_t *dst = aligned_alloc(4096, 65536);
	uint64_t nf = 0, nf0 = 0;
	int n = 0, ok, all_in = 1, unmapped = -1;

	if (!dst || small_open(&s, "host_write_fault", 0, 14, 7, 0, 1)) {
		e2e_result(0, "host write fault: setup");
		small_close(&s);
		free(dst);
		return;
	}
	memset(dst, E2E_GUARD_BYTE, 65536);
	mr = rnic_reg_mr(s.p.side[1].pd, dst, 65536, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
	if (mr)
		unmapped = rnic_sim_dma_unmap(rnic_world_nic(s.w, 1), dst, 65536);
	ok = mr && unmapped == 0;
	if (ok) {
		struct rnic_sg_entry sg = {.addr = (uintptr_t)s.buf[0], .length = 32768, .lkey = s.mr[0]->lkey};
		struct rnic_send_wr sw = {0}, *bad;

		sw.wr_id = 1;
		sw.sg_list = &sg;
		sw.num_sge = 1;
		sw.opcode = RNIC_WR_RDMA_WRITE;
		sw.send_flags = RNIC_SEND_SIGNALED;
		sw.wr.rdma.remote_addr = (uintptr_t)(dst + 4000);
		sw.wr.rdma.rkey = mr->rkey;
		ok = rnic_post_send(s.p.side[0].qp[0], &sw, &bad) == 0 &&
		     small_send(&s, RNIC_WR_RDMA_WRITE, 2, 0, 64) == 0;
	}
	if (ok)
		n = sim_pair_wait(s.p.side[0].cq, wc, 2, 2000000);
	nf0 = rnic_sim_nic_faults(rnic_world_nic(s.w, 0), NULL, 0);
	nf = rnic_sim_nic_faults(rnic_world_nic(s.w, 1), f, 16);
	for (uint64_t i = 0; i < nf && i < 16; i++)
		all_in &= f[i].write;
	e2e_result(ok && n == 2 && wc[0].wr_id == 1 && wc[0].status == RNIC_WC_REM_OP_ERR && wc[1].wr_id == 2 &&
		   wc[1].status == RNIC_WC_WR_FLUSH_ERR && nf >= 1 && nf < 16 && all_in && nf0 == 0,
		   "host write fault (target pages unmapped): %s then %s (want REM_OP_ERR, WR_FLUSH_ERR); "
		   "responder DMA faults %llu (%s; fewer than 16: the QP stops writing once one failed, "
		   "the WRITE is 32 packets), requester %llu",
		   n > 0 ? rnic_wc_status_str(wc[0].status) : "none", n > 1 ? rnic_wc_status_str(wc[1].status) : "none",
		   (unsigned long long)nf, all_in ? "all writes" : "some reads",
		   (unsigned long long)nf0);
	/* (the second WRITE may have been executed before the first one's
	 * write was answered: its completion is flushed all the same) */
	e2e_result(e2e_untouched(&(struct e2e_buf){.p = s.buf[1], .len = 65536}, 64, 65536),
		   "host write fault: nothing written beyond the second WRITE's 64 bytes");
	{
		struct rnic_qp_attr qa;
		struct rnic_qp_init_attr qi;
		int q = rnic_query_qp(s.p.side[0].qp[0], &qa, 0, &qi);

		e2e_result(q == 0 && qa.qp_state == RNIC_QPS_ERR, "host write fault: requester QP in ERR (QUERY_QP %d, state %u)",
			   q, q ? 99u : qa.qp_state);
	}
	/* the responder's QP: in error, its host told (no CQE there); the
	 * requester's own error came with its completion */
	check_qp_event(&s, 1, RNIC_EVENT_QP_FATAL, 0, "host write fault: the responder");
	if (mr)
		rnic_dereg_mr(mr);   /* (its pages are unmapped already) */
	small_close(&s);
	free(dst);
}

/* Fairness: a 1 MiB WRITE on QP 0 does not hold up a 4 KiB WRITE posted on
 * QP 1 just after it; the scheduler's turns interleave them. */
static void test_fairness(void)
{
	struct sim_pair_opts o;
	struct sim_pair p;
	struct rnic_world *w = make_world("fairness", 0, 0, 0, 0);
	const uint32_t big = 1u << 20, small = 4096;
	uint8_t *src = NULL, *dst = NULL;
	struct rnic_mr *smr = NULL, *dmr = NULL;
	uint64_t t0 = 0, done[2] = {0, 0};
	int got = 0, ok = 1;

	if (!w) {
		e2e_result(0, "fairness: world");
		return;
	}
	sim_pair_default_opts(&o);
	o.nqp = 2;
	o.path_mtu = RNIC_IB_MTU_4096;
	src = aligned_alloc(4096, big + small);
	dst = aligned_alloc(4096, big + small);
	if (sim_pair_open(&p, w, &o) || !src || !dst)
		goto fail;
	memset(src, 0x5a, big + small);
	memset(dst, 0, big + small);
	smr = rnic_reg_mr(p.side[0].pd, src, big + small, RNIC_ACCESS_LOCAL_WRITE);
	dmr = rnic_reg_mr(p.side[1].pd, dst, big + small, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
	if (!smr || !dmr)
		goto fail;
	for (int q = 0; q < 2; q++) {
		uint32_t off = q ? big : 0, len = q ? small : big;
		struct rnic_sg_entry sg = {.addr = (uintptr_t)(src + off), .length = len, .lkey = smr->lkey};
		struct rnic_send_wr sw, *bad;

		memset(&sw, 0, sizeof(sw));
		sw.wr_id = (uint64_t)q;
		sw.sg_list = &sg;
		sw.num_sge = 1;
		sw.opcode = RNIC_WR_RDMA_WRITE;
		sw.send_flags = RNIC_SEND_SIGNALED;
		sw.wr.rdma.remote_addr = (uintptr_t)(dst + off);
		sw.wr.rdma.rkey = dmr->rkey;
		if (rnic_post_send(p.side[0].qp[q], &sw, &bad))
			goto fail;
		if (q == 0) {
			/* QP 0's message is well under way when QP 1 asks */
			rnic_world_step(w, 2000);
			t0 = rnic_world_cycle(w);
		}
	}
	while (got < 2 && rnic_world_cycle(w) - t0 < 10000000ull) {
		struct rnic_wc wc[2];
		int n = rnic_poll_cq(p.side[0].cq, 2, wc);

		for (int k = 0; k < n; k++) {
			if (wc[k].wr_id > 1 || wc[k].status != RNIC_WC_SUCCESS)
				ok = 0;
			else
				done[wc[k].wr_id] = rnic_world_cycle(w) - t0;
			got++;
		}
		if (n <= 0)
			rnic_world_step(w, 16);
	}
	ok = ok && got == 2 && memcmp(src, dst, big + small) == 0;
	/* QP 1 waits for one turn of QP 0 at most, not for its whole message */
	e2e_result(ok && done[1] < done[0] / 4,
	           "fairness: 4 KiB WRITE on QP 1 completes %llu cycles after posting, while the 1 MiB WRITE "
	           "on QP 0 posted before it needs %llu more (want < 1/4)",
	           (unsigned long long)done[1], (unsigned long long)done[0]);
	goto out;
fail:
	e2e_result(0, "fairness: setup");
out:
	pair_teardown(&p, w, smr, dmr, src, dst);
}

/* The send window with nothing but a partly sent message outstanding: 64 KiB
 * WRITEs (64 packets at MTU 1024), each posted when the one before has
 * completed, over a link that drops 5% of the frames. A loss cuts the QP's
 * window below a message's length; if the requester then waited for room
 * mid-message with no WQE of it recorded, the ACK timer (which runs for
 * recorded WQEs) would not run, and a lost NAK or ACK would leave it waiting
 * for good. Every WRITE must complete, in time, with its data in place. */
static void test_window_one_message(void)
{
	const int count = 8;
	const uint32_t len = 65536;
	const uint64_t limit = 1000000; /* cycles per WRITE: 30 ACK timeouts */
	struct small s;
	int done = 0, ok = 1;
	uint64_t worst = 0;
	uint32_t rt, to;

	if (small_open(&s, "window_one_message", 0.05, 5, 7, 7, 1)) {
		e2e_result(0, "send window, one message outstanding: setup");
		small_close(&s);
		return;
	}
	for (int k = 0; k < count && ok; k++) {
		struct rnic_wc wc;
		uint64_t t0 = rnic_world_cycle(s.w), t;
		int n = 0;

		for (uint32_t i = 0; i < len; i++)
			s.buf[0][i] = (uint8_t)(i * 7 + (uint32_t)k * 13 + 1);
		if (small_send(&s, RNIC_WR_RDMA_WRITE, (uint64_t)k, 0, len)) {
			ok = 0;
			break;
		}
		while (n == 0 && rnic_world_cycle(s.w) - t0 < limit) {
			n = rnic_poll_cq(s.p.side[0].cq, 1, &wc);
			if (n == 0)
				rnic_world_step(s.w, 64);
		}
		t = rnic_world_cycle(s.w) - t0;
		worst = t > worst ? t : worst;
		if (n != 1 || wc.wr_id != (uint64_t)k || wc.status != RNIC_WC_SUCCESS ||
		    memcmp(s.buf[1], s.buf[0], len) != 0) {
			printf("  WRITE %d: %s after %llu cycles\n", k,
			       n == 1 ? rnic_wc_status_str(wc.status) : "no completion", (unsigned long long)t);
			ok = 0;
			break;
		}
		done++;
	}
	rt = e2e_counter_or(s.p.side[0].ctx, RNIC_REG_STAT_RETRY, 0xffffffffu);
	to = e2e_counter_or(s.p.side[0].ctx, RNIC_REG_STAT_ACK_TIMEOUT, 0xffffffffu);
	e2e_result(ok && done == count && rt > 0,
	           "send window, one message outstanding: %d of %d WRITEs of 64 KiB at 5%% loss complete with "
	           "their data (the slowest in %llu cycles, limit %llu); restarts %u, ACK timeouts %u",
	           done, count, (unsigned long long)worst, (unsigned long long)limit, rt, to);
	small_close(&s);
}

/* QP pair 1 is taken through RESET and connected again, over and over, while
 * QP pair 0 carries a stream of small SENDs and WRITEs on a lossless link.
 * Each reconnect makes the firmware write QP 1's contexts, which pulses the
 * data path's context-write inputs; the engines must not lose the update of
 * QP 0 they make in the same cycle. A lost one shows as a PSN sequence error
 * or a duplicate at the responder, a go-back-N restart at the requester, or a
 * receive WQE completed twice: none may happen, every WQE completes once, in
 * order, and every WRITE's data is in place when it completes. */
#define CTX_SLOTS 64
#define CTX_SLOT 4096

/* message k: 16..CTX_SLOT bytes of pattern k; a SEND (k odd) goes into the
 * receive half of the buffers, a WRITE into the write half, slot k % CTX_SLOTS */
static uint32_t ctx_len(uint64_t k)
{
	return 16 + (uint32_t)(k * 997 % (CTX_SLOT - 15));
}

static uint32_t ctx_off(uint64_t k)
{
	return (k & 1 ? CTX_SLOTS * CTX_SLOT : 0) + (uint32_t)(k % CTX_SLOTS) * CTX_SLOT;
}

static void test_ctx_beside_traffic(void)
{
	struct sim_pair_opts o;
	struct sim_pair p;
	struct rnic_world *w = make_world("ctx_beside_traffic", 0, 0, 0, 0);
	const int rounds = e2e_quick ? 8 : 24, window = 60;
	const uint32_t bytes = 2 * CTX_SLOTS * CTX_SLOT;
	uint8_t *src = NULL, *dst = NULL;
	struct rnic_mr *smr = NULL, *dmr = NULL;
	uint64_t posted = 0, done = 0, recv_posted = 0, recv_done = 0, sends = 0;
	uint32_t psn[2] = {0x200000, 0x300000};
	uint32_t stat[2][4];
	int ok = 1, err = 0, r;

	if (!w) {
		e2e_result(0, "context writes beside traffic: world");
		return;
	}
	sim_pair_default_opts(&o);
	o.nqp = 2;
	o.path_mtu = RNIC_IB_MTU_256;
	o.max_send_wr = 64;
	o.max_recv_wr = 64;
	o.max_recv_sge = 1;
	o.cqe = 256;
	src = aligned_alloc(4096, bytes);
	dst = aligned_alloc(4096, bytes);
	if (sim_pair_open(&p, w, &o) || !src || !dst)
		goto fail;
	memset(dst, 0, bytes);
	smr = rnic_reg_mr(p.side[0].pd, src, bytes, RNIC_ACCESS_LOCAL_WRITE);
	dmr = rnic_reg_mr(p.side[1].pd, dst, bytes, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
	if (!smr || !dmr)
		goto fail;
	for (r = 0; r <= rounds && ok; r++) {
		uint64_t t_end;

		while (posted - done < (uint64_t)window && ok) {
			uint64_t k = posted;
			uint32_t len = ctx_len(k), off = ctx_off(k);
			struct rnic_sg_entry sg = {.addr = (uintptr_t)(src + off), .length = len, .lkey = smr->lkey};
			struct rnic_send_wr sw, *bad;

			memset(src + off, (int)(k & 0xff), CTX_SLOT);
			if (k & 1) {
				struct rnic_sg_entry rsg = {.addr = (uintptr_t)(dst + off), .length = CTX_SLOT,
							    .lkey = dmr->lkey};
				struct rnic_recv_wr rw = {.wr_id = k, .sg_list = &rsg, .num_sge = 1}, *rbad;

				if (rnic_post_recv(p.side[1].qp[0], &rw, &rbad))
					ok = 0;
				recv_posted++;
				sends++;
			}
			memset(&sw, 0, sizeof(sw));
			sw.wr_id = k;
			sw.sg_list = &sg;
			sw.num_sge = 1;
			sw.opcode = k & 1 ? RNIC_WR_SEND : RNIC_WR_RDMA_WRITE;
			sw.send_flags = RNIC_SEND_SIGNALED;
			sw.wr.rdma.remote_addr = (uintptr_t)(dst + off);
			sw.wr.rdma.rkey = dmr->rkey;
			if (rnic_post_send(p.side[0].qp[0], &sw, &bad))
				ok = 0;
			posted++;
		}
		/* QP 1 reconnected (both sides) while QP 0's messages flow; the
		 * last round only drains */
		if (r < rounds) {
			psn[0] += 0x1000;
			psn[1] += 0x1000;
			if ((err = sim_pair_reconnect(&p, &o, 1, psn)))
				ok = 0;
		}
		t_end = rnic_world_cycle(w) + (r < rounds ? 0 : 2000000ull);
		do {
			struct rnic_wc wc[16];
			int n = rnic_poll_cq(p.side[0].cq, 16, wc);

			for (int i = 0; i < n; i++) {
				uint64_t k = wc[i].wr_id;
				uint32_t len = ctx_len(k), off = ctx_off(k);

				if (k != done || wc[i].status != RNIC_WC_SUCCESS || wc[i].qp_num != p.side[0].qp[0]->qp_num)
					ok = 0;
				for (uint32_t b = 0; b < len && ok; b++)
					ok = dst[off + b] == (uint8_t)(k & 0xff);
				if (!ok)
					fprintf(stderr, "ctx beside traffic: WQE %llu (want %llu) status %u: %s\n",
						(unsigned long long)k, (unsigned long long)done, wc[i].status,
						"out of order, failed or data missing");
				done++;
			}
			n = rnic_poll_cq(p.side[1].cq, 16, wc);
			for (int i = 0; i < n; i++) {
				uint64_t k = wc[i].wr_id;

				if (wc[i].status != RNIC_WC_SUCCESS || wc[i].opcode != RNIC_WC_RECV ||
				    wc[i].byte_len != ctx_len(k) ||
				    k != 2 * recv_done + 1) {
					fprintf(stderr, "ctx beside traffic: receive %llu (want %llu) status %u len %u\n",
						(unsigned long long)k, (unsigned long long)(2 * recv_done + 1),
						wc[i].status, wc[i].byte_len);
					ok = 0;
				}
				recv_done++;
			}
			if (rnic_world_cycle(w) >= t_end || done == posted)
				break;
			rnic_world_step(w, 64);
		} while (ok);
	}
	for (int s = 0; s < 2; s++) {
		static const uint32_t regs[4] = {RNIC_REG_STAT_RX_PSN_ERR, RNIC_REG_STAT_RX_DUPLICATE,
						 RNIC_REG_STAT_RETRY, RNIC_REG_STAT_TX_NAK};

		for (int i = 0; i < 4; i++)
			if (rnic_read_counter(p.side[s].ctx, regs[i], &stat[s][i]))
				stat[s][i] = ~0u;
	}
	rnic_world_step(w, QUIET_CYCLES);
	{
		struct rnic_wc wc;

		if (rnic_poll_cq(p.side[0].cq, 1, &wc) != 0 || rnic_poll_cq(p.side[1].cq, 1, &wc) != 0)
			ok = 0; /* nothing more may come */
	}
	e2e_result(ok && !err && done == posted && recv_done == sends && recv_done == recv_posted &&
			   stat[1][0] == 0 && stat[1][1] == 0 && stat[1][3] == 0 && stat[0][2] == 0,
		   "context writes beside traffic: %d reconnects of QP 1 during %llu SENDs and WRITEs on QP 0: "
		   "%llu completed once and in order, %llu receives; responder PSN errors %u, duplicates %u, "
		   "NAKs %u; requester restarts %u (all want 0)",
		   rounds, (unsigned long long)posted, (unsigned long long)done,
		   (unsigned long long)recv_done, stat[1][0], stat[1][1], stat[1][3], stat[0][2]);
	e2e_check_nics(w, "ctx_beside_traffic", 1);
	goto out;
fail:
	e2e_result(0, "context writes beside traffic: setup");
out:
	pair_teardown(&p, w, smr, dmr, src, dst);
}

/* READ responses and ACKs the responder sends, by the frame hook. */
struct rr_count {
	uint64_t n, acks;
};

static void count_responses(void *arg, int port, const uint8_t *f, size_t len, uint64_t cycle)
{
	struct rr_count *c = arg;
	const size_t bth = RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES + RNIC_UDP_HDR_BYTES;

	(void)cycle;
	if (port != 1 || len <= bth)
		return;
	if (f[bth] >= RNIC_OP_RDMA_READ_RESPONSE_FIRST && f[bth] <= RNIC_OP_RDMA_READ_RESPONSE_ONLY)
		c->n++;
	else if (f[bth] == RNIC_OP_ACKNOWLEDGE)
		c->acks++;
}

/* A 1 MiB READ is being answered when the responder's QP is moved to RESET:
 * the READ responses still queued for it must stop at the next packet
 * boundary (the reset starts a new read generation), not run to the end of
 * the message from a QP that no longer exists. WRITEs posted behind the
 * READ have their ACKs queued behind its responses (one QP's responses
 * leave in PSN order); the reset must drop those too. */
#define RESET_READ_WRITES 8
static void test_reset_during_read(void)
{
	struct sim_pair_opts o;
	struct sim_pair p;
	struct rnic_world *w = make_world("reset_during_read", 0, 0, 0, 0);
	const uint32_t len = 1u << 20;
	uint8_t *src = NULL, *dst = NULL;
	struct rnic_mr *smr = NULL, *dmr = NULL;
	struct rr_count c = {0};
	struct rnic_qp_attr a;
	uint64_t at_reset = 0, after = 0, acks_at_reset = 0, t0;
	int ok = 0;

	if (!w) {
		e2e_result(0, "reset during READ: world");
		return;
	}
	sim_pair_default_opts(&o);
	o.path_mtu = RNIC_IB_MTU_1024;
	src = aligned_alloc(4096, len);
	dst = aligned_alloc(4096, len);
	if (sim_pair_open(&p, w, &o) || !src || !dst)
		goto fail;
	memset(src, 0x77, len);
	memset(dst, 0, len);
	smr = rnic_reg_mr(p.side[1].pd, src, len, RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_REMOTE_WRITE |
			 RNIC_ACCESS_LOCAL_WRITE);
	dmr = rnic_reg_mr(p.side[0].pd, dst, len, RNIC_ACCESS_LOCAL_WRITE);
	if (!smr || !dmr)
		goto fail;
	rnic_world_set_frame_hook(w, count_responses, &c);
	{
		struct rnic_sg_entry sg = {.addr = (uintptr_t)dst, .length = len, .lkey = dmr->lkey};
		struct rnic_send_wr sw, *bad;

		memset(&sw, 0, sizeof(sw));
		sw.sg_list = &sg;
		sw.num_sge = 1;
		sw.opcode = RNIC_WR_RDMA_READ;
		sw.send_flags = RNIC_SEND_SIGNALED;
		sw.wr.rdma.remote_addr = (uintptr_t)src;
		sw.wr.rdma.rkey = smr->rkey;
		if (rnic_post_send(p.side[0].qp[0], &sw, &bad))
			goto fail;
		/* 64 B WRITEs from the READ's destination into the first bytes
		 * of its source (what they carry is not checked here) */
		sw.opcode = RNIC_WR_RDMA_WRITE;
		sg.length = 64;
		for (int i = 0; i < RESET_READ_WRITES; i++)
			if (rnic_post_send(p.side[0].qp[0], &sw, &bad))
				goto fail;
	}
	t0 = rnic_world_cycle(w);
	while (c.n < 32 && rnic_world_cycle(w) - t0 < 2000000ull)
		rnic_world_step(w, 100);
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RESET;
	ok = c.n >= 32 && rnic_modify_qp(p.side[1].qp[0], &a, RNIC_QP_STATE) == 0;
	at_reset = c.n;
	acks_at_reset = c.acks;
	rnic_world_step(w, 400000);
	after = c.n - at_reset;
	/* what the transmit path already holds may still leave: the READ
	 * responder's header queue (16 packets whose payload is being read),
	 * and the packet builder's payload buffer (TX_DMA_BUF_BYTES, 16 KiB)
	 * and the MAC's FIFO, about 16 packets of 1 KiB; without the new read
	 * generation the whole rest of the READ (some 970 packets) follows */
	e2e_result(ok && after <= 32 && at_reset + after < len / 1024,
		   "reset during READ: %llu of %u READ responses sent when the responder's QP went to RESET, "
		   "%llu after it (want at most 32, what the transmit path already held)",
		   (unsigned long long)at_reset, len / 1024, (unsigned long long)after);
	e2e_result(ok && acks_at_reset == 0 && c.acks == 0,
		   "reset during READ: ACKs of the %d WRITEs queued behind the READ: %llu before the reset, "
		   "%llu after it (want 0 and 0: a QP in RESET sends nothing)",
		   RESET_READ_WRITES, (unsigned long long)acks_at_reset,
		   (unsigned long long)(c.acks - acks_at_reset));
	rnic_world_set_frame_hook(w, NULL, NULL);
	e2e_check_nics(w, "reset_during_read", 1);
	goto out;
fail:
	e2e_result(0, "reset during READ: setup");
out:
	rnic_world_set_frame_hook(w, NULL, NULL);
	pair_teardown(&p, w, smr, dmr, src, dst);
}

/* Requester frames on the wire between each PSN-sequence NAK reaching the
 * requester and the first frame of the go-back-N that answers it. */
struct nak_watch {
	int waiting;          /* a NAK arrived, its restart not yet seen */
	uint32_t nak_psn;     /* the PSN the responder expects */
	uint64_t naks, restarts, between, worst;
	uint64_t cur;         /* frames since the current NAK */
};

static void watch_naks(void *arg, int port, const uint8_t *f, size_t len, uint64_t cycle)
{
	struct nak_watch *nw = arg;
	const size_t bth = RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES + RNIC_UDP_HDR_BYTES;
	uint32_t psn;

	(void)cycle;
	if (port < 0 || len < bth + RNIC_BTH_BYTES + RNIC_AETH_BYTES)
		return;
	psn = ((uint32_t)f[bth + 9] << 16) | ((uint32_t)f[bth + 10] << 8) | f[bth + 11];
	if (port == 1) {
		uint8_t syn = f[bth + RNIC_BTH_BYTES];

		if (f[bth] == RNIC_OP_ACKNOWLEDGE && (syn >> 5) == RNIC_AETH_KIND_NAK &&
		    (syn & 0x1f) == RNIC_AETH_NAK_PSN_SEQ_ERR && !nw->waiting) {
			nw->naks++;
			nw->waiting = 1;
			nw->nak_psn = psn;
			nw->cur = 0;
		}
		return;
	}
	if (!nw->waiting)
		return;
	if (psn == nw->nak_psn) {
		nw->waiting = 0;
		nw->restarts++;
		nw->between += nw->cur;
		if (nw->cur > nw->worst)
			nw->worst = nw->cur;
	} else {
		nw->cur++;
	}
}

/* A go-back-N restart makes the packets the requester has already queued
 * for the packet builder (up to 32, their payload reads issued) stale: the
 * restart sends them again. They must not reach the wire, where the
 * responder would only drop them as out of sequence. Two 1 MiB WRITEs at
 * MTU 1024 over a link that drops 0.5% of the frames: between a NAK's
 * arrival and the resent frame may pass what the MAC already holds
 * (link_tx_fifo, 8 KiB: 8 frames), the frame being built, what the cable
 * carries and what leaves while the NAK is processed; not the queue. */
#define STALE_MAX_BETWEEN 20
static void test_stale_after_restart(void)
{
	struct small s;
	struct nak_watch nw = {0};
	struct rnic_wc wc[2];
	const uint32_t len = 1u << 20;
	uint8_t *src = NULL, *dst = NULL;
	struct rnic_mr *smr = NULL, *dmr = NULL;
	uint32_t stale, retry, psn_err;
	int n = 0, ok = 0;

	if (small_open(&s, "stale_after_restart", 0.005, 8, 7, 0, 1))
		goto fail;
	src = aligned_alloc(4096, 2 * (size_t)len);
	dst = aligned_alloc(4096, 2 * (size_t)len);
	if (!src || !dst)
		goto fail;
	for (size_t i = 0; i < 2 * (size_t)len; i++)
		src[i] = (uint8_t)(i * 131 + (i >> 12));
	memset(dst, 0, 2 * (size_t)len);
	smr = rnic_reg_mr(s.p.side[0].pd, src, 2 * (size_t)len, RNIC_ACCESS_LOCAL_WRITE);
	dmr = rnic_reg_mr(s.p.side[1].pd, dst, 2 * (size_t)len, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
	if (!smr || !dmr)
		goto fail;
	rnic_world_set_frame_hook(s.w, watch_naks, &nw);
	for (int i = 0; i < 2; i++) {
		struct rnic_sg_entry sg = {.addr = (uintptr_t)(src + (size_t)i * len), .length = len,
					   .lkey = smr->lkey};
		struct rnic_send_wr sw, *bad;

		memset(&sw, 0, sizeof(sw));
		sw.wr_id = (uint64_t)i + 1;
		sw.sg_list = &sg;
		sw.num_sge = 1;
		sw.opcode = RNIC_WR_RDMA_WRITE;
		sw.send_flags = RNIC_SEND_SIGNALED;
		sw.wr.rdma.remote_addr = (uintptr_t)(dst + (size_t)i * len);
		sw.wr.rdma.rkey = dmr->rkey;
		if (rnic_post_send(s.p.side[0].qp[0], &sw, &bad))
			goto fail;
	}
	n = sim_pair_wait(s.p.side[0].cq, wc, 2, 4000000);
	rnic_world_set_frame_hook(s.w, NULL, NULL);
	ok = n == 2 && wc[0].wr_id == 1 && wc[0].status == RNIC_WC_SUCCESS && wc[1].wr_id == 2 &&
	     wc[1].status == RNIC_WC_SUCCESS;
	e2e_result(ok && memcmp(src, dst, 2 * (size_t)len) == 0,
		   "stale packets: two 1 MiB WRITEs over a 0.5%% lossy link complete (%d of 2) and land byte-exact", n);
	stale = e2e_counter_or(s.p.side[0].ctx, RNIC_REG_STAT_TX_STALE, 0xffffffffu);
	retry = e2e_counter_or(s.p.side[0].ctx, RNIC_REG_STAT_RETRY, 0xffffffffu);
	psn_err = e2e_counter_or(s.p.side[1].ctx, RNIC_REG_STAT_RX_PSN_ERR, 0xffffffffu);
	e2e_result(ok && nw.restarts > 0 && stale > 0 && stale != 0xffffffffu && nw.worst <= STALE_MAX_BETWEEN,
		   "stale packets: %llu PSN NAKs reached the requester, %llu restarts followed on the wire with "
		   "%llu requester frames between NAK and resend (%.1f each, at most %llu; want at most %d), "
		   "%u queued packets dropped as stale (want some), restarts %u, responder PSN errors %u",
		   (unsigned long long)nw.naks, (unsigned long long)nw.restarts, (unsigned long long)nw.between,
		   nw.restarts ? (double)nw.between / (double)nw.restarts : 0.0, (unsigned long long)nw.worst,
		   STALE_MAX_BETWEEN, stale, retry, psn_err);
	e2e_check_nics(s.w, "stale_after_restart", 1);
	goto out;
fail:
	e2e_result(0, "stale packets: setup");
out:
	small_close_big(&s, smr, dmr, src, dst);
}

/* A READ whose first response frame is lost while the later ones come: a
 * response past the first unacknowledged PSN shows the responder took the
 * request, so the requester re-reads the READ in pieces of its send window
 * (each a duplicate READ for a part of it) instead of asking for all of it
 * again, which a responder such as Linux rxe answers in full every time.
 * The link loses the READ's first response once; the frame hook records the
 * requester's READ requests and the responder's response frames. */
struct gap_watch {
	int lost;                 /* the first response was lost */
	unsigned int nreq;        /* READ requests seen */
	uint32_t req_psn[64], req_len[64];
	uint64_t responses;       /* READ response frames that reached the requester */
};

static uint32_t frame_psn(const uint8_t *bth)
{
	return ((uint32_t)bth[9] << 16) | ((uint32_t)bth[10] << 8) | bth[11];
}

static int lose_first_response(void *arg, int port, const uint8_t *f, size_t len)
{
	struct gap_watch *g = arg;
	const size_t bth = RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES + RNIC_UDP_HDR_BYTES;

	if (g->lost || port != 1 || len < bth + RNIC_BTH_BYTES || f[bth] != RNIC_OP_RDMA_READ_RESPONSE_FIRST)
		return 0;
	g->lost = 1;
	return 1;
}

static void watch_reads(void *arg, int port, const uint8_t *f, size_t len, uint64_t cycle)
{
	struct gap_watch *g = arg;
	const size_t bth = RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES + RNIC_UDP_HDR_BYTES;
	const uint8_t *h = f + bth;

	(void)cycle;
	if (port < 0 || len < bth + RNIC_BTH_BYTES + RNIC_RETH_BYTES)
		return;
	if (port == 0 && h[0] == RNIC_OP_RDMA_READ_REQUEST && g->nreq < 64) {
		const uint8_t *r = h + RNIC_BTH_BYTES;

		g->req_psn[g->nreq] = frame_psn(h);
		g->req_len[g->nreq] = ((uint32_t)r[12] << 24) | ((uint32_t)r[13] << 16) | ((uint32_t)r[14] << 8) | r[15];
		g->nreq++;
	} else if (port == 1 && h[0] >= RNIC_OP_RDMA_READ_RESPONSE_FIRST && h[0] <= RNIC_OP_RDMA_READ_RESPONSE_ONLY) {
		g->responses++;
	}
}

static void test_read_gap_pieces(void)
{
	struct small s;
	struct gap_watch g = {0};
	struct rnic_wc wc;
	const uint32_t len = 256u * 1024, pkts = len / 1024;
	uint8_t *src = NULL, *dst = NULL;
	struct rnic_mr *smr = NULL, *dmr = NULL;
	uint32_t retry, timeouts, next;
	int n = 0, ok = 0, pieces = 1;

	if (small_open(&s, "read_gap_pieces", 0, 8, 7, 0, 1))
		goto fail;
	src = aligned_alloc(4096, len);
	dst = aligned_alloc(4096, len);
	if (!src || !dst)
		goto fail;
	for (uint32_t i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 29 + (i >> 10));
	memset(dst, 0, len);
	smr = rnic_reg_mr(s.p.side[1].pd, src, len, RNIC_ACCESS_REMOTE_READ);
	dmr = rnic_reg_mr(s.p.side[0].pd, dst, len, RNIC_ACCESS_LOCAL_WRITE);
	if (!smr || !dmr)
		goto fail;
	rnic_world_set_drop_filter(s.w, lose_first_response, &g);
	rnic_world_set_frame_hook(s.w, watch_reads, &g);
	{
		struct rnic_sg_entry sg = {.addr = (uintptr_t)dst, .length = len, .lkey = dmr->lkey};
		struct rnic_send_wr sw, *bad;

		memset(&sw, 0, sizeof(sw));
		sw.wr_id = 7;
		sw.sg_list = &sg;
		sw.num_sge = 1;
		sw.opcode = RNIC_WR_RDMA_READ;
		sw.send_flags = RNIC_SEND_SIGNALED;
		sw.wr.rdma.remote_addr = (uintptr_t)src;
		sw.wr.rdma.rkey = smr->rkey;
		if (rnic_post_send(s.p.side[0].qp[0], &sw, &bad))
			goto fail;
	}
	n = sim_pair_wait(s.p.side[0].cq, &wc, 1, 4000000);
	rnic_world_set_frame_hook(s.w, NULL, NULL);
	rnic_world_set_drop_filter(s.w, NULL, NULL);
	ok = n == 1 && wc.wr_id == 7 && wc.status == RNIC_WC_SUCCESS;
	e2e_result(ok && g.lost && memcmp(src, dst, len) == 0,
		   "READ gap: a 256 KiB READ whose first response frame was lost (%s) completes (%s) with its data",
		   g.lost ? "lost" : "never seen", n == 1 ? rnic_wc_status_str(wc.status) : "no completion");
	/* the first request asks for all of it; every later one (the re-read) for
	 * a piece, each piece starting where the one before ended */
	next = g.nreq > 1 ? g.req_psn[0] : 0;
	for (unsigned int i = 1; i < g.nreq; i++) {
		pieces &= g.req_len[i] < len && g.req_psn[i] == next && g.req_len[i] % 1024 == 0;
		next = (g.req_psn[i] + g.req_len[i] / 1024) & 0xffffff;
	}
	retry = e2e_counter_or(s.p.side[0].ctx, RNIC_REG_STAT_RETRY, 0xffffffffu);
	timeouts = e2e_counter_or(s.p.side[0].ctx, RNIC_REG_STAT_ACK_TIMEOUT, 0xffffffffu);
	e2e_result(ok && g.nreq >= 2 && g.nreq < 64 && g.req_len[0] == len && pieces &&
		   ((next - g.req_psn[0]) & 0xffffff) == pkts && timeouts == 0,
		   "READ gap: re-read from its first PSN in pieces: %u READ requests (the first for %u B, the "
		   "second for %u B at PSN +%u; want less than all of it, pieces in order up to the last "
		   "PSN), %llu response frames for %u packets, restarts %u, ACK timeouts %u (want 0)",
		   g.nreq, g.req_len[0], g.nreq > 1 ? g.req_len[1] : 0,
		   g.nreq > 1 ? (g.req_psn[1] - g.req_psn[0]) & 0xffffff : 0, (unsigned long long)g.responses,
		   pkts, retry, timeouts);
	e2e_check_nics(s.w, "read_gap_pieces", 1);
	goto out;
fail:
	e2e_result(0, "READ gap: setup");
out:
	small_close_big(&s, smr, dmr, src, dst);
}

/* --only NAME: run that case alone (a mix's name or a test's) */
static const char *const case_names[] = {"faults_mtu1024", "faults_mtu256", "faults_mtu4096", "faults_psn_wrap",
					 "retry_exhausted", "cq_overrun", "rnr_retry", "rnr_exhausted",
					 "fairness", "window_one_message", "ctx_beside_traffic",
					 "reset_during_read", "stale_after_restart", "read_gap_pieces", "host_write_fault"};
static const char *only_case;

static int want(const char *name)
{
	return !only_case || strcmp(only_case, name) == 0;
}

int main(int argc, char **argv)
{
	/* 0xffffffff.. stand for MTU-1, MTU, MTU+1 */
	static const uint32_t sizes[] = {0, 1, 0xffffffffu, 0xfffffffeu, 0xfffffffdu, 65536};
	static const uint32_t wrap_sizes[] = {1, 8192};
	int rc, known = 0;

	/* --only is this program's own: taken out before the common options */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
			only_case = argv[i + 1];
			for (int j = i; j + 2 <= argc; j++)
				argv[j] = argv[j + 2];
			argc -= 2;
			break;
		}
	}
	rc = e2e_parse_args(argc, argv, "rnic-e2e-faults",
			    "--quick: the lossy mixes at MTU 1024 (without its 1 MiB messages) and across\n"
			    "the PSN wrap only;\n"
			    "8 rounds of context writes beside traffic; the send window with one\n"
			    "message outstanding at 512 bits only; no fairness or stale-packet case\n"
			    "(1 MiB messages).\n"
			    "--only NAME: that case alone: faults_mtu1024, faults_mtu256, faults_mtu4096,\n"
			    "faults_psn_wrap, retry_exhausted, cq_overrun, rnr_retry, rnr_exhausted, fairness,\n"
			    "window_one_message, ctx_beside_traffic, reset_during_read, stale_after_restart,\n"
			    "read_gap_pieces, host_write_fault.\n");

	if (rc >= 0)
		return rc;
	for (size_t i = 0; i < sizeof(case_names) / sizeof(case_names[0]); i++)
		known |= only_case && strcmp(only_case, case_names[i]) == 0;
	if (only_case && !known) {
		fprintf(stderr, "rnic-e2e-faults: --only: no case named '%s' (see --help)\n", only_case);
		return 2;
	}

	{
		const struct mix mixes[] = {
			{"faults_mtu1024", RNIC_IB_MTU_1024, 0x1000, 0x2000, 0.01, 0.01, 0.01, 0.001, sizes, 6,
			 1u << 20},
			{"faults_mtu256", RNIC_IB_MTU_256, 0x1000, 0x2000, 0.01, 0.01, 0.01, 0.001, sizes, 6, 0},
			{"faults_mtu4096", RNIC_IB_MTU_4096, 0x1000, 0x2000, 0.01, 0.01, 0.01, 0.001, sizes, 6, 0},
			/* no corruption here, so the capture can be checked frame by frame */
			{"faults_psn_wrap", RNIC_IB_MTU_256, 0xfffff0, 0xfffffa, 0.02, 0.02, 0.02, 0,
			 wrap_sizes, 2, 0},
		};
		const int nmix = (int)(sizeof(mixes) / sizeof(mixes[0]));

		/* --quick: MTU 1024 (no 1 MiB message) and the PSN wrap (--only: any, whole) */
		for (int i = 0; i < nmix; i++)
			if (only_case ? want(mixes[i].name) : (!e2e_quick || i == 0 || i == nmix - 1)) {
				struct mix m = mixes[i];

				if (e2e_quick && !only_case)
					m.big = 0;
				run_mix(&m);
			}
	}
	if (want("retry_exhausted"))
		test_retry_exhausted();
	if (want("cq_overrun"))
		test_cq_overrun();
	if (want("rnr_retry"))
		test_rnr_retry_succeeds();
	if (want("rnr_exhausted"))
		test_rnr_exhausted();
	/* --quick: not the two cases of 1 MiB messages (fairness, stale packets) */
	if (want("fairness") && (only_case || !e2e_quick))
		test_fairness();
	/* --quick: at 512 bits only (8 s; where it hung), both widths in full runs */
	if (want("window_one_message") && (only_case || !e2e_quick || e2e_width == 512))
		test_window_one_message();
	if (want("ctx_beside_traffic"))
		test_ctx_beside_traffic();
	if (want("reset_during_read"))
		test_reset_during_read();
	if (want("stale_after_restart") && (only_case || !e2e_quick))
		test_stale_after_restart();
	if (want("read_gap_pieces"))
		test_read_gap_pieces();
	if (want("host_write_fault"))
		test_host_write_fault();

	return e2e_summary();
}
