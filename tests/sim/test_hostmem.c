/* Host-memory model: latency exactness, bandwidth, outstanding limit, WSTRB,
 * faults outside mapped ranges (memory untouched), read-after-write, writes
 * reaching memory with their B response and reads ordered behind them. The test
 * plays the core's AXI4 master on the pin structs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sim_int.h"

struct bench {
	struct hostmem *m;
	struct rnic_core_in in;
	struct rnic_core_out out;
	uint64_t cycle;
};

static void bench_init(struct bench *b, unsigned int bus, unsigned int rd_lat,
		       unsigned int wr_lat, double rd_bw, double wr_bw, unsigned int max_rd,
		       unsigned int max_wr)
{
	struct hostmem_cfg c = {
		.bus_bytes = bus,
		.rd_latency = rd_lat,
		.wr_latency = wr_lat,
		.rd_bw_milli = sim_rate_milli(rd_bw),
		.wr_bw_milli = sim_rate_milli(wr_bw),
		.max_rd = max_rd,
		.max_wr = max_wr,
	};

	memset(b, 0, sizeof(*b));
	b->m = hostmem_create(&c);
	CHECK(b->m != NULL);
	b->cycle = 100;
}

/* drive, then let the caller's outputs stand, then edge */
static void bench_drive(struct bench *b)
{
	hostmem_drive(b->m, b->cycle, &b->in);
}

static void bench_edge(struct bench *b)
{
	hostmem_edge(b->m, b->cycle, &b->in, &b->out);
	b->cycle++;
}

struct rd_result {
	uint64_t ar_cycle, first_r, last_r;
	unsigned int beats;
	uint8_t resp_or;
	int last_ok;
	uint8_t data[8192];
};

/* One read burst, RREADY high; collects the beats' bus bytes. */
static void do_read(struct bench *b, uint64_t addr, unsigned int len, unsigned int size,
		    struct rd_result *r)
{
	unsigned int bus = 8;
	int ar_done = 0;

	while (bus < sizeof(b->in.m_axi_rdata) && (1u << size) > bus)
		bus *= 2;
	memset(r, 0, sizeof(*r));
	r->last_ok = 1;
	for (int guard = 0; guard < 100000; guard++) {
		bench_drive(b);
		b->out.m_axi_arvalid = !ar_done;
		b->out.m_axi_araddr = addr;
		b->out.m_axi_arlen = (uint8_t)(len - 1);
		b->out.m_axi_arsize = (uint8_t)size;
		b->out.m_axi_arburst = 1;
		b->out.m_axi_arid = 3;
		b->out.m_axi_rready = 1;
		if (b->out.m_axi_arvalid && b->in.m_axi_arready) {
			ar_done = 1;
			r->ar_cycle = b->cycle;
		}
		if (b->in.m_axi_rvalid) {
			unsigned int n = 1u << size;

			if (r->beats == 0)
				r->first_r = b->cycle;
			r->last_r = b->cycle;
			CHECK_EQ(b->in.m_axi_rid, 3);
			memcpy(&r->data[r->beats * n], b->in.m_axi_rdata, n);
			r->resp_or |= b->in.m_axi_rresp;
			r->beats++;
			if (!!b->in.m_axi_rlast != (r->beats == len))
				r->last_ok = 0;
			if (r->beats == len) {
				bench_edge(b);
				b->out.m_axi_arvalid = 0;
				return;
			}
		}
		bench_edge(b);
	}
	CHECK(!"read did not finish");
}

struct wr_result {
	uint64_t last_w, b_cycle;
	uint8_t bresp;
};

/* One write burst of len beats of 2^size bytes, data and strobes per beat. */
static void do_write(struct bench *b, uint64_t addr, unsigned int len, unsigned int size,
		     const uint8_t *data, const uint64_t *strb, struct wr_result *r)
{
	int aw_done = 0;
	unsigned int beat = 0;
	unsigned int n = 1u << size;

	memset(r, 0, sizeof(*r));
	for (int guard = 0; guard < 100000; guard++) {
		bench_drive(b);
		b->out.m_axi_awvalid = !aw_done;
		b->out.m_axi_awaddr = addr;
		b->out.m_axi_awlen = (uint8_t)(len - 1);
		b->out.m_axi_awsize = (uint8_t)size;
		b->out.m_axi_awburst = 1;
		b->out.m_axi_awid = 5;
		b->out.m_axi_wvalid = beat < len;
		memset(b->out.m_axi_wdata, 0, sizeof(b->out.m_axi_wdata));
		if (beat < len) {
			memcpy(b->out.m_axi_wdata, &data[beat * n], n);
			b->out.m_axi_wstrb = strb[beat];
		}
		b->out.m_axi_wlast = beat + 1 == len;
		b->out.m_axi_bready = 1;
		if (b->out.m_axi_awvalid && b->in.m_axi_awready)
			aw_done = 1;
		if (b->out.m_axi_wvalid && b->in.m_axi_wready) {
			beat++;
			r->last_w = b->cycle;
		}
		if (b->in.m_axi_bvalid) {
			r->b_cycle = b->cycle;
			r->bresp = b->in.m_axi_bresp;
			CHECK_EQ(b->in.m_axi_bid, 5);
			bench_edge(b);
			b->out.m_axi_awvalid = 0;
			b->out.m_axi_wvalid = 0;
			return;
		}
		bench_edge(b);
	}
	CHECK(!"write did not finish");
}

static void test_read_latency_exact(void)
{
	static uint8_t buf[256] __attribute__((aligned(64)));
	struct bench b;
	struct rd_result *r = malloc(sizeof(*r));

	for (unsigned int i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	for (unsigned int lat = 1; lat <= 300; lat += 299) {
		bench_init(&b, 8, lat, 100, 32, 32, 32, 32);
		CHECK_EQ(hostmem_map(b.m, buf, sizeof(buf)), 0);
		do_read(&b, (uintptr_t)buf, 4, 3, r);
		CHECK_EQ(r->first_r - r->ar_cycle, lat);
		CHECK_EQ(r->last_r - r->first_r, 3); /* 8 B beats under 32 B/cycle: 1/cycle */
		CHECK_EQ(r->beats, 4);
		CHECK_EQ(r->resp_or, 0);
		CHECK(r->last_ok);
		CHECK(!memcmp(r->data, buf, 32));
		CHECK_EQ(hostmem_faults(b.m, NULL, 0), 0);
		hostmem_destroy(b.m);
	}
	free(r);
}

static void test_write_latency_exact(void)
{
	static uint8_t buf[64] __attribute__((aligned(64)));
	uint8_t data[64];
	uint64_t strb[8];
	struct bench b;
	struct wr_result r;

	for (unsigned int i = 0; i < 64; i++)
		data[i] = (uint8_t)(0xa0 + i);
	for (unsigned int i = 0; i < 8; i++)
		strb[i] = 0xff;
	bench_init(&b, 8, 200, 100, 32, 32, 32, 32);
	CHECK_EQ(hostmem_map(b.m, buf, sizeof(buf)), 0);
	do_write(&b, (uintptr_t)buf, 8, 3, data, strb, &r);
	CHECK_EQ(r.b_cycle - r.last_w, 100);
	CHECK_EQ(r.bresp, 0);
	CHECK(!memcmp(buf, data, 64));
	hostmem_destroy(b.m);
}

/* 512-bit bus at 32 B/cycle: one 64 B beat every 2 cycles, exactly; at a
 * fractional 20 B/cycle the long-run rate is 20 B/cycle. */
static void test_read_bandwidth(void)
{
	uint8_t *buf = aligned_alloc(4096, 8192);
	struct rd_result *r = malloc(sizeof(*r));
	struct bench b;
	struct rnic_sim_mem_stats st;

	memset(buf, 0x5a, 8192);
	bench_init(&b, 64, 10, 10, 32, 32, 32, 32);
	CHECK_EQ(hostmem_map(b.m, buf, 8192), 0);
	do_read(&b, (uintptr_t)buf, 64, 6, r);
	CHECK_EQ(r->beats, 64);
	/* the idle bucket holds one beat plus one cycle: the first two beats go
	 * back to back, then one per 2 cycles */
	CHECK_EQ(r->last_r - r->first_r, 1 + 2 * 62);
	hostmem_stats(b.m, &st);
	CHECK_EQ(st.rd_bytes, 4096);
	CHECK_EQ(st.rd_beats, 64);
	hostmem_destroy(b.m);

	bench_init(&b, 64, 10, 10, 20, 20, 32, 32);
	CHECK_EQ(hostmem_map(b.m, buf, 8192), 0);
	do_read(&b, (uintptr_t)buf, 128, 6, r);
	{
		double rate = (double)(127 * 64) / (double)(r->last_r - r->first_r);

		CHECK(rate > 19.8 && rate < 20.5);
	}
	hostmem_destroy(b.m);

	/* 64-bit bus: the bus is the limit at 32 B/cycle */
	bench_init(&b, 8, 10, 10, 32, 32, 32, 32);
	CHECK_EQ(hostmem_map(b.m, buf, 8192), 0);
	do_read(&b, (uintptr_t)buf, 256, 3, r);
	CHECK_EQ(r->last_r - r->first_r, 255);
	hostmem_destroy(b.m);
	free(r);
	free(buf);
}

static void test_write_bandwidth(void)
{
	uint8_t *buf = aligned_alloc(4096, 4096);
	uint8_t *data = calloc(1, 4096);
	uint64_t strb[64];
	struct bench b;
	struct wr_result r;
	uint64_t start;

	for (int i = 0; i < 64; i++)
		strb[i] = ~0ull;
	bench_init(&b, 64, 10, 10, 32, 16, 32, 32);
	CHECK_EQ(hostmem_map(b.m, buf, 4096), 0);
	start = b.cycle;
	do_write(&b, (uintptr_t)buf, 64, 6, data, strb, &r);
	/* 16 B/cycle, 64 B beats: 4 cycles per beat after the banked one (AW takes
	 * the first cycle) */
	CHECK(r.last_w - start >= 4 * 62 && r.last_w - start <= 4 * 63 + 2);
	hostmem_destroy(b.m);
	free(buf);
	free(data);
}

static void test_max_outstanding(void)
{
	static uint8_t buf[4096] __attribute__((aligned(64)));
	struct bench b;
	struct rnic_sim_mem_stats st;
	unsigned int accepted = 0;

	bench_init(&b, 8, 50, 10, 32, 32, 4, 32);
	CHECK_EQ(hostmem_map(b.m, buf, sizeof(buf)), 0);
	for (int i = 0; i < 40; i++) {
		bench_drive(&b);
		b.out.m_axi_arvalid = 1;
		b.out.m_axi_araddr = (uintptr_t)buf + 8u * accepted;
		b.out.m_axi_arlen = 0;
		b.out.m_axi_arsize = 3;
		b.out.m_axi_arburst = 1;
		b.out.m_axi_rready = 0;
		if (b.in.m_axi_arready)
			accepted++;
		bench_edge(&b);
	}
	CHECK_EQ(accepted, 4);
	hostmem_stats(b.m, &st);
	CHECK_EQ(st.rd_outstanding_max, 4);
	CHECK(hostmem_busy(b.m));
	hostmem_destroy(b.m);
}

static void test_wstrb(void)
{
	static uint8_t buf[16] __attribute__((aligned(64)));
	uint8_t data[16];
	uint64_t strb[2] = { 0xa5, 0x0f };
	struct bench b;
	struct wr_result r;

	memset(buf, 0x11, sizeof(buf));
	memset(data, 0xee, sizeof(data));
	bench_init(&b, 8, 10, 10, 32, 32, 32, 32);
	CHECK_EQ(hostmem_map(b.m, buf, sizeof(buf)), 0);
	do_write(&b, (uintptr_t)buf, 2, 3, data, strb, &r);
	CHECK_EQ(r.bresp, 0);
	for (int i = 0; i < 8; i++)
		CHECK_EQ(buf[i], (0xa5 >> i) & 1 ? 0xee : 0x11);
	for (int i = 8; i < 16; i++)
		CHECK_EQ(buf[i], i < 12 ? 0xee : 0x11);
	hostmem_destroy(b.m);
}

/* Paged mapping: each page of a range gets a bus page of its own, never next
 * to its neighbour's; reads and writes through the bus pages reach the
 * range's bytes and nothing else (not even the rest of its first and last
 * page); after unmap the bus pages fault and are not handed out again. */
static void test_paged_map(void)
{
	const size_t pg = 4096;
	uint8_t *mem = aligned_alloc(pg, 6 * pg), *snapshot = malloc(6 * pg);
	uint64_t pages[8], again[8], strb[8];
	uint8_t data[64];
	struct bench b;
	struct rd_result *r = malloc(sizeof(*r));
	struct wr_result w;
	struct rnic_sim_mem_stats st;
	/* the range: from 100 bytes into page 1 to 200 bytes into page 4 */
	uint8_t *va = mem + pg + 100;
	size_t len = 3 * pg + 100;

	for (size_t i = 0; i < 6 * pg; i++)
		mem[i] = (uint8_t)(i * 13 + 5);
	memcpy(snapshot, mem, 6 * pg);
	for (int i = 0; i < 8; i++)
		strb[i] = 0xff;
	for (int i = 0; i < 64; i++)
		data[i] = (uint8_t)(0xa0 + i);
	bench_init(&b, 8, 20, 20, 32, 32, 32, 32);
	CHECK_EQ(hostmem_map_pages(b.m, va, len, pages), 0);
	for (int i = 0; i < 4; i++) {
		CHECK(pages[i] >= HOSTMEM_ALIAS_BASE);
		CHECK_EQ(pages[i] % pg, 0);
		for (int j = 0; j < i; j++) {
			CHECK(pages[i] != pages[j]);
			if (j == i - 1)
				CHECK(pages[i] != pages[j] + pg);
		}
	}
	/* each page reads back its own bytes through its bus page */
	for (int i = 0; i < 4; i++) {
		uint64_t off = i == 0 ? 128 : 0; /* inside the range */

		do_read(&b, pages[i] + off, 8, 3, r);
		CHECK_EQ(r->resp_or, 0);
		CHECK(!memcmp(r->data, mem + (i + 1) * pg + off, 64));
	}
	/* a write to page 2's bus page lands in page 3 of mem */
	do_write(&b, pages[2] + 64, 8, 3, data, strb, &w);
	CHECK_EQ(w.bresp, 0);
	CHECK(!memcmp(mem + 3 * pg + 64, data, 64));
	memcpy(snapshot + 3 * pg + 64, data, 64);
	/* bytes of the first page before the range: SLVERR, untouched */
	do_write(&b, pages[0], 8, 3, data, strb, &w);
	CHECK_EQ(w.bresp, 2);
	do_read(&b, pages[0], 4, 3, r);
	CHECK_EQ(r->resp_or, 2);
	/* a beat straddling the range's end: the inside half only */
	do_write(&b, pages[3] + 192, 2, 3, data, strb, &w);
	CHECK_EQ(w.bresp, 2);
	CHECK(!memcmp(mem + 4 * pg + 192, data, 8));
	memcpy(snapshot + 4 * pg + 192, data, 8);
	CHECK(!memcmp(mem, snapshot, 6 * pg));
	/* a bus page never handed out faults */
	do_read(&b, HOSTMEM_ALIAS_BASE + 1000 * pg, 1, 3, r);
	CHECK_EQ(r->resp_or, 2);
	/* unmap: the bus pages fault, a new mapping gets other bus pages */
	CHECK_EQ(hostmem_unmap(b.m, va, len), 0);
	CHECK_EQ(hostmem_unmap(b.m, va, len), -ENOENT);
	do_read(&b, pages[1], 1, 3, r);
	CHECK_EQ(r->resp_or, 2);
	CHECK_EQ(hostmem_map_pages(b.m, va, len, again), 0);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			CHECK(again[i] != pages[j]);
	do_read(&b, again[1], 8, 3, r);
	CHECK_EQ(r->resp_or, 0);
	CHECK(!memcmp(r->data, mem + 2 * pg, 64));
	CHECK(!memcmp(mem, snapshot, 6 * pg));
	hostmem_stats(b.m, &st);
	CHECK_EQ(st.rd_faults, 3);
	CHECK_EQ(st.wr_faults, 2);
	CHECK_EQ(st.protocol_errors, 0);
	CHECK_EQ(hostmem_map_pages(b.m, NULL, 4, pages), -EINVAL);
	CHECK_EQ(hostmem_map_pages(b.m, va, 0, pages), -EINVAL);
	hostmem_destroy(b.m);
	free(r);
	free(snapshot);
	free(mem);
}

static void test_faults(void)
{
	uint8_t *mem = aligned_alloc(64, 256);
	uint8_t data[64], snapshot[256];
	uint64_t strb[8];
	struct bench b;
	struct rd_result *r = malloc(sizeof(*r));
	struct wr_result w;
	struct rnic_sim_fault f[4];
	struct rnic_sim_mem_stats st;

	for (int i = 0; i < 256; i++)
		mem[i] = (uint8_t)(0x40 + i);
	for (int i = 0; i < 8; i++)
		strb[i] = 0xff;
	memset(data, 0xcc, sizeof(data));
	bench_init(&b, 8, 20, 20, 32, 32, 32, 32);
	/* only mem[64..127] is mapped; the rest is live process memory */
	CHECK_EQ(hostmem_map(b.m, mem + 64, 64), 0);
	memcpy(snapshot, mem, 256);

	/* read entirely outside: SLVERR, zero data, one fault */
	do_read(&b, (uintptr_t)(mem + 128), 4, 3, r);
	CHECK_EQ(r->resp_or, 2);
	for (int i = 0; i < 32; i++)
		CHECK_EQ(r->data[i], 0);
	CHECK_EQ(hostmem_faults(b.m, f, 4), 1);
	CHECK_EQ(f[0].addr, (uintptr_t)(mem + 128));
	CHECK_EQ(f[0].write, 0);
	CHECK_EQ(f[0].burst_bytes, 32);

	/* write entirely outside: SLVERR, memory untouched */
	do_write(&b, (uintptr_t)mem, 8, 3, data, strb, &w);
	CHECK_EQ(w.bresp, 2);
	CHECK(!memcmp(mem, snapshot, 256));
	CHECK_EQ(hostmem_faults(b.m, f, 4), 2);
	CHECK_EQ(f[1].write, 1);

	/* write straddling the end: the mapped half is written, the rest not */
	do_write(&b, (uintptr_t)(mem + 96), 8, 3, data, strb, &w);
	CHECK_EQ(w.bresp, 2);
	CHECK(!memcmp(mem + 96, data, 32));
	CHECK(!memcmp(mem + 128, snapshot + 128, 128));
	CHECK_EQ(hostmem_faults(b.m, f, 4), 3);
	CHECK_EQ(f[2].addr, (uintptr_t)(mem + 128));

	/* a mapped read is fine; after unmap it faults */
	do_read(&b, (uintptr_t)(mem + 64), 8, 3, r);
	CHECK_EQ(r->resp_or, 0);
	CHECK(!memcmp(r->data, mem + 64, 64));
	CHECK_EQ(hostmem_unmap(b.m, mem + 64, 64), 0);
	CHECK_EQ(hostmem_unmap(b.m, mem + 64, 64), -ENOENT);
	do_read(&b, (uintptr_t)(mem + 64), 1, 3, r);
	CHECK_EQ(r->resp_or, 2);
	hostmem_stats(b.m, &st);
	CHECK_EQ(st.rd_faults, 2);
	CHECK_EQ(st.wr_faults, 2);
	CHECK_EQ(st.protocol_errors, 0);
	CHECK_EQ(hostmem_map(b.m, NULL, 4), -EINVAL);
	CHECK_EQ(hostmem_map(b.m, mem, 0), -EINVAL);
	hostmem_destroy(b.m);
	free(mem);
	free(r);
}

/* A beat that covers the end of a mapped buffer reads its mapped bytes and
 * zeros for the rest, without a fault (DMA engines fetch whole beats). */
static void test_partial_read_beat(void)
{
	uint8_t *mem = aligned_alloc(64, 64);
	struct bench b;
	struct rd_result *r = malloc(sizeof(*r));

	for (int i = 0; i < 64; i++)
		mem[i] = (uint8_t)(i + 1);
	bench_init(&b, 8, 5, 5, 32, 32, 32, 32);
	CHECK_EQ(hostmem_map(b.m, mem + 3, 10), 0); /* bytes 3..12 */
	do_read(&b, (uintptr_t)mem, 2, 3, r);        /* aligned down, 16 bytes */
	CHECK_EQ(r->resp_or, 0);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(r->data[i], i >= 3 && i <= 12 ? i + 1 : 0);
	CHECK_EQ(hostmem_faults(b.m, NULL, 0), 0);
	/* an unaligned start address: lanes follow the address */
	do_read(&b, (uintptr_t)(mem + 5), 1, 3, r);
	CHECK_EQ(r->resp_or, 0);
	CHECK_EQ(r->data[5], 6);
	CHECK_EQ(r->data[7], 8);
	hostmem_destroy(b.m);
	free(mem);
	free(r);
}

static void test_read_after_write(void)
{
	static uint8_t buf[64] __attribute__((aligned(64)));
	uint8_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint64_t strb = 0xff;
	struct bench b;
	struct wr_result w;
	struct rd_result *r = malloc(sizeof(*r));

	bench_init(&b, 8, 30, 30, 32, 32, 32, 32);
	CHECK_EQ(hostmem_map(b.m, buf, sizeof(buf)), 0);
	do_write(&b, (uintptr_t)buf + 8, 1, 3, data, &strb, &w);
	do_read(&b, (uintptr_t)buf + 8, 1, 3, r);
	CHECK(!memcmp(r->data, data, 8));
	hostmem_destroy(b.m);
	free(r);
}

/* Same inputs, same cycles: the model has no hidden randomness. */
static void test_deterministic(void)
{
	static uint8_t buf[1024] __attribute__((aligned(64)));
	uint64_t t[2];
	struct rd_result *r = malloc(sizeof(*r));

	for (int k = 0; k < 2; k++) {
		struct bench b;

		bench_init(&b, 64, 77, 10, 13.5, 32, 32, 32);
		CHECK_EQ(hostmem_map(b.m, buf, sizeof(buf)), 0);
		do_read(&b, (uintptr_t)buf, 16, 6, r);
		t[k] = r->last_r;
		hostmem_destroy(b.m);
	}
	CHECK_EQ(t[0], t[1]);
	free(r);
}

/* A write burst's bytes reach memory with its B response, not before: the
 * host (this test, reading the buffer) sees nothing until the cycle B is
 * presented, wr_latency after the last W beat, and all of it then. */
static void test_write_visible_at_b(void)
{
	static uint8_t buf[64] __attribute__((aligned(64)));
	uint8_t data[64], zero[64] = {0};
	struct bench b;
	unsigned int beat = 0;
	int aw_done = 0, seen_b = 0;
	uint64_t last_w = 0;

	for (unsigned int i = 0; i < 64; i++)
		data[i] = (uint8_t)(0x40 + i);
	memset(buf, 0, sizeof(buf));
	bench_init(&b, 8, 200, 100, 32, 32, 32, 32);
	CHECK_EQ(hostmem_map(b.m, buf, sizeof(buf)), 0);
	for (int guard = 0; guard < 1000 && !seen_b; guard++) {
		bench_drive(&b);
		if (b.in.m_axi_bvalid) {
			CHECK_EQ(b.cycle - last_w, 100);
			CHECK(!memcmp(buf, data, 64)); /* all of it, now */
			seen_b = 1;
		} else {
			CHECK(!memcmp(buf, zero, 64)); /* nothing before */
		}
		b.out.m_axi_awvalid = !aw_done;
		b.out.m_axi_awaddr = (uintptr_t)buf;
		b.out.m_axi_awlen = 7;
		b.out.m_axi_awsize = 3;
		b.out.m_axi_awburst = 1;
		b.out.m_axi_awid = 1;
		b.out.m_axi_wvalid = beat < 8;
		memcpy(b.out.m_axi_wdata, &data[(beat < 8 ? beat : 0) * 8], 8);
		b.out.m_axi_wstrb = 0xff;
		b.out.m_axi_wlast = beat == 7;
		b.out.m_axi_bready = 1;
		if (b.out.m_axi_awvalid && b.in.m_axi_awready)
			aw_done = 1;
		if (b.out.m_axi_wvalid && b.in.m_axi_wready) {
			beat++;
			last_w = b.cycle;
		}
		bench_edge(&b);
	}
	CHECK(seen_b);
	CHECK(!hostmem_busy(b.m));
	hostmem_destroy(b.m);
}

/* Two bursts of 256 beats, both AWs first: every byte reaches memory by
 * its burst's B response (the model queues the beats on their way). */
static void test_long_bursts_visible(void)
{
	static uint8_t buf[4096] __attribute__((aligned(4096)));
	uint8_t *data = malloc(4096);
	struct bench b;
	unsigned int aw = 0, beat = 0, nb = 0;
	uint64_t last_w[2] = {0, 0}, bcyc[2] = {0, 0};

	for (unsigned int i = 0; i < 4096; i++)
		data[i] = (uint8_t)(i * 13 + 5);
	memset(buf, 0, sizeof(buf));
	bench_init(&b, 8, 200, 100, 8, 8, 32, 32);
	CHECK_EQ(hostmem_map(b.m, buf, sizeof(buf)), 0);
	for (int guard = 0; guard < 10000 && nb < 2; guard++) {
		bench_drive(&b);
		if (b.in.m_axi_bvalid) {
			bcyc[nb] = b.cycle;
			/* burst nb's 2 KiB are in memory now */
			CHECK(!memcmp(buf + 2048 * nb, data + 2048 * nb, 2048));
			nb++;
		}
		b.out.m_axi_awvalid = aw < 2;
		b.out.m_axi_awaddr = (uintptr_t)buf + 2048 * aw;
		b.out.m_axi_awlen = 255;
		b.out.m_axi_awsize = 3;
		b.out.m_axi_awburst = 1;
		b.out.m_axi_awid = 2;
		b.out.m_axi_wvalid = beat < 512 && aw > beat / 256;
		memcpy(b.out.m_axi_wdata, &data[(beat < 512 ? beat : 0) * 8], 8);
		b.out.m_axi_wstrb = 0xff;
		b.out.m_axi_wlast = beat % 256 == 255;
		b.out.m_axi_bready = 1;
		if (b.out.m_axi_awvalid && b.in.m_axi_awready)
			aw++;
		if (b.out.m_axi_wvalid && b.in.m_axi_wready) {
			if (beat % 256 == 255)
				last_w[beat / 256] = b.cycle;
			beat++;
		}
		bench_edge(&b);
	}
	CHECK_EQ(nb, 2);
	CHECK_EQ(bcyc[0] - last_w[0], 100);
	CHECK_EQ(bcyc[1] - last_w[1], 100);
	CHECK(!memcmp(buf, data, 4096));
	CHECK(!hostmem_busy(b.m));
	free(data);
	hostmem_destroy(b.m);
}

/* A read issued after a write observes it even when the write is not due
 * yet (a read shorter than the write's trip): reads do not pass writes. */
static void test_read_does_not_pass_write(void)
{
	static uint8_t buf[64] __attribute__((aligned(64)));
	uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	uint64_t strb = 0xff;
	struct bench b;
	struct rd_result *r = calloc(1, sizeof(*r));

	memset(buf, 0, sizeof(buf));
	bench_init(&b, 8, 10, 100, 32, 32, 32, 32);
	CHECK_EQ(hostmem_map(b.m, buf, sizeof(buf)), 0);
	/* the write's W beat, then at once the read (do_write would wait for B) */
	for (int guard = 0, done = 0; guard < 100 && !done; guard++) {
		bench_drive(&b);
		b.out.m_axi_awvalid = 1;
		b.out.m_axi_awaddr = (uintptr_t)buf;
		b.out.m_axi_awlen = 0;
		b.out.m_axi_awsize = 3;
		b.out.m_axi_awburst = 1;
		b.out.m_axi_awid = 1;
		b.out.m_axi_wvalid = b.in.m_axi_wready;
		memcpy(b.out.m_axi_wdata, data, 8);
		b.out.m_axi_wstrb = strb;
		b.out.m_axi_wlast = 1;
		done = b.out.m_axi_wvalid;
		bench_edge(&b);
		b.out.m_axi_awvalid = 0;
		b.out.m_axi_wvalid = 0;
	}
	CHECK(!memcmp(buf, (uint8_t[8]){0}, 8)); /* not due for 100 cycles */
	do_read(&b, (uintptr_t)buf, 1, 3, r);
	CHECK_EQ(r->first_r - r->ar_cycle, 10);
	CHECK(!memcmp(r->data, data, 8));
	CHECK(!memcmp(buf, data, 8));
	free(r);
	hostmem_destroy(b.m);
}

int main(void)
{
	test_read_latency_exact();
	test_write_latency_exact();
	test_read_bandwidth();
	test_write_bandwidth();
	test_max_outstanding();
	test_wstrb();
	test_faults();
	test_paged_map();
	test_partial_read_beat();
	test_read_after_write();
	test_deterministic();
	test_write_visible_at_b();
	test_long_bursts_visible();
	test_read_does_not_pass_write();
	return check_summary();
}
