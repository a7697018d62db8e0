#!/usr/bin/env python3
"""hw/levels.py on netlists with a known answer (make test).

Maps small circuits with synth_xilinx (pinned pyosys) and checks the
deepest flop-to-flop path levels.py finds, with its start and end:
  - a 64-input XOR between two registers: three levels of LUT6 at best,
    four as ABC9 maps it for area; anything else is a counting error;
  - the same XOR behind a block-RAM read: the RAM ends one path and starts
    the next, so the count does not run through it;
  - a 32-bit adder: a LUT and a chain of four CARRY8 cells (one level
    each; the UltraScale+ carry cell, hw/yosys/arith_map_xcup.v): five;
  - a 16-bit compare of two differences: two subtractors side by side, then
    the compare: a LUT and two CARRY8 each, in series: six (five where ABC
    folds the compare's first LUT into the subtractors').
Then the CARRY8 map itself: adders, subtractors and compares of 3..40 bits
mapped with it and proven equal to their RTL by SAT (yosys equiv passes on
the cells' simulation models), so a wrong carry wiring fails here.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HW = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HW)
from synth_run import xcup_fine, xcup_map_luts  # noqa: E402

CASES = [
    ("xor64", """
module t(input wire clk, input wire [63:0] d, output reg y);
  reg [63:0] a_reg;
  always @(posedge clk) begin a_reg <= d; y <= ^a_reg; end
endmodule""", (3, 4), "a_reg", "y"),
    ("ram_then_xor", """
module t(input wire clk, input wire we, input wire [9:0] wa, input wire [9:0] ra,
         input wire [63:0] wd, output reg y);
  (* ram_style = "block" *) reg [63:0] mem [0:1023];
  reg [63:0] rd_reg;
  reg [9:0] ra_reg;
  always @(posedge clk) begin
    ra_reg <= ra;
    if (we) mem[wa] <= wd;
    rd_reg <= mem[ra_reg];
    y <= ^rd_reg;
  end
endmodule""", (3, 4), "rd_reg", "y"),
    ("add32", """
module t(input wire clk, input wire [31:0] a, input wire [31:0] b, output reg [31:0] s);
  reg [31:0] a_reg, b_reg;
  always @(posedge clk) begin a_reg <= a; b_reg <= b; s <= a_reg + b_reg; end
endmodule""", (5, 5), "_reg", "s"),
    ("cmp_of_diffs", """
module t(input wire clk, input wire [15:0] a, input wire [15:0] b, input wire [15:0] c, output reg y);
  reg [15:0] a_reg, b_reg, c_reg;
  always @(posedge clk) begin
    a_reg <= a; b_reg <= b; c_reg <= c;
    y <= 16'(a_reg - b_reg) < 16'(c_reg - b_reg);
  end
endmodule""", (5, 6), "_reg", "y"),
]

# the arithmetic the CARRY8 map must get right: every $alu/$lcu shape
EQUIV = """
module e(input wire [39:0] a, input wire [39:0] b, input wire ci,
         output wire [39:0] s40, output wire [2:0] s3, output wire [8:0] d9,
         output wire [16:0] s17, output wire lt16, output wire le24, output wire ge40s,
         output wire [23:0] n24, output wire eq12);
  assign s40 = a + b + ci;
  assign s3 = a[2:0] + b[2:0];
  assign d9 = a[8:0] - b[8:0];
  assign s17 = {1'b0, a[15:0]} + {1'b0, b[15:0]};
  assign lt16 = a[15:0] < b[15:0];
  assign le24 = a[23:0] <= b[23:0];
  assign ge40s = $signed(a) >= $signed(b);
  assign n24 = -a[23:0];
  assign eq12 = 12'(a[11:0] - b[11:0]) == 12'd5;
endmodule"""


def carry8_equiv(ys, tmp):
    """EQUIV mapped through the CARRY8 map equals EQUIV (SAT, every input)."""
    v = os.path.join(tmp, "equiv.v")
    with open(v, "w") as f:
        f.write(EQUIV)
    # the cell's behaviour from the library yosys maps to (cells_sim.v)
    import pyosys
    lib = open(os.path.join(os.path.dirname(pyosys.__file__), "share", "xilinx", "cells_sim.v")).read()
    model = os.path.join(tmp, "carry8.v")
    with open(model, "w") as f:
        f.write(re.search(r"^module CARRY8\(.*?^endmodule", lib, re.S | re.M).group(0) + "\n")
    d = ys.Design()
    saved = os.dup(1)
    log = os.path.join(tmp, "equiv.log")
    ok = True
    with open(log, "w") as lf:
        os.dup2(lf.fileno(), 1)
        try:
            for cmd in ["read_verilog -sv " + v, "hierarchy -top e", "proc", "rename e gold",
                        "design -stash gold", "read_verilog -sv " + v, "hierarchy -top e", "proc",
                        "synth -run coarse", "techmap -map +/techmap.v -D LUT_SIZE=6 -map %s"
                        % os.path.join(HW, "yosys", "arith_map_xcup.v"),
                        "select -assert-min 1 t:CARRY8", "select -assert-none t:$alu t:$lcu",
                        "read_verilog -sv " + model, "flatten", "rename e gate",
                        "design -copy-from gold -as gold gold",
                        "equiv_make gold gate equiv", "hierarchy -top equiv", "equiv_simple -undef",
                        "equiv_induct -undef", "equiv_status -assert"]:
                ys.run_pass(cmd, d)
        except Exception as exc:  # a failed assertion or proof
            ok = False
            err = exc
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
    print("levels-selftest: %-4s %-13s %s" % ("ok" if ok else "FAIL", "carry8_equiv",
          "mapped arithmetic proven equal to its RTL" if ok else "%s (see %s)" % (err, log)))
    return ok


def main():
    from pyosys import libyosys as ys
    fail = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, src, want, start, end in CASES:
            v = os.path.join(tmp, name + ".v")
            j = os.path.join(tmp, name + ".json")
            with open(v, "w") as f:
                f.write(src)
            d = ys.Design()
            saved = os.dup(1)
            with open(os.path.join(tmp, name + ".log"), "w") as log:
                os.dup2(log.fileno(), 1)
                try:
                    for cmd in (["read_verilog -sv " + v,
                                 "synth_xilinx -family xcup -top t -noiopad -noclkbuf -flatten -run :fine"]
                                + xcup_fine()
                                + ["synth_xilinx -family xcup -top t -noiopad -noclkbuf -flatten -run map_cells:map_luts"]
                                + xcup_map_luts()
                                + ["synth_xilinx -family xcup -top t -noiopad -noclkbuf -flatten -run finalize:",
                                   "write_json " + j]):
                        ys.run_pass(cmd, d)
                finally:
                    sys.stdout.flush()
                    os.dup2(saved, 1)
            r = subprocess.run([sys.executable, os.path.join(HW, "levels.py"), j, "--top", "t"],
                               capture_output=True, text=True)
            res = json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else {}
            ok = (res.get("levels") is not None and want[0] <= res["levels"] <= want[1] and start in (res.get("start") or "")
                  and (res.get("end") or "").startswith(end))
            fail += not ok
            print("levels-selftest: %-4s %-13s levels %s (want %d..%d), %s -> %s"
                  % ("ok" if ok else "FAIL", name, res.get("levels"), want[0], want[1], res.get("start"), res.get("end")))
        fail += not carry8_equiv(ys, tmp)
    print("levels-selftest: %d cases, %d failed" % (len(CASES) + 1, fail))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
