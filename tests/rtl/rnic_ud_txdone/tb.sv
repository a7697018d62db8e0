`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_ud_txdone testbench: packet descriptors taken at random (UD ones
 * with a DETH, random source QP and PSN, and others), taken only while the
 * block has room; frames leave at random, never before their descriptor;
 * the UD reports are taken with random ready. Every report must be the next
 * UD descriptor's (QP, PSN) in order, none before its frame has left (a
 * sent UD head moves into the output register, from which it is reported,
 * when that is free or being taken), and room must fall exactly when DEPTH
 * descriptors are held (taken, and not yet moved out or forgotten) and come
 * back no later than the cycle after an entry is freed.
 * DATA_WIDTH plays no part here: the descriptor is the same record at every
 * width.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int HB = rnic_hdr_pkg::HDR_BITS;
    localparam int QW = 10;
    localparam int DL = 3;
    localparam int N = 3000;

    logic clk = 1'b0, rst = 1'b1;
    always #2 clk = !clk;

    logic          take = 1'b0, room, done = 1'b0, m_valid, m_ready = 1'b0;
    logic [HB-1:0] hdr = '0;
    logic [QW-1:0] m_qpn;
    logic [23:0]   m_psn;
    integer        errors = 0, seed = 1;

    rnic_ud_txdone #(.QPN_WIDTH(QW), .DEPTH_LOG2(DL)) dut (
        .clk, .rst, .s_hdr_take(take), .s_hdr(hdr), .room, .s_frame_done(done),
        .m_valid, .m_ready, .m_qpn, .m_psn
    );

    function automatic integer rnd();
        return $random(seed) & 32'h7fffffff;
    endfunction

    task automatic fail(input string msg);
        if (errors < 10) $display("TB FAIL: %0t: %s", $time, msg);
        errors = errors + 1;
    endtask

    // descriptors taken: ud flag, QP, PSN; frames sent; the block's head
    // (rd: the oldest descriptor its table still holds: not sent, or a sent
    // UD one not yet moved out); the output register (out_v, of descriptor
    // out_i)
    logic          d_ud [N];
    logic [QW-1:0] d_qpn [N];
    logic [23:0]   d_psn [N];
    int            taken = 0, sent = 0, rd = 0, reported = 0, ud_total = 0, full_seen = 0, out_i = 0;
    logic          out_v = 1'b0, out_free, moved_q = 1'b0;

    always @(negedge clk) begin
        if (!rst) begin
            // room falls when DEPTH are held; it rises a cycle after the
            // head that freed an entry moved (never early)
            if (room ? taken - rd >= (1 << DL) : !(taken - rd >= (1 << DL) || moved_q))
                fail($sformatf("room %0d with %0d held", room, taken - rd));
            if (!room) full_seen++;
            if (m_valid != out_v)
                fail($sformatf("m_valid %0d, want %0d: head %0d, %0d sent", m_valid, out_v, rd, sent));
            if (m_valid && (m_qpn !== d_qpn[out_i] || m_psn !== d_psn[out_i]))
                fail($sformatf("report (%0d, %0h), want (%0d, %0h)", m_qpn, m_psn, d_qpn[out_i], d_psn[out_i]));
            // drive the next cycle; the head and the report move at the next rising edge
            m_ready = rnd() % 4 != 0;
            out_free = !out_v || m_ready;
            if (out_v && m_ready) begin
                reported++;
                out_v = 1'b0;
            end
            moved_q = rd < sent && (!d_ud[rd] || out_free);
            if (rd < sent && (!d_ud[rd] || out_free)) begin
                if (d_ud[rd]) begin
                    out_v = 1'b1;
                    out_i = rd;
                end
                rd++;
            end
            done = sent < taken && rnd() % 3 == 0;
            if (done) sent++;
            take = 1'b0;
            if (taken < N && room && rnd() % 3 != 0) begin
                hdr = '0;
                for (int i = 0; i < HB; i += 32) hdr[i +: 32] = rnd();
                d_ud[taken] = rnd() % 2;
                d_qpn[taken] = QW'(rnd());
                d_psn[taken] = 24'(rnd());
                hdr[rnic_hdr_pkg::HDR_HAS_DETH_LSB] = d_ud[taken];
                hdr[rnic_hdr_pkg::HDR_DETH_SRC_QPN_LSB +: 24] = {14'(rnd()), d_qpn[taken]};
                hdr[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: 24] = d_psn[taken];
                if (d_ud[taken]) ud_total++;
                take = 1'b1;
                taken++;
            end
        end
    end

    initial begin
        repeat (4) @(posedge clk);
        @(negedge clk);
        rst = 1'b0;
        wait (taken == N && sent == N && reported == ud_total);
        repeat (10) @(posedge clk);
        if (m_valid) fail("a report after the last one");
        $display("%0d descriptors (%0d UD) taken, sent and reported; room low in %0d cycles", taken, ud_total,
                 full_seen);
        if (errors == 0 && full_seen > 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end

    initial begin
        #4000000;
        $display("TB FAIL: timeout (%0d taken, %0d sent, %0d reported)", taken, sent, reported);
        $finish;
    end
endmodule
