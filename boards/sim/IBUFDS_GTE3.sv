`resetall
`timescale 1ns / 1ps
`default_nettype none

// Simulation model of the UltraScale transceiver reference clock buffer: O is
// the clock, ODIV2 the same clock (REFCLK_HROW_CK_SEL = 2'b00, as the board
// tops set it: no division).
module IBUFDS_GTE3 #(
    parameter logic [1:0] REFCLK_HROW_CK_SEL = 2'b00
) (
    input  wire logic I,
    input  wire logic IB,
    input  wire logic CEB,
    output      logic O,
    output      logic ODIV2
);
    assign O = I && !CEB;
    assign ODIV2 = O;
    wire unused_ok = &{1'b0, IB, REFCLK_HROW_CK_SEL};
endmodule

`resetall
