/* rnic-soak: two NICs, several QP pairs, every RC operation, over a link
 * that drops 1%, reorders 1%, duplicates 1% and corrupts 0.1% of the frames
 * (seeded, printed), until the requested number of bytes has moved.
 *
 * Each round posts up to E2E_MAX_OPS random work requests (RDMA READ, RDMA
 * WRITE, SEND into a posted receive, ATOMIC compare-and-swap and
 * fetch-and-add; sizes from 1 byte to 64 KiB, and 0), both sides
 * requesting on every QP pair at once. Every op of a round has its own
 * slice of memory on both sides, so the memory images are exact whatever
 * order the queues run in; every round checks that each WQE completed
 * exactly once, in order, successfully, and that both sides' memory (guards
 * included) equals its image. At the end no QP may be in error, no
 * asynchronous event may have been raised, and nothing may complete late.
 *
 *   rnic-soak [--width 64|512] [--seed N] [--bytes N] [--qps N] [--ops N] [--pcap-dir D]
 *             [--board au250|kcu105]   (rnic-soak-board: the board designs)
 *
 * Prints one PASS/FAIL line per check, the figures (bytes, ops, retries,
 * simulated and wall time), and the closing "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "sim_pair.h"
#include "e2e_common.h"
#include "e2e_ops.h"

#define SOAK_MAX_QPS 3
#define SOAK_BUF (1u << 20)   /* each (QP pair, requester) has one such buffer per side */
#define SOAK_MAX_LEN 65536u
#define SOAK_ALIGN 64u        /* slices start on this boundary */

static uint64_t soak_bytes = 1ull << 30;
static int soak_qps = SOAK_MAX_QPS;
static int soak_ops = E2E_MAX_OPS; /* work requests per round */
static int soak_clean; /* --no-faults: a perfect link (to tell protocol bugs from others) */

#define ACCESS_ALL (RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ | \
		    RNIC_ACCESS_REMOTE_ATOMIC)

/* The buffers of requester side s on QP pair q: local on side s, remote on
 * the other side. */
struct stream {
	int local, remote;
	size_t used; /* both buffers are carved together, round by round */
};

static uint32_t pick_len(void)
{
	uint32_t k = (uint32_t)(e2e_rng() % 16);

	if (k == 0)
		return 0;
	if (k < 6)
		return 1 + (uint32_t)(e2e_rng() % 256);
	if (k < 12)
		return 1 + (uint32_t)(e2e_rng() % 8192);
	return 1 + (uint32_t)(e2e_rng() % SOAK_MAX_LEN);
}

/* One random op of stream (s, q) in the next free slice, or 0 when the
 * stream's buffers are full for this round. */
static int make_op(struct e2e_mem *m, struct stream *st, int s, int q, struct e2e_op *o,
		   uint64_t *bytes)
{
	uint32_t k = (uint32_t)(e2e_rng() % 10), len;
	size_t at = (st->used + SOAK_ALIGN - 1) / SOAK_ALIGN * SOAK_ALIGN;

	if (k >= 8) { /* ATOMIC: 8 bytes, 8-aligned on both sides */
		if (at + 8 > SOAK_BUF)
			return 0;
		/* a compare-and-swap matches half the time: the target's value now */
		uint64_t cmp = e2e_rng() & 1 ? e2e_get_le64(e2e_want_at(m, st->remote, (long)at)) : e2e_rng();

		*o = e2e_op_atomic(s, q, k == 8, st->local, at, st->remote, (long)at,
				   k == 8 ? cmp : e2e_rng(), e2e_rng());
		st->used = at + 8;
		*bytes += 8;
		return 1;
	}
	len = pick_len();
	if (at + len > SOAK_BUF)
		return 0;
	*o = e2e_op_rw(s, q, k < 3 ? RNIC_WR_RDMA_READ : k < 6 ? RNIC_WR_RDMA_WRITE : RNIC_WR_SEND,
		       st->local, at, st->remote, (long)at, len);
	st->used = at + len;
	*bytes += len;
	return 1;
}

int main(int argc, char **argv)
{
	static const char help[] =
		"  --bytes N   move at least N bytes in all (default 1 GiB; suffixes K, M, G)\n"
		"  --qps N     QP pairs, 1..3 (default 3)\n"
		"  --ops N     work requests per round, 1..128 (default 128)\n"
		"  --no-faults a perfect link (the default drops, reorders, duplicates, corrupts)\n";
	struct stream st[2][SOAK_MAX_QPS];
	struct sim_pair_opts o;
	struct e2e_world x;
	struct e2e_mem m = {0};
	static struct e2e_op ops[E2E_MAX_OPS];
	struct e2e_run r;
	struct rnic_sim_link_stats ls;
	uint64_t moved = 0, nops = 0, rounds = 0, cycles = 0, bad_rounds = 0;
	uint32_t retry[2], tmo[2], nak[2], dup[2];
	struct timespec t0, t1;
	int rc, late, in_err = 0, events = 0;
	char *end;

	/* our own options first; the rest are the common ones */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--bytes") && i + 1 < argc) {
			soak_bytes = strtoull(argv[i + 1], &end, 0);
			if (*end == 'K' || *end == 'k')
				soak_bytes <<= 10;
			else if (*end == 'M' || *end == 'm')
				soak_bytes <<= 20;
			else if (*end == 'G' || *end == 'g')
				soak_bytes <<= 30;
		} else if (!strcmp(argv[i], "--qps") && i + 1 < argc) {
			soak_qps = atoi(argv[i + 1]);
		} else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
			soak_ops = atoi(argv[i + 1]);
		} else if (!strcmp(argv[i], "--no-faults")) {
			soak_clean = 1;
			memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof(*argv));
			argc--;
			i--;
			continue;
		} else {
			continue;
		}
		memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 1) * sizeof(*argv));
		argc -= 2;
		i--;
	}
	rc = e2e_parse_args(argc, argv, "rnic-soak", help);
	if (rc >= 0)
		return rc;
	if (soak_qps < 1 || soak_qps > SOAK_MAX_QPS || soak_bytes == 0 || soak_ops < 1 ||
	    soak_ops > E2E_MAX_OPS) {
		fprintf(stderr, "rnic-soak: --qps 1..%d, --ops 1..%d, --bytes > 0\n", SOAK_MAX_QPS,
			E2E_MAX_OPS);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sim_pair_default_opts(&o);
	o.nqp = soak_qps;
	o.path_mtu = RNIC_IB_MTU_1024;
	o.cqe = 4 * E2E_MAX_OPS;
	o.max_send_wr = E2E_MAX_OPS;
	o.max_recv_wr = E2E_MAX_OPS;
	o.max_recv_sge = 1;
	o.timeout = 5; /* 131 us: a lost last packet costs that much */
	o.retry_cnt = 7;
	o.rnr_retry = 7;
	e2e_world_init(&x, "soak", &o);
	if (soak_clean ? !e2e_world_up(&x) : !e2e_lossy_up(&x))
		return e2e_summary();
	for (int s = 0; s < 2; s++)
		for (int q = 0; q < soak_qps; q++) {
			st[s][q].local = e2e_mem_add(&m, &x, s, "local", SOAK_BUF, ACCESS_ALL, 1);
			st[s][q].remote = e2e_mem_add(&m, &x, 1 - s, "remote", SOAK_BUF, ACCESS_ALL, 1);
			if (st[s][q].local < 0 || st[s][q].remote < 0) {
				e2e_result(0, "%s: buffers", x.tag);
				e2e_mem_free(&m);
				e2e_world_down(&x);
				return e2e_summary();
			}
		}
	printf("  %s: %d QP pairs, both sides requesting, %.1f MiB to move\n", x.tag, soak_qps,
	       (double)soak_bytes / (1 << 20));
	while (moved < soak_bytes && !bad_rounds) {
		int n = 0, full = 0;

		for (int s = 0; s < 2; s++)
			for (int q = 0; q < soak_qps; q++)
				st[s][q].used = 0;
		/* round robin over the streams until the round or a buffer is full */
		while (n < soak_ops && !full) {
			for (int s = 0; s < 2 && n < soak_ops && !full; s++)
				for (int q = 0; q < soak_qps && n < soak_ops && !full; q++)
					if (make_op(&m, &st[s][q], s, q, &ops[n], &moved))
						n++;
					else
						full = 1;
		}
		/* e2e_run_ops posts consecutive ops of one (side, QP) together */
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				if (ops[j].side < ops[i].side ||
				    (ops[j].side == ops[i].side && ops[j].qp < ops[i].qp)) {
					struct e2e_op t = ops[i];

					ops[i] = ops[j];
					ops[j] = t;
				}
		if (!e2e_run_ops(&x, &m, ops, n, &r)) {
			bad_rounds++;
			e2e_result(0, "%s: round %llu: %d ops, %d of %d completions, %d not as expected, memory %s",
				   x.tag, (unsigned long long)rounds, n, e2e_got(&r), e2e_wanted(&r), r.bad_wc,
				   r.mem_ok ? "exact" : "wrong");
		}
		nops += (uint64_t)n;
		cycles += r.cycles;
		rounds++;
		if (rounds % 64 == 0)
			printf("  %s: %llu rounds, %.1f MiB moved\n", x.tag, (unsigned long long)rounds,
			       (double)moved / (1 << 20));
	}
	e2e_result(!bad_rounds, "%s: %llu rounds, %llu work requests, every one completed once, in order, successfully; memory byte-exact each round",
		   x.tag, (unsigned long long)rounds, (unsigned long long)nops);
	late = e2e_drain_quiet(&x, 200000);
	for (int s = 0; s < 2; s++) {
		struct rnic_async_event ev;

		for (int q = 0; q < soak_qps; q++) {
			struct rnic_qp_attr qa;
			struct rnic_qp_init_attr qi;

			if (rnic_query_qp(x.p.side[s].qp[q], &qa, 0, &qi) || qa.qp_state != RNIC_QPS_RTS)
				in_err++;
		}
		while (rnic_get_async_event(x.p.side[s].ctx, &ev) == 0)
			events++;
		retry[s] = e2e_counter_or(x.p.side[s].ctx, RNIC_REG_STAT_RETRY, 0xffffffffu);
		tmo[s] = e2e_counter_or(x.p.side[s].ctx, RNIC_REG_STAT_ACK_TIMEOUT, 0xffffffffu);
		nak[s] = e2e_counter_or(x.p.side[s].ctx, RNIC_REG_STAT_RX_NAK, 0xffffffffu);
		dup[s] = e2e_counter_or(x.p.side[s].ctx, RNIC_REG_STAT_RX_DUPLICATE, 0xffffffffu);
	}
	e2e_result(late == 0 && in_err == 0 && events == 0,
		   "%s: afterwards %d late completions, %d QPs not in RTS, %d asynchronous events", x.tag, late,
		   in_err, events);
	rnic_world_link_stats(x.w, &ls);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	e2e_result(soak_clean || (ls.dropped > 0 && ls.reordered > 0 && ls.duplicated > 0 &&
				  ls.corrupted > 0 && retry[0] + retry[1] > 0),
		   "%s: the link dropped %llu, reordered %llu, duplicated %llu, corrupted %llu of %llu frames; STAT_RETRY %u/%u, STAT_ACK_TIMEOUT %u/%u, STAT_RX_NAK %u/%u, STAT_RX_DUPLICATE %u/%u (side 0/1)",
		   x.tag, (unsigned long long)ls.dropped, (unsigned long long)ls.reordered,
		   (unsigned long long)ls.duplicated, (unsigned long long)ls.corrupted,
		   (unsigned long long)ls.frames, retry[0], retry[1], tmo[0], tmo[1], nak[0], nak[1], dup[0],
		   dup[1]);
	{
		struct rnic_sim_port_stats ps[2];
		uint32_t stall[2], over[2];

		for (int i = 0; i < 2; i++) {
			rnic_sim_nic_port_stats(x.w, i, &ps[i]);
			stall[i] = e2e_counter(x.p.side[i].ctx, RNIC_REG_STAT_RX_PAUSE_STALL);
			over[i] = e2e_counter(x.p.side[i].ctx, RNIC_REG_STAT_RX_DROP_OVERFLOW);
		}
		/* the receive path drains whatever holds the transmit path: a
		 * pause is never given up as stalled, and no frame meets a full
		 * FIFO, except on a side one of whose XOFF frames the link's
		 * faults lost, corrupted or held back (the peer sent on until
		 * the refresh; the link's own drops are counted above) */
		e2e_result(stall[0] == 0 && stall[1] == 0 && (over[0] == 0 || ps[0].tx_xoff_faulted > 0) &&
				   (over[1] == 0 || ps[1].tx_xoff_faulted > 0),
			   "%s: flow control: pause requests %u/%u, given up as stalled %u/%u, frames dropped for a full receive FIFO %u/%u; XOFF frames %llu/%llu, of them hit by the link's faults %llu/%llu; data frames held by a pause %llu/%llu cycles (side 0/1)",
			   x.tag, e2e_counter(x.p.side[0].ctx, RNIC_REG_STAT_RX_PAUSE_REQ),
			   e2e_counter(x.p.side[1].ctx, RNIC_REG_STAT_RX_PAUSE_REQ), stall[0], stall[1], over[0],
			   over[1], (unsigned long long)ps[0].tx_xoff_frames, (unsigned long long)ps[1].tx_xoff_frames,
			   (unsigned long long)ps[0].tx_xoff_faulted, (unsigned long long)ps[1].tx_xoff_faulted,
			   (unsigned long long)ps[0].tx_paused_cycles, (unsigned long long)ps[1].tx_paused_cycles);
	}
	printf("  %s: moved %llu bytes (%.1f MiB) in %llu work requests, %llu simulated cycles (%.3f ms at %u MHz), %.1f s wall\n",
	       x.tag, (unsigned long long)moved, (double)moved / (1 << 20), (unsigned long long)nops,
	       (unsigned long long)cycles, rnic_world_cycles_to_ns(x.w, cycles) / 1e6,
	       rnic_world_cfg(x.w)->clock_mhz,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	e2e_mem_free(&m);
	e2e_world_down(&x);
	return e2e_summary();
}
