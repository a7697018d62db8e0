// OpenRNIC: the queue of data-path events for the control processor.
//
// Four sources may each raise one event per cycle: a QP entered the error
// state (an error CQE other than a flush left for the CQE writer), a CQ
// overran (the CQE writer dropped a CQE), an SRQ's limit was reached and a
// QP on an SRQ reached its last WQE (the responder). Events are 32-bit words as EVT_POP
// returns them (rnic_pkg EVT_POP_*: valid bit, type, number); the firmware
// takes one per read of EVT_POP (m_pop). A full queue (a slot taken is free
// from the next cycle) drops the newcomer and remembers it: the next word
// taken carries EVT_POP_LOST, so the firmware knows to rescan. DEPTH is a
// power of two.
//
// The sources' events are registered on the way in (a cycle later in the
// queue): an error CQE's event is decided deep in the CQE arbiter and the
// completion engines, and the queue's room and slot choice come after it.

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

    // the sources' events, registered
    logic        qe_v, ce_v, se_v, le_v;
    logic [23:0] qe_n, ce_n, se_n, le_n;
    always_ff @(posedge clk) begin
        qe_v <= qp_err_valid;
        ce_v <= cq_ovr_valid;
        se_v <= srq_lim_valid;
        le_v <= last_wqe_valid;
        qe_n <= qp_err_qpn;
        ce_n <= cq_ovr_cqn;
        se_n <= srq_lim_srqn;
        le_n <= last_wqe_qpn;
        if (rst) {qe_v, ce_v, se_v, le_v} <= '0;
    end

    wire        empty = wr_ptr_reg == rd_ptr_reg;
    wire        pop = m_pop && !empty;
    // free slots, a flip-flop: a slot popped is free from the next cycle (the
    // pop, a decode of the control processor's bus, ran on through the
    // room's arithmetic into the queue's write ports)
    logic [AW:0] room;
    wire        take_qp = qe_v && room != '0;
    wire        take_cq = ce_v && room > (AW + 1)'(take_qp);
    wire [AW:0] n_qc = (AW + 1)'(take_qp) + (AW + 1)'(take_cq);
    wire        take_sl = se_v && room > n_qc;
    wire [AW:0] n_qcs = n_qc + (AW + 1)'(take_sl);
    wire        take_lw = le_v && room > n_qcs;

    assign m_word = empty ? 32'h0 : (mem[rd_ptr_reg[AW-1:0]] | (lost_reg ? rnic_pkg::EVT_POP_LOST : 32'h0));

    always_ff @(posedge clk) begin
        if (take_qp) mem[wr_ptr_reg[AW-1:0]] <= evt(rnic_pkg::EVT_QP_ERR, qe_n);
        if (take_cq) mem[AW'(wr_ptr_reg[AW-1:0] + AW'(take_qp))] <= evt(rnic_pkg::EVT_CQ_OVERRUN, ce_n);
        if (take_sl) mem[AW'(wr_ptr_reg[AW-1:0] + AW'(n_qc))] <= evt(rnic_pkg::EVT_SRQ_LIMIT, se_n);
        if (take_lw) mem[AW'(wr_ptr_reg[AW-1:0] + AW'(n_qcs))] <= evt(rnic_pkg::EVT_QP_LAST_WQE, le_n);
        wr_ptr_reg <= wr_ptr_reg + n_qcs + (AW + 1)'(take_lw);
        room <= room - n_qcs - (AW + 1)'(take_lw) + (AW + 1)'(pop);
        if (pop) rd_ptr_reg <= rd_ptr_reg + 1'b1;
        if (pop) lost_reg <= 1'b0;
        if ((qe_v && !take_qp) || (ce_v && !take_cq) || (se_v && !take_sl)
            || (le_v && !take_lw)) lost_reg <= 1'b1;
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
