/* `make bench`: two simulated NICs back to back, measured in simulated
 * cycles and reported at the stated clock (cycles are exact and repeatable:
 * same build, same seed, same figures; no wall-clock time is involved).
 *
 *   bw       RDMA WRITE, RDMA READ and SEND goodput for 64 B, 4 KiB and
 *            64 KiB messages on one QP with its send queue kept full (READ:
 *            the NIC keeps max_rd_atomic = 16 outstanding; SEND: receive
 *            WQEs kept posted on the responder, so there is no RNR, the
 *            first ones posted and their doorbells delivered before the
 *            first SEND, as perftest's server posts them before the
 *            handshake that starts the client), in Gb/s
 *            and as a fraction of the link rate; at 100 Gb/s also 4 KiB
 *            and 64 KiB over 8 QPs, and WRITEs both ways at once over 1
 *            and 8 QP pairs each way (bidir: the slower direction's
 *            goodput);
 *   rate     64 B RDMA WRITE message rate over 1, 8 and 64 QPs, posted round
 *            robin with every send queue kept full (every 16th WQE
 *            signaled, as perftest does), in Mmsg/s and as a fraction of
 *            the 64 B WRITE packets the link could carry; at 100 Gb/s also
 *            64 B READ and SEND;
 *   loss     64 KiB RDMA WRITE goodput with 0.1% and 1% of the frames
 *            dropped by the link (seeded), and the retransmission counters;
 *            in full runs also rows where much is outstanding when a frame
 *            is lost: 8 READs of 1 MiB in flight, and 64 KiB WRITEs over 8
 *            QPs, at 1% loss (100 Gb/s only). A full run measures every loss
 *            row once more without loss and prints that goodput beside it
 *            and the fraction kept, against its target (issue 23 item 6:
 *            0.95 at 0.1% and 0.85 at 1% for the 512-bit WRITE rows, 0.5
 *            for the rows with much outstanding);
 *   lat      64 B RDMA WRITE and READ round trip, one message at a time:
 *            the doorbell (post_send) to the completion polled, min, median
 *            and max over the iterations, in ns; and the 64 B WRITE inline
 *            (the payload in the WQE: no payload read), without and with the
 *            doorbell page's WQE window (no WQE fetch either); and
 *            write_lat_pingpong, perftest's write_lat: each side RDMA-WRITEs
 *            into the other's buffer and polls its own memory for the
 *            other's write, half the round trip reported (with avg, stdev,
 *            p99, p99.9), the WQE from host memory and inline through the
 *            WQE window. Under every latency row, where its cycles went:
 *            host MMIO, host-memory reads and writes, link, the NIC's own
 *            transmit, receive, ACK and CQE stages, measured from the
 *            simulator's harness events along the round trip (latency.h;
 *            the stages add up to it), and the NIC's own cycles of one way.
 * The 100 Gb/s goodput and rate rows print their target (issue 23) and
 * whether it is met; the JSON has it as target / target_met.
 * Every case runs on the 64-bit (10 Gb/s link) and the 512-bit (100 Gb/s)
 * core, with the local ACK timeout code ACK_TIMEOUT_LOSS on the loss rows'
 * QPs and ACK_TIMEOUT on the others'. The NIC
 * counters of go-back-N (restarts, ACK timeouts, NAKs, duplicates, frames
 * the receive FIFO dropped) are kept with every row and printed wherever
 * they are not zero: some cases lose frames inside the NICs, not only on
 * the link.
 *
 * Every message carries its own pattern and is checked byte for byte in its
 * destination when it completes; the whole destination (with the guard
 * bytes between slots) is checked at the end of the case; every completion
 * must succeed and neither NIC may make a DMA fault. A case that fails any
 * of this is reported and the program exits 1.
 *
 * Table and JSON (one object per row): cycles is the first doorbell to the
 * last completion polled (lat: the median round trip); value is Gb/s,
 * Mmsg/s or ns; "of link" is goodput over the link rate (rate: messages
 * over the 64 B WRITE packets the link could carry); "of limit"
 * (wire_limit_fraction) is goodput over the most the link allows messages
 * of that size and MTU once every packet's headers, ICRC, FCS, preamble and
 * gap are paid (host/tools/wire.c); seed, loss rate, ACK timeout code, the
 * host and link model in force and the counters come with every row.
 *
 *   rnic-bench [--json FILE] [--quick] [--seed N] [--only SUBSTRING,...] [--skip SUBSTRING,...]
 *              [--trace-iter N] [--per-iteration] [--pcap-dir DIR]
 *              [--mem-bw B] [--mem-latency N] [--link-latency N]
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "latency.h"
#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"
#include "stream.h"
#include "wire.h"

/* Local ACK timeout code of the loss rows' QPs (and their lossless
 * twins): 4.096 us * 2^5 = 131 us, longer than the gap between two ACKs of
 * a full window at 10 Gb/s (eight 4 KiB packets, 27 us), short next to the
 * default code 14 (67 ms), one of which would otherwise dominate a case
 * that loses the last packets of a burst. The other rows: 4.096 us * 2^10
 * = 4.2 ms. 131 us is too short for 8 QPs of 16 READs of 64 KiB each
 * outstanding (8 MiB, 671 us at 100 Gb/s): a QP whose responses queue
 * behind the others' times out and re-requests READs that are merely
 * queued (64 KiB READs over 8 QPs: 23 timeouts, 66% of the wire limit
 * instead of 99%). perftest's 14 (67 ms) would outlast the stream's 10 ms
 * limit where a frame is lost inside a NIC (a receive FIFO whose pause was
 * given up) at the end of a run. */
#define ACK_TIMEOUT_LOSS 5
#define ACK_TIMEOUT 10
#define SQ_DEPTH 128          /* send WQEs kept posted per QP (the whole ring) */
#define SIGNAL_EVERY 16       /* every 16th WQE of a QP (and its last) is signaled */
#define MAX_RECORDS 96
/* The NIC's own cycles of one way the 512-bit core is to reach (sender's
 * doorbell -> first byte out, plus receiver's last byte in -> host write
 * issued): issue 23, item 4 of the 100 GbE work. */
#define LAT_TARGET_512 60
/* The 100 Gb/s rows' targets (issue 23 items 2 and 3): 4 KiB and 64 KiB
 * goodput over 1 and 8 QPs at 0.99 of the wire limit, both ways at once
 * 0.97 per direction; 64 B WRITEs over 8 and 64 QPs at 50 M messages/s,
 * READs and SENDs at 40 M. */
#define BW_GOAL 0.99
#define BIDIR_GOAL 0.97
#define WRITE_RATE_GOAL 50.0
#define OTHER_RATE_GOAL 40.0

enum kind { K_BW, K_RATE, K_LOSS, K_LAT };

static const char *const kind_name[] = {"bw", "rate", "bw", "lat"};

struct bench_case {
	enum kind kind;
	uint32_t opcode; /* RNIC_WR_RDMA_WRITE, RNIC_WR_RDMA_READ or RNIC_WR_SEND */
	int width;
	size_t msg;
	int qps;
	uint64_t messages;
	double p_drop;
	/* the payload is inline in the WQE; with `window`, rnic_post_send also
	 * writes it into the doorbell page's WQE window (else the library is
	 * opened with RNIC_NO_WQE_WINDOW) */
	int inl, window;
	int pingpong; /* K_LAT: perftest's write_lat, half the round trip (latency.h) */
	int depth;        /* WQEs outstanding per QP (0: SQ_DEPTH) */
	int signal_every; /* 0: SIGNAL_EVERY */
	double target;    /* K_LOSS: goodput kept over the lossless run to reach (0: none) */
	/* K_BW: both NICs request at once, qps QP pairs each way, each side
	 * writing (reading, sending) to the other; the row's goodput is the
	 * lower direction's */
	int bidir;
	/* the row's target (issue 23 items 2 and 3): K_BW the wire-limit
	 * fraction, K_RATE Mmsg/s (0: none) */
	double goal;
};

/* The NIC counters reported with every row. */
struct counters {
	uint32_t retry;       /* requester: go-back-N restarts (STAT_RETRY) */
	uint32_t stale;       /* requester: queued packets a restart made stale (STAT_TX_STALE) */
	uint32_t ack_timeout; /* requester: local ACK timeouts */
	uint32_t rx_nak;      /* requester: NAKs received */
	uint32_t tx_nak;      /* responder: NAKs sent */
	uint32_t rx_dup;      /* responder: duplicate requests */
	uint32_t rnr_nak;     /* responder: RNR NAKs sent */
	uint32_t overflow;    /* both: frames dropped by a full receive FIFO */
	uint32_t pause_req;   /* both: link pauses asked for (STAT_RX_PAUSE_REQ) */
	uint32_t pause_stall; /* both: pause requests given up (STAT_RX_PAUSE_STALL) */
	uint64_t paused;      /* both MACs: cycles a data frame waited for a pause */
};

struct record {
	char name[48];
	const struct bench_case *c;
	uint64_t cycles;   /* first doorbell to last completion (lat: median round trip) */
	uint64_t seed;
	unsigned clock_mhz;
	uint8_t timeout;   /* local ACK timeout code of the QPs */
	double gbps, mmsgs, link_gbps, wire_fraction; /* wire_fraction < 0: not meaningful */
	double limit_fraction; /* goodput over the link's limit for the message; < 0: none */
	uint32_t mtu;      /* path MTU, bytes */
	struct rnic_sim_cfg model; /* the world's configuration in force */
	double lat_ns[3];  /* min, median, max */
	double lat_avg_ns, lat_stdev_ns, lat_p99_ns, lat_p999_ns;
	struct lat_result lat; /* K_LAT: the breakdown (lat.it freed after the row) */
	uint64_t link_dropped;
	struct counters cnt;
	int verified;
	double ref_gbps;   /* K_LOSS in a full run: the same case without loss (< 0: not run) */
	double dir_gbps[2]; /* bidir: each direction's goodput (side 0 requesting, side 1) */
};

/* ---------------------------------------------------------------- cases */

static const char *op_name(uint32_t opcode)
{
	return opcode == RNIC_WR_RDMA_READ ? "read" : opcode == RNIC_WR_SEND ? "send" : "write";
}

static const char *op_json(uint32_t opcode)
{
	return opcode == RNIC_WR_RDMA_READ ? "rdma_read" : opcode == RNIC_WR_SEND ? "send" : "rdma_write";
}

static uint32_t counter(struct rnic_context *ctx, uint32_t reg)
{
	uint32_t v = 0;

	if (rnic_read_counter(ctx, reg, &v))
		return 0xffffffffu;
	return v;
}

static uint64_t pct_index(uint64_t n, double p)
{
	uint64_t i = (uint64_t)ceil(p * (double)n);

	return i ? (i > n ? n - 1 : i - 1) : 0;
}

static long trace_iter = -1; /* --trace-iter */
static int per_iteration;    /* --per-iteration */
static const char *pcap_dir; /* --pcap-dir: each case's wire as DIR/<case>.pcap */

static void case_name(const struct bench_case *c, char *buf, size_t len);

/* Goodput of the case's messages (of one direction) over `cycles`, Gb/s. */
static double goodput_gbps(const struct bench_case *c, uint64_t cycles, unsigned clock_mhz)
{
	return (double)c->msg * (double)c->messages * 8.0 / ((double)cycles / (clock_mhz * 1e6)) / 1e9;
}

static int run_case(const struct bench_case *c, const struct rnic_sim_cfg *base, uint64_t seed,
		    struct record *r)
{
	struct rnic_sim_cfg cfg;
	struct sim_pair_opts o;
	struct sim_pair p;
	struct rnic_world *w;
	struct stream rev, *sts[2];
	struct stream st;
	struct rnic_sim_link_stats ls;
	uint64_t *lat = NULL;
	double link_bps, secs;
	char name[48], pcap[4096];
	int err;

	memset(r, 0, sizeof(*r));
	r->c = c;
	r->seed = seed;
	cfg = *base;
	cfg.num_nics = 2;
	cfg.data_width = (unsigned)c->width;
	cfg.seed = seed;
	cfg.p_drop = c->p_drop;
	if (pcap_dir) {
		case_name(c, name, sizeof(name));
		snprintf(pcap, sizeof(pcap), "%s/%s.pcap", pcap_dir, name);
		cfg.pcap_path = pcap;
	}
	r->clock_mhz = cfg.clock_mhz;
	w = rnic_world_create(&cfg);
	if (!w)
		return stream_err("world: %s", strerror(errno));
	r->model = *rnic_world_cfg(w);
	r->model.pcap_path = r->model.fst_path = NULL; /* the world's own strings */
	sim_pair_default_opts(&o);
	r->mtu = 128u << o.path_mtu;
	o.nqp = c->bidir ? 2 * c->qps : c->qps;
	o.max_send_wr = SQ_DEPTH;
	if (c->opcode == RNIC_WR_SEND) {
		o.max_recv_wr = SQ_DEPTH;
		o.max_recv_sge = 1;
	}
	o.timeout = c->kind == K_LOSS ? ACK_TIMEOUT_LOSS : ACK_TIMEOUT;
	r->timeout = o.timeout;
	if (!c->window)
		setenv("RNIC_NO_WQE_WINDOW", "1", 1);
	err = sim_pair_open(&p, w, &o);
	unsetenv("RNIC_NO_WQE_WINDOW");
	if (err) {
		rnic_world_destroy(w);
		return stream_err("setup failed");
	}
	memset(&st, 0, sizeof(st));
	st.p = &p;
	st.opcode = c->opcode;
	st.msg = c->msg;
	st.stride = stream_stride(c->msg);
	st.count = c->messages;
	st.qps = c->qps;
	st.depth = c->depth ? c->depth : SQ_DEPTH;
	/* no more slots than a QP has messages (8 QPs of 64 KiB: 16 each, not
	 * 128 slots of 64 KiB per QP and side) */
	if ((uint64_t)st.depth > (c->messages + (uint64_t)c->qps - 1) / (uint64_t)c->qps)
		st.depth = (int)((c->messages + (uint64_t)c->qps - 1) / (uint64_t)c->qps);
	st.signal_every = c->signal_every ? c->signal_every : SIGNAL_EVERY;
	st.inline_max = c->inl ? (uint32_t)c->msg : 0;
	st.salt = stream_mix64(seed ^ ((uint64_t)c->width << 48) ^ ((uint64_t)c->kind << 56) ^ c->msg);
	if (c->kind == K_LAT) {
		struct lat_opts lo = {
			.mode = c->pingpong ? LAT_PINGPONG : LAT_RTT,
			.opcode = c->opcode,
			.msg = c->msg,
			.inl = c->inl,
			.iters = c->messages,
			.salt = st.salt,
			.trace_iter = trace_iter,
		};

		lat = calloc(c->messages, sizeof(*lat));
		if (!lat) {
			sim_pair_close(&p);
			rnic_world_destroy(w);
			return stream_err("out of memory");
		}
		r->verified = lat_run(&p, &lo, &r->lat) == 0;
		for (uint64_t k = 0; r->verified && k < c->messages; k++)
			lat[k] = r->lat.it[k].rtt;
	} else if (c->bidir) {
		/* the same stream the other way, on QP pairs of its own */
		rev = st;
		rev.dir = 1;
		rev.qp0 = c->qps;
		rev.salt = stream_mix64(st.salt);
		sts[0] = &st;
		sts[1] = &rev;
		/* the run's cycles are the slower direction's, so the row's
		 * goodput below is that direction's */
		r->cycles = stream_run_all(sts, 2);
		r->verified = r->cycles != 0;
		for (int d = 0; d < 2 && r->verified; d++)
			r->dir_gbps[d] = goodput_gbps(c, sts[d]->cycles, cfg.clock_mhz);
	} else {
		r->cycles = stream_run(&st);
		r->verified = r->cycles != 0;
	}

	r->cnt.retry = counter(p.side[0].ctx, RNIC_REG_STAT_RETRY);
	r->cnt.stale = counter(p.side[0].ctx, RNIC_REG_STAT_TX_STALE);
	r->cnt.ack_timeout = counter(p.side[0].ctx, RNIC_REG_STAT_ACK_TIMEOUT);
	r->cnt.rx_nak = counter(p.side[0].ctx, RNIC_REG_STAT_RX_NAK);
	r->cnt.tx_nak = counter(p.side[1].ctx, RNIC_REG_STAT_TX_NAK);
	r->cnt.rx_dup = counter(p.side[1].ctx, RNIC_REG_STAT_RX_DUPLICATE);
	r->cnt.rnr_nak = counter(p.side[1].ctx, RNIC_REG_STAT_TX_RNR_NAK);
	r->cnt.overflow = counter(p.side[0].ctx, RNIC_REG_STAT_RX_DROP_OVERFLOW) +
			  counter(p.side[1].ctx, RNIC_REG_STAT_RX_DROP_OVERFLOW);
	r->cnt.pause_req = counter(p.side[0].ctx, RNIC_REG_STAT_RX_PAUSE_REQ) +
			   counter(p.side[1].ctx, RNIC_REG_STAT_RX_PAUSE_REQ);
	r->cnt.pause_stall = counter(p.side[0].ctx, RNIC_REG_STAT_RX_PAUSE_STALL) +
			     counter(p.side[1].ctx, RNIC_REG_STAT_RX_PAUSE_STALL);
	for (int i = 0; i < 2; i++) {
		struct rnic_sim_port_stats ps;

		rnic_sim_nic_port_stats(w, i, &ps);
		r->cnt.paused += ps.tx_paused_cycles;
	}
	rnic_world_link_stats(w, &ls);
	r->link_dropped = ls.dropped;
	if (r->verified && r->cnt.rnr_nak) {
		stream_err("%u RNR NAKs: the receive queue ran dry", r->cnt.rnr_nak);
		r->verified = 0;
	}

	link_bps = rnic_world_cfg(w)->link_rate * 8.0 * cfg.clock_mhz * 1e6;
	r->link_gbps = link_bps / 1e9;
	r->wire_fraction = -1;
	r->limit_fraction = -1;
	if (r->verified && c->kind == K_LAT) {
		/* pingpong: half the round trip, as perftest reports write_lat */
		double f = c->pingpong ? 0.5 : 1.0, sum = 0, sq = 0;
		uint64_t n = c->messages;

		qsort(lat, n, sizeof(*lat), stream_cmp_u64);
		r->cycles = lat[n / 2];
		r->lat_ns[0] = f * rnic_world_cycles_to_ns(w, lat[0]);
		r->lat_ns[1] = f * rnic_world_cycles_to_ns(w, lat[n / 2]);
		r->lat_ns[2] = f * rnic_world_cycles_to_ns(w, lat[n - 1]);
		for (uint64_t k = 0; k < n; k++) {
			double x = f * rnic_world_cycles_to_ns(w, lat[k]);

			sum += x;
			sq += x * x;
		}
		r->lat_avg_ns = sum / (double)n;
		r->lat_stdev_ns = sq / (double)n - r->lat_avg_ns * r->lat_avg_ns;
		r->lat_stdev_ns = r->lat_stdev_ns > 0 ? sqrt(r->lat_stdev_ns) : 0;
		/* perftest's percentiles: the sample at ceil(p * n) - 1 of the sorted ones */
		r->lat_p99_ns = f * rnic_world_cycles_to_ns(w, lat[pct_index(n, 0.99)]);
		r->lat_p999_ns = f * rnic_world_cycles_to_ns(w, lat[pct_index(n, 0.999)]);
	} else if (r->verified) {
		secs = (double)r->cycles / (cfg.clock_mhz * 1e6);
		r->gbps = goodput_gbps(c, r->cycles, cfg.clock_mhz);
		r->mmsgs = (double)c->messages / secs / 1e6;
		/* every pair in the benchmark speaks RoCEv2 over IPv4 (GID index 0) */
		r->limit_fraction = r->gbps / (r->link_gbps * wire_limit(c->opcode, c->msg, r->mtu, 0));
		/* a rate row's messages over those the link could carry: the same ratio */
		r->wire_fraction = c->kind == K_RATE ? r->limit_fraction : r->gbps / r->link_gbps;
	}
	free(lat);
	if (!per_iteration)
		lat_free(&r->lat); /* the medians stay */
	sim_pair_close(&p);
	rnic_world_destroy(w);
	return r->verified ? 0 : -1;
}

/* The row reached its goal (issue 23): the wire-limit fraction, or Mmsg/s. */
static int goal_met(const struct record *r)
{
	return r->c->kind == K_RATE ? r->mmsgs >= r->c->goal : r->limit_fraction >= r->c->goal;
}

/* Whether `name` contains one of the comma-separated substrings of `list`. */
static int name_in(const char *name, const char *list)
{
	while (*list) {
		size_t n = strcspn(list, ",");

		for (const char *q = name; n && *q; q++)
			if (!strncmp(q, list, n))
				return 1;
		list += n;
		if (*list == ',')
			list++;
	}
	return 0;
}

/* --only and --skip */
static int selected(const char *name, const char *only, const char *skip)
{
	return (!only || name_in(name, only)) && (!skip || !name_in(name, skip));
}

static void case_name(const struct bench_case *c, char *buf, size_t len)
{
	char qps[16] = "", loss[24] = "", out[16] = "";
	const char *inl = c->inl ? (c->window ? "_inline_window" : "_inline") : "";
	const char *pp = c->pingpong ? "_pingpong" : c->bidir ? "_bidir" : "";

	if (c->kind == K_RATE || c->qps > 1)
		snprintf(qps, sizeof(qps), "_%dqp", c->qps);
	if (c->depth)
		snprintf(out, sizeof(out), "_%dout", c->depth);
	if (c->kind == K_LOSS)
		snprintf(loss, sizeof(loss), "_loss%gpct", c->p_drop * 100.0);
	snprintf(buf, len, "%s_%s%s%s%s_w%d_%zuB%s%s", op_name(c->opcode), kind_name[c->kind], pp, inl, loss,
		 c->width, c->msg, qps, out);
}

/* The cases in table order; `quick` runs each with fewer messages. */
static int build_cases(struct bench_case *cs, int max, int quick)
{
	static const uint32_t bw_ops[] = {RNIC_WR_RDMA_WRITE, RNIC_WR_RDMA_READ, RNIC_WR_SEND};
	static const uint32_t lat_ops[] = {RNIC_WR_RDMA_WRITE, RNIC_WR_RDMA_READ};
	static const size_t sizes[] = {64, 4096, 65536};
	static const int rate_qps[] = {1, 8, 64};
	static const double drops[] = {0.001, 0.01};
	static const int widths[] = {64, 512};
	const uint64_t bw_bytes = quick ? (2u << 20) : (8u << 20), bw_max = quick ? 500 : 2000;
	uint64_t bw_msgs[3]; /* a goodput case's messages: bw_bytes of them, at most bw_max */
	int n = 0;

	for (int si = 0; si < 3; si++)
		bw_msgs[si] = bw_bytes / sizes[si] < bw_max ? bw_bytes / sizes[si] : bw_max;
#define ADD(...) do { if (n < max) cs[n] = (struct bench_case){__VA_ARGS__}; n++; } while (0)
	for (size_t oi = 0; oi < sizeof(bw_ops) / sizeof(bw_ops[0]); oi++)
		for (int wi = 0; wi < 2; wi++)
			for (int si = 0; si < 3; si++)
				ADD(.kind = K_BW, .opcode = bw_ops[oi], .width = widths[wi], .msg = sizes[si], .qps = 1,
				    .messages = bw_msgs[si],
				    .goal = widths[wi] == 512 && sizes[si] >= 4096 ? BW_GOAL : 0);
	/* 100 Gb/s: the same over 8 QPs, and WRITEs both ways at once */
	for (size_t oi = 0; oi < sizeof(bw_ops) / sizeof(bw_ops[0]); oi++)
		for (int si = 1; si < 3; si++)
			ADD(.kind = K_BW, .opcode = bw_ops[oi], .width = 512, .msg = sizes[si], .qps = 8,
			    .messages = bw_msgs[si], .goal = BW_GOAL);
	for (int qi = 0; qi < 2; qi++)
		for (int si = 1; si < 3; si++)
			ADD(.kind = K_BW, .opcode = RNIC_WR_RDMA_WRITE, .width = 512, .msg = sizes[si], .qps = qi ? 8 : 1,
			    .messages = bw_msgs[si], .bidir = 1,
			    .goal = BIDIR_GOAL);
	for (int wi = 0; wi < 2; wi++)
		for (int qi = 0; qi < 3; qi++)
			ADD(.kind = K_RATE, .opcode = RNIC_WR_RDMA_WRITE, .width = widths[wi], .msg = 64,
			    .qps = rate_qps[qi], .messages = quick ? 512 : 2048,
			    .goal = widths[wi] == 512 && rate_qps[qi] > 1 ? WRITE_RATE_GOAL : 0);
	/* 100 Gb/s: 64 B READ and SEND message rates */
	for (int oi = 1; oi < 3; oi++)
		for (int qi = 0; qi < 3; qi++)
			ADD(.kind = K_RATE, .opcode = bw_ops[oi], .width = 512, .msg = 64, .qps = rate_qps[qi],
			    .messages = quick ? 512 : 2048, .goal = rate_qps[qi] > 1 ? OTHER_RATE_GOAL : 0);
	for (int wi = 0; wi < 2; wi++)
		for (int di = 0; di < 2; di++)
			ADD(.kind = K_LOSS, .opcode = RNIC_WR_RDMA_WRITE, .width = widths[wi], .msg = 65536, .qps = 1,
			    .messages = quick ? 32 : 512, .p_drop = drops[di],
			    .target = widths[wi] == 512 ? (di ? 0.85 : 0.95) : 0);
	/* much outstanding when a frame is lost: 8 READs of 1 MiB in flight
	 * (each signaled, so the 8 stay posted), and 64 KiB WRITEs over 8 QPs,
	 * 16 posted on each (8 MiB; every 4th signaled) */
	if (!quick) {
		ADD(.kind = K_LOSS, .opcode = RNIC_WR_RDMA_READ, .width = 512, .msg = 1u << 20, .qps = 1,
		    .messages = 64, .p_drop = 0.01, .depth = 8, .signal_every = 1, .target = 0.5);
		ADD(.kind = K_LOSS, .opcode = RNIC_WR_RDMA_WRITE, .width = 512, .msg = 65536, .qps = 8,
		    .messages = 1024, .p_drop = 0.01, .depth = 16, .signal_every = 4, .target = 0.5);
	}
	for (size_t oi = 0; oi < sizeof(lat_ops) / sizeof(lat_ops[0]); oi++)
		for (int wi = 0; wi < 2; wi++)
			ADD(.kind = K_LAT, .opcode = lat_ops[oi], .width = widths[wi], .msg = 64, .qps = 1,
			    .messages = quick ? 20 : 100);
	/* the low-latency path: the WRITE's 64 bytes inline, with and without
	 * the WQE window */
	for (int wi = 0; wi < 2; wi++)
		for (int win = 0; win < 2; win++)
			ADD(.kind = K_LAT, .opcode = RNIC_WR_RDMA_WRITE, .width = widths[wi], .msg = 64, .qps = 1,
			    .messages = quick ? 20 : 100, .inl = 1, .window = win);
	/* perftest's write_lat: each side writes into the other's memory and
	 * polls its own; the WQE from host memory with the payload read, and
	 * the payload inline through the WQE window */
	for (int wi = 0; wi < 2; wi++)
		for (int win = 0; win < 2; win++)
			ADD(.kind = K_LAT, .opcode = RNIC_WR_RDMA_WRITE, .width = widths[wi], .msg = 64, .qps = 1,
			    .messages = quick ? 20 : 100, .inl = win, .window = win, .pingpong = 1);
#undef ADD
	return n;
}

/* ---------------------------------------------------------------- output */

/* Under a latency row: where the median round trip's cycles went (each
 * stage's median over the iterations; every iteration's stages add up to
 * its round trip, the largest difference is the residual), and the NIC's
 * own cycles of one way against the budget. */
static void print_breakdown(const struct record *r)
{
	const struct lat_result *L = &r->lat;
	double sum = 0;

	printf("  %s breakdown, median cycles of the round trip (%" PRIu64 "):", r->name, r->cycles);
	for (int s = 0; s < LAT_STAGES; s++) {
		printf(" %s %.0f", lat_stage_name[s], L->stage_med[s]);
		sum += L->stage_med[s];
	}
	printf("; sum %.0f, residual %" PRId64 "\n", sum, L->residual_max);
	printf("  %s one way (side 0 -> 1): AXI4-Lite port %.0f of the MMIO; sender doorbell -> first byte out %.0f (doorbell -> first read %.0f, "
	       "between reads %.0f, data -> wire %.0f; host reads excluded)", r->name, L->side_med[LAT_S_MMIO_PORT],
	       L->side_med[LAT_S_TX_OWN],
	       L->side_med[LAT_S_TX_DOORBELL], L->side_med[LAT_S_TX_BETWEEN], L->side_med[LAT_S_TX_BUILD]);
	if (L->side_med[LAT_S_ONEWAY_NIC] >= 0)
		printf(", receiver last byte in -> write issued %.0f: NIC %.0f cycles%s",
		       L->side_med[LAT_S_RX_OWN], L->side_med[LAT_S_ONEWAY_NIC],
		       r->c->width == 512 ? (L->side_med[LAT_S_ONEWAY_NIC] <= LAT_TARGET_512 ? " (target <= 60: met)"
											 : " (target <= 60: not met)")
					  : "");
	printf("; link %.0f; ACK turnaround %.0f; CQE %.0f\n", L->side_med[LAT_S_LINK_ONEWAY], L->side_med[LAT_S_ACK],
	       L->side_med[LAT_S_CQE]);
}

static void print_row(const struct record *r)
{
	const struct bench_case *c = r->c;
	char val[24], frac[16] = "", lim[16] = "", notes[384] = "";

	if (!r->verified)
		snprintf(val, sizeof(val), "FAILED");
	else if (c->kind == K_LAT)
		snprintf(val, sizeof(val), "%.1f", r->lat_ns[1]);
	else if (c->kind == K_RATE)
		snprintf(val, sizeof(val), "%.3f", r->mmsgs);
	else
		snprintf(val, sizeof(val), "%.3f", r->gbps);
	if (r->verified && r->wire_fraction >= 0)
		snprintf(frac, sizeof(frac), "%.1f%%", 100.0 * r->wire_fraction);
	if (r->verified && r->limit_fraction >= 0)
		snprintf(lim, sizeof(lim), "%.1f%%", 100.0 * r->limit_fraction);
	if (c->kind == K_LAT && c->pingpong)
		snprintf(notes, sizeof(notes), "half round trip; min %.1f max %.1f avg %.1f stdev %.1f p99 %.1f p99.9 %.1f ns",
			 r->lat_ns[0], r->lat_ns[2], r->lat_avg_ns, r->lat_stdev_ns, r->lat_p99_ns, r->lat_p999_ns);
	else if (c->kind == K_LAT)
		snprintf(notes, sizeof(notes), "min %.1f max %.1f ns", r->lat_ns[0], r->lat_ns[2]);
	else if (c->kind == K_LOSS || r->cnt.retry || r->cnt.ack_timeout || r->cnt.overflow)
		snprintf(notes, sizeof(notes),
			 "link dropped %" PRIu64 ", RX FIFO dropped %u; retries %u (%u queued packets dropped as stale), "
			 "ACK timeouts %u, NAKs %u, dups %u",
			 r->link_dropped, r->cnt.overflow, r->cnt.retry, r->cnt.stale, r->cnt.ack_timeout, r->cnt.rx_nak,
			 r->cnt.rx_dup);
	if (c->kind == K_LOSS && r->verified && r->ref_gbps > 0) {
		size_t n = strlen(notes);
		double kept = r->gbps / r->ref_gbps;

		snprintf(notes + n, sizeof(notes) - n, "; without loss %.3f Gb/s, kept %.3f", r->ref_gbps, kept);
		if (c->target > 0) {
			n = strlen(notes);
			snprintf(notes + n, sizeof(notes) - n, " (target >= %.2f: %s)", c->target,
				 kept >= c->target ? "met" : "not met");
		}
	}
	if (c->bidir && r->verified) {
		size_t n = strlen(notes);

		snprintf(notes + n, sizeof(notes) - n, "%seach way: %.3f / %.3f Gb/s", n ? "; " : "", r->dir_gbps[0],
			 r->dir_gbps[1]);
	}
	if (c->goal > 0 && r->verified) {
		size_t n = strlen(notes);

		if (c->kind == K_RATE)
			snprintf(notes + n, sizeof(notes) - n, "%starget >= %g Mmsg/s: %s", n ? "; " : "", c->goal,
				 goal_met(r) ? "met" : "not met");
		else
			snprintf(notes + n, sizeof(notes) - n, "%starget >= %.2f of limit: %s", n ? "; " : "", c->goal,
				 goal_met(r) ? "met" : "not met");
	}
	if (c->kind != K_LAT && r->cnt.pause_req) {
		size_t n = strlen(notes);

		snprintf(notes + n, sizeof(notes) - n, "%s%u link pauses (%u given up), %" PRIu64 " cycles paused",
			 n ? "; " : "", r->cnt.pause_req, r->cnt.pause_stall, r->cnt.paused);
	}
	printf("%-30s %5d %6zu %4d %8" PRIu64 " %10" PRIu64 " %9s %-6s %7s %8s  %s\n", r->name, c->width, c->msg,
	       c->qps, c->messages, r->cycles, val, c->kind == K_LAT ? "ns" : c->kind == K_RATE ? "Mmsg/s" : "Gb/s",
	       frac, lim, notes);
	if (c->kind == K_LAT && r->verified)
		print_breakdown(r);
	fflush(stdout);
}

/* The host and link model a row was measured under (the world's
 * configuration in force, defaults resolved for the width). */
static void json_model(FILE *f, const struct rnic_sim_cfg *m)
{
	fprintf(f,
		"\"model\": {\"mem_rd_bw\": %g, \"mem_wr_bw\": %g, \"mem_rd_latency\": %u, \"mem_wr_latency\": %u, "
		"\"mem_max_rd\": %u, \"mem_max_wr\": %u, \"bar_latency\": %u, \"link_rate\": %g, "
		"\"link_latency\": %u}, ",
		m->mem_rd_bw, m->mem_wr_bw, m->mem_rd_latency, m->mem_wr_latency, m->mem_max_rd, m->mem_max_wr,
		m->bar_latency, m->link_rate, m->link_latency);
}

static void json_row(FILE *f, const struct record *r, int last)
{
	const struct bench_case *c = r->c;
	double value = c->kind == K_LAT ? r->lat_ns[1] : c->kind == K_RATE ? r->mmsgs : r->gbps;

	fprintf(f,
		"  {\"name\": \"%s\", \"op\": \"%s\", \"metric\": \"%s\", \"width_bits\": %d, \"msg_bytes\": %zu, "
		"\"qps\": %d, \"messages\": %" PRIu64 ", \"cycles\": %" PRIu64 ", \"clock_mhz\": %u, "
		"\"value\": %.4f, \"unit\": \"%s\", \"gbps\": %.4f, \"mmsg_per_s\": %.4f, \"link_gbps\": %.1f, ",
		r->name, op_json(c->opcode), c->kind == K_LOSS ? "bw_loss" : kind_name[c->kind], c->width, c->msg,
		c->qps, c->messages, r->cycles, r->clock_mhz, value,
		c->kind == K_LAT ? "ns" : c->kind == K_RATE ? "Mmsg/s" : "Gb/s", r->gbps, r->mmsgs, r->link_gbps);
	if (r->wire_fraction >= 0)
		fprintf(f, "\"wire_fraction\": %.4f, ", r->wire_fraction);
	else
		fprintf(f, "\"wire_fraction\": null, ");
	if (r->limit_fraction >= 0)
		fprintf(f, "\"wire_limit_fraction\": %.4f, ", r->limit_fraction);
	else
		fprintf(f, "\"wire_limit_fraction\": null, ");
	if (c->kind == K_LOSS && r->verified && r->ref_gbps > 0)
		fprintf(f, "\"lossless_gbps\": %.4f, \"lossless_fraction\": %.4f, \"lossless_target\": %g, ",
			r->ref_gbps, r->gbps / r->ref_gbps, c->target);
	if (c->depth)
		fprintf(f, "\"outstanding_per_qp\": %d, ", c->depth);
	if (c->bidir)
		fprintf(f, "\"bidirectional\": true, \"gbps_per_direction\": [%.4f, %.4f], ", r->dir_gbps[0],
			r->dir_gbps[1]);
	if (c->goal > 0)
		fprintf(f, "\"target\": %g, \"target_unit\": \"%s\", \"target_met\": %s, ", c->goal,
			c->kind == K_RATE ? "Mmsg/s" : "wire_limit_fraction", r->verified && goal_met(r) ? "true" : "false");
	fprintf(f, "\"mtu\": %u, \"ip_version\": 4, ", r->mtu);
	json_model(f, &r->model);
	fprintf(f, "\"inline\": %s, \"wqe_window\": %s, ", c->inl ? "true" : "false",
		c->inl && c->window ? "true" : "false");
	if (c->kind == K_LAT) {
		fprintf(f, "\"iterations\": %" PRIu64 ", \"lat_min_ns\": %.1f, \"lat_median_ns\": %.1f, \"lat_max_ns\": %.1f, ",
			c->messages, r->lat_ns[0], r->lat_ns[1], r->lat_ns[2]);
		fprintf(f, "\"lat_avg_ns\": %.1f, \"lat_stdev_ns\": %.1f, \"lat_p99_ns\": %.1f, \"lat_p99_9_ns\": %.1f, "
			"\"pingpong\": %s, \"half_round_trip\": %s, ",
			r->lat_avg_ns, r->lat_stdev_ns, r->lat_p99_ns, r->lat_p999_ns, c->pingpong ? "true" : "false",
			c->pingpong ? "true" : "false");
		if (r->verified) {
			fprintf(f, "\"breakdown_cycles\": {");
			for (int s = 0; s < LAT_STAGES; s++)
				fprintf(f, "%s\"%s\": %.1f", s ? ", " : "", lat_stage_name[s], r->lat.stage_med[s]);
			fprintf(f, "}, \"breakdown_residual_cycles\": %" PRId64 ", \"side_cycles\": {", r->lat.residual_max);
			for (int s = 0; s < LAT_SIDES; s++)
				fprintf(f, "%s\"%s\": %.1f", s ? ", " : "", lat_side_name[s], r->lat.side_med[s]);
			fprintf(f, "}, ");
		}
		if (r->verified && r->lat.it) {
			fprintf(f, "\"per_iteration\": [");
			for (uint64_t k = 0; k < r->lat.iters; k++) {
				const struct lat_iter *it = &r->lat.it[k];

				fprintf(f, "%s{\"rtt\": %" PRIu64 ", \"residual\": %" PRId64, k ? ", " : "", it->rtt,
					it->residual);
				for (int s = 0; s < LAT_STAGES; s++)
					fprintf(f, ", \"%s\": %" PRId64, lat_stage_name[s], it->stage[s]);
				for (int s = 0; s < LAT_SIDES; s++)
					fprintf(f, ", \"%s\": %" PRId64, lat_side_name[s], it->side[s]);
				fprintf(f, "}");
			}
			fprintf(f, "], ");
		}
	}
	fprintf(f,
		"\"loss_rate\": %g, \"seed\": %" PRIu64 ", \"ack_timeout_code\": %u, \"link_dropped\": %" PRIu64 ", "
		"\"retries\": %u, \"stale_dropped\": %u, \"ack_timeouts\": %u, \"naks_received\": %u, \"naks_sent\": %u, "
		"\"duplicates_received\": %u, \"rnr_naks\": %u, \"rx_fifo_drops\": %u, \"pause_requests\": %u, "
		"\"pause_stalls\": %u, \"paused_cycles\": %" PRIu64 ", \"verified\": %s}%s\n",
		c->p_drop, r->seed, r->timeout, r->link_dropped, r->cnt.retry, r->cnt.stale, r->cnt.ack_timeout, r->cnt.rx_nak,
		r->cnt.tx_nak, r->cnt.rx_dup, r->cnt.rnr_nak, r->cnt.overflow, r->cnt.pause_req,
		r->cnt.pause_stall, r->cnt.paused, r->verified ? "true" : "false", last ? "" : ",");
}

/* One line per width: the model the rows of that width assume. */
static void print_model(const struct rnic_sim_cfg *base, int width)
{
	struct rnic_sim_cfg m = *base;

	m.data_width = (unsigned)width;
	rnic_sim_cfg_resolve(&m);
	printf("w%d model: host memory %g B/cycle each way (%.1f GB/s), read round trip %u cycles, "
	       "%u reads outstanding; link %g B/cycle (%.0f Gb/s), %u cycles\n",
	       width, m.mem_rd_bw, m.mem_rd_bw * m.clock_mhz / 1000.0, m.mem_rd_latency, m.mem_max_rd, m.link_rate,
	       m.link_rate * 8 * m.clock_mhz / 1000.0, m.link_latency);
}

/* Create the folders above a file (build/bench/ for the results on a tree
 * where make bench has not run yet); an error shows at the fopen. */
static void mkdir_parents(const char *path)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(dir, 0777) != 0 && errno != EEXIST)
			return;
		*p = '/';
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", required_argument, NULL, 'j'},
		{"quick", no_argument, NULL, 'q'},
		{"seed", required_argument, NULL, 's'},
		{"only", required_argument, NULL, 'o'},
		{"skip", required_argument, NULL, 'k'},
		{"trace-iter", required_argument, NULL, 't'},
		{"per-iteration", no_argument, NULL, 'P'},
		{"pcap-dir", required_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},
		RNIC_SIM_MODEL_LONGOPTS('M'),
		{NULL, 0, NULL, 0},
	};
	const char *json = "build/bench/results.json", *only = NULL, *skip = NULL;
	struct bench_case cases[MAX_RECORDS];
	struct record rec[MAX_RECORDS];
	int ncase, nrec = 0, quick = 0, c, li, failed = 0, widths = 0;
	struct rnic_sim_cfg base;
	uint64_t seed = 1;
	char *end;
	FILE *f;

	stream_prog = "rnic-bench";
	rnic_sim_cfg_default(&base);
	while ((c = getopt_long(argc, argv, "j:qs:o:k:t:h", opts, &li)) != -1) {
		switch (c) {
		case 'j': json = optarg; break;
		case 'q': quick = 1; break;
		case 's':
			seed = strtoull(optarg, &end, 0);
			if (*end || !*optarg) {
				fprintf(stderr, "rnic-bench: bad seed '%s'\n", optarg);
				return 2;
			}
			break;
		case 'o': only = optarg; break;
		case 'k': skip = optarg; break;
		case 'P': per_iteration = 1; break;
		case 'C': pcap_dir = optarg; break;
		case 't':
			trace_iter = strtol(optarg, &end, 0);
			if (*end || !*optarg || trace_iter < 0) {
				fprintf(stderr, "rnic-bench: bad iteration '%s'\n", optarg);
				return 2;
			}
			break;
		case 'M':
			if (rnic_sim_model_opt(&base, "rnic-bench", opts[li].name, optarg))
				return 2;
			break;
		default:
			printf("usage: %s [--json FILE] [--quick] [--seed N] [--only SUBSTRING]\n"
			       "          [--skip SUBSTRING] [--trace-iter N] [--per-iteration] [--pcap-dir DIR]\n"
			       "          [--mem-bw B] [--mem-latency N] [--link-latency N]\n"
			       "RDMA WRITE, READ and SEND goodput, WRITE message rate over 1/8/64 QPs, WRITE and READ goodput\n"
			       "under link loss (full runs: beside the same run without loss) and WRITE/READ latency of\n"
			       "two simulated NICs, in simulated cycles at\n"
			       "the stated clock; every message is checked. --quick: fewer messages per case;\n"
			       "--only: the cases whose name contains SUBSTRING; --skip: not those whose name\n"
			       "contains SUBSTRING (each a comma-separated list: any of them). Every latency row prints where its\n"
			       "cycles went; --trace-iter N: the harness events of its iteration N; --per-iteration:\n"
			       "each iteration's breakdown in the JSON; --pcap-dir DIR: each case's wire (both\n"
			       "directions, timestamps in simulated time) as DIR/<case>.pcap. The host and link model (the\n"
			       "defaults follow the width; each row of the results records what it assumed):\n",
			       argv[0]);
			rnic_sim_model_help(stdout, 2, 20);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rnic-bench: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	ncase = build_cases(cases, MAX_RECORDS, quick);
	if (ncase > MAX_RECORDS) {
		fprintf(stderr, "rnic-bench: %d cases, room for %d\n", ncase, MAX_RECORDS);
		return 1;
	}
	printf("seed %" PRIu64 "; local ACK timeout code %u (%.0f us) in the loss rows, %u (%.1f ms) in the others%s\n",
	       seed, ACK_TIMEOUT_LOSS, 4.096 * (1u << ACK_TIMEOUT_LOSS), ACK_TIMEOUT,
	       4.096e-3 * (1u << ACK_TIMEOUT), quick ? "; quick" : "");
	for (int i = 0; i < ncase; i++) {
		char name[48];
		int bit = cases[i].width == 512;

		case_name(&cases[i], name, sizeof(name));
		if (!selected(name, only, skip) || widths & 1 << bit)
			continue;
		widths |= 1 << bit;
		print_model(&base, cases[i].width);
	}
	printf("%-30s %5s %6s %4s %8s %10s %9s %-6s %7s %8s  %s\n", "benchmark", "width", "msg", "qps", "messages",
	       "cycles", "value", "unit", "of link", "of limit", "notes");
	for (int i = 0; i < ncase; i++) {
		struct record *r = &rec[nrec];
		char name[48];

		case_name(&cases[i], name, sizeof(name));
		if (!selected(name, only, skip))
			continue;
		if (run_case(&cases[i], &base, seed, r))
			failed = 1;
		r->ref_gbps = -1;
		if (cases[i].kind == K_LOSS && !quick && r->verified) {
			/* the same case without loss, for the fraction kept */
			struct bench_case lossless = cases[i];
			struct record ref;

			lossless.p_drop = 0;
			if (run_case(&lossless, &base, seed, &ref))
				failed = 1;
			else
				r->ref_gbps = ref.gbps;
			lat_free(&ref.lat);
			r->c = &cases[i];
		}
		snprintf(r->name, sizeof(r->name), "%s", name);
		print_row(r);
		nrec++;
	}
	mkdir_parents(json);
	f = fopen(json, "w");
	if (!f) {
		fprintf(stderr, "rnic-bench: %s: %s\n", json, strerror(errno));
		return 1;
	}
	fprintf(f, "[\n");
	for (int i = 0; i < nrec; i++)
		json_row(f, &rec[i], i + 1 == nrec);
	fprintf(f, "]\n");
	fclose(f);
	for (int i = 0; i < nrec; i++)
		lat_free(&rec[i].lat);
	printf("results: %s\n", json);
	if (failed)
		fprintf(stderr, "rnic-bench: FAILED: a case did not verify (see above)\n");
	return failed;
}
