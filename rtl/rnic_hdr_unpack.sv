`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The header record back from rnic_hdr_pack's bits: the bits under MASK
 * from packed_hdr, every other bit 0 (a constant, which the logic after it
 * simplifies with). Wiring only.
 */
module rnic_hdr_unpack #(
    parameter logic [rnic_hdr_pkg::HDR_BITS-1:0] MASK = '1,
    parameter int W = rnic_hdr_pkg::hdr_mask_bits(MASK)
) (
    input  wire logic [W-1:0]                      packed_hdr,
    output      logic [rnic_hdr_pkg::HDR_BITS-1:0] hdr
);
    localparam int HB = rnic_hdr_pkg::HDR_BITS;

    // bit i of the record goes to the count of MASK's bits below it
    localparam int SW = rnic_hdr_pkg::HDR_SLOT_W;
    localparam logic [HB*SW-1:0] SLOT = rnic_hdr_pkg::hdr_mask_slots(MASK);
    // an index into the packed bits, as wide as they need
    localparam int PW = W > 1 ? $clog2(W) : 1;

    for (genvar i = 0; i < HB; i++) begin : g_bit
        if (MASK[i]) begin : g_keep
            assign hdr[i] = packed_hdr[PW'(SLOT[SW*i +: SW])];
        end else begin : g_zero
            assign hdr[i] = 1'b0;
        end
    end

    initial if (W != rnic_hdr_pkg::hdr_mask_bits(MASK)) $error("rnic_hdr_unpack: W must be the mask's bit count (%m)");
endmodule

`resetall
