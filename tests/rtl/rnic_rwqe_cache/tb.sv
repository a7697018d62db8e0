`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_rwqe_cache testbench (8 ways of 16 WQEs, as in the responder).
 *
 * Host memory holds the receive rings of NQ receive queues (2 to 256 WQEs,
 * some crossing a 4 GiB line); every WQE is filled with words that encode
 * its queue, context generation and 16-bit index. Nine queues are QPs' own
 * RQs (key {0, QPN}), three are shared receive queues (key {1, SRQN}, each
 * SRQN equal to the number of one of the RQ queues, so a cache that
 * ignored the key's top bit would mix them up) with three QPs each: the
 * responder model picks a QP and drives its queue's key and indices, so
 * the QPs of an SRQ take its WQEs in posting order from one consumer index
 * and a read one of them caused is found at hand by another. QP resets of
 * QPs on an SRQ (key {0, QPN}) must leave the SRQ's way alone. A behavioural DMA reader serves
 * the cache's descriptors with random latency, gappy data and the status
 * pulse before, with or after the last beat; a seeded share of the reads
 * fail (error status, garbage data). A responder model works like rnic_resp:
 * it loads a QP's context (from a set of 8 QPs on 5 queues, kept in the
 * ways, or of all 18 QPs on NQ queues, which replaces ways), may raise ahead early, raises want, waits for hit
 * or err_hit, reads and checks every beat of the WQE, serves the message
 * with ahead high (ATOMICs take the reader: rd_free low, with their own data
 * and status on the shared ports), consumes the WQE and often goes on with
 * the same QP; a quarter of its packets take no WQE (ahead high a few
 * cycles). WQEs are posted at random; QPs the responder is not serving are
 * reset at random, also the QP it has just left while the cache sets up a
 * read ahead for it, and start a new ring (new base and size, indices from
 * 0, from where they were, or anywhere, across the 16-bit wrap).
 *
 * Checked every cycle: a read starts only with rd_free high and want or
 * ahead; its descriptor lies inside the QP's ring as named at the start, is a
 * whole number of WQEs, ends at the ring's end at the latest and covers only
 * WQEs posted (behind rq_pi) from rq_ci on; no read while an ATOMIC owns the
 * reader; tready low outside the cache's reads; the data of every hit equals
 * the WQE posted at rq_ci; err_hit only for a WQE a failed read covered; hit
 * and err_hit never together; want never waits 5000 cycles with the reader
 * free. Between packets the responder model now and then raises pref for
 * a QP with its own RQ (a receive doorbell's flush check) until look_done
 * or busy; such reads are checked as any other. At the end the counts must show misses, reads ahead, WQEs found at
 * hand that a read ahead brought, failures, replacements, resets (some while
 * a read of the QP was being sized) and reads left stale by them, WQEs of
 * an SRQ found at hand by another QP than the one whose read brought them,
 * and resets of QPs on an SRQ that kept the SRQ's way. +trace
 * prints the reads, hits and resets.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int KW = DATA_WIDTH / 8;
    localparam int RB = 64 / KW;                // beats of a WQE
    localparam int WPB = DATA_WIDTH / 64;       // 64-bit words a beat
    localparam int QW = 10;
    localparam int KEYW = QW + 1;               // key: {SRQ, number}
    localparam int WAYS_LOG2 = 3, WQES_LOG2 = 4;
    localparam int WQES = 2 ** WQES_LOG2;
    localparam int NQ = 12;                     // receive queues in all (> 8 ways)
    localparam int NQ_RQ = 9;                   // ... QPs' own RQs; the rest SRQs
    localparam int NP = NQ_RQ + 3 * (NQ - NQ_RQ); // QPs: 3 on each SRQ
    localparam int NP_KEPT = 8;                 // QPs (on 5 queues) of the phases that keep their ways
    localparam int TARGET = 2000;               // WQEs to consume
    localparam int MAX_CYCLES = 2000000;
    localparam int TIMEOUT = 5000;
    localparam int FAIL_PCT = 4;                // failed DMA reads

    logic                  clk = 1'b0, rst = 1'b1;
    logic [KEYW-1:0]         key = '0, key_reset = '0;
    logic [15:0]           rq_ci = '0, rq_pi = '0;
    logic [63:0]           rq_base = '0;
    logic [4:0]            rq_log = 5'd1;
    logic                  pref = 1'b0, look_done;
    logic                  want = 1'b0, ahead = 1'b0, err_take = 1'b0, rd_free = 1'b1, key_reset_valid = 1'b0;
    logic                  hit, hit_still, err_hit, busy;
    logic [7:0]            rd_beat = '0;
    logic [DATA_WIDTH-1:0] rd_data;
    logic [63:0]           desc_addr;
    logic [31:0]           desc_len;
    logic                  desc_valid, desc_ready = 1'b0;
    logic [DATA_WIDTH-1:0] tdata = '0;
    logic                  tvalid = 1'b0, tready, st_valid = 1'b0, st_error = 1'b0;

    always #5 clk = !clk;

    rnic_rwqe_cache #(.DATA_WIDTH(DATA_WIDTH), .KEY_WIDTH(KEYW), .WAYS_LOG2(WAYS_LOG2), .WQES_LOG2(WQES_LOG2)) dut (
        .clk, .rst,
        .key, .rq_ci, .rq_pi, .rq_base, .rq_log,
        .want, .ahead, .pref, .look_done, .hit, .hit_still, .err_hit, .err_take,
        .rd_beat, .rd_data,
        .rd_free, .busy,
        .key_reset_valid, .key_reset,
        .m_axis_desc_addr(desc_addr), .m_axis_desc_len(desc_len), .m_axis_desc_valid(desc_valid),
        .m_axis_desc_ready(desc_ready),
        .s_axis_tdata(tdata), .s_axis_tvalid(tvalid), .s_axis_tready(tready),
        .s_status_valid(st_valid), .s_status_error(st_error)
    );

    integer errors = 0, seed = 1, cyc = 0;
    // counts
    integer consumed = 0, hits_no_read = 0, at_hand_first = 0, at_hand_ra = 0, misses = 0, reads_ahead = 0;
    integer failed_reads = 0, err_hits = 0, replacements = 0, resets = 0, stale_reads = 0, atomics = 0;
    integer reset_in_read [8];
    initial for (int i = 0; i < 8; i++) reset_in_read[i] = 0;
    logic [KEYW-1:0] f_qpn_q;
    integer shared_hits = 0, srq_qp_resets = 0, srq_way_kept = 0;
    integer        f_state_q;
    integer pref_checks = 0, pref_reads = 0, pref_miss_reads = 0;
    integer others = 0, atomic_wait = 0, early_status = 0, late_status = 0, wraps = 0, rnr = 0;

    task automatic fail(input string msg);
        if (errors < 10) $display("TB FAIL: cycle %0d: %s", cyc, msg);
        errors = errors + 1;
    endtask

    function automatic int unsigned rnd();
        return $unsigned($random(seed));
    endfunction

    function automatic integer urand(input integer lo, input integer hi);
        return lo + rnd() % (hi - lo + 1);
    endfunction

    // ------------------------------------------------------------------
    // host memory: WQE tags by address / 64; a WQE's words from its tag
    // ------------------------------------------------------------------
    // ring memory of each QP's last 4 rings (ring r at {32'h10 + 2r, lo}:
    // its own 8 GiB), 256 WQEs at most
    localparam int RINGS_KEPT = NQ * 4;
    logic [63:0] hmem [RINGS_KEPT * 256];
    integer      hmem_ring [RINGS_KEPT];
    logic [63:0] hmem_base [RINGS_KEPT];
    logic [63:0] salt;
    // by QP and index mod 1024 (more than any ring holds): the tag of the WQE
    // a failed read covered, and of the WQE a read ahead brought last
    logic [63:0] failed_tag [NQ * 1024];
    logic [63:0] ahead_tag [NQ * 1024];
    integer      ahead_qp [NQ * 1024];    // the QP served when that read started

    function automatic integer tslot(input integer q, input logic [15:0] idx);
        return q * 1024 + integer'(idx & 16'd1023);
    endfunction

    // the tag at a host address, or 64'hBAD where no ring is kept
    function automatic logic [63:0] host_tag(input logic [63:0] a);
        integer r;
        logic [63:0] off;
        r = integer'(a[63:33]) - 8;
        for (int k = 0; k < RINGS_KEPT; k++) begin
            off = a - hmem_base[k];
            if (hmem_ring[k] == r && off < 64'(256 * 64)) return hmem[k * 256 + integer'(off >> 6)];
        end
        return 64'hBAD;
    endfunction

    function automatic logic [63:0] mk_tag(input integer q, input integer ep, input logic [15:0] idx);
        return {16'hC0DE, 8'(q), 8'(ep), 16'(idx), 16'h5A17};
    endfunction

    function automatic logic [63:0] wqe_word(input logic [63:0] tag, input integer w);
        logic [63:0] x;
        x = tag ^ salt ^ (64'h9E3779B97F4A7C15 * 64'(w + 1));
        return {x[31:0] ^ 32'(w), x[63:32]};
    endfunction

    function automatic logic [DATA_WIDTH-1:0] wqe_beat(input logic [63:0] tag, input integer b);
        logic [DATA_WIDTH-1:0] v;
        for (int k = 0; k < WPB; k++) v[64 * k +: 64] = wqe_word(tag, b * WPB + k);
        return v;
    endfunction

    function automatic logic [DATA_WIDTH-1:0] garbage();
        logic [DATA_WIDTH-1:0] v;
        for (int i = 0; i < DATA_WIDTH; i += 32) v[i +: 32] = rnd();
        return v;
    endfunction

    // ------------------------------------------------------------------
    // the QPs and their rings
    // ------------------------------------------------------------------
    logic [KEYW-1:0] qn [NQ];       // the queue's key
    integer        ep [NQ];
    logic [63:0]   base [NQ];
    integer        lg [NQ];
    logic [15:0]   ci [NQ], pi [NQ];
    integer        allocs = 0;
    integer        ring [NQ];     // the ring's number
    integer        hslot [NQ];    // where its memory is kept

    // the QPs: their queue and QPN
    integer        qp_q [NP];
    logic [QW-1:0] qp_num [NP];

    function automatic integer q_of(input logic [KEYW-1:0] n);
        for (int i = 0; i < NQ; i++) if (qn[i] == n) return i;
        return -1;
    endfunction

    task automatic post(input integer q, input integer k);
        logic [15:0] idx;
        for (int j = 0; j < k; j++) begin
            idx = pi[q] + 16'(j);
            hmem[hslot[q] * 256 + integer'(idx & ((16'd1 << lg[q]) - 16'd1))] = mk_tag(q, ep[q], idx);
        end
        pi[q] = pi[q] + 16'(k);
    endtask

    // post up to k more (never more than the ring holds outstanding)
    task automatic post_some(input integer q, input integer k);
        integer room;
        room = (1 << lg[q]) - integer'(16'(pi[q] - ci[q]));
        if (k > room) k = room;
        if (k > 0) post(q, k);
    endtask

    // a new ring: base (every ring in its own 8 GiB, half of them cross a
    // 4 GiB line), size, start index
    task automatic new_ring(input integer q);
        logic [31:0] lo;
        case (rnd() % 7)
            0: lg[q] = 1;
            1: lg[q] = 2;
            2: lg[q] = 3;
            3: lg[q] = 4;
            4: lg[q] = 5;
            5: lg[q] = 6;
            default: lg[q] = 8;
        endcase
        if (rnd() % 2) lo = 32'(rnd()) & 32'h0FFF_F000;
        else lo = 32'h0 - 32'(urand(1, 1 << lg[q]) * 64);
        base[q] = {32'h10 + 32'(allocs * 2), lo};
        ring[q] = allocs;
        ep[q] = ep[q] + 1;
        hslot[q] = q * 4 + ep[q] % 4;
        hmem_ring[hslot[q]] = allocs;
        hmem_base[hslot[q]] = base[q];
        for (int i = 0; i < 256; i++) hmem[hslot[q] * 256 + i] = 64'hBAD;
        allocs = allocs + 1;
        case (rnd() % 8)
            0, 1, 2: ci[q] = 16'd0;
            3: ci[q] = 16'hFFFF - 16'(rnd() % 24);    // across the 16-bit wrap soon
            4, 5: ;                                   // from where the last ring stopped
            default: ci[q] = 16'(rnd());
        endcase
        pi[q] = ci[q];
        post_some(q, urand(0, 1 << lg[q]));
    endtask

    // ------------------------------------------------------------------
    // the read the cache started (seen when busy rises), for its descriptor
    // ------------------------------------------------------------------
    bit          r_valid = 0, r_desc = 0, r_want;
    integer      r_q, r_ep, r_p;
    integer      cur_p = -1;   // the QP served
    // ways of SRQ keys before a QP-on-SRQ reset, checked after it
    bit          srq_reset_chk = 0;
    logic [7:0]  srq_used_q;
    logic [KEYW-1:0] srq_key_q [8];
    logic [63:0] r_base;
    integer      r_lg;
    logic [15:0] r_ci, r_pi;
    bit          atomic_owns = 0;
    logic        busy_q = 1'b0;
    integer      want_cyc = 0;
    bit          read_in_want = 0;

    always @(negedge clk) if (!rst) begin
        cyc = cyc + 1;
        if (hit === 1'b1 && err_hit === 1'b1) fail("hit and err_hit together");
        if (hit === 1'bx || err_hit === 1'bx || busy === 1'bx || desc_valid === 1'bx || tready === 1'bx)
            fail("unknown on an output");
        // a read started at the edge just passed, on the inputs still driven
        if (busy && !busy_q) begin
            if (!rd_free) fail("read started while rd_free was low");
            if (!want && !ahead && !pref) fail("read started without want, ahead or pref");
            if (r_valid) fail("read started before the last one ended");
            r_q = q_of(key);
            if (r_q < 0) fail($sformatf("read started for unknown key %h", key));
            else begin
                r_valid = 1;
                // (a pref read is a miss read or a read ahead, as the cache found)
                r_want = want || (pref && dut.f_miss_reg);
                r_ep = ep[r_q];
                r_base = rq_base;
                r_lg = rq_log;
                r_ci = rq_ci;
                r_pi = rq_pi;
                if (rq_base != base[r_q] || rq_log != lg[r_q]) fail("responder model drove a stale ring");
                if (r_want) misses = misses + 1; else reads_ahead = reads_ahead + 1;
                if (pref) begin
                    pref_reads = pref_reads + 1;
                    if (r_want) pref_miss_reads = pref_miss_reads + 1;
                end
                r_p = cur_p;
                if ($test$plusargs("trace")) $display("START cyc %0d key %h want %b ci %0d pi %0d way %0d", cyc, key, want, rq_ci, rq_pi, dut.f_way_reg);
                if (want) read_in_want = 1;
                // a way taken from another QP
                if (dut.used_reg[dut.f_way_reg] && dut.w_key_reg[dut.f_way_reg] != key) replacements = replacements + 1;
            end
        end
        // resets of a QP whose read is being set up (sized: state 1, 2) or in flight
        if (key_reset_valid && busy_q && f_qpn_q == key_reset) reset_in_read[f_state_q] = reset_in_read[f_state_q] + 1;
        // a QP on an SRQ reset at the edge just passed: the SRQ ways stay
        if (srq_reset_chk) begin
            for (int w = 0; w < 8; w++)
                if (srq_used_q[w] && !dut.used_reg[w] && !(busy && dut.f_way_reg == 3'(w)))
                    fail($sformatf("the reset of QP %0d on an SRQ dropped way %0d of SRQ key %h", key_reset[QW-1:0], w, srq_key_q[w]));
                else if (srq_used_q[w]) srq_way_kept = srq_way_kept + 1;
            srq_reset_chk = 0;
        end
        f_qpn_q = dut.f_key_reg;
        f_state_q = dut.f_state_reg;
        busy_q = busy;
        if (atomic_owns && (busy || desc_valid)) fail("the cache uses the reader while an ATOMIC owns it");
        // the responder never waits forever
        if (want && !hit && !err_hit) begin
            if (rd_free) want_cyc = want_cyc + 1;
            if (want_cyc == TIMEOUT) fail($sformatf("want high %0d cycles without hit or err_hit (key %h ci %0d pi %0d)",
                                                    TIMEOUT, key, rq_ci, rq_pi));
        end else begin
            want_cyc = 0;
        end
    end

    // ------------------------------------------------------------------
    // DMA reader: descriptors, data, status; the ATOMIC's read
    // ------------------------------------------------------------------
    bit at_req = 0, at_done = 0;

    task automatic dstep;
        @(negedge clk);
        #1;
    endtask

    initial begin : dma
        logic [63:0] a;
        logic [31:0] len;
        integer n, beats, sent, st_k, st_d, lat, s0, d, size, bad;
        bit fail_rd, st_done, pend;
        logic [15:0] idx;
        logic [63:0] t;
        @(negedge rst);
        forever begin
            dstep();
            desc_ready = 1'b0;
            tvalid = 1'b0;
            st_valid = 1'b0;
            if (tready) fail("tready high with no read in flight");
            if (at_req && !at_done) begin
                // the ATOMIC's 8 bytes and status on the shared ports
                repeat (urand(2, 40)) begin
                    dstep();
                    if (tready) fail("tready high during the ATOMIC's read");
                end
                tvalid = 1'b1;
                tdata = garbage();
                dstep();
                if (tready) fail("tready high during the ATOMIC's read");
                tvalid = 1'b0;
                repeat (urand(0, 3)) dstep();
                st_valid = 1'b1;
                st_error = rnd() % 4 == 0;
                dstep();
                st_valid = 1'b0;
                at_done = 1;
            end else if (desc_valid) begin
                a = desc_addr;
                len = desc_len;
                // checks against the QP's ring and indices at the read's start
                if (!r_valid || r_desc) fail("descriptor without a read started");
                size = 1 << r_lg;
                n = len / 64;
                if (len == 0 || len % 64 != 0) fail($sformatf("length %0d not a whole number of WQEs", len));
                if (n > WQES) fail($sformatf("%0d WQEs read, more than a way", n));
                if (a < r_base || a - r_base >= 64'(size * 64) || (a - r_base) % 64 != 0) begin
                    fail($sformatf("address %h not a WQE of the ring at %h (%0d WQEs)", a, r_base, size));
                    s0 = 0;
                end else begin
                    s0 = integer'((a - r_base) / 64);
                end
                if (s0 + n > size) fail($sformatf("read of WQEs %0d..%0d past the ring's end (%0d)", s0, s0 + n - 1, size));
                d = integer'(16'(16'(s0) - r_ci) & 16'(size - 1));
                if (d + n > integer'(16'(r_pi - r_ci)))
                    fail($sformatf("read of %0d WQEs from ring slot %0d: only %0d posted from ci %0d (slot %0d)",
                                   n, s0, 16'(r_pi - r_ci), r_ci, r_ci & 16'(size - 1)));
                if (integer'(r_ci & 16'(size - 1)) + d + n > size || 32'(r_ci) + 32'(d + n) > 32'hFFFF) wraps = wraps + 1;
                if ($test$plusargs("trace")) $display("DESC cyc %0d addr %h len %0d q %0d ep %0d/%0d ci %0d pi %0d base %h lg %0d want %0d ring %0d", cyc, a, len, r_q, r_ep, ep[r_q], r_ci, r_pi, r_base, r_lg, r_want, ring[r_q]);
                // accepted after a few cycles; the descriptor holds still meanwhile
                repeat (urand(0, 6)) begin
                    dstep();
                    if (!desc_valid || desc_addr != a || desc_len != len) fail("descriptor changed before it was taken");
                end
                desc_ready = 1'b1;
                r_desc = 1;
                dstep();
                desc_ready = 1'b0;
                if (desc_valid) fail("descriptor still valid after it was taken");
                fail_rd = rnd() % 100 < FAIL_PCT;
                for (int k = 0; k < n; k++) begin
                    idx = r_ci + 16'(d + k);
                    t = mk_tag(r_q, r_ep, idx);
                    if (fail_rd) failed_tag[tslot(r_q, idx)] = t;
                    else begin
                        ahead_tag[tslot(r_q, idx)] = r_want ? 64'd0 : t;
                        ahead_qp[tslot(r_q, idx)] = r_p;
                    end
                end
                if (fail_rd) failed_reads = failed_reads + 1;
                beats = n * RB;
                // the status after st_k beats and st_d more cycles
                case (rnd() % 4)
                    0: st_k = 0;
                    1: st_k = urand(0, beats);
                    default: st_k = beats;
                endcase
                st_d = (rnd() % 2) ? 0 : urand(0, 30);
                lat = (rnd() % 4 == 0) ? urand(100, 300) : urand(10, 100);
                sent = 0;
                st_done = 0;
                pend = 0;
                while (sent < beats || !st_done) begin
                    tvalid = 1'b0;
                    st_valid = 1'b0;
                    if (lat > 0) lat = lat - 1;
                    else begin
                        if (!st_done && sent >= st_k) begin
                            if (st_d > 0) st_d = st_d - 1;
                            else begin
                                st_valid = 1'b1;
                                st_error = fail_rd;
                                st_done = 1;
                                if (sent < beats) early_status = early_status + 1;
                                else late_status = late_status + 1;
                            end
                        end
                        if (sent < beats && (pend || rnd() % 100 < 60)) begin
                            if (!pend) begin
                                // the WQE word at that address, or garbage for a failed read
                                bad = fail_rd && (rnd() % 2 == 0);
                                t = host_tag(a + 64'(sent * KW));
                                if (t == 64'hBAD && !fail_rd) fail($sformatf("read of host memory never written: %h", a + 64'(sent * KW)));
                                tdata = bad ? garbage() : wqe_beat(t, sent % RB);
                            end
                            tvalid = 1'b1;
                            pend = !tready;
                            if (tready) sent = sent + 1;
                        end
                    end
                    dstep();
                end
                tvalid = 1'b0;
                st_valid = 1'b0;
                if (r_ep != ep[r_q]) stale_reads = stale_reads + 1;
                r_valid = 0;
                r_desc = 0;
            end
        end
    end

    // ------------------------------------------------------------------
    // responder model
    // ------------------------------------------------------------------
    integer cur = -1;     // the QP served (not to be reset)

    // one cycle; meanwhile posts to and resets of QPs not being served
    task automatic step;
        integer r;
        @(negedge clk);
        #1;
        key_reset_valid = 1'b0;
        if (rnd() % 1000 < 1) begin
            r = rnd() % NQ;
            if (r != cur) reset_qp(r);
        end
        if (!key_reset_valid && rnd() % 1000 < 3) begin
            // a QP on an SRQ gets a new context: {0, QPN}; its SRQ stays
            r = urand(0, NP - 1);
            if (qp_q[r] >= NQ_RQ) begin
                key_reset_valid = 1'b1;
                key_reset = {1'b0, qp_num[r]};
                srq_qp_resets = srq_qp_resets + 1;
                srq_reset_chk = 1;
                for (int w = 0; w < 8; w++) begin
                    srq_used_q[w] = dut.used_reg[w] && dut.w_key_reg[w][QW];
                    srq_key_q[w] = dut.w_key_reg[w];
                end
            end
        end
        if (rnd() % 100 < 2) begin
            r = rnd() % NQ;
            if (r != cur) post_some(r, urand(1, 8));
        end
    endtask

    // a QP reset: its context starts anew with a new ring
    task automatic reset_qp(input integer r);
        if (!key_reset_valid) begin
            new_ring(r);
            key_reset_valid = 1'b1;
            key_reset = qn[r];
            if ($test$plusargs("trace")) $display("RESET cyc %0d q %0d key %h ep %0d ci %0d pi %0d lg %0d base %h", cyc, r, qn[r], ep[r], ci[r], pi[r], lg[r], base[r]);
            resets = resets + 1;
        end
    endtask

    task automatic load(input integer q);
        key = qn[q];
        rq_ci = ci[q];
        rq_pi = pi[q];
        rq_base = base[q];
        rq_log = 5'(lg[q]);
    endtask

    // an ATOMIC: waits for the reader, reads through it, gives it back
    task automatic atomic;
        rd_free = 1'b0;
        step();
        if (busy) atomic_wait = atomic_wait + 1;
        while (busy) step();
        atomic_owns = 1;
        at_done = 0;
        at_req = 1;
        while (!at_done) step();
        at_req = 0;
        repeat (urand(0, 10)) step();
        atomic_owns = 0;
        rd_free = 1'b1;
        atomics = atomics + 1;
    endtask

    // serve the message: ahead high, now and then an ATOMIC
    task automatic serve(input integer cycles);
        ahead = 1'b1;
        for (int i = 0; i < cycles; i++) begin
            if (rnd() % 1000 < 4) atomic();
            step();
        end
    endtask

    initial begin : responder
        integer q, g, n, pq;
        bit first, same, got, gerr, bq;
        logic [63:0] t;
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        salt = {32'(rnd()), 32'(rnd())};
        for (int i = 0; i < NQ * 1024; i++) begin
            failed_tag[i] = '0;
            ahead_tag[i] = '0;
        end
        for (int i = 0; i < RINGS_KEPT; i++) hmem_ring[i] = -1;
        // queue keys: SRQ j has the number of RQ queue j
        for (int i = 0; i < NQ; i++) begin
            qn[i] = (i < NQ_RQ) ? {1'b0, QW'(i * 67 + 3)} : {1'b1, QW'((i - NQ_RQ) * 67 + 3)};
            ep[i] = 0;
            ci[i] = '0;
            new_ring(i);
        end
        for (int k = 0; k < NQ * 1024; k++) ahead_qp[k] = -1;
        // the QPs, the first NP_KEPT on 5 queues: 3 on SRQ 9, RQs 0 and 1,
        // 3 on SRQ 10; then RQ 2, ..., RQ 8 and 3 on SRQ 11
        for (int p = 0; p < NP; p++) begin
            if (p < 3) qp_q[p] = NQ_RQ;
            else if (p < 5) qp_q[p] = p - 3;
            else if (p < 8) qp_q[p] = NQ_RQ + 1;
            else if (p < 15) qp_q[p] = p - 6;
            else qp_q[p] = NQ_RQ + 2;
            qp_num[p] = (qp_q[p] < NQ_RQ) ? qn[qp_q[p]][QW-1:0] : QW'(500 + p);
        end
        repeat (4) @(posedge clk);
        #1 rst = 1'b0;
        q = 0;
        same = 0;
        while (consumed < TARGET && cyc < MAX_CYCLES && errors < 10 && want_cyc < TIMEOUT) begin
            // idle between packets; the QP just served may be reset now
            cur = -1;
            cur_p = -1;
            want = 1'b0;
            ahead = 1'b0;
            // now and then the QP just served is reset as soon as the
            // responder leaves it (a read ahead for it may be starting)
            if (rnd() % 8 == 0) begin
                repeat (urand(0, 3)) step();
                reset_qp(q);
                same = 0;
            end
            repeat (urand(1, 4)) step();
            // now and then a receive doorbell's flush check between packets:
            // pref for a QP with its own RQ until the cache has looked (a
            // read for it may start) or is busy
            if (!same && rnd() % 4 == 0) begin
                pq = rnd() % (((consumed / 250) % 2) ? NP : NP_KEPT);
                q = qp_q[pq];
                if (q < NQ_RQ) begin
                    cur = q;
                    cur_p = pq;
                    if (rnd() % 2 == 0) post_some(q, urand(1, 6));
                    load(q);
                    pref = 1'b1;
                    n = 0;
                    // (look_done is for inputs still since the last edge: from the second cycle)
                    while (n < 1 || (!look_done && !busy && n < 8)) begin
                        step();
                        n = n + 1;
                    end
                    // the cycle look_done is high in decides: pref stays up to its edge
                    if (look_done && !busy) step();
                    pref = 1'b0;
                    pref_checks = pref_checks + 1;
                    cur = -1;
                    cur_p = -1;
                    repeat (urand(0, 2)) step();
                end
            end
            if (!same) pq = rnd() % (((consumed / 250) % 2) ? NP : NP_KEPT);
            q = qp_q[pq];
            cur = q;
            cur_p = pq;
            if (rnd() % 4 == 0) post_some(q, urand(1, 6));
            load(q);
            // context read, PSN check: ahead from the opcode check on
            g = (rnd() % 8 == 0) ? 0 : urand(1, 10);
            for (int i = 0; i < g; i++) begin
                if (i >= 2 && rnd() % 3 != 0) ahead = 1'b1;
                step();
            end
            if (rnd() % 4 == 0) begin
                // a packet that takes no receive WQE (WRITE, READ, ATOMIC):
                // served a few cycles with ahead high, then the responder
                // leaves the QP (which may be reset right then)
                ahead = 1'b1;
                if (rnd() % 4 == 0) atomic();
                n = urand(0, 6);
                got = 0;
                for (int i = 0; i < n && !got; i++) begin
                    bq = busy;
                    step();
                    // now and then the packet ends just as a read ahead starts
                    got = busy && !bq && rnd() % 2 == 0;
                end
                others = others + 1;
                same = rnd() % 2;
                if (got || rnd() % 3 == 0) begin
                    cur = -1;
                    ahead = 1'b0;
                    repeat (got ? urand(0, 1) : urand(0, 2)) step();
                    reset_qp(q);
                    same = 0;
                end
            end else if (rq_pi == rq_ci) begin
                // receiver not ready
                rnr = rnr + 1;
                same = 0;
                if (rnd() % 2) post_some(q, urand(1, 8));
            end else begin
            // wait for the WQE at rq_ci
            ahead = 1'b0;
            want = 1'b1;
            read_in_want = 0;
            t = mk_tag(q, ep[q], ci[q]);
            first = 1;
            got = 0;
            gerr = 0;
            while (!got && !gerr && cyc < MAX_CYCLES && errors < 10 && want_cyc < TIMEOUT) begin
                step();
                if (hit) got = 1;
                else if (err_hit) gerr = 1;
                else first = 0;
            end
            if (!got && !gerr) begin
                // given up (the errors say why)
            end else if (got) begin
                if ($test$plusargs("trace")) $display("GOT cyc %0d key %h ci %0d first %b way %0d lo %0d hi %0d req %0d", cyc, key, rq_ci, first, dut.way_cc, dut.w_lo_reg[dut.way_cc], dut.w_hi_reg[dut.way_cc], dut.w_req_reg[dut.way_cc]);
                if (first) begin
                    at_hand_first = at_hand_first + 1;
                    if (ahead_tag[tslot(q, ci[q])] == t) at_hand_ra = at_hand_ra + 1;
                end
                // an SRQ's WQE another QP's read brought
                if (q >= NQ_RQ && !read_in_want && ahead_qp[tslot(q, ci[q])] >= 0 && ahead_qp[tslot(q, ci[q])] != pq)
                    shared_hits = shared_hits + 1;
                if (!read_in_want) hits_no_read = hits_no_read + 1;
                // read the WQE beat by beat: the beat addressed in a cycle
                // is on rd_data in the next
                want = 1'b0;
                ahead = 1'b1;
                for (int b = 0; b < RB; b++) begin
                    rd_beat = 8'(b);
                    step();
                    if (rd_data !== wqe_beat(t, b))
                        fail($sformatf("key %h WQE %0d beat %0d: %h, want %h (a failed read covered it: %0d)", qn[q], ci[q],
                                       b, rd_data, wqe_beat(t, b), failed_tag[tslot(q, ci[q])] == t));
                end
                rd_beat = 8'(rnd());
                serve((rnd() % 5 == 0) ? urand(50, 400) : urand(0, 40));
            end else begin
                if (failed_tag[tslot(q, ci[q])] != t) fail($sformatf("err_hit for key %h WQE %0d that no failed read covered", qn[q], ci[q]));
                err_hits = err_hits + 1;
                err_take = 1'b1;
                step();
                err_take = 1'b0;
            end
            if (got || gerr) begin
                // consumed
                ci[q] = ci[q] + 16'd1;
                consumed = consumed + 1;
            end
            // the next SEND of a stream on the same QP, often
            same = rnd() % 100 < 65;
            end
        end
        cur = -1;
        want = 1'b0;
        ahead = 1'b0;
        repeat (500) step();
        $display("rnic_rwqe_cache w%0d: %0d WQEs consumed in %0d cycles: %0d at hand at want (%0d read ahead), %0d hits without a read, %0d miss reads, %0d reads ahead, %0d failed reads, %0d err_hit, %0d replacements, %0d resets (%0d stale reads), %0d ATOMICs (%0d waited), %0d ring/index wraps, status %0d early %0d late, %0d RNR",
                 DATA_WIDTH, consumed, cyc, at_hand_first, at_hand_ra, hits_no_read, misses, reads_ahead, failed_reads,
                 err_hits, replacements, resets, stale_reads, atomics, atomic_wait, wraps, early_status, late_status, rnr);
        $display("resets during a read of the QP: %0d sizing (1), %0d sizing (2), %0d asking, %0d data",
                 reset_in_read[1], reset_in_read[2], reset_in_read[3], reset_in_read[4]);
        $display("SRQs: %0d WQEs found at hand by another QP than the one whose read brought them; %0d resets of QPs on an SRQ (%0d SRQ ways kept)",
                 shared_hits, srq_qp_resets, srq_way_kept);
        $display("flush checks between packets: %0d, %0d reads started by them (%0d for the WQE at the consumer index)",
                 pref_checks, pref_reads, pref_miss_reads);
        if (pref_reads == 0 || pref_miss_reads == 0 || pref_miss_reads == pref_reads) fail("weak run: pref reads not exercised");
        if (shared_hits == 0 || srq_qp_resets == 0 || srq_way_kept == 0) fail("weak run: SRQ sharing not exercised");
        if (consumed < TARGET) fail($sformatf("only %0d WQEs consumed", consumed));
        if (at_hand_ra < consumed / 40) fail($sformatf("read ahead weak: %0d WQEs found at hand from a read ahead", at_hand_ra));
        if (misses == 0 || reads_ahead < misses / 4 || failed_reads == 0 || err_hits == 0 || replacements == 0
            || resets == 0 || stale_reads == 0 || reset_in_read[1] + reset_in_read[2] == 0 || atomics == 0 || wraps == 0 || early_status == 0 || late_status == 0 || hits_no_read == 0)
            fail("weak run: some case never happened");
        if (errors == 0) $display("TB PASS");
        $finish;
    end
endmodule
