`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The requester's packet-header queue: a FIFO of headers, each tagged with
 * the local QP that sent it, that can forget every queued packet of a QP.
 *
 * The requester runs up to 2^DEPTH_LOG2 packets ahead of the packet builder.
 * When a QP restarts (go-back-N) or is reset, its packets still queued here
 * were never on the wire and will be sent again from the restart PSN (or
 * never, after a reset): sent now they would only be dropped by the
 * responder as out of sequence. A kill marks them dead; a dead header still
 * leaves the queue in order (m_dead set) so that its payload, whose read is
 * already under way, can be taken and thrown away by the consumer.
 *
 * The tags and dead bits are flip-flops (DEPTH of them, compared all at
 * once); the headers stay in distributed RAM. m_valid, m_dead and s_ready
 * are flip-flops.
 */
module rnic_req_hdrq #(
    parameter int WIDTH = 32,
    parameter int DEPTH_LOG2 = 5,
    parameter int QPN_WIDTH = 10
) (
    input  wire logic                 clk,
    input  wire logic                 rst,

    input  wire logic                 s_valid,
    output      logic                 s_ready,
    input  wire logic [WIDTH-1:0]     s_data,
    input  wire logic [QPN_WIDTH-1:0] s_qpn,

    // forget every queued packet of a QP (restart and reset; a packet
    // pushed in the same cycle by that QP is forgotten too)
    input  wire logic                 kill_a_valid,
    input  wire logic [QPN_WIDTH-1:0] kill_a_qpn,
    input  wire logic                 kill_b_valid,
    input  wire logic [QPN_WIDTH-1:0] kill_b_qpn,

    output      logic                 m_valid,
    input  wire logic                 m_ready,
    output      logic [WIDTH-1:0]     m_data,
    output      logic                 m_dead
);

    localparam int DEPTH = 2 ** DEPTH_LOG2;

    initial begin
        if (DEPTH_LOG2 < 1 || WIDTH < 1 || QPN_WIDTH < 1) begin
            $error("rnic_req_hdrq: DEPTH_LOG2, WIDTH and QPN_WIDTH must be 1 or more (%m)");
            $finish;
        end
    end

    logic [WIDTH-1:0]     mem [DEPTH];
    logic [QPN_WIDTH-1:0] tag_reg [DEPTH];
    logic [DEPTH-1:0]     dead_reg;
    logic [DEPTH_LOG2:0]  wr_ptr_reg, rd_ptr_reg;

    wire [DEPTH_LOG2-1:0] wr_slot = wr_ptr_reg[DEPTH_LOG2-1:0];
    wire [DEPTH_LOG2-1:0] rd_slot = rd_ptr_reg[DEPTH_LOG2-1:0];
    wire push = s_valid && s_ready;

    function automatic logic killed(input logic [QPN_WIDTH-1:0] qpn, input logic a_valid,
                                    input logic [QPN_WIDTH-1:0] a_qpn, input logic b_valid,
                                    input logic [QPN_WIDTH-1:0] b_qpn);
        killed = (a_valid && qpn == a_qpn) || (b_valid && qpn == b_qpn);
    endfunction

    // m_valid, m_dead and s_ready are flip-flops, set a cycle ahead: the
    // consumer's arbitration (and its 512-bit header registers' load
    // enables) starts from them instead of the pointers' compare and a
    // DEPTH-to-1 select, and the producer's push from a flip-flop instead of
    // the pointers' difference. m_valid and m_dead are prepared for both
    // outcomes of the consumer's pop (the head slot and the one after it,
    // each with this cycle's kills), so the pop, the consumer's decision,
    // only selects between two values; the kills, late in the requester's
    // decision too, only reach a compare and an OR.
    logic                valid_reg, dead_head_reg, full_reg;
    logic [DEPTH_LOG2:0] cnt_reg;
    assign s_ready = !full_reg;
    assign m_valid = valid_reg;
    assign m_data = mem[rd_slot];
    assign m_dead = dead_head_reg;
    wire pop = valid_reg && m_ready;

    // The free slot at wr_slot takes the header and its tag in every cycle
    // the queue has room: their write enables are the pointer's decode and
    // a flip-flop, not the requester's valid, which is late in its decision.
    // The slot counts only once pushed (wr_ptr_reg moves past it).
    always_ff @(posedge clk) begin
        if (s_ready) mem[wr_slot] <= s_data;
    end

    // a slot's tag is only compared while the slot is queued: a stale tag in
    // a free slot may set its dead bit, which the next push overwrites
    // (the slot after the head is a register of its own: the increment was
    // in front of the select)
    logic [DEPTH_LOG2-1:0] nx_slot;
    wire [DEPTH_LOG2:0]   rd_p1 = rd_ptr_reg + 1'b1;
    // every slot's dead bit with this cycle's kills, compared apart; the
    // head's and the next one's are selected from them (selected first,
    // the tag ran through its compare: 10 levels)
    logic [DEPTH-1:0]     dead_or;
    always_comb
        for (int i = 0; i < DEPTH; i++)
            dead_or[i] = dead_reg[i] || killed(tag_reg[i], kill_a_valid, kill_a_qpn, kill_b_valid, kill_b_qpn);
    // the head slot's and the next slot's dead bit after this cycle's push
    // and kills: the push, late in the requester's decision, only selects
    // between the pushed packet's and the queued one's, each compared with
    // the kills apart
    wire                  stay_new = push && wr_slot == rd_slot;
    wire                  next_new = push && wr_slot == nx_slot;
    wire new_killed = killed(s_qpn, kill_a_valid, kill_a_qpn, kill_b_valid, kill_b_qpn);
    wire old_stay_dead = dead_or[rd_slot];
    wire old_next_dead = dead_or[nx_slot];
    wire dead_stay = stay_new ? new_killed : old_stay_dead;
    wire dead_next = next_new ? new_killed : old_next_dead;
    // queued after this cycle: something is pushed, or more than the popped one is there
    wire valid_stay = push || valid_reg;
    wire valid_next = push || cnt_reg != (DEPTH_LOG2 + 1)'(1);
    // the count one up and one down, from the flip-flops alone: the push and
    // the pop only select
    wire [DEPTH_LOG2:0] cnt_up = cnt_reg + 1'b1;
    wire [DEPTH_LOG2:0] cnt_down = cnt_reg - 1'b1;

    always_ff @(posedge clk) begin
        for (int i = 0; i < DEPTH; i++) begin
            if (s_ready && wr_slot == DEPTH_LOG2'(i)) tag_reg[i] <= s_qpn;
            // (the slot's own kill compare is dead_or's)
            dead_reg[i] <= (push && wr_slot == DEPTH_LOG2'(i)) ? new_killed : dead_or[i];
        end
        valid_reg <= pop ? valid_next : valid_stay;
        dead_head_reg <= pop ? dead_next : dead_stay;
        // full after this cycle: a push without a pop onto DEPTH - 1, or full without a pop
        full_reg <= pop ? 1'b0 : full_reg || (push && cnt_reg == (DEPTH_LOG2 + 1)'(DEPTH - 1));
        if (push && !pop) cnt_reg <= cnt_up;
        else if (pop && !push) cnt_reg <= cnt_down;
        if (push) wr_ptr_reg <= wr_ptr_reg + 1'b1;
        if (pop) begin
            rd_ptr_reg <= rd_p1;
            nx_slot <= nx_slot + 1'b1;
        end
        if (rst) begin
            wr_ptr_reg <= '0;
            rd_ptr_reg <= '0;
            nx_slot <= DEPTH_LOG2'(1);
            dead_reg <= '0;
            valid_reg <= 1'b0;
            dead_head_reg <= 1'b0;
            full_reg <= 1'b0;
            cnt_reg <= '0;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // the registers are what the pointers and the head's dead bit say
    always_ff @(posedge clk)
        if (!rst) assert (valid_reg == (wr_ptr_reg != rd_ptr_reg) && (!valid_reg || dead_head_reg == dead_reg[rd_slot])
                          && cnt_reg == wr_ptr_reg - rd_ptr_reg && full_reg == (cnt_reg == (DEPTH_LOG2 + 1)'(DEPTH))
                          && nx_slot == rd_p1[DEPTH_LOG2-1:0]);
`endif
`endif

endmodule

`resetall
