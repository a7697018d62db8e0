`timescale 1ns / 1ps
`default_nettype none

// rnic_mr_check and its pipelined twin rnic_mr_check_pipe against a
// reference written without 65-bit sums: offset into the MR first, then the
// room left, so the formulations can disagree if one is wrong. Edge cases:
// exact fit, one byte over, one before the start, wrap past 2^64, a region
// ending exactly at 2^64 or wider than it, zero length, every key/PD/access
// mismatch; memory windows (docs/mw.md): a window's entry through an lkey
// check, a type 2 window's through another QP. The pipe gets each vector with en for two cycles, and keeps its
// result while en is low and the inputs change; its ok_next is the result
// in the second cycle.
module tb #(parameter int DATA_WIDTH = 64);
    localparam int MB = rnic_pkg::MPT_BITS;

    logic [MB-1:0] mpt;
    logic [31:0] key, len;
    logic [63:0] va, pa;
    logic [15:0] pd;
    logic [7:0]  need;
    logic        remote;
    logic [23:0] qpn;
    logic        ok;
    int seed, errors, n_ok, n_bad;

    rnic_mr_check dut (.mpt, .key, .va, .len, .pd, .need_access(need), .remote, .qpn, .ok, .pa);

    logic        clk = 1'b0, en = 1'b0, p_ok, p_ok_next;
    logic [63:0] p_pa;
    rnic_mr_check_pipe pipe_dut (.clk, .en, .mpt, .key, .va, .len, .pd, .need_access(need), .remote, .qpn,
                                 .ok(p_ok), .pa(p_pa), .ok_next(p_ok_next));

    task automatic tick;
        #1 clk = 1'b1;
        #1 clk = 1'b0;
    endtask

    logic        m_valid;
    logic [7:0]  m_access;
    logic [15:0] m_pd;
    logic [31:0] m_key;
    logic [63:0] m_va, m_len, m_pa;
    logic        m_mw, m_type2;
    logic [23:0] m_qpn;
    int          n_win_ok, n_win_bad;

    function automatic logic [63:0] rnd64();
        rnd64 = {$urandom(seed), $urandom(seed)};
    endfunction

    task automatic check_one(input string what);
        logic exp_ok;
        logic [63:0] off;
        mpt = '0;
        mpt[rnic_pkg::MPT_VALID_LSB +: rnic_pkg::MPT_VALID_W] = m_valid;
        mpt[rnic_pkg::MPT_ACCESS_LSB +: rnic_pkg::MPT_ACCESS_W] = m_access;
        mpt[rnic_pkg::MPT_PD_LSB +: rnic_pkg::MPT_PD_W] = m_pd;
        mpt[rnic_pkg::MPT_KEY_LSB +: rnic_pkg::MPT_KEY_W] = m_key;
        mpt[rnic_pkg::MPT_VA_LSB +: rnic_pkg::MPT_VA_W] = m_va;
        mpt[rnic_pkg::MPT_LENGTH_LSB +: rnic_pkg::MPT_LENGTH_W] = m_len;
        mpt[rnic_pkg::MPT_PA_LSB +: rnic_pkg::MPT_PA_W] = m_pa;
        mpt[rnic_pkg::MPT_MW_LSB] = m_mw;
        mpt[rnic_pkg::MPT_MW_TYPE2_LSB] = m_type2;
        mpt[rnic_pkg::MPT_QPN_LSB +: rnic_pkg::MPT_QPN_W] = m_qpn;
        #1;
        off = va - m_va;
        exp_ok = m_valid && key == m_key && pd == m_pd && ((m_access & need) == need)
                 && va >= m_va && off <= m_len && {32'h0, len} <= m_len - off;
        // a window: an rkey only; type 2: its own QP only
        if (m_mw && (!remote || (m_type2 && qpn != m_qpn))) begin
            if (exp_ok) n_win_bad++;
            exp_ok = 1'b0;
        end else if (m_mw && exp_ok) begin
            n_win_ok++;
        end
        if (ok !== exp_ok || (exp_ok && pa !== m_pa + off)) begin
            errors++;
            if (errors < 10)
                $display("TB FAIL: %s: ok %b want %b (va %h len %h mr va %h len %h) pa %h want %h",
                         what, ok, exp_ok, va, len, m_va, m_len, pa, m_pa + off);
        end
        // the pipe: two cycles with en, then held with en low
        en = 1'b1;
        tick();
        if ($urandom(seed) % 4 == 0) begin   // only the first cycle's inputs count
            va = rnd64();
            key = ~key;
        end
        // ok_next: the result ok takes at the second tick, already
        #1;
        if (p_ok_next !== exp_ok) begin
            errors++;
            if (errors < 10) $display("TB FAIL: %s (pipe): ok_next %b want %b", what, p_ok_next, exp_ok);
        end
        tick();
        en = 1'b0;
        if (p_ok !== exp_ok || p_pa !== m_pa + off) begin
            errors++;
            if (errors < 10)
                $display("TB FAIL: %s (pipe): ok %b want %b (va %h len %h mr va %h len %h) pa %h want %h",
                         what, p_ok, exp_ok, m_va + off, len, m_va, m_len, p_pa, m_pa + off);
        end
        if ($urandom(seed) % 4 == 0) begin
            mpt = ~mpt;
            va = rnd64();
            tick();
            if (p_ok !== exp_ok || p_pa !== m_pa + off) begin
                errors++;
                if (errors < 10) $display("TB FAIL: %s (pipe): result not held with en low", what);
            end
        end
        if (exp_ok) n_ok++; else n_bad++;
    endtask

    task automatic base_case;
        m_valid = 1'b1;
        m_access = 8'($urandom(seed));
        m_pd = 16'($urandom(seed));
        m_key = $urandom(seed);
        m_len = 64'($urandom(seed) % 100000);
        m_va = ($urandom(seed) % 8 == 0) ? 64'hffff_ffff_ffff_ffff - 64'($urandom(seed) % 70000) : rnd64();
        m_pa = rnd64();
        key = m_key;
        pd = m_pd;
        need = m_access & 8'($urandom(seed));
        va = m_va + 64'($urandom(seed) % (32'(m_len) + 1));
        len = $urandom(seed) % 100000;
        // an MR (type bits left random: they mean nothing without mw) or
        // a window; requests through lkeys and rkeys, on its QP or not
        m_mw = $urandom(seed) % 3 == 0;
        m_type2 = 1'($urandom(seed));
        m_qpn = 24'($urandom(seed));
        remote = 1'($urandom(seed));
        qpn = ($urandom(seed) % 2 == 0) ? m_qpn : m_qpn ^ (24'd1 << ($urandom(seed) % 24));
    endtask

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        errors = 0; n_ok = 0; n_bad = 0; n_win_ok = 0; n_win_bad = 0;
        for (int i = 0; i < 20000; i++) begin
            base_case();
            case ($urandom(seed) % 16)
                0: len = 32'(m_len - (va - m_va));                  // exact fit
                1: len = 32'(m_len - (va - m_va)) + 1;              // one byte over
                2: va = m_va - 64'd1;                               // one before the start
                3: begin va = 64'hffff_ffff_ffff_fff0; len = 32'h40; end   // wraps past 2^64
                4: len = 0;
                5: key = m_key ^ (32'd1 << ($urandom(seed) % 32)); // index or tag differs
                6: pd = m_pd ^ 16'd1;
                7: m_valid = 1'b0;
                8: begin need = 8'h2; m_access = m_access & ~8'h2; end  // REMOTE_WRITE missing
                9: need = 8'h4 & ~m_access;                        // REMOTE_READ missing (when it is)
                10: begin                                           // region ends exactly at 2^64
                    m_va = 64'h0 - m_len;
                    va = m_va + 64'($urandom(seed) % (32'(m_len) + 1));
                    len = ($urandom(seed) % 2 == 0) ? 32'(m_len - (va - m_va)) : 32'(m_len - (va - m_va)) + 1;
                end
                11: begin                                           // a region wider than 2^64 - its start
                    m_len = ($urandom(seed) % 2 == 0) ? 64'hffff_ffff_ffff_ffff : rnd64();
                    va = rnd64();
                    len = $urandom(seed);
                end
                default: ;
            endcase
            check_one("random");
        end
        $display("checked %0d accepted and %0d refused requests; windows: %0d accepted, %0d refused for the window alone",
                 n_ok, n_bad, n_win_ok, n_win_bad);
        if (n_ok < 1000 || n_bad < 1000 || n_win_ok < 200 || n_win_bad < 200) begin
            $display("TB FAIL: too few cases of one kind");
            errors++;
        end
        if (errors == 0) $display("TB PASS");
        else $fatal(1, "TB FAIL: %0d mismatches", errors);
        $finish;
    end
endmodule
