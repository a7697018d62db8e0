`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * 32-bit a - b over a register: in the cycle `en` is high the difference's
 * low half (with its borrow) and its high half (minus 0 and minus 1) are
 * registered, and `diff` selects the high half with the low half's borrow
 * (one LUT level behind the register). A 32-bit subtract in one cycle is a
 * carry chain of 8 cells, too deep behind a select for the logic-level
 * budget; a half is a chain of 4. `diff` holds while en is low.
 */
module rnic_sub_split (
    input  wire logic        clk,
    input  wire logic        en,
    input  wire logic [31:0] a,
    input  wire logic [31:0] b,
    output      logic [31:0] diff
);

    logic [16:0] lo_reg;            // a[15:0] - b[15:0] and its borrow
    logic [15:0] hi_reg, hi_m1_reg; // a[31:16] - b[31:16], and that - 1

    always_ff @(posedge clk) begin
        if (en) begin
            lo_reg <= {1'b0, a[15:0]} - {1'b0, b[15:0]};
            hi_reg <= a[31:16] - b[31:16];
            // - 1 as a borrow into bit 0 of a one-bit-wider difference
            hi_m1_reg <= 16'(({a[31:16], 1'b0} - {b[31:16], 1'b1}) >> 1);
        end
    end

    assign diff = {lo_reg[16] ? hi_m1_reg : hi_reg, lo_reg[15:0]};

endmodule

`resetall
