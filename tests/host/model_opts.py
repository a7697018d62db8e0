#!/usr/bin/env python3
"""The host and link model's options (--mem-bw, --mem-latency, --link-latency)
of rnic-perf --sim, rnic-bench and rnic-demo: each --help lists them, bad
values exit 2 with a message naming the option, rnic-perf --sim's WRITE
goodput with --mem-bw 8 is well below the default's (a host of 8 B/cycle,
16 Gb/s, under a 100 Gb/s link), and every rnic-bench record says which
model it assumed, with the options' values.
"""
import json
import os
import subprocess
import sys
import tempfile

PERF, BENCH, DEMO = "build/bin/rnic-perf", "build/bin/rnic-bench", "build/bin/rnic-demo"
OPTS = ("--mem-bw", "--mem-latency", "--link-latency")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def perf_write_bw(d, extra):
    jpath = os.path.join(d, "perf.json")
    p = run([PERF, "write_bw", "--sim", "-s", "65536", "-n", "16", "--json", jpath] + extra)
    if p.returncode != 0:
        fail("rnic-perf %s: exit %d: %s" % (" ".join(extra), p.returncode, p.stderr[-2000:]))
    return json.load(open(jpath))[0]["bw_avg_mb_per_sec"]


def main():
    for prog, pre in ((PERF, ["write_bw", "--sim"]), (BENCH, []), (DEMO, [])):
        h = run([prog, "--help"])
        for o in OPTS:
            if o not in h.stdout:
                fail("%s --help does not list %s" % (prog, o))
        for o, bad in (("--mem-bw", "0"), ("--mem-bw", "-2"), ("--mem-bw", "fast"),
                       ("--mem-latency", "0"), ("--mem-latency", "1.5"), ("--link-latency", "-1")):
            p = run([prog] + pre + [o, bad])
            if p.returncode != 2 or (o + ": '" + bad + "'") not in p.stderr:
                fail("%s %s %s: exit %d, stderr %r (want 2 and a message naming the option)"
                     % (prog, o, bad, p.returncode, p.stderr[-300:]))
    print("--help lists the options; bad values refused with exit 2")

    with tempfile.TemporaryDirectory() as d:
        dflt = perf_write_bw(d, [])
        slow = perf_write_bw(d, ["--mem-bw", "8"])
        print("rnic-perf write_bw --sim 64 KiB: %.1f MB/s by default, %.1f MB/s with --mem-bw 8" % (dflt, slow))
        # 8 B/cycle at 250 MHz is 1907 MB/s (2^20 B) at most
        if not (slow < 0.5 * dflt and slow <= 8 * 250e6 / 2**20):
            fail("--mem-bw 8 does not slow the WRITE down")

        jpath = os.path.join(d, "bench.json")
        p = run([BENCH, "--quick", "--only", "write_bw_w64_64B", "--json", jpath,
                 "--mem-latency", "300", "--link-latency", "7", "--mem-bw", "6.5"])
        if p.returncode != 0:
            fail("rnic-bench: exit %d: %s" % (p.returncode, p.stderr[-2000:]))
        rows = json.load(open(jpath))
        if len(rows) != 1:
            fail("rnic-bench: %d rows" % len(rows))
        r = rows[0]
        want = {"mem_rd_bw": 6.5, "mem_wr_bw": 6.5, "mem_rd_latency": 300, "mem_wr_latency": 150,
                "mem_max_rd": 32, "link_latency": 7, "link_rate": 5}
        got = {k: r["model"].get(k) for k in want}
        if got != want:
            fail("rnic-bench record's model %r, want %r" % (r["model"], want))
        if not (0 < r["wire_limit_fraction"] <= 1.0 and r["wire_fraction"] < r["wire_limit_fraction"]):
            fail("rnic-bench wire_limit_fraction %r (wire_fraction %r)" % (r["wire_limit_fraction"],
                                                                           r["wire_fraction"]))
        if "w64 model: host memory 6.5 B/cycle" not in p.stdout:
            fail("rnic-bench does not print the model it runs: %r" % p.stdout[:400])
        print("rnic-bench records the model: %r" % r["model"])


if __name__ == "__main__":
    main()
