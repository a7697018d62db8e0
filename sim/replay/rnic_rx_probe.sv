`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Receive-path probe: the NIC's receive front end, unchanged, as a Verilator
 * top of its own for `rnic-sim --replay FILE --frames-json` (sim/replay/).
 *
 *   s_axis_rx -> rnic_rx_check -> axis_fifo (plain) -> rnic_pkt_rx -> m_hdr_*
 *                  stat_*                                          -> m_axis_payload
 *
 * Wired as in rnic_core, except that the FIFO between checker and parser is
 * a plain FIFO (FRAME_FIFO = 0): it drops nothing, so every frame, good or
 * bad, gets its checker verdict (exactly one stat_* pulse) and a header
 * record from the parser (exactly one m_hdr handshake; payload only when the
 * record's payload length is not 0). The header record is split into one
 * port per field (rnic_hdr_pkg layout).
 *
 * The checker cannot be held back, so the probe holds its input back
 * instead: s_axis_rx_tready is low while the beats taken and not yet out of
 * the FIFO could fill it (a pcap being replayed can wait; a MAC could not).
 * status_overflow is sticky and must stay 0: a beat met a full FIFO.
 */
module rnic_rx_probe #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int FIFO_BYTES = 4096
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [DATA_WIDTH-1:0] s_axis_rx_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_axis_rx_tkeep,
    input  wire logic                  s_axis_rx_tvalid,
    output      logic                  s_axis_rx_tready,
    input  wire logic                  s_axis_rx_tlast,
    input  wire logic                  s_axis_rx_tuser,

    // checker verdict: one pulse per frame
    output      logic                  stat_good,
    output      logic                  stat_not_roce,
    output      logic                  stat_bad_udp_port,
    output      logic                  stat_bad_ip_csum,
    output      logic                  stat_bad_icrc,
    output      logic                  stat_malformed,

    // parser header record, one per frame
    output      logic                  m_hdr_valid,
    input  wire logic                  m_hdr_ready,
    output      logic                  m_hdr_bad,
    output      logic [rnic_hdr_pkg::HDR_ETH_DST_W-1:0]       m_hdr_eth_dst,
    output      logic [rnic_hdr_pkg::HDR_ETH_SRC_W-1:0]       m_hdr_eth_src,
    output      logic                                         m_hdr_ipv6,
    output      logic [rnic_hdr_pkg::HDR_IP_SRC_W-1:0]        m_hdr_ip_src,
    output      logic [rnic_hdr_pkg::HDR_IP_DST_W-1:0]        m_hdr_ip_dst,
    output      logic [rnic_hdr_pkg::HDR_IP_TCLASS_W-1:0]     m_hdr_ip_tclass,
    output      logic [rnic_hdr_pkg::HDR_IP_TTL_W-1:0]        m_hdr_ip_ttl,
    output      logic [rnic_hdr_pkg::HDR_IP_FLOW_LABEL_W-1:0] m_hdr_ip_flow_label,
    output      logic [rnic_hdr_pkg::HDR_UDP_SPORT_W-1:0]     m_hdr_udp_sport,
    output      logic [rnic_hdr_pkg::HDR_BTH_OPCODE_W-1:0]    m_hdr_bth_opcode,
    output      logic                                         m_hdr_bth_se,
    output      logic                                         m_hdr_bth_migreq,
    output      logic [rnic_hdr_pkg::HDR_BTH_PAD_W-1:0]       m_hdr_bth_pad,
    output      logic [rnic_hdr_pkg::HDR_BTH_PKEY_W-1:0]      m_hdr_bth_pkey,
    output      logic [rnic_hdr_pkg::HDR_BTH_DEST_QPN_W-1:0]  m_hdr_bth_dest_qpn,
    output      logic                                         m_hdr_bth_ackreq,
    output      logic [rnic_hdr_pkg::HDR_BTH_PSN_W-1:0]       m_hdr_bth_psn,
    output      logic                                         m_hdr_has_reth,
    output      logic [rnic_hdr_pkg::HDR_RETH_VA_W-1:0]       m_hdr_reth_va,
    output      logic [rnic_hdr_pkg::HDR_RETH_RKEY_W-1:0]     m_hdr_reth_rkey,
    output      logic [rnic_hdr_pkg::HDR_RETH_LEN_W-1:0]      m_hdr_reth_len,
    output      logic                                         m_hdr_has_aeth,
    output      logic [rnic_hdr_pkg::HDR_AETH_SYNDROME_W-1:0] m_hdr_aeth_syndrome,
    output      logic [rnic_hdr_pkg::HDR_AETH_MSN_W-1:0]      m_hdr_aeth_msn,
    output      logic                                         m_hdr_has_immdt,
    output      logic [rnic_hdr_pkg::HDR_IMMDT_W-1:0]         m_hdr_immdt,
    output      logic                                         m_hdr_has_deth,
    output      logic [rnic_hdr_pkg::HDR_DETH_QKEY_W-1:0]     m_hdr_deth_qkey,
    output      logic [rnic_hdr_pkg::HDR_DETH_SRC_QPN_W-1:0]  m_hdr_deth_src_qpn,
    output      logic [rnic_hdr_pkg::HDR_PAYLOAD_LEN_W-1:0]   m_hdr_payload_len,

    output      logic [DATA_WIDTH-1:0] m_axis_payload_tdata,
    output      logic [KEEP_WIDTH-1:0] m_axis_payload_tkeep,
    output      logic                  m_axis_payload_tvalid,
    input  wire logic                  m_axis_payload_tready,
    output      logic                  m_axis_payload_tlast,

    output      logic                  status_overflow
);

    localparam int HB = rnic_hdr_pkg::HDR_BITS;
    localparam int FIFO_BEATS = FIFO_BYTES / KEEP_WIDTH;
    localparam int CNT_W = $clog2(FIFO_BEATS + 1) + 1;

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH || FIFO_BEATS < 8) begin
            $error("rnic_rx_probe: DATA_WIDTH must be 8 * KEEP_WIDTH, FIFO_BYTES at least 8 beats (%m)");
            $finish;
        end
    end

    // ------------------------------------------------------------------
    // input credit: beats taken and not yet out of the FIFO
    // ------------------------------------------------------------------
    logic [CNT_W-1:0] inflight_reg;
    logic             fifo_tvalid, fifo_tready;

    assign s_axis_rx_tready = inflight_reg < CNT_W'(FIFO_BEATS);
    wire in_take = s_axis_rx_tvalid && s_axis_rx_tready;
    wire fifo_out = fifo_tvalid && fifo_tready;

    always_ff @(posedge clk) begin
        inflight_reg <= inflight_reg + CNT_W'(in_take) - CNT_W'(fifo_out);
        if (rst) inflight_reg <= '0;
    end

    // ------------------------------------------------------------------
    // check -> FIFO -> parse, as in rnic_core (the FIFO drops nothing)
    // ------------------------------------------------------------------
    logic [DATA_WIDTH-1:0] chk_tdata, fifo_tdata;
    logic [KEEP_WIDTH-1:0] chk_tkeep, fifo_tkeep;
    logic chk_tvalid, chk_tready, chk_tlast, chk_tuser;
    logic fifo_tlast, fifo_tuser_unused;
    logic chk_s_tready_unused;
    logic fifo_overflow, fifo_bad_frame_unused, fifo_good_frame_unused;
    logic [$clog2(FIFO_BEATS):0] fifo_level_unused;

    rnic_rx_check #(.DATA_WIDTH(DATA_WIDTH)) rx_check_inst (
        .clk, .rst,
        .s_axis_rx_tdata, .s_axis_rx_tkeep, .s_axis_rx_tvalid(in_take),
        .s_axis_rx_tready(chk_s_tready_unused),
        .s_axis_rx_tlast, .s_axis_rx_tuser,
        .m_axis_tdata(chk_tdata), .m_axis_tkeep(chk_tkeep), .m_axis_tvalid(chk_tvalid),
        .m_axis_tready(chk_tready), .m_axis_tlast(chk_tlast), .m_axis_tuser(chk_tuser),
        .stat_good, .stat_not_roce, .stat_bad_udp_port, .stat_bad_ip_csum, .stat_bad_icrc,
        .stat_malformed
    );

    axis_fifo #(
        .DATA_WIDTH(DATA_WIDTH),
        .DEPTH_BYTES(FIFO_BYTES),
        .FRAME_FIFO(0),
        .DROP_BAD_FRAME(0),
        .USER_WIDTH(1)
    ) fifo_inst (
        .clk, .rst,
        .s_axis_tdata(chk_tdata), .s_axis_tkeep(chk_tkeep), .s_axis_tvalid(chk_tvalid),
        .s_axis_tready(chk_tready), .s_axis_tlast(chk_tlast), .s_axis_tuser(chk_tuser),
        .m_axis_tdata(fifo_tdata), .m_axis_tkeep(fifo_tkeep), .m_axis_tvalid(fifo_tvalid),
        .m_axis_tready(fifo_tready), .m_axis_tlast(fifo_tlast), .m_axis_tuser(fifo_tuser_unused),
        .status_overflow(fifo_overflow), .status_bad_frame(fifo_bad_frame_unused),
        .status_good_frame(fifo_good_frame_unused), .status_level(fifo_level_unused)
    );

    logic [HB-1:0] rxh;

    rnic_pkt_rx #(.DATA_WIDTH(DATA_WIDTH)) pkt_rx_inst (
        .clk, .rst,
        .s_axis_tdata(fifo_tdata), .s_axis_tkeep(fifo_tkeep), .s_axis_tvalid(fifo_tvalid),
        .s_axis_tready(fifo_tready), .s_axis_tlast(fifo_tlast),
        .m_hdr_valid, .m_hdr_ready, .m_hdr(rxh), .m_hdr_bad,
        .m_axis_payload_tdata, .m_axis_payload_tkeep, .m_axis_payload_tvalid,
        .m_axis_payload_tready, .m_axis_payload_tlast
    );

    // a beat the checker hands on that the FIFO cannot take is lost
    always_ff @(posedge clk) begin
        if ((chk_tvalid && !chk_tready) || fifo_overflow) status_overflow <= 1'b1;
        if (rst) status_overflow <= 1'b0;
    end

    // ------------------------------------------------------------------
    // the record, one port per field
    // ------------------------------------------------------------------
    assign m_hdr_eth_dst       = rxh[rnic_hdr_pkg::HDR_ETH_DST_LSB +: rnic_hdr_pkg::HDR_ETH_DST_W];
    assign m_hdr_eth_src       = rxh[rnic_hdr_pkg::HDR_ETH_SRC_LSB +: rnic_hdr_pkg::HDR_ETH_SRC_W];
    assign m_hdr_ipv6          = rxh[rnic_hdr_pkg::HDR_IPV6_LSB];
    assign m_hdr_ip_src        = rxh[rnic_hdr_pkg::HDR_IP_SRC_LSB +: rnic_hdr_pkg::HDR_IP_SRC_W];
    assign m_hdr_ip_dst        = rxh[rnic_hdr_pkg::HDR_IP_DST_LSB +: rnic_hdr_pkg::HDR_IP_DST_W];
    assign m_hdr_ip_tclass     = rxh[rnic_hdr_pkg::HDR_IP_TCLASS_LSB +: rnic_hdr_pkg::HDR_IP_TCLASS_W];
    assign m_hdr_ip_ttl        = rxh[rnic_hdr_pkg::HDR_IP_TTL_LSB +: rnic_hdr_pkg::HDR_IP_TTL_W];
    assign m_hdr_ip_flow_label = rxh[rnic_hdr_pkg::HDR_IP_FLOW_LABEL_LSB +: rnic_hdr_pkg::HDR_IP_FLOW_LABEL_W];
    assign m_hdr_udp_sport     = rxh[rnic_hdr_pkg::HDR_UDP_SPORT_LSB +: rnic_hdr_pkg::HDR_UDP_SPORT_W];
    assign m_hdr_bth_opcode    = rxh[rnic_hdr_pkg::HDR_BTH_OPCODE_LSB +: rnic_hdr_pkg::HDR_BTH_OPCODE_W];
    assign m_hdr_bth_se        = rxh[rnic_hdr_pkg::HDR_BTH_SE_LSB];
    assign m_hdr_bth_migreq    = rxh[rnic_hdr_pkg::HDR_BTH_MIGREQ_LSB];
    assign m_hdr_bth_pad       = rxh[rnic_hdr_pkg::HDR_BTH_PAD_LSB +: rnic_hdr_pkg::HDR_BTH_PAD_W];
    assign m_hdr_bth_pkey      = rxh[rnic_hdr_pkg::HDR_BTH_PKEY_LSB +: rnic_hdr_pkg::HDR_BTH_PKEY_W];
    assign m_hdr_bth_dest_qpn  = rxh[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: rnic_hdr_pkg::HDR_BTH_DEST_QPN_W];
    assign m_hdr_bth_ackreq    = rxh[rnic_hdr_pkg::HDR_BTH_ACKREQ_LSB];
    assign m_hdr_bth_psn       = rxh[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W];
    assign m_hdr_has_reth      = rxh[rnic_hdr_pkg::HDR_HAS_RETH_LSB];
    assign m_hdr_reth_va       = rxh[rnic_hdr_pkg::HDR_RETH_VA_LSB +: rnic_hdr_pkg::HDR_RETH_VA_W];
    assign m_hdr_reth_rkey     = rxh[rnic_hdr_pkg::HDR_RETH_RKEY_LSB +: rnic_hdr_pkg::HDR_RETH_RKEY_W];
    assign m_hdr_reth_len      = rxh[rnic_hdr_pkg::HDR_RETH_LEN_LSB +: rnic_hdr_pkg::HDR_RETH_LEN_W];
    assign m_hdr_has_aeth      = rxh[rnic_hdr_pkg::HDR_HAS_AETH_LSB];
    assign m_hdr_aeth_syndrome = rxh[rnic_hdr_pkg::HDR_AETH_SYNDROME_LSB +: rnic_hdr_pkg::HDR_AETH_SYNDROME_W];
    assign m_hdr_aeth_msn      = rxh[rnic_hdr_pkg::HDR_AETH_MSN_LSB +: rnic_hdr_pkg::HDR_AETH_MSN_W];
    assign m_hdr_has_immdt     = rxh[rnic_hdr_pkg::HDR_HAS_IMMDT_LSB];
    assign m_hdr_immdt         = rxh[rnic_hdr_pkg::HDR_IMMDT_LSB +: rnic_hdr_pkg::HDR_IMMDT_W];
    assign m_hdr_has_deth      = rxh[rnic_hdr_pkg::HDR_HAS_DETH_LSB];
    assign m_hdr_deth_qkey     = rxh[rnic_hdr_pkg::HDR_DETH_QKEY_LSB +: rnic_hdr_pkg::HDR_DETH_QKEY_W];
    assign m_hdr_deth_src_qpn  = rxh[rnic_hdr_pkg::HDR_DETH_SRC_QPN_LSB +: rnic_hdr_pkg::HDR_DETH_SRC_QPN_W];
    assign m_hdr_payload_len   = rxh[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W];

endmodule

`resetall
