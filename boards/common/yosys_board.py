#!/usr/bin/env python3
"""A board top through the pinned yosys (pyosys), its vendor IP as black
boxes (boards/<board>/rtl/ip_blackbox.v, boards/common/gen_blackbox.py).

  yosys_board.py --board au250|kcu105            elaborate: every module
        resolved, the board top's and the glue's ports connected as
        declared, no latch, no `check` problem (small tables: 16 QPs, MRs,
        CQs, 64 MTT pages); seconds. The boards/yosys test.
  yosys_board.py --board B --synth --out DIR     synth_xilinx of the whole
        board top (UltraScale+ for the U250, UltraScale for the KCU105),
        the same small tables; writes DIR/cells.json and DIR/yosys.log.
        Minutes; a run of make hw-report (hw/board_runs.json).
Prints one summary line; exit 1 on any problem.
"""
import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = ROOT   # the tree whose rtl/ and boards/ are read (--root)
FAMILY = {"au250": "xcup", "kcu105": "xcu"}
SMALL = {"QPN_WIDTH": 4, "MR_INDEX_WIDTH": 4, "CQN_WIDTH": 4, "MTT_INDEX_WIDTH": 6}


def sources(board):
    rtl = os.path.join(SRC, "rtl")
    pkgs = [os.path.join(rtl, p) for p in ("rnic_pkg.sv", "rnic_hdr_pkg.sv", "rnic_icrc_pkg.sv", "rnic_gates_pkg.sv")]
    mods = sorted(f for f in glob.glob(os.path.join(rtl, "*.sv")) if f not in pkgs)
    pico = subprocess.run(["bash", os.path.join(ROOT, "scripts/picorv32-path.sh")],
                          check=True, capture_output=True, text=True).stdout.strip()
    tops = sorted(glob.glob(os.path.join(SRC, "boards", board, "rtl", "*.sv")))
    return pkgs + mods + [pico] + tops


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--board", required=True, choices=sorted(FAMILY))
    ap.add_argument("--synth", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--root", help="read rtl/ and boards/ of this copy of the tree")
    args = ap.parse_args()
    global SRC
    SRC = os.path.abspath(args.root) if args.root else ROOT
    top = "rnic_" + args.board
    out = args.out or os.path.join(ROOT, "build", "boards-yosys", args.board)
    os.makedirs(out, exist_ok=True)

    from pyosys import libyosys as ys
    d = ys.Design()
    log = os.path.join(out, "yosys.log")
    ys.log_to_stream = None
    ys.run_pass("logger -notime", d)
    ys.run_pass("tee -q -o %s log yosys_board %s" % (log, top), d)

    def run(cmd):
        ys.run_pass("tee -q -a %s %s" % (log, cmd), d)

    t0 = time.time()
    bb = os.path.join(SRC, "boards", args.board, "rtl", "ip_blackbox.v")
    run("read_verilog -lib " + bb)
    # the UltraScale primitives the tops use (buffers of the GT reference
    # clock), known before the parameterized instances are elaborated
    # (synth_xilinx reads them again, replacing these black boxes)
    run("read_verilog -lib -specify +/xilinx/cells_sim.v +/xilinx/cells_xtra.v")
    run("read_verilog -defer -sv -DSYNTHESIS " + " ".join(sources(args.board)))
    run("hierarchy -check -top %s " % top + " ".join("-chparam %s %d" % kv for kv in SMALL.items()))
    if args.synth:
        # as hw/synth_run.py: synth_xilinx's memory mapping with the corrected
        # LUT-RAM library (hw/yosys/lutrams_xcu.txt says why; the stock one
        # stops at "invalid OPTION_ABITS/WIDTH combination")
        fam = FAMILY[args.board]
        synth = "synth_xilinx -family %s -top %s%s" % (fam, top, " -uram" if fam == "xcup" else "")
        run("%s -run :map_memory" % synth)
        run("memory_libmap -logic-cost-rom 0.015625 -lib %s -lib +/xilinx/brams_xc4v.txt "
            "-D HAS_SIZE_36 -D HAS_MIXWIDTH_SDP -D HAS_ADDRCE%s"
            % (os.path.join(ROOT, "hw", "yosys", "lutrams_xcu.txt"),
               " -lib +/xilinx/urams.txt" if fam == "xcup" else ""))
        run("techmap -map +/xilinx/lutrams_xc5v_map.v")
        run("techmap -map +/xilinx/brams_xcu_map.v")
        if fam == "xcup":
            run("techmap -map +/xilinx/urams_map.v")
        run("%s -run map_ffram:" % synth)
        run("check -assert")
    else:
        run("proc")
        run("opt_clean")
        run("check -assert")
    mods = [m for m in d.modules_.values()
            if not m.get_bool_attribute(ys.IdString("\\blackbox"))]
    cells = collections.Counter()
    for m in mods:
        for c in m.cells_.values():
            cells[c.type.str().lstrip("\\")] += 1
    latches = sum(n for t, n in cells.items() if "dlatch" in t.lower() or t in ("LDCE", "LDPE"))
    ips = sorted(t for t in cells if t.startswith("rnic_") and t in open(bb).read())
    if latches:
        print("yosys_board %s: FAIL: %d latches" % (args.board, latches))
        return 1
    with open(os.path.join(out, "cells.json"), "w") as f:
        json.dump(dict(cells), f, indent=1, sort_keys=True)
    what = "synth_xilinx -family %s" % FAMILY[args.board] if args.synth else "elaborated"
    total = sum(cells.values())
    extra = ""
    if args.synth:
        luts = sum(n for t, n in cells.items() if t.startswith("LUT"))
        ffs = sum(n for t, n in cells.items() if t in ("FDRE", "FDSE", "FDCE", "FDPE"))
        brams = sum(n for t, n in cells.items() if t.startswith("RAMB"))
        extra = ", %d LUTs, %d flip-flops, %d block RAMs" % (luts, ffs, brams)
    print("yosys_board %s: %s (%s), no problem, no latch: %d modules, %d cells%s; black boxes: %s; %.0f s; log %s"
          % (args.board, top, what, len(mods), total, extra, ", ".join(ips) or "none", time.time() - t0,
             os.path.relpath(log, ROOT)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
