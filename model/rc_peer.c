/* The model as a software RoCE peer of a simulated OpenRNIC; see rc_peer.h. */
#include <stdlib.h>
#include <string.h>

#include "rc_codec.h"
#include "rc_peer.h"
#include "rnic_sim.h"

#define PEER_MAX_QPS 64

struct pframe {
	struct pframe *next;
	uint64_t due;
	size_t len;
	uint8_t data[];
};

struct rc_peer {
	struct rnic_world *w;
	struct rc_peer_cfg cfg;
	struct rc_mem mem;
	struct rc_qp *qp[PEER_MAX_QPS];
	int nqp;
	uint64_t now;
	uint64_t wire_free_milli; /* when the peer's wire is free, in 1/1000 cycles */
	struct pframe *head, *tail;
	unsigned int pending;
	struct rc_peer_stats st;
	uint64_t rng;
	uint8_t frame[RC_MAX_FRAME];
};

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void rc_peer_cfg_default(struct rc_peer_cfg *cfg)
{
	static const uint8_t ip[4] = {198, 18, 0, 2};

	memset(cfg, 0, sizeof(*cfg));
	cfg->mac[0] = 0x02;
	cfg->mac[5] = 0x0b;
	rc_gid_from_ipv4(cfg->gid, ip);
	cfg->latency = 100;
	cfg->rate_milli = 5000;
	cfg->burst = 4;
}

static void queue_frame(struct rc_peer *p, int len);

/* A QP's packet: encode it and queue it for the NIC after the latency,
 * behind what the peer's wire still carries (unless the peer's own faults
 * drop or duplicate it). */
static void peer_tx(void *arg, const struct rc_pkt *pkt)
{
	struct rc_peer *p = arg;
	int len = rc_encode(pkt, p->frame, sizeof(p->frame), 0);
	/* two draws per frame, whatever happens */
	int drop = rnd(&p->rng) % 1000000u < p->cfg.tx_drop_ppm;
	int dup = rnd(&p->rng) % 1000000u < p->cfg.tx_dup_ppm;

	if (len <= 0)
		return;
	if (drop) {
		p->st.tx_dropped++;
		return;
	}
	queue_frame(p, len);
	if (dup) {
		p->st.tx_duplicated++;
		queue_frame(p, len);
	}
}

static void queue_frame(struct rc_peer *p, int len)
{
	uint64_t start_milli = p->now * 1000, due;
	struct pframe *f;

	if (p->cfg.rate_milli) {
		if (p->wire_free_milli > start_milli)
			start_milli = p->wire_free_milli;
		/* frame + FCS, preamble and gap, as the simulator's MAC counts them */
		p->wire_free_milli = start_milli + (uint64_t)(len + 24) * 1000 * 1000 / p->cfg.rate_milli;
		due = p->wire_free_milli / 1000 + p->cfg.latency;
	} else {
		due = p->now + p->cfg.latency;
	}
	f = malloc(sizeof(*f) + (size_t)len);
	if (!f)
		return;
	memcpy(f->data, p->frame, (size_t)len);
	f->len = (size_t)len;
	f->due = due;
	f->next = NULL;
	if (p->tail)
		p->tail->next = f;
	else
		p->head = f;
	p->tail = f;
	p->pending++;
}

static void frame_hook(void *arg, int port, const uint8_t *frame, size_t len, uint64_t cycle)
{
	struct rc_peer *p = arg;
	struct rc_pkt pkt;
	int e;

	if (port != p->cfg.nic)
		return; /* injected frames (port < 0) and other NICs' */
	p->now = cycle;
	p->st.seen++;
	if (len < 6 || memcmp(frame, p->cfg.mac, 6))
		return;
	p->st.for_peer++;
	e = rc_decode(frame, len, &pkt, 0);
	if (e != RC_OK) {
		p->st.bad++;
		p->st.codec_errors[e]++;
		return;
	}
	for (int i = 0; i < p->nqp; i++) {
		if (rc_qp_get_cfg(p->qp[i])->qpn == pkt.dest_qpn) {
			rc_qp_recv(p->qp[i], cycle, &pkt);
			return;
		}
	}
	p->st.no_qp++;
}

static void cycle_hook(void *arg, uint64_t cycle)
{
	struct rc_peer *p = arg;

	p->now = cycle;
	for (int i = 0; i < p->nqp; i++)
		rc_qp_progress(p->qp[i], cycle, p->cfg.burst);
	while (p->head && p->head->due <= cycle) {
		struct pframe *f = p->head;

		p->head = f->next;
		if (!p->head)
			p->tail = NULL;
		p->pending--;
		if (rnic_sim_inject_frame(p->w, p->cfg.nic, f->data, f->len) == 0)
			p->st.injected++;
		free(f);
	}
}

struct rc_peer *rc_peer_attach(struct rnic_world *w, const struct rc_peer_cfg *cfg)
{
	struct rc_peer *p;

	if (!w || !cfg || cfg->nic < 0 || (unsigned int)cfg->nic >= rnic_world_num_nics(w))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->w = w;
	p->cfg = *cfg;
	if (p->cfg.burst <= 0)
		p->cfg.burst = 1;
	rc_mem_init(&p->mem);
	p->rng = cfg->seed;
	p->now = rnic_world_cycle(w);
	rnic_world_set_frame_hook(w, frame_hook, p);
	rnic_world_set_cycle_hook(w, cycle_hook, p);
	return p;
}

void rc_peer_detach(struct rc_peer *p)
{
	if (!p)
		return;
	rnic_world_set_frame_hook(p->w, NULL, NULL);
	rnic_world_set_cycle_hook(p->w, NULL, NULL);
	for (int i = 0; i < p->nqp; i++)
		rc_qp_destroy(p->qp[i]);
	while (p->head) {
		struct pframe *f = p->head;

		p->head = f->next;
		free(f);
	}
	free(p);
}

struct rc_mem *rc_peer_mem(struct rc_peer *p)
{
	return &p->mem;
}

struct rc_qp *rc_peer_add_qp(struct rc_peer *p, const struct rc_qp_cfg *cfg, struct rc_cq *scq, struct rc_cq *rcq)
{
	struct rc_qp_cfg c = *cfg;
	struct rc_qp *qp;

	if (p->nqp >= PEER_MAX_QPS)
		return NULL;
	memcpy(c.addr.smac, p->cfg.mac, 6);
	memcpy(c.addr.sgid, p->cfg.gid, 16);
	c.tick_ps = (uint32_t)(1000000 / rnic_world_cfg(p->w)->clock_mhz);
	qp = rc_qp_create(&c, &p->mem, scq, rcq);
	if (!qp)
		return NULL;
	rc_qp_set_tx(qp, peer_tx, p);
	p->qp[p->nqp++] = qp;
	return qp;
}

const struct rc_peer_stats *rc_peer_stats(const struct rc_peer *p)
{
	return &p->st;
}

unsigned int rc_peer_pending(const struct rc_peer *p)
{
	return p->pending;
}
