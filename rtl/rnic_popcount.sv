`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * How many of N bits are set, as a compressor tree built for 6-input LUTs:
 * the bits in groups of six, each group's 3-bit count one LUT level; the
 * groups' counts bit by bit (their ones, twos and fours) counted again,
 * one LUT per bit while there are at most six groups; the three column
 * counts summed with their weights in gates. Up to 36 bits that is four to
 * five logic levels (a balanced tree of adders was about 2 * log2(N); a serial
 * count over the bits is a chain N long). Every sum is written as gates:
 * a '+' becomes a carry chain, which a count that feeds a decision in the
 * same cycle cannot afford.
 */
module rnic_popcount #(
    parameter int N = 16   // 1 or more
) (
    input  wire logic [N-1:0]             bits,
    output      logic [$clog2(N + 1)-1:0] count
);

    localparam int W = $clog2(N + 1);

    // a + b as gates, W bits
    function automatic logic [W-1:0] add_gates(input logic [W-1:0] a, input logic [W-1:0] b);
        logic c;
        c = 1'b0;
        for (int k = 0; k < W; k++) begin
            add_gates[k] = a[k] ^ b[k] ^ c;
            c = (a[k] & b[k]) | (c & (a[k] ^ b[k]));
        end
    endfunction

    if (N <= 6) begin : g_leaf
        // six inputs at most: every bit of the count is one LUT
        always_comb begin
            count = '0;
            for (int i = 0; i < N; i++) count = add_gates(count, W'(bits[i]));
        end
    end else begin : g_tree
        localparam int G = (N + 5) / 6;        // groups of six
        // (every count in W bits through add_gates: the bits a count of
        // six or of G cannot reach are constant and fold away)
        logic [2:0]   part [G];
        logic [W-1:0] acc;
        logic [G-1:0] col [3];
        logic [W-1:0] col_cnt [3];
        // each group's count (a group of six, the last one of what is left)
        always_comb begin
            acc = '0;
            for (int g = 0; g < G; g++) begin
                acc = '0;
                for (int i = 0; i < 6; i++)
                    if (6 * g + i < N) acc = add_gates(acc, W'(bits[6 * g + i]));
                part[g] = 3'(acc);
            end
            for (int j = 0; j < 3; j++)
                for (int g = 0; g < G; g++) col[j][g] = part[g][j];
        end
        // each column's count (up to six groups, one LUT per bit; past 36
        // bits a deeper cone)
        always_comb
            for (int j = 0; j < 3; j++) begin
                col_cnt[j] = '0;
                for (int g = 0; g < G; g++) col_cnt[j] = add_gates(col_cnt[j], W'(col[j][g]));
            end
        // ones + 2 * twos + 4 * fours
        always_comb
            count = add_gates(add_gates(col_cnt[0], col_cnt[1] << 1), col_cnt[2] << 2);
    end

endmodule

`resetall
