`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * What every board top puts between its vendor IP and rnic_core, free of
 * vendor primitives (boards/<board>/rtl/ hold the IP instances):
 *
 *   clock domains  core_clk: the core, its BAR0 AXI4-Lite and DMA AXI4 ports
 *                  (the PCIe bridge's user clock, so the two widest
 *                  interfaces need no crossing); mac_tx_clk and mac_rx_clk:
 *                  the MAC's stream clocks (the same net on most MACs).
 *   crossings      MAC receive -> core: rnic_axis_async_fifo dropping whole
 *                  frames that meet a full FIFO or end with the MAC's bad-FCS
 *                  tuser (a MAC's receive stream cannot wait); core -> MAC
 *                  transmit: store and forward, so the MAC never sees a gap
 *                  inside a frame (the 100G MAC counts one as an underflow);
 *                  the core's pause request to mac_tx_clk and the status
 *                  inputs to core_clk through rnic_cdc_sync.
 *   resets         each *_rst_in (asynchronous: an IP's reset, not-locked or
 *                  not-ready output) through rnic_reset_sync into its domain;
 *                  the core leaves reset only when the PCIe side is up, and
 *                  each FIFO side only when both its clocks run.
 *   LEDs           led_link (MAC receive side aligned / block lock),
 *                  led_pcie (PCIe link up), led_traffic (a frame in either
 *                  direction, stretched to about 30 ms so it can be seen),
 *                  led_heartbeat (core clock running and out of reset:
 *                  blinks at about 1 Hz).
 *
 * TX_FIFO_ADDR_WIDTH must hold the largest frame the core sends (IB MTU 4096
 * plus headers: 66 words at 512 bits, 527 at 64). The core's receive FIFO
 * keeps rnic_core's size for the data width (sized there for the link rate).
 */
module rnic_board_glue #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int AXI_ID_WIDTH = 4,
    parameter int QPN_WIDTH = 10,
    parameter int MR_INDEX_WIDTH = 12,
    parameter int CQN_WIDTH = 10,
    parameter int MTT_INDEX_WIDTH = 14,
    parameter int TX_FIFO_ADDR_WIDTH = DATA_WIDTH >= 512 ? 7 : (DATA_WIDTH >= 256 ? 8 : 10),
    parameter int RX_FIFO_ADDR_WIDTH = TX_FIFO_ADDR_WIDTH,
    parameter int CORE_CLK_MHZ = 250,
    parameter FW_HEX = ""
) (
    // core clock domain
    input  wire logic                       core_clk,
    input  wire logic                       core_rst_in,     // asynchronous
    input  wire logic                       pcie_link_up,    // asynchronous

    // BAR0 (core_clk)
    input  wire logic [15:0]                s_axil_awaddr,
    input  wire logic [2:0]                 s_axil_awprot,
    input  wire logic                       s_axil_awvalid,
    output      logic                       s_axil_awready,
    input  wire logic [31:0]                s_axil_wdata,
    input  wire logic [3:0]                 s_axil_wstrb,
    input  wire logic                       s_axil_wvalid,
    output      logic                       s_axil_wready,
    output      logic [1:0]                 s_axil_bresp,
    output      logic                       s_axil_bvalid,
    input  wire logic                       s_axil_bready,
    input  wire logic [15:0]                s_axil_araddr,
    input  wire logic [2:0]                 s_axil_arprot,
    input  wire logic                       s_axil_arvalid,
    output      logic                       s_axil_arready,
    output      logic [31:0]                s_axil_rdata,
    output      logic [1:0]                 s_axil_rresp,
    output      logic                       s_axil_rvalid,
    input  wire logic                       s_axil_rready,

    // DMA toward host memory (core_clk)
    output      logic [AXI_ID_WIDTH-1:0]    m_axi_awid,
    output      logic [63:0]                m_axi_awaddr,
    output      logic [7:0]                 m_axi_awlen,
    output      logic [2:0]                 m_axi_awsize,
    output      logic [1:0]                 m_axi_awburst,
    output      logic                       m_axi_awlock,
    output      logic [3:0]                 m_axi_awcache,
    output      logic [2:0]                 m_axi_awprot,
    output      logic                       m_axi_awvalid,
    input  wire logic                       m_axi_awready,
    output      logic [DATA_WIDTH-1:0]      m_axi_wdata,
    output      logic [KEEP_WIDTH-1:0]      m_axi_wstrb,
    output      logic                       m_axi_wlast,
    output      logic                       m_axi_wvalid,
    input  wire logic                       m_axi_wready,
    input  wire logic [AXI_ID_WIDTH-1:0]    m_axi_bid,
    input  wire logic [1:0]                 m_axi_bresp,
    input  wire logic                       m_axi_bvalid,
    output      logic                       m_axi_bready,
    output      logic [AXI_ID_WIDTH-1:0]    m_axi_arid,
    output      logic [63:0]                m_axi_araddr,
    output      logic [7:0]                 m_axi_arlen,
    output      logic [2:0]                 m_axi_arsize,
    output      logic [1:0]                 m_axi_arburst,
    output      logic                       m_axi_arlock,
    output      logic [3:0]                 m_axi_arcache,
    output      logic [2:0]                 m_axi_arprot,
    output      logic                       m_axi_arvalid,
    input  wire logic                       m_axi_arready,
    input  wire logic [AXI_ID_WIDTH-1:0]    m_axi_rid,
    input  wire logic [DATA_WIDTH-1:0]      m_axi_rdata,
    input  wire logic [1:0]                 m_axi_rresp,
    input  wire logic                       m_axi_rlast,
    input  wire logic                       m_axi_rvalid,
    output      logic                       m_axi_rready,

    // MAC transmit (mac_tx_clk)
    input  wire logic                       mac_tx_clk,
    input  wire logic                       mac_tx_rst_in,   // asynchronous
    output      logic [DATA_WIDTH-1:0]      m_axis_mac_tx_tdata,
    output      logic [KEEP_WIDTH-1:0]      m_axis_mac_tx_tkeep,
    output      logic                       m_axis_mac_tx_tvalid,
    input  wire logic                       m_axis_mac_tx_tready,
    output      logic                       m_axis_mac_tx_tlast,
    output      logic                       m_axis_mac_tx_tuser,
    output      logic                       mac_tx_pause_req, // mac_tx_clk: keep the peer paused

    // MAC receive (mac_rx_clk); tuser on the last word: bad frame (FCS)
    input  wire logic                       mac_rx_clk,
    input  wire logic                       mac_rx_rst_in,   // asynchronous
    input  wire logic [DATA_WIDTH-1:0]      s_axis_mac_rx_tdata,
    input  wire logic [KEEP_WIDTH-1:0]      s_axis_mac_rx_tkeep,
    input  wire logic                       s_axis_mac_rx_tvalid,
    input  wire logic                       s_axis_mac_rx_tlast,
    input  wire logic                       s_axis_mac_rx_tuser,
    input  wire logic                       mac_rx_link_up,  // asynchronous (aligned, block lock)

    output      logic                       led_link,
    output      logic                       led_pcie,
    output      logic                       led_traffic,
    output      logic                       led_heartbeat,
    output      logic                       core_rst          // core_clk, for the bridge-side glue
);

    // ------------------------------------------------------------------
    // resets
    // ------------------------------------------------------------------
    logic tx_rst, rx_rst;

    // the core waits for the PCIe link as well: BAR0 and DMA go through it
    rnic_reset_sync #(.STAGES(4)) core_rst_inst (
        .clk(core_clk), .rst_in(core_rst_in || !pcie_link_up), .rst_out(core_rst)
    );
    rnic_reset_sync #(.STAGES(4)) tx_rst_inst (
        .clk(mac_tx_clk), .rst_in(mac_tx_rst_in), .rst_out(tx_rst)
    );
    rnic_reset_sync #(.STAGES(4)) rx_rst_inst (
        .clk(mac_rx_clk), .rst_in(mac_rx_rst_in), .rst_out(rx_rst)
    );

    // ------------------------------------------------------------------
    // the core
    // ------------------------------------------------------------------
    logic [DATA_WIDTH-1:0] core_tx_tdata, core_rx_tdata;
    logic [KEEP_WIDTH-1:0] core_tx_tkeep, core_rx_tkeep;
    logic core_tx_tvalid, core_tx_tready, core_tx_tlast, core_tx_tuser;
    logic core_rx_tvalid, core_rx_tready, core_rx_tlast, core_rx_tuser;
    logic core_pause_req;

    rnic_core #(
        .DATA_WIDTH(DATA_WIDTH),
        .AXI_ID_WIDTH(AXI_ID_WIDTH),
        .QPN_WIDTH(QPN_WIDTH),
        .MR_INDEX_WIDTH(MR_INDEX_WIDTH),
        .CQN_WIDTH(CQN_WIDTH),
        .MTT_INDEX_WIDTH(MTT_INDEX_WIDTH),
        .FW_HEX(FW_HEX)
    ) core_inst (
        .clk(core_clk), .rst(core_rst),
        .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready,
        .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid, .s_axil_wready,
        .s_axil_bresp, .s_axil_bvalid, .s_axil_bready,
        .s_axil_araddr, .s_axil_arprot, .s_axil_arvalid, .s_axil_arready,
        .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready,
        .m_axi_awid, .m_axi_awaddr, .m_axi_awlen, .m_axi_awsize, .m_axi_awburst,
        .m_axi_awlock, .m_axi_awcache, .m_axi_awprot, .m_axi_awvalid, .m_axi_awready,
        .m_axi_wdata, .m_axi_wstrb, .m_axi_wlast, .m_axi_wvalid, .m_axi_wready,
        .m_axi_bid, .m_axi_bresp, .m_axi_bvalid, .m_axi_bready,
        .m_axi_arid, .m_axi_araddr, .m_axi_arlen, .m_axi_arsize, .m_axi_arburst,
        .m_axi_arlock, .m_axi_arcache, .m_axi_arprot, .m_axi_arvalid, .m_axi_arready,
        .m_axi_rid, .m_axi_rdata, .m_axi_rresp, .m_axi_rlast, .m_axi_rvalid, .m_axi_rready,
        .m_axis_tx_tdata(core_tx_tdata), .m_axis_tx_tkeep(core_tx_tkeep),
        .m_axis_tx_tvalid(core_tx_tvalid), .m_axis_tx_tready(core_tx_tready),
        .m_axis_tx_tlast(core_tx_tlast), .m_axis_tx_tuser(core_tx_tuser),
        .s_axis_rx_tdata(core_rx_tdata), .s_axis_rx_tkeep(core_rx_tkeep),
        .s_axis_rx_tvalid(core_rx_tvalid), .s_axis_rx_tready(core_rx_tready),
        .s_axis_rx_tlast(core_rx_tlast), .s_axis_rx_tuser(core_rx_tuser),
        .mac_pause_req(core_pause_req)
    );

    // ------------------------------------------------------------------
    // crossings
    // ------------------------------------------------------------------
    logic tx_full_unused, tx_drop_unused, rx_full_unused, rx_drop, rx_tready_unused;

    rnic_axis_async_fifo #(
        .DATA_WIDTH(DATA_WIDTH), .USER_WIDTH(1), .ADDR_WIDTH(TX_FIFO_ADDR_WIDTH),
        .FRAME_FIFO(1), .DROP_WHEN_FULL(0), .DROP_BAD_FRAME(0)
    ) tx_fifo_inst (
        .s_clk(core_clk), .s_rst(core_rst),
        .s_axis_tdata(core_tx_tdata), .s_axis_tkeep(core_tx_tkeep), .s_axis_tvalid(core_tx_tvalid),
        .s_axis_tready(core_tx_tready), .s_axis_tlast(core_tx_tlast), .s_axis_tuser(core_tx_tuser),
        .s_full(tx_full_unused), .s_drop(tx_drop_unused),
        .m_clk(mac_tx_clk), .m_rst(tx_rst),
        .m_axis_tdata(m_axis_mac_tx_tdata), .m_axis_tkeep(m_axis_mac_tx_tkeep),
        .m_axis_tvalid(m_axis_mac_tx_tvalid), .m_axis_tready(m_axis_mac_tx_tready),
        .m_axis_tlast(m_axis_mac_tx_tlast), .m_axis_tuser(m_axis_mac_tx_tuser)
    );

    rnic_axis_async_fifo #(
        .DATA_WIDTH(DATA_WIDTH), .USER_WIDTH(1), .ADDR_WIDTH(RX_FIFO_ADDR_WIDTH),
        .FRAME_FIFO(1), .DROP_WHEN_FULL(1), .DROP_BAD_FRAME(1)
    ) rx_fifo_inst (
        .s_clk(mac_rx_clk), .s_rst(rx_rst),
        .s_axis_tdata(s_axis_mac_rx_tdata), .s_axis_tkeep(s_axis_mac_rx_tkeep),
        .s_axis_tvalid(s_axis_mac_rx_tvalid), .s_axis_tready(rx_tready_unused),
        .s_axis_tlast(s_axis_mac_rx_tlast), .s_axis_tuser(s_axis_mac_rx_tuser),
        .s_full(rx_full_unused), .s_drop(rx_drop),
        .m_clk(core_clk), .m_rst(core_rst),
        .m_axis_tdata(core_rx_tdata), .m_axis_tkeep(core_rx_tkeep),
        .m_axis_tvalid(core_rx_tvalid), .m_axis_tready(core_rx_tready),
        .m_axis_tlast(core_rx_tlast), .m_axis_tuser(core_rx_tuser)
    );

    // the core's pause request is a flip-flop (rnic_rx_pause): a level
    rnic_cdc_sync #(.WIDTH(1), .STAGES(3)) pause_sync_inst (
        .clk(mac_tx_clk), .rst(tx_rst), .d(core_pause_req), .q(mac_tx_pause_req)
    );

    // ------------------------------------------------------------------
    // LEDs (core_clk; the status inputs synchronized first)
    // ------------------------------------------------------------------
    localparam int STRETCH_BITS = $clog2(CORE_CLK_MHZ * 30000 + 1);   // ~30 ms
    localparam int BEAT_BITS = $clog2(CORE_CLK_MHZ * 500000 + 1);     // ~0.5 s per half period
    logic [1:0] status_core;
    logic [STRETCH_BITS-1:0] traffic_cnt_reg;
    logic [BEAT_BITS-1:0]    beat_cnt_reg;
    logic                    beat_reg;
    logic                    frame_seen;

    rnic_cdc_sync #(.WIDTH(2), .STAGES(2)) status_sync_inst (
        .clk(core_clk), .rst(1'b0), .d({mac_rx_link_up, pcie_link_up}), .q(status_core)
    );

    assign frame_seen = (core_tx_tvalid && core_tx_tready && core_tx_tlast) ||
                        (core_rx_tvalid && core_rx_tready && core_rx_tlast);

    always_ff @(posedge core_clk) begin
        if (frame_seen) traffic_cnt_reg <= '1;
        else if (traffic_cnt_reg != '0) traffic_cnt_reg <= traffic_cnt_reg - 1'b1;
        if (beat_cnt_reg == BEAT_BITS'(CORE_CLK_MHZ * 500000)) begin
            beat_cnt_reg <= '0;
            beat_reg <= !beat_reg;
        end else begin
            beat_cnt_reg <= beat_cnt_reg + 1'b1;
        end
        if (core_rst) begin
            traffic_cnt_reg <= '0;
            beat_cnt_reg <= '0;
            beat_reg <= 1'b0;
        end
    end

    assign led_link = status_core[1];
    assign led_pcie = status_core[0];
    assign led_traffic = traffic_cnt_reg != '0;
    assign led_heartbeat = beat_reg;

    wire unused_ok = &{1'b0, tx_full_unused, tx_drop_unused, rx_full_unused, rx_drop, rx_tready_unused};

endmodule

`resetall
