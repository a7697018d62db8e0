#!/usr/bin/env bash
# The pcap checker must fail on a frame with a wrong ICRC and on a non-RoCE
# frame, and pass the same RoCE frames unmodified: a checker that cannot fail
# would prove nothing about our captures. PAUSE frames (the MACs' link flow
# control) pass; any other MAC Control frame fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/e2e/selftest
mkdir -p "$out"
vectors=$root/tests/vectors/rxe
python3 - "$out" "$vectors/mtu4096_write_bw.pcap" <<'PY'
import sys
from scapy.all import Ether, UDP, raw, rdpcap, wrpcap
out, src = sys.argv[1], sys.argv[2]
frames = rdpcap(src)
# 64 frames are enough to prove each rule (the capture holds thousands)
roce = [p for p in frames if UDP in p and p[UDP].dport == 4791][:64]
other = [p for p in frames if UDP not in p][:1]
wrpcap(out + "/good.pcap", roce)
bad = bytearray(raw(roce[0]))
bad[-10] ^= 0x01
wrpcap(out + "/bad_icrc.pcap", [Ether(bytes(bad))] + roce[1:])
wrpcap(out + "/not_roce.pcap", roce[:3] + other)
def macc(da, op):
    return Ether(bytes.fromhex(da.replace(":", "")) + bytes.fromhex("02000000000a8808")
                 + op.to_bytes(2, "big") + (1024).to_bytes(2, "big") + bytes(42))
wrpcap(out + "/pause.pcap", roce[:3] + [macc("01:80:c2:00:00:01", 1)] + roce[3:6])
wrpcap(out + "/pfc.pcap", roce[:3] + [macc("01:80:c2:00:00:01", 0x0101)])
wrpcap(out + "/pause_da.pcap", roce[:3] + [macc("01:80:c2:00:00:02", 1)])
PY
python3 "$root/tests/e2e/check_pcap.py" "$out/good.pcap"
if python3 "$root/tests/e2e/check_pcap.py" "$out/bad_icrc.pcap"; then echo "checker passed a bad ICRC"; exit 1; fi
if python3 "$root/tests/e2e/check_pcap.py" "$out/not_roce.pcap"; then echo "checker passed a non-RoCE frame"; exit 1; fi
python3 "$root/tests/e2e/check_pcap.py" "$out/pause.pcap" | grep -q "(1 PAUSE)"
if python3 "$root/tests/e2e/check_pcap.py" "$out/pfc.pcap"; then echo "checker passed a PFC frame"; exit 1; fi
if python3 "$root/tests/e2e/check_pcap.py" "$out/pause_da.pcap"; then echo "checker passed a PAUSE to a wrong address"; exit 1; fi
echo "pcap checker self-test: ok"
