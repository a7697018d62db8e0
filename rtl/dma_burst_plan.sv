`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Burst planner of the DMA engines (dma_rd's AR, dma_wr's AW).
 *
 * Cuts each descriptor {addr, len} into INCR bursts of at most
 * BURST_BYTES = MAX_BURST_BEATS * KEEP_WIDTH bytes that end at the
 * descriptor's end or at a BURST_BYTES boundary (a power of two that divides
 * 4 KiB, so no burst crosses a 4 KiB page), one burst per cycle. A descriptor
 * of length 0 gives no burst.
 *
 * Everything is arranged so that no path is deeper than a few LUT levels on
 * an FPGA: the cuts are at fixed boundaries, so a burst's length is a field
 * of the descriptor's first or last byte address, never the least of the
 * bytes left, the room to the page and the largest burst (that choice and
 * its 64-bit add into the next address were 25 levels). Per descriptor, the
 * offset of its last byte from the start of its first block,
 * L = (addr mod BURST_BYTES) + len - 1, is made in two register stages (its
 * low 16 bits with their carry, then the high bits from len's high half,
 * that plus one and that minus one, made beside the low half) and queued;
 * the bursts after the first are L / BURST_BYTES in number, the last one is
 * L mod BURST_BYTES bytes into its block. Per burst only the low bits of
 * the block number advance (a carry chain as wide as the count of bursts);
 * the high bits change at most once per descriptor and take their + 1,
 * made in the descriptor's stages. The burst on m_* is registered.
 *
 * Latency: a descriptor taken at cycle 0 shows its first burst at cycle 4.
 * It takes up to QUEUE descriptors ahead of the one being cut (credits:
 * s_ready is a registered compare).
 */
module dma_burst_plan #(
    parameter int KEEP_WIDTH = 8,
    parameter int MAX_BURST_BEATS = 256,
    parameter int USER_W = 1,
    parameter int QUEUE = 8
) (
    input  wire logic                            clk,
    input  wire logic                            rst,

    input  wire logic [63:0]                     s_addr,
    input  wire logic [31:0]                     s_len,
    input  wire logic [USER_W-1:0]               s_user,
    input  wire logic                            s_valid,
    output      logic                            s_ready,

    output      logic [63:0]                     m_addr,        // bus-word aligned
    output      logic [7:0]                      m_len,         // AXI AxLEN: beats - 1
    output      logic [$clog2(KEEP_WIDTH)-1:0]   m_first_lane,  // first byte lane of a descriptor's first beat
    output      logic [$clog2(KEEP_WIDTH):0]     m_last_bytes,  // bytes of the burst's last beat that are the descriptor's
    output      logic                            m_first,       // the descriptor's first burst
    output      logic                            m_end,         // the descriptor's last burst
    output      logic [USER_W-1:0]               m_user,
    output      logic                            m_valid,
    input  wire logic                            m_ready
);

    localparam int OFF_W = $clog2(KEEP_WIDTH);
    localparam int BURST_BYTES = MAX_BURST_BEATS * KEEP_WIDTH;
    localparam int LB = $clog2(BURST_BYTES);      // block bits
    localparam int BLK_W = 64 - LB;               // block number bits
    localparam int BEAT_W = LB - OFF_W;           // beat-in-block bits (<= 8)
    localparam int CNT_W = 33 - LB;               // bursts after the first: L >> LB
    localparam int LO_W = CNT_W;                  // block number: low bits ...
    localparam int HI_W = BLK_W - LO_W;           // ... and high bits (31)
    localparam int Q_LOG2 = $clog2(QUEUE);
    localparam int CRED_W = $clog2(QUEUE + 3) + 1;

    initial begin
        if (KEEP_WIDTH < 8 || (KEEP_WIDTH & (KEEP_WIDTH - 1)) != 0 || MAX_BURST_BEATS < 1
            || (MAX_BURST_BEATS & (MAX_BURST_BEATS - 1)) != 0 || MAX_BURST_BEATS > 256
            || BURST_BYTES > 4096 || BURST_BYTES < 2 * KEEP_WIDTH || (QUEUE & (QUEUE - 1)) != 0 || QUEUE < 4) begin
            $error("dma_burst_plan: bursts must be a power of two of beats, at most 4 KiB (%m)");
            $finish;
        end
    end

    // ------------------------------------------------------------------
    // stage A: the descriptor as taken
    // ------------------------------------------------------------------
    logic              a_valid_reg;
    logic [63:0]       a_addr_reg;
    logic [31:0]       a_len_reg;
    logic [USER_W-1:0] a_user_reg;

    // ------------------------------------------------------------------
    // stage B: the low half of seg + len with its carry; the high half of
    // len, plus one and minus one
    // ------------------------------------------------------------------
    logic              b_valid_reg;
    logic [BLK_W-1:0]  b_blk_reg;
    logic [LB-1:0]     b_seg_reg;
    logic [16:0]       b_lo_reg;       // len[15:0] + seg
    logic [16:0]       b_hi_reg, b_hi_p1_reg, b_hi_m1_reg;
    logic [USER_W-1:0] b_user_reg;
    logic [16:0]       b_bh0_p1_reg;   // block's high bits + 1: low 16 with carry
    logic [HI_W-17:0]  b_bh1_p1_reg;   // ... and the rest + 1

    // stage C: L = b_lo - 1 on 16 bits, the high half chosen by the carry
    // of b_lo and the borrow of the minus one
    wire        c_z = b_lo_reg[15:0] == 16'd0;
    wire [15:0] c_l_lo = b_lo_reg[15:0] - 16'd1;
    wire [16:0] c_l_hi = (b_lo_reg[16] && !c_z) ? b_hi_p1_reg
                       : (!b_lo_reg[16] && c_z) ? b_hi_m1_reg : b_hi_reg;
    wire [32:0] c_l = {c_l_hi, c_l_lo};
    wire [HI_W-1:0] c_bh_p1 = {b_bh0_p1_reg[16] ? b_bh1_p1_reg : b_blk_reg[BLK_W-1 -: HI_W-16], b_bh0_p1_reg[15:0]};

    // the queue of planned descriptors (small: distributed RAM)
    localparam int QW = HI_W + BLK_W + LB + CNT_W + LB + USER_W;
    logic [QW-1:0]   q_mem [QUEUE];
    logic [Q_LOG2:0] q_wr_reg, q_rd_reg;
    wire             q_empty = q_wr_reg == q_rd_reg;
    wire [QW-1:0]    q_head = q_mem[q_rd_reg[Q_LOG2-1:0]];
    wire [HI_W-1:0]   h_hi_p1 = q_head[QW-1 -: HI_W];
    wire [BLK_W-1:0]  h_blk  = q_head[QW-HI_W-1 -: BLK_W];
    wire [LB-1:0]     h_seg  = q_head[QW-HI_W-BLK_W-1 -: LB];
    wire [CNT_W-1:0]  h_cnt  = q_head[USER_W+LB +: CNT_W];      // L >> LB
    wire [LB-1:0]     h_lend = q_head[USER_W +: LB];            // L mod BURST_BYTES
    wire [USER_W-1:0] h_user = q_head[0 +: USER_W];

    // credits: descriptors in stages A, B and the queue (and one taken
    // from the queue in the last cycle)
    logic [CRED_W-1:0] cred_reg;
    logic              take_q_reg;
    assign s_ready = cred_reg < CRED_W'(QUEUE);
    wire [1:0]         cred_dec = 2'(a_valid_reg && a_len_reg == 32'd0) + 2'(take_q_reg);
    wire [CRED_W-1:0]  cred_no_take = cred_reg - CRED_W'(cred_dec);
    wire [CRED_W-1:0]  cred_take = cred_reg + CRED_W'(1) - CRED_W'(cred_dec);

    // ------------------------------------------------------------------
    // the burst being offered
    // ------------------------------------------------------------------
    logic             i_valid_reg;
    logic [LO_W-1:0]  i_lo_reg;           // the block number, low bits
    logic [HI_W-1:0]  i_hi_reg, i_hi_p1_reg;  // ... high bits, and + 1
    logic [BEAT_W-1:0] i_beat_reg;        // first beat in its block (a first burst)
    logic [7:0]       i_len_reg;
    logic [OFF_W-1:0] i_lane_reg;
    logic [OFF_W:0]   i_lbytes_reg;
    logic             i_first_reg, i_end_reg;
    logic [USER_W-1:0] i_user_reg;
    logic [CNT_W-1:0] i_cnt_reg;          // bursts after this one
    logic             i_cnt1_reg;         // ... exactly one
    logic [BEAT_W-1:0] i_last_len_reg;    // AxLEN of the descriptor's last burst
    logic [OFF_W:0]   i_last_lbytes_reg;  // bytes of its last beat

    assign m_addr = {i_hi_reg, i_lo_reg, i_beat_reg, {OFF_W{1'b0}}};
    assign m_len = i_len_reg;
    assign m_first_lane = i_lane_reg;
    assign m_last_bytes = i_lbytes_reg;
    assign m_first = i_first_reg;
    assign m_end = i_end_reg;
    assign m_user = i_user_reg;
    assign m_valid = i_valid_reg;

    // block + 1 and count - 1. A descriptor spans at most 2^(32 - LB) + 1
    // blocks, so the high HI_W bits of its block number change at most once
    // while it is cut: their increment is made in the descriptor's stages B
    // and C (two halves) and taken whole when the low LO_W bits wrap. The
    // low bits' increment and the count's decrement are carry chains of
    // LO_W bits (a chain of all 52 bits was 13 levels; AND trees of the bits
    // below, left to the tools, became chains of LUTs, 10 and 11 levels).
    wire [LO_W:0]     lo_inc = {1'b0, i_lo_reg} + (LO_W+1)'(1);
    wire [CNT_W-1:0]  cnt_dec = i_cnt_reg - CNT_W'(1);
    // cnt - 1 == 1, registered with it: the burst after the next is the last
    wire cnt_is2 = i_cnt_reg == CNT_W'(2);

    // the head of the queue as a first burst
    wire              h_only = h_cnt == '0;
    wire [BEAT_W-1:0] h_seg_beat = h_seg[LB-1:OFF_W];
    wire [BEAT_W-1:0] h_lend_beat = h_lend[LB-1:OFF_W];
    wire [OFF_W:0]    h_last_lbytes = (OFF_W+1)'(h_lend[OFF_W-1:0]) + (OFF_W+1)'(1);
    wire [BEAT_W-1:0] h_first_len = ~h_seg_beat;                 // to the block's end
    wire [BEAT_W-1:0] h_only_len = h_lend_beat - h_seg_beat;     // to L

    wire fire = i_valid_reg && m_ready;
    wire take_next = (!i_valid_reg || (fire && i_end_reg)) && !q_empty;

    always_ff @(posedge clk) begin
        // A
        a_valid_reg <= s_valid && s_ready;
        if (s_valid && s_ready) begin
            a_addr_reg <= s_addr;
            a_len_reg <= s_len;
            a_user_reg <= s_user;
        end
        // B (a descriptor of length 0 ends here)
        b_valid_reg <= a_valid_reg && a_len_reg != 32'd0;
        b_blk_reg <= a_addr_reg[63:LB];
        b_seg_reg <= a_addr_reg[LB-1:0];
        b_lo_reg <= {1'b0, a_len_reg[15:0]} + 17'(a_addr_reg[LB-1:0]);
        b_hi_reg <= {1'b0, a_len_reg[31:16]};
        b_hi_p1_reg <= {1'b0, a_len_reg[31:16]} + 17'd1;
        b_hi_m1_reg <= {1'b0, a_len_reg[31:16] - 16'd1};
        b_user_reg <= a_user_reg;
        b_bh0_p1_reg <= {1'b0, a_addr_reg[LB+LO_W +: 16]} + 17'd1;
        b_bh1_p1_reg <= a_addr_reg[63 -: HI_W-16] + (HI_W-16)'(1);
        // C: into the queue
        if (b_valid_reg) begin
            q_mem[q_wr_reg[Q_LOG2-1:0]] <= {c_bh_p1, b_blk_reg, b_seg_reg, c_l[32:LB], c_l[LB-1:0], b_user_reg};
            q_wr_reg <= q_wr_reg + 1'b1;
        end
        // a credit comes back a cycle after its descriptor is taken (the
        // take depends on m_ready: registered, it is not on that path)
        // take, a zero-length descriptor's drop and a returned credit; both
        // sums are formed from registers and the producer's valid (deep in
        // its own logic) only selects between them
        take_q_reg <= take_next;
        cred_reg <= (s_valid && s_ready) ? cred_take : cred_no_take;

        // the burst offered
        if (fire && !i_end_reg) begin
            // the next block, a middle burst or the last
            i_lo_reg <= lo_inc[LO_W-1:0];
            if (lo_inc[LO_W]) i_hi_reg <= i_hi_p1_reg;
            i_beat_reg <= '0;
            i_lane_reg <= '0;
            i_first_reg <= 1'b0;
            i_cnt_reg <= cnt_dec;
            i_cnt1_reg <= cnt_is2;
            i_end_reg <= i_cnt1_reg;
            i_len_reg <= i_cnt1_reg ? 8'(i_last_len_reg) : 8'(MAX_BURST_BEATS - 1);
            i_lbytes_reg <= i_cnt1_reg ? i_last_lbytes_reg : (OFF_W+1)'(KEEP_WIDTH);
        end else if (take_next) begin
            q_rd_reg <= q_rd_reg + 1'b1;
            i_valid_reg <= 1'b1;
            i_lo_reg <= h_blk[LO_W-1:0];
            i_hi_reg <= h_blk[BLK_W-1 -: HI_W];
            i_hi_p1_reg <= h_hi_p1;
            i_beat_reg <= h_seg_beat;
            i_lane_reg <= h_seg[OFF_W-1:0];
            i_first_reg <= 1'b1;
            i_user_reg <= h_user;
            i_cnt_reg <= h_cnt;
            i_cnt1_reg <= h_cnt == CNT_W'(1);
            i_end_reg <= h_only;
            // an only burst ends at L, a first one at its block's end
            i_len_reg <= h_only ? 8'(h_only_len) : 8'(h_first_len);
            i_lbytes_reg <= h_only ? h_last_lbytes : (OFF_W+1)'(KEEP_WIDTH);
            i_last_len_reg <= h_lend_beat;
            i_last_lbytes_reg <= h_last_lbytes;
        end else if (fire) begin
            i_valid_reg <= 1'b0;
        end

        if (rst) begin
            a_valid_reg <= 1'b0;
            b_valid_reg <= 1'b0;
            q_wr_reg <= '0;
            q_rd_reg <= '0;
            cred_reg <= '0;
            take_q_reg <= 1'b0;
            i_valid_reg <= 1'b0;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    always_ff @(posedge clk) begin
        if (!rst) begin
            // the credits keep the queue from overflowing
            assert (q_wr_reg - q_rd_reg <= (Q_LOG2+1)'(QUEUE));
            // a burst stays inside its block
            if (i_valid_reg)
                assert (32'(i_beat_reg) + 32'(i_len_reg) < MAX_BURST_BEATS);
        end
    end
`endif
`endif

endmodule

`resetall
