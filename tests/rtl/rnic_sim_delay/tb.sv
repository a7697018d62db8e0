`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_sim_delay testbench (the IP models' pipeline latency), at LAT 1 and
 * LAT 7: a counting producer and a consumer, each with random stalls
 * (phases of mostly-on, consumer mostly-off and always-on). Checked: every
 * item comes out once and in order, never before LAT cycles after it was
 * accepted, offered as soon as it has been inside LAT cycles (so exactly
 * LAT cycles after it went in when nothing waits ahead of it), out_data held while out_valid waits, and
 * in_ready falls only with LAT + 1 or more items inside.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int CYCLES = 100000;
    localparam int W = 32;
    logic clk = 1'b0, rst_n = 1'b0;
    integer errors = 0, seed = 1, cyc = 0, phase = 0;
    always #2 clk = !clk;
    always @(posedge clk) cyc <= cyc + 1;   // after the edge: the checks read the cycle that ended

    // one harness per latency
    logic in_valid = 1'b0, out_ready = 1'b0;

    task automatic fail(input string what);
        if (errors < 10) $display("ERROR: %s", what);
        errors = errors + 1;
    endtask

    genvar g;
    for (g = 0; g < 2; g++) begin : h
        localparam int LAT = g == 0 ? 1 : 7;
        wire          in_ready, out_valid;
        wire  [W-1:0] out_data;
        integer       sent = 0, got = 0, exact = 0, full_rate = 0, filled = 0;
        integer       taken_at [0:1023];
        logic         held_valid = 1'b0;
        logic [W-1:0] held_data = '0;

        rnic_sim_delay #(.W(W), .LAT(LAT)) dut (
            .clk, .rst_n, .in_valid, .in_ready, .in_data(W'(sent)),
            .out_valid, .out_ready, .out_data);

        always @(posedge clk) if (rst_n) begin
            // what was presented in the cycle before this edge
            if (held_valid && !(out_valid && out_data == held_data))
                fail($sformatf("LAT %0d: output changed while held (%h)", LAT, held_data));
            if (out_valid && out_ready) begin
                if (out_data !== W'(got)) fail($sformatf("LAT %0d: item %0d came out as %h", LAT, got, out_data));
                if (cyc - taken_at[got % 1024] < LAT)
                    fail($sformatf("LAT %0d: item %0d out %0d cycles after it went in", LAT, got,
                                   cyc - taken_at[got % 1024]));
                if (cyc - taken_at[got % 1024] == LAT) exact = exact + 1;
                got = got + 1;
            end
            // an item inside for LAT cycles or more is offered
            if (sent - got > 0 && cyc - taken_at[got % 1024] >= LAT && !out_valid)
                fail($sformatf("LAT %0d: item %0d inside for %0d cycles and not offered", LAT, got,
                               cyc - taken_at[got % 1024]));
            if (phase == 2 && out_valid && out_ready) full_rate = full_rate + 1;
            if (in_valid && !in_ready && sent - got < LAT + 1)
                fail($sformatf("LAT %0d: not ready with %0d items inside", LAT, sent - got));
            if (!in_ready) filled = filled + 1;
            if (in_valid && in_ready) begin
                taken_at[sent % 1024] = cyc;
                sent <= sent + 1;   // after the edge: in_data is sampled at it
            end
            held_valid = out_valid && !out_ready;
            held_data = out_data;
        end
    end

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        repeat (4) @(posedge clk);
        #1 rst_n = 1'b1;
        repeat (CYCLES) begin
            @(posedge clk);
            #1;
            if (($random(seed) & 1023) == 0) phase = ($random(seed) & 32'h7fff_ffff) % 3;
            // 0: both sides stall often, 1: the consumer stalls more, 2: no stalls
            in_valid = phase == 2 || ($random(seed) & 3) != 0;
            out_ready = phase == 2 || (phase == 1 ? ($random(seed) & 3) == 0 : ($random(seed) & 3) != 0);
        end
        if (h[0].got < CYCLES / 4 || h[1].got < CYCLES / 4 || h[1].sent - h[1].got > 16) begin
            $display("ERROR: %0d/%0d items in, %0d/%0d out", h[0].sent, h[1].sent, h[0].got, h[1].got);
            errors = errors + 1;
        end
        if (h[1].exact < 1000 || h[1].full_rate < 1000 || h[1].filled < 100 || h[0].filled < 100) begin
            $display("ERROR: LAT 7: %0d items out exactly on time, %0d at full rate, full in %0d cycles (LAT 1: %0d)",
                     h[1].exact, h[1].full_rate, h[1].filled, h[0].filled);
            errors = errors + 1;
        end
        $display("LAT 1: %0d items in order, %0d on time; LAT 7: %0d in order, %0d on time, %0d at full rate, full in %0d cycles",
                 h[0].got, h[0].exact, h[1].got, h[1].exact, h[1].full_rate, h[1].filled);
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
