`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_rr_arb testbench: arbiters of 1, 2, 3, 5 and 8 ports (DATA_WIDTH
 * only changes the seed's mix) under random requests and random takes;
 * every cycle each grant is checked against a reference: the first
 * requesting port searched from the one after the last taken grant,
 * wrapping, with its index, and `any`. A port that keeps requesting is
 * granted within PORTS takes.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int CYCLES = 25000;
    localparam int NA = 5;
    function automatic int size_of(input int a);
        case (a)
            0: size_of = 1;
            1: size_of = 2;
            2: size_of = 3;
            3: size_of = 5;
            default: size_of = 8;
        endcase
    endfunction
    logic clk = 1'b0, rst = 1'b1;
    integer errors = 0, seed = 1, takes = 0;
    always #2 clk = !clk;

    logic [7:0] req [NA];
    logic       take [NA];
    logic       any [NA];
    logic [7:0] grant_oh [NA];
    logic [2:0] grant [NA];
    integer     next [NA];
    integer     taken [NA];     // the port granted and taken at the last edge, or -1      // the reference: the port the search starts at
    integer     waited [NA][8]; // takes since port p began requesting

    for (genvar a = 0; a < NA; a++) begin : g_arb
        localparam int N = size_of(a);
        localparam int PW = (N > 1) ? $clog2(N) : 1;
        logic [N-1:0]  oh;
        logic [PW-1:0] g;
        rnic_rr_arb #(.PORTS(N)) dut (.clk, .rst, .req(req[a][N-1:0]), .take(take[a]), .any(any[a]),
                                      .grant_oh(oh), .grant(g));
        assign grant_oh[a] = 8'(oh);
        assign grant[a] = 3'(g);
    end

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        if (DATA_WIDTH > 64) seed = seed * 7919;
        for (int a = 0; a < NA; a++) begin
            req[a] = '0; take[a] = 1'b0; next[a] = 0; taken[a] = -1;
            for (int p = 0; p < 8; p++) waited[a][p] = 0;
        end
        repeat (3) @(posedge clk);
        #1 rst = 1'b0;
        repeat (CYCLES) begin
            // new inputs, then the combinational answer is checked
            for (int a = 0; a < NA; a++) begin
                for (int p = 0; p < size_of(a); p++)
                    if (!req[a][p] || taken[a] == p) req[a][p] = ($random(seed) & 3) == 0;
                take[a] = ($random(seed) & 1) != 0;
            end
            #1;
            for (int a = 0; a < NA; a++) begin
                integer want;
                want = -1;
                for (int k = 0; k < size_of(a); k++)
                    if (want < 0 && req[a][(next[a] + k) % size_of(a)]) want = (next[a] + k) % size_of(a);
                if (any[a] !== (want >= 0) || (want >= 0 && (grant[a] !== 3'(want) || grant_oh[a] !== 8'(1 << want)))
                    || (want < 0 && grant_oh[a] !== 8'd0)) begin
                    if (errors < 10)
                        $display("ERROR: %0d ports, req %b from %0d: grant %0d (%b), want %0d",
                                 size_of(a), req[a], next[a], grant[a], grant_oh[a], want);
                    errors = errors + 1;
                end
                if (take[a] && want >= 0) begin
                    takes = takes + 1;
                    next[a] = (want + 1) % size_of(a);
                    for (int p = 0; p < size_of(a); p++) begin
                        if (p == want) waited[a][p] = 0;
                        else if (req[a][p]) waited[a][p] = waited[a][p] + 1;
                        if (waited[a][p] >= size_of(a)) begin
                            if (errors < 10) $display("ERROR: %0d ports: port %0d passed over %0d times", size_of(a), p, waited[a][p]);
                            errors = errors + 1;
                        end
                    end
                end
                if (!take[a] || want < 0) take[a] = 1'b0;
                taken[a] = take[a] ? want : -1;
            end
            @(posedge clk);
            #1;
        end
        if (takes < CYCLES) begin
            $display("ERROR: only %0d grants taken", takes);
            errors = errors + 1;
        end
        $display("%0d grants taken and checked", takes);
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
