/* An in-memory carrier of CM MADs for unit tests (struct
 * rnic_cm_transport_ops): endpoints on one simulated network, each with the
 * GIDs and MAC of its device. A MAD goes to the endpoint owning its
 * destination GID and is delivered after a delay, on the network's clock
 * (which is also the CMs' clock: tests move it). Under a seed it can lose,
 * duplicate, delay (and so reorder) MADs, and it can drop the next n MADs of
 * one attribute. Every MAD sent is logged (time, sender, attribute). */
#ifndef CM_MEM_TRANSPORT_H
#define CM_MEM_TRANSPORT_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "rnic/rnic_cm.h"

#define MEMNET_EPS 4
#define MEMNET_QUEUE 512
#define MEMNET_LOG 4096
#define MEMNET_RULES 8

struct memnet;

struct memnet_ep {
	struct memnet *net;
	int index;
	union rnic_gid gid[RNIC_GID_TABLE_SIZE];
	uint8_t mac[6];
};

struct memnet_msg {
	uint64_t at, seq;
	int to;
	struct rnic_cm_mad_addr src;
	uint8_t mad[RNIC_MAD_BYTES];
};

struct memnet_log {
	uint64_t t;
	int from;
	uint16_t attr;
	int dropped;
};

struct memnet {
	uint64_t now;            /* ns */
	uint64_t rng;
	unsigned int loss_pct, dup_pct; /* random faults, per MAD */
	uint64_t delay_min_ns, delay_max_ns;
	struct { uint16_t attr; int from; int n; } rule[MEMNET_RULES]; /* drop the next n of attr (from -1: any sender) */
	struct memnet_ep ep[MEMNET_EPS];
	int nep;
	struct memnet_msg q[MEMNET_QUEUE];
	int nq;
	uint64_t seq;
	struct memnet_log log[MEMNET_LOG];
	int nlog;
	unsigned int overflow;   /* MADs lost because the queue was full */
	uint8_t last[RNIC_CM_ATTR_APR + 1][RNIC_MAD_BYTES]; /* the last MAD sent of each CM attribute */
	/* NULL, or called on every MAD sent (by sender index) before it goes:
	 * a peer that writes its MADs differently (e.g. Linux's REP depths) */
	void (*edit)(int from, uint8_t *mad);
};

static inline uint64_t memnet_rnd(struct memnet *n)
{
	n->rng ^= n->rng >> 12;
	n->rng ^= n->rng << 25;
	n->rng ^= n->rng >> 27;
	return n->rng * 0x2545f4914f6cdd1dull;
}

static inline void memnet_init(struct memnet *n, uint64_t seed, uint64_t delay_ns)
{
	memset(n, 0, sizeof(*n));
	n->rng = seed ? seed : 1;
	n->delay_min_ns = n->delay_max_ns = delay_ns;
	n->now = 1000000000ull; /* the clocks start at 1 s */
}

static inline void memnet_drop_next(struct memnet *n, uint16_t attr, int from, int count)
{
	for (int i = 0; i < MEMNET_RULES; i++)
		if (!n->rule[i].n) {
			n->rule[i].attr = attr;
			n->rule[i].from = from;
			n->rule[i].n = count;
			return;
		}
}

static inline uint64_t memnet_now(void *priv)
{
	return ((struct memnet *)priv)->now;
}

static inline int memnet_enqueue(struct memnet *n, int to, const struct rnic_cm_mad_addr *src, const uint8_t *mad)
{
	struct memnet_msg *m;
	uint64_t span = n->delay_max_ns - n->delay_min_ns;

	if (n->nq == MEMNET_QUEUE) {
		n->overflow++;
		return 0;
	}
	m = &n->q[n->nq++];
	m->at = n->now + n->delay_min_ns + (span ? memnet_rnd(n) % (span + 1) : 0);
	m->seq = n->seq++;
	m->to = to;
	m->src = *src;
	memcpy(m->mad, mad, RNIC_MAD_BYTES);
	return 0;
}

static inline int memnet_send(void *priv, const struct rnic_cm_mad_addr *dst, const uint8_t *mad)
{
	struct memnet_ep *e = priv;
	struct memnet *n = e->net;
	struct rnic_cm_mad_addr src;
	uint16_t attr = (uint16_t)(mad[16] << 8 | mad[17]);
	int drop = 0, to = -1, to_index = 0;
	uint8_t edited[RNIC_MAD_BYTES];

	if (n->edit) {
		memcpy(edited, mad, RNIC_MAD_BYTES);
		n->edit(e->index, edited);
		mad = edited;
	}

	if (dst->qpn != RNIC_GSI_QPN || dst->qkey != RNIC_GSI_QKEY || dst->pkey != RNIC_DEFAULT_PKEY)
		return EINVAL;
	for (int i = 0; i < MEMNET_RULES; i++)
		if (n->rule[i].n && n->rule[i].attr == attr && (n->rule[i].from < 0 || n->rule[i].from == e->index)) {
			n->rule[i].n--;
			drop = 1;
			break;
		}
	if (!drop && n->loss_pct && memnet_rnd(n) % 100 < n->loss_pct)
		drop = 1;
	if (n->nlog < MEMNET_LOG)
		n->log[n->nlog++] = (struct memnet_log){n->now, e->index, attr, drop};
	if (attr <= RNIC_CM_ATTR_APR)
		memcpy(n->last[attr], mad, RNIC_MAD_BYTES);
	for (int i = 0; i < n->nep && to < 0; i++)
		for (int g = 0; g < RNIC_GID_TABLE_SIZE; g++)
			if (i != e->index && !memcmp(n->ep[i].gid[g].raw, dst->gid.raw, 16)) {
				to = i;
				to_index = g;
				break;
			}
	if (drop || to < 0)
		return 0; /* lost on the way */
	memset(&src, 0, sizeof(src));
	src.gid = e->gid[dst->sgid_index];
	src.qpn = RNIC_GSI_QPN;
	src.qkey = RNIC_GSI_QKEY;
	src.pkey = RNIC_DEFAULT_PKEY;
	src.sgid_index = (uint8_t)to_index;
	src.mac_valid = 1;
	memcpy(src.mac, e->mac, 6);
	memnet_enqueue(n, to, &src, mad);
	if (n->dup_pct && memnet_rnd(n) % 100 < n->dup_pct)
		memnet_enqueue(n, to, &src, mad);
	return 0;
}

static inline int memnet_recv(void *priv, struct rnic_cm_mad_addr *src, uint8_t *mad)
{
	struct memnet_ep *e = priv;
	struct memnet *n = e->net;
	int best = -1;

	for (int i = 0; i < n->nq; i++)
		if (n->q[i].to == e->index && n->q[i].at <= n->now &&
		    (best < 0 || n->q[i].at < n->q[best].at ||
		     (n->q[i].at == n->q[best].at && n->q[i].seq < n->q[best].seq)))
			best = i;
	if (best < 0)
		return EAGAIN;
	*src = n->q[best].src;
	memcpy(mad, n->q[best].mad, RNIC_MAD_BYTES);
	n->q[best] = n->q[--n->nq];
	return 0;
}

/* The earliest delivery still queued: 0 and *t, or ENOENT. */
static inline int memnet_next(const struct memnet *n, uint64_t *t)
{
	if (!n->nq)
		return ENOENT;
	*t = n->q[0].at;
	for (int i = 1; i < n->nq; i++)
		if (n->q[i].at < *t)
			*t = n->q[i].at;
	return 0;
}

static const struct rnic_cm_transport_ops memnet_ops = {
	.send = memnet_send,
	.recv = memnet_recv,
};

static inline struct memnet_ep *memnet_add(struct memnet *n, const uint8_t mac[6])
{
	struct memnet_ep *e = &n->ep[n->nep];

	memset(e, 0, sizeof(*e));
	e->net = n;
	e->index = n->nep++;
	memcpy(e->mac, mac, 6);
	return e;
}

/* MADs of attr sent by endpoint from (-1: any), counting the dropped ones. */
static inline int memnet_count(const struct memnet *n, uint16_t attr, int from)
{
	int c = 0;

	for (int i = 0; i < n->nlog; i++)
		if (n->log[i].attr == attr && (from < 0 || n->log[i].from == from))
			c++;
	return c;
}

#endif /* CM_MEM_TRANSPORT_H */
