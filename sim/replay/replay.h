/* rnic-sim --replay FILE --frames-json: every frame of a capture through the
 * RTL receive front end (rnic_rx_check -> rnic_pkt_rx, sim/replay/
 * rnic_rx_probe.sv), one JSON object per frame on the output stream.
 */
#ifndef RNIC_REPLAY_H
#define RNIC_REPLAY_H

#include <stdint.h>
#include <stdio.h>

struct rnic_replay_cfg {
	const char *path;         /* pcap or pcapng, Ethernet (DLT_EN10MB) */
	unsigned int data_width;  /* 64 or 512 */
	uint64_t seed;            /* tvalid gaps, tready back-pressure, initial state */
	const char *fst_path;     /* FST of the probe, or NULL */
	uint64_t frame_timeout;   /* cycles a frame may take; 0: 2000 + 100 per beat */
	FILE *out;                /* the JSON lines */
};

/* Returns 0 when every frame got its verdict and the probe behaved, 1 when
 * the file cannot be read or is not Ethernet (a message on stderr, no
 * output) or any frame got an error line (timeout, the probe's outputs
 * inconsistent with its input). */
int rnic_replay_frames_json(const struct rnic_replay_cfg *cfg);

#endif /* RNIC_REPLAY_H */
