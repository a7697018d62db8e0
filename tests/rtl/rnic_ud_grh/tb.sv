`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_ud_grh testbench: random packets (UD with a DETH or not, IPv4 or
 * IPv6, with or without ImmDt, every pad value, payloads of 0..300 bytes and
 * some of a whole 4 KiB MTU), headers and dense payload beats with random
 * valid gaps, headers and payload taken with random ready as the responder
 * takes them (a header, then its payload). Every output header must be its
 * input with, for a UD packet, 40 more payload bytes; every output payload
 * dense, tlast on its last byte, and for a UD packet the GRH area (built
 * here from the fields, byte by byte: IPv6 header, or 20 zero bytes and the
 * IPv4 header with its checksum summed here) before the payload.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int KW = DATA_WIDTH / 8;
    localparam int HB = rnic_hdr_pkg::HDR_BITS;
    localparam int NPKT = 240;

    logic clk = 1'b0, rst = 1'b1;
    always #2 clk = !clk;

    logic                  s_hdr_valid = 1'b0, s_hdr_ready, m_hdr_valid, m_hdr_ready = 1'b0;
    logic [HB-1:0]         s_hdr = '0, m_hdr;
    logic [DATA_WIDTH-1:0] s_tdata = '0, m_tdata;
    logic [KW-1:0]         s_tkeep = '0, m_tkeep;
    logic                  s_tvalid = 1'b0, s_tready, s_tlast = 1'b0, m_tvalid, m_tready = 1'b0, m_tlast;
    integer                errors = 0, seed = 1;

    rnic_ud_grh #(.DATA_WIDTH(DATA_WIDTH)) dut (
        .clk, .rst,
        .s_hdr_valid, .s_hdr_ready, .s_hdr,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid), .s_axis_tready(s_tready),
        .s_axis_tlast(s_tlast),
        .m_hdr_valid, .m_hdr_ready, .m_hdr,
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid), .m_axis_tready(m_tready),
        .m_axis_tlast(m_tlast)
    );

    task automatic fail(input string msg);
        if (errors < 10) $display("TB FAIL: %0t: %s", $time, msg);
        errors = errors + 1;
    endtask

    // non-negative, so that rnd() % n is in 0..n-1
    function automatic integer rnd();
        return $random(seed) & 32'h7fffffff;
    endfunction

    // the packets: headers, payload bytes, expected output bytes
    // (flat arrays: Icarus has no arrays of queues) packet n's payload at
    // pay[PMAX*n], its expected output at want[PMAX*n]
    localparam int PMAX = 4096 + 40;
    logic [HB-1:0] hdrs [NPKT];
    logic [7:0]    pay [NPKT*PMAX];
    logic [7:0]    want [NPKT*PMAX];
    int            pay_len [NPKT], want_len [NPKT];

    logic [7:0] ip[$];   // (static: Icarus trips over a queue in an automatic task)

    // what the stream carries in, and must carry out (hdr_stream.svh)
    function automatic logic [7:0] src_byte(input int i);
        return pay[i];
    endfunction
    function automatic logic [7:0] want_byte(input int i);
        return want[i];
    endfunction
    `include "hdr_stream.svh"

    task automatic make(input int n);
        logic [HB-1:0] h;
        int plen, ud, v6, imm, pad, udp_len;
        logic [127:0] src, dst;
        logic [19:0] fl;
        logic [7:0] tc, ttl;
        logic [15:0] id, frag;
        logic [31:0] sum;
        h = '0;
        for (int i = 0; i < HB; i += 32) h[i +: 32] = rnd();
        ud = (rnd() % 3) != 0;
        v6 = rnd() % 2;
        imm = rnd() % 2;
        plen = (rnd() % 8 == 0) ? 4096 - (rnd() % 2) : rnd() % 301;
        pad = (4 - plen % 4) % 4;
        h[rnic_hdr_pkg::HDR_HAS_DETH_LSB] = 1'(ud);
        h[rnic_hdr_pkg::HDR_IPV6_LSB] = 1'(v6);
        h[rnic_hdr_pkg::HDR_HAS_IMMDT_LSB] = 1'(imm);
        h[rnic_hdr_pkg::HDR_BTH_PAD_LSB +: 2] = 2'(pad);
        h[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: 16] = 16'(plen);
        if (!v6) begin
            h[rnic_hdr_pkg::HDR_IP_SRC_LSB + 32 +: 96] = '0;
            h[rnic_hdr_pkg::HDR_IP_DST_LSB + 32 +: 96] = '0;
        end
        hdrs[n] = h;
        pay_len[n] = plen;
        for (int i = 0; i < plen; i++) pay[PMAX*n + i] = 8'(rnd());
        ip = {};
        if (ud) begin
            src = h[rnic_hdr_pkg::HDR_IP_SRC_LSB +: 128];
            dst = h[rnic_hdr_pkg::HDR_IP_DST_LSB +: 128];
            fl = h[rnic_hdr_pkg::HDR_IP_FLOW_LABEL_LSB +: 20];
            tc = h[rnic_hdr_pkg::HDR_IP_TCLASS_LSB +: 8];
            ttl = h[rnic_hdr_pkg::HDR_IP_TTL_LSB +: 8];
            id = h[rnic_hdr_pkg::HDR_IP_ID_LSB +: 16];
            frag = h[rnic_hdr_pkg::HDR_IP_FRAG_LSB +: 16];
            udp_len = 8 + 12 + 8 + (imm ? 4 : 0) + plen + pad + 4;
            if (v6) begin
                ip.push_back(8'h60 | 8'(tc >> 4));
                ip.push_back(8'(tc << 4) | 8'(fl >> 16));
                ip.push_back(8'(fl >> 8));
                ip.push_back(8'(fl));
                ip.push_back(8'(udp_len >> 8));
                ip.push_back(8'(udp_len));
                ip.push_back(8'd17);
                ip.push_back(ttl);
                for (int i = 15; i >= 0; i--) ip.push_back(src[8*i +: 8]);
                for (int i = 15; i >= 0; i--) ip.push_back(dst[8*i +: 8]);
            end else begin
                for (int i = 0; i < 20; i++) ip.push_back(8'd0);
                ip.push_back(8'h45);
                ip.push_back(tc);
                ip.push_back(8'((udp_len + 20) >> 8));
                ip.push_back(8'(udp_len + 20));
                ip.push_back(id[15:8]);
                ip.push_back(id[7:0]);
                ip.push_back(frag[15:8]);
                ip.push_back(frag[7:0]);
                ip.push_back(ttl);
                ip.push_back(8'd17);
                ip.push_back(8'd0);
                ip.push_back(8'd0);
                for (int i = 3; i >= 0; i--) ip.push_back(src[8*i +: 8]);
                for (int i = 3; i >= 0; i--) ip.push_back(dst[8*i +: 8]);
                // one's complement sum of the ten 16-bit words
                sum = 0;
                for (int i = 0; i < 10; i++) sum = sum + {ip[20 + 2*i], ip[21 + 2*i]};
                while (sum >> 16) sum = (sum & 32'hffff) + (sum >> 16);
                ip[30] = 8'(~sum >> 8);
                ip[31] = 8'(~sum);
            end
        end
        // the parser's record carries the IP length field and checksum as
        // received: those of the header built above
        if (ud) begin
            hdrs[n][rnic_hdr_pkg::HDR_IP_LEN_LSB +: 16] = v6 ? 16'(udp_len) : 16'(udp_len + 20);
            hdrs[n][rnic_hdr_pkg::HDR_IP_CSUM_LSB +: 16] = v6 ? 16'h0 : {ip[30], ip[31]};
        end
        for (int i = 0; i < plen; i++) ip.push_back(pay[PMAX*n + i]);
        want_len[n] = ip.size();
        for (int i = 0; i < ip.size(); i++) want[PMAX*n + i] = ip[i];
    endtask

    // Both sides drive at the falling edge and look at the other side's
    // signals a moment later: a transfer happens at the next rising edge
    // iff valid and ready are both high then.

    // input side: a header, then its payload in dense beats
    initial begin
        int n;
        for (int i = 0; i < NPKT; i++) make(i);
        repeat (4) @(posedge clk);
        rst = 1'b0;
        for (n = 0; n < NPKT; n++) hs_send(hdrs[n], PMAX * n, pay_len[n]);
    end

    // output side: a header, then its payload
    int got_pkts = 0, ud_pkts = 0;
    initial begin
        logic [HB-1:0] exp_h, got_h;
        @(negedge rst);
        for (int n = 0; n < NPKT; n++) begin
            hs_take_hdr(got_h);
            exp_h = hdrs[n];
            if (exp_h[rnic_hdr_pkg::HDR_HAS_DETH_LSB]) begin
                exp_h[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: 16] = 16'(pay_len[n] + rnic_pkg::GRH_BYTES);
                ud_pkts++;
            end
            if (got_h !== exp_h) fail($sformatf("packet %0d: header differs", n));
            hs_take_pay(PMAX * n, want_len[n], $sformatf("packet %0d", n));
            got_pkts++;
        end
        repeat (20) @(posedge clk);
        if (m_tvalid || m_hdr_valid) fail("output after the last packet");
        $display("%0d packets (%0d UD) through", got_pkts, ud_pkts);
        if (errors == 0 && got_pkts == NPKT) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end

    initial begin
        #20000000;
        $display("TB FAIL: timeout after %0d packets, dut state %0d hv %0d frames %0d; in: s_tvalid %0d s_hdr_valid %0d; pkt0 ud %0d len %0d pkt1 ud %0d len %0d", got_pkts, dut.state_reg, dut.hv_reg, dut.pk_frames_reg, s_tvalid, s_hdr_valid, hdrs[0][rnic_hdr_pkg::HDR_HAS_DETH_LSB], pay_len[0], hdrs[1][rnic_hdr_pkg::HDR_HAS_DETH_LSB], pay_len[1]);
        $finish;
    end
endmodule
