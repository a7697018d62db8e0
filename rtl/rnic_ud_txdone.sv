`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * UD send completion: a UD SEND is complete when its frame has been handed
 * to the MAC (no ACK comes back). This block watches the packet builder: it
 * notes every packet descriptor the builder takes (a UD one by its DETH:
 * source QP and PSN), in order, and when a frame's last beat leaves for the
 * MAC (frames leave in descriptor order) it reports that frame's UD source
 * QP and PSN to the completion engine, which retires the WQE as an ACK at
 * that PSN would (rnic_compl, s_ack_local). Other frames are forgotten.
 *
 * The builder holds a few frames at once (its descriptor register, the frame
 * being built, the packer's and ICRC stages); DEPTH entries cover them, and
 * a full table holds the next descriptor back (s_hdr_ready low).
 */
module rnic_ud_txdone #(
    parameter int QPN_WIDTH = 10,
    parameter int DEPTH_LOG2 = 4
) (
    input  wire logic                              clk,
    input  wire logic                              rst,

    // the builder takes a descriptor (s_hdr_valid && s_hdr_ready); this block
    // may refuse it (room low): the builder sees valid && room
    input  wire logic                              s_hdr_take,
    input  wire logic [rnic_hdr_pkg::HDR_BITS-1:0] s_hdr,
    output      logic                              room,
    // a frame's last beat went to the MAC
    input  wire logic                              s_frame_done,

    // UD frames sent: (QP, PSN), in order
    output      logic                              m_valid,
    input  wire logic                              m_ready,
    output      logic [QPN_WIDTH-1:0]              m_qpn,
    output      logic [23:0]                       m_psn
);

    localparam int N = 2 ** DEPTH_LOG2;

    logic                 ud_mem  [N];
    logic [QPN_WIDTH-1:0] qpn_mem [N];
    logic [23:0]          psn_mem [N];
    logic [DEPTH_LOG2:0]  wr_reg, done_reg, rd_reg;

    wire [DEPTH_LOG2-1:0] ra = rd_reg[DEPTH_LOG2-1:0];
    wire head_done = rd_reg != done_reg;
    // room is a flip-flop: the pointers' difference and compare are behind
    // the builder's take otherwise, on the header path of every frame. It
    // counts the take of its cycle and not the pop (a pop frees an entry a
    // cycle late), so it never shows room that is not there
    wire [DEPTH_LOG2:0] occ = wr_reg - rd_reg;
    logic room_reg, pop_q;
    assign room = room_reg;
    // A UD head whose frame is out moves into an output register: the
    // completion engine sees a flip-flop, not the pointer compare and the
    // table read (they were the first levels of a path through the
    // completion engine into the requester's context writes)
    logic                 out_valid_reg;
    logic [QPN_WIDTH-1:0] out_qpn_reg;
    logic [23:0]          out_psn_reg;
    assign m_valid = out_valid_reg;
    assign m_qpn = out_qpn_reg;
    assign m_psn = out_psn_reg;
    wire out_free = !out_valid_reg || m_ready;
    wire pop = head_done && (!ud_mem[ra] || out_free);

    wire [23:0] src_qpn = s_hdr[rnic_hdr_pkg::HDR_DETH_SRC_QPN_LSB +: rnic_hdr_pkg::HDR_DETH_SRC_QPN_W];

    always_ff @(posedge clk) begin
        if (s_hdr_take) begin
            ud_mem[wr_reg[DEPTH_LOG2-1:0]] <= s_hdr[rnic_hdr_pkg::HDR_HAS_DETH_LSB];
            qpn_mem[wr_reg[DEPTH_LOG2-1:0]] <= src_qpn[QPN_WIDTH-1:0];
            psn_mem[wr_reg[DEPTH_LOG2-1:0]] <= s_hdr[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W];
            wr_reg <= wr_reg + 1'b1;
        end
        if (s_frame_done) done_reg <= done_reg + 1'b1;
        if (pop) rd_reg <= rd_reg + 1'b1;
        room_reg <= s_hdr_take ? occ != (DEPTH_LOG2+1)'(N) && occ != (DEPTH_LOG2+1)'(N - 1)
                               : occ != (DEPTH_LOG2+1)'(N);
        pop_q <= pop;
        if (m_ready) out_valid_reg <= 1'b0;
        if (pop && ud_mem[ra]) begin
            out_valid_reg <= 1'b1;
            out_qpn_reg <= qpn_mem[ra];
            out_psn_reg <= psn_mem[ra];
        end
        if (rst) begin
            out_valid_reg <= 1'b0;
            wr_reg <= '0;
            done_reg <= '0;
            rd_reg <= '0;
            room_reg <= 1'b1;
            pop_q <= 1'b0;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // a frame leaves only after its descriptor was taken
    always_ff @(posedge clk) begin
        if (!rst && s_frame_done) assert (done_reg != wr_reg);
        // room as the pointers give it, but for a pop's entry a cycle late
        if (!rst) assert (room_reg == (occ != (DEPTH_LOG2+1)'(N)) || (pop_q && !room_reg));
    end
`endif
`endif

    wire unused_ok = ^{src_qpn};

endmodule

`resetall
