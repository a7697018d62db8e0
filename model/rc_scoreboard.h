/* Scoreboard of the C reference model (model/README.md): checks a capture of
 * RoCEv2 traffic against what the model would send and accept.
 *
 * Every frame goes through the model's codec (a frame it refuses is a
 * difference, unless faults are expected). Frames are grouped into flows: the
 * requests one station sends to one QP of another, and the responses that QP
 * sends back. Per flow:
 *
 * - requester check: the request packets must be what the model's requester
 *   would build for the messages they carry (opcode sequence FIRST / MIDDLE /
 *   LAST or ONLY, consecutive PSNs, one MTU per FIRST/MIDDLE packet, pad, RETH
 *   and its length, AckReq by the configured policy, SE only on a last
 *   packet); a retransmitted PSN must carry the same packet as the first time
 *   (same opcode, lengths, RETH, immediate, payload CRC); nothing new may
 *   leave after a fatal NAK reached the requester (with a grace time);
 * - responder check: every request is fed to a model responder (rc_qp with an
 *   oracle, as the scoreboard cannot see the responder's memory and receive
 *   queue: a key check, a receive WQE or a receive buffer fails exactly when
 *   the NIC NAKed that PSN for that reason); the responses it would send -
 *   ACKs by the configured coalescing, NAKs, RNR NAKs, duplicate re-ACKs, READ
 *   responses, ATOMIC ACKs - must be the responses captured, one for one, in
 *   order: opcode, PSN, destination QP, AETH syndrome and MSN, lengths;
 * - addressing: every packet of a direction keeps the first one's addresses,
 *   traffic class, hop limit, UDP source port and P_Key.
 *
 * The first difference of each flow is reported with the frame number, the
 * field, the expected and the captured value; later packets of that flow are
 * not judged (they would differ in consequence).
 */
#ifndef RC_SCOREBOARD_H
#define RC_SCOREBOARD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rc_qp.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RC_SB_MAX_PAIRS 32
#define RC_SB_MAX_STATIONS 8

/* The policies one station's NIC follows (AckReq as a requester, ACK
 * coalescing as a responder). */
struct rc_sb_policy {
	enum rc_ackreq_policy ackreq_policy;
	uint32_t ackreq_every;
	uint8_t ack_on_last;
	uint32_t ack_every;
};

struct rc_sb_opts {
	uint32_t mtu;          /* path MTU in bytes; 0: learn it per flow from its first FIRST/MIDDLE packet */
	struct rc_sb_policy policy; /* of every station not listed below */
	struct {
		uint8_t gid[16];   /* IPv4-mapped for IPv4 */
		struct rc_sb_policy policy;
	} stations[RC_SB_MAX_STATIONS];
	int nstations;
	uint8_t min_rnr_timer; /* expected RNR timer code; 0xff: take the first RNR NAK's */
	uint64_t grace_ns;     /* a requester may go on sending this long after a fatal NAK reached it (20 us) */
	uint64_t inflight_ns;  /* requests captured up to this long after a NAK may have left before it
				  arrived: go-back-N is judged on the ones after (3 us) */
	int faults;            /* the link had faults: frames the codec refuses are skipped, not reported */
	int strict_tail;       /* responses the model still expects when the capture ends are differences
				  (default: a NOTE; the responder's host may have moved its QP to the error
				  state, or the capture ended before they came) */
	int max_reports;       /* stop after this many differences (0: one per flow, no limit) */
	/* explicit pairing of request and response QPs: requests to resp_qpn come
	 * from req_qpn (responses go back to it); others are paired by UDP source
	 * port, then by equal QP numbers, then by elimination */
	struct {
		uint32_t req_qpn, resp_qpn;
	} pairs[RC_SB_MAX_PAIRS];
	int npairs;
	FILE *out;             /* differences and the summary (stdout if NULL) */
	int verbose;           /* also print every frame's verdict */
};

/* The OpenRNIC RTL's policies: AckReq on the last packet and every 16th of a
 * message; an ACK on AckReq, on the last packet of a message and at least
 * every 8 packets. */
void rc_sb_policy_rtl(struct rc_sb_policy *p);
/* Linux rxe's (and the model's defaults): AckReq on the last packet and after
 * 64 unacknowledged ones; an ACK only on AckReq. */
void rc_sb_policy_rxe(struct rc_sb_policy *p);
/* Options with every station following the RTL's (or rxe's) policies. */
void rc_sb_opts_rtl(struct rc_sb_opts *o);
void rc_sb_opts_rxe(struct rc_sb_opts *o);

struct rc_sb_result {
	uint64_t frames, roce, skipped, refused; /* refused: codec errors */
	uint64_t requests, responses, flows;
	uint64_t retransmits, duplicates_seen;
	uint64_t differences;
	uint64_t notes;        /* flows whose responder fell silent at the end */
};

/* One frame of a capture. */
struct rc_sb_frame {
	const uint8_t *data;
	size_t len;
	uint64_t ts_ns;
};

/* Check frames [0, n) in capture order. Returns the number of differences. */
uint64_t rc_sb_check_frames(const struct rc_sb_frame *f, size_t n, const struct rc_sb_opts *o,
			    struct rc_sb_result *r);
/* Read a pcap (libpcap; us or ns timestamps) and check it. Returns the number
 * of differences, or -1 if the file cannot be read. */
int64_t rc_sb_check_pcap(const char *path, const struct rc_sb_opts *o, struct rc_sb_result *r);

#ifdef __cplusplus
}
#endif

#endif
