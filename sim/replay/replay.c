/* rnic-sim --replay FILE --frames-json: every frame of a capture through the
 * RTL receive front end, one JSON line per frame.
 *
 * The probe (rnic_rx_probe.sv) is rnic_rx_check -> plain FIFO -> rnic_pkt_rx
 * with nothing dropped: per frame the checker pulses exactly one stat_*
 * output and the parser hands over exactly one header record, followed by
 * its payload stream when the record's payload length is not 0. Frames go
 * in one at a time, with random tvalid gaps on the input and random tready
 * back-pressure on the header and payload outputs (seeded); a frame is done
 * when its verdict, its record and its payload have all come out. A frame
 * that is not done within its cycle bound, or whose outputs contradict the
 * protocol above, gets an error line; the probe is then reset and the run
 * goes on, and the program exits non-zero at the end.
 *
 * Which fields a line carries follows from how far the frame got: the
 * checker's verdict always; ip_version, ip_csum_ok and icrc_ok as far as
 * the checker's ordered checks establish them (null otherwise); the
 * parser's record (BTH, extension headers, lengths) only for frames whose
 * IP, UDP and length checks all passed (verdict ok, or bad_icrc). A frame
 * the checker passes but the parser marks bad (not an RC opcode, TVer not
 * 0, lengths short of the opcode's headers) is "malformed" with hdr_bad
 * true, as the NIC's dispatcher counts it.
 */
#define _DEFAULT_SOURCE /* u_char and friends in pcap.h */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_model.h"
#include "replay.h"
#include "rnic/rnic_hw.h"
#include "sim_int.h"

#define RESET_CYCLES 16

enum verdict {
	V_NONE,
	V_OK,
	V_NOT_ROCE,
	V_BAD_UDP_PORT,
	V_BAD_IP_CSUM,
	V_BAD_ICRC,
	V_MALFORMED,
	V_COUNT
};

static const char *const verdict_names[V_COUNT] = {
	[V_NONE] = "none",
	[V_OK] = "ok",
	[V_NOT_ROCE] = "not_roce",
	[V_BAD_UDP_PORT] = "bad_udp_port",
	[V_BAD_IP_CSUM] = "bad_ip_csum",
	[V_BAD_ICRC] = "bad_icrc",
	[V_MALFORMED] = "malformed",
};

/* IBTA Vol. 1 Table 38, RC: names by the generated opcode constants */
#define OPNAME(op) [RNIC_OP_##op] = "RC_" #op
static const char *const op_names[256] = {
	OPNAME(SEND_FIRST),
	OPNAME(SEND_MIDDLE),
	OPNAME(SEND_LAST),
	OPNAME(SEND_LAST_IMM),
	OPNAME(SEND_ONLY),
	OPNAME(SEND_ONLY_IMM),
	OPNAME(RDMA_WRITE_FIRST),
	OPNAME(RDMA_WRITE_MIDDLE),
	OPNAME(RDMA_WRITE_LAST),
	OPNAME(RDMA_WRITE_LAST_IMM),
	OPNAME(RDMA_WRITE_ONLY),
	OPNAME(RDMA_WRITE_ONLY_IMM),
	OPNAME(RDMA_READ_REQUEST),
	OPNAME(RDMA_READ_RESPONSE_FIRST),
	OPNAME(RDMA_READ_RESPONSE_MIDDLE),
	OPNAME(RDMA_READ_RESPONSE_LAST),
	OPNAME(RDMA_READ_RESPONSE_ONLY),
	OPNAME(ACKNOWLEDGE),
	OPNAME(ATOMIC_ACKNOWLEDGE),
	OPNAME(COMPARE_SWAP),
	OPNAME(FETCH_ADD),
	OPNAME(SEND_LAST_INV),
	OPNAME(SEND_ONLY_INV),
	/* UD */
	[RNIC_OP_UD_SEND_ONLY] = "UD_SEND_ONLY",
	[RNIC_OP_UD_SEND_ONLY_IMM] = "UD_SEND_ONLY_IMM",
};
#undef OPNAME

/* Extension headers the parser skips rather than records (they are not in
 * the header record): their lengths by opcode. */
struct ext_skipped {
	unsigned int atomiceth, atomicacketh, ieth;
};

static struct ext_skipped ext_skipped(uint8_t op)
{
	struct ext_skipped e = { 0, 0, 0 };

	switch (op) {
	case RNIC_OP_COMPARE_SWAP:
	case RNIC_OP_FETCH_ADD:
		e.atomiceth = RNIC_ATOMICETH_BYTES;
		break;
	case RNIC_OP_ATOMIC_ACKNOWLEDGE:
		e.atomicacketh = RNIC_ATOMICACKETH_BYTES;
		break;
	case RNIC_OP_SEND_LAST_INV:
	case RNIC_OP_SEND_ONLY_INV:
		e.ieth = RNIC_IETH_BYTES;
		break;
	default:
		break;
	}
	return e;
}

/* Header bytes before the payload, from the parser's record. */
static unsigned int hdr_bytes(const struct rnic_probe_hdr *h)
{
	struct ext_skipped e = ext_skipped(h->bth_opcode);

	return RNIC_ETH_HDR_BYTES + (h->ipv6 ? RNIC_IPV6_HDR_BYTES : RNIC_IPV4_HDR_BYTES) +
	       RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES + (h->has_reth ? RNIC_RETH_BYTES : 0) +
	       (h->has_aeth ? RNIC_AETH_BYTES : 0) + (h->has_immdt ? RNIC_IMMDT_BYTES : 0) +
	       (h->has_deth ? RNIC_DETH_BYTES : 0) + e.atomiceth + e.atomicacketh + e.ieth;
}

/* One frame on its way through the probe. */
struct frame_run {
	const uint8_t *data;
	size_t len;
	size_t taken;          /* bytes the probe has taken */
	int all_in;            /* its last beat has been taken */
	enum verdict verdict;  /* V_NONE until the checker pulses */
	int got_hdr, hdr_bad;
	struct rnic_probe_hdr hdr;
	unsigned int pay_off;  /* frame offset of the payload, from the record */
	uint32_t pay_bytes;    /* payload bytes the stream delivered */
	int pay_done;          /* the payload's tlast */
	int pay_data_ok;       /* they are the frame's bytes at pay_off on */
	char err[200];         /* first contradiction, or empty */
};

struct replay {
	const struct rnic_replay_cfg *cfg;
	struct rnic_probe *probe;
	struct rnic_probe_in in;
	struct rnic_probe_out out;
	unsigned int bytes;    /* DATA_WIDTH / 8 */
	uint64_t half_ps;
	uint64_t rng;
	uint64_t cycle;
	/* this frame's handshake probabilities */
	double p_valid, p_hdr_ready, p_pay_ready;
};

static void fail(struct frame_run *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct frame_run *f, const char *fmt, ...)
{
	va_list ap;

	if (f->err[0])
		return; /* keep the first */
	va_start(ap, fmt);
	vsnprintf(f->err, sizeof(f->err), fmt, ap);
	va_end(ap);
}

static int coin(struct replay *r, double p)
{
	return p >= 1.0 || sim_rand_unit(&r->rng) < p;
}

static uint64_t lanes(unsigned int n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/* Present the frame's next beat (dense: full but the last). */
static void load_beat(struct replay *r, const struct frame_run *f)
{
	size_t n = f->len - f->taken;

	if (n > r->bytes)
		n = r->bytes;
	memset(r->in.s_axis_rx_tdata, 0, sizeof(r->in.s_axis_rx_tdata));
	if (n)
		memcpy(r->in.s_axis_rx_tdata, f->data + f->taken, n);
	r->in.s_axis_rx_tkeep = lanes((unsigned int)n);
	r->in.s_axis_rx_tlast = f->taken + n == f->len;
	r->in.s_axis_rx_tuser = 0;
	r->in.s_axis_rx_tvalid = 1;
}

/* Inputs for this cycle, from the driver's state and the seeded coins. A
 * presented beat stays until it is taken (AXI4-Stream). */
static void drive(struct replay *r, struct frame_run *f)
{
	if (!r->in.s_axis_rx_tvalid && f && !f->all_in && coin(r, r->p_valid))
		load_beat(r, f);
	r->in.m_hdr_ready = (uint8_t)coin(r, r->p_hdr_ready);
	r->in.m_axis_payload_tready = (uint8_t)coin(r, r->p_pay_ready);
}

static void take_payload(struct replay *r, struct frame_run *f)
{
	const struct rnic_probe_out *o = &r->out;
	uint64_t keep = o->m_axis_payload_tkeep & lanes(r->bytes);
	unsigned int n = (unsigned int)__builtin_popcountll(keep);

	if (!f->got_hdr || !f->hdr.payload_len || f->pay_done) {
		fail(f, "payload beat with no header record expecting one");
		return;
	}
	if (keep != lanes(n) || (n != r->bytes && !o->m_axis_payload_tlast))
		fail(f, "payload beat not dense (tkeep 0x%" PRIx64 ")", keep);
	for (unsigned int i = 0; i < n; i++) {
		size_t at = (size_t)f->pay_off + f->pay_bytes + i;

		if (at >= f->len || f->data[at] != o->m_axis_payload_tdata[i])
			f->pay_data_ok = 0;
	}
	f->pay_bytes += n;
	if (o->m_axis_payload_tlast)
		f->pay_done = 1;
}

/* The clock edge: every handshake as both sides drive it. */
static void sample(struct replay *r, struct frame_run *f)
{
	const struct rnic_probe_out *o = &r->out;
	static const struct {
		size_t off;
		enum verdict v;
	} stats[] = {
		{ offsetof(struct rnic_probe_out, stat_good), V_OK },
		{ offsetof(struct rnic_probe_out, stat_not_roce), V_NOT_ROCE },
		{ offsetof(struct rnic_probe_out, stat_bad_udp_port), V_BAD_UDP_PORT },
		{ offsetof(struct rnic_probe_out, stat_bad_ip_csum), V_BAD_IP_CSUM },
		{ offsetof(struct rnic_probe_out, stat_bad_icrc), V_BAD_ICRC },
		{ offsetof(struct rnic_probe_out, stat_malformed), V_MALFORMED },
	};
	unsigned int pulses = 0;
	enum verdict v = V_NONE;

	if (r->in.s_axis_rx_tvalid && o->s_axis_rx_tready) {
		f->taken += (size_t)__builtin_popcountll(r->in.s_axis_rx_tkeep);
		f->all_in = r->in.s_axis_rx_tlast;
		r->in.s_axis_rx_tvalid = 0;
	}
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		if (((const uint8_t *)o)[stats[i].off]) {
			pulses++;
			v = stats[i].v;
		}
	}
	if (pulses > 1)
		fail(f, "%u checker verdicts in one cycle", pulses);
	else if (pulses && f->verdict != V_NONE)
		fail(f, "a second checker verdict (%s after %s)", verdict_names[v],
		     verdict_names[f->verdict]);
	else if (pulses && !f->all_in)
		fail(f, "checker verdict %s before the frame's last beat", verdict_names[v]);
	else if (pulses)
		f->verdict = v;

	if (o->m_hdr_valid && r->in.m_hdr_ready) {
		if (f->got_hdr) {
			fail(f, "a second header record");
		} else {
			f->got_hdr = 1;
			f->hdr = o->hdr;
			f->hdr_bad = o->m_hdr_bad;
			f->pay_off = hdr_bytes(&o->hdr);
		}
	}
	if (o->m_axis_payload_tvalid && r->in.m_axis_payload_tready)
		take_payload(r, f);
	if (o->status_overflow)
		fail(f, "the probe's FIFO overflowed (harness bug)");
}

static void cycle(struct replay *r, struct frame_run *f, int rst)
{
	r->in.rst = (uint8_t)rst;
	if (rst) {
		r->in.s_axis_rx_tvalid = 0;
		r->in.m_hdr_ready = 0;
		r->in.m_axis_payload_tready = 0;
	} else {
		drive(r, f);
	}
	rnic_probe_set_inputs(r->probe, &r->in);
	rnic_probe_eval(r->probe, 0);
	rnic_probe_get_outputs(r->probe, &r->out);
	if (!rst && f)
		sample(r, f);
	rnic_probe_time_inc(r->probe, r->half_ps);
	rnic_probe_eval(r->probe, 1);
	rnic_probe_time_inc(r->probe, r->half_ps);
	r->cycle++;
}

static void reset(struct replay *r)
{
	for (int i = 0; i < RESET_CYCLES; i++)
		cycle(r, NULL, 1);
}

static int frame_done(const struct frame_run *f)
{
	return f->verdict != V_NONE && f->got_hdr && (!f->hdr.payload_len || f->pay_done);
}

/* Handshake probabilities for the next frame: a quarter of the frames at
 * full speed, the rest with gaps and back-pressure of random severity. */
static void pick_pace(struct replay *r)
{
	if (sim_rand_unit(&r->rng) < 0.25) {
		r->p_valid = r->p_hdr_ready = r->p_pay_ready = 1.0;
		return;
	}
	r->p_valid = 0.3 + 0.7 * sim_rand_unit(&r->rng);
	r->p_hdr_ready = 0.2 + 0.8 * sim_rand_unit(&r->rng);
	r->p_pay_ready = 0.2 + 0.8 * sim_rand_unit(&r->rng);
}

/* ------------------------------------------------------------ output */

static void print_mac(FILE *o, const char *key, uint64_t mac)
{
	fprintf(o, ", \"%s\": \"", key);
	for (int i = 5; i >= 0; i--)
		fprintf(o, "%02x%s", (unsigned int)(mac >> (8 * i)) & 0xff, i ? ":" : "\"");
}

static void print_ip(FILE *o, const char *key, const uint8_t *le, int ipv6)
{
	char s[INET6_ADDRSTRLEN];
	uint8_t wire[16];
	int n = ipv6 ? 16 : 4;

	for (int k = 0; k < n; k++)
		wire[k] = le[n - 1 - k]; /* byte 0 on the wire: the most significant */
	if (!inet_ntop(ipv6 ? AF_INET6 : AF_INET, wire, s, sizeof(s)))
		snprintf(s, sizeof(s), "?");
	fprintf(o, ", \"%s\": \"%s\"", key, s);
}

static const char *tri(int known, int v)
{
	return !known ? "null" : v ? "true" : "false";
}

static const char *bool_s(int v)
{
	return v ? "true" : "false";
}

static void print_frame(FILE *o, uint64_t n, const struct pcap_pkthdr *ph,
			const struct frame_run *f)
{
	const struct rnic_probe_hdr *h = &f->hdr;
	enum verdict v = f->verdict;
	/* how far the checker's ordered checks got */
	int is_ip = v == V_OK || v == V_BAD_ICRC || v == V_BAD_UDP_PORT || v == V_BAD_IP_CSUM;
	int parsed = (v == V_OK || v == V_BAD_ICRC) && f->got_hdr;
	int v6 = f->got_hdr && h->ipv6;
	uint64_t ts = (uint64_t)ph->ts.tv_sec * 1000000000u + (uint64_t)ph->ts.tv_usec;

	fprintf(o, "{\"frame\": %" PRIu64 ", \"len\": %zu", n, f->len);
	if (ph->len != ph->caplen)
		fprintf(o, ", \"orig_len\": %u", ph->len);
	fprintf(o, ", \"ts_ns\": %" PRIu64, ts);
	if (f->len >= 14)
		fprintf(o, ", \"ethertype\": %u", (unsigned int)f->data[12] << 8 | f->data[13]);
	else
		fprintf(o, ", \"ethertype\": null");
	if (v == V_OK && f->got_hdr && f->hdr_bad)
		v = V_MALFORMED;
	fprintf(o, ", \"verdict\": \"%s\"", verdict_names[v]);
	if (is_ip && f->got_hdr)
		fprintf(o, ", \"ip_version\": %d", v6 ? 6 : 4);
	else
		fprintf(o, ", \"ip_version\": null");
	fprintf(o, ", \"ip_csum_ok\": %s",
		tri(is_ip && f->got_hdr && !v6, f->verdict != V_BAD_IP_CSUM));
	fprintf(o, ", \"icrc_ok\": %s", tri(parsed, f->verdict == V_OK));
	if (f->err[0]) {
		fprintf(o, ", \"error\": \"%s\"}\n", f->err);
		return;
	}
	if (!parsed) {
		fprintf(o, "}\n");
		return;
	}

	struct ext_skipped e = ext_skipped(h->bth_opcode);
	const char *name = op_names[h->bth_opcode];

	fprintf(o, ", \"hdr_bad\": %s", bool_s(f->hdr_bad));
	fprintf(o, ", \"opcode\": %u", h->bth_opcode);
	if (name)
		fprintf(o, ", \"opcode_name\": \"%s\"", name);
	else
		fprintf(o, ", \"opcode_name\": null");
	fprintf(o, ", \"dest_qpn\": %" PRIu32 ", \"psn\": %" PRIu32
		   ", \"ack_req\": %s, \"solicited\": %s, \"migreq\": %s, \"pad\": %u, \"pkey\": %u",
		h->bth_dest_qpn, h->bth_psn, bool_s(h->bth_ackreq), bool_s(h->bth_se),
		bool_s(h->bth_migreq), h->bth_pad, h->bth_pkey);
	print_mac(o, "eth_dst", h->eth_dst);
	print_mac(o, "eth_src", h->eth_src);
	print_ip(o, "ip_src", h->ip_src, v6);
	print_ip(o, "ip_dst", h->ip_dst, v6);
	fprintf(o, ", \"tclass\": %u, \"ttl\": %u", h->ip_tclass, h->ip_ttl);
	if (v6)
		fprintf(o, ", \"flow_label\": %" PRIu32, h->ip_flow_label);
	fprintf(o, ", \"udp_sport\": %u", h->udp_sport);
	fprintf(o, ", \"hdr_len\": {\"eth\": %u, \"ip\": %u, \"udp\": %u, \"bth\": %u, "
		   "\"reth\": %u, \"aeth\": %u, \"immdt\": %u, \"atomiceth\": %u, "
		   "\"atomicacketh\": %u, \"ieth\": %u, \"deth\": %u}",
		RNIC_ETH_HDR_BYTES, v6 ? RNIC_IPV6_HDR_BYTES : RNIC_IPV4_HDR_BYTES,
		RNIC_UDP_HDR_BYTES, RNIC_BTH_BYTES, h->has_reth ? RNIC_RETH_BYTES : 0,
		h->has_aeth ? RNIC_AETH_BYTES : 0, h->has_immdt ? RNIC_IMMDT_BYTES : 0,
		e.atomiceth, e.atomicacketh, e.ieth, h->has_deth ? RNIC_DETH_BYTES : 0);
	fprintf(o, ", \"payload_len\": %u, \"payload_streamed\": %" PRIu32
		   ", \"payload_data_ok\": %s",
		h->payload_len, f->pay_bytes, bool_s(f->pay_data_ok));
	if (h->has_reth)
		fprintf(o, ", \"reth\": {\"va\": %" PRIu64 ", \"rkey\": %" PRIu32 ", \"len\": %" PRIu32 "}",
			h->reth_va, h->reth_rkey, h->reth_len);
	if (h->has_aeth)
		fprintf(o, ", \"aeth\": {\"syndrome\": %u, \"msn\": %" PRIu32 "}", h->aeth_syndrome,
			h->aeth_msn);
	if (h->has_immdt)
		fprintf(o, ", \"immdt\": %" PRIu32, h->immdt);
	if (h->has_deth)
		fprintf(o, ", \"deth\": {\"qkey\": %" PRIu32 ", \"src_qpn\": %" PRIu32 "}", h->deth_qkey,
			h->deth_src_qpn);
	fprintf(o, "}\n");
}

/* ------------------------------------------------------------ the run */

/* One frame through the probe; 0, or -ETIMEDOUT. */
static int run_frame(struct replay *r, struct frame_run *f, uint64_t bound)
{
	uint64_t start = r->cycle;

	pick_pace(r);
	while (!frame_done(f)) {
		if (r->cycle - start >= bound) {
			fail(f, "no verdict within %" PRIu64 " cycles (verdict %s, header %s, "
			     "payload %" PRIu32 " of %u bytes, %zu of %zu frame bytes taken)",
			     bound, verdict_names[f->verdict], f->got_hdr ? "out" : "missing",
			     f->pay_bytes, f->got_hdr ? f->hdr.payload_len : 0, f->taken, f->len);
			return -ETIMEDOUT;
		}
		cycle(r, f, 0);
		if (rnic_probe_got_finish(r->probe)) {
			fprintf(stderr, "rnic-sim: the probe RTL stopped the simulation at cycle %"
				PRIu64 " ($error, $finish or an assertion)\n", r->cycle);
			exit(1);
		}
	}
	/* payload checks of a frame that got through the checker's length checks */
	if ((f->verdict == V_OK || f->verdict == V_BAD_ICRC) && !f->hdr_bad) {
		if (f->pay_bytes != f->hdr.payload_len)
			fail(f, "payload stream carried %" PRIu32 " bytes, the header record says %u",
			     f->pay_bytes, f->hdr.payload_len);
		else if (!f->pay_data_ok)
			fail(f, "payload stream differs from the frame's bytes at offset %u",
			     f->pay_off);
	}
	return 0;
}

int rnic_replay_frames_json(const struct rnic_replay_cfg *cfg)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *ph;
	const u_char *data;
	struct replay r;
	uint64_t frames = 0, errors = 0, counts[V_COUNT] = { 0 };
	uint64_t seed = cfg->seed;
	pcap_t *p;
	int rc;

	p = pcap_open_offline_with_tstamp_precision(cfg->path, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!p) {
		fprintf(stderr, "rnic-sim: cannot read %s: %s\n", cfg->path, err);
		return 1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		const char *name = pcap_datalink_val_to_name(pcap_datalink(p));

		fprintf(stderr, "rnic-sim: %s: link type %s (%d) is not Ethernet; only Ethernet "
			"(DLT_EN10MB) captures can be replayed\n", cfg->path, name ? name : "?",
			pcap_datalink(p));
		pcap_close(p);
		return 1;
	}
	memset(&r, 0, sizeof(r));
	r.cfg = cfg;
	r.bytes = cfg->data_width / 8;
	r.half_ps = 500000u / RNIC_CLOCK_MHZ;
	r.rng = sim_rand64(&seed);
	r.probe = rnic_probe_create(cfg->data_width, sim_rand64(&seed), cfg->fst_path != NULL);
	if (!r.probe) {
		fprintf(stderr, "rnic-sim: no receive probe of width %u in this program\n",
			cfg->data_width);
		pcap_close(p);
		return 1;
	}
	if (cfg->fst_path && rnic_probe_trace_open(r.probe, cfg->fst_path) < 0) {
		fprintf(stderr, "rnic-sim: cannot write %s\n", cfg->fst_path);
		rnic_probe_destroy(r.probe);
		pcap_close(p);
		return 1;
	}
	reset(&r);

	while ((rc = pcap_next_ex(p, &ph, &data)) == 1) {
		struct frame_run f;
		uint64_t bound = cfg->frame_timeout;

		memset(&f, 0, sizeof(f));
		f.data = data;
		f.len = ph->caplen;
		f.pay_data_ok = 1;
		if (!bound)
			bound = 2000 + 100 * (f.len / r.bytes + 1);
		frames++;
		if (run_frame(&r, &f, bound) < 0) {
			/* the probe is in an unknown state: start it afresh */
			memset(&r.in, 0, sizeof(r.in));
			reset(&r);
		}
		print_frame(cfg->out, frames, ph, &f);
		if (f.err[0])
			errors++;
		else
			counts[f.verdict == V_OK && f.hdr_bad ? V_MALFORMED : f.verdict]++;
	}
	if (rc == PCAP_ERROR) {
		fprintf(stderr, "rnic-sim: %s: read error after %" PRIu64 " frames: %s\n",
			cfg->path, frames, pcap_geterr(p));
		errors++;
	}
	/* nothing may come out after the last frame (and a waveform shows its end) */
	struct frame_run idle = { .all_in = 1, .pay_data_ok = 1 };

	for (int i = 0; i < 64; i++)
		cycle(&r, &idle, 0);
	if (idle.err[0] || idle.verdict != V_NONE || idle.got_hdr) {
		fprintf(stderr, "rnic-sim: %s: the probe put out more after the last frame: %s\n",
			cfg->path, idle.err[0] ? idle.err : "a verdict or header record");
		errors++;
	}
	fflush(cfg->out);
	fprintf(stderr, "rnic-sim: %s: %" PRIu64 " frames through the receive probe at %u bits: ",
		cfg->path, frames, cfg->data_width);
	for (int v = V_OK; v < V_COUNT; v++)
		fprintf(stderr, "%s %" PRIu64 ", ", verdict_names[v], counts[v]);
	fprintf(stderr, "errors %" PRIu64 "; %" PRIu64 " cycles\n", errors, r.cycle);
	rnic_probe_destroy(r.probe);
	pcap_close(p);
	return errors ? 1 : 0;
}
