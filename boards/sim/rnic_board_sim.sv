`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The simulation top of a board design: the board's top as it is built
 * (boards/<board>/rtl/, instantiated by boards/<board>/sim/rnic_sim_board.sv),
 * with the vendor IP replaced by the behavioural models of boards/sim/ (the
 * IP's port lists, clocks, resets, and checks of what the top ties), and the
 * simulator's host and link models beyond those models. Its ports carry
 * rnic_core's names, so the simulator drives a board as it drives the bare
 * core, plus the board's clocks and LEDs:
 *   clk       the PCIe bridge's user clock (axi_aclk, 250 MHz nominal),
 *             which clocks the core; the BAR0 and DMA ports are in it
 *   mac_clk   the MAC's user clock (U250: 322.265625 MHz, KCU105: 156.25
 *             MHz nominal); the Ethernet streams and mac_pause_req are in it
 *   ref_clk   the PCIe reference clock (100 MHz): the MAC's init clock
 *   rst       PERST# (high: in reset)
 *   m_axi_*   the bridge's AXI slave toward host memory: MEM_DW bits (U250
 *             512, KCU105 256)
 *   led       the board's LEDs as its top drives them (U250: {traffic, PCIe,
 *             link}; KCU105: {heartbeat, traffic, PCIe, link})
 * The board's widths come from the build (`RNIC_SIM_PCIE_DW, `RNIC_SIM_CORE_DW,
 * `RNIC_SIM_LEDS). The models read these ports through `RNIC_SIM_TOP (this
 * module's name); what they hand back is read here from their instances.
 */
module rnic_board_sim #(
    parameter FW_HEX = "",
    parameter int QPN_WIDTH = 10,
    parameter int MR_INDEX_WIDTH = 12,
    parameter int CQN_WIDTH = 10,
    parameter int MTT_INDEX_WIDTH = 14,
    parameter int MEM_DW = `RNIC_SIM_PCIE_DW,
    parameter int DW = `RNIC_SIM_CORE_DW,
    parameter int NLED = `RNIC_SIM_LEDS
) (
    input  wire logic                  clk,
    input  wire logic                  mac_clk,
    input  wire logic                  ref_clk,
    input  wire logic                  rst,

    input  wire logic [15:0]           s_axil_awaddr,
    input  wire logic [2:0]            s_axil_awprot,
    input  wire logic                  s_axil_awvalid,
    output      logic                  s_axil_awready,
    input  wire logic [31:0]           s_axil_wdata,
    input  wire logic [3:0]            s_axil_wstrb,
    input  wire logic                  s_axil_wvalid,
    output      logic                  s_axil_wready,
    output      logic [1:0]            s_axil_bresp,
    output      logic                  s_axil_bvalid,
    input  wire logic                  s_axil_bready,
    input  wire logic [15:0]           s_axil_araddr,
    input  wire logic [2:0]            s_axil_arprot,
    input  wire logic                  s_axil_arvalid,
    output      logic                  s_axil_arready,
    output      logic [31:0]           s_axil_rdata,
    output      logic [1:0]            s_axil_rresp,
    output      logic                  s_axil_rvalid,
    input  wire logic                  s_axil_rready,

    output      logic [3:0]            m_axi_awid,
    output      logic [63:0]           m_axi_awaddr,
    output      logic [7:0]            m_axi_awlen,
    output      logic [2:0]            m_axi_awsize,
    output      logic [1:0]            m_axi_awburst,
    output      logic                  m_axi_awlock,
    output      logic [3:0]            m_axi_awcache,
    output      logic [2:0]            m_axi_awprot,
    output      logic                  m_axi_awvalid,
    input  wire logic                  m_axi_awready,
    output      logic [MEM_DW-1:0]     m_axi_wdata,
    output      logic [MEM_DW/8-1:0]   m_axi_wstrb,
    output      logic                  m_axi_wlast,
    output      logic                  m_axi_wvalid,
    input  wire logic                  m_axi_wready,
    input  wire logic [3:0]            m_axi_bid,
    input  wire logic [1:0]            m_axi_bresp,
    input  wire logic                  m_axi_bvalid,
    output      logic                  m_axi_bready,
    output      logic [3:0]            m_axi_arid,
    output      logic [63:0]           m_axi_araddr,
    output      logic [7:0]            m_axi_arlen,
    output      logic [2:0]            m_axi_arsize,
    output      logic [1:0]            m_axi_arburst,
    output      logic                  m_axi_arlock,
    output      logic [3:0]            m_axi_arcache,
    output      logic [2:0]            m_axi_arprot,
    output      logic                  m_axi_arvalid,
    input  wire logic                  m_axi_arready,
    input  wire logic [3:0]            m_axi_rid,
    input  wire logic [MEM_DW-1:0]     m_axi_rdata,
    input  wire logic [1:0]            m_axi_rresp,
    input  wire logic                  m_axi_rlast,
    input  wire logic                  m_axi_rvalid,
    output      logic                  m_axi_rready,

    output      logic [DW-1:0]         m_axis_tx_tdata,
    output      logic [DW/8-1:0]       m_axis_tx_tkeep,
    output      logic                  m_axis_tx_tvalid,
    input  wire logic                  m_axis_tx_tready,
    output      logic                  m_axis_tx_tlast,
    output      logic                  m_axis_tx_tuser,
    input  wire logic [DW-1:0]         s_axis_rx_tdata,
    input  wire logic [DW/8-1:0]       s_axis_rx_tkeep,
    input  wire logic                  s_axis_rx_tvalid,
    output      logic                  s_axis_rx_tready,
    input  wire logic                  s_axis_rx_tlast,
    input  wire logic                  s_axis_rx_tuser,
    output      logic                  mac_pause_req,

    output      logic [NLED-1:0]       led
);

    logic [DW-1:0]   h_tx_tdata;
    logic [DW/8-1:0] h_tx_tkeep;
    logic            h_tx_tvalid, h_tx_tlast, h_tx_tuser, h_pause_req;

    rnic_sim_board #(
        .FW_HEX(FW_HEX), .QPN_WIDTH(QPN_WIDTH), .MR_INDEX_WIDTH(MR_INDEX_WIDTH), .CQN_WIDTH(CQN_WIDTH),
        .MTT_INDEX_WIDTH(MTT_INDEX_WIDTH), .DW(DW), .NLED(NLED)
    ) board (
        .clk, .mac_clk, .ref_clk, .rst, .led, .h_tx_tdata, .h_tx_tkeep, .h_tx_tvalid, .h_tx_tlast,
        .h_tx_tuser, .h_pause_req
    );

    // BAR0 back to the host model
    assign s_axil_awready = board.dut.xdma_inst.h_axil_awready;
    assign s_axil_wready = board.dut.xdma_inst.h_axil_wready;
    assign s_axil_bresp = board.dut.xdma_inst.h_axil_bresp;
    assign s_axil_bvalid = board.dut.xdma_inst.h_axil_bvalid;
    assign s_axil_arready = board.dut.xdma_inst.h_axil_arready;
    assign s_axil_rdata = board.dut.xdma_inst.h_axil_rdata;
    assign s_axil_rresp = board.dut.xdma_inst.h_axil_rresp;
    assign s_axil_rvalid = board.dut.xdma_inst.h_axil_rvalid;

    // the bridge's DMA slave toward host memory (the bridge turns the
    // burst into memory requests; lock, cache and protection do not reach
    // the host)
    assign m_axi_awid = board.dut.xdma_inst.h_axi_awid;
    assign m_axi_awaddr = board.dut.xdma_inst.h_axi_awaddr;
    assign m_axi_awlen = board.dut.xdma_inst.h_axi_awlen;
    assign m_axi_awsize = board.dut.xdma_inst.h_axi_awsize;
    assign m_axi_awburst = board.dut.xdma_inst.h_axi_awburst;
    assign m_axi_awlock = 1'b0;
    assign m_axi_awcache = 4'b0011;
    assign m_axi_awprot = 3'b000;
    assign m_axi_awvalid = board.dut.xdma_inst.h_axi_awvalid;
    assign m_axi_wdata = board.dut.xdma_inst.h_axi_wdata;
    assign m_axi_wstrb = board.dut.xdma_inst.h_axi_wstrb;
    assign m_axi_wlast = board.dut.xdma_inst.h_axi_wlast;
    assign m_axi_wvalid = board.dut.xdma_inst.h_axi_wvalid;
    assign m_axi_bready = board.dut.xdma_inst.h_axi_bready;
    assign m_axi_arid = board.dut.xdma_inst.h_axi_arid;
    assign m_axi_araddr = board.dut.xdma_inst.h_axi_araddr;
    assign m_axi_arlen = board.dut.xdma_inst.h_axi_arlen;
    assign m_axi_arsize = board.dut.xdma_inst.h_axi_arsize;
    assign m_axi_arburst = board.dut.xdma_inst.h_axi_arburst;
    assign m_axi_arlock = 1'b0;
    assign m_axi_arcache = 4'b0011;
    assign m_axi_arprot = 3'b000;
    assign m_axi_arvalid = board.dut.xdma_inst.h_axi_arvalid;
    assign m_axi_rready = board.dut.xdma_inst.h_axi_rready;

    // the MAC's line side toward the link model (a MAC's receive stream
    // cannot wait: ready always)
    assign m_axis_tx_tdata = h_tx_tdata;
    assign m_axis_tx_tkeep = h_tx_tkeep;
    assign m_axis_tx_tvalid = h_tx_tvalid;
    assign m_axis_tx_tlast = h_tx_tlast;
    assign m_axis_tx_tuser = h_tx_tuser;
    assign s_axis_rx_tready = 1'b1;
    assign mac_pause_req = h_pause_req;

endmodule

`resetall
