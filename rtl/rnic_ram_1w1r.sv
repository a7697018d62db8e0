`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Simple dual-port RAM: one write port, one read port with a registered
 * output (block-RAM style). Context tables instantiate one copy per reader.
 */
module rnic_ram_1w1r #(
    parameter int WIDTH = 32,
    parameter int ADDR_WIDTH = 10
) (
    input  wire logic                  clk,

    input  wire logic                  wr_en,
    input  wire logic [ADDR_WIDTH-1:0] wr_addr,
    input  wire logic [WIDTH-1:0]      wr_data,

    input  wire logic                  rd_en,
    input  wire logic [ADDR_WIDTH-1:0] rd_addr,
    output      logic [WIDTH-1:0]      rd_data
);

    logic [WIDTH-1:0] mem [2**ADDR_WIDTH];

    always_ff @(posedge clk) begin
        if (wr_en) mem[wr_addr] <= wr_data;
        if (rd_en) rd_data <= mem[rd_addr];
    end

endmodule

`resetall
