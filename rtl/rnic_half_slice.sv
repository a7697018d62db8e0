`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Register slice for a stream that moves at most every other cycle (packet
 * headers: the builder takes one every second cycle at the most): s_ready,
 * m_valid and m_data are flip-flops, as in rnic_skid, but there is no skid
 * register. The slice takes a transfer only while it is empty, so a
 * transfer in and the next one are two cycles apart. Beside rnic_skid it
 * saves the skid register and the 2:1 choice in front of the output
 * register (for a 1,000-bit header a thousand flip-flops and LUTs), and the
 * output register's load enable is one flip-flop (empty), not the
 * producer's valid.
 */
module rnic_half_slice #(
    parameter int WIDTH = 32
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

    // the slice is empty: its own flip-flop (as !m_valid it was an inverter
    // in front of every producer's decision)
    logic empty_reg;
    assign s_ready = empty_reg;

    always_ff @(posedge clk) begin
        if (empty_reg) begin
            m_data <= s_data;
            m_valid <= s_valid;
            empty_reg <= !s_valid;
        end else if (m_ready) begin
            m_valid <= 1'b0;
            empty_reg <= 1'b1;
        end
        if (rst) begin
            m_valid <= 1'b0;
            empty_reg <= 1'b1;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
        if (!rst) assert (empty_reg == !m_valid);
    end
`endif
`endif

endmodule

`resetall
