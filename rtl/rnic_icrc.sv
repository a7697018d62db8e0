`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * RoCEv2 invariant CRC (IBTA Annex A17, as Linux rxe_icrc.c computes it).
 *
 * Watches a dense frame stream (Ethernet header first, frame byte 0 in lane 0
 * of the first beat; beat_valid = tvalid && tready) and keeps the CRC32
 * (reflected, polynomial 0xEDB88320, no final inversion) over the ICRC
 * coverage: 8 bytes of 0xFF standing for the LRH, then the frame from the IP
 * header on with the variant fields read as ones:
 *   IPv4: TOS, TTL, header checksum; IPv6: traffic class, flow label, hop
 *   limit; UDP checksum; BTH resv8a (BTH byte 4).
 * The Ethernet header is skipped; fields are found by absolute frame byte
 * index (IPv4 header options are not supported, as in RoCEv2).
 *
 * crc_next: register after the current beat (crc_reg when no beat), for the
 *           inserter: the ICRC of a frame ending with this beat is ~crc_next,
 *           least significant byte first on the wire.
 * crc_reg:  register after the last accepted beat; restarts after tlast.
 * icrc_ok:  with the tlast beat of a frame that carries its own ICRC: the
 *           ICRC is good (crc_next == ICRC_RESIDUE).
 */
module rnic_icrc #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [DATA_WIDTH-1:0] tdata,
    input  wire logic [KEEP_WIDTH-1:0] tkeep,
    input  wire logic                  beat_valid,
    input  wire logic                  tlast,

    output      logic [31:0]           crc_next,
    output      logic [31:0]           crc_reg,
    output      logic                  icrc_ok
);

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH || KEEP_WIDTH < 8 || (KEEP_WIDTH & (KEEP_WIDTH - 1)) != 0) begin
            $error("rnic_icrc: DATA_WIDTH must be 8 * KEEP_WIDTH, a power of two of 64 or more bits (%m)");
            $finish;
        end
    end

    // one byte into a reflected CRC32 register, bit by bit
    function automatic logic [31:0] crc_byte(input logic [31:0] crc_in, input logic [7:0] b);
        logic [31:0] c;
        c = crc_in ^ {24'h000000, b};
        for (int k = 0; k < 8; k++) begin
            c = c[0] ? ((c >> 1) ^ 32'hedb88320) : (c >> 1);
        end
        crc_byte = c;
    endfunction

    // the enabled bytes of a beat, lane 0 first
    function automatic logic [31:0] crc_beat(input logic [31:0] crc_in, input logic [DATA_WIDTH-1:0] d,
                                             input logic [KEEP_WIDTH-1:0] en);
        logic [31:0] c;
        c = crc_in;
        for (int i = 0; i < KEEP_WIDTH; i++) begin
            c = en[i] ? crc_byte(c, d[8*i +: 8]) : c;  // unconditional call: no latch on its loop variable
        end
        crc_beat = c;
    endfunction

    // constant function, self-contained (Icarus does not nest constant functions)
    function automatic logic [31:0] crc_lrh(input logic [31:0] crc_in);
        logic [31:0] c;
        c = crc_in;
        for (int i = 0; i < 8; i++) begin
            c = c ^ 32'h000000ff;
            for (int k = 0; k < 8; k++) c = c[0] ? ((c >> 1) ^ 32'hedb88320) : (c >> 1);
        end
        crc_lrh = c;
    endfunction

    // register value at the start of a frame: after the LRH stand-in (0xdebb20e3)
    localparam logic [31:0] CRC_START = crc_lrh(rnic_pkg::ICRC_CRC_INIT);

    localparam logic [15:0] ETHERTYPE_IPV6 = 16'(rnic_pkg::ETHERTYPE_IPV6);
    localparam int ETH_HDR = 14;
    localparam int ET_BEAT = 12 / KEEP_WIDTH;   // beat holding the EtherType (bytes 12, 13)
    localparam int ET_LANE = 12 % KEEP_WIDTH;
    // last beat with a byte to skip or mask: IPv6 BTH byte 4 is frame byte 66
    localparam int HDR_BEATS = 66 / KEEP_WIDTH + 1;
    localparam int BEAT_WIDTH = $clog2(HDR_BEATS + 1);

    logic [BEAT_WIDTH-1:0] beat_reg;       // beat index in the frame, saturates at HDR_BEATS
    logic [15:0]           ethertype_reg;
    logic [15:0]           ethertype;
    logic                  ipv6;

    // per-lane: byte skipped (Ethernet header) and ones OR-ed into the byte
    logic [KEEP_WIDTH-1:0] en;
    logic [DATA_WIDTH-1:0] data_masked;

    wire [15:0] ethertype_cur = {tdata[8*ET_LANE +: 8], tdata[8*(ET_LANE+1) +: 8]};

    logic [31:0] pos;    // frame byte index of a lane
    logic [7:0]  ones;   // bits of the lane's byte read as ones
    logic        in_hdr;

    always_comb begin
        ethertype = ethertype_reg;
        if (beat_reg == BEAT_WIDTH'(ET_BEAT)) ethertype = ethertype_cur;
        ipv6 = ethertype == ETHERTYPE_IPV6;
        in_hdr = beat_reg < BEAT_WIDTH'(HDR_BEATS);

        for (int i = 0; i < KEEP_WIDTH; i++) begin
            pos = 32'(beat_reg) * 32'(KEEP_WIDTH) + 32'(i);
            ones = 8'h00;
            if (in_hdr) begin
                if (ipv6) begin
                    // traffic class + flow label (all of bytes 14..17 but the version), hop limit,
                    // UDP checksum, BTH resv8a
                    if (pos == 14) ones = 8'h0f;
                    if (pos == 15 || pos == 16 || pos == 17 || pos == 21 ||
                        pos == 60 || pos == 61 || pos == 66) ones = 8'hff;
                end else begin
                    // TOS, TTL, header checksum, UDP checksum, BTH resv8a
                    if (pos == 15 || pos == 22 || pos == 24 || pos == 25 ||
                        pos == 40 || pos == 41 || pos == 46) ones = 8'hff;
                end
            end
            en[i] = tkeep[i] && !(in_hdr && pos < ETH_HDR);
            data_masked[8*i +: 8] = tdata[8*i +: 8] | ones;
        end
    end

    // (a continuous assignment: Icarus handles function calls there best)
    wire [31:0] crc_after_beat = crc_beat(crc_reg, data_masked, en);

    assign crc_next = beat_valid ? crc_after_beat : crc_reg;
    assign icrc_ok = crc_next == rnic_pkg::ICRC_RESIDUE;

    always_ff @(posedge clk) begin
        if (beat_valid) begin
            if (beat_reg == BEAT_WIDTH'(ET_BEAT)) ethertype_reg <= ethertype;
            if (tlast) begin
                beat_reg <= '0;
                crc_reg <= CRC_START;
            end else begin
                if (in_hdr) beat_reg <= beat_reg + 1'b1;
                crc_reg <= crc_next;
            end
        end
        if (rst) begin
            beat_reg <= '0;
            crc_reg <= CRC_START;
        end
    end

endmodule

`resetall
