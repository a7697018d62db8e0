/* rping between the two NICs of a simulation: host/tools/rping.c as the
 * server on NIC 1 and the client on NIC 0, the connection manager's MADs
 * over the in-memory carrier (cm_mem_transport.h, on the simulation's
 * clock), the pings themselves (SEND, RDMA READ, RDMA WRITE) through the
 * RTL and its link. Checks: every ping read, written back and validated,
 * the last ping's text as rping makes it, one REQ/REP/RTU and DREQ/DREP,
 * both QPs in ERR after the disconnect. ASan/UBSan on our C code.
 *
 *   rnic-rping-sim [--width 64|512] [--count N] [--size N] [--pcap FILE] */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_mem_transport.h"
#include "rnic_sim.h"
#include "rping.h"

static unsigned int n_fail;

#define CHECK(c)                                                               \
	do {                                                                   \
		if (!(c)) {                                                    \
			n_fail++;                                              \
			printf("FAIL %s:%d: %s\n", __func__, __LINE__, #c);    \
		}                                                              \
	} while (0)

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

int main(int argc, char **argv)
{
	int width = 64, count = 5, size = 64;
	const char *pcap = NULL;
	struct rnic_sim_cfg cfg;
	struct rnic_world *w;
	struct rnic_context *ctx[2];
	struct rnic_cm_event_channel *ch[2];
	static struct memnet net;
	struct memnet_ep *ep[2];
	static const uint8_t mac[2][6] = {{0x02, 0, 0, 0, 0, 0x0a}, {0x02, 0, 0, 0, 0, 0x0b}};
	static struct rping cli, srv;
	struct sockaddr_in any = ip4(0, 7174), server = ip4(0x0a000002, 7174);
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
	memnet_init(&net, 7, 2000); /* a MAD takes 2 us */
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
		ep[i] = memnet_add(&net, mac[i]);
		ep[i]->gid[0] = gid;
		memset(&ca, 0, sizeof(ca));
		ca.context = ctx[i];
		ca.transport = &memnet_ops;
		ca.transport_priv = ep[i];
		ca.now_ns = world_ns;
		ca.clock_priv = w;
		ca.seed = 100 + (uint64_t)i;
		ch[i] = rnic_cm_create_event_channel(&ca);
		CHECK(ch[i] != NULL);
		if (!ch[i])
			return 1;
	}
	CHECK(rnic_cm_set_neighbour(ch[0], (struct sockaddr *)&server, mac[1]) == 0);
	CHECK(rping_start_server(&srv, ch[1], (struct sockaddr *)&any, size) == 0);
	CHECK(rping_start_client(&cli, ch[0], (struct sockaddr *)&server, size, count, 1) == 0);

	c0 = rnic_world_cycle(w);
	limit = c0 + 2000000ull + (uint64_t)count * 200000ull;
	while (rnic_world_cycle(w) < limit) {
		net.now = world_ns(w);
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
	CHECK(memnet_count(&net, RNIC_CM_ATTR_REQ, 0) == 1);
	CHECK(memnet_count(&net, RNIC_CM_ATTR_REP, 1) == 1);
	CHECK(memnet_count(&net, RNIC_CM_ATTR_RTU, 0) == 1);
	CHECK(memnet_count(&net, RNIC_CM_ATTR_DREQ, 0) == 1);
	CHECK(memnet_count(&net, RNIC_CM_ATTR_DREP, 1) == 1);
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
