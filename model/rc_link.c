/* In-memory lossy link of the model's tests; see rc_link.h. */
#include <stdlib.h>
#include <string.h>

#include "rc_link.h"

struct lframe {
	struct lframe *next;
	rc_time_t due;
	size_t len;
	uint8_t data[];
};

struct ldir {
	struct lframe *head, *tail;
	struct lframe *held;
	rc_time_t held_until;
	uint64_t rng;
};

struct rc_link {
	struct rc_link_cfg cfg;
	struct ldir d[2];
	struct rc_link_stats st;
};

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int chance(uint64_t *s, uint32_t ppm)
{
	return rnd(s) % 1000000u < ppm;
}

struct rc_link *rc_link_create(const struct rc_link_cfg *cfg)
{
	struct rc_link *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->cfg = *cfg;
	l->d[0].rng = cfg->seed * 2 + 1;
	l->d[1].rng = cfg->seed * 2 + 2;
	return l;
}

static void free_list(struct lframe *f)
{
	while (f) {
		struct lframe *n = f->next;

		free(f);
		f = n;
	}
}

void rc_link_destroy(struct rc_link *l)
{
	if (!l)
		return;
	for (int i = 0; i < 2; i++) {
		free_list(l->d[i].head);
		free(l->d[i].held);
	}
	free(l);
}

void rc_link_set_cfg(struct rc_link *l, const struct rc_link_cfg *cfg)
{
	uint64_t r0 = l->d[0].rng, r1 = l->d[1].rng;

	l->cfg = *cfg;
	l->d[0].rng = r0;
	l->d[1].rng = r1;
}

static void append(struct ldir *d, struct lframe *f, rc_time_t due)
{
	/* frames leave in order: never before the one ahead */
	if (d->tail && d->tail->due > due)
		due = d->tail->due;
	f->due = due;
	f->next = NULL;
	if (d->tail)
		d->tail->next = f;
	else
		d->head = f;
	d->tail = f;
}

static struct lframe *copy(const uint8_t *data, size_t len)
{
	struct lframe *f = malloc(sizeof(*f) + len);

	if (f) {
		memcpy(f->data, data, len);
		f->len = len;
		f->next = NULL;
	}
	return f;
}

int rc_link_send(struct rc_link *l, int dir, rc_time_t now, const uint8_t *frame, size_t len)
{
	struct ldir *d = &l->d[dir & 1];
	/* always the same draws per frame, so the fault stream does not depend on outcomes */
	int corrupt = chance(&d->rng, l->cfg.corrupt_ppm);
	int drop = chance(&d->rng, l->cfg.drop_ppm);
	int reorder = chance(&d->rng, l->cfg.reorder_ppm);
	int dup = chance(&d->rng, l->cfg.dup_ppm);
	uint64_t bit = rnd(&d->rng);
	rc_time_t due = now + l->cfg.latency;
	struct lframe *f;

	l->st.sent++;
	if (l->cfg.filter && l->cfg.filter(l->cfg.filter_arg, dir & 1, frame, len)) {
		l->st.filtered++;
		return 0;
	}
	if (drop || !len) {
		l->st.dropped++;
		return 0;
	}
	f = copy(frame, len);
	if (!f)
		return -1;
	if (corrupt) {
		bit %= (uint64_t)len * 8;
		f->data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		l->st.corrupted++;
	}
	if (reorder && !d->held) {
		d->held = f;
		d->held_until = now + 4 * l->cfg.latency + 1;
		l->st.reordered++;
		return 0;
	}
	append(d, f, due);
	if (dup) {
		struct lframe *c = copy(f->data, len);

		if (c) {
			append(d, c, due);
			l->st.duplicated++;
		}
	}
	if (d->held) {
		append(d, d->held, due);
		d->held = NULL;
	}
	return 0;
}

size_t rc_link_recv(struct rc_link *l, int dir, rc_time_t now, uint8_t *buf, size_t cap)
{
	struct ldir *d = &l->d[dir & 1];
	struct lframe *f;
	size_t n;

	if (d->held && now >= d->held_until) {
		append(d, d->held, now);
		d->held = NULL;
	}
	f = d->head;
	if (!f || f->due > now)
		return 0;
	d->head = f->next;
	if (!d->head)
		d->tail = NULL;
	n = f->len < cap ? f->len : cap;
	memcpy(buf, f->data, n);
	free(f);
	l->st.delivered++;
	return n;
}

rc_time_t rc_link_next(const struct rc_link *l)
{
	rc_time_t t = RC_TIME_NEVER;

	for (int i = 0; i < 2; i++) {
		if (l->d[i].head && l->d[i].head->due < t)
			t = l->d[i].head->due;
		if (l->d[i].held && l->d[i].held_until < t)
			t = l->d[i].held_until;
	}
	return t;
}

const struct rc_link_stats *rc_link_stats(const struct rc_link *l)
{
	return &l->st;
}
