`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Memory-key check and address translation against one MPT entry: the entry
 * must be valid, its key equal to the presented lkey/rkey (index and tag),
 * its PD the QP's, its access flags a superset of the ones the operation
 * needs, and [va, va + len) inside [mr.va, mr.va + mr.length) with no
 * wrap-around. pa is the bus address of va. Combinational; the requester
 * uses it for every SGE (need_access 0: local reads need no flag) and the
 * responder for the RETH of a WRITE (REMOTE_WRITE).
 *
 * Memory windows (docs/mw.md): an entry with mw set is a bound window, a
 * copy of what the remote check needs; it passes only a remote check
 * (remote: an rkey, never an lkey) and, a type 2 window, only for the QP it
 * is bound to (qpn).
 */
module rnic_mr_check (
    input  wire logic [rnic_pkg::MPT_BITS-1:0] mpt,
    input  wire logic [31:0]                   key,
    input  wire logic [63:0]                   va,
    input  wire logic [31:0]                   len,
    input  wire logic [15:0]                   pd,
    input  wire logic [7:0]                    need_access,
    input  wire logic                          remote,
    input  wire logic [23:0]                   qpn,
    output      logic                          ok,
    output      logic [63:0]                   pa
);

    wire         mr_valid  = mpt[rnic_pkg::MPT_VALID_LSB +: rnic_pkg::MPT_VALID_W];
    wire [7:0]   mr_access = mpt[rnic_pkg::MPT_ACCESS_LSB +: rnic_pkg::MPT_ACCESS_W];
    wire [15:0]  mr_pd     = mpt[rnic_pkg::MPT_PD_LSB +: rnic_pkg::MPT_PD_W];
    wire [31:0]  mr_key    = mpt[rnic_pkg::MPT_KEY_LSB +: rnic_pkg::MPT_KEY_W];
    wire [63:0]  mr_va     = mpt[rnic_pkg::MPT_VA_LSB +: rnic_pkg::MPT_VA_W];
    wire [63:0]  mr_length = mpt[rnic_pkg::MPT_LENGTH_LSB +: rnic_pkg::MPT_LENGTH_W];
    wire [63:0]  mr_pa     = mpt[rnic_pkg::MPT_PA_LSB +: rnic_pkg::MPT_PA_W];
    wire         mw        = mpt[rnic_pkg::MPT_MW_LSB];
    wire         mw_type2  = mpt[rnic_pkg::MPT_MW_TYPE2_LSB];
    wire [23:0]  mw_qpn    = mpt[rnic_pkg::MPT_QPN_LSB +: rnic_pkg::MPT_QPN_W];
    wire         mw_ok     = !mw || (remote && (!mw_type2 || mw_qpn == qpn));

    // 65-bit ends: a range that wraps past 2^64 can never fit
    wire [64:0] req_end = {1'b0, va} + {33'h0, len};
    wire [64:0] mr_end = {1'b0, mr_va} + {1'b0, mr_length};

    assign ok = mr_valid && mr_key == key && mr_pd == pd && mw_ok
                && (mr_access & need_access) == need_access
                && va >= mr_va && req_end <= mr_end;
    assign pa = mr_pa + (va - mr_va);

    wire unused_ok = ^{mpt};

endmodule

`resetall
