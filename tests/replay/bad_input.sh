#!/usr/bin/env bash
# rnic-sim --frames-json on input it cannot replay: a non-Ethernet capture,
# a file that is no capture, a missing file, a capture cut in the middle of
# a frame, options that do not belong, and frames that cannot finish within
# the cycle bound. Each must end with a clear message and a non-zero exit,
# never a hang and never a JSON line for a frame it did not simulate.
#   tests/replay/bad_input.sh BIN
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# expect STATUS PATTERN CMD...: exit status STATUS, stderr matching PATTERN
expect() {
  local want=$1 pat=$2 rc=0; shift 2
  timeout 60 "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [ "$rc" = "$want" ] || fail "$* exited $rc, want $want; stderr: $(cat "$tmp/err")"
  grep -q -- "$pat" "$tmp/err" || fail "$*: stderr lacks '$pat': $(cat "$tmp/err")"
}

python3 - "$tmp" <<'PY'
import struct, sys
d = sys.argv[1]
ip = bytes.fromhex("4500001c00004000401100000a0000010a000002") + bytes(8)
def pcap(path, linktype, frames, cut=0):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, linktype))
        data = b""
        for i, fr in enumerate(frames):
            data += struct.pack("<IIII", 1, i, len(fr), len(fr)) + fr
        f.write(data[:len(data) - cut])
eth = bytes(6) + bytes([2, 0, 0, 0, 0, 1]) + b"\x08\x00" + ip + bytes(26)
pcap(d + "/raw_ip.pcap", 101, [ip, ip])              # LINKTYPE_RAW
pcap(d + "/sll.pcap", 113, [bytes(16) + ip])         # Linux cooked capture
pcap(d + "/cut.pcap", 1, [eth, eth, eth], cut=10)    # last record cut short
pcap(d + "/eth.pcap", 1, [eth, eth + bytes(3000)])
with open(d + "/junk.pcap", "wb") as f:
    f.write(b"this is not a capture file at all\n" * 4)
PY

expect 1 "is not Ethernet" "$bin" --replay "$tmp/raw_ip.pcap" --frames-json
[ ! -s "$tmp/out" ] || fail "JSON printed for a non-Ethernet capture"
expect 1 "is not Ethernet" "$bin" --replay "$tmp/sll.pcap" --frames-json --width 512
expect 1 "cannot read" "$bin" --replay "$tmp/junk.pcap" --frames-json
[ ! -s "$tmp/out" ] || fail "JSON printed for a file that is not a capture"
expect 1 "cannot read" "$bin" --replay "$tmp/no-such-file.pcap" --frames-json

# a truncated capture: the whole frames are reported, then the read error
expect 1 "read error after 2 frames" "$bin" --replay "$tmp/cut.pcap" --frames-json
[ "$(wc -l <"$tmp/out")" = 2 ] || fail "cut capture: want 2 lines, got $(wc -l <"$tmp/out")"

# options of a world, or none of the capture
expect 2 "needs --replay" "$bin" --frames-json
expect 2 "does not apply to --frames-json" "$bin" --replay "$tmp/eth.pcap" --frames-json --nics 3
expect 2 "does not apply to --frames-json" "$bin" --replay "$tmp/eth.pcap" --frames-json --pcap "$tmp/x.pcap"
expect 2 "applies to --frames-json only" "$bin" --replay "$tmp/eth.pcap" --frame-timeout 10
expect 2 "bad value for --frame-timeout" "$bin" --replay "$tmp/eth.pcap" --frames-json --frame-timeout 0

# the cycle bound: 5 cycles are too few for any frame; every frame gets an
# error line, the run goes on after each (the probe is reset) and fails
expect 1 "errors 2" "$bin" --replay "$tmp/eth.pcap" --frames-json --frame-timeout 5
[ "$(grep -c '"error": "no verdict within 5 cycles' "$tmp/out")" = 2 ] || fail "timeouts not reported: $(cat "$tmp/out")"
# and with a sane bound the same frames get their verdicts (IPv4 checksum 0: wrong)
expect 0 "errors 0" "$bin" --replay "$tmp/eth.pcap" --frames-json
python3 - "$tmp/out" <<'PY'
import json, sys
lines = [json.loads(s) for s in open(sys.argv[1])]
assert [l["verdict"] for l in lines] == ["bad_ip_csum", "bad_ip_csum"], lines
assert all("error" not in l for l in lines), lines
PY
echo "rnic-sim --frames-json bad input: ok"
