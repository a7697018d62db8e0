#!/usr/bin/env python3
"""Frames for the rnic-sim --frames-json test, each labelled with the
verdict the receive front end must give it.

RoCEv2 over IPv6 (and IPv4 for comparison) made with scapy, with every RC
opcode (and UD SEND only, with its DETH) and extension-header layout,
payload lengths 0..8192, every pad value,
varied traffic class / flow label / hop limit, UDP checksum zero or set. The
ICRC is scapy's (scapy.contrib.roce, Annex A17 masks: IPv6 traffic class,
flow label and hop limit, IPv4 TOS, TTL and header checksum, UDP checksum,
BTH resv8a set to ones) and must equal the repository's own model
(tests/rtl/rnic_pkt_tx/roce_vec.py icrc_model); every label must also equal
the receive checker's reference classifier (tests/rtl/rnic_rx_check/gen.py).

Variants: changes to masked fields only (still ok), corrupted covered
bytes (bad_icrc), UDP port (bad_udp_port), IPv4 header checksum
(bad_ip_csum), truncated or padded frames and wrong length fields
(malformed), headers the parser refuses (TVer, not an RC opcode, UDP length
too short for the opcode's headers: malformed with hdr_bad), frames that are
not RoCE (not_roce), and jumbo frames larger than the probe's FIFO.

Writes OUT/synth.pcap (nanosecond timestamps) and OUT/synth.expect.json
(per frame {"verdict", "hdr_bad"?, "ip_version"?}).

    gen_frames.py [OUT]   (default build/replay)
"""
import importlib.util
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "rtl", "rnic_pkt_tx"))
import roce_vec as rv  # noqa: E402

from scapy.all import ARP, Ether, IP, IPv6, TCP, UDP, Raw, PcapWriter  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

P = rv.PKG
PORT = P["ROCEV2_UDP_PORT"]


def load_ref():
    """The receive checker's reference classifier (labels 0..5)."""
    spec = importlib.util.spec_from_file_location(
        "rx_check_ref", os.path.join(ROOT, "tests", "rtl", "rnic_rx_check", "gen.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


REF = load_ref()
NAMES = ["ok", "not_roce", "bad_udp_port", "bad_ip_csum", "bad_icrc", "malformed"]


def ext_bytes(op):
    if op in rv.UD_OPCODES:   # DETH (, ImmDt)
        return P["DETH_BYTES"] + (P["IMMDT_BYTES"] if op == P["OP_UD_SEND_ONLY_IMM"] else 0)
    if op not in rv.RC_OPCODES:
        return 0
    reth, aeth, imm, other = rv.ext_of(op)
    return reth * P["RETH_BYTES"] + aeth * P["AETH_BYTES"] + imm * P["IMMDT_BYTES"] + other


def roce(ipv6, op, plen, seed, ext=None, version=0, udp_csum=False, pad=None, pad_fill=None):
    """One RoCEv2 frame; seed varies every field that can vary. pad: the BTH
    pad count (default: to a multiple of 4); pad_fill: pad bytes present
    (default: pad)."""
    if ext is None:
        ext = bytes((seed * 31 + i * 17 + 5) & 0xFF for i in range(ext_bytes(op)))
    pay = bytes((seed + i * 7 + 3) & 0xFF for i in range(plen))
    if pad is None:
        pad = (-plen) % 4
    eth = Ether(dst="02:00:00:00:%02x:02" % (seed & 0xFF), src="02:00:00:00:%02x:01" % (seed & 0xFF))
    if ipv6:
        l3 = IPv6(src="fd00:%x::%x" % (seed, seed + 1), dst="fe80::1234:%x" % (seed * 7),
                  tc=(seed * 37) & 0xFF, fl=(seed * 7919 + 1) & 0xFFFFF, hlim=(seed * 3 + 1) & 0xFF)
    else:
        l3 = IP(src="10.%d.0.1" % (seed & 0xFF), dst="10.1.%d.2" % (seed & 0xFF), tos=(seed * 37) & 0xFF,
                ttl=(seed * 3 + 1) & 0xFF, flags="DF", id=seed & 0xFFFF)
    udp = UDP(sport=0xC000 | (seed * 97 & 0x3FFF), dport=PORT, chksum=None if udp_csum else 0)
    bth = BTH(opcode=op, solicited=seed & 1, migreq=(seed >> 1) & 1, padcount=pad, version=version,
              pkey=(0xFFFF - seed) & 0xFFFF, dqpn=(seed * 0x13579) & 0xFFFFFF, ackreq=(seed >> 2) & 1,
              psn=(0xFFFFFF - seed * 0x9E3779) & 0xFFFFFF)
    b = bytes(eth / l3 / udp / bth / Raw(ext + pay + b"\0" * (pad if pad_fill is None else pad_fill)))
    assert rv.icrc_model(b[:-4]) == b[-4:], "scapy's ICRC and roce_vec.icrc_model disagree"
    return b


def mut(b, i, x):
    b = bytearray(b)
    b[i] ^= x
    return bytes(b)


def put16(b, i, v):
    b = bytearray(b)
    b[i:i + 2] = struct.pack("!H", v)
    return bytes(b)


def fix_v4_csum(b):
    b = bytearray(b)
    b[24:26] = b"\0\0"
    b[24:26] = struct.pack("!H", 0xFFFF - REF.csum16(bytes(b[14:34])))
    return bytes(b)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "replay")
    os.makedirs(out, exist_ok=True)
    frames = []  # (bytes, label)

    def add(b, verdict, **more):
        ref = NAMES[REF.classify(b)]
        checker = "ok" if more.get("hdr_bad") else verdict
        assert ref == checker, f"frame {len(frames) + 1}: label {verdict} but the reference says {ref}"
        lab = {"verdict": verdict}
        lab.update(more)
        frames.append((bytes(b), lab))

    pay_ops = [P[k] for k in ("OP_SEND_FIRST", "OP_SEND_MIDDLE", "OP_SEND_LAST", "OP_SEND_LAST_IMM",
                              "OP_SEND_ONLY", "OP_SEND_ONLY_IMM", "OP_RDMA_WRITE_FIRST",
                              "OP_RDMA_WRITE_MIDDLE", "OP_RDMA_WRITE_LAST", "OP_RDMA_WRITE_LAST_IMM",
                              "OP_RDMA_WRITE_ONLY", "OP_RDMA_WRITE_ONLY_IMM",
                              "OP_RDMA_READ_RESPONSE_FIRST", "OP_RDMA_READ_RESPONSE_MIDDLE",
                              "OP_RDMA_READ_RESPONSE_LAST", "OP_RDMA_READ_RESPONSE_ONLY",
                              "OP_SEND_LAST_INV", "OP_SEND_ONLY_INV")]
    no_pay = [P[k] for k in ("OP_RDMA_READ_REQUEST", "OP_ACKNOWLEDGE", "OP_ATOMIC_ACKNOWLEDGE",
                             "OP_COMPARE_SWAP", "OP_FETCH_ADD")]
    assert sorted(pay_ops + no_pay) == rv.RC_OPCODES
    pay_ops += rv.UD_OPCODES   # UD SEND only (with immediate): BTH, DETH (, ImmDt)
    seed = 1
    # good frames: IPv6 every opcode and several lengths (every pad value), IPv4 a subset
    for ipv6, lens in ((True, (0, 1, 2, 3, 5, 62, 257, 1024)), (False, (0, 3, 61, 300))):
        for op in pay_ops:
            for plen in lens:
                add(roce(ipv6, op, plen, seed, udp_csum=ipv6 and seed % 2 == 0), "ok",
                    ip_version=6 if ipv6 else 4)
                seed += 1
        for op in no_pay:
            add(roce(ipv6, op, 0, seed, udp_csum=ipv6), "ok", ip_version=6 if ipv6 else 4)
            seed += 1
    # MTU-size and jumbo frames (larger than the probe's 4 KiB FIFO)
    for ipv6 in (True, False):
        for op, plen in ((P["OP_RDMA_WRITE_ONLY"], 4096), (P["OP_SEND_ONLY"], 8192),
                         (P["OP_RDMA_READ_RESPONSE_ONLY"], 8999 - 80)):
            add(roce(ipv6, op, plen, seed, udp_csum=True), "ok", ip_version=6 if ipv6 else 4)
            seed += 1
    # zero-length SEND ONLY over IPv4: 58 bytes, padded by the MAC to 60
    b = roce(False, P["OP_SEND_ONLY"], 0, seed)
    assert len(b) == 58
    add(b + b"\0\0", "ok", ip_version=4)
    add(b + b"\x5a\xa5", "ok", ip_version=4)
    add(b, "ok", ip_version=4)

    base6 = roce(True, P["OP_SEND_ONLY"], 200, 77, udp_csum=True)
    wr6 = roce(True, P["OP_RDMA_WRITE_ONLY_IMM"], 33, 78)
    base4 = roce(False, P["OP_SEND_ONLY"], 200, 79)
    ack4 = roce(False, P["OP_ACKNOWLEDGE"], 0, 80)
    v6_udp, v6_bth = 14 + 40, 14 + 40 + 8
    v4_udp, v4_bth = 14 + 20, 14 + 20 + 8

    # IPv6: fields under the ICRC masks may change in flight: still ok
    for base in (base6, wr6):
        add(mut(base, 14, 0x0F), "ok", ip_version=6)          # traffic class, high nibble
        add(mut(base, 15, 0xF0), "ok", ip_version=6)          # traffic class, low nibble
        add(mut(base, 15, 0x0F), "ok", ip_version=6)          # flow label
        add(mut(base, 17, 0xFF), "ok", ip_version=6)          # flow label
        add(mut(base, 21, 0x55), "ok", ip_version=6)          # hop limit
        add(mut(base, v6_udp + 6, 0x12), "ok", ip_version=6)  # UDP checksum
        add(mut(base, v6_bth + 4, 0xC0), "ok", ip_version=6)  # BTH FECN, BECN
    # IPv6: covered bytes corrupted
    for base in (base6, wr6):
        add(mut(base, len(base) - 1, 0x80), "bad_icrc", ip_version=6)   # ICRC
        add(mut(base, len(base) - 6, 0x01), "bad_icrc", ip_version=6)   # payload / pad
        add(mut(base, 14 + 8, 0x01), "bad_icrc", ip_version=6)          # source address
        add(mut(base, 14 + 39, 0x01), "bad_icrc", ip_version=6)         # destination address
        add(mut(base, v6_udp + 1, 0x01), "bad_icrc", ip_version=6)      # UDP source port
        add(mut(base, v6_bth + 5, 0x01), "bad_icrc", ip_version=6)      # dest QPN
        add(mut(base, v6_bth + 11, 0x01), "bad_icrc", ip_version=6)     # PSN
        add(mut(base, v6_bth + 14, 0x01), "bad_icrc", ip_version=6)     # RETH / payload
    add(mut(base6, v6_udp + 3, 0x01), "bad_udp_port", ip_version=6)
    add(put16(wr6, v6_udp + 2, 4791 + 1), "bad_udp_port", ip_version=6)
    for n in (len(base6) - 1, len(base6) - 4, 100, 60, 54, 40, 13):
        add(base6[:n], "malformed")
    add(base6 + b"\0", "malformed")
    add(put16(base6, 18, len(base6) - 54 + 1), "malformed")            # IPv6 payload length
    add(put16(base6, v6_udp + 4, len(base6) - 54 - 1), "malformed")    # UDP length
    add(mut(base6, 20, 17 ^ 6), "not_roce")                             # next header TCP
    add(mut(base6, 14, 0x20), "not_roce")                               # IP version 4 in an IPv6 frame

    # IPv4
    add(mut(base4, 24, 0x01), "bad_ip_csum", ip_version=4)
    add(mut(base4, 22, 0x01), "bad_ip_csum", ip_version=4)              # TTL, checksum not updated
    add(fix_v4_csum(mut(base4, 22, 0x21)), "ok", ip_version=4)          # TTL, checksum updated (masked)
    add(fix_v4_csum(mut(base4, 15, 0x48)), "ok", ip_version=4)          # TOS (masked)
    add(fix_v4_csum(mut(base4, 27, 0x01)), "bad_icrc", ip_version=4)    # source address
    add(mut(base4, v4_udp + 6, 0x33), "ok", ip_version=4)               # UDP checksum (masked)
    add(mut(base4, v4_bth + 4, 0x80), "ok", ip_version=4)               # BTH FECN (masked)
    add(mut(base4, len(base4) - 2, 0x04), "bad_icrc", ip_version=4)
    add(mut(ack4, v4_bth + 12, 0x01), "bad_icrc", ip_version=4)         # AETH syndrome
    add(put16(base4, v4_udp + 2, 4790), "bad_udp_port", ip_version=4)
    add(mut(mut(base4, v4_udp + 2, 0x01), 25, 0x01), "bad_ip_csum", ip_version=4)  # checksum before port
    for n in (len(base4) - 1, 60, 42, 34, 20):
        add(base4[:n], "malformed")
    add(base4 + b"\0" * 4, "malformed")
    add(mut(base4, 23, 0x11 ^ 0x06), "not_roce")                        # protocol TCP (checksum wrong too)
    add(fix_v4_csum(mut(base4, 20, 0x20)), "not_roce")                  # more fragments

    # the checker passes them, the parser refuses them
    add(roce(True, P["OP_SEND_ONLY"], 40, 90, version=1), "malformed", hdr_bad=True, ip_version=6)
    add(roce(False, P["OP_RDMA_WRITE_ONLY"], 12, 91, version=15), "malformed", hdr_bad=True, ip_version=4)
    add(roce(True, P["OP_UD_SEND_ONLY"], 0, 92, ext=b"\0" * 4), "malformed", hdr_bad=True, ip_version=6)  # DETH cut short
    add(roce(True, 0x81, 16, 93, ext=b""), "malformed", hdr_bad=True, ip_version=6)   # CNP
    add(roce(True, P["OP_RDMA_WRITE_FIRST"], 0, 94, ext=b""), "malformed", hdr_bad=True, ip_version=6)
    add(roce(False, P["OP_ACKNOWLEDGE"], 0, 95, ext=b""), "malformed", hdr_bad=True, ip_version=4)
    add(roce(True, P["OP_SEND_ONLY"], 0, 96, pad=3, pad_fill=2), "malformed", hdr_bad=True, ip_version=6)
    # pad count 3 with the pad bytes but no payload: payload length 0, fine for the parser
    add(roce(True, P["OP_SEND_ONLY"], 0, 97, pad=3), "ok", ip_version=6)

    # not RoCE at all
    e = Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01")
    add(bytes(e / ARP()), "not_roce")
    add(bytes(e / IPv6(src="fd00::1", dst="fd00::2") / TCP(dport=PORT) / Raw(b"t" * 30)), "not_roce")
    add(bytes(e / IPv6(src="fd00::1", dst="fd00::2") / UDP(sport=1, dport=53) / Raw(b"u" * 30)),
        "bad_udp_port", ip_version=6)
    add(bytes(e / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1, dport=53) / Raw(b"u" * 30)),
        "bad_udp_port", ip_version=4)

    path = os.path.join(out, "synth.pcap")
    w = PcapWriter(path, linktype=1, nano=True, sync=True)
    w.write_header(None)
    for i, (b, _) in enumerate(frames):
        # raw bytes (not every frame dissects as Ethernet), nanosecond stamps
        w.write_packet(b, sec=1700000000 + i, usec=(i * 1000003 + 7) % 10**9)
    w.close()
    with open(os.path.join(out, "synth.expect.json"), "w") as f:
        json.dump([lab for _, lab in frames], f, indent=0)
    counts = {}
    for _, lab in frames:
        counts[lab["verdict"]] = counts.get(lab["verdict"], 0) + 1
    v6 = sum(1 for _, lab in frames if lab.get("ip_version") == 6)
    print(f"{len(frames)} frames ({v6} IPv6) by verdict {counts} -> {path}")


if __name__ == "__main__":
    main()
