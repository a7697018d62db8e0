`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_popcount testbench: every width the core uses and the tree's edges
 * (1, 6 and 7 bits: a leaf, the largest leaf, the smallest tree; 36 and 37:
 * the last two-level tree and the first three-level one; 64). Every input
 * of the small widths (12 bits), then random vectors with a random density (so full,
 * empty and nearly full words come up), each count checked against a
 * serial count. DATA_WIDTH does not apply (the module has none).
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int ROUNDS = 1500;
    integer errors = 0, seed = 1, checks = 0;

    logic [63:0] v = '0;
    logic [0:0]  c1;
    logic [2:0]  c6, c7;
    logic [4:0]  c16;
    logic [5:0]  c32, c36, c37;
    logic [6:0]  c64;
    rnic_popcount #(.N(1))  p1  (.bits(v[0:0]), .count(c1));
    rnic_popcount #(.N(6))  p6  (.bits(v[5:0]), .count(c6));
    rnic_popcount #(.N(7))  p7  (.bits(v[6:0]), .count(c7));
    rnic_popcount #(.N(16)) p16 (.bits(v[15:0]), .count(c16));
    rnic_popcount #(.N(32)) p32 (.bits(v[31:0]), .count(c32));
    rnic_popcount #(.N(36)) p36 (.bits(v[35:0]), .count(c36));
    rnic_popcount #(.N(37)) p37 (.bits(v[36:0]), .count(c37));
    rnic_popcount #(.N(64)) p64 (.bits(v), .count(c64));

    function automatic int ones(input logic [63:0] x, input int n);
        ones = 0;
        for (int i = 0; i < n; i++) ones = ones + int'(x[i]);
    endfunction

    task automatic check;
        #1;
        checks = checks + 1;
        if (int'(c1) != ones(v, 1) || int'(c6) != ones(v, 6) || int'(c7) != ones(v, 7)
            || int'(c16) != ones(v, 16) || int'(c32) != ones(v, 32) || int'(c36) != ones(v, 36)
            || int'(c37) != ones(v, 37) || int'(c64) != ones(v, 64)) begin
            if (errors < 10)
                $display("ERROR: %h: counts %0d %0d %0d %0d %0d %0d %0d %0d", v, c1, c6, c7, c16, c32, c36, c37, c64);
            errors = errors + 1;
        end
    endtask

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        // every 12-bit input (the leaves, the 7-bit tree whole)
        for (int x = 0; x < 4096; x++) begin
            v = 64'(x);
            check();
        end
        // random words, each bit set with a random probability
        repeat (ROUNDS) begin
            int p;
            p = $unsigned($random(seed)) % 17;
            for (int i = 0; i < 64; i++) v[i] = ($unsigned($random(seed)) % 16) < p;
            check();
        end
        v = '1;
        check();
        $display("%0d inputs checked", checks);
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
