#!/usr/bin/env python3
"""Reads `rnic-sim --replay FILE --frames-json` lines on stdin: fails unless
there is at least one line and every line has verdict ok, icrc_ok true and
the wanted ip_version. PAUSE frames of the MACs' link flow control
(EtherType 0x8808) are counted apart: the receive path rightly calls them
not_roce.

    rnic-sim --replay X.pcap --frames-json | check_frames_json.py --ip-version 6
"""
import argparse
import json
import sys

ETHERTYPE_MAC_CTRL = 0x8808


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ip-version", type=int, choices=(4, 6), required=True)
    args = ap.parse_args()
    n = bad = mac_ctrl = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        f = json.loads(line)
        if f.get("ethertype") == ETHERTYPE_MAC_CTRL and f.get("verdict") == "not_roce":
            mac_ctrl += 1
            continue
        n += 1
        if f.get("verdict") != "ok" or f.get("icrc_ok") is not True or f.get("ip_version") != args.ip_version:
            bad += 1
            if bad <= 10:
                print(f"frame {f.get('frame')}: verdict {f.get('verdict')} icrc_ok {f.get('icrc_ok')} "
                      f"ip_version {f.get('ip_version')} error {f.get('error')}")
    print(f"{'ok' if n and not bad else 'FAIL'}: {n} frames, {bad} not ok IPv{args.ip_version}"
          + (f" ({mac_ctrl} PAUSE frames apart)" if mac_ctrl else ""))
    return 0 if n and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
