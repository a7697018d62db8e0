/* Latency rows with a per-stage cycle breakdown; see latency.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"
#include "rnic/rnic_hw.h"
#include "rnic/verbs.h"
#include "rnic_sim.h"
#include "stream.h"

const char *const lat_stage_name[LAT_STAGES] = {
	[LAT_HOST_MMIO] = "host_mmio",
	[LAT_HOST_MEM_READ] = "host_mem_read",
	[LAT_HOST_MEM_WRITE] = "host_mem_write",
	[LAT_LINK] = "link",
	[LAT_NIC_TX] = "nic_tx",
	[LAT_NIC_RX] = "nic_rx",
	[LAT_NIC_ACK] = "nic_ack",
	[LAT_NIC_CQE] = "nic_cqe",
};

const char *const lat_side_name[LAT_SIDES] = {
	[LAT_S_MMIO_PORT] = "mmio_port",
	[LAT_S_TX_DOORBELL] = "tx_doorbell_to_read",
	[LAT_S_TX_BETWEEN] = "tx_wqe_to_payload_read",
	[LAT_S_TX_BUILD] = "tx_data_to_wire",
	[LAT_S_TX_OWN] = "tx_own",
	[LAT_S_RX_OWN] = "rx_own",
	[LAT_S_ONEWAY_NIC] = "oneway_nic",
	[LAT_S_ACK] = "ack_turnaround",
	[LAT_S_CQE] = "cqe",
	[LAT_S_LINK_ONEWAY] = "link_oneway",
};

#define ID(x) (1u << RNIC_DMA_ID_##x)
#define HANG_CYCLES 2500000u /* 10 ms for one message: failed */
#define PP_DST_OFF 2048      /* pingpong: the buffer side 0 / side 1 writes into */

/* ---------------------------------------------------------------- events */

enum frame_kind { FR_NONE, FR_REQUEST, FR_ACK, FR_READ_RESPONSE, FR_OTHER };

struct ev {
	uint64_t cycle;
	uint64_t seq;    /* BAR */
	uint64_t pair;   /* DMA AR/AW: cycle of the matching last R / B (0: not yet) */
	uint64_t wlast;  /* DMA AW: cycle of its last W beat */
	uint64_t first;  /* TX_EOF: the frame's first byte out (see on_event) */
	uint8_t nic, kind, id, frame; /* frame: enum frame_kind (TX_SOF, RX_EOF) */
};

struct log {
	struct ev *e;
	size_t n, cap;
	int oom;
	/* pairing state per NIC */
	size_t tx_sof[2], rx_sof[2];          /* index of the open frame */
	size_t *rd_q[2], *wr_q[2], *w_q[2];   /* ARs waiting for R, AWs for B, AWs for W */
	size_t rd_h[2], rd_n[2], wr_h[2], wr_n[2], w_h[2], w_n[2], qcap;
	uint64_t last_post_seq[2];
	size_t from; /* the iteration's first event (cover() looks no further back) */
	unsigned int bus_bytes, bar_latency;
};

static enum frame_kind frame_kind(const uint8_t *f, size_t len)
{
	size_t bth;
	uint8_t op;

	if (!f || len < RNIC_ETH_HDR_BYTES + 2)
		return FR_NONE;
	if (((unsigned)f[12] << 8 | f[13]) == 0x86dd)
		bth = RNIC_ETH_HDR_BYTES + RNIC_IPV6_HDR_BYTES + RNIC_UDP_HDR_BYTES;
	else
		bth = RNIC_ETH_HDR_BYTES + RNIC_IPV4_HDR_BYTES + RNIC_UDP_HDR_BYTES;
	if (len <= bth)
		return FR_OTHER;
	op = f[bth];
	if (op == RNIC_OP_ACKNOWLEDGE || op == RNIC_OP_ATOMIC_ACKNOWLEDGE)
		return FR_ACK;
	if (op >= RNIC_OP_RDMA_READ_RESPONSE_FIRST && op <= RNIC_OP_RDMA_READ_RESPONSE_ONLY)
		return FR_READ_RESPONSE;
	return op < RNIC_OP_RDMA_READ_RESPONSE_FIRST ? FR_REQUEST : FR_OTHER;
}

static size_t *q_slot(struct log *l, size_t *q, size_t h, size_t i)
{
	return &q[(h + i) % l->qcap];
}

static void on_event(void *arg, const struct rnic_sim_event *se)
{
	struct log *l = arg;
	int nic = se->nic;
	struct ev *e;
	size_t idx;

	if (l->oom || nic < 0 || nic > 1)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		struct ev *ne = realloc(l->e, cap * sizeof(*ne));

		if (!ne) {
			l->oom = 1;
			return;
		}
		l->e = ne;
		l->cap = cap;
	}
	idx = l->n++;
	e = &l->e[idx];
	memset(e, 0, sizeof(*e));
	e->cycle = se->cycle;
	e->nic = (uint8_t)nic;
	e->kind = (uint8_t)se->kind;
	e->id = se->id;
	e->seq = se->seq;
	switch (se->kind) {
	case RNIC_SIM_EV_BAR_POST:
		l->last_post_seq[nic] = se->seq;
		break;
	case RNIC_SIM_EV_DMA_AR:
		if (l->rd_n[nic] < l->qcap)
			*q_slot(l, l->rd_q[nic], l->rd_h[nic], l->rd_n[nic]++) = idx;
		break;
	case RNIC_SIM_EV_DMA_R_LAST:
		/* bursts return whole and in AR order (sim/hostmem.c) */
		if (l->rd_n[nic]) {
			l->e[l->rd_q[nic][l->rd_h[nic]]].pair = se->cycle;
			l->rd_h[nic] = (l->rd_h[nic] + 1) % l->qcap;
			l->rd_n[nic]--;
		}
		break;
	case RNIC_SIM_EV_DMA_AW:
		if (l->wr_n[nic] < l->qcap && l->w_n[nic] < l->qcap) {
			*q_slot(l, l->wr_q[nic], l->wr_h[nic], l->wr_n[nic]++) = idx;
			*q_slot(l, l->w_q[nic], l->w_h[nic], l->w_n[nic]++) = idx;
		}
		break;
	case RNIC_SIM_EV_DMA_W_LAST:
		if (l->w_n[nic]) {
			l->e[l->w_q[nic][l->w_h[nic]]].wlast = se->cycle;
			l->w_h[nic] = (l->w_h[nic] + 1) % l->qcap;
			l->w_n[nic]--;
		}
		break;
	case RNIC_SIM_EV_DMA_B:
		/* answered in AW order */
		if (l->wr_n[nic]) {
			l->e[l->wr_q[nic][l->wr_h[nic]]].pair = se->cycle;
			l->wr_h[nic] = (l->wr_h[nic] + 1) % l->qcap;
			l->wr_n[nic]--;
		}
		break;
	case RNIC_SIM_EV_TX_SOF:
		l->tx_sof[nic] = idx;
		break;
	case RNIC_SIM_EV_TX_EOF:
		/* The frame's first byte out: the beat it would have left in had
		 * the core streamed it without a gap up to its last beat. The core
		 * may hand the MAC a header beat long before its payload is read
		 * (and hold tvalid low mid-frame meanwhile); the MAC (store and
		 * forward, sim/link.c) sends nothing before the last beat, so the
		 * wait is the sender's (its NIC's and its host reads'), not the
		 * link's. */
		e->frame = (uint8_t)frame_kind(se->frame, se->frame_len);
		e->first = se->cycle;
		if (se->frame_len > l->bus_bytes)
			e->first -= (se->frame_len + l->bus_bytes - 1) / l->bus_bytes - 1;
		if (l->tx_sof[nic] < idx) {
			l->e[l->tx_sof[nic]].frame = e->frame;
			if (e->first < l->e[l->tx_sof[nic]].cycle)
				e->first = l->e[l->tx_sof[nic]].cycle;
		}
		break;
	case RNIC_SIM_EV_RX_SOF:
		e->frame = (uint8_t)frame_kind(se->frame, se->frame_len);
		l->rx_sof[nic] = idx;
		break;
	case RNIC_SIM_EV_RX_EOF:
		if (l->rx_sof[nic] < idx)
			e->frame = l->e[l->rx_sof[nic]].frame;
		break;
	case RNIC_SIM_EV_BAR_WRITE:
		break;
	}
}

static int log_init(struct log *l)
{
	memset(l, 0, sizeof(*l));
	l->qcap = 1024;
	for (int s = 0; s < 2; s++) {
		l->rd_q[s] = calloc(l->qcap, sizeof(size_t));
		l->wr_q[s] = calloc(l->qcap, sizeof(size_t));
		l->w_q[s] = calloc(l->qcap, sizeof(size_t));
		l->tx_sof[s] = l->rx_sof[s] = SIZE_MAX;
		if (!l->rd_q[s] || !l->wr_q[s] || !l->w_q[s])
			return -1;
	}
	return 0;
}

static void log_free(struct log *l)
{
	for (int s = 0; s < 2; s++) {
		free(l->rd_q[s]);
		free(l->wr_q[s]);
		free(l->w_q[s]);
	}
	free(l->e);
	memset(l, 0, sizeof(*l));
}

/* Index of the first event at or after cycle t (events come in cycle order). */
static size_t lower_bound(const struct log *l, uint64_t t)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->e[mid].cycle < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* First event at or after cycle t of this NIC and kind that matches (frame
 * kind, DMA id; -1: any); -1 if none. */
static long find(const struct log *l, int nic, int kind, uint64_t t, int frame, int id)
{
	for (size_t i = lower_bound(l, t); i < l->n; i++) {
		const struct ev *e = &l->e[i];

		if (e->cycle < t || e->nic != nic || e->kind != kind)
			continue;
		if (frame >= 0 && e->frame != frame)
			continue;
		if (id >= 0 && e->id != id)
			continue;
		return (long)i;
	}
	return -1;
}

static long find_bar_write(const struct log *l, int nic, uint64_t seq)
{
	for (size_t i = l->from; i < l->n; i++)
		if (l->e[i].nic == nic && l->e[i].kind == RNIC_SIM_EV_BAR_WRITE && l->e[i].seq == seq)
			return (long)i;
	return -1;
}

/* ---------------------------------------------------------------- stages */

/* Cycles of [a, b) covered by NIC nic's DMA bursts of one direction whose
 * AXI ID is in the mask `ids` (reads: AR until the last R beat; writes: AW
 * until the B response, or until b) and not yet marked; marks them. */
static int64_t cover(const struct log *l, int nic, int write, unsigned int ids, uint64_t a, uint64_t b,
		     uint8_t *mark)
{
	int64_t n = 0;

	for (size_t i = l->from; i < l->n && l->e[i].cycle < b; i++) {
		const struct ev *e = &l->e[i];
		uint64_t s, t;

		if (e->nic != nic || e->kind != (write ? RNIC_SIM_EV_DMA_AW : RNIC_SIM_EV_DMA_AR) ||
		    !(ids >> e->id & 1))
			continue;
		s = e->cycle;
		t = e->pair ? e->pair : b;
		if (s < a)
			s = a;
		if (t > b)
			t = b;
		for (uint64_t c = s; c < t; c++) {
			if (!mark[c - a]) {
				mark[c - a] = 1;
				n++;
			}
		}
	}
	return n;
}

/* A segment [a, b) of NIC nic's own pipeline: the cycles in it that the
 * DMA bursts it waits for cover (reads of the engines in rd_ids first, then
 * writes of those in wr_ids: the bursts of this message on its path; others
 * running beside it, such as the CQE of the message before, are not waited
 * for) are the host's, the rest is the NIC's, in `own`. */
static int nic_seg(const struct log *l, struct lat_iter *it, int nic, enum lat_stage own, uint64_t a,
		   uint64_t b, unsigned int rd_ids, unsigned int wr_ids, int64_t *reads_out)
{
	uint8_t *mark;
	int64_t rd, wr;

	if (b < a)
		return stream_err("stage %s ends (cycle %" PRIu64 ") before it starts (%" PRIu64 ")",
				  lat_stage_name[own], b, a);
	if (b == a) {
		if (reads_out)
			*reads_out = 0;
		return 0;
	}
	mark = calloc(b - a, 1);
	if (!mark)
		return stream_err("out of memory");
	rd = cover(l, nic, 0, rd_ids, a, b, mark);
	wr = cover(l, nic, 1, wr_ids, a, b, mark);
	free(mark);
	it->stage[LAT_HOST_MEM_READ] += rd;
	it->stage[LAT_HOST_MEM_WRITE] += wr;
	it->stage[own] += (int64_t)(b - a) - rd - wr;
	if (reads_out)
		*reads_out = rd;
	return 0;
}

static int seg(struct lat_iter *it, enum lat_stage st, uint64_t a, uint64_t b)
{
	if (b < a)
		return stream_err("stage %s ends (cycle %" PRIu64 ") before it starts (%" PRIu64 ")",
				  lat_stage_name[st], b, a);
	it->stage[st] += (int64_t)(b - a);
	return 0;
}

#define NEED(x, what)                                                                                   \
	do {                                                                                            \
		if ((x) < 0)                                                                            \
			return stream_err("iteration %" PRIu64 ": no %s in the harness events", k, what); \
	} while (0)

/* The sender's half: host call at t_post (its doorbell the BAR write seq
 * db_seq) until its request's first byte leaves. Returns that cycle in
 * *sof, and the doorbell's in *db. */
static int tx_half(const struct log *l, struct lat_iter *it, uint64_t k, int x, uint64_t t_post,
		   uint64_t db_seq, int side_figures, uint64_t *sof_out)
{
	long db = find_bar_write(l, x, db_seq), sof;
	uint64_t tdb, tsof, prev;
	int64_t rd = 0;
	int nreads = 0;

	NEED(db, "doorbell at the AXI4-Lite port");
	tdb = l->e[db].cycle;
	sof = find(l, x, RNIC_SIM_EV_TX_EOF, tdb, FR_REQUEST, -1);
	NEED(sof, "request frame out");
	tsof = l->e[sof].first;
	if (seg(it, LAT_HOST_MMIO, t_post, tdb) ||
	    nic_seg(l, it, x, LAT_NIC_TX, tdb, tsof, ID(RD_WQE) | ID(RD_PAYLOAD), 0, &rd))
		return -1;
	if (!side_figures)
		goto out;
	/* the core's AXI4-Lite port: the post's writes taken after the first
	 * of them arrived (one doorbell, or the WQE window's words and one) */
	it->side[LAT_S_MMIO_PORT] = (int64_t)(tdb - t_post) - (int64_t)l->bar_latency;
	/* the sender's pipeline cut at its reads (WQE fetch, payload fetch) */
	it->side[LAT_S_TX_DOORBELL] = -1;
	it->side[LAT_S_TX_BETWEEN] = 0;
	prev = tdb;
	for (size_t i = lower_bound(l, tdb); i < l->n; i++) {
		const struct ev *e = &l->e[i];

		if (e->nic != x || e->kind != RNIC_SIM_EV_DMA_AR || e->cycle < tdb || e->cycle >= tsof ||
		    !((ID(RD_WQE) | ID(RD_PAYLOAD)) >> e->id & 1))
			continue;
		if (nreads++ == 0)
			it->side[LAT_S_TX_DOORBELL] = (int64_t)(e->cycle - tdb);
		else
			it->side[LAT_S_TX_BETWEEN] += (int64_t)(e->cycle - prev);
		prev = e->pair ? e->pair : e->cycle;
	}
	if (!nreads)
		it->side[LAT_S_TX_DOORBELL] = 0;
	it->side[LAT_S_TX_BUILD] = (int64_t)(tsof - prev);
	it->side[LAT_S_TX_OWN] = (int64_t)(tsof - tdb) - rd;
out:
	*sof_out = tsof;
	return 0;
}

/* The responder's ACK and the requester's CQE beside the path (WRITE). */
static int ack_figures(const struct log *l, struct lat_iter *it, uint64_t k, int x, int y, uint64_t rx_eof)
{
	long ack = find(l, y, RNIC_SIM_EV_TX_EOF, rx_eof, FR_ACK, -1), ack_in, cqe;

	NEED(ack, "ACK out");
	ack_in = find(l, x, RNIC_SIM_EV_RX_EOF, l->e[ack].cycle, FR_ACK, -1);
	NEED(ack_in, "ACK in");
	cqe = find(l, x, RNIC_SIM_EV_DMA_AW, l->e[ack_in].cycle, -1, RNIC_DMA_ID_WR_CQE);
	NEED(cqe, "CQE write");
	it->side[LAT_S_ACK] = (int64_t)(l->e[ack].first - rx_eof);
	it->side[LAT_S_CQE] = (int64_t)(l->e[cqe].cycle - l->e[ack_in].cycle);
	return 0;
}

struct pp_half {
	uint64_t t_post, db_seq, t_seen;
};

/* Pingpong iteration k: halves h[0] (side 0 -> 1) and h[1] (1 -> 0). */
static int breakdown_pingpong(const struct log *l, struct lat_iter *it, uint64_t k, const struct pp_half *h)
{
	for (int d = 0; d < 2; d++) {
		int x = d, y = 1 - d;
		uint64_t tsof;
		long eof, aw;

		if (tx_half(l, it, k, x, h[d].t_post, h[d].db_seq, d == 0, &tsof))
			return -1;
		eof = find(l, y, RNIC_SIM_EV_RX_EOF, tsof, FR_REQUEST, -1);
		NEED(eof, "request frame in");
		aw = find(l, y, RNIC_SIM_EV_DMA_AW, l->e[eof].cycle, -1, RNIC_DMA_ID_WR_PAYLOAD);
		NEED(aw, "placement write");
		if (seg(it, LAT_LINK, tsof, l->e[eof].cycle) ||
		    nic_seg(l, it, y, LAT_NIC_RX, l->e[eof].cycle, l->e[aw].cycle, 0, 0, NULL) ||
		    seg(it, LAT_HOST_MEM_WRITE, l->e[aw].cycle, h[d].t_seen))
			return -1;
		if (d == 0) {
			it->side[LAT_S_LINK_ONEWAY] = (int64_t)(l->e[eof].cycle - tsof);
			it->side[LAT_S_RX_OWN] = (int64_t)(l->e[aw].cycle - l->e[eof].cycle);
			if (ack_figures(l, it, k, x, y, l->e[eof].cycle))
				return -1;
		}
	}
	return 0;
}

/* Round trip of one WRITE or READ, doorbell call to completion polled. */
static int breakdown_rtt(const struct log *l, struct lat_iter *it, uint64_t k, uint32_t opcode, uint64_t t_post,
			 uint64_t db_seq, uint64_t t_seen)
{
	int read = opcode == RNIC_WR_RDMA_READ;
	uint64_t tsof, t_in, t_resp, t_back;
	long eof, resp, back, place;

	if (tx_half(l, it, k, 0, t_post, db_seq, 1, &tsof))
		return -1;
	eof = find(l, 1, RNIC_SIM_EV_RX_EOF, tsof, FR_REQUEST, -1);
	NEED(eof, "request frame in");
	t_in = l->e[eof].cycle;
	resp = find(l, 1, RNIC_SIM_EV_TX_EOF, t_in, read ? FR_READ_RESPONSE : FR_ACK, -1);
	NEED(resp, read ? "READ response out" : "ACK out");
	t_resp = l->e[resp].first;
	back = find(l, 0, RNIC_SIM_EV_RX_EOF, t_resp, read ? FR_READ_RESPONSE : FR_ACK, -1);
	NEED(back, read ? "READ response in" : "ACK in");
	t_back = l->e[back].cycle;
	/* the responder's ACK waits for its placement's write response; its
	 * READ response for the payload read */
	if (seg(it, LAT_LINK, tsof, t_in) ||
	    nic_seg(l, it, 1, LAT_NIC_ACK, t_in, t_resp, read ? ID(RD_RDRSP) : 0, read ? 0 : ID(WR_PAYLOAD), NULL) ||
	    seg(it, LAT_LINK, t_resp, t_back))
		return -1;
	it->side[LAT_S_LINK_ONEWAY] = (int64_t)(t_in - tsof);
	it->side[LAT_S_ACK] = (int64_t)(t_resp - t_in);
	if (read) {
		/* the requester places the response, then writes the CQE */
		place = find(l, 0, RNIC_SIM_EV_DMA_AW, t_back, -1, RNIC_DMA_ID_WR_PLACE);
		NEED(place, "READ placement write");
		if (nic_seg(l, it, 0, LAT_NIC_RX, t_back, l->e[place].cycle, ID(RD_PLWQE), 0, NULL) ||
		    nic_seg(l, it, 0, LAT_NIC_CQE, l->e[place].cycle, t_seen, ID(RD_PLWQE), ID(WR_PLACE) | ID(WR_CQE),
			    NULL))
			return -1;
		it->side[LAT_S_RX_OWN] = (int64_t)(l->e[place].cycle - t_back);
	} else {
		/* the responder's placement, beside the path: the one-way figure */
		place = find(l, 1, RNIC_SIM_EV_DMA_AW, t_in, -1, RNIC_DMA_ID_WR_PAYLOAD);
		NEED(place, "placement write");
		it->side[LAT_S_RX_OWN] = (int64_t)(l->e[place].cycle - t_in);
		if (nic_seg(l, it, 0, LAT_NIC_CQE, t_back, t_seen, 0, ID(WR_CQE), NULL))
			return -1;
	}
	{
		long cqe = find(l, 0, RNIC_SIM_EV_DMA_AW, t_back, -1, RNIC_DMA_ID_WR_CQE);

		NEED(cqe, "CQE write");
		it->side[LAT_S_CQE] = (int64_t)(l->e[cqe].cycle - t_back);
	}
	return 0;
}

static void finish_iter(struct lat_iter *it, int one_way)
{
	int64_t sum = 0;

	for (int s = 0; s < LAT_STAGES; s++)
		sum += it->stage[s];
	it->residual = (int64_t)it->rtt - sum;
	it->side[LAT_S_ONEWAY_NIC] = one_way ? it->side[LAT_S_TX_OWN] + it->side[LAT_S_RX_OWN] : -1;
}

/* ---------------------------------------------------------------- trace */

static const char *const ev_name[] = {
	[RNIC_SIM_EV_BAR_POST] = "bar_post",   [RNIC_SIM_EV_BAR_WRITE] = "bar_write",
	[RNIC_SIM_EV_DMA_AR] = "dma_ar",       [RNIC_SIM_EV_DMA_R_LAST] = "dma_r_last",
	[RNIC_SIM_EV_DMA_AW] = "dma_aw",       [RNIC_SIM_EV_DMA_W_LAST] = "dma_w_last",
	[RNIC_SIM_EV_DMA_B] = "dma_b",         [RNIC_SIM_EV_TX_SOF] = "tx_sof",
	[RNIC_SIM_EV_TX_EOF] = "tx_eof",       [RNIC_SIM_EV_RX_SOF] = "rx_sof",
	[RNIC_SIM_EV_RX_EOF] = "rx_eof",
};
static const char *const fr_name[] = {"", " request", " ack", " read_response", " other"};

static void trace(const struct log *l, uint64_t k, uint64_t from, uint64_t to)
{
	printf("  events of iteration %" PRIu64 " (cycles relative to the doorbell call at %" PRIu64 "):\n", k, from);
	for (size_t i = lower_bound(l, from); i < l->n; i++) {
		const struct ev *e = &l->e[i];

		if (e->cycle < from || e->cycle > to)
			continue;
		printf("    %6" PRIu64 " nic%u %-10s", e->cycle - from, e->nic, ev_name[e->kind]);
		if (e->kind <= RNIC_SIM_EV_BAR_WRITE)
			printf(" seq %" PRIu64, e->seq);
		else if (e->kind == RNIC_SIM_EV_DMA_AR || e->kind == RNIC_SIM_EV_DMA_AW)
			printf(" id %u, done at %" PRId64, e->id, e->pair ? (int64_t)(e->pair - from) : -1);
		else if (e->kind >= RNIC_SIM_EV_DMA_R_LAST && e->kind <= RNIC_SIM_EV_DMA_B)
			printf(" id %u", e->id);
		if (e->kind == RNIC_SIM_EV_TX_EOF)
			printf(" first byte out at %" PRIu64, e->first - from);
		printf("%s\n", e->kind == RNIC_SIM_EV_TX_SOF || e->kind >= RNIC_SIM_EV_TX_EOF ? fr_name[e->frame] : "");
	}
}

/* ---------------------------------------------------------------- data */

static uint8_t pat(uint64_t tag, size_t i)
{
	return (uint8_t)(stream_mix64(tag ^ ((uint64_t)(i >> 3) << 24)) >> (8 * (i & 7)));
}

/* Message k's bytes; pingpong: the last one is the iteration's value, which
 * the poller waits for (never the value before it). */
static uint8_t msg_byte(const struct lat_opts *o, uint64_t tag, uint64_t k, size_t i)
{
	if (o->mode == LAT_PINGPONG && i == o->msg - 1)
		return (uint8_t)(k + 1);
	return pat(tag, i);
}

static int check_bytes(const struct lat_opts *o, const uint8_t *b, uint64_t tag, uint64_t k, const char *where)
{
	for (size_t i = 0; i < o->msg; i++)
		if (b[i] != msg_byte(o, tag, k, i))
			return stream_err("iteration %" PRIu64 ": %s differs at byte %zu (0x%02x, want 0x%02x)", k,
					  where, i, b[i], msg_byte(o, tag, k, i));
	for (size_t i = o->msg; i < o->msg + 64; i++)
		if (b[i] != STREAM_GUARD)
			return stream_err("iteration %" PRIu64 ": %s: guard byte %zu overwritten", k, where, i);
	return 0;
}

struct run {
	struct sim_pair *p;
	const struct lat_opts *o;
	uint8_t *buf[2];
	struct rnic_mr *mr[2];
	struct log log;
	uint64_t pending[2], done[2]; /* signaled WRs outstanding, completed */
};

static int post(struct run *r, int x, uint64_t k, uint8_t *src, uint8_t *dst, uint64_t *db_seq)
{
	const struct lat_opts *o = r->o;
	struct rnic_sg_entry sge = {(uint64_t)(uintptr_t)src, (uint32_t)o->msg, r->mr[x]->lkey};
	struct rnic_send_wr wr, *bad;
	int err;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = k;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = o->opcode;
	wr.send_flags = RNIC_SEND_SIGNALED | (o->inl && o->opcode != RNIC_WR_RDMA_READ ? RNIC_SEND_INLINE : 0);
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)dst;
	wr.wr.rdma.rkey = r->mr[1 - x]->rkey;
	err = rnic_post_send(r->p->side[x].qp[0], &wr, &bad);
	if (err)
		return stream_err("post_send side %d iteration %" PRIu64 ": %s", x, k, strerror(err));
	/* the post's last BAR write is its doorbell */
	*db_seq = r->log.last_post_seq[x];
	r->pending[x]++;
	return 0;
}

/* Completions of side s: successful RDMA WRITE / READ, in wr_id order. */
static int take(struct run *r, int s, const struct rnic_wc *wc, int n)
{
	uint32_t want = r->o->opcode == RNIC_WR_RDMA_READ ? RNIC_WC_RDMA_READ : RNIC_WC_RDMA_WRITE;

	for (int i = 0; i < n; i++) {
		if (wc[i].status != RNIC_WC_SUCCESS || wc[i].opcode != want || wc[i].wr_id != r->done[s] ||
		    !r->pending[s])
			return stream_err("side %d completion wr_id %" PRIu64 " (want %" PRIu64 "): %s, opcode %u", s,
					  wc[i].wr_id, r->done[s], rnic_wc_status_str(wc[i].status), wc[i].opcode);
		r->done[s]++;
		r->pending[s]--;
	}
	return 0;
}

/* One cycle of the hosts' polling: a CQ with a completion due is polled
 * (an empty poll runs the world one cycle), else the world runs a cycle. */
static int poll_once(struct run *r, int first)
{
	struct rnic_wc wc[4];

	for (int j = 0; j < 2; j++) {
		int s = j ? 1 - first : first, n;

		if (!r->pending[s])
			continue;
		n = rnic_poll_cq(r->p->side[s].cq, 4, wc);
		if (n < 0)
			return stream_err("poll_cq side %d: %s", s, strerror(-n));
		return take(r, s, wc, n);
	}
	rnic_world_step(r->p->world, 1);
	return 0;
}

static int run_rtt(struct run *r, struct lat_result *res)
{
	const struct lat_opts *o = r->o;
	struct rnic_world *w = r->p->world;
	int read = o->opcode == RNIC_WR_RDMA_READ;
	uint8_t *src = r->buf[read ? 1 : 0], *dst = r->buf[read ? 0 : 1];

	for (uint64_t k = 0; k < o->iters; k++) {
		uint64_t tag = o->salt ^ k, t_post, db_seq, t0;
		struct rnic_wc wc[16];
		int n;

		for (size_t i = 0; i < o->msg; i++)
			src[i] = msg_byte(o, tag, k, i);
		t_post = rnic_world_cycle(w);
		if (post(r, 0, k, read ? dst : src, read ? src : dst, &db_seq))
			return -1;
		for (t0 = t_post; (n = rnic_poll_cq(r->p->side[0].cq, 16, wc)) == 0;)
			if (rnic_world_cycle(w) - t0 > HANG_CYCLES)
				return stream_err("iteration %" PRIu64 ": no completion in %u cycles", k, HANG_CYCLES);
		if (n < 0)
			return stream_err("poll_cq: %s", strerror(-n));
		if (take(r, 0, wc, n))
			return -1;
		res->it[k].rtt = rnic_world_cycle(w) - t_post;
		if (check_bytes(o, dst, tag, k, "destination"))
			return -1;
		r->log.from = lower_bound(&r->log, t_post);
		if (breakdown_rtt(&r->log, &res->it[k], k, o->opcode, t_post, db_seq, rnic_world_cycle(w)))
			return -1;
		finish_iter(&res->it[k], !read);
		if ((long)k == o->trace_iter)
			trace(&r->log, k, t_post, rnic_world_cycle(w) + 200);
	}
	return 0;
}

static int run_pingpong(struct run *r, struct lat_result *res)
{
	const struct lat_opts *o = r->o;
	struct rnic_world *w = r->p->world;

	for (uint64_t k = 0; k < o->iters; k++) {
		struct pp_half h[2];

		for (int d = 0; d < 2; d++) {
			int x = d, y = 1 - d;
			uint64_t tag = o->salt ^ (k << 1 | (uint64_t)d);
			uint8_t *src = r->buf[x], *dst = r->buf[y] + PP_DST_OFF;

			for (size_t i = 0; i < o->msg; i++)
				src[i] = msg_byte(o, tag, k, i);
			h[d].t_post = rnic_world_cycle(w);
			if (post(r, x, k, src, dst, &h[d].db_seq))
				return -1;
			/* side y polls the last byte of its buffer */
			while (dst[o->msg - 1] != (uint8_t)(k + 1)) {
				if (poll_once(r, y))
					return -1;
				if (rnic_world_cycle(w) - h[d].t_post > HANG_CYCLES)
					return stream_err("iteration %" PRIu64 ": side %d saw nothing in %u cycles", k, y,
							  HANG_CYCLES);
			}
			h[d].t_seen = rnic_world_cycle(w);
			if (check_bytes(o, dst, tag, k, y ? "side 1's buffer" : "side 0's buffer"))
				return -1;
		}
		res->it[k].rtt = h[1].t_seen - h[0].t_post;
		r->log.from = lower_bound(&r->log, h[0].t_post);
		if (breakdown_pingpong(&r->log, &res->it[k], k, h))
			return -1;
		finish_iter(&res->it[k], 1);
		if ((long)k == o->trace_iter)
			trace(&r->log, k, h[0].t_post, h[1].t_seen);
	}
	/* every completion, successful and in order */
	for (uint64_t t0 = rnic_world_cycle(w); r->pending[0] || r->pending[1];) {
		if (poll_once(r, 0))
			return -1;
		if (rnic_world_cycle(w) - t0 > HANG_CYCLES)
			return stream_err("completions missing at the end: %" PRIu64 " and %" PRIu64, r->pending[0],
					  r->pending[1]);
	}
	return 0;
}

/* At the end: every byte of both buffers outside the message slots (the
 * sources the host filled, the destinations checked at every iteration) is
 * still the guard byte: the NICs wrote nowhere else. */
static int check_buffers(const struct run *r, size_t len)
{
	const struct lat_opts *o = r->o;

	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < len; i++) {
			int in_src = i < o->msg; /* offset 0: a source (READ: side 1's) or a destination */
			int in_dst = o->mode == LAT_PINGPONG && i >= PP_DST_OFF && i < PP_DST_OFF + o->msg;

			if (in_src || in_dst || r->buf[s][i] == STREAM_GUARD)
				continue;
			return stream_err("side %d's buffer changed at byte %zu, outside every message", s, i);
		}
	}
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static double median(int64_t *v, uint64_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
}

int lat_run(struct sim_pair *p, const struct lat_opts *o, struct lat_result *res)
{
	struct run r;
	size_t len = 4096;
	int err = -1;
	int64_t *v = NULL;

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	r.p = p;
	r.o = o;
	if (o->iters == 0 || o->msg == 0 || o->msg + 64 > PP_DST_OFF ||
	    (o->mode == LAT_PINGPONG && o->opcode != RNIC_WR_RDMA_WRITE) ||
	    (o->opcode != RNIC_WR_RDMA_WRITE && o->opcode != RNIC_WR_RDMA_READ))
		return stream_err("latency run: bad options");
	res->it = calloc(o->iters, sizeof(*res->it));
	v = calloc(o->iters, sizeof(*v));
	if (!res->it || !v || log_init(&r.log)) {
		stream_err("out of memory");
		goto out;
	}
	res->iters = o->iters;
	for (int s = 0; s < 2; s++) {
		r.buf[s] = aligned_alloc(4096, len);
		if (!r.buf[s]) {
			stream_err("out of memory");
			goto out;
		}
		memset(r.buf[s], STREAM_GUARD, len);
		r.mr[s] = rnic_reg_mr(p->side[s].pd, r.buf[s], len,
				      RNIC_ACCESS_LOCAL_WRITE | RNIC_ACCESS_REMOTE_WRITE | RNIC_ACCESS_REMOTE_READ);
		if (!r.mr[s]) {
			stream_err("reg_mr: %s", strerror(errno));
			goto out;
		}
	}
	r.log.bus_bytes = rnic_world_cfg(p->world)->data_width / 8;
	r.log.bar_latency = rnic_world_cfg(p->world)->bar_latency;
	rnic_world_set_event_hook(p->world, on_event, &r.log);
	err = o->mode == LAT_PINGPONG ? run_pingpong(&r, res) : run_rtt(&r, res);
	if (!err)
		err = check_buffers(&r, len);
	rnic_world_set_event_hook(p->world, NULL, NULL);
	if (!err && r.log.oom)
		err = stream_err("out of memory for the harness events");
	for (int s = 0; s < 2 && !err; s++) {
		uint64_t f = rnic_sim_nic_faults(rnic_world_nic(p->world, s), NULL, 0);

		if (f)
			err = stream_err("NIC %d made %" PRIu64 " DMA faults", s, f);
	}
	if (err)
		goto out;
	res->events = r.log.n;
	for (int s = 0; s < LAT_STAGES; s++) {
		for (uint64_t k = 0; k < o->iters; k++)
			v[k] = res->it[k].stage[s];
		res->stage_med[s] = median(v, o->iters);
	}
	for (int s = 0; s < LAT_SIDES; s++) {
		for (uint64_t k = 0; k < o->iters; k++)
			v[k] = res->it[k].side[s];
		res->side_med[s] = median(v, o->iters);
	}
	for (uint64_t k = 0; k < o->iters; k++) {
		int64_t a = res->it[k].residual < 0 ? -res->it[k].residual : res->it[k].residual;

		if (a > res->residual_max)
			res->residual_max = a;
	}
out:
	rnic_world_set_event_hook(p->world, NULL, NULL);
	for (int s = 0; s < 2; s++) {
		if (r.mr[s])
			rnic_dereg_mr(r.mr[s]);
		free(r.buf[s]);
	}
	log_free(&r.log);
	free(v);
	if (err) {
		free(res->it);
		res->it = NULL;
	}
	return err ? -1 : 0;
}

void lat_free(struct lat_result *r)
{
	free(r->it);
	r->it = NULL;
}
