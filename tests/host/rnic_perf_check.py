#!/usr/bin/env python3
"""rnic-perf --sim TEST [ARGS...]: the output must be perftest's result table
(the header line and columns as ib_write_bw / ib_write_lat print them), every
number must parse and make sense (BW within the link rate, message rate and
BW agree, t_min <= t_typical <= t_max, percentiles ordered), the --json rows
must be the table's rows, and the run must exit 0. With --mw N the header
must name the window's type and the test's one right.

  rnic_perf_check.py TEST [--rows N] [-- extra rnic-perf arguments]
"""
import json
import os
import subprocess
import sys
import tempfile

BIN = "build/bin/rnic-perf"
LINE = "-" * 87
BW_HDR = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
LAT_HDR = (" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
           "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ")
TITLES = {"write_bw": "RDMA_Write BW Test", "write_lat": "RDMA_Write Latency Test",
          "read_bw": "RDMA_Read BW Test", "read_lat": "RDMA_Read Latency Test",
          "send_bw": "Send BW Test", "send_lat": "Send Latency Test",
          "atomic_bw": "Atomic FETCH_AND_ADD BW Test"}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        i = args.index("--")
        args, extra = args[:i], args[i + 1:]
    test = args[0]
    want_rows = int(args[args.index("--rows") + 1]) if "--rows" in args else 1
    bw = test.endswith("_bw")
    with tempfile.TemporaryDirectory() as d:
        jpath = os.path.join(d, "perf.json")
        p = subprocess.run([BIN, test, "--sim", "--json", jpath] + extra, capture_output=True, text=True)
        sys.stdout.write(p.stdout)
        if p.returncode != 0:
            fail("exit status %d: %s" % (p.returncode, p.stderr[-2000:]))
        rows_json = json.load(open(jpath))
    lines = p.stdout.rstrip("\n").split("\n")
    if lines[0] != LINE or lines[-1] != LINE:
        fail("the table does not open and close with perftest's result line")
    if lines[1].strip() != TITLES[test]:
        fail("title %r" % lines[1])
    hdr = BW_HDR if bw else LAT_HDR
    if hdr not in lines:
        fail("no perftest header line %r" % hdr)
    h = lines.index(hdr)
    if lines[h - 1] != LINE:
        fail("no result line above the header")
    body = lines[h + 1:-1]
    if len(body) != want_rows:
        fail("%d result rows, want %d" % (len(body), want_rows))
    link = None
    for line in lines:
        if "Link type" in line and "Gb/s" in line:
            link = float(line.split("(")[1].split()[0]) * 1e9 / 8 / 1048576  # MB/s (2^20 B)
    if link is None:
        fail("no link rate in the header")
    if "--mw" in extra:
        right = {"read_bw": "REMOTE_READ", "read_lat": "REMOTE_READ", "atomic_bw": "REMOTE_ATOMIC"}.get(
            test, "REMOTE_WRITE")
        want = (" Memory window   : type %s per QP over the responder's slots, %s only; its MR grants no "
                "remote access" % (extra[extra.index("--mw") + 1], right))
        if want not in lines:
            fail("no window line %r" % want)
    if len(rows_json) != len(body):
        fail("%d JSON rows for %d table rows" % (len(rows_json), len(body)))
    prev = 0
    for line, js in zip(body, rows_json):
        cols = line.split()
        if len(cols) != (5 if bw else 9):
            fail("row %r: %d columns" % (line, len(cols)))
        try:
            size, iters = int(cols[0]), int(cols[1])
            vals = [float(c) for c in cols[2:]]
        except ValueError:
            fail("row %r: a number does not parse" % line)
        if size <= prev or iters < 1:
            fail("row %r: size or iterations wrong" % line)
        prev = size
        if js.get("verified") is not True or js["bytes"] != size or js["iterations"] != iters:
            fail("JSON row %r does not match %r" % (js, line))
        if bw:
            peak, avg, rate = vals
            if not (0 < avg <= link and avg <= peak * 1.0001 and peak <= link * 1.0001):
                fail("row %r: BW outside 0 < avg <= peak <= link (%.2f MB/s)" % (line, link))
            if abs(avg * 1048576 / size / 1e6 - rate) > 0.01 * rate + 1e-6:
                fail("row %r: message rate and BW disagree" % line)
            if abs(js["bw_avg_mb_per_sec"] - avg) > 0.01 or abs(js["bw_peak_mb_per_sec"] - peak) > 0.01:
                fail("JSON row %r does not match %r" % (js, line))
        else:
            tmin, tmax, ttyp, tavg, tstd, p99, p999 = vals
            if not (0 < tmin <= ttyp <= tmax and tmin <= tavg <= tmax and tmin <= p99 <= p999 <= tmax
                    and tstd >= 0):
                fail("row %r: latencies out of order" % line)
            # at least the wire time of the request and its answer: a few frames of header
            if tmin < 0.2:
                fail("row %r: faster than the link allows" % line)
            if abs(js["t_typical_usec"] - ttyp) > 0.01 or abs(js["t_min_usec"] - tmin) > 0.01:
                fail("JSON row %r does not match %r" % (js, line))
    print("rnic-perf --sim %s: %d row(s) in perftest's format, link %.2f MB/s" % (test, len(body), link))


main()
