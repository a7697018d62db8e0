/* rnic-perf: perftest's ib_{write,read,send}_{bw,lat} and ib_atomic_bw on
 * OpenRNIC, with perftest's options where they mean the same and its
 * result table.
 *
 *   --sim      both sides inside one simulation (two NICs back to back); every
 *              time is counted in simulated cycles and reported at the stated
 *              clock, never measured on the wall clock;
 *   a card     server without a host name, client with one: perftest's
 *              out-of-band exchange (perf_oob.h) on port -p, so that a stock
 *              perftest on a Linux host can be the peer; the card opened
 *              through the pci backend runs the peer session (perf_link.c);
 *   --sim-link the same peer session on a simulated NIC whose Ethernet port
 *              is a UDP socket (perf_link_sim.c).
 *
 * Every run checks its data (the destination byte for byte; atomics'
 * returned and final values) and every completion; a failure exits 1.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_link.h"
#include "perf_oob.h"
#include "rnic/pci.h"
#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"
#include "stream.h"

#define RESULT_LINE "---------------------------------------------------------------------------------------\n"
#define RESULT_FMT_BW " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
#define RESULT_FMT_LAT " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    " \
		       "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
#define SIM_ALL_MAX (1u << 20) /* -a in simulation: 2 B .. 1 MiB */
#define SIM_ALL_BYTES (16u << 20) /* -a in simulation: about this many bytes per size */
#define ACK_TIMEOUT 5
#define OPT_USE_SRQ 0x100 /* long options without a short form */
#define OPT_SIM 0x101
#define OPT_MW 0x102
#define SIM_BUF_MAX (64u << 20) /* --sim: slots of each side, bytes (fewer messages in flight) */

struct perf_opts {
	enum perf_test test;
	size_t size;
	int size_set;
	uint64_t iters;
	int iters_set;
	unsigned mtu_bytes;
	int qps;
	int all;
	int use_srq;
	int ud;                 /* -c UD */
	int mcg;                /* -g */
	int rdma_cm;            /* -R */
	int mw;                 /* --mw: 0, 1 or 2 */
	uint8_t mgid[16];       /* -M */
	int mgid_set;
	uint32_t inline_size;
	uint16_t port;
	int tx_depth;
	const char *json;
	int width;
	uint64_t seed;
	int sim;
	struct rnic_sim_cfg model; /* --sim: the host and link model (defaults follow the width) */
	int model_set;
	const char *host;
	/* --sim-link */
	const char *link_local, *link_remote;
	uint8_t mac[6], ip[4], peer_mac[6];
	int peer_mac_set, mac_set, ip_set;
	int timeout;
	const char *pcap;
	unsigned int time_limit;
	double drop;
};

struct perf_row {
	size_t bytes;
	uint64_t iters;
	uint64_t cycles;
	/* bw */
	double bw_peak, bw_avg, msg_rate; /* MB/s (2^20 B), Mpps */
	/* lat, us */
	double t_min, t_max, t_typical, t_avg, t_stdev, t_p99, t_p999;
};

static const char *const titles[PERF_NTESTS] = {
	[PERF_WRITE_BW] = "RDMA_Write BW Test",   [PERF_WRITE_LAT] = "RDMA_Write Latency Test",
	[PERF_READ_BW] = "RDMA_Read BW Test",     [PERF_READ_LAT] = "RDMA_Read Latency Test",
	[PERF_SEND_BW] = "Send BW Test",          [PERF_SEND_LAT] = "Send Latency Test",
	[PERF_ATOMIC_BW] = "Atomic FETCH_AND_ADD BW Test",
};

static uint32_t mtu_code(unsigned bytes)
{
	for (uint32_t c = RNIC_IB_MTU_256; c <= RNIC_IB_MTU_4096; c++)
		if (bytes == 128u << c)
			return c;
	return 0;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s TEST [options] [--sim | SERVER]\n"
		"TEST: write_bw write_lat read_bw read_lat send_bw send_lat atomic_bw\n"
		"  -s, --size N         message size (bw: 65536, lat: 2, atomic: 8)\n"
		"  -n, --iters N        messages (bw: 5000, with --sim 64; lat: 1000)\n"
		"  -m, --mtu N          IB MTU 256|512|1024|2048|4096 (1024)\n"
		"  -q, --qp N           QPs (1..%d; against perftest at most %d, each -n messages,\n"
		"                       as perftest; --sim: the messages split round robin)\n"
		"  -a, --all            every size 2 B .. 8 MiB by powers of two (--sim and\n"
		"                       --sim-link: to 1 MiB, the simulation's cap; --sim at most -n\n"
		"                       and about 16 MiB per size; a card: to 8 MiB)\n"
		"  -I, --inline_size N  WRITE/SEND of at most N bytes go inline (0..%u; 0)\n"
		"  -c, --connection RC|UD  transport (RC); UD: send_bw, send_lat against perftest (a card or\n"
		"                       --sim-link), messages of at most the MTU, as perftest's -c UD\n"
		"  -g, --mcg            UD to a multicast group (send_bw, send_lat against perftest; one\n"
		"                       QP; implies -c UD), as perftest's -g: the receiving side joins\n"
		"                       the group and names it in its key\n"
		"  -M, --MGID G         -g's group as perftest writes it, 16 bytes with ':' between\n"
		"                       (0:0:0:0:0:0:0:0:0:0:255:255:239:1:1:1; perftest's own,\n"
		"                       ff01:0:0:2:c985::, is IPv6 and this port's address IPv4)\n"
		"      --use-srq        send_bw's receives from one shared receive queue for all QPs\n"
		"                       (against perftest: a card or --sim-link)\n"
		"  -p, --port N         TCP port of the out-of-band exchange (18515); -R: the CM's port\n"
		"  -R, --rdma_cm        as perftest's -R: no TCP; the exchange runs over an RC QP the\n"
		"                       RDMA CM connects, and so is every QP (RC only; SERVER is then\n"
		"                       the server's IPv4 address on the link)\n"
		"  -t, --tx-depth N     send WQEs kept posted per QP (bw: 128; lat: 1)\n"
		"      --mw 1|2         the peer reaches our buffer (--sim: the responder's) through a\n"
		"                       memory window of type 1 (rnic_bind_mw) or 2 (a BIND_MW WQE),\n"
		"                       one per QP, bound over the buffer with the test's one right,\n"
		"                       its rkey in our key; the MR grants no remote access\n"
		"                       (write_bw, read_bw, atomic_bw, write_lat, read_lat; RC)\n"
		"      --json FILE      the result rows as JSON as well, a row per size\n"
		"      --width 64|512   --sim: data path width (64: 10 Gb/s link, 512: 100 Gb/s; 512)\n"
		"      --seed N         --sim: seed of the data patterns and the simulation (1)\n"
		"      --sim            both sides in one simulation; times in simulated cycles at\n"
		"                       the stated clock\n"
		"--sim: the host and link model (the defaults follow --width)\n",
		prog, SIM_PAIR_MAX_QPS, OOB_MAX_QPS, RNIC_MAX_INLINE_BYTES);
	rnic_sim_model_help(f, 6, 23);
	fprintf(f,
		"      --sim-link udp:LHOST:LPORT,RHOST:RPORT\n"
		"                       our side on a simulated NIC whose Ethernet port is a UDP\n"
		"                       socket bound to LHOST:LPORT, sending to RHOST:RPORT (one\n"
		"                       datagram per frame: QEMU's -netdev dgram); the peer is a\n"
		"                       stock perftest (server without SERVER, client with it)\n"
		"      --peer-mac MAC   against perftest (a card, --sim-link): the peer's MAC, its\n"
		"                       static neighbour entry (required)\n"
		"      --mac MAC        our MAC (--sim-link: 02:00:00:00:00:0b; a card: its own)\n"
		"      --ip A.B.C.D     our IPv4 address, GID 0 ::ffff:A.B.C.D (--sim-link:\n"
		"                       198.18.0.2, answered in ARP; a card: its GID 0 as set)\n"
		"  -u, --qp-timeout N   against perftest: our ACK timeout code, 4.096 us * 2^N (8)\n"
		"      --pcap FILE      --sim-link: capture both directions of the link\n"
		"      --drop P         --sim-link: the NIC's link loses each frame it sends with\n"
		"                       probability P (0..0.5; 0), seeded by --seed\n"
		"      --time-limit S   against perftest: wall-clock seconds the run may take (300)\n"
		"      --help\n"
		"Without --sim: the server runs without SERVER, the client with it; perftest's\n"
		"out-of-band exchange with a stock perftest, on the card (the pci backend; times\n"
		"on the wall clock) or with --sim-link on a simulated NIC: the same session, every\n"
		"completion and the data checked (docs/interop.md, docs/bringup.md).\n");
}

static int num_arg(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || !*s || *end || *s == '-' || *v < min || *v > max) {
		fprintf(stderr, "rnic-perf: %s: '%s' is not a number in %" PRIu64 "..%" PRIu64 "\n", opt, s, min,
			max);
		return -1;
	}
	return 0;
}

/* perftest's -M: 16 numbers (each as strtol reads it: 0x.., 0.., decimal),
 * ':' between them, each a byte. */
static int parse_mgid(const char *s, uint8_t g[16])
{
	const char *p = s;

	for (int i = 0; i < 16; i++) {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 0);
		if (errno || end == p || v < 0 || v > 255 || *end != (i == 15 ? 0 : ':')) {
			fprintf(stderr, "rnic-perf: -M: '%s' is not 16 bytes with ':' between them\n", s);
			return -1;
		}
		g[i] = (uint8_t)v;
		p = end + 1;
	}
	return 0;
}

/* locally administered; addresses from the benchmarking range 198.18.0.0/15 */
static const uint8_t def_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0b};
static const uint8_t def_ip[4] = {198, 18, 0, 2};

static int parse_mac(const char *opt, const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char end;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &end) != 6) {
		fprintf(stderr, "rnic-perf: %s: '%s' is not a MAC address (xx:xx:xx:xx:xx:xx)\n", opt, s);
		return -1;
	}
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

/* udp:LHOST:LPORT,RHOST:RPORT */
static int parse_link(const char *s, struct perf_opts *o)
{
	static char buf[256];
	char *comma;

	if (strncmp(s, "udp:", 4) || strlen(s + 4) >= sizeof(buf) || !(comma = strchr(strcpy(buf, s + 4), ',')) ||
	    comma == buf || !comma[1] || !strchr(buf, ':') || !strchr(comma + 1, ':')) {
		fprintf(stderr, "rnic-perf: --sim-link: '%s' is not udp:LHOST:LPORT,RHOST:RPORT\n", s);
		return -1;
	}
	*comma = 0;
	o->link_local = buf;
	o->link_remote = comma + 1;
	return 0;
}

static int parse_args(int argc, char **argv, struct perf_opts *o)
{
	static const struct option lopts[] = {
		{"size", required_argument, NULL, 's'},  {"iters", required_argument, NULL, 'n'},
		{"mtu", required_argument, NULL, 'm'},   {"qp", required_argument, NULL, 'q'},
		{"all", no_argument, NULL, 'a'},         {"inline_size", required_argument, NULL, 'I'},
		{"port", required_argument, NULL, 'p'},  {"tx-depth", required_argument, NULL, 't'},
		{"json", required_argument, NULL, 'J'},  {"width", required_argument, NULL, 'W'},
		{"seed", required_argument, NULL, 'S'},  {"sim", no_argument, NULL, OPT_SIM},
		{"sim-link", required_argument, NULL, 'L'}, {"peer-mac", required_argument, NULL, 'P'},
		{"mac", required_argument, NULL, 'A'},   {"ip", required_argument, NULL, 'i'},
		{"qp-timeout", required_argument, NULL, 'u'}, {"pcap", required_argument, NULL, 'C'},
		{"time-limit", required_argument, NULL, 'T'}, {"drop", required_argument, NULL, 'D'},
		{"use-srq", no_argument, NULL, OPT_USE_SRQ}, {"connection", required_argument, NULL, 'c'},
		{"mcg", no_argument, NULL, 'g'},         {"MGID", required_argument, NULL, 'M'},
		{"rdma_cm", no_argument, NULL, 'R'},     {"mw", required_argument, NULL, OPT_MW},
		{"help", no_argument, NULL, 'h'},        RNIC_SIM_MODEL_LONGOPTS('X'),
		{NULL, 0, NULL, 0},
	};
	uint64_t v;
	int c, t, li;

	memset(o, 0, sizeof(*o));
	o->mtu_bytes = 1024;
	o->qps = 1;
	o->port = OOB_PORT;
	o->width = 512;
	o->seed = 1;
	memcpy(o->mac, def_mac, 6);
	memcpy(o->ip, def_ip, 4);
	o->timeout = -1;
	o->time_limit = 300;
	rnic_sim_cfg_default(&o->model);
	while ((c = getopt_long(argc, argv, "s:n:m:q:aI:p:t:u:c:gM:Rh", lopts, &li)) != -1) {
		switch (c) {
		case 's':
			if (num_arg("-s", optarg, 1, 8u << 20, &v))
				return -1;
			o->size = (size_t)v;
			o->size_set = 1;
			break;
		case 'n':
			if (num_arg("-n", optarg, 1, 100000000, &o->iters))
				return -1;
			o->iters_set = 1;
			break;
		case 'm':
			if (num_arg("-m", optarg, 256, 4096, &v))
				return -1;
			if (!mtu_code((unsigned)v)) {
				fprintf(stderr, "rnic-perf: -m: %s is not 256, 512, 1024, 2048 or 4096\n", optarg);
				return -1;
			}
			o->mtu_bytes = (unsigned)v;
			break;
		case 'q':
			if (num_arg("-q", optarg, 1, SIM_PAIR_MAX_QPS, &v))
				return -1;
			o->qps = (int)v;
			break;
		case 'a': o->all = 1; break;
		case OPT_USE_SRQ: o->use_srq = 1; break;
		case 'c':
			if (strcmp(optarg, "RC") && strcmp(optarg, "UD")) {
				fprintf(stderr, "rnic-perf: -c: RC or UD, not '%s'\n", optarg);
				return -1;
			}
			o->ud = !strcmp(optarg, "UD");
			break;
		case 'I':
			if (num_arg("-I", optarg, 0, RNIC_MAX_INLINE_BYTES, &v))
				return -1;
			o->inline_size = (uint32_t)v;
			break;
		case 'p':
			if (num_arg("-p", optarg, 1, 65535, &v))
				return -1;
			o->port = (uint16_t)v;
			break;
		case 't':
			if (num_arg("-t", optarg, 1, 1024, &v))
				return -1;
			o->tx_depth = (int)v;
			break;
		case 'J': o->json = optarg; break;
		case 'W':
			if (strcmp(optarg, "64") && strcmp(optarg, "512")) {
				fprintf(stderr, "rnic-perf: --width: %s is not 64 or 512\n", optarg);
				return -1;
			}
			o->width = atoi(optarg);
			break;
		case 'S':
			if (num_arg("--seed", optarg, 0, UINT64_MAX, &o->seed))
				return -1;
			break;
		case OPT_SIM: o->sim = 1; break;
		case 'g': o->mcg = 1; break;
		case 'R': o->rdma_cm = 1; break;
		case OPT_MW:
			if (strcmp(optarg, "1") && strcmp(optarg, "2")) {
				fprintf(stderr, "rnic-perf: --mw: a window type, 1 or 2, not '%s'\n", optarg);
				return -1;
			}
			o->mw = atoi(optarg);
			break;
		case 'M':
			if (parse_mgid(optarg, o->mgid))
				return -1;
			o->mgid_set = 1;
			break;
		case 'L':
			if (parse_link(optarg, o))
				return -1;
			break;
		case 'P':
			if (parse_mac("--peer-mac", optarg, o->peer_mac))
				return -1;
			o->peer_mac_set = 1;
			break;
		case 'A':
			if (parse_mac("--mac", optarg, o->mac))
				return -1;
			o->mac_set = 1;
			break;
		case 'i':
			if (inet_pton(AF_INET, optarg, o->ip) != 1) {
				fprintf(stderr, "rnic-perf: --ip: '%s' is not an IPv4 address\n", optarg);
				return -1;
			}
			o->ip_set = 1;
			break;
		case 'u':
			if (num_arg("-u", optarg, 1, 31, &v))
				return -1;
			o->timeout = (int)v;
			break;
		case 'C': o->pcap = optarg; break;
		case 'D': {
			char *end;

			errno = 0;
			o->drop = strtod(optarg, &end);
			if (errno || !*optarg || *end || !(o->drop >= 0 && o->drop <= 0.5)) {
				fprintf(stderr, "rnic-perf: --drop: '%s' is not a probability in 0..0.5\n", optarg);
				return -1;
			}
			break;
		}
		case 'T':
			if (num_arg("--time-limit", optarg, 1, 86400, &v))
				return -1;
			o->time_limit = (unsigned)v;
			break;
		case 'X':
			if (rnic_sim_model_opt(&o->model, "rnic-perf", lopts[li].name, optarg))
				return -1;
			o->model_set = 1;
			break;
		case 'h': usage(stdout, argv[0]); exit(0);
		default: usage(stderr, argv[0]); return -1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "rnic-perf: which test? (write_bw, write_lat, read_bw, read_lat, send_bw, send_lat, atomic_bw)\n");
		return -1;
	}
	t = perf_test_parse(argv[optind]);
	if (t < 0) {
		fprintf(stderr, "rnic-perf: unknown test '%s'\n", argv[optind]);
		return -1;
	}
	o->test = (enum perf_test)t;
	/* getopt_long has moved the options after the test name before it */
	optind++;
	if (optind < argc)
		o->host = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "rnic-perf: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (o->sim && o->host) {
		fprintf(stderr, "rnic-perf: --sim takes no host name\n");
		return -1;
	}
	if (o->model_set && !o->sim) {
		fprintf(stderr, "rnic-perf: --mem-bw, --mem-latency and --link-latency go with --sim\n");
		return -1;
	}
	if (o->link_local && o->sim) {
		fprintf(stderr, "rnic-perf: --sim and --sim-link exclude each other\n");
		return -1;
	}
	if (!o->link_local && (o->pcap || o->drop > 0)) {
		fprintf(stderr, "rnic-perf: --pcap and --drop go with --sim-link\n");
		return -1;
	}
	if (!o->sim && o->test == PERF_SEND_LAT && o->all) {
		fprintf(stderr, "rnic-perf: send_lat against perftest: one size (no -a)\n");
		return -1;
	}
	if (o->ud && (o->sim || (o->test != PERF_SEND_BW && o->test != PERF_SEND_LAT) || o->use_srq)) {
		fprintf(stderr, "rnic-perf: -c UD: send_bw or send_lat against perftest (a card or --sim-link), "
			"without an SRQ\n");
		return -1;
	}
	if (o->mgid_set && !o->mcg) {
		fprintf(stderr, "rnic-perf: -M goes with -g\n");
		return -1;
	}
	if (o->mcg) {
		/* perftest: multicast is UD, one QP, send_bw or send_lat */
		if (o->sim || (o->test != PERF_SEND_BW && o->test != PERF_SEND_LAT) || o->qps > 1 || o->use_srq) {
			fprintf(stderr, "rnic-perf: -g: send_bw or send_lat against perftest (a card or --sim-link), "
				"one QP, without an SRQ\n");
			return -1;
		}
		o->ud = 1;
	}
	if (o->rdma_cm) {
		/* perftest refuses -R with multicast (and UC, XRC, DC, raw Ethernet) */
		if (o->mcg) {
			fprintf(stderr, "rnic-perf: -R with -g: multicast does not go with rdma_cm (perftest refuses "
				"it too)\n");
			return -1;
		}
		if (o->sim || o->ud || o->use_srq) {
			fprintf(stderr, "rnic-perf: -R: RC QPs against perftest (a card or --sim-link), without -c UD "
				"and --use-srq\n");
			return -1;
		}
	}
	if (o->mw) {
		/* a window over the buffer the peer addresses: SEND tests address none */
		if (o->ud || o->test == PERF_SEND_BW || o->test == PERF_SEND_LAT) {
			fprintf(stderr, "rnic-perf: --mw: write_bw, read_bw, atomic_bw, write_lat or read_lat on RC "
				"QPs: the peer's WRITEs, READs or atomics reach our buffer through the window\n");
			return -1;
		}
	}
	if (o->sim && o->use_srq) {
		fprintf(stderr, "rnic-perf: --use-srq goes with --sim-link or a card\n");
		return -1;
	}
	if (o->sim && (o->timeout >= 0 || o->peer_mac_set || o->mac_set || o->ip_set)) {
		fprintf(stderr, "rnic-perf: -u, --peer-mac, --mac and --ip go with --sim-link or a card\n");
		return -1;
	}
	if (!o->sim) {
		/* against a stock perftest: a card, or --sim-link */
		if (!o->peer_mac_set) {
			fprintf(stderr, "rnic-perf: --peer-mac is needed (the peer's static neighbour entry)\n");
			return -1;
		}
		if (o->qps > OOB_MAX_QPS) {
			fprintf(stderr, "rnic-perf: -q: at most %d QPs against perftest\n", OOB_MAX_QPS);
			return -1;
		}
	}
	if (!o->size_set)
		o->size = o->test == PERF_ATOMIC_BW ? 8 : perf_test_is_bw(o->test) ? 65536 : 2;
	if (o->ud && o->size > o->mtu_bytes) {
		/* as perftest: one packet per UD message */
		if (o->size_set)
			fprintf(stderr, "rnic-perf: the largest UD message is the MTU, %u bytes: -s %zu becomes %u\n",
				o->mtu_bytes, o->size, o->mtu_bytes);
		o->size = o->mtu_bytes;
	}
	if (o->test == PERF_ATOMIC_BW && (o->size != 8 || o->all)) {
		fprintf(stderr, "rnic-perf: atomic_bw: atomics are 8 bytes (-s 8, no -a)\n");
		return -1;
	}
	/* perftest: 5000 (bw), 1000 (lat); a simulated 64 KiB message takes
	 * about 0.1 s of this machine's time */
	if (!o->iters_set)
		o->iters = perf_test_is_bw(o->test) && o->sim ? 64 : perf_test_is_bw(o->test) ? 5000 : 1000;
	if (!o->tx_depth)
		o->tx_depth = perf_test_is_bw(o->test) ? 128 : 1;
	if (!perf_test_is_bw(o->test) && o->tx_depth != 1) {
		fprintf(stderr, "rnic-perf: latency tests run one message at a time (-t 1)\n");
		return -1;
	}
	if (!perf_test_is_bw(o->test) && o->qps != 1) {
		fprintf(stderr, "rnic-perf: latency tests use one QP (-q 1)\n");
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- the simulation */

struct sim_ctx {
	double link_mbps;    /* link rate, MB/s (2^20 B) */
	unsigned clock_mhz;
};

static void progress(void *arg, uint64_t done, uint64_t count)
{
	const struct perf_row *r = arg;

	fprintf(stderr, "rnic-perf: %zu B: %" PRIu64 " of %" PRIu64 " messages\n", r->bytes, done, count);
}

/* Index of the p-quantile of n sorted samples: the smallest value with at
 * least p * n samples at or below it. */
static uint64_t quantile(const uint64_t *v, uint64_t n, double p)
{
	uint64_t i = (uint64_t)ceil(p * (double)n);

	return v[i ? i - 1 : 0];
}

static void lat_stats(struct perf_row *r, uint64_t *lat, uint64_t n, unsigned mhz)
{
	double sum = 0, sq = 0;

	qsort(lat, n, sizeof(*lat), stream_cmp_u64);
	for (uint64_t i = 0; i < n; i++)
		sum += (double)lat[i];
	r->t_avg = sum / (double)n / mhz;
	for (uint64_t i = 0; i < n; i++) {
		double d = (double)lat[i] / mhz - r->t_avg;

		sq += d * d;
	}
	r->t_stdev = sqrt(sq / (double)n);
	r->t_min = (double)lat[0] / mhz;
	r->t_max = (double)lat[n - 1] / mhz;
	r->t_typical = (double)lat[n / 2] / mhz;
	r->t_p99 = (double)quantile(lat, n, 0.99) / mhz;
	r->t_p999 = (double)quantile(lat, n, 0.999) / mhz;
}

/* The k-th completed message is the last one its completion brought. */
static int event_end(const uint64_t *t_done, uint64_t n, uint64_t k)
{
	return k + 1 == n || t_done[k + 1] != t_done[k];
}

/* bw: the average over the first doorbell to the last completion. The peak:
 * the best rate of messages completed between two completions at least w
 * messages apart (w: the send queue depth or a quarter of the messages,
 * the smaller, but at least four completion bursts of every QP, so that no
 * burst of unsignaled WQEs counts as a rate); with fewer than 2 w messages,
 * the average. */
static void bw_stats(struct perf_row *r, const uint64_t *t_done, uint64_t n, uint64_t w, uint64_t burst,
		     unsigned mhz)
{
	double secs = (double)r->cycles / (mhz * 1e6), best = 0, unit = (double)r->bytes * mhz * 1e6 / 1048576.0;

	r->bw_avg = (double)r->bytes * (double)n / secs / 1048576.0;
	r->msg_rate = (double)n / secs / 1e6;
	r->bw_peak = r->bw_avg;
	if (w > n / 4)
		w = n / 4;
	if (w < 4 * burst)
		w = 4 * burst;
	if (w < 2 || 2 * w > n)
		return;
	for (uint64_t k = w; k < n; k++) {
		uint64_t j = k - w;

		if (!event_end(t_done, n, k))
			continue;
		while (j > 0 && !event_end(t_done, n, j))
			j--;
		if (!event_end(t_done, n, j) || t_done[k] == t_done[j])
			continue;
		/* messages j+1 .. k completed in (t_done[j], t_done[k]] */
		if ((double)(k - j) / (double)(t_done[k] - t_done[j]) > best)
			best = (double)(k - j) / (double)(t_done[k] - t_done[j]);
	}
	if (best * unit > r->bw_avg)
		r->bw_peak = best * unit;
}

static int sim_one(const struct perf_opts *o, size_t size, uint64_t iters, int first, struct perf_row *r,
		   struct sim_ctx *sc)
{
	struct rnic_sim_cfg cfg;
	struct sim_pair_opts po;
	struct sim_pair p;
	struct rnic_world *w;
	struct stream st;
	uint64_t *times;
	int bw = perf_test_is_bw(o->test), depth = o->tx_depth;

	memset(r, 0, sizeof(*r));
	r->bytes = size;
	r->iters = iters;
	if ((uint64_t)depth > iters)
		depth = (int)iters;
	/* at most SIM_BUF_MAX of slots per side */
	while (depth > 1 && (uint64_t)depth * stream_stride(size) * (uint64_t)o->qps > SIM_BUF_MAX)
		depth /= 2;
	cfg = o->model;
	cfg.num_nics = 2;
	cfg.data_width = (unsigned)o->width;
	cfg.seed = o->seed;
	w = rnic_world_create(&cfg);
	if (!w)
		return stream_err("world: %s", strerror(errno));
	sc->clock_mhz = cfg.clock_mhz;
	sc->link_mbps = rnic_world_cfg(w)->link_rate * cfg.clock_mhz * 1e6 / 1048576.0;
	sim_pair_default_opts(&po);
	po.nqp = o->qps;
	po.path_mtu = mtu_code(o->mtu_bytes);
	po.max_send_wr = o->tx_depth;
	po.timeout = ACK_TIMEOUT;
	if (perf_test_opcode(o->test) == RNIC_WR_SEND) {
		po.max_recv_wr = o->tx_depth;
		po.max_recv_sge = 1;
	}
	if (sim_pair_open(&p, w, &po)) {
		rnic_world_destroy(w);
		return stream_err("setup failed");
	}
	if (first) {
		fputs(RESULT_LINE, stdout);
		printf("                    %s\n", titles[o->test]);
		printf(" Dual-port       : OFF\t\tDevice         : openrnic-sim (%d-bit)\n", o->width);
		printf(" Number of qps   : %d\t\tTransport type : IB\n", o->qps);
		printf(" Connection type : RC\t\tUsing SRQ      : OFF\n");
		printf(" TX depth        : %d\n", o->tx_depth);
		printf(" Mtu             : %u[B]\n", o->mtu_bytes);
		printf(" Link type       : Ethernet (%.0f Gb/s, simulated at %u MHz)\n",
		       rnic_world_cfg(w)->link_rate * 8 * cfg.clock_mhz / 1000.0, cfg.clock_mhz);
		printf(" GID index       : 0\n");
		printf(" Max inline data : %u[B]\n", o->inline_size);
		if (o->mw)
			printf(" Memory window   : type %d per QP over the responder's slots, %s only; its MR grants "
			       "no remote access\n", o->mw, perf_test_opcode(o->test) == RNIC_WR_RDMA_READ ? "REMOTE_READ"
				: o->test == PERF_ATOMIC_BW ? "REMOTE_ATOMIC" : "REMOTE_WRITE");
		printf(" Data ex. method : simulation\n");
		fputs(RESULT_LINE, stdout);
		for (int s = 0; s < 2; s++)
			printf(" %s address: LID 0000 QPN %#06x PSN %#08x\n", s ? "remote" : "local",
			       p.side[s].qp[0]->qp_num, po.psn[s]);
		fputs(RESULT_LINE, stdout);
		fputs(bw ? RESULT_FMT_BW : RESULT_FMT_LAT, stdout);
		fflush(stdout);
	}
	times = calloc(iters, sizeof(*times));
	if (!times) {
		sim_pair_close(&p);
		rnic_world_destroy(w);
		return stream_err("out of memory");
	}
	memset(&st, 0, sizeof(st));
	st.p = &p;
	st.opcode = perf_test_opcode(o->test);
	st.msg = size;
	st.stride = stream_stride(size);
	st.count = iters;
	st.qps = o->qps;
	st.depth = depth;
	st.signal_every = bw ? (depth >= 16 ? 16 : 1) : 1;
	st.inline_max = o->inline_size;
	st.mw = o->mw;
	st.salt = stream_mix64(o->seed ^ ((uint64_t)o->test << 56) ^ size);
	if (bw)
		st.t_done = times;
	else
		st.lat = times;
	st.progress = progress;
	st.progress_arg = r;
	r->cycles = stream_run(&st);
	if (r->cycles) {
		if (bw)
			bw_stats(r, times, iters, (uint64_t)depth, (uint64_t)st.signal_every * (uint64_t)o->qps,
				 cfg.clock_mhz);
		else
			lat_stats(r, times, iters, cfg.clock_mhz);
	}
	free(times);
	sim_pair_close(&p);
	rnic_world_destroy(w);
	return r->cycles ? 0 : -1;
}

static void print_row(const struct perf_opts *o, const struct perf_row *r)
{
	if (perf_test_is_bw(o->test))
		printf(" %-7zu    %-10" PRIu64 "       %-7.2f            %-7.2f\t\t   %-7.6f\n", r->bytes, r->iters,
		       r->bw_peak, r->bw_avg, r->msg_rate);
	else
		printf(" %-7zu %-10" PRIu64 "      %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n",
		       r->bytes, r->iters, r->t_min, r->t_max, r->t_typical, r->t_avg, r->t_stdev, r->t_p99,
		       r->t_p999);
	fflush(stdout);
}

static int write_json(const struct perf_opts *o, const struct sim_ctx *sc, const struct perf_row *rows, int n)
{
	FILE *f = fopen(o->json, "w");

	if (!f) {
		fprintf(stderr, "rnic-perf: %s: %s\n", o->json, strerror(errno));
		return -1;
	}
	fprintf(f, "[\n");
	for (int i = 0; i < n; i++) {
		const struct perf_row *r = &rows[i];

		fprintf(f, "  {\"test\": \"%s\", \"bytes\": %zu, \"iterations\": %" PRIu64 ", \"qps\": %d, "
			"\"mtu\": %u, \"tx_depth\": %d, \"inline_size\": %u, \"width_bits\": %d, \"seed\": %" PRIu64
			", \"clock_mhz\": %u, \"cycles\": %" PRIu64 ", \"link_mb_per_sec\": %.2f, ",
			perf_test_name(o->test), r->bytes, r->iters, o->qps, o->mtu_bytes, o->tx_depth, o->inline_size,
			o->width, o->seed, sc->clock_mhz, r->cycles, sc->link_mbps);
		if (perf_test_is_bw(o->test))
			fprintf(f, "\"bw_peak_mb_per_sec\": %.2f, \"bw_avg_mb_per_sec\": %.2f, \"msg_rate_mpps\": %.6f, ",
				r->bw_peak, r->bw_avg, r->msg_rate);
		else
			fprintf(f, "\"t_min_usec\": %.2f, \"t_max_usec\": %.2f, \"t_typical_usec\": %.2f, "
				"\"t_avg_usec\": %.2f, \"t_stdev_usec\": %.2f, \"t_p99_usec\": %.2f, \"t_p999_usec\": %.2f, ",
				r->t_min, r->t_max, r->t_typical, r->t_avg, r->t_stdev, r->t_p99, r->t_p999);
		fprintf(f, "\"verified\": true}%s\n", i + 1 == n ? "" : ",");
	}
	fprintf(f, "]\n");
	return fclose(f) ? -1 : 0;
}

static int run_sim(const struct perf_opts *o)
{
	struct perf_row rows[32];
	struct sim_ctx sc = {0};
	int n = 0, failed = 0;

	if (o->all) {
		for (size_t s = 2; s <= SIM_ALL_MAX; s <<= 1) {
			uint64_t it = SIM_ALL_BYTES / s;

			if (it < 4)
				it = 4;
			if (it > o->iters)
				it = o->iters;
			if (sim_one(o, s, it, n == 0, &rows[n], &sc)) {
				failed = 1;
				break;
			}
			print_row(o, &rows[n++]);
		}
	} else {
		if (sim_one(o, o->size, o->iters, 1, &rows[0], &sc))
			failed = 1;
		else
			print_row(o, &rows[n++]);
	}
	fputs(RESULT_LINE, stdout);
	if (o->json && n && write_json(o, &sc, rows, n))
		failed = 1;
	if (failed)
		fprintf(stderr, "rnic-perf: FAILED: the run did not verify (see above)\n");
	return failed;
}

/* ------------------------------------------------ against a stock perftest */

/* The peer session (perf_link.h) on a card or, with --sim-link, on a
 * simulated NIC whose port is a UDP socket: the same session code either way. */
static int run_peer(const struct perf_opts *o)
{
	struct perf_link_opts lo;
	struct perf_nic nic;
	int rc;

	memset(&lo, 0, sizeof(lo));
	lo.test = o->test;
	lo.size = o->size;
	lo.iters = o->iters;
	lo.tx_depth = o->tx_depth;
	lo.qps = o->qps;
	lo.all = o->all;
	lo.inline_size = o->inline_size;
	lo.use_srq = o->use_srq;
	lo.ud = o->ud;
	lo.mcg = o->mcg;
	memcpy(lo.mgid, o->mgid, 16);
	lo.mgid_set = o->mgid_set;
	lo.rdma_cm = o->rdma_cm;
	lo.mw = o->mw;
	lo.json = o->json;
	if (o->link_local) {
		/* a guest under emulation moves a few MB/s: perftest's counts would take hours */
		lo.iters = o->iters_set ? o->iters : 100;
		lo.tx_depth = o->tx_depth > 16 ? 16 : o->tx_depth;
	}
	lo.mtu = mtu_code(o->mtu_bytes);
	lo.port = o->port;
	lo.host = o->host;
	lo.local = o->link_local;
	lo.remote = o->link_remote;
	memcpy(lo.mac, o->mac, 6);
	memcpy(lo.ip, o->ip, 4);
	lo.mac_set = o->mac_set;
	lo.ip_set = o->ip_set;
	memcpy(lo.peer_mac, o->peer_mac, 6);
	lo.timeout = (uint8_t)(o->timeout >= 0 ? o->timeout : 8);
	lo.width = o->width;
	lo.seed = o->seed;
	lo.pcap = o->pcap;
	lo.drop = o->drop;
	lo.wall_limit = o->time_limit;
	rc = o->link_local ? perf_nic_open_sim(&nic, &lo) : perf_nic_open_card(&nic, &lo, o->host ? "client" : "server");
	if (!rc)
		rc = perf_link_run(&lo, &nic);
	perf_nic_close(&nic);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct perf_opts o;

	stream_prog = "rnic-perf";
	if (parse_args(argc, argv, &o))
		return 2;
	return o.sim ? run_sim(&o) : run_peer(&o);
}
