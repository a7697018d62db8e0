`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The addressing part of every packet a QP sends: Ethernet (next-hop MAC from
 * the QP; the source is the port's), IPv4 or IPv6 (the index of the port GID
 * table entry the QP names as the source, which the packet builder fills in;
 * destination from its DGID, traffic class, TTL/hop
 * limit), UDP source port, P_Key and destination QP. The requester and the
 * responder add the BTH opcode, PSN and extension headers. Combinational.
 */
module rnic_qp_hdr (
    input  wire logic [rnic_pkg::QPC_BITS-1:0]      qpc,
    output      logic [rnic_hdr_pkg::HDR_BITS-1:0]  hdr
);

    wire         ipv6   = qpc[rnic_pkg::QPC_IPV6_LSB +: rnic_pkg::QPC_IPV6_W];
    wire [7:0]   sgid_i = qpc[rnic_pkg::QPC_SGID_INDEX_LSB +: rnic_pkg::QPC_SGID_INDEX_W];
    wire [127:0] dgid   = qpc[rnic_pkg::QPC_DGID_LSB +: rnic_pkg::QPC_DGID_W];

    always_comb begin
        hdr = '0;
        hdr[rnic_hdr_pkg::HDR_ETH_DST_LSB +: rnic_hdr_pkg::HDR_ETH_DST_W] =
            qpc[rnic_pkg::QPC_DST_MAC_LSB +: rnic_pkg::QPC_DST_MAC_W];
        // the source addresses: the port MAC and this GID table entry, which
        // the packet builder fills in
        hdr[rnic_hdr_pkg::HDR_SGID_INDEX_LSB +: rnic_hdr_pkg::HDR_SGID_INDEX_W] = sgid_i[1:0];
        hdr[rnic_hdr_pkg::HDR_IPV6_LSB] = ipv6;
        hdr[rnic_hdr_pkg::HDR_IP_DST_LSB +: rnic_hdr_pkg::HDR_IP_DST_W] = rnic_hdr_pkg::hdr_ip_addr(ipv6, dgid);
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
