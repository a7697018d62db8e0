/* End-to-end unreliable datagram tests: UD QPs and address handles through
 * the host library, the firmware, the RTL and the wire, two simulated NICs
 * back to back, at path MTU (the port's MTU) 1024 and 4096, in one world
 * (w<width>_ud.pcap). Side 0 sends, except QP1's MAD, which goes both ways.
 * With --quick the cases that do not depend on the MTU run at 1024 only.
 *
 *   rnic-e2e-ud --width 64|512 [--seed N] [--pcap-dir DIR] [--quick]
 *
 * A frame hook keeps the last UD frame each side put on the wire and every
 * case checks it byte by byte against what the work request and its address
 * handle ask for: Ethernet addresses from the AH, IPv4 or IPv6 header (GIDs,
 * traffic class, hop limit, flow label), BTH (UD SEND ONLY opcode, no
 * AckReq, destination QPN), DETH (Q_Key, source QPN), ImmDt, payload, ICRC.
 * Each case prints PASS/FAIL; the closing line is "N passed, N failed". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/roce.h"
#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"
#include "e2e_common.h"
#include "ud_qp.h"

#define QKEY0 0x11110000u /* side 0's UD QP */
#define QKEY1 0x2222abcdu /* side 1's UD QP */
#define SQ_PSN 0x123456u
#define MAX_FRAME 10000

struct ud_world {
	struct e2e_world e;
	uint32_t mtu;                 /* RNIC_IB_MTU_* of both ports */
	struct rnic_qp *qp[2];        /* a UD QP on each side */
	struct rnic_qp *gsi[2];       /* QP1 of each side */
	struct rnic_ah *ah4, *ah6;    /* side 0 -> side 1: IPv4-mapped, IPv6 global */
	struct rnic_pd *pd2;          /* another PD of side 0 ... */
	struct rnic_ah *ah_pd2;       /* ... and an AH of it */
	/* the wire, side by side: UD frames seen, the last one */
	unsigned int ud_frames[2];
	uint8_t last[2][MAX_FRAME];
	size_t last_len[2];
	uint32_t psn_sent;            /* UD frames side 0's QP sent since its last RTS */
};

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t get24(const uint8_t *p) { return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]; }
static uint32_t get32(const uint8_t *p) { return (uint32_t)get16(p) << 16 | get16(p + 2); }

static void frame_hook(void *arg, int port, const uint8_t *f, size_t len, uint64_t cycle)
{
	struct ud_world *u = arg;
	size_t l3 = RNIC_ETH_HDR_BYTES, bth;

	(void)cycle;
	if (port < 0 || port > 1 || len < l3 + RNIC_IPV4_HDR_BYTES)
		return;
	if (get16(f + 12) == RNIC_ETHERTYPE_IPV4)
		bth = l3 + RNIC_IPV4_HDR_BYTES + RNIC_UDP_HDR_BYTES;
	else if (get16(f + 12) == RNIC_ETHERTYPE_IPV6)
		bth = l3 + RNIC_IPV6_HDR_BYTES + RNIC_UDP_HDR_BYTES;
	else
		return;
	if (len < bth + RNIC_BTH_BYTES || (f[bth] != RNIC_OP_UD_SEND_ONLY && f[bth] != RNIC_OP_UD_SEND_ONLY_IMM))
		return;
	u->ud_frames[port]++;
	if (len <= MAX_FRAME) {
		memcpy(u->last[port], f, len);
		u->last_len[port] = len;
	}
}

/* ---------------------------------------------------------------- setup */

static struct rnic_qp *ud_qp(struct sim_pair_side *s, enum rnic_qp_type type)
{
	struct rnic_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = s->cq;
	ia.recv_cq = s->cq;
	ia.qp_type = type;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = RNIC_MAX_SEND_SGE;
	ia.cap.max_recv_sge = RNIC_MAX_RECV_SGE;
	ia.cap.max_inline_data = RNIC_MAX_INLINE_BYTES;
	return rnic_create_qp(s->pd, &ia);
}

static struct rnic_ah *make_ah(struct rnic_pd *pd, const struct sim_pair_side *me,
			       const struct sim_pair_side *peer, int gid)
{
	struct rnic_ah_attr a;

	memset(&a, 0, sizeof(a));
	a.is_global = 1;
	a.port_num = 1;
	a.grh.sgid_index = (uint8_t)gid;
	a.grh.dgid = peer->gids[gid];
	a.grh.hop_limit = gid ? 7 : 0;            /* 0: the default, 64 */
	a.grh.traffic_class = gid ? 0x2e : 0x08;
	a.grh.flow_label = gid ? 0xabcde : 0;
	memcpy(a.dmac, peer->mac, 6);
	(void)me;
	return rnic_create_ah(pd, &a);
}

/* Both ports at mtu, a UD QP on each side, the AHs. */
static int ud_up(struct ud_world *u)
{
	struct sim_pair *p = &u->e.p;

	u->psn_sent = 0;
	for (int s = 0; s < 2; s++)
		if (rnic_set_port_mtu(p->side[s].ctx, u->mtu))
			return 0;
	u->qp[0] = ud_qp(&p->side[0], RNIC_QPT_UD);
	u->qp[1] = ud_qp(&p->side[1], RNIC_QPT_UD);
	u->ah4 = make_ah(p->side[0].pd, &p->side[0], &p->side[1], 0);
	u->ah6 = make_ah(p->side[0].pd, &p->side[0], &p->side[1], 2);
	u->pd2 = rnic_alloc_pd(p->side[0].ctx);
	u->ah_pd2 = u->pd2 ? make_ah(u->pd2, &p->side[0], &p->side[1], 0) : NULL;
	if (!u->qp[0] || !u->qp[1] || !u->ah4 || !u->ah6 || !u->ah_pd2) {
		printf("  UD setup: %s\n", strerror(errno));
		return 0;
	}
	if (e2e_ud_to_rts(u->qp[0], QKEY0, SQ_PSN) || e2e_ud_to_rts(u->qp[1], QKEY1, SQ_PSN))
		return 0;
	for (int s = 0; s < 2; s++) {
		u->gsi[s] = ud_qp(&p->side[s], RNIC_QPT_GSI);
		if (!u->gsi[s] || u->gsi[s]->qp_num != RNIC_GSI_QPN || e2e_ud_to_rts(u->gsi[s], RNIC_GSI_QKEY, SQ_PSN)) {
			printf("  QP1 on side %d: %s\n", s, u->gsi[s] ? "not QPN 1 or not in RTS" : strerror(errno));
			return 0;
		}
	}
	rnic_world_set_frame_hook(u->e.w, frame_hook, u);
	return 1;
}

static void ud_down(struct ud_world *u)
{
	if (u->e.w)
		rnic_world_set_frame_hook(u->e.w, NULL, NULL);
	if (u->ah4)
		rnic_destroy_ah(u->ah4);
	if (u->ah6)
		rnic_destroy_ah(u->ah6);
	if (u->ah_pd2)
		rnic_destroy_ah(u->ah_pd2);
	for (int s = 0; s < 2; s++) {
		if (u->qp[s])
			rnic_destroy_qp(u->qp[s]);
		if (u->gsi[s])
			rnic_destroy_qp(u->gsi[s]);
		u->gsi[s] = NULL;
	}
	if (u->pd2)
		rnic_dealloc_pd(u->pd2);
	u->ah4 = u->ah6 = u->ah_pd2 = NULL;
	u->qp[0] = u->qp[1] = NULL;
	u->pd2 = NULL;
}

/* ---------------------------------------------------------------- the wire */

struct want_frame {
	int ipv6;
	int gid;             /* GID table entry of both sides the AH uses */
	uint8_t tclass, hop;
	uint32_t flow_label;
	uint32_t dqpn, sqpn, qkey;
	int imm;
	int check_psn;       /* the QP's frames since it entered RTS: u->psn_sent */
	const uint8_t *payload;
	size_t len;
};

/* The last UD frame side s sent against w; prints each difference. */
static int check_frame(struct ud_world *u, int s, const struct want_frame *w)
{
	const struct sim_pair_side *me = &u->e.p.side[s], *peer = &u->e.p.side[1 - s];
	const uint8_t *f = u->last[s], *ip = f + RNIC_ETH_HDR_BYTES, *udp, *bth, *x;
	size_t len = u->last_len[s], hdr, pad;
	int ok = 1;

#define WANT(cond, ...) do { if (!(cond)) { printf("  frame: " __VA_ARGS__); printf("\n"); ok = 0; } } while (0)
	WANT(len > 0, "none captured");
	if (!len)
		return 0;
	WANT(!memcmp(f, peer->mac, 6) && !memcmp(f + 6, me->mac, 6), "Ethernet addresses");
	WANT(get16(f + 12) == (w->ipv6 ? RNIC_ETHERTYPE_IPV6 : RNIC_ETHERTYPE_IPV4), "EtherType 0x%04x", get16(f + 12));
	if (w->ipv6) {
		WANT(get32(ip) == (6u << 28 | (uint32_t)w->tclass << 20 | w->flow_label),
		     "IPv6 version/class/flow 0x%08x", get32(ip));
		WANT(ip[7] == w->hop, "hop limit %u, want %u", ip[7], w->hop);
		WANT(!memcmp(ip + 8, me->gids[w->gid].raw, 16) && !memcmp(ip + 24, peer->gids[w->gid].raw, 16),
		     "IPv6 addresses");
		udp = ip + RNIC_IPV6_HDR_BYTES;
	} else {
		WANT(ip[1] == w->tclass && ip[8] == w->hop, "TOS 0x%02x TTL %u", ip[1], ip[8]);
		WANT(!memcmp(ip + 12, me->gids[w->gid].raw + 12, 4) && !memcmp(ip + 16, peer->gids[w->gid].raw + 12, 4),
		     "IPv4 addresses");
		udp = ip + RNIC_IPV4_HDR_BYTES;
	}
	WANT(get16(udp + 2) == RNIC_ROCEV2_UDP_PORT, "UDP port %u", get16(udp + 2));
	bth = udp + RNIC_UDP_HDR_BYTES;
	WANT(bth[0] == (w->imm ? RNIC_OP_UD_SEND_ONLY_IMM : RNIC_OP_UD_SEND_ONLY), "opcode 0x%02x", bth[0]);
	WANT(get16(bth + 2) == RNIC_DEFAULT_PKEY, "P_Key 0x%04x", get16(bth + 2));
	WANT(get24(bth + 5) == w->dqpn, "destination QPN 0x%x, want 0x%x", get24(bth + 5), w->dqpn);
	WANT(get24(bth + 9) == (SQ_PSN + u->psn_sent) % (1u << RNIC_PSN_BITS) || !w->check_psn,
	     "PSN 0x%x, want 0x%x", get24(bth + 9), SQ_PSN + u->psn_sent);
	WANT((bth[8] & 0x80) == 0, "AckReq set");
	x = bth + RNIC_BTH_BYTES;
	WANT(get32(x) == w->qkey, "DETH Q_Key 0x%08x, want 0x%08x", get32(x), w->qkey);
	WANT(get24(x + 5) == w->sqpn, "DETH source QPN 0x%x, want 0x%x", get24(x + 5), w->sqpn);
	x += RNIC_DETH_BYTES;
	if (w->imm) {
		WANT(get32(x) == get32(e2e_imm_bytes), "ImmDt 0x%08x", get32(x));
		x += RNIC_IMMDT_BYTES;
	}
	hdr = (size_t)(x - f);
	pad = (size_t)((bth[1] >> 4) & 3);
	WANT(len == hdr + w->len + pad + RNIC_ICRC_BYTES,
	     "%zu bytes: header %zu, payload %zu, pad %zu", len, hdr, w->len, pad);
	WANT(pad == ((4 - w->len % 4) % 4), "pad count %zu for %zu bytes", pad, w->len);
	WANT(w->len == 0 || !memcmp(x, w->payload, w->len), "payload differs");
#undef WANT
	return ok;
}

/* ---------------------------------------------------------------- cases */

#define SLACK 64

/* One receive buffer of side 1: cap bytes in one SGE, or (split) the GRH
 * area in its own 40-byte SGE of one MR and the rest in a second MR. */
struct rbuf {
	struct e2e_buf a, b;
	int split;
};

static int post_rbuf(struct ud_world *u, struct rnic_qp *qp, struct rbuf *r, uint64_t id, size_t cap,
		     int split)
{
	struct rnic_sg_entry sg[2];
	struct rnic_pd *pd = u->e.p.side[1].pd;

	memset(r, 0, sizeof(*r));
	r->split = split && cap > RNIC_GRH_BYTES;
	if (r->split) {
		if (e2e_buf_init(&r->a, pd, RNIC_GRH_BYTES, RNIC_ACCESS_LOCAL_WRITE, 0) ||
		    e2e_buf_init(&r->b, pd, cap - RNIC_GRH_BYTES, RNIC_ACCESS_LOCAL_WRITE, 0))
			return 0;
		sg[0] = e2e_sg(r->a.p, RNIC_GRH_BYTES, r->a.mr->lkey);
		sg[1] = e2e_sg(r->b.p, (uint32_t)(cap - RNIC_GRH_BYTES), r->b.mr->lkey);
		return e2e_post_recv1(qp, id, sg, 2) == 0;
	}
	if (e2e_buf_init(&r->a, pd, cap, RNIC_ACCESS_LOCAL_WRITE, 0))
		return 0;
	sg[0] = e2e_sg(r->a.p, (uint32_t)cap, r->a.mr->lkey);
	return e2e_post_recv1(qp, id, sg, 1) == 0;
}

static void free_rbuf(struct rbuf *r)
{
	e2e_buf_free(&r->a);
	e2e_buf_free(&r->b);
}

/* The receive buffer after a UD SEND of len bytes from src: the GRH area
 * as rxe and mlx5 fill it (IPv6: the IPv6 header of the frame on the wire;
 * IPv4: 20 zero bytes and the IPv4 header), then the payload, and nothing
 * written outside those 40 + len bytes. */
static int check_rbuf(struct ud_world *u, const struct rbuf *r, const uint8_t *src, size_t len)
{
	const uint8_t *f = u->last[0] + RNIC_ETH_HDR_BYTES;
	uint8_t grh[RNIC_GRH_BYTES], *got;
	size_t n = RNIC_GRH_BYTES + len;
	int ok = 1;

	memset(grh, 0, sizeof(grh));
	if (get16(u->last[0] + 12) == RNIC_ETHERTYPE_IPV6)
		memcpy(grh, f, RNIC_IPV6_HDR_BYTES);
	else
		memcpy(grh + RNIC_GRH_BYTES - RNIC_IPV4_HDR_BYTES, f, RNIC_IPV4_HDR_BYTES);
	got = malloc(n);
	if (!got)
		return 0;
	if (r->split) {
		memcpy(got, r->a.p, RNIC_GRH_BYTES);
		memcpy(got + RNIC_GRH_BYTES, r->b.p, len);
		ok &= e2e_only_written(&r->a, 0, RNIC_GRH_BYTES) && e2e_only_written(&r->b, 0, len);
	} else {
		memcpy(got, r->a.p, n);
		ok &= e2e_only_written(&r->a, 0, n);
	}
	if (!ok)
		printf("  receive buffer: bytes outside the GRH area and payload changed\n");
	if (memcmp(got, grh, RNIC_GRH_BYTES)) {
		printf("  GRH area differs from the frame's IP header:");
		for (int i = 0; i < RNIC_GRH_BYTES; i++)
			printf("%s%02x/%02x", i % 8 ? " " : "\n   ", got[i], grh[i]);
		printf("\n");
		ok = 0;
	}
	if (len && memcmp(got + RNIC_GRH_BYTES, src, len)) {
		printf("  payload differs in the receive buffer\n");
		ok = 0;
	}
	free(got);
	return ok;
}

/* a UD receive of len bytes from sqp on the NIC with MAC smac: the
 * completion carries the GRH area, the sender's QPN and its frame's source
 * MAC (the sender's port: no router between the NICs) */
static struct e2e_want want_recv(uint64_t id, struct rnic_qp *rqp, struct rnic_qp *sqp, const uint8_t *smac,
				 size_t len, int imm)
{
	struct e2e_want w = {id, RNIC_WC_SUCCESS, RNIC_WC_RECV, (long long)(len + RNIC_GRH_BYTES), rqp->qp_num,
			     sqp->qp_num, RNIC_WC_GRH | (imm ? RNIC_WC_WITH_IMM : 0), E2E_ANY, E2E_ANY, smac};

	if (imm) {
		uint32_t v;

		memcpy(&v, e2e_imm_bytes, 4);
		w.imm = v;
	}
	return w;
}

/* One UD work request from side 0's QP sqp to side 1's QPN dqpn (opcode,
 * len bytes from a fresh buffer, the AH, Q_Key); its send completion must
 * have status st, and side 1 must give nrecv receive completions (into
 * rwc). With st SUCCESS its frame is checked against wf (when not NULL),
 * else none may have left. */
struct xfer {
	struct rnic_qp *sqp;
	uint32_t dqpn;
	uint32_t opcode;
	struct rnic_ah *ah;
	uint32_t qkey;
	size_t len;
	unsigned int flags;
	uint32_t st;
	int nrecv;
	struct want_frame *wf;
};

static int post_ud(struct ud_world *u, uint64_t id, const struct xfer *x, struct rnic_wc *wc,
		   struct rnic_wc *rwc, struct e2e_buf *src)
{
	struct rnic_send_wr wr, *bad = NULL;
	struct rnic_sg_entry sg;
	struct e2e_want w;
	unsigned int frames0 = u->ud_frames[0];
	int ok, err, got = 0, rgot = 0;

	memset(wc, 0, sizeof(*wc));
	if (e2e_buf_init(src, u->e.p.side[0].pd, x->len, RNIC_ACCESS_LOCAL_WRITE, 1)) {
		printf("  buffer setup\n");
		return 0;
	}
	sg = e2e_sg(src->p, (uint32_t)x->len, src->mr->lkey);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = x->opcode;
	wr.send_flags = RNIC_SEND_SIGNALED | x->flags;
	memcpy(&wr.imm_data, e2e_imm_bytes, 4);
	wr.wr.ud.ah = x->ah;
	wr.wr.ud.remote_qpn = x->dqpn;
	wr.wr.ud.remote_qkey = x->qkey;
	err = rnic_post_send(x->sqp, &wr, &bad);
	if (err) {
		printf("  post_send: %s\n", strerror(err));
		return 0;
	}
	ok = e2e_wait_cqs(&u->e, wc, 1, rwc, x->nrecv, &got, &rgot);
	if (ok) {
		w = e2e_want_status(id, x->st, x->sqp);
		if (x->st == RNIC_WC_SUCCESS) {
			w.opcode = RNIC_WC_SEND;
			w.byte_len = (long long)x->len;
		}
		ok &= e2e_wc_check("send completion", wc, &w);
	}
	/* let the frame, if any, cross the cable; nothing more may come */
	if (e2e_drain_quiet(&u->e, 300))
		ok = 0;
	if (x->st == RNIC_WC_SUCCESS) {
		if (u->ud_frames[0] != frames0 + 1) {
			printf("  %u UD frames on the wire, want 1\n", u->ud_frames[0] - frames0);
			ok = 0;
		} else if (x->wf) {
			x->wf->payload = src->p;
			x->wf->len = x->len;
			x->wf->imm = x->opcode == RNIC_WR_SEND_WITH_IMM;
			ok &= check_frame(u, 0, x->wf);
		}
		if (x->sqp == u->qp[0])
			u->psn_sent++;
	} else if (u->ud_frames[0] != frames0) {
		printf("  a failed WQE put %u frames on the wire\n", u->ud_frames[0] - frames0);
		ok = 0;
	}
	return ok;
}

static void want_v4(struct ud_world *u, struct want_frame *wf, uint32_t qkey)
{
	memset(wf, 0, sizeof(*wf));
	wf->gid = 0;
	wf->tclass = 0x08;
	wf->hop = RNIC_IPV4_DEFAULT_TTL;
	wf->dqpn = u->qp[1]->qp_num;
	wf->sqpn = u->qp[0]->qp_num;
	wf->qkey = qkey;
	wf->check_psn = 1;
}

static void want_v6(struct ud_world *u, struct want_frame *wf, uint32_t qkey)
{
	memset(wf, 0, sizeof(*wf));
	wf->ipv6 = 1;
	wf->gid = 2;
	wf->tclass = 0x2e;
	wf->hop = 7;
	wf->flow_label = 0xabcde;
	wf->dqpn = u->qp[1]->qp_num;
	wf->sqpn = u->qp[0]->qp_num;
	wf->qkey = qkey;
	wf->check_psn = 1;
}

/* SEND of len bytes into a posted receive buffer of len + 40 + SLACK bytes:
 * the frame, both completions, the buffer. */
static void send_recv(struct ud_world *u, uint64_t id, int v6, uint32_t opcode, size_t len,
		      unsigned int flags, uint32_t wqkey, int split)
{
	size_t mtu = 128u << u->mtu;
	struct want_frame wf;
	struct e2e_buf src;
	struct rbuf r;
	struct rnic_wc wc, rwc;
	struct xfer x;
	struct e2e_want w;
	int ok = 0;

	memset(&src, 0, sizeof(src));
	memset(&rwc, 0, sizeof(rwc));
	memset(&wc, 0, sizeof(wc));
	if (!e2e_world_ready(&u->e))
		return;
	x = (struct xfer){u->qp[0], u->qp[1]->qp_num, opcode, v6 ? u->ah6 : u->ah4, wqkey, len, flags,
			  RNIC_WC_SUCCESS, 1, &wf};
	if (v6)
		want_v6(u, &wf, QKEY1);
	else
		want_v4(u, &wf, QKEY1);
	uint32_t rx_ack0 = e2e_counter(u->e.p.side[0].ctx, RNIC_REG_STAT_RX_ACK);
	uint32_t tx_ack1 = e2e_counter(u->e.p.side[1].ctx, RNIC_REG_STAT_TX_ACK);

	if (!post_rbuf(u, u->qp[1], &r, id ^ 0xf00, len + RNIC_GRH_BYTES + SLACK, split))
		goto report;
	ok = post_ud(u, id, &x, &wc, &rwc, &src);
	/* no acknowledgement either way: the send completed on its own */
	if (e2e_counter(u->e.p.side[0].ctx, RNIC_REG_STAT_RX_ACK) != rx_ack0 ||
	    e2e_counter(u->e.p.side[1].ctx, RNIC_REG_STAT_TX_ACK) != tx_ack1) {
		printf("  an ACK was counted (sender STAT_RX_ACK or receiver STAT_TX_ACK moved)\n");
		ok = 0;
	}
	w = want_recv(id ^ 0xf00, u->qp[1], u->qp[0], u->e.p.side[0].mac, len, opcode == RNIC_WR_SEND_WITH_IMM);
	ok &= e2e_wc_check("receive completion", &rwc, &w);
	ok &= check_rbuf(u, &r, src.p, len);
report:
	e2e_result(ok, "mtu%zu UD %s %zu B %s%s%s: send %s, receive %s (%u B)", mtu,
		   opcode == RNIC_WR_SEND_WITH_IMM ? "SEND_WITH_IMM" : "SEND", len, v6 ? "IPv6" : "IPv4",
		   flags & RNIC_SEND_INLINE ? " inline" : "", split ? ", GRH in its own SGE" : "",
		   e2e_wcs(1, &wc), e2e_wcs(1, &rwc), rwc.byte_len);
	e2e_buf_free(&src);
	free_rbuf(&r);
	e2e_case_done(&u->e, ok);
}

/* SENDs of every size that fits, over the IPv4-mapped AH; with immediate,
 * inline, over the IPv6 AH with the QP's own Q_Key (bit 31 of the WR's). */
static void send_sizes(struct ud_world *u)
{
	size_t mtu = 128u << u->mtu;
	size_t sizes[] = {0, 1, mtu - 1, mtu};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		send_recv(u, 0x100 + i, 0, RNIC_WR_SEND, sizes[i], 0, QKEY1, 0);
	send_recv(u, 0x180, 1, RNIC_WR_SEND_WITH_IMM, 45, RNIC_SEND_INLINE, QKEY1, 0);
	send_recv(u, 0x181, 1, RNIC_WR_SEND, mtu, 0, QKEY1, 1);
}

/* Sending with the QP's own Q_Key: bit 31 set in the WR. Side 0's QP takes
 * side 1's Q_Key for this (RTS -> RTS), then its own again. */
static void own_qkey(struct ud_world *u)
{
	size_t mtu = 128u << u->mtu;
	struct rnic_qp_attr a;
	int ok;

	if (!e2e_world_ready(&u->e))
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = RNIC_QPS_RTS;
	a.qkey = QKEY1;
	ok = rnic_modify_qp(u->qp[0], &a, RNIC_QP_STATE | RNIC_QP_QKEY) == 0;
	e2e_result(ok, "mtu%zu UD RTS -> RTS with a new Q_Key", mtu);
	send_recv(u, 0x190, 1, RNIC_WR_SEND_WITH_IMM, 17, 0, RNIC_UD_QKEY_USE_QP | 0x1234, 0);
	a.qkey = QKEY0;
	if (rnic_modify_qp(u->qp[0], &a, RNIC_QP_STATE | RNIC_QP_QKEY))
		e2e_result(0, "mtu%zu UD RTS -> RTS back to its Q_Key", mtu);
}

/* Datagrams the receiver drops: a foreign Q_Key (then one with the right
 * Q_Key lands in the receive buffer the dropped one left alone), and no
 * receive WQE posted (no RNR NAK, nothing sent back). The sender completes
 * both: UD has no acknowledgement. */
static void drops(struct ud_world *u)
{
	size_t mtu = 128u << u->mtu;
	struct rnic_context *rc = u->e.p.side[1].ctx;
	struct want_frame wf;
	struct e2e_buf src;
	struct rbuf r;
	struct rnic_wc wc, rwc;
	struct e2e_want w;
	uint32_t q0, n0, rnr0, tx0;
	int ok;

	if (!e2e_world_ready(&u->e))
		return;
	q0 = e2e_counter(rc, RNIC_REG_STAT_RX_QKEY_DROP);
	want_v4(u, &wf, QKEY1 ^ 0x10);
	ok = post_rbuf(u, u->qp[1], &r, 0x2f0, 100 + RNIC_GRH_BYTES, 0);
	{
		struct xfer x = {u->qp[0], u->qp[1]->qp_num, RNIC_WR_SEND, u->ah4, QKEY1 ^ 0x10, 100, 0,
				 RNIC_WC_SUCCESS, 0, &wf};

		ok &= post_ud(u, 0x200, &x, &wc, NULL, &src);
	}
	e2e_buf_free(&src);
	ok &= e2e_counter(rc, RNIC_REG_STAT_RX_QKEY_DROP) == q0 + 1;
	ok &= e2e_untouched(&r.a, -E2E_GUARD, 100 + RNIC_GRH_BYTES + E2E_GUARD);
	e2e_result(ok, "mtu%zu UD SEND with a foreign Q_Key: dropped, STAT_RX_QKEY_DROP %u -> %u, no receive completion, buffer untouched",
		   mtu, q0, e2e_counter(rc, RNIC_REG_STAT_RX_QKEY_DROP));
	e2e_case_done(&u->e, ok);
	if (!e2e_world_ready(&u->e))
		return;
	/* the WQE the dropped datagram left is the next one's */
	want_v4(u, &wf, QKEY1);
	{
		struct xfer x = {u->qp[0], u->qp[1]->qp_num, RNIC_WR_SEND, u->ah4, QKEY1, 100, 0,
				 RNIC_WC_SUCCESS, 1, &wf};

		ok = post_ud(u, 0x201, &x, &wc, &rwc, &src);
	}
	w = want_recv(0x2f0, u->qp[1], u->qp[0], u->e.p.side[0].mac, 100, 0);
	ok &= e2e_wc_check("receive completion", &rwc, &w);
	ok &= check_rbuf(u, &r, src.p, 100);
	e2e_result(ok, "mtu%zu UD SEND after the dropped one: into the receive buffer it left", mtu);
	e2e_buf_free(&src);
	free_rbuf(&r);
	e2e_case_done(&u->e, ok);

	if (!e2e_world_ready(&u->e))
		return;
	n0 = e2e_counter(rc, RNIC_REG_STAT_RX_UD_NO_WQE);
	rnr0 = e2e_counter(rc, RNIC_REG_STAT_TX_RNR_NAK);
	tx0 = e2e_counter(rc, RNIC_REG_STAT_TX_FRAMES);
	want_v4(u, &wf, QKEY1);
	{
		struct xfer x = {u->qp[0], u->qp[1]->qp_num, RNIC_WR_SEND, u->ah4, QKEY1, 64, 0,
				 RNIC_WC_SUCCESS, 0, &wf};

		ok = post_ud(u, 0x202, &x, &wc, NULL, &src);
	}
	ok &= e2e_counter(rc, RNIC_REG_STAT_RX_UD_NO_WQE) == n0 + 1;
	ok &= e2e_counter(rc, RNIC_REG_STAT_TX_RNR_NAK) == rnr0 && e2e_counter(rc, RNIC_REG_STAT_TX_FRAMES) == tx0;
	e2e_result(ok, "mtu%zu UD SEND with no receive WQE: dropped, STAT_RX_UD_NO_WQE %u -> %u, no RNR NAK, receiver sent %u frames",
		   mtu, n0, e2e_counter(rc, RNIC_REG_STAT_RX_UD_NO_WQE), e2e_counter(rc, RNIC_REG_STAT_TX_FRAMES) - tx0);
	e2e_buf_free(&src);
	e2e_case_done(&u->e, ok);
}

/* A receive buffer one byte short of GRH area + payload: LOC_LEN_ERR receive
 * completion, nothing written outside the buffer, the receiving QP in the
 * error state (then back to RTS). */
static void recv_too_small(struct ud_world *u)
{
	size_t mtu = 128u << u->mtu;
	struct e2e_buf src;
	struct rbuf r;
	struct rnic_wc wc, rwc;
	struct e2e_want w;
	size_t len = 200;
	int ok;

	if (!e2e_world_ready(&u->e))
		return;
	ok = post_rbuf(u, u->qp[1], &r, 0x3f0, len + RNIC_GRH_BYTES - 1, 0);
	{
		struct xfer x = {u->qp[0], u->qp[1]->qp_num, RNIC_WR_SEND, u->ah4, QKEY1, len, 0,
				 RNIC_WC_SUCCESS, 1, NULL};

		ok &= post_ud(u, 0x300, &x, &wc, &rwc, &src);
	}
	w = e2e_want_status(0x3f0, RNIC_WC_LOC_LEN_ERR, u->qp[1]);
	ok &= e2e_wc_check("receive completion", &rwc, &w);
	ok &= e2e_untouched(&r.a, -E2E_GUARD, 0) && e2e_untouched(&r.a, (long)r.a.len, (long)r.a.len + E2E_GUARD);
	e2e_drain_quiet(&u->e, 1000);
	{
		struct rnic_async_event ev;

		if (rnic_get_async_event(u->e.p.side[1].ctx, &ev) || ev.event_type != RNIC_EVENT_QP_FATAL ||
		    ev.element.qp != u->qp[1]) {
			printf("  no QP_FATAL event for the receiving UD QP\n");
			ok = 0;
		}
	}
	ok &= e2e_ud_to_rts(u->qp[1], QKEY1, SQ_PSN) == 0;
	e2e_result(ok, "mtu%zu UD SEND of %zu B into %zu B: receive %s, QP to the error state and back", mtu,
		   len, len + RNIC_GRH_BYTES - 1, e2e_wcs(1, &rwc));
	e2e_buf_free(&src);
	free_rbuf(&r);
	e2e_case_done(&u->e, ok);
}

struct err_case {
	const char *what;
	uint32_t opcode;
	struct rnic_ah *ah;
	size_t len;
	uint32_t st;
};

/* Work requests the NIC refuses: an error completion, nothing on the wire,
 * the QP in the error state (as rxe does); the QP is brought back to RTS
 * after each. */
static void send_errors(struct ud_world *u, int only_len)
{
	size_t mtu = 128u << u->mtu;
	struct rnic_ah stale;
	struct err_case c[4];
	int n = only_len ? 1 : (int)(sizeof(c) / sizeof(c[0]));

	for (int i = 0; i < n; i++) {
		struct e2e_buf src;
		struct rnic_wc wc;
		struct rnic_async_event ev;
		struct xfer x;
		int ok;

		memset(&src, 0, sizeof(src));
		if (!e2e_world_ready(&u->e))
			return;
		/* (the world's objects, as they are after a rebuild) */
		c[0] = (struct err_case){"SEND of MTU+1 bytes", RNIC_WR_SEND, u->ah4, mtu + 1, RNIC_WC_LOC_LEN_ERR};
		c[1] = (struct err_case){"RDMA WRITE on a UD QP", RNIC_WR_RDMA_WRITE, u->ah4, 16, RNIC_WC_LOC_QP_OP_ERR};
		c[2] = (struct err_case){"SEND to an AH of another PD", RNIC_WR_SEND, u->ah_pd2, 16, RNIC_WC_LOC_QP_OP_ERR};
		c[3] = (struct err_case){"SEND to a destroyed AH", RNIC_WR_SEND, &stale, 16, RNIC_WC_LOC_QP_OP_ERR};
		x = (struct xfer){u->qp[0], u->qp[1]->qp_num, c[i].opcode, c[i].ah, QKEY1, c[i].len, 0, c[i].st, 0, NULL};
		if (c[i].ah == &stale) {
			/* a copy of the handle outlives the AH itself */
			struct rnic_ah *gone = make_ah(u->e.p.side[0].pd, &u->e.p.side[0], &u->e.p.side[1], 0);

			if (!gone || (stale = *gone, rnic_destroy_ah(gone))) {
				e2e_result(0, "mtu%zu UD %s: AH setup", mtu, c[i].what);
				continue;
			}
		}
		ok = post_ud(u, 0x400 + (uint64_t)i, &x, &wc, NULL, &src);
		/* the firmware hears of the error and tells the host */
		e2e_drain_quiet(&u->e, 1000);
		if (rnic_get_async_event(u->e.p.side[0].ctx, &ev) || ev.event_type != RNIC_EVENT_QP_FATAL ||
		    ev.element.qp != u->qp[0]) {
			printf("  no QP_FATAL event for the UD QP\n");
			ok = 0;
		}
		ok &= e2e_ud_to_rts(u->qp[0], QKEY0, SQ_PSN) == 0;
		u->psn_sent = 0;
		e2e_result(ok, "mtu%zu UD %s: %s, QP to the error state and back", mtu, c[i].what, e2e_wcs(1, &wc));
		e2e_buf_free(&src);
		e2e_case_done(&u->e, ok);
	}
}

/* QP1: a 256-byte MAD from side 0's QP1 to side 1's, with the well-known
 * Q_Key, and back. The payload is a MAD header (base version 1, the
 * communication-management class, a Send of a REQ) and zeros. */
static void gsi_mad(struct ud_world *u)
{
	size_t mtu = 128u << u->mtu;

	for (int dir = 0; dir < 2; dir++) {
		struct sim_pair_side *me = &u->e.p.side[dir], *peer = &u->e.p.side[1 - dir];
		struct rnic_ah *ah = NULL;
		struct e2e_buf src, dst;
		struct rnic_sg_entry ss, rs;
		struct rnic_wc wc[2];
		struct e2e_want w;
		int ok = 0, got[2] = {0, 0};
		uint64_t id = 0x500 + (uint64_t)dir;
		static const uint8_t mad_hdr[24] = {1, 0x07, 2, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x2a,
						    0x00, 0x10, 0, 0, 0, 0, 0, 0};

		memset(&src, 0, sizeof(src));
		memset(&dst, 0, sizeof(dst));
		memset(wc, 0, sizeof(wc));
		if (!e2e_world_ready(&u->e))
			return;
		ah = make_ah(me->pd, me, peer, 0);
		if (!ah || e2e_buf_init(&src, me->pd, 256, RNIC_ACCESS_LOCAL_WRITE, 0) ||
		    e2e_buf_init(&dst, peer->pd, 256 + RNIC_GRH_BYTES, RNIC_ACCESS_LOCAL_WRITE, 0))
			goto report;
		memset(src.p, 0, 256);
		memcpy(src.p, mad_hdr, sizeof(mad_hdr));
		src.p[15] = (uint8_t)(0x2a + dir);
		rs = e2e_sg(dst.p, 256 + RNIC_GRH_BYTES, dst.mr->lkey);
		ss = e2e_sg(src.p, 256, src.mr->lkey);
		if (e2e_post_recv1(u->gsi[1 - dir], id ^ 0xf00, &rs, 1))
			goto report;
		if (ud_post_send1(u->gsi[dir], id, &ss, 1, ah, RNIC_GSI_QPN, RNIC_GSI_QKEY))
			goto report;
		/* wc[s]: side s's completion */
		ok = e2e_wait_cqs(&u->e, &wc[0], 1, &wc[1], 1, &got[0], &got[1]);
		w = e2e_want_status(id, RNIC_WC_SUCCESS, u->gsi[dir]);
		w.opcode = RNIC_WC_SEND;
		ok &= e2e_wc_check("QP1 send completion", &wc[dir], &w);
		w = want_recv(id ^ 0xf00, u->gsi[1 - dir], u->gsi[dir], me->mac, 256, 0);
		ok &= e2e_wc_check("QP1 receive completion", &wc[1 - dir], &w);
		ok &= !memcmp(dst.p + RNIC_GRH_BYTES, src.p, 256) && e2e_only_written(&dst, 0, 256 + RNIC_GRH_BYTES);
		/* the IPv4 GRH area: 20 zeros, then version 4 / IHL 5 */
		ok &= e2e_untouched(&dst, -E2E_GUARD, 0) && dst.p[20] == 0x45 && !memcmp(dst.p, (uint8_t[20]){0}, 20);
	report:
		e2e_result(ok, "mtu%zu QP1 MAD (256 B) side %d -> side %d: send %s, receive %s (%u B, src QP %u)", mtu,
			   dir, 1 - dir, e2e_wcs(got[dir], &wc[dir]), e2e_wcs(got[1 - dir], &wc[1 - dir]),
			   wc[1 - dir].byte_len, wc[1 - dir].src_qp);
		if (ah)
			rnic_destroy_ah(ah);
		e2e_buf_free(&src);
		e2e_buf_free(&dst);
		e2e_case_done(&u->e, ok);
	}
}

/* query_device: the UD limits. */
static void device_limits(struct ud_world *u)
{
	struct rnic_device_attr a;
	int ok = rnic_query_device(u->e.p.side[0].ctx, &a) == 0;

	ok &= a.max_ud_payload == (128u << u->mtu) && a.max_ah > 0;
	e2e_result(ok, "query_device: max_ud_payload %u (the port's MTU), max_ah %d", a.max_ud_payload, a.max_ah);
}

/* The world's hooks: the UD QPs and AHs come and go with it (a failed case
 * has the world rebuilt). */
static void on_up(struct e2e_world *x)
{
	struct ud_world *u = x->priv;

	if (!ud_up(u)) {
		e2e_result(0, "mtu%u UD setup", 128u << u->mtu);
		x->dirty = 1;
	}
}

static void on_down(struct e2e_world *x)
{
	ud_down(x->priv);
}

/* One world for both MTUs: the port MTU changes, the UD QPs (which take it
 * at INIT) and AHs are made again. */
static void run(void)
{
	static const uint32_t mtus[] = {RNIC_IB_MTU_1024, RNIC_IB_MTU_4096};
	struct ud_world u;
	struct sim_pair_opts o;

	memset(&u, 0, sizeof(u));
	u.mtu = mtus[0];
	sim_pair_default_opts(&o);
	o.all_gids = 1;
	e2e_world_init(&u.e, "ud", &o);
	u.e.priv = &u;
	u.e.on_up = on_up;
	u.e.on_down = on_down;
	if (!e2e_world_up(&u.e))
		return;
	for (size_t m = 0; m < sizeof(mtus) / sizeof(mtus[0]); m++) {
		if (m) {
			ud_down(&u);
			u.mtu = mtus[m];
			if (!ud_up(&u)) {
				e2e_result(0, "mtu%u UD setup", 128u << u.mtu);
				break;
			}
		}
		if (!e2e_world_ready(&u.e))
			break;
		device_limits(&u);
		send_sizes(&u);
		/* (--quick: what does not depend on the MTU at the first only;
		 * every firmware command is some 10^4 simulated cycles) */
		if (m == 0 || !e2e_quick) {
			own_qkey(&u);
			drops(&u);
			recv_too_small(&u);
		}
		send_errors(&u, m > 0 && e2e_quick);
		if (m == 0 || !e2e_quick)
			gsi_mad(&u);
	}
	e2e_world_down(&u.e);
}

int main(int argc, char **argv)
{
	int rc = e2e_parse_args(argc, argv, "rnic-e2e-ud",
				"UD QPs, address handles and QP1 end to end at path MTU 1024 and 4096.\n");

	if (rc >= 0)
		return rc;
	e2e_rng_seed(e2e_seed);
	run();
	return e2e_summary();
}
