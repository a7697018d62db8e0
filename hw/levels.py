#!/usr/bin/env python3
"""The deepest flop-to-flop path of a mapped, flattened netlist, in logic levels.

  levels.py NETLIST.json [--family xilinx|ecp5] [--top rnic_core] [--paths N] [--through]
            [--by-block L] [--by-register L]

Reads yosys `write_json` of a mapped design. Logic cells (LUTs, wide-function
multiplexers, carry chains, inverters) are one level each; every other cell
(flip-flops, LUT RAM, block RAM, URAM, DSP, shift registers) and the top
module's ports end a path. For every path end it takes the deepest chain of
logic cells into its data, enable and reset inputs; prints the deepest N
ends with the register (or port) the chain starts from, and as JSON on the
last line: {"levels": L, "start": ..., "end": ..., "histogram": {...}}.
--through also lists, for each path shown, the named signals it passes
through (where synthesis kept a name), which is where to cut it.
--by-block L prints, per top-level block (the instance the path end is in),
its deepest path end and how many path ends are deeper than L levels.
--by-register L does the same per register (a bus counted once per bit;
cells synthesis left unnamed counted together per block), the 40 with the
most ends deeper than L, each with its deepest path's start and the named
signals it passes through: where a cut pays most.

yosys' `ltp -noff` knows only its internal flip-flop cells, not FDRE/FDSE or
RAM cells, so it cannot measure this netlist; this is the same longest-path
count with the mapped cells as path ends.
"""
import argparse
import collections
import json
import re
import sys

LOGIC = {
    "xilinx": re.compile(r"^(LUT[1-6]|MUXF[789]|CARRY[48]|MUXCY|XORCY|INV)$"),
    "ecp5": re.compile(r"^(LUT4|LUT5|PFUMX|L6MUX21|CCU2C|INV)$"),
}
CLOCK_PINS = {"C", "CLK", "CLKA", "CLKB", "CLKARDCLK", "CLKBWRCLK", "WCLK", "CLKI", "CLKW", "CLKR"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("netlist")
    ap.add_argument("--family", default="xilinx", choices=sorted(LOGIC))
    ap.add_argument("--top", default="rnic_core")
    ap.add_argument("--paths", type=int, default=10)
    ap.add_argument("--through", action="store_true", help="name the signals along each path shown")
    ap.add_argument("--by-block", type=int, metavar="L",
                    help="per top-level block: the deepest end and the ends deeper than L levels")
    ap.add_argument("--by-register", type=int, metavar="L",
                    help="per register: the ends deeper than L levels, the 40 with the most")
    args = ap.parse_args()
    logic = LOGIC[args.family]
    with open(args.netlist) as f:
        mod = json.load(f)["modules"][args.top]

    # a readable name for a signal bit: the shortest visible net name
    bitname = {}
    for name, n in mod["netnames"].items():
        if n.get("hide_name"):
            continue
        for i, b in enumerate(n["bits"]):
            if isinstance(b, str):
                continue
            label = name if len(n["bits"]) == 1 else "%s[%d]" % (name, i)
            if b not in bitname or len(label) < len(bitname[b]):
                bitname[b] = label

    driver = {}    # bit -> logic cell name that drives it
    source = {}    # bit -> the path end (register, RAM, ...) that drives it
    cells = mod["cells"]
    ends = []      # (label, [input bits])
    for cname, c in cells.items():
        dirs = c.get("port_directions", {})
        if logic.match(c["type"]):
            for port, bits in c["connections"].items():
                if dirs.get(port) == "output":
                    for b in bits:
                        if not isinstance(b, str):
                            driver[b] = cname
        else:
            ins = [b for port, bits in c["connections"].items()
                   if dirs.get(port) == "input" and port not in CLOCK_PINS
                   for b in bits if not isinstance(b, str)]
            outs = [b for port, bits in c["connections"].items()
                    if dirs.get(port) == "output" for b in bits if not isinstance(b, str)]
            label = "%s (%s)" % (bitname.get(outs[0], cname) if outs else cname, c["type"])
            ends.append((label, ins))
            for b in outs:
                source[b] = "%s (%s)" % (bitname.get(b, cname), c["type"])
    for pname, p in mod["ports"].items():
        if p["direction"] == "output":
            ends.append(("output port %s" % pname, [b for b in p["bits"] if not isinstance(b, str)]))

    # depth of every logic cell: 1 + the deepest logic cell feeding it
    depth = {}
    via = {}       # logic cell -> the input bit on its deepest path
    for start in cells:
        if start in depth or not logic.match(cells[start]["type"]):
            continue
        stack = [start]
        onstack = set()
        while stack:
            cname = stack[-1]
            if cname in depth:
                stack.pop()
                continue
            c = cells[cname]
            dirs = c.get("port_directions", {})
            ins = [b for port, bits in c["connections"].items()
                   if dirs.get(port) == "input" for b in bits if not isinstance(b, str)]
            pending = [driver[b] for b in ins if b in driver and driver[b] not in depth]
            if pending:
                if cname in onstack:
                    print("levels: combinational loop through %s" % cname, file=sys.stderr)
                    return 2
                onstack.add(cname)
                stack.extend(pending)
                continue
            best, bbit = 0, None
            for b in ins:
                d = depth[driver[b]] if b in driver else 0
                if d > best or bbit is None:
                    best, bbit = d, b
            depth[cname] = best + 1
            via[cname] = bbit
            onstack.discard(cname)
            stack.pop()

    def trace(bit):
        """The start of the deepest chain ending at bit: its name."""
        while bit in driver:
            bit = via[driver[bit]]
        return source.get(bit) or bitname.get(bit, "bit %s" % bit)

    def through(bit):
        """The named signals along the deepest chain ending at bit, last first."""
        names = []
        while bit in driver:
            if bit in bitname and not bitname[bit].startswith("$"):
                names.append(bitname[bit])
            bit = via[driver[bit]]
        return names

    results = []
    hist = collections.Counter()
    for label, ins in ends:
        best, bbit = 0, None
        for b in ins:
            d = depth[driver[b]] if b in driver else 0
            if d > best:
                best, bbit = d, b
        hist[best] += 1
        results.append((best, label, bbit))
    results.sort(key=lambda r: -r[0])
    # the deepest path into each register (bus), not each of its bits
    shown = set()
    for lv, label, bbit in results:
        if len(shown) >= args.paths or lv == 0:
            break
        bus = re.sub(r"\[\d+\]", "", label)
        if bus in shown:
            continue
        shown.add(bus)
        print("levels: %2d  %s  <-  %s" % (lv, label, trace(bbit) if bbit is not None else "-"))
        if args.through and bbit is not None:
            for name in through(bbit):
                print("            via %s" % name)
    if args.by_block is not None:
        blocks = {}
        for lv, label, _ in results:
            # "$flatten\\resp_inst.$auto..." and "resp_inst.state_reg" are in resp_inst
            m = re.match(r"^(?:\$flatten\\)?([A-Za-z_][A-Za-z0-9_]*)\.", label)
            blk = m.group(1) if m else "(top)"
            deep, over = blocks.get(blk, (0, 0))
            blocks[blk] = (max(deep, lv), over + (lv > args.by_block))
        print("levels: %-28s %7s %9s" % ("block", "deepest", "ends > %d" % args.by_block))
        for blk, (deep, over) in sorted(blocks.items(), key=lambda kv: (-kv[1][1], -kv[1][0])):
            if over:
                print("levels: %-28s %7d %9d" % (blk, deep, over))
    if args.by_register is not None:
        regs = {}
        for lv, label, bbit in results:
            if lv <= args.by_register:
                continue
            reg = re.sub(r"\[\d+\]", "", label)
            reg = re.sub(r"^\$flatten\\([A-Za-z0-9_.\\]*?)\.?\$auto\$.*( \(\w+\))$", r"\1.(unnamed)\2", reg)
            n, deep, dbit = regs.get(reg, (0, 0, None))
            regs[reg] = (n + 1, max(deep, lv), bbit if lv > deep else dbit)
        print("levels: %-60s %5s %7s" % ("register", "ends", "deepest"))
        for reg, (n, deep, dbit) in sorted(regs.items(), key=lambda kv: -kv[1][0])[:40]:
            print("levels: %-60s %5d %7d  <-  %s" % (reg, n, deep, trace(dbit)))
            print("            via %s" % ", ".join(through(dbit)[:8]))
    top = results[0] if results else (0, "-", None)
    print(json.dumps({
        "levels": top[0],
        "end": top[1],
        "start": trace(top[2]) if top[2] is not None else None,
        "histogram": {str(k): v for k, v in sorted(hist.items())},
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
