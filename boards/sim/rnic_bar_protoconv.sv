`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Simulation model of the AXI protocol converter (axi_protocol_converter,
 * AXI4 to AXI4-Lite) on the BAR0 path: each beat of a 32-bit AXI4 burst
 * becomes one AXI4-Lite transaction at the beat's address (INCR: 4 bytes on,
 * FIXED: the same address), one burst at a time per direction, as the IP
 * does. A write burst gets one B response, the worst of its beats'; a read
 * burst's beats return in order, RLAST on the last.
 */
module rnic_bar_protoconv (
    input  wire logic        aclk,
    input  wire logic        aresetn,
    input  wire logic [63:0] s_axi_awaddr,
    input  wire logic [7:0]  s_axi_awlen,
    input  wire logic [2:0]  s_axi_awsize,
    input  wire logic [1:0]  s_axi_awburst,
    input  wire logic        s_axi_awlock,
    input  wire logic [3:0]  s_axi_awcache,
    input  wire logic [2:0]  s_axi_awprot,
    input  wire logic [3:0]  s_axi_awregion,
    input  wire logic [3:0]  s_axi_awqos,
    input  wire logic        s_axi_awvalid,
    output      logic        s_axi_awready,
    input  wire logic [31:0] s_axi_wdata,
    input  wire logic [3:0]  s_axi_wstrb,
    input  wire logic        s_axi_wlast,
    input  wire logic        s_axi_wvalid,
    output      logic        s_axi_wready,
    output      logic [1:0]  s_axi_bresp,
    output      logic        s_axi_bvalid,
    input  wire logic        s_axi_bready,
    input  wire logic [63:0] s_axi_araddr,
    input  wire logic [7:0]  s_axi_arlen,
    input  wire logic [2:0]  s_axi_arsize,
    input  wire logic [1:0]  s_axi_arburst,
    input  wire logic        s_axi_arlock,
    input  wire logic [3:0]  s_axi_arcache,
    input  wire logic [2:0]  s_axi_arprot,
    input  wire logic [3:0]  s_axi_arregion,
    input  wire logic [3:0]  s_axi_arqos,
    input  wire logic        s_axi_arvalid,
    output      logic        s_axi_arready,
    output      logic [31:0] s_axi_rdata,
    output      logic [1:0]  s_axi_rresp,
    output      logic        s_axi_rlast,
    output      logic        s_axi_rvalid,
    input  wire logic        s_axi_rready,
    output      logic [63:0] m_axi_awaddr,
    output      logic [2:0]  m_axi_awprot,
    output      logic        m_axi_awvalid,
    input  wire logic        m_axi_awready,
    output      logic [31:0] m_axi_wdata,
    output      logic [3:0]  m_axi_wstrb,
    output      logic        m_axi_wvalid,
    input  wire logic        m_axi_wready,
    input  wire logic [1:0]  m_axi_bresp,
    input  wire logic        m_axi_bvalid,
    output      logic        m_axi_bready,
    output      logic [63:0] m_axi_araddr,
    output      logic [2:0]  m_axi_arprot,
    output      logic        m_axi_arvalid,
    input  wire logic        m_axi_arready,
    input  wire logic [31:0] m_axi_rdata,
    input  wire logic [1:0]  m_axi_rresp,
    input  wire logic        m_axi_rvalid,
    output      logic        m_axi_rready
);

    // ------------------------------------------------------------------
    // writes: W_IDLE -> (per beat: address and data out, then the response)
    // -> W_RESP
    // ------------------------------------------------------------------
    typedef enum logic [1:0] { W_IDLE, W_BEAT, W_WAIT, W_RESP } wstate_t;
    wstate_t     ws;
    logic [63:0] w_addr;
    logic [2:0]  w_prot;
    logic        w_incr, w_last, aw_done, wd_done;
    logic [1:0]  w_resp;

    assign s_axi_awready = ws == W_IDLE;
    assign m_axi_awaddr = w_addr;
    assign m_axi_awprot = w_prot;
    assign m_axi_awvalid = ws == W_BEAT && !aw_done && s_axi_wvalid;
    assign m_axi_wdata = s_axi_wdata;
    assign m_axi_wstrb = s_axi_wstrb;
    assign m_axi_wvalid = ws == W_BEAT && !wd_done && s_axi_wvalid;
    // the AXI4 beat is taken when the AXI4-Lite data has gone
    assign s_axi_wready = ws == W_BEAT && !wd_done && m_axi_wready;
    assign m_axi_bready = ws == W_WAIT;
    assign s_axi_bvalid = ws == W_RESP;
    assign s_axi_bresp = w_resp;

    always_ff @(posedge aclk) begin
        if (!aresetn) begin
            ws <= W_IDLE;
            aw_done <= 1'b0;
            wd_done <= 1'b0;
        end else begin
            case (ws)
                W_IDLE: if (s_axi_awvalid) begin
                    w_addr <= s_axi_awaddr;
                    w_prot <= s_axi_awprot;
                    w_incr <= s_axi_awburst == 2'b01;
                    w_resp <= 2'b00;
                    ws <= W_BEAT;
                end
                W_BEAT: begin
                    if (m_axi_awvalid && m_axi_awready) aw_done <= 1'b1;
                    if (m_axi_wvalid && m_axi_wready) begin
                        wd_done <= 1'b1;
                        w_last <= s_axi_wlast;
                    end
                    if ((aw_done || (m_axi_awvalid && m_axi_awready)) &&
                        (wd_done || (m_axi_wvalid && m_axi_wready)))
                        ws <= W_WAIT;
                end
                W_WAIT: if (m_axi_bvalid) begin
                    aw_done <= 1'b0;
                    wd_done <= 1'b0;
                    if (m_axi_bresp > w_resp) w_resp <= m_axi_bresp;
                    if (w_incr) w_addr <= w_addr + 64'd4;
                    ws <= w_last ? W_RESP : W_BEAT;
                end
                W_RESP: if (s_axi_bready) ws <= W_IDLE;
            endcase
        end
    end

    // ------------------------------------------------------------------
    // reads: one AXI4-Lite read per beat
    // ------------------------------------------------------------------
    typedef enum logic [1:0] { R_IDLE, R_ADDR, R_DATA } rstate_t;
    rstate_t     rs;
    logic [63:0] r_addr;
    logic [2:0]  r_prot;
    logic [7:0]  r_left;
    logic        r_incr;

    assign s_axi_arready = rs == R_IDLE;
    assign m_axi_araddr = r_addr;
    assign m_axi_arprot = r_prot;
    assign m_axi_arvalid = rs == R_ADDR;
    assign s_axi_rdata = m_axi_rdata;
    assign s_axi_rresp = m_axi_rresp;
    assign s_axi_rlast = r_left == 8'd0;
    assign s_axi_rvalid = rs == R_DATA && m_axi_rvalid;
    assign m_axi_rready = rs == R_DATA && s_axi_rready;

    always_ff @(posedge aclk) begin
        if (!aresetn) begin
            rs <= R_IDLE;
        end else begin
            case (rs)
                R_IDLE: if (s_axi_arvalid) begin
                    r_addr <= s_axi_araddr;
                    r_prot <= s_axi_arprot;
                    r_left <= s_axi_arlen;
                    r_incr <= s_axi_arburst == 2'b01;
                    rs <= R_ADDR;
                end
                R_ADDR: if (m_axi_arready) rs <= R_DATA;
                R_DATA: if (m_axi_rvalid && s_axi_rready) begin
                    if (r_incr) r_addr <= r_addr + 64'd4;
                    r_left <= r_left - 8'd1;
                    rs <= r_left == 8'd0 ? R_IDLE : R_ADDR;
                end
                default: rs <= R_IDLE;
            endcase
        end
    end

`ifndef SYNTHESIS
    always_ff @(posedge aclk) begin
        if (aresetn) begin
            if (s_axi_awvalid && s_axi_awready && s_axi_awsize > 3'd2)
                $error("rnic_bar_protoconv model: %0d-byte write beats on a 32-bit port", 1 << s_axi_awsize);
            if (s_axi_arvalid && s_axi_arready && s_axi_arsize > 3'd2)
                $error("rnic_bar_protoconv model: %0d-byte read beats on a 32-bit port", 1 << s_axi_arsize);
        end
    end
`endif

    wire unused_ok = &{1'b0, s_axi_awlen, s_axi_awlock, s_axi_awcache, s_axi_awregion, s_axi_awqos,
                       s_axi_arlock, s_axi_arcache, s_axi_arregion, s_axi_arqos};

endmodule

`resetall
