`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * MR address translation on the DMA master's address channels.
 *
 * The engines address MR data in the MTT space the MPT hands them: an
 * address with bit MPT_PA_MTT_BIT set means MTT entry (addr >> 12) (low
 * MTT_INDEX_WIDTH bits) holds the bus page, addr[11:0] the byte in it. The
 * DMA engines never let a burst cross a 4 KiB boundary, so each AR or AW
 * burst lies in one page and is translated as a whole here: the MTT entry
 * is read and the page replaces the address's upper bits. Addresses without
 * the bit (rings, CQEs, inline WQE data) pass through unchanged, with the
 * same latency, so bursts keep their order. Write data is held back until
 * its burst's AW has gone out, so the memory never sees W before AW.
 *
 * Each channel is a two-stage pipeline (lookup, output) that takes one
 * burst per cycle; the R and B channels do not pass through here.
 */
module rnic_axi_xlate #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int AXI_ADDR_WIDTH = 64,
    parameter int AXI_ID_WIDTH = 4,
    parameter int MTT_INDEX_WIDTH = 16
) (
    input  wire logic                       clk,
    input  wire logic                       rst,

    // MTT writes (context window)
    input  wire logic                       mtt_wr_en,
    input  wire logic [MTT_INDEX_WIDTH-1:0] mtt_wr_addr,
    input  wire logic [rnic_pkg::MTT_BITS-1:0] mtt_wr_data,

    input  wire logic [AXI_ID_WIDTH-1:0]    s_axi_arid,
    input  wire logic [AXI_ADDR_WIDTH-1:0]  s_axi_araddr,
    input  wire logic [7:0]                 s_axi_arlen,
    input  wire logic [2:0]                 s_axi_arsize,
    input  wire logic [1:0]                 s_axi_arburst,
    input  wire logic                       s_axi_arlock,
    input  wire logic [3:0]                 s_axi_arcache,
    input  wire logic [2:0]                 s_axi_arprot,
    input  wire logic                       s_axi_arvalid,
    output      logic                       s_axi_arready,
    output      logic [AXI_ID_WIDTH-1:0]    m_axi_arid,
    output      logic [AXI_ADDR_WIDTH-1:0]  m_axi_araddr,
    output      logic [7:0]                 m_axi_arlen,
    output      logic [2:0]                 m_axi_arsize,
    output      logic [1:0]                 m_axi_arburst,
    output      logic                       m_axi_arlock,
    output      logic [3:0]                 m_axi_arcache,
    output      logic [2:0]                 m_axi_arprot,
    output      logic                       m_axi_arvalid,
    input  wire logic                       m_axi_arready,

    input  wire logic [AXI_ID_WIDTH-1:0]    s_axi_awid,
    input  wire logic [AXI_ADDR_WIDTH-1:0]  s_axi_awaddr,
    input  wire logic [7:0]                 s_axi_awlen,
    input  wire logic [2:0]                 s_axi_awsize,
    input  wire logic [1:0]                 s_axi_awburst,
    input  wire logic                       s_axi_awlock,
    input  wire logic [3:0]                 s_axi_awcache,
    input  wire logic [2:0]                 s_axi_awprot,
    input  wire logic                       s_axi_awvalid,
    output      logic                       s_axi_awready,
    output      logic [AXI_ID_WIDTH-1:0]    m_axi_awid,
    output      logic [AXI_ADDR_WIDTH-1:0]  m_axi_awaddr,
    output      logic [7:0]                 m_axi_awlen,
    output      logic [2:0]                 m_axi_awsize,
    output      logic [1:0]                 m_axi_awburst,
    output      logic                       m_axi_awlock,
    output      logic [3:0]                 m_axi_awcache,
    output      logic [2:0]                 m_axi_awprot,
    output      logic                       m_axi_awvalid,
    input  wire logic                       m_axi_awready,

    input  wire logic [DATA_WIDTH-1:0]      s_axi_wdata,
    input  wire logic [KEEP_WIDTH-1:0]      s_axi_wstrb,
    input  wire logic                       s_axi_wlast,
    input  wire logic                       s_axi_wvalid,
    output      logic                       s_axi_wready,
    output      logic [DATA_WIDTH-1:0]      m_axi_wdata,
    output      logic [KEEP_WIDTH-1:0]      m_axi_wstrb,
    output      logic                       m_axi_wlast,
    output      logic                       m_axi_wvalid,
    input  wire logic                       m_axi_wready
);

    // id, len, size, burst, lock, cache, prot: carried along unchanged
    localparam int SIDE_W = AXI_ID_WIDTH + 8 + 3 + 2 + 1 + 4 + 3;
    localparam int PAGE_SHIFT = rnic_pkg::MTT_PAGE_SHIFT;

    initial begin
        if (AXI_ADDR_WIDTH != 64 || rnic_pkg::MTT_BITS + PAGE_SHIFT != 64) begin
            $error("rnic_axi_xlate: 64-bit addresses and 4 KiB pages expected (%m)");
            $finish;
        end
    end

    wire [SIDE_W-1:0] ar_side = {s_axi_arid, s_axi_arlen, s_axi_arsize, s_axi_arburst, s_axi_arlock,
                                 s_axi_arcache, s_axi_arprot};
    wire [SIDE_W-1:0] aw_side = {s_axi_awid, s_axi_awlen, s_axi_awsize, s_axi_awburst, s_axi_awlock,
                                 s_axi_awcache, s_axi_awprot};
    logic [SIDE_W-1:0] ar_side_out, aw_side_out;

    rnic_axi_xlate_chan #(.SIDE_W(SIDE_W), .MTT_INDEX_WIDTH(MTT_INDEX_WIDTH)) ar_inst (
        .clk, .rst, .mtt_wr_en, .mtt_wr_addr, .mtt_wr_data,
        .s_addr(s_axi_araddr), .s_side(ar_side), .s_valid(s_axi_arvalid), .s_ready(s_axi_arready),
        .m_addr(m_axi_araddr), .m_side(ar_side_out), .m_valid(m_axi_arvalid), .m_ready(m_axi_arready)
    );
    assign {m_axi_arid, m_axi_arlen, m_axi_arsize, m_axi_arburst, m_axi_arlock, m_axi_arcache,
            m_axi_arprot} = ar_side_out;

    rnic_axi_xlate_chan #(.SIDE_W(SIDE_W), .MTT_INDEX_WIDTH(MTT_INDEX_WIDTH)) aw_inst (
        .clk, .rst, .mtt_wr_en, .mtt_wr_addr, .mtt_wr_data,
        .s_addr(s_axi_awaddr), .s_side(aw_side), .s_valid(s_axi_awvalid), .s_ready(s_axi_awready),
        .m_addr(m_axi_awaddr), .m_side(aw_side_out), .m_valid(m_axi_awvalid), .m_ready(m_axi_awready)
    );
    assign {m_axi_awid, m_axi_awlen, m_axi_awsize, m_axi_awburst, m_axi_awlock, m_axi_awcache,
            m_axi_awprot} = aw_side_out;

    // write bursts whose AW is out and whose last beat is not
    logic [7:0] w_open_reg;
    wire        w_pass = w_open_reg != 0;
    assign m_axi_wdata = s_axi_wdata;
    assign m_axi_wstrb = s_axi_wstrb;
    assign m_axi_wlast = s_axi_wlast;
    assign m_axi_wvalid = s_axi_wvalid && w_pass;
    assign s_axi_wready = m_axi_wready && w_pass;

    always_ff @(posedge clk) begin
        w_open_reg <= w_open_reg + 8'(m_axi_awvalid && m_axi_awready)
                      - 8'(m_axi_wvalid && m_axi_wready && m_axi_wlast);
        if (rst) w_open_reg <= '0;
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // the write engines keep far fewer bursts open than the counter holds
    always_ff @(posedge clk) begin
        if (!rst && m_axi_awvalid && m_axi_awready && !(m_axi_wvalid && m_axi_wready && m_axi_wlast))
            assert (w_open_reg != 8'hff);
    end
`endif
`endif

endmodule

`resetall
