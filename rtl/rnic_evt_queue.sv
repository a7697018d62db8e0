// OpenRNIC: the queue of data-path events for the control processor.
//
// Five sources may each raise one event per cycle: a QP entered the error
// state (an error CQE other than a flush left for the CQE writer), a CQ
// overran (the CQE writer dropped a CQE), an SRQ's limit was reached, a
// QP on an SRQ reached its last WQE, and the responder put a QP in error
// with a NAK that no CQE reports (its type says which NAK). Events are
// 32-bit words as EVT_POP returns them (rnic_pkg EVT_POP_*: valid bit, type, number); the firmware
// takes one per read of EVT_POP (m_pop). A full queue (a slot taken is free
// from the next cycle) drops the newcomer and remembers it: the next word
// taken carries EVT_POP_LOST, so the firmware knows to rescan. DEPTH is a
// power of two.
//
// The sources' events are registered on the way in, then again with each
// one's place among the cycle's events (how many sources before it have
// one): two cycles later in the queue. An error CQE's event is decided deep
// in the CQE arbiter and the completion engines; with the places
// registered, each take is one compare with the room and none waits for
// another's (a chain of the five takes, each behind the one before, was 9
// levels at 512 bits).

`default_nettype none

module rnic_evt_queue #(
    parameter int DEPTH = 16
) (
    input  wire logic        clk,
    input  wire logic        rst,

    input  wire logic        qp_err_valid,
    input  wire logic [23:0] qp_err_qpn,
    input  wire logic        cq_ovr_valid,
    input  wire logic [23:0] cq_ovr_cqn,
    input  wire logic        srq_lim_valid,
    input  wire logic [23:0] srq_lim_srqn,
    input  wire logic        last_wqe_valid,
    input  wire logic [23:0] last_wqe_qpn,
    input  wire logic        resp_err_valid,
    input  wire logic [3:0]  resp_err_type,
    input  wire logic [23:0] resp_err_qpn,

    // EVT_POP: the head word (EVT_POP_VALID set when not empty); m_pop takes it
    output      logic [31:0] m_word,
    input  wire logic        m_pop
);
    localparam int AW = $clog2(DEPTH);

    initial begin
        if (DEPTH < 2 || (DEPTH & (DEPTH - 1)) != 0) $error("rnic_evt_queue: DEPTH must be a power of two >= 2 (%m)");
    end

    logic [31:0] mem [DEPTH];
    logic [AW:0] wr_ptr_reg, rd_ptr_reg;
    logic        lost_reg;

    function automatic logic [31:0] evt(input logic [31:0] typ, input logic [23:0] num);
        evt = rnic_pkg::EVT_POP_VALID | (typ << rnic_pkg::EVT_POP_TYPE_SHIFT) | 32'(num);
    endfunction

    // the sources' events, registered (source order: QP error, CQ overrun,
    // SRQ limit, last WQE, responder error; a full queue keeps the first)
    localparam int NSRC = 5;
    logic [NSRC-1:0] a_v;
    logic [31:0]     a_w [NSRC];
    always_ff @(posedge clk) begin
        a_v <= {resp_err_valid, last_wqe_valid, srq_lim_valid, cq_ovr_valid, qp_err_valid};
        a_w[0] <= evt(rnic_pkg::EVT_QP_ERR, qp_err_qpn);
        a_w[1] <= evt(rnic_pkg::EVT_CQ_OVERRUN, cq_ovr_cqn);
        a_w[2] <= evt(rnic_pkg::EVT_SRQ_LIMIT, srq_lim_srqn);
        a_w[3] <= evt(rnic_pkg::EVT_QP_LAST_WQE, last_wqe_qpn);
        a_w[4] <= evt(32'(resp_err_type), resp_err_qpn);
        if (rst) a_v <= '0;
    end
    // ... and with their places: b_off[i] of source i, b_cnt in all
    logic [NSRC-1:0] b_v;
    logic [31:0]     b_w [NSRC];
    logic [2:0]      b_off [NSRC];
    logic [2:0]      b_cnt;
    // how many of the sources before source i have an event
    function automatic logic [2:0] n_before(input logic [NSRC-1:0] v, input int i);
        n_before = '0;
        for (int j = 0; j < NSRC; j++) if (j < i) n_before = n_before + 3'(v[j]);
    endfunction
    wire [2:0] cnt = n_before(a_v, NSRC);
    always_ff @(posedge clk) begin
        b_v <= a_v;
        b_cnt <= cnt;
        for (int i = 0; i < NSRC; i++) begin
            b_w[i] <= a_w[i];
            b_off[i] <= n_before(a_v, i);
        end
        if (rst) b_v <= '0;
    end

    wire        empty = wr_ptr_reg == rd_ptr_reg;
    wire        pop = m_pop && !empty;
    // free slots, a flip-flop: a slot popped is free from the next cycle (the
    // pop, a decode of the control processor's bus, ran on through the
    // room's arithmetic into the queue's write ports)
    logic [AW:0] room;
    // source i is taken while there is room for it and those before it
    // (a source is taken only if all before it are)
    logic [NSRC-1:0] take;
    for (genvar i = 0; i < NSRC; i++) begin : g_take
        assign take[i] = b_v[i] && room > (AW + 1)'(b_off[i]);
    end
    wire [AW:0] n_take = (room > (AW + 1)'(b_cnt)) ? (AW + 1)'(b_cnt) : room;

    assign m_word = empty ? 32'h0 : (mem[rd_ptr_reg[AW-1:0]] | (lost_reg ? rnic_pkg::EVT_POP_LOST : 32'h0));

    always_ff @(posedge clk) begin
        for (int i = 0; i < NSRC; i++)
            if (take[i]) mem[AW'(wr_ptr_reg[AW-1:0] + AW'(b_off[i]))] <= b_w[i];
        wr_ptr_reg <= wr_ptr_reg + n_take;
        room <= room - n_take + (AW + 1)'(pop);
        if (pop) rd_ptr_reg <= rd_ptr_reg + 1'b1;
        if (pop) lost_reg <= 1'b0;
        if ((b_v & ~take) != '0) lost_reg <= 1'b1;
        if (rst) begin
            wr_ptr_reg <= '0;
            rd_ptr_reg <= '0;
            lost_reg <= 1'b0;
            room <= (AW + 1)'(DEPTH);
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    wire [AW:0] used = wr_ptr_reg - rd_ptr_reg;
    always_ff @(posedge clk) begin
        if (!rst) assert (used <= (AW + 1)'(DEPTH) && room == (AW + 1)'(DEPTH) - used);
    end
`endif
`endif

endmodule

`resetall
