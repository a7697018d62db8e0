`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_add_split testbench: both operand widths (b of 32 and of 64 bits),
 * random operands with runs of ones placed across the pieces' boundaries
 * (bits 21/22 and 42/43), so every carry between pieces and out of the top
 * is taken; en random, the sum checked every cycle against a + b of the
 * operands of the last cycle en was high.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int CYCLES = 200000;
    logic clk = 1'b0;
    integer errors = 0, seed = 1, checks = 0, carries = 0;
    always #2 clk = !clk;

    logic        en = 1'b0;
    logic [63:0] a = '0, b64 = '0;
    wire  [31:0] b32 = b64[31:0];
    logic [63:0] sum32, sum64;
    logic [63:0] want32 = '0, want64 = '0;
    logic        loaded = 1'b0;

    rnic_add_split #(.B_WIDTH(32)) dut32 (.clk, .en, .a, .b(b32), .sum(sum32));
    rnic_add_split #(.B_WIDTH(64)) dut64 (.clk, .en, .a, .b(b64), .sum(sum64));

    // a value with a run of ones ending at one of the piece boundaries, or
    // all random (DATA_WIDTH only varies the mix between the two runs)
    function automatic logic [63:0] pick(input integer r0, input integer r1, input integer r2);
        logic [63:0] v;
        int at;
        v = {32'(r0), 32'(r1)};
        case (r2 & 7)
            0: at = 21;
            1: at = 42;
            2: at = 63;
            3: at = 31;
            default: at = -1;
        endcase
        if (at >= 0) v = v | ((64'd1 << (at + 1)) - (64'd1 << (at - (r2 >>> 3 & 15))));
        if (DATA_WIDTH > 64 && (r2 & 64) != 0) v = ~v;
        pick = v;
    endfunction

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        repeat (CYCLES) begin
            @(posedge clk);
            if (loaded) begin
                checks = checks + 1;
                if (sum32 !== want32 || sum64 !== want64) begin
                    if (errors < 10)
                        $display("ERROR: a + b: 32-bit b %h (want %h), 64-bit b %h (want %h)",
                                 sum32, want32, sum64, want64);
                    errors = errors + 1;
                end
            end
            if (en) begin
                want32 = a + 64'(b64[31:0]);
                want64 = a + b64;
                if ({1'b0, a[42:0]} + {1'b0, b64[42:0]} >= 44'h800_0000_0000) carries = carries + 1;
                loaded = 1'b1;
            end
            #1;
            en = ($random(seed) & 3) != 0;
            a = pick($random(seed), $random(seed), $random(seed));
            b64 = pick($random(seed), $random(seed), $random(seed));
        end
        // the carry out of bits 42:0 must have been exercised
        if (carries < 1000) begin
            $display("ERROR: only %0d carries into bit 43", carries);
            errors = errors + 1;
        end
        $display("%0d sums checked, %0d with a carry into bit 43", checks, carries);
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
