/* OpenRNIC simulator: a cycle-accurate world of one or more NICs (the
 * Verilator model of rtl/rnic_core.sv) with a host-memory model behind each
 * NIC's DMA master, a BAR0 access path, an Ethernet link between the NICs
 * (point to point for two NICs, a learning switch otherwise) with fault
 * injection, pcap capture and injection, and FST waveforms on request.
 *
 * Time is counted in cycles of the one core clock (cfg.clock_mhz, 250 MHz by
 * default: 4 ns per cycle). Everything is deterministic: the same
 * configuration and the same calls give the same cycle counts, the same
 * frames and the same waveforms. Randomness comes only from cfg.seed (link
 * faults and Verilator's randomized initial state).
 *
 * The host CPU is infinitely fast: calls into this API cost no simulated time
 * except rnic_world_step and rnic_sim_bar_read32, which run the world.
 * Functions returning int return 0 (or a count) on success and a negative
 * errno value on failure.
 */
#ifndef RNIC_SIM_H
#define RNIC_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RNIC_SIM_MAX_NICS 16

struct rnic_world;
struct rnic_sim_nic;

/* World configuration. Start from rnic_sim_cfg_default() and change fields. */
/* What each NIC of a world is: the bare rnic_core (the default), or a board
 * design's top with models of its vendor IP (boards/<board>/sim/, docs/boards.md):
 * its PCIe bridge, width converters and MAC, its clocks and resets, its
 * LEDs. Only programs linked with the board models can simulate a board
 * (rnic-soak-board; sim/rules.mk). */
enum rnic_sim_board {
	RNIC_SIM_BOARD_NONE = 0,
	RNIC_SIM_BOARD_AU250,  /* Alveo U250: data_width 512, 100 GbE, PCIe Gen3 x16 */
	RNIC_SIM_BOARD_KCU105, /* KCU105: data_width 64, 10 GbE, PCIe Gen3 x8 */
	RNIC_SIM_BOARD_COUNT
};

/* "au250", "kcu105" (or "none") -> RNIC_SIM_BOARD_*, or -1. */
int rnic_sim_board_parse(const char *name);
/* A board's name ("none" for the bare core) and its core's data-path width
 * in bits (0 for the bare core: any width). */
const char *rnic_sim_board_name(unsigned int board);
unsigned int rnic_sim_board_width(unsigned int board);

struct rnic_sim_cfg {
	unsigned int num_nics;   /* 1..RNIC_SIM_MAX_NICS (default 2) */
	unsigned int data_width; /* 64 or 512: picks the Verilator model (64) */
	uint64_t seed;           /* all randomness derives from it (1) */
	unsigned int clock_mhz;  /* stated core clock, for ns figures (250) */
	unsigned int board;      /* RNIC_SIM_BOARD_* (NONE); a board's data_width is its own.
				  * On a board the core, MAC and reference clocks are each
				  * a seeded few hundred ppm off nominal (sim/world.c), and
				  * the world is up once every board's LEDs say so. */

	/* Host memory behind each NIC's AXI4 master (a PCIe root complex seen
	 * through a bridge such as XDMA). Bandwidths in bytes per cycle, per
	 * direction; a beat moves 2^AxSIZE bytes, so a bandwidth at or above
	 * the bus width leaves the bus as the only limit. A field left 0 takes
	 * the default of the data width when the world is created (the host a
	 * card of that width sits in: PCIe Gen3 x8 at 64 bits, Gen3 x16 at 512
	 * bits; sim/README.md); rnic_world_cfg shows the values in force. */
	unsigned int mem_rd_latency; /* AR handshake -> first R beat, cycles (200) */
	unsigned int mem_wr_latency; /* last W beat -> B response, cycles (100); the
				      * burst's bytes reach host memory then (a read
				      * issued after them sees them in any case) */
	double mem_rd_bw;            /* read bytes per cycle (0: 32 at 64 bits, 54 at 512) */
	double mem_wr_bw;            /* write bytes per cycle (0: 32 at 64 bits, 54 at 512) */
	unsigned int mem_max_rd;     /* read bursts outstanding, AR to last R (0: 32 at 64 bits, 64 at 512) */
	unsigned int mem_max_wr;     /* write bursts outstanding, AW to B (0: 32) */

	/* BAR0 path: one-way delay of a host MMIO access, cycles (50). A posted
	 * write reaches the NIC's AXI4-Lite slave this many cycles after the
	 * call; a read's data return this many cycles after the slave answers. */
	unsigned int bar_latency;

	/* Ethernet link. Line rate in bytes per cycle (0: 5 at 64 bits, i.e.
	 * 10 Gb/s at 250 MHz; 50 at 512 bits, i.e. 100 Gb/s). Each frame costs
	 * its length (padded to 60) + 4 FCS + 8 preamble + 12 IFG on the wire. */
	double link_rate;
	unsigned int link_latency;  /* end of serialization -> arrival, cycles (100) */
	unsigned int link_tx_fifo;  /* frame bytes queued in the MAC before tx tready drops (8192) */
	/* Flow control by the MACs (IEEE 802.3 Annex 31B; sim/link.c): the pause
	 * time a PAUSE frame asks for while the core raises mac_pause_req,
	 * refreshed every half of it, in quanta of 512 bit times (1024: 5.2 us
	 * at 100 Gb/s). 0: the MACs neither send PAUSE nor obey it. */
	unsigned int link_pause_quanta;
	double p_drop;              /* per-frame fault probabilities (0) */
	double p_dup;
	double p_reorder;           /* hold a frame back behind the next one */
	double p_corrupt;           /* flip one random bit */
	unsigned int reorder_hold_max; /* a held frame leaves after this many cycles at most (2000) */

	/* Memory-protection checker (docs/memcheck.md): 0 (default) stops the
	 * program (exit 1) at the first violation, after its report; 1 only
	 * records and reports violations (rnic_sim_nic_memcheck_stats). */
	int memcheck_nonfatal;

	const char *pcap_path; /* capture of the whole wire, or NULL */
	const char *fst_path;  /* FST waveform, or NULL (several NICs: X.nicN.fst) */
};

/* Statistics of one NIC's host-memory model. */
struct rnic_sim_mem_stats {
	uint64_t rd_bursts, rd_beats, rd_bytes;
	uint64_t wr_bursts, wr_beats, wr_bytes; /* wr_bytes: strobed bytes written */
	uint64_t rd_outstanding_max;            /* most read bursts in flight at once */
	uint64_t wr_outstanding_max;
	uint64_t rd_faults, wr_faults;          /* bursts touching unmapped memory */
	uint64_t protocol_errors;               /* e.g. WLAST on the wrong beat */
};

/* One DMA access outside every mapped range. */
struct rnic_sim_fault {
	uint64_t cycle;   /* when the faulting beat moved */
	uint64_t addr;    /* first faulting beat's address */
	uint64_t burst_addr;
	uint32_t burst_bytes; /* (AxLEN + 1) << AxSIZE */
	uint8_t write;
	uint8_t id;
};

struct rnic_sim_bar_stats {
	uint64_t writes, reads; /* completed on the AXI4-Lite bus */
	uint64_t errors;        /* BRESP or RRESP not OKAY, or a read timeout */
};

/* One NIC's Ethernet port. */
struct rnic_sim_port_stats {
	uint64_t tx_frames, tx_bytes;   /* taken from the NIC's m_axis_tx */
	uint64_t tx_bad_frames;         /* ended with tuser set: discarded */
	uint64_t tx_backpressure_cycles;/* tx tready held low by the MAC FIFO */
	uint64_t rx_frames, rx_bytes;   /* delivered into the NIC's s_axis_rx */
	uint64_t rx_backpressure_cycles;/* rx tvalid with tready low */
	uint64_t rx_injected;           /* frames queued by rnic_sim_inject_* */
	/* flow control (IEEE 802.3 Annex 31B PAUSE, done by the MAC) */
	uint64_t tx_xoff_frames;        /* PAUSE frames sent with a pause time */
	uint64_t tx_xon_frames;         /* PAUSE frames of 0 quanta sent */
	uint64_t rx_pause_frames;       /* PAUSE frames received and obeyed */
	uint64_t rx_mac_ctrl_dropped;   /* MAC Control frames discarded (corrupt, not PAUSE) */
	uint64_t tx_xoff_faulted;       /* XOFF frames sent that the link's faults dropped,
	                                   corrupted or held back: the peer sends on until
	                                   the next refresh, and may overrun this NIC */
	uint64_t tx_paused_cycles;      /* a data frame waited: the peer paused this MAC */
	uint64_t eg_paused_cycles;      /* switch: egress to this NIC paused by it */
};

/* The wire as a whole. */
struct rnic_sim_link_stats {
	uint64_t frames, bytes;  /* frames that arrived (after faults) */
	uint64_t dropped, duplicated, reordered, corrupted;
	uint64_t flooded;        /* switch: unknown or group destination */
	uint64_t unicast_learned;/* switch: forwarded to a learned port */
};

/* Fill cfg with the defaults named above (the fields that follow the data
 * width are left 0). */
void rnic_sim_cfg_default(struct rnic_sim_cfg *cfg);
/* Replace every field left 0 that follows the data width (host-memory
 * bandwidths and outstanding bursts, link rate) by its default for
 * cfg->data_width; rnic_world_create does this to its copy. */
void rnic_sim_cfg_resolve(struct rnic_sim_cfg *cfg);

/* The host and link model's command-line options, one implementation for
 * every program that builds a world (rnic-sim, rnic-bench, rnic-perf --sim,
 * rnic-demo), so that any figure can be reproduced under other assumptions:
 *   --mem-bw B        host-memory bytes per cycle, each direction (> 0)
 *   --mem-latency N   host-memory read round trip, cycles (1..1000000);
 *                     the write response takes half of it, as by default
 *   --link-latency N  link propagation, cycles (0..100000000)
 *   --board B         each NIC is board B's design (au250, kcu105; sets the
 *                     data width; programs linked with the board models)
 * RNIC_SIM_MODEL_LONGOPTS(v) are their getopt_long entries, all returning
 * v: pass the entry's name to rnic_sim_model_opt. It applies option `name`
 * (without the dashes) with value `val` to cfg and returns 0, or prints
 * "prog: --name: 'val' is not ..." on stderr and returns -EINVAL (-ENOENT:
 * not one of these options). rnic_sim_model_help prints their --help lines,
 * each option at column `indent`, its text at column `col`. */
#define RNIC_SIM_MODEL_LONGOPTS(v)                                                         \
	{ "mem-bw", required_argument, NULL, (v) },                                        \
	{ "mem-latency", required_argument, NULL, (v) },                                   \
	{ "link-latency", required_argument, NULL, (v) },                                  \
	{ "board", required_argument, NULL, (v) }
int rnic_sim_model_opt(struct rnic_sim_cfg *cfg, const char *prog, const char *name, const char *val);
void rnic_sim_model_help(FILE *f, int indent, int col);

/* A board world's clocks as drawn from its seed, MHz: the core's (the PCIe
 * bridge's user clock), the MAC's, the PCIe reference; and the cycle at which
 * every board's LEDs said PCIe and link up. -1 (nothing set) if the world
 * simulates the bare core. */
int rnic_world_board_clocks(const struct rnic_world *w, double *core_mhz, double *mac_mhz,
			    double *ref_mhz, uint64_t *up_cycle);

/* Create a world, hold rst for 16 cycles and release it (the world's cycle
 * is then 16). Returns NULL and sets errno: EINVAL (bad cfg), ENODEV (no
 * model of this width compiled in), EIO (pcap or FST file), ENOMEM. */
struct rnic_world *rnic_world_create(const struct rnic_sim_cfg *cfg);
/* Run final blocks, close pcap and FST files, free everything. */
void rnic_world_destroy(struct rnic_world *w);

/* Run the world for `cycles` clock cycles. */
void rnic_world_step(struct rnic_world *w, uint64_t cycles);
/* Run until cond(arg) returns non-zero (checked before each cycle) or
 * max_cycles have passed. Returns 0, or -ETIMEDOUT. */
int rnic_world_run_until(struct rnic_world *w, int (*cond)(void *arg), void *arg,
			 uint64_t max_cycles);
uint64_t rnic_world_cycle(const struct rnic_world *w);
/* Simulated time of a cycle count at the stated clock, in ns. */
double rnic_world_cycles_to_ns(const struct rnic_world *w, uint64_t cycles);
const struct rnic_sim_cfg *rnic_world_cfg(const struct rnic_world *w);
unsigned int rnic_world_num_nics(const struct rnic_world *w);
/* NIC i (0-based), or NULL if out of range. */
struct rnic_sim_nic *rnic_world_nic(struct rnic_world *w, int i);
struct rnic_world *rnic_sim_nic_world(struct rnic_sim_nic *nic);
int rnic_sim_nic_index(const struct rnic_sim_nic *nic);

/* Called once per cycle after the clock edge. NULL removes it. */
void rnic_world_set_cycle_hook(struct rnic_world *w,
			       void (*hook)(void *arg, uint64_t cycle), void *arg);
/* Called for each frame when it arrives at the far end of its sender's cable
 * (the point the pcap records: after drop, duplication, reordering and
 * corruption), and for each injected frame (port = -1 - target NIC). */
void rnic_world_set_frame_hook(struct rnic_world *w,
			       void (*hook)(void *arg, int port, const uint8_t *frame,
					    size_t len, uint64_t cycle),
			       void *arg);

/* Called for each frame at the end of its serialization at the sending NIC's
 * port (port = the NIC), before the random faults' copy or reorder and the
 * frame hook: a non-zero return loses the frame on the cable (counted in
 * the link's dropped frames). For tests that lose one particular frame.
 * NULL removes it. */
void rnic_world_set_drop_filter(struct rnic_world *w,
				int (*filter)(void *arg, int port, const uint8_t *frame, size_t len),
				void *arg);

/* Harness-level events at the core's ports, for latency breakdowns
 * (rnic-bench): every handshake that starts or ends a host access, a DMA
 * burst or a frame, with the cycle of the clock edge that took it (the
 * cycle_hook's numbering; rnic_world_cycle() is one more once the cycle has
 * run). The bytes of a write burst reach host memory when its B response is
 * presented (mem_wr_latency after its last W beat; the host reads them from
 * rnic_world_cycle() = that cycle + 1 on), or earlier when a read issued
 * after them needs them. */
enum rnic_sim_event_kind {
	RNIC_SIM_EV_BAR_POST,   /* the host queued a BAR write (off, seq); cycle = rnic_world_cycle() */
	RNIC_SIM_EV_BAR_WRITE,  /* that write's AW and W have both handshaken on the AXI4-Lite port */
	RNIC_SIM_EV_DMA_AR,     /* a read burst issued: AR handshake (id, addr, len bytes) */
	RNIC_SIM_EV_DMA_R_LAST, /* its last R beat taken by the core (id) */
	RNIC_SIM_EV_DMA_AW,     /* a write burst issued: AW handshake (id, addr, len bytes) */
	RNIC_SIM_EV_DMA_W_LAST, /* its last W beat accepted (id) */
	RNIC_SIM_EV_DMA_B,      /* its B response taken by the core: its bytes are in host memory (id) */
	RNIC_SIM_EV_TX_SOF,     /* the MAC took the first beat of a frame from m_axis_tx */
	RNIC_SIM_EV_TX_EOF,     /* ... and its last beat (frame, len: the whole frame) */
	RNIC_SIM_EV_RX_SOF,     /* the core took the first beat of a frame from s_axis_rx (frame, len) */
	RNIC_SIM_EV_RX_EOF,     /* ... and its last beat */
};

struct rnic_sim_event {
	uint64_t cycle;
	int nic;
	enum rnic_sim_event_kind kind;
	uint8_t id;           /* DMA: ARID / AWID (DMA_ID_* of docs/formats.toml) */
	uint32_t off;         /* BAR: register offset */
	uint64_t seq;         /* BAR: the NIC's n-th BAR write (posts and writes pair by it) */
	uint64_t addr;        /* DMA: AxADDR */
	uint32_t len;         /* DMA: (AxLEN + 1) << AxSIZE */
	const uint8_t *frame; /* TX_EOF, RX_SOF: the frame (no preamble or FCS), valid during the call */
	size_t frame_len;
};

/* Called for every event of every NIC, in cycle order: BAR_POST when the
 * host queues the write (its cycle is the next edge's), the others at the
 * clock edge (within one: by NIC; RX_SOF, then BAR, DMA, TX, RX_EOF). NULL
 * removes it. Without a hook nothing is emitted or copied. */
void rnic_world_set_event_hook(struct rnic_world *w,
			       void (*hook)(void *arg, const struct rnic_sim_event *ev), void *arg);

/* BAR0. Writes are posted: queued, returned at once, executed in order over
 * the next cycles. A read runs the world until its data return and is
 * ordered after every earlier write (their responses have arrived). A bus
 * error is counted (rnic_sim_nic_bar_stats); a read that errs or does not
 * finish within 10^7 cycles returns 0xffffffff. */
void rnic_sim_bar_write32(struct rnic_sim_nic *nic, uint32_t off, uint32_t val);
uint32_t rnic_sim_bar_read32(struct rnic_sim_nic *nic, uint32_t off);
/* Run the world until every queued BAR write has its response. */
void rnic_sim_bar_flush(struct rnic_sim_nic *nic);

/* Identity IOMMU: make [va, va + len) of this process reachable by the NIC's
 * DMA at bus address (uintptr_t)va. Ranges may overlap (each map needs its
 * own unmap with the same va and len). Any DMA byte outside every mapped
 * range is refused (SLVERR), recorded as a fault, and never touches process
 * memory. Returns 0, -EINVAL (NULL, zero length, wraps) or -ENOMEM;
 * unmap returns -ENOENT when no such mapping exists. */
int rnic_sim_dma_map(struct rnic_sim_nic *nic, void *va, size_t len);

/* Paged IOMMU mapping, as pinned user memory looks to a device: each 4 KiB
 * page touched by [va, va + len) gets a bus page of its own at or above
 * RNIC_SIM_ALIAS_BASE, and neighbouring pages are never neighbours on the
 * bus, so the NIC reaches the range only through a page list. Only the bytes
 * of [va, va + len) are reachable, even inside its first and last page; a
 * bus page is never handed out twice. Fills bus_pages[i] (page-aligned) for
 * the i-th page, ((va + len - 1) >> 12) - (va >> 12) + 1 entries. Returns 0,
 * -EINVAL or -ENOMEM. rnic_sim_dma_unmap with the same va and len undoes it. */
#define RNIC_SIM_ALIAS_BASE 0x0100000000000000ull
int rnic_sim_dma_map_pages(struct rnic_sim_nic *nic, void *va, size_t len, uint64_t *bus_pages);
int rnic_sim_dma_unmap(struct rnic_sim_nic *nic, void *va, size_t len);

/* Number of DMA faults so far; copies the first min(count, max) of them. */
uint64_t rnic_sim_nic_faults(const struct rnic_sim_nic *nic, struct rnic_sim_fault *out,
			     size_t max);

void rnic_sim_nic_mem_stats(const struct rnic_sim_nic *nic, struct rnic_sim_mem_stats *st);
void rnic_sim_nic_bar_stats(const struct rnic_sim_nic *nic, struct rnic_sim_bar_stats *st);
void rnic_sim_nic_port_stats(const struct rnic_world *w, int nic,
			     struct rnic_sim_port_stats *st);
void rnic_world_link_stats(const struct rnic_world *w, struct rnic_sim_link_stats *st);

/* The memory-protection checker of one NIC (docs/memcheck.md): a mirror of
 * what the host granted the device, built from the host's command-mailbox
 * traffic at the BAR (CREATE_CQ, CREATE_QP, MODIFY_QP, REG_MR, WRITE_MTT and
 * the destroys, each once the host saw it succeed) and the bus pages named
 * in WRITE_MTT, plus the windows the device's own work opens: the SGEs of
 * the WQEs it fetches and the RETH / AtomicETH of the requests it receives,
 * each only if the checker finds it legal (key, PD, bounds, MR and QP
 * access). Every DMA burst is checked against the rights of the engine that
 * made it (its AXI ID): CQ rings by the CQE writer only, SQ/RQ rings of a QP
 * out of RESET by the WQE fetchers, MR bytes only inside a window of that
 * engine's kind. It is armed by the first successful command that grants
 * memory; before that (a host that writes contexts through the CTX window)
 * bursts are counted as unchecked. */
struct rnic_sim_memcheck_stats {
	uint64_t armed;               /* 1 once a command granted memory */
	uint64_t commands;            /* mailbox commands the host saw complete */
	uint64_t objects_live;        /* rings and MRs granted now */
	uint64_t rd_bursts_checked;   /* read bursts checked (every beat) */
	uint64_t wr_beats_checked;    /* write beats checked (every strobed byte) */
	uint64_t rd_bursts_unchecked; /* before the checker was armed */
	uint64_t wr_beats_unchecked;
	uint64_t violations;
	uint64_t requests_seen;       /* RDMA WRITE / READ / ATOMIC requests the NIC took */
	uint64_t windows_opened;      /* SGEs and requests the checker found legal */
	uint64_t windows_refused;     /* ... and not legal (no DMA may follow) */
	uint64_t mw_ops;              /* memory-window binds and invalidations followed (their CQEs) */
};

/* One violation: the first offending byte of a beat and the bytes of that
 * beat from there (write: the strobed run; read: to the end of the beat). */
struct rnic_sim_violation {
	uint64_t cycle;
	uint64_t addr;
	uint32_t len;
	uint8_t write;
	char what[320]; /* which region, and why the access is not allowed */
};

void rnic_sim_nic_memcheck_stats(const struct rnic_sim_nic *nic,
				 struct rnic_sim_memcheck_stats *st);
/* Number of violations so far; copies the first min(count, max, 16). */
uint64_t rnic_sim_nic_violations(const struct rnic_sim_nic *nic, struct rnic_sim_violation *out,
				 size_t max);

/* Queue frames (Ethernet, no preamble or FCS) into a NIC's RX, behind what
 * is already queued; they are delivered from the next cycle on, back to back
 * at full width. Frames shorter than 60 bytes are padded as a MAC would.
 * inject_pcap returns the number of frames queued. */
int rnic_sim_inject_frame(struct rnic_world *w, int nic, const void *frame, size_t len);
int rnic_sim_inject_pcap(struct rnic_world *w, int nic, const char *path);
/* Frames queued for a NIC's RX that it has not taken completely yet. */
unsigned int rnic_sim_rx_pending(const struct rnic_world *w, int nic);
/* An IEEE 802.3 Annex 31B PAUSE frame from station address sa asking for
 * `quanta` pause quanta (0 resumes), as the simulated MACs send it: written
 * into buf, which holds 60 bytes (the minimum frame without FCS); returns
 * its length. Injected into a NIC's RX, it holds that NIC's transmit. */
size_t rnic_sim_pause_frame(uint8_t *buf, const uint8_t sa[6], unsigned int quanta);

/* ------------------------------------------------------------------
 * A NIC's Ethernet port on a UDP socket (sim/link_socket.c): the port leaves
 * the simulated wire and exchanges raw Ethernet frames with whatever is at
 * the other end of the socket, one frame per datagram, no preamble, no FCS
 * (QEMU's `-netdev dgram`: a virtual machine running Linux rdma_rxe).
 *
 * Frames the NIC sends still pass its MAC, the line rate, link_latency and
 * the fault probabilities of the configuration, then go to `remote` (and to
 * the pcap, with the frame hook's port = the NIC). Datagrams arriving at
 * `local` are read every `poll_cycles` cycles while the world runs and
 * queued into the NIC's RX (pcap and frame hook with port = -1 - nic, as
 * injected frames); frames shorter than 60 bytes are padded. An ARP request
 * for `ipv4` is answered with `mac` by the socket itself when it is read and
 * never reaches the NIC.
 *
 * Time: the world's cycles advance only while it runs, and a simulated NIC
 * runs far slower than the wall clock the peer lives in, so the peer always
 * looks fast to the NIC: its ACK timer cannot fire because the peer is
 * slow. While the world does not run (the program is blocked, e.g. in
 * rnic_sim_udp_wait or a TCP read), simulated time stands still and frames
 * wait in the socket's receive buffer (raised to 4 MiB within
 * net.core.rmem_max). A program with nothing to do but wait for the peer
 * calls rnic_sim_udp_wait instead of running idle cycles: no CPU is burnt,
 * no simulated time passes, and no timer of the NIC moves.
 */
struct rnic_sim_udp_cfg {
	const char *local;        /* "HOST:PORT" to bind (IPv4; port 0: any) */
	const char *remote;       /* "HOST:PORT" every frame is sent to */
	uint8_t mac[6];           /* the answer to ARP requests for ipv4 */
	uint8_t ipv4[4];          /* 0.0.0.0: ARP requests are dropped unanswered */
	unsigned int poll_cycles; /* read the socket every this many cycles (0: 64) */
};

struct rnic_sim_udp_stats {
	uint64_t tx_frames, tx_bytes; /* sent to remote */
	uint64_t tx_errors;           /* sendto failed: lost, as on a wire */
	uint64_t rx_frames, rx_bytes; /* received and queued for the NIC */
	uint64_t rx_bad;              /* shorter than an Ethernet header, or too long */
	uint64_t arp_replies;
};

/* Attach NIC nic's port. 0, or -EINVAL (bad nic, address, or already
 * attached; a message goes to stderr), -EADDRINUSE etc. from bind. */
int rnic_sim_attach_udp(struct rnic_world *w, int nic, const struct rnic_sim_udp_cfg *cfg);
/* The UDP port NIC nic's socket is bound to (0: not attached). */
uint16_t rnic_sim_udp_port(const struct rnic_world *w, int nic);
void rnic_sim_udp_stats(const struct rnic_world *w, int nic, struct rnic_sim_udp_stats *st);
/* Non-zero while anything moves in the world: a frame anywhere in the link,
 * a BAR access or a DMA burst in flight. */
int rnic_world_busy(const struct rnic_world *w);
/* Block up to timeout_ms (wall clock) until a datagram waits at an attached
 * socket or extra_fd (>= 0) is readable, without running the world. Then
 * reads the sockets (the frames are queued for the NICs). Returns 1 if
 * something is readable, 0 on timeout, -errno on error. */
int rnic_sim_udp_wait(struct rnic_world *w, int extra_fd, int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* RNIC_SIM_H */
