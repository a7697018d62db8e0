`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Register slice with a skid register: both directions registered, one
 * transfer per cycle. s_ready is a flip-flop (the producer's decision does
 * not see the consumer's), m_valid and m_data are flip-flops (the consumer's
 * decision does not see the producer's logic). A transfer taken while the
 * output is held waits in the skid register and goes out next. The skid
 * register takes s_data in every cycle it is empty, so its load enable is
 * one flip-flop, not the producer's valid: a wide slice behind a deep valid
 * is then as shallow as its data.
 */
module rnic_skid #(
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

    logic             sk_valid_reg;
    logic [WIDTH-1:0] sk_data_reg;
    // s_ready is the skid's emptiness as a flip-flop of its own (as
    // !sk_valid_reg it was an inverter, one level, in front of every
    // producer's decision)
    logic             s_ready_reg;

    assign s_ready = s_ready_reg;

    always_ff @(posedge clk) begin
        if (!sk_valid_reg) sk_data_reg <= s_data;
        if (!m_valid || m_ready) begin
            m_valid <= sk_valid_reg || s_valid;
            m_data <= sk_valid_reg ? sk_data_reg : s_data;
            sk_valid_reg <= 1'b0;
            s_ready_reg <= 1'b1;
        end else if (s_valid && !sk_valid_reg) begin
            sk_valid_reg <= 1'b1;
            s_ready_reg <= 1'b0;
        end
        if (rst) begin
            m_valid <= 1'b0;
            sk_valid_reg <= 1'b0;
            s_ready_reg <= 1'b1;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
        if (!rst) assert (s_ready_reg == !sk_valid_reg);
    end
`endif
`endif

endmodule

`resetall
