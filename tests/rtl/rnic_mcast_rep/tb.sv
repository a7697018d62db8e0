`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_mcast_rep testbench. A group table of NGRP groups (IPv4-mapped and
 * IPv6 GIDs, 1..8 members each) is written through the table port, each
 * group in way 0 at its bucket or, when that is taken, in way 1 (the hashes
 * computed here from the formats' definition, independently of the RTL).
 * Then random packets: ordinary ones (any QPN but the multicast one; they
 * must come out unchanged), multicast ones to a group (one copy per member,
 * in member order, the QPN replaced, the payload byte for byte), to a GID
 * of no group and longer than the buffer (both dropped and counted).
 * Payloads of 0..200 bytes and some of exactly 4096; input beats with random
 * gaps, output header and payload taken with random ready. Halfway the
 * table is rewritten while the block is idle (a member of group 0 detached,
 * group 1 removed): later packets must follow the new table. The copy and
 * drop counters must match. Group 2's entry says 15 members for its 8: the
 * block must stop at MCAST_GROUP_QPS.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int KW = DATA_WIDTH / 8;
    localparam int HB = rnic_hdr_pkg::HDR_BITS;
    localparam int BB = rnic_pkg::MCAST_BUCKET_BITS;
    localparam int NPKT = 160;
    localparam int NGRP = 6;
    localparam int PMAX = 4200;
    localparam int NEXP = NPKT * 8;
    localparam int QW = 10;

    logic clk = 1'b0, rst = 1'b1;
    always #2 clk = !clk;

    logic                  s_hdr_valid = 1'b0, s_hdr_ready, m_hdr_valid, m_hdr_ready = 1'b0;
    logic [HB-1:0]         s_hdr = '0, m_hdr;
    logic [DATA_WIDTH-1:0] s_tdata = '0, m_tdata;
    logic [KW-1:0]         s_tkeep = '0, m_tkeep;
    logic                  s_tvalid = 1'b0, s_tready, s_tlast = 1'b0, m_tvalid, m_tready = 1'b0, m_tlast;
    logic                  wr_en = 1'b0, init_done, stat_drop, stat_copy;
    logic [BB:0]           wr_index = '0;
    logic [rnic_pkg::MCG_BITS-1:0] wr_data = '0;
    integer                errors = 0, seed = 1;

    rnic_mcast_rep #(.DATA_WIDTH(DATA_WIDTH), .QPN_WIDTH(QW)) dut (
        .clk, .rst,
        .s_hdr_valid, .s_hdr_ready, .s_hdr,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid), .s_axis_tready(s_tready),
        .s_axis_tlast(s_tlast),
        .m_hdr_valid, .m_hdr_ready, .m_hdr,
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid), .m_axis_tready(m_tready),
        .m_axis_tlast(m_tlast),
        .mcg_wr_en(wr_en), .mcg_wr_index(wr_index), .mcg_wr_data(wr_data), .init_done,
        .stat_drop, .stat_copy
    );

    task automatic fail(input string msg);
        if (errors < 10) $display("TB FAIL: %0t: %s", $time, msg);
        errors = errors + 1;
    endtask

    function automatic integer rnd();
        return $random(seed) & 32'h7fffffff;
    endfunction

    // the formats' hash: XOR of the 16-bit words (rotated left by their
    // index for way 1), folded to BB bits
    function automatic int bucket(input logic [127:0] g, input int way);
        logic [15:0] h, v;
        h = '0;
        for (int i = 0; i < 8; i++) begin
            v = g[16*i +: 16];
            if (way == 1 && i != 0) v = (v << i) | (v >> (16 - i));
            h = h ^ v;
        end
        return int'((h ^ (h >> BB) ^ (h >> (2 * BB))) & ((1 << BB) - 1));
    endfunction

    // groups: GID, slot, members
    logic [127:0] g_gid [NGRP];
    int           g_slot [NGRP], g_cnt [NGRP];
    int           g_qpn [NGRP*8];
    int           slot_used [2 << BB];

    // packets, expected outputs (exp_pkt: which packet's payload)
    logic [HB-1:0] hdrs [NPKT];
    logic [7:0]    pay [NPKT*PMAX];
    int            pay_len [NPKT];

    // what the stream carries in, and every copy out (hdr_stream.svh)
    function automatic logic [7:0] src_byte(input int i);
        return pay[i];
    endfunction
    function automatic logic [7:0] want_byte(input int i);
        return pay[i];
    endfunction
    `include "hdr_stream.svh"
    logic [HB-1:0] exp_hdr [NEXP];
    int            exp_pkt [NEXP];
    int            n_exp = 0, n_exp_phase1 = 0, want_copies = 0, want_drops = 0;

    task automatic write_group(input int g);
        logic [rnic_pkg::MCG_BITS-1:0] d;
        d = '0;
        if (g_cnt[g] != 0) begin
            d[rnic_pkg::MCG_VALID_LSB] = 1'b1;
            // group 2 with 8 members says 15: the block must send 8 copies
            d[rnic_pkg::MCG_COUNT_LSB +: 4] = g == 2 && g_cnt[g] == 8 ? 4'd15 : 4'(g_cnt[g]);
            d[rnic_pkg::MCG_MGID_LSB +: 128] = g_gid[g];
            for (int i = 0; i < g_cnt[g]; i++) d[rnic_pkg::MCG_QPN_LSB + 32*i +: 32] = 32'(g_qpn[8*g + i]);
        end
        @(negedge clk);
        wr_en = 1'b1;
        wr_index = (BB+1)'(g_slot[g]);
        wr_data = d;
        @(negedge clk);
        wr_en = 1'b0;
    endtask

    function automatic logic [127:0] mc_gid(input int v6);
        logic [127:0] g;
        g = {rnd(), rnd(), rnd(), rnd()};
        if (v6) g[127:112] = 16'hff0e;
        else g = {96'h0000_0000_0000_0000_0000_ffff, 4'he, g[27:0]};
        return g;
    endfunction

    // packet n: kind 0 ordinary, 1 to a group, 2 to no group, 3 too long
    task automatic make(input int n);
        logic [HB-1:0] h;
        int kind, g, plen;
        logic [127:0] gid;
        h = '0;
        for (int i = 0; i < HB; i += 32) h[i +: 32] = rnd();
        kind = rnd() % 10;
        kind = kind < 4 ? 0 : kind < 8 ? 1 : kind < 9 ? 2 : 3;
        plen = (rnd() % 8 == 0) ? 4096 : rnd() % 201;
        if (kind == 3) plen = 4097 + rnd() % 100;
        g = rnd() % NGRP;
        while (kind != 0 && kind != 2 && g_cnt[g] == 0) g = (g + 1) % NGRP;
        gid = kind == 2 ? mc_gid(rnd() % 2) : g_gid[g];
        if (kind == 0) begin
            h[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: 24] = 24'(rnd() % 1024);
        end else begin
            h[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: 24] = 24'hffffff;
            h[rnic_hdr_pkg::HDR_IPV6_LSB] = gid[127:120] == 8'hff;
            if (gid[127:120] == 8'hff) h[rnic_hdr_pkg::HDR_IP_DST_LSB +: 128] = gid;
            else h[rnic_hdr_pkg::HDR_IP_DST_LSB +: 128] = {96'd0, gid[31:0]};
        end
        h[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: 16] = 16'(plen);
        hdrs[n] = h;
        pay_len[n] = plen;
        for (int i = 0; i < plen; i++) pay[PMAX*n + i] = 8'(rnd());
        if (kind == 0) begin
            exp_hdr[n_exp] = h;
            exp_pkt[n_exp] = n;
            n_exp++;
        end else if (kind == 1) begin
            for (int i = 0; i < g_cnt[g]; i++) begin
                exp_hdr[n_exp] = h;
                exp_hdr[n_exp][rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: 24] = 24'(g_qpn[8*g + i]);
                exp_pkt[n_exp] = n;
                n_exp++;
                want_copies++;
            end
        end else begin
            want_drops++;
        end
    endtask

    int got = 0, copies = 0, drops = 0, in_done = 0;
    always @(posedge clk) begin
        if (stat_copy) copies++;
        if (stat_drop) drops++;
    end

    // input side: the table, then a header and its payload in dense beats
    initial begin
        int n, w, b;
        if ($value$plusargs("seed=%d", seed)) $display("seed %0d", seed);
        for (int i = 0; i < (2 << BB); i++) slot_used[i] = 0;
        for (int g = 0; g < NGRP; g++) begin
            g_gid[g] = mc_gid(g % 2);
            g_cnt[g] = 1 + rnd() % 8;
            for (int i = 0; i < 8; i++) g_qpn[8*g + i] = 2 + rnd() % 1000;
            g_slot[g] = -1;
            for (w = 0; w < 2 && g_slot[g] < 0; w++) begin
                b = (w << BB) | bucket(g_gid[g], w);
                if (!slot_used[b]) begin
                    slot_used[b] = 1;
                    g_slot[g] = b;
                end
            end
            if (g_slot[g] < 0) g_cnt[g] = 0; // both buckets taken: left out
        end
        g_cnt[0] = g_cnt[0] > 1 ? g_cnt[0] : 2;
        g_cnt[1] = g_cnt[1] > 0 ? g_cnt[1] : 1;
        if (g_slot[2] >= 0) g_cnt[2] = 8;
        if (g_slot[0] < 0 || g_slot[1] < 0) fail("groups 0 and 1 must have a slot");
        for (int i = 0; i < NPKT / 2; i++) make(i);
        n_exp_phase1 = n_exp;
        repeat (4) @(posedge clk);
        rst = 1'b0;
        wait (init_done);
        for (int g = 0; g < NGRP; g++) if (g_slot[g] >= 0) write_group(g);
        for (n = 0; n < NPKT; n++) begin
            if (n == NPKT / 2) begin
                // every earlier output taken, the block idle: rewrite
                wait (got == n_exp_phase1);
                repeat (3) @(negedge clk);
                g_qpn[0] = g_qpn[g_cnt[0] - 1];
                g_cnt[0]--;
                g_cnt[1] = 0;
                write_group(0);
                write_group(1);
                for (int i = NPKT / 2; i < NPKT; i++) make(i);
            end
            hs_send(hdrs[n], PMAX * n, pay_len[n]);
        end
        in_done = 1;
    end

    // output side: a header, then its payload
    initial begin
        int n;
        logic [HB-1:0] h;
        @(negedge rst);
        while (1) begin
            hs_take_hdr(h);
            if (got >= n_exp) begin
                fail("a header more than expected");
                $finish;
            end
            n = exp_pkt[got];
            if (h !== exp_hdr[got])
                fail($sformatf("output %0d (packet %0d): header differs, dqpn %06x want %06x", got, n,
                               h[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: 24],
                               exp_hdr[got][rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: 24]));
            hs_take_pay(PMAX * n, pay_len[n], $sformatf("output %0d", got));
            got++;
        end
    end

    initial begin
        wait (rst == 1'b0);
        wait (in_done && got == n_exp);
        repeat (200) @(posedge clk);
        if (m_tvalid || m_hdr_valid) fail("output after the last expected one");
        if (copies != want_copies) fail($sformatf("%0d copies counted, want %0d", copies, want_copies));
        if (drops != want_drops) fail($sformatf("%0d drops counted, want %0d", drops, want_drops));
        $display("%0d packets in, %0d out (%0d copies, %0d dropped)", NPKT, got, copies, drops);
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end

    initial begin
        #40000000;
        $display("TB FAIL: timeout after %0d of %0d outputs, dut state %0d", got, n_exp, dut.state_reg);
        $finish;
    end
endmodule
