#!/usr/bin/env python3
"""hw/levels.py on netlists with a known answer (make test).

Maps small circuits with synth_xilinx (pinned pyosys) and checks the
deepest flop-to-flop path levels.py finds, with its start and end:
  - a 64-input XOR between two registers: three levels of LUT6 at best,
    four as ABC9 maps it for area; anything else is a counting error;
  - the same XOR behind a block-RAM read: the RAM ends one path and starts
    the next, so the count does not run through it;
  - a 32-bit adder: a LUT and a chain of eight CARRY4 cells (one level
    each): nine.
"""
import json
import os
import subprocess
import sys
import tempfile

HW = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

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
endmodule""", (9, 9), "_reg", "s"),
]


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
                    for cmd in ["read_verilog " + v,
                                "synth_xilinx -family xcup -top t -noiopad -noclkbuf -flatten",
                                "write_json " + j]:
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
    print("levels-selftest: %d cases, %d failed" % (len(CASES), fail))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
