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

    // Every per-QP table is a RAM with one write port and registered reads
    // (block RAM at any QP count), so an event takes two cycles: E0 reads
    // the QP's flags, E1 decides, writes them back and queues the QP. A
    // doorbell's producer index is written at E0 (nothing to read first).
    //   pi_mem     SQ producer index (doorbell; zero on a context write)
    //   flag_mem   {active, wakeup}: active = queued or in service; wakeup =
    //              a kick or doorbell came while in service
    //   fifo_mem   the QPs waiting for the requester, in order
    logic [15:0]          pi_mem [NUM_QPS];
    logic [1:0]           flag_mem [NUM_QPS];
    logic [QPN_WIDTH-1:0] fifo_mem [NUM_QPS];
    logic [QPN_WIDTH:0]   wr_ptr_reg, rd_ptr_reg;

    // after reset the flags clear themselves, one QP per cycle; no event is
    // taken meanwhile
    logic [QPN_WIDTH:0]   clear_ptr_reg;
    wire                  clear_done = clear_ptr_reg[QPN_WIDTH];

    // ---------------------------------------------------------------- E0
    typedef enum logic [1:0] { EV_DONE, EV_KICK, EV_DB } ev_t;
    assign s_kick_ready = clear_done && !s_done_valid && !qp_reset_valid;
    assign s_db_ready = clear_done && !s_done_valid && !s_kick_valid && !qp_reset_valid;
    wire                  e0_valid = s_done_valid || (s_kick_valid && s_kick_ready) || (s_db_valid && s_db_ready);
    wire ev_t             e0_kind = s_done_valid ? EV_DONE : s_kick_valid ? EV_KICK : EV_DB;
    wire [QPN_WIDTH-1:0]  e0_qpn = s_done_valid ? s_done_qpn : s_kick_valid ? s_kick_qpn : s_db_qpn;

    logic                 e1_valid_reg;
    ev_t                  e1_kind_reg;
    logic [QPN_WIDTH-1:0] e1_qpn_reg;
    logic [15:0]          e1_ci_reg;
    logic                 e1_requeue_reg;
    logic [1:0]           e1_flags_ram;
    logic [15:0]          e1_pi_ram;
    // the flags E1 wrote in the previous cycle (a read in that cycle saw
    // the old value)
    logic                 fw_valid_reg;
    logic [QPN_WIDTH-1:0] fw_qpn_reg;
    logic [1:0]           fw_flags_reg;

    always_ff @(posedge clk) begin
        if (e0_valid) begin
            e1_flags_ram <= flag_mem[e0_qpn];
            e1_pi_ram <= pi_mem[e0_qpn];
        end
        // one write port: a doorbell is not taken beside a context write
        if (qp_reset_valid) pi_mem[qp_reset_qpn] <= '0;
        else if (e0_valid && e0_kind == EV_DB) pi_mem[s_db_qpn] <= s_db_pi;
    end

    always_ff @(posedge clk) begin
        e1_valid_reg <= e0_valid;
        e1_kind_reg <= e0_kind;
        e1_qpn_reg <= e0_qpn;
        e1_ci_reg <= s_done_ci;
        e1_requeue_reg <= s_done_requeue;
        if (rst) e1_valid_reg <= 1'b0;
    end

    // ---------------------------------------------------------------- E1
    wire [1:0] e1_flags = (fw_valid_reg && fw_qpn_reg == e1_qpn_reg) ? fw_flags_reg : e1_flags_ram;
    wire       e1_active = e1_flags[1];
    wire       e1_wakeup = e1_flags[0];
    logic      push;
    logic [1:0] e1_flags_new;

    always_comb begin
        push = 1'b0;
        e1_flags_new = e1_flags;
        case (e1_kind_reg)
            EV_DONE: begin
                // back of the line if there is (or may be) more work
                push = (e1_requeue_reg && e1_ci_reg != e1_pi_ram) || e1_wakeup;
                e1_flags_new = {push, 1'b0};
            end
            default: begin   // kick, doorbell
                push = !e1_active;
                e1_flags_new = {1'b1, e1_active};
            end
        endcase
        if (!e1_valid_reg) push = 1'b0;
    end

    always_ff @(posedge clk) begin
        if (!clear_done) flag_mem[clear_ptr_reg[QPN_WIDTH-1:0]] <= 2'b00;
        else if (e1_valid_reg) flag_mem[e1_qpn_reg] <= e1_flags_new;
        if (push) fifo_mem[wr_ptr_reg[QPN_WIDTH-1:0]] <= e1_qpn_reg;
    end

    always_ff @(posedge clk) begin
        fw_valid_reg <= e1_valid_reg;
        fw_qpn_reg <= e1_qpn_reg;
        fw_flags_reg <= e1_flags_new;
        if (!clear_done) clear_ptr_reg <= clear_ptr_reg + 1'b1;
        if (push) wr_ptr_reg <= wr_ptr_reg + 1'b1;
        if (rst) begin
            fw_valid_reg <= 1'b0;
            clear_ptr_reg <= '0;
            wr_ptr_reg <= '0;
        end
    end

    // ------------------------------------------------------------ output
    // FIFO head -> A (read the QP's producer index) -> B (the output). A
    // producer index written after A's read is forwarded into A and B, so
    // the requester always sees the latest one, as the doorbell left it.
    wire                  fifo_empty = wr_ptr_reg == rd_ptr_reg;
    wire [QPN_WIDTH-1:0]  fifo_head = fifo_mem[rd_ptr_reg[QPN_WIDTH-1:0]];
    logic                 a_valid_reg, b_valid_reg;
    logic [QPN_WIDTH-1:0] a_qpn_reg, b_qpn_reg;
    logic                 a_fwd_reg;
    logic [15:0]          a_fwd_pi_reg, a_pi_ram, b_pi_reg;

    wire                  pi_we = qp_reset_valid || (e0_valid && e0_kind == EV_DB);
    wire [QPN_WIDTH-1:0]  pi_wqpn = qp_reset_valid ? qp_reset_qpn : s_db_qpn;
    wire [15:0]           pi_wdata = qp_reset_valid ? 16'h0 : s_db_pi;

    // A takes the FIFO's head only while empty, so the pop (the FIFO's read
    // pointer, the producer index table's read) does not wait for the
    // requester's ready, which is deep in its take: A refills in the cycle
    // after it moved on, and the requester takes a QP at most every other
    // cycle (it looks at a QP for a cycle before taking it).
    wire b_take = !b_valid_reg || m_qp_ready;
    wire a_move = a_valid_reg && b_take;
    wire pop = !fifo_empty && !a_valid_reg;
    wire [15:0] a_pi = a_fwd_reg ? a_fwd_pi_reg : a_pi_ram;

    always_ff @(posedge clk) begin
        if (pop) a_pi_ram <= pi_mem[fifo_head];
    end

    always_ff @(posedge clk) begin
        if (pop) rd_ptr_reg <= rd_ptr_reg + 1'b1;
        if (!a_valid_reg) begin
            a_valid_reg <= pop;
            a_qpn_reg <= fifo_head;
            a_fwd_reg <= 1'b0;
        end else if (a_move) begin
            a_valid_reg <= 1'b0;
        end
        // (a QP leaving A takes a write of this cycle into B below)
        if (pi_we && (!a_valid_reg ? pop && fifo_head == pi_wqpn : a_qpn_reg == pi_wqpn)) begin
            a_fwd_reg <= 1'b1;
            a_fwd_pi_reg <= pi_wdata;
        end
        if (b_take) begin
            b_valid_reg <= a_valid_reg;
            b_qpn_reg <= a_qpn_reg;
            b_pi_reg <= (pi_we && a_qpn_reg == pi_wqpn) ? pi_wdata : a_pi;
        end else if (pi_we && b_qpn_reg == pi_wqpn) begin
            b_pi_reg <= pi_wdata;
        end
        if (rst) begin
            rd_ptr_reg <= '0;
            a_valid_reg <= 1'b0;
            b_valid_reg <= 1'b0;
        end
    end

    assign m_qp_valid = b_valid_reg;
    assign m_qp_qpn = b_qpn_reg;
    assign m_qp_pi = b_pi_reg;

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // each QP is queued at most once, so the FIFO can never overflow
    always_ff @(posedge clk) begin
        if (!rst && push) assert ((wr_ptr_reg - rd_ptr_reg) < (QPN_WIDTH+1)'(NUM_QPS));
        if (!rst && s_done_valid) assert (clear_done);
    end
`endif
`endif

endmodule

`resetall
