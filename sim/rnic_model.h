/* OpenRNIC simulator: the pins of one rnic_core and the C handle of its
 * Verilator model (sim/rnic_model.cpp is the only C++ in sim/).
 *
 * Pin structs are named from the core's point of view: rnic_core_in holds
 * what the core samples, rnic_core_out what it drives. Buses wider than 64
 * bits are byte arrays: byte i holds bits 8i+7:8i. TKEEP/WSTRB are at most
 * 64 bits and fit a uint64_t (bit i = byte lane i).
 */
#ifndef RNIC_MODEL_H
#define RNIC_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RNIC_MODEL_MAX_BYTES 64 /* widest data path: 512 bits */

struct rnic_core_in {
	uint8_t rst;
	/* BAR0 AXI4-Lite slave */
	uint16_t s_axil_awaddr;
	uint8_t s_axil_awprot, s_axil_awvalid;
	uint32_t s_axil_wdata;
	uint8_t s_axil_wstrb, s_axil_wvalid;
	uint8_t s_axil_bready;
	uint16_t s_axil_araddr;
	uint8_t s_axil_arprot, s_axil_arvalid;
	uint8_t s_axil_rready;
	/* DMA AXI4 master: the responses */
	uint8_t m_axi_awready, m_axi_wready;
	uint8_t m_axi_bid, m_axi_bresp, m_axi_bvalid;
	uint8_t m_axi_arready;
	uint8_t m_axi_rid;
	uint8_t m_axi_rdata[RNIC_MODEL_MAX_BYTES];
	uint8_t m_axi_rresp, m_axi_rlast, m_axi_rvalid;
	/* Ethernet */
	uint8_t m_axis_tx_tready;
	uint8_t s_axis_rx_tdata[RNIC_MODEL_MAX_BYTES];
	uint64_t s_axis_rx_tkeep;
	uint8_t s_axis_rx_tvalid, s_axis_rx_tlast, s_axis_rx_tuser;
};

struct rnic_core_out {
	uint8_t s_axil_awready, s_axil_wready;
	uint8_t s_axil_bresp, s_axil_bvalid;
	uint8_t s_axil_arready;
	uint32_t s_axil_rdata;
	uint8_t s_axil_rresp, s_axil_rvalid;

	uint8_t m_axi_awid;
	uint64_t m_axi_awaddr;
	uint8_t m_axi_awlen, m_axi_awsize, m_axi_awburst, m_axi_awlock, m_axi_awcache,
		m_axi_awprot, m_axi_awvalid;
	uint8_t m_axi_wdata[RNIC_MODEL_MAX_BYTES];
	uint64_t m_axi_wstrb;
	uint8_t m_axi_wlast, m_axi_wvalid;
	uint8_t m_axi_bready;
	uint8_t m_axi_arid;
	uint64_t m_axi_araddr;
	uint8_t m_axi_arlen, m_axi_arsize, m_axi_arburst, m_axi_arlock, m_axi_arcache,
		m_axi_arprot, m_axi_arvalid;
	uint8_t m_axi_rready;

	uint8_t m_axis_tx_tdata[RNIC_MODEL_MAX_BYTES];
	uint64_t m_axis_tx_tkeep;
	uint8_t m_axis_tx_tvalid, m_axis_tx_tlast, m_axis_tx_tuser;
	uint8_t s_axis_rx_tready;
	uint8_t mac_pause_req;
	uint8_t leds; /* a board model's LEDs (bit i = led[i]); 0 for the bare core */
};

/* The Verilator context: simulation time, randomized reset. One per world,
 * shared by its NICs. Time unit: ps. */
struct rnic_vctx;
struct rnic_model;

/* seed: Verilator's random seed for --x-initial unique (+verilator+rand+reset+2);
 * trace: non-zero if any model will open an FST file. */
struct rnic_vctx *rnic_vctx_create(uint64_t seed, int trace);
void rnic_vctx_destroy(struct rnic_vctx *c);
void rnic_vctx_time_inc(struct rnic_vctx *c, uint64_t ps);
uint64_t rnic_vctx_time(const struct rnic_vctx *c);
/* Non-zero once the RTL executed $finish (or a fatal assertion). */
int rnic_vctx_got_finish(const struct rnic_vctx *c);

/* Board models (boards/sim/rnic_board_sim.sv: the board's top with models of
 * its vendor IP): the same pins as the core's, the DMA port at the
 * PCIe bridge's width, and three clocks. Compiled only into programs linked
 * with the board library (sim/rules.mk: SIM_BOARD_LIB). */
enum rnic_model_board {
	RNIC_MODEL_BOARD_AU250 = 1,  /* 512-bit core, 512-bit bridge, 100G MAC */
	RNIC_MODEL_BOARD_KCU105 = 2, /* 64-bit core, 256-bit bridge, 10G MAC */
};
/* Non-zero if this board's model is compiled in. */
int rnic_model_board_available(int board);
/* NULL if it is not. */
struct rnic_model *rnic_model_create_board(struct rnic_vctx *c, int board, const char *name);
/* A board model's other clocks (the core's clock is rnic_model_set_clk):
 * the MAC's user clock and the PCIe reference clock. No effect on the bare
 * core. */
void rnic_model_set_board_clks(struct rnic_model *m, int mac_clk, int ref_clk);

/* Non-zero if a model of this width is compiled into the library. */
int rnic_model_available(unsigned int data_width);
/* NULL if no model of this width is compiled in. */
struct rnic_model *rnic_model_create(struct rnic_vctx *c, unsigned int data_width,
				     const char *name);
void rnic_model_destroy(struct rnic_model *m);
void rnic_model_set_inputs(struct rnic_model *m, const struct rnic_core_in *in);
void rnic_model_set_clk(struct rnic_model *m, int clk);
void rnic_model_eval(struct rnic_model *m);
void rnic_model_get_outputs(struct rnic_model *m, struct rnic_core_out *out);
/* FST tracing (compiled in; opened only on request). 0 or -errno. */
int rnic_model_trace_open(struct rnic_model *m, const char *path);
void rnic_model_trace_dump(struct rnic_model *m); /* at the context's time */
void rnic_model_trace_close(struct rnic_model *m);
/* Run the RTL's final blocks. */
void rnic_model_final(struct rnic_model *m);

#ifdef __cplusplus
}
#endif

#endif /* RNIC_MODEL_H */
