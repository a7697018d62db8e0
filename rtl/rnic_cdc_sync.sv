`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Level synchronizer: WIDTH bits that change in another clock domain,
 * brought into clk through STAGES flip-flops (two or more), all marked
 * ASYNC_REG so that the tools place them together and keep them out of
 * shift-register and retiming optimizations.
 *
 * The bits must come straight from a flip-flop of the sending domain (no
 * logic between it and d). Bits are synchronized each on its own: a bus
 * may be carried only when at most one bit changes at a time (a Gray-coded
 * counter, as rnic_axis_async_fifo does) or when it is held stable long
 * enough to be sampled (a level such as the MAC's pause request). The board
 * constraints (boards/common/rnic_cdc.tcl) bound the path into the first
 * stage, meta_reg, with set_max_delay -datapath_only.
 */
module rnic_cdc_sync #(
    parameter int WIDTH = 1,
    parameter int STAGES = 2,
    parameter logic [WIDTH-1:0] RESET_VALUE = '0
) (
    input  wire logic             clk,
    input  wire logic             rst,    // synchronous to clk
    input  wire logic [WIDTH-1:0] d,      // from another clock domain
    output      logic [WIDTH-1:0] q
);

    initial begin
        if (STAGES < 2) begin
            $error("rnic_cdc_sync: STAGES must be at least 2 (%m)");
            $finish;
        end
    end

    // stage 1 is meta_reg (the one that may go metastable), stages 2..STAGES
    // are sync_reg, stage STAGES in its top WIDTH bits
    (* ASYNC_REG = "TRUE" *) logic [WIDTH-1:0] meta_reg;
    (* ASYNC_REG = "TRUE" *) logic [(STAGES-1)*WIDTH-1:0] sync_reg;

    always_ff @(posedge clk) begin
        meta_reg <= d;
        if (rst) meta_reg <= RESET_VALUE;
    end

    if (STAGES > 2) begin : g_long
        always_ff @(posedge clk) begin
            sync_reg <= {sync_reg[(STAGES-2)*WIDTH-1:0], meta_reg};
            if (rst) sync_reg <= {(STAGES-1){RESET_VALUE}};
        end
    end else begin : g_two
        always_ff @(posedge clk) begin
            sync_reg <= meta_reg;
            if (rst) sync_reg <= RESET_VALUE;
        end
    end

    assign q = sync_reg[(STAGES-1)*WIDTH-1 -: WIDTH];

endmodule

`resetall
