/* The `make sim` demo: two simulated NICs back to back; host A writes 1 MiB
 * into host B's registered buffer with one RDMA WRITE through the host
 * library, checks it byte for byte, and reports cycles, time and goodput at
 * the stated clock, the counters of both NICs, and the capture it wrote. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"

static void usage(const char *argv0)
{
	printf("usage: %s [--width 64|512] [--size BYTES] [--mtu 256|512|1024|2048|4096]\n"
	       "          [--seed N] [--pcap FILE] [--fst FILE]\n"
	       "          [--mem-bw B] [--mem-latency N] [--link-latency N]\n"
	       "Two simulated OpenRNICs: host A RDMA-WRITEs --size bytes (default 1 MiB) into\n"
	       "host B's memory; prints cycles, microseconds and Gb/s at the stated clock.\n"
	       "The host and link model (defaults follow the width):\n",
	       argv0);
	rnic_sim_model_help(stdout, 2, 20);
}

static uint32_t mtu_code(unsigned bytes)
{
	for (uint32_t c = RNIC_IB_MTU_256; c <= RNIC_IB_MTU_4096; c++)
		if (128u << c == bytes)
			return c;
	return 0;
}

static void print_counters(struct rnic_context *ctx, const char *who)
{
	static const struct {
		uint32_t reg;
		const char *name;
	} regs[] = {
		{RNIC_REG_STAT_TX_FRAMES, "tx_frames"}, {RNIC_REG_STAT_TX_BYTES, "tx_bytes"},
		{RNIC_REG_STAT_RX_FRAMES, "rx_frames"}, {RNIC_REG_STAT_RX_BYTES, "rx_bytes"},
		{RNIC_REG_STAT_TX_ACK, "tx_ack"},       {RNIC_REG_STAT_RX_ACK, "rx_ack"},
		{RNIC_REG_STAT_CQE, "cqe"},             {RNIC_REG_STAT_RX_DROP_ICRC, "rx_drop_icrc"},
	};
	printf("  counters %s:", who);
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		uint32_t v = 0;

		rnic_read_counter(ctx, regs[i].reg, &v);
		printf(" %s=%u", regs[i].name, v);
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"width", required_argument, NULL, 'w'}, {"size", required_argument, NULL, 's'},
		{"mtu", required_argument, NULL, 'm'},   {"seed", required_argument, NULL, 'S'},
		{"pcap", required_argument, NULL, 'p'},  {"fst", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},        RNIC_SIM_MODEL_LONGOPTS('M'),
		{NULL, 0, NULL, 0},
	};
	struct rnic_sim_cfg cfg;
	const char *pcap = "build/sim/demo.pcap";
	size_t size = 1u << 20;
	unsigned mtu = 4096;
	struct sim_pair_opts o;
	struct sim_pair p;
	struct rnic_world *w;
	struct rnic_mr *smr = NULL, *dmr = NULL;
	struct rnic_sg_entry sge;
	struct rnic_send_wr wr, *bad;
	struct rnic_wc wc;
	uint8_t *src, *dst;
	uint64_t c0, cycles;
	double us, gbps, link_gbps;
	int c, li, rc = 1;

	rnic_sim_cfg_default(&cfg);
	cfg.num_nics = 2;
	cfg.data_width = 512;
	while ((c = getopt_long(argc, argv, "w:s:m:S:p:f:h", opts, &li)) != -1) {
		switch (c) {
		case 'w': cfg.data_width = (unsigned)atoi(optarg); break;
		case 's': size = strtoull(optarg, NULL, 0); break;
		case 'm': mtu = (unsigned)atoi(optarg); break;
		case 'S': cfg.seed = strtoull(optarg, NULL, 0); break;
		case 'p': pcap = optarg; break;
		case 'f': cfg.fst_path = optarg; break;
		case 'M':
			if (rnic_sim_model_opt(&cfg, "rnic-demo", opts[li].name, optarg))
				return 2;
			break;
		case 'h': usage(argv[0]); return 0;
		default: usage(argv[0]); return 2;
		}
	}
	if ((cfg.data_width != 64 && cfg.data_width != 512) || !mtu_code(mtu) || size == 0 || size > (1u << 30)) {
		usage(argv[0]);
		return 2;
	}
	cfg.pcap_path = pcap;
	w = rnic_world_create(&cfg);
	if (!w) {
		fprintf(stderr, "rnic-demo: cannot create the simulation\n");
		return 1;
	}
	link_gbps = rnic_world_cfg(w)->link_rate * 8.0 * cfg.clock_mhz / 1000.0;
	sim_pair_default_opts(&o);
	o.path_mtu = mtu_code(mtu);
	src = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	dst = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	if (!src || !dst || sim_pair_open(&p, w, &o))
		goto out_world;
	for (size_t i = 0; i < size; i++)
		src[i] = (uint8_t)(i * 131 + (i >> 11));
	memset(dst, 0, size);
	smr = rnic_reg_mr(p.side[0].pd, src, size, RNIC_ACCESS_LOCAL_WRITE);
	dmr = rnic_reg_mr(p.side[1].pd, dst, size, RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE);
	if (!smr || !dmr) {
		fprintf(stderr, "rnic-demo: reg_mr: %s\n", strerror(errno));
		goto out_pair;
	}

	printf("OpenRNIC demo: 2 NICs, %u-bit data path at %u MHz, link %.0f Gb/s, path MTU %u\n", cfg.data_width,
	       cfg.clock_mhz, link_gbps, mtu);
	printf("host model: memory %g B/cycle each way, read round trip %u cycles, %u reads outstanding; "
	       "link latency %u cycles\n",
	       rnic_world_cfg(w)->mem_rd_bw, rnic_world_cfg(w)->mem_rd_latency, rnic_world_cfg(w)->mem_max_rd,
	       rnic_world_cfg(w)->link_latency);
	printf("host A QP %u -> host B QP %u: RDMA WRITE %zu bytes to 0x%llx rkey 0x%08x\n", p.side[0].qp[0]->qp_num,
	       p.side[1].qp[0]->qp_num, size, (unsigned long long)(uintptr_t)dst, dmr->rkey);

	memset(&wr, 0, sizeof(wr));
	sge.addr = (uint64_t)(uintptr_t)src;
	sge.length = (uint32_t)size;
	sge.lkey = smr->lkey;
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = RNIC_WR_RDMA_WRITE;
	wr.send_flags = RNIC_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)dst;
	wr.wr.rdma.rkey = dmr->rkey;
	c0 = rnic_world_cycle(w);
	if (rnic_post_send(p.side[0].qp[0], &wr, &bad)) {
		fprintf(stderr, "rnic-demo: post_send failed\n");
		goto out_mr;
	}
	if (sim_pair_wait(p.side[0].cq, &wc, 1, 100000000ull) != 1) {
		fprintf(stderr, "rnic-demo: no completion\n");
		goto out_mr;
	}
	cycles = rnic_world_cycle(w) - c0;
	if (wc.status != RNIC_WC_SUCCESS) {
		fprintf(stderr, "rnic-demo: completion status %s\n", rnic_wc_status_str(wc.status));
		goto out_mr;
	}
	if (memcmp(src, dst, size)) {
		fprintf(stderr, "rnic-demo: data mismatch in host B's buffer\n");
		goto out_mr;
	}
	us = (double)cycles / cfg.clock_mhz;
	gbps = (double)size * 8.0 / (us * 1000.0);
	printf("completed: %llu cycles = %.2f us at %u MHz (doorbell to CQE polled)\n", (unsigned long long)cycles, us,
	       cfg.clock_mhz);
	printf("goodput: %.2f Gb/s = %.1f%% of the %.0f Gb/s link\n", gbps, 100.0 * gbps / link_gbps, link_gbps);
	printf("data verified byte-exact in host B's memory: %zu bytes\n", size);
	print_counters(p.side[0].ctx, "A");
	print_counters(p.side[1].ctx, "B");
	printf("pcap: %s\n", pcap);
	rc = 0;
out_mr:
	if (smr)
		rnic_dereg_mr(smr);
	if (dmr)
		rnic_dereg_mr(dmr);
out_pair:
	sim_pair_close(&p);
out_world:
	rnic_world_destroy(w);
	free(src);
	free(dst);
	return rc;
}
