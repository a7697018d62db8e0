`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * How many of N bits are set, as a balanced tree of adders written as gates:
 * about 2 * log2(N) logic levels. A serial count over the bits is a chain N
 * long, and a '+' of 3 or more bits becomes a carry chain at every level of
 * the tree, so neither is used for counts that feed a decision in the same
 * cycle.
 */
module rnic_popcount #(
    parameter int N = 16   // 1 or more
) (
    input  wire logic [N-1:0]             bits,
    output      logic [$clog2(N + 1)-1:0] count
);

    localparam int W = $clog2(N + 1);

    function automatic logic [W-1:0] add_gates(input logic [W-1:0] a, input logic [W-1:0] b);
        logic c;
        c = 1'b0;
        for (int k = 0; k < W; k++) begin
            add_gates[k] = a[k] ^ b[k] ^ c;
            c = (a[k] & b[k]) | (c & (a[k] ^ b[k]));
        end
    endfunction

    logic [W-1:0] sum [2*N-1];   // a heap: node n adds 2n+1 and 2n+2; leaves N-1 ..
    always_comb begin
        for (int i = 0; i < N; i++) sum[N-1+i] = W'(bits[i]);
        for (int n = N - 2; n >= 0; n--) sum[n] = add_gates(sum[2*n+1], sum[2*n+2]);
        count = sum[0];
    end

endmodule

`resetall
