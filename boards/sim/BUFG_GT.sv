`resetall
`timescale 1ns / 1ps
`default_nettype none

// Simulation model of the UltraScale transceiver clock buffer as the board
// tops use it (DIV = 0: no division, CE high, CLR low): the clock through.
module BUFG_GT (
    input  wire logic       I,
    input  wire logic       CE,
    input  wire logic       CEMASK,
    input  wire logic       CLR,
    input  wire logic       CLRMASK,
    input  wire logic [2:0] DIV,
    output      logic       O
);
    assign O = I;
    wire unused_ok = &{1'b0, CE, CEMASK, CLR, CLRMASK, DIV};
endmodule

`resetall
