`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_sub_split testbench: random operands whose low halves are often
 * equal or one apart (so the borrow out of bit 15 flips between cases)
 * and whose high halves are often equal (so the high half's - 1 wraps);
 * en random, the difference checked every cycle against a - b of the
 * operands of the last cycle en was high.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int CYCLES = 200000;
    logic clk = 1'b0;
    integer errors = 0, seed = 1, checks = 0, borrows = 0, wraps = 0;
    always #2 clk = !clk;

    logic        en = 1'b0;
    logic [31:0] a = '0, b = '0;
    logic [31:0] diff;
    logic [31:0] want = '0;
    logic        loaded = 1'b0;

    rnic_sub_split dut (.clk, .en, .a, .b, .diff);

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        repeat (CYCLES) begin
            @(posedge clk);
            if (loaded) begin
                checks = checks + 1;
                if (diff !== want) begin
                    if (errors < 10) $display("ERROR: a - b = %h, want %h", diff, want);
                    errors = errors + 1;
                end
            end
            if (en) begin
                want = a - b;
                if (a[15:0] < b[15:0]) borrows = borrows + 1;
                if (a[31:16] == b[31:16] && a[15:0] < b[15:0]) wraps = wraps + 1;
                loaded = 1'b1;
            end
            #1;
            en = ($random(seed) & 3) != 0;
            a = $random(seed);
            b = $random(seed);
            // DATA_WIDTH only varies the mix
            case (($random(seed) & 7) ^ (DATA_WIDTH > 64 ? 1 : 0))
                0: b[15:0] = a[15:0];
                1: b[15:0] = a[15:0] + 16'd1;
                2: b[15:0] = a[15:0] - 16'd1;
                3: b[31:16] = a[31:16];
                4: b = {a[31:16], a[15:0] + 16'd1};
                5: b = a;
                default: ;
            endcase
        end
        // both ways of the borrow, and the high half's wrap, were exercised
        if (borrows < 1000 || checks - borrows < 1000 || wraps < 100) begin
            $display("ERROR: %0d borrows, %0d wraps in %0d checks", borrows, wraps, checks);
            errors = errors + 1;
        end
        $display("%0d differences checked, %0d with a borrow out of bit 15, %0d wrapping the high half",
                 checks, borrows, wraps);
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
