`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_req_hdrq testbench: random pushes (random valid), random pops
 * (random ready: back-pressure) and random kills on both ports, few QPs so
 * that kills hit often. Every cycle the outputs are checked against a model
 * queue: order and data, s_ready/m_valid from the fill level, and the dead
 * flag (a packet is dead iff a kill of its QP came in the cycle it was
 * pushed or while it was queued; one that leaves in the kill's cycle left
 * alive). The record width is the data-path width.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int W = DATA_WIDTH;
    localparam int DL = 3;
    localparam int QW = 3;
    localparam int CYCLES = 40000;

    logic          clk = 1'b0, rst = 1'b1;
    logic          s_valid = 1'b0, s_ready, m_valid, m_ready = 1'b0, m_dead;
    logic [W-1:0]  s_data = '0, m_data;
    logic [QW-1:0] s_qpn = '0, ka_qpn = '0, kb_qpn = '0;
    logic          ka_valid = 1'b0, kb_valid = 1'b0;
    integer        errors = 0, seed = 1, pushes = 0, pops = 0, dead_pops = 0, full_cycles = 0;

    // the model: records, their QPs and dead flags, head at index 0
    logic [W-1:0]  q_data[$];
    logic [QW-1:0] q_qpn[$];
    logic          q_dead[$];

    always #2 clk = !clk;

    rnic_req_hdrq #(.WIDTH(W), .DEPTH_LOG2(DL), .QPN_WIDTH(QW)) dut (
        .clk, .rst,
        .s_valid, .s_ready, .s_data, .s_qpn,
        .kill_a_valid(ka_valid), .kill_a_qpn(ka_qpn),
        .kill_b_valid(kb_valid), .kill_b_qpn(kb_qpn),
        .m_valid, .m_ready, .m_data, .m_dead
    );

    task automatic fail(input string msg);
        if (errors < 10) $display("TB FAIL: %0t: %s", $time, msg);
        errors = errors + 1;
    endtask

    function automatic integer rnd();
        return $unsigned($random(seed));
    endfunction

    function automatic logic [W-1:0] rand_word();
        logic [W-1:0] v;
        for (int i = 0; i < W; i += 32) v[i +: 32] = rnd();
        return v;
    endfunction

    function automatic logic killed(input logic [QW-1:0] qpn);
        return (ka_valid && qpn == ka_qpn) || (kb_valid && qpn == kb_qpn);
    endfunction

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        repeat (4) @(posedge clk);
        #1 rst = 1'b0;
        for (int c = 0; c < CYCLES; c++) begin
            // inputs for this cycle; the load pattern changes every 2000
            // cycles (a slow consumer fills the queue, a fast one drains it)
            s_valid = (rnd() % 100) < ((c / 2000) % 2 ? 30 : 80);
            s_data = rand_word();
            s_qpn = QW'(rnd());
            m_ready = (rnd() % 100) < ((c / 2000) % 2 ? 80 : 25);
            ka_valid = (rnd() % 100) < 3;
            ka_qpn = QW'(rnd());
            kb_valid = (rnd() % 100) < 2;
            kb_qpn = QW'(rnd());
            #0.5;
            if (s_ready !== (q_data.size() < 2 ** DL))
                fail($sformatf("s_ready %b with %0d queued", s_ready, q_data.size()));
            if (m_valid !== (q_data.size() != 0))
                fail($sformatf("m_valid %b with %0d queued", m_valid, q_data.size()));
            if (m_valid && q_data.size() != 0) begin
                if (m_data !== q_data[0]) fail($sformatf("head %h, want %h", m_data, q_data[0]));
                if (m_dead !== q_dead[0])
                    fail($sformatf("head of QP %0d dead %b, want %b", q_qpn[0], m_dead, q_dead[0]));
            end
            if (!s_ready) full_cycles++;
            @(posedge clk);
            // the model steps like the queue: pop, kill, push
            if (m_valid && m_ready && q_data.size() != 0) begin
                pops++;
                if (q_dead[0]) dead_pops++;
                q_data.delete(0);
                q_qpn.delete(0);
                q_dead.delete(0);
            end
            for (int i = 0; i < q_qpn.size(); i++) if (killed(q_qpn[i])) q_dead[i] = 1'b1;
            if (s_valid && s_ready) begin
                pushes++;
                q_data.push_back(s_data);
                q_qpn.push_back(s_qpn);
                q_dead.push_back(killed(s_qpn));
            end
            #1;
        end
        // enough of everything happened for the checks to mean something
        if (pushes < CYCLES / 4 || dead_pops < pops / 20 || dead_pops > pops - pops / 4 || full_cycles < 1000)
            fail($sformatf("weak run: %0d pushes, %0d pops (%0d dead), %0d cycles full",
                           pushes, pops, dead_pops, full_cycles));
        $display("rnic_req_hdrq: %0d pushes, %0d pops (%0d dead), %0d cycles full, %0d errors",
                 pushes, pops, dead_pops, full_cycles, errors);
        if (errors == 0) $display("TB PASS");
        $finish;
    end
endmodule
