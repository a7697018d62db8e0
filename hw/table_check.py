#!/usr/bin/env python3
"""The quick form of make hw-report's table budget (make test, a few minutes).

  table_check.py [--width 512] [--qpn-width 10] [--min-entries 256]

yosys (pinned pyosys) elaborates rnic_core with the given sizes, infers its
memories and lets memory_libmap choose, as synth_xilinx does for
UltraScale+ (with hw/yosys/lutrams_xcu.txt), what each becomes: block RAM,
URAM, LUT RAM or, when nothing fits, flip-flops. Every memory of
--min-entries entries or more must become block RAM or URAM, except those
named in hw/tables-in-logic.txt (the tables still read combinationally,
each with the reason; the list may only shrink: a listed table that now
maps to block RAM is a failure too, so the list is kept true). Each of
those memories must also have exactly one write port (a block RAM or LUT
RAM has one per copy; two writers in a cycle make flip-flops), and a
per-QP or per-CQ table that yosys could not infer as a memory at all
("Replacing memory ... with list of registers") fails too. The same run
checks the elaboration: `check -assert` (no multiple drivers, undriven
bits or logic loops) and no latch inferred.
Prints one line per large memory; exits 1 on a failure.
"""
import argparse
import os
import sys
import time

HW = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HW)
sys.path.insert(0, HW)
from synth_run import (rtl_files, short, memories, mapped_memories, prefer_block_ram, table_name,  # noqa: E402
                       tables_in_registers)


def allowed():
    """module.memory -> reason, from hw/tables-in-logic.txt."""
    out = {}
    with open(os.path.join(HW, "tables-in-logic.txt")) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                name, _, why = line.partition(" ")
                out[name] = why.strip()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--qpn-width", type=int, default=10)
    ap.add_argument("--min-entries", type=int, default=256)
    args = ap.parse_args()
    scale = args.qpn_width - 10
    params = {"DATA_WIDTH": args.width, "QPN_WIDTH": args.qpn_width, "CQN_WIDTH": 10 + scale,
              "MR_INDEX_WIDTH": 12 + scale, "MTT_INDEX_WIDTH": 14 + scale}
    from pyosys import libyosys as ys
    d = ys.Design()
    t0 = time.time()
    logpath = os.path.join(ROOT, "build", "hw", "table-check-w%d-q%d.log" % (args.width, args.qpn_width))
    os.makedirs(os.path.dirname(logpath), exist_ok=True)
    # yosys writes its log to stdout: send it to the log file
    saved = os.dup(1)
    logf = open(logpath, "w")
    os.dup2(logf.fileno(), 1)
    try:
        # -defer: elaborated once, with these parameters
        for cmd in ["read_verilog -defer -sv -DSYNTHESIS " + " ".join(rtl_files(os.path.join(ROOT, "rtl"))),
                    "hierarchy -check -top rnic_core " + " ".join("-chparam %s %d" % kv for kv in params.items()),
                    "proc", "opt -fast", "memory -nomap", "opt_clean",
                    # no multiple drivers, no undriven bit, no logic loop
                    "check -assert"]:
            ys.run_pass(cmd, d)
        mems = {}
        for m, _, f in memories(ys, d):
            mems[(m.name.str().lstrip("\\"), f["name"])] = (
                "%s.%s" % (short(m.name.str()), f["name"]), f["entries"], f["width"],
                f["rd_ports"], f["rd_registered"], f["wr_ports"])
        prefer_block_ram(ys, d, args.min_entries)
        ys.run_pass("memory_libmap -logic-cost-rom 0.015625 -lib %s -lib +/xilinx/brams_xc4v.txt "
                    "-D HAS_SIZE_36 -D HAS_MIXWIDTH_SDP -D HAS_ADDRCE -lib +/xilinx/urams.txt"
                    % os.path.join(HW, "yosys", "lutrams_xcu.txt"), d)
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        logf.close()
    log = open(logpath).read()
    became = {k: "+".join(sorted(v)) for k, v in mapped_memories(log).items()}
    ok_list = allowed()
    fail = 0
    seen = set()
    rows = []
    # a table of columns is checked as one table, its width the sum of theirs
    tables = {}
    for k, (key, size, width, rd, rdreg, wr) in mems.items():
        t = tables.setdefault((k[0], table_name(k[1])), [table_name(key), size, 0, rd, rdreg, set(), 0])
        t[2] += width
        t[5].add(became.get(k, "ff"))
        t[6] = max(t[6], wr)
    for key, size, width, rd, rdreg, kinds, wr in tables.values():
        if size < args.min_entries:
            continue
        kind = "+".join(sorted(kinds))
        seen.add(key)
        if wr != 1:
            # a block RAM (or a LUT RAM) has one write port per copy; two
            # writers in a cycle make a dual-port RAM at best, flip-flops at worst
            bad, verdict = True, "FAIL (%d write ports: a table has one)" % wr
        elif kind in ("bram", "uram"):
            bad = key in ok_list
            verdict = "FAIL (listed in hw/tables-in-logic.txt, but now %s: take it off the list)" % kind if bad else "ok"
        else:
            bad = key not in ok_list
            verdict = "FAIL (not in hw/tables-in-logic.txt)" if bad else "known: %s" % ok_list[key]
        fail += bad
        rows.append("table-check: %-34s %6d x %-4d read ports %d (%d registered)  %-6s %s"
                    % (key, size, width, rd, rdreg, kind, verdict))
    for r in sorted(rows):
        print(r)
    for key in sorted(set(ok_list) - seen):
        # a listed table the design no longer has (or that got smaller)
        print("table-check: %-34s FAIL listed in hw/tables-in-logic.txt but not a %d+ entry memory any more"
              % (key, args.min_entries))
        fail += 1
    # yosys gives up on a memory it cannot infer: it becomes registers
    for name, decl, per_qp in tables_in_registers(log, os.path.join(ROOT, "rtl")):
        if per_qp:
            print("table-check: FAIL %s, a per-QP/per-CQ table, became registers (%s)" % (name, decl))
            fail += 1
    # proc reports every latch it infers (also one opt_clean then drops)
    latches = log.count("Latch inferred")
    if latches:
        print("table-check: FAIL %d latches inferred (log: %s)" % (latches, logpath))
        fail += 1
    big = sum(1 for r in rows)
    inlogic = sum(1 for r in rows if " lutram " in r or " ff " in r)
    print("table-check: DATA_WIDTH %d, %d QPs: %d memories of %d+ entries, %d in block RAM/URAM, %d in logic "
          "(%d listed); %s (%.0f s)" % (args.width, 2 ** args.qpn_width, big, args.min_entries, big - inlogic,
                                       inlogic, len(ok_list), "FAIL" if fail else "ok", time.time() - t0))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
