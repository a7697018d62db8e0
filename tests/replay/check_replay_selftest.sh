#!/usr/bin/env bash
# check_replay.py must fail when the program's lines are wrong: it runs the
# real rnic-sim through a wrapper that spoils one thing in its output (a PSN,
# a verdict, icrc_ok, a payload length, a header length, a missing line, the
# exit status), and must pass the unspoiled output. A checker that cannot
# fail would prove nothing about the RTL.
#   tests/replay/check_replay_selftest.sh BIN
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pcap=$root/tests/vectors/rxe/mtu4096_read_bw.pcap

cat >"$tmp/wrap" <<EOF
#!/usr/bin/env python3
import json, os, subprocess, sys
r = subprocess.run(["$bin"] + sys.argv[1:], capture_output=True, text=True)
lines = [json.loads(s) for s in r.stdout.splitlines()]
how = os.environ.get("SPOIL", "")
ok = [l for l in lines if l["verdict"] == "ok"]
big = [l for l in ok if l["payload_len"] > 0]
rc = r.returncode
if how == "psn": ok[3]["psn"] = (ok[3]["psn"] + 1) % (1 << 24)
if how == "verdict": ok[5]["verdict"] = "bad_icrc"
if how == "icrc": ok[7]["icrc_ok"] = False
if how == "payload": big[1]["payload_len"] -= 4
if how == "reth": ok[0]["hdr_len"]["reth"] = 0
if how == "aeth": big[0]["aeth"]["msn"] += 1
if how == "drop": lines.pop(10)
if how == "extra": lines[0]["opcode"] = 4
if how == "status": rc = 1
for l in lines:
    print(json.dumps(l))
sys.stderr.write(r.stderr)
sys.exit(rc)
EOF
chmod +x "$tmp/wrap"

SPOIL= python3 "$root/tests/replay/check_replay.py" --bin "$tmp/wrap" "$pcap" >"$tmp/log" ||
  { cat "$tmp/log"; echo "FAIL: the checker rejects the unspoiled output"; exit 1; }
for how in psn verdict icrc payload reth aeth drop extra status; do
  if SPOIL=$how python3 "$root/tests/replay/check_replay.py" --bin "$tmp/wrap" "$pcap" >"$tmp/log"; then
    cat "$tmp/log"; echo "FAIL: the checker passed output with a spoiled $how"; exit 1
  fi
  echo "spoiled $how: $(grep -m1 -E 'frame [0-9]+:|exit status|lines for' "$tmp/log" | xargs)"
done
echo "check_replay self-test: ok"
