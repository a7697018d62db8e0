/* Unit tests of the scoreboard (model/rc_scoreboard.[ch]): captures made by
 * two model QPs (every frame as it arrives, re-encoded by the codec) pass
 * with the policies the QPs used, over a clean and a lossy link (drops,
 * duplicates, reordering: NAKs, go-back-N, duplicate re-ACKs, READs and
 * ATOMICs answered again); and each kind of tampering with a clean capture is
 * reported at the frame it touched. */
#define _DEFAULT_SOURCE /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcheck.h"
#include "mpair.h"
#include "rc_scoreboard.h"

#define MAX_FRAMES 200000

struct capture {
	struct mpair *p;
	uint8_t *data[MAX_FRAMES];
	size_t len[MAX_FRAMES];
	uint64_t ts[MAX_FRAMES];
	size_t n;
};

static void record(void *arg, int dir, const struct rc_pkt *pkt)
{
	struct capture *c = arg;
	uint8_t buf[RC_MAX_FRAME];
	int len = rc_encode(pkt, buf, sizeof(buf), RC_ENC_NO_MIN_PAD);

	(void)dir;
	if (len <= 0 || c->n >= MAX_FRAMES)
		return;
	c->data[c->n] = malloc((size_t)len);
	memcpy(c->data[c->n], buf, (size_t)len);
	c->len[c->n] = (size_t)len;
	c->ts[c->n] = c->p->now;
	c->n++;
}

static void free_capture(struct capture *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->data[i]);
	c->n = 0;
}

struct delayed_recv {
	rc_time_t at;
	int done;
	struct rc_recv_wr r;
	uint32_t want0;
};

static int until(struct mpair *p, void *arg)
{
	struct delayed_recv *d = arg;

	if (!d->done && p->now >= d->at) {
		rc_qp_post_recv(p->s[1].qp, &d->r);
		d->done = 1;
	}
	return d->done && rc_cq_count(&p->s[0].cq) >= d->want0;
}

/* A workload through every path: WRITEs (one long), a SEND that first meets
 * no receive WQE (RNR), a READ, two ATOMICs, then a WRITE with a bad rkey
 * (NAK, error, flush). */
static void make_capture(struct capture *c, int rtl_policy, const struct rc_link_cfg *lc, int with_error)
{
	static struct mpair p;
	struct rc_qp_cfg cfg;
	struct mbuf src, dst, rd, at, res, rb;
	struct rc_send_wr w;
	struct delayed_recv d;
	uint32_t n = 0;

	rc_qp_cfg_default(&cfg);
	cfg.mtu = 256;
	cfg.sq_psn = 0xfffff0;
	cfg.rq_psn = 0x4000;
	cfg.timeout = 3;
	cfg.min_rnr_timer = 1;
	if (rtl_policy) {
		cfg.ackreq_policy = RC_ACKREQ_EVERY_N;
		cfg.ackreq_every = 16;
		cfg.ack_on_last = 1;
		cfg.ack_every = 8;
	}
	mpair_open(&p, &cfg, lc, 0);
	c->p = &p;
	c->n = 0;
	p.watch = record;
	p.watch_arg = c;
	src = mbuf_new(&p, 0, 20000, RNIC_ACCESS_LOCAL_WRITE, 3);
	dst = mbuf_new(&p, 1, 20000, RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ | RNIC_ACCESS_LOCAL_WRITE, 4);
	rd = mbuf_new(&p, 0, 5000, RNIC_ACCESS_LOCAL_WRITE, 0);
	at = mbuf_new(&p, 1, 8, RNIC_ACCESS_REMOTE_ATOMIC, 0);
	res = mbuf_new(&p, 0, 16, RNIC_ACCESS_LOCAL_WRITE, 0);
	rb = mbuf_new(&p, 1, 3000, RNIC_ACCESS_LOCAL_WRITE, 0);
#define POST(op, len, lbuf, raddr, rk)                                                      \
	do {                                                                                    \
		memset(&w, 0, sizeof(w));                                                           \
		w.wr_id = n++;                                                                      \
		w.opcode = (op);                                                                    \
		w.flags = RC_SEND_SIGNALED;                                                         \
		w.num_sge = 1;                                                                      \
		w.sg_list[0] = (struct rc_sge){mva(&(lbuf), 0), (uint32_t)(len), (lbuf).key};        \
		w.remote_addr = (raddr);                                                            \
		w.rkey = (rk);                                                                      \
		w.compare_add = 5;                                                                  \
		rc_qp_post_send(p.s[0].qp, &w);                                                     \
	} while (0)
	POST(RNIC_WR_RDMA_WRITE, 20000, src, mva(&dst, 0), dst.key);
	POST(RNIC_WR_RDMA_WRITE_WITH_IMM, 700, src, mva(&dst, 0), dst.key);
	POST(RNIC_WR_SEND, 2500, src, 0, 0);
	POST(RNIC_WR_RDMA_READ, 5000, rd, mva(&dst, 0), dst.key);
	POST(RNIC_WR_ATOMIC_FETCH_AND_ADD, 8, res, mva(&at, 0), at.key);
	POST(RNIC_WR_RDMA_WRITE, 0, src, 0, 0);
	POST(RNIC_WR_ATOMIC_CMP_AND_SWP, 8, res, mva(&at, 0), at.key);
	/* one receive WQE now (the WRITE with immediate), one for the SEND 30 us later: RNR meanwhile */
	memset(&d, 0, sizeof(d));
	d.r.wr_id = 100;
	rc_qp_post_recv(p.s[1].qp, &d.r);
	d.r.wr_id = 101;
	d.r.num_sge = 1;
	d.r.sg_list[0] = (struct rc_sge){mva(&rb, 0), 3000, rb.key};
	d.at = 30000;
	d.want0 = n;
	mpair_run(&p, until, &d, 100000000);
	if (with_error) {
		POST(RNIC_WR_RDMA_WRITE, 600, src, mva(&dst, 0), dst.key ^ 0x20);
		POST(RNIC_WR_RDMA_WRITE, 600, src, mva(&dst, 0), dst.key);
		d.want0 = n;
		mpair_run(&p, until, &d, 100000000);
	}
	mpair_run(&p, mpair_never, NULL, 1000000);
	mbuf_free(&p, 0, &src);
	mbuf_free(&p, 1, &dst);
	mbuf_free(&p, 0, &rd);
	mbuf_free(&p, 1, &at);
	mbuf_free(&p, 0, &res);
	mbuf_free(&p, 1, &rb);
	mpair_close(&p);
}

static uint64_t check(struct capture *c, const struct rc_sb_opts *o0, char **out, struct rc_sb_result *r)
{
	struct rc_sb_frame *f = calloc(c->n, sizeof(*f));
	struct rc_sb_opts o = *o0;
	size_t sz;
	FILE *m = open_memstream(out, &sz);
	uint64_t d;

	for (size_t i = 0; i < c->n; i++) {
		f[i].data = c->data[i];
		f[i].len = c->len[i];
		f[i].ts_ns = c->ts[i];
	}
	o.out = m;
	d = rc_sb_check_frames(f, c->n, &o, r);
	fclose(m);
	free(f);
	return d;
}

static void clean_case(int rtl_policy, int lossy)
{
	static struct capture c;
	struct rc_link_cfg lc;
	struct rc_sb_opts o;
	struct rc_sb_result r;
	char *out = NULL, name[160];
	uint64_t d;

	snprintf(name, sizeof(name), "scoreboard: a model-made capture (%s policies, %s link) passes", rtl_policy ? "RTL" : "rxe",
		 lossy ? "lossy" : "clean");
	mcheck_begin(name);
	memset(&lc, 0, sizeof(lc));
	lc.latency = 500;
	if (lossy) {
		lc.drop_ppm = 30000;
		lc.dup_ppm = 30000;
		lc.reorder_ppm = 30000;
		lc.seed = 11;
	}
	make_capture(&c, rtl_policy, &lc, 1);
	if (rtl_policy)
		rc_sb_opts_rtl(&o);
	else
		rc_sb_opts_rxe(&o);
	o.grace_ns = 5000;
	o.faults = lossy;
	d = check(&c, &o, &out, &r);
	CHECK(d == 0, "%llu differences:\n%s", (unsigned long long)d, out);
	CHECK(r.requests > 100 && r.responses > 10 && r.flows == 1, "requests %llu responses %llu flows %llu",
	      (unsigned long long)r.requests, (unsigned long long)r.responses, (unsigned long long)r.flows);
	if (lossy)
		CHECK(r.retransmits > 0, "retransmissions in the capture");
	printf("  %zu frames, %llu requests (%llu retransmitted), %llu responses\n", c.n, (unsigned long long)r.requests,
	       (unsigned long long)r.retransmits, (unsigned long long)r.responses);
	free(out);
	/* the other side's policies do not fit */
	if (!lossy) {
		if (rtl_policy)
			rc_sb_opts_rxe(&o);
		else
			rc_sb_opts_rtl(&o);
		d = check(&c, &o, &out, &r);
		CHECK(d > 0, "the wrong policies pass");
		free(out);
	}
	free_capture(&c);
	mcheck_end();
}

/* Re-encode frame i after fn changed its fields. */
static void edit(struct capture *c, size_t i, void (*fn)(struct rc_pkt *))
{
	struct rc_pkt p;
	uint8_t buf[RC_MAX_FRAME];
	int len;

	rc_decode(c->data[i], c->len[i], &p, 0);
	fn(&p);
	len = rc_encode(&p, buf, sizeof(buf), RC_ENC_NO_MIN_PAD);
	free(c->data[i]);
	c->data[i] = malloc((size_t)len);
	memcpy(c->data[i], buf, (size_t)len);
	c->len[i] = (size_t)len;
}

static void msn_plus(struct rc_pkt *p) { p->aeth_msn++; }
static void ackreq_flip(struct rc_pkt *p) { p->ackreq ^= 1; }
static void syn_rem_op(struct rc_pkt *p) { p->aeth_syndrome = 0x63; }
static void psn_plus(struct rc_pkt *p) { p->psn = rc_psn_add(p->psn, 1); }
static void reth_len_minus(struct rc_pkt *p) { p->reth_len -= 1; }
static void tclass_change(struct rc_pkt *p) { p->tclass ^= 4; }
static void se_set(struct rc_pkt *p) { p->se = 1; }
static void opcode_middle(struct rc_pkt *p) { p->opcode = RNIC_OP_SEND_MIDDLE; }

static int find(struct capture *c, unsigned int opcode, int nth, uint8_t syn_kind_plus1)
{
	for (size_t i = 0; i < c->n; i++) {
		struct rc_pkt p;

		rc_decode(c->data[i], c->len[i], &p, 0);
		if (p.opcode != opcode)
			continue;
		if (syn_kind_plus1 && rc_aeth_kind(p.aeth_syndrome) != (unsigned int)syn_kind_plus1 - 1)
			continue;
		if (nth-- == 0)
			return (int)i;
	}
	return -1;
}

/* at: where the difference shows: 0 at the tampered frame, 1 at the next
 * response from there on, 2 at the next request from there on, 0x100 + op at
 * the next frame with opcode op */
static void tamper_case(const char *what, unsigned int opcode, int nth, uint8_t kind_plus1, void (*fn)(struct rc_pkt *),
			int remove, int dup, int corrupt, int at, const char *want_text)
{
	static struct capture c;
	struct rc_link_cfg lc;
	struct rc_sb_opts o;
	struct rc_sb_result r;
	char *out = NULL, name[200], tag[64];
	int i;
	uint64_t d;

	snprintf(name, sizeof(name), "scoreboard: tampering is found at its frame: %s", what);
	mcheck_begin(name);
	memset(&lc, 0, sizeof(lc));
	lc.latency = 500;
	make_capture(&c, 1, &lc, 1);
	rc_sb_opts_rtl(&o);
	i = find(&c, opcode, nth, kind_plus1);
	CHECK(i >= 0, "no such frame");
	if (i < 0) {
		free_capture(&c);
		mcheck_end();
		return;
	}
	if (fn)
		edit(&c, (size_t)i, fn);
	if (corrupt)
		c.data[i][c.len[i] - 1] ^= 1;
	if (remove) {
		free(c.data[i]);
		memmove(&c.data[i], &c.data[i + 1], (c.n - (size_t)i - 1) * sizeof(c.data[0]));
		memmove(&c.len[i], &c.len[i + 1], (c.n - (size_t)i - 1) * sizeof(c.len[0]));
		memmove(&c.ts[i], &c.ts[i + 1], (c.n - (size_t)i - 1) * sizeof(c.ts[0]));
		c.n--;
	}
	if (dup) {
		memmove(&c.data[i + 1], &c.data[i], (c.n - (size_t)i) * sizeof(c.data[0]));
		memmove(&c.len[i + 1], &c.len[i], (c.n - (size_t)i) * sizeof(c.len[0]));
		memmove(&c.ts[i + 1], &c.ts[i], (c.n - (size_t)i) * sizeof(c.ts[0]));
		c.data[i + 1] = malloc(c.len[i]);
		memcpy(c.data[i + 1], c.data[i], c.len[i]);
		c.n++;
		i++;
	}
	while (at && (size_t)i < c.n) {
		struct rc_pkt p;

		rc_decode(c.data[i], c.len[i], &p, 0);
		if (at >= 0x100 ? p.opcode == at - 0x100 : !!(rc_op_flags(p.opcode) & RC_OPF_REQUEST) == (at == 2))
			break;
		i++;
	}
	d = check(&c, &o, &out, &r);
	snprintf(tag, sizeof(tag), "DIFF frame %d ", i + 1);
	CHECK(d >= 1 && strstr(out, tag) && strstr(out, want_text), "%llu differences, want one at frame %d naming "
	      "\"%s\":\n%s", (unsigned long long)d, i + 1, want_text, out);
	free(out);
	free_capture(&c);
	mcheck_end();
}

int main(void)
{
	clean_case(1, 0);
	clean_case(0, 0);
	clean_case(1, 1);
	clean_case(0, 1);
	tamper_case("an ACK's MSN", RNIC_OP_ACKNOWLEDGE, 2, 1, msn_plus, 0, 0, 0, 0, "AETH MSN");
	tamper_case("a request's AckReq", RNIC_OP_RDMA_WRITE_MIDDLE, 3, 0, ackreq_flip, 0, 0, 0, 0, "AckReq");
	tamper_case("the NAK's syndrome", RNIC_OP_ACKNOWLEDGE, 0, 4, syn_rem_op, 0, 0, 0, 0, "syndrome 0x63");
	tamper_case("an ACK left out", RNIC_OP_ACKNOWLEDGE, 1, 1, NULL, 1, 0, 0, 1, "PSN");
	tamper_case("a READ response's PSN", RNIC_OP_RDMA_READ_RESPONSE_MIDDLE, 1, 0, psn_plus, 0, 0, 0, 0, "PSN");
	tamper_case("a RETH length (found at the LAST packet)", RNIC_OP_RDMA_WRITE_FIRST, 0, 0, reth_len_minus, 0, 0, 0,
		    0x100 + RNIC_OP_RDMA_WRITE_LAST, "rest of the RETH length");
	tamper_case("a traffic class", RNIC_OP_RDMA_WRITE_MIDDLE, 5, 0, tclass_change, 0, 0, 0, 0, "traffic class");
	tamper_case("SE on a MIDDLE packet", RNIC_OP_RDMA_WRITE_MIDDLE, 2, 0, se_set, 0, 0, 0, 0, "SE");
	tamper_case("an ATOMIC ACK twice", RNIC_OP_ATOMIC_ACKNOWLEDGE, 0, 0, NULL, 0, 1, 0, 0, "captured RC_ATOMIC_ACK");
	tamper_case("a request frame lost in the middle", RNIC_OP_RDMA_WRITE_MIDDLE, 4, 0, NULL, 1, 0, 0, 2, "skipped");
	tamper_case("a bad ICRC", RNIC_OP_RDMA_WRITE_MIDDLE, 6, 0, NULL, 0, 0, 1, 0, "ICRC");
	tamper_case("a SEND FIRST turned MIDDLE", RNIC_OP_SEND_FIRST, 0, 0, opcode_middle, 0, 0, 0, 0, "without a FIRST");
	return mcheck_report();
}
