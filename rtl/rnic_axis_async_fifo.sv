`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * AXI4-Stream FIFO between two clock domains (the board tops put one between
 * each MAC clock and the core clock).
 *
 * Storage: 2^ADDR_WIDTH words in a simple dual-port RAM written in s_clk and
 * read in m_clk through a registered read (block RAM), followed by one output
 * register; it holds 2^ADDR_WIDTH + 2 words and moves one word per cycle on
 * each side. The pointers cross as Gray codes, each taken from a flip-flop
 * of its own domain and brought into the other through SYNC_STAGES
 * ASYNC_REG flip-flops (rnic_cdc_sync); a full or empty flag may be late
 * (the FIFO is then fuller or emptier than it says, never the reverse).
 *
 * FRAME_FIFO = 1: the write pointer is published to the read side only at
 * tlast, so the read side sees whole frames only (store and forward: a MAC
 * that may not see a gap inside a frame gets none); the depth must then
 * hold the largest frame. DROP_WHEN_FULL = 1 (with FRAME_FIFO): s_axis_tready
 * stays high outside reset, for a sender that cannot wait (a MAC's receive
 * stream); a frame that meets a full FIFO, or is marked bad on its last
 * word (s_axis_tuser with DROP_BAD_FRAME), is discarded whole and counted by
 * a one-cycle pulse on s_drop.
 *
 * Resets: s_rst and m_rst are synchronous to their clocks (rnic_reset_sync);
 * either empties the FIFO, the other side following through a synchronizer,
 * so a reset must last at least SYNC_STAGES + 2 cycles of the slower clock.
 * The board constraints (boards/common/rnic_cdc.tcl) bound the Gray pointers'
 * paths into the synchronizers with set_max_delay -datapath_only.
 */
module rnic_axis_async_fifo #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int USER_WIDTH = 1,
    parameter int ADDR_WIDTH = 9,
    parameter int SYNC_STAGES = 2,
    parameter int FRAME_FIFO = 0,
    parameter int DROP_WHEN_FULL = 0,
    parameter int DROP_BAD_FRAME = 0
) (
    input  wire logic                  s_clk,
    input  wire logic                  s_rst,
    input  wire logic [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire logic                  s_axis_tvalid,
    output      logic                  s_axis_tready,
    input  wire logic                  s_axis_tlast,
    input  wire logic [USER_WIDTH-1:0] s_axis_tuser,
    output      logic                  s_full,     // no room for a word now
    output      logic                  s_drop,     // a frame was discarded

    input  wire logic                  m_clk,
    input  wire logic                  m_rst,
    output      logic [DATA_WIDTH-1:0] m_axis_tdata,
    output      logic [KEEP_WIDTH-1:0] m_axis_tkeep,
    output      logic                  m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output      logic                  m_axis_tlast,
    output      logic [USER_WIDTH-1:0] m_axis_tuser
);

    localparam int A = ADDR_WIDTH;
    localparam int W = DATA_WIDTH + KEEP_WIDTH + 1 + USER_WIDTH;

    initial begin
        if (ADDR_WIDTH < 2 || SYNC_STAGES < 2 || KEEP_WIDTH * 8 != DATA_WIDTH) begin
            $error("rnic_axis_async_fifo: ADDR_WIDTH >= 2, SYNC_STAGES >= 2, KEEP_WIDTH = DATA_WIDTH / 8 (%m)");
            $finish;
        end
        if ((DROP_WHEN_FULL != 0 || DROP_BAD_FRAME != 0) && FRAME_FIFO == 0) begin
            $error("rnic_axis_async_fifo: dropping frames needs FRAME_FIFO (%m)");
            $finish;
        end
    end

    function automatic logic [A:0] bin2gray(input logic [A:0] b);
        bin2gray = b ^ (b >> 1);
    endfunction

    // ------------------------------------------------------------------
    // resets: either side's reset empties both
    // ------------------------------------------------------------------
    logic m_rst_in_s, s_rst_in_m;
    logic s_rst_all, m_rst_all;

    rnic_cdc_sync #(.WIDTH(1), .STAGES(SYNC_STAGES), .RESET_VALUE(1'b1)) m_rst_sync_inst (
        .clk(s_clk), .rst(s_rst), .d(m_rst), .q(m_rst_in_s)
    );
    rnic_cdc_sync #(.WIDTH(1), .STAGES(SYNC_STAGES), .RESET_VALUE(1'b1)) s_rst_sync_inst (
        .clk(m_clk), .rst(m_rst), .d(s_rst), .q(s_rst_in_m)
    );
    assign s_rst_all = s_rst || m_rst_in_s;
    assign m_rst_all = m_rst || s_rst_in_m;

    // ------------------------------------------------------------------
    // storage
    // ------------------------------------------------------------------
    (* ram_style = "block" *) logic [W-1:0] mem [2**A];
    logic         mem_we;
    logic [A-1:0] mem_wa;
    logic [W-1:0] mem_wd;
    logic         mem_re;
    logic [A-1:0] mem_ra;
    logic [W-1:0] mem_rd_reg;

    always_ff @(posedge s_clk) begin
        if (mem_we) mem[mem_wa] <= mem_wd;
    end
    always_ff @(posedge m_clk) begin
        if (mem_re) mem_rd_reg <= mem[mem_ra];
    end

    // ------------------------------------------------------------------
    // write side
    // ------------------------------------------------------------------
    logic [A:0] wr_bin_reg;      // next word to write
    logic [A:0] wr_commit_reg;   // words up to here are published (FRAME_FIFO)
    logic [A:0] wr_gray_reg;     // published pointer, Gray-coded, crosses to m_clk
    logic [A:0] rd_gray_s;       // the read pointer in s_clk
    logic       drop_reg;        // the frame being written is being discarded
    logic       s_drop_reg;
    logic       full;
    logic       accept;
    logic [A:0] wr_bin_next;

    // full: the write pointer one lap ahead of the read pointer
    assign full = bin2gray(wr_bin_reg) == {~rd_gray_s[A:A-1], rd_gray_s[A-2:0]};
    assign s_full = full || s_rst_all;
    assign s_axis_tready = !s_rst_all && (DROP_WHEN_FULL != 0 || !full);
    assign accept = s_axis_tvalid && s_axis_tready;
    assign wr_bin_next = wr_bin_reg + 1'b1;
    assign mem_wa = wr_bin_reg[A-1:0];
    assign mem_wd = {s_axis_tuser, s_axis_tlast, s_axis_tkeep, s_axis_tdata};
    assign mem_we = accept && !full && !drop_reg;
    assign s_drop = s_drop_reg;

    always_ff @(posedge s_clk) begin
        s_drop_reg <= 1'b0;
        if (FRAME_FIFO == 0) begin
            if (accept) begin
                wr_bin_reg <= wr_bin_next;
                wr_gray_reg <= bin2gray(wr_bin_next);
            end
        end else if (accept) begin
            if (full || drop_reg) begin
                // a word that does not fit: the frame goes, whole
                if (s_axis_tlast) begin
                    wr_bin_reg <= wr_commit_reg;
                    drop_reg <= 1'b0;
                    s_drop_reg <= 1'b1;
                end else begin
                    drop_reg <= 1'b1;
                end
            end else if (s_axis_tlast) begin
                if (DROP_BAD_FRAME != 0 && s_axis_tuser[0]) begin
                    wr_bin_reg <= wr_commit_reg;
                    s_drop_reg <= 1'b1;
                end else begin
                    wr_bin_reg <= wr_bin_next;
                    wr_commit_reg <= wr_bin_next;
                    wr_gray_reg <= bin2gray(wr_bin_next);
                end
            end else begin
                wr_bin_reg <= wr_bin_next;
            end
        end
        if (s_rst_all) begin
            wr_bin_reg <= '0;
            wr_commit_reg <= '0;
            wr_gray_reg <= '0;
            drop_reg <= 1'b0;
            s_drop_reg <= 1'b0;
        end
    end

    rnic_cdc_sync #(.WIDTH(A + 1), .STAGES(SYNC_STAGES)) rd_ptr_sync_inst (
        .clk(s_clk), .rst(s_rst_all), .d(rd_gray_reg), .q(rd_gray_s)
    );

    // ------------------------------------------------------------------
    // read side: RAM read register, then the output register
    // ------------------------------------------------------------------
    logic [A:0] rd_bin_reg;      // next word to read from the RAM
    logic [A:0] rd_gray_reg;     // crosses to s_clk
    logic [A:0] wr_gray_m;       // the published write pointer in m_clk
    logic       empty;
    logic       rd_valid_reg;    // mem_rd_reg holds a word
    logic       out_valid_reg;
    logic [W-1:0] out_reg;
    logic       out_ready, rd_ready;
    logic [A:0] rd_bin_next;

    rnic_cdc_sync #(.WIDTH(A + 1), .STAGES(SYNC_STAGES)) wr_ptr_sync_inst (
        .clk(m_clk), .rst(m_rst_all), .d(wr_gray_reg), .q(wr_gray_m)
    );

    assign empty = bin2gray(rd_bin_reg) == wr_gray_m;
    assign out_ready = !out_valid_reg || m_axis_tready;
    assign rd_ready = !rd_valid_reg || out_ready;
    assign mem_re = !empty && rd_ready && !m_rst_all;
    assign mem_ra = rd_bin_reg[A-1:0];
    assign rd_bin_next = rd_bin_reg + 1'b1;

    always_ff @(posedge m_clk) begin
        if (mem_re) begin
            rd_bin_reg <= rd_bin_next;
            rd_gray_reg <= bin2gray(rd_bin_next);
        end
        if (rd_ready) rd_valid_reg <= mem_re;
        if (out_ready) begin
            out_valid_reg <= rd_valid_reg;
            out_reg <= mem_rd_reg;
        end
        if (m_rst_all) begin
            rd_bin_reg <= '0;
            rd_gray_reg <= '0;
            rd_valid_reg <= 1'b0;
            out_valid_reg <= 1'b0;
        end
    end

    assign m_axis_tvalid = out_valid_reg;
    assign {m_axis_tuser, m_axis_tlast, m_axis_tkeep, m_axis_tdata} = out_reg;

endmodule

`resetall
