`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_ack_coalesce testbench. A producer sends a stream of ACKs, NAKs,
 * RNR NAKs, READ responses and ATOMIC acknowledgements of four QPs (in runs
 * of one QP, as a peer answers a turn of one QP's requests); each entry's
 * PSN is its place in the stream, so the consumer can tell which came out.
 * Both sides stall at random (phases of mostly-on, mostly-off and always-on),
 * s_data is random garbage while s_valid is low. Checked:
 * - what comes out is the stream in order, less plain ACKs that a plain ACK
 *   of their QP right behind them replaced; every other entry comes out,
 *   field for field;
 * - a held output holds (valid, and the same entry unless it is a plain ACK,
 *   which only a later plain ACK of its QP may replace);
 * - m_coalesced counts the entries left out;
 * - the stalls make it coalesce, and with neither side stalling an entry
 *   goes through every cycle.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int CYCLES = 200000;
    localparam int QW = 6;
    localparam int N = CYCLES + 16;
    logic clk = 1'b0, rst = 1'b1;
    integer errors = 0, seed = 1, sent = 0, got = 0, dropped = 0, coalesced = 0, full_rate = 0;
    always #2 clk = !clk;

    // the stream, by place
    logic [QW-1:0] e_qpn [N];
    logic [7:0]    e_syn [N], e_opc [N];
    logic [15:0]   e_plen [N];
    logic [63:0]   e_orig [N];

    logic          s_valid = 1'b0, m_ready = 1'b0;
    logic [QW-1:0] s_qpn = '0;
    logic [23:0]   s_psn = '0;
    logic [7:0]    s_syndrome = '0, s_opcode = '0;
    logic [15:0]   s_plen = '0;
    logic [63:0]   s_orig = '0;
    wire           s_ready, m_valid, m_coalesced;
    wire  [QW-1:0] m_qpn;
    wire  [23:0]   m_psn;
    wire  [7:0]    m_syndrome, m_opcode;
    wire  [15:0]   m_plen;
    wire  [63:0]   m_orig;

    rnic_ack_coalesce #(.QPN_WIDTH(QW)) dut (
        .clk, .rst, .s_valid, .s_ready, .s_qpn, .s_psn, .s_syndrome, .s_opcode, .s_plen, .s_orig,
        .m_valid, .m_ready, .m_qpn, .m_psn, .m_syndrome, .m_opcode, .m_plen, .m_orig, .m_coalesced
    );

    function automatic logic plain(input logic [7:0] opc, input logic [7:0] syn);
        plain = opc == rnic_pkg::OP_ACKNOWLEDGE[7:0] && syn[7:5] == 3'(rnic_pkg::AETH_KIND_ACK);
    endfunction

    task automatic fail(input string msg);
        if (errors < 10) $display("ERROR: %s", msg);
        errors = errors + 1;
    endtask

    // entry i of the stream: a plain ACK most of the time, in runs of one QP
    logic [QW-1:0] run_qpn = '0;
    task automatic make(input integer i);
        integer k;
        if (($random(seed) & 7) == 0) run_qpn = QW'(($random(seed) & 32'h7fff_ffff) % 4);
        k = ($random(seed) & 32'h7fff_ffff) % 16;
        e_qpn[i] = run_qpn;
        e_plen[i] = 16'd0;
        e_orig[i] = {$random(seed), $random(seed)};
        e_opc[i] = rnic_pkg::OP_ACKNOWLEDGE[7:0];
        e_syn[i] = {3'(rnic_pkg::AETH_KIND_ACK), 5'($random(seed))};
        if (k == 12) e_syn[i] = {3'(rnic_pkg::AETH_KIND_NAK), 5'd0};
        if (k == 13) e_syn[i] = {3'(rnic_pkg::AETH_KIND_RNR), 5'($random(seed))};
        if (k == 14) begin
            e_opc[i] = rnic_pkg::OP_RDMA_READ_RESPONSE_ONLY[7:0];
            e_plen[i] = 16'($random(seed));
        end
        if (k == 15) e_opc[i] = rnic_pkg::OP_ATOMIC_ACKNOWLEDGE[7:0];
    endtask

    logic          held_valid = 1'b0;
    logic [23:0]   held_psn = '0;
    logic [QW-1:0] held_qpn = '0;
    logic          held_plain = 1'b0;
    integer        phase = 0, run = 0, k = 0;

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        for (k = 0; k < N; k = k + 1) make(k);
        repeat (4) @(posedge clk);
        #1 rst = 1'b0;
        repeat (CYCLES) begin
            @(posedge clk);
            // what was presented in the cycle before this edge
            if (held_valid) begin
                if (!m_valid) fail($sformatf("entry %0d withdrawn while held", held_psn));
                else if (!held_plain && m_psn != held_psn)
                    fail($sformatf("entry %0d (not a plain ACK) replaced by %0d while held", held_psn, m_psn));
                else if (held_plain && (m_qpn != held_qpn || !plain(m_opcode, m_syndrome) || m_psn < held_psn))
                    fail($sformatf("plain ACK %0d replaced by entry %0d of another kind or QP", held_psn, m_psn));
            end
            if (m_coalesced) coalesced = coalesced + 1;
            if (m_valid && m_ready) begin
                // entries got .. m_psn - 1 were left out: each a plain ACK
                // with a plain ACK of its QP right behind it
                if (m_psn < 24'(got) || m_psn >= 24'(sent)) begin
                    fail($sformatf("entry %0d out of order (next %0d, %0d sent)", m_psn, got, sent));
                end else begin
                    for (k = got; k < m_psn; k = k + 1)
                        if (!plain(e_opc[k], e_syn[k]) || !plain(e_opc[k + 1], e_syn[k + 1]) || e_qpn[k + 1] != e_qpn[k])
                            fail($sformatf("entry %0d left out (opcode %0h, next of QP %0d)", k, e_opc[k], e_qpn[k + 1]));
                    dropped = dropped + (m_psn - got);
                    if (m_qpn != e_qpn[m_psn] || m_syndrome != e_syn[m_psn] || m_opcode != e_opc[m_psn]
                        || m_plen != e_plen[m_psn] || m_orig != e_orig[m_psn])
                        fail($sformatf("entry %0d came out with other fields", m_psn));
                    got = m_psn + 1;
                end
                if (phase == 2 && run > 3) full_rate = full_rate + 1;
            end
            if (s_valid && s_ready) sent = sent + 1;
            // neither side stalling: an entry in and out every cycle
            run = phase == 2 ? run + 1 : 0;
            if (run > 3 && !(m_valid && m_ready && s_ready)) fail("a bubble with neither side stalling");
            held_valid = m_valid && !m_ready;
            held_psn = m_psn;
            held_qpn = m_qpn;
            held_plain = plain(m_opcode, m_syndrome);
            #1;
            if (($random(seed) & 1023) == 0) phase = ($random(seed) & 32'h7fff_ffff) % 3;
            // 0: both sides stall often, 1: the consumer stalls more, 2: no stalls
            s_valid = phase == 2 || ($random(seed) & 3) != 0;
            m_ready = phase == 2 || (phase == 1 ? ($random(seed) & 3) == 0 : ($random(seed) & 3) != 0);
            if (s_valid) begin
                s_qpn = e_qpn[sent];
                s_psn = 24'(sent);
                s_syndrome = e_syn[sent];
                s_opcode = e_opc[sent];
                s_plen = e_plen[sent];
                s_orig = e_orig[sent];
            end else begin
                {s_qpn, s_psn, s_syndrome, s_opcode, s_plen} = {$random(seed), $random(seed)};
                s_orig = {$random(seed), $random(seed)};
            end
        end
        // drain
        s_valid = 1'b0;
        m_ready = 1'b1;
        repeat (4) begin
            @(posedge clk);
            if (m_coalesced) coalesced = coalesced + 1;
            if (m_valid && m_ready) begin
                dropped = dropped + (m_psn - got);
                got = m_psn + 1;
            end
            #1;
        end
        if (got != sent) fail($sformatf("%0d entries in, the last out was %0d", sent, got - 1));
        if (coalesced != dropped) fail($sformatf("%0d entries left out, m_coalesced counted %0d", dropped, coalesced));
        if (dropped < 1000 || full_rate < 1000)
            fail($sformatf("%0d entries coalesced, %0d at full rate", dropped, full_rate));
        $display("%0d entries in, %0d left out for a later ACK of their QP, %0d at full rate",
                 sent, dropped, full_rate);
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
