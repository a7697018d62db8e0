/* End-to-end RoCEv2 over IPv6: host library -> BAR doorbells -> RTL -> wire
 * -> RTL -> host memory, two simulated NICs back to back whose port GID
 * tables hold an IPv4-mapped entry (index 0), an IPv6 link-local one (1) and
 * two IPv6 global ones (2, 3) (sim_pair's all_gids). Each QP's address
 * vector picks the GID index, traffic class, hop limit and flow label.
 *
 *   rnic-e2e-ipv6 --width 64|512 [--seed N] [--pcap-dir DIR] [--quick]
 *
 * A frame hook checks every frame on the wire against the address vector
 * of the QP it belongs to: IPv6 (or IPv4 for an IPv4-mapped GID), source
 * address from the sender's selected GID entry, destination from the AV,
 * traffic class, hop limit, the AV's flow label, the UDP
 * source port derived from the AV's flow label, and the ICRC computed here
 * with the Annex A17 masks. A frame addressed to a GID the receiver does
 * not hold (a captured frame, rewritten, its ICRC recomputed, injected) is
 * dropped, counted in STAT_RX_DROP_NOT_ROCE and leaves host memory alone.
 *
 * Each case prints PASS/FAIL; the closing line is "N passed, N failed". A
 * case that fails leaves its QPs in an unknown state, so the world is then
 * rebuilt (a new capture file, suffix _rN) before the next case.
 *
 * Captures (--pcap-dir): wW_ipv6_mtu1024, wW_ipv6_mtu4096, wW_mixed_mtu1024
 * hold only frames the NICs sent; wW_ipv6_drop also the injected ones (one
 * with a wrong ICRC on purpose). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"
#include "e2e_common.h"

#define SLACK 64                   /* destination buffer bytes past the message */
#define RQ_SIZE 16
#define MAX_CAPTURE 16384
#define DROP_LEN 200               /* payload of the WRITE ONLY the drop case rewrites */

/* ---------------------------------------------------------------- wire */

static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t get24(const uint8_t *p) { return (uint32_t)p[0] << 16 | get16(p + 1); }

/* CRC32 (IEEE 802.3, reflected), bitwise: independent of the RTL's and the
 * model's tables. */
static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return crc;
}

/* The ICRC of an IP datagram of len bytes (IP header up to, not including,
 * the ICRC), Annex A17: 8 bytes of ones for the LRH, then the datagram with
 * the variant fields as ones: IPv6 traffic class, flow label and hop limit
 * (IPv4 TOS, TTL and header checksum), the UDP checksum and the BTH byte
 * of FECN, BECN and resv6a. */
static uint32_t icrc(const uint8_t *ip, size_t len, int ipv6)
{
	size_t iph = ipv6 ? RNIC_IPV6_HDR_BYTES : RNIC_IPV4_HDR_BYTES;
	size_t hl = iph + RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES;
	uint8_t h[RNIC_IPV6_HDR_BYTES + RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES];
	uint8_t ones[RNIC_ICRC_LRH_ONES_BYTES];
	uint32_t crc = RNIC_ICRC_CRC_INIT;

	if (len < hl)
		return 0;
	memcpy(h, ip, hl);
	if (ipv6) {
		h[0] |= 0x0f;              /* traffic class, high nibble */
		h[1] = h[2] = h[3] = 0xff; /* traffic class, low nibble; flow label */
		h[7] = 0xff;               /* hop limit */
	} else {
		h[1] = 0xff;               /* TOS */
		h[8] = 0xff;               /* TTL */
		h[10] = h[11] = 0xff;      /* header checksum */
	}
	h[iph + 6] = h[iph + 7] = 0xff;                 /* UDP checksum */
	h[iph + RNIC_UDP_HDR_BYTES + 4] = 0xff;         /* BTH FECN, BECN, resv6a */
	memset(ones, 0xff, sizeof(ones));
	crc = crc32_update(crc, ones, sizeof(ones));
	crc = crc32_update(crc, h, hl);
	crc = crc32_update(crc, ip + hl, len - hl);
	return ~crc;
}

/* Where a frame's IP datagram is: 1 and *ip, *iplen (ICRC included),
 * *ipv6, or 0 if the frame is not IPv4/IPv6 UDP to the RoCEv2 port with a
 * whole BTH and ICRC. */
static int frame_ip(const uint8_t *f, size_t len, const uint8_t **ip, size_t *iplen, int *ipv6)
{
	uint32_t et, dlen, iph;

	if (len < RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES)
		return 0;
	et = get16(f + 12);
	*ip = f + RNIC_ETH_HDR_BYTES;
	if (et == RNIC_ETHERTYPE_IPV6) {
		*ipv6 = 1;
		iph = RNIC_IPV6_HDR_BYTES;
		if (len < RNIC_ETH_HDR_BYTES + iph || (*ip)[0] >> 4 != 6 || (*ip)[6] != RNIC_IP_PROTO_UDP)
			return 0;
		dlen = iph + get16(*ip + 4);
	} else if (et == RNIC_ETHERTYPE_IPV4) {
		*ipv6 = 0;
		iph = RNIC_IPV4_HDR_BYTES;
		if ((*ip)[0] != 0x45 || (*ip)[9] != RNIC_IP_PROTO_UDP)
			return 0;
		dlen = get16(*ip + 2);
	} else {
		return 0;
	}
	if (dlen < iph + RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES + RNIC_ICRC_BYTES ||
	    RNIC_ETH_HDR_BYTES + dlen > len || get16(*ip + iph + 2) != RNIC_ROCEV2_UDP_PORT)
		return 0;
	*iplen = dlen;
	return 1;
}

static void put_icrc(uint8_t *ip, size_t iplen, int ipv6)
{
	uint32_t c = icrc(ip, iplen - RNIC_ICRC_BYTES, ipv6);

	for (int i = 0; i < 4; i++)
		ip[iplen - RNIC_ICRC_BYTES + (size_t)i] = (uint8_t)(c >> (8 * i));
}

static uint32_t carried_icrc(const uint8_t *ip, size_t iplen)
{
	const uint8_t *p = ip + iplen - RNIC_ICRC_BYTES;

	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The UDP source port rdma-core derives from a flow label (the label from
 * the QP numbers when 0): rdma_calc_flow_label, rdma_flow_label_to_udp_sport. */
static uint32_t want_sport(uint32_t lqpn, uint32_t rqpn, uint32_t fl)
{
	if (!fl) {
		uint64_t v = (uint64_t)lqpn * rqpn;

		v ^= v >> 20;
		v ^= v >> 40;
		fl = (uint32_t)(v & 0xfffff);
	}
	return ((fl & 0x3fff) ^ ((fl & 0xfc000) >> 14)) | RNIC_ROCEV2_SPORT_MIN;
}

static int gid_v4_mapped(const union rnic_gid *g)
{
	for (int i = 0; i < 10; i++)
		if (g->raw[i])
			return 0;
	return g->raw[10] == 0xff && g->raw[11] == 0xff;
}

static void gid_str(char *s, size_t n, const uint8_t *g)
{
	snprintf(s, n, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x", g[0], g[1],
		 g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

/* ---------------------------------------------------------------- worlds */

struct wire {
	uint64_t frames, v6, v4;  /* frames checked; of them IPv6, IPv4 */
	uint64_t mac_ctrl;        /* PAUSE frames of the MACs' flow control, not checked */
	uint64_t bad_hdr;         /* addressing fields not what the AV says */
	uint64_t bad_icrc;        /* carried ICRC differs from ours */
	uint64_t v6_qp[SIM_PAIR_MAX_QPS]; /* IPv6 frames of QP pair i */
	uint64_t v4_qp[SIM_PAIR_MAX_QPS];
	int printed;
	/* capture: the next WRITE ONLY from side 0 to side 1's QP with this number */
	int capture_armed;
	uint32_t capture_qpn;
	size_t captured_len;
	uint8_t captured[MAX_CAPTURE];
};

/* A world (e2e_world) with an address vector per QP pair and the frame
 * hook's findings. */
struct wctx {
	struct e2e_world e;
	struct sim_pair_av av[SIM_PAIR_MAX_QPS];
	struct wire wire;
};

static void wire_bad(struct wire *wr, uint64_t cycle, int port, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void wire_bad(struct wire *wr, uint64_t cycle, int port, const char *fmt, ...)
{
	va_list ap;

	if (wr->printed++ >= 12)
		return;
	va_start(ap, fmt);
	printf("  wire: frame %llu from side %d at cycle %llu: ", (unsigned long long)wr->frames, port,
	       (unsigned long long)cycle);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

/* Every frame a NIC sends (injected ones are not checked) against the
 * address vector of its QP pair. */
static void frame_hook(void *arg, int port, const uint8_t *f, size_t len, uint64_t cycle)
{
	struct wctx *x = arg;
	struct wire *wr = &x->wire;
	const struct sim_pair_side *me, *peer;
	const struct sim_pair_av *av;
	const union rnic_gid *sg_, *dg;
	const uint8_t *ip, *udp, *bth;
	size_t iplen;
	int ipv6, qpi = -1, bad = 0;
	uint32_t dqpn, hop;
	char a[64], b[64];

	if (port < 0 || port > 1)
		return;
	if (len >= 14 && get16(f + 12) == RNIC_ETHERTYPE_MAC_CTRL) {
		wr->mac_ctrl++; /* made by the MAC, not by the core */
		return;
	}
	wr->frames++;
	if (!frame_ip(f, len, &ip, &iplen, &ipv6)) {
		wire_bad(wr, cycle, port, "not RoCEv2 over IPv4/IPv6 (ethertype 0x%04x, %zu bytes)",
			 len >= 14 ? get16(f + 12) : 0, len);
		wr->bad_hdr++;
		return;
	}
	me = &x->e.p.side[port];
	peer = &x->e.p.side[1 - port];
	udp = ip + (ipv6 ? RNIC_IPV6_HDR_BYTES : RNIC_IPV4_HDR_BYTES);
	bth = udp + RNIC_UDP_HDR_BYTES;
	dqpn = get24(bth + 5);
	for (int i = 0; i < x->e.p.nqp; i++)
		if (peer->qp[i] && peer->qp[i]->qp_num == dqpn)
			qpi = i;
	if (carried_icrc(ip, iplen) != icrc(ip, iplen - RNIC_ICRC_BYTES, ipv6)) {
		wire_bad(wr, cycle, port, "ICRC 0x%08x, computed 0x%08x", carried_icrc(ip, iplen),
			 icrc(ip, iplen - RNIC_ICRC_BYTES, ipv6));
		wr->bad_icrc++;
	}
	if (qpi < 0) {
		wire_bad(wr, cycle, port, "destination QPN 0x%x is no QP of side %d", dqpn, 1 - port);
		wr->bad_hdr++;
		return;
	}
	av = &x->av[qpi];
	sg_ = &me->gids[av->sgid_index];
	dg = &peer->gids[av->sgid_index];
	hop = av->hop_limit ? av->hop_limit : RNIC_IPV4_DEFAULT_TTL;
	if (memcmp(f, peer->mac, 6) || memcmp(f + 6, me->mac, 6)) {
		wire_bad(wr, cycle, port, "QP pair %d: Ethernet addresses wrong", qpi);
		bad = 1;
	}
	if (ipv6 != !gid_v4_mapped(dg)) {
		wire_bad(wr, cycle, port, "QP pair %d (GID index %u): IPv%d, want IPv%d", qpi, av->sgid_index,
			 ipv6 ? 6 : 4, ipv6 ? 4 : 6);
		wr->bad_hdr++;
		return;
	}
	if (ipv6) {
		uint32_t tc = (uint32_t)(ip[0] & 0x0f) << 4 | ip[1] >> 4;
		uint32_t fl = (uint32_t)(ip[1] & 0x0f) << 16 | get16(ip + 2);

		wr->v6++;
		wr->v6_qp[qpi]++;
		if (memcmp(ip + 8, sg_->raw, 16)) {
			gid_str(a, sizeof(a), ip + 8);
			gid_str(b, sizeof(b), sg_->raw);
			wire_bad(wr, cycle, port, "QP pair %d: IPv6 source %s, want %s (GID index %u)", qpi, a, b,
				 av->sgid_index);
			bad = 1;
		}
		if (memcmp(ip + 24, dg->raw, 16)) {
			gid_str(a, sizeof(a), ip + 24);
			gid_str(b, sizeof(b), dg->raw);
			wire_bad(wr, cycle, port, "QP pair %d: IPv6 destination %s, want %s", qpi, a, b);
			bad = 1;
		}
		if (tc != av->traffic_class || ip[7] != hop || fl != av->flow_label) {
			wire_bad(wr, cycle, port,
				 "QP pair %d: traffic class 0x%02x hop limit %u flow label 0x%05x, want 0x%02x %u 0x%05x",
				 qpi, tc, ip[7], fl, av->traffic_class, hop, av->flow_label);
			bad = 1;
		}
	} else {
		wr->v4++;
		wr->v4_qp[qpi]++;
		if (memcmp(ip + 12, sg_->raw + 12, 4) || memcmp(ip + 16, dg->raw + 12, 4)) {
			wire_bad(wr, cycle, port, "QP pair %d: IPv4 %u.%u.%u.%u -> %u.%u.%u.%u, want %u.%u.%u.%u -> %u.%u.%u.%u",
				 qpi, ip[12], ip[13], ip[14], ip[15], ip[16], ip[17], ip[18], ip[19], sg_->raw[12],
				 sg_->raw[13], sg_->raw[14], sg_->raw[15], dg->raw[12], dg->raw[13], dg->raw[14],
				 dg->raw[15]);
			bad = 1;
		}
		if (ip[1] != av->traffic_class || ip[8] != hop) {
			wire_bad(wr, cycle, port, "QP pair %d: TOS 0x%02x TTL %u, want 0x%02x %u", qpi, ip[1], ip[8],
				 av->traffic_class, hop);
			bad = 1;
		}
	}
	if (get16(udp) != want_sport(me->qp[qpi]->qp_num, dqpn, av->flow_label)) {
		wire_bad(wr, cycle, port, "QP pair %d: UDP source port 0x%04x, want 0x%04x (flow label 0x%05x)", qpi,
			 get16(udp), want_sport(me->qp[qpi]->qp_num, dqpn, av->flow_label), av->flow_label);
		bad = 1;
	}
	wr->bad_hdr += (uint64_t)bad;
	if (wr->capture_armed && port == 0 && dqpn == wr->capture_qpn && bth[0] == RNIC_OP_RDMA_WRITE_ONLY &&
	    len <= MAX_CAPTURE) {
		memcpy(wr->captured, f, len);
		wr->captured_len = len;
		wr->capture_armed = 0;
	}
}

/* After the QPs are connected: the hook checks every frame from now on. */
static void wire_up(struct e2e_world *e)
{
	struct wctx *x = e->priv;

	memset(&x->wire, 0, sizeof(x->wire));
	rnic_world_set_frame_hook(e->w, frame_hook, x);
}

/* Before the world goes away: every frame as its AV says, with a right
 * ICRC (the rest of the end of a world is e2e_world_down's). */
static void wire_down(struct e2e_world *e)
{
	struct wctx *x = e->priv;
	struct wire *wr = &x->wire;

	e2e_result(wr->frames > 0 && wr->bad_hdr == 0 && wr->bad_icrc == 0,
	           "%s: %llu frames on the wire (%llu IPv6, %llu IPv4): %llu header mismatches, %llu ICRC mismatches",
	           e->tag, (unsigned long long)wr->frames, (unsigned long long)wr->v6, (unsigned long long)wr->v4,
	           (unsigned long long)wr->bad_hdr, (unsigned long long)wr->bad_icrc);
	rnic_world_set_frame_hook(e->w, NULL, NULL);
}

/* A world whose QP pair i uses av[i] (nqp of them). */
static int world_open(struct wctx *x, const char *tag, const struct sim_pair_opts *o,
		      const struct sim_pair_av *av)
{
	memset(x, 0, sizeof(*x));
	e2e_world_init(&x->e, tag, o);
	memcpy(x->av, av, (size_t)o->nqp * sizeof(*av));
	x->e.o.all_gids = 1;
	x->e.o.av = x->av;
	x->e.on_up = wire_up;
	x->e.on_down = wire_down;
	x->e.priv = x;
	return e2e_world_up(&x->e);
}

/* ---------------------------------------------------------------- work */

/* A completion: wr_id, status, opcode, qp_num; byte_len and src_qp unless < 0. */
static int wc_ok(const char *what, const struct rnic_wc *wc, uint64_t wr_id, uint32_t opcode, uint32_t qpn,
		 long long byte_len, long long src_qp)
{
	if (wc->wr_id == wr_id && wc->status == RNIC_WC_SUCCESS && wc->opcode == opcode && wc->qp_num == qpn &&
	    (byte_len < 0 || wc->byte_len == byte_len) && (src_qp < 0 || wc->src_qp == src_qp))
		return 1;
	printf("  %s: wr_id 0x%llx status %s opcode %u qp %u byte_len %u src_qp %u; want 0x%llx success %u %u %lld %lld\n",
	       what, (unsigned long long)wc->wr_id, rnic_wc_status_str(wc->status), wc->opcode, wc->qp_num,
	       wc->byte_len, wc->src_qp, (unsigned long long)wr_id, opcode, qpn, byte_len, src_qp);
	return 0;
}

static const char *av_name(const struct wctx *x, int qpi)
{
	static const char *const names[RNIC_GID_TABLE_SIZE] = {"IPv4-mapped", "IPv6 link-local", "IPv6 global",
								"IPv6 global (2001:db8:1::)"};

	return names[x->av[qpi].sgid_index % RNIC_GID_TABLE_SIZE];
}

/* Frames of QP pair qpi seen since a snapshot, in the family its AV names. */
static uint64_t family_frames(const struct wctx *x, int qpi)
{
	return gid_v4_mapped(&x->e.p.side[0].gids[x->av[qpi].sgid_index]) ? x->wire.v4_qp[qpi] : x->wire.v6_qp[qpi];
}

/* ---------------------------------------------------------------- cases */

/* One RDMA WRITE of len bytes from side 0's QP qpi into a buffer of
 * len + SLACK bytes on side 1 (op RNIC_WR_RDMA_WRITE), or one SEND into a
 * posted receive of that size (RNIC_WR_SEND). */
static void xfer_case(struct wctx *x, int qpi, size_t len, uint32_t op, uint32_t mtu)
{
	struct rnic_qp *sqp = x->e.p.side[0].qp[qpi], *rqp = x->e.p.side[1].qp[qpi];
	struct e2e_buf src, dst;
	struct rnic_sg_entry ss, rs;
	struct rnic_wc ws, wr;
	int send = op == RNIC_WR_SEND, ok = 0, g0 = 0, g1 = 0;
	uint64_t id = ((uint64_t)mtu << 32) | len, c0, fr0, bad0;

	if (!x->e.up)
		return;
	fr0 = family_frames(x, qpi);
	bad0 = x->wire.bad_hdr + x->wire.bad_icrc;
	if (e2e_buf_init(&src, x->e.p.side[0].pd, len, RNIC_ACCESS_LOCAL_WRITE, 1) |
	    e2e_buf_init(&dst, x->e.p.side[1].pd, len + SLACK, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0)) {
		e2e_result(0, "mtu%u qp%d %s: buffer setup", mtu, qpi, av_name(x, qpi));
		goto out;
	}
	ss = e2e_sg(src.p, (uint32_t)len, src.mr->lkey);
	rs = e2e_sg(dst.p, (uint32_t)(len + SLACK), dst.mr->lkey);
	c0 = rnic_world_cycle(x->e.w);
	if (send && e2e_post_recv1(rqp, id ^ 0xaa, &rs, 1))
		goto report;
	if (e2e_post_send1(sqp, id, op, &ss, 1, RNIC_SEND_SIGNALED, (uint64_t)(uintptr_t)dst.p, dst.mr->rkey))
		goto report;
	ok = e2e_wait_cqs(&x->e, &ws, 1, &wr, send, &g0, &g1);
	if (ok) {
		ok &= wc_ok("send completion", &ws, id, send ? RNIC_WC_SEND : RNIC_WC_RDMA_WRITE, sqp->qp_num, -1, -1);
		if (send)
			ok &= wc_ok("receive completion", &wr, id ^ 0xaa, RNIC_WC_RECV, rqp->qp_num, (long long)len,
				    sqp->qp_num);
	}
	if (memcmp(src.p, dst.p, len)) {
		printf("  data differ\n");
		ok = 0;
	}
	if (!e2e_only_written(&dst, 0, len)) {
		printf("  bytes outside the message changed (slack or guards)\n");
		ok = 0;
	}
	if (family_frames(x, qpi) == fr0 || x->wire.bad_hdr + x->wire.bad_icrc != bad0) {
		printf("  wire: %llu new frames of the expected IP version, %llu new mismatches\n",
		       (unsigned long long)(family_frames(x, qpi) - fr0),
		       (unsigned long long)(x->wire.bad_hdr + x->wire.bad_icrc - bad0));
		ok = 0;
	}
report:
	e2e_result(ok, "mtu%u qp%d %s %s %zu B: %llu frames, %llu cycles", mtu, qpi, av_name(x, qpi),
	           send ? "SEND" : "RDMA WRITE", len, (unsigned long long)(family_frames(x, qpi) - fr0),
	           (unsigned long long)(rnic_world_cycle(x->e.w) - c0));
out:
	e2e_buf_free(&src);
	e2e_buf_free(&dst);
	e2e_case_done(&x->e, ok);
}

/* QP pairs 0 and 1 at once, their WRs interleaved: n rounds of a WRITE and
 * a SEND on each, all posted before the first is polled. */
static void interleave_case(struct wctx *x, uint32_t mtu)
{
	enum { ROUNDS = 4, PER = 4 * ROUNDS };
	struct e2e_buf src[2], dst[2][PER];
	struct rnic_sg_entry ss, rs;
	struct rnic_wc w0[2 * PER], w1[2 * PER];
	size_t len[2][PER];
	int ok = 0, g0 = 0, g1 = 0, setup = 0, nrecv = 0, seen0[2] = {0, 0}, seen1[2] = {0, 0};
	uint64_t fr[2], bad0 = x->wire.bad_hdr + x->wire.bad_icrc, c0;

	if (!x->e.up)
		return;
	memset(dst, 0, sizeof(dst));
	memset(src, 0, sizeof(src));
	for (int q = 0; q < 2; q++) {
		fr[q] = family_frames(x, q);
		setup |= e2e_buf_init(&src[q], x->e.p.side[0].pd, 4 * mtu, RNIC_ACCESS_LOCAL_WRITE, 1);
		for (int k = 0; k < PER; k++) {
			len[q][k] = (size_t)(e2e_rng() % (3 * mtu + 2));
			setup |= e2e_buf_init(&dst[q][k], x->e.p.side[1].pd, len[q][k] + SLACK,
					   RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0);
		}
	}
	if (setup) {
		e2e_result(0, "mtu%u interleaved: buffer setup", mtu);
		goto out;
	}
	c0 = rnic_world_cycle(x->e.w);
	/* receives for the SENDs (odd k) */
	for (int k = 1; k < PER; k += 2)
		for (int q = 0; q < 2; q++) {
			rs = e2e_sg(dst[q][k].p, (uint32_t)(len[q][k] + SLACK), dst[q][k].mr->lkey);
			if (e2e_post_recv1(x->e.p.side[1].qp[q], (uint64_t)(0x100 * q + k), &rs, 1))
				goto report;
			nrecv++;
		}
	for (int k = 0; k < PER; k++)
		for (int q = 0; q < 2; q++) {
			ss = e2e_sg(src[q].p + (k * 7) % mtu, (uint32_t)len[q][k], src[q].mr->lkey);
			if (e2e_post_send1(x->e.p.side[0].qp[q], (uint64_t)(0x100 * q + k), k & 1 ? RNIC_WR_SEND : RNIC_WR_RDMA_WRITE,
				       &ss, 1, RNIC_SEND_SIGNALED, (uint64_t)(uintptr_t)dst[q][k].p, dst[q][k].mr->rkey))
				goto report;
		}
	ok = e2e_wait_cqs(&x->e, w0, 2 * PER, w1, nrecv, &g0, &g1);
	/* each QP's completions in its own posting order */
	for (int i = 0; i < g0; i++) {
		int q = w0[i].qp_num == x->e.p.side[0].qp[1]->qp_num, k = seen0[q]++;

		ok &= wc_ok("send completion", &w0[i], (uint64_t)(0x100 * q + k), k & 1 ? RNIC_WC_SEND : RNIC_WC_RDMA_WRITE,
			    x->e.p.side[0].qp[q]->qp_num, -1, -1);
	}
	for (int i = 0; i < g1; i++) {
		int q = w1[i].qp_num == x->e.p.side[1].qp[1]->qp_num, k = 2 * seen1[q]++ + 1;

		ok &= wc_ok("receive completion", &w1[i], (uint64_t)(0x100 * q + k), RNIC_WC_RECV,
			    x->e.p.side[1].qp[q]->qp_num, (long long)len[q][k < PER ? k : PER - 1],
			    x->e.p.side[0].qp[q]->qp_num);
	}
	for (int q = 0; q < 2; q++) {
		for (int k = 0; k < PER; k++)
			if (memcmp(dst[q][k].p, src[q].p + (k * 7) % mtu, len[q][k]) ||
			    !e2e_only_written(&dst[q][k], 0, len[q][k])) {
				printf("  qp%d message %d (%zu B): wrong data or bytes around it changed\n", q, k,
				       len[q][k]);
				ok = 0;
			}
		if (family_frames(x, q) == fr[q]) {
			printf("  qp%d (%s): no frame of its IP version\n", q, av_name(x, q));
			ok = 0;
		}
	}
	if (x->wire.bad_hdr + x->wire.bad_icrc != bad0)
		ok = 0;
report:
	e2e_result(ok, "mtu%u interleaved: qp0 %s and qp1 %s, %d WRITEs and SENDs each: %d+%d completions, frames %llu/%llu, %llu cycles",
	           mtu, av_name(x, 0), av_name(x, 1), PER, g0, g1, (unsigned long long)(family_frames(x, 0) - fr[0]),
	           (unsigned long long)(family_frames(x, 1) - fr[1]), (unsigned long long)(rnic_world_cycle(x->e.w) - c0));
out:
	for (int q = 0; q < 2; q++) {
		e2e_buf_free(&src[q]);
		for (int k = 0; k < PER; k++)
			e2e_buf_free(&dst[q][k]);
	}
	e2e_case_done(&x->e, ok);
}

/* The port GID tables read back (rnic_query_gid) as sim_pair filled them. */
static void gid_table_case(struct wctx *x)
{
	int ok = 1;

	if (!x->e.up)
		return;
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < RNIC_GID_TABLE_SIZE; i++) {
			union rnic_gid g;
			char a[64], b[64];
			int err = rnic_query_gid(x->e.p.side[s].ctx, 1, i, &g);

			if (err || i >= x->e.p.side[s].ngid || memcmp(g.raw, x->e.p.side[s].gids[i].raw, 16)) {
				gid_str(a, sizeof(a), g.raw);
				gid_str(b, sizeof(b), x->e.p.side[s].gids[i].raw);
				printf("  side %d GID %d: %s (%s), want %s\n", s, i, a, err ? strerror(err) : "read", b);
				ok = 0;
			}
		}
	e2e_result(ok, "%s: both port GID tables read back (%d entries each)", x->e.tag, RNIC_GID_TABLE_SIZE);
	e2e_case_done(&x->e, ok);
}

/* Receiver-side drop counters of side 1. */
enum { C_NOT_ROCE, C_ICRC, C_UDP_PORT, C_MALFORMED, C_QPN, C_N };
static const uint32_t drop_reg[C_N] = {RNIC_REG_STAT_RX_DROP_NOT_ROCE, RNIC_REG_STAT_RX_DROP_ICRC,
				       RNIC_REG_STAT_RX_DROP_UDP_PORT, RNIC_REG_STAT_RX_DROP_MALFORMED,
				       RNIC_REG_STAT_RX_DROP_QPN};
static const char *const drop_name[C_N] = {"NOT_ROCE", "ICRC", "UDP_PORT", "MALFORMED", "QPN"};

/* Run the world until side 1's RX queue is empty and a while longer. */
static void settle(struct wctx *x)
{
	for (int i = 0; i < 1000 && rnic_sim_rx_pending(x->e.w, 1); i++)
		rnic_world_step(x->e.w, 10);
	rnic_world_step(x->e.w, 3000);
}

/* A WRITE ONLY side 0 sent on QP pair qpi (captured), rewritten: the next
 * PSN, other payload bytes and, as variant v, a destination address that
 * is none of side 1's GIDs, ICRC recomputed; injected into side 1. It must
 * be dropped and counted in STAT_RX_DROP_NOT_ROCE (with a wrong ICRC
 * instead: STAT_RX_DROP_ICRC, the check before the address), host memory
 * untouched, no completion. A normal WRITE then still works. */
static void drop_case(struct wctx *x, int qpi)
{
	struct rnic_qp *sqp = x->e.p.side[0].qp[qpi];
	const struct sim_pair_av *av = &x->av[qpi];
	struct e2e_buf src, dst;
	struct rnic_sg_entry ss;
	struct rnic_wc ws, junk[4];
	uint8_t frame[MAX_CAPTURE];
	uint8_t *ip, *bth;
	const uint8_t *cip;
	size_t iplen, flen;
	int ipv6, ok = 0, setup = 0, g0 = 0, variants = 0;
	uint32_t c0[C_N], c1[C_N], want[C_N];
	uint32_t psn;
	union rnic_gid bad[4];

	if (!x->e.up)
		return;
	if (gid_v4_mapped(&x->e.p.side[1].gids[av->sgid_index])) {
		e2e_result(0, "drop: qp%d is not an IPv6 QP", qpi);
		return;
	}
	setup |= e2e_buf_init(&src, x->e.p.side[0].pd, DROP_LEN, RNIC_ACCESS_LOCAL_WRITE, 1);
	setup |= e2e_buf_init(&dst, x->e.p.side[1].pd, DROP_LEN, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE, 0);
	if (setup) {
		e2e_result(0, "drop qp%d: buffer setup", qpi);
		goto out;
	}
	ss = e2e_sg(src.p, DROP_LEN, src.mr->lkey);
	x->wire.capture_qpn = x->e.p.side[1].qp[qpi]->qp_num;
	x->wire.capture_armed = 1;
	x->wire.captured_len = 0;
	if (e2e_post_send1(sqp, 0xd0, RNIC_WR_RDMA_WRITE, &ss, 1, RNIC_SEND_SIGNALED, (uint64_t)(uintptr_t)dst.p,
		       dst.mr->rkey))
		goto report;
	ok = e2e_wait_cqs(&x->e, &ws, 1, NULL, 0, &g0, NULL) &&
	     wc_ok("WRITE completion", &ws, 0xd0, RNIC_WC_RDMA_WRITE, sqp->qp_num, -1, -1);
	x->wire.capture_armed = 0;
	if (!ok || !x->wire.captured_len || memcmp(src.p, dst.p, DROP_LEN)) {
		printf("  the WRITE to capture did not complete, was not seen or did not land\n");
		ok = 0;
		goto report;
	}
	/* the addresses to try: not in side 1's table */
	memset(bad, 0, sizeof(bad));
	bad[0] = x->e.p.side[1].gids[2];
	bad[0].raw[15] = 0x99;                 /* 2001:db8::99 */
	bad[1] = x->e.p.side[1].gids[2];
	bad[1].raw[3] ^= 0x01;                 /* 2001:db9::2: the low 96 bits match */
	bad[2] = x->e.p.side[0].gids[av->sgid_index]; /* the sender's own address */
	bad[3] = x->e.p.side[1].gids[1];
	bad[3].raw[0] ^= 0x01;                 /* ff80::...: the low 64 bits of side 1's link-local */
	for (int i = 0; i < C_N; i++)
		c0[i] = e2e_counter(x->e.p.side[1].ctx, drop_reg[i]);
	memset(want, 0, sizeof(want));
	for (int v = 0; v < 5; v++) {
		memcpy(frame, x->wire.captured, x->wire.captured_len);
		flen = x->wire.captured_len;
		if (!frame_ip(frame, flen, &cip, &iplen, &ipv6) || !ipv6) {
			printf("  the captured frame is not RoCEv2 over IPv6\n");
			ok = 0;
			goto report;
		}
		ip = frame + (cip - frame);
		bth = ip + RNIC_IPV6_HDR_BYTES + RNIC_UDP_HDR_BYTES;
		psn = (get24(bth + 9) + 1) & ((1u << RNIC_PSN_BITS) - 1);
		bth[9] = (uint8_t)(psn >> 16);
		bth[10] = (uint8_t)(psn >> 8);
		bth[11] = (uint8_t)psn;
		for (size_t i = RNIC_BTH_BYTES + RNIC_RETH_BYTES; i < RNIC_BTH_BYTES + RNIC_RETH_BYTES + DROP_LEN; i++)
			bth[i] ^= 0x5a;
		memcpy(ip + 24, bad[v < 4 ? v : 0].raw, 16);
		put_icrc(ip, iplen, 1);
		if (v == 4) {
			ip[iplen - 1] ^= 0x80; /* wrong ICRC: refused before the address is looked at */
			want[C_ICRC]++;
		} else {
			want[C_NOT_ROCE]++;
		}
		if (rnic_sim_inject_frame(x->e.w, 1, frame, flen)) {
			printf("  inject failed\n");
			ok = 0;
			goto report;
		}
		variants++;
		settle(x);
	}
	for (int i = 0; i < C_N; i++) {
		c1[i] = e2e_counter(x->e.p.side[1].ctx, drop_reg[i]);
		if (c1[i] - c0[i] != want[i]) {
			printf("  side 1 STAT_RX_DROP_%s advanced by %u, want %u\n", drop_name[i], c1[i] - c0[i], want[i]);
			ok = 0;
		}
	}
	if (memcmp(src.p, dst.p, DROP_LEN) || !e2e_only_written(&dst, 0, DROP_LEN)) {
		printf("  the target buffer changed\n");
		ok = 0;
	}
	{
		int n0 = rnic_poll_cq(x->e.p.side[0].cq, 4, junk), n1 = rnic_poll_cq(x->e.p.side[1].cq, 4, junk);

		if (n0 || n1) {
			printf("  completions after the injected frames: side 0 %d, side 1 %d\n", n0, n1);
			ok = 0;
		}
	}
	/* the QP goes on with the PSN the dropped frames claimed */
	for (size_t i = 0; i < DROP_LEN; i++)
		src.p[i] = (uint8_t)e2e_rng();
	if (e2e_post_send1(sqp, 0xd1, RNIC_WR_RDMA_WRITE, &ss, 1, RNIC_SEND_SIGNALED, (uint64_t)(uintptr_t)dst.p,
		       dst.mr->rkey)) {
		ok = 0;
		goto report;
	}
	if (!e2e_wait_cqs(&x->e, &ws, 1, NULL, 0, &g0, NULL) ||
	    !wc_ok("WRITE completion after the drops", &ws, 0xd1, RNIC_WC_RDMA_WRITE, sqp->qp_num, -1, -1) ||
	    memcmp(src.p, dst.p, DROP_LEN)) {
		printf("  the WRITE after the dropped frames failed\n");
		ok = 0;
	}
report:
	e2e_result(ok, "drop qp%d %s: %d rewritten frames injected (4 to GIDs side 1 does not hold, 1 with a bad ICRC): counted, memory untouched",
	           qpi, av_name(x, qpi), variants);
out:
	e2e_buf_free(&src);
	e2e_buf_free(&dst);
	e2e_case_done(&x->e, ok);
}

#define RUN(call)                          \
	do {                               \
		if (e2e_world_ready(&x.e)) \
			call;              \
	} while (0)

static void base_opts(struct sim_pair_opts *o, int nqp, uint32_t mtu_code)
{
	sim_pair_default_opts(o);
	o->nqp = nqp;
	o->path_mtu = mtu_code;
	o->max_recv_wr = RQ_SIZE;
	o->max_recv_sge = 1;
}

/* QP pair 0 over the IPv6 global GIDs, QP pair 1 over the link-local ones. */
static void v6_suite(uint32_t mtu_code, int quick)
{
	static const struct sim_pair_av av[2] = {
		{2, 0x68, 17, 0x12345},  /* global: DSCP 26 ECN 0, hop limit 17, a flow label */
		{1, 0xb9, 255, 0},       /* link-local: DSCP 46 ECN 1, hop limit 255, label from the QPNs */
	};
	uint32_t mtu = 128u << mtu_code;
	struct sim_pair_opts o;
	struct wctx x;
	char tag[32];
	size_t sizes[] = {0, 1, mtu - 1, mtu, mtu + 1, 256u << 10};
	int nsizes = quick ? 5 : 6;

	base_opts(&o, 2, mtu_code);
	snprintf(tag, sizeof(tag), "ipv6_mtu%u", mtu);
	if (!world_open(&x, tag, &o, av))
		return;
	RUN(gid_table_case(&x));
	for (int q = 0; q < 2; q++)
		for (int i = 0; i < nsizes; i++) {
			RUN(xfer_case(&x, q, sizes[i], RNIC_WR_RDMA_WRITE, mtu));
			RUN(xfer_case(&x, q, sizes[i], RNIC_WR_SEND, mtu));
		}
	e2e_world_down(&x.e);
}

/* QP pair 0 over IPv4-mapped GIDs (IPv4 on the wire), QP pair 1 over IPv6
 * global ones, at the same time. */
static void mixed_suite(uint32_t mtu_code)
{
	static const struct sim_pair_av av[2] = {
		{0, 0x20, 33, 0},      /* IPv4: TOS 0x20, TTL 33 */
		{2, 0x00, 0, 0xfffff}, /* IPv6: hop limit from the library's default, the largest label */
	};
	uint32_t mtu = 128u << mtu_code;
	struct sim_pair_opts o;
	struct wctx x;
	char tag[32];

	base_opts(&o, 2, mtu_code);
	snprintf(tag, sizeof(tag), "mixed_mtu%u", mtu);
	if (!world_open(&x, tag, &o, av))
		return;
	RUN(interleave_case(&x, mtu));
	RUN(xfer_case(&x, 0, mtu + 1, RNIC_WR_SEND, mtu));
	RUN(xfer_case(&x, 1, mtu + 1, RNIC_WR_SEND, mtu));
	RUN(interleave_case(&x, mtu));
	e2e_world_down(&x.e);
}

/* The drop cases in a world of their own: its capture holds the injected
 * frames, one of them with a wrong ICRC on purpose. */
static void drop_suite(uint32_t mtu_code)
{
	static const struct sim_pair_av av[3] = {
		{2, 0x68, 17, 0x12345},
		{1, 0xb9, 255, 0},
		{3, 0x04, 1, 0x00001},
	};
	struct sim_pair_opts o;
	struct wctx x;

	base_opts(&o, 3, mtu_code);
	if (!world_open(&x, "ipv6_drop", &o, av))
		return;
	for (int q = 0; q < 3; q++)
		RUN(drop_case(&x, q));
	e2e_world_down(&x.e);
}

int main(int argc, char **argv)
{
	int rc = e2e_parse_args(argc, argv, "rnic-e2e-ipv6",
				"End-to-end RoCEv2 over IPv6 (and IPv4-mapped GIDs) on two simulated NICs.\n"
				"--quick: no 256 KiB messages; the IPv6 suite at path MTU 1024 only.\n");

	if (rc >= 0)
		return rc;
	e2e_rng_seed(e2e_seed);
	v6_suite(RNIC_IB_MTU_1024, e2e_quick);
	if (!e2e_quick)
		v6_suite(RNIC_IB_MTU_4096, 0);
	mixed_suite(RNIC_IB_MTU_1024);
	drop_suite(RNIC_IB_MTU_1024);
	return e2e_summary();
}
