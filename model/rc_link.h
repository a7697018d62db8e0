/* An in-memory Ethernet link for the model's tests: two directions, a fixed
 * latency, and seeded faults per frame (drop, duplicate, reorder, corrupt
 * one bit) drawn from a splitmix64 stream, so the same seed gives the same
 * faults. A filter callback can drop chosen frames. Time is the caller's
 * (ticks, as rc_qp). */
#ifndef RC_LINK_H
#define RC_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "rc_qp.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rc_link_cfg {
	rc_time_t latency;        /* send -> earliest delivery, ticks */
	uint32_t drop_ppm;        /* per-frame fault probabilities, parts per million */
	uint32_t dup_ppm;
	uint32_t reorder_ppm;     /* held back behind the next frame (or 4 latencies at most) */
	uint32_t corrupt_ppm;     /* one random bit flipped */
	uint64_t seed;
	/* called for every frame sent; returning non-zero drops it */
	int (*filter)(void *arg, int dir, const uint8_t *frame, size_t len);
	void *filter_arg;
};

struct rc_link_stats {
	uint64_t sent, delivered, dropped, duplicated, reordered, corrupted, filtered;
};

struct rc_link;

struct rc_link *rc_link_create(const struct rc_link_cfg *cfg);
void rc_link_destroy(struct rc_link *l);
/* Change the faults (and filter) from now on. */
void rc_link_set_cfg(struct rc_link *l, const struct rc_link_cfg *cfg);
/* Direction dir (0 or 1) takes a frame at `now`. Returns 0 or -1 (no memory). */
int rc_link_send(struct rc_link *l, int dir, rc_time_t now, const uint8_t *frame, size_t len);
/* The next frame of direction dir due at `now`: its length (copied into buf,
 * cut to cap), or 0 when none is due. */
size_t rc_link_recv(struct rc_link *l, int dir, rc_time_t now, uint8_t *buf, size_t cap);
/* Earliest delivery time pending in either direction, or RC_TIME_NEVER. */
rc_time_t rc_link_next(const struct rc_link *l);
const struct rc_link_stats *rc_link_stats(const struct rc_link *l);

#ifdef __cplusplus
}
#endif

#endif
