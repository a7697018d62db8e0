`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_rd_resp testbench: READ jobs (random length 0..3 path MTUs, path MTU
 * codes 256..4096 and out-of-range ones, PSNs near the 2^24 wrap) and raw
 * ACK jobs on 4 of 8 QPs, with random valid on the job port, random ready
 * on the header and payload-descriptor ports (the load changes every few
 * hundred cycles), payload answers after random delays (some of hundreds of
 * cycles), QP resets and read-generation changes at random, and some jobs
 * that fail their MR check at some packet (bad key, no REMOTE_READ, wrong
 * PD, past the end of the region).
 *
 * Checked against a model:
 * - every header, in order: each job's packets in sequence, opcode
 *   FIRST/MIDDLE/LAST/ONLY, PSN (mod 2^24), AETH flag, pad, payload length,
 *   the rest of the job's template untouched; raw jobs as they are. A job
 *   may stop early only if it went stale (generation changed, QP reset) or
 *   at the packet that fails its MR check, and a failing packet never goes
 *   out;
 * - every payload descriptor: the translated address and length of the
 *   packet whose header carries the same place in the stream;
 * - pend_at (probed at a random QP and address every cycle: a byte of a
 *   payload read still unanswered, the first byte of a job, or anywhere) is
 *   never low while a payload read of that QP whose bytes share the
 *   address's 64-byte line is unanswered; once low, no payload read of that
 *   QP over that line follows until a new job of it arrives; and it is low
 *   often while the QP has other payload reads unanswered (it looks at the
 *   memory, not only the QP). pend_rd (probed at a random QP): once low, no
 *   header of that QP follows until a new job of it arrives;
 * - cnt_rd (it counts for the QP and generation given the cycle before,
 *   the QP held, a reset of it moving the generation on) never counts more
 *   READ jobs of that QP and generation than were queued and not yet known
 *   to be done; at the end of every batch the module is idle (pend, cnt
 *   zero), and the counters agree.
 * - most raw jobs are plain ACKs (s_job_plain): one may come out with the
 *   PSN and MSN of later plain ACKs of its QP, when every job of that QP up
 *   to them is a plain ACK, and a READ job may be followed (after its last
 *   header, or where it stops) by its own template with the PSN and MSN of
 *   such a run of plain ACKs after it; those then send nothing of their
 *   own. Both must happen.
 * The run must have exercised the case the payload tracking exists for: a
 * QP with every header gone and a payload read still unanswered, and
 * coalescing.
 */
module tb #(
    parameter int DATA_WIDTH = 64  // not used: the module has no data path
);
    localparam int QW = 3;
    localparam int MW = 4;
    localparam int NQP = 4;
    localparam int HB = rnic_hdr_pkg::HDR_BITS;
    localparam int MAXJ = 3000;
    localparam int BATCHES = 24;
    localparam int JOBS_PER_BATCH = 100;
    localparam logic [63:0] BIG_LEN = 64'h400_0000;   // 64 MiB
    localparam logic [63:0] SMALL_LEN = 64'h2000;     // 8 KiB
    localparam int QP_LSB = 36;                       // a region's bus address names its QP here

    logic clk = 1'b0, rst = 1'b1;
    always #2 clk = !clk;
    integer seed = 1, errors = 0, cyc = 0;
    always @(posedge clk) cyc <= cyc + 1;

    // DUT ports
    logic             s_job_valid = 1'b0, s_job_ready, s_job_raw = 1'b0, s_job_plain = 1'b0;
    logic [HB-1:0]    s_job_hdr = '0;
    logic [63:0]      s_job_va = '0;
    logic [31:0]      s_job_rkey = '0, s_job_len = '0;
    logic [15:0]      s_job_pd = '0;
    logic [2:0]       s_job_pmtu = '0;
    logic [QW-1:0]    s_job_qpn = '0;
    logic [3:0]       s_job_gen = '0;
    logic             qp_reset_valid = 1'b0;
    logic [QW-1:0]    qp_reset_qpn = '0, pend_rd_qpn = '0, pend_at_qpn = '0, rgen_rd_qpn, cnt_rd_qpn = '0;
    logic [39:0]      pend_at_pa = '0;       // the ATOMIC's address; its line goes to the DUT
    logic [MW-1:0]    pend_at_mr = '0;       // the MPT entry of its rkey
    logic [33:0]      s_job_span_first = '0;
    logic [34:0]      s_job_span_last = '0;
    logic             s_job_span_nz = 1'b0;
    logic             pend_rd_val, pend_at_val;
    logic [3:0]       rgen_rd_val, cnt_rd_gen = '0;
    logic [7:0]       cnt_rd_val;
    logic [QW-1:0]    cnt_prev_qpn = '0;   // what cnt_rd_val counts this cycle
    logic [3:0]       cnt_prev_gen = '0;
    logic             cnt_prev_ok = 1'b0;
    logic             mpt_rd_en;
    logic [MW-1:0]    mpt_rd_addr;
    logic [rnic_pkg::MPT_BITS-1:0] mpt_rd_data;
    logic             m_hdr_valid, m_hdr_ready = 1'b0;
    logic [HB-1:0]    m_hdr;
    logic             m_hdr_pay;
    logic [63:0]      pay_addr;
    logic [31:0]      pay_len;
    logic             pay_last, pay_valid, pay_ready = 1'b0, pay_status_valid = 1'b0;
    logic             stat_tx_read_resp, stat_access_err;

    // The job's QP and the QP asked about go in as the responder gives them:
    // two registers and a select. The select and the other register (a
    // random QP) change every cycle, on a seed of their own.
    integer       sel_seed = 7;
    logic         sj_sel = 1'b0, pr_sel = 1'b0;
    logic [QW-1:0] sj_other = '0, pr_other = '0;
    always @(posedge clk) begin
        sj_sel <= $random(sel_seed) % 2 != 0;
        pr_sel <= $random(sel_seed) % 2 != 0;
        sj_other <= QW'($unsigned($random(sel_seed)));
        pr_other <= QW'($unsigned($random(sel_seed)));
    end

    rnic_rd_resp #(.QPN_WIDTH(QW), .MR_INDEX_WIDTH(MW), .JOBS_LOG2(3), .HDRQ_LOG2(2), .PAYQ_LOG2(2)) dut (
        .clk, .rst,
        .s_job_valid, .s_job_ready, .s_job_hdr, .s_job_va, .s_job_rkey, .s_job_pd, .s_job_len,
        .s_job_pmtu, .s_job_qpn_a(sj_sel ? sj_other : s_job_qpn), .s_job_qpn_b(sj_sel ? s_job_qpn : sj_other),
        .s_job_qpn_sel(sj_sel), .s_job_gen, .s_job_raw, .s_job_plain, .s_job_span_first, .s_job_span_last, .s_job_span_nz,
        .qp_reset_valid, .qp_reset_qpn, .pend_rd_qpn_a(pr_sel ? pr_other : pend_rd_qpn),
        .pend_rd_qpn_b(pr_sel ? pend_rd_qpn : pr_other), .pend_rd_sel(pr_sel), .pend_rd_val, .pend_at_qpn, .pend_at_line(pend_at_pa[39:6]), .pend_at_mr(pend_at_mr), .pend_at_val,
        .rgen_rd_qpn, .rgen_rd_val, .cnt_rd_qpn, .cnt_rd_gen, .cnt_rd_val,
        .mpt_rd_en, .mpt_rd_addr, .mpt_rd_data,
        .m_hdr_valid, .m_hdr_ready, .m_hdr, .m_hdr_pay,
        .m_axis_pay_desc_addr(pay_addr), .m_axis_pay_desc_len(pay_len), .m_axis_pay_desc_last(pay_last),
        .m_axis_pay_desc_valid(pay_valid), .m_axis_pay_desc_ready(pay_ready),
        .s_pay_status_valid(pay_status_valid),
        .stat_tx_read_resp, .stat_access_err
    );

    task automatic fail(input string msg);
        if (errors < 10) $display("TB FAIL: cycle %0d: %s", cyc, msg);
        errors = errors + 1;
    endtask

    function automatic int unsigned rnd();
        return $unsigned($random(seed));
    endfunction

    // ------------------------------------------------------------------
    // MPT: per QP q a 64 MiB region (index 1+q), an 8 KiB one (8+q) and
    // one without REMOTE_READ (12+q); the bus address names the QP at
    // QP_LSB, so each payload read tells whose it is
    // ------------------------------------------------------------------
    logic [rnic_pkg::MPT_BITS-1:0] mpt_tab [2**MW];
    always @(posedge clk) if (mpt_rd_en) mpt_rd_data <= mpt_tab[mpt_rd_addr];

    function automatic logic [31:0] mkey(input int idx);
        return (32'(idx) << rnic_pkg::MKEY_TAG_BITS) | 32'(8'h30 + idx);
    endfunction
    function automatic logic [63:0] mr_va(input int idx);
        return 64'h0000_5500_0000_0000 + (64'(idx) << 32);
    endfunction
    function automatic logic [63:0] mr_len(input int idx);
        return (idx >= 8 && idx < 12) ? SMALL_LEN : BIG_LEN;
    endfunction

    task automatic mpt_init;
        for (int m = 0; m < 2 ** MW; m++) mpt_tab[m] = '0;
        for (int q = 0; q < NQP; q++)
            for (int k = 0; k < 3; k++) begin
                logic [rnic_pkg::MPT_BITS-1:0] e;
                int idx;
                idx = (k == 0) ? 1 + q : (k == 1) ? 8 + q : 12 + q;
                e = '0;
                e[rnic_pkg::MPT_VALID_LSB +: rnic_pkg::MPT_VALID_W] = 1'b1;
                e[rnic_pkg::MPT_ACCESS_LSB +: rnic_pkg::MPT_ACCESS_W] = (k == 2)
                    ? rnic_pkg::ACCESS_LOCAL_WRITE[7:0]
                    : 8'(rnic_pkg::ACCESS_REMOTE_READ | rnic_pkg::ACCESS_LOCAL_WRITE);
                e[rnic_pkg::MPT_PD_LSB +: rnic_pkg::MPT_PD_W] = 16'(q + 1);
                e[rnic_pkg::MPT_KEY_LSB +: rnic_pkg::MPT_KEY_W] = mkey(idx);
                e[rnic_pkg::MPT_VA_LSB +: rnic_pkg::MPT_VA_W] = mr_va(idx);
                e[rnic_pkg::MPT_LENGTH_LSB +: rnic_pkg::MPT_LENGTH_W] = mr_len(idx);
                e[rnic_pkg::MPT_PA_LSB +: rnic_pkg::MPT_PA_W] = (64'(q) << QP_LSB) + (64'(k) << 32);
                mpt_tab[idx] = e;
            end
    endtask

    // the MPT entry a bus address lies in (see mpt_init)
    function automatic logic [MW-1:0] mr_of(input logic [63:0] pa);
        return (pa[33:32] == 2'd0) ? MW'(1 + pa[QP_LSB +: QW]) : (pa[33:32] == 2'd1) ? MW'(8 + pa[QP_LSB +: QW])
                                                                              : MW'(12 + pa[QP_LSB +: QW]);
    endfunction

    function automatic logic [QW-1:0] qp_of(input logic [63:0] pa);
        return pa[QP_LSB +: QW];
    endfunction

    function automatic logic [63:0] pa_of(input logic [31:0] key, input logic [63:0] va);
        logic [rnic_pkg::MPT_BITS-1:0] e;
        e = mpt_tab[key[rnic_pkg::MKEY_TAG_BITS +: MW]];
        return e[rnic_pkg::MPT_PA_LSB +: 64] + (va - e[rnic_pkg::MPT_VA_LSB +: 64]);
    endfunction
    // the model's own MR check of one packet (independent of rnic_mr_check)
    function automatic logic pkt_ok(input logic [31:0] key, input logic [15:0] pd, input logic [63:0] va,
                                    input logic [31:0] len);
        logic [rnic_pkg::MPT_BITS-1:0] e;
        logic [63:0] base, size;
        e = mpt_tab[key[rnic_pkg::MKEY_TAG_BITS +: MW]];
        base = e[rnic_pkg::MPT_VA_LSB +: 64];
        size = e[rnic_pkg::MPT_LENGTH_LSB +: 64];
        return e[rnic_pkg::MPT_VALID_LSB] && e[rnic_pkg::MPT_KEY_LSB +: 32] == key
               && e[rnic_pkg::MPT_PD_LSB +: 16] == pd
               && (e[rnic_pkg::MPT_ACCESS_LSB +: 8] & rnic_pkg::ACCESS_REMOTE_READ[7:0]) != 0
               && va >= base && va - base <= size && 64'(len) <= size - (va - base);
    endfunction

    // ------------------------------------------------------------------
    // the jobs, as queued
    // ------------------------------------------------------------------
    logic [HB-1:0] j_tmpl [MAXJ];
    logic [QW-1:0] j_qpn [MAXJ];
    logic          j_raw [MAXJ];
    logic          j_plain [MAXJ];    // a plain ACK (raw)
    logic          j_absorbed [MAXJ]; // its PSN and MSN went out in an earlier plain ACK's header
    logic          j_tacked [MAXJ];   // a READ whose trailing ACK went out
    logic [31:0]   j_len [MAXJ], j_rkey [MAXJ];
    logic [63:0]   j_va [MAXJ];
    logic [15:0]   j_pd [MAXJ];
    logic [2:0]    j_pmtu [MAXJ];
    logic [3:0]    j_gen [MAXJ];
    logic          j_stale [MAXJ];    // may stop anywhere: went stale or its QP was reset
    logic          j_done [MAXJ];     // known to be over (last header out, or stopped)
    int            j_npk [MAXJ];      // packets
    int            j_okpk [MAXJ];     // packets before the first failing one
    int            njobs = 0;
    int            last_out = -1;     // the job whose last header left last

    function automatic int mtu_of(input logic [2:0] code);
        logic [2:0] c;
        c = (code < 3'(rnic_pkg::IB_MTU_256)) ? 3'(rnic_pkg::IB_MTU_256)
          : (code > 3'(rnic_pkg::IB_MTU_4096)) ? 3'(rnic_pkg::IB_MTU_4096) : code;
        return 128 << c;
    endfunction

    // packet k of job j: its header and payload range
    task automatic pkt(input int j, input int k, output logic [HB-1:0] h, output logic [31:0] seg,
                       output logic [63:0] pa, output logic ok);
        int mtu;
        logic [31:0] off, rest;
        logic first, last;
        logic [7:0] opc;
        h = j_tmpl[j];
        seg = 0;
        pa = 0;
        ok = 1'b1;
        if (!j_raw[j]) begin
            mtu = mtu_of(j_pmtu[j]);
            off = 32'(k) * 32'(mtu);
            rest = j_len[j] - off;
            first = k == 0;
            last = rest <= 32'(mtu);
            seg = last ? rest : 32'(mtu);
            opc = (first && last) ? rnic_pkg::OP_RDMA_READ_RESPONSE_ONLY[7:0]
                : first ? rnic_pkg::OP_RDMA_READ_RESPONSE_FIRST[7:0]
                : last ? rnic_pkg::OP_RDMA_READ_RESPONSE_LAST[7:0] : rnic_pkg::OP_RDMA_READ_RESPONSE_MIDDLE[7:0];
            h[rnic_hdr_pkg::HDR_BTH_OPCODE_LSB +: rnic_hdr_pkg::HDR_BTH_OPCODE_W] = opc;
            h[rnic_hdr_pkg::HDR_BTH_SE_LSB] = 1'b0;
            h[rnic_hdr_pkg::HDR_BTH_PAD_LSB +: rnic_hdr_pkg::HDR_BTH_PAD_W] = 2'((4 - seg % 4) % 4);
            h[rnic_hdr_pkg::HDR_BTH_ACKREQ_LSB] = 1'b0;
            h[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W] =
                j_tmpl[j][rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W] + 24'(k);
            h[rnic_hdr_pkg::HDR_HAS_RETH_LSB] = 1'b0;
            h[rnic_hdr_pkg::HDR_HAS_AETH_LSB] = first || last;
            h[rnic_hdr_pkg::HDR_HAS_IMMDT_LSB] = 1'b0;
            h[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W] = seg[15:0];
            ok = seg == 0 || pkt_ok(j_rkey[j], j_pd[j], j_va[j] + 64'(off), seg);
            pa = pa_of(j_rkey[j], j_va[j] + 64'(off));
        end
    endtask

    // a new job for the job port
    logic [3:0] gen_cur [2**QW];
    int next_psn [2**QW];
    task automatic make_job(input int j);
        logic [HB-1:0] h;
        logic [31:0] seg;
        logic [63:0] pa;
        logic ok;
        int q, mtu, kind, idx;
        for (int i = 0; i < HB; i += 32) h[i +: 32] = rnd();
        // a template is the responder's ACK header: only its fields set
        h &= rnic_hdr_pkg::HDR_MASK_ACK;
        q = rnd() % NQP;
        j_qpn[j] = QW'(q);
        j_raw[j] = (rnd() % 100) < 30;
        j_plain[j] = j_raw[j] && (rnd() % 100) < 80;
        j_absorbed[j] = 1'b0;
        j_tacked[j] = 1'b0;
        // a raw job is an ACK or NAK: no payload (the transmit arbiter
        // takes m_hdr_pay, not the length, for whether a payload follows)
        if (j_raw[j]) h[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W] = '0;
        j_pmtu[j] = ((rnd() % 100) < 10) ? 3'(rnd() % 8 == 0 ? 0 : 6 + rnd() % 2) : 3'(1 + rnd() % 5);
        mtu = mtu_of(j_pmtu[j]);
        case (rnd() % 8)
            0: j_len[j] = 0;
            1: j_len[j] = 32'(1 + rnd() % 8);
            2: j_len[j] = 32'(mtu);
            3: j_len[j] = 32'(mtu - 1);
            4: j_len[j] = 32'(mtu + 1);
            default: j_len[j] = 32'(rnd() % (3 * mtu + 1));
        endcase
        j_npk[j] = j_raw[j] ? 1 : (j_len[j] == 0) ? 1 : int'((j_len[j] + 32'(mtu) - 1) / 32'(mtu));
        h[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W] = 24'(next_psn[q]);
        if (!j_raw[j]) next_psn[q] = (next_psn[q] + j_npk[j]) % (1 << rnic_hdr_pkg::HDR_BTH_PSN_W);
        j_tmpl[j] = h;
        // mostly right; some fail at some packet
        kind = rnd() % 100;
        idx = 1 + q;
        j_pd[j] = 16'(q + 1);
        j_va[j] = mr_va(idx) + 64'((j % 1000) * 65536 + rnd() % 64);
        if (kind < 4) begin
            idx = 12 + q;                                   // no REMOTE_READ
            j_va[j] = mr_va(idx) + 64'(rnd() % 4096);
        end else if (kind < 8) begin
            idx = 8 + q;                                    // runs past the end
            j_va[j] = mr_va(idx) + SMALL_LEN - 64'(rnd() % (2 * mtu + 1));
        end else if (kind < 10) begin
            j_pd[j] = 16'(q + 2);                           // another PD
        end
        j_rkey[j] = mkey(idx) ^ ((kind >= 10 && kind < 12) ? 32'h1 : 32'h0);  // a stale tag
        j_gen[j] = ((rnd() % 100) < 3) ? gen_cur[q] - 4'd1 : gen_cur[q];
        j_stale[j] = !j_raw[j] && j_gen[j] != gen_cur[q];
        j_done[j] = 1'b0;
        j_okpk[j] = j_npk[j];
        for (int k = j_npk[j] - 1; k >= 0; k--) begin
            pkt(j, k, h, seg, pa, ok);
            if (!ok) j_okpk[j] = k;
        end
    endtask

    // ------------------------------------------------------------------
    // headers: each must be the next packet of the job in hand, or (that
    // job stopped early, as it may) the first of a later one
    // ------------------------------------------------------------------
    int hp_job = 0, hp_pkt = 0;
    int hdrs_read = 0, hdrs_raw = 0, cut_stale = 0, cut_bad = 0, resps = 0, access_errs = 0;
    logic [63:0] exp_pa [$];
    logic [31:0] exp_len [$];
    logic [63:0] got_pa [$];
    logic [31:0] got_len [$];

    function automatic logic may_stop(input int j, input int k);
        return j_stale[j] || j_absorbed[j] || (k == j_okpk[j] && k < j_npk[j]);
    endfunction

    // the job in hand stopped early, as it may
    int absorbed = 0;
    task automatic skip_job;
        if (j_absorbed[hp_job]) absorbed++;
        else if (j_stale[hp_job]) cut_stale++;
        else cut_bad++;
        j_done[hp_job] = 1'b1;
        hp_job++;
        hp_pkt = 0;
    endtask

    // got is plain ACK j's header with the PSN and MSN of a later plain ACK
    // k of its QP, every job of the QP in between a plain ACK too: those
    // are marked absorbed (they send nothing)
    int tacks = 0;
    function automatic logic coalesced(input int j, input logic [HB-1:0] got);
        logic [HB-1:0] h, t;
        logic run;
        run = 1'b1;
        for (int k = j + 1; k < njobs && run; k++) begin
            if (j_qpn[k] == j_qpn[j]) begin
                if (!j_plain[k]) begin
                    run = 1'b0;
                end else begin
                    h = j_tmpl[j];
                    t = j_tmpl[k];
                    h[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W] =
                        t[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W];
                    h[rnic_hdr_pkg::HDR_AETH_MSN_LSB +: rnic_hdr_pkg::HDR_AETH_MSN_W] =
                        t[rnic_hdr_pkg::HDR_AETH_MSN_LSB +: rnic_hdr_pkg::HDR_AETH_MSN_W];
                    h[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W] = '0;
                    if (got === h) begin
                        for (int m = j + 1; m <= k; m++) if (j_qpn[m] == j_qpn[j]) j_absorbed[m] = 1'b1;
                        return 1'b1;
                    end
                end
            end
        end
        return 1'b0;
    endfunction

    // got is the ACK after READ j (a recent one, or the one in hand if it
    // may stop here): j's template with the PSN and MSN of a run of plain
    // ACKs of its QP after it
    function automatic logic tack_match(input logic [HB-1:0] got);
        int lo;
        lo = hp_job - 16 < 0 ? 0 : hp_job - 16;
        for (int j = hp_job; j >= lo; j--) begin
            if (j < njobs && !j_raw[j] && !j_tacked[j] && (j < hp_job || may_stop(hp_job, hp_pkt))
                && coalesced(j, got)) begin
                j_tacked[j] = 1'b1;
                if (j == hp_job) skip_job;
                return 1'b1;
            end
        end
        return 1'b0;
    endfunction

    task automatic take_hdr(input logic [HB-1:0] got);
        logic [HB-1:0] h;
        logic [31:0] seg;
        logic [63:0] pa;
        logic ok, over;
        over = 1'b0;
        while (!over) begin
            if (hp_job >= njobs) begin
                fail("a header with no job left");
                over = 1'b1;
            end else begin
                pkt(hp_job, hp_pkt, h, seg, pa, ok);
                if (hp_pkt < j_okpk[hp_job] && got === h) begin
                    if (j_raw[hp_job]) hdrs_raw++;
                    else hdrs_read++;
                    if (seg != 0) begin
                        exp_pa.push_back(pa);
                        exp_len.push_back(seg);
                    end
                    hp_pkt++;
                    if (hp_pkt == j_npk[hp_job]) begin
                        j_done[hp_job] = 1'b1;
                        last_out = hp_job;
                        hp_job++;
                        hp_pkt = 0;
                    end
                    over = 1'b1;
                end else if (j_plain[hp_job] && !j_absorbed[hp_job] && coalesced(hp_job, got)) begin
                    // a plain ACK with the PSN and MSN of later ones
                    hdrs_raw++;
                    j_done[hp_job] = 1'b1;
                    last_out = hp_job;
                    hp_job++;
                    hp_pkt = 0;
                    over = 1'b1;
                end else if (tack_match(got)) begin
                    // the ACK after a READ (hp_job's, if it stopped here)
                    tacks++;
                    hdrs_raw++;
                    over = 1'b1;
                end else if (!may_stop(hp_job, hp_pkt)) begin
                    fail($sformatf("job %0d (QP %0d, %s, len %0d, MTU %0d) packet %0d: header differs in bits %h",
                                   hp_job, j_qpn[hp_job], j_raw[hp_job] ? "raw" : "READ", j_len[hp_job],
                                   mtu_of(j_pmtu[hp_job]), hp_pkt, got ^ h));
                    over = 1'b1;
                end else begin
                    skip_job;
                end
            end
        end
    endtask

    // ------------------------------------------------------------------
    // payload answers: in order, after a random delay
    // ------------------------------------------------------------------
    int st_due [$];
    logic [QW-1:0] st_qpn [$];
    logic [63:0] st_pa [$];
    logic [31:0] st_len [$];
    logic [33:0] clear_line [2**QW];   // the 64-byte line pend_at said was clear
    int selective_lows = 0;
    // a payload read of q unanswered over the line of pa
    function automatic logic out_over(input logic [QW-1:0] q, input logic [39:0] pa);
        logic [63:0] a, e;
        for (int i = 0; i < st_qpn.size(); i++) begin
            a = st_pa[i];
            e = a + 64'(st_len[i]) - 64'd1;
            if (st_qpn[i] == q && st_len[i] != 0
                && (mr_of(a) != pend_at_mr || (pa[39:6] >= a[39:6] && pa[39:6] <= e[39:6]))) return 1'b1;
        end
        return 1'b0;
    endfunction
    int out_n [2**QW];     // payload reads of a QP asked for, not answered
    int last_due = 0, window_hits = 0, clear_probes = 0, last_act = 0;
    // pend said "nothing of this QP" and no job of it came since; a reset
    // since then lets a payload read of a job it killed still go out (the
    // job no longer counts, the read was already decided)
    logic clear_at [2**QW], clear_rd [2**QW], reset_since [2**QW];
    int slow_status = 0;   // status delay mode

    // a header must still come: the job in hand cannot stop here, or a
    // later one has a packet it must send
    function automatic logic pending_out;
        if (hp_job < njobs && !may_stop(hp_job, hp_pkt)) return 1'b1;
        for (int j = hp_job + 1; j < njobs; j++) if (!j_stale[j] && j_okpk[j] > 0) return 1'b1;
        return 1'b0;
    endfunction

    // a job of q whose headers have not all been seen
    function automatic logic jobs_left(input logic [QW-1:0] q);
        for (int j = hp_job; j < njobs; j++) if (j_qpn[j] == q && !j_done[j]) return 1'b1;
        return 1'b0;
    endfunction

    function automatic int cnt_bound(input logic [QW-1:0] q, input logic [3:0] g);
        int n;
        n = 0;
        for (int j = hp_job; j < njobs; j++)
            if (j_qpn[j] == q && !j_raw[j] && j_gen[j] == g && !j_done[j]) n++;
        // the DUT may still hold the job whose last header left last (its
        // payload read not yet asked for, or the step after it)
        if (last_out >= 0 && j_qpn[last_out] == q && !j_raw[last_out] && j_gen[last_out] == g) n++;
        return n;
    endfunction

    // ------------------------------------------------------------------
    // the run
    // ------------------------------------------------------------------
    int pushed, hdr_load, pay_load, job_load, full_hdr = 0, full_pay = 0;
    int resets = 0, bumps = 0, nbad, nbad_clean;
    logic job_fire, stuck = 1'b0, hdr_fire, pay_fire, last_cap, st_fire, rs_fire;
    logic [HB-1:0] hdr_cap;
    logic [63:0] pa_cap;
    logic [31:0] len_cap;
    logic [QW-1:0] rs_qpn;
    logic [39:0] span_pa;
    logic plain_wait = 1'b0;
    logic [40:0] span_end;

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        mpt_init();
        for (int q = 0; q < 2 ** QW; q++) begin
            gen_cur[q] = 4'(rnd());
            next_psn[q] = (q % 2) ? 24'hfffff0 + q : rnd() % (1 << rnic_hdr_pkg::HDR_BTH_PSN_W);
            out_n[q] = 0;
            clear_at[q] = 1'b0;
            clear_rd[q] = 1'b0;
            reset_since[q] = 1'b0;
        end
        repeat (4) @(posedge clk);
        #1 rst = 1'b0;
        for (int b = 0; b < BATCHES; b++) begin
            pushed = 0;
            for (int c = 0; !stuck && (pushed < JOBS_PER_BATCH || c < 200 || st_due.size() != 0 || m_hdr_valid
                             || pending_out() || cyc - last_act < 64); c++) begin
                if (c > 200000) begin
                    fail($sformatf("batch %0d does not drain: job %0d of %0d, %0d answers due", b, hp_job,
                                   njobs, st_due.size()));
                    stuck = 1'b1;
                end
                // this cycle's load
                job_load = ((cyc / 700) % 3 == 0) ? 90 : 40;
                hdr_load = ((cyc / 400) % 2 == 0) ? 85 : 20;
                pay_load = ((cyc / 300) % 2 == 0) ? 90 : 30;
                slow_status = (cyc / 500) % 2;
                if (plain_wait) begin
                    // a plain ACK is offered with its QP as it was the cycle before
                    s_job_valid = 1'b1;
                    plain_wait = 1'b0;
                end else if (!s_job_valid && pushed < JOBS_PER_BATCH && njobs < MAXJ && (rnd() % 100) < job_load) begin
                    make_job(njobs);
                    s_job_valid = !j_plain[njobs];
                    plain_wait = j_plain[njobs];
                    s_job_hdr = j_tmpl[njobs];
                    s_job_va = j_va[njobs];
                    s_job_rkey = j_rkey[njobs];
                    s_job_pd = j_pd[njobs];
                    s_job_len = j_len[njobs];
                    s_job_pmtu = j_pmtu[njobs];
                    s_job_qpn = j_qpn[njobs];
                    s_job_gen = j_gen[njobs];
                    s_job_raw = j_raw[njobs];
                    s_job_plain = j_plain[njobs];
                    // the span the responder translated at the request
                    span_pa = j_raw[njobs] ? 40'(rnd()) : 40'(pa_of(j_rkey[njobs], j_va[njobs]));
                    span_end = {1'b0, span_pa} + 41'(j_len[njobs]) - 41'd1;
                    s_job_span_first = span_pa[39:6];
                    s_job_span_last = span_end[40:6];
                    s_job_span_nz = !j_raw[njobs] && j_len[njobs] != 0;
                end
                m_hdr_ready = (rnd() % 100) < hdr_load;
                pay_ready = (rnd() % 100) < pay_load;
                qp_reset_valid = (rnd() % 1000) < 2;
                qp_reset_qpn = QW'(rnd() % NQP);
                // a new read generation (the requester asked again)
                if ((rnd() % 1000) < 4) begin
                    int q;
                    q = rnd() % NQP;
                    gen_cur[q] = gen_cur[q] + 4'd1;
                    bumps++;
                    for (int j = hp_job; j < njobs; j++)
                        if (j_qpn[j] == QW'(q) && !j_raw[j] && j_gen[j] != gen_cur[q]) j_stale[j] = 1'b1;
                    if (s_job_valid && s_job_qpn == QW'(q) && !s_job_raw) begin
                        // the job on the port was made for the old generation
                        j_stale[njobs] = 1'b1;
                    end
                end
                pay_status_valid = st_due.size() != 0 && st_due[0] <= cyc;
                pend_at_qpn = QW'(rnd());
                // the ATOMIC's address: held for a few cycles (the responder
                // holds it while it waits), then a byte of an unanswered
                // payload read, a job's first byte, or anywhere
                if (cyc % 4 == 0) begin
                    case (rnd() % 6)
                        0, 1, 2, 3: if (st_pa.size() != 0) begin
                            int i;
                            i = rnd() % st_pa.size();
                            pend_at_pa = 40'(st_pa[i] + 64'(rnd() % (st_len[i] + 1)));
                            pend_at_qpn = st_qpn[i];
                        end
                        4: if (njobs > 0) pend_at_pa = 40'(pa_of(j_rkey[njobs - 1], j_va[njobs - 1]));
                        default: pend_at_pa = 40'(rnd()) | (40'(rnd() % NQP) << QP_LSB);
                    endcase
                    pend_at_pa[2:0] = 3'd0;
                    // its rkey's entry: the region of the address, now and
                    // then another (which may map the same pages)
                    pend_at_mr = ((rnd() % 8) == 0) ? MW'(rnd()) : mr_of(64'(pend_at_pa));
                end
                pend_rd_qpn = QW'(rnd());
                // the QP held for two cycles: the count comes a cycle after it
                if ((cyc % 2) == 0) cnt_rd_qpn = QW'(rnd() % NQP);
                cnt_rd_gen = ((rnd() % 2) != 0) ? gen_cur[cnt_rd_qpn] : 4'(rnd());
                #0.5;
                rgen_rd_val = gen_cur[rgen_rd_qpn];
                #0.5;
                // the checks of this cycle
                // (the address of 3 cycles before and since: the DUT's
                // compares are registered, and the probe holds 4 cycles)
                if (cyc % 4 == 3 && !pend_at_val && out_over(pend_at_qpn, pend_at_pa))
                    fail($sformatf("pend_at low for QP %0d at %h with a payload read of that line unanswered",
                                   pend_at_qpn, pend_at_pa));
                if (cyc % 4 == 3 && pend_at_val && out_over(pend_at_qpn, pend_at_pa) && !jobs_left(pend_at_qpn))
                    window_hits++;
                if (cyc % 4 == 3 && !pend_at_val) begin
                    if (out_n[pend_at_qpn] != 0) selective_lows++;
                    clear_at[pend_at_qpn] = 1'b1;
                    clear_line[pend_at_qpn] = pend_at_pa[39:6];
                    clear_probes++;
                end
                if (!pend_rd_val) clear_rd[pend_rd_qpn] = 1'b1;
                if (pend_at_qpn >= QW'(NQP) && pend_at_val) fail("pend_at for a QP that never had a job");
                if (cnt_prev_ok && cnt_prev_qpn == cnt_rd_qpn
                    && 32'(cnt_rd_val) > 32'(cnt_bound(cnt_prev_qpn, cnt_prev_gen)))
                    fail($sformatf("cnt_rd %0d for QP %0d gen %0d, at most %0d queued", cnt_rd_val,
                                   cnt_prev_qpn, cnt_prev_gen, cnt_bound(cnt_prev_qpn, cnt_prev_gen)));
                if (pay_valid && pay_ready && clear_at[qp_of(pay_addr)] && !reset_since[qp_of(pay_addr)]
                    && pay_len != 0 && clear_line[qp_of(pay_addr)] >= pay_addr[39:6]
                    && clear_line[qp_of(pay_addr)] <= 34'((pay_addr + 64'(pay_len) - 64'd1) >> 6))
                    fail($sformatf("payload read of QP %0d over line %h after pend_at said none", qp_of(pay_addr),
                                   clear_line[qp_of(pay_addr)]));
                if (m_hdr_valid && m_hdr_ready) begin
                    logic [QW-1:0] hq;
                    if (m_hdr_pay != (m_hdr[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W] != 0))
                        fail($sformatf("header's payload flag %0d, its length %0d", m_hdr_pay,
                                       m_hdr[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W]));
                    hq = (hp_job < njobs) ? j_qpn[hp_job] : '0;
                    // the header's QP: that of the job it must match (take_hdr checks it)
                    if (hp_job < njobs && !may_stop(hp_job, hp_pkt) && clear_rd[hq])
                        fail($sformatf("header of QP %0d after pend said none", hq));
                end
                if (!m_hdr_ready && m_hdr_valid && hdr_load < 50) full_hdr++;
                if (pay_valid && !pay_ready) full_pay++;
                // what the DUT takes at this edge, sampled before it
                job_fire = s_job_valid && s_job_ready;
                hdr_fire = m_hdr_valid && m_hdr_ready;
                hdr_cap = m_hdr;
                pay_fire = pay_valid && pay_ready;
                pa_cap = pay_addr;
                len_cap = pay_len;
                last_cap = pay_last;
                st_fire = pay_status_valid;
                rs_fire = qp_reset_valid;
                rs_qpn = qp_reset_qpn;
                cnt_prev_qpn = cnt_rd_qpn;
                cnt_prev_gen = cnt_rd_gen + 4'(qp_reset_valid && qp_reset_qpn == cnt_rd_qpn);
                cnt_prev_ok = 1'b1;
                if (stat_tx_read_resp) resps++;
                if (stat_access_err) access_errs++;
                @(posedge clk);
                // the model steps with the DUT
                if (hdr_fire || pay_fire || job_fire || st_fire) last_act = cyc;   // an answer frees room for a read
                if (hdr_fire) take_hdr(hdr_cap);
                if (pay_fire) begin
                    int d;
                    d = slow_status ? 100 + rnd() % 300 : 1 + rnd() % 20;
                    last_due = (cyc + d > last_due) ? cyc + d : last_due + 1;
                    st_due.push_back(last_due);
                    st_qpn.push_back(qp_of(pa_cap));
                    st_pa.push_back(pa_cap);
                    st_len.push_back(len_cap);
                    out_n[qp_of(pa_cap)]++;
                    got_pa.push_back(pa_cap);
                    got_len.push_back(len_cap);
                    if (!last_cap) fail("payload descriptor not marked last");
                end
                if (st_fire) begin
                    out_n[st_qpn[0]]--;
                    st_due.delete(0);
                    st_qpn.delete(0);
                    st_pa.delete(0);
                    st_len.delete(0);
                end
                if (rs_fire) begin
                    resets++;
                    reset_since[rs_qpn] = 1'b1;
                    for (int j = hp_job; j < njobs + (job_fire ? 1 : 0); j++)
                        if (j_qpn[j] == rs_qpn) j_stale[j] = 1'b1;
                end
                if (job_fire) begin
                    clear_at[j_qpn[njobs]] = 1'b0;
                    clear_rd[j_qpn[njobs]] = 1'b0;
                    reset_since[j_qpn[njobs]] = 1'b0;
                    njobs++;
                    pushed++;
                end
                while (got_pa.size() != 0 && exp_pa.size() != 0) begin
                    if (got_pa[0] !== exp_pa[0] || got_len[0] !== exp_len[0])
                        fail($sformatf("payload read %h+%0d, want %h+%0d", got_pa[0], got_len[0], exp_pa[0],
                                       exp_len[0]));
                    got_pa.delete(0);
                    got_len.delete(0);
                    exp_pa.delete(0);
                    exp_len.delete(0);
                end
                // inputs change only away from the edge
                #0.5;
                if (job_fire) s_job_valid = 1'b0;
            end
            // nothing more goes in while the batch is checked
            pay_status_valid = 1'b0;
            qp_reset_valid = 1'b0;
            m_hdr_ready = 1'b0;
            pay_ready = 1'b0;
            // the jobs that stopped at the end of the batch
            while (hp_job < njobs && may_stop(hp_job, hp_pkt)) skip_job;
            repeat (8) @(posedge clk);
            #0.5;
            // idle: nothing pending anywhere
            for (int q = 0; q < 2 ** QW; q++) begin
                pend_at_qpn = QW'(q);
                pend_rd_qpn = QW'(q);
                cnt_rd_qpn = QW'(q);
                cnt_rd_gen = gen_cur[q];
                cnt_prev_ok = 1'b0;
                @(posedge clk);
                #0.5;
                if (pend_at_val || pend_rd_val || cnt_rd_val != 0)
                    fail($sformatf("batch %0d drained, QP %0d: pend_at %b pend_rd %b cnt_rd %0d", b, q,
                                   pend_at_val, pend_rd_val, cnt_rd_val));
            end
            if (hp_job != njobs || got_pa.size() != 0 || exp_pa.size() != 0 || s_job_valid)
                fail($sformatf("batch %0d: job %0d of %0d, %0d/%0d payload reads unpaired", b, hp_job, njobs,
                               got_pa.size(), exp_pa.size()));
            @(posedge clk);
            #0.5;
        end
        if (resps != hdrs_read) fail($sformatf("%0d READ responses counted, %0d sent", resps, hdrs_read));
        nbad = 0;
        nbad_clean = 0;
        for (int j = 0; j < njobs; j++)
            if (j_okpk[j] < j_npk[j]) begin
                nbad++;
                if (!j_stale[j]) nbad_clean++;
            end
        // every failing packet of a job still current is counted, no other
        if (access_errs < nbad_clean || access_errs > nbad)
            fail($sformatf("%0d access errors counted, %0d jobs with a failing packet (%0d never stale)",
                           access_errs, nbad, nbad_clean));
        // enough of everything happened for the checks to mean something
        if (njobs != BATCHES * JOBS_PER_BATCH || hdrs_read < njobs / 2 || hdrs_raw < njobs / 10
            || cut_stale < 20 || cut_bad < 20 || window_hits < 60 || clear_probes < 1000 || selective_lows < 60 || absorbed < 50 || tacks < 20
            || full_hdr < 1000 || full_pay < 500)
            fail($sformatf("weak run: %0d jobs, %0d READ and %0d raw headers, %0d stale and %0d bad stops, %0d window probes, %0d/%0d clear probes (with other reads out), %0d/%0d stalled cycles",
                           njobs, hdrs_read, hdrs_raw, cut_stale, cut_bad, window_hits, clear_probes, selective_lows,
                           full_hdr, full_pay));
        $display("rnic_rd_resp: %0d jobs, %0d READ response and %0d raw headers, %0d jobs stopped stale and %0d at a bad packet (%0d access errors), %0d resets, %0d generation changes, %0d probes with only payload reads left, %0d probes clear while other reads of the QP were out, %0d plain ACKs coalesced (%0d sent after a READ), %0d errors",
                 njobs, hdrs_read, hdrs_raw, cut_stale, cut_bad, access_errs, resets, bumps, window_hits, selective_lows,
                 absorbed, tacks, errors);
        if (errors == 0) $display("TB PASS");
        $finish;
    end
endmodule
