`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Simulation model of the AXI data width converter (axi_dwidth_converter) as
 * the board tops use it on the BAR0 path: a downsizer from the bridge's
 * DW-bit AXI4 master to 32 bits (no ID on the narrow side, so responses come
 * back in order and the converter gives each its burst's ID).
 *
 * A beat of 2^AxSIZE <= 4 bytes passes as one 32-bit beat (its lanes taken
 * from, or returned in, the lanes of its address); a wider beat (an aligned
 * 8..64-byte MMIO access) becomes 2^AxSIZE / 4 beats of the narrow burst, as
 * the IP splits it. Up to DEPTH bursts per direction are in flight; the
 * narrow burst's length must fit AXI4's 256 beats (the bridge's MMIO bursts
 * do; the IP would split longer ones, which the model reports instead).
 * SW comes from `RNIC_SIM_PCIE_DW.
 */
module rnic_bar_dwidth #(
    parameter int SW = `RNIC_SIM_PCIE_DW,
    parameter int DEPTH = 4
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
    output      logic [31:0]       m_axi_wdata,
    output      logic [3:0]        m_axi_wstrb,
    output      logic              m_axi_wlast,
    output      logic              m_axi_wvalid,
    input  wire logic              m_axi_wready,
    input  wire logic [1:0]        m_axi_bresp,
    input  wire logic              m_axi_bvalid,
    output      logic              m_axi_bready,
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
    input  wire logic [31:0]       m_axi_rdata,
    input  wire logic [1:0]        m_axi_rresp,
    input  wire logic              m_axi_rlast,
    input  wire logic              m_axi_rvalid,
    output      logic              m_axi_rready
);

    localparam int LB = $clog2(SW / 8);

    // one burst: its ID, the lane offset of its next beat, beat size, INCR
    typedef struct packed {
        logic [3:0]    id;
        logic [LB-1:0] addr;
        logic [2:0]    size;
        logic          incr;
    } burst_t;

    // narrow beats per wide beat: 2^(size-2) above 4 bytes
    function automatic logic [4:0] sub_beats(input logic [2:0] size);
        return size > 3'd2 ? 5'(1 << (size - 3'd2)) : 5'd1;
    endfunction

    // the next beat's lane offset: a split beat moves on by 4 bytes, a
    // narrow INCR beat to the next 2^size container, a FIXED beat stays
    function automatic logic [LB-1:0] next_addr(input logic [LB-1:0] addr, input logic [2:0] size,
                                                 input logic incr);
        logic [LB:0] step;
        step = size > 3'd2 ? (LB + 1)'(4) : (LB + 1)'(1) << size;
        if (!incr && size <= 3'd2) return addr;
        return LB'(((LB + 1)'(addr) & ~(step - 1'b1)) + step);
    endfunction

    // ------------------------------------------------------------------
    // writes
    // ------------------------------------------------------------------
    burst_t            w_cur;        // the head burst whose W beats are to convert
    logic              wq_empty, wq_full, bq_empty, bq_full;
    logic [3:0]        b_id;         // the head burst's ID, for its B response
    logic [4:0]        w_sub;        // narrow beats of the current wide beat done

    wire aw_room = !wq_full && !bq_full;
    wire [4:0] aw_k = sub_beats(s_axi_awsize);
    wire aw_take = s_axi_awvalid && s_axi_awready;

    assign m_axi_awaddr = s_axi_awaddr;
    assign m_axi_awlen = 8'((9'(s_axi_awlen) + 9'd1) * 9'(aw_k) - 9'd1);
    assign m_axi_awsize = s_axi_awsize > 3'd2 ? 3'd2 : s_axi_awsize;
    assign m_axi_awburst = s_axi_awburst;
    assign m_axi_awlock = s_axi_awlock;
    assign m_axi_awcache = s_axi_awcache;
    assign m_axi_awprot = s_axi_awprot;
    assign m_axi_awregion = s_axi_awregion;
    assign m_axi_awqos = s_axi_awqos;
    assign m_axi_awvalid = s_axi_awvalid && aw_room;
    assign s_axi_awready = m_axi_awready && aw_room;

    wire w_have = !wq_empty;
    wire w_last_sub = w_sub == sub_beats(w_cur.size) - 5'd1;
    wire w_take = m_axi_wvalid && m_axi_wready;
    assign m_axi_wdata = s_axi_wdata[32 * 32'(w_cur.addr[LB-1:2]) +: 32];
    assign m_axi_wstrb = s_axi_wstrb[4 * 32'(w_cur.addr[LB-1:2]) +: 4];
    assign m_axi_wlast = s_axi_wlast && w_last_sub;
    assign m_axi_wvalid = s_axi_wvalid && w_have;
    assign s_axi_wready = m_axi_wready && w_have && w_last_sub;

    assign s_axi_bid = b_id;
    assign s_axi_bresp = m_axi_bresp;
    assign s_axi_bvalid = m_axi_bvalid && !bq_empty;
    assign m_axi_bready = s_axi_bready && !bq_empty;

    rnic_sim_queue #(.W($bits(burst_t)), .DEPTH(DEPTH)) wq (
        .clk(s_axi_aclk), .rst_n(s_axi_aresetn),
        .push(aw_take), .push_data({s_axi_awid, s_axi_awaddr[LB-1:0], s_axi_awsize, s_axi_awburst == 2'b01}),
        .pop(w_take && w_last_sub && s_axi_wlast),
        .set_head(w_take),
        .set_data({w_cur.id, next_addr(w_cur.addr, w_cur.size, w_cur.incr), w_cur.size, w_cur.incr}),
        .head(w_cur), .empty(wq_empty), .full(wq_full));
    rnic_sim_queue #(.W(4), .DEPTH(DEPTH)) bq (
        .clk(s_axi_aclk), .rst_n(s_axi_aresetn),
        .push(aw_take), .push_data(s_axi_awid),
        .pop(m_axi_bvalid && m_axi_bready), .set_head(1'b0), .set_data(4'd0),
        .head(b_id), .empty(bq_empty), .full(bq_full));

    always_ff @(posedge s_axi_aclk) begin
        if (!s_axi_aresetn) w_sub <= '0;
        else if (w_take) w_sub <= w_last_sub ? 5'd0 : w_sub + 5'd1;
    end

    // ------------------------------------------------------------------
    // reads
    // ------------------------------------------------------------------
    burst_t            r_cur;        // the head burst whose R beats are to gather
    logic              rq_empty, rq_full;
    logic [4:0]        r_sub;
    logic [SW-1:0]     r_buf;        // narrow beats of the wide beat so far
    logic [1:0]        r_resp;

    wire [4:0] ar_k = sub_beats(s_axi_arsize);
    assign m_axi_araddr = s_axi_araddr;
    assign m_axi_arlen = 8'((9'(s_axi_arlen) + 9'd1) * 9'(ar_k) - 9'd1);
    assign m_axi_arsize = s_axi_arsize > 3'd2 ? 3'd2 : s_axi_arsize;
    assign m_axi_arburst = s_axi_arburst;
    assign m_axi_arlock = s_axi_arlock;
    assign m_axi_arcache = s_axi_arcache;
    assign m_axi_arprot = s_axi_arprot;
    assign m_axi_arregion = s_axi_arregion;
    assign m_axi_arqos = s_axi_arqos;
    assign m_axi_arvalid = s_axi_arvalid && !rq_full;
    assign s_axi_arready = m_axi_arready && !rq_full;

    wire r_last_sub = r_sub == sub_beats(r_cur.size) - 5'd1;
    wire r_take = m_axi_rvalid && m_axi_rready;
    logic [SW-1:0] r_beat;
    always_comb begin
        r_beat = r_buf;
        r_beat[32 * 32'(r_cur.addr[LB-1:2]) +: 32] = m_axi_rdata;
    end
    wire [1:0] r_resp_all = r_resp > m_axi_rresp ? r_resp : m_axi_rresp;

    assign s_axi_rid = r_cur.id;
    assign s_axi_rdata = r_beat;
    assign s_axi_rresp = r_resp_all;
    assign s_axi_rlast = m_axi_rlast;
    assign s_axi_rvalid = m_axi_rvalid && !rq_empty && r_last_sub;
    assign m_axi_rready = !rq_empty && (!r_last_sub || s_axi_rready);

    rnic_sim_queue #(.W($bits(burst_t)), .DEPTH(DEPTH)) rq (
        .clk(s_axi_aclk), .rst_n(s_axi_aresetn),
        .push(s_axi_arvalid && s_axi_arready),
        .push_data({s_axi_arid, s_axi_araddr[LB-1:0], s_axi_arsize, s_axi_arburst == 2'b01}),
        .pop(r_take && r_last_sub && m_axi_rlast),
        .set_head(r_take),
        .set_data({r_cur.id, next_addr(r_cur.addr, r_cur.size, r_cur.incr), r_cur.size, r_cur.incr}),
        .head(r_cur), .empty(rq_empty), .full(rq_full));

    always_ff @(posedge s_axi_aclk) begin
        if (!s_axi_aresetn) begin
            r_sub <= '0;
            r_buf <= '0;
            r_resp <= 2'b00;
        end else if (r_take) begin
            if (r_last_sub) begin
                r_sub <= '0;
                r_buf <= '0;
                r_resp <= 2'b00;
            end else begin
                r_sub <= r_sub + 5'd1;
                r_buf <= r_beat;
                r_resp <= r_resp_all;
            end
        end
    end

`ifndef SYNTHESIS
    always_ff @(posedge s_axi_aclk) begin
        if (s_axi_aresetn) begin
            if (s_axi_awvalid && s_axi_awready &&
                ((9'(s_axi_awlen) + 9'd1) * 9'(aw_k) > 9'd256 ||
                 (s_axi_awsize > 3'd2 && (s_axi_awaddr & ((64'd1 << s_axi_awsize) - 64'd1)) != 0) ||
                 (s_axi_awsize > 3'd2 && s_axi_awburst != 2'b01)))
                $error("rnic_bar_dwidth model: write burst the model cannot split (len %0d size %0d addr %h)",
                       s_axi_awlen, s_axi_awsize, s_axi_awaddr);
            if (s_axi_arvalid && s_axi_arready &&
                ((9'(s_axi_arlen) + 9'd1) * 9'(ar_k) > 9'd256 ||
                 (s_axi_arsize > 3'd2 && (s_axi_araddr & ((64'd1 << s_axi_arsize) - 64'd1)) != 0) ||
                 (s_axi_arsize > 3'd2 && s_axi_arburst != 2'b01)))
                $error("rnic_bar_dwidth model: read burst the model cannot split (len %0d size %0d addr %h)",
                       s_axi_arlen, s_axi_arsize, s_axi_araddr);
            if (m_axi_bvalid && bq_empty)
                $error("rnic_bar_dwidth model: B response without a burst");
            if (m_axi_rvalid && rq_empty)
                $error("rnic_bar_dwidth model: R beat without a burst");
        end
    end
`endif

    wire unused_ok = &{1'b0, w_cur.id};

endmodule

`resetall
