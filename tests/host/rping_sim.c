/* rping between the two NICs of a simulation: host/tools/rping.c as the
 * server on NIC 1 and the client on NIC 0, the connection manager's MADs
 * over each NIC's QP1 (the channels' default carrier, rnic_cm_gsi: UD
 * SENDs on the simulated wire), the pings themselves (SEND, RDMA READ,
 * RDMA WRITE) through the RTL and its link. Checks: every ping read,
 * written back and validated, the last ping's text as rping makes it, one
 * REQ/REP/RTU and DREQ/DREP on the wire to QP1 from the side that sends
 * it, the carriers' counts, both QPs in ERR after the disconnect.
 * Before the ping, NIC 1's QP1 is put in the error state (the carrier must
 * bring it back to RTS with its buffers posted) and is sent a datagram far
 * larger than a MAD (it must not overrun a buffer: counted as not a MAD, no
 * error); the server has no neighbour entry (it answers the REQ through the
 * frame's source MAC, which the receive completion carries).
 * ASan/UBSan on our C code.
 *
 *   rnic-rping-sim [--width 64|512] [--count N] [--size N] [--pcap FILE] */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/rnic_cm.h"
#include "rnic_sim.h"
#include "rping.h"
#include "ud_qp.h"

static unsigned int n_fail;

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c)) {                                                    \
			n_fail++;                                              \
			printf("FAIL %s:%d: %s\n", __func__, __LINE__, #c);    \
		}                                                              \
	} while (0)

/* CM MADs on the wire, by attribute and sending NIC. */
struct cm_tally {
	unsigned int n[2][RNIC_CM_ATTR_APR + 1];
	unsigned int other; /* frames to QP1 that are no CM MAD */
};

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void frame_hook(void *arg, int port, const uint8_t *f, size_t len, uint64_t cycle)
{
	struct cm_tally *t = arg;
	size_t bth, mad;
	uint16_t attr;

	(void)cycle;
	if (port < 0 || port > 1 || len < RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES)
		return;
	if (get16(f + 12) == RNIC_ETHERTYPE_IPV4)
		bth = RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES + RNIC_UDP_HDR_BYTES;
	else if (get16(f + 12) == RNIC_ETHERTYPE_IPV6)
		bth = RNIC_ETH_HDR_BYTES + RNIC_IPV6_HDR_BYTES + RNIC_UDP_HDR_BYTES;
	else
		return;
	mad = bth + RNIC_BTH_BYTES + RNIC_DETH_BYTES;
	if (len < bth + RNIC_BTH_BYTES || ((uint32_t)f[bth + 5] << 16 | get16(f + bth + 6)) != RNIC_GSI_QPN)
		return;
	if (len < mad + RNIC_MAD_BYTES || f[bth] != RNIC_GSI_BTH_OPCODE || f[mad + 1] != RNIC_MGMT_CLASS_CM ||
	    (attr = get16(f + mad + 16)) > RNIC_CM_ATTR_APR) {
		t->other++;
		return;
	}
	t->n[port][attr]++;
}

static uint64_t world_ns(void *priv)
{
	struct rnic_world *w = priv;

	return (uint64_t)rnic_world_cycles_to_ns(w, rnic_world_cycle(w));
}

static struct sockaddr_in ip4(uint32_t host, uint16_t port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(host);
	return a;
}

/* The text of ping k of a client, rebuilt here from rping's rule (the
 * letters A..z from a start that moves by one each ping). */
static void expected_ping(int k, int size, char *out)
{
	int cc = snprintf(out, (size_t)size, RPING_MSG_FMT, k);
	unsigned char c = (unsigned char)(65 + k % 58);

	for (int i = cc; i < size; i++) {
		out[i] = (char)c;
		if (++c > 122)
			c = 65;
	}
	out[size - 1] = 0;
}

/* Drive g's receive side (as the CM's polling does) for at most `cycles`
 * or until done(g) holds; 1 if it did. */
static int pump(struct rnic_world *w, struct rnic_cm_gsi *g, uint64_t cycles,
		int (*done)(const struct rnic_cm_gsi_stats *))
{
	uint64_t end = rnic_world_cycle(w) + cycles;
	struct rnic_cm_gsi_stats st;
	struct rnic_cm_mad_addr src;
	uint8_t mad[RNIC_MAD_BYTES];

	for (;;) {
		int err = rnic_cm_gsi_recv(g, &src, mad);

		CHECK(err == EAGAIN); /* no MAD is in flight */
		rnic_cm_gsi_get_stats(g, &st);
		if (done(&st))
			return 1;
		if (rnic_world_cycle(w) >= end)
			return 0;
		rnic_world_step(w, 64);
	}
}

static int recovered(const struct rnic_cm_gsi_stats *st)
{
	return st->recoveries == 1;
}

/* QP1 put in the error state from outside (as a fatal error would): its 32
 * receives flush, and the carrier takes it back to RTS and posts them all
 * again. */
static void qp1_recovery(struct rnic_world *w, struct rnic_cm_gsi *g)
{
	struct rnic_qp_attr a = {.qp_state = RNIC_QPS_ERR};
	struct rnic_cm_gsi_stats st;
	struct rnic_qp *qp = rnic_cm_gsi_qp(g);

	CHECK(rnic_modify_qp(qp, &a, RNIC_QP_STATE) == 0);
	CHECK(pump(w, g, 200000, recovered));
	rnic_cm_gsi_get_stats(g, &st);
	CHECK(st.recoveries == 1 && st.recv_errors == 32 && qp->state == RNIC_QPS_RTS);
	printf("QP1 recovery: %llu flushed receives, back in RTS (%s), %llu recoveries\n",
	       (unsigned long long)st.recv_errors, qp->state == RNIC_QPS_RTS ? "yes" : "no",
	       (unsigned long long)st.recoveries);
}

static int dropped_one(const struct rnic_cm_gsi_stats *st)
{
	return st->recv_dropped == 1;
}

/* A datagram of 2000 bytes to QP1 (a MAD is 256): it fits the carrier's
 * buffer (GRH area + 4096), so it is counted as not a MAD, and QP1 stays in
 * RTS (no local length error, no recovery). Sent from a UD QP of NIC 0
 * with the GSI Q_Key. */
static void qp1_big_datagram(struct rnic_world *w, struct rnic_context *ctx, const uint8_t dmac[6],
			     struct rnic_cm_gsi *g)
{
	const uint32_t len = 2000;
	struct rnic_pd *pd = rnic_alloc_pd(ctx);
	struct rnic_cq *cq = rnic_create_cq(ctx, 4);
	uint8_t *buf = calloc(1, len);
	struct rnic_mr *mr = pd && buf ? rnic_reg_mr(pd, buf, len, RNIC_ACCESS_LOCAL_WRITE) : NULL;
	struct rnic_qp *qp = NULL;
	struct rnic_ah *ah = NULL;
	struct rnic_cm_gsi_stats st;
	uint8_t ip[4] = {10, 0, 0, 2};
	int sent = 0;

	if (pd && cq && mr) {
		struct rnic_qp_init_attr ia;
		struct rnic_ah_attr aa;

		memset(&ia, 0, sizeof(ia));
		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.qp_type = RNIC_QPT_UD;
		ia.cap.max_send_wr = 1;
		ia.cap.max_recv_wr = 1;
		ia.cap.max_send_sge = 1;
		ia.cap.max_recv_sge = 1;
		qp = rnic_create_qp(pd, &ia);
		memset(&aa, 0, sizeof(aa));
		aa.is_global = 1;
		aa.port_num = 1;
		rnic_gid_from_ipv4(&aa.grh.dgid, ip);
		memcpy(aa.dmac, dmac, 6);
		ah = rnic_create_ah(pd, &aa);
	}
	if (qp && ah && ud_qp_to_rts(qp, RNIC_GSI_QKEY, 0, NULL) == 0) {
		struct rnic_sg_entry sg = {(uint64_t)(uintptr_t)buf, len, mr->lkey};
		struct rnic_wc wc;

		if (ud_post_send1(qp, 0, &sg, 1, ah, RNIC_GSI_QPN, RNIC_GSI_QKEY) == 0) {
			for (int i = 0; i < 2000 && !sent; i++) {
				if (rnic_poll_cq(cq, 1, &wc) == 1)
					sent = wc.status == RNIC_WC_SUCCESS ? 1 : -1;
				else
					rnic_world_step(w, 64);
			}
		}
	}
	CHECK(sent == 1);
	CHECK(pump(w, g, 100000, dropped_one));
	rnic_cm_gsi_get_stats(g, &st);
	CHECK(st.recv_dropped == 1 && st.recv_errors == 32 && st.recoveries == 1 &&
	      rnic_cm_gsi_qp(g)->state == RNIC_QPS_RTS);
	printf("QP1 datagram of %u bytes: %s, counted as not a MAD %llu, QP1 %s\n", len,
	       sent == 1 ? "sent" : "not sent", (unsigned long long)st.recv_dropped,
	       rnic_cm_gsi_qp(g)->state == RNIC_QPS_RTS ? "still in RTS" : "NOT in RTS");
	if (ah)
		rnic_destroy_ah(ah);
	if (qp)
		rnic_destroy_qp(qp);
	if (mr)
		rnic_dereg_mr(mr);
	if (cq)
		rnic_destroy_cq(cq);
	if (pd)
		rnic_dealloc_pd(pd);
	free(buf);
}

int main(int argc, char **argv)
{
	int width = 64, count = 5, size = 64;
	const char *pcap = NULL;
	struct rnic_sim_cfg cfg;
	struct rnic_world *w;
	struct rnic_context *ctx[2];
	struct rnic_cm_event_channel *ch[2];
	static struct cm_tally tally;
	struct rnic_cm_gsi_stats gs[2];
	static const uint8_t mac[2][6] = {{0x02, 0, 0, 0, 0, 0x0a}, {0x02, 0, 0, 0, 0, 0x0b}};
	static struct rping cli, srv;
	struct sockaddr_in any = ip4(0, 7174), server = ip4(0x0a000002, 7174), client = ip4(0x0a000001, 0);
	uint64_t c0, limit;
	int ok_c = 0, ok_s = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--width") && i + 1 < argc)
			width = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			size = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--pcap") && i + 1 < argc)
			pcap = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--width 64|512] [--count N] [--size N] [--pcap FILE]\n", argv[0]);
			return 2;
		}
	}
	rnic_sim_cfg_default(&cfg);
	cfg.num_nics = 2;
	cfg.data_width = (unsigned int)width;
	cfg.pcap_path = pcap;
	w = rnic_world_create(&cfg);
	if (!w) {
		printf("FAIL: simulation\n");
		return 1;
	}
	rnic_world_set_frame_hook(w, frame_hook, &tally);
	for (int i = 0; i < 2; i++) {
		struct rnic_cm_channel_attr ca;
		union rnic_gid gid;
		uint8_t ip[4] = {10, 0, 0, (uint8_t)(1 + i)};

		ctx[i] = rnic_open_sim(w, i);
		if (!ctx[i]) {
			printf("FAIL: rnic_open_sim %d\n", i);
			return 1;
		}
		rnic_gid_from_ipv4(&gid, ip);
		CHECK(rnic_set_port_mac(ctx[i], mac[i]) == 0);
		CHECK(rnic_set_gid(ctx[i], 0, &gid) == 0);
		memset(&ca, 0, sizeof(ca));
		ca.context = ctx[i]; /* no transport: the CM opens the NIC's QP1 */
		ca.now_ns = world_ns;
		ca.clock_priv = w;
		ca.seed = 100 + (uint64_t)i;
		ch[i] = rnic_cm_create_event_channel(&ca);
		CHECK(ch[i] != NULL);
		if (!ch[i]) {
			printf("rnic_cm_create_event_channel: %s\n", strerror(errno));
			return 1;
		}
		CHECK(rnic_cm_channel_gsi(ch[i]) != NULL);
		CHECK(rnic_cm_gsi_qp(rnic_cm_channel_gsi(ch[i])) && rnic_cm_gsi_qp(rnic_cm_channel_gsi(ch[i]))->qp_num == RNIC_GSI_QPN);
	}
	{
		/* one QP1 per device: a second carrier on it is refused */
		struct rnic_cm_gsi *g2 = NULL;

		CHECK(rnic_cm_gsi_open(ctx[0], &g2) != 0 && g2 == NULL);
	}
	/* the client's next hop to the server; the server has no entry: it
	 * answers through the REQ's source MAC (the completion's smac) */
	CHECK(rnic_cm_set_neighbour(ch[0], (struct sockaddr *)&server, mac[1]) == 0);
	(void)client;
	qp1_recovery(w, rnic_cm_channel_gsi(ch[1]));
	qp1_big_datagram(w, ctx[0], mac[1], rnic_cm_channel_gsi(ch[1]));
	CHECK(rping_start_server(&srv, ch[1], (struct sockaddr *)&any, size) == 0);
	CHECK(rping_start_client(&cli, ch[0], (struct sockaddr *)&server, size, count, 1) == 0);

	c0 = rnic_world_cycle(w);
	limit = c0 + 2000000ull + (uint64_t)count * 200000ull;
	while (rnic_world_cycle(w) < limit) {
		ok_c = rping_poll(&cli);
		ok_s = rping_poll(&srv);
		if (ok_c && ok_s)
			break;
		rnic_world_step(w, 8);
	}
	if (cli.state == RPING_ERROR)
		printf("client: %s\n", cli.err);
	if (srv.state == RPING_ERROR)
		printf("server: %s\n", srv.err);
	CHECK(ok_c && ok_s);
	CHECK(cli.state == RPING_DISCONNECTED && cli.done);
	CHECK(srv.state == RPING_DISCONNECTED && srv.done);
	CHECK(cli.pings == count);
	CHECK(srv.pings == count);
	{
		char *want = malloc((size_t)size);

		expected_ping(count - 1, size, want);
		CHECK(!strncmp(cli.last, want, sizeof(cli.last) - 1));
		CHECK(!strncmp(srv.last, want, sizeof(srv.last) - 1));
		CHECK(cli.rdma_buf && !memcmp(cli.rdma_buf, want, (size_t)size));
		free(want);
	}
	/* the MADs on the wire, each once from its sender and nothing else */
	for (int s = 0; s < 2; s++)
		for (int a = 0; a <= RNIC_CM_ATTR_APR; a++) {
			unsigned int want = (s == 0 && (a == RNIC_CM_ATTR_REQ || a == RNIC_CM_ATTR_RTU ||
							 a == RNIC_CM_ATTR_DREQ)) ||
					    (s == 1 && (a == RNIC_CM_ATTR_REP || a == RNIC_CM_ATTR_DREP));

			if (tally.n[s][a] != want) {
				printf("NIC %d sent %u CM MADs of attribute 0x%02x, want %u\n", s, tally.n[s][a], a, want);
				n_fail++;
			}
		}
	CHECK(tally.other == 1); /* the big datagram to NIC 1's QP1 */
	rnic_cm_gsi_get_stats(rnic_cm_channel_gsi(ch[0]), &gs[0]);
	rnic_cm_gsi_get_stats(rnic_cm_channel_gsi(ch[1]), &gs[1]);
	CHECK(gs[0].sent == 3 && gs[0].received == 2 && gs[1].sent == 2 && gs[1].received == 3);
	/* NIC 1: the 32 flushes of the recovery, the one big datagram */
	CHECK(!gs[0].recv_errors && !gs[0].recoveries && !gs[0].recv_dropped);
	CHECK(gs[1].recv_errors == 32 && gs[1].recoveries == 1 && gs[1].recv_dropped == 1);
	for (int i = 0; i < 2; i++)
		CHECK(gs[i].ahs_created == 1 && !gs[i].send_errors && !gs[i].send_full && !gs[i].repost_errors);
	if (cli.qp && srv.qp) {
		CHECK(cli.qp->state == RNIC_QPS_ERR);
		CHECK(srv.qp->state == RNIC_QPS_ERR);
	}
	printf("rping: %d pings of %d bytes at %d bits, validated; last \"%.40s...\"; %llu cycles (%.1f us)\n",
	       cli.pings, size, width, cli.last, (unsigned long long)(rnic_world_cycle(w) - c0),
	       rnic_world_cycles_to_ns(w, rnic_world_cycle(w) - c0) / 1000.0);
	rping_close(&cli);
	rping_close(&srv);
	for (int i = 0; i < 2; i++) {
		CHECK(rnic_cm_destroy_event_channel(ch[i]) == 0);
		CHECK(rnic_close_device(ctx[i]) == 0);
	}
	rnic_world_destroy(w);
	printf("rnic-rping-sim: %s\n", n_fail ? "FAIL" : "ok");
	return n_fail ? 1 : 0;
}
