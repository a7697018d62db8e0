`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_hdr_pack / rnic_hdr_unpack testbench: for each mask the header
 * queues use (the ACK's, the READ response's, the request's), random
 * records through pack and unpack come back as the record with the bits
 * outside the mask cleared (and all ones, and none); each packed bit is the record's bit it stands
 * for, in order (checked against a serial walk of the mask); each mask
 * holds every field its producer sets (a record with one such field set
 * comes back whole). DATA_WIDTH does not apply.
 */
module tb #(
    parameter int DATA_WIDTH = 64
);
    localparam int HB = rnic_hdr_pkg::HDR_BITS;
    localparam int ROUNDS = 24;
    localparam logic [HB-1:0] M_ACK = rnic_hdr_pkg::HDR_MASK_ACK;
    localparam logic [HB-1:0] M_RR = rnic_hdr_pkg::HDR_MASK_READ_RESP;
    localparam logic [HB-1:0] M_REQ = rnic_hdr_pkg::HDR_MASK_REQUEST;
    localparam int W_ACK = rnic_hdr_pkg::hdr_mask_bits(M_ACK);
    localparam int W_RR = rnic_hdr_pkg::hdr_mask_bits(M_RR);
    localparam int W_REQ = rnic_hdr_pkg::hdr_mask_bits(M_REQ);
    integer errors = 0, seed = 1, checks = 0;

    logic [HB-1:0] h_ack = '0, h_rr = '0, h_req = '0;
    logic [HB-1:0] o_ack, o_rr, o_req;
    logic [W_ACK-1:0] p_ack;
    logic [W_RR-1:0]  p_rr;
    logic [W_REQ-1:0] p_req;
    rnic_hdr_pack   #(.MASK(M_ACK), .W(W_ACK)) pk_ack (.hdr(h_ack), .packed_hdr(p_ack));
    rnic_hdr_unpack #(.MASK(M_ACK), .W(W_ACK)) up_ack (.packed_hdr(p_ack), .hdr(o_ack));
    rnic_hdr_pack   #(.MASK(M_RR), .W(W_RR))   pk_rr (.hdr(h_rr), .packed_hdr(p_rr));
    rnic_hdr_unpack #(.MASK(M_RR), .W(W_RR))   up_rr (.packed_hdr(p_rr), .hdr(o_rr));
    rnic_hdr_pack   #(.MASK(M_REQ), .W(W_REQ)) pk_req (.hdr(h_req), .packed_hdr(p_req));
    rnic_hdr_unpack #(.MASK(M_REQ), .W(W_REQ)) up_req (.packed_hdr(p_req), .hdr(o_req));

    function automatic logic [HB-1:0] rnd_hdr;
        for (int i = 0; i < HB; i += 32) rnd_hdr[i +: 32] = $random(seed);
    endfunction
    function automatic logic [HB-1:0] fld(input int lsb, input int w);
        fld = rnic_hdr_pkg::hdr_field(lsb, w);
    endfunction

    // the packed bits by a serial walk of the mask
    task automatic walk(input string name, input logic [HB-1:0] m, input logic [HB-1:0] h,
                        input logic [HB-1:0] p);
        int j;
        j = 0;
        for (int i = 0; i < HB; i++) begin
            if (m[i]) begin
                if (p[j] !== h[i]) begin
                    if (errors < 10) $display("ERROR %s: packed bit %0d is %b, record bit %0d is %b", name, j, p[j], i, h[i]);
                    errors = errors + 1;
                end
                j = j + 1;
            end
        end
    endtask

    task automatic check(input string name, input logic [HB-1:0] m, input logic [HB-1:0] h,
                         input logic [HB-1:0] o, input logic [HB-1:0] p, input bit serial);
        checks = checks + 1;
        if (o !== (h & m)) begin
            if (errors < 10) $display("ERROR %s: record %h came back as %h", name, h & m, o);
            errors = errors + 1;
        end
        if (serial) walk(name, m, h, p);
    endtask

    // (the serial walk on the random records: a single bit's round checks
    // the round trip, and the order follows from the random ones)
    task automatic round(input logic [HB-1:0] a, input logic [HB-1:0] b, input logic [HB-1:0] c,
                         input bit serial);
        h_ack = a & M_ACK;
        h_rr = b & M_RR;
        h_req = c & M_REQ;
        #1;
        check("ack", M_ACK, h_ack, o_ack, HB'(p_ack), serial);
        check("read response", M_RR, h_rr, o_rr, HB'(p_rr), serial);
        check("request", M_REQ, h_req, o_req, HB'(p_req), serial);
    endtask

    // a field the producer sets must be under its mask
    task automatic must_hold(input string name, input logic [HB-1:0] m, input logic [HB-1:0] f);
        checks = checks + 1;
        if ((f & ~m) != '0) begin
            $display("ERROR %s: the mask leaves out a field its producer sets (%h)", name, f & ~m);
            errors = errors + 1;
        end
    endtask

    // ... and a field it never sets must not be (no queue bits for it)
    task automatic must_lack(input string name, input logic [HB-1:0] m, input logic [HB-1:0] f);
        checks = checks + 1;
        if ((f & m) != '0) begin
            $display("ERROR %s: the mask holds a field its producer never sets (%h)", name, f & m);
            errors = errors + 1;
        end
    endtask

    initial begin
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        // the fields rnic_qp_hdr, the responder and the READ engine set
        must_hold("ack", M_ACK, fld(rnic_hdr_pkg::HDR_IP_DST_LSB, rnic_hdr_pkg::HDR_IP_DST_W));
        must_hold("ack", M_ACK, fld(rnic_hdr_pkg::HDR_BTH_DEST_QPN_LSB, rnic_hdr_pkg::HDR_BTH_DEST_QPN_W));
        must_hold("ack", M_ACK, fld(rnic_hdr_pkg::HDR_AETH_MSN_LSB, rnic_hdr_pkg::HDR_AETH_MSN_W));
        must_hold("ack", M_ACK, fld(rnic_hdr_pkg::HDR_ATOMICACK_ORIG_LSB, rnic_hdr_pkg::HDR_ATOMICACK_ORIG_W));
        must_hold("read response", M_RR, M_ACK);
        must_hold("read response", M_RR, fld(rnic_hdr_pkg::HDR_PAYLOAD_LEN_LSB, rnic_hdr_pkg::HDR_PAYLOAD_LEN_W));
        must_hold("read response", M_RR, fld(rnic_hdr_pkg::HDR_BTH_PAD_LSB, rnic_hdr_pkg::HDR_BTH_PAD_W));
        must_hold("request", M_REQ, fld(rnic_hdr_pkg::HDR_RETH_VA_LSB, rnic_hdr_pkg::HDR_RETH_VA_W));
        must_hold("request", M_REQ, fld(rnic_hdr_pkg::HDR_ATOMIC_CMP_LSB, rnic_hdr_pkg::HDR_ATOMIC_CMP_W));
        must_hold("request", M_REQ, fld(rnic_hdr_pkg::HDR_DETH_SRC_QPN_LSB, rnic_hdr_pkg::HDR_DETH_SRC_QPN_W));
        must_hold("request", M_REQ, fld(rnic_hdr_pkg::HDR_HAS_IETH_LSB, rnic_hdr_pkg::HDR_HAS_IETH_W));
        must_hold("request", M_REQ, M_ACK & ~rnic_hdr_pkg::HDR_MASK_RESP_EXT);
        // the sources come from the packet builder (the GID index says
        // which); the requester sets none of the responder's extension
        // headers
        must_hold("ack", M_ACK, fld(rnic_hdr_pkg::HDR_SGID_INDEX_LSB, rnic_hdr_pkg::HDR_SGID_INDEX_W));
        must_hold("request", M_REQ, fld(rnic_hdr_pkg::HDR_SGID_INDEX_LSB, rnic_hdr_pkg::HDR_SGID_INDEX_W));
        for (int k = 0; k < 3; k++) begin
            logic [HB-1:0] m;
            string n;
            m = k == 0 ? M_ACK : k == 1 ? M_RR : M_REQ;
            n = k == 0 ? "ack" : k == 1 ? "read response" : "request";
            must_lack(n, m, fld(rnic_hdr_pkg::HDR_ETH_SRC_LSB, rnic_hdr_pkg::HDR_ETH_SRC_W));
            must_lack(n, m, fld(rnic_hdr_pkg::HDR_IP_SRC_LSB, rnic_hdr_pkg::HDR_IP_SRC_W));
        end
        must_lack("request", M_REQ, rnic_hdr_pkg::HDR_MASK_RESP_EXT);
        // none, all ones, then random records
        round('0, '0, '0, 1'b1);
        round('1, '1, '1, 1'b1);
        for (int r = 0; r < ROUNDS; r++) round(rnd_hdr(), rnd_hdr(), rnd_hdr(), 1'b1);
        $display("rnic_hdr_pack: %0d checks; packed widths: ACK %0d, READ response %0d, request %0d of %0d bits",
                 checks, W_ACK, W_RR, W_REQ, HB);
        if (errors == 0) $display("TB PASS");
        else $display("TB FAIL: %0d errors", errors);
        $finish;
    end
endmodule
