`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * RoCEv2 receive checker.
 *
 * Passes the MAC's frames through unchanged (two register stages, never
 * stalls: s_axis_rx_tready is 1 and the sink must always accept) and sets
 * m_axis_tuser on the last beat of every frame that must be dropped. Each
 * frame is classified once; at its last beat exactly one of the stat_*
 * outputs pulses, checked in this order:
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
 * The input must be dense (all beats full but the last), as MACs deliver it.
 * Addresses are not checked here.
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
    // the IP length field is complete from this beat on
    localparam int LEN_BEAT = (OFF_V6_LEN + 1) / KEEP_WIDTH;

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

    // ------------------------------------------------------------------
    // stage 0: header capture, length, ICRC
    // ------------------------------------------------------------------
    logic [BEAT_W-1:0]  beat_reg;    // beat index in the frame, saturates at CAP_BEATS
    logic [15:0]        len_reg;     // frame bytes so far, saturating
    logic [8*CAP-1:0]   cap_reg, cap_next;
    logic               err_reg;

    localparam int CNT_W = $clog2(KEEP_WIDTH + 1);
    logic [CNT_W-1:0] in_cnt;
    always_comb begin
        in_cnt = '0;
        for (int i = 0; i < KEEP_WIDTH; i++) in_cnt = in_cnt + CNT_W'(s_axis_rx_tkeep[i]);
    end
    wire [16:0] len_sum = 17'(len_reg) + 17'(in_cnt);
    wire [15:0] len_now = len_sum[16] ? 16'hffff : len_sum[15:0];

    // frame byte p: from this beat if it is there, else from the capture
    function automatic logic [7:0] view(input int p, input logic [BEAT_W-1:0] beat,
                                        input logic [DATA_WIDTH-1:0] d, input logic [8*CAP-1:0] c);
        if (beat == BEAT_W'(p / KEEP_WIDTH)) view = d[8*(p % KEEP_WIDTH) +: 8];
        else view = c[8*p +: 8];
    endfunction

    always_comb begin
        cap_next = cap_reg;
        for (int p = 0; p < CAP; p++) begin
            if (beat_reg == BEAT_W'(p / KEEP_WIDTH)) cap_next[8*p +: 8] = s_axis_rx_tdata[8*(p % KEEP_WIDTH) +: 8];
        end
    end

    // end of the IP datagram, to leave Ethernet padding out of the ICRC
    wire [15:0] v_et = {view(OFF_ET, beat_reg, s_axis_rx_tdata, cap_reg),
                        view(OFF_ET + 1, beat_reg, s_axis_rx_tdata, cap_reg)};
    wire [15:0] v_v4_len = {view(OFF_V4_LEN, beat_reg, s_axis_rx_tdata, cap_reg),
                            view(OFF_V4_LEN + 1, beat_reg, s_axis_rx_tdata, cap_reg)};
    wire [15:0] v_v6_len = {view(OFF_V6_LEN, beat_reg, s_axis_rx_tdata, cap_reg),
                            view(OFF_V6_LEN + 1, beat_reg, s_axis_rx_tdata, cap_reg)};
    wire        v_ipv6 = v_et == 16'(rnic_pkg::ETHERTYPE_IPV6);
    wire [16:0] ip_end = v_ipv6 ? 17'(v_v6_len) + 17'(ETH_B + IPV6_B) : 17'(v_v4_len) + 17'(ETH_B);
    wire        ip_end_known = {1'b0, beat_reg} + 1'b1 > (BEAT_W + 1)'(LEN_BEAT);

    logic [KEEP_WIDTH-1:0] crc_keep;
    always_comb begin
        for (int i = 0; i < KEEP_WIDTH; i++) begin
            crc_keep[i] = s_axis_rx_tkeep[i] &&
                          !(ip_end_known && 17'(len_reg) + 17'(i) >= ip_end);
        end
    end

    logic        icrc_ok;
    logic [31:0] crc_next_unused, crc_reg_unused;

    rnic_icrc #(
        .DATA_WIDTH(DATA_WIDTH),
        .KEEP_WIDTH(KEEP_WIDTH)
    ) icrc_inst (
        .clk(clk),
        .rst(rst),
        .tdata(s_axis_rx_tdata),
        .tkeep(crc_keep),
        .beat_valid(in_beat),
        .tlast(s_axis_rx_tlast),
        .crc_next(crc_next_unused),
        .crc_reg(crc_reg_unused),
        .icrc_ok(icrc_ok)
    );

    // stage 1: the beat, with the frame's totals on its last beat
    logic [DATA_WIDTH-1:0] s1_tdata_reg;
    logic [KEEP_WIDTH-1:0] s1_tkeep_reg;
    logic                  s1_tvalid_reg, s1_tlast_reg;
    logic                  s1_err_reg;
    logic [15:0]           s1_len_reg;
    logic                  s1_icrc_ok_reg;

    always_ff @(posedge clk) begin
        s1_tvalid_reg <= in_beat;
        if (in_beat) begin
            s1_tdata_reg <= s_axis_rx_tdata;
            s1_tkeep_reg <= s_axis_rx_tkeep;
            s1_tlast_reg <= s_axis_rx_tlast;
            s1_err_reg <= err_reg || s_axis_rx_tuser;
            s1_len_reg <= len_now;
            s1_icrc_ok_reg <= icrc_ok;
            cap_reg <= cap_next;
            if (s_axis_rx_tlast) begin
                beat_reg <= '0;
                len_reg <= '0;
                err_reg <= 1'b0;
            end else begin
                if (beat_reg < BEAT_W'(CAP_BEATS)) beat_reg <= beat_reg + 1'b1;
                len_reg <= len_now;
                err_reg <= err_reg || s_axis_rx_tuser;
            end
        end
        if (rst) begin
            s1_tvalid_reg <= 1'b0;
            beat_reg <= '0;
            len_reg <= '0;
            err_reg <= 1'b0;
        end
    end

    // ------------------------------------------------------------------
    // classification of the frame whose last beat is in stage 1
    // ------------------------------------------------------------------
    function automatic logic [7:0] cb(input logic [8*CAP-1:0] c, input int p);
        cb = c[8*p +: 8];
    endfunction
    function automatic logic [15:0] cw(input logic [8*CAP-1:0] c, input int p);
        cw = {c[8*p +: 8], c[8*(p+1) +: 8]};
    endfunction

    // IPv4 header checksum holds: the one's complement sum of the header is 0xffff
    function automatic logic v4_csum_ok(input logic [8*CAP-1:0] c);
        logic [19:0] s;
        s = '0;
        for (int i = 0; i < IPV4_B / 2; i++) s = s + 20'(cw(c, OFF_IP + 2 * i));
        s = 20'(s[15:0]) + 20'(s[19:16]);
        s = 20'(s[15:0]) + 20'(s[16]);
        v4_csum_ok = s[15:0] == 16'hffff;
    endfunction

    wire [15:0] et       = cw(cap_reg, OFF_ET);
    wire        is_v4    = et == 16'(rnic_pkg::ETHERTYPE_IPV4);
    wire        is_v6    = et == 16'(rnic_pkg::ETHERTYPE_IPV6);
    wire [7:0]  ver_ihl  = cb(cap_reg, OFF_IP);
    wire [15:0] v4_len   = cw(cap_reg, OFF_V4_LEN);
    wire [13:0] v4_frag  = 14'(cw(cap_reg, OFF_V4_FRAG)); // MF, fragment offset (not DF)
    wire [7:0]  v4_proto = cb(cap_reg, OFF_V4_PROTO);
    wire [15:0] v6_len   = cw(cap_reg, OFF_V6_LEN);
    wire [7:0]  v6_nh    = cb(cap_reg, OFF_V6_NH);
    wire        csum_ok  = v4_csum_ok(cap_reg);
    wire [15:0] dport    = is_v6 ? cw(cap_reg, OFF_V6_UDP + 2) : cw(cap_reg, OFF_V4_UDP + 2);
    wire [15:0] udp_len  = is_v6 ? cw(cap_reg, OFF_V6_UDP + 4) : cw(cap_reg, OFF_V4_UDP + 4);

    // IP datagram length and the UDP length it implies
    wire [16:0] ip_total   = is_v6 ? 17'(v6_len) + 17'(IPV6_B) : 17'(v4_len);
    wire [16:0] udp_expect = is_v6 ? 17'(v6_len) : 17'(v4_len) - 17'(IPV4_B);
    wire [17:0] frame_expect = 18'(ip_total) + 18'(ETH_B);
    wire        len_ok = 18'(s1_len_reg) == frame_expect ||
                         (s1_len_reg == 16'(ETH_MIN_FRAME) && frame_expect < 18'(ETH_MIN_FRAME));
    wire        udp_ok = 17'(udp_len) == udp_expect && udp_len >= 16'(UDP_B + BTH_B + ICRC_B) &&
                         (is_v6 || v4_len >= 16'(IPV4_B));

    wire        short_eth = s1_len_reg < 16'(ETH_B);
    wire        short_ip  = s1_len_reg < (is_v6 ? 16'(ETH_B + IPV6_B) : 16'(ETH_B + IPV4_B));
    wire        short_udp = s1_len_reg < (is_v6 ? 16'(OFF_V6_UDP + UDP_B) : 16'(OFF_V4_UDP + UDP_B));
    wire        not_roce  = is_v6 ? (ver_ihl[7:4] != 4'h6 || v6_nh != 8'(rnic_pkg::IP_PROTO_UDP))
                                  : (ver_ihl != 8'h45 || v4_frag != 14'h0 ||
                                     v4_proto != 8'(rnic_pkg::IP_PROTO_UDP));

    typedef enum logic [2:0] {
        C_GOOD,         // RoCEv2 frame with good checksums
        C_NOT_ROCE,     // not IPv4/IPv6 UDP
        C_BAD_PORT,     // UDP, not port 4791
        C_BAD_CSUM,     // IPv4 header checksum wrong
        C_BAD_ICRC,     // ICRC wrong
        C_MALFORMED     // MAC error, truncated, lengths inconsistent
    } class_t;

    class_t cls;
    always_comb begin
        if (s1_err_reg || short_eth) cls = C_MALFORMED;
        else if (!is_v4 && !is_v6) cls = C_NOT_ROCE;
        else if (short_ip) cls = C_MALFORMED;
        else if (not_roce) cls = C_NOT_ROCE;
        else if (is_v4 && !csum_ok) cls = C_BAD_CSUM;
        else if (short_udp) cls = C_MALFORMED;
        else if (dport != 16'(rnic_pkg::ROCEV2_UDP_PORT)) cls = C_BAD_PORT;
        else if (!len_ok || !udp_ok) cls = C_MALFORMED;
        else if (!s1_icrc_ok_reg) cls = C_BAD_ICRC;
        else cls = C_GOOD;
    end

    wire s1_end = s1_tvalid_reg && s1_tlast_reg;

    // ------------------------------------------------------------------
    // stage 2: output
    // ------------------------------------------------------------------
    logic [DATA_WIDTH-1:0] m_axis_tdata_reg;
    logic [KEEP_WIDTH-1:0] m_axis_tkeep_reg;
    logic                  m_axis_tvalid_reg, m_axis_tlast_reg, m_axis_tuser_reg;

    always_ff @(posedge clk) begin
        m_axis_tvalid_reg <= s1_tvalid_reg;
        m_axis_tdata_reg <= s1_tdata_reg;
        m_axis_tkeep_reg <= s1_tkeep_reg;
        m_axis_tlast_reg <= s1_tlast_reg;
        m_axis_tuser_reg <= s1_end && cls != C_GOOD;
        stat_good <= s1_end && cls == C_GOOD;
        stat_not_roce <= s1_end && cls == C_NOT_ROCE;
        stat_bad_udp_port <= s1_end && cls == C_BAD_PORT;
        stat_bad_ip_csum <= s1_end && cls == C_BAD_CSUM;
        stat_bad_icrc <= s1_end && cls == C_BAD_ICRC;
        stat_malformed <= s1_end && cls == C_MALFORMED;
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
