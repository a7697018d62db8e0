#!/usr/bin/env python3
"""make hw-report's ECP5 place and route, end to end on a small block (make test).

Maps rnic_evt_queue (a few hundred LUT4s) with synth_ecp5 as hw/synth_run.py
does for the core, places and routes it with the pinned nextpnr-ecp5 the way
hw/report.py does (its own working folder, relative paths: the WebAssembly
build sees nothing else) and checks what the report takes from nextpnr:
  - an fmax for `clk`, above 50 MHz and below the part's 400 MHz global
    clock limit;
  - the utilisation: some TRELLIS_COMB and TRELLIS_FF used, none over the
    part; and a packing of the same netlist alone (--pack-only, what the
    report runs first on the whole core) the same counts;
  - the critical path condensed to one line per signal, running totals
    rising, the last at or under the period the fmax gives;
  - hw/report.py's reading of a netlist larger than the part (a packing
    log's figures, written here) names the resource that does not fit.
"""
import os
import re
import subprocess
import sys
import tempfile

HW = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HW)
import report  # noqa: E402

fails = 0


def check(ok, what):
    global fails
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    fails += 0 if ok else 1


def main():
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([sys.executable, os.path.join(HW, "synth_run.py"), "--target", "ecp5", "--out", tmp,
                            "--top", "rnic_evt_queue"], capture_output=True, text=True)
        check(r.returncode == 0 and os.path.exists(os.path.join(tmp, "ecp5.json")), "synth_ecp5 of rnic_evt_queue")
        if r.returncode:
            print(r.stdout[-3000:] + r.stderr[-3000:])
            return 1
        run = {"speed": 8, "target_mhz": 125}
        fmax, crit, util, rc, text = report.nextpnr(run, tmp, timeout=600)
        check(rc == 0, "nextpnr exited %d" % rc)
        check(fmax is not None and 50 < fmax < 400, "fmax for clk: %s MHz" % fmax)
        comb, ff = util.get("TRELLIS_COMB", (0, 0)), util.get("TRELLIS_FF", (0, 0))
        check(comb[0] > 0 and ff[0] > 0 and all(u <= a for u, a in util.values()),
              "utilisation: TRELLIS_COMB %s, TRELLIS_FF %s" % (comb, ff))
        _, _, putil, prc, _ = report.nextpnr(run, tmp, tag="pack", extra=["--pack-only"], timeout=600)
        check(prc == 0 and putil.get("TRELLIS_COMB") == comb and putil.get("TRELLIS_FF") == ff,
              "--pack-only: the same packing (%s, %s)" % (putil.get("TRELLIS_COMB"), putil.get("TRELLIS_FF")))
        totals = [float(l.split()[0]) for l in crit]
        check(len(crit) >= 2 and all(re.match(r"\s*\d+\.\d\d ns  \S", l) for l in crit),
              "critical path condensed: %d lines" % len(crit))
        check(totals == sorted(totals) and fmax and totals[-1] <= 1000.0 / fmax + 0.01,
              "running totals rise, the last %.2f ns <= %.2f ns" % (totals[-1] if totals else -1,
                                                                 1000.0 / fmax if fmax else -1))
        for l in crit:
            print("     " + l)
    big = ("Info: Device utilisation:\nInfo: \t          DP16KD:     165/    208    79%\n"
           "Info: \t      TRELLIS_FF:   59899/  83640    71%\nInfo: \t    TRELLIS_COMB:  105245/  83640   125%\n")
    u = report.parse_nextpnr(big)[2]
    over = report.over_part(u)
    check(u.get("TRELLIS_COMB") == (105245, 83640) and over == ["TRELLIS_COMB 105,245 of 83,640"],
          "a packing over the part: %s" % over)
    print("pnr selftest: %d failed" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
