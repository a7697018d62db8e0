/* Ethernet link model: serialization timing at the line rate with per-frame
 * overhead (exact), latency, minimum-frame padding, TX and RX back-pressure,
 * fault probabilities with a fixed seed (rough match, and bit-identical
 * across runs), the learning switch, injection. The test plays the cores. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sim_int.h"

#define MAXF 20000

struct rxframe {
	uint8_t *data;
	uint32_t len;
	uint64_t first; /* cycle of the first beat presented */
};

struct core {
	struct rnic_core_in in;
	struct rnic_core_out out;
	/* TX source */
	uint8_t **tx;
	uint32_t *tx_len;
	unsigned int tx_n, tx_i, tx_off;
	uint64_t *tx_last_cycle; /* tlast handshake of each frame */
	/* RX sink */
	struct rxframe *rx;
	unsigned int rx_n;
	uint8_t cur[LINK_MAX_FRAME];
	uint32_t cur_len;
	uint64_t cur_first;
	int in_frame;
	int rx_block; /* hold tready low while non-zero (decrements) */
};

struct net {
	struct link *l;
	unsigned int ports, bus;
	struct core *c;
	uint64_t cycle;
};

static void net_init_fc(struct net *n, unsigned int ports, unsigned int bus, double rate,
			unsigned int latency, unsigned int fifo, uint64_t seed, double pd,
			double pdup, double pr, double pc, unsigned int pause_quanta)
{
	struct link_cfg cfg = {
		.ports = ports,
		.bus_bytes = bus,
		.rate_milli = sim_rate_milli(rate),
		.latency = latency,
		.tx_fifo = fifo,
		.pause_quanta = pause_quanta,
		.p_drop = pd,
		.p_dup = pdup,
		.p_reorder = pr,
		.p_corrupt = pc,
		.reorder_hold_max = 1000,
		.seed = seed,
	};

	memset(n, 0, sizeof(*n));
	n->l = link_create(&cfg);
	CHECK(n->l != NULL);
	n->ports = ports;
	n->bus = bus;
	n->c = calloc(ports, sizeof(*n->c));
	for (unsigned int p = 0; p < ports; p++) {
		n->c[p].tx = calloc(MAXF, sizeof(uint8_t *));
		n->c[p].tx_len = calloc(MAXF, sizeof(uint32_t));
		n->c[p].tx_last_cycle = calloc(MAXF, sizeof(uint64_t));
		n->c[p].rx = calloc(2 * MAXF, sizeof(struct rxframe));
	}
	n->cycle = 1000;
}

static void net_init(struct net *n, unsigned int ports, unsigned int bus, double rate,
		     unsigned int latency, unsigned int fifo, uint64_t seed, double pd, double pdup,
		     double pr, double pc)
{
	net_init_fc(n, ports, bus, rate, latency, fifo, seed, pd, pdup, pr, pc, 0);
}

static void net_free(struct net *n)
{
	for (unsigned int p = 0; p < n->ports; p++) {
		for (unsigned int i = 0; i < n->c[p].tx_n; i++)
			free(n->c[p].tx[i]);
		for (unsigned int i = 0; i < n->c[p].rx_n; i++)
			free(n->c[p].rx[i].data);
		free(n->c[p].tx);
		free(n->c[p].tx_len);
		free(n->c[p].tx_last_cycle);
		free(n->c[p].rx);
	}
	free(n->c);
	link_destroy(n->l);
}

/* Queue a frame on port p's TX: dst, src MACs, a 4-byte sequence, filler. */
static void send(struct net *n, unsigned int p, const uint8_t *dst, const uint8_t *src,
		 uint32_t seq, uint32_t len)
{
	struct core *c = &n->c[p];
	uint8_t *f = calloc(1, len);

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	memcpy(f + 14, &seq, 4);
	for (uint32_t i = 18; i < len; i++)
		f[i] = (uint8_t)(seq + i);
	c->tx[c->tx_n] = f;
	c->tx_len[c->tx_n] = len;
	c->tx_n++;
}

static void net_cycle(struct net *n)
{
	for (unsigned int p = 0; p < n->ports; p++)
		link_drive(n->l, p, n->cycle, &n->c[p].in);
	for (unsigned int p = 0; p < n->ports; p++) {
		struct core *c = &n->c[p];

		/* TX beat */
		memset(c->out.m_axis_tx_tdata, 0, sizeof(c->out.m_axis_tx_tdata));
		c->out.m_axis_tx_tvalid = c->tx_i < c->tx_n;
		c->out.m_axis_tx_tkeep = 0;
		c->out.m_axis_tx_tlast = 0;
		c->out.m_axis_tx_tuser = 0;
		if (c->tx_i < c->tx_n) {
			uint32_t k = c->tx_len[c->tx_i] - c->tx_off;

			if (k > n->bus)
				k = n->bus;
			memcpy(c->out.m_axis_tx_tdata, c->tx[c->tx_i] + c->tx_off, k);
			c->out.m_axis_tx_tkeep = k >= 64 ? ~0ull : (1ull << k) - 1;
			c->out.m_axis_tx_tlast = c->tx_off + k == c->tx_len[c->tx_i];
			if (c->in.m_axis_tx_tready) {
				if (c->out.m_axis_tx_tlast) {
					c->tx_last_cycle[c->tx_i] = n->cycle;
					c->tx_i++;
					c->tx_off = 0;
				} else {
					c->tx_off += k;
				}
			}
		}
		/* RX beat */
		c->out.s_axis_rx_tready = c->rx_block == 0;
		if (c->rx_block)
			c->rx_block--;
		if (c->in.s_axis_rx_tvalid) {
			if (!c->in_frame) {
				c->in_frame = 1;
				c->cur_first = n->cycle;
				c->cur_len = 0;
			}
			if (c->out.s_axis_rx_tready) {
				for (unsigned int i = 0; i < n->bus; i++)
					if ((c->in.s_axis_rx_tkeep >> i) & 1)
						c->cur[c->cur_len++] = c->in.s_axis_rx_tdata[i];
				if (c->in.s_axis_rx_tlast) {
					struct rxframe *r = &c->rx[c->rx_n++];

					r->data = malloc(c->cur_len);
					memcpy(r->data, c->cur, c->cur_len);
					r->len = c->cur_len;
					r->first = c->cur_first;
					c->in_frame = 0;
				}
			}
		}
	}
	for (unsigned int p = 0; p < n->ports; p++)
		link_edge(n->l, p, n->cycle, &n->c[p].in, &n->c[p].out);
	link_tick(n->l, n->cycle);
	n->cycle++;
}

static void net_run(struct net *n, uint64_t max)
{
	for (uint64_t i = 0; i < max; i++) {
		int busy = link_busy(n->l);

		for (unsigned int p = 0; p < n->ports; p++)
			busy |= n->c[p].tx_i < n->c[p].tx_n;
		if (!busy)
			return;
		net_cycle(n);
	}
}

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0xa };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0xb };
static const uint8_t mac_c[6] = { 0x02, 0, 0, 0, 0, 0xc };
static const uint8_t mac_bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* One frame: tlast handshake -> first RX beat = ceil((len+24)/rate) + latency. */
static void test_timing_single(void)
{
	static const struct {
		unsigned int bus;
		double rate;
		unsigned int len, lat;
	} cases[] = {
		{ 8, 5, 100, 100 }, { 8, 5, 40, 100 }, { 64, 50, 1500, 100 },
		{ 64, 12.5, 1000, 7 }, { 8, 5, 1518, 0 },
	};

	for (unsigned int k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct net n;
		unsigned int wire = cases[k].len < 60 ? 60 : cases[k].len;
		uint64_t expect = ceil_div((uint64_t)(wire + 24) * 1000,
					   sim_rate_milli(cases[k].rate)) + cases[k].lat;

		net_init(&n, 2, cases[k].bus, cases[k].rate, cases[k].lat, 1 << 16, 1, 0, 0, 0, 0);
		send(&n, 0, mac_b, mac_a, 1, cases[k].len);
		net_run(&n, 100000);
		CHECK_EQ(n.c[1].rx_n, 1);
		CHECK_EQ(n.c[1].rx[0].first - n.c[0].tx_last_cycle[0], expect);
		CHECK_EQ(n.c[1].rx[0].len, wire);
		CHECK(!memcmp(n.c[1].rx[0].data, n.c[0].tx[0], cases[k].len));
		for (unsigned int i = cases[k].len; i < wire; i++)
			CHECK_EQ(n.c[1].rx[0].data[i], 0);
		net_free(&n);
	}
}

/* Back-to-back frames: arrivals follow the cumulative wire time exactly,
 * fractional bytes carried from frame to frame. */
static void test_timing_back_to_back(void)
{
	struct net n;
	const unsigned int len = 100, frames = 50;
	struct rnic_sim_port_stats st;

	net_init(&n, 2, 8, 5, 100, 1 << 16, 1, 0, 0, 0, 0);
	for (unsigned int i = 0; i < frames; i++)
		send(&n, 0, mac_b, mac_a, i, len);
	net_run(&n, 100000);
	CHECK_EQ(n.c[1].rx_n, frames);
	for (unsigned int i = 1; i < frames; i++)
		CHECK_EQ(n.c[1].rx[i].first - n.c[1].rx[0].first,
			 ceil_div((uint64_t)(i + 1) * (len + 24), 5) - ceil_div(len + 24, 5));
	link_port_stats(n.l, 0, &st);
	CHECK_EQ(st.tx_frames, frames);
	CHECK_EQ(st.tx_bytes, frames * len);
	link_port_stats(n.l, 1, &st);
	CHECK_EQ(st.rx_frames, frames);
	net_free(&n);

	/* 100 Gb/s at 512 bits, 1024-byte frames: 1048 / 50 cycles each */
	net_init(&n, 2, 64, 50, 100, 1 << 16, 1, 0, 0, 0, 0);
	for (unsigned int i = 0; i < frames; i++)
		send(&n, 0, mac_b, mac_a, i, 1024);
	net_run(&n, 100000);
	CHECK_EQ(n.c[1].rx_n, frames);
	CHECK_EQ(n.c[1].rx[frames - 1].first - n.c[1].rx[0].first,
		 ceil_div((uint64_t)frames * 1048 * 1000, 50000) -
			 ceil_div(1048 * 1000, 50000));
	net_free(&n);
}

/* A small MAC FIFO holds tready low while full, never forever; RX tready low
 * holds the beat and is counted. */
static void test_backpressure(void)
{
	struct net n;
	struct rnic_sim_port_stats st;

	net_init(&n, 2, 8, 5, 10, 300, 1, 0, 0, 0, 0);
	for (unsigned int i = 0; i < 20; i++)
		send(&n, 0, mac_b, mac_a, i, 200);
	n.c[1].rx_block = 1000;
	net_run(&n, 100000);
	CHECK_EQ(n.c[1].rx_n, 20);
	link_port_stats(n.l, 0, &st);
	CHECK(st.tx_backpressure_cycles > 0);
	link_port_stats(n.l, 1, &st);
	CHECK(st.rx_backpressure_cycles > 0);
	CHECK(st.rx_backpressure_cycles <= 1000);
	for (unsigned int i = 0; i < 20; i++) {
		uint32_t seq;

		memcpy(&seq, n.c[1].rx[i].data + 14, 4);
		CHECK_EQ(seq, i);
		CHECK(!memcmp(n.c[1].rx[i].data, n.c[0].tx[i], 200));
	}
	net_free(&n);
}

struct fault_run {
	struct rnic_sim_link_stats st;
	uint64_t hash;
	unsigned int delivered, out_of_order, dups, one_bit;
};

static void fault_run(uint64_t seed, unsigned int frames, struct fault_run *r)
{
	struct net n;
	uint8_t *seen = calloc(frames, 1);
	uint32_t prev = 0;

	memset(r, 0, sizeof(*r));
	net_init(&n, 2, 8, 0, 0, 1 << 20, seed, 0.05, 0.03, 0.04, 0.02);
	for (unsigned int i = 0; i < frames; i++)
		send(&n, 0, mac_b, mac_a, i, 64);
	net_run(&n, 10000000);
	link_stats(n.l, &r->st);
	r->hash = 1469598103934665603ull;
	r->delivered = n.c[1].rx_n;
	for (unsigned int i = 0; i < n.c[1].rx_n; i++) {
		const struct rxframe *f = &n.c[1].rx[i];
		uint32_t seq;
		unsigned int bits = 0;

		for (uint32_t k = 0; k < f->len; k++)
			r->hash = (r->hash ^ f->data[k]) * 1099511628211ull;
		r->hash = (r->hash ^ f->first) * 1099511628211ull;
		memcpy(&seq, f->data + 14, 4);
		if (seq >= frames) /* the flipped bit hit the sequence number */
			continue;
		for (uint32_t k = 0; k < f->len; k++)
			bits += (unsigned int)__builtin_popcount(f->data[k] ^ n.c[0].tx[seq][k]);
		if (bits == 1)
			r->one_bit++;
		else if (bits == 0 && seen[seq])
			r->dups++;
		if (i && seq < prev)
			r->out_of_order++;
		prev = seq;
		seen[seq] = 1;
	}
	free(seen);
	net_free(&n);
}

static void test_faults(void)
{
	const unsigned int frames = 10000;
	struct fault_run a, b, c;

	fault_run(42, frames, &a);
	fault_run(42, frames, &b);
	fault_run(43, frames, &c);
	/* probabilities roughly match (4 sigma bands) */
	CHECK(a.st.dropped > 500 - 90 && a.st.dropped < 500 + 90);
	CHECK(a.st.duplicated > 285 - 70 && a.st.duplicated < 285 + 70);
	CHECK(a.st.reordered > 380 - 80 && a.st.reordered < 380 + 80);
	CHECK(a.st.corrupted > 200 - 60 && a.st.corrupted < 200 + 60);
	CHECK_EQ(a.delivered, frames - a.st.dropped + a.st.duplicated);
	CHECK_EQ(a.st.frames, a.delivered);
	/* what the receiver sees matches the counters */
	CHECK(a.out_of_order >= a.st.reordered * 9 / 10);
	CHECK(a.dups >= a.st.duplicated * 9 / 10);
	CHECK(a.one_bit >= a.st.corrupted * 8 / 10);
	/* deterministic: same seed, same frames, same cycles */
	CHECK_EQ(a.hash, b.hash);
	CHECK_EQ(a.st.dropped, b.st.dropped);
	CHECK_EQ(a.st.corrupted, b.st.corrupted);
	CHECK(a.hash != c.hash);
}

/* A held-back frame with nothing behind it leaves after reorder_hold_max. */
static void test_reorder_timeout(void)
{
	struct net n;

	net_init(&n, 2, 8, 5, 10, 1 << 16, 1, 0, 0, 1.0, 0);
	send(&n, 0, mac_b, mac_a, 0, 64);
	net_run(&n, 100000);
	CHECK_EQ(n.c[1].rx_n, 1);
	CHECK_EQ(n.c[1].rx[0].first - n.c[0].tx_last_cycle[0],
		 ceil_div(88 * 1000, 5000) + 10 + 1000);
	net_free(&n);
}

static void test_switch(void)
{
	struct net n;
	struct rnic_sim_link_stats st;

	net_init(&n, 3, 8, 5, 10, 1 << 16, 1, 0, 0, 0, 0);
	/* A (port 0) -> B unknown: flooded to 1 and 2 */
	send(&n, 0, mac_b, mac_a, 1, 64);
	net_run(&n, 100000);
	CHECK_EQ(n.c[1].rx_n, 1);
	CHECK_EQ(n.c[2].rx_n, 1);
	CHECK_EQ(n.c[0].rx_n, 0);
	/* B (port 1) -> A: A was learned, only port 0 */
	send(&n, 1, mac_a, mac_b, 2, 64);
	net_run(&n, 100000);
	CHECK_EQ(n.c[0].rx_n, 1);
	CHECK_EQ(n.c[2].rx_n, 1);
	/* A -> B: B learned now */
	send(&n, 0, mac_b, mac_a, 3, 64);
	net_run(&n, 100000);
	CHECK_EQ(n.c[1].rx_n, 2);
	CHECK_EQ(n.c[2].rx_n, 1);
	/* C (port 2) broadcasts: ports 0 and 1 */
	send(&n, 2, mac_bc, mac_c, 4, 64);
	net_run(&n, 100000);
	CHECK_EQ(n.c[0].rx_n, 2);
	CHECK_EQ(n.c[1].rx_n, 3);
	CHECK_EQ(n.c[2].rx_n, 1);
	link_stats(n.l, &st);
	CHECK_EQ(st.flooded, 2);
	CHECK_EQ(st.unicast_learned, 2);
	CHECK_EQ(st.frames, 4);
	/* the switch re-serializes: A -> B takes two wire times + latency */
	{
		uint64_t t0 = n.c[0].tx_last_cycle[1];

		CHECK_EQ(n.c[1].rx[1].first - t0, 2 * ceil_div(88 * 1000, 5000) + 10);
	}
	net_free(&n);
}

static void test_inject(void)
{
	struct net n;
	uint8_t f[70];

	for (unsigned int i = 0; i < sizeof(f); i++)
		f[i] = (uint8_t)i;
	net_init(&n, 2, 8, 5, 10, 1 << 16, 1, 0, 0, 0, 0);
	CHECK_EQ(link_inject(n.l, 1, n.cycle, f, sizeof(f)), 0);
	CHECK_EQ(link_inject(n.l, 1, n.cycle, f, 10), 0);
	CHECK_EQ(link_inject(n.l, 2, n.cycle, f, 10), -EINVAL);
	CHECK_EQ(link_rx_pending(n.l, 1), 2);
	{
		uint64_t start = n.cycle;

		net_run(&n, 1000);
		CHECK_EQ(n.c[1].rx_n, 2);
		CHECK_EQ(n.c[1].rx[0].first, start);
		CHECK_EQ(n.c[1].rx[1].first, start + 9); /* 70 bytes: 9 beats */
		CHECK_EQ(n.c[1].rx[1].len, 60);
		CHECK(!memcmp(n.c[1].rx[0].data, f, sizeof(f)));
	}
	CHECK_EQ(link_rx_pending(n.l, 1), 0);
	net_free(&n);
}

/* A PAUSE frame as a MAC sends it (60 bytes). */
static void pause_frame(uint8_t *f, const uint8_t *src, unsigned int opcode, unsigned int quanta)
{
	static const uint8_t da[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

	memset(f, 0, 60);
	memcpy(f, da, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88;
	f[13] = 0x08;
	f[14] = (uint8_t)(opcode >> 8);
	f[15] = (uint8_t)opcode;
	f[16] = (uint8_t)(quanta >> 8);
	f[17] = (uint8_t)quanta;
}

/* First frame at port's core whose first beat came after cycle t. */
static const struct rxframe *first_after(const struct core *c, uint64_t t)
{
	for (unsigned int i = 0; i < c->rx_n; i++)
		if (c->rx[i].first > t)
			return &c->rx[i];
	return NULL;
}

/* Last frame whose first beat came at or before cycle t. */
static const struct rxframe *last_before(const struct core *c, uint64_t t)
{
	const struct rxframe *r = NULL;

	for (unsigned int i = 0; i < c->rx_n; i++)
		if (c->rx[i].first <= t)
			r = &c->rx[i];
	return r;
}

static void run_to(struct net *n, uint64_t cycle)
{
	while (n->cycle < cycle)
		net_cycle(n);
}

/* IEEE 802.3 Annex 31B at the MACs, 10 Gb/s (5 B/cycle), latency 100, a
 * stream of 200-byte frames from port 0 to port 1 (45 cycles of wire each
 * from a standing start: first beat at the far end 145 cycles after the
 * frame starts). */
static void test_pause(void)
{
	const uint64_t q_cycles = 100 * 64 / 5; /* 100 quanta of 64 bytes at 5 B/cycle */
	struct rnic_sim_port_stats st0, st1;
	const struct rxframe *r;
	struct net n;
	uint8_t f[60];
	uint64_t c;

	net_init_fc(&n, 2, 8, 5, 100, 8192, 1, 0, 0, 0, 0, 100);
	for (uint32_t i = 0; i < 400; i++)
		send(&n, 0, mac_b, mac_a, i, 200);

	/* a PAUSE from the peer (injected at port 0's MAC): no data frame
	 * starts for 100 quanta; the frame on the wire finishes */
	run_to(&n, 3000);
	c = n.cycle;
	pause_frame(f, mac_b, RNIC_MAC_CTRL_OP_PAUSE, 100);
	CHECK_EQ(link_inject(n.l, 0, c, f, sizeof(f)), 0);
	run_to(&n, c + 3000);
	r = first_after(&n.c[1], c + 145);
	CHECK(r != NULL);
	if (r)
		CHECK_EQ(r->first, c + q_cycles + 145);
	r = last_before(&n.c[1], c + 145);
	CHECK(r != NULL && r->first + 45 >= c);
	link_port_stats(n.l, 0, &st0);
	CHECK_EQ(st0.rx_pause_frames, 1);
	CHECK_EQ(n.c[0].rx_n, 0); /* the MAC consumed it */
	CHECK(st0.tx_paused_cycles >= q_cycles - 45 && st0.tx_paused_cycles <= q_cycles);

	/* a PAUSE of 0 quanta ends the pause at once */
	c = n.cycle;
	CHECK_EQ(link_inject(n.l, 0, c, f, sizeof(f)), 0);
	run_to(&n, c + 200);
	pause_frame(f, mac_b, RNIC_MAC_CTRL_OP_PAUSE, 0);
	CHECK_EQ(link_inject(n.l, 0, n.cycle, f, sizeof(f)), 0);
	c = n.cycle;
	run_to(&n, c + 1000);
	r = first_after(&n.c[1], c + 140);
	CHECK(r != NULL && r->first <= c + 145);

	/* other MAC Control opcodes (PFC here) are discarded by the MAC */
	pause_frame(f, mac_b, 0x0101, 0xffff);
	CHECK_EQ(link_inject(n.l, 0, n.cycle, f, sizeof(f)), 0);
	c = n.cycle;
	run_to(&n, c + 500);
	link_port_stats(n.l, 0, &st0);
	CHECK_EQ(st0.rx_mac_ctrl_dropped, 1);
	CHECK_EQ(st0.rx_pause_frames, 3);
	r = last_before(&n.c[1], c + 500);
	CHECK(r != NULL && r->first > c + 400); /* the stream never stopped */

	/* the core at port 1 asks for a pause: XOFF goes out at once (port 1
	 * sends nothing else: 17 cycles of wire, 100 of cable), refreshed every
	 * 50 quanta while the request stays high; its fall sends XON */
	c = n.cycle;
	n.c[1].out.mac_pause_req = 1;
	run_to(&n, c + 2000);
	n.c[1].out.mac_pause_req = 0;
	run_to(&n, c + 4000);
	link_port_stats(n.l, 1, &st1);
	CHECK_EQ(st1.tx_xoff_frames, 1 + (2000 - 1) / (q_cycles / 2));
	CHECK_EQ(st1.tx_xon_frames, 1);
	CHECK_EQ(st1.tx_frames, 0); /* nothing from the core: the MAC made them */
	r = last_before(&n.c[1], c + 117 + 145);
	CHECK(r != NULL && r->first + 45 >= c + 117 - 1);
	r = first_after(&n.c[1], c + 117 + 145);
	CHECK(r != NULL);
	if (r)
		CHECK_EQ(r->first, c + 2000 + 117 + 145);
	link_port_stats(n.l, 0, &st0);
	CHECK_EQ(st0.rx_pause_frames, 3 + st1.tx_xoff_frames + st1.tx_xon_frames);
	CHECK_EQ(n.c[0].rx_n, 0);
	CHECK_EQ(st1.tx_xoff_faulted, 0);

	/* an XOFF the link loses holds nothing, and is counted as hit; its
	 * XON, lost too, is not (losing it only ends the pause late) */
	net_free(&n);
	net_init_fc(&n, 2, 8, 5, 100, 8192, 1, 1.0, 0, 0, 0, 100);
	for (uint32_t i = 0; i < 40; i++)
		send(&n, 0, mac_b, mac_a, i, 200);
	run_to(&n, 500);
	c = n.cycle;
	n.c[1].out.mac_pause_req = 1;
	run_to(&n, c + 200);
	n.c[1].out.mac_pause_req = 0;
	run_to(&n, c + 600);
	link_port_stats(n.l, 1, &st1);
	link_port_stats(n.l, 0, &st0);
	CHECK_EQ(st1.tx_xoff_frames, 1);
	CHECK_EQ(st1.tx_xon_frames, 1);
	CHECK_EQ(st1.tx_xoff_faulted, 1);
	CHECK_EQ(st0.tx_paused_cycles, 0);
	CHECK_EQ(st0.rx_pause_frames, 0);

	/* without flow control, a PAUSE is a frame like any other */
	net_free(&n);
	net_init(&n, 2, 8, 5, 100, 8192, 1, 0, 0, 0, 0);
	pause_frame(f, mac_b, RNIC_MAC_CTRL_OP_PAUSE, 100);
	CHECK_EQ(link_inject(n.l, 0, n.cycle, f, sizeof(f)), 0);
	n.c[1].out.mac_pause_req = 1;
	run_to(&n, n.cycle + 1000);
	CHECK_EQ(n.c[0].rx_n, 1);
	link_port_stats(n.l, 1, &st1);
	CHECK_EQ(st1.tx_xoff_frames, 0);
	net_free(&n);
}

/* Switch: a NIC's PAUSE holds the switch's egress toward that NIC only, and
 * is neither forwarded nor learned. */
static void test_pause_switch(void)
{
	struct rnic_sim_port_stats st[3];
	struct net n;

	net_init_fc(&n, 3, 8, 5, 100, 8192, 1, 0, 0, 0, 0, 100);
	send(&n, 2, mac_a, mac_c, 0, 100); /* teach the switch where mac_c is */
	send(&n, 1, mac_a, mac_b, 0, 100);
	net_run(&n, 10000);
	n.c[2].out.mac_pause_req = 1;
	run_to(&n, n.cycle + 300);
	for (uint32_t i = 0; i < 20; i++) {
		send(&n, 0, mac_c, mac_a, i, 200);
		send(&n, 0, mac_b, mac_a, i, 200);
	}
	run_to(&n, n.cycle + 2500); /* 40 frames of 45 cycles on port 0's wire */
	for (unsigned int p = 0; p < 3; p++)
		link_port_stats(n.l, p, &st[p]);
	CHECK(st[2].eg_paused_cycles > 0);
	CHECK_EQ(st[0].tx_paused_cycles, 0);
	CHECK_EQ(n.c[1].rx_n, 1 + 20); /* the flood, then all 20 for mac_b */
	CHECK_EQ(n.c[2].rx_n, 1);      /* only the flood so far */
	CHECK_EQ(n.c[0].rx_n, 2);      /* the two floods; no PAUSE */
	n.c[2].out.mac_pause_req = 0;
	net_run(&n, 100000);
	CHECK_EQ(n.c[2].rx_n, 1 + 20);
	CHECK_EQ(n.c[0].rx_n, 2);
	net_free(&n);
}

int main(void)
{
	test_timing_single();
	test_timing_back_to_back();
	test_backpressure();
	test_faults();
	test_reorder_timeout();
	test_switch();
	test_inject();
	test_pause();
	test_pause_switch();
	return check_summary();
}
