`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Plain valid/ready FIFO of WIDTH-bit records, 2^DEPTH_LOG2 deep.
 *
 * The head is read straight from the array (distributed RAM), so a record
 * written into an empty FIFO is offered on the next cycle and one record can
 * be taken every cycle. Used where a producer must run ahead of a consumer
 * that waits on something else, e.g. the requester's packet headers ahead
 * of the packet builder, which waits for each packet's payload read.
 */
module rnic_fifo #(
    parameter int WIDTH = 32,
    parameter int DEPTH_LOG2 = 4
) (
    input  wire logic             clk,
    input  wire logic             rst,

    input  wire logic             s_valid,
    output      logic             s_ready,
    input  wire logic [WIDTH-1:0] s_data,

    output      logic             m_valid,
    input  wire logic             m_ready,
    output      logic [WIDTH-1:0] m_data
);

    localparam int DEPTH = 2 ** DEPTH_LOG2;

    initial begin
        if (DEPTH_LOG2 < 1 || WIDTH < 1) begin
            $error("rnic_fifo: DEPTH_LOG2 and WIDTH must be 1 or more (%m)");
            $finish;
        end
    end

    logic [WIDTH-1:0]    mem [DEPTH];
    logic [DEPTH_LOG2:0] wr_ptr_reg, rd_ptr_reg;

    assign s_ready = (wr_ptr_reg - rd_ptr_reg) != (DEPTH_LOG2 + 1)'(DEPTH);
    assign m_valid = wr_ptr_reg != rd_ptr_reg;
    assign m_data = mem[rd_ptr_reg[DEPTH_LOG2-1:0]];

    always_ff @(posedge clk) begin
        if (s_valid && s_ready) begin
            mem[wr_ptr_reg[DEPTH_LOG2-1:0]] <= s_data;
            wr_ptr_reg <= wr_ptr_reg + 1'b1;
        end
        if (m_valid && m_ready) rd_ptr_reg <= rd_ptr_reg + 1'b1;
        if (rst) begin
            wr_ptr_reg <= '0;
            rd_ptr_reg <= '0;
        end
    end

endmodule

`resetall
