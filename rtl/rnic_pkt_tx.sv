`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * RoCEv2 packet builder.
 *
 * Takes one packet descriptor (the flat record of rnic_hdr_pkg) per packet
 * and the packet's payload stream (dense, exactly HDR_PAYLOAD_LEN bytes,
 * tlast on the last beat, nothing when the length is 0), and sends
 *   Ethernet II / IPv4 (header checksum, DF, id 0) or IPv6 / UDP (checksum 0,
 *   destination port 4791) / BTH / RETH / AETH / ImmDt / payload /
 *   BTH pad (zero bytes) / ICRC
 * (a UD SEND: BTH / DETH / ImmDt / payload / pad / ICRC; a SEND LAST or
 * ONLY with invalidate: BTH / IETH / payload / pad / ICRC)
 * or, for ATOMIC requests and acknowledgements, BTH / AtomicETH and
 * BTH / AETH / AtomicAckETH. The extension headers are present as the
 * descriptor's has_* flags say, in IBTA order (RETH before ImmDt, AETH
 * before AtomicAckETH; an AtomicETH takes its VA and rkey from the RETH
 * fields and comes alone, as does an IETH its rkey); all lengths are computed here.
 *
 * Pipeline: descriptor stages (lengths, IPv4 checksum) -> header builder (header
 * bytes into a shift register) -> beats: header beats (partial tkeep on the
 * last one), payload beats as they come, one beat with the pad bytes ->
 * axis_packer (dense) -> rnic_icrc_insert (ICRC). The next descriptor is
 * taken while the current packet's payload streams, so back-to-back packets
 * leave without idle cycles between them.
 */
module rnic_pkt_tx #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8
) (
    input  wire logic                              clk,
    input  wire logic                              rst,

    // the port's MAC and GID table: a packet's Ethernet source and its IP
    // source (the entry HDR_SGID_INDEX names; an IPv4-mapped GID's low 32
    // bits for IPv4), filled in here rather than carried in every queued
    // descriptor
    input  wire logic [47:0]                       cfg_port_mac,
    input  wire logic [4*128-1:0]                  cfg_gid,

    // packet descriptor
    input  wire logic                              s_hdr_valid,
    output      logic                              s_hdr_ready,
    input  wire logic [rnic_hdr_pkg::HDR_BITS-1:0] s_hdr,

    // payload
    input  wire logic [DATA_WIDTH-1:0]             s_axis_payload_tdata,
    input  wire logic [KEEP_WIDTH-1:0]             s_axis_payload_tkeep,
    input  wire logic                              s_axis_payload_tvalid,
    output      logic                              s_axis_payload_tready,
    input  wire logic                              s_axis_payload_tlast,

    // Ethernet frames to the MAC
    output      logic [DATA_WIDTH-1:0]             m_axis_tx_tdata,
    output      logic [KEEP_WIDTH-1:0]             m_axis_tx_tkeep,
    output      logic                              m_axis_tx_tvalid,
    input  wire logic                              m_axis_tx_tready,
    output      logic                              m_axis_tx_tlast,
    output      logic                              m_axis_tx_tuser
);

    localparam int HB = rnic_hdr_pkg::HDR_BITS;

    localparam int ETH_B   = rnic_pkg::ETH_HDR_BYTES;
    localparam int IPV4_B  = rnic_pkg::IPV4_HDR_BYTES;
    localparam int IPV6_B  = rnic_pkg::IPV6_HDR_BYTES;
    localparam int UDP_B   = rnic_pkg::UDP_HDR_BYTES;
    localparam int BTH_B   = rnic_pkg::BTH_BYTES;
    localparam int RETH_B  = rnic_pkg::RETH_BYTES;
    localparam int AETH_B  = rnic_pkg::AETH_BYTES;
    localparam int IMMDT_B = rnic_pkg::IMMDT_BYTES;
    localparam int ATOM_B  = rnic_pkg::ATOMICETH_BYTES;
    localparam int ATOMACK_B = rnic_pkg::ATOMICACKETH_BYTES;
    localparam int ICRC_B  = rnic_pkg::ICRC_BYTES;
    localparam int DETH_B  = rnic_pkg::DETH_BYTES;
    localparam int IETH_B  = rnic_pkg::IETH_BYTES;
    // extension headers this builder can emit, all at once at most:
    // RETH + AETH + ImmDt, AtomicETH, or AETH + AtomicAckETH
    localparam int EXT_RAI = RETH_B + AETH_B + IMMDT_B;
    localparam int EXT_ACK = AETH_B + ATOMACK_B;
    localparam int EXT_MAX = (EXT_RAI > ATOM_B) ? ((EXT_RAI > EXT_ACK) ? EXT_RAI : EXT_ACK)
                                                : ((ATOM_B > EXT_ACK) ? ATOM_B : EXT_ACK);
    // longest header: Ethernet + IPv6 + UDP + BTH + extensions
    localparam int HMAX = ETH_B + IPV6_B + UDP_B + BTH_B + EXT_MAX;
    // IPv4 header is shorter: the builder pads its big-endian image with zeros
    localparam int V4_SLACK = IPV6_B - IPV4_B;
    localparam int BUF_BEATS = (HMAX + KEEP_WIDTH - 1) / KEEP_WIDTH;
    localparam int BUF_BYTES = BUF_BEATS * KEEP_WIDTH;

    // IPv4 fixed fields: version 4, IHL 5 (no options); flags DF, fragment offset 0
    localparam logic [7:0]  IPV4_VER_IHL = 8'h45;
    localparam logic [15:0] IPV4_FLAGS_DF = 16'h4000;
    localparam logic [3:0]  IPV6_VERSION = 4'h6;

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH || KEEP_WIDTH < 8 || KEEP_WIDTH > 64 ||
            (KEEP_WIDTH & (KEEP_WIDTH - 1)) != 0) begin
            $error("rnic_pkt_tx: DATA_WIDTH must be 8 * KEEP_WIDTH, a power of two from 64 to 512 bits (%m)");
            $finish;
        end
    end

    // ------------------------------------------------------------------
    // header image: the header bytes of a descriptor, frame byte i in bits 8*i +: 8
    // ------------------------------------------------------------------
    function automatic logic [8*HMAX-1:0] build_header(input logic [HB-1:0] h,
                                                       input logic [15:0] udp_len,
                                                       input logic [15:0] ip_tot_len,
                                                       input logic [15:0] ip_csum);
        logic [8*HMAX-1:0]          be;     // first byte in the most significant bits
        logic [8*HMAX-1:0]          le;
        logic [8*ETH_B-1:0]         eth;
        logic [8*IPV4_B-1:0]        ip4;
        logic [8*IPV6_B-1:0]        ip6;
        logic [8*UDP_B-1:0]         udp;
        logic [8*BTH_B-1:0]         bth;
        logic [8*EXT_MAX-1:0]       ext;
        logic                       ipv6;
        logic [15:0]                ethertype;
        logic [7:0]                 tclass, ttl;

        ipv6 = h[rnic_hdr_pkg::HDR_IPV6_LSB];
        tclass = h[rnic_hdr_pkg::HDR_IP_TCLASS_LSB +: rnic_hdr_pkg::HDR_IP_TCLASS_W];
        ttl = h[rnic_hdr_pkg::HDR_IP_TTL_LSB +: rnic_hdr_pkg::HDR_IP_TTL_W];
        ethertype = ipv6 ? 16'(rnic_pkg::ETHERTYPE_IPV6) : 16'(rnic_pkg::ETHERTYPE_IPV4);

        eth = {h[rnic_hdr_pkg::HDR_ETH_DST_LSB +: rnic_hdr_pkg::HDR_ETH_DST_W],
               h[rnic_hdr_pkg::HDR_ETH_SRC_LSB +: rnic_hdr_pkg::HDR_ETH_SRC_W],
               ethertype};
        ip4 = {IPV4_VER_IHL, tclass, ip_tot_len, 16'h0000, IPV4_FLAGS_DF,
               ttl, 8'(rnic_pkg::IP_PROTO_UDP), ip_csum,
               h[rnic_hdr_pkg::HDR_IP_SRC_LSB +: 32], h[rnic_hdr_pkg::HDR_IP_DST_LSB +: 32]};
        ip6 = {IPV6_VERSION, tclass,
               h[rnic_hdr_pkg::HDR_IP_FLOW_LABEL_LSB +: rnic_hdr_pkg::HDR_IP_FLOW_LABEL_W],
               udp_len, 8'(rnic_pkg::IP_PROTO_UDP), ttl,
               h[rnic_hdr_pkg::HDR_IP_SRC_LSB +: rnic_hdr_pkg::HDR_IP_SRC_W],
               h[rnic_hdr_pkg::HDR_IP_DST_LSB +: rnic_hdr_pkg::HDR_IP_DST_W]};
        udp = {h[rnic_hdr_pkg::HDR_UDP_SPORT_LSB +: rnic_hdr_pkg::HDR_UDP_SPORT_W],
               16'(rnic_pkg::ROCEV2_UDP_PORT), udp_len, 16'h0000};
        // opcode | SE M PadCnt TVer | P_Key | resv8 (FECN/BECN 0) | DestQP | A resv7 | PSN
        bth = {h[rnic_hdr_pkg::HDR_BTH_OPCODE_LSB +: rnic_hdr_pkg::HDR_BTH_OPCODE_W],
               h[rnic_hdr_pkg::HDR_BTH_SE_LSB], h[rnic_hdr_pkg::HDR_BTH_MIGREQ_LSB],
               h[rnic_hdr_pkg::HDR_BTH_PAD_LSB +: rnic_hdr_pkg::HDR_BTH_PAD_W], 4'(rnic_pkg::BTH_TVER),
               h[rnic_hdr_pkg::HDR_BTH_PKEY_LSB +: rnic_hdr_pkg::HDR_BTH_PKEY_W],
               8'h00,
               h[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: rnic_hdr_pkg::HDR_BTH_DEST_QPN_W],
               h[rnic_hdr_pkg::HDR_BTH_ACKREQ_LSB], 7'h00,
               h[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W]};

        // extension headers, packed from the first byte on: RETH, AETH, ImmDt,
        // or AtomicETH alone (VA and rkey from the RETH fields), or AETH and
        // AtomicAckETH
        ext = '0;
        if (h[rnic_hdr_pkg::HDR_HAS_RETH_LSB]) begin
            ext = {h[rnic_hdr_pkg::HDR_RETH_VA_LSB +: rnic_hdr_pkg::HDR_RETH_VA_W],
                   h[rnic_hdr_pkg::HDR_RETH_RKEY_LSB +: rnic_hdr_pkg::HDR_RETH_RKEY_W],
                   h[rnic_hdr_pkg::HDR_RETH_LEN_LSB +: rnic_hdr_pkg::HDR_RETH_LEN_W],
                   {(8 * (EXT_MAX - RETH_B)){1'b0}}};
        end
        if (h[rnic_hdr_pkg::HDR_HAS_AETH_LSB]) begin
            ext = ext | ({h[rnic_hdr_pkg::HDR_AETH_SYNDROME_LSB +: rnic_hdr_pkg::HDR_AETH_SYNDROME_W],
                          h[rnic_hdr_pkg::HDR_AETH_MSN_LSB +: rnic_hdr_pkg::HDR_AETH_MSN_W],
                          {(8 * (EXT_MAX - AETH_B)){1'b0}}}
                         >> (h[rnic_hdr_pkg::HDR_HAS_RETH_LSB] ? 8 * RETH_B : 0));
        end
        if (h[rnic_hdr_pkg::HDR_HAS_IMMDT_LSB]) begin
            ext = ext | ({h[rnic_hdr_pkg::HDR_IMMDT_LSB +: rnic_hdr_pkg::HDR_IMMDT_W],
                          {(8 * (EXT_MAX - IMMDT_B)){1'b0}}}
                         >> ((h[rnic_hdr_pkg::HDR_HAS_RETH_LSB] ? 8 * RETH_B : 0) +
                             (h[rnic_hdr_pkg::HDR_HAS_AETH_LSB] ? 8 * AETH_B : 0)));
        end
        if (h[rnic_hdr_pkg::HDR_HAS_ATOMICETH_LSB]) begin
            ext = {h[rnic_hdr_pkg::HDR_RETH_VA_LSB +: rnic_hdr_pkg::HDR_RETH_VA_W],
                   h[rnic_hdr_pkg::HDR_RETH_RKEY_LSB +: rnic_hdr_pkg::HDR_RETH_RKEY_W],
                   h[rnic_hdr_pkg::HDR_ATOMIC_SWAP_LSB +: rnic_hdr_pkg::HDR_ATOMIC_SWAP_W],
                   h[rnic_hdr_pkg::HDR_ATOMIC_CMP_LSB +: rnic_hdr_pkg::HDR_ATOMIC_CMP_W],
                   {(8 * (EXT_MAX - ATOM_B)){1'b0}}};
        end
        if (h[rnic_hdr_pkg::HDR_HAS_ATOMICACKETH_LSB]) begin
            ext = ext | ({h[rnic_hdr_pkg::HDR_ATOMICACK_ORIG_LSB +: rnic_hdr_pkg::HDR_ATOMICACK_ORIG_W],
                          {(8 * (EXT_MAX - ATOMACK_B)){1'b0}}}
                         >> (h[rnic_hdr_pkg::HDR_HAS_AETH_LSB] ? 8 * AETH_B : 0));
        end

        // IETH alone (SEND LAST / ONLY with invalidate), its rkey from the RETH field
        if (h[rnic_hdr_pkg::HDR_HAS_IETH_LSB]) begin
            ext = {h[rnic_hdr_pkg::HDR_RETH_RKEY_LSB +: rnic_hdr_pkg::HDR_RETH_RKEY_W],
                   {(8 * (EXT_MAX - IETH_B)){1'b0}}};
        end

        // DETH right behind the BTH (UD: only an ImmDt follows, which the
        // shift keeps: DETH + ImmDt is shorter than RETH + AETH + ImmDt)
        if (h[rnic_hdr_pkg::HDR_HAS_DETH_LSB]) begin
            ext = {h[rnic_hdr_pkg::HDR_DETH_QKEY_LSB +: rnic_hdr_pkg::HDR_DETH_QKEY_W], 8'h00,
                   h[rnic_hdr_pkg::HDR_DETH_SRC_QPN_LSB +: rnic_hdr_pkg::HDR_DETH_SRC_QPN_W],
                   {(8 * (EXT_MAX - DETH_B)){1'b0}}} | (ext >> (8 * DETH_B));
        end

        if (ipv6) be = {eth, ip6, udp, bth, ext};
        else      be = {eth, ip4, udp, bth, ext, {(8 * V4_SLACK){1'b0}}};

        for (int i = 0; i < HMAX; i++) le[8*i +: 8] = be[8*(HMAX-1-i) +: 8];
        build_header = le;
    endfunction

    // one's complement 16-bit sum of a 20-bit sum (RFC 1071): its high bits
    // added back in, and the carry of that added back in, chosen from the sum
    // and the sum plus one made side by side
    function automatic logic [15:0] ones_fold(input logic [19:0] s);
        logic [16:0] t0;
        logic [15:0] t1;
        t0 = 17'(s[15:0]) + 17'(s[19:16]);
        t1 = 16'(({s[15:0], 1'b1} + {13'd0, s[19:16], 1'b1}) >> 1);   // + 1 as the carry into bit 0
        ones_fold = t0[16] ? t1 : t0[15:0];
    endfunction

    // lanes below n
    function automatic logic [KEEP_WIDTH-1:0] keep_below(input logic [7:0] n);
        logic [KEEP_WIDTH-1:0] k;
        for (int i = 0; i < KEEP_WIDTH; i++) k[i] = 8'(i) < n;
        keep_below = k;
    endfunction

    // carry-save adder: three addends to two (one LUT level per bit)
    function automatic logic [39:0] csa(input logic [19:0] a, input logic [19:0] b, input logic [19:0] c);
        logic [19:0] sum, cy;
        sum = a ^ b ^ c;
        cy = ((a & b) | (a & c) | (b & c)) << 1;
        csa = {cy, sum};
    endfunction

    // extension header bytes for the has_* flags {IETH, DETH, AtomicAckETH,
    // AtomicETH, ImmDt, AETH, RETH}, plus k: a table of constants indexed by
    // the flags (two LUT levels), so no adder tree of flag-selected constants
    function automatic logic [1023:0] ext_table(input int k);
        logic [1023:0] t;
        for (int f = 0; f < 128; f++)
            t[8*f +: 8] = 8'(k + (f[0] ? RETH_B : 0) + (f[1] ? AETH_B : 0) + (f[2] ? IMMDT_B : 0)
                        + (f[3] ? ATOM_B : 0) + (f[4] ? ATOMACK_B : 0) + (f[5] ? DETH_B : 0)
                        + (f[6] ? IETH_B : 0));
        ext_table = t;
    endfunction

    localparam logic [1023:0] EXT_UDP  = ext_table(UDP_B + BTH_B + ICRC_B);          // UDP length - payload - pad
    localparam logic [1023:0] EXT_TOT  = ext_table(IPV4_B + UDP_B + BTH_B + ICRC_B); // IPv4 total length - payload - pad
    localparam logic [1023:0] EXT_HDR4 = ext_table(ETH_B + IPV4_B + UDP_B + BTH_B);
    localparam logic [1023:0] EXT_HDR6 = ext_table(ETH_B + IPV6_B + UDP_B + BTH_B);

    // ------------------------------------------------------------------
    // descriptor pipeline: the lengths and the IPv4 header checksum, each
    // stage at most one carry chain deep (a four-operand length sum and the
    // checksum in one cycle were 20-23 logic levels)
    //   A: the descriptor as taken (rnic_half_slice: s_hdr_ready is a
    //      register, and the arbiter in front decides on it; a descriptor
    //      every second cycle at the most, as D takes them, so no skid
    //      register and no 2:1 choice in front of the 1,000-bit register)
    //   B: the IPv4 checksum's addends and both lengths' addends, carry-saved
    //      to two each; the header length from a table
    //   C: the sums (UDP length, IPv4 total length, the 20-bit checksum sum)
    //   D: the checksum folded (end-around carries) and inverted; the header
    //      image is built from D's registers when the sequencer loads it
    // ------------------------------------------------------------------
    logic          load;            // the sequencer takes stage D

    logic          a_valid_reg, b_valid_reg, c_valid_reg, d_valid_reg;
    logic [HB-1:0] a_hdr_reg, b_hdr_reg, c_hdr_reg, d_hdr_reg;
    logic [7:0]    b_hdr_len_reg, c_hdr_len_reg, d_hdr_len_reg;  // header bytes: Ethernet .. last extension header
    logic [39:0]   b_udp_cs_reg, b_tot_cs_reg, b_sum_cs_reg;      // {carry, sum} pairs
    logic [15:0]   c_udp_len_reg, d_udp_len_reg;                  // UDP length: UDP header .. ICRC
    logic [15:0]   c_tot_len_reg, d_tot_len_reg;                  // IPv4 total length
    logic [19:0]   c_sum_reg;                                     // IPv4 header sum, not folded
    logic [15:0]   d_ip_csum_reg;
    logic [KEEP_WIDTH-1:0] d_keep_reg;                            // the first header beat's tkeep
    logic          d_last_reg;                                    // ... and whether it is the last

    // A stage takes the one before it when it is empty or its own moves on,
    // decided from the stages' valid flags alone: D takes C only when empty,
    // not in the cycle the sequencer loads it, so no stage's enable (1009
    // header bits each) waits for the sequencer's load decision. D can then
    // be loaded every other cycle, and no packet is shorter than that
    // except a one-beat header-only frame at 512 bits.
    wire d_ready = !d_valid_reg;
    wire c_ready = !c_valid_reg || d_ready;
    wire b_ready = !b_valid_reg || c_ready;
    rnic_half_slice #(.WIDTH(HB)) in_slice_inst (
        .clk, .rst,
        .s_valid(s_hdr_valid), .s_ready(s_hdr_ready), .s_data(s_hdr),
        .m_valid(a_valid_reg), .m_ready(b_ready), .m_data(a_hdr_reg)
    );

    wire [6:0]  a_ext_flags = {a_hdr_reg[rnic_hdr_pkg::HDR_HAS_IETH_LSB],
                               a_hdr_reg[rnic_hdr_pkg::HDR_HAS_DETH_LSB],
                               a_hdr_reg[rnic_hdr_pkg::HDR_HAS_ATOMICACKETH_LSB],
                               a_hdr_reg[rnic_hdr_pkg::HDR_HAS_ATOMICETH_LSB],
                               a_hdr_reg[rnic_hdr_pkg::HDR_HAS_IMMDT_LSB],
                               a_hdr_reg[rnic_hdr_pkg::HDR_HAS_AETH_LSB],
                               a_hdr_reg[rnic_hdr_pkg::HDR_HAS_RETH_LSB]};
    wire [19:0] a_payload = 20'(a_hdr_reg[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W]);
    wire [19:0] a_pad = 20'(a_hdr_reg[rnic_hdr_pkg::HDR_BTH_PAD_LSB +: rnic_hdr_pkg::HDR_BTH_PAD_W]);
    // the source addresses, from the port (the descriptor names the GID
    // table entry): B and the stages after it hold them in the descriptor
    wire [127:0] a_sgid = cfg_gid[128 * 32'(a_hdr_reg[rnic_hdr_pkg::HDR_SGID_INDEX_LSB +: rnic_hdr_pkg::HDR_SGID_INDEX_W]) +: 128];
    wire [31:0] a_src = a_sgid[31:0];
    wire [31:0] a_dst = a_hdr_reg[rnic_hdr_pkg::HDR_IP_DST_LSB +: 32];
    wire [7:0]  a_tos = a_hdr_reg[rnic_hdr_pkg::HDR_IP_TCLASS_LSB +: rnic_hdr_pkg::HDR_IP_TCLASS_W];
    wire [7:0]  a_ttl = a_hdr_reg[rnic_hdr_pkg::HDR_IP_TTL_LSB +: rnic_hdr_pkg::HDR_IP_TTL_W];

    // IPv4 header words (RFC 791) summed for the checksum: version/IHL/TOS,
    // total length (payload + pad + table), id 0, flags DF, TTL/protocol,
    // checksum 0, source, destination
    // (a_s1, the total length's addends carry-saved, is also stage B's b_tot_cs)
    wire [39:0] a_s1 = csa(a_payload, a_pad, 20'(EXT_TOT[8*a_ext_flags +: 8]));
    wire [39:0] a_s2 = csa(20'({IPV4_VER_IHL, a_tos}), 20'(IPV4_FLAGS_DF), 20'({a_ttl, 8'(rnic_pkg::IP_PROTO_UDP)}));
    wire [39:0] a_s3 = csa(20'(a_src[31:16]), 20'(a_src[15:0]), 20'(a_dst[31:16]));
    wire [39:0] a_s4 = csa(a_s1[19:0], a_s1[39:20], a_s2[19:0]);
    wire [39:0] a_s5 = csa(a_s2[39:20], a_s3[19:0], a_s3[39:20]);
    wire [39:0] a_s6 = csa(a_s4[19:0], a_s4[39:20], a_s5[19:0]);
    wire [39:0] a_s7 = csa(a_s6[19:0], a_s6[39:20], a_s5[39:20]);
    wire [39:0] a_s8 = csa(a_s7[19:0], a_s7[39:20], 20'(a_dst[15:0]));

    always_ff @(posedge clk) begin
        if (b_ready) begin
            b_valid_reg <= a_valid_reg;
            b_hdr_reg <= a_hdr_reg;
            b_hdr_reg[rnic_hdr_pkg::HDR_ETH_SRC_LSB +: rnic_hdr_pkg::HDR_ETH_SRC_W] <= cfg_port_mac;
            b_hdr_reg[rnic_hdr_pkg::HDR_IP_SRC_LSB +: rnic_hdr_pkg::HDR_IP_SRC_W] <=
                rnic_hdr_pkg::hdr_ip_addr(a_hdr_reg[rnic_hdr_pkg::HDR_IPV6_LSB], a_sgid);
            b_hdr_len_reg <= a_hdr_reg[rnic_hdr_pkg::HDR_IPV6_LSB] ? EXT_HDR6[8*a_ext_flags +: 8] : EXT_HDR4[8*a_ext_flags +: 8];
            b_udp_cs_reg <= csa(a_payload, a_pad, 20'(EXT_UDP[8*a_ext_flags +: 8]));
            b_tot_cs_reg <= a_s1;
            b_sum_cs_reg <= a_s8;
        end
        if (c_ready) begin
            c_valid_reg <= b_valid_reg;
            c_hdr_reg <= b_hdr_reg;
            c_hdr_len_reg <= b_hdr_len_reg;
            c_udp_len_reg <= 16'(b_udp_cs_reg[19:0] + b_udp_cs_reg[39:20]);
            c_tot_len_reg <= 16'(b_tot_cs_reg[19:0] + b_tot_cs_reg[39:20]);
            c_sum_reg <= b_sum_cs_reg[19:0] + b_sum_cs_reg[39:20];
        end
        if (load) d_valid_reg <= 1'b0;
        if (d_ready) begin
            d_valid_reg <= c_valid_reg;
            d_hdr_reg <= c_hdr_reg;
            d_hdr_len_reg <= c_hdr_len_reg;
            d_keep_reg <= keep_below(c_hdr_len_reg);
            d_last_reg <= c_hdr_len_reg <= 8'(KEEP_WIDTH);
            d_udp_len_reg <= c_udp_len_reg;
            d_tot_len_reg <= c_tot_len_reg;
            d_ip_csum_reg <= ~ones_fold(c_sum_reg);
        end
        if (rst) begin
            b_valid_reg <= 1'b0;
            c_valid_reg <= 1'b0;
            d_valid_reg <= 1'b0;
        end
    end

    wire [8*HMAX-1:0] d_image = build_header(d_hdr_reg, d_udp_len_reg, d_tot_len_reg, d_ip_csum_reg);

    // ------------------------------------------------------------------
    // beat sequencer -> axis_packer
    // ------------------------------------------------------------------
    typedef enum logic [1:0] {
        S_IDLE,     // no packet
        S_HDR,      // header beats from the shift register
        S_PAY,      // payload beats from s_axis_payload
        S_PAD       // one beat with the BTH pad bytes
    } state_t;

    state_t                 state_reg, state_next;
    logic [8*BUF_BYTES-1:0] buf_reg, buf_next;      // header bytes still to send, next in lane 0
    logic [7:0]             left_reg, left_next;    // header bytes still to send
    logic                   pay_reg, pay_next;      // the packet has payload
    logic [1:0]             pad_reg, pad_next;

    logic [DATA_WIDTH-1:0]  pk_tdata;
    logic [KEEP_WIDTH-1:0]  pk_tkeep;
    logic                   pk_tvalid;
    logic                   pk_tready;
    logic                   pk_tlast;

    // lanes below n - KEEP_WIDTH: the next header beat's, compared with constants
    function automatic logic [KEEP_WIDTH-1:0] keep_below_next(input logic [7:0] n);
        logic [KEEP_WIDTH-1:0] k;
        for (int i = 0; i < KEEP_WIDTH; i++) k[i] = 9'(i + KEEP_WIDTH) < 9'(n);
        keep_below_next = k;
    endfunction

    // the header beat's tkeep and last flag are registers, made from the
    // bytes left before the beat (a subtract, a compare and the packer's
    // lane counts in one cycle were 11 levels)
    logic                  hdr_last_beat, hdr_last_next;
    logic [KEEP_WIDTH-1:0] hdr_keep, hdr_keep_next;
    wire [KEEP_WIDTH-1:0] pad_keep = keep_below({6'd0, pad_reg});
    wire [DATA_WIDTH-1:0] hdr_beat = buf_reg[DATA_WIDTH-1:0];
    wire                  d_has_payload =
        d_hdr_reg[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W] != 16'd0;
    wire [1:0]            d_pad = d_hdr_reg[rnic_hdr_pkg::HDR_BTH_PAD_LSB +: rnic_hdr_pkg::HDR_BTH_PAD_W];

    always_comb begin
        state_next = state_reg;
        buf_next = buf_reg;
        left_next = left_reg;
        pay_next = pay_reg;
        pad_next = pad_reg;
        hdr_keep_next = hdr_keep;
        hdr_last_next = hdr_last_beat;
        load = 1'b0;

        pk_tdata = '0;
        pk_tkeep = '0;
        pk_tvalid = 1'b0;
        pk_tlast = 1'b0;
        s_axis_payload_tready = 1'b0;

        case (state_reg)
            S_HDR: begin
                pk_tdata = hdr_beat;
                pk_tkeep = hdr_keep;
                pk_tvalid = 1'b1;
                pk_tlast = hdr_last_beat && !pay_reg && pad_reg == 2'd0;
                if (pk_tready) begin
                    buf_next = buf_reg >> DATA_WIDTH;
                    left_next = left_reg - 8'(KEEP_WIDTH);
                    hdr_keep_next = keep_below_next(left_reg);
                    hdr_last_next = 9'(left_reg) <= 9'(2 * KEEP_WIDTH);
                    if (hdr_last_beat) begin
                        if (pay_reg) state_next = S_PAY;
                        else if (pad_reg != 2'd0) state_next = S_PAD;
                        else state_next = S_IDLE;
                    end
                end
            end
            S_PAY: begin
                pk_tdata = s_axis_payload_tdata;
                pk_tkeep = s_axis_payload_tkeep;
                pk_tvalid = s_axis_payload_tvalid;
                pk_tlast = s_axis_payload_tlast && pad_reg == 2'd0;
                s_axis_payload_tready = pk_tready;
                if (s_axis_payload_tvalid && pk_tready && s_axis_payload_tlast) begin
                    if (pad_reg != 2'd0) state_next = S_PAD;
                    else state_next = S_IDLE;
                end
            end
            S_PAD: begin
                pk_tkeep = pad_keep;
                pk_tvalid = 1'b1;
                pk_tlast = 1'b1;
                if (pk_tready) state_next = S_IDLE;
            end
            default: ;
        endcase

        // the next packet starts as soon as the current one has its last beat out
        if (state_next == S_IDLE && d_valid_reg) begin
            load = 1'b1;
            state_next = S_HDR;
            buf_next = {{(8 * (BUF_BYTES - HMAX)){1'b0}}, d_image};
            left_next = d_hdr_len_reg;
            hdr_keep_next = d_keep_reg;
            hdr_last_next = d_last_reg;
            pay_next = d_has_payload;
            pad_next = d_pad;
        end
    end

    always_ff @(posedge clk) begin
        state_reg <= state_next;
        buf_reg <= buf_next;
        left_reg <= left_next;
        hdr_keep <= hdr_keep_next;
        hdr_last_beat <= hdr_last_next;
        pay_reg <= pay_next;
        pad_reg <= pad_next;
        if (rst) state_reg <= S_IDLE;
    end

    // ------------------------------------------------------------------
    // dense, then ICRC
    // ------------------------------------------------------------------
    logic [DATA_WIDTH-1:0] dn_tdata;
    logic [KEEP_WIDTH-1:0] dn_tkeep;
    logic                  dn_tvalid, dn_tready, dn_tlast;

    axis_packer #(
        .DATA_WIDTH(DATA_WIDTH),
        .KEEP_WIDTH(KEEP_WIDTH)
    ) packer_inst (
        .clk(clk),
        .rst(rst),
        .s_axis_tdata(pk_tdata),
        .s_axis_tkeep(pk_tkeep),
        .s_axis_tvalid(pk_tvalid),
        .s_axis_tready(pk_tready),
        .s_axis_tlast(pk_tlast),
        // the run comes from tkeep
        .s_axis_toff({$clog2(KEEP_WIDTH){1'b0}}), .s_axis_tend({($clog2(KEEP_WIDTH) + 1){1'b0}}),
        .m_axis_tdata(dn_tdata),
        .m_axis_tkeep(dn_tkeep),
        .m_axis_tvalid(dn_tvalid),
        .m_axis_tready(dn_tready),
        .m_axis_tlast(dn_tlast)
    );

    rnic_icrc_insert #(
        .DATA_WIDTH(DATA_WIDTH),
        .KEEP_WIDTH(KEEP_WIDTH)
    ) icrc_insert_inst (
        .clk(clk),
        .rst(rst),
        .s_axis_tdata(dn_tdata),
        .s_axis_tkeep(dn_tkeep),
        .s_axis_tvalid(dn_tvalid),
        .s_axis_tready(dn_tready),
        .s_axis_tlast(dn_tlast),
        .m_axis_tdata(m_axis_tx_tdata),
        .m_axis_tkeep(m_axis_tx_tkeep),
        .m_axis_tvalid(m_axis_tx_tvalid),
        .m_axis_tready(m_axis_tx_tready),
        .m_axis_tlast(m_axis_tx_tlast)
    );

    assign m_axis_tx_tuser = 1'b0;

endmodule

`resetall
