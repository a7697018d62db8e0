/* The link's limit on goodput; see wire.h. */
#include "wire.h"

#include "rnic/rnic_hw.h"

uint64_t wire_msg_bytes(uint32_t opcode, uint64_t msg, uint32_t mtu, int ipv6)
{
	const uint64_t base = RNIC_ETH_HDR_BYTES + (ipv6 ? RNIC_IPV6_HDR_BYTES : RNIC_IPV4_HDR_BYTES) +
			      RNIC_UDP_HDR_BYTES + RNIC_BTH_BYTES + RNIC_ICRC_BYTES;
	const uint64_t mac = RNIC_ETH_FCS_BYTES + RNIC_ETH_PREAMBLE_BYTES + RNIC_ETH_IFG_BYTES;
	uint64_t npkt, total = 0;

	if (!mtu || (opcode != RNIC_WR_RDMA_WRITE && opcode != RNIC_WR_RDMA_WRITE_WITH_IMM &&
		     opcode != RNIC_WR_SEND && opcode != RNIC_WR_SEND_WITH_IMM && opcode != RNIC_WR_RDMA_READ))
		return 0;
	npkt = msg ? (msg + mtu - 1) / mtu : 1;
	for (uint64_t i = 0; i < npkt; i++) {
		uint64_t pay = i + 1 < npkt ? mtu : msg - i * mtu;
		uint64_t frame = base + ((pay + 3) & ~(uint64_t)3);
		int first = i == 0, last = i + 1 == npkt;

		if (opcode == RNIC_WR_RDMA_READ) {
			if (first || last)
				frame += RNIC_AETH_BYTES;
		} else {
			if (first && (opcode == RNIC_WR_RDMA_WRITE || opcode == RNIC_WR_RDMA_WRITE_WITH_IMM))
				frame += RNIC_RETH_BYTES;
			if (last && (opcode == RNIC_WR_RDMA_WRITE_WITH_IMM || opcode == RNIC_WR_SEND_WITH_IMM))
				frame += RNIC_IMMDT_BYTES;
		}
		if (frame < RNIC_ETH_MIN_FRAME_BYTES)
			frame = RNIC_ETH_MIN_FRAME_BYTES;
		total += frame + mac;
	}
	return total;
}

double wire_limit(uint32_t opcode, uint64_t msg, uint32_t mtu, int ipv6)
{
	uint64_t bytes = wire_msg_bytes(opcode, msg, mtu, ipv6);

	return bytes ? (double)msg / (double)bytes : 0;
}
