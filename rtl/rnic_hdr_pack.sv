`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * A packet-header record (rnic_hdr_pkg) as the bits under MASK, in order:
 * what a header queue stores when its producer sets only those fields
 * (rnic_hdr_unpack gives the record back). Wiring only.
 */
module rnic_hdr_pack #(
    parameter logic [rnic_hdr_pkg::HDR_BITS-1:0] MASK = '1,
    parameter int W = rnic_hdr_pkg::hdr_mask_bits(MASK)
) (
    input  wire logic [rnic_hdr_pkg::HDR_BITS-1:0] hdr,
    output      logic [W-1:0]                      packed_hdr
);
    localparam int HB = rnic_hdr_pkg::HDR_BITS;

    // bit i of the record goes to the count of MASK's bits below it
    localparam int SW = rnic_hdr_pkg::HDR_SLOT_W;
    localparam logic [HB*SW-1:0] SLOT = rnic_hdr_pkg::hdr_mask_slots(MASK);
    // an index into the packed bits, as wide as they need
    localparam int PW = W > 1 ? $clog2(W) : 1;

    for (genvar i = 0; i < HB; i++) begin : g_bit
        if (MASK[i]) begin : g_keep
            assign packed_hdr[PW'(SLOT[SW*i +: SW])] = hdr[i];
        end
    end

    initial if (W != rnic_hdr_pkg::hdr_mask_bits(MASK)) $error("rnic_hdr_pack: W must be the mask's bit count (%m)");

    // the bits left out are the producer's promise to leave them 0
`ifndef __ICARUS__
`ifndef SYNTHESIS
    always_comb assert ((hdr & ~MASK) == '0);
`endif
`endif
endmodule

`resetall
