#!/usr/bin/env python3
"""Build the ICRC test vectors for tests/rtl/rnic_icrc/tb.sv.

Frames come from the Linux rxe captures in tests/vectors/rxe (Ethernet
frames without FCS, ICRC in the last 4 bytes) plus an IPv6 RoCEv2 frame built
with scapy (scapy.contrib.roce computes its ICRC). Every frame is checked here
against a reference model of the ICRC (IBTA Annex A17, as rxe_icrc.c does it)
before it is written. Variants: frames with changed variant fields (the ICRC
still holds) and corrupted frames (it must not).

Output (read with $readmemh):
  vectors_data.hex   all frame bytes, one per line, frames back to back
  vectors_index.hex  per frame one 64-bit word {flags[15:0], len[15:0], offset[31:0]}
                     flags bit 0: ICRC good; bit 1: use for the inserter
                     (frame minus its last 4 bytes must come back unchanged)

Usage: python3 tests/rtl/rnic_icrc/gen_vectors.py [pcap dir]
"""
import glob
import os
import sys
import zlib

from scapy.all import rdpcap, Ether, IPv6, UDP, Raw
from scapy.contrib.roce import BTH

HERE = os.path.dirname(os.path.abspath(__file__))
PCAP_DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "vectors", "rxe")


def icrc_mask(frame):
    """Frame with the Ethernet header dropped and the variant fields set to ones."""
    b = bytearray(frame)
    et = (b[12] << 8) | b[13]
    if et == 0x0800:
        for i in (15, 22, 24, 25, 40, 41, 46):
            b[i] = 0xFF
    elif et == 0x86DD:
        b[14] |= 0x0F
        for i in (15, 16, 17, 21, 60, 61, 66):
            b[i] = 0xFF
    else:
        raise ValueError("not IP")
    return bytes(b[14:])


def icrc(frame_no_icrc):
    """ICRC bytes as carried on the wire (rxe: *icrcp = ~crc, little endian)."""
    crc = zlib.crc32(b"\xff" * 8 + icrc_mask(frame_no_icrc))
    return crc.to_bytes(4, "little")


def is_roce(b):
    et = (b[12] << 8) | b[13]
    if et == 0x0800:
        return b[23] == 17 and (b[36] << 8 | b[37]) == 4791
    if et == 0x86DD:
        return b[20] == 17 and (b[56] << 8 | b[57]) == 4791
    return False


def main():
    frames = []  # (bytes, good, insert)
    seen_op = {}
    big = 0
    for path in sorted(glob.glob(os.path.join(PCAP_DIR, "*.pcap"))):
        for p in rdpcap(path):
            b = bytes(p)
            if not is_roce(b):
                continue
            assert icrc(b[:-4]) == b[-4:], f"{path}: rxe ICRC does not match the model"
            key = (b[42], len(b))
            if key in seen_op or (len(b) > 1024 and big >= 3):
                continue
            seen_op[key] = 1
            big += len(b) > 1024
            frames.append((b, True, True))
    # IPv6 RoCEv2, ICRC from scapy
    for plen, fl in ((0, 0x12345), (1, 0xABCDE), (13, 0x00001), (200, 0xFFFFF), (1027, 0x5A5A5)):
        pay = bytes((i * 7 + 3) & 0xFF for i in range(plen))
        pad = (-plen) % 4
        pkt = (Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01") /
               IPv6(src="fd00::1", dst="fd00::2", tc=0x68, fl=fl, hlim=17) /
               UDP(sport=0xC123, dport=4791, chksum=0x1234) /
               BTH(opcode=4, padcount=pad, dqpn=0x000011, psn=0x123456 + plen, ackreq=1) /
               Raw(pay + b"\0" * pad))
        b = bytes(pkt)
        assert icrc(b[:-4]) == b[-4:], "scapy IPv6 ICRC does not match the model"
        frames.append((b, True, True))
    # variant fields changed: ICRC still good
    base4 = next(f for f, _, _ in frames if f[12:14] == b"\x08\x00" and 100 < len(f) < 400)
    v = bytearray(base4)
    for i in (15, 22, 24, 25, 40, 41, 46):
        v[i] ^= 0x5A
    frames.append((bytes(v), True, False))
    base6 = next(f for f, _, _ in frames if f[12:14] == b"\x86\xdd" and 100 < len(f) < 400)
    v = bytearray(base6)
    v[14] ^= 0x0F
    for i in (15, 16, 17, 21, 60, 61, 66):
        v[i] ^= 0xA5
    frames.append((bytes(v), True, False))
    # corrupted: invariant fields and payload
    for base, idx in ((base4, 14), (base4, 23), (base4, 45), (base4, 47), (base4, len(base4) - 5),
                      (base4, len(base4) - 1), (base6, 14), (base6, 18), (base6, 65), (base6, 67)):
        v = bytearray(base)
        v[idx] ^= 0x10 if idx == 14 else 0x01
        frames.append((bytes(v), False, False))
    for f, good, _ in frames:
        assert (icrc(f[:-4]) == f[-4:]) == good

    with open(os.path.join(HERE, "vectors_data.hex"), "w") as fd, \
         open(os.path.join(HERE, "vectors_index.hex"), "w") as fi:
        off = 0
        for f, good, ins in frames:
            for x in f:
                fd.write(f"{x:02x}\n")
            flags = (1 if good else 0) | (2 if ins else 0)
            fi.write(f"{flags:04x}{len(f):04x}{off:08x}\n")
            off += len(f)
    print(f"{len(frames)} frames, {off} bytes")


if __name__ == "__main__":
    main()
