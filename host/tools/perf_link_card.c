/* rnic-perf against a card: the NIC of a peer session (perf_link.h) is an
 * OpenRNIC opened through the pci backend. The card runs by itself: the
 * session has nothing to step (no progress call) and polls its
 * completions; times are the wall clock's (CLOCK_MONOTONIC, ns). Its port's
 * MAC and GID 0 are the card's own unless --mac or --ip set them. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf_link.h"
#include "rnic/pci.h"
#include "rnic/verbs.h"

struct cardnic {
	char device[192];
};

static uint64_t card_now(void *arg)
{
	struct timespec t;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void card_release(void *arg)
{
	free(arg);
}

int perf_nic_open_card(struct perf_nic *nic, const struct perf_link_opts *o, const char *role)
{
	struct cardnic *c;
	struct rnic_pci_attr pa;
	struct rnic_device_attr da;
	union rnic_gid g;
	char where[64];
	static const uint8_t zero[16];
	int e;

	memset(nic, 0, sizeof(*nic));
	nic->ctx = rnic_open_pci(NULL);
	if (!nic->ctx) {
		/* the library has said what is missing and why */
		fprintf(stderr, "rnic-perf: %s: cannot open an OpenRNIC: %s\n", role, strerror(errno));
		return 1;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		fprintf(stderr, "rnic-perf: out of memory\n");
		return 1;
	}
	nic->arg = c;
	nic->release = card_release;
	if (o->mac_set && (e = rnic_set_port_mac(nic->ctx, o->mac))) {
		fprintf(stderr, "rnic-perf: --mac: %s\n", strerror(e));
		return 1;
	}
	if (o->ip_set) {
		rnic_gid_from_ipv4(&g, o->ip);
		if ((e = rnic_set_gid(nic->ctx, 0, &g))) {
			fprintf(stderr, "rnic-perf: --ip: %s\n", strerror(e));
			return 1;
		}
	}
	if ((e = rnic_query_gid(nic->ctx, 1, 0, &g))) {
		fprintf(stderr, "rnic-perf: query_gid 0: %s\n", strerror(e));
		return 1;
	}
	if (!memcmp(g.raw, zero, 16)) {
		fprintf(stderr, "rnic-perf: the card's GID 0 is not set: give --ip A.B.C.D\n");
		return 1;
	}
	if ((e = rnic_query_device(nic->ctx, &da))) {
		fprintf(stderr, "rnic-perf: query_device: %s\n", strerror(e));
		return 1;
	}
	if (rnic_pci_query(nic->ctx, &pa) == 0)
		snprintf(where, sizeof(where), "the card at %s (%s DMA)", pa.bdf, pa.dma_mode);
	else
		snprintf(where, sizeof(where), "the card");
	/* the port's address as the peer's neighbour entry and GID need it */
	snprintf(c->device, sizeof(c->device),
		 "%s, MAC %02x:%02x:%02x:%02x:%02x:%02x, GID %x:%x:%x:%x:%x:%x:%x:%x", where, da.mac[0], da.mac[1],
		 da.mac[2], da.mac[3], da.mac[4], da.mac[5], g.raw[0] << 8 | g.raw[1], g.raw[2] << 8 | g.raw[3],
		 g.raw[4] << 8 | g.raw[5], g.raw[6] << 8 | g.raw[7], g.raw[8] << 8 | g.raw[9],
		 g.raw[10] << 8 | g.raw[11], g.raw[12] << 8 | g.raw[13], g.raw[14] << 8 | g.raw[15]);
	nic->device = c->device;
	nic->tick_mhz = 1000;
	nic->now = card_now;
	return 0;
}

void perf_nic_close(struct perf_nic *nic)
{
	if (nic->ctx)
		rnic_close_device(nic->ctx);
	if (nic->release)
		nic->release(nic->arg);
	memset(nic, 0, sizeof(*nic));
}
