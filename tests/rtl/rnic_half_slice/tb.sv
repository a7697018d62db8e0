`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_half_slice testbench: a counting producer and a consumer, each with
 * random stalls (phases of mostly-on, mostly-off and always-on), s_data
 * random garbage while s_valid is low. Checked: every word comes out once
 * and in order, m_data holds while m_valid waits for m_ready, a word every
 * second cycle when neither side stalls (the slice's rate), never two
 * transfers in on consecutive cycles, and s_ready is the slice's emptiness.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int CYCLES = 200000;
    localparam int W = DATA_WIDTH;
    logic clk = 1'b0, rst = 1'b1;
    integer errors = 0, seed = 1, sent = 0, got = 0, half_rate = 0;
    always #2 clk = !clk;

    logic         s_valid = 1'b0, m_ready = 1'b0;
    logic [W-1:0] s_data = '0;
    wire          s_ready, m_valid;
    wire  [W-1:0] m_data;
    logic         held_valid = 1'b0, took_last = 1'b0;
    logic [W-1:0] held_data = '0;
    integer       phase = 0, run = 0, since_out = 0;

    rnic_half_slice #(.WIDTH(W)) dut (.clk, .rst, .s_valid, .s_ready, .s_data, .m_valid, .m_ready, .m_data);

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        repeat (4) @(posedge clk);
        #1 rst = 1'b0;
        repeat (CYCLES) begin
            @(posedge clk);
            // what was presented in the cycle before this edge
            if (held_valid && !(m_valid && m_data == held_data)) begin
                if (errors < 10) $display("ERROR: output changed while held (%h)", held_data);
                errors = errors + 1;
            end
            if (s_ready == m_valid) begin
                if (errors < 10) $display("ERROR: s_ready %b with m_valid %b", s_ready, m_valid);
                errors = errors + 1;
            end
            if (m_valid && m_ready) begin
                if (m_data !== W'(got)) begin
                    if (errors < 10) $display("ERROR: word %0d came out as %h", got, m_data);
                    errors = errors + 1;
                end
                got = got + 1;
                if (phase == 2 && since_out == 2) half_rate = half_rate + 1;
                since_out = 0;
            end
            since_out = since_out + 1;
            if (s_valid && s_ready) begin
                if (took_last) begin
                    if (errors < 10) $display("ERROR: transfers in on consecutive cycles");
                    errors = errors + 1;
                end
                sent = sent + 1;
            end
            took_last = s_valid && s_ready;
            // neither side stalling: a word every second cycle
            run = phase == 2 ? run + 1 : 0;
            if (run > 3 && since_out > 2) begin
                if (errors < 10) $display("ERROR: a word out took more than two cycles with neither side stalling");
                errors = errors + 1;
            end
            held_valid = m_valid && !m_ready;
            held_data = m_data;
            #1;
            if (($random(seed) & 1023) == 0) phase = ($random(seed) & 32'h7fff_ffff) % 3;
            // 0: both sides stall often, 1: the consumer stalls more, 2: no stalls
            s_valid = phase == 2 || ($random(seed) & 3) != 0;
            m_ready = phase == 2 || (phase == 1 ? ($random(seed) & 3) == 0 : ($random(seed) & 3) != 0);
            s_data = s_valid ? W'(sent) : {W{$random(seed)}};
        end
        if (sent - got > 1 || got < CYCLES / 8) begin
            $display("ERROR: %0d words in, %0d out", sent, got);
            errors = errors + 1;
        end
        if (half_rate < 1000) begin
            $display("ERROR: %0d words at the slice's full rate", half_rate);
            errors = errors + 1;
        end
        $display("%0d words in order, %0d at one every second cycle", got, half_rate);
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
