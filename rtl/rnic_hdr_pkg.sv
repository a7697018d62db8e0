// The packet-header record that flows between the transport engines and the
// packet builder (rnic_pkt_tx) and parser (rnic_pkt_rx): every field of
// Ethernet, IP, UDP, BTH and the extension headers the core uses, as one flat
// vector. Field f of record h is h[rnic_hdr_pkg::HDR_f_LSB +: rnic_hdr_pkg::HDR_f_W].
// (Flat rather than a packed struct: Icarus 11 and Yosys 0.23 disagree on
// package types, and both accept package-scoped localparams.)

`resetall
`timescale 1ns / 1ps
`default_nettype none

package rnic_hdr_pkg;

  localparam int HDR_ETH_DST_LSB = 0;
  localparam int HDR_ETH_DST_W = 48;  // Ethernet destination
  localparam int HDR_ETH_SRC_LSB = 48;
  localparam int HDR_ETH_SRC_W = 48;  // Ethernet source
  localparam int HDR_IPV6_LSB = 96;
  localparam int HDR_IPV6_W = 1;  // 1: IPv6, 0: IPv4 (addresses in bits 31:0)
  localparam int HDR_IP_SRC_LSB = 97;
  localparam int HDR_IP_SRC_W = 128;
  localparam int HDR_IP_DST_LSB = 225;
  localparam int HDR_IP_DST_W = 128;
  localparam int HDR_IP_TCLASS_LSB = 353;
  localparam int HDR_IP_TCLASS_W = 8;  // IPv4 TOS byte or IPv6 traffic class
  localparam int HDR_IP_TTL_LSB = 361;
  localparam int HDR_IP_TTL_W = 8;  // IPv4 TTL or IPv6 hop limit
  localparam int HDR_IP_FLOW_LABEL_LSB = 369;
  localparam int HDR_IP_FLOW_LABEL_W = 20;  // IPv6 only
  localparam int HDR_UDP_SPORT_LSB = 389;
  localparam int HDR_UDP_SPORT_W = 16;  // UDP source port (destination is ROCEV2_UDP_PORT)
  localparam int HDR_BTH_OPCODE_LSB = 405;
  localparam int HDR_BTH_OPCODE_W = 8;
  localparam int HDR_BTH_SE_LSB = 413;
  localparam int HDR_BTH_SE_W = 1;  // solicited event
  localparam int HDR_BTH_MIGREQ_LSB = 414;
  localparam int HDR_BTH_MIGREQ_W = 1;
  localparam int HDR_BTH_PAD_LSB = 415;
  localparam int HDR_BTH_PAD_W = 2;  // pad bytes to a 4-byte multiple
  localparam int HDR_BTH_PKEY_LSB = 417;
  localparam int HDR_BTH_PKEY_W = 16;
  localparam int HDR_BTH_DEST_QPN_LSB = 433;
  localparam int HDR_BTH_DEST_QPN_W = 24;
  localparam int HDR_BTH_ACKREQ_LSB = 457;
  localparam int HDR_BTH_ACKREQ_W = 1;
  localparam int HDR_BTH_PSN_LSB = 458;
  localparam int HDR_BTH_PSN_W = 24;
  localparam int HDR_HAS_RETH_LSB = 482;
  localparam int HDR_HAS_RETH_W = 1;
  localparam int HDR_RETH_VA_LSB = 483;
  localparam int HDR_RETH_VA_W = 64;
  localparam int HDR_RETH_RKEY_LSB = 547;
  localparam int HDR_RETH_RKEY_W = 32;
  localparam int HDR_RETH_LEN_LSB = 579;
  localparam int HDR_RETH_LEN_W = 32;
  localparam int HDR_HAS_AETH_LSB = 611;
  localparam int HDR_HAS_AETH_W = 1;
  localparam int HDR_AETH_SYNDROME_LSB = 612;
  localparam int HDR_AETH_SYNDROME_W = 8;
  localparam int HDR_AETH_MSN_LSB = 620;
  localparam int HDR_AETH_MSN_W = 24;
  localparam int HDR_HAS_IMMDT_LSB = 644;
  localparam int HDR_HAS_IMMDT_W = 1;
  localparam int HDR_IMMDT_LSB = 645;
  localparam int HDR_IMMDT_W = 32;
  localparam int HDR_PAYLOAD_LEN_LSB = 677;
  localparam int HDR_PAYLOAD_LEN_W = 16;  // payload bytes in the payload stream (pad and ICRC excluded)
  // AtomicETH: its virtual address and rkey travel in the RETH VA / RKEY fields
  localparam int HDR_HAS_ATOMICETH_LSB = 693;
  localparam int HDR_HAS_ATOMICETH_W = 1;
  localparam int HDR_ATOMIC_SWAP_LSB = 694;
  localparam int HDR_ATOMIC_SWAP_W = 64;  // swap (CMP_SWAP) or add (FETCH_ADD) data
  localparam int HDR_ATOMIC_CMP_LSB = 758;
  localparam int HDR_ATOMIC_CMP_W = 64;  // compare data (CMP_SWAP)
  localparam int HDR_HAS_ATOMICACKETH_LSB = 822;
  localparam int HDR_HAS_ATOMICACKETH_W = 1;
  localparam int HDR_ATOMICACK_ORIG_LSB = 823;
  localparam int HDR_ATOMICACK_ORIG_W = 64;  // original remote data

  // DETH (UD): Q_Key and source QP
  localparam int HDR_HAS_DETH_LSB = 887;
  localparam int HDR_HAS_DETH_W = 1;
  localparam int HDR_DETH_QKEY_LSB = 888;
  localparam int HDR_DETH_QKEY_W = 32;
  localparam int HDR_DETH_SRC_QPN_LSB = 920;
  localparam int HDR_DETH_SRC_QPN_W = 24;

  // IPv4 identification and flags / fragment offset, as received (a UD
  // receive buffer gets the IP header in its GRH area); 0 when sent
  localparam int HDR_IP_ID_LSB = 944;
  localparam int HDR_IP_ID_W = 16;
  localparam int HDR_IP_FRAG_LSB = 960;
  localparam int HDR_IP_FRAG_W = 16;

  // IETH (SEND LAST / ONLY with invalidate): its rkey travels in the RETH
  // RKEY field (a SEND has no RETH)
  localparam int HDR_HAS_IETH_LSB = 976;
  localparam int HDR_HAS_IETH_W = 1;

  // IPv4 header checksum and IP length field (IPv4 total length, IPv6
  // payload length), as received (a UD receive buffer's GRH area holds the
  // IP header as it came); 0 when sent (the packet builder makes its own)
  localparam int HDR_IP_CSUM_LSB = 977;
  localparam int HDR_IP_CSUM_W = 16;
  localparam int HDR_IP_LEN_LSB = 993;
  localparam int HDR_IP_LEN_W = 16;

  // the port GID table entry a sent packet's source addresses come from:
  // the packet builder fills the Ethernet source (the port MAC) and the IP
  // source (that entry) as it builds the frame, so the header queues in
  // front of it do not carry 176 bits of addresses every packet has the
  // same of. The parser sets the source fields as received and this to 0.
  localparam int HDR_SGID_INDEX_LSB = 1009;
  localparam int HDR_SGID_INDEX_W = 2;

  localparam int HDR_BITS = 1011;

  // a GID as the record's IP address field: an IPv4-mapped GID carries the
  // IPv4 address in its low 32 bits, which the field holds alone for IPv4
  function automatic logic [127:0] hdr_ip_addr(input logic ipv6, input logic [127:0] gid);
    hdr_ip_addr = ipv6 ? gid : {96'h0, gid[31:0]};
  endfunction

  // ... and back: the field as a GID, an IPv4 address in its IPv4-mapped
  // form (::ffff:a.b.c.d). The field's upper 96 bits are zero for IPv4, so
  // the prefix is ORed in: 16 gates, no 128-bit multiplexer.
  localparam logic [95:0] GID_V4_MAPPED = 96'h0000_0000_0000_0000_0000_ffff;
  function automatic logic [127:0] hdr_ip_gid(input logic ipv6, input logic [127:0] ip);
    hdr_ip_gid = {ip[127:32] | (ipv6 ? 96'h0 : GID_V4_MAPPED), ip[31:0]};
  endfunction

  // Header queues keep only the bits their producer can set: a record with
  // mask m is stored as the hdr_mask_bits(m) bits under m (rnic_hdr_pack),
  // and the rest read back as 0 (rnic_hdr_unpack). An ACK needs 575 of the
  // 1,009 bits, so a queue of ACK headers is 43% narrower, and what a
  // multiplexer after it chooses among gets constants where the ACK has none.
  function automatic logic [HDR_BITS-1:0] hdr_field(input int lsb, input int w);
    hdr_field = ((HDR_BITS'(1) << w) - HDR_BITS'(1)) << lsb;
  endfunction
  function automatic int hdr_mask_bits(input logic [HDR_BITS-1:0] m);
    hdr_mask_bits = 0;
    for (int i = 0; i < HDR_BITS; i++) hdr_mask_bits += int'(m[i]);
  endfunction
  // where each bit of the record goes in the packed form: entry i (11 bits)
  // is the count of m's bits below bit i. One call builds the whole table
  // (a constant function per bit made yosys's elaboration take minutes)
  localparam int HDR_SLOT_W = $clog2(HDR_BITS + 1);
  function automatic logic [HDR_BITS*HDR_SLOT_W-1:0] hdr_mask_slots(input logic [HDR_BITS-1:0] m);
    int j;
    j = 0;
    for (int i = 0; i < HDR_BITS; i++) begin
      hdr_mask_slots[HDR_SLOT_W*i +: HDR_SLOT_W] = HDR_SLOT_W'(j);
      j += int'(m[i]);
    end
  endfunction

  // what rnic_qp_hdr sets: a QP's addressing (the source addresses as the
  // GID index, filled in by the packet builder)
  localparam logic [HDR_BITS-1:0] HDR_MASK_ADDR =
      hdr_field(HDR_ETH_DST_LSB, HDR_ETH_DST_W) | hdr_field(HDR_SGID_INDEX_LSB, HDR_SGID_INDEX_W)
    | hdr_field(HDR_IPV6_LSB, HDR_IPV6_W)
    | hdr_field(HDR_IP_DST_LSB, HDR_IP_DST_W) | hdr_field(HDR_IP_TCLASS_LSB, HDR_IP_TCLASS_W)
    | hdr_field(HDR_IP_TTL_LSB, HDR_IP_TTL_W) | hdr_field(HDR_IP_FLOW_LABEL_LSB, HDR_IP_FLOW_LABEL_W)
    | hdr_field(HDR_UDP_SPORT_LSB, HDR_UDP_SPORT_W) | hdr_field(HDR_BTH_PKEY_LSB, HDR_BTH_PKEY_W)
    | hdr_field(HDR_BTH_DEST_QPN_LSB, HDR_BTH_DEST_QPN_W);
  // the responder's own extension headers: AETH and AtomicAckETH
  localparam logic [HDR_BITS-1:0] HDR_MASK_RESP_EXT =
      hdr_field(HDR_HAS_AETH_LSB, HDR_HAS_AETH_W) | hdr_field(HDR_AETH_SYNDROME_LSB, HDR_AETH_SYNDROME_W)
    | hdr_field(HDR_AETH_MSN_LSB, HDR_AETH_MSN_W)
    | hdr_field(HDR_HAS_ATOMICACKETH_LSB, HDR_HAS_ATOMICACKETH_W)
    | hdr_field(HDR_ATOMICACK_ORIG_LSB, HDR_ATOMICACK_ORIG_W);
  // the responder's ACK, NAK and ATOMIC ACKNOWLEDGE (and a READ's template)
  localparam logic [HDR_BITS-1:0] HDR_MASK_ACK = HDR_MASK_ADDR | HDR_MASK_RESP_EXT
    | hdr_field(HDR_BTH_OPCODE_LSB, HDR_BTH_OPCODE_W) | hdr_field(HDR_BTH_PSN_LSB, HDR_BTH_PSN_W);
  // what only a received header carries (the source addresses and the IP
  // fields a UD receive's GRH area shows as they came) and the responder's
  // extension headers: none of it in a request the requester builds
  localparam logic [HDR_BITS-1:0] HDR_MASK_REQUEST = ~(HDR_MASK_RESP_EXT
    | hdr_field(HDR_ETH_SRC_LSB, HDR_ETH_SRC_W) | hdr_field(HDR_IP_SRC_LSB, HDR_IP_SRC_W)
    | hdr_field(HDR_IP_ID_LSB, HDR_IP_ID_W) | hdr_field(HDR_IP_FRAG_LSB, HDR_IP_FRAG_W)
    | hdr_field(HDR_IP_CSUM_LSB, HDR_IP_CSUM_W) | hdr_field(HDR_IP_LEN_LSB, HDR_IP_LEN_W));
  // a READ response packet: an ACK's bits and its payload's
  localparam logic [HDR_BITS-1:0] HDR_MASK_READ_RESP = HDR_MASK_ACK
    | hdr_field(HDR_BTH_PAD_LSB, HDR_BTH_PAD_W) | hdr_field(HDR_PAYLOAD_LEN_LSB, HDR_PAYLOAD_LEN_W);

endpackage

`resetall
