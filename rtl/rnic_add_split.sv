`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * 64-bit a + B_WIDTH-bit b (32 or 64) over a register: in the cycle `en`
 * is high the sums of three pieces of the result (bits 21:0, 42:22 and
 * 63:43; the upper two made with a carry in of 0 and of 1) are registered,
 * and `sum` selects among them with the pieces' carries (two LUT levels
 * behind the register). A 64-bit '+' in one cycle is a carry chain of 16
 * cells, too deep for the logic-level budget; a piece is a chain of 6.
 * `sum` holds while en is low.
 */
module rnic_add_split #(
    parameter int B_WIDTH = 32
) (
    input  wire logic               clk,
    input  wire logic               en,
    input  wire logic [63:0]        a,
    input  wire logic [B_WIDTH-1:0] b,
    output      logic [63:0]        sum
);

    wire [63:0] bx = 64'(b);
    logic [22:0] s0_reg;           // bits 21:0 and their carry out
    logic [21:0] m0_reg, m1_reg;   // bits 42:22 and their carry out, carry in 0 / 1
    logic [20:0] h0_reg, h1_reg;   // bits 63:43, carry in 0 / 1

    always_ff @(posedge clk) begin
        if (en) begin
            s0_reg <= 23'(a[21:0]) + 23'(bx[21:0]);
            m0_reg <= 22'(a[42:22]) + 22'(bx[42:22]);
            // + 1 as the carry into bit 0 of a one-bit-wider sum (the
            // operands widened first: the piece's carry out is kept)
            m1_reg <= 22'((23'({a[42:22], 1'b1}) + 23'({bx[42:22], 1'b1})) >> 1);
            h0_reg <= a[63:43] + bx[63:43];
            h1_reg <= 21'(({a[63:43], 1'b1} + {bx[63:43], 1'b1}) >> 1);
        end
    end

    wire [21:0] m = s0_reg[22] ? m1_reg : m0_reg;
    assign sum = {m[21] ? h1_reg : h0_reg, m[20:0], s0_reg[21:0]};

endmodule

`resetall
