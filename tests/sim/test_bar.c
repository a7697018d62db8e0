/* BAR master: posted writes in order, reads ordered after every earlier
 * write's response, the one-way latency, error responses counted. The test
 * plays an AXI4-Lite slave that accepts AW and W on unrelated cycles. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sim_int.h"

struct slave {
	uint32_t regs[64];
	int have_aw, have_w;
	uint32_t aw, w;
	int b_pending;        /* B due at b_due */
	uint64_t b_due;
	int r_pending;
	uint64_t r_due;
	uint32_t r_data;
	uint8_t err_addr_hi; /* addresses >= 0x100 answer SLVERR */
	/* log */
	uint32_t order[256];
	unsigned int norder;
	uint64_t last_b, first_ar, first_aw;
};

static struct rnic_core_in in;
static struct rnic_core_out out;

static void slave_out(struct slave *s, uint64_t cycle)
{
	out.s_axil_awready = !s->have_aw && (cycle % 3 == 0);
	out.s_axil_wready = !s->have_w && (cycle % 2 == 0);
	out.s_axil_bvalid = s->b_pending && cycle >= s->b_due;
	out.s_axil_bresp = s->aw >= 0x100 ? 2 : 0;
	out.s_axil_arready = !s->r_pending;
	out.s_axil_rvalid = s->r_pending && cycle >= s->r_due;
	out.s_axil_rdata = s->r_data;
	out.s_axil_rresp = s->r_data == 0xbad ? 2 : 0;
}

static void slave_edge(struct slave *s, uint64_t cycle)
{
	if (out.s_axil_bvalid && in.s_axil_bready) {
		s->b_pending = 0;
		s->have_aw = s->have_w = 0;
		s->last_b = cycle;
	}
	if (out.s_axil_rvalid && in.s_axil_rready)
		s->r_pending = 0;
	if (in.s_axil_awvalid && out.s_axil_awready) {
		s->have_aw = 1;
		s->aw = in.s_axil_awaddr;
		if (!s->first_aw)
			s->first_aw = cycle;
	}
	if (in.s_axil_wvalid && out.s_axil_wready) {
		s->have_w = 1;
		s->w = in.s_axil_wdata;
	}
	if (s->have_aw && s->have_w && !s->b_pending) {
		if (s->aw < 0x100)
			s->regs[s->aw / 4] = s->w;
		s->order[s->norder++] = s->w;
		s->b_pending = 1;
		s->b_due = cycle + 4;
	}
	if (in.s_axil_arvalid && out.s_axil_arready) {
		s->r_pending = 1;
		s->r_due = cycle + 3;
		s->r_data = in.s_axil_araddr < 0x100 ? s->regs[in.s_axil_araddr / 4] : 0xbad;
		if (!s->first_ar)
			s->first_ar = cycle;
	}
}

static void cycle_once(struct bar_master *b, struct slave *s, uint64_t *c)
{
	bar_drive(b, *c, &in);
	slave_out(s, *c);
	bar_edge(b, *c, &in, &out);
	slave_edge(s, *c);
	(*c)++;
}

static uint32_t read32(struct bar_master *b, struct slave *s, uint64_t *c, uint32_t off,
		       int *err)
{
	int64_t t = bar_post_read(b, *c, off);
	uint32_t v = 0;

	CHECK(t > 0);
	for (int i = 0; i < 100000; i++) {
		if (bar_read_result(b, t, *c, &v, err))
			return v;
		cycle_once(b, s, c);
	}
	CHECK(!"read timed out");
	return 0;
}

static void test_order_and_latency(void)
{
	struct bar_master *b = bar_create(50);
	struct slave s;
	struct rnic_sim_bar_stats st;
	uint64_t c = 10, posted = 10;
	int err = 0;

	memset(&s, 0, sizeof(s));
	for (uint32_t i = 0; i < 20; i++)
		CHECK_EQ(bar_post_write(b, c, 4 * (i % 8), 100 + i), 0);
	CHECK(bar_busy(b));
	/* the read sees the last write to 0x8 (i = 18 -> 118) */
	CHECK_EQ(read32(b, &s, &c, 0x8, &err), 118);
	CHECK_EQ(err, 0);
	CHECK_EQ(s.norder, 20);
	for (uint32_t i = 0; i < 20; i++)
		CHECK_EQ(s.order[i], 100 + i);
	CHECK(s.first_aw >= posted + 50);
	CHECK(s.first_ar > s.last_b); /* AR only after every B */
	CHECK(!bar_busy(b));
	bar_stats(b, &st);
	CHECK_EQ(st.writes, 20);
	CHECK_EQ(st.reads, 1);
	CHECK_EQ(st.errors, 0);
	bar_destroy(b);
}

/* A read alone: latency there, slave time, latency back. */
static void test_read_latency(void)
{
	struct bar_master *b = bar_create(25);
	struct slave s;
	uint64_t c = 0, start;
	int err;

	memset(&s, 0, sizeof(s));
	s.regs[3] = 0x12345678;
	start = c;
	CHECK_EQ(read32(b, &s, &c, 12, &err), 0x12345678);
	/* AR offered at 25, taken at once; R at 25 + 3; data back 25 later */
	CHECK_EQ(s.first_ar, start + 25);
	CHECK_EQ(c - start, 25 + 3 + 25);
	bar_destroy(b);
}

static void test_errors(void)
{
	struct bar_master *b = bar_create(0);
	struct slave s;
	struct rnic_sim_bar_stats st;
	uint64_t c = 0;
	int err = 0;

	memset(&s, 0, sizeof(s));
	CHECK_EQ(bar_post_write(b, c, 0x200, 1), 0);
	CHECK_EQ(bar_post_write(b, c, 0x4, 2), 0);
	read32(b, &s, &c, 0x300, &err);
	CHECK_EQ(err, 1);
	CHECK_EQ(read32(b, &s, &c, 0x4, &err), 2);
	CHECK_EQ(err, 0);
	bar_stats(b, &st);
	CHECK_EQ(st.errors, 2);
	CHECK_EQ(st.writes, 2);
	CHECK_EQ(st.reads, 2);
	bar_destroy(b);
}

int main(void)
{
	test_order_and_latency();
	test_read_latency();
	test_errors();
	return check_summary();
}
