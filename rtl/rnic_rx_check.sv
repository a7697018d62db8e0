`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * RoCEv2 receive checker.
 *
 * Passes the MAC's frames through unchanged (a register pipeline, 9 cycles
 * from input to output; never stalls: s_axis_rx_tready is 1 and the sink
 * must always accept) and sets m_axis_tuser on the last beat of every frame
 * that must be dropped. Each frame is classified once; at its last beat
 * exactly one of the stat_* outputs pulses, checked in this order:
 *   stat_malformed     MAC error (tuser on any beat), frame shorter than an
 *                      Ethernet header, or than the IP header
 *   stat_not_roce      EtherType not IPv4/IPv6, IP version wrong, IPv4 with
 *                      options (IHL != 5), IPv4 fragment, protocol not UDP
 *   stat_bad_ip_csum   IPv4 header checksum wrong
 *   stat_malformed     frame shorter than the UDP header
 *   stat_bad_udp_port  UDP destination port not 4791
 *   stat_malformed     IP length does not match the frame length (Ethernet
 *                      padding of a minimum-size frame allowed), UDP length
 *                      does not match the IP length, or is shorter than
 *                      UDP + BTH + ICRC
 *   stat_bad_icrc      ICRC wrong (rnic_icrc over the IP datagram)
 *   stat_good          none of the above
 * The input must be dense (all beats full but the last, whose bytes are in
 * lanes 0..n-1), as MACs deliver it. Addresses are not checked here.
 *
 * Pipeline: stage 1 holds the beat and the header captured so far; stage 2
 * the header fields and the frame length; stage 3 the length checks, the
 * checksum total and the lanes the ICRC covers (the IP datagram: Ethernet
 * padding left out), all carried with the last beat through rnic_icrc
 * (5 stages); the output stage combines them with the ICRC verdict.
 */
module rnic_rx_check #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [DATA_WIDTH-1:0] s_axis_rx_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_axis_rx_tkeep,
    input  wire logic                  s_axis_rx_tvalid,
    output      logic                  s_axis_rx_tready,
    input  wire logic                  s_axis_rx_tlast,
    input  wire logic                  s_axis_rx_tuser,

    output      logic [DATA_WIDTH-1:0] m_axis_tdata,
    output      logic [KEEP_WIDTH-1:0] m_axis_tkeep,
    output      logic                  m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output      logic                  m_axis_tlast,
    output      logic                  m_axis_tuser,

    output      logic                  stat_good,
    output      logic                  stat_not_roce,
    output      logic                  stat_bad_udp_port,
    output      logic                  stat_bad_ip_csum,
    output      logic                  stat_bad_icrc,
    output      logic                  stat_malformed
);

    localparam int ETH_B  = rnic_pkg::ETH_HDR_BYTES;
    localparam int IPV4_B = rnic_pkg::IPV4_HDR_BYTES;
    localparam int IPV6_B = rnic_pkg::IPV6_HDR_BYTES;
    localparam int UDP_B  = rnic_pkg::UDP_HDR_BYTES;
    localparam int BTH_B  = rnic_pkg::BTH_BYTES;
    localparam int ICRC_B = rnic_pkg::ICRC_BYTES;
    // Ethernet minimum frame without FCS: shorter frames arrive padded to this
    localparam int ETH_MIN_FRAME = rnic_pkg::ETH_MIN_FRAME_BYTES;
    // header bytes kept for the checks: Ethernet, IPv6, UDP
    localparam int CAP = ETH_B + IPV6_B + UDP_B;
    localparam int CAP_BEATS = (CAP + KEEP_WIDTH - 1) / KEEP_WIDTH;
    localparam int BEAT_W = $clog2(CAP_BEATS + 1);
    // frame byte offsets
    localparam int OFF_ET = 12;                    // EtherType
    localparam int OFF_IP = ETH_B;                 // version / IHL
    localparam int OFF_V4_LEN = ETH_B + 2;         // IPv4 total length
    localparam int OFF_V4_FRAG = ETH_B + 6;        // IPv4 flags, fragment offset
    localparam int OFF_V4_PROTO = ETH_B + 9;       // IPv4 protocol
    localparam int OFF_V6_LEN = ETH_B + 4;         // IPv6 payload length
    localparam int OFF_V6_NH = ETH_B + 6;          // IPv6 next header
    localparam int OFF_V4_UDP = ETH_B + IPV4_B;
    localparam int OFF_V6_UDP = ETH_B + IPV6_B;

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH || KEEP_WIDTH < 8 || KEEP_WIDTH > 64 ||
            (KEEP_WIDTH & (KEEP_WIDTH - 1)) != 0) begin
            $error("rnic_rx_check: DATA_WIDTH must be 8 * KEEP_WIDTH, a power of two from 64 to 512 bits (%m)");
            $finish;
        end
    end

    assign s_axis_rx_tready = 1'b1;

    // the sink must always accept (frame FIFO that drops on overflow)
    wire m_axis_tready_unused = m_axis_tready;

    wire in_beat = s_axis_rx_tvalid;

    localparam int CNT_W = $clog2(KEEP_WIDTH + 1);
    // the last beat of a 60-byte frame starts at this byte (dense frames)
    localparam int MIN_LAST = (ETH_MIN_FRAME - 1) / KEEP_WIDTH * KEEP_WIDTH;

    // bytes in a beat: lanes 0..n-1 are kept
    logic [CNT_W-1:0]            in_cnt;
    logic [$clog2(KEEP_WIDTH)-1:0] in_first_unused;
    axis_keep_run #(.KEEP_WIDTH(KEEP_WIDTH)) in_run_inst (
        .keep(s_axis_rx_tkeep), .first(in_first_unused), .run_end(in_cnt)
    );

    function automatic logic [7:0] cb(input logic [8*CAP-1:0] c, input int p);
        cb = c[8*p +: 8];
    endfunction
    function automatic logic [15:0] cw(input logic [8*CAP-1:0] c, input int p);
        cw = {c[8*p +: 8], c[8*(p+1) +: 8]};
    endfunction

    // ------------------------------------------------------------------
    // stage 0 (input): header capture, bytes before the beat
    // ------------------------------------------------------------------
    logic [BEAT_W-1:0]  beat_reg;    // beat index in the frame, saturates at CAP_BEATS
    logic [15:0]        lenb_reg;    // frame bytes before this beat, saturating
    logic [8*CAP-1:0]   cap_reg, cap_next;
    logic               err_reg;

    always_comb begin
        cap_next = cap_reg;
        for (int p = 0; p < CAP; p++) begin
            if (beat_reg == BEAT_W'(p / KEEP_WIDTH)) cap_next[8*p +: 8] = s_axis_rx_tdata[8*(p % KEEP_WIDTH) +: 8];
        end
    end

    wire [16:0] lenb_sum = 17'(lenb_reg) + 17'(KEEP_WIDTH);

    // stage 1: the beat; with it cap_reg holds the frame's header as far as it came
    logic [DATA_WIDTH-1:0] s1_tdata_reg;
    logic [KEEP_WIDTH-1:0] s1_tkeep_reg;
    logic [CNT_W-1:0]      s1_cnt_reg;
    logic                  s1_tvalid_reg, s1_tlast_reg, s1_err_reg;
    logic [15:0]           s1_lenb_reg;

    always_ff @(posedge clk) begin
        s1_tvalid_reg <= in_beat;
        if (in_beat) begin
            s1_tdata_reg <= s_axis_rx_tdata;
            s1_tkeep_reg <= s_axis_rx_tkeep;
            s1_cnt_reg <= in_cnt;
            s1_tlast_reg <= s_axis_rx_tlast;
            s1_err_reg <= err_reg || s_axis_rx_tuser;
            s1_lenb_reg <= lenb_reg;
            cap_reg <= cap_next;
            if (s_axis_rx_tlast) begin
                beat_reg <= '0;
                lenb_reg <= '0;
                err_reg <= 1'b0;
            end else begin
                if (beat_reg < BEAT_W'(CAP_BEATS)) beat_reg <= beat_reg + 1'b1;
                lenb_reg <= lenb_sum[16] ? 16'hffff : lenb_sum[15:0];
                err_reg <= err_reg || s_axis_rx_tuser;
            end
        end
        if (rst) begin
            s1_tvalid_reg <= 1'b0;
            beat_reg <= '0;
            lenb_reg <= '0;
            err_reg <= 1'b0;
        end
    end

    // ------------------------------------------------------------------
    // stage 1 -> 2: header fields, frame length
    // ------------------------------------------------------------------
    wire [15:0] et       = cw(cap_reg, OFF_ET);
    wire        is_v4    = et == 16'(rnic_pkg::ETHERTYPE_IPV4);
    wire        is_v6    = et == 16'(rnic_pkg::ETHERTYPE_IPV6);
    wire [7:0]  ver_ihl  = cb(cap_reg, OFF_IP);
    wire [15:0] v4_len   = cw(cap_reg, OFF_V4_LEN);
    wire [13:0] v4_frag  = 14'(cw(cap_reg, OFF_V4_FRAG)); // MF, fragment offset (not DF)
    wire [7:0]  v4_proto = cb(cap_reg, OFF_V4_PROTO);
    wire [15:0] v6_len   = cw(cap_reg, OFF_V6_LEN);
    wire [7:0]  v6_nh    = cb(cap_reg, OFF_V6_NH);
    wire [15:0] v4_dport = cw(cap_reg, OFF_V4_UDP + 2);
    wire [15:0] v6_dport = cw(cap_reg, OFF_V6_UDP + 2);
    wire [15:0] v4_ulen  = cw(cap_reg, OFF_V4_UDP + 4);
    wire [15:0] v6_ulen  = cw(cap_reg, OFF_V6_UDP + 4);

    wire        v4_bad   = ver_ihl != 8'h45 || v4_frag != 14'h0 || v4_proto != 8'(rnic_pkg::IP_PROTO_UDP);
    wire        v6_bad   = ver_ihl[7:4] != 4'h6 || v6_nh != 8'(rnic_pkg::IP_PROTO_UDP);
    wire        v4_port  = v4_dport == 16'(rnic_pkg::ROCEV2_UDP_PORT);
    wire        v6_port  = v6_dport == 16'(rnic_pkg::ROCEV2_UDP_PORT);

    // frame length expected from the IP length, and the UDP length it implies
    wire [16:0] v4_expect = 17'(v4_len) + 17'(ETH_B);
    wire [16:0] v6_expect = 17'(v6_len) + 17'(ETH_B + IPV6_B);
    wire [16:0] v4_udp_expect = 17'(v4_len) - 17'(IPV4_B);
    // the IP datagram ends before a 60-byte frame does (Ethernet padding)
    wire        v4_short  = v4_len < 16'(ETH_MIN_FRAME - ETH_B);
    wire        v6_short  = v6_len < 16'(ETH_MIN_FRAME - ETH_B - IPV6_B);

    wire [16:0] len_sum = 17'(s1_lenb_reg) + 17'(s1_cnt_reg);
    // the last beat of a 60-byte frame
    wire        min_frame = s1_tlast_reg && s1_lenb_reg == 16'(MIN_LAST) &&
                            s1_cnt_reg == CNT_W'(ETH_MIN_FRAME - MIN_LAST);

    // the IPv4 header checksum: the sum of its ten words as two numbers (carry-save)
    function automatic logic [39:0] full_add(input logic [19:0] a, input logic [19:0] b, input logic [19:0] c);
        full_add = {((a & b) | (a & c) | (b & c)) << 1, a ^ b ^ c};   // {carry, sum}
    endfunction

    logic [39:0] csum_cs;
    always_comb begin
        logic [10*20-1:0] w;
        logic [39:0] a, b, c, d, e, f, g;
        for (int i = 0; i < 10; i++) w[20*i +: 20] = 20'(cw(cap_reg, OFF_IP + 2 * i));
        // 10 -> 7 -> 5 -> 4 -> 3 -> 2 numbers
        a = full_add(w[0 +: 20], w[20 +: 20], w[40 +: 20]);
        b = full_add(w[60 +: 20], w[80 +: 20], w[100 +: 20]);
        c = full_add(w[120 +: 20], w[140 +: 20], w[160 +: 20]);
        d = full_add(a[19:0], a[39:20], b[19:0]);
        e = full_add(b[39:20], c[19:0], c[39:20]);
        f = full_add(d[19:0], d[39:20], e[19:0]);
        g = full_add(f[19:0], f[39:20], e[39:20]);
        csum_cs = full_add(g[19:0], g[39:20], w[180 +: 20]);
    end

    logic [DATA_WIDTH-1:0] s2_tdata_reg;
    logic [KEEP_WIDTH-1:0] s2_tkeep_reg;
    logic                  s2_tvalid_reg, s2_tlast_reg, s2_err_reg;
    logic [15:0]           s2_len_reg;
    logic                  s2_v4_reg, s2_v6_reg, s2_hdr_bad_reg, s2_port_ok_reg, s2_ip_len_ok_reg;
    logic [16:0]           s2_expect_reg, s2_udp_expect_reg;
    logic [15:0]           s2_udp_len_reg;
    logic                  s2_pad_reg;
    logic [39:0]           s2_csum_cs_reg;

    always_ff @(posedge clk) begin
        s2_tvalid_reg <= s1_tvalid_reg;
        s2_tdata_reg <= s1_tdata_reg;
        s2_tkeep_reg <= s1_tkeep_reg;
        s2_tlast_reg <= s1_tlast_reg;
        s2_err_reg <= s1_err_reg;
        s2_len_reg <= len_sum[16] ? 16'hffff : len_sum[15:0];
        s2_v4_reg <= is_v4;
        s2_v6_reg <= is_v6;
        s2_hdr_bad_reg <= is_v6 ? v6_bad : v4_bad;
        s2_port_ok_reg <= is_v6 ? v6_port : v4_port;
        s2_expect_reg <= is_v6 ? v6_expect : v4_expect;
        s2_udp_expect_reg <= is_v6 ? 17'(v6_len) : v4_udp_expect;
        s2_udp_len_reg <= is_v6 ? v6_ulen : v4_ulen;
        s2_ip_len_ok_reg <= is_v6 || v4_len >= 16'(IPV4_B);
        s2_pad_reg <= min_frame && (is_v6 ? v6_short : v4_short);
        s2_csum_cs_reg <= csum_cs;
        if (rst) s2_tvalid_reg <= 1'b0;
    end

    // ------------------------------------------------------------------
    // stage 2 -> 3: length checks, checksum total, the lanes the ICRC covers
    // ------------------------------------------------------------------
    // status decided before the IPv4 header checksum (a), between it and the
    // ICRC (b)
    typedef enum logic [2:0] {
        C_GOOD,         // RoCEv2 frame with good checksums
        C_NOT_ROCE,     // not IPv4/IPv6 UDP
        C_BAD_PORT,     // UDP, not port 4791
        C_BAD_CSUM,     // IPv4 header checksum wrong
        C_BAD_ICRC,     // ICRC wrong
        C_MALFORMED     // MAC error, truncated, lengths inconsistent
    } class_t;

    wire short_eth = s2_len_reg < 16'(ETH_B);
    wire short_ip  = s2_len_reg < (s2_v6_reg ? 16'(ETH_B + IPV6_B) : 16'(ETH_B + IPV4_B));
    wire short_udp = s2_len_reg < (s2_v6_reg ? 16'(OFF_V6_UDP + UDP_B) : 16'(OFF_V4_UDP + UDP_B));
    wire len_ok    = 17'(s2_len_reg) == s2_expect_reg || s2_pad_reg;
    wire udp_ok    = 17'(s2_udp_len_reg) == s2_udp_expect_reg && s2_udp_len_reg >= 16'(UDP_B + BTH_B + ICRC_B) &&
                     s2_ip_len_ok_reg;

    logic   a_hit, b_hit;
    class_t a_cls, b_cls;
    always_comb begin
        a_hit = 1'b1;
        if (s2_err_reg || short_eth) a_cls = C_MALFORMED;
        else if (!s2_v4_reg && !s2_v6_reg) a_cls = C_NOT_ROCE;
        else if (short_ip) a_cls = C_MALFORMED;
        else if (s2_hdr_bad_reg) a_cls = C_NOT_ROCE;
        else begin
            a_hit = 1'b0;
            a_cls = C_GOOD;
        end
        b_hit = 1'b1;
        if (short_udp) b_cls = C_MALFORMED;
        else if (!s2_port_ok_reg) b_cls = C_BAD_PORT;
        else if (!len_ok || !udp_ok) b_cls = C_MALFORMED;
        else begin
            b_hit = 1'b0;
            b_cls = C_GOOD;
        end
    end

    // sum of the ten header words
    wire [19:0] csum_total = s2_csum_cs_reg[19:0] + s2_csum_cs_reg[39:20];

    // a 60-byte frame's last beat: lanes past the IP datagram left out of the ICRC
    // (the datagram ends in that beat in every frame whose lengths are consistent)
    logic [KEEP_WIDTH-1:0] crc_keep;
    always_comb begin
        for (int i = 0; i < KEEP_WIDTH; i++) begin
            crc_keep[i] = s2_tkeep_reg[i] && !(s2_pad_reg && 6'(MIN_LAST + i) >= s2_expect_reg[5:0]);
        end
    end

    // stage 3: the beat with its frame's status so far on the last beat
    localparam int INFO_W = 1 + 3 + 1 + 3 + 1 + 20;
    logic [DATA_WIDTH-1:0] s3_tdata_reg;
    logic [KEEP_WIDTH-1:0] s3_tkeep_reg, s3_crc_keep_reg;
    logic                  s3_tvalid_reg, s3_tlast_reg;
    logic [INFO_W-1:0]     s3_info_reg;    // a_hit, a_cls, b_hit, b_cls, IPv4, checksum total

    always_ff @(posedge clk) begin
        s3_tvalid_reg <= s2_tvalid_reg;
        s3_tdata_reg <= s2_tdata_reg;
        s3_tkeep_reg <= s2_tkeep_reg;
        s3_crc_keep_reg <= crc_keep;
        s3_tlast_reg <= s2_tlast_reg;
        s3_info_reg <= {a_hit, a_cls, b_hit, b_cls, s2_v4_reg, csum_total};
        if (rst) s3_tvalid_reg <= 1'b0;
    end

    // ------------------------------------------------------------------
    // stages 4..: ICRC over the IP datagram, the beat alongside
    // ------------------------------------------------------------------
    logic [DATA_WIDTH-1:0]            c_tdata;
    logic                             c_tvalid, c_tlast;
    logic [INFO_W+KEEP_WIDTH-1:0]     c_tuser;
    logic [31:0]                      c_crc_unused;
    logic                             c_icrc_ok;

    rnic_icrc #(
        .DATA_WIDTH(DATA_WIDTH),
        .KEEP_WIDTH(KEEP_WIDTH),
        .USER_WIDTH(INFO_W + KEEP_WIDTH)
    ) icrc_inst (
        .clk(clk),
        .rst(rst),
        .ce(1'b1),
        .tdata(s3_tdata_reg),
        .tkeep(s3_crc_keep_reg),
        .tvalid(s3_tvalid_reg),
        .tlast(s3_tlast_reg),
        .tuser({s3_info_reg, s3_tkeep_reg}),
        .m_tdata(c_tdata),
        .m_tvalid(c_tvalid),
        .m_tlast(c_tlast),
        .m_tuser(c_tuser),
        .m_crc(c_crc_unused),
        .m_icrc_ok(c_icrc_ok)
    );

    wire [KEEP_WIDTH-1:0] c_tkeep = c_tuser[KEEP_WIDTH-1:0];
    wire                  c_a_hit, c_b_hit, c_v4;
    class_t               c_a_cls, c_b_cls;
    wire [19:0]           c_csum_total;
    assign {c_a_hit, c_a_cls, c_b_hit, c_b_cls, c_v4, c_csum_total} = c_tuser[KEEP_WIDTH +: INFO_W];

    // one's complement sum of the words 0xffff: their sum a nonzero multiple of 0xffff
    logic csum_ok;
    always_comb begin
        csum_ok = 1'b0;
        for (int k = 1; k <= IPV4_B / 2; k++) begin
            if (c_csum_total == 20'(k * 32'hffff)) csum_ok = 1'b1;
        end
    end

    class_t cls;
    always_comb begin
        if (c_a_hit) cls = c_a_cls;
        else if (c_v4 && !csum_ok) cls = C_BAD_CSUM;
        else if (c_b_hit) cls = c_b_cls;
        else if (!c_icrc_ok) cls = C_BAD_ICRC;
        else cls = C_GOOD;
    end

    wire c_end = c_tvalid && c_tlast;

    // ------------------------------------------------------------------
    // output
    // ------------------------------------------------------------------
    logic [DATA_WIDTH-1:0] m_axis_tdata_reg;
    logic [KEEP_WIDTH-1:0] m_axis_tkeep_reg;
    logic                  m_axis_tvalid_reg, m_axis_tlast_reg, m_axis_tuser_reg;

    always_ff @(posedge clk) begin
        m_axis_tvalid_reg <= c_tvalid;
        m_axis_tdata_reg <= c_tdata;
        m_axis_tkeep_reg <= c_tkeep;
        m_axis_tlast_reg <= c_tlast;
        m_axis_tuser_reg <= c_end && cls != C_GOOD;
        stat_good <= c_end && cls == C_GOOD;
        stat_not_roce <= c_end && cls == C_NOT_ROCE;
        stat_bad_udp_port <= c_end && cls == C_BAD_PORT;
        stat_bad_ip_csum <= c_end && cls == C_BAD_CSUM;
        stat_bad_icrc <= c_end && cls == C_BAD_ICRC;
        stat_malformed <= c_end && cls == C_MALFORMED;
        if (rst) begin
            m_axis_tvalid_reg <= 1'b0;
            stat_good <= 1'b0;
            stat_not_roce <= 1'b0;
            stat_bad_udp_port <= 1'b0;
            stat_bad_ip_csum <= 1'b0;
            stat_bad_icrc <= 1'b0;
            stat_malformed <= 1'b0;
        end
    end

    assign m_axis_tdata = m_axis_tdata_reg;
    assign m_axis_tkeep = m_axis_tkeep_reg;
    assign m_axis_tvalid = m_axis_tvalid_reg;
    assign m_axis_tlast = m_axis_tlast_reg;
    assign m_axis_tuser = m_axis_tuser_reg;

endmodule

`resetall
