`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Simulation model of the AXI data width converter (axi_dwidth_converter) as
 * the KCU105 top uses it on the DMA path: an upsizer from the core's SW-bit
 * AXI4 master to the bridge's MW-bit slave, packing (FIFO mode off, as
 * configured in boards/kcu105/ip.tcl).
 *
 * A burst of full-width INCR beats (the only kind the core issues; anything
 * else is reported) becomes one burst of MW-bit beats covering the same
 * bytes from the same address: write beats are packed into the lanes of
 * their addresses (a wide beat leaves when its last lane is filled or the
 * burst ends), read beats are cut back into narrow ones. IDs pass through
 * (the memory behind returns bursts in order per ID, as the bridge does);
 * up to DEPTH bursts per direction are in flight.
 */
module rnic_dma_upsize #(
    parameter int SW = 64,
    parameter int MW = 256,
    parameter int DEPTH = 16
) (
    input  wire logic              s_axi_aclk,
    input  wire logic              s_axi_aresetn,
    input  wire logic [3:0]        s_axi_awid,
    input  wire logic [63:0]       s_axi_awaddr,
    input  wire logic [7:0]        s_axi_awlen,
    input  wire logic [2:0]        s_axi_awsize,
    input  wire logic [1:0]        s_axi_awburst,
    input  wire logic              s_axi_awlock,
    input  wire logic [3:0]        s_axi_awcache,
    input  wire logic [2:0]        s_axi_awprot,
    input  wire logic [3:0]        s_axi_awregion,
    input  wire logic [3:0]        s_axi_awqos,
    input  wire logic              s_axi_awvalid,
    output      logic              s_axi_awready,
    input  wire logic [SW-1:0]     s_axi_wdata,
    input  wire logic [SW/8-1:0]   s_axi_wstrb,
    input  wire logic              s_axi_wlast,
    input  wire logic              s_axi_wvalid,
    output      logic              s_axi_wready,
    output      logic [3:0]        s_axi_bid,
    output      logic [1:0]        s_axi_bresp,
    output      logic              s_axi_bvalid,
    input  wire logic              s_axi_bready,
    input  wire logic [3:0]        s_axi_arid,
    input  wire logic [63:0]       s_axi_araddr,
    input  wire logic [7:0]        s_axi_arlen,
    input  wire logic [2:0]        s_axi_arsize,
    input  wire logic [1:0]        s_axi_arburst,
    input  wire logic              s_axi_arlock,
    input  wire logic [3:0]        s_axi_arcache,
    input  wire logic [2:0]        s_axi_arprot,
    input  wire logic [3:0]        s_axi_arregion,
    input  wire logic [3:0]        s_axi_arqos,
    input  wire logic              s_axi_arvalid,
    output      logic              s_axi_arready,
    output      logic [3:0]        s_axi_rid,
    output      logic [SW-1:0]     s_axi_rdata,
    output      logic [1:0]        s_axi_rresp,
    output      logic              s_axi_rlast,
    output      logic              s_axi_rvalid,
    input  wire logic              s_axi_rready,
    output      logic [3:0]        m_axi_awid,
    output      logic [63:0]       m_axi_awaddr,
    output      logic [7:0]        m_axi_awlen,
    output      logic [2:0]        m_axi_awsize,
    output      logic [1:0]        m_axi_awburst,
    output      logic              m_axi_awlock,
    output      logic [3:0]        m_axi_awcache,
    output      logic [2:0]        m_axi_awprot,
    output      logic [3:0]        m_axi_awregion,
    output      logic [3:0]        m_axi_awqos,
    output      logic              m_axi_awvalid,
    input  wire logic              m_axi_awready,
    output      logic [MW-1:0]     m_axi_wdata,
    output      logic [MW/8-1:0]   m_axi_wstrb,
    output      logic              m_axi_wlast,
    output      logic              m_axi_wvalid,
    input  wire logic              m_axi_wready,
    input  wire logic [3:0]        m_axi_bid,
    input  wire logic [1:0]        m_axi_bresp,
    input  wire logic              m_axi_bvalid,
    output      logic              m_axi_bready,
    output      logic [3:0]        m_axi_arid,
    output      logic [63:0]       m_axi_araddr,
    output      logic [7:0]        m_axi_arlen,
    output      logic [2:0]        m_axi_arsize,
    output      logic [1:0]        m_axi_arburst,
    output      logic              m_axi_arlock,
    output      logic [3:0]        m_axi_arcache,
    output      logic [2:0]        m_axi_arprot,
    output      logic [3:0]        m_axi_arregion,
    output      logic [3:0]        m_axi_arqos,
    output      logic              m_axi_arvalid,
    input  wire logic              m_axi_arready,
    input  wire logic [3:0]        m_axi_rid,
    input  wire logic [MW-1:0]     m_axi_rdata,
    input  wire logic [1:0]        m_axi_rresp,
    input  wire logic              m_axi_rlast,
    input  wire logic              m_axi_rvalid,
    output      logic              m_axi_rready
);

    localparam int R = MW / SW;               // narrow beats per wide beat
    localparam int RB = $clog2(R);
    localparam int SB = $clog2(SW / 8);       // bytes of a narrow beat, log2
    localparam int MB = $clog2(MW / 8);

    // the wide burst's beat count for a narrow burst of len+1 beats at addr
    function automatic logic [7:0] wide_len(input logic [MB-SB-1:0] lane, input logic [7:0] len);
        logic [15:0] first, bytes;
        first = 16'(lane) << SB;           // offset of the first beat's container
        bytes = (16'(len) + 16'd1) << SB;
        return 8'(((first + bytes + 16'(MW / 8 - 1)) >> MB) - 16'd1);
    endfunction

    // ------------------------------------------------------------------
    // writes
    // ------------------------------------------------------------------
    logic [RB-1:0]   w_lane;       // the lane of the head burst's next beat
    logic            wq_empty, wq_full;
    logic [MW-1:0]   w_buf;
    logic [MW/8-1:0] w_strb;

    assign m_axi_awid = s_axi_awid;
    assign m_axi_awaddr = s_axi_awaddr;
    assign m_axi_awlen = wide_len(s_axi_awaddr[MB-1:SB], s_axi_awlen);
    assign m_axi_awsize = 3'(MB);
    assign m_axi_awburst = s_axi_awburst;
    assign m_axi_awlock = s_axi_awlock;
    assign m_axi_awcache = s_axi_awcache;
    assign m_axi_awprot = s_axi_awprot;
    assign m_axi_awregion = s_axi_awregion;
    assign m_axi_awqos = s_axi_awqos;
    assign m_axi_awvalid = s_axi_awvalid && !wq_full;
    assign s_axi_awready = m_axi_awready && !wq_full;

    wire w_have = !wq_empty;
    wire w_take = s_axi_wvalid && s_axi_wready;
    wire w_emit = w_lane == RB'(R - 1) || s_axi_wlast;
    always_comb begin
        m_axi_wdata = w_buf;
        m_axi_wstrb = w_strb;
        m_axi_wdata[SW * 32'(w_lane) +: SW] = s_axi_wdata;
        m_axi_wstrb[SW / 8 * 32'(w_lane) +: SW / 8] = s_axi_wstrb;
    end
    assign m_axi_wlast = s_axi_wlast;
    assign m_axi_wvalid = s_axi_wvalid && w_have && w_emit;
    assign s_axi_wready = w_have && (!w_emit || m_axi_wready);

    assign s_axi_bid = m_axi_bid;
    assign s_axi_bresp = m_axi_bresp;
    assign s_axi_bvalid = m_axi_bvalid;
    assign m_axi_bready = s_axi_bready;

    rnic_sim_queue #(.W(RB), .DEPTH(DEPTH)) wq (
        .clk(s_axi_aclk), .rst_n(s_axi_aresetn),
        .push(s_axi_awvalid && s_axi_awready), .push_data(s_axi_awaddr[MB-1:SB]),
        .pop(w_take && s_axi_wlast), .set_head(w_take), .set_data(RB'(w_lane + 1'b1)),
        .head(w_lane), .empty(wq_empty), .full(wq_full));

    always_ff @(posedge s_axi_aclk) begin
        if (!s_axi_aresetn || (w_take && w_emit)) begin
            w_buf <= '0;
            w_strb <= '0;
        end else if (w_take) begin
            w_buf <= m_axi_wdata;
            w_strb <= m_axi_wstrb;
        end
    end

    // ------------------------------------------------------------------
    // reads
    // ------------------------------------------------------------------
    typedef struct packed {
        logic [RB-1:0] lane;   // lane of the next narrow beat
        logic [7:0]    left;   // narrow beats after it
    } rburst_t;
    logic          rq_empty, rq_full;

    assign m_axi_arid = s_axi_arid;
    assign m_axi_araddr = s_axi_araddr;
    assign m_axi_arlen = wide_len(s_axi_araddr[MB-1:SB], s_axi_arlen);
    assign m_axi_arsize = 3'(MB);
    assign m_axi_arburst = s_axi_arburst;
    assign m_axi_arlock = s_axi_arlock;
    assign m_axi_arcache = s_axi_arcache;
    assign m_axi_arprot = s_axi_arprot;
    assign m_axi_arregion = s_axi_arregion;
    assign m_axi_arqos = s_axi_arqos;
    assign m_axi_arvalid = s_axi_arvalid && !rq_full;
    assign s_axi_arready = m_axi_arready && !rq_full;

    rburst_t r_cur;                // the head burst: its next narrow beat
    wire r_have = !rq_empty;
    wire r_take = s_axi_rvalid && s_axi_rready;
    wire r_last = r_cur.left == 8'd0;
    wire r_next_wide = r_cur.lane == RB'(R - 1) || r_last;

    assign s_axi_rid = m_axi_rid;
    assign s_axi_rdata = m_axi_rdata[SW * 32'(r_cur.lane) +: SW];
    assign s_axi_rresp = m_axi_rresp;
    assign s_axi_rlast = r_last;
    assign s_axi_rvalid = m_axi_rvalid && r_have;
    assign m_axi_rready = r_have && s_axi_rready && r_next_wide;

    rnic_sim_queue #(.W($bits(rburst_t)), .DEPTH(DEPTH)) rq (
        .clk(s_axi_aclk), .rst_n(s_axi_aresetn),
        .push(s_axi_arvalid && s_axi_arready), .push_data({s_axi_araddr[MB-1:SB], s_axi_arlen}),
        .pop(r_take && r_last), .set_head(r_take),
        .set_data({RB'(r_cur.lane + 1'b1), 8'(r_cur.left - 8'd1)}),
        .head(r_cur), .empty(rq_empty), .full(rq_full));

`ifndef SYNTHESIS
    always_ff @(posedge s_axi_aclk) begin
        if (s_axi_aresetn) begin
            if (s_axi_awvalid && s_axi_awready && (s_axi_awsize != 3'(SB) || s_axi_awburst != 2'b01))
                $error("rnic_dma_upsize model: write burst of size %0d burst %0d (full-width INCR only)",
                       s_axi_awsize, s_axi_awburst);
            if (s_axi_arvalid && s_axi_arready && (s_axi_arsize != 3'(SB) || s_axi_arburst != 2'b01))
                $error("rnic_dma_upsize model: read burst of size %0d burst %0d (full-width INCR only)",
                       s_axi_arsize, s_axi_arburst);
            if (m_axi_rvalid && m_axi_rready && m_axi_rlast != r_last)
                $error("rnic_dma_upsize model: wide RLAST out of step with the narrow burst");
            if (m_axi_rvalid && !r_have)
                $error("rnic_dma_upsize model: R beat without a burst");
        end
    end
`endif

endmodule

`resetall
