/* The model as a software RoCE peer of a simulated OpenRNIC (model/README.md).
 *
 * A peer is a NIC-less station on a simulated world's Ethernet: it sees the
 * frames one NIC sends (rnic_world_set_frame_hook), hands the ones addressed
 * to its MAC to its model QPs (rc_qp.h), and queues what the QPs send into
 * that NIC's receive path (rnic_sim_inject_frame), after a latency and paced
 * at a line rate. The peer's QPs run on the world's clock: one tick is one
 * core cycle, and they make progress every cycle (rnic_world_set_cycle_hook).
 *
 * The simulator has one frame hook and one cycle hook per world: a peer owns
 * both while it is attached. Use a world of one NIC (its frames reach no
 * other NIC; the peer answers them), or of several with the peer cabled to
 * NIC `nic` (the other NICs see the peer's frames only if the link forwards
 * them; the peer injects into `nic` alone).
 */
#ifndef RC_PEER_H
#define RC_PEER_H

#include <stdint.h>

#include "rc_qp.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rnic_world;

struct rc_peer_cfg {
	int nic;               /* the NIC the peer talks to (0) */
	uint8_t mac[6];        /* the peer's MAC address */
	uint8_t gid[16];       /* the peer's GID; IPv4-mapped for IPv4 */
	uint64_t latency;      /* cycles from a frame's arrival to the peer's answer at the NIC (100) */
	uint32_t rate_milli;   /* bytes per 1000 cycles on the peer's wire (5000: 10 Gb/s at 250 MHz); 0: unpaced */
	int burst;             /* packets each QP may send per cycle (4) */
	/* faults on the peer's own frames, before the NIC (and the capture) sees
	 * them: seeded, parts per million */
	uint32_t tx_drop_ppm, tx_dup_ppm;
	uint64_t seed;
};

struct rc_peer_stats {
	uint64_t seen;         /* frames the NIC sent */
	uint64_t for_peer;     /* ... addressed to the peer's MAC */
	uint64_t bad;          /* ... that the codec refused */
	uint64_t no_qp;        /* ... for a QP the peer does not have */
	uint64_t injected;     /* frames the peer put into the NIC's RX */
	uint64_t tx_dropped, tx_duplicated; /* the peer's own faults */
	uint64_t codec_errors[RC_ERR_COUNT];
};

struct rc_peer;

/* Defaults: NIC 0, MAC 02:00:00:00:00:0b, GID ::ffff:198.18.0.2, latency 100,
 * 5 bytes per cycle, burst 4. */
void rc_peer_cfg_default(struct rc_peer_cfg *cfg);
/* Takes the world's frame and cycle hooks. NULL on a bad NIC index or no memory. */
struct rc_peer *rc_peer_attach(struct rnic_world *w, const struct rc_peer_cfg *cfg);
/* Releases the hooks and frees the peer and its QPs (not their memory or CQs). */
void rc_peer_detach(struct rc_peer *p);

/* The peer's host memory (register buffers with rc_mem_reg). */
struct rc_mem *rc_peer_mem(struct rc_peer *p);
/* A model QP of the peer. cfg->addr.smac and sgid are set to the peer's,
 * cfg->tick_ps to the world's cycle; the rest (dmac, dgid: the NIC's) is the
 * caller's. NULL on error. */
struct rc_qp *rc_peer_add_qp(struct rc_peer *p, const struct rc_qp_cfg *cfg, struct rc_cq *scq, struct rc_cq *rcq);
const struct rc_peer_stats *rc_peer_stats(const struct rc_peer *p);
/* Frames queued for the NIC, not injected yet. */
unsigned int rc_peer_pending(const struct rc_peer *p);

#ifdef __cplusplus
}
#endif

#endif
