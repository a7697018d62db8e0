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
    localparam int QB = $clog2(DEPTH);

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
    burst_t            wq [DEPTH];   // bursts whose W beats are to convert
    logic [3:0]        bq [DEPTH];   // their IDs, for the B responses
    logic [QB:0]       wq_n, bq_n;
    logic [QB-1:0]     wq_rd, wq_wr, bq_rd, bq_wr;
    logic [4:0]        w_sub;        // narrow beats of the current wide beat done
    burst_t            w_cur;

    wire aw_room = wq_n < (QB + 1)'(DEPTH) && bq_n < (QB + 1)'(DEPTH);
    wire [4:0] aw_k = sub_beats(s_axi_awsize);

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

    assign w_cur = wq[wq_rd];
    wire w_have = wq_n != 0;
    wire w_last_sub = w_sub == sub_beats(w_cur.size) - 5'd1;
    assign m_axi_wdata = s_axi_wdata[32 * 32'(w_cur.addr[LB-1:2]) +: 32];
    assign m_axi_wstrb = s_axi_wstrb[4 * 32'(w_cur.addr[LB-1:2]) +: 4];
    assign m_axi_wlast = s_axi_wlast && w_last_sub;
    assign m_axi_wvalid = s_axi_wvalid && w_have;
    assign s_axi_wready = m_axi_wready && w_have && w_last_sub;

    assign s_axi_bid = bq[bq_rd];
    assign s_axi_bresp = m_axi_bresp;
    assign s_axi_bvalid = m_axi_bvalid && bq_n != 0;
    assign m_axi_bready = s_axi_bready && bq_n != 0;

    always_ff @(posedge s_axi_aclk) begin
        if (!s_axi_aresetn) begin
            wq_n <= '0;
            wq_rd <= '0;
            wq_wr <= '0;
            bq_n <= '0;
            bq_rd <= '0;
            bq_wr <= '0;
            w_sub <= '0;
        end else begin
            if (s_axi_awvalid && s_axi_awready) begin
                wq[wq_wr] <= {s_axi_awid, s_axi_awaddr[LB-1:0], s_axi_awsize, s_axi_awburst == 2'b01};
                wq_wr <= wq_wr + 1'b1;
                bq[bq_wr] <= s_axi_awid;
                bq_wr <= bq_wr + 1'b1;
            end
            if (m_axi_wvalid && m_axi_wready) begin
                wq[wq_rd] <= {w_cur.id, next_addr(w_cur.addr, w_cur.size, w_cur.incr), w_cur.size, w_cur.incr};
                w_sub <= w_last_sub ? 5'd0 : w_sub + 5'd1;
                if (w_last_sub && s_axi_wlast) wq_rd <= wq_rd + 1'b1;
            end
            if (m_axi_bvalid && m_axi_bready) bq_rd <= bq_rd + 1'b1;
            wq_n <= wq_n + (QB + 1)'(s_axi_awvalid && s_axi_awready) -
                    (QB + 1)'(m_axi_wvalid && m_axi_wready && w_last_sub && s_axi_wlast);
            bq_n <= bq_n + (QB + 1)'(s_axi_awvalid && s_axi_awready) -
                    (QB + 1)'(m_axi_bvalid && m_axi_bready);
        end
    end

    // ------------------------------------------------------------------
    // reads
    // ------------------------------------------------------------------
    burst_t            rq [DEPTH];
    logic [QB:0]       rq_n;
    logic [QB-1:0]     rq_rd, rq_wr;
    logic [4:0]        r_sub;
    logic [SW-1:0]     r_buf;        // narrow beats of the wide beat so far
    logic [1:0]        r_resp;
    burst_t            r_cur;

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
    assign m_axi_arvalid = s_axi_arvalid && rq_n < (QB + 1)'(DEPTH);
    assign s_axi_arready = m_axi_arready && rq_n < (QB + 1)'(DEPTH);

    assign r_cur = rq[rq_rd];
    wire r_last_sub = r_sub == sub_beats(r_cur.size) - 5'd1;
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
    assign s_axi_rvalid = m_axi_rvalid && rq_n != 0 && r_last_sub;
    assign m_axi_rready = rq_n != 0 && (!r_last_sub || s_axi_rready);

    always_ff @(posedge s_axi_aclk) begin
        if (!s_axi_aresetn) begin
            rq_n <= '0;
            rq_rd <= '0;
            rq_wr <= '0;
            r_sub <= '0;
            r_buf <= '0;
            r_resp <= 2'b00;
        end else begin
            if (s_axi_arvalid && s_axi_arready) begin
                rq[rq_wr] <= {s_axi_arid, s_axi_araddr[LB-1:0], s_axi_arsize, s_axi_arburst == 2'b01};
                rq_wr <= rq_wr + 1'b1;
            end
            if (m_axi_rvalid && m_axi_rready) begin
                rq[rq_rd] <= {r_cur.id, next_addr(r_cur.addr, r_cur.size, r_cur.incr), r_cur.size, r_cur.incr};
                if (r_last_sub) begin
                    r_sub <= '0;
                    r_buf <= '0;
                    r_resp <= 2'b00;
                end else begin
                    r_sub <= r_sub + 5'd1;
                    r_buf <= r_beat;
                    r_resp <= r_resp_all;
                end
                if (r_last_sub && m_axi_rlast) rq_rd <= rq_rd + 1'b1;
            end
            rq_n <= rq_n + (QB + 1)'(s_axi_arvalid && s_axi_arready) -
                    (QB + 1)'(m_axi_rvalid && m_axi_rready && r_last_sub && m_axi_rlast);
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
            if (m_axi_bvalid && bq_n == 0)
                $error("rnic_bar_dwidth model: B response without a burst");
            if (m_axi_rvalid && rq_n == 0)
                $error("rnic_bar_dwidth model: R beat without a burst");
        end
    end
`endif

    wire unused_ok = &{1'b0, w_cur.id};

endmodule

`resetall
