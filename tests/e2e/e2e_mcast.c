/* End-to-end multicast: three simulated NICs on the simulated switch
 * (sim/link.c floods group destinations to every port but the sender's),
 * port MTU 1024. NIC 0 sends UD SENDs to the multicast QPN through address
 * handles of an IPv4 group (::ffff:239.1.2.3, MAC 01:00:5e:01:02:03) and an
 * IPv6 group (ff0e::1:2, MAC 33:33:00:01:00:02); NIC 1 has two UD QPs
 * attached to both groups, NIC 2 one. Every attached QP must get every
 * datagram once (a completion each: length with the GRH area, source QP,
 * GRH flag; the receive buffer byte for byte: the GRH area from the frame's
 * IP header, the payload, nothing outside them), then NIC 2's QP detaches
 * from the IPv4 group midway: from then on it gets nothing (its receive
 * stays posted) while NIC 1's still do. A group no QP joined is dropped and
 * counted (STAT_RX_MCAST_DROP); STAT_RX_MCAST_COPY counts the copies. The
 * command checks: device limits, lid, a unicast GID, a QP that is not UD,
 * detach of a QP that is not attached, attach twice, and a third group whose
 * two buckets are both taken (ENOMEM), found with the formats' hash.
 *
 *   rnic-e2e-mcast --width 64|512 [--seed N] [--pcap-dir DIR] [--quick]
 *
 * Each case prints PASS/FAIL; the closing line is "N passed, N failed". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/roce.h"
#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "e2e_common.h"
#include "ud_qp.h"

#define NICS 3
#define QKEY 0x0badcafeu
#define MAX_FRAME 10000
#define MSG_MAX 1000 /* payload bytes at most (port MTU 1024) */
#define NRQ 3        /* receiving QPs: NIC 1 has two, NIC 2 one */

struct nic {
	struct rnic_context *ctx;
	struct rnic_pd *pd;
	struct rnic_cq *cq;
	uint8_t mac[6];
	union rnic_gid gid4, gid6;
};

static struct rnic_world *world;
static struct nic nic[NICS];
static struct rnic_qp *sqp;          /* NIC 0's UD QP */
static struct rnic_qp *rqp[NRQ];     /* NIC 1: 0, 1; NIC 2: 2 */
static const int rqp_nic[NRQ] = {1, 1, 2};
static union rnic_gid grp4, grp6;
static struct rnic_ah *ah4, *ah6, *ah_none;
/* the last UD frame NIC 0 put on the wire */
static uint8_t last[MAX_FRAME];
static size_t last_len;
static unsigned int ud_frames;

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static void frame_hook(void *arg, int port, const uint8_t *f, size_t len, uint64_t cycle)
{
	size_t bth;

	(void)arg;
	(void)cycle;
	if (port != 0 || len < RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES)
		return;
	bth = RNIC_ETH_HDR_BYTES + RNIC_UDP_HDR_BYTES +
	      (get16(f + 12) == RNIC_ETHERTYPE_IPV6 ? RNIC_IPV6_HDR_BYTES : RNIC_IPV4_HDR_BYTES);
	if (len < bth + RNIC_BTH_BYTES || f[bth] != RNIC_OP_UD_SEND_ONLY || len > MAX_FRAME)
		return;
	ud_frames++;
	memcpy(last, f, len);
	last_len = len;
}

/* ---------------------------------------------------------------- setup */

static struct rnic_qp *make_qp(struct nic *n, enum rnic_qp_type type)
{
	struct rnic_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = n->cq;
	ia.recv_cq = n->cq;
	ia.qp_type = type;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return rnic_create_qp(n->pd, &ia);
}

static struct rnic_ah *make_ah(const union rnic_gid *dgid, int sgid_index)
{
	struct rnic_ah_attr a;

	memset(&a, 0, sizeof(a));
	a.is_global = 1;
	a.port_num = 1;
	a.grh.sgid_index = (uint8_t)sgid_index;
	a.grh.dgid = *dgid;
	a.grh.hop_limit = 5;
	return rnic_create_ah(nic[0].pd, &a);
}

static int setup(void)
{
	struct rnic_sim_cfg cfg;
	char path[512];
	const uint8_t g4[4] = {239, 1, 2, 3}, none4[4] = {239, 9, 9, 9};

	rnic_sim_cfg_default(&cfg);
	cfg.num_nics = NICS;
	cfg.data_width = (unsigned int)e2e_width;
	cfg.seed = e2e_seed;
	if (e2e_pcap_dir) {
		snprintf(path, sizeof(path), "%s/w%d_mcast.pcap", e2e_pcap_dir, e2e_width);
		cfg.pcap_path = path;
	}
	world = rnic_world_create(&cfg);
	if (!world)
		return 0;
	rnic_world_set_frame_hook(world, frame_hook, NULL);
	for (int i = 0; i < NICS; i++) {
		struct nic *n = &nic[i];
		const uint8_t ip[4] = {198, 18, 0, (uint8_t)(1 + i)};

		n->ctx = rnic_open_sim(world, i);
		if (!n->ctx)
			return 0;
		memcpy(n->mac, (const uint8_t[6]){0x02, 0, 0, 0, 0, (uint8_t)(0x0a + i)}, 6);
		rnic_gid_from_ipv4(&n->gid4, ip);
		memset(&n->gid6, 0, sizeof(n->gid6));
		n->gid6.raw[0] = 0x20;
		n->gid6.raw[1] = 0x01;
		n->gid6.raw[2] = 0x0d;
		n->gid6.raw[3] = 0xb8;
		n->gid6.raw[15] = (uint8_t)(1 + i);
		if (rnic_set_port_mac(n->ctx, n->mac) || rnic_set_gid(n->ctx, 0, &n->gid4) ||
		    rnic_set_gid(n->ctx, 1, &n->gid6) || rnic_set_port_mtu(n->ctx, RNIC_IB_MTU_1024))
			return 0;
		n->pd = rnic_alloc_pd(n->ctx);
		n->cq = n->pd ? rnic_create_cq(n->ctx, 64) : NULL;
		if (!n->cq)
			return 0;
	}
	sqp = make_qp(&nic[0], RNIC_QPT_UD);
	if (!sqp || e2e_ud_to_rts(sqp, QKEY, 0x100))
		return 0;
	for (int q = 0; q < NRQ; q++) {
		rqp[q] = make_qp(&nic[rqp_nic[q]], RNIC_QPT_UD);
		if (!rqp[q] || e2e_ud_to_rts(rqp[q], QKEY, 0x100))
			return 0;
	}
	rnic_gid_from_ipv4(&grp4, g4);
	memset(&grp6, 0, sizeof(grp6));
	grp6.raw[0] = 0xff;
	grp6.raw[1] = 0x0e;
	grp6.raw[13] = 0x01;
	grp6.raw[15] = 0x02;
	ah4 = make_ah(&grp4, 0);
	ah6 = make_ah(&grp6, 1);
	{
		union rnic_gid g;

		rnic_gid_from_ipv4(&g, none4);
		ah_none = make_ah(&g, 0);
	}
	return ah4 && ah6 && ah_none;
}

static void teardown(void)
{
	if (!world)
		return;
	e2e_check_nics(world, "mcast", 1);
	if (ah4)
		rnic_destroy_ah(ah4);
	if (ah6)
		rnic_destroy_ah(ah6);
	if (ah_none)
		rnic_destroy_ah(ah_none);
	for (int q = 0; q < NRQ; q++)
		if (rqp[q])
			rnic_destroy_qp(rqp[q]);
	if (sqp)
		rnic_destroy_qp(sqp);
	for (int i = 0; i < NICS; i++) {
		if (nic[i].cq)
			rnic_destroy_cq(nic[i].cq);
		if (nic[i].pd)
			rnic_dealloc_pd(nic[i].pd);
		if (nic[i].ctx)
			rnic_close_device(nic[i].ctx);
	}
	rnic_world_destroy(world);
	world = NULL;
}

/* ---------------------------------------------------------------- traffic */

/* Poll every NIC's CQ until want[i] completions arrived on NIC i (then
 * for `extra` more cycles, in which nothing more may come) or a limit;
 * completions go to wc[i][...]. Returns 1 when exactly want[] arrived. */
static int wait_all(const int want[NICS], struct rnic_wc wc[NICS][8], int got[NICS], unsigned int extra)
{
	uint64_t start = rnic_world_cycle(world), done_at = 0;

	memset(got, 0, sizeof(int) * NICS);
	for (;;) {
		int all = 1;

		for (int i = 0; i < NICS; i++) {
			struct rnic_wc tmp[8];
			int n = rnic_poll_cq(nic[i].cq, 8, tmp);

			if (n < 0) {
				printf("  poll_cq of NIC %d: %s\n", i, strerror(-n));
				return 0;
			}
			for (int k = 0; k < n; k++) {
				if (got[i] < 8)
					wc[i][got[i]] = tmp[k];
				got[i]++;
			}
			if (got[i] < want[i])
				all = 0;
		}
		if (all && !done_at)
			done_at = rnic_world_cycle(world);
		if (done_at && rnic_world_cycle(world) - done_at >= extra)
			break;
		if (rnic_world_cycle(world) - start > 400000)
			break;
	}
	for (int i = 0; i < NICS; i++)
		if (got[i] != want[i]) {
			printf("  NIC %d: %d completions, want %d\n", i, got[i], want[i]);
			return 0;
		}
	return 1;
}

static struct rnic_wc *find_wc(struct rnic_wc *wc, int n, uint64_t id)
{
	for (int i = 0; i < n && i < 8; i++)
		if (wc[i].wr_id == id)
			return &wc[i];
	return NULL;
}

/* The receive buffer of a copy: the GRH area as the frame's IP header
 * (IPv6: the header; IPv4: 20 zero bytes, then the header), the payload,
 * nothing else written. */
static int check_buf(const struct e2e_buf *r, const uint8_t *src, size_t len)
{
	uint8_t grh[RNIC_GRH_BYTES];
	const uint8_t *ip = last + RNIC_ETH_HDR_BYTES;
	int ok = 1;

	memset(grh, 0, sizeof(grh));
	if (get16(last + 12) == RNIC_ETHERTYPE_IPV6)
		memcpy(grh, ip, RNIC_IPV6_HDR_BYTES);
	else
		memcpy(grh + RNIC_GRH_BYTES - RNIC_IPV4_HDR_BYTES, ip, RNIC_IPV4_HDR_BYTES);
	if (memcmp(r->p, grh, RNIC_GRH_BYTES)) {
		printf("  GRH area differs from the frame's IP header\n");
		ok = 0;
	}
	if (len && memcmp(r->p + RNIC_GRH_BYTES, src, len)) {
		printf("  payload differs\n");
		ok = 0;
	}
	if (!e2e_only_written(r, 0, RNIC_GRH_BYTES + len)) {
		printf("  bytes outside the GRH area and payload written\n");
		ok = 0;
	}
	return ok;
}

/* One UD SEND of len bytes from NIC 0 through ah to the multicast QPN;
 * recv[q] says whether receiving QP q must get it. Every receiving QP has
 * one receive posted (left posted, and checked untouched, when it must not
 * get the datagram: posted[q] then stays 1 for the next send). */
static struct e2e_buf rbuf[NRQ];
static int posted[NRQ];
static uint64_t rid[NRQ];

static int mc_send(const char *what, struct rnic_ah *ah, size_t len, const int recv[NRQ], const uint8_t *dmac)
{
	struct e2e_buf src;
	struct rnic_sg_entry sg;
	struct rnic_wc wc[NICS][8];
	int want[NICS] = {1, 0, 0}, got[NICS], ok = 1, err;
	unsigned int frames = ud_frames;
	static uint64_t next_id = 1000;

	for (int q = 0; q < NRQ; q++) {
		if (posted[q])
			continue;
		rid[q] = next_id++;
		if (e2e_buf_init(&rbuf[q], nic[rqp_nic[q]].pd, MSG_MAX + RNIC_GRH_BYTES, RNIC_ACCESS_LOCAL_WRITE, 0))
			return 0;
		sg = e2e_sg(rbuf[q].p, MSG_MAX + RNIC_GRH_BYTES, rbuf[q].mr->lkey);
		if (e2e_post_recv1(rqp[q], rid[q], &sg, 1))
			return 0;
		posted[q] = 1;
	}
	for (int q = 0; q < NRQ; q++)
		want[rqp_nic[q]] += recv[q];
	if (e2e_buf_init(&src, nic[0].pd, len, RNIC_ACCESS_LOCAL_WRITE, 1))
		return 0;
	sg = e2e_sg(src.p, (uint32_t)len, src.mr->lkey);
	err = ud_post_send1(sqp, 1, &sg, 1, ah, RNIC_MCAST_QPN, QKEY);
	if (err) {
		printf("  post_send: %s\n", strerror(err));
		e2e_buf_free(&src);
		return 0;
	}
	ok = wait_all(want, wc, got, 3000);
	if (ud_frames != frames + 1) {
		printf("  %u frames from NIC 0, want 1\n", ud_frames - frames);
		ok = 0;
	} else if (memcmp(last, dmac, 6)) {
		printf("  destination MAC %02x:%02x:%02x:%02x:%02x:%02x\n", last[0], last[1], last[2], last[3],
		       last[4], last[5]);
		ok = 0;
	}
	if (ok && (wc[0][0].status != RNIC_WC_SUCCESS || wc[0][0].wr_id != 1)) {
		printf("  send completion: %s\n", e2e_wcs(1, wc[0]));
		ok = 0;
	}
	for (int q = 0; ok && q < NRQ; q++) {
		int i = rqp_nic[q];
		struct rnic_wc *c = find_wc(wc[i], got[i], rid[q]);

		if (!recv[q]) {
			if (c || !e2e_only_written(&rbuf[q], 0, 0)) {
				printf("  QP %u got a copy after its detach\n", rqp[q]->qp_num);
				ok = 0;
			}
			continue;
		}
		if (!c) {
			printf("  QP %u: no completion\n", rqp[q]->qp_num);
			ok = 0;
			continue;
		}
		posted[q] = 0;
		if (c->status != RNIC_WC_SUCCESS || c->opcode != RNIC_WC_RECV ||
		    c->byte_len != len + RNIC_GRH_BYTES || c->qp_num != rqp[q]->qp_num ||
		    c->src_qp != sqp->qp_num || !(c->wc_flags & RNIC_WC_GRH)) {
			printf("  QP %u: completion %s, %u bytes, qp %u, src_qp %u, flags %x\n", rqp[q]->qp_num,
			       e2e_wcs(1, c), c->byte_len, c->qp_num, c->src_qp, c->wc_flags);
			ok = 0;
		}
		ok &= check_buf(&rbuf[q], src.p, len);
		e2e_buf_free(&rbuf[q]);
	}
	e2e_buf_free(&src);
	e2e_result(ok, "mcast %s (%zu B)", what, len);
	return ok;
}

/* ---------------------------------------------------------------- cases */

static uint32_t stat(int i, uint32_t reg)
{
	return e2e_counter(nic[i].ctx, reg);
}

static void device_limits(void)
{
	struct rnic_device_attr a;
	int ok = rnic_query_device(nic[1].ctx, &a) == 0;

	ok = ok && a.max_mcast_grp == RNIC_MCAST_WAYS << RNIC_MCAST_BUCKET_BITS &&
	     a.max_mcast_qp_attach == RNIC_MCAST_GROUP_QPS &&
	     a.max_total_mcast_qp_attach == a.max_mcast_grp * a.max_mcast_qp_attach;
	if (!ok)
		printf("  max_mcast_grp %d, max_mcast_qp_attach %d, max_total_mcast_qp_attach %d\n", a.max_mcast_grp,
		       a.max_mcast_qp_attach, a.max_total_mcast_qp_attach);
	e2e_result(ok, "mcast device limits");
}

/* the formats' hash (docs/formats.toml, group mcast), raw[0] the top byte */
static uint32_t bucket(const union rnic_gid *g, int way)
{
	uint32_t h = 0, b = RNIC_MCAST_BUCKET_BITS;

	for (int i = 0; i < 8; i++) {
		uint32_t v = (uint32_t)g->raw[14 - 2 * i] << 8 | g->raw[15 - 2 * i];

		if (way && i)
			v = ((v << i) | (v >> (16 - i))) & 0xffff;
		h ^= v;
	}
	return (h ^ h >> b ^ h >> 2 * b) & ((1u << b) - 1);
}

static void command_checks(void)
{
	union rnic_gid uni = nic[1].gid6, g[3];
	struct rnic_qp *rc = make_qp(&nic[1], RNIC_QPT_RC);
	int ok = rc != NULL, err, n = 0;
	uint32_t b0 = 0, b1 = 0;

	if ((err = rnic_attach_mcast(rqp[0], &grp6, 7)) != EINVAL) {
		printf("  lid 7: %s\n", strerror(err));
		ok = 0;
	}
	if ((err = rnic_attach_mcast(rqp[0], &uni, 0)) != EINVAL) {
		printf("  unicast GID: %s\n", strerror(err));
		ok = 0;
	}
	if (rc && (err = rnic_attach_mcast(rc, &grp6, 0)) != EINVAL) {
		printf("  RC QP: %s\n", strerror(err));
		ok = 0;
	}
	if ((err = rnic_detach_mcast(rqp[0], &grp6, 0)) != EINVAL) {
		printf("  detach, not attached: %s\n", strerror(err));
		ok = 0;
	}
	if (rc)
		rnic_destroy_qp(rc);
	/* three groups with the same two buckets: the third finds both taken */
	memset(g, 0, sizeof(g));
	for (uint32_t v = 1; n < 3 && v < 1u << 20; v++) {
		union rnic_gid c;

		memset(&c, 0, sizeof(c));
		c.raw[0] = 0xff;
		c.raw[1] = 0x05;
		c.raw[13] = (uint8_t)(v >> 16);
		c.raw[14] = (uint8_t)(v >> 8);
		c.raw[15] = (uint8_t)v;
		if (n == 0) {
			b0 = bucket(&c, 0);
			b1 = bucket(&c, 1);
		}
		if (bucket(&c, 0) == b0 && bucket(&c, 1) == b1)
			g[n++] = c;
	}
	if (n < 3) {
		printf("  no three colliding GIDs found\n");
		ok = 0;
	} else {
		int e0 = rnic_attach_mcast(rqp[0], &g[0], 0), e1 = rnic_attach_mcast(rqp[0], &g[1], 0);
		int e2 = rnic_attach_mcast(rqp[0], &g[2], 0);

		if (e0 || e1 || e2 != ENOMEM) {
			printf("  colliding groups: %s, %s, %s (want ENOMEM last)\n", strerror(e0), strerror(e1),
			       strerror(e2));
			ok = 0;
		}
		/* once one leaves, the third fits */
		if (!e0 && (err = rnic_detach_mcast(rqp[0], &g[0], 0)))
			ok = 0;
		if ((err = rnic_attach_mcast(rqp[0], &g[2], 0))) {
			printf("  third group after a detach: %s\n", strerror(err));
			ok = 0;
		}
		rnic_detach_mcast(rqp[0], &g[1], 0);
		rnic_detach_mcast(rqp[0], &g[2], 0);
	}
	e2e_result(ok, "mcast command errors and a full bucket pair");
}

static void traffic(void)
{
	static const uint8_t mac4[6] = {0x01, 0x00, 0x5e, 0x01, 0x02, 0x03};
	static const uint8_t mac6[6] = {0x33, 0x33, 0x00, 0x01, 0x00, 0x02};
	static const uint8_t mac_none[6] = {0x01, 0x00, 0x5e, 0x09, 0x09, 0x09};
	const int all[NRQ] = {1, 1, 1}, nic1[NRQ] = {1, 1, 0}, none[NRQ] = {0, 0, 0};
	uint32_t copy0[NICS], drop0[NICS];
	int ok = 1, err;
	size_t sizes[] = {0, 1, 77, 512, MSG_MAX};
	int nsizes = e2e_quick ? 3 : 5;

	for (int q = 0; q < NRQ; q++) {
		ok &= rnic_attach_mcast(rqp[q], &grp4, 0) == 0 && rnic_attach_mcast(rqp[q], &grp6, 0) == 0;
		/* attached twice: nothing changes */
		ok &= rnic_attach_mcast(rqp[q], &grp4, 0) == 0;
	}
	e2e_result(ok, "mcast attach 3 QPs on 2 NICs to 2 groups");
	if (!ok)
		return;
	for (int i = 0; i < NICS; i++) {
		copy0[i] = stat(i, RNIC_REG_STAT_RX_MCAST_COPY);
		drop0[i] = stat(i, RNIC_REG_STAT_RX_MCAST_DROP);
	}
	for (int s = 0; s < nsizes; s++) {
		mc_send("IPv4 group, 3 members", ah4, sizes[s], all, mac4);
		mc_send("IPv6 group, 3 members", ah6, sizes[nsizes - 1 - s], all, mac6);
	}
	ok = stat(1, RNIC_REG_STAT_RX_MCAST_COPY) - copy0[1] == (uint32_t)(4 * nsizes) &&
	     stat(2, RNIC_REG_STAT_RX_MCAST_COPY) - copy0[2] == (uint32_t)(2 * nsizes) &&
	     stat(0, RNIC_REG_STAT_RX_MCAST_COPY) == copy0[0];
	e2e_result(ok, "mcast STAT_RX_MCAST_COPY (NIC 1: %u, NIC 2: %u)",
		   stat(1, RNIC_REG_STAT_RX_MCAST_COPY) - copy0[1], stat(2, RNIC_REG_STAT_RX_MCAST_COPY) - copy0[2]);
	/* NIC 2's QP leaves the IPv4 group: the detach is in force when it returns */
	err = rnic_detach_mcast(rqp[2], &grp4, 0);
	e2e_result(err == 0, "mcast detach NIC 2's QP from the IPv4 group");
	mc_send("IPv4 group after NIC 2's detach", ah4, 300, nic1, mac4);
	mc_send("IPv6 group, NIC 2 still attached", ah6, 200, all, mac6);
	ok = stat(2, RNIC_REG_STAT_RX_MCAST_DROP) - drop0[2] == 1 && stat(1, RNIC_REG_STAT_RX_MCAST_DROP) == drop0[1];
	e2e_result(ok, "mcast NIC 2 drops (and counts) the group it left");
	mc_send("group nobody joined", ah_none, 64, none, mac_none);
	ok = stat(1, RNIC_REG_STAT_RX_MCAST_DROP) - drop0[1] == 1 && stat(2, RNIC_REG_STAT_RX_MCAST_DROP) - drop0[2] == 2;
	e2e_result(ok, "mcast STAT_RX_MCAST_DROP for a group nobody joined");
	/* NIC 1's QPs leave both groups; the last sends reach nobody */
	ok = 1;
	for (int q = 0; q < 2; q++)
		ok &= rnic_detach_mcast(rqp[q], &grp4, 0) == 0 && rnic_detach_mcast(rqp[q], &grp6, 0) == 0;
	ok &= rnic_detach_mcast(rqp[2], &grp6, 0) == 0;
	e2e_result(ok, "mcast detach every QP");
	mc_send("IPv6 group after every detach", ah6, 100, none, mac6);
}

static void run(void)
{
	e2e_rng_seed(e2e_seed);
	if (!setup()) {
		e2e_result(0, "mcast: three NICs and their QPs");
		teardown();
		return;
	}
	device_limits();
	command_checks();
	traffic();
	for (int q = 0; q < NRQ; q++)
		if (posted[q])
			e2e_buf_free(&rbuf[q]);
	teardown();
}

int main(int argc, char **argv)
{
	int rc = e2e_parse_args(argc, argv, "rnic-e2e-mcast", "");

	if (rc >= 0)
		return rc;
	run();
	return e2e_summary();
}
