`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The responder's per-SRQ dynamic state (IBTA Vol. 1 10.2.9): each shared
 * receive queue's producer index (DB_SRQ), its one consumer index, shared
 * by every QP on it, and its armed limit (srqc.limit; 0: not armed).
 *
 * The responder names the SRQ it serves (rd_srqn) a cycle before it looks
 * at rd_pi / rd_ci: the read address is registered (block RAM), and the
 * data are those of the SRQ named in the cycle before (rd_srqn_q); it says
 * when it takes the WQE at the consumer index (take_valid, for that SRQ). A take that leaves fewer than
 * limit WQEs posted (producer - consumer after the take) with the limit
 * armed disarms it and raises evt_valid for that SRQ in the next cycle
 * (EVT_SRQ_LIMIT). A context write (CTX_TABLE_SRQC) sets the limit;
 * CTX_OP_WRITE also zeroes both indices (a new SRQ). Doorbells, takes and
 * context writes never come in one cycle (the responder takes a doorbell
 * only in S_IDLE and no context write while it serves a request), so every
 * table has one write port.
 */
module rnic_srq_state #(
    parameter int SRQN_WIDTH = 8
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    // the SRQ the responder serves (registered: rd_pi, rd_ci and take_valid
    // are for the one named in the cycle before)
    input  wire logic [SRQN_WIDTH-1:0] rd_srqn,
    output      logic [15:0]           rd_pi,
    output      logic [15:0]           rd_ci,
    // the WQE at rd_ci is taken
    input  wire logic                  take_valid,

    // DB_SRQ
    input  wire logic                  db_valid,
    input  wire logic [SRQN_WIDTH-1:0] db_srqn,
    input  wire logic [15:0]           db_pi,

    // SRQC written: limit set, indices zeroed with reset
    input  wire logic                  ctx_valid,
    input  wire logic                  ctx_reset,
    input  wire logic [SRQN_WIDTH-1:0] ctx_srqn,
    input  wire logic [15:0]           ctx_limit,

    // the limit was reached (one cycle)
    output      logic                  evt_valid,
    output      logic [SRQN_WIDTH-1:0] evt_srqn
);

    localparam int NUM_SRQS = 2 ** SRQN_WIDTH;

    logic [15:0] pi_mem [NUM_SRQS];
    logic [15:0] ci_mem [NUM_SRQS];
    logic [15:0] lim_mem [NUM_SRQS];

    logic [SRQN_WIDTH-1:0] rd_q;
    always_ff @(posedge clk) rd_q <= rd_srqn;
    assign rd_pi = pi_mem[rd_q];
    assign rd_ci = ci_mem[rd_q];
    wire [15:0] lim = lim_mem[rd_q];
    wire [15:0] ci_next = rd_ci + 16'd1;
    wire [15:0] left = rd_pi - ci_next;
    wire        reached = take_valid && lim != 16'd0 && left < lim;

    // one write port each: enable, address, data
    wire                  pi_we = (ctx_valid && ctx_reset) || db_valid;
    wire [SRQN_WIDTH-1:0] pi_wa = ctx_valid ? ctx_srqn : db_srqn;
    wire [15:0]           pi_wd = ctx_valid ? 16'd0 : db_pi;
    wire                  ci_we = (ctx_valid && ctx_reset) || take_valid;
    wire [SRQN_WIDTH-1:0] ci_wa = ctx_valid ? ctx_srqn : rd_q;
    wire [15:0]           ci_wd = ctx_valid ? 16'd0 : ci_next;
    wire                  lim_we = ctx_valid || reached;
    wire [SRQN_WIDTH-1:0] lim_wa = ctx_valid ? ctx_srqn : rd_q;
    wire [15:0]           lim_wd = ctx_valid ? ctx_limit : 16'd0;
    always_ff @(posedge clk) begin
        if (pi_we) pi_mem[pi_wa] <= pi_wd;
        if (ci_we) ci_mem[ci_wa] <= ci_wd;
        if (lim_we) lim_mem[lim_wa] <= lim_wd;
    end

    always_ff @(posedge clk) begin
        evt_valid <= reached && !ctx_valid;
        evt_srqn <= rd_q;
        if (rst) evt_valid <= 1'b0;
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
        if (!rst) assert (!(ctx_valid && (db_valid || take_valid)) && !(db_valid && take_valid));
    end
`endif
`endif

endmodule

`resetall
