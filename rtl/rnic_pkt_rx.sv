`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * RoCEv2 packet parser.
 *
 * Input: frames that rnic_rx_check found good (dense, from the frame FIFO).
 * Output: per frame one header record (rnic_hdr_pkg layout, fields as seen on
 * the wire) on m_hdr, then the frame's payload (pad and ICRC stripped),
 * dense, exactly HDR_PAYLOAD_LEN bytes with tlast on the last, nothing when
 * the length is 0. The header is handed over before any payload beat of its
 * frame.
 *
 * Extension headers follow from the BTH opcode (IBTA Vol. 1 Table 38, RC
 * and UD SEND ONLY): RETH, AETH, ImmDt, AtomicETH (its VA and rkey into the
 * RETH VA / RKEY fields, RETH length 0, has_reth 0), AtomicAckETH and DETH
 * are parsed into the record; the IETH's rkey goes into the RETH rkey field
 * (HDR_HAS_IETH says which). The IPv4 identification and
 * flags / fragment offset go into the record too (a UD receive rebuilds the
 * IP header from it). payload_len = UDP length - UDP - BTH - extension
 * headers - pad - ICRC.
 * m_hdr_bad: not an IP frame, opcode neither an RC opcode nor UD SEND ONLY, BTH TVer not 0,
 * negative payload length, or the frame ends before its UDP length. A bad
 * header comes with payload_len 0 and its frame is dropped here.
 *
 * Beats are captured until the one holding the last header byte; the record
 * is built from the capture in two register steps (the fields, the opcode's
 * table values and the UDP length; then the lengths, their checks and the
 * payload's lane masks), handed over, and then that beat (if it holds
 * payload) and the following ones go, with the header and the trailer masked
 * off, through axis_packer. Overhead: four cycles per frame.
 */
module rnic_pkt_rx #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8
) (
    input  wire logic                              clk,
    input  wire logic                              rst,

    input  wire logic [DATA_WIDTH-1:0]             s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0]             s_axis_tkeep,
    input  wire logic                              s_axis_tvalid,
    output      logic                              s_axis_tready,
    input  wire logic                              s_axis_tlast,

    output      logic                              m_hdr_valid,
    input  wire logic                              m_hdr_ready,
    output      logic [rnic_hdr_pkg::HDR_BITS-1:0] m_hdr,
    output      logic                              m_hdr_bad,

    output      logic [DATA_WIDTH-1:0]             m_axis_payload_tdata,
    output      logic [KEEP_WIDTH-1:0]             m_axis_payload_tkeep,
    output      logic                              m_axis_payload_tvalid,
    input  wire logic                              m_axis_payload_tready,
    output      logic                              m_axis_payload_tlast
);

    localparam int HB = rnic_hdr_pkg::HDR_BITS;

    localparam int ETH_B    = rnic_pkg::ETH_HDR_BYTES;
    localparam int IPV4_B   = rnic_pkg::IPV4_HDR_BYTES;
    localparam int IPV6_B   = rnic_pkg::IPV6_HDR_BYTES;
    localparam int UDP_B    = rnic_pkg::UDP_HDR_BYTES;
    localparam int BTH_B    = rnic_pkg::BTH_BYTES;
    localparam int RETH_B   = rnic_pkg::RETH_BYTES;
    localparam int AETH_B   = rnic_pkg::AETH_BYTES;
    localparam int IMMDT_B  = rnic_pkg::IMMDT_BYTES;
    localparam int ATOM_B   = rnic_pkg::ATOMICETH_BYTES;
    localparam int ATOMACK_B = rnic_pkg::ATOMICACKETH_BYTES;
    localparam int ICRC_B   = rnic_pkg::ICRC_BYTES;
    // IETH (Invalidate ETH, IBTA Vol. 1 9.3.8): one 4-byte R_Key
    localparam int IETH_B   = rnic_pkg::IETH_BYTES;
    localparam int DETH_B   = rnic_pkg::DETH_BYTES;
    // longest header: Ethernet, IPv6, UDP, BTH, AtomicETH
    localparam int HMAX = ETH_B + IPV6_B + UDP_B + BTH_B + ATOM_B;
    localparam int NB = (HMAX + KEEP_WIDTH - 1) / KEEP_WIDTH;     // beats captured at most
    localparam int CAPB = NB * KEEP_WIDTH;
    localparam int LANE_W = $clog2(KEEP_WIDTH);
    // frame byte offsets
    localparam int OFF_ET = 12;
    localparam int OFF_IP = ETH_B;
    localparam int OFF_UDP4 = ETH_B + IPV4_B;
    localparam int OFF_UDP6 = ETH_B + IPV6_B;
    localparam int OFF_BTH4 = OFF_UDP4 + UDP_B;
    localparam int OFF_BTH6 = OFF_UDP6 + UDP_B;
    localparam int OFF_EXT4 = OFF_BTH4 + BTH_B;
    localparam int OFF_EXT6 = OFF_BTH6 + BTH_B;

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH || KEEP_WIDTH < 8 || KEEP_WIDTH > 64 ||
            (KEEP_WIDTH & (KEEP_WIDTH - 1)) != 0) begin
            $error("rnic_pkt_rx: DATA_WIDTH must be 8 * KEEP_WIDTH, a power of two from 64 to 512 bits (%m)");
            $finish;
        end
    end

    // ------------------------------------------------------------------
    // opcode table (IBTA Vol. 1 Table 38, RC)
    // ------------------------------------------------------------------
    function automatic logic op_is(input logic [7:0] op, input logic [31:0] code);
        op_is = {24'h0, op} == code;
    endfunction

    // UD SEND ONLY (with immediate): DETH (IBTA Vol. 1 Table 38, UD)
    function automatic logic op_deth(input logic [7:0] op);
        op_deth = op_is(op, rnic_pkg::OP_UD_SEND_ONLY) || op_is(op, rnic_pkg::OP_UD_SEND_ONLY_IMM);
    endfunction

    function automatic logic op_known(input logic [7:0] op);
        op_known = op <= 8'(rnic_pkg::OP_FETCH_ADD) || op_is(op, rnic_pkg::OP_SEND_LAST_INV) ||
               op_is(op, rnic_pkg::OP_SEND_ONLY_INV) || op_deth(op);
    endfunction

    function automatic logic op_reth(input logic [7:0] op);
        op_reth = op_is(op, rnic_pkg::OP_RDMA_WRITE_FIRST) || op_is(op, rnic_pkg::OP_RDMA_WRITE_ONLY) ||
               op_is(op, rnic_pkg::OP_RDMA_WRITE_ONLY_IMM) || op_is(op, rnic_pkg::OP_RDMA_READ_REQUEST);
    endfunction

    function automatic logic op_aeth(input logic [7:0] op);
        op_aeth = op_is(op, rnic_pkg::OP_RDMA_READ_RESPONSE_FIRST) || op_is(op, rnic_pkg::OP_RDMA_READ_RESPONSE_LAST) ||
               op_is(op, rnic_pkg::OP_RDMA_READ_RESPONSE_ONLY) || op_is(op, rnic_pkg::OP_ACKNOWLEDGE) ||
               op_is(op, rnic_pkg::OP_ATOMIC_ACKNOWLEDGE);
    endfunction

    function automatic logic op_immdt(input logic [7:0] op);
        op_immdt = op_is(op, rnic_pkg::OP_SEND_LAST_IMM) || op_is(op, rnic_pkg::OP_SEND_ONLY_IMM) ||
               op_is(op, rnic_pkg::OP_RDMA_WRITE_LAST_IMM) || op_is(op, rnic_pkg::OP_RDMA_WRITE_ONLY_IMM) ||
               op_is(op, rnic_pkg::OP_UD_SEND_ONLY_IMM);
    endfunction

    // bytes of all extension headers after the BTH
    function automatic logic [7:0] ext_len(input logic [7:0] op);
        logic [7:0] n;
        n = 8'd0;
        if (op_reth(op)) n = n + 8'(RETH_B);
        if (op_aeth(op)) n = n + 8'(AETH_B);
        if (op_immdt(op)) n = n + 8'(IMMDT_B);
        if (op_is(op, rnic_pkg::OP_ATOMIC_ACKNOWLEDGE)) n = n + 8'(ATOMACK_B);
        if (op_is(op, rnic_pkg::OP_COMPARE_SWAP) || op_is(op, rnic_pkg::OP_FETCH_ADD)) n = n + 8'(ATOM_B);
        if (op_is(op, rnic_pkg::OP_SEND_LAST_INV) || op_is(op, rnic_pkg::OP_SEND_ONLY_INV)) n = n + 8'(IETH_B);
        if (op_deth(op)) n = n + 8'(DETH_B);
        ext_len = n;
    endfunction

    // lanes at or above n / at or below n
    function automatic logic [KEEP_WIDTH-1:0] lanes_from(input logic [LANE_W-1:0] n);
        logic [KEEP_WIDTH-1:0] k;
        for (int i = 0; i < KEEP_WIDTH; i++) k[i] = LANE_W'(i) >= n;
        lanes_from = k;
    endfunction
    function automatic logic [KEEP_WIDTH-1:0] lanes_to(input logic [LANE_W-1:0] n);
        logic [KEEP_WIDTH-1:0] k;
        for (int i = 0; i < KEEP_WIDTH; i++) k[i] = LANE_W'(i) <= n;
        lanes_to = k;
    endfunction

    // ------------------------------------------------------------------
    // state
    // ------------------------------------------------------------------
    typedef enum logic [2:0] {
        S_CAP,      // capture beats until the one with the last header byte
        S_PARSE,    // build the record from the capture
        S_LEN,      // the payload length, its checks and lane masks
        S_HDR,      // hand the record over
        S_REPLAY,   // the payload bytes of the last captured beat
        S_STREAM,   // payload beats from the input
        S_DROP      // rest of the frame (pad, ICRC, bad frame)
    } state_t;

    state_t                state_reg, state_next;
    logic [15:0]           beat_reg, beat_next;        // beat index in the frame
    logic [8*CAPB-1:0]     cap_reg;                    // captured header beats
    logic [DATA_WIDTH-1:0] hold_data_reg;              // last captured beat
    logic [KEEP_WIDTH-1:0] hold_keep_reg;
    logic                  cap_last_reg;               // the frame ended in the capture
    logic [8:0]            cap_len_reg;                // frame bytes captured (at most CAPB <= 128)

    // parse results
    logic [HB-1:0]         hdr_reg;
    logic                  bad_reg;
    logic                  pay_reg;                    // payload to send
    logic                  replay_reg;                 // payload starts in the last captured beat
    logic [KEEP_WIDTH-1:0] lo_mask_reg;                // payload lanes of the first payload beat
    logic [KEEP_WIDTH-1:0] hi_mask_reg;                // payload lanes of the last payload beat
    logic [15:0]           pend_beat_reg;              // beat with the last payload byte
    logic [15:0]           pend_m1_reg;                // the beat before it
    logic                  at_pend_reg;                // beat_reg == pend_beat_reg, kept as beat_reg moves
    // S_PARSE's results that S_LEN works from
    logic                  ipv6_reg;
    logic [15:0]           udp_len_reg;
    logic [LANE_W-1:0]     ext_lane_reg;               // extension headers' bytes, low bits
    logic [7:0]            nonpay_reg;                 // UDP, BTH, extension headers, pad, ICRC
    logic [16:0]           pend_k_reg, pend_km_reg;
    logic                  bad_hdr_reg;                // bad for anything but the lengths
    logic [8:0]            need_lo_reg;                // low byte of the frame's length, 9 bits
    logic                  need_hi_reg;                // the frame is 256 bytes or longer

    // ------------------------------------------------------------------
    // header end detection while capturing
    // ------------------------------------------------------------------
    // the capture beat, one-hot (beat_reg while capturing): every header
    // byte then comes from a place known for each beat, the input beat or
    // the capture, with no beat-number compare in the way
    logic [NB-1:0] cap_oh_reg;
    function automatic logic [7:0] byte_at(input int p, input int b,
                                           input logic [DATA_WIDTH-1:0] d, input logic [8*CAPB-1:0] c);
        if (b == p / KEEP_WIDTH) byte_at = d[8*(p % KEEP_WIDTH) +: 8];
        else byte_at = c[8*p +: 8];
    endfunction
    // the header ends in beat b: the BTH has arrived and the extension
    // headers its opcode calls for end in this beat (per IP version, the
    // opcode's table compared with constants)
    function automatic logic hdr_ends(input int b, input logic [7:0] op, input int off_bth, input int off_ext);
        hdr_ends = b >= off_bth / KEEP_WIDTH && 32'((b + 1) * KEEP_WIDTH) >= 32'(ext_len(op)) + 32'(off_ext);
    endfunction
    logic hdr_end;
    always_comb begin
        hdr_end = 1'b0;
        for (int b = 0; b < NB; b++) begin
            if (cap_oh_reg[b]) begin
                if ({byte_at(OFF_ET, b, s_axis_tdata, cap_reg), byte_at(OFF_ET + 1, b, s_axis_tdata, cap_reg)}
                    == 16'(rnic_pkg::ETHERTYPE_IPV6))
                    hdr_end = hdr_ends(b, byte_at(OFF_BTH6, b, s_axis_tdata, cap_reg), OFF_BTH6, OFF_EXT6);
                else
                    hdr_end = hdr_ends(b, byte_at(OFF_BTH4, b, s_axis_tdata, cap_reg), OFF_BTH4, OFF_EXT4);
            end
        end
    end
    wire        hdr_done = s_axis_tlast || cap_oh_reg[NB-1] || hdr_end;

    localparam int CNT_W = $clog2(KEEP_WIDTH + 1);
    // bytes in the beat (frames are dense: its run starts at lane 0)
    logic [CNT_W-1:0] in_cnt;
    logic [$clog2(KEEP_WIDTH)-1:0] in_first_unused;
    axis_keep_run #(.KEEP_WIDTH(KEEP_WIDTH)) in_run_inst (
        .keep(s_axis_tkeep), .first(in_first_unused), .run_end(in_cnt)
    );

    // ------------------------------------------------------------------
    // record from the capture
    // ------------------------------------------------------------------
    function automatic logic [7:0] b8(input logic [8*CAPB-1:0] c, input int p);
        b8 = c[8*p +: 8];
    endfunction
    function automatic logic [15:0] b16(input logic [8*CAPB-1:0] c, input int p);
        b16 = {c[8*p +: 8], c[8*(p+1) +: 8]};
    endfunction
    function automatic logic [31:0] b32(input logic [8*CAPB-1:0] c, input int p);
        b32 = {b16(c, p), b16(c, p + 2)};
    endfunction

    wire [15:0]  et      = b16(cap_reg, OFF_ET);
    wire         ipv6    = et == 16'(rnic_pkg::ETHERTYPE_IPV6);
    wire         is_ip   = ipv6 || et == 16'(rnic_pkg::ETHERTYPE_IPV4);
    wire [3:0]   v6_b0   = 4'(b8(cap_reg, OFF_IP));    // traffic class high nibble
    wire [7:0]   v6_b1   = b8(cap_reg, OFF_IP + 1);
    wire [7:0]   tclass  = ipv6 ? {v6_b0, v6_b1[7:4]} : v6_b1;
    wire [7:0]   ttl     = ipv6 ? b8(cap_reg, OFF_IP + 7) : b8(cap_reg, OFF_IP + 8);
    wire [19:0]  flow    = ipv6 ? {v6_b1[3:0], b16(cap_reg, OFF_IP + 2)} : 20'h0;
    wire [127:0] ip_src  = ipv6 ? {b32(cap_reg, OFF_IP + 8), b32(cap_reg, OFF_IP + 12),
                                   b32(cap_reg, OFF_IP + 16), b32(cap_reg, OFF_IP + 20)}
                                : {96'h0, b32(cap_reg, OFF_IP + 12)};
    wire [127:0] ip_dst  = ipv6 ? {b32(cap_reg, OFF_IP + 24), b32(cap_reg, OFF_IP + 28),
                                   b32(cap_reg, OFF_IP + 32), b32(cap_reg, OFF_IP + 36)}
                                : {96'h0, b32(cap_reg, OFF_IP + 16)};
    wire [15:0]  sport   = ipv6 ? b16(cap_reg, OFF_UDP6) : b16(cap_reg, OFF_UDP4);
    wire [15:0]  udp_len = ipv6 ? b16(cap_reg, OFF_UDP6 + 4) : b16(cap_reg, OFF_UDP4 + 4);
    wire [31:0]  bth0    = ipv6 ? b32(cap_reg, OFF_BTH6) : b32(cap_reg, OFF_BTH4);
    // BTH bytes 5..7 (byte 4, resv8 with FECN/BECN, is ignored), A bit, PSN
    wire [23:0]  dqpn    = ipv6 ? 24'(b32(cap_reg, OFF_BTH6 + 4)) : 24'(b32(cap_reg, OFF_BTH4 + 4));
    wire         ackreq  = ipv6 ? cap_reg[8*(OFF_BTH6 + 8) + 7] : cap_reg[8*(OFF_BTH4 + 8) + 7];
    wire [23:0]  psn     = ipv6 ? 24'(b32(cap_reg, OFF_BTH6 + 8)) : 24'(b32(cap_reg, OFF_BTH4 + 8));
    wire [31:0]  ext0    = ipv6 ? b32(cap_reg, OFF_EXT6) : b32(cap_reg, OFF_EXT4);
    wire [31:0]  ext1    = ipv6 ? b32(cap_reg, OFF_EXT6 + 4) : b32(cap_reg, OFF_EXT4 + 4);
    wire [31:0]  ext2    = ipv6 ? b32(cap_reg, OFF_EXT6 + 8) : b32(cap_reg, OFF_EXT4 + 8);
    wire [31:0]  ext3    = ipv6 ? b32(cap_reg, OFF_EXT6 + 12) : b32(cap_reg, OFF_EXT4 + 12);
    wire [31:0]  ext4    = ipv6 ? b32(cap_reg, OFF_EXT6 + 16) : b32(cap_reg, OFF_EXT4 + 16);
    wire [31:0]  ext5    = ipv6 ? b32(cap_reg, OFF_EXT6 + 20) : b32(cap_reg, OFF_EXT4 + 20);
    wire [31:0]  ext6    = ipv6 ? b32(cap_reg, OFF_EXT6 + 24) : b32(cap_reg, OFF_EXT4 + 24);

    wire [7:0]   opcode  = bth0[31:24];
    wire [1:0]   pad     = bth0[21:20];
    wire [3:0]   tver    = bth0[19:16];
    wire         has_reth  = op_reth(opcode);
    wire         has_aeth  = op_aeth(opcode);
    wire         has_immdt = op_immdt(opcode);
    wire         has_atom  = op_is(opcode, rnic_pkg::OP_COMPARE_SWAP) || op_is(opcode, rnic_pkg::OP_FETCH_ADD);
    wire         has_atomack = op_is(opcode, rnic_pkg::OP_ATOMIC_ACKNOWLEDGE);
    wire         has_deth = op_deth(opcode);
    wire         has_ieth = op_is(opcode, rnic_pkg::OP_SEND_LAST_INV) || op_is(opcode, rnic_pkg::OP_SEND_ONLY_INV);
    wire [7:0]   ext_bytes = ext_len(opcode);
    // what is not payload: extension headers (a multiple of 4 bytes, as the
    // UDP, BTH and ICRC are), so the pad goes in the low two bits unadded
    wire [5:0]   nonpay_hi = ext_bytes[7:2] + 6'((UDP_B + BTH_B + ICRC_B) / 4);
    wire [7:0]   nonpay  = {nonpay_hi, pad};
    // the frame's length up to the end of its UDP datagram: it ends in the
    // capture (cap_len_reg, at most CAPB <= 128 bytes) when cap_last_reg
    wire [8:0]   need4_lo = 9'(udp_len[7:0]) + 9'(OFF_UDP4);
    wire [8:0]   need6_lo = 9'(udp_len[7:0]) + 9'(OFF_UDP6);
    wire         bad_hdr = !is_ip || !op_known(opcode) || tver != 4'(rnic_pkg::BTH_TVER);
    // what S_LEN adds to the UDP length for the last payload byte's frame
    // index, and for a beat before it: a table of the IP version and the pad
    logic [16:0] pend_k, pend_km;
    always_comb begin
        pend_k = '0;
        pend_km = '0;
        for (int c = 0; c < 8; c++) begin
            if ({ipv6, pad} == 3'(c)) begin
                pend_k = 17'((c >= 4 ? OFF_UDP6 : OFF_UDP4) - c % 4 - ICRC_B - 1);
                pend_km = 17'((c >= 4 ? OFF_UDP6 : OFF_UDP4) - c % 4 - ICRC_B - 1 - KEEP_WIDTH);
            end
        end
    end

    // S_LEN, from S_PARSE's registers: UDP length minus everything that is
    // not payload (negative: bad); the frame shorter than its UDP length
    // says: bad
    wire [16:0]  plen    = 17'(udp_len_reg) - 17'(nonpay_reg);
    wire         truncated = cap_last_reg && (need_hi_reg || cap_len_reg < need_lo_reg);
    wire         bad     = bad_hdr_reg || plen[16] || truncated;
    wire [15:0]  plen16  = bad ? 16'h0 : plen[15:0];
    // payload to send: not bad and the UDP length more than its headers
    wire         pay     = !bad && udp_len_reg != 16'(nonpay_reg);
    // the header's end within its last beat
    wire [LANE_W-1:0] hlen_lane = ext_lane_reg + (ipv6_reg ? LANE_W'(OFF_EXT6) : LANE_W'(OFF_EXT4));
    // frame index of the last payload byte (hlen + plen - 1 when there is
    // payload: the UDP datagram's end less the pad and the ICRC, i.e. the
    // UDP length plus a constant of the IP version and the pad from S_PARSE)
    wire [16:0]  pend    = 17'(udp_len_reg) + pend_k_reg;
    // ... and a beat less (when that is beat 0: a beat number past any frame's)
    wire [16:0]  pend_m1 = 17'(udp_len_reg) + pend_km_reg;

    wire [HB-1:0] rec;
    assign rec[rnic_hdr_pkg::HDR_ETH_DST_LSB +: rnic_hdr_pkg::HDR_ETH_DST_W] = {b32(cap_reg, 0), b16(cap_reg, 4)};
    assign rec[rnic_hdr_pkg::HDR_ETH_SRC_LSB +: rnic_hdr_pkg::HDR_ETH_SRC_W] = {b32(cap_reg, 6), b16(cap_reg, 10)};
    assign rec[rnic_hdr_pkg::HDR_IPV6_LSB] = ipv6;
    assign rec[rnic_hdr_pkg::HDR_IP_SRC_LSB +: rnic_hdr_pkg::HDR_IP_SRC_W] = ip_src;
    assign rec[rnic_hdr_pkg::HDR_IP_DST_LSB +: rnic_hdr_pkg::HDR_IP_DST_W] = ip_dst;
    assign rec[rnic_hdr_pkg::HDR_IP_TCLASS_LSB +: rnic_hdr_pkg::HDR_IP_TCLASS_W] = tclass;
    assign rec[rnic_hdr_pkg::HDR_IP_TTL_LSB +: rnic_hdr_pkg::HDR_IP_TTL_W] = ttl;
    assign rec[rnic_hdr_pkg::HDR_IP_FLOW_LABEL_LSB +: rnic_hdr_pkg::HDR_IP_FLOW_LABEL_W] = flow;
    assign rec[rnic_hdr_pkg::HDR_UDP_SPORT_LSB +: rnic_hdr_pkg::HDR_UDP_SPORT_W] = sport;
    assign rec[rnic_hdr_pkg::HDR_BTH_OPCODE_LSB +: rnic_hdr_pkg::HDR_BTH_OPCODE_W] = opcode;
    assign rec[rnic_hdr_pkg::HDR_BTH_SE_LSB] = bth0[23];
    assign rec[rnic_hdr_pkg::HDR_BTH_MIGREQ_LSB] = bth0[22];
    assign rec[rnic_hdr_pkg::HDR_BTH_PAD_LSB +: rnic_hdr_pkg::HDR_BTH_PAD_W] = pad;
    assign rec[rnic_hdr_pkg::HDR_BTH_PKEY_LSB +: rnic_hdr_pkg::HDR_BTH_PKEY_W] = bth0[15:0];
    assign rec[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: rnic_hdr_pkg::HDR_BTH_DEST_QPN_W] = dqpn;
    assign rec[rnic_hdr_pkg::HDR_BTH_ACKREQ_LSB] = ackreq;
    assign rec[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W] = psn;
    // extension header fields are 0 when the header is absent
    assign rec[rnic_hdr_pkg::HDR_HAS_RETH_LSB] = has_reth;
    // an AtomicETH starts with the same VA and rkey as a RETH
    assign rec[rnic_hdr_pkg::HDR_RETH_VA_LSB +: rnic_hdr_pkg::HDR_RETH_VA_W] =
        (has_reth || has_atom) ? {ext0, ext1} : 64'h0;
    // ... and an IETH carries its rkey alone
    assign rec[rnic_hdr_pkg::HDR_RETH_RKEY_LSB +: rnic_hdr_pkg::HDR_RETH_RKEY_W] =
        (has_reth || has_atom) ? ext2 : has_ieth ? ext0 : 32'h0;
    assign rec[rnic_hdr_pkg::HDR_RETH_LEN_LSB +: rnic_hdr_pkg::HDR_RETH_LEN_W] = has_reth ? ext3 : 32'h0;
    assign rec[rnic_hdr_pkg::HDR_HAS_AETH_LSB] = has_aeth;
    assign rec[rnic_hdr_pkg::HDR_AETH_SYNDROME_LSB +: rnic_hdr_pkg::HDR_AETH_SYNDROME_W] = has_aeth ? ext0[31:24] : 8'h0;
    assign rec[rnic_hdr_pkg::HDR_AETH_MSN_LSB +: rnic_hdr_pkg::HDR_AETH_MSN_W] = has_aeth ? ext0[23:0] : 24'h0;
    assign rec[rnic_hdr_pkg::HDR_HAS_IMMDT_LSB] = has_immdt;
    // ImmDt follows the RETH or the DETH when there is one
    assign rec[rnic_hdr_pkg::HDR_IMMDT_LSB +: rnic_hdr_pkg::HDR_IMMDT_W] =
        !has_immdt ? 32'h0 : has_reth ? ext4 : has_deth ? ext2 : ext0;
    // the payload length goes in at S_LEN
    assign rec[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W] = '0;
    // AtomicETH: VA, rkey, swap/add data, compare data; AtomicAckETH after the AETH
    assign rec[rnic_hdr_pkg::HDR_HAS_ATOMICETH_LSB +: rnic_hdr_pkg::HDR_HAS_ATOMICETH_W] = has_atom;
    assign rec[rnic_hdr_pkg::HDR_ATOMIC_SWAP_LSB +: rnic_hdr_pkg::HDR_ATOMIC_SWAP_W] = has_atom ? {ext3, ext4} : 64'h0;
    assign rec[rnic_hdr_pkg::HDR_ATOMIC_CMP_LSB +: rnic_hdr_pkg::HDR_ATOMIC_CMP_W] = has_atom ? {ext5, ext6} : 64'h0;
    assign rec[rnic_hdr_pkg::HDR_HAS_ATOMICACKETH_LSB +: rnic_hdr_pkg::HDR_HAS_ATOMICACKETH_W] = has_atomack;
    assign rec[rnic_hdr_pkg::HDR_ATOMICACK_ORIG_LSB +: rnic_hdr_pkg::HDR_ATOMICACK_ORIG_W] = has_atomack ? {ext1, ext2} : 64'h0;
    // DETH: Q_Key, reserved byte, source QP
    assign rec[rnic_hdr_pkg::HDR_HAS_DETH_LSB] = has_deth;
    assign rec[rnic_hdr_pkg::HDR_DETH_QKEY_LSB +: rnic_hdr_pkg::HDR_DETH_QKEY_W] = has_deth ? ext0 : 32'h0;
    assign rec[rnic_hdr_pkg::HDR_DETH_SRC_QPN_LSB +: rnic_hdr_pkg::HDR_DETH_SRC_QPN_W] = has_deth ? ext1[23:0] : 24'h0;
    // IPv4 identification, flags and fragment offset
    assign rec[rnic_hdr_pkg::HDR_IP_ID_LSB +: rnic_hdr_pkg::HDR_IP_ID_W] = ipv6 ? 16'h0 : b16(cap_reg, OFF_IP + 4);
    assign rec[rnic_hdr_pkg::HDR_IP_FRAG_LSB +: rnic_hdr_pkg::HDR_IP_FRAG_W] = ipv6 ? 16'h0 : b16(cap_reg, OFF_IP + 6);
    assign rec[rnic_hdr_pkg::HDR_HAS_IETH_LSB] = has_ieth;
    // the IP header's checksum and length field as received
    assign rec[rnic_hdr_pkg::HDR_IP_CSUM_LSB +: rnic_hdr_pkg::HDR_IP_CSUM_W] = ipv6 ? 16'h0 : b16(cap_reg, OFF_IP + 10);
    assign rec[rnic_hdr_pkg::HDR_IP_LEN_LSB +: rnic_hdr_pkg::HDR_IP_LEN_W] =
        ipv6 ? b16(cap_reg, OFF_IP + 4) : b16(cap_reg, OFF_IP + 2);
    // the source GID index is a sent header's (its source addresses are
    // above, as received)
    assign rec[rnic_hdr_pkg::HDR_SGID_INDEX_LSB +: rnic_hdr_pkg::HDR_SGID_INDEX_W] = '0;

    // ------------------------------------------------------------------
    // control
    // ------------------------------------------------------------------
    logic [DATA_WIDTH-1:0] pk_tdata;
    logic [KEEP_WIDTH-1:0] pk_tkeep;
    logic                  pk_tvalid, pk_tready, pk_tlast;

    wire                  at_pend = at_pend_reg;
    wire [KEEP_WIDTH-1:0] end_mask = at_pend ? hi_mask_reg : {KEEP_WIDTH{1'b1}};
    wire [LANE_W-1:0]     pend_lane = pend[LANE_W-1:0];
    wire [15:0]           pend_beat = 16'(pend >> LANE_W);

    // beats into the packer
    always_comb begin
        pk_tdata = s_axis_tdata;
        pk_tkeep = '0;
        pk_tvalid = 1'b0;
        pk_tlast = 1'b0;
        if (state_reg == S_REPLAY) begin
            pk_tdata = hold_data_reg;
            pk_tkeep = hold_keep_reg & lo_mask_reg & end_mask;
            pk_tvalid = 1'b1;
            pk_tlast = at_pend || cap_last_reg;
        end else if (state_reg == S_STREAM) begin
            pk_tkeep = s_axis_tkeep & end_mask;
            pk_tvalid = s_axis_tvalid;
            pk_tlast = at_pend || s_axis_tlast;
        end
    end

    always_comb begin
        state_next = state_reg;
        beat_next = beat_reg;
        s_axis_tready = 1'b0;

        case (state_reg)
            S_CAP: begin
                s_axis_tready = 1'b1;
                if (s_axis_tvalid) begin
                    if (hdr_done) state_next = S_PARSE;
                    else beat_next = beat_reg + 16'd1;
                end
            end
            S_PARSE: state_next = S_LEN;
            S_LEN: state_next = S_HDR;
            S_HDR: begin
                if (m_hdr_ready) begin
                    if (!pay_reg) begin
                        if (cap_last_reg) begin
                            state_next = S_CAP;
                            beat_next = '0;
                        end else begin
                            state_next = S_DROP;
                        end
                    end else if (replay_reg) begin
                        state_next = S_REPLAY;
                    end else begin
                        state_next = S_STREAM;
                        beat_next = beat_reg + 16'd1;
                    end
                end
            end
            S_REPLAY: begin
                if (pk_tready) begin
                    if (!pk_tlast) begin
                        state_next = S_STREAM;
                        beat_next = beat_reg + 16'd1;
                    end else if (cap_last_reg) begin
                        state_next = S_CAP;
                        beat_next = '0;
                    end else begin
                        state_next = S_DROP;
                    end
                end
            end
            S_STREAM: begin
                s_axis_tready = pk_tready;
                if (s_axis_tvalid && pk_tready) begin
                    beat_next = beat_reg + 16'd1;
                    if (s_axis_tlast) begin
                        state_next = S_CAP;
                        beat_next = '0;
                    end else if (at_pend) begin
                        state_next = S_DROP;
                    end
                end
            end
            S_DROP: begin
                s_axis_tready = 1'b1;
                if (s_axis_tvalid && s_axis_tlast) begin
                    state_next = S_CAP;
                    beat_next = '0;
                end
            end
            default: begin
                state_next = S_CAP;
                beat_next = '0;
            end
        endcase
    end

    always_ff @(posedge clk) begin
        state_reg <= state_next;
        beat_reg <= beat_next;

        // at 1 outside the capture, so a frame's capture starts at beat 0
        if (state_reg != S_CAP) cap_oh_reg <= NB'(1);
        else if (s_axis_tvalid && !hdr_done) cap_oh_reg <= cap_oh_reg << 1;
        if (state_reg == S_CAP && s_axis_tvalid) begin
            for (int b = 0; b < NB; b++) begin
                if (cap_oh_reg[b]) cap_reg[b*DATA_WIDTH +: DATA_WIDTH] <= s_axis_tdata;
            end
            hold_data_reg <= s_axis_tdata;
            hold_keep_reg <= s_axis_tkeep;
            cap_last_reg <= s_axis_tlast;
            cap_len_reg <= 9'({beat_reg, {LANE_W{1'b0}}}) + 9'(in_cnt);
        end

        if (state_reg == S_PARSE) begin
            hdr_reg <= rec;
            ipv6_reg <= ipv6;
            udp_len_reg <= udp_len;
            ext_lane_reg <= ext_bytes[LANE_W-1:0];
            nonpay_reg <= nonpay;
            pend_k_reg <= pend_k;
            pend_km_reg <= pend_km;
            bad_hdr_reg <= bad_hdr;
            need_lo_reg <= ipv6 ? need6_lo : need4_lo;
            need_hi_reg <= udp_len[15:8] != 8'h0;
        end
        if (state_reg == S_LEN) begin
            hdr_reg[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W] <= plen16;
            bad_reg <= bad;
            pay_reg <= pay;
            replay_reg <= hlen_lane != '0;
            lo_mask_reg <= lanes_from(hlen_lane);
            hi_mask_reg <= lanes_to(pend_lane);
            pend_beat_reg <= pend_beat;
            pend_m1_reg <= 16'(pend_m1 >> LANE_W);
        end
        // at_pend for the beat the payload goes on with: the one in the
        // capture (replay) or the next; and as beat_reg moves on, the next
        if (state_reg == S_HDR)
            at_pend_reg <= replay_reg ? beat_reg == pend_beat_reg : beat_reg == pend_m1_reg;
        else if ((state_reg == S_REPLAY && pk_tready) || (state_reg == S_STREAM && s_axis_tvalid && pk_tready))
            at_pend_reg <= beat_reg == pend_m1_reg;

        if (rst) begin
            state_reg <= S_CAP;
            beat_reg <= '0;
            cap_oh_reg <= NB'(1);
        end
    end

    assign m_hdr_valid = state_reg == S_HDR;
    assign m_hdr = hdr_reg;
    assign m_hdr_bad = bad_reg;

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
        .m_axis_tdata(m_axis_payload_tdata),
        .m_axis_tkeep(m_axis_payload_tkeep),
        .m_axis_tvalid(m_axis_payload_tvalid),
        .m_axis_tready(m_axis_payload_tready),
        .m_axis_tlast(m_axis_payload_tlast)
    );

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // in_cnt takes the beat's bytes as its run's end: frames are dense
    always_ff @(posedge clk) begin
        if (!rst && s_axis_tvalid && s_axis_tready)
            assert ((s_axis_tkeep & (s_axis_tkeep + 1'b1)) == '0 && (s_axis_tlast || &s_axis_tkeep));
        // at_pend follows beat_reg
        if (!rst && (state_reg == S_REPLAY || state_reg == S_STREAM)) assert (at_pend_reg == (beat_reg == pend_beat_reg));
        // the one-hot capture beat is beat_reg
        if (!rst && state_reg == S_CAP) assert (beat_reg < 16'(NB) && cap_oh_reg == NB'(1) << beat_reg);
    end
`endif
`endif

endmodule

`resetall
