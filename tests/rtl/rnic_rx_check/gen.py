#!/usr/bin/env python3
"""Vectors for tests/rtl/rnic_rx_check/tb.sv.

Good frames: the RoCEv2 frames of the Linux rxe captures in
tests/vectors/rxe (one per opcode and size), IPv6 RoCEv2 frames made
with scapy (ICRC by scapy.contrib.roce), and a zero-length SEND ONLY that the
MAC padded to the 60-byte minimum. Bad frames, each with the one status the
checker must report: corrupted ICRC or payload byte (bad_icrc), wrong IPv4
header checksum (bad_ip_csum), UDP port other than 4791 (bad_udp_port), ARP,
ICMP, TCP, IPv4 fragments, IPv4 with options, IPv6 not UDP (not_roce),
truncated frames, frames longer than their IP length, wrong UDP length, a MAC
error (malformed). Every label is also checked against a reference
classifier here.

Output in build/vectors/rnic_rx_check/:
  data.hex   frame bytes, one per line, frames back to back
  index.hex  per frame {flags[15:0], len[15:0], offset[31:0]}
             flags[2:0] expected status (0 good, 1 not_roce, 2 bad_udp_port,
             3 bad_ip_csum, 4 bad_icrc, 5 malformed); flags[3] MAC error
             (tuser) on the frame's last beat
"""
import glob
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rnic_pkt_tx"))
import roce_vec as rv  # noqa: E402

from scapy.all import rdpcap, Ether, ARP, IP, IPv6, UDP, TCP, ICMP, Raw  # noqa: E402
from scapy.layers.inet import IPOption_NOP  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

P = rv.PKG
GOOD, NOT_ROCE, BAD_PORT, BAD_CSUM, BAD_ICRC, MALFORMED = range(6)
PCAP_DIR = rv.RXE_DIR


def csum16(b):
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def classify(b, mac_err=False):
    """Reference model of the checker, same order of checks."""
    n = len(b)
    if mac_err or n < 14:
        return MALFORMED
    et = struct.unpack("!H", b[12:14])[0]
    v4, v6 = et == 0x0800, et == 0x86DD
    if not (v4 or v6):
        return NOT_ROCE
    if n < (54 if v6 else 34):
        return MALFORMED
    if v6:
        if b[14] >> 4 != 6 or b[20] != 17:
            return NOT_ROCE
        iplen = struct.unpack("!H", b[18:20])[0]
        total, udp_exp, l4 = iplen + 40, iplen, 54
    else:
        frag = struct.unpack("!H", b[20:22])[0] & 0x3FFF
        if b[14] != 0x45 or frag or b[23] != 17:
            return NOT_ROCE
        if csum16(b[14:34]) != 0xFFFF:
            return BAD_CSUM
        total = struct.unpack("!H", b[16:18])[0]
        udp_exp, l4 = total - 20, 34
    if n < l4 + 8:
        return MALFORMED
    if struct.unpack("!H", b[l4 + 2:l4 + 4])[0] != P["ROCEV2_UDP_PORT"]:
        return BAD_PORT
    udp_len = struct.unpack("!H", b[l4 + 4:l4 + 6])[0]
    len_ok = n == total + 14 or (n == 60 and total + 14 < 60)
    udp_ok = udp_len == udp_exp and udp_len >= 8 + 12 + 4 and (v6 or total >= 20)
    if not (len_ok and udp_ok):
        return MALFORMED
    end = total + 14
    if rv.icrc_model(b[:end - 4]) != b[end - 4:end]:
        return BAD_ICRC
    return GOOD


def fix_v4_csum(b):
    b = bytearray(b)
    b[24:26] = b"\0\0"
    b[24:26] = struct.pack("!H", 0xFFFF - csum16(bytes(b[14:34])))
    return bytes(b)


def eth():
    return Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01")


def roce6(op, plen, fl=0x12345):
    pay = bytes((i * 13 + 7) & 0xFF for i in range(plen))
    pad = (-plen) % 4
    return bytes(Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01") /
                 IPv6(src="fd00::1", dst="fd00::2", tc=0x68, fl=fl, hlim=17) /
                 UDP(sport=0xC123, dport=P["ROCEV2_UDP_PORT"], chksum=0) /
                 BTH(opcode=op, padcount=pad, dqpn=0x11, psn=0x123456, ackreq=1) /
                 Raw(pay + b"\0" * pad))


def roce4(op, plen):
    pay = bytes((i * 5 + 1) & 0xFF for i in range(plen))
    pad = (-plen) % 4
    return bytes(Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01") /
                 IP(src="10.0.0.1", dst="10.0.0.2", id=0, flags="DF", ttl=64) /
                 UDP(sport=0xC001, dport=P["ROCEV2_UDP_PORT"], chksum=0) /
                 BTH(opcode=op, padcount=pad, dqpn=0x22, psn=0x10) /
                 Raw(pay + b"\0" * pad))


def main():
    frames = []  # (bytes, label, mac_err)

    def add(b, label, mac_err=False):
        got = classify(b, mac_err)
        assert got == label, f"label {label} but the model says {got} (len {len(b)})"
        frames.append((bytes(b), label, mac_err))

    seen = set()
    big = 0
    other = 0
    for path in sorted(glob.glob(os.path.join(PCAP_DIR, "*.pcap"))):
        for p in rdpcap(path):
            b = bytes(p)
            lab = classify(b)
            if lab == GOOD:
                key = (b[42], len(b))
                if key in seen or (len(b) > 1024 and big >= 4):
                    continue
                seen.add(key)
                big += len(b) > 1024
                add(b, GOOD)
            elif other < 12:
                other += 1
                add(b, lab)   # TCP, ICMPv6 etc. of the capture: model label
    good4 = [f for f, lab, _ in frames if lab == GOOD]
    assert len(good4) >= 10, "rxe captures not found"
    v6 = [roce6(4, n, 0x12345 + n) for n in (0, 1, 13, 200, 1027)] + \
         [roce6(P["OP_ACKNOWLEDGE"], 0)]
    for b in v6:
        add(b, GOOD)
    # zero-length SEND ONLY (58 bytes) padded by the MAC to 60
    b = roce4(P["OP_SEND_ONLY"], 0)
    assert len(b) == 58
    add(b + b"\0\0", GOOD)
    add(b + b"\xa5\x5a", GOOD)
    add(b, GOOD)

    base4 = next(f for f in good4 if 100 < len(f) < 400)
    base6 = v6[3]
    ack4 = next(f for f in good4 if f[42] == P["OP_ACKNOWLEDGE"])

    def mut(b, i, x):
        b = bytearray(b)
        b[i] ^= x
        return bytes(b)

    # ICRC
    for base in (base4, base6, ack4):
        add(mut(base, len(base) - 1, 0x80), BAD_ICRC)
        add(mut(base, len(base) - 4, 0x01), BAD_ICRC)
        add(mut(base, len(base) - 6, 0x10), BAD_ICRC)
    add(mut(base6, 66 + 4, 0x01), BAD_ICRC)   # BTH dest QPN
    add(mut(base4, 0 + 42, 0x01), BAD_ICRC)   # BTH opcode
    # IPv4 header checksum
    add(mut(base4, 24, 0x01), BAD_CSUM)
    add(mut(base4, 29, 0x40), BAD_CSUM)       # source address
    add(mut(mut(ack4, 37, 0x01), 25, 0x01), BAD_CSUM)   # also wrong port: checksum first
    # UDP port
    add(mut(base4, 37, 0x02), BAD_PORT)
    add(mut(base6, 57, 0x02), BAD_PORT)
    add(bytes(eth() / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1234, dport=53) / Raw(b"x" * 40)),
        BAD_PORT)
    # not RoCE
    add(bytes(eth() / ARP()), NOT_ROCE)
    add(bytes(Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01", type=0x88CC) / Raw(b"\0" * 50)), NOT_ROCE)
    add(bytes(eth() / IP(src="10.0.0.1", dst="10.0.0.2") / ICMP() / Raw(b"p" * 30)), NOT_ROCE)
    add(bytes(eth() / IP(src="10.0.0.1", dst="10.0.0.2") / TCP(dport=4791) / Raw(b"t" * 30)), NOT_ROCE)
    add(bytes(eth() / IPv6(src="fd00::1", dst="fd00::2") / TCP(dport=4791) / Raw(b"t" * 30)), NOT_ROCE)
    frag = bytearray(base4)
    frag[20] |= 0x20                          # MF
    add(fix_v4_csum(frag), NOT_ROCE)
    frag = bytearray(base4)
    frag[20:22] = struct.pack("!H", 0x4000 | 0x10)    # DF and an offset
    add(fix_v4_csum(frag), NOT_ROCE)
    add(bytes(eth() / IP(src="10.0.0.1", dst="10.0.0.2", options=[IPOption_NOP()] * 4) /
              UDP(sport=0xC000, dport=P["ROCEV2_UDP_PORT"], chksum=0) / BTH(opcode=4) / Raw(b"o" * 16)),
        NOT_ROCE)
    ver = bytearray(base6)
    ver[14] = (ver[14] & 0x0F) | 0x40         # IPv6 EtherType, version 4
    add(bytes(ver), NOT_ROCE)
    # malformed: MAC error, truncated, lengths
    add(base4, MALFORMED, True)
    add(base6, MALFORMED, True)
    add(ack4, MALFORMED, True)
    for n in (1, 10, 13, 14, 20, 33, 38, 41, 50, len(base4) - 1, len(base4) - 30):
        add(base4[:n], MALFORMED)
    for n in (53, 60, 100, len(base6) - 3):
        add(base6[:n], MALFORMED)
    add(base4 + b"\0" * 8, MALFORMED)         # longer than its IP length
    add(base6 + b"\x11", MALFORMED)
    add(ack4 + b"\0" * 4, MALFORMED)          # 66 bytes: no padding case
    ulen = bytearray(base4)
    ulen[39] ^= 0x04                          # UDP length
    add(bytes(ulen), MALFORMED)
    ulen = bytearray(base6)
    ulen[59] ^= 0x01
    add(bytes(ulen), MALFORMED)
    tiny = bytearray(ack4[:42 + 4])           # IP/UDP length too small for BTH + ICRC
    tiny[16:18] = struct.pack("!H", 32)
    tiny[38:40] = struct.pack("!H", 12)
    add(fix_v4_csum(tiny), MALFORMED)

    d = rv.outdir("rnic_rx_check")
    with rv.atomic_open(os.path.join(d, "data.hex")) as fd, rv.atomic_open(os.path.join(d, "index.hex")) as fi:
        off = 0
        for b, lab, err in frames:
            fd.writelines(f"{x:02x}\n" for x in b)
            fi.write(f"{lab | (8 if err else 0):04x}{len(b):04x}{off:08x}\n")
            off += len(b)
    counts = [sum(1 for _, lab, _ in frames if lab == k) for k in range(6)]
    print(f"rnic_rx_check vectors: {len(frames)} frames (by status {counts}), {off} bytes -> {d}")


if __name__ == "__main__":
    main()
