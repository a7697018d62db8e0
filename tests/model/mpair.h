/* Two model QPs connected through the in-memory lossy link (rc_link): the
 * harness of the model's QP tests. Every packet goes through the codec both
 * ways (encode -> link -> decode), so a corrupted frame dies on its ICRC as
 * it would on a NIC. Time is in ns (tick_ps 1000). */
#ifndef MPAIR_H
#define MPAIR_H

#include <stdlib.h>
#include <string.h>

#include "rc_codec.h"
#include "rc_link.h"
#include "rc_qp.h"

struct mpair;

struct mstation {
	struct rc_mem mem;
	struct rc_cq cq;
	struct rc_qp *qp;
	struct mpair *pair;
	int side;
};

struct mpair {
	struct mstation s[2];
	struct rc_link *link;
	rc_time_t now;
	rc_time_t step;    /* ns per step while busy */
	int burst;         /* packets per QP per step */
	uint64_t bad_frames, good_frames;
	uint64_t decode_errors[RC_ERR_COUNT];
	uint8_t frame[RC_MAX_FRAME];
	uint8_t rxbuf[RC_MAX_FRAME];
	/* sees every frame that decodes, before the QP does (dir: sender side) */
	void (*watch)(void *arg, int dir, const struct rc_pkt *p);
	void *watch_arg;
};

static void mpair_tx(void *arg, const struct rc_pkt *pkt)
{
	struct mstation *st = arg;
	struct mpair *p = st->pair;
	int len = rc_encode(pkt, p->frame, sizeof(p->frame), pkt->ipv6 ? RC_ENC_UDP6_CSUM : 0);

	if (len > 0)
		rc_link_send(p->link, st->side, p->now, p->frame, (size_t)len);
}

/* QP numbers 0x11 and 0x222; side 0 sends from base->sq_psn, side 1 from
 * base->rq_psn. MACs 02:00:00:00:00:0a/0b; 198.18.0.1/2 or fd00::1/2. */
static inline int mpair_open(struct mpair *p, const struct rc_qp_cfg *base, const struct rc_link_cfg *lc, int ipv6)
{
	static const uint32_t qpn[2] = {0x11, 0x222};

	memset(p, 0, sizeof(*p));
	p->link = rc_link_create(lc);
	p->step = 50;
	p->burst = 16;
	for (int s = 0; s < 2; s++) {
		struct rc_qp_cfg c = *base;
		struct mstation *st = &p->s[s];

		st->pair = p;
		st->side = s;
		rc_mem_init(&st->mem);
		if (rc_cq_init(&st->cq, 1u << 16))
			return -1;
		c.qpn = qpn[s];
		c.dest_qpn = qpn[!s];
		c.sq_psn = s ? base->rq_psn : base->sq_psn;
		c.rq_psn = s ? base->sq_psn : base->rq_psn;
		for (int k = 0; k < 2; k++) {
			uint8_t *mac = k ? c.addr.dmac : c.addr.smac, *gid = k ? c.addr.dgid : c.addr.sgid;
			int who = k ? !s : s;
			const uint8_t ip[4] = {198, 18, 0, (uint8_t)(1 + who)};

			memset(mac, 0, 6);
			mac[0] = 0x02;
			mac[5] = (uint8_t)(0x0a + who);
			if (ipv6) {
				memset(gid, 0, 16);
				gid[0] = 0xfd;
				gid[15] = (uint8_t)(1 + who);
			} else {
				rc_gid_from_ipv4(gid, ip);
			}
		}
		c.addr.udp_sport = (uint16_t)(0xc000 + s);
		c.addr.flow_label = ipv6 ? 0x12345u + (uint32_t)s : 0;
		st->qp = rc_qp_create(&c, &st->mem, &st->cq, &st->cq);
		if (!st->qp)
			return -1;
		rc_qp_set_tx(st->qp, mpair_tx, st);
	}
	return p->link ? 0 : -1;
}

static inline void mpair_close(struct mpair *p)
{
	for (int s = 0; s < 2; s++) {
		rc_qp_destroy(p->s[s].qp);
		rc_cq_free(&p->s[s].cq);
	}
	rc_link_destroy(p->link);
	memset(p, 0, sizeof(*p));
}

static inline void mpair_deliver(struct mpair *p)
{
	for (int dir = 0; dir < 2; dir++) {
		size_t len;

		while ((len = rc_link_recv(p->link, dir, p->now, p->rxbuf, sizeof(p->rxbuf)))) {
			struct rc_pkt pkt;
			int e = rc_decode(p->rxbuf, len, &pkt, 0);

			if (e != RC_OK) {
				p->bad_frames++;
				p->decode_errors[e]++;
				continue;
			}
			p->good_frames++;
			if (p->watch)
				p->watch(p->watch_arg, dir, &pkt);
			if (pkt.dest_qpn == rc_qp_get_cfg(p->s[!dir].qp)->qpn)
				rc_qp_recv(p->s[!dir].qp, p->now, &pkt);
		}
	}
}

/* One step: both QPs send (up to burst packets each), frames due arrive. If
 * nothing is in flight and nothing can be sent, time jumps to the next
 * timer or delivery. Returns 0 when nothing will ever happen again. */
static inline int mpair_step(struct mpair *p)
{
	int sent = 0;
	rc_time_t next;

	for (int s = 0; s < 2; s++)
		sent += rc_qp_progress(p->s[s].qp, p->now, p->burst);
	mpair_deliver(p);
	if (sent || rc_qp_has_work(p->s[0].qp, p->now) || rc_qp_has_work(p->s[1].qp, p->now)) {
		p->now += p->step;
		return 1;
	}
	next = rc_link_next(p->link);
	for (int s = 0; s < 2; s++) {
		rc_time_t t = rc_qp_next_timer(p->s[s].qp);

		if (t < next)
			next = t;
	}
	if (next == RC_TIME_NEVER)
		return 0;
	p->now = next > p->now ? next : p->now + 1;
	return 1;
}

/* Run until done(p, arg) is true, nothing can happen any more, or the time
 * limit passes. Returns done()'s verdict. */
static inline int mpair_run(struct mpair *p, int (*done)(struct mpair *, void *), void *arg, rc_time_t limit)
{
	rc_time_t end = p->now + limit;

	while (!done(p, arg)) {
		if (p->now > end || !mpair_step(p))
			return done(p, arg);
	}
	return 1;
}

/* Until both sides' CQs together hold at least n[0], n[1] entries. */
struct mpair_want {
	uint32_t n[2];
};

static inline int mpair_cq_done(struct mpair *p, void *arg)
{
	const struct mpair_want *w = arg;

	return rc_cq_count(&p->s[0].cq) >= w->n[0] && rc_cq_count(&p->s[1].cq) >= w->n[1];
}

/* Let the link and timers settle: run until quiet or the limit. */
static inline int mpair_never(struct mpair *p, void *arg)
{
	(void)p;
	(void)arg;
	return 0;
}

/* A registered buffer of side s. */
struct mbuf {
	uint8_t *p;
	size_t len;
	uint32_t key;
};

static inline struct mbuf mbuf_new(struct mpair *pr, int s, size_t len, unsigned int access, uint64_t seed)
{
	struct mbuf b;

	b.len = len;
	b.p = malloc(len ? len : 1);
	for (size_t i = 0; i < len; i++) {
		uint64_t z = (seed + i) * 0x9e3779b97f4a7c15ull;

		b.p[i] = seed ? (uint8_t)(z >> 56) : 0;
	}
	b.key = rc_mem_reg(&pr->s[s].mem, 0, b.p, (uint64_t)(uintptr_t)b.p, len ? len : 1, access);
	return b;
}

static inline void mbuf_free(struct mpair *pr, int s, struct mbuf *b)
{
	rc_mem_dereg(&pr->s[s].mem, b->key);
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static inline uint64_t mva(const struct mbuf *b, size_t off)
{
	return (uint64_t)(uintptr_t)b->p + off;
}

#endif
