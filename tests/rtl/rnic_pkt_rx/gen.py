#!/usr/bin/env python3
"""Vectors for tests/rtl/rnic_pkt_rx/tb.sv.

Every RoCEv2 frame of the Linux rxe captures in tests/vectors/rxe
(Ethernet without FCS, ICRC at the end), decoded with scapy (Ether / IP / UDP
/ scapy.contrib.roce BTH; RETH and AETH read from the bytes after the BTH),
plus frames made with scapy: IPv6 and IPv4 with every extension-header kind
(RETH, AETH, ImmDt, RETH+ImmDt, AtomicETH, AETH+AtomicAckETH, IETH, and
UD SEND ONLY's DETH and DETH+ImmDt), every pad value, IPv4 identification
and flags, a MAC-padded minimum frame, and bad ones (TVer != 0, opcodes that
are neither RC nor UD SEND ONLY, UDP length too short for the opcode's
headers, a DETH cut short).

Output in build/vectors/rnic_pkt_rx/:
  data.hex   frame bytes, one per line, frames back to back
  rec.hex    per frame the expected header record (rnic_hdr_pkg layout)
  index.hex  per frame {flags[15:0], pay_off[15:0], pay_len[15:0],
             frame_len[15:0], frame_off[31:0]}; flags bit 0: bad;
             pay_off: offset of the payload in the frame

Usage: python3 tests/rtl/rnic_pkt_rx/gen.py [pcap dir]
"""
import glob
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rnic_pkt_tx"))
import roce_vec as rv  # noqa: E402

from scapy.all import rdpcap, Ether, IP, IPv6, UDP, Raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

P = rv.PKG
PCAP_DIR = sys.argv[1] if len(sys.argv) > 1 else rv.RXE_DIR


def is_roce(p):
    return UDP in p and p[UDP].dport == P["ROCEV2_UDP_PORT"] and BTH in p


def expected(frame):
    """(record, bad, pay_off, pay_len) of a frame, from scapy's decoding."""
    p = Ether(frame)
    assert is_roce(p)
    f = {"ETH_DST": int(p[Ether].dst.replace(":", ""), 16),
         "ETH_SRC": int(p[Ether].src.replace(":", ""), 16)}
    if IPv6 in p:
        ip = p[IPv6]
        f.update(IPV6=1, IP_SRC=ip_to_int6(ip.src), IP_DST=ip_to_int6(ip.dst),
                 IP_TCLASS=ip.tc, IP_TTL=ip.hlim, IP_FLOW_LABEL=ip.fl, IP_LEN=ip.plen, IP_CSUM=0)
    else:
        ip = p[IP]
        f.update(IPV6=0, IP_SRC=ip_to_int4(ip.src), IP_DST=ip_to_int4(ip.dst),
                 IP_TCLASS=ip.tos, IP_TTL=ip.ttl, IP_FLOW_LABEL=0,
                 IP_ID=ip.id, IP_FRAG=int(ip.flags) << 13 | ip.frag, IP_LEN=ip.len, IP_CSUM=ip.chksum)
    udp = p[UDP]
    bth = p[BTH]
    f.update(UDP_SPORT=udp.sport, BTH_OPCODE=bth.opcode, BTH_SE=bth.solicited,
             BTH_MIGREQ=bth.migreq, BTH_PAD=bth.padcount, BTH_PKEY=bth.pkey,
             BTH_DEST_QPN=bth.dqpn, BTH_ACKREQ=bth.ackreq, BTH_PSN=bth.psn)
    op = bth.opcode
    bth_off = 14 + (40 if f["IPV6"] else 20) + 8
    ext_off = bth_off + 12
    ud = op in rv.UD_OPCODES
    if ud:
        reth, aeth, imm, other = False, False, op == P["OP_UD_SEND_ONLY_IMM"], P["DETH_BYTES"]
    else:
        reth, aeth, imm, other = rv.ext_of(op)
    known = op in rv.RC_OPCODES or ud
    ext = (16 if reth else 0) + (4 if aeth else 0) + (4 if imm else 0) + other
    e = frame[ext_off:] + bytes(32)   # (short in bad frames; fields unchecked then)
    f["HAS_RETH"], f["HAS_AETH"], f["HAS_IMMDT"] = int(reth), int(aeth), int(imm)
    if reth:
        f["RETH_VA"], f["RETH_RKEY"], f["RETH_LEN"] = struct.unpack("!QII", e[:16])
    if aeth:
        f["AETH_SYNDROME"] = e[0]
        f["AETH_MSN"] = int.from_bytes(e[1:4], "big")
    if imm:
        f["IMMDT"] = struct.unpack("!I", e[16:20] if reth else e[8:12] if ud else e[:4])[0]
    if ud:
        f["HAS_DETH"] = 1
        f["DETH_QKEY"] = struct.unpack("!I", e[:4])[0]
        f["DETH_SRC_QPN"] = int.from_bytes(e[5:8], "big")
    if op in (P["OP_COMPARE_SWAP"], P["OP_FETCH_ADD"]):
        # AtomicETH: VA and rkey into the RETH fields, swap/add data, compare data
        f["HAS_ATOMICETH"] = 1
        f["RETH_VA"], f["RETH_RKEY"], f["ATOMIC_SWAP"], f["ATOMIC_CMP"] = struct.unpack("!QIQQ", e[:28])
    if op in (P["OP_SEND_LAST_INV"], P["OP_SEND_ONLY_INV"]):
        # IETH: its rkey into the RETH rkey field
        f["HAS_IETH"] = 1
        f["RETH_RKEY"] = struct.unpack("!I", e[:4])[0]
    if op == P["OP_ATOMIC_ACKNOWLEDGE"]:
        f["HAS_ATOMICACKETH"] = 1
        f["ATOMICACK_ORIG"] = struct.unpack("!Q", e[4:12])[0]
    plen = udp.len - 8 - 12 - ext - bth.padcount - 4
    end = bth_off - 8 + udp.len
    bad = not known or bth.version != 0 or plen < 0 or len(frame) < end
    pay_off = ext_off + ext
    if bad:
        plen = 0
    f["PAYLOAD_LEN"] = plen
    return rv.pack_record(f), bad, pay_off, plen


def ip_to_int4(s):
    return int.from_bytes(bytes(int(x) for x in s.split(".")), "big")


def ip_to_int6(s):
    import socket
    return int.from_bytes(socket.inet_pton(socket.AF_INET6, s), "big")


def make(op, plen, ipv6, pad=None, version=0, ext=None, udp_len=None, seed=0):
    reth, aeth, imm, other = rv.ext_of(op) if op in rv.RC_OPCODES else (False, False, False, 0)
    if op in rv.UD_OPCODES:
        imm, other = op == P["OP_UD_SEND_ONLY_IMM"], P["DETH_BYTES"]
    if ext is None:
        ext = bytes(((seed * 31 + i * 17) & 0xFF) for i in range((16 if reth else 0) + (4 if aeth else 0) +
                                                                 (4 if imm else 0) + other))
    pay = bytes(((seed + i * 7 + 3) & 0xFF) for i in range(plen))
    if pad is None:
        pad = (-plen) % 4
    e = Ether(dst="02:00:00:00:00:%02x" % (seed & 0xFF), src="02:00:00:00:01:%02x" % (seed & 0xFF))
    if ipv6:
        ip = IPv6(src="fd00::%x" % (seed + 1), dst="fd00:1234::%x" % (seed + 2), tc=(seed * 37) & 0xFF,
                  fl=(seed * 7919) & 0xFFFFF, hlim=(seed * 3 + 1) & 0xFF)
    else:
        ip = IP(src="10.0.%d.1" % (seed & 0xFF), dst="10.1.%d.2" % (seed & 0xFF), tos=(seed * 37) & 0xFF,
                ttl=(seed * 3 + 1) & 0xFF, flags="DF" if seed % 3 else 0, id=(seed * 7777) & 0xFFFF)
    u = UDP(sport=0xC000 + seed, dport=P["ROCEV2_UDP_PORT"], chksum=0)
    if udp_len is not None:
        u.len = udp_len
    pkt = e / ip / u / BTH(opcode=op, solicited=seed & 1, migreq=(seed >> 1) & 1, padcount=pad, version=version,
                           pkey=0x8000 + seed, dqpn=(seed * 0x1357) & 0xFFFFFF, ackreq=(seed >> 2) & 1,
                           psn=(seed * 0x9E3779) & 0xFFFFFF) / Raw(ext + pay + b"\0" * pad)
    return bytes(pkt)


def main():
    frames = []
    for path in sorted(glob.glob(os.path.join(PCAP_DIR, "*.pcap"))):
        for p in rdpcap(path):
            if is_roce(p):
                frames.append(bytes(p))
    n_pcap = len(frames)
    assert n_pcap >= 100, "rxe captures not found"
    seed = 1
    ops = [P[k] for k in ("OP_SEND_FIRST", "OP_SEND_MIDDLE", "OP_SEND_LAST", "OP_SEND_LAST_IMM", "OP_SEND_ONLY",
                          "OP_SEND_ONLY_IMM", "OP_RDMA_WRITE_FIRST", "OP_RDMA_WRITE_MIDDLE", "OP_RDMA_WRITE_LAST",
                          "OP_RDMA_WRITE_LAST_IMM", "OP_RDMA_WRITE_ONLY", "OP_RDMA_WRITE_ONLY_IMM",
                          "OP_RDMA_READ_RESPONSE_FIRST", "OP_RDMA_READ_RESPONSE_MIDDLE",
                          "OP_RDMA_READ_RESPONSE_LAST", "OP_RDMA_READ_RESPONSE_ONLY",
                          "OP_SEND_LAST_INV", "OP_SEND_ONLY_INV", "OP_UD_SEND_ONLY", "OP_UD_SEND_ONLY_IMM")]
    no_pay = [P[k] for k in ("OP_RDMA_READ_REQUEST", "OP_ACKNOWLEDGE", "OP_ATOMIC_ACKNOWLEDGE",
                             "OP_COMPARE_SWAP", "OP_FETCH_ADD")]
    for ipv6 in (True, False):
        for i, op in enumerate(ops):
            for plen in (0, 1, 2, 3, 4, 5, 63 + i, 64 + i, 200 + 3 * i, 1024 + i):
                frames.append(make(op, plen, ipv6, seed=seed))
                seed += 1
        for op in no_pay:
            frames.append(make(op, 0, ipv6, seed=seed))
            seed += 1
    # zero-length SEND ONLY, padded by the MAC to the 60-byte minimum
    b = make(P["OP_SEND_ONLY"], 0, False, seed=seed)
    frames.append(b + b"\xee" * (60 - len(b)))
    # bad: TVer, opcodes that are not RC, UDP length too short for the headers
    frames.append(make(P["OP_SEND_ONLY"], 40, True, version=1, seed=seed + 1))
    frames.append(make(P["OP_RDMA_WRITE_ONLY"], 12, False, version=15, seed=seed + 2))
    for op in (0x15, 0x18, 0x1F, 0x24, 0x66, 0x81, 0xFF):
        frames.append(make(op, 16, op & 1 == 0, ext=b"", seed=seed + op))
    frames.append(make(P["OP_RDMA_WRITE_FIRST"], 0, False, ext=b"", seed=seed + 3))     # no room for RETH
    frames.append(make(P["OP_ACKNOWLEDGE"], 0, True, ext=b"", seed=seed + 4))           # no room for AETH
    frames.append(make(P["OP_COMPARE_SWAP"], 0, False, ext=b"\0" * 20, seed=seed + 5))  # AtomicETH cut
    frames.append(make(P["OP_SEND_ONLY"], 0, True, pad=3, seed=seed + 6))                # pad longer than payload
    frames.append(make(P["OP_UD_SEND_ONLY"], 0, False, ext=b"\0" * 6, seed=seed + 7))     # DETH cut
    frames.append(make(P["OP_UD_SEND_ONLY_IMM"], 0, True, ext=b"\0" * 10, seed=seed + 8)) # ImmDt cut
    # bad: the frame ends before its UDP length says, inside the capture at
    # every width (rnic_rx_check drops such frames before they get here, so
    # this is the parser's own check); the length under 256 bytes and over
    frames.append(make(P["OP_ACKNOWLEDGE"], 0, False, udp_len=32, seed=seed + 9))         # 28 bytes there
    frames.append(make(P["OP_RDMA_READ_REQUEST"], 0, True, udp_len=300, seed=seed + 10))  # 40 bytes there
    frames.append(make(P["OP_COMPARE_SWAP"], 0, False, udp_len=260, seed=seed + 11))      # 52 bytes there

    d = rv.outdir("rnic_pkt_rx")
    nbad = 0
    with rv.atomic_open(os.path.join(d, "data.hex")) as fd, rv.atomic_open(os.path.join(d, "rec.hex")) as fr, \
         rv.atomic_open(os.path.join(d, "index.hex")) as fi:
        off = 0
        for b in frames:
            rec, bad, pay_off, plen = expected(b)
            nbad += bad
            fd.writelines(f"{x:02x}\n" for x in b)
            fr.write(rv.record_hex(rec) + "\n")
            fi.write(f"{int(bad):04x}{pay_off:04x}{plen:04x}{len(b):04x}{off:08x}\n")
            off += len(b)
    print(f"rnic_pkt_rx vectors: {len(frames)} frames ({n_pcap} from the rxe captures, {nbad} bad), "
          f"{off} bytes -> {d}")


if __name__ == "__main__":
    main()
