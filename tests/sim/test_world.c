/* The world end to end against a small test-only core (tests/sim/dut/
 * rnic_core.sv, same ports as the real one): BAR reads and posted writes,
 * DMA read -> frame -> link -> frame -> DMA write between two NICs at 64
 * and 512 bits, pcap capture and injection, DMA faults outside mapped
 * memory, FST output, bit-identical cycle counts for the same seed, and
 * the host model's defaults per width and its shared options. */
#define _DEFAULT_SOURCE /* u_char and friends in pcap.h */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "rnic_sim.h"

enum {
	R_ID = 0x00,
	R_SCRATCH = 0x04,
	R_TX_ADDR = 0x08,
	R_TX_LEN = 0x10,
	R_RX_ADDR = 0x14,
	R_TX_COUNT = 0x1c,
	R_RX_COUNT = 0x20,
	R_RX_LEN = 0x24,
	R_DMA_ERR = 0x28,
};

static void set_addr(struct rnic_sim_nic *nic, uint32_t reg, const void *p)
{
	uint64_t a = (uintptr_t)p;

	rnic_sim_bar_write32(nic, reg, (uint32_t)a);
	rnic_sim_bar_write32(nic, reg + 4, (uint32_t)(a >> 32));
}

static int wait_reg(struct rnic_sim_nic *nic, uint32_t reg, uint32_t val)
{
	for (int i = 0; i < 2000; i++) {
		if (rnic_sim_bar_read32(nic, reg) == val)
			return 1;
		rnic_world_step(rnic_sim_nic_world(nic), 20);
	}
	return 0;
}

static void fill_frame(uint8_t *f, size_t len, uint8_t salt)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 2 }, src[6] = { 0x02, 0, 0, 0, 0, 1 };

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	for (size_t i = 14; i < len; i++)
		f[i] = (uint8_t)(i * 13 + salt);
}

static unsigned int pcap_count(const char *path, const uint8_t *first, size_t first_len)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const u_char *d;
	unsigned int n = 0;

	if (!p)
		return 0;
	while (pcap_next_ex(p, &h, &d) == 1) {
		if (n == 0 && first)
			CHECK(h->caplen == first_len && !memcmp(d, first, first_len));
		n++;
	}
	pcap_close(p);
	return n;
}

struct result {
	uint64_t cycles_tx_done;
	uint64_t cycles_end;
};

/* Send one frame NIC0 -> NIC1 and check it landed; returns cycle figures. */
static void transfer(unsigned int width, uint64_t seed, const char *pcap, const char *fst,
		     struct result *res)
{
	struct rnic_sim_cfg cfg;
	struct rnic_world *w;
	struct rnic_sim_nic *n0, *n1;
	const size_t len = 1024;
	uint8_t *tx = aligned_alloc(4096, 4096);
	uint8_t *rx = aligned_alloc(4096, 4096);
	struct rnic_sim_port_stats ps;
	struct rnic_sim_link_stats ls;
	struct rnic_sim_mem_stats ms;
	struct rnic_sim_bar_stats bs;

	rnic_sim_cfg_default(&cfg);
	cfg.data_width = width;
	cfg.seed = seed;
	cfg.pcap_path = pcap;
	cfg.fst_path = fst;
	w = rnic_world_create(&cfg);
	CHECK(w != NULL);
	if (!w)
		return;
	CHECK_EQ(rnic_world_cycle(w), 16);
	CHECK_EQ(rnic_world_num_nics(w), 2);
	n0 = rnic_world_nic(w, 0);
	n1 = rnic_world_nic(w, 1);
	CHECK(rnic_world_nic(w, 2) == NULL);
	CHECK(rnic_world_nic(w, -1) == NULL);

	CHECK_EQ(rnic_sim_bar_read32(n0, R_ID), 0x54455354);
	CHECK_EQ(rnic_sim_bar_read32(n1, R_ID), 0x54455354);
	rnic_sim_bar_write32(n0, R_SCRATCH, 0xcafef00d);
	rnic_sim_bar_write32(n1, R_SCRATCH, 0x0badbeef);
	CHECK_EQ(rnic_sim_bar_read32(n0, R_SCRATCH), 0xcafef00d);
	CHECK_EQ(rnic_sim_bar_read32(n1, R_SCRATCH), 0x0badbeef);

	fill_frame(tx, len, (uint8_t)width);
	memset(rx, 0xee, 4096);
	CHECK_EQ(rnic_sim_dma_map(n0, tx, len), 0);
	CHECK_EQ(rnic_sim_dma_map(n1, rx, 2048), 0);
	set_addr(n1, R_RX_ADDR, rx);
	set_addr(n0, R_TX_ADDR, tx);
	rnic_sim_bar_write32(n0, R_TX_LEN, (uint32_t)len);
	rnic_sim_bar_flush(n0);
	CHECK(wait_reg(n0, R_TX_COUNT, 1));
	res->cycles_tx_done = rnic_world_cycle(w);
	CHECK(wait_reg(n1, R_RX_COUNT, 1));
	CHECK_EQ(rnic_sim_bar_read32(n1, R_RX_LEN), len);
	CHECK(!memcmp(rx, tx, len));
	CHECK_EQ(rx[len], 0xee);
	CHECK_EQ(rnic_sim_bar_read32(n0, R_DMA_ERR), 0);
	CHECK_EQ(rnic_sim_bar_read32(n1, R_DMA_ERR), 0);
	CHECK_EQ(rnic_sim_nic_faults(n0, NULL, 0), 0);
	CHECK_EQ(rnic_sim_nic_faults(n1, NULL, 0), 0);

	rnic_sim_nic_port_stats(w, 0, &ps);
	CHECK_EQ(ps.tx_frames, 1);
	CHECK_EQ(ps.tx_bytes, len);
	rnic_sim_nic_port_stats(w, 1, &ps);
	CHECK_EQ(ps.rx_frames, 1);
	CHECK(ps.rx_backpressure_cycles > 0); /* the test core takes one beat per write */
	rnic_world_link_stats(w, &ls);
	CHECK_EQ(ls.frames, 1);
	rnic_sim_nic_mem_stats(n0, &ms);
	CHECK_EQ(ms.rd_bytes, len);
	CHECK_EQ(ms.rd_bursts, 1);
	rnic_sim_nic_mem_stats(n1, &ms);
	CHECK_EQ(ms.wr_bytes, len);
	CHECK_EQ(ms.wr_bursts, len / (width / 8));
	CHECK_EQ(ms.protocol_errors, 0);
	rnic_sim_nic_bar_stats(n0, &bs);
	CHECK_EQ(bs.errors, 0);
	CHECK(bs.writes >= 4);
	res->cycles_end = rnic_world_cycle(w);

	CHECK_EQ(rnic_sim_dma_unmap(n0, tx, len), 0);
	CHECK_EQ(rnic_sim_dma_unmap(n0, tx, len), -ENOENT);
	rnic_world_destroy(w);
	if (pcap)
		CHECK_EQ(pcap_count(pcap, tx, len), 1);
	free(tx);
	free(rx);
}

/* DMA outside mapped memory: refused, counted, memory untouched. */
static void test_faults(unsigned int width)
{
	struct rnic_sim_cfg cfg;
	struct rnic_world *w;
	struct rnic_sim_nic *n0, *n1;
	uint8_t *tx = aligned_alloc(4096, 4096);
	uint8_t *rx = aligned_alloc(4096, 4096);
	uint8_t *snap = malloc(4096);
	struct rnic_sim_port_stats ps;
	struct rnic_sim_fault f[2];

	rnic_sim_cfg_default(&cfg);
	cfg.data_width = width;
	w = rnic_world_create(&cfg);
	CHECK(w != NULL);
	if (!w)
		return;
	n0 = rnic_world_nic(w, 0);
	n1 = rnic_world_nic(w, 1);
	fill_frame(tx, 512, 1);
	memset(rx, 0x77, 4096);
	memcpy(snap, rx, 4096);

	/* NIC0 reads an unmapped buffer: SLVERR, the frame leaves with tuser
	 * and the MAC discards it */
	set_addr(n0, R_TX_ADDR, tx);
	rnic_sim_bar_write32(n0, R_TX_LEN, 512);
	CHECK(wait_reg(n0, R_TX_COUNT, 1));
	CHECK(rnic_sim_bar_read32(n0, R_DMA_ERR) >= 1);
	CHECK_EQ(rnic_sim_nic_faults(n0, f, 2), 1);
	CHECK_EQ(f[0].addr, (uintptr_t)tx);
	CHECK_EQ(f[0].write, 0);
	rnic_sim_nic_port_stats(w, 0, &ps);
	CHECK_EQ(ps.tx_bad_frames, 1);
	CHECK_EQ(ps.tx_frames, 0);

	/* NIC1 writes a received frame where only the first 256 bytes are mapped */
	CHECK_EQ(rnic_sim_dma_map(n0, tx, 512), 0);
	CHECK_EQ(rnic_sim_dma_map(n1, rx, 256), 0);
	set_addr(n1, R_RX_ADDR, rx);
	rnic_sim_bar_write32(n0, R_TX_LEN, 512);
	CHECK(wait_reg(n1, R_RX_COUNT, 1));
	CHECK(!memcmp(rx, tx, 256));
	CHECK(!memcmp(rx + 256, snap + 256, 4096 - 256));
	CHECK_EQ(rnic_sim_bar_read32(n1, R_DMA_ERR), 256 / (width / 8));
	CHECK_EQ(rnic_sim_nic_faults(n1, f, 2), 256 / (width / 8));
	CHECK_EQ(f[0].addr, (uintptr_t)(rx + 256));
	CHECK_EQ(f[0].write, 1);
	rnic_world_destroy(w);
	free(tx);
	free(rx);
	free(snap);
}

static void test_inject(const char *pcap)
{
	struct rnic_sim_cfg cfg;
	struct rnic_world *w;
	struct rnic_sim_nic *n1;
	uint8_t *rx = aligned_alloc(4096, 4096);
	uint8_t f[100];
	struct rnic_sim_port_stats ps;

	rnic_sim_cfg_default(&cfg);
	w = rnic_world_create(&cfg);
	CHECK(w != NULL);
	if (!w)
		return;
	n1 = rnic_world_nic(w, 1);
	CHECK_EQ(rnic_sim_dma_map(n1, rx, 4096), 0);
	set_addr(n1, R_RX_ADDR, rx);
	rnic_sim_bar_flush(n1);
	CHECK_EQ(rnic_sim_inject_pcap(w, 1, pcap), 1);
	fill_frame(f, sizeof(f), 9);
	CHECK_EQ(rnic_sim_inject_frame(w, 1, f, sizeof(f)), 0);
	CHECK_EQ(rnic_sim_inject_frame(w, 5, f, sizeof(f)), -EINVAL);
	CHECK_EQ(rnic_sim_rx_pending(w, 1), 2);
	CHECK(wait_reg(n1, R_RX_COUNT, 2));
	CHECK_EQ(rnic_sim_bar_read32(n1, R_RX_LEN), sizeof(f));
	CHECK(!memcmp(rx, f, sizeof(f)));
	rnic_sim_nic_port_stats(w, 1, &ps);
	CHECK_EQ(ps.rx_injected, 2);
	CHECK_EQ(ps.rx_frames, 2);
	CHECK_EQ(rnic_sim_inject_pcap(w, 1, "/nonexistent.pcap"), -EIO);
	rnic_world_destroy(w);
	free(rx);
}

static void test_bad_cfg(void)
{
	struct rnic_sim_cfg cfg;

	rnic_sim_cfg_default(&cfg);
	cfg.data_width = 128;
	errno = 0;
	CHECK(rnic_world_create(&cfg) == NULL);
	CHECK_EQ(errno, EINVAL);
	rnic_sim_cfg_default(&cfg);
	cfg.num_nics = 0;
	CHECK(rnic_world_create(&cfg) == NULL);
	rnic_sim_cfg_default(&cfg);
	cfg.p_drop = 1.5;
	CHECK(rnic_world_create(&cfg) == NULL);
	rnic_sim_cfg_default(&cfg);
	cfg.pcap_path = "/nonexistent/dir/x.pcap";
	errno = 0;
	CHECK(rnic_world_create(&cfg) == NULL);
	CHECK_EQ(errno, EIO);
}

/* The host model follows the data width wherever a world is created (the
 * fields left 0 by rnic_sim_cfg_default); a value set by hand stays. */
static void test_model_defaults(void)
{
	static const struct {
		unsigned int width;
		double bw, link;
		unsigned int max_rd;
	} want[] = { { 64, 32, 5, 32 }, { 512, 54, 50, 64 } };
	struct rnic_sim_cfg cfg;
	const struct rnic_sim_cfg *in;
	struct rnic_world *w;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		rnic_sim_cfg_default(&cfg);
		cfg.data_width = want[i].width;
		w = rnic_world_create(&cfg);
		CHECK(w != NULL);
		if (!w)
			return;
		in = rnic_world_cfg(w);
		CHECK(in->mem_rd_bw == want[i].bw && in->mem_wr_bw == want[i].bw);
		CHECK_EQ(in->mem_max_rd, want[i].max_rd);
		CHECK_EQ(in->mem_max_wr, 32);
		CHECK_EQ(in->mem_rd_latency, 200);
		CHECK_EQ(in->mem_wr_latency, 100);
		CHECK_EQ(in->link_latency, 100);
		CHECK(in->link_rate == want[i].link);
		rnic_world_destroy(w);
	}

	/* the shared options: applied, and the width does not override them */
	rnic_sim_cfg_default(&cfg);
	CHECK_EQ(rnic_sim_model_opt(&cfg, "test", "mem-bw", "8"), 0);
	CHECK_EQ(rnic_sim_model_opt(&cfg, "test", "mem-latency", "301"), 0);
	CHECK_EQ(rnic_sim_model_opt(&cfg, "test", "link-latency", "0x20"), 0);
	cfg.data_width = 512;
	w = rnic_world_create(&cfg);
	CHECK(w != NULL);
	if (!w)
		return;
	in = rnic_world_cfg(w);
	CHECK(in->mem_rd_bw == 8 && in->mem_wr_bw == 8);
	CHECK_EQ(in->mem_rd_latency, 301);
	CHECK_EQ(in->mem_wr_latency, 151);
	CHECK_EQ(in->link_latency, 32);
	CHECK_EQ(in->mem_max_rd, 64);
	rnic_world_destroy(w);

	/* bad values are refused and leave the configuration alone */
	rnic_sim_cfg_default(&cfg);
	CHECK_EQ(rnic_sim_model_opt(&cfg, "test", "mem-bw", "0"), -EINVAL);
	CHECK_EQ(rnic_sim_model_opt(&cfg, "test", "mem-bw", "-1"), -EINVAL);
	CHECK_EQ(rnic_sim_model_opt(&cfg, "test", "mem-bw", "nan"), -EINVAL);
	CHECK_EQ(rnic_sim_model_opt(&cfg, "test", "mem-bw", "12x"), -EINVAL);
	CHECK_EQ(rnic_sim_model_opt(&cfg, "test", "mem-latency", "0"), -EINVAL);
	CHECK_EQ(rnic_sim_model_opt(&cfg, "test", "mem-latency", "1000001"), -EINVAL);
	CHECK_EQ(rnic_sim_model_opt(&cfg, "test", "link-latency", "-5"), -EINVAL);
	CHECK_EQ(rnic_sim_model_opt(&cfg, "test", "link-latency", ""), -EINVAL);
	CHECK_EQ(rnic_sim_model_opt(&cfg, "test", "link-rate", "5"), -ENOENT);
	CHECK(cfg.mem_rd_bw == 0 && cfg.mem_rd_latency == 200 && cfg.link_latency == 100);
}

int main(void)
{
	char dir[] = "/tmp/rnic-sim-world-XXXXXX";
	char pcap[256], fst[256], fst0[256];
	struct result a, b, c;
	struct stat st;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(pcap, sizeof(pcap), "%s/wire.pcap", dir);
	snprintf(fst, sizeof(fst), "%s/wave.fst", dir);
	snprintf(fst0, sizeof(fst0), "%s/wave.nic0.fst", dir);

	transfer(64, 1, pcap, NULL, &a);
	transfer(64, 1, NULL, NULL, &b);
	CHECK_EQ(a.cycles_tx_done, b.cycles_tx_done);
	CHECK_EQ(a.cycles_end, b.cycles_end);
	transfer(512, 1, NULL, fst, &c);
	CHECK(c.cycles_end < a.cycles_end); /* the 512-bit test core moves 8x per write */
	CHECK(stat(fst0, &st) == 0 && st.st_size > 0);
	test_faults(64);
	test_faults(512);
	test_inject(pcap);
	test_bad_cfg();
	test_model_defaults();

	unlink(pcap);
	unlink(fst0);
	snprintf(fst0, sizeof(fst0), "%s/wave.nic1.fst", dir);
	unlink(fst0);
	rmdir(dir);
	return check_summary();
}
