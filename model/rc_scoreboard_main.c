/* rc-scoreboard: check RoCEv2 captures against the C reference model
 * (model/rc_scoreboard.h).
 *
 *   rc-scoreboard [--policy rtl|rxe] [--station IP=rtl|rxe]... [--mtu BYTES] [--pair REQ_QPN:RESP_QPN]...
 *                 [--faults] [--grace-ns N] [--max N] [--verbose] FILE.pcap...
 *
 * One line per file ("ok" or "FAIL" with its counts), each difference on a
 * DIFF line before it; exits 1 if any file differs or cannot be read. */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rc_scoreboard.h"

static void usage(FILE *f, const char *argv0)
{
	fprintf(f,
		"usage: %s [--policy rtl|rxe] [--station IP=rtl|rxe]... [--mtu BYTES] [--pair REQ_QPN:RESP_QPN]...\n"
		"       [--faults] [--strict-tail]"
		" [--grace-ns N] [--inflight-ns N] [--max N] [--verbose] FILE.pcap...\n"
		"Replays each capture through the model's requester and responder checkers and reports\n"
		"the first packet of each flow that differs from what the model would send or accept.\n"
		"  --policy   AckReq and ACK coalescing of the NICs: rtl (OpenRNIC, default) or rxe\n"
		"  --station  the policy of the station with this IPv4 or IPv6 address\n"
		"  --mtu      path MTU (default: learned per flow from its FIRST/MIDDLE packets)\n"
		"  --pair     requests to RESP_QPN come from REQ_QPN (default: paired automatically)\n"
		"  --faults   the link dropped/corrupted frames: skip frames the codec refuses\n"
		"  --strict-tail  responses still expected at the end of the capture are differences\n"
		"             (default: a NOTE, as the responder's QP may have been moved to ERR by its host)\n"
		"  --grace-ns how long a requester may keep sending after a fatal NAK reached it (20000)\n"
		"  --inflight-ns  requests captured this long after a NAK may have left before it (3000)\n"
		"  --max      stop after N differences (default: one per flow)\n",
		argv0);
}

int main(int argc, char **argv)
{
	struct rc_sb_opts o, base;
	int c, bad = 0, policy_rxe = 0;
	static const struct option opts[] = {
		{"policy", required_argument, NULL, 'P'},
		{"mtu", required_argument, NULL, 'm'},
		{"pair", required_argument, NULL, 'p'},
		{"station", required_argument, NULL, 'S'},
		{"faults", no_argument, NULL, 'f'},
		{"strict-tail", no_argument, NULL, 'T'},
		{"grace-ns", required_argument, NULL, 'g'},
		{"inflight-ns", required_argument, NULL, 'I'},
		{"max", required_argument, NULL, 'x'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};

	memset(&base, 0, sizeof(base));
	base.grace_ns = 0;
	while ((c = getopt_long(argc, argv, "P:m:p:S:fTg:I:x:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'P':
			if (!strcmp(optarg, "rxe"))
				policy_rxe = 1;
			else if (strcmp(optarg, "rtl")) {
				fprintf(stderr, "rc-scoreboard: --policy rtl or rxe\n");
				return 2;
			}
			break;
		case 'm': base.mtu = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'p': {
			char *e;

			if (base.npairs >= RC_SB_MAX_PAIRS)
				return 2;
			base.pairs[base.npairs].req_qpn = (uint32_t)strtoul(optarg, &e, 0);
			if (*e != ':') {
				fprintf(stderr, "rc-scoreboard: --pair REQ_QPN:RESP_QPN\n");
				return 2;
			}
			base.pairs[base.npairs++].resp_qpn = (uint32_t)strtoul(e + 1, NULL, 0);
			break;
		}
		case 'S': {
			char *eq = strchr(optarg, '=');
			uint8_t a4[4];

			if (!eq || base.nstations >= RC_SB_MAX_STATIONS || (strcmp(eq + 1, "rtl") && strcmp(eq + 1, "rxe"))) {
				fprintf(stderr, "rc-scoreboard: --station IP=rtl|rxe\n");
				return 2;
			}
			*eq = 0;
			if (inet_pton(AF_INET, optarg, a4) == 1) {
				rc_gid_from_ipv4(base.stations[base.nstations].gid, a4);
			} else if (inet_pton(AF_INET6, optarg, base.stations[base.nstations].gid) != 1) {
				fprintf(stderr, "rc-scoreboard: bad address %s\n", optarg);
				return 2;
			}
			if (!strcmp(eq + 1, "rxe"))
				rc_sb_policy_rxe(&base.stations[base.nstations].policy);
			else
				rc_sb_policy_rtl(&base.stations[base.nstations].policy);
			base.nstations++;
			break;
		}
		case 'f': base.faults = 1; break;
		case 'T': base.strict_tail = 1; break;
		case 'g': base.grace_ns = strtoull(optarg, NULL, 0) + 1; break;
		case 'I': base.inflight_ns = strtoull(optarg, NULL, 0) + 1; break;
		case 'x': base.max_reports = atoi(optarg); break;
		case 'v': base.verbose = 1; break;
		case 'h': usage(stdout, argv[0]); return 0;
		default: usage(stderr, argv[0]); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr, argv[0]);
		return 2;
	}
	if (policy_rxe)
		rc_sb_opts_rxe(&o);
	else
		rc_sb_opts_rtl(&o);
	o.mtu = base.mtu;
	memcpy(o.pairs, base.pairs, sizeof(o.pairs));
	memcpy(o.stations, base.stations, sizeof(o.stations));
	o.nstations = base.nstations;
	o.npairs = base.npairs;
	o.faults = base.faults;
	o.strict_tail = base.strict_tail;
	if (base.grace_ns)
		o.grace_ns = base.grace_ns - 1;
	if (base.inflight_ns)
		o.inflight_ns = base.inflight_ns - 1;
	o.max_reports = base.max_reports;
	o.verbose = base.verbose;
	o.out = stdout;
	for (int i = optind; i < argc; i++) {
		struct rc_sb_result r;
		int64_t d = rc_sb_check_pcap(argv[i], &o, &r);

		if (d < 0) {
			printf("FAIL %s: cannot read it\n", argv[i]);
			bad = 1;
			continue;
		}
		printf("%s %s: %llu frames, %llu RoCE (%llu other skipped, %llu refused), %llu flows, %llu requests "
		       "(%llu retransmitted), %llu responses, %llu difference(s)%s\n",
		       d ? "FAIL" : "ok", argv[i], (unsigned long long)r.frames, (unsigned long long)r.roce,
		       (unsigned long long)r.skipped, (unsigned long long)r.refused, (unsigned long long)r.flows,
		       (unsigned long long)r.requests, (unsigned long long)r.retransmits,
		       (unsigned long long)r.responses, (unsigned long long)d, r.notes ? ", notes above" : "");
		fflush(stdout);
		bad |= d != 0;
	}
	return bad;
}
