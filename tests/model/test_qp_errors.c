/* Error paths of the model's RC QP (model/rc_qp.[ch]): each NAK syndrome
 * (PSN sequence, invalid request, remote access, remote operational, RNR),
 * RNR with retry and exhaustion, transport retry exhaustion, access
 * violations per opcode, local protection errors, flush of both queues. */
#include <stdio.h>
#include <string.h>

#include "mcheck.h"
#include "mpair.h"

static void clean_link(struct rc_link_cfg *lc)
{
	memset(lc, 0, sizeof(*lc));
	lc->latency = 1000;
}

static void base_cfg(struct rc_qp_cfg *c)
{
	rc_qp_cfg_default(c);
	c->mtu = 1024;
	c->sq_psn = 0x100;
	c->rq_psn = 0x200;
	c->timeout = 3; /* 32.8 us */
	c->min_rnr_timer = 1; /* 10 us */
}

static struct rc_send_wr wr_of(uint32_t opcode, uint64_t wr_id, const struct mbuf *l, size_t len, uint64_t raddr,
			       uint32_t rkey)
{
	struct rc_send_wr w;

	memset(&w, 0, sizeof(w));
	w.wr_id = wr_id;
	w.opcode = opcode;
	w.flags = RC_SEND_SIGNALED;
	w.num_sge = 1;
	w.sg_list[0] = (struct rc_sge){mva(l, 0), (uint32_t)len, l->key};
	w.remote_addr = raddr;
	w.rkey = rkey;
	w.compare_add = 1;
	return w;
}

static int poll1(struct mpair *p, int s, struct rc_wc *wc)
{
	return rc_cq_poll(&p->s[s].cq, wc, 1) == 1;
}

/* ---- NAK syndromes ---- */

struct dropper {
	int dir;
	uint32_t psn;
	int count;
	int dropped;
};

static int drop_psn(void *arg, int dir, const uint8_t *frame, size_t len)
{
	struct dropper *d = arg;
	struct rc_pkt p;

	if (dir != d->dir || rc_decode(frame, len, &p, 0) != RC_OK || p.psn != d->psn || d->count == 0)
		return 0;
	d->count--;
	d->dropped++;
	return 1;
}

static void psn_seq_case(void)
{
	struct rc_qp_cfg c;
	struct rc_link_cfg lc;
	struct mpair p;
	struct dropper d = {0, 0x102, 1, 0};
	struct mbuf src, dst;
	struct rc_send_wr w;
	struct rc_wc wc;
	struct mpair_want want = {{1, 0}};

	mcheck_begin("NAK PSN sequence error: one lost packet, one NAK, go-back-N from it, data intact");
	base_cfg(&c);
	clean_link(&lc);
	lc.filter = drop_psn;
	lc.filter_arg = &d;
	mpair_open(&p, &c, &lc, 0);
	src = mbuf_new(&p, 0, 10 * 1024, 0, 5);
	dst = mbuf_new(&p, 1, 10 * 1024, RNIC_ACCESS_REMOTE_WRITE, 0);
	w = wr_of(RNIC_WR_RDMA_WRITE, 1, &src, 10 * 1024, mva(&dst, 0), dst.key);
	rc_qp_post_send(p.s[0].qp, &w);
	CHECK(mpair_run(&p, mpair_cq_done, &want, 10000000), "completion");
	CHECK(poll1(&p, 0, &wc) && wc.status == RNIC_WC_SUCCESS, "status %u", wc.status);
	CHECK(d.dropped == 1, "dropped");
	CHECK(rc_qp_stats(p.s[1].qp)->tx_naks == 1, "responder sent %llu NAKs for 7 packets out of sequence",
	      (unsigned long long)rc_qp_stats(p.s[1].qp)->tx_naks);
	CHECK(rc_qp_stats(p.s[1].qp)->rx_psn_errors == 7, "out-of-sequence packets %llu",
	      (unsigned long long)rc_qp_stats(p.s[1].qp)->rx_psn_errors);
	CHECK(rc_qp_stats(p.s[0].qp)->rx_naks == 1 && rc_qp_stats(p.s[0].qp)->retries == 1 &&
	      rc_qp_stats(p.s[0].qp)->timeouts == 0, "requester: one NAK, one retry, no timeout");
	CHECK(rc_qp_stats(p.s[0].qp)->tx_retransmits == 8, "resent from PSN 0x102: %llu packets",
	      (unsigned long long)rc_qp_stats(p.s[0].qp)->tx_retransmits);
	CHECK(!memcmp(src.p, dst.p, 10 * 1024), "data");
	mpair_close(&p);
	free(src.p);
	free(dst.p);
	mcheck_end();
}

/* A requester whose MTU is larger than the responder's: the first packet is
 * too long, an invalid request. */
static void invalid_req_length_case(void)
{
	struct rc_qp_cfg c;
	struct rc_link_cfg lc;
	struct mpair p;
	struct mbuf src, dst, rb;
	struct rc_send_wr w;
	struct rc_recv_wr r;
	struct rc_wc wc;
	struct mpair_want want = {{2, 1}};
	struct rc_qp_cfg *bc;

	mcheck_begin("NAK invalid request: a packet longer than the path MTU; REM_INV_REQ_ERR, both QPs flush");
	base_cfg(&c);
	clean_link(&lc);
	mpair_open(&p, &c, &lc, 0);
	/* make side 1 expect MTU 256: rebuild its QP */
	bc = (struct rc_qp_cfg *)rc_qp_get_cfg(p.s[1].qp);
	bc->mtu = 256;
	src = mbuf_new(&p, 0, 2048, 0, 5);
	dst = mbuf_new(&p, 1, 2048, RNIC_ACCESS_REMOTE_WRITE, 0);
	rb = mbuf_new(&p, 1, 64, RNIC_ACCESS_LOCAL_WRITE, 0);
	memset(&r, 0, sizeof(r));
	r.wr_id = 77;
	r.num_sge = 1;
	r.sg_list[0] = (struct rc_sge){mva(&rb, 0), 64, rb.key};
	rc_qp_post_recv(p.s[1].qp, &r);
	w = wr_of(RNIC_WR_RDMA_WRITE, 1, &src, 2048, mva(&dst, 0), dst.key);
	rc_qp_post_send(p.s[0].qp, &w);
	w.wr_id = 2;
	rc_qp_post_send(p.s[0].qp, &w);
	CHECK(mpair_run(&p, mpair_cq_done, &want, 10000000), "completions");
	CHECK(poll1(&p, 0, &wc) && wc.wr_id == 1 && wc.status == RNIC_WC_REM_INV_REQ_ERR && wc.vendor_err == 0x61,
	      "first: %u syndrome %#x", wc.status, wc.vendor_err);
	CHECK(poll1(&p, 0, &wc) && wc.wr_id == 2 && wc.status == RNIC_WC_WR_FLUSH_ERR, "second flushed: %u", wc.status);
	CHECK(poll1(&p, 1, &wc) && wc.wr_id == 77 && wc.status == RNIC_WC_WR_FLUSH_ERR, "receive WQE flushed: %u",
	      wc.status);
	CHECK(rc_qp_state(p.s[0].qp) == RNIC_QPS_ERR && rc_qp_state(p.s[1].qp) == RNIC_QPS_ERR, "both in ERR");
	for (size_t i = 0; i < 2048; i++)
		if (dst.p[i]) {
			CHECK(0, "target written");
			break;
		}
	mpair_close(&p);
	free(src.p);
	free(dst.p);
	free(rb.p);
	mcheck_end();
}

/* Opcode sequence: a WRITE MIDDLE with no FIRST, and a new FIRST inside a message. */
static void invalid_req_seq_case(void)
{
	mcheck_begin("NAK invalid request: opcode sequence (MIDDLE without FIRST, FIRST inside a SEND)");
	for (int k = 0; k < 2; k++) {
		struct rc_qp_cfg c;
		struct rc_link_cfg lc;
		struct mpair p;
		struct rc_pkt pk;
		uint8_t pay[1024] = {0};
		struct mbuf rb;
		struct rc_recv_wr r;
		struct rc_wc wc;
		struct mpair_want want = {{0, 1}};

		base_cfg(&c);
		clean_link(&lc);
		mpair_open(&p, &c, &lc, 0);
		rb = mbuf_new(&p, 1, 4096, RNIC_ACCESS_LOCAL_WRITE, 0);
		memset(&r, 0, sizeof(r));
		r.wr_id = 9;
		r.num_sge = 1;
		r.sg_list[0] = (struct rc_sge){mva(&rb, 0), 4096, rb.key};
		rc_qp_post_recv(p.s[1].qp, &r);
		memset(&pk, 0, sizeof(pk));
		pk.dest_qpn = 0x222;
		pk.psn = 0x100;
		pk.payload = pay;
		pk.payload_len = 1024;
		if (k == 0) {
			pk.opcode = RNIC_OP_RDMA_WRITE_MIDDLE;
			rc_qp_recv(p.s[1].qp, 0, &pk);
		} else {
			pk.opcode = RNIC_OP_SEND_FIRST;
			rc_qp_recv(p.s[1].qp, 0, &pk);
			pk.psn = 0x101;
			rc_qp_recv(p.s[1].qp, 0, &pk); /* FIRST again */
		}
		/* the NAK goes out on the next progress */
		rc_qp_progress(p.s[1].qp, 0, 16);
		mpair_run(&p, mpair_cq_done, &want, 1000000);
		CHECK(rc_qp_stats(p.s[1].qp)->tx_naks == 1 && rc_qp_state(p.s[1].qp) == RNIC_QPS_ERR, "k=%d NAK, ERR", k);
		CHECK(poll1(&p, 1, &wc) && wc.wr_id == 9 && wc.status == RNIC_WC_WR_FLUSH_ERR, "k=%d receive WQE: %u", k,
		      wc.status);
		mpair_close(&p);
		free(rb.p);
	}
	mcheck_end();
}

static void recv_too_small_case(void)
{
	struct rc_qp_cfg c;
	struct rc_link_cfg lc;
	struct mpair p;
	struct mbuf src, rb;
	struct rc_send_wr w;
	struct rc_recv_wr r;
	struct rc_wc wc;
	struct mpair_want want = {{1, 2}};

	mcheck_begin("NAK invalid request: SEND longer than the receive buffer; LOC_LEN_ERR receive completion");
	base_cfg(&c);
	clean_link(&lc);
	mpair_open(&p, &c, &lc, 0);
	src = mbuf_new(&p, 0, 3000, 0, 5);
	rb = mbuf_new(&p, 1, 2000, RNIC_ACCESS_LOCAL_WRITE, 0);
	memset(&r, 0, sizeof(r));
	r.wr_id = 21;
	r.num_sge = 2;
	r.sg_list[0] = (struct rc_sge){mva(&rb, 0), 1000, rb.key};
	r.sg_list[1] = (struct rc_sge){mva(&rb, 1000), 1000, rb.key};
	rc_qp_post_recv(p.s[1].qp, &r);
	r.wr_id = 22;
	rc_qp_post_recv(p.s[1].qp, &r);
	w = wr_of(RNIC_WR_SEND, 3, &src, 3000, 0, 0);
	rc_qp_post_send(p.s[0].qp, &w);
	CHECK(mpair_run(&p, mpair_cq_done, &want, 10000000), "completions");
	CHECK(poll1(&p, 0, &wc) && wc.status == RNIC_WC_REM_INV_REQ_ERR, "sender: %u", wc.status);
	CHECK(poll1(&p, 1, &wc) && wc.wr_id == 21 && wc.status == RNIC_WC_LOC_LEN_ERR, "receiver: %u", wc.status);
	CHECK(poll1(&p, 1, &wc) && wc.wr_id == 22 && wc.status == RNIC_WC_WR_FLUSH_ERR, "next receive WQE: %u",
	      wc.status);
	mpair_close(&p);
	free(src.p);
	free(rb.p);
	mcheck_end();
}

static void rem_op_case(void)
{
	struct rc_qp_cfg c;
	struct rc_link_cfg lc;
	struct mpair p;
	struct mbuf src, rb;
	struct rc_send_wr w;
	struct rc_recv_wr r;
	struct rc_wc wc;
	struct mpair_want want = {{1, 1}};

	mcheck_begin("NAK remote operational error: a receive SGE with a bad lkey; LOC_PROT_ERR receive completion");
	base_cfg(&c);
	clean_link(&lc);
	mpair_open(&p, &c, &lc, 0);
	src = mbuf_new(&p, 0, 100, 0, 5);
	rb = mbuf_new(&p, 1, 100, RNIC_ACCESS_LOCAL_WRITE, 0);
	memset(&r, 0, sizeof(r));
	r.wr_id = 31;
	r.num_sge = 1;
	r.sg_list[0] = (struct rc_sge){mva(&rb, 0), 100, rb.key ^ 0x80};
	rc_qp_post_recv(p.s[1].qp, &r);
	w = wr_of(RNIC_WR_SEND, 4, &src, 100, 0, 0);
	rc_qp_post_send(p.s[0].qp, &w);
	CHECK(mpair_run(&p, mpair_cq_done, &want, 10000000), "completions");
	CHECK(poll1(&p, 0, &wc) && wc.status == RNIC_WC_REM_OP_ERR && wc.vendor_err == 0x63, "sender: %u %#x",
	      wc.status, wc.vendor_err);
	CHECK(poll1(&p, 1, &wc) && wc.wr_id == 31 && wc.status == RNIC_WC_LOC_PROT_ERR, "receiver: %u", wc.status);
	mpair_close(&p);
	free(src.p);
	free(rb.p);
	mcheck_end();
}

/* ---- RNR ---- */

struct later {
	rc_time_t at;
	int posted;
	struct rc_recv_wr r;
	uint32_t want_cq0;
};

static int post_later(struct mpair *p, void *arg)
{
	struct later *l = arg;

	if (!l->posted && p->now >= l->at) {
		rc_qp_post_recv(p->s[1].qp, &l->r);
		l->posted = 1;
	}
	return rc_cq_count(&p->s[0].cq) >= l->want_cq0;
}

static void rnr_case(int rnr_retry, rc_time_t post_at, int expect_ok)
{
	struct rc_qp_cfg c;
	struct rc_link_cfg lc;
	struct mpair p;
	struct mbuf src, rb;
	struct rc_send_wr w;
	struct rc_wc wc;
	struct later l;
	char name[160];

	snprintf(name, sizeof(name), "RNR: rnr_retry %d, receive WQE posted at %llu us: %s", rnr_retry,
		 (unsigned long long)post_at / 1000, expect_ok ? "retried until it is there" : "RNR_RETRY_EXC_ERR");
	mcheck_begin(name);
	base_cfg(&c);
	c.rnr_retry = (uint8_t)rnr_retry;
	clean_link(&lc);
	mpair_open(&p, &c, &lc, 0);
	src = mbuf_new(&p, 0, 2500, 0, 5);
	rb = mbuf_new(&p, 1, 4096, RNIC_ACCESS_LOCAL_WRITE, 0);
	memset(&l, 0, sizeof(l));
	l.at = post_at;
	l.r.wr_id = 41;
	l.r.num_sge = 1;
	l.r.sg_list[0] = (struct rc_sge){mva(&rb, 0), 4096, rb.key};
	l.want_cq0 = 1;
	w = wr_of(RNIC_WR_SEND, 5, &src, 2500, 0, 0);
	rc_qp_post_send(p.s[0].qp, &w);
	w.wr_id = 6;
	w.opcode = RNIC_WR_RDMA_WRITE_WITH_IMM; /* needs no buffer, but a receive WQE */
	w.num_sge = 0;
	if (rnr_retry == 7 || !expect_ok)
		rc_qp_post_send(p.s[0].qp, &w);
	mpair_run(&p, post_later, &l, 100000000);
	if (expect_ok) {
		uint64_t waits = rc_qp_stats(p.s[0].qp)->rnr_waits, naks = rc_qp_stats(p.s[1].qp)->tx_rnr_naks;

		/* one RNR round: 10 us of RNR timer plus a round trip of about 2.1 us
		 * (the WRITE with immediate behind the SEND may add one) */
		CHECK(poll1(&p, 0, &wc) && wc.wr_id == 5 && wc.status == RNIC_WC_SUCCESS, "SEND: %u", wc.status);
		CHECK(!memcmp(src.p, rb.p, 2500), "data");
		CHECK(waits == naks && waits >= post_at / 12500 && waits <= post_at / 11500 + 2,
		      "%llu RNR waits, %llu RNR NAKs for %llu us", (unsigned long long)waits, (unsigned long long)naks,
		      (unsigned long long)post_at / 1000);
		CHECK(p.now >= post_at && p.now < post_at + 25000, "done at %llu ns", (unsigned long long)p.now);
		/* the WRITE with immediate now waits for its receive WQE: with
		 * rnr_retry 7 for ever, else until the retries run out */
		mpair_run(&p, mpair_cq_done, &(struct mpair_want){{1, 0}}, 1000000);
		if (rnr_retry == 7) {
			CHECK(rc_cq_count(&p.s[0].cq) == 0 && rc_qp_stats(p.s[0].qp)->rnr_waits > waits + 50,
			      "WRITE with immediate still waiting after 1 ms (%llu RNR waits)",
			      (unsigned long long)rc_qp_stats(p.s[0].qp)->rnr_waits);
			l.posted = 0;
			l.at = p.now;
			l.r.wr_id = 42;
			mpair_run(&p, post_later, &l, 100000000);
			CHECK(poll1(&p, 0, &wc) && wc.wr_id == 6 && wc.status == RNIC_WC_SUCCESS,
			      "WRITE with immediate: %u", wc.status);
			CHECK(poll1(&p, 1, &wc) && wc.wr_id == 41 && wc.byte_len == 2500, "receive 41");
			CHECK(poll1(&p, 1, &wc) && wc.wr_id == 42 && wc.opcode == RNIC_WC_RECV_RDMA_WITH_IMM &&
				      wc.byte_len == 0, "receive 42: opcode %u", wc.opcode);
		} else {
			CHECK(waits <= (uint64_t)rnr_retry, "within the %d retries", rnr_retry);
		}
	} else {
		CHECK(poll1(&p, 0, &wc) && wc.wr_id == 5 && wc.status == RNIC_WC_RNR_RETRY_EXC_ERR &&
			      rc_aeth_kind((uint8_t)wc.vendor_err) == RNIC_AETH_KIND_RNR,
		      "SEND: %u %#x", wc.status, wc.vendor_err);
		mpair_run(&p, mpair_cq_done, &(struct mpair_want){{1, 0}}, 1000000);
		CHECK(poll1(&p, 0, &wc) && wc.wr_id == 6 && wc.status == RNIC_WC_WR_FLUSH_ERR, "next: %u", wc.status);
		CHECK(rc_qp_stats(p.s[1].qp)->tx_rnr_naks == (uint64_t)rnr_retry + 1, "%llu RNR NAKs for rnr_retry %d",
		      (unsigned long long)rc_qp_stats(p.s[1].qp)->tx_rnr_naks, rnr_retry);
		/* the responder is fine: it only said "not ready" */
		CHECK(rc_qp_state(p.s[1].qp) == RNIC_QPS_RTS && rc_qp_state(p.s[0].qp) == RNIC_QPS_ERR, "states");
	}
	mpair_close(&p);
	free(src.p);
	free(rb.p);
	mcheck_end();
}

/* ---- transport retries ---- */

static int drop_all(void *arg, int dir, const uint8_t *frame, size_t len)
{
	(void)frame;
	(void)len;
	return dir == *(int *)arg;
}

static void retry_exhaust_case(int dir)
{
	struct rc_qp_cfg c;
	struct rc_link_cfg lc;
	struct mpair p;
	struct mbuf src, dst;
	struct rc_send_wr w;
	struct rc_wc wc;
	struct mpair_want want = {{2, 0}};
	char name[160];

	snprintf(name, sizeof(name), "retry exhaustion: every %s lost, retry_cnt 3 -> 4 timeouts, RETRY_EXC_ERR",
		 dir ? "response" : "request");
	mcheck_begin(name);
	base_cfg(&c);
	c.retry_cnt = 3;
	clean_link(&lc);
	lc.filter = drop_all;
	lc.filter_arg = &dir;
	mpair_open(&p, &c, &lc, 0);
	src = mbuf_new(&p, 0, 5000, 0, 5);
	dst = mbuf_new(&p, 1, 5000, RNIC_ACCESS_REMOTE_WRITE, 0);
	w = wr_of(RNIC_WR_RDMA_WRITE, 7, &src, 5000, mva(&dst, 0), dst.key);
	rc_qp_post_send(p.s[0].qp, &w);
	w.wr_id = 8;
	rc_qp_post_send(p.s[0].qp, &w);
	CHECK(mpair_run(&p, mpair_cq_done, &want, 10000000), "completions");
	CHECK(poll1(&p, 0, &wc) && wc.wr_id == 7 && wc.status == RNIC_WC_RETRY_EXC_ERR, "first: %u", wc.status);
	CHECK(poll1(&p, 0, &wc) && wc.wr_id == 8 && wc.status == RNIC_WC_WR_FLUSH_ERR, "second: %u", wc.status);
	CHECK(rc_qp_stats(p.s[0].qp)->timeouts == 4 && rc_qp_stats(p.s[0].qp)->retries == 3, "timeouts %llu retries %llu",
	      (unsigned long long)rc_qp_stats(p.s[0].qp)->timeouts, (unsigned long long)rc_qp_stats(p.s[0].qp)->retries);
	/* 4 timeouts of 32.8 us */
	CHECK(p.now >= 4 * 32768 && p.now < 4 * 32768 + 20000, "failed at %llu ns", (unsigned long long)p.now);
	if (dir == 1)
		CHECK(!memcmp(src.p, dst.p, 5000), "the data did arrive (only the ACKs were lost)");
	mpair_close(&p);
	free(src.p);
	free(dst.p);
	mcheck_end();
}

/* ---- access violations per opcode ---- */

enum viol { V_RKEY, V_BOUNDS, V_MR_ACCESS, V_QP_ACCESS, V_MISALIGNED };
static const char *const vname[] = {"wrong rkey", "out of bounds", "MR lacks the right", "QP lacks the right",
				    "misaligned"};

static void access_case(uint32_t opcode, enum viol v, uint32_t want_status)
{
	struct rc_qp_cfg c;
	struct rc_link_cfg lc;
	struct mpair p;
	struct mbuf loc, tgt;
	struct rc_send_wr w;
	struct rc_wc wc;
	struct mpair_want want = {{1, 0}};
	unsigned int right = opcode == RNIC_WR_RDMA_READ ? RNIC_ACCESS_REMOTE_READ
			     : opcode == RNIC_WR_RDMA_WRITE ? RNIC_ACCESS_REMOTE_WRITE
							    : RNIC_ACCESS_REMOTE_ATOMIC;
	size_t len = (opcode == RNIC_WR_RDMA_READ || opcode == RNIC_WR_RDMA_WRITE) ? 1500 : 8;
	uint8_t *snap;
	uint64_t raddr;
	uint32_t rkey;
	static const char *const opn[] = {"WRITE", "", "", "", "READ", "CMP_SWAP", "FETCH_ADD"};
	char name[160];

	snprintf(name, sizeof(name), "access: %s, %s -> %s", opn[opcode], vname[v],
		 want_status == RNIC_WC_REM_ACCESS_ERR ? "REM_ACCESS_ERR" : "REM_INV_REQ_ERR");
	mcheck_begin(name);
	base_cfg(&c);
	clean_link(&lc);
	mpair_open(&p, &c, &lc, 0);
	if (v == V_QP_ACCESS) {
		struct rc_qp_cfg *bc = (struct rc_qp_cfg *)rc_qp_get_cfg(p.s[1].qp);

		bc->access &= ~right;
	}
	loc = mbuf_new(&p, 0, len, RNIC_ACCESS_LOCAL_WRITE, 3);
	tgt = mbuf_new(&p, 1, 4096, v == V_MR_ACCESS ? (0xfu & ~right) : right, 9);
	snap = malloc(4096);
	memcpy(snap, tgt.p, 4096);
	raddr = mva(&tgt, 0);
	rkey = tgt.key;
	if (v == V_RKEY)
		rkey ^= 0x40;
	else if (v == V_BOUNDS)
		raddr += 4096 - len + 8;
	else if (v == V_MISALIGNED)
		raddr += 4;
	w = wr_of(opcode, 9, &loc, len, raddr, rkey);
	rc_qp_post_send(p.s[0].qp, &w);
	CHECK(mpair_run(&p, mpair_cq_done, &want, 10000000), "completion");
	CHECK(poll1(&p, 0, &wc) && wc.status == want_status, "status %u", wc.status);
	CHECK(!memcmp(snap, tgt.p, 4096), "target memory untouched");
	CHECK(rc_qp_state(p.s[1].qp) == RNIC_QPS_ERR && rc_qp_state(p.s[0].qp) == RNIC_QPS_ERR, "both in ERR");
	free(snap);
	mpair_close(&p);
	free(loc.p);
	free(tgt.p);
	mcheck_end();
}

/* ---- local errors and flush ---- */

static void local_prot_case(void)
{
	struct rc_qp_cfg c;
	struct rc_link_cfg lc;
	struct mpair p;
	struct mbuf src, dst, rres;
	struct rc_send_wr w;
	struct rc_wc wc;
	struct mpair_want want = {{3, 0}};

	mcheck_begin("local: a bad lkey ends the WQE with LOC_PROT_ERR after the WQEs before it; nothing of it is sent");
	base_cfg(&c);
	clean_link(&lc);
	mpair_open(&p, &c, &lc, 0);
	src = mbuf_new(&p, 0, 3000, 0, 5);
	rres = mbuf_new(&p, 0, 3000, 0, 0); /* no LOCAL_WRITE: cannot take READ data */
	dst = mbuf_new(&p, 1, 3000, RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ, 0);
	w = wr_of(RNIC_WR_RDMA_WRITE, 10, &src, 3000, mva(&dst, 0), dst.key);
	w.flags = 0; /* unsigned: no completion when it succeeds */
	rc_qp_post_send(p.s[0].qp, &w);
	w = wr_of(RNIC_WR_RDMA_READ, 11, &rres, 3000, mva(&dst, 0), dst.key);
	w.flags = 0; /* unsignaled, but an error always completes */
	rc_qp_post_send(p.s[0].qp, &w);
	w = wr_of(RNIC_WR_RDMA_WRITE, 12, &src, 3000, mva(&dst, 0), dst.key);
	rc_qp_post_send(p.s[0].qp, &w);
	w.wr_id = 13;
	rc_qp_post_send(p.s[0].qp, &w);
	CHECK(mpair_run(&p, mpair_cq_done, &want, 10000000), "completions");
	CHECK(poll1(&p, 0, &wc) && wc.wr_id == 11 && wc.status == RNIC_WC_LOC_PROT_ERR, "READ into a read-only MR: %u",
	      wc.status);
	CHECK(poll1(&p, 0, &wc) && wc.wr_id == 12 && wc.status == RNIC_WC_WR_FLUSH_ERR, "flushed 12: %u", wc.status);
	CHECK(poll1(&p, 0, &wc) && wc.wr_id == 13 && wc.status == RNIC_WC_WR_FLUSH_ERR, "flushed 13: %u", wc.status);
	CHECK(rc_qp_stats(p.s[0].qp)->tx_requests == 3, "only the first WRITE went out (%llu packets)",
	      (unsigned long long)rc_qp_stats(p.s[0].qp)->tx_requests);
	CHECK(!memcmp(src.p, dst.p, 3000), "the first WRITE landed");
	/* posting in the error state completes at once with a flush error */
	w.wr_id = 14;
	CHECK(rc_qp_post_send(p.s[0].qp, &w) == 0 && poll1(&p, 0, &wc) && wc.wr_id == 14 &&
		      wc.status == RNIC_WC_WR_FLUSH_ERR, "post in ERR: %u", wc.status);
	{
		struct rc_recv_wr r;

		memset(&r, 0, sizeof(r));
		r.wr_id = 15;
		CHECK(rc_qp_post_recv(p.s[0].qp, &r) == 0 && poll1(&p, 0, &wc) && wc.wr_id == 15 &&
			      wc.status == RNIC_WC_WR_FLUSH_ERR && wc.opcode == RNIC_WC_RECV, "post_recv in ERR");
	}
	mpair_close(&p);
	free(src.p);
	free(dst.p);
	free(rres.p);
	mcheck_end();
}

static void flush_case(void)
{
	struct rc_qp_cfg c;
	struct rc_link_cfg lc;
	struct mpair p;
	struct mbuf src, dst, rb;
	struct rc_send_wr w;
	struct rc_recv_wr r;
	struct rc_wc wc;
	struct mpair_want want = {{6, 3}};
	int ok = 1;

	mcheck_begin("flush: a NAK ends WQE 2 of 6; 1 succeeded, 3..6 flush in order; the peer's receive queue flushes");
	base_cfg(&c);
	clean_link(&lc);
	mpair_open(&p, &c, &lc, 0);
	src = mbuf_new(&p, 0, 4000, 0, 5);
	dst = mbuf_new(&p, 1, 4000, RNIC_ACCESS_REMOTE_WRITE, 0);
	rb = mbuf_new(&p, 1, 4000, RNIC_ACCESS_LOCAL_WRITE, 0);
	for (int i = 0; i < 3; i++) {
		memset(&r, 0, sizeof(r));
		r.wr_id = 50 + (uint64_t)i;
		r.num_sge = 1;
		r.sg_list[0] = (struct rc_sge){mva(&rb, 0), 4000, rb.key};
		rc_qp_post_recv(p.s[1].qp, &r);
	}
	for (int i = 0; i < 6; i++) {
		w = wr_of(i == 3 ? RNIC_WR_SEND : RNIC_WR_RDMA_WRITE, 20 + (uint64_t)i, &src, 4000, mva(&dst, 0),
			  i == 1 ? dst.key + 1 : dst.key);
		w.flags = i == 4 ? 0 : RC_SEND_SIGNALED;
		rc_qp_post_send(p.s[0].qp, &w);
	}
	CHECK(mpair_run(&p, mpair_cq_done, &want, 10000000), "completions");
	static const uint32_t st[6] = {RNIC_WC_SUCCESS, RNIC_WC_REM_ACCESS_ERR, RNIC_WC_WR_FLUSH_ERR,
				       RNIC_WC_WR_FLUSH_ERR, RNIC_WC_WR_FLUSH_ERR, RNIC_WC_WR_FLUSH_ERR};
	for (int i = 0; i < 6; i++) {
		ok &= poll1(&p, 0, &wc) && wc.wr_id == 20 + (uint64_t)i && wc.status == st[i];
		if (!ok) {
			CHECK(0, "completion %d: wr_id %llu status %u", i, (unsigned long long)wc.wr_id, wc.status);
			break;
		}
	}
	for (int i = 0; i < 3; i++)
		CHECK(poll1(&p, 1, &wc) && wc.wr_id == 50 + (uint64_t)i && wc.status == RNIC_WC_WR_FLUSH_ERR,
		      "receive %d: %u", i, wc.status);
	CHECK(!memcmp(src.p, dst.p, 4000), "WQE 1 landed");
	mpair_close(&p);
	free(src.p);
	free(dst.p);
	free(rb.p);
	mcheck_end();
}

static int collect_n;
static void collect(void *arg, const struct rc_pkt *p)
{
	struct rc_pkt *out = arg;

	if (collect_n < 8)
		out[collect_n++] = *p;
}

/* A duplicate of a request before the error is re-ACKed; the NAK carries the
 * PSN of the failing request and the MSN of the messages done. */
static void nak_fields_case(void)
{
	struct rc_qp_cfg c;
	struct rc_pkt pk;
	struct rc_mem mem;
	struct rc_cq cq;
	struct rc_qp *qp;
	uint8_t pay[8] = {0};
	struct rc_pkt out[8];
	int nout = 0;

	mcheck_begin("responder fields: ACK PSN/MSN, duplicate re-ACK with the last PSN, NAK PSN and MSN");
	rc_qp_cfg_default(&c);
	c.qpn = 5;
	c.dest_qpn = 6;
	c.rq_psn = 0xfffffe;
	rc_mem_init(&mem);
	rc_cq_init(&cq, 16);
	qp = rc_qp_create(&c, &mem, &cq, &cq);
	rc_qp_set_tx(qp, collect, out);
	memset(&pk, 0, sizeof(pk));
	pk.dest_qpn = 5;
	pk.opcode = RNIC_OP_RDMA_WRITE_ONLY;
	pk.ackreq = 1;
	pk.payload = pay;
	pk.reth_len = 0; /* 0-byte WRITE: no key check */
	pk.reth_rkey = 0xdead;
	for (uint32_t i = 0; i < 3; i++) {
		pk.psn = (0xfffffe + i) & 0xffffff;
		rc_qp_recv(qp, 0, &pk);
	}
	pk.psn = 0xffffff; /* duplicate */
	rc_qp_recv(qp, 0, &pk);
	pk.psn = 1;
	pk.opcode = RNIC_OP_RDMA_WRITE_MIDDLE; /* no FIRST: invalid */
	rc_qp_recv(qp, 0, &pk);
	nout = rc_qp_progress(qp, 0, 8);
	CHECK(nout == 5, "%d responses", nout);
	struct rc_pkt *o = (struct rc_pkt *)out;
	CHECK(o[0].psn == 0xfffffe && o[0].aeth_msn == 1 && o[1].psn == 0xffffff && o[1].aeth_msn == 2 &&
	      o[2].psn == 0 && o[2].aeth_msn == 3, "ACKs");
	CHECK(o[3].psn == 0 && o[3].aeth_syndrome == 0x1f && o[3].aeth_msn == 3, "duplicate re-ACK: PSN %#x MSN %u",
	      o[3].psn, o[3].aeth_msn);
	CHECK(o[4].psn == 1 && o[4].aeth_syndrome == 0x61 && o[4].aeth_msn == 3 && o[4].dest_qpn == 6,
	      "NAK: PSN %#x syndrome %#x MSN %u", o[4].psn, o[4].aeth_syndrome, o[4].aeth_msn);
	rc_qp_destroy(qp);
	rc_cq_free(&cq);
	mcheck_end();
}

int main(void)
{
	psn_seq_case();
	invalid_req_length_case();
	invalid_req_seq_case();
	recv_too_small_case();
	rem_op_case();
	rnr_case(7, 200000, 1);
	rnr_case(3, 30000, 1);
	rnr_case(2, 1000000000, 0);
	rnr_case(0, 1000000000, 0);
	retry_exhaust_case(0);
	retry_exhaust_case(1);
	static const uint32_t ops[] = {RNIC_WR_RDMA_WRITE, RNIC_WR_RDMA_READ, RNIC_WR_ATOMIC_CMP_AND_SWP,
				       RNIC_WR_ATOMIC_FETCH_AND_ADD};
	for (int i = 0; i < 4; i++) {
		access_case(ops[i], V_RKEY, RNIC_WC_REM_ACCESS_ERR);
		access_case(ops[i], V_BOUNDS, RNIC_WC_REM_ACCESS_ERR);
		access_case(ops[i], V_MR_ACCESS, RNIC_WC_REM_ACCESS_ERR);
		access_case(ops[i], V_QP_ACCESS, RNIC_WC_REM_INV_REQ_ERR);
	}
	access_case(RNIC_WR_ATOMIC_FETCH_AND_ADD, V_MISALIGNED, RNIC_WC_REM_INV_REQ_ERR);
	local_prot_case();
	flush_case();
	nak_fields_case();
	return mcheck_report();
}
