/* What the end-to-end programs share; see e2e_common.h. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e_common.h"
#include "ud_qp.h"

int e2e_width = 64;
unsigned int e2e_board; /* RNIC_SIM_BOARD_*: NONE simulates the bare core */
uint64_t e2e_seed = 1;
const char *e2e_pcap_dir;
int e2e_quick;
int e2e_passed, e2e_failed;

static uint64_t rng_state;

int e2e_parse_args(int argc, char **argv, const char *prog, const char *help)
{
	static const struct option opts[] = {
		{"width", required_argument, NULL, 'w'},
		{"seed", required_argument, NULL, 's'},
		{"pcap-dir", required_argument, NULL, 'p'},
		{"quick", no_argument, NULL, 'q'},
		{"board", required_argument, NULL, 'b'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "w:s:p:qb:h", opts, NULL)) != -1) {
		int b;

		switch (c) {
		case 'b':
			b = rnic_sim_board_parse(optarg);
			if (b < 0) {
				fprintf(stderr, "%s: --board: au250, kcu105 or none\n", prog);
				return 2;
			}
			e2e_board = (unsigned int)b;
			/* a board's width is its own */
			if (rnic_sim_board_width(e2e_board))
				e2e_width = (int)rnic_sim_board_width(e2e_board);
			break;
		case 'w': e2e_width = atoi(optarg); break;
		case 's': e2e_seed = strtoull(optarg, NULL, 0); break;
		case 'p': e2e_pcap_dir = optarg; break;
		case 'q': e2e_quick = 1; break;
		default:
			fprintf(c == 'h' ? stdout : stderr,
				"usage: %s --width 64|512 [--seed N] [--pcap-dir DIR] [--quick]\n"
				"       [--board au250|kcu105: the board's design around the core]\n%s",
				prog, help);
			return c == 'h' ? 0 : 2;
		}
	}
	if (e2e_width != 64 && e2e_width != 512) {
		fprintf(stderr, "%s: --width must be 64 or 512\n", prog);
		return 2;
	}
	return -1;
}

void e2e_result(int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s w%d ", ok ? "PASS" : "FAIL", e2e_width);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	if (ok)
		e2e_passed++;
	else
		e2e_failed++;
}

void e2e_mtu_suites(void (*suite)(uint32_t mtu, int quick))
{
	if (!e2e_quick)
		suite(RNIC_IB_MTU_256, 0);
	suite(RNIC_IB_MTU_1024, e2e_quick);
	if (!e2e_quick)
		suite(RNIC_IB_MTU_4096, 0);
}

int e2e_summary(void)
{
	printf("%d passed, %d failed\n", e2e_passed, e2e_failed);
	return e2e_failed ? 1 : 0;
}

void e2e_rng_seed(uint64_t s)
{
	rng_state = s;
}

uint64_t e2e_rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t e2e_counter_or(struct rnic_context *ctx, uint32_t reg, uint32_t on_error)
{
	uint32_t v = 0;

	if (rnic_read_counter(ctx, reg, &v))
		return on_error;
	return v;
}

void e2e_nic_health(struct rnic_sim_nic *nic, struct e2e_nic_health *h)
{
	struct rnic_sim_mem_stats st;
	struct rnic_sim_bar_stats bs;

	rnic_sim_nic_mem_stats(nic, &st);
	rnic_sim_nic_bar_stats(nic, &bs);
	h->faults = rnic_sim_nic_faults(nic, NULL, 0);
	h->protocol_errors = st.protocol_errors;
	h->bar_errors = bs.errors;
	rnic_sim_nic_memcheck_stats(nic, &h->mc);
}

void e2e_check_nics(struct rnic_world *w, const char *tag, int bar)
{
	for (unsigned int i = 0; i < rnic_world_num_nics(w); i++) {
		struct e2e_nic_health h;
		char mc[256];

		e2e_nic_health(rnic_world_nic(w, (int)i), &h);
		if (h.mc.armed)
			snprintf(mc, sizeof(mc), "memcheck: %llu violations in %llu read bursts and %llu write beats checked, %llu windows opened, %llu refused",
				 (unsigned long long)h.mc.violations,
				 (unsigned long long)h.mc.rd_bursts_checked,
				 (unsigned long long)h.mc.wr_beats_checked,
				 (unsigned long long)h.mc.windows_opened,
				 (unsigned long long)h.mc.windows_refused);
		else
			snprintf(mc, sizeof(mc), "memcheck: not armed (no command granted memory; %llu read bursts, %llu write beats unchecked)",
				 (unsigned long long)h.mc.rd_bursts_unchecked,
				 (unsigned long long)h.mc.wr_beats_unchecked);
		if (bar)
			e2e_result(h.faults == 0 && h.protocol_errors == 0 && h.bar_errors == 0 &&
					   h.mc.violations == 0,
				   "%s: NIC %u DMA faults %llu, AXI protocol errors %llu, BAR errors %llu, %s", tag, i,
				   (unsigned long long)h.faults, (unsigned long long)h.protocol_errors,
				   (unsigned long long)h.bar_errors, mc);
		else
			e2e_result(h.faults == 0 && h.protocol_errors == 0 && h.mc.violations == 0,
				   "%s: NIC %u DMA faults %llu, AXI protocol errors %llu, %s", tag, i,
				   (unsigned long long)h.faults, (unsigned long long)h.protocol_errors, mc);
	}
}

/* ---------------------------------------------------------------- buffers */

/* Registered buffers a case gave back, kept for the next case of the same
 * world that asks for the same PD, length and access: a registration is a
 * few firmware commands, thousands of simulated cycles per page list, and
 * the cases of a world ask for the same buffers again and again. Only the
 * PDs of an e2e_world that is up are cached; e2e_world_down deregisters
 * them. Registration itself is checked by every first use and by
 * rnic-e2e-fw. */
#define E2E_BUF_CACHE 48
static struct {
	struct e2e_buf b;
	int access;
} buf_cache[E2E_BUF_CACHE];
static struct rnic_pd *buf_cache_pd[2];

static int buf_cache_ok(const struct rnic_pd *pd)
{
	return pd && (pd == buf_cache_pd[0] || pd == buf_cache_pd[1]);
}

static void buf_cache_flush(void)
{
	for (int i = 0; i < E2E_BUF_CACHE; i++)
		if (buf_cache[i].b.mr) {
			rnic_dereg_mr(buf_cache[i].b.mr);
			free(buf_cache[i].b.base);
			memset(&buf_cache[i], 0, sizeof(buf_cache[i]));
		}
	buf_cache_pd[0] = buf_cache_pd[1] = NULL;
}

int e2e_buf_init(struct e2e_buf *b, struct rnic_pd *pd, size_t len, int access, int fill_random)
{
	size_t total = (len + 2 * E2E_GUARD + 4095) & ~(size_t)4095;

	memset(b, 0, sizeof(*b));
	for (int i = 0; buf_cache_ok(pd) && i < E2E_BUF_CACHE; i++)
		if (buf_cache[i].b.mr && buf_cache[i].b.mr->pd == pd && buf_cache[i].b.len == len &&
		    buf_cache[i].access == access) {
			*b = buf_cache[i].b;
			memset(&buf_cache[i], 0, sizeof(buf_cache[i]));
			memset(b->base, E2E_GUARD_BYTE, total);
			if (fill_random)
				for (size_t k = 0; k < len; k++)
					b->p[k] = (uint8_t)e2e_rng();
			b->access = access;
			return 0;
		}
	b->base = aligned_alloc(4096, total);
	if (!b->base)
		return ENOMEM;
	memset(b->base, E2E_GUARD_BYTE, total);
	b->p = b->base + E2E_GUARD;
	b->len = len;
	if (fill_random)
		for (size_t i = 0; i < len; i++)
			b->p[i] = (uint8_t)e2e_rng();
	b->mr = rnic_reg_mr(pd, b->p, len ? len : 1, access);
	b->access = access;
	return b->mr ? 0 : (errno ? errno : EIO);
}

void e2e_buf_free(struct e2e_buf *b)
{
	for (int i = 0; b->mr && buf_cache_ok(b->mr->pd) && i < E2E_BUF_CACHE; i++)
		if (!buf_cache[i].b.mr) {
			buf_cache[i].b = *b;
			buf_cache[i].access = b->access;
			memset(b, 0, sizeof(*b));
			return;
		}
	if (b->mr)
		rnic_dereg_mr(b->mr);
	free(b->base);
	memset(b, 0, sizeof(*b));
}

int e2e_untouched(const struct e2e_buf *b, long from, long to)
{
	for (long i = from; i < to; i++)
		if (b->p[i] != E2E_GUARD_BYTE)
			return 0;
	return 1;
}

int e2e_only_written(const struct e2e_buf *b, size_t off, size_t n)
{
	return e2e_untouched(b, -E2E_GUARD, (long)off) &&
	       e2e_untouched(b, (long)(off + n), (long)(b->len + E2E_GUARD));
}

struct rnic_sg_entry e2e_sg(const void *addr, uint32_t len, uint32_t lkey)
{
	struct rnic_sg_entry s;

	s.addr = (uint64_t)(uintptr_t)addr;
	s.length = len;
	s.lkey = lkey;
	return s;
}

/* ---------------------------------------------------------------- worlds */

void e2e_world_init(struct e2e_world *x, const char *name, const struct sim_pair_opts *o)
{
	memset(x, 0, sizeof(*x));
	snprintf(x->tag, sizeof(x->tag), "w%d_%s", e2e_width, name);
	x->o = *o;
	x->idle_cycles = E2E_IDLE_CYCLES;
	x->max_wait_cycles = E2E_MAX_WAIT_CYCLES;
}

int e2e_world_up(struct e2e_world *x)
{
	struct rnic_sim_cfg cfg;
	char path[512];

	rnic_sim_cfg_default(&cfg);
	cfg.num_nics = 2;
	cfg.data_width = (unsigned int)e2e_width;
	cfg.board = e2e_board;
	cfg.seed = e2e_seed;
	cfg.p_drop = x->p_drop;
	cfg.p_reorder = x->p_reorder;
	cfg.p_dup = x->p_dup;
	cfg.p_corrupt = x->p_corrupt;
	if (e2e_pcap_dir) {
		if (x->generation)
			snprintf(path, sizeof(path), "%s/%s_r%d.pcap", e2e_pcap_dir, x->tag, x->generation);
		else
			snprintf(path, sizeof(path), "%s/%s.pcap", e2e_pcap_dir, x->tag);
		cfg.pcap_path = path;
	}
	x->w = rnic_world_create(&cfg);
	if (!x->w || sim_pair_open(&x->p, x->w, &x->o)) {
		e2e_result(0, "%s: world and QP setup", x->tag);
		if (x->w) {
			sim_pair_close(&x->p);
			rnic_world_destroy(x->w);
		}
		x->w = NULL;
		x->up = 0;
		return 0;
	}
	x->up = 1;
	if (e2e_board) {
		double core, mac, ref;
		uint64_t up;

		if (rnic_world_board_clocks(x->w, &core, &mac, &ref, &up) == 0 && x->generation == 0)
			printf("  %s: %s boards: PCIe and link up (LEDs) at cycle %llu; clocks: core %.4f MHz, "
			       "MAC %.4f MHz, PCIe reference %.4f MHz\n", x->tag,
			       rnic_sim_board_name(e2e_board),
			       (unsigned long long)up, core, mac, ref);
	}
	buf_cache_flush();
	buf_cache_pd[0] = x->p.side[0].pd;
	buf_cache_pd[1] = x->p.side[1].pd;
	x->recv_done[0] = x->recv_done[1] = 0;
	for (int s = 0; s < 2; s++)
		x->recv_cqe_base[s] = e2e_counter(x->p.side[s].ctx, RNIC_REG_STAT_RECV_CQE);
	if (x->on_up)
		x->on_up(x);
	return 1;
}

int e2e_world_open(struct e2e_world *x, const char *name, const struct sim_pair_opts *o)
{
	e2e_world_init(x, name, o);
	return e2e_world_up(x);
}

int e2e_drain_quiet(struct e2e_world *x, unsigned int cycles)
{
	struct rnic_wc wc[4];
	int extra = 0;

	for (unsigned int c = 0; c < cycles && extra < 16; c++)
		for (int s = 0; s < 2; s++) {
			int n = rnic_poll_cq(x->p.side[s].cq, 4, wc);

			for (int i = 0; i < n && extra + i < 8; i++)
				printf("  unexpected completion on side %d: qp %u wr_id 0x%llx status %s opcode %u\n",
				       s, wc[i].qp_num, (unsigned long long)wc[i].wr_id,
				       rnic_wc_status_str(wc[i].status), wc[i].opcode);
			if (n < 0 && extra < 8)
				printf("  side %d: poll_cq refused a CQE (%s)\n", s, strerror(-n));
			extra += n > 0 ? n : n < 0 ? 1 : 0;
		}
	return extra;
}

void e2e_world_down(struct e2e_world *x)
{
	int extra;

	if (!x->up)
		return;
	extra = e2e_drain_quiet(x, 2000);
	e2e_result(extra == 0, "%s: no stray completions (%d)", x->tag, extra);
	for (int s = 0; s < 2; s++) {
		uint32_t n = e2e_counter(x->p.side[s].ctx, RNIC_REG_STAT_RECV_CQE) - x->recv_cqe_base[s];

		e2e_result(n == x->recv_done[s], "%s: side %d STAT_RECV_CQE advanced by %u, receive completions polled %u",
			   x->tag, s, n, x->recv_done[s]);
	}
	if (x->on_down)
		x->on_down(x);
	buf_cache_flush();
	sim_pair_close(&x->p);
	e2e_check_nics(x->w, x->tag, 1);
	rnic_world_destroy(x->w);
	x->w = NULL;
	x->up = 0;
}

void e2e_case_done(struct e2e_world *x, int ok)
{
	if (!ok)
		x->dirty = 1;
}

int e2e_world_ready(struct e2e_world *x)
{
	if (x->dirty && x->up) {
		printf("  (rebuilding world %s after a failure)\n", x->tag);
		e2e_world_down(x);
		x->generation++;
		e2e_world_up(x);
	}
	x->dirty = 0;
	return x->up;
}

/* Frames on the wire plus DMA beats of both NICs: moves while work happens. */
static uint64_t activity(struct rnic_world *w)
{
	struct rnic_sim_link_stats ls;
	uint64_t a;

	rnic_world_link_stats(w, &ls);
	a = ls.frames;
	for (unsigned int i = 0; i < rnic_world_num_nics(w); i++) {
		struct rnic_sim_mem_stats st;

		rnic_sim_nic_mem_stats(rnic_world_nic(w, (int)i), &st);
		a += st.rd_beats + st.wr_beats;
	}
	return a;
}

int e2e_wait_cqs(struct e2e_world *x, struct rnic_wc *wc0, int n0, struct rnic_wc *wc1, int n1,
		 int *got0, int *got1)
{
	int got[2] = {0, 0}, want[2] = {n0, n1}, bad = 0;
	struct rnic_wc *wc[2] = {wc0, wc1};
	uint64_t start = rnic_world_cycle(x->w), last_move = start, last_act = activity(x->w);
	unsigned int loops = 0;

	while (got[0] < want[0] || got[1] < want[1]) {
		int moved = 0;

		for (int s = 0; s < 2; s++) {
			int r;

			if (got[s] >= want[s])
				continue;
			r = rnic_poll_cq(x->p.side[s].cq, want[s] - got[s], wc[s] + got[s]);
			if (r < 0) {
				printf("  side %d: poll_cq refused a CQE (%s)\n", s, strerror(-r));
				bad++;
				continue;
			}
			for (int i = 0; i < r; i++)
				x->recv_done[s] += (wc[s][got[s] + i].opcode & RNIC_WC_RECV) != 0;
			got[s] += r;
			moved |= r > 0;
		}
		if (moved)
			last_move = rnic_world_cycle(x->w);
		if (++loops % 256 == 0) {
			uint64_t a = activity(x->w), now = rnic_world_cycle(x->w);

			if (a != last_act) {
				last_act = a;
				last_move = now;
			}
			if (now - last_move > x->idle_cycles || now - start > x->max_wait_cycles)
				break;
		}
		if (bad >= E2E_MAX_BAD_CQES)
			break;
	}
	if (got[0] < want[0] || got[1] < want[1])
		printf("  gave up after %llu cycles (%s): side 0 has %d of %d completions, side 1 %d of %d\n",
		       (unsigned long long)(rnic_world_cycle(x->w) - start),
		       bad >= E2E_MAX_BAD_CQES ? "refused CQEs" :
		       rnic_world_cycle(x->w) - start > x->max_wait_cycles ? "time limit" : "no activity",
		       got[0], want[0], got[1], want[1]);
	if (got0)
		*got0 = got[0];
	if (got1)
		*got1 = got[1];
	return got[0] >= want[0] && got[1] >= want[1] && !bad;
}

/* ---------------------------------------------------------------- work */

const uint8_t e2e_imm_bytes[4] = {0x12, 0x34, 0x56, 0x78};

int e2e_post_send1(struct rnic_qp *qp, uint64_t wr_id, uint32_t opcode, struct rnic_sg_entry *sge,
		   int nsge, unsigned int flags, uint64_t raddr, uint32_t rkey)
{
	struct rnic_send_wr wr, *bad = NULL;
	int err;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sge;
	wr.num_sge = nsge;
	wr.opcode = opcode;
	wr.send_flags = flags;
	if (opcode == RNIC_WR_SEND_WITH_IMM || opcode == RNIC_WR_RDMA_WRITE_WITH_IMM)
		memcpy(&wr.imm_data, e2e_imm_bytes, 4);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	err = rnic_post_send(qp, &wr, &bad);
	if (err)
		printf("  post_send: %s\n", strerror(err));
	return err;
}

int e2e_post_recv1(struct rnic_qp *qp, uint64_t wr_id, struct rnic_sg_entry *sge, int nsge)
{
	struct rnic_recv_wr wr, *bad = NULL;
	int err;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sge;
	wr.num_sge = nsge;
	err = rnic_post_recv(qp, &wr, &bad);
	if (err)
		printf("  post_recv: %s\n", strerror(err));
	return err;
}

int e2e_ud_to_rts(struct rnic_qp *qp, uint32_t qkey, uint32_t sq_psn)
{
	int err = ud_qp_to_rts(qp, qkey, sq_psn, NULL);

	if (err)
		printf("  UD QP %u to RTS: %s\n", qp->qp_num, strerror(err));
	return err;
}

struct e2e_want e2e_want_status(uint64_t wr_id, uint32_t status, const struct rnic_qp *qp)
{
	struct e2e_want w = {wr_id, status, E2E_ANY, E2E_ANY, qp->qp_num, E2E_ANY, E2E_ANY, E2E_ANY, E2E_ANY, NULL};

	return w;
}

int e2e_wc_check(const char *what, const struct rnic_wc *wc, const struct e2e_want *w)
{
	int ok = 1;

#define FIELD(name, got, want_)                                                                    \
	do {                                                                                       \
		if ((want_) != E2E_ANY && (long long)(got) != (want_)) {                           \
			printf("  %s: %s 0x%llx, want 0x%llx\n", what, name, (long long)(got),    \
			       (long long)(want_));                                                 \
			ok = 0;                                                                    \
		}                                                                                  \
	} while (0)
	FIELD("wr_id", wc->wr_id, (long long)w->wr_id);
	if (wc->status != w->status) {
		printf("  %s: status %s, want %s\n", what, rnic_wc_status_str(wc->status),
		       rnic_wc_status_str(w->status));
		ok = 0;
	}
	FIELD("opcode", wc->opcode, w->opcode);
	FIELD("byte_len", wc->byte_len, w->byte_len);
	FIELD("qp_num", wc->qp_num, w->qp_num);
	FIELD("src_qp", wc->src_qp, w->src_qp);
	FIELD("wc_flags", wc->wc_flags, w->wc_flags);
	FIELD("imm_data", wc->imm_data, w->imm);
	FIELD("vendor_err", wc->vendor_err, w->vendor_err);
#undef FIELD
	if (w->smac && memcmp(wc->smac, w->smac, 6) != 0) {
		printf("  %s: smac %02x:%02x:%02x:%02x:%02x:%02x, want %02x:%02x:%02x:%02x:%02x:%02x\n", what,
		       wc->smac[0], wc->smac[1], wc->smac[2], wc->smac[3], wc->smac[4], wc->smac[5], w->smac[0],
		       w->smac[1], w->smac[2], w->smac[3], w->smac[4], w->smac[5]);
		ok = 0;
	}
	return ok;
}

const char *e2e_wcs(int n, const struct rnic_wc *wc)
{
	return n ? rnic_wc_status_str(wc->status) : "no completion";
}
