#!/usr/bin/env python3
"""One synthesis run of rnic_core with the pinned native yosys (pyosys).

  synth_run.py --target xcup|ecp5 --out DIR [--set NAME=VALUE ...] [--top MODULE]

Reads the RTL and the control processor's core, sets rnic_core's parameters
and maps it for the target, keeping the hierarchy so that every top-level
block can be counted on its own:
  xcup   synth_xilinx -family xcup -uram (AMD UltraScale+), out of context
  ecp5   synth_ecp5 (Lattice ECP5), out of context; writes DIR/ecp5.json for
         nextpnr, flattened (--noflatten: hierarchical, each block placed
         and routed on its own with nextpnr --top)
Writes into DIR:
  memories.json  every memory yosys inferred (before mapping): module, name,
                 entries, width, read ports (and how many registered), write
                 ports
  blocks.json    cell counts per cell type: the whole core, each instance in
                 rnic_core (its subtree) and rnic_core's own glue
  mapped.json    the mapped netlist, flattened (for levels.py)
  yosys.log      the whole log (memory_libmap's "mapping memory X via Y"
                 lines say what each memory became)
Run by hw/report.py, one process per run (a run holds the whole netlist).
--top maps one block instead of rnic_core (its parameters set with --set),
for working on that block's logic depth in minutes rather than the whole
core's half hour: `hw/levels.py DIR/mapped.json --top MODULE` then counts
its levels, with the block's ports as path ends.
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rtl_files(rtl):
    pkgs = [os.path.join(rtl, p) for p in ("rnic_pkg.sv", "rnic_hdr_pkg.sv", "rnic_icrc_pkg.sv", "rnic_gates_pkg.sv")]
    mods = sorted(f for f in glob.glob(os.path.join(rtl, "*.sv")) if f not in pkgs)
    pico = subprocess.run(["bash", os.path.join(ROOT, "scripts/picorv32-path.sh")],
                          check=True, capture_output=True, text=True).stdout.strip()
    return pkgs + mods + [pico]


def const_int(c):
    """An RTLIL parameter (Const) as an int."""
    s = c.as_string()
    return int(s, 2) if s else 0


def short(modname):
    """$paramod$<hash>\\rnic_ram_1w1r -> rnic_ram_1w1r (the RTL's name)."""
    name = modname.lstrip("\\")
    if name.startswith("$paramod"):
        # $paramod$<hash>\name or $paramod\name\PARAM=value...
        name = name.split("\\")[1]
    return name


def classify(cell):
    """What a memory_libmap cell name means on the fabric."""
    c = cell.upper()
    if "URAM" in c:
        return "uram"
    if "BLOCKRAM" in c or "DP16K" in c or "PDPW16K" in c:
        return "bram"
    if "LUTRAM" in c or "DPR16X4" in c or "TRELLIS_DPR" in c:
        return "lutram"
    return cell


def table_name(memory):
    """The table a memory belongs to: rnic_ram_1w1r builds a table of
    block-RAM columns (g_col[N].mem), counted as one table."""
    return re.sub(r"g_col\[\d+\]\.", "", memory)


def mapped_memories(log):
    """memory_libmap's choices in a yosys log: {(module, memory): {kind, ...}};
    a memory missing here was turned into flip-flops."""
    became = {}
    # the module name has no dot; the memory's may (a generate scope)
    for m in re.finditer(r"^mapping memory ([^\s.]+)\.(\S+) via (\S+)", log, re.M):
        became.setdefault((m.group(1), m.group(2)), set()).add(classify(m.group(3)))
    return became


def memories(ys, design):
    """Every inferred memory ($mem_v2 cell) of the design: (module, cell,
    facts), facts a dict of entries, width, read ports, registered read
    ports, write ports and the memory's name."""
    for m in design.modules_.values():
        for c in m.cells_.values():
            if c.type.str() != "$mem_v2":
                continue
            p = c.parameters
            yield m, c, {
                "name": p[ys.IdString("\\MEMID")].decode_string().lstrip("\\"),
                "entries": const_int(p[ys.IdString("\\SIZE")]),
                "width": const_int(p[ys.IdString("\\WIDTH")]),
                "rd_ports": const_int(p[ys.IdString("\\RD_PORTS")]),
                "rd_registered": bin(const_int(p[ys.IdString("\\RD_CLK_ENABLE")])).count("1"),
                "wr_ports": const_int(p[ys.IdString("\\WR_PORTS")]),
            }


def tables_in_registers(log, rtl):
    """The memories yosys could not infer and turned into flip-flops
    ("Replacing memory ... with list of registers" in its log), as
    (name, declaration, per_qp): per_qp when the declaration sizes it by
    the QP or CQ count, a table that must never be registers."""
    for name in sorted(set(re.findall(r"Replacing memory \\(\S+) with list of registers", log))):
        decl = None
        for f in sorted(glob.glob(os.path.join(rtl, "*.sv"))):
            for line in open(f):
                if re.search(r"\b%s\s*\[" % re.escape(name), line) and "logic" in line:
                    decl = line.strip()
                    break
            if decl:
                break
        per_qp = bool(decl and re.search(r"NUM_QPS|NUM_CQS|2\s*\*\*\s*QPN_WIDTH", decl))
        yield name, decl, per_qp


def block_ram_capable(f):
    """One write port and only registered reads: a block RAM can hold it."""
    return f["rd_ports"] > 0 and f["rd_registered"] == f["rd_ports"] and f["wr_ports"] == 1


def prefer_block_ram(ys, design, min_entries=256):
    """Give every memory of min_entries+ entries that block RAM can hold
    the attribute ram_style = "block" (a board build sets the same
    RAM_STYLE in Vivado): memory_libmap's cost model would put narrow
    tables of 1K entries into LUT RAM, whose cost grows with the QP count.
    A memory with a combinational read port cannot be block RAM and is left
    to the cost model. Returns how many memories were marked."""
    n = 0
    for _, c, f in memories(ys, design):
        if f["entries"] >= min_entries and block_ram_capable(f):
            c.set_string_attribute(ys.IdString("\\ram_style"), "block")
            n += 1
    return n


def ecp5_block_ram_plan(ys, design, budget):
    """ECP5: its LUT RAM (TRELLIS_DPR16X4, 16 x 4 bits, about 7 LUT4 each
    with its read logic) is dear, its block RAM (DP16KD, up to 512 x 36)
    plentiful at small table sizes. Mark memories with registered reads for
    block RAM, most LUTs saved per block first, while the estimated block
    count stays within budget (tables of 256+ entries are counted first:
    they go to block RAM anyway). Returns (marked, estimated blocks)."""
    import math
    cands = []
    used = 0
    for _, c, f in memories(ys, design):
        e, w, rd = f["entries"], f["width"], f["rd_ports"]
        blocks = max(1, rd) * (math.ceil(w / 36) if e <= 512 else math.ceil(e * w / 16384))
        if e >= 256:
            used += blocks
        elif e >= 16 and block_ram_capable(f):
            luts = rd * math.ceil(e / 16) * math.ceil(w / 4) * 7
            cands.append((luts / blocks, blocks, c))
    n = 0
    for _, blocks, c in sorted(cands, key=lambda t: -t[0]):
        if used + blocks > budget:
            continue
        c.set_string_attribute(ys.IdString("\\ram_style"), "block")
        used += blocks
        n += 1
    return n, used


def xcup_fine():
    """synth_xilinx's `fine` step for UltraScale+ with the carry logic on
    CARRY8, the part's carry cell (hw/yosys/arith_map_xcup.v says why), and
    CARRY8 a timing box for the LUT mapper (hw/yosys/carry8_box.v); the
    caller runs synth_xilinx up to `fine` and from `map_cells` on."""
    return ["read_verilog -lib -specify -overwrite %s" % os.path.join(ROOT, "hw", "yosys", "carry8_box.v"),
            "opt -full",
            "xilinx_srl -variable -minlen 3",
            "techmap -map +/techmap.v -D LUT_SIZE=6 -map %s" % os.path.join(ROOT, "hw", "yosys", "arith_map_xcup.v"),
            "opt -fast"]


def xcup_map_luts():
    """synth_xilinx's `map_luts` step (abc9 with -W 300, its wire delay)
    with a LUT library of one delay for every input, so that the mapper
    minimises logic levels (hw/yosys/lut6_levels.lut says why)."""
    return ["opt_expr -mux_undef -noclkinv",
            "read_verilog -icells -lib -specify +/xilinx/abc9_model.v",
            "abc9 -W 300 -lut %s" % os.path.join(ROOT, "hw", "yosys", "lut6_levels.lut"),
            "clean",
            "xilinx_srl -fixed -minlen 3",
            "techmap -map +/xilinx/lut_map.v -map +/xilinx/cells_map.v -D LUT_WIDTH=6",
            "xilinx_dffopt",
            "opt_lut_ins -tech xilinx"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", choices=["xcup", "ecp5"], required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--rtl", help="the RTL folder (default: the tree's rtl/)")
    ap.add_argument("--top", default="rnic_core", help="the module to map (default: rnic_core)")
    ap.add_argument("--noflatten", action="store_true",
                    help="ecp5: keep the hierarchy in ecp5.json (each block placed and routed on its own)")
    ap.add_argument("--block-ram-budget", type=int, default=0,
                    help="ecp5: move small tables into block RAM up to this many DP16KD (0: none)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    from pyosys import libyosys as ys
    d = ys.Design()

    def run(cmd):
        ys.run_pass(cmd, d)

    def is_lib(m):
        return any(m.get_bool_attribute(ys.IdString(a)) for a in ("\\blackbox", "\\whitebox"))

    def design_modules():
        """The design's own modules (not the cell library's)."""
        return [m for m in d.modules_.values() if not is_lib(m)]

    t0 = time.time()
    # -defer: elaborated once, with the parameters given (a plain read would
    # elaborate every module with its defaults first)
    run("read_verilog -defer -sv -DSYNTHESIS " + " ".join(rtl_files(args.rtl or os.path.join(ROOT, "rtl"))))
    run("hierarchy -top %s " % args.top
        + " ".join("-chparam %s %s" % tuple(s.split("=", 1)) for s in args.set or []))
    if args.target == "xcup":
        synth = "synth_xilinx -family xcup -uram -top %s -noiopad -noclkbuf" % args.top
        split = "map_memory"
    else:
        # flattened (synth_ecp5's default): kept apart, the blocks lose the
        # optimisations across their ports, 16,000 LUT4 (20%) at 16 QPs, and
        # the core must fit the part; so no per-block figures on ECP5, but
        # for --noflatten, whose blocks are placed and routed one by one
        synth = "synth_ecp5 -top %s%s" % (args.top, " -noflatten" if args.noflatten else "")
        split = "map_ram"
    run("%s -run :%s" % (synth, split))

    # every memory, as inferred (after memory -nomap, before mapping)
    mems = [dict(module=short(m.name.str()), module_full=m.name.str().lstrip("\\"), **f)
            for m, _, f in memories(ys, d)]
    with open(os.path.join(args.out, "memories.json"), "w") as f:
        json.dump(mems, f, indent=1)

    print("synth_run: %d memories of 256+ entries marked for block RAM" % prefer_block_ram(ys, d))
    if args.target == "ecp5" and args.block_ram_budget:
        print("synth_run: ecp5: %d smaller memories marked for block RAM, about %d DP16KD in all"
              % ecp5_block_ram_plan(ys, d, args.block_ram_budget))
    if args.target == "xcup":
        # synth_xilinx's map_memory step, with the corrected LUT-RAM
        # library (hw/yosys/lutrams_xcu.txt says why)
        run("memory_libmap -logic-cost-rom 0.015625 -lib %s -lib +/xilinx/brams_xc4v.txt "
            "-D HAS_SIZE_36 -D HAS_MIXWIDTH_SDP -D HAS_ADDRCE -lib +/xilinx/urams.txt"
            % os.path.join(ROOT, "hw", "yosys", "lutrams_xcu.txt"))
        run("techmap -map +/xilinx/lutrams_xc5v_map.v")
        run("techmap -map +/xilinx/brams_xcu_map.v")
        run("techmap -map +/xilinx/urams_map.v")
        run("%s -run map_ffram:fine" % synth)
        for cmd in xcup_fine():
            run(cmd)
        run("%s -run map_cells:map_luts" % synth)
        for cmd in xcup_map_luts():
            run(cmd)
        run("%s -run finalize:" % synth)
    else:
        run("%s -run %s:" % (synth, split))
    if args.target == "ecp5":
        run("write_json " + os.path.join(args.out, "ecp5.json"))

    # cell counts: per module (own cells), then per instance of rnic_core
    own = {}
    insts = {}
    names = {m.name.str() for m in design_modules()}
    for m in design_modules():
        cnt = collections.Counter()
        sub = []
        for c in m.cells_.values():
            t = c.type.str()
            if c.type.str() in names:
                sub.append((c.name.str().lstrip("\\"), t))
            else:
                cnt[t.lstrip("\\")] += 1
        own[m.name.str()] = cnt
        insts[m.name.str()] = sub

    memo = {}

    def total(mod):
        if mod not in memo:
            c = collections.Counter(own[mod])
            for _, t in insts[mod]:
                c.update(total(t))
            memo[mod] = c
        return memo[mod]

    top = "\\" + args.top
    blocks = {"total": dict(total(top)), "glue": dict(own[top]), "blocks": {}}
    for name, t in sorted(insts[top]):
        blocks["blocks"][name] = {"module": short(t), "module_full": t.lstrip("\\"), "cells": dict(total(t))}
    with open(os.path.join(args.out, "blocks.json"), "w") as f:
        json.dump(blocks, f, indent=1)

    run("flatten")
    run("write_json " + os.path.join(args.out, "mapped.json"))
    print("synth_run: %s done in %.0f s" % (args.target, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
