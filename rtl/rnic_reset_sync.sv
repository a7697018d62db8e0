`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Reset synchronizer: rst_out rises at once with rst_in (asynchronously, so
 * a domain whose clock has stopped or not yet started is held in reset) and
 * falls STAGES rising edges of clk after rst_in fell, synchronously, so
 * every flip-flop of the domain leaves reset in the same cycle. The board
 * tops run every reset through one of these per clock domain; rst_in may
 * come from any domain or none (an IP's locked or ready output, a button).
 * The constraints (boards/common/rnic_cdc.tcl) cut the timing of rst_in into
 * the asynchronous preset pins; the chain is marked ASYNC_REG.
 */
module rnic_reset_sync #(
    parameter int STAGES = 4
) (
    input  wire logic clk,
    input  wire logic rst_in,    // active high, asynchronous
    output      logic rst_out    // active high, synchronous to clk
);

    initial begin
        if (STAGES < 2) begin
            $error("rnic_reset_sync: STAGES must be at least 2 (%m)");
            $finish;
        end
    end

    (* ASYNC_REG = "TRUE" *) logic [STAGES-1:0] rst_sync_reg = '1;

    always_ff @(posedge clk or posedge rst_in) begin
        if (rst_in) rst_sync_reg <= '1;
        else rst_sync_reg <= {rst_sync_reg[STAGES-2:0], 1'b0};
    end

    assign rst_out = rst_sync_reg[STAGES-1];

endmodule

`resetall
