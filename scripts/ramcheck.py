#!/usr/bin/env python3
"""Check that every large table of rnic_core can be a RAM on an FPGA.

yosys elaborates rnic_core at its default sizes (1024 QPs, 4096 MRs, 1024
CQs, 16384 MTT entries) and infers its memories without mapping them
(`memory -nomap`). A memory of at least --min-entries entries must have
exactly one write port: block RAM and distributed RAM have one write port
per copy, and a table with two writers in a cycle would be turned into
flip-flops (at 1024 QPs, hundreds of thousands of them). Read ports are
free to multiply: each one is a copy of the RAM. A memory that yosys had
to turn into registers ("Replacing memory ... with list of registers") is
a failure too, when it is that large.

Prints one line per large memory (entries, width, read ports and whether
they are registered, write ports) and the total bits; exits 1 on a failure.
  ramcheck.py [--min-entries N] [--top MODULE] [--keep-log FILE]
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rtl_files():
    pkgs = ["rtl/rnic_pkg.sv", "rtl/rnic_hdr_pkg.sv", "rtl/rnic_icrc_pkg.sv"]
    mods = sorted(f for f in glob.glob("rtl/*.sv") if f not in pkgs)
    pico = subprocess.run(["bash", "scripts/picorv32-path.sh"], check=True,
                          capture_output=True, text=True).stdout.strip()
    return pkgs + mods + [pico]


def param(body, name):
    m = re.search(r"parameter \\%s (\S+)" % name, body)
    if not m:
        return 0
    v = m.group(1)
    if "'" in v:
        return int(v.split("'")[1], 2)
    return int(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-entries", type=int, default=256)
    ap.add_argument("--top", default="rnic_core")
    ap.add_argument("--keep-log")
    args = ap.parse_args()
    os.chdir(ROOT)
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "mem.il")
        log = args.keep_log or os.path.join(tmp, "yosys.log")
        script = ("read_verilog -defer -sv %s; hierarchy -top %s; proc; opt -fast; "
                  "memory -nomap; opt_clean; tee -q -o %s dump t:$mem_v2"
                  % (" ".join(rtl_files()), args.top, dump))
        r = subprocess.run(["yosys", "-q", "-l", log, "-p", script],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print("ramcheck: FAIL yosys exited %d (log: %s)" % (r.returncode, log))
            sys.stdout.write(r.stdout[-2000:] + r.stderr[-2000:])
            return 1
        text = open(dump).read()
        logtext = open(log).read()

    fail = 0
    total = 0
    rows = []
    for m in re.finditer(r"cell \$mem_v2 \S+\n(.*?)\n\s*end", text, re.S):
        body = m.group(1)
        size, width = param(body, "SIZE"), param(body, "WIDTH")
        rd, wr = param(body, "RD_PORTS"), param(body, "WR_PORTS")
        if size < args.min_entries:
            continue
        sync = bin(param(body, "RD_CLK_ENABLE")).count("1")
        memid = re.search(r"parameter \\MEMID \"(.*?)\"", body).group(1).lstrip("\\")
        total += size * width
        ok = wr == 1
        fail |= not ok
        rows.append((memid, size, width, rd, sync, wr, ok))
    for memid, size, width, rd, sync, wr, ok in sorted(rows):
        print("ramcheck: %-4s %-18s %6d x %-4d  read ports %2d (%d registered)  write ports %d"
              % ("ok" if ok else "FAIL", memid, size, width, rd, sync, wr))
    # yosys gives up on a memory it cannot infer: it becomes registers
    names = sorted(set(re.findall(r"Replacing memory \\(\S+) with list of registers", logtext)))
    for name in names:
        decl = None
        for f in glob.glob("rtl/*.sv"):
            for line in open(f):
                if re.search(r"\b%s\s*\[" % re.escape(name), line) and "logic" in line:
                    decl = line.strip()
                    break
        print("ramcheck: note %s became registers (%s)" % (name, decl or "declaration not found"))
        big = decl and re.search(r"NUM_QPS|NUM_CQS|2\s*\*\*\s*QPN_WIDTH", decl)
        if big:
            print("ramcheck: FAIL %s is a per-QP/per-CQ table" % name)
            fail = 1
    if not rows:
        print("ramcheck: FAIL no memory of %d entries or more found" % args.min_entries)
        return 1
    print("ramcheck: %d memories of %d+ entries, %d bits, %s"
          % (len(rows), args.min_entries, total,
             "each with one write port" if not fail else "FAILED"))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
