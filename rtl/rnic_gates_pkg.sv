// Small functions that state a compare as the gates it should map to.
//
// yosys maps a compare operator (a > b, a >= b) to a carry chain even when
// one side is a constant: a 32-bit one is four CARRY8 cells in a row on
// UltraScale+, past the logic-level budget when it sits in front of a
// decision. Against a constant the compare is a few LUTs instead; between
// two short variables (a lane count against a beat's bytes) a compare
// stated as gates is two or three LUTs deep where its carry chain, a box
// ABC cannot restructure, was five levels (LUT, LUT, CARRY8, INV, CARRY8).

`resetall
`timescale 1ns / 1ps
`default_nettype none

package rnic_gates_pkg;

  // v > c for a constant c: from the most significant bit down, v is
  // greater at the first bit where c has a 0 and v a 1, all bits above
  // being equal
  function automatic logic gt_const(input logic [31:0] v, input logic [31:0] c);
    logic gt, eq;
    gt = 1'b0;
    eq = 1'b1;
    for (int k = 31; k >= 0; k--) begin
      if (!c[k]) gt = gt | (eq & v[k]);
      eq = eq & (v[k] == c[k]);
    end
    gt_const = gt;
  endfunction

  // a < b for two variables (zero-extended to 32 bits; the constant zero
  // bits above the operands' width fold away): from the most significant
  // bit down, a is less at the first bit where a has a 0 and b a 1, all
  // bits above being equal
  function automatic logic lt_gates(input logic [31:0] a, input logic [31:0] b);
    logic lt, eq;
    lt = 1'b0;
    eq = 1'b1;
    for (int k = 31; k >= 0; k--) begin
      lt = lt | (eq & !a[k] & b[k]);
      eq = eq & (a[k] == b[k]);
    end
    lt_gates = lt;
  endfunction

  // a ring of 2^lg entries with (lg + 1)-bit write and read pointers is
  // full when the pointers differ in bit lg alone: an XOR and an equality,
  // where (wr - rd) == 2^lg is a subtract's carry chain and then the compare
  function automatic logic ring_full(input logic [31:0] wr, input logic [31:0] rd, input int lg);
    logic [31:0] d;
    d = (wr ^ rd) & ((32'd2 << lg) - 32'd1);
    ring_full = d == (32'd1 << lg);
  endfunction

endpackage

`resetall
