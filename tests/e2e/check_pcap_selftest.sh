#!/usr/bin/env bash
# The pcap checker must fail on a frame with a wrong ICRC and on a non-RoCE
# frame, and pass the same RoCE frames unmodified: a checker that cannot fail
# would prove nothing about our captures.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/build/e2e/selftest
mkdir -p "$out"
vectors=$root/../shared/vectors/rxe
python3 - "$out" "$vectors/mtu4096_write_bw.pcap" <<'PY'
import sys
from scapy.all import Ether, UDP, raw, rdpcap, wrpcap
out, src = sys.argv[1], sys.argv[2]
frames = rdpcap(src)
roce = [p for p in frames if UDP in p and p[UDP].dport == 4791]
other = [p for p in frames if UDP not in p][:1]
wrpcap(out + "/good.pcap", roce)
bad = bytearray(raw(roce[0]))
bad[-10] ^= 0x01
wrpcap(out + "/bad_icrc.pcap", [Ether(bytes(bad))] + roce[1:])
wrpcap(out + "/not_roce.pcap", roce[:3] + other)
PY
python3 "$root/tests/e2e/check_pcap.py" "$out/good.pcap"
if python3 "$root/tests/e2e/check_pcap.py" "$out/bad_icrc.pcap"; then echo "checker passed a bad ICRC"; exit 1; fi
if python3 "$root/tests/e2e/check_pcap.py" "$out/not_roce.pcap"; then echo "checker passed a non-RoCE frame"; exit 1; fi
echo "pcap checker self-test: ok"
