#!/usr/bin/env bash
# rnic-sim smoke test: --help, bad options, a replay of a small pcap into
# NIC 0 with capture and FST on; the JSON report parses and counts the frames.
#   tests/sim/rnic_sim_smoke.sh BIN [--width 64|512]
set -euo pipefail
bin=$1; shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" --help | grep -- --replay >/dev/null
if "$bin" --width 100 2>/dev/null; then echo "bad width accepted"; exit 1; fi
if "$bin" --drop 2 2>/dev/null; then echo "bad probability accepted"; exit 1; fi
python3 - "$tmp/in.pcap" <<'PY'
import struct, sys
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    for i, n in enumerate((60, 200, 1000)):
        frame = bytes([2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x88, 0xb5]) + bytes((i + k) & 255 for k in range(n - 14))
        f.write(struct.pack("<IIII", 0, i, n, n) + frame)
PY
"$bin" "$@" --replay "$tmp/in.pcap" --cycles 500 --pcap "$tmp/out.pcap" --fst "$tmp/w.fst" >"$tmp/out.json"
python3 - "$tmp/out.json" "$tmp/out.pcap" <<'PY'
import json, struct, sys
r = json.load(open(sys.argv[1]))
assert r["replayed"] == 3, r
assert r["nics"][0]["port"]["rx_injected"] == 3, r
assert r["nics"][0]["port"]["rx_frames"] == 3, r
assert r["cycles"] >= 516, r
data = open(sys.argv[2], "rb").read()
assert struct.unpack("<I", data[:4])[0] == 0xa1b23c4d, "not a ns pcap"
off, n = 24, 0
while off < len(data):
    caplen = struct.unpack("<I", data[off + 8:off + 12])[0]
    off += 16 + caplen
    n += 1
assert n == 3, n
print("rnic-sim smoke: ok, %d cycles" % r["cycles"])
PY
test -s "$tmp/w.nic0.fst"
