/* Latency rows of rnic-bench with a per-stage cycle breakdown.
 *
 * Two kinds of run on a sim_pair (one QP, one message at a time):
 *
 *   LAT_RTT       side 0 posts one RDMA WRITE or READ, polls its CQ until the
 *                 completion arrives, checks the data, posts the next: the
 *                 round trip is the doorbell call to the completion polled;
 *   LAT_PINGPONG  perftest's write_lat: side 0 RDMA-WRITEs into side 1's
 *                 buffer; side 1 polls the last byte of that buffer in its
 *                 own memory until it holds the iteration's value, checks
 *                 every byte, and RDMA-WRITEs back into side 0's buffer,
 *                 which side 0 polls the same way. The latency is half the
 *                 round trip.
 *
 * The host CPU costs what it costs everywhere in the simulator (sim/README.md):
 * nothing for its own work, one cycle per empty poll of memory or of a CQ (a
 * load that hits the cache while the line is unchanged). A CPU load is not a
 * PCIe transaction and costs no PCIe round trip: the bytes a NIC writes
 * reach host memory when the host-memory model presents the burst's B
 * response, mem_wr_latency after its last W beat (sim/hostmem.c: a posted
 * write's trip, half a read's round trip), and the poll sees them the cycle
 * after. The write's time from its AW to the poll seeing it is the
 * host-memory write stage; the load that sees it is charged nothing more
 * (a real CPU pays a cache miss there, tens of ns, not modelled).
 *
 * The breakdown is measured from the simulator's harness-level events
 * (rnic_world_set_event_hook: BAR writes at the AXI4-Lite port, DMA bursts
 * at the AXI4 master, frames at the MAC streams), per iteration, along the
 * round trip's critical path; every cycle of the round trip lands in exactly
 * one stage, so the stages add up to it (lat_iter.residual is the check).
 */
#ifndef RNIC_TOOLS_LATENCY_H
#define RNIC_TOOLS_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "sim_pair.h"

enum lat_mode { LAT_RTT, LAT_PINGPONG };

/* The stages of the critical path; their sum is the round trip. */
enum lat_stage {
	LAT_HOST_MMIO,      /* host BAR writes (doorbell, WQE window) until the core took the last */
	LAT_HOST_MEM_READ,  /* the NIC's DMA reads: AR until the last R beat (WQE, payload) */
	LAT_HOST_MEM_WRITE, /* the NIC's DMA writes: AW until the B response, or until the host's poll sees the bytes */
	LAT_LINK,           /* first byte into the sender's MAC until the last byte into the receiving core */
	LAT_NIC_TX,         /* the sender's own cycles: doorbell taken -> first byte out, host reads excluded */
	LAT_NIC_RX,         /* the receiver's own cycles: last byte in -> first host write issued */
	LAT_NIC_ACK,        /* responder: last request byte in -> first byte of the ACK / READ response out */
	LAT_NIC_CQE,        /* requester: last ACK / response byte in -> CQE visible, host writes excluded */
	LAT_STAGES
};

/* Figures beside the critical path (one direction, side 0 -> side 1, and
 * its answer), and the sender's pipeline cut at its DMA reads. -1: none. */
enum lat_side {
	LAT_S_MMIO_PORT,    /* host MMIO past its latency: the core's AXI4-Lite port taking the post's writes */
	LAT_S_TX_DOORBELL,  /* doorbell taken -> first DMA read issued (or first byte out without one) */
	LAT_S_TX_BETWEEN,   /* between reads: WQE in -> payload read issued */
	LAT_S_TX_BUILD,     /* last read data in (or doorbell, without reads) -> first byte out */
	LAT_S_TX_OWN,       /* the three together: doorbell -> first byte out minus host reads */
	LAT_S_RX_OWN,       /* receiver: last byte in -> first host write issued */
	LAT_S_ONEWAY_NIC,   /* TX_OWN + RX_OWN: the NIC's own cycles of one way */
	LAT_S_ACK,          /* responder: last request byte in -> first ACK byte out */
	LAT_S_CQE,          /* requester: last ACK byte in -> CQE write issued */
	LAT_S_LINK_ONEWAY,  /* one frame, first byte into the MAC -> last byte into the peer */
	LAT_SIDES
};

extern const char *const lat_stage_name[LAT_STAGES];
extern const char *const lat_side_name[LAT_SIDES];

/* One iteration, cycles. */
struct lat_iter {
	uint64_t rtt;
	int64_t stage[LAT_STAGES];
	int64_t side[LAT_SIDES];
	int64_t residual; /* rtt - sum of the stages (0 unless an event was not found) */
};

struct lat_opts {
	enum lat_mode mode;
	uint32_t opcode;    /* LAT_RTT: RNIC_WR_RDMA_WRITE or RNIC_WR_RDMA_READ; PINGPONG: WRITE */
	size_t msg;         /* 1..RNIC_MAX_INLINE_BYTES with inl */
	int inl;            /* the payload inline in the WQE */
	uint64_t iters;
	uint64_t salt;      /* data patterns */
	long trace_iter;    /* >= 0: print that iteration's events on stdout */
};

struct lat_result {
	struct lat_iter *it;  /* iters entries (malloc'ed; lat_free) */
	uint64_t iters;
	/* per-stage medians over the iterations (each stage's own median) */
	double stage_med[LAT_STAGES], side_med[LAT_SIDES];
	int64_t residual_max; /* largest |residual| of any iteration */
	uint64_t events;      /* harness events recorded */
};

/* Run it; 0, or -1 after a message on stderr (a wrong byte, a failed or
 * missing completion, a hang, a DMA fault, a stage that could not be
 * found). */
int lat_run(struct sim_pair *p, const struct lat_opts *o, struct lat_result *r);
void lat_free(struct lat_result *r);

#endif
