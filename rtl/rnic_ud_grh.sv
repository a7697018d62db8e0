`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * UD receive: the GRH area. Between the receive dispatcher and the
 * responder, on the request channel (a header, then its payload). A UD
 * packet (DETH) gets the 40 bytes a UD receive buffer starts with, as Linux
 * rxe and mlx5 fill them, put in front of its payload, and its header's
 * payload length grows by GRH_BYTES:
 *   IPv6: the 40-byte IPv6 header as received;
 *   IPv4: 20 bytes of zero, then the 20-byte IPv4 header as received.
 * The header is rebuilt from the parsed fields (rnic_pkt_rx keeps all of
 * them, the IPv4 identification and flags, the length field and the header
 * checksum as received too): version, traffic class or TOS, flow label,
 * IPv4 total length or IPv6 payload length, next header / protocol UDP,
 * hop limit or TTL, the IPv4 header checksum (the receive check has
 * verified it) and the addresses. Nothing is summed here: the checksum
 * made again from the fields was the deepest logic of the receive path.
 *
 * The GRH and the payload go through an axis_packer (the payload continues
 * where the 40 bytes end in the beat). Other packets pass straight through,
 * once the packer has no UD payload left in it, so an RC packet pays no
 * extra latency.
 */
module rnic_ud_grh #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8
) (
    input  wire logic                              clk,
    input  wire logic                              rst,

    input  wire logic                              s_hdr_valid,
    output      logic                              s_hdr_ready,
    input  wire logic [rnic_hdr_pkg::HDR_BITS-1:0] s_hdr,
    input  wire logic [DATA_WIDTH-1:0]             s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0]             s_axis_tkeep,
    input  wire logic                              s_axis_tvalid,
    output      logic                              s_axis_tready,
    input  wire logic                              s_axis_tlast,

    output      logic                              m_hdr_valid,
    input  wire logic                              m_hdr_ready,
    output      logic [rnic_hdr_pkg::HDR_BITS-1:0] m_hdr,
    output      logic [DATA_WIDTH-1:0]             m_axis_tdata,
    output      logic [KEEP_WIDTH-1:0]             m_axis_tkeep,
    output      logic                              m_axis_tvalid,
    input  wire logic                              m_axis_tready,
    output      logic                              m_axis_tlast
);

    localparam int HB = rnic_hdr_pkg::HDR_BITS;
    localparam int GRH_B = rnic_pkg::GRH_BYTES;
    localparam int IPV4_B = rnic_pkg::IPV4_HDR_BYTES;
    localparam int GRH_BEATS = (GRH_B + KEEP_WIDTH - 1) / KEEP_WIDTH;
    localparam int GBUF_BYTES = GRH_BEATS * KEEP_WIDTH;
    localparam logic [7:0]  IPV4_VER_IHL = 8'h45;
    localparam logic [3:0]  IPV6_VERSION = 4'h6;

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH || KEEP_WIDTH < 8 || KEEP_WIDTH > 64 ||
            (KEEP_WIDTH & (KEEP_WIDTH - 1)) != 0 || GRH_B != 2 * IPV4_B) begin
            $error("rnic_ud_grh: DATA_WIDTH must be 8 * KEEP_WIDTH, a power of two from 64 to 512 bits (%m)");
            $finish;
        end
    end

    // the GRH area of header h, frame byte order: byte i in bits 8*i +: 8
    function automatic logic [8*GRH_B-1:0] build_grh(input logic [HB-1:0] h);
        logic [8*GRH_B-1:0] be, le;
        logic [15:0]        ip_len, csum;
        logic [7:0]         tclass, ttl;
        logic [15:0]        id, frag;
        logic [127:0]       src, dst;
        ip_len = h[rnic_hdr_pkg::HDR_IP_LEN_LSB +: rnic_hdr_pkg::HDR_IP_LEN_W];
        csum = h[rnic_hdr_pkg::HDR_IP_CSUM_LSB +: rnic_hdr_pkg::HDR_IP_CSUM_W];
        tclass = h[rnic_hdr_pkg::HDR_IP_TCLASS_LSB +: rnic_hdr_pkg::HDR_IP_TCLASS_W];
        ttl = h[rnic_hdr_pkg::HDR_IP_TTL_LSB +: rnic_hdr_pkg::HDR_IP_TTL_W];
        id = h[rnic_hdr_pkg::HDR_IP_ID_LSB +: rnic_hdr_pkg::HDR_IP_ID_W];
        frag = h[rnic_hdr_pkg::HDR_IP_FRAG_LSB +: rnic_hdr_pkg::HDR_IP_FRAG_W];
        src = h[rnic_hdr_pkg::HDR_IP_SRC_LSB +: rnic_hdr_pkg::HDR_IP_SRC_W];
        dst = h[rnic_hdr_pkg::HDR_IP_DST_LSB +: rnic_hdr_pkg::HDR_IP_DST_W];
        if (h[rnic_hdr_pkg::HDR_IPV6_LSB])
            be = {IPV6_VERSION, tclass, h[rnic_hdr_pkg::HDR_IP_FLOW_LABEL_LSB +: rnic_hdr_pkg::HDR_IP_FLOW_LABEL_W],
                  ip_len, 8'(rnic_pkg::IP_PROTO_UDP), ttl, src, dst};
        else
            be = {{(8 * IPV4_B){1'b0}},
                  IPV4_VER_IHL, tclass, ip_len, id, frag, ttl, 8'(rnic_pkg::IP_PROTO_UDP), csum,
                  src[31:0], dst[31:0]};
        for (int i = 0; i < GRH_B; i++) le[8*i +: 8] = be[8*(GRH_B-1-i) +: 8];
        build_grh = le;
    endfunction

    function automatic logic [KEEP_WIDTH-1:0] keep_below(input logic [7:0] n);
        logic [KEEP_WIDTH-1:0] k;
        for (int i = 0; i < KEEP_WIDTH; i++) k[i] = 8'(i) < n;
        keep_below = k;
    endfunction

    typedef enum logic [1:0] {
        S_IDLE,    // take the next header
        S_GRH,     // the GRH beats into the packer
        S_UPAY,    // a UD packet's payload into the packer
        S_PASS     // another packet's payload, straight through
    } state_t;
    state_t state_reg;

    logic                   hv_reg;        // m_hdr holds a header not yet taken
    logic [HB-1:0]          hdr_reg;
    logic [8*GBUF_BYTES-1:0] gbuf_reg;     // GRH bytes still to go, next in lane 0
    logic [7:0]             gleft_reg;     // ... how many
    logic                   gpay_reg;      // the UD packet has payload after the GRH

    wire        in_ud = s_hdr[rnic_hdr_pkg::HDR_HAS_DETH_LSB];
    wire [15:0] in_plen = s_hdr[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W];

    // UD frames in the packer (entered, last beat not yet out)
    logic [3:0] pk_frames_reg;
    logic [DATA_WIDTH-1:0] pk_tdata;
    logic [KEEP_WIDTH-1:0] pk_tkeep;
    logic                  pk_tvalid, pk_tready, pk_tlast;
    logic [DATA_WIDTH-1:0] po_tdata;
    logic [KEEP_WIDTH-1:0] po_tkeep;
    logic                  po_tvalid, po_tready, po_tlast;

    wire g_last = gleft_reg <= 8'(KEEP_WIDTH);
    always_comb begin
        pk_tdata = s_axis_tdata;
        pk_tkeep = s_axis_tkeep;
        pk_tvalid = 1'b0;
        pk_tlast = s_axis_tlast;
        if (state_reg == S_GRH) begin
            pk_tdata = gbuf_reg[DATA_WIDTH-1:0];
            pk_tkeep = g_last ? keep_below(gleft_reg) : {KEEP_WIDTH{1'b1}};
            pk_tvalid = 1'b1;
            pk_tlast = g_last && !gpay_reg;
        end else if (state_reg == S_UPAY) begin
            pk_tvalid = s_axis_tvalid;
        end
    end

    // straight through once the packer is empty
    wire pass = state_reg == S_PASS && pk_frames_reg == 4'd0;
    assign m_axis_tdata = pass ? s_axis_tdata : po_tdata;
    assign m_axis_tkeep = pass ? s_axis_tkeep : po_tkeep;
    assign m_axis_tlast = pass ? s_axis_tlast : po_tlast;
    assign m_axis_tvalid = pass ? s_axis_tvalid : po_tvalid;
    assign po_tready = !pass && m_axis_tready;
    assign s_axis_tready = pass ? m_axis_tready : (state_reg == S_UPAY && pk_tready);

    assign s_hdr_ready = state_reg == S_IDLE && !hv_reg;
    assign m_hdr_valid = hv_reg;
    assign m_hdr = hdr_reg;

    wire pk_in_last = pk_tvalid && pk_tready && pk_tlast;
    wire pk_out_last = po_tvalid && po_tready && po_tlast;

    always_ff @(posedge clk) begin
        pk_frames_reg <= pk_frames_reg + 4'(pk_in_last) - 4'(pk_out_last);
        if (m_hdr_valid && m_hdr_ready) hv_reg <= 1'b0;
        case (state_reg)
            S_IDLE: begin
                if (s_hdr_valid && s_hdr_ready) begin
                    hv_reg <= 1'b1;
                    hdr_reg <= s_hdr;
                    if (in_ud) begin
                        hdr_reg[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W] <=
                            in_plen + 16'(GRH_B);
                        gbuf_reg <= {{(8 * (GBUF_BYTES - GRH_B)){1'b0}}, build_grh(s_hdr)};
                        gleft_reg <= 8'(GRH_B);
                        gpay_reg <= in_plen != 16'd0;
                        state_reg <= S_GRH;
                    end else if (in_plen != 16'd0) begin
                        state_reg <= S_PASS;
                    end
                end
            end
            S_GRH: begin
                if (pk_tready) begin
                    gbuf_reg <= gbuf_reg >> DATA_WIDTH;
                    gleft_reg <= gleft_reg - 8'(KEEP_WIDTH);
                    if (g_last) state_reg <= gpay_reg ? S_UPAY : S_IDLE;
                end
            end
            S_UPAY: begin
                if (s_axis_tvalid && s_axis_tready && s_axis_tlast) state_reg <= S_IDLE;
            end
            S_PASS: begin
                if (s_axis_tvalid && s_axis_tready && s_axis_tlast) state_reg <= S_IDLE;
            end
            default: state_reg <= S_IDLE;
        endcase
        if (rst) begin
            state_reg <= S_IDLE;
            hv_reg <= 1'b0;
            pk_frames_reg <= '0;
        end
    end

    axis_packer #(.DATA_WIDTH(DATA_WIDTH), .KEEP_WIDTH(KEEP_WIDTH)) grh_packer_inst (
        .clk, .rst,
        .s_axis_tdata(pk_tdata), .s_axis_tkeep(pk_tkeep), .s_axis_tvalid(pk_tvalid),
        .s_axis_tready(pk_tready), .s_axis_tlast(pk_tlast),
        // the run comes from tkeep
        .s_axis_toff({$clog2(KEEP_WIDTH){1'b0}}), .s_axis_tend({($clog2(KEEP_WIDTH) + 1){1'b0}}),
        .m_axis_tdata(po_tdata), .m_axis_tkeep(po_tkeep), .m_axis_tvalid(po_tvalid),
        .m_axis_tready(po_tready), .m_axis_tlast(po_tlast)
    );

endmodule

`resetall
