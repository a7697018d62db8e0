`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The port counters: COUNT 32-bit wrapping counters kept in a RAM, each
 * incremented by up to one amount per cycle.
 *
 * A register and an adder per 32-bit counter, and a COUNT-way read
 * multiplexer, cost more logic than the counters are worth on a small FPGA.
 * Here each counter is a narrow free-running count of its increments, wide
 * enough for COUNT cycles of them: NARROW_INC_W-bit increments (events) or,
 * for the counters in WIDE, WIDE_INC_W-bit ones (byte counts). A scanner
 * visits one counter per cycle, in turn, and adds the count's growth since
 * its last visit (modulo the count's width) to the counter's 32-bit total in
 * a RAM, which also keeps the count as last taken. It is a three-stage
 * pipeline (read, growth, sum and write) with one shared subtracter and
 * adder; a counter's word is written two cycles after it is read, long
 * before the scanner comes back to it (COUNT >= 3).
 *
 * A read (rd_addr, rd_data one cycle later) returns the counter's total in
 * the RAM: every increment made COUNT + 3 or more cycles before the read
 * is in it, none made after. The port's counters are read by software,
 * hundreds of cycles after the traffic they count. A word the scanner has
 * not written since reset (its first round) reads as zero.
 *
 * The RAM has one write port and two registered read ports (the scanner's
 * and the reader's): two memories, COUNT x (32 + count) bits and COUNT x 32,
 * in block RAM or LUT RAM as the fabric prefers.
 */
module rnic_stat_ram #(
    parameter int COUNT = 34,
    // the increment port's bits per counter (the lowest NARROW_INC_W or
    // WIDE_INC_W of them carry the increment; the rest must be zero)
    parameter int INC_W = 16,
    parameter int NARROW_INC_W = 2,
    parameter int WIDE_INC_W = 7,
    parameter logic [COUNT-1:0] WIDE = '0,
    parameter int AW = $clog2(COUNT)
) (
    input  wire logic                   clk,
    input  wire logic                   rst,

    input  wire logic [COUNT*INC_W-1:0] inc,

    input  wire logic [AW-1:0]          rd_addr,
    output      logic [31:0]            rd_data
);

    // a count's growth between two visits: at most COUNT cycles' increments
    localparam int NARROW_PW = $clog2(COUNT * ((1 << NARROW_INC_W) - 1) + 1);
    localparam int WIDE_PW = $clog2(COUNT * ((1 << WIDE_INC_W) - 1) + 1);
    localparam int PW = WIDE != '0 ? WIDE_PW : NARROW_PW;

    localparam logic [PW-1:0] NARROW_MASK = PW'((1 << NARROW_PW) - 1);

    initial begin
        if (COUNT < 3 || COUNT > (1 << AW) || NARROW_INC_W > INC_W || WIDE_INC_W > INC_W || PW > 32) begin
            $error("rnic_stat_ram: bad parameters (%m)");
            $finish;
        end
    end

    // each counter's own free-running count of its increments, as narrow as
    // COUNT cycles' increments allow (no clear, so no multiplexer in front
    // of its adder)
    logic [PW-1:0] cnt [COUNT];
    for (genvar i = 0; i < COUNT; i++) begin : g_cnt
        localparam int W = WIDE[i] ? WIDE_PW : NARROW_PW;
        localparam int IW = WIDE[i] ? WIDE_INC_W : NARROW_INC_W;
        logic [W-1:0] c_reg;
        always_ff @(posedge clk) begin
            c_reg <= c_reg + W'(inc[INC_W*i +: IW]);
            if (rst) c_reg <= '0;
        end
        assign cnt[i] = PW'(c_reg);
`ifndef __ICARUS__
`ifndef SYNTHESIS
        if (INC_W > IW) begin : g_chk
            always_ff @(posedge clk) begin
                if (!rst) assert (inc[INC_W*i + IW +: INC_W - IW] == '0)
                    else $error("rnic_stat_ram: counter %0d's increment is wider than %0d bits (%m)", i, IW);
            end
        end
`endif
`endif
    end

    // The scanner's RAM word: {the count as last taken, the 32-bit total}.
    //   1: the counter's word is read, its count taken
    //   2: the count's growth since the last visit (modulo its width)
    //   3: the total plus the growth written, with the count taken
    logic [PW+31:0] scan_mem [2**AW];
    logic [31:0]    read_mem [2**AW];
    logic [AW-1:0]  scan_reg;                // stage 1: the counter taken this cycle
    logic           first_round_reg;         // ... its word is the RAM's power-up contents
    logic [PW+31:0] s2_q;                    // stage 2: the counter's word
    logic [PW-1:0]  s2_cnt_reg;              // ... its count
    logic [AW-1:0]  s2_addr_reg;
    logic           s2_wide_reg, s2_first_reg, s2_valid_reg;
    logic [PW-1:0]  s3_grow_reg;             // stage 3: the growth
    logic [31:0]    s3_total_reg;
    logic [PW-1:0]  s3_cnt_reg;
    logic [AW-1:0]  s3_addr_reg;
    logic           s3_first_reg, s3_valid_reg;
    logic           zeroed_reg;              // every word was written since reset

    wire [PW-1:0]   s2_grow = s2_cnt_reg - (s2_first_reg ? PW'(0) : s2_q[PW+31:32]);
    wire [31:0]     s3_total = s3_total_reg + 32'(s3_grow_reg);

    always_ff @(posedge clk) begin
        s2_q <= scan_mem[scan_reg];
        s2_cnt_reg <= cnt[scan_reg];
        s2_wide_reg <= WIDE[scan_reg < AW'(COUNT) ? 32'(scan_reg) : 0];
        s2_addr_reg <= scan_reg;
        s2_first_reg <= first_round_reg;
        s2_valid_reg <= 1'b1;
        scan_reg <= scan_reg == AW'(COUNT - 1) ? '0 : scan_reg + 1'b1;
        if (scan_reg == AW'(COUNT - 1)) first_round_reg <= 1'b0;

        s3_grow_reg <= s2_grow & (s2_wide_reg ? {PW{1'b1}} : NARROW_MASK);
        s3_total_reg <= s2_first_reg ? 32'h0 : s2_q[31:0];
        s3_cnt_reg <= s2_cnt_reg;
        s3_addr_reg <= s2_addr_reg;
        s3_first_reg <= s2_first_reg;
        s3_valid_reg <= s2_valid_reg;

        if (s3_valid_reg) begin
            scan_mem[s3_addr_reg] <= {s3_cnt_reg, s3_total};
            read_mem[s3_addr_reg] <= s3_total;
            if (s3_first_reg && s3_addr_reg == AW'(COUNT - 1)) zeroed_reg <= 1'b1;
        end
        if (rst) begin
            scan_reg <= '0;
            first_round_reg <= 1'b1;
            s2_valid_reg <= 1'b0;
            s3_valid_reg <= 1'b0;
            zeroed_reg <= 1'b0;
        end
    end

    // the reader's copy; a word not yet written since reset reads as zero
    logic [31:0] read_q;
    logic        rd_zero_reg;
    always_ff @(posedge clk) begin
        read_q <= read_mem[rd_addr];
        // words below the one being written are written
        rd_zero_reg <= !zeroed_reg && (!s3_valid_reg || rd_addr >= s3_addr_reg);
    end
    assign rd_data = rd_zero_reg ? 32'h0 : read_q;

endmodule

`resetall
