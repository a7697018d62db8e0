/* What the link allows a stream of messages: every byte one message's data
 * packets take on the wire, and the goodput that leaves at most. Header
 * sizes come from the generated formats (rnic/rnic_hw.h). */
#ifndef RNIC_TOOLS_WIRE_H
#define RNIC_TOOLS_WIRE_H

#include <stdint.h>

/* Wire bytes of the packets that carry one message of `msg` bytes of work
 * request opcode `opcode` (RNIC_WR_RDMA_WRITE[_WITH_IMM], RNIC_WR_SEND
 * [_WITH_IMM], RNIC_WR_RDMA_READ: its response packets) at path MTU `mtu`
 * bytes, over IPv4 or (ipv6) IPv6: per packet of at most mtu payload bytes,
 * Ethernet header, IP, UDP, BTH, the opcode's extension headers (RETH on
 * the first packet of a WRITE, ImmDt on the last of a WITH_IMM, AETH on the
 * first and last READ response), the payload padded to 4 bytes, ICRC, the
 * frame padded to the Ethernet minimum, FCS, preamble and inter-frame gap.
 * A message of 0 bytes is one packet. 0 for an opcode it does not know or
 * an mtu of 0. */
uint64_t wire_msg_bytes(uint32_t opcode, uint64_t msg, uint32_t mtu, int ipv6);

/* The largest goodput such messages can reach, as a fraction of the line
 * rate: msg / wire_msg_bytes (0 where that is 0). */
double wire_limit(uint32_t opcode, uint64_t msg, uint32_t mtu, int ipv6);

#endif
