`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The addressing part of a UD packet, from its address handle: Ethernet
 * (next-hop MAC from the AH; the source is the port's), IPv4 or IPv6 (the
 * index of the port GID table entry the AH names as the source, which the
 * packet builder fills in; destination from its DGID, traffic
 * class, TTL/hop limit, flow label), UDP source port; P_Key from the QP and
 * the destination QP from the send WQE. rnic_qp_hdr's counterpart for UD
 * (there the QPC holds the path). Combinational.
 */
module rnic_ah_hdr (
    input  wire logic [rnic_pkg::AH_BITS-1:0]       ah,
    input  wire logic [15:0]                        pkey,
    input  wire logic [23:0]                        dest_qpn,
    output      logic [rnic_hdr_pkg::HDR_BITS-1:0]  hdr
);

    wire         ipv6   = ah[rnic_pkg::AH_IPV6_LSB +: rnic_pkg::AH_IPV6_W];
    wire [7:0]   sgid_i = ah[rnic_pkg::AH_SGID_INDEX_LSB +: rnic_pkg::AH_SGID_INDEX_W];
    wire [127:0] dgid   = ah[rnic_pkg::AH_DGID_LSB +: rnic_pkg::AH_DGID_W];

    always_comb begin
        hdr = '0;
        hdr[rnic_hdr_pkg::HDR_ETH_DST_LSB +: rnic_hdr_pkg::HDR_ETH_DST_W] =
            ah[rnic_pkg::AH_DST_MAC_LSB +: rnic_pkg::AH_DST_MAC_W];
        // the source addresses: the port MAC and this GID table entry, which
        // the packet builder fills in
        hdr[rnic_hdr_pkg::HDR_SGID_INDEX_LSB +: rnic_hdr_pkg::HDR_SGID_INDEX_W] = sgid_i[1:0];
        hdr[rnic_hdr_pkg::HDR_IPV6_LSB] = ipv6;
        hdr[rnic_hdr_pkg::HDR_IP_DST_LSB +: rnic_hdr_pkg::HDR_IP_DST_W] = rnic_hdr_pkg::hdr_ip_addr(ipv6, dgid);
        hdr[rnic_hdr_pkg::HDR_IP_TCLASS_LSB +: rnic_hdr_pkg::HDR_IP_TCLASS_W] =
            ah[rnic_pkg::AH_TRAFFIC_CLASS_LSB +: rnic_pkg::AH_TRAFFIC_CLASS_W];
        hdr[rnic_hdr_pkg::HDR_IP_TTL_LSB +: rnic_hdr_pkg::HDR_IP_TTL_W] =
            ah[rnic_pkg::AH_HOP_LIMIT_LSB +: rnic_pkg::AH_HOP_LIMIT_W];
        hdr[rnic_hdr_pkg::HDR_IP_FLOW_LABEL_LSB +: rnic_hdr_pkg::HDR_IP_FLOW_LABEL_W] =
            ipv6 ? ah[rnic_pkg::AH_FLOW_LABEL_LSB +: rnic_pkg::AH_FLOW_LABEL_W] : 20'h0;
        hdr[rnic_hdr_pkg::HDR_UDP_SPORT_LSB +: rnic_hdr_pkg::HDR_UDP_SPORT_W] =
            ah[rnic_pkg::AH_UDP_SPORT_LSB +: rnic_pkg::AH_UDP_SPORT_W];
        hdr[rnic_hdr_pkg::HDR_BTH_PKEY_LSB +: rnic_hdr_pkg::HDR_BTH_PKEY_W] = pkey;
        hdr[rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB +: rnic_hdr_pkg::HDR_BTH_DEST_QPN_W] = dest_qpn;
    end

    wire unused_ok = ^{ah, sgid_i};

endmodule

`resetall
