`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Simple dual-port RAM: one write port, one read port with a registered
 * output (block-RAM style). Context tables instantiate one copy per reader.
 *
 * With ZERO_UNWRITTEN, an entry not written since reset reads as all zeros
 * (a QP in RESET, an invalid MR or CQ): RAM contents are undefined at
 * power-up, so a per-entry written bit, cleared by reset, decides what a
 * read returns. Tables whose readers only read written entries leave it off.
 */
module rnic_ram_1w1r #(
    parameter int WIDTH = 32,
    parameter int ADDR_WIDTH = 10,
    parameter int ZERO_UNWRITTEN = 1
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic                  wr_en,
    input  wire logic [ADDR_WIDTH-1:0] wr_addr,
    input  wire logic [WIDTH-1:0]      wr_data,

    input  wire logic                  rd_en,
    input  wire logic [ADDR_WIDTH-1:0] rd_addr,
    output      logic [WIDTH-1:0]      rd_data
);

    logic [WIDTH-1:0] mem [2**ADDR_WIDTH];
    logic [WIDTH-1:0] rd_data_reg;

    always_ff @(posedge clk) begin
        if (wr_en) mem[wr_addr] <= wr_data;
        if (rd_en) rd_data_reg <= mem[rd_addr];
    end

    if (ZERO_UNWRITTEN != 0) begin : g_guard
        logic [2**ADDR_WIDTH-1:0] written_reg;
        logic                     rd_written_reg;

        always_ff @(posedge clk) begin
            if (wr_en) written_reg[wr_addr] <= 1'b1;
            if (rd_en) rd_written_reg <= written_reg[rd_addr];
            if (rst) begin
                written_reg <= '0;
                rd_written_reg <= 1'b0;
            end
        end
        assign rd_data = rd_written_reg ? rd_data_reg : '0;
    end else begin : g_plain
        assign rd_data = rd_data_reg;
        wire unused_ok = rst;
    end

endmodule

`resetall
