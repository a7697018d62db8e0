`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The addressing part of every packet a QP sends: Ethernet (next-hop MAC from
 * the QP, source from the port), IPv4 or IPv6 (source from the port GID table
 * entry the QP names, destination from its DGID, traffic class, TTL/hop
 * limit), UDP source port, P_Key and destination QP. The requester and the
 * responder add the BTH opcode, PSN and extension headers. Combinational.
 */
module rnic_qp_hdr (
    input  wire logic [rnic_pkg::QPC_BITS-1:0]      qpc,
    input  wire logic [47:0]                        cfg_port_mac,
    input  wire logic [4*128-1:0]                   cfg_gid,
    output      logic [rnic_hdr_pkg::HDR_BITS-1:0]  hdr
);

    wire         ipv6   = qpc[rnic_pkg::QPC_IPV6_LSB +: rnic_pkg::QPC_IPV6_W];
    wire [7:0]   sgid_i = qpc[rnic_pkg::QPC_SGID_INDEX_LSB +: rnic_pkg::QPC_SGID_INDEX_W];
    wire [127:0] dgid   = qpc[rnic_pkg::QPC_DGID_LSB +: rnic_pkg::QPC_DGID_W];
    wire [127:0] sgid   = cfg_gid[128 * 32'(sgid_i[1:0]) +: 128];

    always_comb begin
        hdr = '0;
        hdr[rnic_hdr_pkg::HDR_ETH_DST_LSB +: rnic_hdr_pkg::HDR_ETH_DST_W] =
            qpc[rnic_pkg::QPC_DST_MAC_LSB +: rnic_pkg::QPC_DST_MAC_W];
        hdr[rnic_hdr_pkg::HDR_ETH_SRC_LSB +: rnic_hdr_pkg::HDR_ETH_SRC_W] = cfg_port_mac;
        hdr[rnic_hdr_pkg::HDR_IPV6_LSB] = ipv6;
        // an IPv4-mapped GID carries the IPv4 address in its low 32 bits
        hdr[rnic_hdr_pkg::HDR_IP_SRC_LSB +: rnic_hdr_pkg::HDR_IP_SRC_W] = ipv6 ? sgid : {96'h0, sgid[31:0]};
        hdr[rnic_hdr_pkg::HDR_IP_DST_LSB +: rnic_hdr_pkg::HDR_IP_DST_W] = ipv6 ? dgid : {96'h0, dgid[31:0]};
        hdr[rnic_hdr_pkg::HDR_IP_TCLASS_LSB +: rnic_hdr_pkg::HDR_IP_TCLASS_W] =
            qpc[rnic_pkg::QPC_TRAFFIC_CLASS_LSB +: rnic_pkg::QPC_TRAFFIC_CLASS_W];
        hdr[rnic_hdr_pkg::HDR_IP_TTL_LSB +: rnic_hdr_pkg::HDR_IP_TTL_W] =
            qpc[rnic_pkg::QPC_HOP_LIMIT_LSB +: rnic_pkg::QPC_HOP_LIMIT_W];
        hdr[rnic_hdr_pkg::HDR_IP_FLOW_LABEL_LSB +: rnic_hdr_pkg::HDR_IP_FLOW_LABEL_W] =
            ipv6 ? qpc[rnic_pkg::QPC_FLOW_LABEL_LSB +: rnic_pkg::QPC_FLOW_LABEL_W] : 20'h0;
        hdr[rnic_hdr_pkg::HDR_UDP_SPORT_LSB +: rnic_hdr_pkg::HDR_UDP_SPORT_W] =
            qpc[rnic_pkg::QPC_UDP_SPORT_LSB +: rnic_pkg::QPC_UDP_SPORT_W];
        hdr[rnic_hdr_pkg::HDR_BTH_PKEY_LSB +: rnic_hdr_pkg::HDR_BTH_PKEY_W] =
            qpc[rnic_pkg::QPC_PKEY_LSB +: rnic_pkg::QPC_PKEY_W];
        hdr[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: rnic_hdr_pkg::HDR_BTH_DEST_QPN_W] =
            qpc[rnic_pkg::QPC_DEST_QPN_LSB +: rnic_pkg::QPC_DEST_QPN_W];
    end

    wire unused_ok = ^{qpc, sgid_i};

endmodule

`resetall
