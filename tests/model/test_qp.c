/* Unit tests of the model's RC QP (model/rc_qp.[ch]): two model QPs through
 * the in-memory lossy link exchange every operation at sizes 0, 1, MTU-1,
 * MTU, MTU+1 and 1 MiB for MTU 256, 1024 and 4096 (IPv4; IPv6 and PSN wrap
 * at one MTU); the data arrive byte-exact, every WQE completes exactly once
 * and in order, every SEND is delivered exactly once; duplicate READs are
 * executed again and duplicate ATOMICs answered from the saved result.
 *
 *   test_qp [--quick]   (--quick: MTU 1024 only, no 1 MiB)
 */
#include <stdio.h>
#include <string.h>

#include "mcheck.h"
#include "mpair.h"

enum { X_SEND, X_SEND_IMM, X_WRITE, X_WRITE_IMM, X_READ, X_NOPS };
static const char *const xname[X_NOPS] = {"SEND", "SEND_IMM", "WRITE", "WRITE_IMM", "READ"};

struct xfer {
	int op;
	size_t len;
	struct mbuf src, dst; /* src on the side that has the data, dst where it lands */
	uint64_t wr_id;
	int signaled;
	int recv_index;       /* receive WQE it consumes on side 1, or -1 */
	uint32_t imm;
};

static int quick;

static void lossy(struct rc_link_cfg *lc, uint64_t seed)
{
	memset(lc, 0, sizeof(*lc));
	lc->latency = 1000;
	lc->drop_ppm = 10000;
	lc->dup_ppm = 10000;
	lc->reorder_ppm = 10000;
	lc->corrupt_ppm = 5000;
	lc->seed = seed;
}

static void base_cfg(struct rc_qp_cfg *c, uint32_t mtu)
{
	rc_qp_cfg_default(c);
	c->mtu = mtu;
	c->sq_psn = 0x1000;
	c->rq_psn = 0x2000;
	c->timeout = 3; /* 32.8 us; the round trip is about 2 us */
	c->min_rnr_timer = 1;
	c->sq_size = c->rq_size = 512;
}

/* Split [0, len) of b into n SGEs of uneven sizes. */
static int split_sges(struct rc_sge *sg, const struct mbuf *b, size_t len, int n)
{
	size_t off = 0;

	for (int i = 0; i < n; i++) {
		size_t piece = (i == n - 1) ? len - off : (len - off) / 3;

		sg[i].addr = mva(b, off);
		sg[i].length = (uint32_t)piece;
		sg[i].lkey = b->key;
		off += piece;
	}
	return n;
}

/* Every operation at every size, posted at once on side 0, over link lc. */
static void data_suite(uint32_t mtu, int ipv6, uint32_t psn, int lossy_link, uint64_t seed)
{
	size_t sizes[] = {0, 1, mtu - 1, mtu, mtu + 1, 1u << 20};
	int nsizes = quick ? 5 : 6;
	struct xfer x[X_NOPS * 6];
	int nx = 0, nrecv = 0;
	struct rc_qp_cfg c;
	struct rc_link_cfg lc;
	struct mpair p;
	struct mbuf atom_mem, atom_res;
	uint64_t want_signaled[X_NOPS * 6 + 16];
	int nsig = 0;
	char name[200];
	struct rc_wc wc;

	snprintf(name, sizeof(name), "data: MTU %u %s PSN %#x %s link: every op at 0, 1, MTU-1, MTU, MTU+1%s", mtu,
		 ipv6 ? "IPv6" : "IPv4", psn, lossy_link ? "lossy" : "clean", quick ? "" : ", 1 MiB");
	mcheck_begin(name);
	base_cfg(&c, mtu);
	c.sq_psn = psn;
	c.rq_psn = (psn + 0x800000) & 0xffffff;
	if (lossy_link)
		lossy(&lc, seed);
	else {
		memset(&lc, 0, sizeof(lc));
		lc.latency = 1000;
	}
	if (mpair_open(&p, &c, &lc, ipv6)) {
		CHECK(0, "open");
		mcheck_end();
		return;
	}
	for (int op = 0; op < X_NOPS; op++) {
		for (int si = 0; si < nsizes; si++) {
			struct xfer *t = &x[nx];
			size_t len = sizes[si];
			int data_side = op == X_READ ? 1 : 0;
			unsigned int dacc = RNIC_ACCESS_LOCAL_WRITE |
					    (op == X_WRITE || op == X_WRITE_IMM ? RNIC_ACCESS_REMOTE_WRITE : 0);

			memset(t, 0, sizeof(*t));
			t->op = op;
			t->len = len;
			t->wr_id = 0x100 + (uint64_t)nx;
			t->signaled = nx % 3 != 2;
			t->imm = 0xa0000000u + (uint32_t)nx;
			t->recv_index = -1;
			t->src = mbuf_new(&p, data_side, len,
					  op == X_READ ? RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_LOCAL_WRITE : 0,
					  seed * 1000 + (uint64_t)nx + 1);
			t->dst = mbuf_new(&p, !data_side, len, dacc, 0);
			if (op == X_SEND || op == X_SEND_IMM || op == X_WRITE_IMM) {
				struct rc_recv_wr r;

				memset(&r, 0, sizeof(r));
				r.wr_id = 0x9000 + (uint64_t)nrecv;
				/* a SEND lands in 2 SGEs; a WRITE's immediate needs no buffer */
				r.num_sge = op == X_WRITE_IMM ? 0 : split_sges(r.sg_list, &t->dst, len, 2);
				CHECK(rc_qp_post_recv(p.s[1].qp, &r) == 0, "post_recv");
				t->recv_index = nrecv++;
			}
			nx++;
		}
	}
	for (int i = 0; i < nx; i++) {
		struct xfer *t = &x[i];
		struct rc_send_wr w;

		memset(&w, 0, sizeof(w));
		w.wr_id = t->wr_id;
		w.flags = t->signaled ? RC_SEND_SIGNALED : 0;
		w.imm_data = t->imm;
		switch (t->op) {
		case X_SEND: w.opcode = RNIC_WR_SEND; break;
		case X_SEND_IMM: w.opcode = RNIC_WR_SEND_WITH_IMM; break;
		case X_WRITE: w.opcode = RNIC_WR_RDMA_WRITE; break;
		case X_WRITE_IMM: w.opcode = RNIC_WR_RDMA_WRITE_WITH_IMM; break;
		default: w.opcode = RNIC_WR_RDMA_READ; break;
		}
		if (t->op == X_READ) {
			w.num_sge = split_sges(w.sg_list, &t->dst, t->len, 1 + i % 3);
			w.remote_addr = mva(&t->src, 0);
			w.rkey = t->src.key;
		} else {
			w.num_sge = split_sges(w.sg_list, &t->src, t->len, 1 + i % 3);
			w.remote_addr = mva(&t->dst, 0);
			w.rkey = t->dst.key;
		}
		if (t->len == 0 && i % 2)
			w.num_sge = 0;
		CHECK(rc_qp_post_send(p.s[0].qp, &w) == 0, "post_send %d", i);
		if (t->signaled)
			want_signaled[nsig++] = t->wr_id;
	}
	/* atomics: 8 fetch-and-adds, then a compare-and-swap that hits and one that misses */
	atom_mem = mbuf_new(&p, 1, 8, RNIC_ACCESS_REMOTE_ATOMIC | RNIC_ACCESS_LOCAL_WRITE, 0);
	atom_res = mbuf_new(&p, 0, 80, RNIC_ACCESS_LOCAL_WRITE, 0);
	for (int i = 0; i < 10; i++) {
		struct rc_send_wr w;

		memset(&w, 0, sizeof(w));
		w.wr_id = 0x7000 + (uint64_t)i;
		w.flags = RC_SEND_SIGNALED;
		w.opcode = i < 8 ? RNIC_WR_ATOMIC_FETCH_AND_ADD : RNIC_WR_ATOMIC_CMP_AND_SWP;
		w.compare_add = i < 8 ? 1 : (i == 8 ? 8 : 7);
		w.swap = i == 8 ? 100 : 5;
		w.remote_addr = mva(&atom_mem, 0);
		w.rkey = atom_mem.key;
		w.num_sge = 1;
		w.sg_list[0].addr = mva(&atom_res, 8 * (size_t)i);
		w.sg_list[0].length = 8;
		w.sg_list[0].lkey = atom_res.key;
		CHECK(rc_qp_post_send(p.s[0].qp, &w) == 0, "post atomic %d", i);
		want_signaled[nsig++] = w.wr_id;
	}

	struct mpair_want want = {{(uint32_t)nsig, (uint32_t)nrecv}};
	int done = mpair_run(&p, mpair_cq_done, &want, 2000000000ull);
	CHECK(done, "completions: side 0 %u of %d, side 1 %u of %d at t=%llu ns", rc_cq_count(&p.s[0].cq), nsig,
	      rc_cq_count(&p.s[1].cq), nrecv, (unsigned long long)p.now);
	/* let every timer and straggler settle: nothing more may complete */
	mpair_run(&p, mpair_never, NULL, 2000000);
	CHECK(rc_cq_count(&p.s[0].cq) == (uint32_t)nsig, "side 0 holds %u completions, want %d",
	      rc_cq_count(&p.s[0].cq), nsig);
	CHECK(rc_cq_count(&p.s[1].cq) == (uint32_t)nrecv, "side 1 holds %u completions, want %d",
	      rc_cq_count(&p.s[1].cq), nrecv);
	/* send completions: exactly the signaled WQEs, in order, all successful */
	for (int i = 0; i < nsig && rc_cq_poll(&p.s[0].cq, &wc, 1) == 1; i++) {
		CHECK(wc.wr_id == want_signaled[i] && wc.status == RNIC_WC_SUCCESS,
		      "send completion %d: wr_id %#llx status %u, want %#llx", i, (unsigned long long)wc.wr_id, wc.status,
		      (unsigned long long)want_signaled[i]);
		CHECK(wc.qp_num == 0x11, "qp_num %#x", wc.qp_num);
	}
	/* receive completions: one per SEND and WRITE with immediate, in order */
	for (int i = 0; i < nx; i++) {
		struct xfer *t = &x[i];

		if (t->recv_index < 0)
			continue;
		if (rc_cq_poll(&p.s[1].cq, &wc, 1) != 1)
			break;
		CHECK(wc.wr_id == 0x9000 + (uint64_t)t->recv_index && wc.status == RNIC_WC_SUCCESS,
		      "receive completion for %s %zu: wr_id %#llx status %u", xname[t->op], t->len,
		      (unsigned long long)wc.wr_id, wc.status);
		CHECK(wc.byte_len == t->len, "%s %zu: byte_len %u", xname[t->op], t->len, wc.byte_len);
		CHECK(wc.opcode == (t->op == X_WRITE_IMM ? RNIC_WC_RECV_RDMA_WITH_IMM : RNIC_WC_RECV), "opcode %u",
		      wc.opcode);
		if (t->op == X_SEND)
			CHECK(wc.wc_flags == 0, "flags");
		else
			CHECK(wc.wc_flags == RNIC_WC_FLAG_WITH_IMM && wc.imm_data == t->imm, "%s imm %#x flags %#x",
			      xname[t->op], wc.imm_data, wc.wc_flags);
		CHECK(wc.src_qp == 0x11 && wc.qp_num == 0x222, "src_qp %#x qp_num %#x", wc.src_qp, wc.qp_num);
	}
	/* the data, byte for byte */
	for (int i = 0; i < nx; i++) {
		struct xfer *t = &x[i];

		if (t->op == X_WRITE_IMM || t->op == X_WRITE || t->op == X_SEND || t->op == X_SEND_IMM ||
		    t->op == X_READ)
			CHECK(memcmp(t->src.p, t->dst.p, t->len) == 0, "%s of %zu bytes: data differ", xname[t->op],
			      t->len);
	}
	{
		uint64_t v = 0, r[10];

		memcpy(&v, atom_mem.p, 8);
		memcpy(r, atom_res.p, 80);
		CHECK(v == 100, "atomic target %llu, want 100", (unsigned long long)v);
		for (int i = 0; i < 8; i++)
			CHECK(r[i] == (uint64_t)i, "fetch-and-add %d returned %llu", i, (unsigned long long)r[i]);
		CHECK(r[8] == 8 && r[9] == 100, "compare-and-swap returned %llu, %llu", (unsigned long long)r[8],
		      (unsigned long long)r[9]);
	}
	if (lossy_link) {
		const struct rc_link_stats *ls = rc_link_stats(p.link);
		const struct rc_qp_stats *a = rc_qp_stats(p.s[0].qp), *b = rc_qp_stats(p.s[1].qp);

		CHECK(ls->dropped && ls->duplicated && ls->reordered && (quick || ls->corrupted), "faults happened");
		CHECK(a->retries > 0 && b->rx_duplicates > 0, "retransmissions happened");
		printf("  link: %llu frames, %llu dropped, %llu duplicated, %llu reordered, %llu corrupted "
		       "(%llu refused by the codec); requester: %llu retries, %llu timeouts, %llu retransmitted; "
		       "responder: %llu duplicates, %llu PSN errors, %llu READs again, %llu ATOMICs again\n",
		       (unsigned long long)ls->sent, (unsigned long long)ls->dropped, (unsigned long long)ls->duplicated,
		       (unsigned long long)ls->reordered, (unsigned long long)ls->corrupted,
		       (unsigned long long)p.bad_frames, (unsigned long long)a->retries,
		       (unsigned long long)a->timeouts, (unsigned long long)a->tx_retransmits,
		       (unsigned long long)b->rx_duplicates, (unsigned long long)b->rx_psn_errors,
		       (unsigned long long)b->dup_reads, (unsigned long long)b->dup_atomics);
	}
	CHECK(rc_qp_state(p.s[0].qp) == RNIC_QPS_RTS && rc_qp_state(p.s[1].qp) == RNIC_QPS_RTS, "both QPs in RTS");
	for (int i = 0; i < nx; i++) {
		mbuf_free(&p, x[i].op == X_READ ? 1 : 0, &x[i].src);
		mbuf_free(&p, x[i].op == X_READ ? 0 : 1, &x[i].dst);
	}
	mbuf_free(&p, 1, &atom_mem);
	mbuf_free(&p, 0, &atom_res);
	mpair_close(&p);
	mcheck_end();
}

/* ---- targeted duplicates: drop chosen frames once ---- */

struct dropper {
	int dir;
	unsigned int opcode;
	int skip, count; /* let `skip` matching frames through, then drop `count` */
	int dropped;
};

static int drop_filter(void *arg, int dir, const uint8_t *frame, size_t len)
{
	struct dropper *d = arg;
	struct rc_pkt p;

	if (dir != d->dir || rc_decode(frame, len, &p, 0) != RC_OK || p.opcode != d->opcode)
		return 0;
	if (d->skip > 0) {
		d->skip--;
		return 0;
	}
	if (d->count > 0) {
		d->count--;
		d->dropped++;
		return 1;
	}
	return 0;
}

static void dup_read_case(void)
{
	struct rc_qp_cfg c;
	struct rc_link_cfg lc;
	struct mpair p;
	struct dropper d = {1, RNIC_OP_RDMA_READ_RESPONSE_MIDDLE, 2, 1, 0};
	struct mbuf src, dst;
	struct rc_send_wr w;
	struct rc_wc wc;
	struct mpair_want want = {{1, 0}};

	mcheck_begin("duplicate READ: a lost response makes the requester ask again; the responder re-executes");
	base_cfg(&c, 256);
	memset(&lc, 0, sizeof(lc));
	lc.latency = 1000;
	lc.filter = drop_filter;
	lc.filter_arg = &d;
	mpair_open(&p, &c, &lc, 0);
	src = mbuf_new(&p, 1, 4000, RNIC_ACCESS_REMOTE_READ, 7);
	dst = mbuf_new(&p, 0, 4000, RNIC_ACCESS_LOCAL_WRITE, 0);
	memset(&w, 0, sizeof(w));
	w.wr_id = 1;
	w.opcode = RNIC_WR_RDMA_READ;
	w.flags = RC_SEND_SIGNALED;
	w.num_sge = 1;
	w.sg_list[0] = (struct rc_sge){mva(&dst, 0), 4000, dst.key};
	w.remote_addr = mva(&src, 0);
	w.rkey = src.key;
	rc_qp_post_send(p.s[0].qp, &w);
	CHECK(mpair_run(&p, mpair_cq_done, &want, 100000000), "completion");
	CHECK(rc_cq_poll(&p.s[0].cq, &wc, 1) == 1 && wc.status == RNIC_WC_SUCCESS && wc.byte_len == 4000, "status %u",
	      wc.status);
	CHECK(d.dropped == 1, "dropped %d", d.dropped);
	CHECK(rc_qp_stats(p.s[1].qp)->dup_reads == 1, "responder re-executed %llu READs",
	      (unsigned long long)rc_qp_stats(p.s[1].qp)->dup_reads);
	CHECK(rc_qp_stats(p.s[0].qp)->retries == 1, "one retry, got %llu",
	      (unsigned long long)rc_qp_stats(p.s[0].qp)->retries);
	CHECK(!memcmp(src.p, dst.p, 4000), "data");
	mbuf_free(&p, 1, &src);
	mbuf_free(&p, 0, &dst);
	mpair_close(&p);
	mcheck_end();
}

static void dup_atomic_case(void)
{
	struct rc_qp_cfg c;
	struct rc_link_cfg lc;
	struct mpair p;
	struct dropper d = {1, RNIC_OP_ATOMIC_ACKNOWLEDGE, 0, 1, 0};
	struct mbuf tgt, res;
	struct rc_send_wr w;
	struct rc_wc wc;
	struct mpair_want want = {{1, 0}};
	uint64_t v, r;

	mcheck_begin("duplicate ATOMIC: a lost ATOMIC ACK is answered again from the saved result, executed once");
	base_cfg(&c, 1024);
	memset(&lc, 0, sizeof(lc));
	lc.latency = 1000;
	lc.filter = drop_filter;
	lc.filter_arg = &d;
	mpair_open(&p, &c, &lc, 0);
	tgt = mbuf_new(&p, 1, 8, RNIC_ACCESS_REMOTE_ATOMIC, 0);
	res = mbuf_new(&p, 0, 8, RNIC_ACCESS_LOCAL_WRITE, 0);
	v = 41;
	memcpy(tgt.p, &v, 8);
	memset(&w, 0, sizeof(w));
	w.wr_id = 2;
	w.opcode = RNIC_WR_ATOMIC_FETCH_AND_ADD;
	w.flags = RC_SEND_SIGNALED;
	w.compare_add = 1000;
	w.num_sge = 1;
	w.sg_list[0] = (struct rc_sge){mva(&res, 0), 8, res.key};
	w.remote_addr = mva(&tgt, 0);
	w.rkey = tgt.key;
	rc_qp_post_send(p.s[0].qp, &w);
	CHECK(mpair_run(&p, mpair_cq_done, &want, 100000000), "completion");
	CHECK(rc_cq_poll(&p.s[0].cq, &wc, 1) == 1 && wc.status == RNIC_WC_SUCCESS, "status %u", wc.status);
	memcpy(&v, tgt.p, 8);
	memcpy(&r, res.p, 8);
	CHECK(v == 1041 && r == 41, "target %llu (want 1041), returned %llu (want 41)", (unsigned long long)v,
	      (unsigned long long)r);
	CHECK(rc_qp_stats(p.s[1].qp)->dup_atomics == 1, "answered again %llu times",
	      (unsigned long long)rc_qp_stats(p.s[1].qp)->dup_atomics);
	CHECK(rc_qp_stats(p.s[0].qp)->timeouts == 1, "found by the ACK timeout");
	mbuf_free(&p, 1, &tgt);
	mbuf_free(&p, 0, &res);
	mpair_close(&p);
	mcheck_end();
}

/* Every frame from side 0 arrives twice: no SEND may be delivered twice. */
static void dup_send_case(void)
{
	struct rc_qp_cfg c;
	struct rc_link_cfg lc;
	struct mpair p;
	struct mbuf src, dst[20];
	struct mpair_want want = {{20, 20}};
	struct rc_wc wc;
	int ok = 1;

	mcheck_begin("duplicates: every request frame twice; each SEND delivered exactly once, re-ACKed");
	base_cfg(&c, 256);
	memset(&lc, 0, sizeof(lc));
	lc.latency = 1000;
	lc.dup_ppm = 1000000;
	mpair_open(&p, &c, &lc, 0);
	src = mbuf_new(&p, 0, 1000, 0, 3);
	for (int i = 0; i < 20; i++) {
		struct rc_recv_wr r;
		struct rc_send_wr w;

		dst[i] = mbuf_new(&p, 1, 1000, RNIC_ACCESS_LOCAL_WRITE, 0);
		memset(&r, 0, sizeof(r));
		r.wr_id = (uint64_t)i;
		r.num_sge = 1;
		r.sg_list[0] = (struct rc_sge){mva(&dst[i], 0), 1000, dst[i].key};
		rc_qp_post_recv(p.s[1].qp, &r);
		memset(&w, 0, sizeof(w));
		w.wr_id = 100 + (uint64_t)i;
		w.opcode = RNIC_WR_SEND;
		w.flags = RC_SEND_SIGNALED;
		w.num_sge = 1;
		w.sg_list[0] = (struct rc_sge){mva(&src, 0), (uint32_t)(10 + 45 * i), src.key};
		rc_qp_post_send(p.s[0].qp, &w);
	}
	CHECK(mpair_run(&p, mpair_cq_done, &want, 100000000), "completions");
	mpair_run(&p, mpair_never, NULL, 1000000);
	CHECK(rc_cq_count(&p.s[1].cq) == 20, "%u receive completions", rc_cq_count(&p.s[1].cq));
	for (int i = 0; i < 20 && rc_cq_poll(&p.s[1].cq, &wc, 1) == 1; i++) {
		ok &= wc.wr_id == (uint64_t)i && wc.byte_len == (uint32_t)(10 + 45 * i) && wc.status == 0;
		ok &= !memcmp(dst[i].p, src.p, wc.byte_len);
	}
	CHECK(ok, "receive completions in order with their data");
	CHECK(rc_qp_stats(p.s[1].qp)->rx_duplicates > 0 && rc_qp_stats(p.s[1].qp)->sends_delivered == 20,
	      "duplicates %llu, delivered %llu", (unsigned long long)rc_qp_stats(p.s[1].qp)->rx_duplicates,
	      (unsigned long long)rc_qp_stats(p.s[1].qp)->sends_delivered);
	CHECK(rc_cq_count(&p.s[0].cq) == 20, "%u send completions", rc_cq_count(&p.s[0].cq));
	for (int i = 0; i < 20; i++)
		mbuf_free(&p, 1, &dst[i]);
	mbuf_free(&p, 0, &src);
	mpair_close(&p);
	mcheck_end();
}

/* The packets on the wire: opcodes, PSNs, AckReq, pad, RETH of a 3-packet WRITE. */
struct wirelog {
	struct rc_pkt pk[64];
	uint8_t dir[64];
	int n;
};

static void log_watch(void *arg, int dir, const struct rc_pkt *p)
{
	struct wirelog *l = arg;

	if (l->n < 64) {
		l->pk[l->n] = *p;
		l->pk[l->n].payload = NULL;
		l->dir[l->n++] = (uint8_t)dir;
	}
}

static void wire_case(void)
{
	struct rc_qp_cfg c;
	struct rc_link_cfg lc;
	struct mpair p;
	struct wirelog log = {.n = 0};
	struct mbuf src, dst;
	struct rc_send_wr w;
	struct mpair_want want = {{1, 0}};

	mcheck_begin("wire: a 2.5-MTU WRITE is FIRST/MIDDLE/LAST with consecutive PSNs, RETH on FIRST, pad on LAST");
	base_cfg(&c, 256);
	c.sq_psn = 0xfffffe;
	c.ackreq_policy = RC_ACKREQ_EVERY_N;
	c.ackreq_every = 2;
	memset(&lc, 0, sizeof(lc));
	lc.latency = 100;
	mpair_open(&p, &c, &lc, 0);
	p.watch = log_watch;
	p.watch_arg = &log;
	src = mbuf_new(&p, 0, 641, 0, 9);
	dst = mbuf_new(&p, 1, 641, RNIC_ACCESS_REMOTE_WRITE, 0);
	memset(&w, 0, sizeof(w));
	w.wr_id = 5;
	w.opcode = RNIC_WR_RDMA_WRITE;
	w.flags = RC_SEND_SIGNALED | RC_SEND_SOLICITED;
	w.num_sge = 1;
	w.sg_list[0] = (struct rc_sge){mva(&src, 0), 641, src.key};
	w.remote_addr = mva(&dst, 0);
	w.rkey = dst.key;
	rc_qp_post_send(p.s[0].qp, &w);
	CHECK(mpair_run(&p, mpair_cq_done, &want, 10000000), "completion");
	CHECK(log.n == 5, "%d frames (3 requests, ACKs for AckReq on packets 2 and 3)", log.n);
	if (log.n >= 5) {
		CHECK(log.pk[0].opcode == RNIC_OP_RDMA_WRITE_FIRST && log.pk[0].psn == 0xfffffe &&
		      log.pk[0].reth_len == 641 && log.pk[0].reth_va == mva(&dst, 0) && log.pk[0].reth_rkey == dst.key &&
		      !log.pk[0].ackreq && log.pk[0].payload_len == 256 && log.pk[0].pad == 0, "FIRST");
		CHECK(log.pk[1].opcode == RNIC_OP_RDMA_WRITE_MIDDLE && log.pk[1].psn == 0xffffff && log.pk[1].ackreq,
		      "MIDDLE (AckReq every 2nd)");
		CHECK(log.pk[2].opcode == RNIC_OP_RDMA_WRITE_LAST && log.pk[2].psn == 0 && log.pk[2].ackreq &&
		      log.pk[2].payload_len == 129 && log.pk[2].pad == 3 && !log.pk[2].se,
		      "LAST wraps the PSN to 0, pad 3, no SE on a WRITE");
		CHECK(log.dir[3] == 1 && log.pk[3].opcode == RNIC_OP_ACKNOWLEDGE && log.pk[3].psn == 0xffffff &&
		      log.pk[3].aeth_syndrome == 0x1f && log.pk[3].aeth_msn == 0, "ACK of MIDDLE, MSN 0");
		CHECK(log.dir[4] == 1 && log.pk[4].opcode == RNIC_OP_ACKNOWLEDGE && log.pk[4].psn == 0 &&
		      log.pk[4].aeth_msn == 1, "ACK of LAST, MSN 1");
		CHECK(log.pk[0].pkey == 0xffff && log.pk[0].udp_sport == 0xc000 && log.pk[0].hop_limit == 64 &&
		      log.pk[0].ip_frag == 0x4000, "addressing defaults");
	}
	CHECK(!memcmp(src.p, dst.p, 641), "data");
	mbuf_free(&p, 0, &src);
	mbuf_free(&p, 1, &dst);
	mpair_close(&p);
	mcheck_end();
}

static void timers_case(void)
{
	mcheck_begin("timers: IBTA Table 45 RNR timer and the 4.096 us * 2^n ACK timeout");
	CHECK(rc_rnr_timer_ns(0) == 655360000ull, "code 0: 655.36 ms");
	CHECK(rc_rnr_timer_ns(1) == 10000, "code 1: 0.01 ms");
	CHECK(rc_rnr_timer_ns(12) == 640000, "code 12: 0.64 ms");
	CHECK(rc_rnr_timer_ns(25) == 61440000, "code 25: 61.44 ms");
	CHECK(rc_rnr_timer_ns(31) == 491520000, "code 31: 491.52 ms");
	for (unsigned int i = 2; i < 32; i++)
		CHECK(rc_rnr_timer_ns(i) > rc_rnr_timer_ns(i - 1), "code %u increases", i);
	CHECK(rc_ack_timeout_ns(0) == 0, "timeout 0: none");
	CHECK(rc_ack_timeout_ns(1) == 8192, "timeout 1: 8.192 us");
	CHECK(rc_ack_timeout_ns(14) == 67108864ull, "timeout 14: 67.1 ms");
	CHECK(rc_ack_timeout_ns(31) == 4096ull << 31, "timeout 31");
	mcheck_end();
}

int main(int argc, char **argv)
{
	quick = argc > 1 && !strcmp(argv[1], "--quick");
	timers_case();
	wire_case();
	if (quick) {
		data_suite(1024, 0, 0x1000, 1, 1);
	} else {
		data_suite(256, 0, 0x1000, 0, 1);
		data_suite(256, 0, 0x1000, 1, 2);
		data_suite(1024, 0, 0x1000, 1, 3);
		data_suite(4096, 0, 0x1000, 1, 4);
		data_suite(1024, 1, 0x1000, 1, 5);
		data_suite(256, 0, 0xfff000, 1, 6);
	}
	dup_read_case();
	dup_atomic_case();
	dup_send_case();
	return mcheck_report();
}
