`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * One address channel of rnic_axi_xlate: stage 1 reads the MTT entry of an
 * address with bit MPT_PA_MTT_BIT set, stage 2 holds the translated burst
 * until the memory takes it. One burst per cycle when nothing stalls; the
 * MTT copy here is written through the context window like the other
 * tables.
 */
module rnic_axi_xlate_chan #(
    parameter int SIDE_W = 25,
    parameter int MTT_INDEX_WIDTH = 16
) (
    input  wire logic                          clk,
    input  wire logic                          rst,

    input  wire logic                          mtt_wr_en,
    input  wire logic [MTT_INDEX_WIDTH-1:0]    mtt_wr_addr,
    input  wire logic [rnic_pkg::MTT_BITS-1:0] mtt_wr_data,

    input  wire logic [63:0]                   s_addr,
    input  wire logic [SIDE_W-1:0]             s_side,
    input  wire logic                          s_valid,
    output      logic                          s_ready,

    output      logic [63:0]                   m_addr,
    output      logic [SIDE_W-1:0]             m_side,
    output      logic                          m_valid,
    input  wire logic                          m_ready
);

    localparam int PAGE_SHIFT = rnic_pkg::MTT_PAGE_SHIFT;
    localparam int XBIT = rnic_pkg::MPT_PA_MTT_BIT;

    logic                          v1_reg, v2_reg;
    logic [63:0]                   addr1_reg, addr2_reg;
    logic [SIDE_W-1:0]             side1_reg, side2_reg;
    logic [rnic_pkg::MTT_BITS-1:0] page;

    wire adv2 = !v2_reg || m_ready;
    wire adv1 = v1_reg && adv2;
    assign s_ready = !v1_reg || adv1;
    wire take = s_valid && s_ready;

    logic mtt_init_unused;   // not cleared (ZERO_UNWRITTEN 0): always done
    // the table holds what the host wrote; entries it never wrote are never
    // reached, since every translated address comes from a valid MPT entry
    rnic_ram_1w1r #(.WIDTH(rnic_pkg::MTT_BITS), .ADDR_WIDTH(MTT_INDEX_WIDTH), .ZERO_UNWRITTEN(0)) mtt_ram (
        .clk, .rst, .wr_en(mtt_wr_en), .wr_addr(mtt_wr_addr), .wr_data(mtt_wr_data),
        .rd_en(take), .rd_addr(s_addr[PAGE_SHIFT +: MTT_INDEX_WIDTH]), .rd_data(page), .init_done(mtt_init_unused));

    assign m_addr = addr2_reg;
    assign m_side = side2_reg;
    assign m_valid = v2_reg;

    always_ff @(posedge clk) begin
        if (adv1) begin
            v2_reg <= 1'b1;
            addr2_reg <= addr1_reg[XBIT] ? {page, addr1_reg[PAGE_SHIFT-1:0]} : addr1_reg;
            side2_reg <= side1_reg;
        end else if (m_ready) begin
            v2_reg <= 1'b0;
        end
        if (take) begin
            v1_reg <= 1'b1;
            addr1_reg <= s_addr;
            side1_reg <= s_side;
        end else if (adv1) begin
            v1_reg <= 1'b0;
        end
        if (rst) begin
            v1_reg <= 1'b0;
            v2_reg <= 1'b0;
        end
    end

endmodule

`resetall
