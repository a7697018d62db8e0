/* A NIC port on a UDP socket (sim/link_socket.c), without Verilator and
 * without a virtual machine: a plain UDP socket of this process plays the
 * peer (QEMU's -netdev dgram). One datagram = one frame, byte for byte both
 * ways; ARP requests for the port's address answered and kept from the NIC,
 * others dropped; runts refused; waiting with and without input; bad
 * addresses refused. Then the link model with one external port: a frame
 * the core sends leaves through the port's function after serialization and
 * latency, and a frame from outside reaches the core's RX pins, padded. */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/ethernet.h>
#include <net/if_arp.h>
#include <netinet/if_ether.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "sim_int.h"

static const uint8_t our_mac[6] = {0x02, 0, 0, 0, 0, 0x0b};
static const uint8_t our_ip[4] = {198, 18, 0, 2};
static const uint8_t peer_mac[6] = {0x52, 0x54, 0, 0, 0, 0x0a};
static const uint8_t peer_ip[4] = {198, 18, 0, 1};

struct pair {
	int peer;            /* the test's socket: the other end */
	uint16_t peer_port;
	struct lsock *s;
	struct sockaddr_in to; /* the lsock's address */
};

static void pair_open(struct pair *p)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	struct rnic_sim_udp_cfg cfg;
	char remote[32], err[160];

	memset(p, 0, sizeof(*p));
	p->peer = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(p->peer >= 0);
	CHECK(bind(p->peer, (struct sockaddr *)&a, sizeof(a)) == 0);
	CHECK(getsockname(p->peer, (struct sockaddr *)&a, &al) == 0);
	p->peer_port = ntohs(a.sin_port);
	snprintf(remote, sizeof(remote), "127.0.0.1:%u", p->peer_port);
	memset(&cfg, 0, sizeof(cfg));
	cfg.local = "127.0.0.1:0";
	cfg.remote = remote;
	memcpy(cfg.mac, our_mac, 6);
	memcpy(cfg.ipv4, our_ip, 4);
	p->s = lsock_open(&cfg, err, sizeof(err));
	CHECK(p->s != NULL);
	if (!p->s) {
		printf("lsock_open: %s\n", err);
		exit(1);
	}
	p->to.sin_family = AF_INET;
	p->to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p->to.sin_port = htons(lsock_local_port(p->s));
	CHECK(ntohs(p->to.sin_port) != 0);
}

static void pair_close(struct pair *p)
{
	lsock_close(p->s);
	close(p->peer);
}

static void peer_send(struct pair *p, const void *f, size_t len)
{
	CHECK_EQ(sendto(p->peer, f, len, 0, (struct sockaddr *)&p->to, sizeof(p->to)), len);
}

/* The next datagram at the peer within 1 s: its length, or -1. */
static int peer_recv(struct pair *p, uint8_t *buf, size_t cap)
{
	struct pollfd pfd = {.fd = p->peer, .events = POLLIN};

	if (poll(&pfd, 1, 1000) != 1)
		return -1;
	return (int)recv(p->peer, buf, cap, 0);
}

/* lsock_recv, waiting up to 1 s for the datagram to arrive. */
static int sock_recv(struct pair *p, uint8_t *buf, size_t cap)
{
	struct lsock *one[1] = {p->s};

	if (lsock_wait(one, 1, -1, 1000) != 1)
		return 0;
	return lsock_recv(p->s, buf, cap);
}

static void make_frame(uint8_t *f, size_t len, uint8_t seed)
{
	memcpy(f, our_mac, 6);
	memcpy(f + 6, peer_mac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	for (size_t i = 14; i < len; i++)
		f[i] = (uint8_t)(seed + i * 7);
}

static void test_frames_both_ways(void)
{
	static const size_t lens[] = {60, 62, 1514, 9014};
	static uint8_t f[LINK_MAX_FRAME], g[LINK_MAX_FRAME];
	struct rnic_sim_udp_stats st;
	struct pair p;

	pair_open(&p);
	for (unsigned int i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		make_frame(f, lens[i], (uint8_t)i);
		lsock_send(p.s, f, lens[i]);
		CHECK_EQ(peer_recv(&p, g, sizeof(g)), lens[i]);
		CHECK(memcmp(f, g, lens[i]) == 0);

		make_frame(f, lens[i], (uint8_t)(100 + i));
		peer_send(&p, f, lens[i]);
		memset(g, 0, sizeof(g));
		CHECK_EQ(sock_recv(&p, g, sizeof(g)), lens[i]);
		CHECK(memcmp(f, g, lens[i]) == 0);
	}
	/* nothing more waiting */
	CHECK_EQ(lsock_recv(p.s, g, sizeof(g)), 0);
	lsock_stats(p.s, &st);
	CHECK_EQ(st.tx_frames, 4);
	CHECK_EQ(st.rx_frames, 4);
	CHECK_EQ(st.tx_bytes, 60 + 62 + 1514 + 9014);
	CHECK_EQ(st.rx_bytes, 60 + 62 + 1514 + 9014);
	CHECK_EQ(st.tx_errors, 0);
	pair_close(&p);
}

static size_t arp_request(uint8_t *f, const uint8_t target[4])
{
	struct ether_header *eh = (void *)f;
	struct ether_arp *a = (void *)(f + sizeof(*eh));

	memset(f, 0, 60);
	memset(eh->ether_dhost, 0xff, 6);
	memcpy(eh->ether_shost, peer_mac, 6);
	eh->ether_type = htons(ETHERTYPE_ARP);
	a->arp_hrd = htons(ARPHRD_ETHER);
	a->arp_pro = htons(ETHERTYPE_IP);
	a->arp_hln = 6;
	a->arp_pln = 4;
	a->arp_op = htons(ARPOP_REQUEST);
	memcpy(a->arp_sha, peer_mac, 6);
	memcpy(a->arp_spa, peer_ip, 4);
	memcpy(a->arp_tpa, target, 4);
	return 60; /* padded, as a NIC sends it */
}

static void test_arp(void)
{
	static const uint8_t other_ip[4] = {198, 18, 0, 99};
	uint8_t f[128], g[128];
	const struct ether_header *eh = (const void *)g;
	const struct ether_arp *a = (const void *)(g + sizeof(*eh));
	struct rnic_sim_udp_stats st;
	struct lsock *one[1];
	struct pair p;

	pair_open(&p);
	one[0] = p.s;
	/* for us: answered from the socket, not handed on */
	peer_send(&p, f, arp_request(f, our_ip));
	CHECK_EQ(lsock_wait(one, 1, -1, 1000), 1);
	CHECK_EQ(lsock_recv(p.s, g, sizeof(g)), 0);
	CHECK_EQ(peer_recv(&p, g, sizeof(g)), sizeof(struct ether_header) + sizeof(struct ether_arp));
	CHECK(memcmp(eh->ether_dhost, peer_mac, 6) == 0);
	CHECK(memcmp(eh->ether_shost, our_mac, 6) == 0);
	CHECK_EQ(ntohs(eh->ether_type), ETHERTYPE_ARP);
	CHECK_EQ(ntohs(a->arp_op), ARPOP_REPLY);
	CHECK(memcmp(a->arp_sha, our_mac, 6) == 0);
	CHECK(memcmp(a->arp_spa, our_ip, 4) == 0);
	CHECK(memcmp(a->arp_tha, peer_mac, 6) == 0);
	CHECK(memcmp(a->arp_tpa, peer_ip, 4) == 0);

	/* for someone else: neither answered nor handed on */
	peer_send(&p, f, arp_request(f, other_ip));
	CHECK_EQ(lsock_wait(one, 1, -1, 1000), 1);
	CHECK_EQ(lsock_recv(p.s, g, sizeof(g)), 0);
	CHECK_EQ(peer_recv(&p, g, sizeof(g)), -1);

	/* a runt: refused */
	peer_send(&p, f, 5);
	CHECK_EQ(lsock_wait(one, 1, -1, 1000), 1);
	CHECK_EQ(lsock_recv(p.s, g, sizeof(g)), 0);

	lsock_stats(p.s, &st);
	CHECK_EQ(st.arp_replies, 1);
	CHECK_EQ(st.rx_frames, 0);
	CHECK_EQ(st.rx_bad, 1);
	CHECK_EQ(st.tx_frames, 1);
	pair_close(&p);
}

static void test_wait(void)
{
	struct lsock *one[1];
	struct pair p;
	int fds[2];
	uint8_t f[64];

	pair_open(&p);
	one[0] = p.s;
	CHECK_EQ(lsock_wait(one, 1, -1, 0), 0);
	CHECK_EQ(lsock_wait(one, 1, -1, 20), 0);
	/* the extra descriptor wakes it as well */
	CHECK(pipe(fds) == 0);
	CHECK_EQ(lsock_wait(one, 1, fds[0], 0), 0);
	CHECK_EQ(write(fds[1], "x", 1), 1);
	CHECK_EQ(lsock_wait(one, 1, fds[0], 1000), 1);
	close(fds[0]);
	close(fds[1]);
	make_frame(f, sizeof(f), 1);
	peer_send(&p, f, sizeof(f));
	CHECK_EQ(lsock_wait(one, 1, -1, 1000), 1);
	pair_close(&p);
}

static void test_bad_addresses(void)
{
	static const char *const bad[] = {"127.0.0.1", ":5", "127.0.0.1:", "no.such.host.invalid:5"};
	struct rnic_sim_udp_cfg cfg;
	char err[160];

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.local = bad[i];
		cfg.remote = "127.0.0.1:9";
		err[0] = 0;
		CHECK(lsock_open(&cfg, err, sizeof(err)) == NULL);
		CHECK(err[0] != 0);
	}
}

/* ------------------------------------------------ the link's external port */

struct ext_seen {
	unsigned int n;
	uint8_t data[256];
	size_t len;
	unsigned int port;
};

static void ext_fn(void *arg, unsigned int port, const uint8_t *frame, size_t len)
{
	struct ext_seen *e = arg;

	e->n++;
	e->port = port;
	e->len = len < sizeof(e->data) ? len : sizeof(e->data);
	memcpy(e->data, frame, e->len);
}

static void test_link_external_port(void)
{
	const unsigned int bus = 8, latency = 10;
	struct link_cfg lc = {.ports = 1, .bus_bytes = bus, .rate_milli = 5000, .latency = latency,
			      .tx_fifo = 8192, .seed = 1};
	struct link *l = link_create(&lc);
	struct rnic_core_in in;
	struct rnic_core_out out;
	struct ext_seen e = {0};
	uint8_t f[100], rx[128];
	unsigned int off = 0, rx_len = 0, got_last = 0;
	uint64_t cycle = 0, sent_at = 0;

	CHECK(l != NULL);
	link_set_external(l, 0, ext_fn, &e);
	make_frame(f, sizeof(f), 9);
	/* the core sends f, 8 bytes a beat */
	for (; cycle < 200 && !e.n; cycle++) {
		memset(&out, 0, sizeof(out));
		link_drive(l, 0, cycle, &in);
		if (off < sizeof(f)) {
			unsigned int k = sizeof(f) - off < bus ? sizeof(f) - off : bus;

			memcpy(out.m_axis_tx_tdata, f + off, k);
			out.m_axis_tx_tkeep = (1ull << k) - 1;
			out.m_axis_tx_tvalid = 1;
			out.m_axis_tx_tlast = off + k == sizeof(f);
			if (in.m_axis_tx_tready) {
				off += k;
				if (off == sizeof(f))
					sent_at = cycle;
			}
		}
		link_edge(l, 0, cycle, &in, &out);
		link_tick(l, cycle);
	}
	CHECK_EQ(e.n, 1);
	CHECK_EQ(e.port, 0);
	CHECK_EQ(e.len, sizeof(f));
	CHECK(memcmp(e.data, f, sizeof(f)) == 0);
	/* serialization (100 + 24 bytes at 5 B/cycle) and the latency */
	CHECK(cycle - 1 >= sent_at + (sizeof(f) + LINK_WIRE_OVERHEAD) / 5 + latency);

	/* from outside: 42 bytes, delivered padded to 60 */
	CHECK_EQ(link_ext_rx(l, 0, cycle, f, 42), 0);
	CHECK_EQ(link_ext_rx(l, 0, cycle, f, 0), (long long)-EINVAL);
	CHECK_EQ(link_rx_pending(l, 0), 1);
	for (uint64_t end = cycle + 50; cycle < end && !got_last; cycle++) {
		memset(&out, 0, sizeof(out));
		out.s_axis_rx_tready = 1;
		link_drive(l, 0, cycle, &in);
		if (in.s_axis_rx_tvalid) {
			for (unsigned int i = 0; i < bus; i++)
				if ((in.s_axis_rx_tkeep >> i) & 1)
					rx[rx_len++] = in.s_axis_rx_tdata[i];
			got_last = in.s_axis_rx_tlast;
		}
		link_edge(l, 0, cycle, &in, &out);
		link_tick(l, cycle);
	}
	CHECK(got_last);
	CHECK_EQ(rx_len, LINK_MIN_FRAME);
	CHECK(memcmp(rx, f, 42) == 0);
	CHECK(rx[42] == 0 && rx[LINK_MIN_FRAME - 1] == 0);
	CHECK_EQ(link_busy(l), 0);
	link_destroy(l);
}

int main(void)
{
	test_frames_both_ways();
	test_arp();
	test_wait();
	test_bad_addresses();
	test_link_external_port();
	return check_summary();
}
