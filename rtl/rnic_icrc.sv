`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * RoCEv2 invariant CRC (IBTA Annex A17, as Linux rxe_icrc.c computes it).
 *
 * A pipeline that carries a dense frame stream (Ethernet header first, frame
 * byte 0 in lane 0 of the first beat) and delivers, with each frame's last
 * beat at its output, the CRC32 (reflected, polynomial 0xEDB88320, no final
 * inversion) over the ICRC coverage: 8 bytes of 0xFF standing for the LRH,
 * then the frame from the IP header on with the variant fields read as ones:
 *   IPv4: TOS, TTL, header checksum; IPv6: traffic class, flow label, hop
 *   limit; UDP checksum; BTH resv8a (BTH byte 4).
 * The Ethernet header is skipped; fields are found by absolute frame byte
 * index (IPv4 header options are not supported, as in RoCEv2).
 *
 * Input: a beat enters when tvalid and ce are both high. tkeep selects the
 * bytes the CRC covers: lanes 0..n-1 of the beat, n = KEEP_WIDTH on every
 * beat but the frame's last. tdata, tlast and tuser travel along unchanged.
 * Output: every register stage advances only when ce is high (tie it to 1
 * for a free-running pipeline); a beat reaches m_* LATENCY (5) advances after
 * it entered. With the last beat of a frame (m_tvalid && m_tlast):
 *   m_crc:     the CRC register after the frame; the ICRC of a frame without
 *              its ICRC is ~m_crc, least significant byte first on the wire.
 *   m_icrc_ok: for a frame that carries its own ICRC: the ICRC is good
 *              (m_crc == ICRC_RESIDUE).
 *
 * The CRC of a whole beat is linear in the register before it and in the
 * beat's bits; both parts are XOR matrices derived from the polynomial at
 * elaboration:
 *   stage 1: per-lane masks (Ethernet header skipped, variant fields ones)
 *            and the number z of lanes after the last covered byte;
 *   stage 2: data part of the beat (data matrix over all lanes, uncovered
 *            lanes zero);
 *   stage 3: register <- state matrix (KEEP_WIDTH zero bytes) x register
 *            xor data part; the beats up to the one holding frame byte 14
 *            start from a constant instead (the register at a frame's start
 *            is always the LRH stand-in), so the register needs no restart;
 *   stages 4, 5: a short last beat counted z zero bytes too many (zeros
 *            from a zero register leave it zero, so only the register
 *            moved): undo them with the inverse matrices of z % 8 zero bytes
 *            (stage 4), then of 8 * (z / 8) (stage 5), each picked from a
 *            table by the lane count.
 * The matrices and the per-beat lane masks are constants of the width, in the
 * generated rnic_icrc_pkg (scripts/genicrc.py, from ICRC_POLY and the header
 * sizes in docs/formats.toml).
 */
module rnic_icrc #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int USER_WIDTH = 1
) (
    input  wire logic                  clk,
    input  wire logic                  rst,
    input  wire logic                  ce,

    input  wire logic [DATA_WIDTH-1:0] tdata,
    input  wire logic [KEEP_WIDTH-1:0] tkeep,
    input  wire logic                  tvalid,
    input  wire logic                  tlast,
    input  wire logic [USER_WIDTH-1:0] tuser,

    output      logic [DATA_WIDTH-1:0] m_tdata,
    output      logic                  m_tvalid,
    output      logic                  m_tlast,
    output      logic [USER_WIDTH-1:0] m_tuser,
    output      logic [31:0]           m_crc,
    output      logic                  m_icrc_ok
);

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH || KEEP_WIDTH < 8 || (KEEP_WIDTH & (KEEP_WIDTH - 1)) != 0) begin
            $error("rnic_icrc: DATA_WIDTH must be 8 * KEEP_WIDTH, a power of two of 64 or more bits (%m)");
            $finish;
        end
    end

    // bits of z, the zero lanes after a beat's last covered byte (0..KEEP_WIDTH)
    localparam int ZW = $clog2(KEEP_WIDTH + 1);
    // register stages from the input to m_*
    localparam int LATENCY = 5;

    localparam logic [15:0] ETHERTYPE_IPV6 = 16'(rnic_pkg::ETHERTYPE_IPV6);
    localparam int ETH_HDR = rnic_pkg::ETH_HDR_BYTES;
    localparam int ET_BEAT = 12 / KEEP_WIDTH;   // beat holding the EtherType (bytes 12, 13)
    localparam int ET_LANE = 12 % KEEP_WIDTH;
    localparam int LO_BEAT = ETH_HDR / KEEP_WIDTH;   // beat holding frame byte 14, the first covered

    // ------------------------------------------------------------------
    // the matrices and masks of this width (rnic_icrc_pkg, generated from the polynomial)
    // ------------------------------------------------------------------
    // constant NAME of this width from the package, W bits wide
`define RNIC_ICRC_OF_WIDTH(W, NAME) \
    (KEEP_WIDTH == 8 ? (W)'(rnic_icrc_pkg::K8_``NAME) : KEEP_WIDTH == 16 ? (W)'(rnic_icrc_pkg::K16_``NAME) : \
     KEEP_WIDTH == 32 ? (W)'(rnic_icrc_pkg::K32_``NAME) : (W)'(rnic_icrc_pkg::K64_``NAME))

    // beats up to the last one with a byte to skip or mask (IPv6 BTH byte 4 is frame byte 66)
    localparam int HDR_BEATS = `RNIC_ICRC_OF_WIDTH(32, HDR_BEATS);
    localparam int BEAT_WIDTH = $clog2(HDR_BEATS + 1);
    // entries of an inverse table (any zl in 0..7 or zh = z / 8)
    localparam int TABLE = `RNIC_ICRC_OF_WIDTH(32, TABLE);

    // the register at a frame's start: after the LRH stand-in (0xdebb20e3)
    localparam logic [31:0] CRC_START = rnic_icrc_pkg::CRC_START;
    // the beat holding byte 14 starts from the start register moved over its skipped lanes' places
    localparam logic [31:0] CRC_LO = `RNIC_ICRC_OF_WIDTH(32, CRC_LO);
    // state matrix of a beat of zero bytes: row r at [32*r +: 32]
    localparam logic [32*32-1:0] BEAT_MATRIX = `RNIC_ICRC_OF_WIDTH(32*32, BEAT_MATRIX);
    // inverse state matrices of 0..7 zero bytes (LO) and of 0, 8, 16, .. (HI), the rest zero:
    // row r of matrix t at [32*(TABLE*r + t) +: 32]
    localparam logic [TABLE*32*32-1:0] UNZERO_LO = `RNIC_ICRC_OF_WIDTH(TABLE*32*32, UNZERO_LO);
    localparam logic [TABLE*32*32-1:0] UNZERO_HI = `RNIC_ICRC_OF_WIDTH(TABLE*32*32, UNZERO_HI);
    // data matrix of a whole beat from a zero register: row r at [DATA_WIDTH*r +: DATA_WIDTH]
    localparam logic [32*DATA_WIDTH-1:0] DATA_MATRIX = `RNIC_ICRC_OF_WIDTH(32*DATA_WIDTH, DATA_MATRIX);
    // per-lane masks of each value of the beat counter, beat b at [KEEP_WIDTH*b +: KEEP_WIDTH]:
    // lanes in the Ethernet header; lanes whose bits 3:0 / 7:4 are variant (read as ones)
    localparam int MASKS = KEEP_WIDTH << BEAT_WIDTH;
    localparam logic [MASKS-1:0] SKIP_MASKS = `RNIC_ICRC_OF_WIDTH(MASKS, SKIP);
    localparam logic [MASKS-1:0] V4_LO_MASKS = `RNIC_ICRC_OF_WIDTH(MASKS, V4_ONES_LO);
    localparam logic [MASKS-1:0] V4_HI_MASKS = `RNIC_ICRC_OF_WIDTH(MASKS, V4_ONES_HI);
    localparam logic [MASKS-1:0] V6_LO_MASKS = `RNIC_ICRC_OF_WIDTH(MASKS, V6_ONES_LO);
    localparam logic [MASKS-1:0] V6_HI_MASKS = `RNIC_ICRC_OF_WIDTH(MASKS, V6_ONES_HI);
`undef RNIC_ICRC_OF_WIDTH

    // ------------------------------------------------------------------
    // stage 0 (input): masks and the zero count of the beat
    // ------------------------------------------------------------------
    logic [BEAT_WIDTH-1:0] beat_reg;       // beat index in the frame, saturates at HDR_BEATS
    logic [15:0]           ethertype_reg;
    logic [15:0]           ethertype;
    logic                  ipv6;

    logic [KEEP_WIDTH-1:0] skip;       // lane in the Ethernet header
    logic [KEEP_WIDTH-1:0] en;         // lane covered
    logic [KEEP_WIDTH-1:0] ones_lo;    // bits 3:0 of the lane read as ones
    logic [KEEP_WIDTH-1:0] ones_hi;    // bits 7:4 of the lane read as ones
    logic [KEEP_WIDTH:0]   run;        // lanes up to the last covered byte (or skipped), lanes 0..n-1
    logic [ZW-1:0]         zeros;      // lanes after them

    wire [15:0] ethertype_cur = {tdata[8*ET_LANE +: 8], tdata[8*(ET_LANE+1) +: 8]};

    assign ethertype = beat_reg == BEAT_WIDTH'(ET_BEAT) ? ethertype_cur : ethertype_reg;
    assign ipv6 = ethertype == ETHERTYPE_IPV6;
    wire in_hdr = beat_reg < BEAT_WIDTH'(HDR_BEATS);

    // the masks are zero from beat HDR_BEATS on
    assign skip = SKIP_MASKS[KEEP_WIDTH*beat_reg +: KEEP_WIDTH];
    assign ones_lo = ipv6 ? V6_LO_MASKS[KEEP_WIDTH*beat_reg +: KEEP_WIDTH] : V4_LO_MASKS[KEEP_WIDTH*beat_reg +: KEEP_WIDTH];
    assign ones_hi = ipv6 ? V6_HI_MASKS[KEEP_WIDTH*beat_reg +: KEEP_WIDTH] : V4_HI_MASKS[KEEP_WIDTH*beat_reg +: KEEP_WIDTH];
    assign en = tkeep & ~skip;
    assign run = {1'b0, tkeep | skip};

    always_comb begin
        // run is lanes 0..n-1: z = KEEP_WIDTH - n, from the lane where it ends
        zeros = run[0] ? '0 : ZW'(KEEP_WIDTH);
        for (int i = 0; i < KEEP_WIDTH; i++) begin
            if (run[i] && !run[i+1]) zeros = zeros | ZW'(KEEP_WIDTH - 1 - i);
        end
    end

    always_ff @(posedge clk) begin
        if (ce && tvalid) begin
            if (beat_reg == BEAT_WIDTH'(ET_BEAT)) ethertype_reg <= ethertype;
            if (tlast) beat_reg <= '0;
            else if (in_hdr) beat_reg <= beat_reg + 1'b1;
        end
        if (rst) beat_reg <= '0;
    end

    // ------------------------------------------------------------------
    // the beat's pass-through, one register per stage
    // ------------------------------------------------------------------
    // stage s at index s-1 ([DATA_WIDTH*(s-1) +: DATA_WIDTH], ...)
    logic [LATENCY-1:0]            pv_reg;
    logic [LATENCY-1:0]            pl_reg;
    logic [LATENCY*DATA_WIDTH-1:0] pd_reg;
    logic [LATENCY*USER_WIDTH-1:0] pu_reg;

    always_ff @(posedge clk) begin
        if (ce) begin
            pv_reg <= {pv_reg[LATENCY-2:0], tvalid};
            pl_reg <= {pl_reg[LATENCY-2:0], tlast};
            pd_reg <= {pd_reg[(LATENCY-1)*DATA_WIDTH-1:0], tdata};
            pu_reg <= {pu_reg[(LATENCY-1)*USER_WIDTH-1:0], tuser};
        end
        if (rst) pv_reg <= '0;
    end

    assign m_tvalid = pv_reg[LATENCY-1];
    assign m_tlast = pl_reg[LATENCY-1];
    assign m_tdata = pd_reg[(LATENCY-1)*DATA_WIDTH +: DATA_WIDTH];
    assign m_tuser = pu_reg[(LATENCY-1)*USER_WIDTH +: USER_WIDTH];

    // ------------------------------------------------------------------
    // stage 1: masks
    // ------------------------------------------------------------------
    logic [KEEP_WIDTH-1:0] s1_en_reg, s1_ones_lo_reg, s1_ones_hi_reg;
    logic                  s1_hdr_reg;     // beat up to the one holding byte 14: constant start
    logic                  s1_hold_reg;    // beat before it (all skipped)
    logic [ZW-1:0]         s1_zeros_reg;

    always_ff @(posedge clk) begin
        if (ce) begin
            s1_en_reg <= en;
            s1_ones_lo_reg <= ones_lo;
            s1_ones_hi_reg <= ones_hi;
            s1_hdr_reg <= beat_reg <= BEAT_WIDTH'(LO_BEAT);
            s1_hold_reg <= beat_reg <= BEAT_WIDTH'(LO_BEAT) && beat_reg != BEAT_WIDTH'(LO_BEAT);
            s1_zeros_reg <= zeros;
        end
    end

    // ------------------------------------------------------------------
    // stage 2: data part of the beat
    // ------------------------------------------------------------------
    logic [DATA_WIDTH-1:0] masked;       // covered lanes with the variant bits set, others zero
    logic [31:0]           data_matrix_out;
    logic [31:0]           data_part;

    // each lane's flag over its 8 bits, or over its bits 3:0 and 7:4
    function automatic logic [DATA_WIDTH-1:0] lane_bits(input logic [KEEP_WIDTH-1:0] lo,
                                                        input logic [KEEP_WIDTH-1:0] hi);
        logic [DATA_WIDTH-1:0] v;
        for (int i = 0; i < KEEP_WIDTH; i++) v[8*i +: 8] = {{4{hi[i]}}, {4{lo[i]}}};
        lane_bits = v;
    endfunction

    assign masked = lane_bits(s1_en_reg, s1_en_reg) &
                    (pd_reg[DATA_WIDTH-1:0] | lane_bits(s1_ones_lo_reg, s1_ones_hi_reg));

    for (genvar r = 0; r < 32; r++) begin : g_data_row
        assign data_matrix_out[r] = ^(masked & DATA_MATRIX[DATA_WIDTH*r +: DATA_WIDTH]);
    end

    assign data_part = !s1_hdr_reg ? data_matrix_out :
                       data_matrix_out ^ (s1_hold_reg ? CRC_START : CRC_LO);

    logic [31:0]   s2_data_reg;
    logic          s2_hdr_reg;
    logic [ZW-1:0] s2_zeros_reg;

    always_ff @(posedge clk) begin
        if (ce) begin
            s2_data_reg <= data_part;
            s2_hdr_reg <= s1_hdr_reg;
            s2_zeros_reg <= s1_zeros_reg;
        end
    end

    // ------------------------------------------------------------------
    // stage 3: the register (the only loop)
    // ------------------------------------------------------------------
    logic [31:0]   crc_reg;
    logic [31:0]   crc_moved;
    logic [ZW-1:0] s3_zeros_reg;

    for (genvar r = 0; r < 32; r++) begin : g_state_row
        assign crc_moved[r] = ^(crc_reg & BEAT_MATRIX[32*r +: 32]);
    end

    always_ff @(posedge clk) begin
        if (ce) begin
            if (pv_reg[1]) crc_reg <= s2_hdr_reg ? s2_data_reg : crc_moved ^ s2_data_reg;
            s3_zeros_reg <= s2_zeros_reg;
        end
    end

    // ------------------------------------------------------------------
    // stages 4, 5: the zero lanes of a short last beat undone
    // ------------------------------------------------------------------
    // row r of the inverse matrix for zl (stage 4), then for 8 * zh (stage 5) zero bytes
    logic [ZW-4:0] s4_zh_reg;
    logic [31:0]   s4_crc_reg, s5_crc_reg;

    for (genvar r = 0; r < 32; r++) begin : g_unzero_row
        localparam logic [TABLE*32-1:0] LO_ROWS = UNZERO_LO[32*TABLE*r +: 32*TABLE];
        localparam logic [TABLE*32-1:0] HI_ROWS = UNZERO_HI[32*TABLE*r +: 32*TABLE];
        wire [31:0] lo_row = LO_ROWS[32*s3_zeros_reg[2:0] +: 32];
        wire [31:0] hi_row = HI_ROWS[32*s4_zh_reg +: 32];
        always_ff @(posedge clk) begin
            if (ce) begin
                s4_crc_reg[r] <= ^(crc_reg & lo_row);
                s5_crc_reg[r] <= ^(s4_crc_reg & hi_row);
            end
        end
    end

    always_ff @(posedge clk) begin
        if (ce) s4_zh_reg <= s3_zeros_reg[ZW-1:3];
    end

    assign m_crc = s5_crc_reg;
    assign m_icrc_ok = m_crc == rnic_pkg::ICRC_RESIDUE;

endmodule

`resetall
