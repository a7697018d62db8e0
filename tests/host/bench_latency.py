#!/usr/bin/env python3
"""rnic-bench's write_lat_pingpong row and its cycle breakdown, against the
model it ran on.

Runs one pingpong row briefly (`--quick`, 20 iterations, the 64-bit core,
WQE from host memory: every stage on the path) with a link latency other
than the default, each iteration's breakdown in the JSON, and checks:

- the row verified (every byte each side polled, every completion);
- every iteration's stages add up to its round trip (residual 0), and every
  stage on the pingpong's path is > 0 (host MMIO, host-memory reads and
  writes, link, the NIC's transmit and receive stages) while the ACK and
  CQE stages, beside the path, are 0 in it;
- the link stage is what the link model makes of the frame, computed here
  from the model's parameters in the record and the header sizes of
  docs/formats.toml: beats into the MAC, serialization of frame + FCS +
  preamble + gap at the line rate, the latency, beats into the peer; twice
  per round trip;
- the host MMIO stage is at least the model's BAR latency each way;
- the reported latencies are half the round trips (median, min, max), in ns
  at the record's clock, and the percentiles lie between min and max;
- the NIC's one-way figure is its transmit and receive parts.
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import tomllib

BENCH = "build/bin/rnic-bench"
ROW = "write_lat_pingpong_w64_64B"
LINK_LATENCY = 37
PATH_STAGES = ("host_mmio", "host_mem_read", "host_mem_write", "link", "nic_tx", "nic_rx")
OFF_PATH = ("nic_ack", "nic_cqe")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def consts():
    with open("docs/formats.toml", "rb") as f:
        doc = tomllib.load(f)
    c = {}
    for group in doc["const"]:
        for v in group["values"]:
            c[v[0]] = v[1]
    return c


def link_cycles(c, model, width, msg):
    """One RDMA WRITE ONLY frame of msg bytes (IPv4) through sim/link.c."""
    frame = (c["ETH_HDR_BYTES"] + c["IPV4_HDR_BYTES"] + c["UDP_HDR_BYTES"] + c["BTH_BYTES"] +
             c["RETH_BYTES"] + (msg + 3) // 4 * 4 + c["ICRC_BYTES"])
    frame = max(frame, c["ETH_MIN_FRAME_BYTES"])
    wire = frame + c["ETH_FCS_BYTES"] + c["ETH_PREAMBLE_BYTES"] + c["ETH_IFG_BYTES"]
    beats = -(-frame // (width // 8))
    # the MAC takes the beats, serializes from the last one on (a frame
    # done in cycle d arrives at d + 1 + latency), the peer takes the beats
    return (beats - 1) + (math.ceil(wire / model["link_rate"]) - 1) + 1 + model["link_latency"] + (beats - 1)


def main():
    c = consts()
    with tempfile.TemporaryDirectory() as d:
        jpath = os.path.join(d, "r.json")
        p = subprocess.run([BENCH, "--quick", "--only", ROW, "--per-iteration", "--link-latency",
                            str(LINK_LATENCY), "--json", jpath], capture_output=True, text=True)
        print(p.stdout, end="")
        if p.returncode != 0:
            fail(f"rnic-bench exited {p.returncode}: {p.stderr.strip()}")
        rows = json.load(open(jpath))
    if len(rows) != 1 or rows[0]["name"] != ROW:
        fail(f"want the one row {ROW}, got {[r['name'] for r in rows]}")
    r = rows[0]
    if r.get("verified") is not True or not r.get("pingpong") or not r.get("half_round_trip"):
        fail("the row did not verify, or is no pingpong row")
    m = r["model"]
    if m["link_latency"] != LINK_LATENCY:
        fail(f"--link-latency {LINK_LATENCY} not in force: {m['link_latency']}")
    its = r["per_iteration"]
    if len(its) != r["iterations"] or not its:
        fail(f"{len(its)} iterations in the JSON, {r['iterations']} run")
    one_link = link_cycles(c, m, r["width_bits"], r["msg_bytes"])
    stages = list(r["breakdown_cycles"])
    for k, it in enumerate(its):
        total = sum(it[s] for s in stages)
        if total != it["rtt"] or it["residual"] != 0:
            fail(f"iteration {k}: stages add up to {total}, round trip {it['rtt']} (residual {it['residual']})")
        for s in PATH_STAGES:
            if it[s] <= 0:
                fail(f"iteration {k}: stage {s} is {it[s]}, not > 0")
        for s in OFF_PATH:
            if it[s] != 0:
                fail(f"iteration {k}: {s} is {it[s]}: not on a pingpong's path")
        if it["link"] != 2 * one_link or it["link_oneway"] != one_link:
            fail(f"iteration {k}: link {it['link']} (one way {it['link_oneway']}), the model makes {one_link} "
                 f"each way")
        if it["host_mmio"] < 2 * m["bar_latency"]:
            fail(f"iteration {k}: host MMIO {it['host_mmio']} under twice the BAR latency {m['bar_latency']}")
        if it["oneway_nic"] != it["tx_own"] + it["rx_own"] or it["tx_own"] <= 0 or it["rx_own"] <= 0:
            fail(f"iteration {k}: one-way NIC {it['oneway_nic']} is not tx {it['tx_own']} + rx {it['rx_own']}")
    if r["breakdown_residual_cycles"] != 0:
        fail(f"residual {r['breakdown_residual_cycles']}")
    ns = 1000.0 / r["clock_mhz"]
    rtts = sorted(it["rtt"] for it in its)
    want = {"lat_median_ns": rtts[len(rtts) // 2] / 2 * ns, "lat_min_ns": rtts[0] / 2 * ns,
            "lat_max_ns": rtts[-1] / 2 * ns}
    for key, v in want.items():
        if abs(r[key] - v) > 0.05:
            fail(f"{key} {r[key]}, half the round trips say {v}")
    if r["cycles"] != rtts[len(rtts) // 2] or abs(r["value"] - want["lat_median_ns"]) > 0.05:
        fail(f"cycles {r['cycles']} / value {r['value']} are not the median round trip and its half")
    if not r["lat_min_ns"] <= r["lat_p99_ns"] <= r["lat_p99_9_ns"] <= r["lat_max_ns"]:
        fail("percentiles outside min..max")
    for s in stages:
        med = sorted(it[s] for it in its)
        n = len(med)
        want = med[n // 2] if n % 2 else (med[n // 2 - 1] + med[n // 2]) / 2
        if r["breakdown_cycles"][s] != want:
            fail(f"breakdown {s} {r['breakdown_cycles'][s]} is not the median of the iterations ({want})")
    print(f"ok: {len(its)} iterations, each's stages add up to its round trip; link {one_link} cycles each way "
          f"as the model makes it; half round trip {r['value']} ns")


if __name__ == "__main__":
    main()
