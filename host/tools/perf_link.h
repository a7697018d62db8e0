/* rnic-perf --sim-link: one side of a perftest run on a simulated NIC whose
 * Ethernet port is a UDP socket (rnic_sim_attach_udp), the other side a
 * stock perftest (ib_write_bw ...) on a Linux rdma_rxe device at the far end
 * of that socket (a QEMU guest's -netdev dgram), met through perftest's
 * out-of-band exchange on TCP (perf_oob.h). See perf_link.c for what each
 * test does and checks. */
#ifndef RNIC_TOOLS_PERF_LINK_H
#define RNIC_TOOLS_PERF_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "perf_oob.h"

struct perf_link_opts {
	enum perf_test test;
	size_t size;
	uint64_t iters;
	uint32_t mtu;           /* RNIC_IB_MTU_* we offer; the smaller one wins */
	int tx_depth;
	uint16_t port;          /* TCP port of the exchange */
	const char *host;       /* NULL: server (listen); else the server to connect to */
	const char *local;      /* UDP HOST:PORT of the NIC's port */
	const char *remote;     /* UDP HOST:PORT of the peer's (QEMU's) end */
	uint8_t mac[6];         /* the NIC's MAC */
	uint8_t ip[4];          /* the NIC's IPv4 address: GID ::ffff:ip, ARP */
	uint8_t peer_mac[6];    /* the peer's MAC (the static neighbour) */
	uint8_t timeout;        /* local ACK timeout code */
	int width;              /* 64 or 512 */
	uint64_t seed;
	const char *pcap;       /* capture of both directions, or NULL */
	double drop;            /* probability that the NIC's link loses a frame it sends */
	unsigned int wall_limit;/* seconds the whole run may take */
};

/* Run it; prints the result table on stdout, problems on stderr. 0 when
 * the exchange completed and every check passed, else 1. */
int perf_link_run(const struct perf_link_opts *o);

#endif
