/* OpenRNIC simulator internals: the cycle models behind the world.
 *
 * Every model talks to a core through the pin structs of rnic_model.h and is
 * advanced in two calls per cycle:
 *   *_drive(model, cycle, in)           set the core inputs the model owns,
 *                                       from its registered state only;
 *   *_edge(model, cycle, in, out)       the rising clock edge: sample every
 *                                       handshake (valid && ready as both
 *                                       sides drive them) and update state.
 * A model's outputs never depend combinationally on the core's outputs, so
 * drive -> core eval -> edge is exact. The models are plain C and unit-tested
 * without Verilator by driving the pin structs directly.
 */
#ifndef RNIC_SIM_INT_H
#define RNIC_SIM_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rnic_model.h"
#include "rnic_sim.h"
#include "rnic/rnic_hw.h"

/* ---------------------------------------------------------------- PRNG */

/* splitmix64: a seeded, portable stream; the only randomness in sim/. */
static inline uint64_t sim_rand64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 bits. */
static inline double sim_rand_unit(uint64_t *state)
{
	return (double)(sim_rand64(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Bytes per cycle as an integer count of thousandths (exact arithmetic). */
static inline uint64_t sim_rate_milli(double bytes_per_cycle)
{
	return bytes_per_cycle <= 0 ? 0 : (uint64_t)(bytes_per_cycle * 1000.0 + 0.5);
}

/* ---------------------------------------------------------- host memory */

struct hostmem_cfg {
	unsigned int bus_bytes;   /* DATA_WIDTH / 8 */
	unsigned int rd_latency;  /* >= 1 */
	unsigned int wr_latency;  /* >= 1 */
	uint64_t rd_bw_milli;     /* bytes per cycle * 1000 */
	uint64_t wr_bw_milli;
	unsigned int max_rd, max_wr;
};

#define HOSTMEM_ALIAS_BASE RNIC_SIM_ALIAS_BASE

struct hostmem;

struct hostmem *hostmem_create(const struct hostmem_cfg *cfg);
void hostmem_destroy(struct hostmem *m);
int hostmem_map(struct hostmem *m, void *va, size_t len);
/* Paged mapping (see hostmem.c): fills bus_pages[i] with the bus address of
 * the i-th 4 KiB page touched by [va, va + len). */
int hostmem_map_pages(struct hostmem *m, void *va, size_t len, uint64_t *bus_pages);
int hostmem_unmap(struct hostmem *m, void *va, size_t len);
void hostmem_drive(struct hostmem *m, uint64_t cycle, struct rnic_core_in *in);
void hostmem_edge(struct hostmem *m, uint64_t cycle, const struct rnic_core_in *in,
		  const struct rnic_core_out *out);
void hostmem_stats(const struct hostmem *m, struct rnic_sim_mem_stats *st);
uint64_t hostmem_faults(const struct hostmem *m, struct rnic_sim_fault *out, size_t max);
/* Non-zero while a burst is in flight (AR/AW accepted, R/B not finished). */
int hostmem_busy(const struct hostmem *m);

/* ------------------------------------------------------------ BAR master */

struct bar_master;

struct bar_master *bar_create(unsigned int latency);
void bar_destroy(struct bar_master *b);
/* Queue a posted write; it reaches the bus at cycle now + latency. */
int bar_post_write(struct bar_master *b, uint64_t now, uint32_t off, uint32_t val);
/* Queue a read; returns its ticket (> 0) or -ENOMEM. */
int64_t bar_post_read(struct bar_master *b, uint64_t now, uint32_t off);
/* 1 and *val once the read's data are back at the host (its bus response
 * plus the return latency), else 0. *err is set if RRESP was not OKAY. */
int bar_read_result(struct bar_master *b, int64_t ticket, uint64_t now, uint32_t *val,
		    int *err);
/* Non-zero while any operation is queued or awaits its response. */
int bar_busy(const struct bar_master *b);
void bar_drive(struct bar_master *b, uint64_t cycle, struct rnic_core_in *in);
void bar_edge(struct bar_master *b, uint64_t cycle, const struct rnic_core_in *in,
	      const struct rnic_core_out *out);
void bar_stats(const struct bar_master *b, struct rnic_sim_bar_stats *st);
void bar_count_error(struct bar_master *b);

/* ------------------------------------------------------------------ link */

struct link_cfg {
	unsigned int ports;
	unsigned int bus_bytes;  /* DATA_WIDTH / 8 */
	uint64_t rate_milli;     /* bytes per cycle * 1000 */
	unsigned int latency;
	unsigned int tx_fifo;    /* bytes */
	unsigned int pause_quanta; /* PAUSE time asked for; 0: no flow control */
	double p_drop, p_dup, p_reorder, p_corrupt;
	unsigned int reorder_hold_max;
	uint64_t seed;
};

/* Called at each frame's arrival at the far end of its sender's cable. */
typedef void (*link_frame_fn)(void *arg, int port, const uint8_t *frame, size_t len,
			      uint64_t cycle);

/* Decides, at the end of a frame's serialization at its sender's port,
 * whether the cable loses it (non-zero: lost, counted as dropped). */
typedef int (*link_drop_fn)(void *arg, unsigned int port, const uint8_t *frame, size_t len);

struct link;

#define LINK_WIRE_OVERHEAD (RNIC_ETH_PREAMBLE_BYTES + RNIC_ETH_FCS_BYTES + RNIC_ETH_IFG_BYTES)
#define LINK_MIN_FRAME RNIC_ETH_MIN_FRAME_BYTES /* without FCS */
#define LINK_MAX_FRAME 16384u

struct link *link_create(const struct link_cfg *cfg);
void link_destroy(struct link *l);
void link_set_frame_fn(struct link *l, link_frame_fn fn, void *arg);
/* fn sees each frame as its port's NIC takes the first beat of it. */
void link_set_rx_fn(struct link *l, link_frame_fn fn, void *arg);
void link_set_drop_fn(struct link *l, link_drop_fn fn, void *arg);
void link_drive(struct link *l, unsigned int port, uint64_t cycle, struct rnic_core_in *in);
void link_edge(struct link *l, unsigned int port, uint64_t cycle,
	       const struct rnic_core_in *in, const struct rnic_core_out *out);
/* Once per cycle after every port's edge: serialization, faults, delivery. */
void link_tick(struct link *l, uint64_t cycle);
int link_inject(struct link *l, unsigned int port, uint64_t cycle, const uint8_t *frame,
		size_t len);
void link_port_stats(const struct link *l, unsigned int port, struct rnic_sim_port_stats *st);
void link_stats(const struct link *l, struct rnic_sim_link_stats *st);
unsigned int link_rx_pending(const struct link *l, unsigned int port);
/* Non-zero while any frame is anywhere in the link. */
int link_busy(const struct link *l);

/* A port whose far end is outside the world: a frame reaching the far end
 * of its cable goes to fn (after the frame hook) instead of to a NIC. */
typedef void (*link_ext_fn)(void *arg, unsigned int port, const uint8_t *frame, size_t len);
void link_set_external(struct link *l, unsigned int port, link_ext_fn fn, void *arg);
/* A frame from outside into port's RX (frame hook port = -1 - port, as an
 * injected frame, but counted in rx_frames only once the core takes it). */
int link_ext_rx(struct link *l, unsigned int port, uint64_t cycle, const uint8_t *frame,
		size_t len);

/* ----------------------------------------------------------- UDP socket */

struct lsock;

/* Bind cfg->local, send to cfg->remote; NULL with err set on failure. */
struct lsock *lsock_open(const struct rnic_sim_udp_cfg *cfg, char *err, size_t errlen);
void lsock_close(struct lsock *s);
int lsock_fd(const struct lsock *s);
uint16_t lsock_local_port(const struct lsock *s);
void lsock_send(struct lsock *s, const uint8_t *frame, size_t len);
/* The next frame for the NIC (ARP requests for us are answered and
 * skipped), its length, or 0 when none is waiting. Never blocks. */
int lsock_recv(struct lsock *s, uint8_t *buf, size_t cap);
void lsock_stats(const struct lsock *s, struct rnic_sim_udp_stats *st);
/* poll() the sockets (NULL entries skipped) and extra_fd (if >= 0) for
 * input: 1 readable, 0 timeout, or -errno. */
int lsock_wait(struct lsock *const *socks, unsigned int n, int extra_fd, int timeout_ms);

/* ------------------------------------------------------------------ pcap */

struct pcap_cap;

/* One capture file for the whole wire, ns timestamps (cycle * 1000 / MHz). */
struct pcap_cap *pcap_cap_open(const char *path, unsigned int clock_mhz);
void pcap_cap_write(struct pcap_cap *c, uint64_t cycle, const uint8_t *frame, size_t len);
void pcap_cap_close(struct pcap_cap *c);
/* Call fn for every frame of a pcap file, in order. Returns the number of
 * frames, or -EIO (cannot open or read; a message goes to stderr), or the
 * first negative value fn returned. */
int pcap_read_frames(const char *path, int (*fn)(void *arg, const uint8_t *frame, size_t len),
		     void *arg);

/* ------------------------------------------------- memory protection */

/* The last frames on the wire (for violation reports), shared by a world. */
struct memcheck_frames;
struct memcheck_frames *memcheck_frames_create(void);
void memcheck_frames_destroy(struct memcheck_frames *fr);
void memcheck_frames_add(struct memcheck_frames *fr, int port, const uint8_t *frame, size_t len,
			 uint64_t cycle);
void memcheck_frames_print(const struct memcheck_frames *fr, int nic, FILE *out);

/* One NIC's checker (memcheck.c): a mirror of what the host granted the
 * device, from its command-mailbox traffic, and every DMA burst against it. */
struct memcheck;
struct memcheck *memcheck_create(int index, unsigned int bus_bytes, int fatal,
				 struct memcheck_frames *frames);
void memcheck_destroy(struct memcheck *m);
/* The host's BAR accesses, in the host's order (a read with its value). */
void memcheck_bar_write(struct memcheck *m, uint32_t off, uint32_t val);
void memcheck_bar_read(struct memcheck *m, uint32_t off, uint32_t val);
/* A frame the NIC starts to take from the wire (its requests open
 * windows). */
void memcheck_rx_frame(struct memcheck *m, const uint8_t *frame, size_t len);
/* The clock edge, after hostmem_edge, with the same pins. */
void memcheck_edge(struct memcheck *m, uint64_t cycle, const struct rnic_core_in *in,
		   const struct rnic_core_out *out);
void memcheck_stats(const struct memcheck *m, struct rnic_sim_memcheck_stats *st);
uint64_t memcheck_violations(const struct memcheck *m, struct rnic_sim_violation *out, size_t max);

#endif /* RNIC_SIM_INT_H */
