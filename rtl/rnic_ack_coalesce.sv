`resetall
`timescale 1ns / 1ps
`default_nettype none
/*
 * The wire's ACKs and READ responses on their way to the completion engine:
 * a register slice with a skid register (as rnic_skid: s_ready, m_valid and
 * m_data are flip-flops) that coalesces acknowledgements. The completion
 * engine spends several cycles on each ACK (the QP's state, the window, a
 * walk of the in-flight records) while a peer acknowledges every message,
 * so a stream of small messages queues ACKs in front of it and the queue
 * holds the receive path. An ACK acknowledges every PSN up to its own
 * (IBA 9.7.5.1): an ACK still waiting at the output is made redundant by a
 * later ACK of the same QP behind it, which takes its place, so the engine
 * walks once for both. Only plain ACKs coalesce (opcode ACKNOWLEDGE, AETH
 * kind ACK); NAKs, RNR NAKs, READ responses and ATOMIC acknowledgements pass
 * one by one, in order. The decision compares the two registers only, not
 * the producer's data: no path of the dispatcher's runs through it.
 * So a held output may change, unlike a stream's: a plain ACK may give way
 * to a later plain ACK of its QP (the QPN holds, the PSN moves on); any
 * other entry holds until it is taken. The completion engine samples the
 * fields at the handshake only.
 */
module rnic_ack_coalesce #(
    parameter int QPN_WIDTH = 10
) (
    input  wire logic                 clk,
    input  wire logic                 rst,
    input  wire logic                 s_valid,
    output      logic                 s_ready,
    input  wire logic [QPN_WIDTH-1:0] s_qpn,
    input  wire logic [23:0]          s_psn,
    input  wire logic [7:0]           s_syndrome,
    input  wire logic [7:0]           s_opcode,
    input  wire logic [15:0]          s_plen,
    input  wire logic [63:0]          s_orig,
    output      logic                 m_valid,
    input  wire logic                 m_ready,
    output      logic [QPN_WIDTH-1:0] m_qpn,
    output      logic [23:0]          m_psn,
    output      logic [7:0]           m_syndrome,
    output      logic [7:0]           m_opcode,
    output      logic [15:0]          m_plen,
    output      logic [63:0]          m_orig,
    // an ACK dropped for a later one of its QP (it counts as received)
    output      logic                 m_coalesced
);
    localparam int W = QPN_WIDTH + 24 + 8 + 8 + 16 + 64;

    function automatic logic plain_ack(input logic [7:0] opcode, input logic [2:0] kind);
        plain_ack = opcode == rnic_pkg::OP_ACKNOWLEDGE[7:0] && kind == 3'(rnic_pkg::AETH_KIND_ACK);
    endfunction
    localparam int OPC = 16 + 64, SYN = OPC + 8;   // field offsets in the data

    wire  [W-1:0] s_data = {s_qpn, s_psn, s_syndrome, s_opcode, s_plen, s_orig};
    logic [W-1:0] m_data_reg, sk_data_reg;
    logic         m_valid_reg, sk_valid_reg, s_ready_reg;
    assign s_ready = s_ready_reg;
    assign m_valid = m_valid_reg;
    assign {m_qpn, m_psn, m_syndrome, m_opcode, m_plen, m_orig} = m_data_reg;

    // the held output and the skid entry behind it: both plain ACKs of one QP
    wire merge = m_valid_reg && !m_ready && sk_valid_reg && plain_ack(m_data_reg[OPC +: 8], m_data_reg[SYN + 5 +: 3])
                 && plain_ack(sk_data_reg[OPC +: 8], sk_data_reg[SYN + 5 +: 3])
                 && m_data_reg[W-1 -: QPN_WIDTH] == sk_data_reg[W-1 -: QPN_WIDTH];

    always_ff @(posedge clk) begin
        m_coalesced <= merge;
        if (!sk_valid_reg) sk_data_reg <= s_data;
        if (!m_valid_reg || m_ready || merge) begin
            m_valid_reg <= sk_valid_reg || s_valid;
            m_data_reg <= sk_valid_reg ? sk_data_reg : s_data;
            sk_valid_reg <= 1'b0;
            s_ready_reg <= 1'b1;
        end else if (s_valid && !sk_valid_reg) begin
            sk_valid_reg <= 1'b1;
            s_ready_reg <= 1'b0;
        end
        if (rst) begin
            m_valid_reg <= 1'b0;
            sk_valid_reg <= 1'b0;
            s_ready_reg <= 1'b1;
            m_coalesced <= 1'b0;
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
