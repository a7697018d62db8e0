`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_rx_pause testbench: the pause request's thresholds to the byte, the
 * stall limit to the cycle, the hold-off until the FIFO drains to XON, the
 * enable and "no limit"; then a random walk of the FIFO level and the drain
 * with the rules checked every cycle against what the inputs did.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int LW = 16;

    logic          clk = 1'b0, rst = 1'b1;
    logic          cfg_en = 1'b1;
    logic [31:0]   cfg_xoff = 32'd16384, cfg_xon = 32'd8192, cfg_stall = 32'd100;
    logic [LW-1:0] level = '0;
    logic          drain = 1'b0;
    logic          pause_req, stat_rise, stat_stall;
    integer        errors = 0, seed = 1, n_rise = 0, n_stall = 0;
    integer        target = 0;

    always #2 clk = !clk;

    rnic_rx_pause #(.LEVEL_WIDTH(LW)) dut (
        .clk, .rst, .cfg_en, .cfg_xoff, .cfg_xon, .cfg_stall,
        .fifo_level_bytes(level), .fifo_drain(drain),
        .pause_req, .stat_rise, .stat_stall
    );

    task automatic fail(input string msg);
        if (errors < 10) $display("TB FAIL: %0t: %s", $time, msg);
        errors = errors + 1;
    endtask

    task automatic step(input integer n);
        repeat (n) @(posedge clk);
        #1;
    endtask

    task automatic expect_req(input logic want, input string what);
        if (pause_req !== want) fail($sformatf("%s: pause_req %b, want %b (level %0d)", what, pause_req, want, level));
    endtask

    always @(posedge clk) begin
        if (!rst) begin
            if (stat_rise) n_rise = n_rise + 1;
            if (stat_stall) n_stall = n_stall + 1;
        end
    end

    // rules checked every cycle of the random phase
    logic   checking = 1'b0;
    logic   prev_req = 1'b0, held_off = 1'b0;
    integer idle = 0;
    always @(posedge clk) begin
        if (!rst && checking) begin
            if (pause_req && !prev_req && (32'(level) < cfg_xoff || !cfg_en))
                fail($sformatf("rose at level %0d below XOFF %0d (or disabled)", level, cfg_xoff));
            if (!pause_req && prev_req && 32'(level) > cfg_xon && cfg_en && !(cfg_stall != 0 && idle >= cfg_stall))
                fail($sformatf("fell at level %0d above XON %0d before the stall limit (idle %0d)", level, cfg_xon, idle));
            if (pause_req && !prev_req && held_off)
                fail("rose again after a stall before the FIFO drained to XON");
            if (stat_stall) held_off = 1'b1;
            else if (32'(level) <= cfg_xon) held_off = 1'b0;
            if (!pause_req || drain) idle = 0;
            else idle = idle + 1;
            if (cfg_stall != 0 && idle > cfg_stall + 1) fail($sformatf("held %0d cycles with no drain", idle));
            prev_req = pause_req;
        end
    end

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        step(4);
        rst = 1'b0;
        step(2);

        // thresholds: rises at XOFF, not a byte below; falls at XON, not above
        level = LW'(16383); step(3); expect_req(1'b0, "one byte below XOFF");
        level = LW'(16384); step(1); expect_req(1'b1, "at XOFF");
        drain = 1'b1;
        level = LW'(8193); step(3); expect_req(1'b1, "one byte above XON");
        level = LW'(8192); step(1); expect_req(1'b0, "at XON");
        if (n_rise != 1 || n_stall != 0) fail($sformatf("rises %0d stalls %0d, want 1 0", n_rise, n_stall));

        // stall: no beat leaves for cfg_stall cycles with the request up
        drain = 1'b0;
        level = LW'(20000); step(1); expect_req(1'b1, "second rise");
        step(99); expect_req(1'b1, "99 cycles without a beat");
        step(1); expect_req(1'b1, "the stall cycle");
        step(1); expect_req(1'b0, "after the stall limit");
        if (n_stall != 1) fail($sformatf("stalls %0d, want 1", n_stall));
        // held off while the level stays above XON, even above XOFF
        level = LW'(30000); step(50); expect_req(1'b0, "held off above XOFF");
        level = LW'(8192); step(2); expect_req(1'b0, "drained to XON");
        level = LW'(16384); step(1); expect_req(1'b1, "rises again after the drain");
        // a beat now and then keeps the request up
        repeat (10) begin
            step(90); drain = 1'b1; step(1); drain = 1'b0;
        end
        expect_req(1'b1, "drained slowly: no stall");
        if (n_stall != 1) fail($sformatf("stalls %0d after slow drain, want 1", n_stall));
        // no limit
        cfg_stall = 0; step(5000); expect_req(1'b1, "no stall limit");
        // disabled: falls at once and never rises
        cfg_en = 1'b0; step(1); expect_req(1'b0, "disabled");
        level = LW'(40000); step(20); expect_req(1'b0, "disabled, FIFO full");
        cfg_en = 1'b1; step(1); expect_req(1'b1, "enabled again");
        level = '0; step(2);

        // random walk: level, drain and the limits
        checking = 1'b1;
        cfg_stall = 32'd64;
        for (int i = 0; i < 200000; i++) begin
            @(negedge clk);
            // the level heads for a new random target every 1000 cycles
            if (i % 1000 == 0) target = $unsigned($random(seed)) % 40000;
            if (32'(level) < target) level = LW'(32'(level) + 1 + $unsigned($random(seed)) % 64);
            else if (32'(level) > target + 64) level = LW'(32'(level) - 1 - $unsigned($random(seed)) % 64);
            // mostly draining; in every other stretch of 20000 cycles a beat is rare
            drain = ($unsigned($random(seed)) % 100) < (i / 20000 % 2 == 0 ? 30 : 1);
            if (i % 50000 == 49999) cfg_stall = cfg_stall == 0 ? 32'd64 : 32'd0;
        end
        checking = 1'b0;
        if (n_stall < 3) fail($sformatf("the random walk gave only %0d stalls", n_stall));
        if (n_rise < 20) fail($sformatf("the random walk gave only %0d rises", n_rise));
        $display("rnic_rx_pause tb: %0d rises, %0d stalls", n_rise, n_stall);
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end

    wire unused_width = ^DATA_WIDTH;
endmodule

`resetall
