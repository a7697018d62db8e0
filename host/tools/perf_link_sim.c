/* rnic-perf --sim-link: the NIC of a peer session (perf_link.h) simulated,
 * its Ethernet port a UDP socket (rnic_sim_attach_udp).
 *
 * Time: the peer runs on the wall clock, the NIC in simulated cycles, far
 * slower. While the session waits for the peer's TCP message (idle) the
 * world runs as long as anything moves in it (and QUIET_CYCLES more), then
 * blocks in rnic_sim_udp_wait with simulated time standing still until a
 * frame or the TCP message arrives. While the session is the requester it
 * calls progress, so the world runs without pause, and the NIC's ACK timer
 * runs too and recovers lost frames.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_link.h"
#include "rnic/verbs.h"
#include "rnic_sim.h"

#define QUIET_CYCLES 25000u  /* run this long after the last activity before blocking */
#define STEP_CYCLES 256u

struct simnic {
	const struct perf_link_opts *o;
	struct rnic_world *w;
	uint64_t last_busy;
	char device[64];
};

static uint64_t sim_now(void *arg)
{
	struct simnic *s = arg;

	return rnic_world_cycle(s->w);
}

static void sim_progress(void *arg, uint64_t ticks)
{
	struct simnic *s = arg;

	rnic_world_step(s->w, ticks);
}

static int sim_idle(void *arg, int fd, int ms)
{
	struct simnic *s = arg;

	if (rnic_world_busy(s->w) || rnic_sim_rx_pending(s->w, 0)) {
		rnic_world_step(s->w, STEP_CYCLES);
		s->last_busy = rnic_world_cycle(s->w);
	} else if (rnic_world_cycle(s->w) - s->last_busy < QUIET_CYCLES) {
		rnic_world_step(s->w, STEP_CYCLES);
	} else {
		int r = rnic_sim_udp_wait(s->w, fd, ms);

		if (r < 0)
			return r;
		if (r > 0)
			s->last_busy = rnic_world_cycle(s->w);
	}
	return 0;
}

static void sim_frame_hook(void *arg, void (*fn)(void *, int, const uint8_t *, size_t, uint64_t), void *fn_arg)
{
	struct simnic *s = arg;

	rnic_world_set_frame_hook(s->w, fn, fn_arg);
}

static uint64_t sim_faults(void *arg)
{
	struct simnic *s = arg;

	return rnic_sim_nic_faults(rnic_world_nic(s->w, 0), NULL, 0);
}

static void sim_link_line(void *arg, uint64_t accepted, int failed)
{
	struct simnic *s = arg;
	struct rnic_sim_udp_stats us;
	struct rnic_sim_link_stats ls;

	rnic_sim_udp_stats(s->w, 0, &us);
	rnic_world_link_stats(s->w, &ls);
	printf(" link: %" PRIu64 " frames sent, %" PRIu64 " lost (--drop), %" PRIu64 " received, %" PRIu64
	       " ARP replies; the peer's request packets in PSN order: %" PRIu64 "; verified: %s\n",
	       us.tx_frames, ls.dropped, us.rx_frames, us.arp_replies, accepted, failed ? "NO" : "yes");
}

static void sim_release(void *arg)
{
	struct simnic *s = arg;

	if (s->w)
		rnic_world_destroy(s->w);
	free(s);
}

int perf_nic_open_sim(struct perf_nic *nic, const struct perf_link_opts *o)
{
	struct simnic *s = calloc(1, sizeof(*s));
	struct rnic_sim_cfg cfg;
	struct rnic_sim_udp_cfg uc;
	union rnic_gid gid;
	int e;

	memset(nic, 0, sizeof(*nic));
	if (!s) {
		fprintf(stderr, "rnic-perf: out of memory\n");
		return 1;
	}
	s->o = o;
	nic->arg = s;
	nic->release = sim_release;
	rnic_sim_cfg_default(&cfg);
	cfg.num_nics = 1;
	cfg.data_width = (unsigned)o->width;
	cfg.seed = o->seed;
	cfg.pcap_path = o->pcap;
	cfg.p_drop = o->drop;
	s->w = rnic_world_create(&cfg);
	if (!s->w) {
		fprintf(stderr, "rnic-perf: simulator: %s\n", strerror(errno));
		return 1;
	}
	memset(&uc, 0, sizeof(uc));
	uc.local = o->local;
	uc.remote = o->remote;
	memcpy(uc.mac, o->mac, 6);
	memcpy(uc.ipv4, o->ip, 4);
	e = rnic_sim_attach_udp(s->w, 0, &uc);
	if (e) {
		fprintf(stderr, "rnic-perf: --sim-link: %s\n", strerror(-e));
		return 1;
	}
	nic->ctx = rnic_open_sim(s->w, 0);
	if (!nic->ctx) {
		fprintf(stderr, "rnic-perf: open_sim: %s\n", strerror(errno));
		return 1;
	}
	rnic_gid_from_ipv4(&gid, o->ip);
	if ((e = rnic_set_port_mac(nic->ctx, o->mac)) || (e = rnic_set_gid(nic->ctx, 0, &gid))) {
		fprintf(stderr, "rnic-perf: port address: %s\n", strerror(e));
		return 1;
	}
	snprintf(s->device, sizeof(s->device), "the simulated NIC's UDP link %s -> %s", o->local, o->remote);
	nic->device = s->device;
	nic->tick_mhz = rnic_world_cfg(s->w)->clock_mhz;
	nic->now = sim_now;
	nic->progress = sim_progress;
	nic->quiet_ticks = QUIET_CYCLES;
	nic->idle = sim_idle;
	nic->sim_frame_hook = sim_frame_hook;
	nic->sim_faults = sim_faults;
	nic->sim_link_line = sim_link_line;
	return 0;
}
