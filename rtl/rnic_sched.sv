`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Send-queue scheduler: round robin over QPs with pending work.
 *
 * A doorbell records the QP's SQ producer index and, if the QP is idle, puts
 * it at the tail of the active FIFO. The requester takes the QP at the head,
 * serves one WQE and hands it back with `done`: `requeue` puts it back at the
 * tail if it still has WQEs past its consumer index, otherwise it goes idle
 * until the next doorbell or `kick` (completions freeing the in-flight
 * window, or an error that needs flushing). One event is taken per cycle:
 * done first, then kick, then doorbell.
 */
module rnic_sched #(
    parameter int QPN_WIDTH = 10
) (
    input  wire logic                 clk,
    input  wire logic                 rst,

    input  wire logic                 s_db_valid,
    output      logic                 s_db_ready,
    input  wire logic [QPN_WIDTH-1:0] s_db_qpn,
    input  wire logic [15:0]          s_db_pi,

    input  wire logic                 s_kick_valid,
    output      logic                 s_kick_ready,
    input  wire logic [QPN_WIDTH-1:0] s_kick_qpn,

    output      logic                 m_qp_valid,
    input  wire logic                 m_qp_ready,
    output      logic [QPN_WIDTH-1:0] m_qp_qpn,
    output      logic [15:0]          m_qp_pi,

    input  wire logic                 s_done_valid,
    input  wire logic [QPN_WIDTH-1:0] s_done_qpn,
    input  wire logic [15:0]          s_done_ci,
    input  wire logic                 s_done_requeue,

    // QP context written: forget its producer index and state
    input  wire logic                 qp_reset_valid,
    input  wire logic [QPN_WIDTH-1:0] qp_reset_qpn
);

    localparam int NUM_QPS = 2 ** QPN_WIDTH;

    logic [15:0]          sq_pi_mem [NUM_QPS];
    // active: queued or in service; in_service: handed to the requester
    logic [NUM_QPS-1:0]   active_reg;
    logic [NUM_QPS-1:0]   wakeup_reg;   // a kick or doorbell came while in service
    logic [QPN_WIDTH-1:0] fifo_mem [NUM_QPS];
    logic [QPN_WIDTH:0]   wr_ptr_reg, rd_ptr_reg;

    wire fifo_empty = wr_ptr_reg == rd_ptr_reg;

    assign m_qp_valid = !fifo_empty;
    assign m_qp_qpn = fifo_mem[rd_ptr_reg[QPN_WIDTH-1:0]];
    assign m_qp_pi = sq_pi_mem[m_qp_qpn];

    assign s_kick_ready = !s_done_valid && !qp_reset_valid;
    assign s_db_ready = !s_done_valid && !s_kick_valid && !qp_reset_valid;

    logic                 push;
    logic [QPN_WIDTH-1:0] push_qpn;

    always_comb begin
        push = 1'b0;
        push_qpn = s_done_qpn;
        if (s_done_valid) begin
            // back of the line if there is (or may be) more work
            push = (s_done_requeue && s_done_ci != sq_pi_mem[s_done_qpn]) || wakeup_reg[s_done_qpn];
            push_qpn = s_done_qpn;
        end else if (s_kick_valid) begin
            push = !active_reg[s_kick_qpn];
            push_qpn = s_kick_qpn;
        end else if (s_db_valid) begin
            push = !active_reg[s_db_qpn];
            push_qpn = s_db_qpn;
        end
    end

    always_ff @(posedge clk) begin
        if (m_qp_valid && m_qp_ready) rd_ptr_reg <= rd_ptr_reg + 1'b1;
        if (push) begin
            fifo_mem[wr_ptr_reg[QPN_WIDTH-1:0]] <= push_qpn;
            wr_ptr_reg <= wr_ptr_reg + 1'b1;
        end
        // `done` has no ready: it is taken in every cycle, also beside a
        // context write (which holds kicks and doorbells back), or the QP
        // would stay marked active without being queued and no doorbell
        // would queue it again
        if (s_done_valid) begin
            active_reg[s_done_qpn] <= push;
            wakeup_reg[s_done_qpn] <= 1'b0;
        end else if (s_kick_valid) begin
            if (active_reg[s_kick_qpn]) wakeup_reg[s_kick_qpn] <= 1'b1;
            active_reg[s_kick_qpn] <= 1'b1;
        end else if (s_db_valid) begin
            if (active_reg[s_db_qpn]) wakeup_reg[s_db_qpn] <= 1'b1;
            active_reg[s_db_qpn] <= 1'b1;
        end
        // one write port: a doorbell is not taken beside a context write
        if (qp_reset_valid) sq_pi_mem[qp_reset_qpn] <= '0;
        else if (!s_done_valid && !s_kick_valid && s_db_valid) sq_pi_mem[s_db_qpn] <= s_db_pi;
        if (rst) begin
            wr_ptr_reg <= '0;
            rd_ptr_reg <= '0;
            active_reg <= '0;
            wakeup_reg <= '0;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // each QP is queued at most once, so the FIFO can never overflow
    always_ff @(posedge clk) begin
        if (!rst && push) assert ((wr_ptr_reg - rd_ptr_reg) < (QPN_WIDTH+1)'(NUM_QPS));
    end
`endif
`endif

endmodule

`resetall
