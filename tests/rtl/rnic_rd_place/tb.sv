`timescale 1ns / 1ps
`default_nettype none

// rnic_rd_place: batches of READs (1..4 SGEs, random lengths, path MTU 256)
// and ATOMICs on 4 QPs, their SGE lists handed over as the requester does
// when it sends them, then one placement command per response packet (the
// READs of a batch interleaved packet by packet, a few dropped), payloads
// with random valid gaps, random ready on the WQE fetch, the write
// descriptors and the write data, write statuses after random delays.
// Host memory is a byte array; an image of what it must hold is updated
// per placed packet and compared at the end of each batch.
// Phase 1: every READ of a batch has its own table entry and the SQ ring
// holds WQEs without SGEs, so only the table can place the data: no WQE
// may be fetched and no check may fail. Phase 2: half the SGE lists are
// not handed over and entries collide; the ring holds the real WQEs: the
// data must still be right, and WQEs must have been fetched. Phase 3: as
// phase 1, but some SGEs carry a key their MR no longer has (the MR changed
// under the READ) and some ATOMICs split their 8 bytes over two SGEs: a
// packet's bytes are written up to the first failing SGE and the rest is
// dropped, one protection error per such packet, and the packets after it
// (of the same READ or others) are still placed right, also when the
// written piece ended inside a beat. Every other batch of phase 3 runs with
// no gaps on the command, payload and write streams, so packets follow each
// other as closely as the engine allows.
module tb #(parameter int DATA_WIDTH = 64);
    localparam int KW = DATA_WIDTH / 8;
    localparam int QW = 3;            // QPN bits
    localparam int MW = 4;            // MR index bits
    localparam int IL = 4;            // in-flight window
    localparam int RL = 3;            // table: 8 entries
    localparam int NQP = 4;
    localparam int WB = rnic_pkg::WQE_BYTES_TOTAL;
    localparam int WQE_BEATS = (WB + KW - 1) / KW;
    localparam int SGE_AREA = rnic_pkg::MAX_SEND_SGE * rnic_pkg::SGE_BYTES;
    localparam int MTU = 256;
    localparam int SQ_LOG = 4;
    localparam int MEM = 65536;
    localparam int RING0 = 0;         // QP q's SQ ring at q * 2 KiB
    localparam int DATA0 = 16384;     // QP q's MR: 12 KiB at DATA0 + q * 12 KiB (bus)
    localparam int MR_LEN = 12288;
    localparam logic [63:0] VA0 = 64'h0000_7f00_0000_0000;  // its virtual address
    localparam int BATCHES = 40;

    logic clk = 0, rst = 1;
    always #5 clk = ~clk;
    int seed, errors;
    int cyc = 0;
    always @(posedge clk) cyc <= cyc + 1;

    // DUT ports
    logic s_cmd_valid, s_cmd_ready, s_cmd_drop, s_cmd_atomic;
    logic [QW-1:0] s_cmd_qpn;
    logic [15:0] s_cmd_idx, s_cmd_len;
    logic [31:0] s_cmd_off;
    logic [63:0] s_cmd_data;
    logic [DATA_WIDTH-1:0] pay_tdata;
    logic [KW-1:0] pay_tkeep;
    logic pay_tvalid, pay_tready, pay_tlast;
    logic qpc_rd_en, mpt_rd_en;
    logic [QW-1:0] qpc_rd_addr;
    logic [MW-1:0] mpt_rd_addr;
    logic [rnic_pkg::QPC_BITS-1:0] qpc_rd_data;
    logic [rnic_pkg::MPT_BITS-1:0] mpt_rd_data;
    logic rdw_valid;
    logic [QW-1:0] rdw_qpn;
    logic [15:0] rdw_idx;
    logic [7:0] rdw_nsge;
    logic [8*SGE_AREA-1:0] rdw_sges;
    logic [63:0] wqe_desc_addr, wr_desc_addr;
    logic [31:0] wqe_desc_len, wr_desc_len;
    logic wqe_desc_last, wqe_desc_valid, wqe_desc_ready;
    logic [DATA_WIDTH-1:0] wqe_tdata, wr_tdata;
    logic [KW-1:0] wqe_tkeep, wr_tkeep;
    logic wqe_tvalid, wqe_tready, wqe_tlast, wqe_st_valid;
    logic wr_desc_valid, wr_desc_ready, wr_tvalid, wr_tready, wr_tlast, wr_st_valid;
    logic busy, stat_loc_prot_err, init_done;

    rnic_rd_place #(.DATA_WIDTH(DATA_WIDTH), .QPN_WIDTH(QW), .MR_INDEX_WIDTH(MW), .INFLIGHT_LOG2(IL),
                    .RDC_LOG2(RL)) dut (
        .clk, .rst,
        .s_cmd_valid, .s_cmd_ready, .s_cmd_drop, .s_cmd_qpn, .s_cmd_idx, .s_cmd_off, .s_cmd_len,
        .s_cmd_atomic, .s_cmd_data,
        .s_axis_payload_tdata(pay_tdata), .s_axis_payload_tkeep(pay_tkeep), .s_axis_payload_tvalid(pay_tvalid),
        .s_axis_payload_tready(pay_tready), .s_axis_payload_tlast(pay_tlast),
        .qpc_rd_en, .qpc_rd_addr, .qpc_rd_data, .mpt_rd_en, .mpt_rd_addr, .mpt_rd_data,
        .qp_reset_valid(1'b0),
        .s_rd_wqe_valid(rdw_valid), .s_rd_wqe_qpn(rdw_qpn), .s_rd_wqe_idx(rdw_idx),
        .s_rd_wqe_num_sge(rdw_nsge), .s_rd_wqe_sges(rdw_sges),
        .m_axis_wqe_desc_addr(wqe_desc_addr), .m_axis_wqe_desc_len(wqe_desc_len),
        .m_axis_wqe_desc_last(wqe_desc_last), .m_axis_wqe_desc_valid(wqe_desc_valid),
        .m_axis_wqe_desc_ready(wqe_desc_ready),
        .s_axis_wqe_tdata(wqe_tdata), .s_axis_wqe_tkeep(wqe_tkeep), .s_axis_wqe_tvalid(wqe_tvalid),
        .s_axis_wqe_tready(wqe_tready), .s_axis_wqe_tlast(wqe_tlast),
        .s_wqe_status_valid(wqe_st_valid), .s_wqe_status_error(1'b0),
        .m_axis_wr_desc_addr(wr_desc_addr), .m_axis_wr_desc_len(wr_desc_len),
        .m_axis_wr_desc_valid(wr_desc_valid), .m_axis_wr_desc_ready(wr_desc_ready),
        .m_axis_wr_data_tdata(wr_tdata), .m_axis_wr_data_tkeep(wr_tkeep), .m_axis_wr_data_tvalid(wr_tvalid),
        .m_axis_wr_data_tready(wr_tready), .m_axis_wr_data_tlast(wr_tlast),
        .s_wr_status_valid(wr_st_valid), .s_wr_status_error(1'b0),
        .busy, .stat_loc_prot_err, .init_done
    );

    // ------------------------------------------------------------ contexts
    logic [rnic_pkg::QPC_BITS-1:0] qpc_tab [2**QW];
    logic [rnic_pkg::MPT_BITS-1:0] mpt_tab [2**MW];
    always @(posedge clk) begin
        if (qpc_rd_en) qpc_rd_data <= qpc_tab[qpc_rd_addr];
        if (mpt_rd_en) mpt_rd_data <= mpt_tab[mpt_rd_addr];
    end
    function automatic logic [31:0] lkey(input int q);
        return {24'(q + 1), 8'(8'h40 + q)};   // MPT index q + 1, a tag of its own
    endfunction
    // the same MR with a stale tag: the check fails
    function automatic logic [31:0] bad_lkey(input int q);
        return {24'(q + 1), 8'(8'h80 + q)};
    endfunction
    bit fast;   // no gaps on the streams

    // ------------------------------------------------------------ host memory
    logic [7:0] mem [MEM];
    logic [7:0] img [MEM];

    // WQE fetches: one descriptor at a time, beats with gaps, the status
    // a few cycles after the last beat
    int n_fetch, wqe_beat, wqe_st_wait;
    logic [63:0] wqe_addr;
    logic wqe_active;
    always @(posedge clk) begin
        wqe_st_valid <= 1'b0;
        if (rst) begin
            wqe_active <= 1'b0;
            wqe_tvalid <= 1'b0;
            wqe_st_wait <= 0;
        end else begin
            if (wqe_desc_valid && wqe_desc_ready) begin
                if (wqe_active || wqe_desc_len != 32'(WB)) begin
                    $display("ERROR WQE fetch: second descriptor or length %0d", wqe_desc_len);
                    errors++;
                end
                wqe_active <= 1'b1;
                wqe_addr <= wqe_desc_addr;
                wqe_beat <= 0;
                n_fetch <= n_fetch + 1;
            end
            if (wqe_tvalid && wqe_tready) begin
                wqe_tvalid <= 1'b0;
                wqe_beat <= wqe_beat + 1;
                if (wqe_tlast) wqe_st_wait <= 1 + $urandom(seed) % 8;
            end else if (wqe_active && !wqe_tvalid && wqe_beat < WQE_BEATS && $urandom(seed) % 3 != 0) begin
                for (int i = 0; i < KW; i++)
                    wqe_tdata[8*i +: 8] <= (i + KW * wqe_beat < WB) ? mem[int'(wqe_addr) + i + KW * wqe_beat] : 8'h0;
                wqe_tkeep <= '1;
                wqe_tlast <= wqe_beat == WQE_BEATS - 1;
                wqe_tvalid <= 1'b1;
            end
            if (wqe_st_wait > 0) begin
                wqe_st_wait <= wqe_st_wait - 1;
                if (wqe_st_wait == 1) begin
                    wqe_st_valid <= 1'b1;
                    wqe_active <= 1'b0;
                end
            end
        end
    end

    // payload writes: descriptors queue, data beats land in memory in order,
    // one status per descriptor after a random delay, in order
    logic [63:0] wd_addr_q [$];
    int wd_len_q [$];
    int wr_cnt, n_wdesc, n_wstat, st_due_q [$];
    int c, dummy, due;
    logic [63:0] dummy64;
    always @(posedge clk) begin
        wr_st_valid <= 1'b0;
        if (rst) begin
            wr_cnt <= 0;
        end else begin
            if (wr_desc_valid && wr_desc_ready) begin
                wd_addr_q.push_back(wr_desc_addr);
                wd_len_q.push_back(int'(wr_desc_len));
                n_wdesc <= n_wdesc + 1;
            end
            if (wr_tvalid && wr_tready) begin
                c = wr_cnt;
                if (wd_addr_q.size() == 0) begin
                    $display("ERROR write data without a descriptor");
                    errors++;
                end else begin
                    for (int i = 0; i < KW; i++) begin
                        if (wr_tkeep[i]) begin
                            if (wd_addr_q[0] + 64'(c) >= 64'(MEM)) begin
                                $display("ERROR write outside host memory at %h", wd_addr_q[0] + 64'(c));
                                errors++;
                            end else begin
                                mem[int'(wd_addr_q[0]) + c] = wr_tdata[8*i +: 8];
                            end
                            c++;
                        end
                    end
                    dummy = wd_len_q[0];
                    if (wr_tlast != (c == dummy)) begin
                        $display("ERROR write of %0d bytes: tlast %b after %0d", wd_len_q[0], wr_tlast, c);
                        errors++;
                    end
                    if (wr_tlast) begin
                        dummy64 = wd_addr_q.pop_front();
                        dummy = wd_len_q.pop_front();
                        st_due_q.push_back(cyc + 2 + $urandom(seed) % 20);
                        c = 0;
                    end
                end
                wr_cnt <= c;
            end
            due = (st_due_q.size() > 0) ? st_due_q[0] : cyc + 1;
            if (due <= cyc) begin
                dummy = st_due_q.pop_front();
                wr_st_valid <= 1'b1;
                n_wstat <= n_wstat + 1;
            end
        end
    end

    // random ready on every stream toward the testbench
    always @(negedge clk) begin
        wqe_desc_ready = $urandom(seed) % 3 != 0;
        wr_desc_ready = fast || $urandom(seed) % 3 != 0;
        wr_tready = fast || $urandom(seed) % 4 != 0;
    end

    // ------------------------------------------------------------ work
    // the operations of a batch: QP, SQ index, SGEs (offset in the QP's MR,
    // length), message bytes, ATOMIC with its original value
    int op_q [8], op_idx [8], op_nsge [8], op_len [8];
    int op_soff [8][4], op_slen [8][4];
    bit op_bad [8][4];     // the SGE's key fails the check
    bit op_atomic [8];
    logic [63:0] op_orig [8];
    int nops;
    int next_idx [NQP];
    int cursor [NQP];      // where the next SGE goes in the QP's MR

    // commands and payload bytes, in order
    int exp_prot;          // protection errors the placed packets must count
    int c_q [$], c_idx [$], c_off [$], c_len [$];
    bit c_drop [$], c_atomic [$];
    logic [63:0] c_data [$];
    logic [7:0] pay_bytes [$];
    int pay_len_q [$];
    logic [7:0] pk [MTU];  // the packet being queued

    function automatic logic [63:0] sge_va(input int q, input int off);
        return VA0 + 64'(q) * 64'h1_0000_0000 + 64'(off);
    endfunction

    // the WQE of op k as the ring holds it (poisoned: no SGEs at all)
    task automatic ring_write(input int k, input bit poisoned);
        int base, e;
        logic [63:0] va;
        logic [31:0] key;
        base = RING0 + op_q[k] * 2048 + (op_idx[k] % (1 << SQ_LOG)) * WB;
        key = lkey(op_q[k]);
        for (int i = 0; i < WB; i++) mem[base + i] = 8'h0;
        mem[base + rnic_pkg::WQE_NUM_SGE_OFF] = poisoned ? 8'd0 : 8'(op_nsge[k]);
        for (int s = 0; s < op_nsge[k] && !poisoned; s++) begin
            e = base + rnic_pkg::WQE_SGE_OFF + s * rnic_pkg::SGE_BYTES;
            va = sge_va(op_q[k], op_soff[k][s]);
            for (int b = 0; b < 8; b++) mem[e + rnic_pkg::SGE_ADDR_OFF + b] = va[8*b +: 8];
            for (int b = 0; b < 4; b++) mem[e + rnic_pkg::SGE_LENGTH_OFF + b] = 8'(op_slen[k][s] >> (8 * b));
            key = op_bad[k][s] ? bad_lkey(op_q[k]) : lkey(op_q[k]);
            for (int b = 0; b < 4; b++) mem[e + rnic_pkg::SGE_LKEY_OFF + b] = key[8*b +: 8];
        end
    endtask

    // hand the SGE list of op k over, as the requester does when it sends it
    task automatic hand_over(input int k);
        @(negedge clk);
        rdw_valid = 1'b1;
        rdw_qpn = QW'(op_q[k]);
        rdw_idx = 16'(op_idx[k]);
        rdw_nsge = 8'(op_nsge[k]);
        rdw_sges = '0;
        for (int s = 0; s < op_nsge[k]; s++) begin
            rdw_sges[8 * (s * rnic_pkg::SGE_BYTES + rnic_pkg::SGE_ADDR_OFF) +: 64] = sge_va(op_q[k], op_soff[k][s]);
            rdw_sges[8 * (s * rnic_pkg::SGE_BYTES + rnic_pkg::SGE_LENGTH_OFF) +: 32] = 32'(op_slen[k][s]);
            rdw_sges[8 * (s * rnic_pkg::SGE_BYTES + rnic_pkg::SGE_LKEY_OFF) +: 32] =
                op_bad[k][s] ? bad_lkey(op_q[k]) : lkey(op_q[k]);
        end
        @(negedge clk);
        rdw_valid = 1'b0;
    endtask

    // op k: a new operation on a random QP; in phase 1 its table entry is
    // not shared with ops 0..k-1 of the batch. SQ indices advance by 1..2
    // (WRITEs in between), so a batch never reuses a ring slot.
    task automatic new_op(input int phase, input int k);
        bit clash;
        int q;
        q = $urandom(seed) % NQP;
        op_q[k] = q;
        do begin
            next_idx[q] = (next_idx[q] + 1 + $urandom(seed) % 2) % 65536;
            clash = 1'b0;
            for (int i = 0; i < k; i++)
                if (phase != 2 && op_idx[i] % (1 << RL) == next_idx[q] % (1 << RL)) clash = 1'b1;
        end while (clash);
        op_idx[k] = next_idx[q];
        op_atomic[k] = $urandom(seed) % 6 == 0;
        op_orig[k] = {$urandom(seed), $urandom(seed)};
        op_nsge[k] = op_atomic[k] ? ((phase == 3 && $urandom(seed) % 2 == 0) ? 2 : 1) : 1 + $urandom(seed) % 4;
        op_len[k] = 0;
        for (int s = 0; s < op_nsge[k]; s++) begin
            op_bad[k][s] = phase == 3 && $urandom(seed) % 5 == 0;
            if (op_atomic[k]) op_slen[k][s] = 8 / op_nsge[k];
            else op_slen[k][s] = ($urandom(seed) % 5 == 0) ? 0 : 1 + $urandom(seed) % 700;
            if (cursor[q] + op_slen[k][s] + 16 > MR_LEN) cursor[q] = 0;
            op_soff[k][s] = cursor[q] + $urandom(seed) % 8;
            cursor[q] = op_soff[k][s] + op_slen[k][s];
            op_len[k] += op_slen[k][s];
        end
    endtask

    // the image after op k places pk[0..n) at byte off of its message: up
    // to the first byte whose SGE fails the check, which counts an error
    task automatic image_place(input int k, input int off, input int n);
        int m, s;
        bit failed;
        failed = 1'b0;
        for (int b = 0; b < n && !failed; b++) begin
            m = off + b;
            s = 0;
            while (m >= op_slen[k][s]) begin
                m -= op_slen[k][s];
                s++;
            end
            if (op_bad[k][s]) begin
                exp_prot++;
                failed = 1'b1;
            end else begin
                img[DATA0 + op_q[k] * MR_LEN + op_soff[k][s] + m] = pk[b];
            end
        end
    endtask

    // the commands of a batch: packets of its operations interleaved, each
    // operation's in order; about one in ten dropped
    task automatic queue_batch;
        int sent [8];
        int left, k, plen;
        bit drop;
        left = 0;
        for (int i = 0; i < nops; i++) begin
            sent[i] = 0;
            left += op_atomic[i] ? 1 : (op_len[i] + MTU - 1) / MTU;
        end
        while (left > 0) begin
            do k = $urandom(seed) % nops;
            while (op_atomic[k] ? sent[k] != 0 : sent[k] >= op_len[k]);
            drop = $urandom(seed) % 10 == 0;
            c_q.push_back(op_q[k]);
            c_idx.push_back(op_idx[k]);
            c_drop.push_back(drop);
            c_atomic.push_back(op_atomic[k]);
            c_data.push_back(op_orig[k]);
            if (op_atomic[k]) begin
                // a dropped ATOMIC ACKNOWLEDGE comes with length 0, as the
                // completion engine sends it
                c_off.push_back(0);
                c_len.push_back(drop ? 0 : 8);
                for (int b = 0; b < 8; b++) pk[b] = op_orig[k][8*b +: 8];
                if (!drop) image_place(k, 0, 8);
                sent[k] = 1;
            end else begin
                plen = (op_len[k] - sent[k] < MTU) ? op_len[k] - sent[k] : MTU;
                for (int b = 0; b < plen; b++) begin
                    pk[b] = 8'($urandom(seed));
                    pay_bytes.push_back(pk[b]);
                end
                pay_len_q.push_back(plen);
                c_off.push_back(sent[k]);
                c_len.push_back(plen);
                if (!drop) image_place(k, sent[k], plen);
                sent[k] += plen;
            end
            left--;
        end
    endtask

    // command driver: random valid gaps
    int n_cmd;
    logic s_cmd_taken;
    always @(posedge clk) s_cmd_taken <= s_cmd_valid && s_cmd_ready;
    always @(negedge clk) begin
        if (!rst) begin
            if (s_cmd_valid && s_cmd_taken) begin
                s_cmd_valid = 1'b0;
                n_cmd++;
            end
            if (!s_cmd_valid && c_q.size() > 0 && (fast || $urandom(seed) % 3 != 0)) begin
                s_cmd_qpn = QW'(c_q.pop_front());
                s_cmd_idx = 16'(c_idx.pop_front());
                s_cmd_off = 32'(c_off.pop_front());
                s_cmd_len = 16'(c_len.pop_front());
                s_cmd_drop = c_drop.pop_front();
                s_cmd_atomic = c_atomic.pop_front();
                s_cmd_data = c_data.pop_front();
                s_cmd_valid = 1'b1;
            end
        end
    end

    // payload driver: dense beats, random valid gaps
    int pay_left;
    logic pay_taken;
    always @(posedge clk) pay_taken <= pay_tvalid && pay_tready;
    always @(negedge clk) begin
        if (!rst) begin
            if (pay_tvalid && pay_taken) pay_tvalid = 1'b0;
            if (!pay_tvalid && (fast || $urandom(seed) % 4 != 0)) begin
                if (pay_left == 0 && pay_len_q.size() > 0) pay_left = pay_len_q.pop_front();
                if (pay_left > 0) begin
                    pay_tdata = '0;
                    pay_tkeep = '0;
                    for (int i = 0; i < KW && pay_left > 0; i++) begin
                        pay_tdata[8*i +: 8] = pay_bytes.pop_front();
                        pay_tkeep[i] = 1'b1;
                        pay_left--;
                    end
                    pay_tlast = pay_left == 0;
                    pay_tvalid = 1'b1;
                end
            end
        end
    end

    int n_prot;
    always @(posedge clk) if (!rst && stat_loc_prot_err) n_prot++;

    task automatic run_batch(input int phase);
        int fetch0, t;
        fetch0 = n_fetch;
        nops = 1 + $urandom(seed) % (phase != 2 ? 8 : 6);
        for (int i = 0; i < nops; i++) begin
            new_op(phase, i);
            ring_write(i, phase != 2);
            if (phase != 2 || $urandom(seed) % 2 == 0) hand_over(i);
        end
        queue_batch();
        t = 0;
        while ((c_q.size() > 0 || pay_len_q.size() > 0 || pay_left > 0 || s_cmd_valid || pay_tvalid || busy)
               && t < 50000) begin
            @(posedge clk);
            t++;
        end
        // a batch takes a few thousand cycles; one that does not drain stops the test
        if (t >= 50000) $fatal(1, "TB FAIL: phase %0d: batch did not drain in %0d cycles", phase, t);
        if (phase != 2 && n_fetch != fetch0) begin
            $display("ERROR phase %0d: %0d WQE fetches with every SGE list in the table", phase, n_fetch - fetch0);
            errors++;
        end
        for (int a = DATA0; a < DATA0 + NQP * MR_LEN; a++) begin
            if (mem[a] !== img[a]) begin
                if (errors < 10) $display("ERROR phase %0d: host byte %0d is %h, want %h", phase, a, mem[a], img[a]);
                errors++;
            end
        end
    endtask

    initial begin
        int f1, f2;
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        errors = 0;
        n_fetch = 0; n_wdesc = 0; n_wstat = 0; n_cmd = 0; n_prot = 0; exp_prot = 0;
        fast = 1'b0;
        s_cmd_valid = 1'b0; pay_tvalid = 1'b0; rdw_valid = 1'b0; pay_left = 0;
        for (int q = 0; q < NQP; q++) begin
            next_idx[q] = 65530 - 40 * q;   // SQ indices wrap during the test
            cursor[q] = 0;
        end
        for (int a = 0; a < MEM; a++) begin
            mem[a] = 8'($urandom(seed));
            img[a] = mem[a];
        end
        for (int q = 0; q < (1 << QW); q++) begin
            qpc_tab[q] = '0;
            qpc_tab[q][rnic_pkg::QPC_PD_LSB +: rnic_pkg::QPC_PD_W] = 16'(q + 1);
            qpc_tab[q][rnic_pkg::QPC_SQ_LOG_SIZE_LSB +: rnic_pkg::QPC_SQ_LOG_SIZE_W] = 5'(SQ_LOG);
            qpc_tab[q][rnic_pkg::QPC_SQ_BASE_LSB +: rnic_pkg::QPC_SQ_BASE_W] = 64'(RING0 + q * 2048);
        end
        for (int m = 0; m < (1 << MW); m++) mpt_tab[m] = '0;
        for (int q = 0; q < NQP; q++) begin
            logic [rnic_pkg::MPT_BITS-1:0] e;
            e = '0;
            e[rnic_pkg::MPT_VALID_LSB +: rnic_pkg::MPT_VALID_W] = 1'b1;
            e[rnic_pkg::MPT_ACCESS_LSB +: rnic_pkg::MPT_ACCESS_W] = rnic_pkg::ACCESS_LOCAL_WRITE[7:0];
            e[rnic_pkg::MPT_PD_LSB +: rnic_pkg::MPT_PD_W] = 16'(q + 1);
            e[rnic_pkg::MPT_KEY_LSB +: rnic_pkg::MPT_KEY_W] = lkey(q);
            e[rnic_pkg::MPT_VA_LSB +: rnic_pkg::MPT_VA_W] = sge_va(q, 0);
            e[rnic_pkg::MPT_LENGTH_LSB +: rnic_pkg::MPT_LENGTH_W] = 64'(MR_LEN);
            e[rnic_pkg::MPT_PA_LSB +: rnic_pkg::MPT_PA_W] = 64'(DATA0 + q * MR_LEN);
            mpt_tab[q + 1] = e;
        end
        repeat (5) @(posedge clk);
        rst = 0;
        // the SGE-list table clears itself first
        wait (init_done);
        repeat (5) @(posedge clk);
        for (int b = 0; b < BATCHES; b++) run_batch(1);
        f1 = n_fetch;
        for (int b = 0; b < BATCHES; b++) run_batch(2);
        f2 = n_fetch;
        repeat (50) @(posedge clk);
        if (n_prot != 0) begin
            $display("ERROR %0d local protection errors counted in phases 1 and 2", n_prot);
            errors++;
        end
        for (int b = 0; b < BATCHES; b++) begin
            fast = b % 2 == 1;
            run_batch(3);
        end
        fast = 1'b0;
        repeat (50) @(posedge clk);
        $display("%0d commands, %0d writes (%0d statuses), WQE fetches: %0d in phase 1, %0d in phase 2; %0d protection errors in phase 3",
                 n_cmd, n_wdesc, n_wstat, f1, f2 - f1, n_prot);
        if (n_prot != exp_prot) begin
            $display("ERROR %0d local protection errors counted, want %0d", n_prot, exp_prot);
            errors++;
        end
        if (exp_prot == 0) begin
            $display("ERROR phase 3 failed no check: the drop path went untested");
            errors++;
        end
        if (f2 - f1 == 0) begin
            $display("ERROR phase 2 fetched no WQE: the fetch path went untested");
            errors++;
        end
        if (n_wstat != n_wdesc || busy) begin
            $display("ERROR %0d write statuses for %0d writes, busy %b at the end", n_wstat, n_wdesc, busy);
            errors++;
        end
        if (errors == 0) $display("TB PASS");
        else $fatal(1, "TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
