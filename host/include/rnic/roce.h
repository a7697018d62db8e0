/* OpenRNIC: RoCEv2 values derived from a QP's attributes, computed the same
 * way wherever a QP context is built (the host library and the firmware). */
#ifndef RNIC_ROCE_H
#define RNIC_ROCE_H

#include <stdint.h>

#include "rnic/rnic_hw.h"

/* The UDP source port of a QP's packets, from its flow label as rdma-core
 * derives it (rdma_flow_label_to_udp_sport); a label of 0 is first derived
 * from the local and remote QP numbers (rdma_calc_flow_label). */
static inline uint16_t rnic_rocev2_udp_sport(uint32_t lqpn, uint32_t rqpn, uint32_t flow_label)
{
	uint32_t fl_low, fl_high;

	if (!flow_label) {
		uint64_t v = (uint64_t)lqpn * rqpn;

		v ^= v >> 20;
		v ^= v >> 40;
		flow_label = (uint32_t)(v & 0xfffff);
	}
	fl_low = flow_label & 0x3fff;
	fl_high = flow_label & 0xfc000;
	fl_low ^= fl_high >> 14;
	return (uint16_t)(fl_low | RNIC_ROCEV2_SPORT_MIN);
}

#endif /* RNIC_ROCE_H */
