`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * rnic_mr_check in two register stages, with the same checks and result:
 * the entry valid, its key the presented one (index and tag), its PD the
 * QP's, its access flags a superset of need_access, and [va, va + len)
 * inside [mr.va, mr.va + mr.length) with no wrap-around past 2^64, a
 * window's entry for a remote check only (and a type 2 window's for its QP
 * only); pa the bus address of va.
 *
 * Both stages advance when `en` is high: ok and pa (registers) are the
 * result for the inputs presented in the en cycle before the last one, and
 * hold while en is low. A user raises en for two cycles with the inputs
 * (at least the ones of the first) and reads ok and pa from the cycle after.
 * ok_next is the value ok takes at the end of an en cycle, for a user that
 * registers a decision of its own on the result.
 *
 * Stage 1 takes the key/PD/access/valid compares and, in pieces of a few
 * bits each, the carries of the three sums: va - mr.va (its carry is
 * va >= mr.va), (mr.va + mr.length) - (va + len) over 67 bits (its sign is
 * the end compare; the four operands are reduced to two by carry-save
 * adders first) and mr.pa + va - mr.va (each piece's sum with carry in 0
 * and 1). Stage 2 selects the carries across the pieces and the pieces of
 * pa. A 64-bit '+' is a carry chain of 16 cells in one cycle; a piece is a
 * short one.
 */
module rnic_mr_check_pipe (
    input  wire logic                          clk,
    input  wire logic                          en,
    input  wire logic [rnic_pkg::MPT_BITS-1:0] mpt,
    input  wire logic [31:0]                   key,
    input  wire logic [63:0]                   va,
    input  wire logic [31:0]                   len,
    input  wire logic [15:0]                   pd,
    input  wire logic [7:0]                    need_access,
    input  wire logic                          remote,
    input  wire logic [23:0]                   qpn,
    output      logic                          ok,
    output      logic                          ok_next,
    output      logic [63:0]                   pa
);

    wire         mr_valid  = mpt[rnic_pkg::MPT_VALID_LSB +: rnic_pkg::MPT_VALID_W];
    wire [7:0]   mr_access = mpt[rnic_pkg::MPT_ACCESS_LSB +: rnic_pkg::MPT_ACCESS_W];
    wire [15:0]  mr_pd     = mpt[rnic_pkg::MPT_PD_LSB +: rnic_pkg::MPT_PD_W];
    wire [31:0]  mr_key    = mpt[rnic_pkg::MPT_KEY_LSB +: rnic_pkg::MPT_KEY_W];
    wire [63:0]  mr_va     = mpt[rnic_pkg::MPT_VA_LSB +: rnic_pkg::MPT_VA_W];
    wire [63:0]  mr_length = mpt[rnic_pkg::MPT_LENGTH_LSB +: rnic_pkg::MPT_LENGTH_W];
    wire [63:0]  mr_pa     = mpt[rnic_pkg::MPT_PA_LSB +: rnic_pkg::MPT_PA_W];
    // a window's entry: an rkey only, a type 2 one for its QP only
    wire         mw        = mpt[rnic_pkg::MPT_MW_LSB];
    wire         mw_type2  = mpt[rnic_pkg::MPT_MW_TYPE2_LSB];
    wire [23:0]  mw_qpn    = mpt[rnic_pkg::MPT_QPN_LSB +: rnic_pkg::MPT_QPN_W];

    // pieces: 4 x 16 bits for va - mr.va, 8 x 8 for pa (its carry-save step
    // comes first), 6 x 11 for the 66 bits below the end compare's sign
    localparam int PW = 16;
    localparam int NP = 64 / PW;
    localparam int AW = 8;
    localparam int NA = 64 / AW;
    localparam int EW = 11;
    localparam int NE = 66 / EW;

    // va - mr.va = va + ~mr.va + 1: carry out of each piece for carry in 0 / 1
    logic [NP-1:0] ge_c0, ge_c1;
    // mr.pa + va - mr.va: carry-save to two operands (the +1 in the carry
    // word's free bit 0), then each piece's sum for carry in 0 / 1
    wire  [63:0]   pa_x = mr_pa ^ va ^ ~mr_va;
    wire  [63:0]   pa_y = {(mr_pa[62:0] & va[62:0]) | (mr_pa[62:0] & ~mr_va[62:0]) | (va[62:0] & ~mr_va[62:0]), 1'b1};
    logic [NA-1:0] pa_c0, pa_c1;
    logic [63:0]   pa_s0, pa_s1;
    // a + b + 1 is a - ~b: one carry chain, its borrow the inverted carry
    always_comb begin
        logic [PW:0] t;
        logic [AW:0] u;
        for (int k = 0; k < NP; k++) begin
            t = {1'b0, va[k*PW +: PW]} + {1'b0, ~mr_va[k*PW +: PW]};
            ge_c0[k] = t[PW];
            t = {1'b0, va[k*PW +: PW]} - {1'b0, mr_va[k*PW +: PW]};
            ge_c1[k] = !t[PW];
        end
        for (int k = 0; k < NA; k++) begin
            u = {1'b0, pa_x[k*AW +: AW]} + {1'b0, pa_y[k*AW +: AW]};
            {pa_c0[k], pa_s0[k*AW +: AW]} = u;
            u = {1'b0, pa_x[k*AW +: AW]} - {1'b0, ~pa_y[k*AW +: AW]};
            {pa_c1[k], pa_s1[k*AW +: AW]} = {!u[AW], u[AW-1:0]};
        end
    end

    // (mr.va + mr.length) - (va + len) in 67 bits: mr.va + mr.length + ~va
    // + ~len + 2, two carry-save steps (each carry word's bit 0 takes a 1);
    // bit 66 of the sum is set when the request ends past the region
    wire [66:0] e_a = {3'b000, mr_va};
    wire [66:0] e_b = {3'b000, mr_length};
    wire [66:0] e_c = ~{3'b000, va};
    wire [66:0] e_d = ~{35'h0, len};
    wire [66:0] e_s1 = e_a ^ e_b ^ e_c;
    wire [66:0] e_c1 = {(e_a[65:0] & e_b[65:0]) | (e_a[65:0] & e_c[65:0]) | (e_b[65:0] & e_c[65:0]), 1'b1};
    wire [66:0] e_x = e_s1 ^ e_c1 ^ e_d;
    wire [66:0] e_y = {(e_s1[65:0] & e_c1[65:0]) | (e_s1[65:0] & e_d[65:0]) | (e_c1[65:0] & e_d[65:0]), 1'b1};
    logic [NE-1:0] e_c0, e_cy1;
    always_comb begin
        logic [EW:0] t;
        for (int k = 0; k < NE; k++) begin
            t = {1'b0, e_x[k*EW +: EW]} + {1'b0, e_y[k*EW +: EW]};
            e_c0[k] = t[EW];
            t = {1'b0, e_x[k*EW +: EW]} - {1'b0, ~e_y[k*EW +: EW]};
            e_cy1[k] = !t[EW];
        end
    end

    // stage 1
    logic          s1_misc, s1_e_top;
    logic [NP-1:0] s1_ge_c0, s1_ge_c1;
    logic [NA-1:0] s1_pa_c0, s1_pa_c1;
    logic [63:0]   s1_pa_s0, s1_pa_s1;
    logic [NE-1:0] s1_e_c0, s1_e_c1;
    always_ff @(posedge clk) begin
        if (en) begin
            s1_misc <= mr_valid && mr_key == key && mr_pd == pd && (mr_access & need_access) == need_access
                       && (!mw || (remote && (!mw_type2 || mw_qpn == qpn)));
            s1_ge_c0 <= ge_c0;
            s1_ge_c1 <= ge_c1;
            s1_pa_c0 <= pa_c0;
            s1_pa_c1 <= pa_c1;
            s1_pa_s0 <= pa_s0;
            s1_pa_s1 <= pa_s1;
            s1_e_c0 <= e_c0;
            s1_e_c1 <= e_cy1;
            s1_e_top <= e_x[66] ^ e_y[66];
        end
    end

    // stage 2: carries across the pieces
    logic        ge_all, e_carry;
    logic [63:0] pa_sel;
    always_comb begin
        logic c;
        c = 1'b1;
        for (int k = 0; k < NP; k++) c = c ? s1_ge_c1[k] : s1_ge_c0[k];
        ge_all = c;
        c = 1'b0;
        for (int k = 0; k < NA; k++) begin
            pa_sel[k*AW +: AW] = c ? s1_pa_s1[k*AW +: AW] : s1_pa_s0[k*AW +: AW];
            c = c ? s1_pa_c1[k] : s1_pa_c0[k];
        end
        c = 1'b0;
        for (int k = 0; k < NE; k++) c = c ? s1_e_c1[k] : s1_e_c0[k];
        e_carry = c;
    end
    assign ok_next = s1_misc && ge_all && !(s1_e_top ^ e_carry);
    always_ff @(posedge clk) begin
        if (en) begin
            ok <= ok_next;
            pa <= pa_sel;
        end
    end

    wire unused_ok = ^{mpt, s1_pa_c0[NA-1], s1_pa_c1[NA-1], e_s1[66], e_c1[66]};

`ifndef __ICARUS__
`ifndef SYNTHESIS
    // the result is rnic_mr_check's on the inputs of two en cycles before
    logic        ref_ok, ref_ok1, ref_ok2;
    logic [63:0] ref_pa, ref_pa1, ref_pa2;
    logic [1:0]  ref_fill = 2'd0;
    rnic_mr_check ref_inst (
        .mpt, .key, .va, .len, .pd, .need_access, .remote, .qpn, .ok(ref_ok), .pa(ref_pa)
    );
    always_ff @(posedge clk) begin
        if (en) begin
            ref_ok1 <= ref_ok;
            ref_pa1 <= ref_pa;
            ref_ok2 <= ref_ok1;
            ref_pa2 <= ref_pa1;
            if (ref_fill != 2'd2) ref_fill <= ref_fill + 2'd1;
        end
        if (ref_fill == 2'd2) assert (ok == ref_ok2 && pa == ref_pa2);
    end
`endif
`endif

endmodule

`resetall
