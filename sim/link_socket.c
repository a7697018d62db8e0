/* OpenRNIC simulator: one NIC's Ethernet port on a UDP socket.
 *
 * One datagram is one raw Ethernet frame (destination MAC first, no
 * preamble, no FCS), the convention of QEMU's `-netdev dgram` and
 * `-netdev socket,udp=`: a NIC attached here exchanges frames with a
 * virtual machine's network card (or with another simulator process).
 *
 * The socket also plays the part of the NIC's host network stack for ARP:
 * a request for the configured IPv4 address is answered with the configured
 * MAC at once, from the socket, and is not handed to the NIC (the data path
 * takes RoCEv2 only). Everything else received is handed to the NIC.
 *
 * The receive buffer is raised to LSOCK_RCVBUF: the peer sends bursts of
 * MTU-sized frames while the simulation, slower than the wall clock, reads
 * them only every few hundred cycles.
 */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/ethernet.h>
#include <net/if_arp.h>
#include <netdb.h>
#include <netinet/if_ether.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim_int.h"

#define LSOCK_RCVBUF (4 << 20)

struct lsock {
	int fd;
	struct sockaddr_storage remote;
	socklen_t remote_len;
	uint8_t mac[6];
	uint8_t ipv4[4];
	struct rnic_sim_udp_stats st;
};

/* "HOST:PORT" (IPv4 name or address) into a sockaddr. */
static int parse_addr(const char *s, struct sockaddr_storage *ss, socklen_t *len, char *err,
		      size_t errlen)
{
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM}, *ai;
	const char *colon = s ? strrchr(s, ':') : NULL;
	char host[256];
	int rc;

	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(host) || !colon[1]) {
		snprintf(err, errlen, "'%s' is not HOST:PORT", s ? s : "(null)");
		return -EINVAL;
	}
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = 0;
	rc = getaddrinfo(host, colon + 1, &hints, &ai);
	if (rc) {
		snprintf(err, errlen, "%s: %s", s, gai_strerror(rc));
		return -EINVAL;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

struct lsock *lsock_open(const struct rnic_sim_udp_cfg *cfg, char *err, size_t errlen)
{
	struct sockaddr_storage local;
	socklen_t local_len;
	struct lsock *s;
	int rcvbuf = LSOCK_RCVBUF;

	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->fd = -1;
	if (parse_addr(cfg->local, &local, &local_len, err, errlen) ||
	    parse_addr(cfg->remote, &s->remote, &s->remote_len, err, errlen))
		goto fail;
	memcpy(s->mac, cfg->mac, 6);
	memcpy(s->ipv4, cfg->ipv4, 4);
	s->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&local, local_len)) {
		snprintf(err, errlen, "bind %s: %s", cfg->local, strerror(errno));
		goto fail;
	}
	/* best effort: the kernel caps it at net.core.rmem_max */
	setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &rcvbuf, sizeof(rcvbuf));
	return s;
fail:
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	return NULL;
}

void lsock_close(struct lsock *s)
{
	if (!s)
		return;
	close(s->fd);
	free(s);
}

int lsock_fd(const struct lsock *s)
{
	return s->fd;
}

uint16_t lsock_local_port(const struct lsock *s)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	if (getsockname(s->fd, (struct sockaddr *)&sin, &len))
		return 0;
	return ntohs(sin.sin_port);
}

void lsock_send(struct lsock *s, const uint8_t *frame, size_t len)
{
	ssize_t n = sendto(s->fd, frame, len, 0, (struct sockaddr *)&s->remote, s->remote_len);

	if (n == (ssize_t)len) {
		s->st.tx_frames++;
		s->st.tx_bytes += len;
	} else {
		/* nobody listening yet (ECONNREFUSED from an earlier send), or a
		 * full socket buffer: the frame is lost, as on a wire */
		s->st.tx_errors++;
	}
}

/* An ARP request for our address: answer it from the socket. 1 if it was one. */
static int arp_answer(struct lsock *s, const uint8_t *f, size_t len)
{
	const struct ether_header *eh = (const void *)f;
	const struct ether_arp *rq = (const void *)(f + sizeof(*eh));
	uint8_t out[sizeof(struct ether_header) + sizeof(struct ether_arp)];
	struct ether_header *oh = (void *)out;
	struct ether_arp *rp = (void *)(out + sizeof(*oh));

	if (len < sizeof(out) || ntohs(eh->ether_type) != ETHERTYPE_ARP)
		return 0;
	if (ntohs(rq->arp_hrd) != ARPHRD_ETHER || ntohs(rq->arp_pro) != ETHERTYPE_IP ||
	    rq->arp_hln != ETH_ALEN || rq->arp_pln != 4)
		return 1; /* ARP, but not for IPv4 over Ethernet: dropped */
	if (ntohs(rq->arp_op) != ARPOP_REQUEST || !memcmp(s->ipv4, "\0\0\0\0", 4) ||
	    memcmp(rq->arp_tpa, s->ipv4, 4))
		return 1;
	memcpy(oh->ether_dhost, rq->arp_sha, ETH_ALEN);
	memcpy(oh->ether_shost, s->mac, ETH_ALEN);
	oh->ether_type = htons(ETHERTYPE_ARP);
	rp->arp_hrd = htons(ARPHRD_ETHER);
	rp->arp_pro = htons(ETHERTYPE_IP);
	rp->arp_hln = ETH_ALEN;
	rp->arp_pln = 4;
	rp->arp_op = htons(ARPOP_REPLY);
	memcpy(rp->arp_sha, s->mac, ETH_ALEN);
	memcpy(rp->arp_spa, s->ipv4, 4);
	memcpy(rp->arp_tha, rq->arp_sha, ETH_ALEN);
	memcpy(rp->arp_tpa, rq->arp_spa, 4);
	lsock_send(s, out, sizeof(out));
	s->st.arp_replies++;
	return 1;
}

int lsock_recv(struct lsock *s, uint8_t *buf, size_t cap)
{
	for (;;) {
		ssize_t n = recv(s->fd, buf, cap, MSG_TRUNC);

		if (n < 0) {
			/* ECONNREFUSED: an ICMP error for an earlier send */
			if (errno == EINTR || errno == ECONNREFUSED)
				continue;
			return 0;
		}
		if ((size_t)n > cap || (size_t)n < sizeof(struct ether_header)) {
			s->st.rx_bad++;
			continue;
		}
		if (arp_answer(s, buf, (size_t)n))
			continue;
		s->st.rx_frames++;
		s->st.rx_bytes += (uint64_t)n;
		return (int)n;
	}
}

void lsock_stats(const struct lsock *s, struct rnic_sim_udp_stats *st)
{
	*st = s->st;
}

int lsock_wait(struct lsock *const *socks, unsigned int n, int extra_fd, int timeout_ms)
{
	struct pollfd pfd[RNIC_SIM_MAX_NICS + 1];
	unsigned int k = 0;
	int rc;

	for (unsigned int i = 0; i < n && k < RNIC_SIM_MAX_NICS; i++) {
		if (!socks[i])
			continue;
		pfd[k].fd = socks[i]->fd;
		pfd[k].events = POLLIN;
		k++;
	}
	if (extra_fd >= 0) {
		pfd[k].fd = extra_fd;
		pfd[k].events = POLLIN;
		k++;
	}
	do
		rc = poll(pfd, k, timeout_ms);
	while (rc < 0 && errno == EINTR);
	return rc < 0 ? -errno : rc > 0;
}
