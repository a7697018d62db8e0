/* OpenRNIC simulator: the pins of the receive-path probe
 * (sim/replay/rnic_rx_probe.sv: rnic_rx_check -> FIFO -> rnic_pkt_rx) and
 * the C handle of its Verilator models (sim/replay/probe_model.cpp).
 *
 * As in rnic_model.h, buses wider than 64 bits are byte arrays, byte i
 * holding bits 8i+7:8i; TKEEP fits a uint64_t (bit i = byte lane i).
 */
#ifndef RNIC_PROBE_MODEL_H
#define RNIC_PROBE_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RNIC_PROBE_MAX_BYTES 64 /* widest data path: 512 bits */

struct rnic_probe_in {
	uint8_t rst;
	uint8_t s_axis_rx_tdata[RNIC_PROBE_MAX_BYTES];
	uint64_t s_axis_rx_tkeep;
	uint8_t s_axis_rx_tvalid, s_axis_rx_tlast, s_axis_rx_tuser;
	uint8_t m_hdr_ready;
	uint8_t m_axis_payload_tready;
};

/* The parser's header record (rtl/rnic_hdr_pkg.sv), field by field. */
struct rnic_probe_hdr {
	uint64_t eth_dst, eth_src;
	uint8_t ipv6;
	uint8_t ip_src[16], ip_dst[16]; /* IPv4: bytes 3..0 */
	uint8_t ip_tclass, ip_ttl;
	uint32_t ip_flow_label;
	uint16_t udp_sport;
	uint8_t bth_opcode, bth_se, bth_migreq, bth_pad;
	uint16_t bth_pkey;
	uint32_t bth_dest_qpn;
	uint8_t bth_ackreq;
	uint32_t bth_psn;
	uint8_t has_reth;
	uint64_t reth_va;
	uint32_t reth_rkey, reth_len;
	uint8_t has_aeth, aeth_syndrome;
	uint32_t aeth_msn;
	uint8_t has_immdt;
	uint32_t immdt;
	uint8_t has_deth;
	uint32_t deth_qkey, deth_src_qpn;
	uint16_t payload_len;
};

struct rnic_probe_out {
	uint8_t s_axis_rx_tready;
	uint8_t stat_good, stat_not_roce, stat_bad_udp_port, stat_bad_ip_csum, stat_bad_icrc,
		stat_malformed;
	uint8_t m_hdr_valid, m_hdr_bad;
	struct rnic_probe_hdr hdr;
	uint8_t m_axis_payload_tdata[RNIC_PROBE_MAX_BYTES];
	uint64_t m_axis_payload_tkeep;
	uint8_t m_axis_payload_tvalid, m_axis_payload_tlast;
	uint8_t status_overflow;
};

struct rnic_probe;

/* Non-zero if a probe model of this width is compiled in. */
int rnic_probe_available(unsigned int data_width);
/* A probe with its own Verilator context; seed: Verilator's random seed for
 * the randomized initial state; trace: non-zero to allow FST tracing.
 * NULL if no model of this width is compiled in (or out of memory). */
struct rnic_probe *rnic_probe_create(unsigned int data_width, uint64_t seed, int trace);
void rnic_probe_destroy(struct rnic_probe *p); /* runs final blocks first */
void rnic_probe_set_inputs(struct rnic_probe *p, const struct rnic_probe_in *in);
void rnic_probe_get_outputs(struct rnic_probe *p, struct rnic_probe_out *out);
/* Set clk and evaluate; dumps the FST if one is open. */
void rnic_probe_eval(struct rnic_probe *p, int clk);
/* Advance the context's time (ps). */
void rnic_probe_time_inc(struct rnic_probe *p, uint64_t ps);
/* Non-zero once the RTL executed $finish, $error or a failed assertion. */
int rnic_probe_got_finish(const struct rnic_probe *p);
/* FST of the probe: 0 or -errno. */
int rnic_probe_trace_open(struct rnic_probe *p, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* RNIC_PROBE_MODEL_H */
