`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_cwnd testbench: the send window of each QP against a reference of
 * the rules (docs/ARCHITECTURE.md, "Send window"): the start value, the cut
 * to half of what was outstanding at a restart (never below the minimum),
 * no second cut while nothing was acknowledged since the first, a cut at
 * every restart after progress (also while a loss is repaired), growth
 * by every PSN acknowledged below the threshold and by one in 2^CA_SHIFT
 * above it, the clamp at the largest value, the context write starting an
 * entry over. Directed steps first, then random takes of random QPs with
 * random gaps between them (the requester's turns: at least three cycles),
 * random ACK progress, restarts and context writes, the window checked in
 * the cycle after each take (as stored) and the one after that (updated).
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int QW = 8, NQ = 1 << QW, W = 16, WMIN = 32, CAS = 3;
    localparam int MAXW = (1 << W) - 1;

    logic          clk = 1'b0, rst = 1'b1;
    logic [QW-1:0] rd_qpn = '0;
    logic          take = 1'b0, take_loss = 1'b0;
    logic [23:0]   take_acked = '0, take_next = '0;
    logic [W-1:0]  wnd, wnd_m1;
    logic          reset_valid = 1'b0;
    logic [QW-1:0] reset_qpn = '0;
    logic [23:0]   reset_psn = '0;
    integer        errors = 0, seed = 1, n_takes = 0, n_cuts = 0, n_same = 0, n_ss = 0, n_ca = 0, n_clamp = 0;

    always #2 clk = !clk;

    rnic_cwnd #(.QPN_WIDTH(QW), .WND_W(W), .WND_MIN(WMIN), .CA_SHIFT(CAS)) dut (
        .clk, .rst, .rd_qpn, .take, .take_loss, .take_acked_psn(take_acked), .take_next_psn(take_next),
        .wnd, .wnd_m1, .reset_valid, .reset_qpn, .reset_psn
    );

    // the reference: per QP window, threshold, acked PSN at the last take,
    // acked PSN at the last cut and no progress since (24-bit PSNs here; the
    // RTL keeps their low 16 bits)
    integer m_wnd [NQ], m_thr [NQ];
    logic [23:0] m_acked [NQ], m_rec [NQ];
    logic        m_armed [NQ];
    // the test's own view of each QP: acked and next PSN
    logic [23:0] q_acked [NQ], q_next [NQ];

    task automatic fail(input string msg);
        if (errors < 10) $display("TB FAIL: %0t: %s", $time, msg);
        errors = errors + 1;
    endtask

    function automatic integer diff(input logic [23:0] a, input logic [23:0] b); // a - b, signed mod 2^16
        logic [15:0] d;
        d = a[15:0] - b[15:0];
        diff = d[15] ? -(65536 - integer'(d)) : integer'(d);
    endfunction

    task automatic model_reset(input integer q, input logic [23:0] psn);
        m_wnd[q] = MAXW;
        m_thr[q] = MAXW;
        m_acked[q] = psn - 24'd1;
        m_rec[q] = '0;
        m_armed[q] = 1'b0;
        q_acked[q] = psn - 24'd1;
        q_next[q] = psn;
    endtask

    // what the take of q with (loss, acked, next) makes of the entry
    task automatic model_take(input integer q, input logic loss, input logic [23:0] acked, input logic [23:0] next);
        integer d, fl, h, inc, same;
        d = diff(acked, m_acked[q]);
        if (d < 0) d = 0;
        same = m_armed[q] && acked[15:0] == m_rec[q][15:0];
        fl = diff(next, acked) - 1;
        if (loss && !same) begin
            h = fl < 0 ? 0 : fl / 2;
            if (h < WMIN) h = WMIN;
            m_wnd[q] = WMIN;
            m_thr[q] = h;
            m_rec[q] = acked;
            m_armed[q] = 1'b1;
            n_cuts = n_cuts + 1;
        end else begin
            if (loss) n_same = n_same + 1;
            if (m_wnd[q] < m_thr[q]) begin
                inc = d;
                n_ss = n_ss + (d != 0);
            end else begin
                inc = d >> CAS;
                n_ca = n_ca + (inc != 0);
            end
            if (m_wnd[q] + inc > MAXW) begin
                m_wnd[q] = MAXW;
                n_clamp = n_clamp + 1;
            end else begin
                m_wnd[q] = m_wnd[q] + inc;
            end
            m_armed[q] = same != 0;
        end
        m_acked[q] = acked;
    endtask

    task automatic step(input integer n);
        repeat (n) @(posedge clk);
        #1;
    endtask

    // one turn: present q (read), take it, check the stored and the updated
    // window, then `gap` more cycles (at least one: the requester's turn is
    // at least three cycles from take to take)
    task automatic turn(input integer q, input logic loss, input integer gap, input logic pre_read = 1'b0);
        integer old;
        if (!pre_read) begin
            rd_qpn = QW'(q);
            step(1);                     // the entry is read at rd_qpn
        end
        take = 1'b1;
        take_loss = loss;
        take_acked = q_acked[q];
        take_next = q_next[q];
        old = m_wnd[q];
        model_take(q, loss, q_acked[q], q_next[q]);
        step(1);
        take = 1'b0;
        take_loss = 1'bx;
        take_acked = 'x;
        take_next = 'x;
        n_takes = n_takes + 1;
        if (integer'(wnd) !== old) fail($sformatf("QP %0d: window %0d after the take, want the stored %0d", q, wnd, old));
        step(1);
        if (integer'(wnd) !== m_wnd[q]) fail($sformatf("QP %0d: window %0d updated, want %0d", q, wnd, m_wnd[q]));
        rd_qpn = QW'($urandom(seed) % NQ);  // the scheduler's head moves on
        step(1);
        if (integer'(wnd_m1) !== m_wnd[q] - 1) fail($sformatf("QP %0d: wnd_m1 %0d, want %0d", q, wnd_m1, m_wnd[q] - 1));
        if (gap > 1) step(gap - 1);
    endtask

    // the context write; the entry is read at rd_qpn in the same cycle
    task automatic ctx_write(input integer q, input logic [23:0] psn);
        rd_qpn = QW'(q);
        reset_valid = 1'b1;
        reset_qpn = QW'(q);
        reset_psn = psn;
        model_reset(q, psn);
        step(1);
        reset_valid = 1'b0;
    endtask

    // send and acknowledge: the requester's next PSN moves on by `sent`,
    // the ACKs by `acked` (never past the next PSN)
    task automatic traffic(input integer q, input integer sent, input integer acked);
        q_next[q] = q_next[q] + 24'(sent);
        if (diff(q_next[q], q_acked[q] + 24'(acked)) >= 1) q_acked[q] = q_acked[q] + 24'(acked);
        else q_acked[q] = q_next[q] - 24'd1;
    endtask

    initial begin
        integer q, r, k;
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        step(4);
        rst = 1'b0;
        for (q = 0; q < NQ; q++) ctx_write(q, 24'(q * 7919));

        // directed, QP 3: starts unlimited; 1990 outstanding at a restart:
        // the window to the minimum, the threshold to 995; a restart with
        // nothing acknowledged since: the same loss, no second cut; slow
        // start (every PSN acknowledged counts) up to the threshold, then
        // one in eight
        q = 3;
        turn(q, 1'b0, 1);
        if (wnd !== 16'hffff) fail("start: window not all ones");
        traffic(q, 2000, 10);
        turn(q, 1'b1, 1);
        if (wnd !== 16'(WMIN)) fail($sformatf("cut: window %0d, want the minimum %0d", wnd, WMIN));
        turn(q, 1'b1, 2);
        if (wnd !== 16'(WMIN)) fail($sformatf("restart without progress: window %0d, want %0d", wnd, WMIN));
        traffic(q, 0, 500);
        turn(q, 1'b0, 2);
        if (wnd !== 16'(WMIN + 500)) fail($sformatf("slow start: window %0d, want %0d", wnd, WMIN + 500));
        traffic(q, 0, 600);
        turn(q, 1'b0, 1);
        if (wnd !== 16'(WMIN + 1100)) fail($sformatf("slow start past the threshold: window %0d, want %0d", wnd, WMIN + 1100));
        traffic(q, 0, 80);
        turn(q, 1'b0, 1);
        if (wnd !== 16'(WMIN + 1110)) fail($sformatf("above the threshold: window %0d, want %0d", wnd, WMIN + 1110));
        // a restart after progress while the first loss is repaired (the
        // PSN reached then not yet acknowledged): a new loss, cut again, the
        // threshold to half of the 710 outstanding
        traffic(q, 0, 100);
        turn(q, 1'b1, 1);
        if (wnd !== 16'(WMIN)) fail($sformatf("second cut: window %0d, want the minimum %0d", wnd, WMIN));
        traffic(q, 0, 20);
        turn(q, 1'b0, 1);
        if (wnd !== 16'(WMIN + 20)) fail($sformatf("after the second cut: window %0d, want %0d (slow start to 355)", wnd, WMIN + 20));
        // the threshold never below the minimum
        traffic(q, 100, 730);      // 60 outstanding
        turn(q, 1'b1, 1);
        traffic(q, 0, 20);
        turn(q, 1'b0, 3);
        if (wnd !== 16'(WMIN + 2)) fail($sformatf("small cut: window %0d, want %0d (threshold at the minimum)", wnd, WMIN + 2));
        // a context write starts over
        ctx_write(q, 24'hfffff0);
        turn(q, 1'b0, 1);
        if (wnd !== 16'hffff) fail("context write: window not all ones");

        // directed, QP 5: the clamp at the largest window
        q = 5;
        traffic(q, 4000, 0);
        turn(q, 1'b1, 1);          // 4000 outstanding: threshold 2000
        for (r = 0; r < 200; r++) begin
            traffic(q, 3000, 3000);
            turn(q, 1'b0, 1);
        end
        if (wnd !== 16'hffff) fail($sformatf("clamp: window %0d, want all ones", wnd));

        // random
        for (k = 0; k < 20000; k++) begin
            q = $urandom(seed) % 16 + ((k % 7 == 0) ? $urandom(seed) % NQ : 0);
            q = q % NQ;
            r = $urandom(seed) % 100;
            if (r < 2) begin
                // the QP is taken right after its context write: the entry
                // read in the write's cycle is forwarded
                ctx_write(q, 24'($urandom(seed)));
                traffic(q, $urandom(seed) % 3000, $urandom(seed) % 3000);
                turn(q, r == 0, 1, 1'b1);
            end else begin
                // a quarter of the turns without ACK progress (a restart
                // then after a cut is one of the same loss)
                traffic(q, $urandom(seed) % 3000, ($urandom(seed) % 4 == 0) ? 0 : $urandom(seed) % 3000);
                turn(q, r < 20, 1 + $urandom(seed) % 4);
            end
        end
        $display("takes %0d: cuts %0d, restarts in the same loss %0d, slow-start growths %0d, additive growths %0d, clamps %0d",
                 n_takes, n_cuts, n_same, n_ss, n_ca, n_clamp);
        if (n_cuts < 100 || n_same < 20 || n_ss < 100 || n_ca < 100 || n_clamp < 10)
            fail("the random phase missed a rule");
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
