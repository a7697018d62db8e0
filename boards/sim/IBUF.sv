`resetall
`timescale 1ns / 1ps
`default_nettype none

// Simulation model of the UltraScale input buffer: a wire.
module IBUF (
    input  wire logic I,
    output      logic O
);
    assign O = I;
endmodule

`resetall
