`timescale 1ns / 1ps
`default_nettype none

/*
 * Register slice testbench: rnic_skid (HALF = 0) or rnic_half_slice
 * (HALF = 1). A counting producer and a consumer, each with random stalls
 * (phases of mostly-on, mostly-off and always-on), s_data random garbage
 * while s_valid is low. Checked: every word comes out once and in order,
 * m_data holds while m_valid waits for m_ready, and when neither side
 * stalls a word every cycle (rnic_skid; its skid register is exercised) or
 * every second cycle (rnic_half_slice: never two words in on consecutive
 * cycles, s_ready the slice's emptiness).
 */
module tb #(
    parameter int DATA_WIDTH = 64,
    parameter int HALF = 0
);
    localparam int CYCLES = 200000;
    localparam int W = 32;
    logic clk = 1'b0, rst = 1'b1;
    integer errors = 0, seed = 1, sent = 0, got = 0, skids = 0, full_rate = 0;
    always #2 clk = !clk;

    logic         s_valid = 1'b0, m_ready = 1'b0;
    logic [W-1:0] s_data = '0;
    wire          s_ready, m_valid;
    wire  [W-1:0] m_data;
    logic         held_valid = 1'b0, took_last = 1'b0;
    logic [W-1:0] held_data = '0;
    integer       phase = 0, run = 0, since_out = 0;

    if (HALF != 0) begin : g_half
        rnic_half_slice #(.WIDTH(W)) dut (.clk, .rst, .s_valid, .s_ready, .s_data, .m_valid, .m_ready, .m_data);
    end else begin : g_skid
        rnic_skid #(.WIDTH(W)) dut (.clk, .rst, .s_valid, .s_ready, .s_data, .m_valid, .m_ready, .m_data);
        always @(posedge clk) if (dut.sk_valid_reg) skids = skids + 1;
    end

    task automatic fail(input string msg);
        if (errors < 10) $display("ERROR: %s", msg);
        errors = errors + 1;
    endtask

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        repeat (4) @(posedge clk);
        #1 rst = 1'b0;
        repeat (CYCLES) begin
            @(posedge clk);
            // what was presented in the cycle before this edge
            if (held_valid && !(m_valid && m_data == held_data)) fail($sformatf("output changed while held (%h)", held_data));
            if (m_valid && m_ready) begin
                if (m_data !== W'(got)) fail($sformatf("word %0d came out as %h", got, m_data));
                got = got + 1;
                // a word at the slice's full rate: the last one 1 (or 2) cycles ago
                if (phase == 2 && since_out == (HALF != 0 ? 2 : 1)) full_rate = full_rate + 1;
                since_out = 0;
            end
            since_out = since_out + 1;
            if (s_valid && s_ready) sent = sent + 1;
            if (HALF != 0) begin
                if (s_valid && s_ready && took_last) fail("two words in on consecutive cycles");
                if (s_ready == m_valid) fail("s_ready is not the slice's emptiness");
            end
            took_last = s_valid && s_ready;
            // neither side stalling: a word every cycle (every second one)
            run = phase == 2 ? run + 1 : 0;
            if (run > 3 && (HALF != 0 ? since_out > 2 : !(m_valid && m_ready && s_ready)))
                fail("a bubble with neither side stalling");
            held_valid = m_valid && !m_ready;
            held_data = m_data;
            #1;
            if (($random(seed) & 1023) == 0) phase = ($random(seed) & 32'h7fff_ffff) % 3;
            // 0: both sides stall often, 1: the consumer stalls more, 2: no stalls
            s_valid = phase == 2 || ($random(seed) & 3) != 0;
            m_ready = phase == 2 || (phase == 1 ? ($random(seed) & 3) == 0 : ($random(seed) & 3) != 0);
            s_data = s_valid ? W'(sent) : $random(seed);
        end
        if (sent - got > (HALF != 0 ? 1 : 2) || got < CYCLES / 8) begin
            $display("ERROR: %0d words in, %0d out", sent, got);
            errors = errors + 1;
        end
        if ((HALF == 0 && skids < 1000) || full_rate < 1000) begin
            $display("ERROR: skid register used in %0d cycles, %0d words at full rate", skids, full_rate);
            errors = errors + 1;
        end
        $display("%0d words in order, skid register full in %0d cycles, %0d words at the slice's full rate",
                 got, skids, full_rate);
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
