/* rnic-sim: run a simulated world of OpenRNIC cores from the command line.
 *
 * Builds a world from the options, optionally replays a pcap file into NIC
 * 0's RX, runs it, and prints one JSON object: cycles, the core counters of
 * every NIC read over BAR0, and the harness's port, memory and link
 * statistics. Workloads (the two-NIC WRITE demo) are built on the host
 * library; this program only drives the world.
 *
 * With --frames-json, --replay instead pushes every frame of the capture
 * through the RTL receive front end alone (sim/replay/) and prints one JSON
 * line per frame.
 */
#define _DEFAULT_SOURCE /* getopt_long */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rnic/rnic_hw.h"
#include "replay/replay.h"
#include "rnic_sim.h"

static const struct {
	const char *name;
	uint32_t reg;
} counters[] = {
	{ "tx_frames", RNIC_REG_STAT_TX_FRAMES },
	{ "tx_bytes", RNIC_REG_STAT_TX_BYTES },
	{ "rx_frames", RNIC_REG_STAT_RX_FRAMES },
	{ "rx_bytes", RNIC_REG_STAT_RX_BYTES },
	{ "rx_drop_not_roce", RNIC_REG_STAT_RX_DROP_NOT_ROCE },
	{ "rx_drop_udp_port", RNIC_REG_STAT_RX_DROP_UDP_PORT },
	{ "rx_drop_ip_csum", RNIC_REG_STAT_RX_DROP_IP_CSUM },
	{ "rx_drop_icrc", RNIC_REG_STAT_RX_DROP_ICRC },
	{ "rx_drop_malformed", RNIC_REG_STAT_RX_DROP_MALFORMED },
	{ "rx_drop_qpn", RNIC_REG_STAT_RX_DROP_QPN },
	{ "rx_psn_err", RNIC_REG_STAT_RX_PSN_ERR },
	{ "rx_duplicate", RNIC_REG_STAT_RX_DUPLICATE },
	{ "tx_ack", RNIC_REG_STAT_TX_ACK },
	{ "tx_nak", RNIC_REG_STAT_TX_NAK },
	{ "rx_ack", RNIC_REG_STAT_RX_ACK },
	{ "rx_nak", RNIC_REG_STAT_RX_NAK },
	{ "cqe", RNIC_REG_STAT_CQE },
	{ "loc_prot_err", RNIC_REG_STAT_LOC_PROT_ERR },
	{ "cq_overrun", RNIC_REG_STAT_CQ_OVERRUN },
	{ "rx_access_err", RNIC_REG_STAT_RX_ACCESS_ERR },
	{ "tx_rnr_nak", RNIC_REG_STAT_TX_RNR_NAK },
	{ "recv_cqe", RNIC_REG_STAT_RECV_CQE },
	{ "rx_rnr_nak", RNIC_REG_STAT_RX_RNR_NAK },
	{ "retry", RNIC_REG_STAT_RETRY },
	{ "ack_timeout", RNIC_REG_STAT_ACK_TIMEOUT },
	{ "rx_drop_overflow", RNIC_REG_STAT_RX_DROP_OVERFLOW },
	{ "tx_wqe_window", RNIC_REG_STAT_TX_WQE_WINDOW },
	{ "rx_pause_req", RNIC_REG_STAT_RX_PAUSE_REQ },
	{ "rx_pause_stall", RNIC_REG_STAT_RX_PAUSE_STALL },
	{ "tx_stale", RNIC_REG_STAT_TX_STALE },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rnic-sim [options]\n"
		"Run a cycle-accurate world of OpenRNIC cores and print its counters as JSON;\n"
		"or (--replay FILE --frames-json) check every frame of a capture against the\n"
		"RTL receive path and print one JSON line per frame.\n"
		"\n"
		"  --nics N            NICs on the wire (default 2; 2 = point to point,\n"
		"                      otherwise a learning switch)\n"
		"  --width 64|512      data-path width (default 64)\n"
		"  --seed N            seed of every random choice (default 1)\n"
		"  --cycles N          cycles to run (default 10000; with --replay: after\n"
		"                      the replayed frames have been taken, at least 10000)\n"
		"  --pcap FILE         capture the wire into FILE (ns timestamps)\n"
		"  --fst FILE          FST waveform (several NICs: FILE.nicN.fst)\n"
		"  --replay FILE       queue every frame of a pcap file into NIC 0's RX\n"
		"  --frames-json       with --replay: instead of a world, push each frame of\n"
		"                      FILE (pcap/pcapng, Ethernet) through the RTL receive\n"
		"                      checker and parser alone, one at a time with random\n"
		"                      stalls (--seed), and print one JSON line per frame:\n"
		"                      verdict (ok, not_roce, bad_udp_port, bad_ip_csum,\n"
		"                      bad_icrc, malformed), ip_version, ip_csum_ok, icrc_ok\n"
		"                      and, for frames that pass the length checks, the parsed\n"
		"                      BTH/RETH/AETH/ImmDt fields, header lengths and payload\n"
		"                      length. Takes --width, --seed, --fst, --frame-timeout.\n"
		"                      Exit 1 on an unreadable or non-Ethernet file or when a\n"
		"                      frame gets an \"error\" line (no verdict in time, or\n"
		"                      outputs that contradict each other)\n"
		"  --frame-timeout N   --frames-json: cycles one frame may take (default\n"
		"                      2000 + 100 per beat)\n"
		"  --link-rate B       line rate, bytes/cycle (default 5 at 64 bits = 10 Gb/s,\n"
		"                      50 at 512 bits = 100 Gb/s, at 250 MHz)\n");
	rnic_sim_model_help(f, 2, 22);
	fprintf(f,
		"  --pause-quanta N    PAUSE time the MACs ask for while a core's receive\n"
		"                      FIFO is filling, quanta of 512 bit times (default\n"
		"                      1024; 0: no link flow control)\n"
		"  --drop P  --dup P  --reorder P  --corrupt P\n"
		"                      per-frame fault probabilities (default 0)\n"
		"  --help              this text\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end || s[0] == '-' ? -1 : 0;
}

static int parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || *v < 0 ? -1 : 0;
}

static void print_nic(struct rnic_world *w, int i)
{
	struct rnic_sim_nic *nic = rnic_world_nic(w, i);
	struct rnic_sim_port_stats ps;
	struct rnic_sim_mem_stats ms;
	struct rnic_sim_bar_stats bs;
	uint32_t id = rnic_sim_bar_read32(nic, RNIC_REG_DEV_ID);

	printf("    {\"index\": %d, \"dev_id\": \"0x%08x\",\n     \"counters\": {", i, id);
	for (size_t k = 0; k < sizeof(counters) / sizeof(counters[0]); k++)
		printf("%s\"%s\": %" PRIu32, k ? ", " : "", counters[k].name,
		       rnic_sim_bar_read32(nic, counters[k].reg));
	rnic_sim_nic_port_stats(w, i, &ps);
	rnic_sim_nic_mem_stats(nic, &ms);
	rnic_sim_nic_bar_stats(nic, &bs);
	printf("},\n     \"port\": {\"tx_frames\": %" PRIu64 ", \"tx_bytes\": %" PRIu64
	       ", \"tx_bad_frames\": %" PRIu64 ", \"tx_backpressure_cycles\": %" PRIu64
	       ", \"rx_frames\": %" PRIu64 ", \"rx_bytes\": %" PRIu64
	       ", \"rx_backpressure_cycles\": %" PRIu64 ", \"rx_injected\": %" PRIu64
	       ", \"tx_xoff_frames\": %" PRIu64 ", \"tx_xon_frames\": %" PRIu64
	       ", \"rx_pause_frames\": %" PRIu64 ", \"tx_paused_cycles\": %" PRIu64 "},\n",
	       ps.tx_frames, ps.tx_bytes, ps.tx_bad_frames, ps.tx_backpressure_cycles,
	       ps.rx_frames, ps.rx_bytes, ps.rx_backpressure_cycles, ps.rx_injected,
	       ps.tx_xoff_frames, ps.tx_xon_frames, ps.rx_pause_frames, ps.tx_paused_cycles);
	printf("     \"mem\": {\"rd_bursts\": %" PRIu64 ", \"rd_bytes\": %" PRIu64
	       ", \"wr_bursts\": %" PRIu64 ", \"wr_bytes\": %" PRIu64
	       ", \"rd_outstanding_max\": %" PRIu64 ", \"rd_faults\": %" PRIu64
	       ", \"wr_faults\": %" PRIu64 ", \"protocol_errors\": %" PRIu64 "},\n",
	       ms.rd_bursts, ms.rd_bytes, ms.wr_bursts, ms.wr_bytes, ms.rd_outstanding_max,
	       ms.rd_faults, ms.wr_faults, ms.protocol_errors);
	printf("     \"bar\": {\"writes\": %" PRIu64 ", \"reads\": %" PRIu64
	       ", \"errors\": %" PRIu64 "}}",
	       bs.writes, bs.reads, bs.errors);
}

int main(int argc, char **argv)
{
	enum { O_NICS = 256, O_WIDTH, O_SEED, O_CYCLES, O_PCAP, O_FST, O_REPLAY, O_MEMLAT,
	       O_MEMBW, O_RATE, O_LINKLAT, O_DROP, O_DUP, O_REORDER, O_CORRUPT, O_FTIMEOUT,
	       O_HELP, O_FRAMES, O_PAUSE };
	static const struct option opts[] = {
		{ "nics", required_argument, NULL, O_NICS },
		{ "width", required_argument, NULL, O_WIDTH },
		{ "seed", required_argument, NULL, O_SEED },
		{ "cycles", required_argument, NULL, O_CYCLES },
		{ "pcap", required_argument, NULL, O_PCAP },
		{ "fst", required_argument, NULL, O_FST },
		{ "replay", required_argument, NULL, O_REPLAY },
		{ "mem-latency", required_argument, NULL, O_MEMLAT },
		{ "mem-bw", required_argument, NULL, O_MEMBW },
		{ "link-rate", required_argument, NULL, O_RATE },
		{ "link-latency", required_argument, NULL, O_LINKLAT },
		{ "drop", required_argument, NULL, O_DROP },
		{ "dup", required_argument, NULL, O_DUP },
		{ "reorder", required_argument, NULL, O_REORDER },
		{ "corrupt", required_argument, NULL, O_CORRUPT },
		{ "frame-timeout", required_argument, NULL, O_FTIMEOUT },
		{ "help", no_argument, NULL, O_HELP },
		{ "frames-json", no_argument, NULL, O_FRAMES },
		{ "pause-quanta", required_argument, NULL, O_PAUSE },
		{ NULL, 0, NULL, 0 },
	};
	struct rnic_sim_cfg cfg;
	struct rnic_world *w;
	struct rnic_sim_link_stats ls;
	const char *replay = NULL;
	uint64_t cycles = 10000, u, end, frame_timeout = 0;
	uint32_t given = 0; /* options seen, bit opt - O_NICS */
	int opt, bad = 0, injected = 0, frames_json = 0;

	rnic_sim_cfg_default(&cfg);
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt >= O_NICS && opt <= O_PAUSE)
			given |= 1u << (opt - O_NICS);
		switch (opt) {
		case O_NICS:
			bad |= parse_u64(optarg, &u) || u < 1 || u > RNIC_SIM_MAX_NICS;
			cfg.num_nics = (unsigned int)u;
			break;
		case O_WIDTH:
			bad |= parse_u64(optarg, &u) || (u != 64 && u != 512);
			cfg.data_width = (unsigned int)u;
			break;
		case O_SEED:
			bad |= parse_u64(optarg, &cfg.seed);
			break;
		case O_CYCLES:
			bad |= parse_u64(optarg, &cycles);
			break;
		case O_PCAP:
			cfg.pcap_path = optarg;
			break;
		case O_FST:
			cfg.fst_path = optarg;
			break;
		case O_REPLAY:
			replay = optarg;
			break;
		case O_MEMLAT:
		case O_MEMBW:
		case O_LINKLAT:
			/* the shared parser says what is wrong itself */
			if (rnic_sim_model_opt(&cfg, "rnic-sim", opts[opt - O_NICS].name, optarg)) {
				usage(stderr);
				return 2;
			}
			break;
		case O_RATE:
			bad |= parse_double(optarg, &cfg.link_rate);
			break;
		case O_DROP:
			bad |= parse_double(optarg, &cfg.p_drop) || cfg.p_drop > 1;
			break;
		case O_DUP:
			bad |= parse_double(optarg, &cfg.p_dup) || cfg.p_dup > 1;
			break;
		case O_REORDER:
			bad |= parse_double(optarg, &cfg.p_reorder) || cfg.p_reorder > 1;
			break;
		case O_PAUSE:
			bad |= parse_u64(optarg, &u) || u > 0xffff;
			cfg.link_pause_quanta = (unsigned int)u;
			break;
		case O_CORRUPT:
			bad |= parse_double(optarg, &cfg.p_corrupt) || cfg.p_corrupt > 1;
			break;
		case O_FTIMEOUT:
			bad |= parse_u64(optarg, &frame_timeout) || frame_timeout == 0;
			break;
		case O_FRAMES:
			frames_json = 1;
			break;
		case O_HELP:
			usage(stdout);
			return 0;
		default:
			bad = 1;
			break;
		}
		if (bad) {
			if (opt >= O_NICS && opt < O_HELP)
				fprintf(stderr, "rnic-sim: bad value for --%s: %s\n",
					opts[opt - O_NICS].name, optarg);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rnic-sim: unexpected argument: %s\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	if (frames_json) {
		/* the options of a world mean nothing to the probe: refuse them */
		const uint32_t probe_opts = 1u << (O_WIDTH - O_NICS) | 1u << (O_SEED - O_NICS) |
					    1u << (O_FST - O_NICS) | 1u << (O_REPLAY - O_NICS) |
					    1u << (O_FTIMEOUT - O_NICS) | 1u << (O_FRAMES - O_NICS);
		struct rnic_replay_cfg rc = {
			.path = replay,
			.data_width = cfg.data_width,
			.seed = cfg.seed,
			.fst_path = cfg.fst_path,
			.frame_timeout = frame_timeout,
			.out = stdout,
		};

		for (int o = O_NICS; o <= O_PAUSE; o++) {
			if ((given & ~probe_opts) & 1u << (o - O_NICS)) {
				fprintf(stderr, "rnic-sim: --%s does not apply to --frames-json\n",
					opts[o - O_NICS].name);
				return 2;
			}
		}
		if (!replay) {
			fprintf(stderr, "rnic-sim: --frames-json needs --replay FILE\n");
			return 2;
		}
		return rnic_replay_frames_json(&rc);
	}
	if (given & 1u << (O_FTIMEOUT - O_NICS)) {
		fprintf(stderr, "rnic-sim: --frame-timeout applies to --frames-json only\n");
		return 2;
	}

	w = rnic_world_create(&cfg);
	if (!w) {
		fprintf(stderr, "rnic-sim: cannot create the world: %s\n", strerror(errno));
		return 1;
	}
	if (replay) {
		injected = rnic_sim_inject_pcap(w, 0, replay);
		if (injected < 0) {
			rnic_world_destroy(w);
			return 1;
		}
		/* let NIC 0 take every replayed frame (bounded), then run on */
		for (uint64_t i = 0; i < 100000000 && rnic_sim_rx_pending(w, 0); i++)
			rnic_world_step(w, 1);
		if (rnic_sim_rx_pending(w, 0))
			fprintf(stderr, "rnic-sim: NIC 0 did not take every replayed frame\n");
	}
	rnic_world_step(w, cycles);
	end = rnic_world_cycle(w); /* before the counter reads below */

	printf("{\"width\": %u, \"seed\": %" PRIu64 ", \"clock_mhz\": %u, \"replayed\": %d,\n",
	       cfg.data_width, cfg.seed, cfg.clock_mhz, injected);
	printf(" \"nics\": [\n");
	for (unsigned int i = 0; i < rnic_world_num_nics(w); i++) {
		print_nic(w, (int)i);
		printf("%s\n", i + 1 < rnic_world_num_nics(w) ? "," : "");
	}
	rnic_world_link_stats(w, &ls);
	printf(" ],\n \"link\": {\"frames\": %" PRIu64 ", \"bytes\": %" PRIu64
	       ", \"dropped\": %" PRIu64 ", \"duplicated\": %" PRIu64 ", \"reordered\": %" PRIu64
	       ", \"corrupted\": %" PRIu64 ", \"flooded\": %" PRIu64 "},\n",
	       ls.frames, ls.bytes, ls.dropped, ls.duplicated, ls.reordered, ls.corrupted,
	       ls.flooded);
	printf(" \"cycles\": %" PRIu64 ", \"ns\": %.1f}\n", end, rnic_world_cycles_to_ns(w, end));
	rnic_world_destroy(w);
	return 0;
}
