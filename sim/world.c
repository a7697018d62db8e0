/* OpenRNIC simulator: the world (NICs, host memories, BAR paths, the link,
 * pcap and FST) and its clock.
 *
 * One cycle:
 *   1. every model drives the core inputs it owns from its registered state;
 *   2. each core evaluates with clk low (its outputs settle), dump at t;
 *   3. every model samples the handshakes (the rising edge) and updates;
 *      the link serializes and delivers;
 *   4. each core evaluates with clk high, dump at t + half a period.
 * The Verilator context (time in ps) is shared by all NICs.
 *
 * A board (cfg.board) is simulated as its top with models of its vendor IP
 * (boards/<board>/sim/) and three clocks: the core's (the PCIe bridge's user
 * clock), the MAC's and the PCIe reference clock, each off its nominal
 * frequency by a seeded amount within what the real clocks allow and with a
 * seeded phase, so the crossings between them see drifting phases. The
 * world then steps edge by edge in femtoseconds: at a clock's falling edge
 * the models of its domain drive their pins (host memory and BAR in the
 * core's, the link in the MAC's), at its rising edge they sample them. A
 * world cycle is still one core cycle; the link counts MAC cycles, and
 * whatever it reports (frames, events, captures) is stamped with the core
 * cycle it happened in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

#define RESET_CYCLES 16
#define BAR_READ_TIMEOUT 10000000ull
/* a board's PCIe link and MAC come up well within this (core cycles) */
#define BOARD_UP_TIMEOUT 100000ull

enum { CLK_CORE, CLK_MAC, CLK_REF, NUM_CLKS };

struct board_clk {
	uint64_t half_fs;  /* half a period, fs */
	uint64_t next_fs;  /* the next edge */
	int level;
};

/* What the world needs of each board (boards/<board>/sim/); its name and
 * core width are model_opts.c's (rnic_sim_board_name/_width). */
static const struct board_info {
	int model;                 /* RNIC_MODEL_BOARD_* */
	unsigned int mem_bytes;    /* the PCIe bridge's AXI width */
	double mac_mhz;            /* the MAC's user clock, nominal */
	uint8_t up_leds;           /* LEDs lit once PCIe and the link are up */
} boards[] = {
	[RNIC_SIM_BOARD_AU250] = {RNIC_MODEL_BOARD_AU250, 64, 322.265625, 0x3},
	[RNIC_SIM_BOARD_KCU105] = {RNIC_MODEL_BOARD_KCU105, 32, 156.25, 0x3},
};

struct rnic_sim_nic {
	struct rnic_world *w;
	int index;
	struct rnic_model *model;
	struct hostmem *mem;
	struct bar_master *bar;
	struct memcheck *mc;
	struct rnic_core_in in;
	struct rnic_core_out out;
	struct lsock *sock;        /* the port is a UDP socket (link_socket.c) */
	unsigned int sock_poll;    /* cycles between reads of it */
	/* the event hook's view of the ports (rnic_world_set_event_hook) */
	uint64_t bar_posted, bar_written; /* BAR writes queued, taken by the core */
	uint8_t bar_aw, bar_w;            /* the head write's AW / W handshaken */
	uint8_t *awid;                    /* AWIDs of bursts whose last W is to come (mem_max_wr) */
	unsigned int aw_head, aw_count;
	uint8_t *tx_buf;                  /* the frame the MAC is taking */
	size_t tx_len;
	int tx_in_frame;
};

struct rnic_world {
	struct rnic_sim_cfg cfg;
	char *pcap_path, *fst_path;
	struct rnic_vctx *vctx;
	struct rnic_sim_nic nics[RNIC_SIM_MAX_NICS];
	struct link *link;
	struct pcap_cap *pcap;
	struct memcheck_frames *frames;
	uint64_t cycle;
	int rst;
	int tracing;
	void (*cycle_hook)(void *arg, uint64_t cycle);
	void *cycle_arg;
	void (*frame_hook)(void *arg, int port, const uint8_t *frame, size_t len,
			   uint64_t cycle);
	void *frame_arg;
	int (*drop_filter)(void *arg, int port, const uint8_t *frame, size_t len);
	void *drop_arg;
	void (*event_hook)(void *arg, const struct rnic_sim_event *ev);
	void *event_arg;
	uint8_t *rx_buf;           /* one datagram from a socket */
	/* a board's clocks (cfg.board) */
	const struct board_info *board;
	struct board_clk clk[NUM_CLKS];
	uint64_t ps_done;          /* time as far as the Verilator context has it */
	uint64_t mac_cycle;        /* the link's cycles: MAC clock edges */
	uint64_t up_cycle;         /* the cycle every board's LEDs said up */
	double clk_ppm[NUM_CLKS];
};

void rnic_sim_cfg_default(struct rnic_sim_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->num_nics = 2;
	cfg->data_width = 64;
	cfg->seed = 1;
	cfg->clock_mhz = 250;
	/* a PCIe read round trip through a bridge: ~800 ns; the bandwidths and
	 * outstanding bursts follow the data width (rnic_sim_cfg_resolve) */
	cfg->mem_rd_latency = 200;
	cfg->mem_wr_latency = 100;
	cfg->bar_latency = 50;
	cfg->link_rate = 0;
	cfg->link_latency = 100;
	cfg->link_tx_fifo = 8192;
	cfg->link_pause_quanta = 1024;
	cfg->reorder_hold_max = 2000;
}

/*
 * The host a card of each width is built for (README.md, Simulation facts,
 * has the sources):
 *
 * 64 bits (10 GbE): PCIe Gen3 x8, ~7.9 GB/s per direction = 31.5 B/cycle at
 * 250 MHz, rounded to 32; the 8-byte bus is the limit long before it. 32 reads
 * outstanding.
 *
 * 512 bits (100 GbE): PCIe Gen3 x16, 15.75 GB/s per direction after
 * 128b/130b, ~13.5 GB/s after TLP and DLLP overhead = 54 B/cycle. Reads
 * outstanding: a burst is in flight from AR to its last R beat, 200 + S/54
 * cycles for S bytes, so the full bandwidth needs N * S >= 54 * 200 + S,
 * N >= 10800 / S + 1. The core's read bursts (rtl/dma_rd.sv) are at most
 * 64 beats = 4 KiB and never cross a page; the payload engine asks for one
 * packet's payload at a time, so S is the path MTU for large messages:
 * N >= 4 at MTU 4096, 12 at 1024, 44 at 256. 64 covers every MTU (any
 * burst of 172 B or more), and a Gen3 endpoint tracks more: 256 tags of
 * 512-byte read requests, 128 KiB in flight.
 * Writes are answered in half the time, so 32 outstanding cover the same
 * burst sizes at both widths.
 */
void rnic_sim_cfg_resolve(struct rnic_sim_cfg *cfg)
{
	int wide = cfg->data_width == 512;

	if (cfg->mem_rd_bw == 0)
		cfg->mem_rd_bw = wide ? 54 : 32;
	if (cfg->mem_wr_bw == 0)
		cfg->mem_wr_bw = wide ? 54 : 32;
	if (cfg->mem_max_rd == 0)
		cfg->mem_max_rd = wide ? 64 : 32;
	if (cfg->mem_max_wr == 0)
		cfg->mem_max_wr = 32;
	if (cfg->link_rate == 0)
		cfg->link_rate = wide ? 50 : 5;
}

static char *dup_str(const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = malloc(strlen(s) + 1);
	if (d)
		strcpy(d, s);
	return d;
}

/* X.fst -> X.nicN.fst when there are several NICs. */
static char *fst_name(const char *path, unsigned int n, int i)
{
	size_t len = strlen(path);
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');
	char *s = malloc(len + 16);

	if (!s)
		return NULL;
	if (n == 1) {
		strcpy(s, path);
		return s;
	}
	if (!dot || (slash && dot < slash))
		dot = path + len;
	snprintf(s, len + 16, "%.*s.nic%d%s", (int)(dot - path), path, i, dot);
	return s;
}

static void frame_seen(void *arg, int port, const uint8_t *frame, size_t len, uint64_t cycle)
{
	struct rnic_world *w = arg;

	if (w->board)
		cycle = w->cycle; /* the link counts MAC cycles */
	if (w->pcap)
		pcap_cap_write(w->pcap, cycle, frame, len);
	memcheck_frames_add(w->frames, port, frame, len, cycle);
	if (w->frame_hook)
		w->frame_hook(w->frame_arg, port, frame, len, cycle);
}

/* The frame NIC `port` starts to take: its requests are the checker's. */
static void frame_taken(void *arg, int port, const uint8_t *frame, size_t len, uint64_t cycle)
{
	struct rnic_world *w = arg;

	if (w->board)
		cycle = w->cycle;
	memcheck_rx_frame(w->nics[port].mc, frame, len);
	if (w->event_hook) {
		struct rnic_sim_event ev = {.cycle = cycle, .nic = port, .kind = RNIC_SIM_EV_RX_SOF,
					    .frame = frame, .frame_len = len};

		w->event_hook(w->event_arg, &ev);
	}
}

static void emit(struct rnic_world *w, struct rnic_sim_event *ev)
{
	if (w->event_hook)
		w->event_hook(w->event_arg, ev);
}

/* The events of NIC i at the edge of cycle c: the handshakes as both sides
 * drove them (the models sampled the same pins). The state is kept every
 * cycle, hook or not, so that a hook set at any time pairs W beats with
 * their bursts and BAR posts with their writes; without a hook nothing is
 * emitted and no frame is copied. */
static void port_events_host(struct rnic_world *w, struct rnic_sim_nic *nic, uint64_t c)
{
	const struct rnic_core_in *in = &nic->in;
	const struct rnic_core_out *out = &nic->out;
	struct rnic_sim_event ev;

#define EV(k) (memset(&ev, 0, sizeof(ev)), ev.cycle = c, ev.nic = nic->index, ev.kind = (k))
	/* BAR write: AW and W may handshake in different cycles (sim/bar.c) */
	if (in->s_axil_awvalid && out->s_axil_awready)
		nic->bar_aw = 1;
	if (in->s_axil_wvalid && out->s_axil_wready)
		nic->bar_w = 1;
	if (nic->bar_aw && nic->bar_w) {
		nic->bar_aw = nic->bar_w = 0;
		EV(RNIC_SIM_EV_BAR_WRITE);
		ev.off = in->s_axil_awaddr;
		ev.seq = nic->bar_written++;
		emit(w, &ev);
	}
	if (in->m_axi_arready && out->m_axi_arvalid) {
		EV(RNIC_SIM_EV_DMA_AR);
		ev.id = out->m_axi_arid;
		ev.addr = out->m_axi_araddr;
		ev.len = (uint32_t)(out->m_axi_arlen + 1u) << (out->m_axi_arsize & 7);
		emit(w, &ev);
	}
	if (in->m_axi_rvalid && out->m_axi_rready && in->m_axi_rlast) {
		EV(RNIC_SIM_EV_DMA_R_LAST);
		ev.id = in->m_axi_rid;
		emit(w, &ev);
	}
	/* W beats belong to the oldest burst whose AW came before (sim/hostmem.c
	 * offers WREADY only then, so an AW and its W never share a cycle) */
	if (in->m_axi_wready && out->m_axi_wvalid && out->m_axi_wlast && nic->aw_count) {
		EV(RNIC_SIM_EV_DMA_W_LAST);
		ev.id = nic->awid[nic->aw_head];
		nic->aw_head = (nic->aw_head + 1) % w->cfg.mem_max_wr;
		nic->aw_count--;
		emit(w, &ev);
	}
	if (in->m_axi_awready && out->m_axi_awvalid) {
		EV(RNIC_SIM_EV_DMA_AW);
		ev.id = out->m_axi_awid;
		ev.addr = out->m_axi_awaddr;
		ev.len = (uint32_t)(out->m_axi_awlen + 1u) << (out->m_axi_awsize & 7);
		if (nic->aw_count < w->cfg.mem_max_wr) /* hostmem takes no more */
			nic->awid[(nic->aw_head + nic->aw_count++) % w->cfg.mem_max_wr] = ev.id;
		emit(w, &ev);
	}
	if (in->m_axi_bvalid && out->m_axi_bready) {
		EV(RNIC_SIM_EV_DMA_B);
		ev.id = in->m_axi_bid;
		emit(w, &ev);
	}
#undef EV
}

/* The Ethernet side's events (the MAC's clock domain on a board). */
static void port_events_eth(struct rnic_world *w, struct rnic_sim_nic *nic, uint64_t c)
{
	const struct rnic_core_in *in = &nic->in;
	const struct rnic_core_out *out = &nic->out;
	struct rnic_sim_event ev;

#define EV(k) (memset(&ev, 0, sizeof(ev)), ev.cycle = c, ev.nic = nic->index, ev.kind = (k))
	if (out->m_axis_tx_tvalid && in->m_axis_tx_tready) {
		if (!nic->tx_in_frame) {
			nic->tx_in_frame = 1;
			nic->tx_len = 0;
			EV(RNIC_SIM_EV_TX_SOF);
			emit(w, &ev);
		}
		for (unsigned int k = 0; k < w->cfg.data_width / 8 && nic->tx_buf && w->event_hook; k++)
			if ((out->m_axis_tx_tkeep >> k) & 1 && nic->tx_len < LINK_MAX_FRAME)
				nic->tx_buf[nic->tx_len++] = out->m_axis_tx_tdata[k];
		if (out->m_axis_tx_tlast) {
			nic->tx_in_frame = 0;
			EV(RNIC_SIM_EV_TX_EOF);
			ev.frame = nic->tx_buf;
			ev.frame_len = nic->tx_buf && ev.frame ? nic->tx_len : 0;
			emit(w, &ev);
		}
	}
	if (in->s_axis_rx_tvalid && out->s_axis_rx_tready && in->s_axis_rx_tlast) {
		EV(RNIC_SIM_EV_RX_EOF);
		emit(w, &ev);
	}
#undef EV
}

/* Queue what waits at NIC i's socket. */
static void sock_read(struct rnic_world *w, unsigned int i)
{
	struct rnic_sim_nic *nic = &w->nics[i];
	int n;

	while ((n = lsock_recv(nic->sock, w->rx_buf, LINK_MAX_FRAME)) > 0)
		link_ext_rx(w->link, i, w->mac_cycle, w->rx_buf, (size_t)n);
}

static void sock_send(void *arg, unsigned int port, const uint8_t *frame, size_t len)
{
	struct rnic_world *w = arg;

	lsock_send(w->nics[port].sock, frame, len);
}

static void after_cycle(struct rnic_world *w, uint64_t c);
static void world_time_to(struct rnic_world *w, uint64_t t);
static void world_eval(struct rnic_world *w, int dump);

/* One core cycle: every edge of every clock up to and including the core
 * clock's next rising edge. The bare core has one clock, on which the link
 * runs too; a board world has three (board_clocks). At a falling edge each
 * domain's models drive their pins, then the RTL settles; at a rising edge
 * the models sample the pins as they settled, then the RTL takes the edge. */
static void cycle_once(struct rnic_world *w)
{
	unsigned int n = w->cfg.num_nics;
	int nclk = w->board ? NUM_CLKS : 1;
	int mac = w->board ? CLK_MAC : CLK_CORE; /* the link's clock */
	uint64_t c = w->cycle;
	int core_rose = 0;

	while (!core_rose) {
		uint64_t t = UINT64_MAX;
		int fall[NUM_CLKS] = {0}, rise[NUM_CLKS] = {0};

		for (int k = 0; k < nclk; k++)
			if (w->clk[k].next_fs < t)
				t = w->clk[k].next_fs;
		world_time_to(w, t);
		for (int k = 0; k < nclk; k++) {
			if (w->clk[k].next_fs != t)
				continue;
			w->clk[k].next_fs += w->clk[k].half_fs;
			if (w->clk[k].level)
				fall[k] = 1;
			else
				rise[k] = 1;
		}
		for (int k = 0; k < nclk; k++)
			if (fall[k])
				w->clk[k].level = 0;
		for (unsigned int i = 0; i < n; i++) {
			struct rnic_sim_nic *nic = &w->nics[i];

			nic->in.rst = (uint8_t)w->rst;
			if (fall[CLK_CORE]) {
				hostmem_drive(nic->mem, c, &nic->in);
				bar_drive(nic->bar, c, &nic->in);
			}
			if (fall[mac])
				link_drive(w->link, i, w->mac_cycle, &nic->in);
		}
		/* the waveform gets one dump per instant: after the last evaluation */
		int any_rise = rise[CLK_CORE] || rise[CLK_MAC] || rise[CLK_REF];

		world_eval(w, !any_rise);
		/* In reset the core's outputs are not yet meaningful (randomized
		 * state before the first edge): the models take no handshake. */
		if (rise[CLK_CORE] && !w->rst)
			for (unsigned int i = 0; i < n; i++) {
				struct rnic_sim_nic *nic = &w->nics[i];

				hostmem_edge(nic->mem, c, &nic->in, &nic->out);
				memcheck_edge(nic->mc, c, &nic->in, &nic->out);
				bar_edge(nic->bar, c, &nic->in, &nic->out);
				port_events_host(w, nic, c);
			}
		if (rise[mac]) {
			if (!w->rst)
				for (unsigned int i = 0; i < n; i++) {
					struct rnic_sim_nic *nic = &w->nics[i];

					link_edge(w->link, i, w->mac_cycle, &nic->in, &nic->out);
					port_events_eth(w, nic, c);
				}
			link_tick(w->link, w->mac_cycle);
			for (unsigned int i = 0; i < n; i++)
				if (w->nics[i].sock && w->mac_cycle % w->nics[i].sock_poll == 0)
					sock_read(w, i);
			w->mac_cycle++;
		}
		if (any_rise) {
			for (int k = 0; k < nclk; k++)
				if (rise[k])
					w->clk[k].level = 1;
			world_eval(w, 1);
		}
		core_rose = rise[CLK_CORE];
	}
	w->cycle++;
	after_cycle(w, c);
}

static void after_cycle(struct rnic_world *w, uint64_t c)
{
	if (rnic_vctx_got_finish(w->vctx)) {
		/* $finish, $error or a failed assertion in the RTL: keep the
		 * evidence (FST, pcap) and stop */
		fprintf(stderr, "rnic-sim: the RTL stopped the simulation at cycle %llu "
			"(assertion, $error or $finish; see above)\n", (unsigned long long)c);
		rnic_world_destroy(w);
		exit(1);
	}
	if (w->cycle_hook)
		w->cycle_hook(w->cycle_arg, c);
}

/* Hand the Verilator context the time up to t (fs; it counts ps). */
static void world_time_to(struct rnic_world *w, uint64_t t)
{
	uint64_t ps = t / 1000u;

	if (ps > w->ps_done) {
		rnic_vctx_time_inc(w->vctx, ps - w->ps_done);
		w->ps_done = ps;
	}
}

static void world_eval(struct rnic_world *w, int dump)
{
	for (unsigned int i = 0; i < w->cfg.num_nics; i++) {
		struct rnic_sim_nic *nic = &w->nics[i];

		rnic_model_set_inputs(nic->model, &nic->in);
		rnic_model_set_clk(nic->model, w->clk[CLK_CORE].level);
		if (w->board)
			rnic_model_set_board_clks(nic->model, w->clk[CLK_MAC].level, w->clk[CLK_REF].level);
		rnic_model_eval(nic->model);
		if (w->tracing && dump)
			rnic_model_trace_dump(nic->model);
		rnic_model_get_outputs(nic->model, &nic->out);
	}
}

static int cfg_valid(const struct rnic_sim_cfg *cfg)
{
	return cfg->board < RNIC_SIM_BOARD_COUNT && cfg->num_nics >= 1 && cfg->num_nics <= RNIC_SIM_MAX_NICS &&
	       (cfg->data_width == 64 || cfg->data_width == 512) && cfg->clock_mhz > 0 &&
	       cfg->mem_max_rd > 0 && cfg->mem_max_wr > 0 && cfg->mem_rd_bw > 0 &&
	       cfg->mem_wr_bw > 0 && cfg->link_rate > 0 && cfg->p_drop >= 0 &&
	       cfg->p_dup >= 0 && cfg->p_reorder >= 0 && cfg->p_corrupt >= 0 &&
	       cfg->p_drop <= 1 && cfg->p_dup <= 1 && cfg->p_reorder <= 1 &&
	       cfg->p_corrupt <= 1 && cfg->link_pause_quanta <= 0xffff;
}

/* A board's clocks: each off its nominal frequency by a seeded amount
 * within the real clock's tolerance, with a seeded phase. The core clock
 * is the bridge's user clock, derived from the PCIe reference clock: +-300
 * ppm, and spread-spectrum clocking (PCIe CEM: down-spread up to 0.5%)
 * lowers it by up to 5000 ppm; the MAC's clock comes from the board's
 * oscillator for Ethernet: +-100 ppm (IEEE 802.3). The draws come from a
 * stream of their own, so a seed's other randomness is the bare core's. */
static void board_clocks(struct rnic_world *w)
{
	static const double ppm_lo[NUM_CLKS] = {-5000, -100, -300}, ppm_hi[NUM_CLKS] = {300, 100, 300};
	double mhz[NUM_CLKS] = {(double)w->cfg.clock_mhz, w->board->mac_mhz, 100.0};
	uint64_t st = w->cfg.seed ^ 0x626f617264636c6bull; /* "boardclk" */

	for (int k = 0; k < NUM_CLKS; k++) {
		double u = (double)(sim_rand64(&st) >> 11) / 9007199254740992.0; /* [0, 1) */
		double ppm = ppm_lo[k] + u * (ppm_hi[k] - ppm_lo[k]);
		double half = 5e8 / mhz[k] / (1.0 + ppm * 1e-6); /* fs */

		w->clk_ppm[k] = ppm;
		w->clk[k].half_fs = (uint64_t)(half + 0.5);
		w->clk[k].next_fs = sim_rand64(&st) % w->clk[k].half_fs;
		w->clk[k].level = 0;
	}
}

/* Run until every board reports PCIe and Ethernet up on its LEDs (the
 * bridge's link trained, the MAC locked, the core out of reset). */
static int board_wait_up(struct rnic_world *w)
{
	for (uint64_t i = 0; i < BOARD_UP_TIMEOUT; i++) {
		unsigned int up = 0;

		for (unsigned int k = 0; k < w->cfg.num_nics; k++)
			up += (w->nics[k].out.leds & w->board->up_leds) == w->board->up_leds;
		if (up == w->cfg.num_nics) {
			w->up_cycle = w->cycle;
			return 0;
		}
		cycle_once(w);
	}
	for (unsigned int k = 0; k < w->cfg.num_nics; k++)
		fprintf(stderr, "rnic-sim: %s board %u: LEDs 0x%x after %llu cycles, want 0x%x lit "
			"(PCIe and link up)\n", rnic_sim_board_name(w->cfg.board), k, w->nics[k].out.leds,
			(unsigned long long)BOARD_UP_TIMEOUT, w->board->up_leds);
	return -1;
}

struct rnic_world *rnic_world_create(const struct rnic_sim_cfg *cfg)
{
	struct rnic_world *w;
	struct hostmem_cfg mc;
	struct link_cfg lc;
	struct rnic_sim_cfg rc;
	uint64_t seed_state;
	int err = ENOMEM;

	if (cfg) {
		rc = *cfg;
		rnic_sim_cfg_resolve(&rc);
		cfg = &rc;
	}
	if (!cfg || !cfg_valid(cfg)) {
		errno = EINVAL;
		return NULL;
	}
	if (cfg->board) {
		const struct board_info *b = &boards[cfg->board];
		const char *name = rnic_sim_board_name(cfg->board);

		if (cfg->data_width != rnic_sim_board_width(cfg->board)) {
			fprintf(stderr, "rnic-sim: the %s board's core is %u bits wide, not %u\n", name,
				rnic_sim_board_width(cfg->board), cfg->data_width);
			errno = EINVAL;
			return NULL;
		}
		if (!rnic_model_board_available(b->model)) {
			fprintf(stderr, "rnic-sim: this program has no model of the %s board (programs "
				"linked with sim/rules.mk's SIM_BOARD_LIB have)\n", name);
			errno = ENODEV;
			return NULL;
		}
	} else if (!rnic_model_available(cfg->data_width)) {
		errno = ENODEV;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	w->cfg = *cfg;
	w->board = cfg->board ? &boards[cfg->board] : NULL;
	w->pcap_path = dup_str(cfg->pcap_path);
	w->fst_path = dup_str(cfg->fst_path);
	w->cfg.pcap_path = w->pcap_path;
	w->cfg.fst_path = w->fst_path;
	/* half a period in whole ps (the pcap uses the exact ns figure); the
	 * bare core's one clock starts high: its first edge, at 0, falls */
	w->clk[CLK_CORE].half_fs = 1000u * ((500000u + cfg->clock_mhz / 2) / cfg->clock_mhz);
	w->clk[CLK_CORE].next_fs = 0;
	w->clk[CLK_CORE].level = 1;
	w->tracing = cfg->fst_path != NULL;

	seed_state = cfg->seed;
	w->vctx = rnic_vctx_create(sim_rand64(&seed_state), w->tracing);
	if (!w->vctx)
		goto fail;

	if (cfg->board)
		board_clocks(w);
	mc.bus_bytes = w->board ? w->board->mem_bytes : cfg->data_width / 8;
	mc.rd_latency = cfg->mem_rd_latency;
	mc.wr_latency = cfg->mem_wr_latency;
	mc.rd_bw_milli = sim_rate_milli(cfg->mem_rd_bw);
	mc.wr_bw_milli = sim_rate_milli(cfg->mem_wr_bw);
	mc.max_rd = cfg->mem_max_rd;
	mc.max_wr = cfg->mem_max_wr;

	memset(&lc, 0, sizeof(lc));
	lc.ports = cfg->num_nics;
	lc.bus_bytes = cfg->data_width / 8;
	lc.rate_milli = sim_rate_milli(w->cfg.link_rate);
	lc.latency = cfg->link_latency;
	if (w->board) {
		/* the link runs on the MAC's clock: the same line rate and
		 * delays in its cycles */
		double r = w->board->mac_mhz / cfg->clock_mhz;

		lc.rate_milli = sim_rate_milli(w->cfg.link_rate / r);
		lc.latency = (unsigned int)(cfg->link_latency * r + 0.5);
		lc.reorder_hold_max = (unsigned int)(cfg->reorder_hold_max * r + 0.5);
	}
	lc.tx_fifo = cfg->link_tx_fifo;
	lc.pause_quanta = cfg->link_pause_quanta;
	lc.p_drop = cfg->p_drop;
	lc.p_dup = cfg->p_dup;
	lc.p_reorder = cfg->p_reorder;
	lc.p_corrupt = cfg->p_corrupt;
	if (!w->board)
		lc.reorder_hold_max = cfg->reorder_hold_max;
	lc.seed = sim_rand64(&seed_state);
	w->link = link_create(&lc);
	if (!w->link)
		goto fail;
	link_set_frame_fn(w->link, frame_seen, w);
	link_set_rx_fn(w->link, frame_taken, w);
	w->frames = memcheck_frames_create();
	if (!w->frames)
		goto fail;

	if (cfg->pcap_path) {
		w->pcap = pcap_cap_open(cfg->pcap_path, cfg->clock_mhz);
		if (!w->pcap) {
			err = EIO;
			goto fail;
		}
	}

	for (unsigned int i = 0; i < cfg->num_nics; i++) {
		struct rnic_sim_nic *nic = &w->nics[i];
		char name[16];

		snprintf(name, sizeof(name), "nic%u", i);
		nic->w = w;
		nic->index = (int)i;
		nic->model = w->board ? rnic_model_create_board(w->vctx, w->board->model, name)
				      : rnic_model_create(w->vctx, cfg->data_width, name);
		nic->mem = hostmem_create(&mc);
		nic->bar = bar_create(cfg->bar_latency);
		nic->mc = memcheck_create((int)i, mc.bus_bytes, !cfg->memcheck_nonfatal, w->frames);
		nic->awid = calloc(cfg->mem_max_wr, 1);
		if (!nic->model || !nic->mem || !nic->bar || !nic->mc || !nic->awid)
			goto fail;
		if (w->fst_path) {
			char *p = fst_name(w->fst_path, cfg->num_nics, (int)i);

			if (!p || rnic_model_trace_open(nic->model, p)) {
				fprintf(stderr, "rnic-sim: cannot open FST file %s\n",
					p ? p : w->fst_path);
				free(p);
				err = EIO;
				goto fail;
			}
			free(p);
		}
	}

	w->rst = 1;
	for (unsigned int i = 0; i < RESET_CYCLES; i++)
		cycle_once(w);
	w->rst = 0;
	if (w->board && board_wait_up(w)) {
		err = ETIMEDOUT;
		goto fail;
	}
	return w;

fail:
	rnic_world_destroy(w);
	errno = err;
	return NULL;
}

void rnic_world_destroy(struct rnic_world *w)
{
	if (!w)
		return;
	for (unsigned int i = 0; i < w->cfg.num_nics; i++) {
		struct rnic_sim_nic *nic = &w->nics[i];

		if (nic->model) {
			rnic_model_final(nic->model);
			rnic_model_trace_close(nic->model);
			rnic_model_destroy(nic->model);
		}
		hostmem_destroy(nic->mem);
		bar_destroy(nic->bar);
		lsock_close(nic->sock);
		memcheck_destroy(nic->mc);
		free(nic->tx_buf);
		free(nic->awid);
	}
	memcheck_frames_destroy(w->frames);
	free(w->rx_buf);
	link_destroy(w->link);
	pcap_cap_close(w->pcap);
	rnic_vctx_destroy(w->vctx);
	free(w->pcap_path);
	free(w->fst_path);
	free(w);
}

void rnic_world_step(struct rnic_world *w, uint64_t cycles)
{
	while (cycles--)
		cycle_once(w);
}

int rnic_world_run_until(struct rnic_world *w, int (*cond)(void *arg), void *arg,
			 uint64_t max_cycles)
{
	for (uint64_t i = 0; i < max_cycles; i++) {
		if (cond(arg))
			return 0;
		cycle_once(w);
	}
	return cond(arg) ? 0 : -ETIMEDOUT;
}

int rnic_world_board_clocks(const struct rnic_world *w, double *core_mhz, double *mac_mhz,
			    double *ref_mhz, uint64_t *up_cycle)
{
	double *out[NUM_CLKS] = {core_mhz, mac_mhz, ref_mhz};

	if (!w->board)
		return -1;
	*up_cycle = w->up_cycle;
	for (int k = 0; k < NUM_CLKS; k++)
		*out[k] = 5e8 / (double)w->clk[k].half_fs;
	return 0;
}

uint64_t rnic_world_cycle(const struct rnic_world *w)
{
	return w->cycle;
}

double rnic_world_cycles_to_ns(const struct rnic_world *w, uint64_t cycles)
{
	return (double)cycles * 1000.0 / w->cfg.clock_mhz;
}

const struct rnic_sim_cfg *rnic_world_cfg(const struct rnic_world *w)
{
	return &w->cfg;
}

unsigned int rnic_world_num_nics(const struct rnic_world *w)
{
	return w->cfg.num_nics;
}

struct rnic_sim_nic *rnic_world_nic(struct rnic_world *w, int i)
{
	if (!w || i < 0 || (unsigned int)i >= w->cfg.num_nics)
		return NULL;
	return &w->nics[i];
}

struct rnic_world *rnic_sim_nic_world(struct rnic_sim_nic *nic)
{
	return nic->w;
}

int rnic_sim_nic_index(const struct rnic_sim_nic *nic)
{
	return nic->index;
}

void rnic_world_set_cycle_hook(struct rnic_world *w, void (*hook)(void *arg, uint64_t cycle),
			       void *arg)
{
	w->cycle_hook = hook;
	w->cycle_arg = arg;
}

void rnic_world_set_frame_hook(struct rnic_world *w,
			       void (*hook)(void *arg, int port, const uint8_t *frame,
					    size_t len, uint64_t cycle),
			       void *arg)
{
	w->frame_hook = hook;
	w->frame_arg = arg;
}

static int drop_filtered(void *arg, unsigned int port, const uint8_t *frame, size_t len)
{
	struct rnic_world *w = arg;

	return w->drop_filter(w->drop_arg, (int)port, frame, len);
}

void rnic_world_set_drop_filter(struct rnic_world *w,
				int (*filter)(void *arg, int port, const uint8_t *frame, size_t len),
				void *arg)
{
	w->drop_filter = filter;
	w->drop_arg = arg;
	link_set_drop_fn(w->link, filter ? drop_filtered : NULL, w);
}

void rnic_world_set_event_hook(struct rnic_world *w,
			       void (*hook)(void *arg, const struct rnic_sim_event *ev), void *arg)
{
	for (unsigned int i = 0; hook && i < w->cfg.num_nics; i++) {
		struct rnic_sim_nic *nic = &w->nics[i];

		if (!nic->tx_buf)
			nic->tx_buf = malloc(LINK_MAX_FRAME); /* NULL: TX_EOF without the frame */
	}
	w->event_hook = hook;
	w->event_arg = arg;
}

/* ------------------------------------------------------------------ BAR */

void rnic_sim_bar_write32(struct rnic_sim_nic *nic, uint32_t off, uint32_t val)
{
	if (bar_post_write(nic->bar, nic->w->cycle, off, val)) {
		bar_count_error(nic->bar);
		return;
	}
	memcheck_bar_write(nic->mc, off, val);
	if (nic->w->event_hook) {
		struct rnic_sim_event ev = {.cycle = nic->w->cycle, .nic = nic->index,
					    .kind = RNIC_SIM_EV_BAR_POST, .off = off,
					    .seq = nic->bar_posted};

		nic->w->event_hook(nic->w->event_arg, &ev);
	}
	nic->bar_posted++;
}

uint32_t rnic_sim_bar_read32(struct rnic_sim_nic *nic, uint32_t off)
{
	struct rnic_world *w = nic->w;
	int64_t t = bar_post_read(nic->bar, w->cycle, off);
	uint32_t val;
	int err;

	if (t < 0) {
		bar_count_error(nic->bar);
		return 0xffffffffu;
	}
	for (uint64_t i = 0; i < BAR_READ_TIMEOUT; i++) {
		if (bar_read_result(nic->bar, t, w->cycle, &val, &err)) {
			if (err)
				return 0xffffffffu;
			memcheck_bar_read(nic->mc, off, val);
			return val;
		}
		cycle_once(w);
	}
	fprintf(stderr, "rnic-sim: nic%d: BAR read of 0x%x got no answer in %llu cycles\n",
		nic->index, off, BAR_READ_TIMEOUT);
	bar_count_error(nic->bar);
	return 0xffffffffu;
}

void rnic_sim_bar_flush(struct rnic_sim_nic *nic)
{
	for (uint64_t i = 0; i < BAR_READ_TIMEOUT && bar_busy(nic->bar); i++)
		cycle_once(nic->w);
}

/* ------------------------------------------------------------------ DMA */

int rnic_sim_dma_map(struct rnic_sim_nic *nic, void *va, size_t len)
{
	return hostmem_map(nic->mem, va, len);
}

int rnic_sim_dma_map_pages(struct rnic_sim_nic *nic, void *va, size_t len, uint64_t *bus_pages)
{
	return hostmem_map_pages(nic->mem, va, len, bus_pages);
}

int rnic_sim_dma_unmap(struct rnic_sim_nic *nic, void *va, size_t len)
{
	return hostmem_unmap(nic->mem, va, len);
}

uint64_t rnic_sim_nic_faults(const struct rnic_sim_nic *nic, struct rnic_sim_fault *out,
			     size_t max)
{
	return hostmem_faults(nic->mem, out, max);
}

void rnic_sim_nic_memcheck_stats(const struct rnic_sim_nic *nic,
				 struct rnic_sim_memcheck_stats *st)
{
	memcheck_stats(nic->mc, st);
}

uint64_t rnic_sim_nic_violations(const struct rnic_sim_nic *nic, struct rnic_sim_violation *out,
				 size_t max)
{
	return memcheck_violations(nic->mc, out, max);
}

void rnic_sim_nic_mem_stats(const struct rnic_sim_nic *nic, struct rnic_sim_mem_stats *st)
{
	hostmem_stats(nic->mem, st);
}

void rnic_sim_nic_bar_stats(const struct rnic_sim_nic *nic, struct rnic_sim_bar_stats *st)
{
	bar_stats(nic->bar, st);
}

void rnic_sim_nic_port_stats(const struct rnic_world *w, int nic, struct rnic_sim_port_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (nic >= 0 && (unsigned int)nic < w->cfg.num_nics)
		link_port_stats(w->link, (unsigned int)nic, st);
}

void rnic_world_link_stats(const struct rnic_world *w, struct rnic_sim_link_stats *st)
{
	link_stats(w->link, st);
}

/* ---------------------------------------------------------------- frames */

int rnic_sim_inject_frame(struct rnic_world *w, int nic, const void *frame, size_t len)
{
	if (nic < 0 || (unsigned int)nic >= w->cfg.num_nics)
		return -EINVAL;
	return link_inject(w->link, (unsigned int)nic, w->mac_cycle, frame, len);
}

struct inject_ctx {
	struct rnic_world *w;
	int nic;
};

static int inject_one(void *arg, const uint8_t *frame, size_t len)
{
	struct inject_ctx *c = arg;

	return rnic_sim_inject_frame(c->w, c->nic, frame, len);
}

int rnic_sim_inject_pcap(struct rnic_world *w, int nic, const char *path)
{
	struct inject_ctx c = { w, nic };

	if (nic < 0 || (unsigned int)nic >= w->cfg.num_nics || !path)
		return -EINVAL;
	return pcap_read_frames(path, inject_one, &c);
}

unsigned int rnic_sim_rx_pending(const struct rnic_world *w, int nic)
{
	if (nic < 0 || (unsigned int)nic >= w->cfg.num_nics)
		return 0;
	return link_rx_pending(w->link, (unsigned int)nic);
}

/* ------------------------------------------------------------ UDP socket */

int rnic_sim_attach_udp(struct rnic_world *w, int nic, const struct rnic_sim_udp_cfg *cfg)
{
	struct rnic_sim_nic *n;
	char err[160];

	if (!w || !cfg || nic < 0 || (unsigned int)nic >= w->cfg.num_nics || w->nics[nic].sock)
		return -EINVAL;
	n = &w->nics[nic];
	if (!w->rx_buf) {
		w->rx_buf = malloc(LINK_MAX_FRAME);
		if (!w->rx_buf)
			return -ENOMEM;
	}
	errno = 0;
	n->sock = lsock_open(cfg, err, sizeof(err));
	if (!n->sock) {
		int e = errno ? errno : EINVAL;

		fprintf(stderr, "rnic-sim: nic%d: UDP link: %s\n", nic, err);
		return -e;
	}
	n->sock_poll = cfg->poll_cycles ? cfg->poll_cycles : 64;
	link_set_external(w->link, (unsigned int)nic, sock_send, w);
	return 0;
}

uint16_t rnic_sim_udp_port(const struct rnic_world *w, int nic)
{
	if (nic < 0 || (unsigned int)nic >= w->cfg.num_nics || !w->nics[nic].sock)
		return 0;
	return lsock_local_port(w->nics[nic].sock);
}

void rnic_sim_udp_stats(const struct rnic_world *w, int nic, struct rnic_sim_udp_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (nic >= 0 && (unsigned int)nic < w->cfg.num_nics && w->nics[nic].sock)
		lsock_stats(w->nics[nic].sock, st);
}

int rnic_world_busy(const struct rnic_world *w)
{
	if (link_busy(w->link))
		return 1;
	for (unsigned int i = 0; i < w->cfg.num_nics; i++)
		if (hostmem_busy(w->nics[i].mem) || bar_busy(w->nics[i].bar))
			return 1;
	return 0;
}

int rnic_sim_udp_wait(struct rnic_world *w, int extra_fd, int timeout_ms)
{
	struct lsock *socks[RNIC_SIM_MAX_NICS];
	int rc;

	for (unsigned int i = 0; i < w->cfg.num_nics; i++)
		socks[i] = w->nics[i].sock;
	rc = lsock_wait(socks, w->cfg.num_nics, extra_fd, timeout_ms);
	if (rc > 0)
		for (unsigned int i = 0; i < w->cfg.num_nics; i++)
			if (w->nics[i].sock)
				sock_read(w, i);
	return rc;
}
