#!/usr/bin/env python3
"""Vectors for tests/rtl/rnic_pkt_tx/tb.sv.

Random packet descriptors (RDMA WRITE FIRST/MIDDLE/LAST/ONLY with RETH,
WRITE ONLY with immediate, SEND ONLY with immediate, READ REQUEST, READ
RESPONSE FIRST, ACK with AETH, UD SEND ONLY with DETH (and ImmDt), COMPARE_SWAP and FETCH_ADD with AtomicETH,
ATOMIC ACKNOWLEDGE with AETH and AtomicAckETH; IPv4 and IPv6; payloads of
0..4096 bytes with every pad value) and, for each, the frame scapy builds for
it:
  Ether / IP(flags=DF, id=0) or IPv6 / UDP(chksum=0) / BTH / [RETH] [AETH]
  [ImmDt] [AtomicETH] [AtomicAckETH] / payload / pad, with scapy's ICRC
  (scapy.contrib.roce).

The source addresses come from the port: each descriptor names one of four
GID table entries (HDR_SGID_INDEX), and its own source fields hold garbage
half of the time (the builder must ignore them).

Output in build/vectors/rnic_pkt_tx/ (read with $readmemh):
  cfg.hex     the port MAC, then GID table entries 0..3 (128 bits each)
  desc.hex    one packet-header record per line (rnic_hdr_pkg layout)
  pay.hex     all payload bytes, one per line, packets back to back
  frame.hex   all expected frame bytes, one per line
  index.hex   per packet {pay_off[31:0], pay_len[15:0], frame_off[31:0], frame_len[15:0]}

Usage: python3 tests/rtl/rnic_pkt_tx/gen.py [seed] [count]
"""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roce_vec as rv  # noqa: E402

from scapy.all import Ether, IP, IPv6, UDP, Raw  # noqa: E402
from scapy.contrib.roce import BTH, AETH  # noqa: E402

P = rv.PKG


def mac(v):
    return ":".join(f"{(v >> (8 * (5 - i))) & 0xFF:02x}" for i in range(6))


def ip4(v):
    return ".".join(str((v >> (8 * (3 - i))) & 0xFF) for i in range(4))


def ip6(v):
    return ":".join(f"{(v >> (16 * (7 - i))) & 0xFFFF:x}" for i in range(8))


def build(rng, port, op, plen, ipv6):
    ud = op in rv.UD_OPCODES
    if ud:
        reth, aeth, imm = False, False, op == P["OP_UD_SEND_ONLY_IMM"]
    else:
        reth, aeth, imm, _ = rv.ext_of(op)
    atom = op in (P["OP_COMPARE_SWAP"], P["OP_FETCH_ADD"])
    atomack = op == P["OP_ATOMIC_ACKNOWLEDGE"]
    ieth = op in (P["OP_SEND_LAST_INV"], P["OP_SEND_ONLY_INV"])
    pad = (-plen) % 4
    f = dict(
        ETH_DST=rng.getrandbits(48), SGID_INDEX=rng.randrange(4), IPV6=int(ipv6),
        IP_DST=rng.getrandbits(128),
        IP_TCLASS=rng.getrandbits(8), IP_TTL=rng.getrandbits(8), IP_FLOW_LABEL=rng.getrandbits(20),
        UDP_SPORT=rng.getrandbits(16), BTH_OPCODE=op, BTH_SE=rng.getrandbits(1),
        BTH_MIGREQ=rng.getrandbits(1), BTH_PAD=pad, BTH_PKEY=rng.getrandbits(16),
        BTH_DEST_QPN=rng.getrandbits(24), BTH_ACKREQ=rng.getrandbits(1), BTH_PSN=rng.getrandbits(24),
        HAS_RETH=int(reth), HAS_AETH=int(aeth), HAS_IMMDT=int(imm), PAYLOAD_LEN=plen,
        HAS_ATOMICETH=int(atom), HAS_ATOMICACKETH=int(atomack), HAS_DETH=int(ud), HAS_IETH=int(ieth))
    # fields the packet does not carry hold garbage half of the time (must be ignored)
    junk = rng.random() < 0.5
    # (an AtomicETH takes its VA and rkey from the RETH fields, an IETH its rkey)
    for k, w, on in (("RETH_VA", 64, reth or atom), ("RETH_RKEY", 32, reth or atom or ieth), ("RETH_LEN", 32, reth),
                     ("AETH_SYNDROME", 8, aeth), ("AETH_MSN", 24, aeth), ("IMMDT", 32, imm),
                     ("ATOMIC_SWAP", 64, atom), ("ATOMIC_CMP", 64, atom), ("ATOMICACK_ORIG", 64, atomack),
                     ("DETH_QKEY", 32, ud), ("DETH_SRC_QPN", 24, ud)):
        f[k] = rng.getrandbits(w) if (on or junk) else 0
    # the frame's source addresses are the port's; the descriptor's own
    # source fields are ignored
    f["ETH_SRC"] = rng.getrandbits(48) if junk else 0
    f["IP_SRC"] = rng.getrandbits(128) if junk else 0
    src_mac, src_ip = port[0], port[1 + f["SGID_INDEX"]]
    if not ipv6 and not junk:
        f["IP_DST"] &= 0xFFFFFFFF
        f["IP_FLOW_LABEL"] = 0
    payload = bytes(rng.getrandbits(8) for _ in range(plen))

    eth = Ether(dst=mac(f["ETH_DST"]), src=mac(src_mac))
    if ipv6:
        ip = IPv6(src=ip6(src_ip), dst=ip6(f["IP_DST"]), tc=f["IP_TCLASS"],
                  fl=f["IP_FLOW_LABEL"], hlim=f["IP_TTL"])
    else:
        ip = IP(src=ip4(src_ip & 0xFFFFFFFF), dst=ip4(f["IP_DST"] & 0xFFFFFFFF),
                tos=f["IP_TCLASS"], ttl=f["IP_TTL"], id=0, flags="DF")
    bth = BTH(opcode=op, solicited=f["BTH_SE"], migreq=f["BTH_MIGREQ"], padcount=pad,
              version=0, pkey=f["BTH_PKEY"], dqpn=f["BTH_DEST_QPN"], ackreq=f["BTH_ACKREQ"],
              psn=f["BTH_PSN"])
    ext = b""
    if ud:
        ext += struct.pack("!II", f["DETH_QKEY"], f["DETH_SRC_QPN"])
    if reth:
        ext += struct.pack("!QII", f["RETH_VA"], f["RETH_RKEY"], f["RETH_LEN"])
    if imm:
        ext += struct.pack("!I", f["IMMDT"])
    if atom:
        ext += struct.pack("!QIQQ", f["RETH_VA"], f["RETH_RKEY"], f["ATOMIC_SWAP"], f["ATOMIC_CMP"])
    if atomack:
        ext += struct.pack("!Q", f["ATOMICACK_ORIG"])
    if ieth:
        ext += struct.pack("!I", f["RETH_RKEY"])
    pkt = eth / ip / UDP(sport=f["UDP_SPORT"], dport=P["ROCEV2_UDP_PORT"], chksum=0) / bth
    if aeth:
        # scapy binds AETH only to ACKNOWLEDGE; stack it by hand for the others
        pkt = pkt / AETH(syndrome=f["AETH_SYNDROME"], msn=f["AETH_MSN"])
    pkt = pkt / Raw(ext + payload + b"\x00" * pad)
    frame = bytes(pkt)
    assert rv.icrc_model(frame[:-4]) == frame[-4:], "scapy ICRC disagrees with the Annex A17 model"
    return rv.pack_record(f), payload, frame


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 240
    rng = random.Random(seed)
    # the port: its MAC and four GID table entries
    port = [rng.getrandbits(48)] + [rng.getrandbits(128) for _ in range(4)]
    ops = [P["OP_RDMA_WRITE_FIRST"], P["OP_RDMA_WRITE_MIDDLE"], P["OP_RDMA_WRITE_LAST"],
           P["OP_RDMA_WRITE_ONLY"], P["OP_ACKNOWLEDGE"], P["OP_RDMA_WRITE_ONLY_IMM"],
           P["OP_SEND_ONLY_IMM"], P["OP_RDMA_READ_REQUEST"], P["OP_RDMA_READ_RESPONSE_FIRST"],
           P["OP_COMPARE_SWAP"], P["OP_FETCH_ADD"], P["OP_ATOMIC_ACKNOWLEDGE"],
           P["OP_UD_SEND_ONLY"], P["OP_UD_SEND_ONLY_IMM"], P["OP_SEND_LAST_INV"], P["OP_SEND_ONLY_INV"]]
    no_payload = (P["OP_ACKNOWLEDGE"], P["OP_RDMA_READ_REQUEST"], P["OP_COMPARE_SWAP"], P["OP_FETCH_ADD"],
                  P["OP_ATOMIC_ACKNOWLEDGE"])
    recs = []
    for i in range(count):
        op = ops[i % len(ops)] if i < 4 * len(ops) else rng.choice(ops)
        r = rng.random()
        if op in no_payload:
            plen = 0
        elif i < 64:
            plen = i  # every small length, every pad value
        elif r < 0.1:
            plen = 0
        elif r < 0.8:
            plen = rng.randrange(1, 300)
        elif r < 0.95:
            plen = rng.choice((4096, 4095, 4094, 4093, 2048, 1024, 1025))
        else:
            plen = rng.randrange(300, 4097)
        recs.append(build(rng, port, op, plen, rng.random() < 0.4))

    d = rv.outdir("rnic_pkt_tx")
    with rv.atomic_open(os.path.join(d, "cfg.hex")) as fcfg:
        fcfg.writelines(f"{v:032x}\n" for v in port)
    with rv.atomic_open(os.path.join(d, "desc.hex")) as fdesc, \
         rv.atomic_open(os.path.join(d, "pay.hex")) as fpay, \
         rv.atomic_open(os.path.join(d, "frame.hex")) as ffr, \
         rv.atomic_open(os.path.join(d, "index.hex")) as fidx:
        poff = foff = 0
        for rec, pay, frame in recs:
            fdesc.write(rv.record_hex(rec) + "\n")
            fpay.writelines(f"{b:02x}\n" for b in pay)
            ffr.writelines(f"{b:02x}\n" for b in frame)
            fidx.write(f"{poff:08x}{len(pay):04x}{foff:08x}{len(frame):04x}\n")
            poff += len(pay)
            foff += len(frame)
    print(f"rnic_pkt_tx vectors: {len(recs)} packets, {poff} payload bytes, {foff} frame bytes -> {d}")


if __name__ == "__main__":
    main()
