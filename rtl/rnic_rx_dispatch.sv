`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Receive dispatcher: sits after the packet parser and sends each packet
 * where it belongs. Frames not addressed to this port (destination MAC, or a
 * destination IP that is in no GID table entry) are dropped and counted,
 * but for UD SENDs to the multicast QPN with a group MAC and a multicast IP,
 * which go on with the requests (rnic_mcast_rep replicates them);
 * malformed headers are dropped and counted; a destination QPN beyond the QP
 * table is dropped and counted. Requests (with their payload) go to the
 * responder; responses (ACK, NAK, READ responses, ATOMIC ACKNOWLEDGE) to
 * the completion engine,
 * a READ response's payload to the placement engine, which the completion
 * engine tells what to do with it. Other responses have no requester
 * waiting for them and are discarded, as IBTA 9.7.5.2 has unexpected
 * responses discarded. The payload of a dropped packet is drained.
 */
module rnic_rx_dispatch #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    parameter int QPN_WIDTH = 10
) (
    input  wire logic                              clk,
    input  wire logic                              rst,

    input  wire logic                              s_hdr_valid,
    output      logic                              s_hdr_ready,
    input  wire logic [rnic_hdr_pkg::HDR_BITS-1:0] s_hdr,
    input  wire logic                              s_hdr_bad,
    input  wire logic [DATA_WIDTH-1:0]             s_axis_payload_tdata,
    input  wire logic [KEEP_WIDTH-1:0]             s_axis_payload_tkeep,
    input  wire logic                              s_axis_payload_tvalid,
    output      logic                              s_axis_payload_tready,
    input  wire logic                              s_axis_payload_tlast,

    input  wire logic [47:0]                       cfg_port_mac,
    input  wire logic [4*128-1:0]                  cfg_gid,

    // requests
    output      logic                              m_req_valid,
    input  wire logic                              m_req_ready,
    output      logic [rnic_hdr_pkg::HDR_BITS-1:0] m_req_hdr,
    output      logic [DATA_WIDTH-1:0]             m_axis_req_payload_tdata,
    output      logic [KEEP_WIDTH-1:0]             m_axis_req_payload_tkeep,
    output      logic                              m_axis_req_payload_tvalid,
    input  wire logic                              m_axis_req_payload_tready,
    output      logic                              m_axis_req_payload_tlast,

    // responses: ACK/NAK and READ response headers, READ response payloads
    output      logic                              m_ack_valid,
    input  wire logic                              m_ack_ready,
    output      logic [QPN_WIDTH-1:0]              m_ack_qpn,
    output      logic [23:0]                       m_ack_psn,
    output      logic [7:0]                        m_ack_syndrome,
    output      logic [7:0]                        m_ack_opcode,
    output      logic [15:0]                       m_ack_plen,
    output      logic [63:0]                       m_ack_orig,
    output      logic [DATA_WIDTH-1:0]             m_axis_rsp_payload_tdata,
    output      logic [KEEP_WIDTH-1:0]             m_axis_rsp_payload_tkeep,
    output      logic                              m_axis_rsp_payload_tvalid,
    input  wire logic                              m_axis_rsp_payload_tready,
    output      logic                              m_axis_rsp_payload_tlast,

    output      logic                              stat_not_ours,
    output      logic                              stat_malformed,
    output      logic                              stat_drop_qpn
);

    localparam int NUM_QPS = 2 ** QPN_WIDTH;
    localparam int GIDS = 4;

    wire [47:0]  h_dmac   = s_hdr[rnic_hdr_pkg::HDR_ETH_DST_LSB +: rnic_hdr_pkg::HDR_ETH_DST_W];
    wire         h_ipv6   = s_hdr[rnic_hdr_pkg::HDR_IPV6_LSB];
    wire [127:0] h_ipdst  = s_hdr[rnic_hdr_pkg::HDR_IP_DST_LSB +: rnic_hdr_pkg::HDR_IP_DST_W];
    wire [7:0]   h_opcode = s_hdr[rnic_hdr_pkg::HDR_BTH_OPCODE_LSB +: rnic_hdr_pkg::HDR_BTH_OPCODE_W];
    wire [23:0]  h_dqpn   = s_hdr[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: rnic_hdr_pkg::HDR_BTH_DEST_QPN_W];
    wire [15:0]  h_plen   = s_hdr[rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB +: rnic_hdr_pkg::HDR_PAYLOAD_LEN_W];

    // the destination as a GID, so each GID takes one 128-bit compare for
    // both IP versions (a compare per version was twice the LUTs)
    wire [127:0] h_dgid = rnic_hdr_pkg::hdr_ip_gid(h_ipv6, h_ipdst);
    logic ip_ours;
    always_comb begin
        ip_ours = 1'b0;
        for (int i = 0; i < GIDS; i++)
            if (cfg_gid[128 * i +: 128] == h_dgid) ip_ours = 1'b1;
    end

    // requests are the RC opcodes a requester sends (IBTA Table 38) and UD SEND ONLY
    wire is_rd_resp = h_opcode >= rnic_pkg::OP_RDMA_READ_RESPONSE_FIRST[7:0]
                      && h_opcode <= rnic_pkg::OP_RDMA_READ_RESPONSE_ONLY[7:0];
    wire is_ack = h_opcode == rnic_pkg::OP_ACKNOWLEDGE[7:0] || is_rd_resp
                  || h_opcode == rnic_pkg::OP_ATOMIC_ACKNOWLEDGE[7:0];
    wire is_request = h_opcode <= rnic_pkg::OP_RDMA_READ_REQUEST[7:0]
                      || h_opcode == rnic_pkg::OP_COMPARE_SWAP[7:0]
                      || h_opcode == rnic_pkg::OP_FETCH_ADD[7:0]
                      || h_opcode == rnic_pkg::OP_SEND_LAST_INV[7:0]
                      || h_opcode == rnic_pkg::OP_SEND_ONLY_INV[7:0]
                      || h_opcode == rnic_pkg::OP_UD_SEND_ONLY[7:0]
                      || h_opcode == rnic_pkg::OP_UD_SEND_ONLY_IMM[7:0];
    // a UD SEND for the multicast QPN to a group MAC (I/G bit) and a
    // multicast IP (224.0.0.0/4, ff00::/8) goes on to the replicator, which
    // drops it unless a QP of this port is attached to the group
    wire is_ud_send = h_opcode == rnic_pkg::OP_UD_SEND_ONLY[7:0] || h_opcode == rnic_pkg::OP_UD_SEND_ONLY_IMM[7:0];
    wire ip_mc = h_ipv6 ? h_ipdst[127:120] == 8'hff : h_ipdst[31:28] == 4'he;
    wire mcast = h_dmac[40] && ip_mc && is_ud_send && h_dqpn == rnic_pkg::MCAST_QPN[23:0];
    wire addressed = (h_dmac == cfg_port_mac && ip_ours) || mcast;
    wire qpn_ok = h_dqpn < 24'(NUM_QPS) || mcast;

    typedef enum logic [1:0] {
        S_HDR,     // classify the next header
        S_ROUTE,   // payload to the responder
        S_RSP,     // READ response payload to the placement engine
        S_DRAIN    // payload of a dropped packet
    } state_t;
    state_t state_reg;

    // header handshake per destination. A header is taken when both
    // destinations are ready, whichever it goes to (each offer waits for
    // the other's ready too, so none is taken alone): the parser's ready
    // then does not wait for the classification (it ran from the header's
    // fields through this decision into the parser's state). Both are
    // register slices in the core, so only one that is backed up holds a
    // header that goes to the other.
    wire to_req = !s_hdr_bad && addressed && qpn_ok && is_request;
    wire to_ack = !s_hdr_bad && addressed && qpn_ok && is_ack;
    assign m_req_valid = state_reg == S_HDR && s_hdr_valid && to_req && m_ack_ready;
    assign m_req_hdr = s_hdr;
    assign m_ack_valid = state_reg == S_HDR && s_hdr_valid && to_ack && m_req_ready;
    assign m_ack_qpn = h_dqpn[QPN_WIDTH-1:0];
    assign m_ack_psn = s_hdr[rnic_hdr_pkg::HDR_BTH_PSN_LSB +: rnic_hdr_pkg::HDR_BTH_PSN_W];
    assign m_ack_syndrome = s_hdr[rnic_hdr_pkg::HDR_AETH_SYNDROME_LSB +: rnic_hdr_pkg::HDR_AETH_SYNDROME_W];
    assign m_ack_opcode = h_opcode;
    assign m_ack_plen = h_plen;
    assign m_ack_orig = s_hdr[rnic_hdr_pkg::HDR_ATOMICACK_ORIG_LSB +: rnic_hdr_pkg::HDR_ATOMICACK_ORIG_W];
    assign s_hdr_ready = state_reg == S_HDR && m_req_ready && m_ack_ready;

    assign m_axis_req_payload_tdata = s_axis_payload_tdata;
    assign m_axis_req_payload_tkeep = s_axis_payload_tkeep;
    assign m_axis_req_payload_tlast = s_axis_payload_tlast;
    assign m_axis_req_payload_tvalid = state_reg == S_ROUTE && s_axis_payload_tvalid;
    assign m_axis_rsp_payload_tdata = s_axis_payload_tdata;
    assign m_axis_rsp_payload_tkeep = s_axis_payload_tkeep;
    assign m_axis_rsp_payload_tlast = s_axis_payload_tlast;
    assign m_axis_rsp_payload_tvalid = state_reg == S_RSP && s_axis_payload_tvalid;
    assign s_axis_payload_tready = (state_reg == S_ROUTE && m_axis_req_payload_tready)
                                   || (state_reg == S_RSP && m_axis_rsp_payload_tready)
                                   || state_reg == S_DRAIN;

    always_ff @(posedge clk) begin
        stat_not_ours <= 1'b0;
        stat_malformed <= 1'b0;
        stat_drop_qpn <= 1'b0;
        case (state_reg)
            S_HDR: begin
                if (s_hdr_valid && s_hdr_ready) begin
                    // the parser sends no payload for a bad header
                    if (s_hdr_bad) stat_malformed <= 1'b1;
                    else if (!addressed) stat_not_ours <= 1'b1;
                    else if (!qpn_ok) stat_drop_qpn <= 1'b1;
                    if (!s_hdr_bad && h_plen != 0) state_reg <= to_req ? S_ROUTE : (to_ack && is_rd_resp) ? S_RSP : S_DRAIN;
                end
            end
            S_ROUTE, S_RSP, S_DRAIN: begin
                if (s_axis_payload_tvalid && s_axis_payload_tready && s_axis_payload_tlast) state_reg <= S_HDR;
            end
            default: state_reg <= S_HDR;
        endcase
        if (rst) begin
            state_reg <= S_HDR;
            stat_not_ours <= 1'b0;
            stat_malformed <= 1'b0;
            stat_drop_qpn <= 1'b0;
        end
    end

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // the parser's IPv4 destination: the upper 96 bits zero (hdr_ip_gid)
    always_ff @(posedge clk) begin
        if (!rst && s_hdr_valid) assert (h_ipv6 || h_ipdst[127:32] == 96'h0);
    end
`endif
`endif

endmodule

`resetall
