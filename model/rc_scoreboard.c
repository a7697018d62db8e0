/* Scoreboard of the C reference model; see rc_scoreboard.h. */
#define _DEFAULT_SOURCE /* u_char and friends for <pcap/pcap.h> under -std=c11 */
#include <limits.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rc_codec.h"
#include "rc_scoreboard.h"

#define MAX_FLOWS 256
#define REC_BITS 16
#define REC_MASK ((1u << REC_BITS) - 1)

void rc_sb_policy_rtl(struct rc_sb_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->ackreq_policy = RC_ACKREQ_EVERY_N;
	p->ackreq_every = 16;
	p->ack_on_last = 1;
	p->ack_every = 8;
}

void rc_sb_policy_rxe(struct rc_sb_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->ackreq_policy = RC_ACKREQ_RXE;
	p->ackreq_every = 64;
}

void rc_sb_opts_rtl(struct rc_sb_opts *o)
{
	memset(o, 0, sizeof(*o));
	rc_sb_policy_rtl(&o->policy);
	o->min_rnr_timer = 0xff;
	o->grace_ns = 20000;
	o->inflight_ns = 3000;
}

void rc_sb_opts_rxe(struct rc_sb_opts *o)
{
	rc_sb_opts_rtl(o);
	rc_sb_policy_rxe(&o->policy);
}

static const struct rc_sb_policy *station_policy(const struct rc_sb_opts *o, const uint8_t gid[16])
{
	for (int i = 0; i < o->nstations; i++)
		if (!memcmp(o->stations[i].gid, gid, 16))
			return &o->stations[i].policy;
	return &o->policy;
}

/* What the first transmission of a PSN carried. */
struct rec {
	uint8_t valid, opcode, ackreq;
	uint32_t psn, len, crc, imm;
	uint64_t va;
	uint32_t rkey, rlen;
	uint32_t first_psn; /* READ: first PSN of its response range */
};

struct dframe {
	struct rc_pkt pkt;
	int err;
	uint64_t ts;
};

struct sb;

struct flow {
	struct sb *sb;
	uint8_t src[16], dst[16]; /* requester station -> responder station */
	uint32_t dqpn;            /* responder QP (requests' destination) */
	uint32_t rqpn;            /* requester QP (responses' destination) */
	int paired;
	uint32_t first_psn, mtu;
	uint16_t req_sport;
	struct rc_sb_policy req_pol, resp_pol; /* of the requester and the responder station */
	int dead;
	/* requester check */
	int started, in_msg;
	int resync;    /* faults: packets were lost, the message structure is unknown until a FIRST/ONLY */
	unsigned int msg_class;
	uint32_t next_new, msg_idx, resid, noack;
	struct rec *rec;
	int fatal;
	uint64_t fatal_ts;
	size_t fatal_frame;
	/* a PSN sequence or RNR NAK the requester has not acted on yet */
	int nak_pending;
	unsigned int nak_kind;
	uint32_t nak_psn;
	uint64_t nak_ts, nak_wait_ns;
	size_t nak_frame;
	/* addressing of each direction, from its first packet */
	int have_addr[2];
	struct rc_pkt addr[2];
	/* the model responder and what it would send */
	struct rc_mem mem;
	struct rc_cq cq;
	struct rc_qp *qp;
	struct rc_pkt *exp;
	uint32_t exp_head, exp_tail, exp_cap;
	/* faults: responses the model expected and the capture skipped (lost
	 * or late), and the last one matched (a duplicate of it is fine) */
	struct rc_pkt late[64];
	uint32_t nlate;
	struct rc_pkt last_match;
	int have_last;
	size_t cur;   /* frame being processed */
	int rnr_timer; /* learned RNR timer code, -1 unknown */
};

struct sb {
	struct rc_sb_opts o;
	struct rc_sb_result *r;
	FILE *out;
	struct dframe *fr;
	size_t n;
	struct flow *flows[MAX_FLOWS];
	int nflows;
	int stop;
};

static void gid_str(const uint8_t g[16], char *s, size_t cap)
{
	if (rc_gid_is_ipv4(g)) {
		snprintf(s, cap, "%u.%u.%u.%u", g[12], g[13], g[14], g[15]);
		return;
	}
	snprintf(s, cap, "%x:%x:%x:%x:%x:%x:%x:%x", g[0] << 8 | g[1], g[2] << 8 | g[3], g[4] << 8 | g[5],
		 g[6] << 8 | g[7], g[8] << 8 | g[9], g[10] << 8 | g[11], g[12] << 8 | g[13], g[14] << 8 | g[15]);
}

static void report(struct sb *s, struct flow *f, size_t frame, const char *fmt, ...)
{
	va_list ap;
	char a[64], b[64];

	s->r->differences++;
	fprintf(s->out, "DIFF frame %zu (t=%.3f us)", frame + 1, s->fr[frame].ts / 1000.0);
	if (f) {
		gid_str(f->src, a, sizeof(a));
		gid_str(f->dst, b, sizeof(b));
		fprintf(s->out, " %s -> %s QP %#x", a, b, f->dqpn);
		if (f->paired)
			fprintf(s->out, " (requester QP %#x)", f->rqpn);
		f->dead = 1;
	}
	fprintf(s->out, ": ");
	va_start(ap, fmt);
	vfprintf(s->out, fmt, ap);
	va_end(ap);
	fprintf(s->out, "\n");
	if (s->o.max_reports && s->r->differences >= (uint64_t)s->o.max_reports)
		s->stop = 1;
}

/* ------------------------------------------------------------ flows */

static struct flow *find_req_flow(struct sb *s, const struct rc_pkt *p)
{
	for (int i = 0; i < s->nflows; i++) {
		struct flow *f = s->flows[i];

		if (f->dqpn == p->dest_qpn && !memcmp(f->src, p->sgid, 16) && !memcmp(f->dst, p->dgid, 16))
			return f;
	}
	return NULL;
}

/* The flow a response belongs to: responses go from the responder station
 * back to the requester station, to the requester's QP. */
static struct flow *find_resp_flow(struct sb *s, const struct rc_pkt *p)
{
	for (int i = 0; i < s->nflows; i++) {
		struct flow *f = s->flows[i];

		if (f->paired && f->rqpn == p->dest_qpn && !memcmp(f->src, p->dgid, 16) && !memcmp(f->dst, p->sgid, 16))
			return f;
	}
	return NULL;
}

static void flow_tx(void *arg, const struct rc_pkt *pkt)
{
	struct flow *f = arg;

	if (f->exp_head - f->exp_tail >= f->exp_cap) {
		uint32_t n = f->exp_cap ? f->exp_cap * 2 : 256;
		struct rc_pkt *e = calloc(n, sizeof(*e));

		if (!e)
			return;
		for (uint32_t i = 0; i < f->exp_head - f->exp_tail; i++)
			e[i] = f->exp[(f->exp_tail + i) % f->exp_cap];
		free(f->exp);
		f->exp = e;
		f->exp_head -= f->exp_tail;
		f->exp_tail = 0;
		f->exp_cap = n;
	}
	f->exp[f->exp_head % f->exp_cap] = *pkt;
	f->exp[f->exp_head % f->exp_cap].payload = NULL;
	f->exp_head++;
}

/* The first response of this flow after the current frame that carries the
 * request's PSN, if it comes before any response for a later PSN. */
static const struct rc_pkt *lookahead(struct flow *f, uint32_t psn)
{
	struct sb *s = f->sb;

	if (!f->paired)
		return NULL;
	for (size_t i = f->cur + 1; i < s->n; i++) {
		const struct rc_pkt *p = &s->fr[i].pkt;

		if (s->fr[i].err != RC_OK || (rc_op_flags(p->opcode) & RC_OPF_REQUEST) || p->dest_qpn != f->rqpn ||
		    memcmp(f->src, p->dgid, 16) || memcmp(f->dst, p->sgid, 16))
			continue;
		if (p->psn == psn)
			return p;
		if (rc_psn_diff(p->psn, psn) > 0)
			return NULL;
	}
	return NULL;
}

/* What the responder's NIC knew and the scoreboard does not: read from the
 * NIC's answer to this very request. */
static int oracle(void *arg, enum rc_oracle_q q, const struct rc_pkt *req)
{
	struct flow *f = arg;
	const struct rc_pkt *a = lookahead(f, req->psn);
	unsigned int kind, code;

	if (!a || !(rc_op_flags(a->opcode) & RC_OPF_AETH))
		return 1;
	kind = rc_aeth_kind(a->aeth_syndrome);
	code = rc_aeth_value(a->aeth_syndrome);
	switch (q) {
	case RC_ORACLE_RKEY_OK:
		return !(kind == RNIC_AETH_KIND_NAK && code == RNIC_AETH_NAK_REM_ACCESS_ERR);
	case RC_ORACLE_RECV_READY:
		return kind != RNIC_AETH_KIND_RNR;
	case RC_ORACLE_RECV_SGE_OK:
		return !(kind == RNIC_AETH_KIND_NAK && code == RNIC_AETH_NAK_REM_OP_ERR);
	case RC_ORACLE_RECV_FITS:
		return !(kind == RNIC_AETH_KIND_NAK && code == RNIC_AETH_NAK_INVALID_REQ);
	}
	return 1;
}

static struct flow *new_flow(struct sb *s, const struct rc_pkt *p)
{
	struct flow *f;

	if (s->nflows >= MAX_FLOWS)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->rec = calloc(1u << REC_BITS, sizeof(*f->rec));
	if (!f->rec) {
		free(f);
		return NULL;
	}
	f->sb = s;
	memcpy(f->src, p->sgid, 16);
	memcpy(f->dst, p->dgid, 16);
	f->dqpn = p->dest_qpn;
	f->first_psn = p->psn;
	f->req_sport = p->udp_sport;
	f->rnr_timer = s->o.min_rnr_timer == 0xff ? -1 : s->o.min_rnr_timer;
	f->req_pol = *station_policy(&s->o, f->src);
	f->resp_pol = *station_policy(&s->o, f->dst);
	s->flows[s->nflows++] = f;
	s->r->flows++;
	return f;
}

static void free_flow(struct flow *f)
{
	rc_qp_destroy(f->qp);
	rc_cq_free(&f->cq);
	free(f->exp);
	free(f->rec);
	free(f);
}

/* The model responder of a flow, once its parameters are known. */
static int start_responder(struct flow *f)
{
	struct rc_qp_cfg c;
	struct rc_oracle orc = {oracle, f};

	rc_qp_cfg_default(&c);
	c.qpn = f->dqpn;
	c.dest_qpn = f->rqpn;
	c.mtu = f->mtu;
	c.rq_psn = f->first_psn;
	c.ack_on_last = f->resp_pol.ack_on_last;
	c.ack_every = f->resp_pol.ack_every;
	c.min_rnr_timer = f->rnr_timer >= 0 ? (uint8_t)f->rnr_timer : 0;
	c.rq_size = 1;
	c.timeout = 0;
	rc_mem_init(&f->mem);
	if (rc_cq_init(&f->cq, 1u << 16))
		return -1;
	f->qp = rc_qp_create(&c, &f->mem, &f->cq, &f->cq);
	if (!f->qp)
		return -1;
	rc_qp_set_tx(f->qp, flow_tx, f);
	rc_qp_set_oracle(f->qp, &orc);
	return 0;
}

/* ------------------------------------------------------------ pre-scan */

static void prescan(struct sb *s)
{
	/* request flows, their first PSN and MTU */
	for (size_t i = 0; i < s->n; i++) {
		const struct rc_pkt *p = &s->fr[i].pkt;
		unsigned int fl = rc_op_flags(p->opcode);
		struct flow *f;

		if (s->fr[i].err != RC_OK || !(fl & RC_OPF_REQUEST))
			continue;
		f = find_req_flow(s, p);
		if (!f)
			f = new_flow(s, p);
		if (f && !f->mtu && (fl & (RC_OPF_SEND | RC_OPF_WRITE)) && !(fl & RC_OPF_END))
			f->mtu = p->payload_len;
	}
	/* learn the MTU of READ-only flows from their responses, pair the rest */
	for (int k = 0; k < s->o.npairs; k++)
		for (int i = 0; i < s->nflows; i++)
			if (s->flows[i]->dqpn == s->o.pairs[k].resp_qpn && !s->flows[i]->paired) {
				s->flows[i]->paired = 1;
				s->flows[i]->rqpn = s->o.pairs[k].req_qpn;
			}
	for (size_t i = 0; i < s->n; i++) {
		const struct rc_pkt *p = &s->fr[i].pkt;
		struct flow *cand[MAX_FLOWS], *pick = NULL;
		int nc = 0;

		if (s->fr[i].err != RC_OK || (rc_op_flags(p->opcode) & RC_OPF_REQUEST) || find_resp_flow(s, p))
			continue;
		for (int k = 0; k < s->nflows; k++) {
			struct flow *f = s->flows[k];

			if (!f->paired && !memcmp(f->src, p->dgid, 16) && !memcmp(f->dst, p->sgid, 16))
				cand[nc++] = f;
		}
		for (int k = 0; k < nc && !pick; k++)
			if (cand[k]->req_sport == p->udp_sport)
				pick = cand[k];
		for (int k = 0; k < nc && !pick; k++)
			if (cand[k]->dqpn == p->dest_qpn)
				pick = cand[k];
		if (!pick && nc == 1)
			pick = cand[0];
		if (pick) {
			pick->paired = 1;
			pick->rqpn = p->dest_qpn;
		}
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct rc_pkt *p = &s->fr[i].pkt;
		unsigned int fl = rc_op_flags(p->opcode);
		struct flow *f;

		if (s->fr[i].err != RC_OK || !(fl & RC_OPF_READ_RESP) || (fl & RC_OPF_END))
			continue;
		f = find_resp_flow(s, p);
		if (f && !f->mtu)
			f->mtu = p->payload_len;
	}
	for (int i = 0; i < s->nflows; i++) {
		struct flow *f = s->flows[i];

		if (s->o.mtu)
			f->mtu = s->o.mtu;
		if (f->mtu < 256 || f->mtu > 4096 || (f->mtu & (f->mtu - 1)))
			f->mtu = 4096; /* only single-packet messages: any MTU holds them */
	}
}

/* ------------------------------------------------------------ checks */

#define DIFF_FIELD(name, want, got)                                                                   \
	do {                                                                                          \
		if ((uint64_t)(want) != (uint64_t)(got)) {                                           \
			report(s, f, i, "%s %s PSN %#x: %s expected %#llx, captured %#llx", what,    \
			       rc_op_name(p->opcode), p->psn, name, (unsigned long long)(want),        \
			       (unsigned long long)(got));                                           \
			return;                                                                       \
		}                                                                                     \
	} while (0)

static void check_addr(struct sb *s, struct flow *f, size_t i, int dir)
{
	const struct rc_pkt *p = &s->fr[i].pkt, *a = &f->addr[dir];
	const char *what = dir ? "response" : "request";

	if (!f->have_addr[dir]) {
		f->addr[dir] = *p;
		f->have_addr[dir] = 1;
		if (dir == 1 && f->have_addr[0]) {
			/* a response goes back where the requests came from */
			if (memcmp(p->eth_dst, f->addr[0].eth_src, 6) || memcmp(p->eth_src, f->addr[0].eth_dst, 6)) {
				report(s, f, i, "response MAC addresses are not the requests' swapped");
				return;
			}
			DIFF_FIELD("ipv6", f->addr[0].ipv6, p->ipv6);
			DIFF_FIELD("P_Key", f->addr[0].pkey, p->pkey);
		}
		return;
	}
	if (memcmp(p->eth_dst, a->eth_dst, 6) || memcmp(p->eth_src, a->eth_src, 6)) {
		report(s, f, i, "%s %s PSN %#x: MAC addresses changed within the flow", what, rc_op_name(p->opcode),
		       p->psn);
		return;
	}
	DIFF_FIELD("traffic class", a->tclass, p->tclass);
	DIFF_FIELD("hop limit", a->hop_limit, p->hop_limit);
	DIFF_FIELD("flow label", a->flow_label, p->flow_label);
	DIFF_FIELD("IPv4 flags/fragment", a->ip_frag, p->ip_frag);
	DIFF_FIELD("UDP source port", a->udp_sport, p->udp_sport);
	DIFF_FIELD("P_Key", a->pkey, p->pkey);
	DIFF_FIELD("BTH byte 4 (FECN/BECN/resv6a)", 0, p->bth_b4);
	DIFF_FIELD("BTH resv7", 0, p->bth_resv7);
	DIFF_FIELD("BTH MigReq", 0, p->migreq);
}

static uint32_t payload_crc(const struct rc_pkt *p)
{
	uint32_t c = rc_crc32(0xffffffffu, p->payload, p->payload_len);

	c = rc_crc32(c, &p->atomic_swap_add, sizeof(p->atomic_swap_add));
	return rc_crc32(c, &p->atomic_compare, sizeof(p->atomic_compare));
}

static int expected_ackreq(struct sb *s, struct flow *f, uint32_t idx, int last)
{
	int a = last;

	(void)s;
	switch (f->req_pol.ackreq_policy) {
	case RC_ACKREQ_EVERY_N:
		a |= f->req_pol.ackreq_every && idx % f->req_pol.ackreq_every == f->req_pol.ackreq_every - 1;
		break;
	case RC_ACKREQ_RXE:
		a |= f->noack++ > f->req_pol.ackreq_every;
		if (a)
			f->noack = 0;
		break;
	default:
		break;
	}
	return a;
}

static void check_retransmit(struct sb *s, struct flow *f, size_t i)
{
	const struct rc_pkt *p = &s->fr[i].pkt;
	const struct rec *r = &f->rec[p->psn & REC_MASK];
	const char *what = "retransmitted request";

	s->r->retransmits++;
	if (!r->valid || r->psn != p->psn) {
		report(s, f, i, "%s PSN %#x was never sent before (next new PSN %#x)", rc_op_name(p->opcode), p->psn,
		       f->next_new);
		return;
	}
	if (r->opcode == RNIC_OP_RDMA_READ_REQUEST) {
		/* a READ asked again from a later PSN: the rest of the same READ */
		uint32_t k = (uint32_t)rc_psn_diff(p->psn, r->first_psn);

		DIFF_FIELD("opcode", r->opcode, p->opcode);
		DIFF_FIELD("RETH rkey", r->rkey, p->reth_rkey);
		DIFF_FIELD("RETH va", r->va + (uint64_t)k * f->mtu, p->reth_va);
		DIFF_FIELD("RETH length", r->rlen - k * f->mtu, p->reth_len);
		return;
	}
	DIFF_FIELD("opcode", r->opcode, p->opcode);
	DIFF_FIELD("payload length", r->len, p->payload_len);
	DIFF_FIELD("payload CRC", r->crc, payload_crc(p));
	if (rc_op_flags(p->opcode) & RC_OPF_RETH) {
		DIFF_FIELD("RETH va", r->va, p->reth_va);
		DIFF_FIELD("RETH rkey", r->rkey, p->reth_rkey);
		DIFF_FIELD("RETH length", r->rlen, p->reth_len);
	}
	if (rc_op_flags(p->opcode) & RC_OPF_ATOMIC) {
		DIFF_FIELD("AtomicETH va", r->va, p->atomic_va);
		DIFF_FIELD("AtomicETH rkey", r->rkey, p->atomic_rkey);
	}
	DIFF_FIELD("immediate", r->imm, p->imm);
	if (f->req_pol.ackreq_policy != RC_ACKREQ_RXE)
		DIFF_FIELD("AckReq", r->ackreq, p->ackreq);
}

static void check_request(struct sb *s, struct flow *f, size_t i)
{
	const struct rc_pkt *p = &s->fr[i].pkt;
	unsigned int fl = rc_op_flags(p->opcode);
	const char *what = "request";
	int32_t d;
	int last = !!(fl & RC_OPF_END), want_ack;
	struct rec *r;
	uint32_t n = p->payload_len, adv = 1;

	if (!f->started) {
		f->started = 1;
		f->next_new = p->psn;
	}
	if (f->fatal && s->fr[i].ts > f->fatal_ts + s->o.grace_ns) {
		report(s, f, i, "%s PSN %#x sent %.3f us after the fatal NAK of frame %zu reached the requester",
		       rc_op_name(p->opcode), p->psn, (s->fr[i].ts - f->fatal_ts) / 1000.0, f->fatal_frame + 1);
		return;
	}
	d = rc_psn_diff(p->psn, f->next_new);
	if (f->nak_pending && s->o.faults) {
		/* the first retransmissions may be lost too: only the RNR timer */
		if (d < 0) {
			f->nak_pending = 0;
			if (p->psn == f->nak_psn && s->fr[i].ts < f->nak_ts + f->nak_wait_ns) {
				report(s, f, i, "%s PSN %#x retried %.3f us after the RNR NAK of frame %zu; its timer asks "
				       "for %.3f us", rc_op_name(p->opcode), p->psn, (s->fr[i].ts - f->nak_ts) / 1000.0,
				       f->nak_frame + 1, f->nak_wait_ns / 1000.0);
				return;
			}
		}
	} else if (f->nak_pending && s->fr[i].ts > f->nak_ts + s->o.inflight_ns) {
		/* go back N (IBTA 9.7.5.2): the next retransmission starts at the
		 * NAKed PSN, after an RNR NAK not before its timer ran out; new
		 * PSNs may only leave in the grace time (already in the pipeline) */
		if (d < 0) {
			f->nak_pending = 0;
			if (p->psn != f->nak_psn) {
				report(s, f, i, "%s PSN %#x: after the %s NAK of frame %zu the requester must go back to "
				       "PSN %#x", rc_op_name(p->opcode), p->psn,
				       f->nak_kind == RNIC_AETH_KIND_RNR ? "RNR" : "PSN sequence", f->nak_frame + 1,
				       f->nak_psn);
				return;
			}
			if (s->fr[i].ts < f->nak_ts + f->nak_wait_ns) {
				report(s, f, i, "%s PSN %#x retried %.3f us after the RNR NAK of frame %zu; its timer asks "
				       "for %.3f us", rc_op_name(p->opcode), p->psn, (s->fr[i].ts - f->nak_ts) / 1000.0,
				       f->nak_frame + 1, f->nak_wait_ns / 1000.0);
				return;
			}
		} else {
			report(s, f, i, "%s PSN %#x is new, %.3f us after the %s NAK of frame %zu for PSN %#x (no go-back-N)",
			       rc_op_name(p->opcode), p->psn, (s->fr[i].ts - f->nak_ts) / 1000.0,
			       f->nak_kind == RNIC_AETH_KIND_RNR ? "RNR" : "PSN sequence", f->nak_frame + 1, f->nak_psn);
			return;
		}
	}
	if (d < 0) {
		const struct rec *r = &f->rec[p->psn & REC_MASK];

		if (s->o.faults && (!r->valid || r->psn != p->psn))
			goto record; /* its first transmission was lost: nothing to compare with */
		check_retransmit(s, f, i);
		return;
	}
	if (d > 0) {
		if (!s->o.faults) {
			report(s, f, i, "%s PSN %#x: the requester skipped PSNs, next new PSN expected %#x",
			       rc_op_name(p->opcode), p->psn, f->next_new);
			return;
		}
		f->resync = 1; /* lost on the link: the message structure is unknown until the next start */
	}
	if (f->resync) {
		if (!(fl & RC_OPF_START))
			goto record;
		f->resync = 0;
		f->in_msg = 0;
		f->msg_idx = 0;
	}
	/* a new packet */
	if (f->in_msg) {
		if ((fl & RC_OPF_START) || (fl & (RC_OPF_SEND | RC_OPF_WRITE)) != f->msg_class) {
			report(s, f, i, "%s PSN %#x inside an unfinished %s message", rc_op_name(p->opcode), p->psn,
			       f->msg_class == RC_OPF_SEND ? "SEND" : "WRITE");
			return;
		}
	} else if (!(fl & RC_OPF_START)) {
		report(s, f, i, "%s PSN %#x without a FIRST packet before it", rc_op_name(p->opcode), p->psn);
		return;
	}
	if (fl & (RC_OPF_SEND | RC_OPF_WRITE)) {
		if (last) {
			if (n > f->mtu || (!(fl & RC_OPF_START) && n == 0)) {
				report(s, f, i, "%s PSN %#x: payload %u bytes, MTU %u", rc_op_name(p->opcode), p->psn, n,
				       f->mtu);
				return;
			}
		} else {
			DIFF_FIELD("payload length (one MTU)", f->mtu, n);
		}
		DIFF_FIELD("pad", (0u - n) & 3, p->pad);
		if (fl & RC_OPF_WRITE) {
			if (fl & RC_OPF_START)
				f->resid = p->reth_len;
			if (last)
				DIFF_FIELD("payload length (rest of the RETH length)", f->resid, n);
			else if (n >= f->resid) {
				report(s, f, i, "%s PSN %#x: %u bytes leave nothing for the LAST packet (%u left)",
				       rc_op_name(p->opcode), p->psn, n, f->resid);
				return;
			}
			f->resid -= n;
		}
	} else if (fl & RC_OPF_READ_REQ) {
		adv = p->reth_len ? (uint32_t)(((uint64_t)p->reth_len + f->mtu - 1) / f->mtu) : 1;
	}
	want_ack = expected_ackreq(s, f, f->in_msg ? f->msg_idx : 0, last);
	if (!s->o.faults || f->req_pol.ackreq_policy != RC_ACKREQ_RXE) /* rxe counts packets lost on the link too */
		DIFF_FIELD("AckReq", want_ack, p->ackreq);
	if (p->se && !(last && ((fl & RC_OPF_SEND) || ((fl & RC_OPF_WRITE) && (fl & RC_OPF_IMM))))) {
		report(s, f, i, "%s PSN %#x: SE on a packet that cannot carry it", rc_op_name(p->opcode), p->psn);
		return;
	}
record:
	if ((fl & RC_OPF_READ_REQ) && adv == 1 && p->reth_len)
		adv = (uint32_t)(((uint64_t)p->reth_len + f->mtu - 1) / f->mtu);
	for (uint32_t k = 0; k < adv; k++) {
		r = &f->rec[(p->psn + k) & REC_MASK];
		if (k == 0 && r->valid && r->psn == p->psn && rc_psn_diff(p->psn, f->next_new) < 0)
			break; /* a late first copy: keep what is recorded */
		memset(r, 0, sizeof(*r));
		r->valid = 1;
		r->psn = rc_psn_add(p->psn, k);
		r->first_psn = p->psn;
		r->opcode = p->opcode;
		r->ackreq = p->ackreq;
		r->len = n;
		r->crc = payload_crc(p);
		r->imm = p->imm;
		if (fl & RC_OPF_ATOMIC) {
			r->va = p->atomic_va;
			r->rkey = p->atomic_rkey;
		} else {
			r->va = p->reth_va;
			r->rkey = p->reth_rkey;
			r->rlen = p->reth_len;
		}
	}
	if (rc_psn_diff(rc_psn_add(p->psn, adv), f->next_new) > 0)
		f->next_new = rc_psn_add(p->psn, adv);
	if (f->resync || d < 0)
		return; /* a first copy seen late says nothing about the message now being sent */
	if (last) {
		f->in_msg = 0;
		f->msg_idx = 0;
	} else {
		f->in_msg = 1;
		f->msg_class = fl & (RC_OPF_SEND | RC_OPF_WRITE);
		f->msg_idx++;
	}
}

static int is_fatal_nak(const struct rc_pkt *p)
{
	return (rc_op_flags(p->opcode) & RC_OPF_ACK) && rc_aeth_kind(p->aeth_syndrome) == RNIC_AETH_KIND_NAK &&
	       rc_aeth_value(p->aeth_syndrome) != RNIC_AETH_NAK_PSN_SEQ_ERR;
}

static int same_response(const struct rc_pkt *a, const struct rc_pkt *b)
{
	return a->opcode == b->opcode && a->psn == b->psn && a->payload_len == b->payload_len &&
	       (!(rc_op_flags(a->opcode) & RC_OPF_AETH) ||
		(a->aeth_msn == b->aeth_msn &&
		 (a->aeth_syndrome == b->aeth_syndrome ||
		  (rc_aeth_kind(a->aeth_syndrome) == RNIC_AETH_KIND_RNR &&
		   rc_aeth_kind(b->aeth_syndrome) == RNIC_AETH_KIND_RNR))));
}

/* With faults on the link a captured response may come after ones that were
 * lost (skip them, keeping them as possibly late), or be a duplicate or a
 * late copy. Returns 0 when the response is accounted for that way, 1 when
 * it is to be compared with the next expected one. */
static int match_lossy(struct flow *f, const struct rc_pkt *p)
{
	if (f->have_last && same_response(&f->last_match, p))
		return 0;
	for (uint32_t k = 0; k < f->nlate; k++) {
		if (same_response(&f->late[k], p)) {
			f->late[k] = f->late[--f->nlate];
			return 0;
		}
	}
	for (uint32_t k = 0; k < 256 && f->exp_tail + k != f->exp_head; k++) {
		if (!same_response(&f->exp[(f->exp_tail + k) % f->exp_cap], p))
			continue;
		while (k--) {
			if (f->nlate == 64)
				memmove(f->late, f->late + 1, 63 * sizeof(f->late[0])), f->nlate--;
			f->late[f->nlate++] = f->exp[f->exp_tail % f->exp_cap];
			f->exp_tail++;
		}
		return 1;
	}
	return 1;
}

static void check_response(struct sb *s, struct flow *f, size_t i)
{
	const struct rc_pkt *p = &s->fr[i].pkt, *e;
	const char *what = "response";

	if (s->o.faults && !match_lossy(f, p))
		return; /* a duplicate or a late copy of a response matched before */
	if (f->exp_tail == f->exp_head) {
		report(s, f, i, "%s PSN %#x (syndrome %#x, MSN %u): the model's responder would send nothing here",
		       rc_op_name(p->opcode), p->psn, p->aeth_syndrome, p->aeth_msn);
		return;
	}
	e = &f->exp[f->exp_tail % f->exp_cap];
	f->exp_tail++;
	if (e->opcode != p->opcode || e->psn != p->psn) {
		report(s, f, i, "response expected %s PSN %#x (syndrome %#x, MSN %u), captured %s PSN %#x (syndrome %#x, "
		       "MSN %u)", rc_op_name(e->opcode), e->psn, e->aeth_syndrome, e->aeth_msn, rc_op_name(p->opcode),
		       p->psn, p->aeth_syndrome, p->aeth_msn);
		return;
	}
	DIFF_FIELD("destination QP", f->rqpn, p->dest_qpn);
	if (rc_op_flags(p->opcode) & RC_OPF_AETH) {
		uint8_t want = e->aeth_syndrome;

		if (rc_aeth_kind(want) == RNIC_AETH_KIND_RNR && rc_aeth_kind(p->aeth_syndrome) == RNIC_AETH_KIND_RNR) {
			if (f->rnr_timer < 0)
				f->rnr_timer = (int)rc_aeth_value(p->aeth_syndrome);
			want = rc_aeth(RNIC_AETH_KIND_RNR, (unsigned int)f->rnr_timer);
		}
		DIFF_FIELD("AETH syndrome", want, p->aeth_syndrome);
		DIFF_FIELD("AETH MSN", e->aeth_msn, p->aeth_msn);
	}
	DIFF_FIELD("payload length", e->payload_len, p->payload_len);
	DIFF_FIELD("pad", (0u - p->payload_len) & 3, p->pad);
	DIFF_FIELD("AckReq", 0, p->ackreq);
	DIFF_FIELD("SE", 0, p->se);
	f->last_match = *p;
	f->have_last = 1;
	if (is_fatal_nak(p) && !f->fatal) {
		f->fatal = 1;
		f->fatal_ts = s->fr[i].ts;
		f->fatal_frame = i;
	} else if ((rc_op_flags(p->opcode) & RC_OPF_ACK) &&
		   (rc_aeth_kind(p->aeth_syndrome) == RNIC_AETH_KIND_RNR ||
		    p->aeth_syndrome == rc_aeth(RNIC_AETH_KIND_NAK, RNIC_AETH_NAK_PSN_SEQ_ERR))) {
		f->nak_pending = 1;
		f->nak_kind = rc_aeth_kind(p->aeth_syndrome);
		f->nak_psn = p->psn;
		f->nak_ts = s->fr[i].ts;
		f->nak_frame = i;
		f->nak_wait_ns = f->nak_kind == RNIC_AETH_KIND_RNR ? rc_rnr_timer_ns(rc_aeth_value(p->aeth_syndrome)) : 0;
	}
}

static void run(struct sb *s)
{
	for (size_t i = 0; i < s->n && !s->stop; i++) {
		struct dframe *d = &s->fr[i];
		const struct rc_pkt *p = &d->pkt;
		struct flow *f;

		s->r->frames++;
		if (d->err == RC_ERR_NOT_IP || d->err == RC_ERR_NOT_UDP || d->err == RC_ERR_NOT_ROCE) {
			s->r->skipped++;
			continue;
		}
		if (d->err != RC_OK) {
			s->r->refused++;
			if (!s->o.faults)
				report(s, NULL, i, "the model's codec refuses the frame: %s (opcode %#x PSN %#x)",
				       rc_strerror(d->err), p->opcode, p->psn);
			continue;
		}
		s->r->roce++;
		if (rc_op_flags(p->opcode) & RC_OPF_REQUEST) {
			s->r->requests++;
			f = find_req_flow(s, p);
			if (!f || f->dead)
				continue;
			if (!f->qp && start_responder(f)) {
				report(s, f, i, "cannot build the model responder (MTU %u)", f->mtu);
				continue;
			}
			check_addr(s, f, i, 0);
			if (f->dead)
				continue;
			check_request(s, f, i);
			if (f->dead)
				continue;
			f->cur = i;
			rc_qp_recv(f->qp, d->ts, p);
			rc_qp_progress(f->qp, d->ts, INT_MAX);
			if (s->o.verbose)
				fprintf(s->out, "frame %zu: %s PSN %#x to QP %#x: %u responses expected\n", i + 1,
					rc_op_name(p->opcode), p->psn, p->dest_qpn, f->exp_head - f->exp_tail);
		} else {
			s->r->responses++;
			f = find_resp_flow(s, p);
			if (!f) {
				report(s, NULL, i, "%s PSN %#x to QP %#x answers no request flow of the capture",
				       rc_op_name(p->opcode), p->psn, p->dest_qpn);
				continue;
			}
			if (f->dead)
				continue;
			check_addr(s, f, i, 1);
			if (!f->dead)
				check_response(s, f, i);
			if (s->o.verbose && !f->dead)
				fprintf(s->out, "frame %zu: %s PSN %#x as expected\n", i + 1, rc_op_name(p->opcode), p->psn);
		}
	}
	for (int k = 0; k < s->nflows && !s->stop; k++) {
		struct flow *f = s->flows[k];
		const struct rc_pkt *e;

		if (f->dead || f->exp_tail == f->exp_head)
			continue;
		e = &f->exp[f->exp_tail % f->exp_cap];
		if (s->o.strict_tail) {
			report(s, f, s->n - 1, "end of capture: the model's responder would still send %u response(s), "
			       "first %s PSN %#x (syndrome %#x, MSN %u)", f->exp_head - f->exp_tail, rc_op_name(e->opcode),
			       e->psn, e->aeth_syndrome, e->aeth_msn);
		} else {
			char a[64], b[64];

			gid_str(f->src, a, sizeof(a));
			gid_str(f->dst, b, sizeof(b));
			s->r->notes++;
			fprintf(s->out, "NOTE %s -> %s QP %#x: the responder sent none of the last %u response(s) the model "
				"expects (first %s PSN %#x, MSN %u): its QP left RTS by its host's hand, or the capture "
				"ended first\n", a, b, f->dqpn, f->exp_head - f->exp_tail, rc_op_name(e->opcode), e->psn,
				e->aeth_msn);
		}
	}
	for (int k = 0; k < s->nflows; k++)
		if (s->flows[k]->rqpn == 0 && !s->flows[k]->paired && s->flows[k]->started && s->o.verbose)
			fprintf(s->out, "note: requests to QP %#x got no response at all\n", s->flows[k]->dqpn);
}

uint64_t rc_sb_check_frames(const struct rc_sb_frame *fr, size_t n, const struct rc_sb_opts *o,
			    struct rc_sb_result *r)
{
	struct sb s;

	memset(&s, 0, sizeof(s));
	memset(r, 0, sizeof(*r));
	s.o = *o;
	s.r = r;
	s.out = o->out ? o->out : stdout;
	s.fr = calloc(n ? n : 1, sizeof(*s.fr));
	if (!s.fr)
		return 1;
	s.n = n;
	for (size_t i = 0; i < n; i++) {
		s.fr[i].err = rc_decode(fr[i].data, fr[i].len, &s.fr[i].pkt, 0);
		s.fr[i].ts = fr[i].ts_ns;
	}
	prescan(&s);
	run(&s);
	for (int k = 0; k < s.nflows; k++)
		free_flow(s.flows[k]);
	free(s.fr);
	return r->differences;
}

int64_t rc_sb_check_pcap(const char *path, const struct rc_sb_opts *o, struct rc_sb_result *r)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	struct pcap_pkthdr *h;
	const u_char *data;
	struct rc_sb_frame *fr = NULL;
	size_t n = 0, cap = 0;
	int rc;
	uint64_t diff;

	if (!pc) {
		fprintf(o->out ? o->out : stderr, "rc-scoreboard: %s: %s\n", path, err);
		return -1;
	}
	if (pcap_datalink(pc) != DLT_EN10MB) {
		fprintf(o->out ? o->out : stderr, "rc-scoreboard: %s: not an Ethernet capture\n", path);
		pcap_close(pc);
		return -1;
	}
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		uint8_t *copy;

		if (n == cap) {
			struct rc_sb_frame *nf = realloc(fr, (cap ? cap * 2 : 1024) * sizeof(*fr));

			if (!nf)
				break;
			fr = nf;
			cap = cap ? cap * 2 : 1024;
		}
		copy = malloc(h->caplen ? h->caplen : 1);
		if (!copy)
			break;
		memcpy(copy, data, h->caplen);
		fr[n].data = copy;
		fr[n].len = h->caplen;
		fr[n].ts_ns = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
		n++;
	}
	pcap_close(pc);
	diff = rc_sb_check_frames(fr, n, o, r);
	for (size_t i = 0; i < n; i++)
		free((void *)fr[i].data);
	free(fr);
	if (rc != -2) {
		fprintf(o->out ? o->out : stderr, "rc-scoreboard: %s: read error\n", path);
		return -1;
	}
	return (int64_t)diff;
}
