/* rnic-rping: rping (rdma-core's librdmacm/examples/rping.c) on an OpenRNIC,
 * a drop-in peer for a stock `rping -s` / `rping -c` (Debian's
 * rdmacm-utils): rping's options, exchange and data pattern
 * (host/tools/rping.c), the connection manager over the NIC's QP1
 * (<rnic/rnic_cm.h>). The NIC is the card (the pci backend) or, with
 * --sim-link, a simulated NIC whose Ethernet port is a UDP socket (the link
 * rnic-perf --sim-link uses: QEMU's -netdev dgram, or another rnic-rping).
 *
 *   rnic-rping -s [-a ADDR] [-p PORT] [-C COUNT] [-S SIZE] [-v] [-V] [-d] LINK
 *   rnic-rping -c -a ADDR [-I SRC] [-p PORT] [-C COUNT] [-S SIZE] [-v] [-V] [-d] LINK
 *   LINK: [--peer-mac MAC] [--peer-ip A.B.C.D] [--ip A.B.C.D] [--mac MAC]
 *         [--sim-link udp:LHOST:LPORT,RHOST:RPORT [--width 64|512] [--pcap FILE]]
 *
 * The library has no ARP: --peer-mac is the peer's MAC, the default next
 * hop of the CM's neighbour table, which a client needs for its REQ. A
 * server answers through the source MAC of the REQ's frame (the receive
 * completion carries it) and needs none. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf_link.h"
#include "rnic/rnic_cm.h"
#include "rping.h"

#define DEFAULT_PORT 7174
#define DEFAULT_SIZE 64
#define STEP_CYCLES 256

/* --help on stdout; a usage error on stderr */
static void usage(FILE *f)
{
	fprintf(f,
		"usage: rnic-rping -s|-c [options]\n"
		"  -s                 server (listens on -a, or on every address)\n"
		"  -c                 client (connects to -a)\n"
		"  -a A.B.C.D         server: address to bind; client: the server's address\n"
		"  -I A.B.C.D         client: source address (default: --ip)\n"
		"  -p PORT            port (default %d)\n"
		"  -C COUNT           client: pings (default: until interrupted)\n"
		"  -S SIZE            ping size, %d..%d (default %d)\n"
		"  -v                 print each ping's data\n"
		"  -V                 validate each ping's data (client)\n"
		"  -d                 debug: the CM's events and the carrier's counters\n"
		"  --peer-mac MAC     the peer's MAC (a client needs it: the library has no ARP;\n"
		"                     a server answers through the source MAC of the REQ)\n"
		"  --peer-ip A.B.C.D  the only address --peer-mac is for (default: every address)\n"
		"  --ip A.B.C.D       our address, GID 0 (a card: default its own GID 0;\n"
		"                     --sim-link: default -a for a server, -I for a client)\n"
		"  --mac MAC          our MAC (--sim-link default 02:00:00:00:00:0b; a card: its own)\n"
		"  --sim-link udp:LHOST:LPORT,RHOST:RPORT  a simulated NIC on this UDP link\n"
		"  --width 64|512     --sim-link: the core's data-path width (default 64)\n"
		"  --pcap FILE        --sim-link: capture the link\n"
		"  --timeout S        give up after S seconds of wall time (default 300)\n",
		DEFAULT_PORT, RPING_MIN_SIZE, RPING_MAX_SIZE, DEFAULT_SIZE);
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
		return -1;
	for (int i = 0; i < 6; i++) {
		if (b[i] > 255)
			return -1;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

static int parse_ip(const char *s, uint8_t ip[4])
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -1;
	memcpy(ip, &a.s_addr, 4);
	return 0;
}

static int parse_int(const char *s, long lo, long hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static struct sockaddr_in ip4(const uint8_t ip[4], uint16_t port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	memcpy(&a.sin_addr.s_addr, ip, 4);
	return a;
}

static double wall_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"peer-mac", required_argument, NULL, 'M'}, {"peer-ip", required_argument, NULL, 'R'},
		{"ip", required_argument, NULL, 'i'},       {"mac", required_argument, NULL, 'm'},
		{"sim-link", required_argument, NULL, 'L'}, {"width", required_argument, NULL, 'w'},
		{"pcap", required_argument, NULL, 'f'},     {"timeout", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
	struct perf_link_opts o;
	struct perf_nic nic;
	int server = -1, port = DEFAULT_PORT, count = 0, size = DEFAULT_SIZE, verbose = 0, validate = 0, debug = 0;
	int timeout_s = 300, have_a = 0, have_peer_ip = 0, have_peer_mac = 0, c, rc = 1, err;
	uint8_t a_ip[4] = {0}, src_ip[4] = {0}, peer_ip[4] = {0}, zero[4] = {0};
	static char link[256];
	struct rnic_cm_channel_attr ca;
	struct rnic_cm_event_channel *ch = NULL;
	static struct rping r;
	struct sockaddr_in addr, peer;
	int shown = 0, sim;
	double t0;

	memset(&o, 0, sizeof(o));
	o.width = 64;
	o.seed = 1;
	memcpy(o.mac, (uint8_t[6]){0x02, 0, 0, 0, 0, 0x0b}, 6);
	while ((c = getopt_long(argc, argv, "sca:I:p:C:S:vVdqP", lopts, NULL)) != -1) {
		switch (c) {
		case 's': server = 1; break;
		case 'c': server = 0; break;
		case 'a':
			if (parse_ip(optarg, a_ip)) {
				fprintf(stderr, "rnic-rping: -a %s: an IPv4 address please\n", optarg);
				return 2;
			}
			have_a = 1;
			break;
		case 'I':
			if (parse_ip(optarg, src_ip)) {
				fprintf(stderr, "rnic-rping: -I %s: an IPv4 address please\n", optarg);
				return 2;
			}
			break;
		case 'p':
			if (parse_int(optarg, 1, 65535, &port)) {
				fprintf(stderr, "rnic-rping: -p %s: a port please\n", optarg);
				return 2;
			}
			break;
		case 'C':
			if (parse_int(optarg, 1, 0x7fffffff, &count)) {
				fprintf(stderr, "rnic-rping: -C %s: a count of at least 1 please\n", optarg);
				return 2;
			}
			break;
		case 'S':
			if (parse_int(optarg, RPING_MIN_SIZE, RPING_MAX_SIZE, &size)) {
				fprintf(stderr, "rnic-rping: -S %s: a size in %d..%d please\n", optarg, RPING_MIN_SIZE,
					RPING_MAX_SIZE);
				return 2;
			}
			break;
		case 'v': verbose++; break;
		case 'V': validate = 1; break;
		case 'd': debug = 1; break;
		case 'q': case 'P': break; /* rping's quiet and persistent: accepted, one connection */
		case 'M':
			if (parse_mac(optarg, o.peer_mac)) {
				fprintf(stderr, "rnic-rping: --peer-mac %s: xx:xx:xx:xx:xx:xx please\n", optarg);
				return 2;
			}
			have_peer_mac = 1;
			break;
		case 'R':
			if (parse_ip(optarg, peer_ip)) {
				fprintf(stderr, "rnic-rping: --peer-ip %s: an IPv4 address please\n", optarg);
				return 2;
			}
			have_peer_ip = 1;
			break;
		case 'i':
			if (parse_ip(optarg, o.ip)) {
				fprintf(stderr, "rnic-rping: --ip %s: an IPv4 address please\n", optarg);
				return 2;
			}
			o.ip_set = 1;
			break;
		case 'm':
			if (parse_mac(optarg, o.mac)) {
				fprintf(stderr, "rnic-rping: --mac %s: xx:xx:xx:xx:xx:xx please\n", optarg);
				return 2;
			}
			o.mac_set = 1;
			break;
		case 'L': {
			char *comma;

			if (strncmp(optarg, "udp:", 4) || strlen(optarg + 4) >= sizeof(link) ||
			    !(comma = strchr(strcpy(link, optarg + 4), ',')) || comma == link || !comma[1]) {
				fprintf(stderr, "rnic-rping: --sim-link %s: udp:LHOST:LPORT,RHOST:RPORT please\n",
					optarg);
				return 2;
			}
			*comma = 0;
			o.local = link;
			o.remote = comma + 1;
			break;
		}
		case 'w':
			if (parse_int(optarg, 64, 512, &o.width) || (o.width != 64 && o.width != 512)) {
				fprintf(stderr, "rnic-rping: --width: 64 or 512\n");
				return 2;
			}
			break;
		case 'f': o.pcap = optarg; break;
		case 't':
			if (parse_int(optarg, 1, 86400, &timeout_s)) {
				fprintf(stderr, "rnic-rping: --timeout %s: seconds please\n", optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || server < 0) {
		usage(stderr);
		return 2;
	}
	if (!server && !have_a) {
		fprintf(stderr, "rnic-rping: a client needs -a (the server's address)\n");
		return 2;
	}
	if (!server && !have_peer_mac) {
		fprintf(stderr, "rnic-rping: a client needs --peer-mac (the library has no ARP)\n");
		return 2;
	}
	sim = o.local != NULL;
	if (!o.ip_set) {
		const uint8_t *own = server ? a_ip : src_ip;

		if (sim && memcmp(own, zero, 4) == 0) {
			fprintf(stderr, "rnic-rping: --sim-link needs our address: --ip, or -a (server) / -I (client)\n");
			return 2;
		}
		if (memcmp(own, zero, 4)) {
			memcpy(o.ip, own, 4);
			o.ip_set = 1;
		}
	}
	if (!sim && (o.pcap || o.width != 64)) {
		fprintf(stderr, "rnic-rping: --pcap and --width go with --sim-link\n");
		return 2;
	}
	if (sim ? perf_nic_open_sim(&nic, &o) : perf_nic_open_card(&nic, &o, server ? "server" : "client"))
		return 1;
	if (debug)
		fprintf(stderr, "rnic-rping: %s\n", nic.device ? nic.device : "the NIC");

	memset(&ca, 0, sizeof(ca));
	ca.context = nic.ctx; /* no transport: the CM runs over the NIC's QP1 */
	ch = rnic_cm_create_event_channel(&ca);
	if (!ch) {
		fprintf(stderr, "rnic-rping: rnic_cm_create_event_channel: %s\n", strerror(errno));
		goto out;
	}
	/* the peer's MAC is the default next hop (the entry of 0.0.0.0); a
	 * server without one answers through the REQ's source MAC */
	peer = ip4(have_peer_ip ? peer_ip : zero, 0);
	if (have_peer_mac && (err = rnic_cm_set_neighbour(ch, (struct sockaddr *)&peer, o.peer_mac))) {
		fprintf(stderr, "rnic-rping: rnic_cm_set_neighbour: %s\n", strerror(err));
		goto out;
	}
	addr = ip4(a_ip, (uint16_t)port);
	err = server ? rping_start_server(&r, ch, (struct sockaddr *)&addr, size)
		     : rping_start_client(&r, ch, (struct sockaddr *)&addr, size, count, validate);
	if (err) {
		fprintf(stderr, "rnic-rping: %s: %s\n", server ? "listen" : "connect",
			r.err[0] ? r.err : strerror(err));
		goto out;
	}
	if (server) {
		/* a harness starting the client waits for this line */
		printf("rnic-rping: server: listening on %s port %d\n", inet_ntoa(addr.sin_addr), port);
		fflush(stdout);
	}
	t0 = wall_s();
	for (;;) {
		int over = rping_poll(&r);

		/* rping -v: the client shows each ping it got back, the server
		 * each ping it read */
		if (verbose && r.pings > shown) {
			printf(server ? "server ping data: %s\n" : "ping data: %s\n", r.last);
			fflush(stdout);
			shown = r.pings;
		}
		if (over)
			break;
		if (wall_s() - t0 > timeout_s) {
			fprintf(stderr, "rnic-rping: no end after %d s (state %d, %d pings)\n", timeout_s, r.state,
				r.pings);
			goto out;
		}
		if (nic.progress) {
			/* the simulated NIC runs while there is something to do,
			 * else waits for the link a millisecond at a time (the CM's
			 * timers are on the wall clock) */
			if (nic.idle(nic.arg, -1, 1) < 0)
				goto out;
		}
	}
	if (r.state == RPING_ERROR) {
		fprintf(stderr, "rnic-rping: %s\n", r.err);
		goto out;
	}
	if (!server && count && r.pings != count) {
		fprintf(stderr, "rnic-rping: %d of %d pings\n", r.pings, count);
		goto out;
	}
	if (debug) {
		struct rnic_cm_gsi_stats st;

		rnic_cm_gsi_get_stats(rnic_cm_channel_gsi(ch), &st);
		fprintf(stderr, "rnic-rping: QP1: %llu MADs sent, %llu received, %llu dropped, %llu send errors\n",
			(unsigned long long)st.sent, (unsigned long long)st.received,
			(unsigned long long)st.recv_dropped, (unsigned long long)st.send_errors);
	}
	printf("rnic-rping: %s: %d pings of %d bytes%s, %.1f s\n", server ? "server" : "client", r.pings, size,
	       validate && !server ? ", validated" : "", wall_s() - t0);
	rc = 0;
out:
	rping_close(&r);
	if (ch && (err = rnic_cm_destroy_event_channel(ch)))
		fprintf(stderr, "rnic-rping: rnic_cm_destroy_event_channel: %s\n", strerror(err));
	perf_nic_close(&nic);
	return rc;
}
