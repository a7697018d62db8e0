`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_evt_queue testbench: five sources raise events at random (from
 * rarely to every cycle, so the queue fills and overflows), the control
 * processor pops at random. A reference queue of DEPTH words, taking each
 * cycle's events in source order two cycles after they are raised while it
 * had room before the cycle's pop and dropping the rest, gives every word
 * shown and the lost flag that must come with it. DATA_WIDTH does not apply (the module has none).
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int DEPTH = 16;
    localparam int CYCLES = 40000;
    integer errors = 0, seed = 1, pops = 0, drops = 0;

    logic clk = 1'b0, rst = 1'b1;
    always #2 clk = !clk;

    logic [4:0]  v;
    logic [23:0] n [5];
    logic [3:0]  rt;
    logic [31:0] word;
    logic        pop;

    rnic_evt_queue #(.DEPTH(DEPTH)) dut (
        .clk, .rst,
        .qp_err_valid(v[0]), .qp_err_qpn(n[0]),
        .cq_ovr_valid(v[1]), .cq_ovr_cqn(n[1]),
        .srq_lim_valid(v[2]), .srq_lim_srqn(n[2]),
        .last_wqe_valid(v[3]), .last_wqe_qpn(n[3]),
        .resp_err_valid(v[4]), .resp_err_type(rt), .resp_err_qpn(n[4]),
        .m_word(word), .m_pop(pop)
    );

    function automatic logic [31:0] evt(input logic [31:0] typ, input logic [23:0] num);
        evt = rnic_pkg::EVT_POP_VALID | (typ << rnic_pkg::EVT_POP_TYPE_SHIFT) | 32'(num);
    endfunction

    // the reference: the events of the cycle before last enter now
    logic [31:0] ref_q [$];
    logic [31:0] junk;
    logic        ref_lost = 1'b0;
    logic [31:0] in1 [5], in2 [5];   // a cycle's events, one and two cycles old
    int          n1 = 0, n2 = 0;

    initial begin
        int pv, pp;
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        v = '0;
        pop = 1'b0;
        rt = '0;
        for (int i = 0; i < 5; i++) n[i] = '0;
        repeat (4) @(posedge clk);
        rst <= 1'b0;
        pv = 50;
        pp = 50;
        for (int c = 0; c < CYCLES; c++) begin
            // density and pop rate change every 1000 cycles
            if (c % 1000 == 0) begin
                pv = $unsigned($random(seed)) % 101;
                pp = $unsigned($random(seed)) % 101;
            end
            @(negedge clk);
            // what the queue shows now
            if ((word & rnic_pkg::EVT_POP_VALID) != 0) begin
                if (ref_q.size() == 0 || word != (ref_q[0] | (ref_lost ? rnic_pkg::EVT_POP_LOST : 32'h0))) begin
                    if (errors < 10)
                        $display("ERROR: cycle %0d: word %h, want %h (lost %0d, %0d queued)", c, word,
                                 ref_q.size() ? ref_q[0] : 32'h0, ref_lost, ref_q.size());
                    errors = errors + 1;
                end
            end else if (word != 32'h0 || ref_q.size() != 0) begin
                if (errors < 10) $display("ERROR: cycle %0d: word %h, want %0d queued", c, word, ref_q.size());
                errors = errors + 1;
            end
            // drive this cycle
            pop = ($unsigned($random(seed)) % 100) < pp;
            for (int i = 0; i < 5; i++) begin
                v[i] = ($unsigned($random(seed)) % 100) < pv;
                n[i] = 24'($random(seed));
            end
            rt = 4'(rnic_pkg::EVT_QP_REQ_ERR + $unsigned($random(seed)) % 3);
            // the reference at the edge: the events of two cycles ago enter
            // while the queue had room before this edge (a slot popped is
            // free from the next cycle); the pop takes the head it showed;
            // a drop sets the lost flag even in the cycle of a pop
            @(posedge clk);
            begin
                int had;
                logic popped;
                had = ref_q.size();
                popped = pop && had != 0;
                for (int i = 0; i < n2; i++) begin
                    if (had + i < DEPTH) ref_q.push_back(in2[i]);
                    else drops = drops + 1;
                end
                if (popped) begin
                    junk = ref_q.pop_front();
                    ref_lost = 1'b0;
                    pops = pops + 1;
                end
                if (had + n2 > DEPTH) ref_lost = 1'b1;
            end
            n2 = n1;
            for (int i = 0; i < 5; i++) in2[i] = in1[i];
            n1 = 0;
            if (v[0]) begin in1[n1] = evt(rnic_pkg::EVT_QP_ERR, n[0]); n1 = n1 + 1; end
            if (v[1]) begin in1[n1] = evt(rnic_pkg::EVT_CQ_OVERRUN, n[1]); n1 = n1 + 1; end
            if (v[2]) begin in1[n1] = evt(rnic_pkg::EVT_SRQ_LIMIT, n[2]); n1 = n1 + 1; end
            if (v[3]) begin in1[n1] = evt(rnic_pkg::EVT_QP_LAST_WQE, n[3]); n1 = n1 + 1; end
            if (v[4]) begin in1[n1] = evt(32'(rt), n[4]); n1 = n1 + 1; end
        end
        if (pops < 1000 || drops < 100) begin
            $display("ERROR: too little exercised: %0d popped, %0d dropped", pops, drops);
            errors = errors + 1;
        end
        $display("rnic_evt_queue: %0d cycles, %0d events popped, %0d dropped, %0d errors", CYCLES, pops, drops, errors);
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL");
        $finish;
    end
endmodule

`resetall
