#!/usr/bin/env python3
"""Independent checks of a RoCEv2 capture.

Every frame must (1) dissect in tshark as Ethernet/IP/UDP/InfiniBand with no
malformed-packet flag and no expert message of warning severity or worse, and
(2) carry the ICRC that scapy's RoCE layer computes for it; a SEND LAST or
ONLY with invalidate must carry the IETH rkey in tshark's dissection that
scapy reads behind its BTH. The one exception
is link flow control: a frame the MACs send themselves must be an IEEE 802.3
Annex 31B PAUSE frame (tshark: MAC Control, opcode 1; scapy: 60 bytes, to
01-80-C2-00-00-01). With --cm, the frames to QP1 must be exactly the
connection manager messages listed, in that order, each from the given IP
source, as tshark dissects them (MgmtClass CM, the attribute ID), besides
exactly --qp1-other frames to QP1 that are no CM MAD (0 by default; a test
that sends QP1 a datagram of its own counts it there). Prints one
line per file and exits non-zero on the first file with a failing frame.

    check_pcap.py [--min-frames N] [--cm MSG@SRC,...] [--qp1-other N] FILE.pcap...
    e.g. --cm REQ@10.0.0.1,REP@10.0.0.2,RTU@10.0.0.1
"""
import argparse
import subprocess
import sys

from scapy.all import Ether, IP, IPv6, UDP, raw, rdpcap  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

ROCEV2_PORT = 4791
ETHERTYPE_MAC_CTRL = 0x8808
PAUSE_DA = "01:80:c2:00:00:01"
ETH_HDR_BYTES = 14
IPV6_HDR_BYTES = 40
EXPERT_WARNING = 0x00600000  # wireshark's PI_WARN severity


# Heuristic dissectors Wireshark 4.0 runs on InfiniBand payloads (the
# infiniband.payload table), by the short names --disable-heuristic takes.
PAYLOAD_HEURISTICS = [
    "eth_over_ib", "mellanox_eoib", "fc_infiniband", "iser_infiniband", "lnet_ib",
    "rpcrdma_infiniband", "smb_direct_infiniband", "smcr_infiniband", "sdp_infiniband",
    "nvme_rdma", "drbd_rdma",
]
_heuristic_args = None


def payload_heuristics(path):
    """An RDMA payload is opaque user data: a heuristic's guess at a protocol
    inside it (and its 'malformed' verdict when the guess is wrong) says
    nothing about the transport headers, so the payload heuristics are off.
    Names this tshark does not know are skipped."""
    global _heuristic_args
    if _heuristic_args is None:
        _heuristic_args = []
        for name in PAYLOAD_HEURISTICS:
            probe = subprocess.run(["tshark", "-r", path, "-c", "1", "--disable-heuristic", name],
                                   capture_output=True, text=True)
            if probe.returncode == 0:
                _heuristic_args += ["--disable-heuristic", name]
    return _heuristic_args


def tshark_problems(path):
    out = subprocess.run(
        ["tshark", "-r", path] + payload_heuristics(path) + ["-T", "fields", "-E", "separator=|",
         "-e", "frame.number", "-e", "frame.protocols", "-e", "_ws.malformed",
         "-e", "_ws.expert.severity", "-e", "_ws.expert.message", "-e", "macc.opcode", "-e", "infiniband.ieth"],
        check=True, capture_output=True, text=True).stdout
    problems = []
    ieth = {}
    frames = pauses = 0
    for line in out.splitlines():
        num, protos, malformed, severity, message, macc_op, ieth_rkey = (line.split("|") + [""] * 7)[:7]
        frames += 1
        if ieth_rkey:
            ieth[int(num)] = int(ieth_rkey.split(",")[0], 16)
        if protos.split(":")[-1] == "macc":
            pauses += 1
            if macc_op != "0x0001":
                problems.append(f"frame {num}: MAC Control opcode {macc_op}, not PAUSE")
        elif "infiniband" not in protos.split(":"):
            problems.append(f"frame {num}: not dissected as InfiniBand ({protos})")
        if malformed:
            problems.append(f"frame {num}: malformed")
        sev = max([int(s, 0) for s in severity.split(",") if s] or [0])
        if sev >= EXPERT_WARNING:
            problems.append(f"frame {num}: expert: {message}")
    return frames, pauses, problems, ieth


def scapy_icrc(data):
    """(the frame as carried, the frame with the ICRC scapy's RoCE layer
    computes for it), both without Ethernet padding (the ICRC ends the IP
    datagram), or None if scapy does not see RoCEv2 in it."""
    q = Ether(data)
    if UDP not in q or q[UDP].dport != ROCEV2_PORT or BTH not in q:
        return None
    data = data[:ETH_HDR_BYTES + (q[IPv6].plen + IPV6_HDR_BYTES if IPv6 in q else q[IP].len)]
    q = Ether(data)
    q[BTH].icrc = None
    return data, raw(q)


def icrc_problems(path, ts_ieth):
    """The ICRC of every frame, and the IETH of those that carry one:
    (problems, frames with an IETH)."""
    problems = []
    n_ieth = 0
    for i, p in enumerate(rdpcap(path), 1):
        if Ether in p and p[Ether].type == ETHERTYPE_MAC_CTRL:
            data = raw(p)
            if p[Ether].dst != PAUSE_DA or len(data) != 60 or data[14:16] != b"\x00\x01" or any(data[18:]):
                problems.append(f"frame {i}: MAC Control frame that is no PAUSE frame: {data[:18].hex()}")
            continue
        r = scapy_icrc(raw(p))
        if r is None:
            problems.append(f"frame {i}: not RoCEv2")
            continue
        data, good = r
        if good != data:
            problems.append(f"frame {i}: ICRC {data[-4:].hex()} differs from scapy's {good[-4:].hex()}")
        msg, n = ieth_problem(i, p, ts_ieth)
        n_ieth += n
        if msg:
            problems.append(msg)
    return problems, n_ieth


# IBTA Vol. 1 table 99: the CM's attribute IDs
OP_SEND_LAST_INV, OP_SEND_ONLY_INV = 0x16, 0x17  # RC opcodes carrying an IETH
BTH_BYTES = 12


def ieth_problem(i, p, ts_ieth):
    """A SEND LAST / ONLY with invalidate: the IETH's rkey as scapy reads it
    (the 4 bytes behind the BTH) must be the one tshark dissected; no other
    frame may have an IETH in tshark's view. (problem or None, 1 if IETH)"""
    if p[BTH].opcode not in (OP_SEND_LAST_INV, OP_SEND_ONLY_INV):
        if i in ts_ieth:
            return f"frame {i}: tshark finds an IETH in opcode {p[BTH].opcode:#x}", 0
        return None, 0
    after = raw(p[UDP].payload)[BTH_BYTES:BTH_BYTES + 4]
    rkey = int.from_bytes(after, "big") if len(after) == 4 else None
    if rkey is None or ts_ieth.get(i) != rkey:
        return f"frame {i}: IETH rkey {rkey} (scapy) vs {ts_ieth.get(i)} (tshark)", 1
    return None, 1


CM_ATTRS = {"REQ": 0x10, "MRA": 0x11, "REJ": 0x12, "REP": 0x13, "RTU": 0x14, "DREQ": 0x15, "DREP": 0x16}
MGMT_CLASS_CM = 0x07
GSI_QPN = 1


def cm_problems(path, want, other_want=0):
    """The frames to QP1 against want: [(message name, IP source)], and
    other_want frames to QP1 that are no CM MAD."""
    out = subprocess.run(
        ["tshark", "-r", path] + payload_heuristics(path) + ["-Y", f"infiniband.bth.destqp == {GSI_QPN}",
         "-T", "fields", "-E", "separator=|", "-e", "frame.number", "-e", "infiniband.mad.mgmtclass",
         "-e", "infiniband.mad.attributeid", "-e", "ip.src", "-e", "ipv6.src"],
        check=True, capture_output=True, text=True).stdout
    names = {v: k for k, v in CM_ATTRS.items()}
    got = []
    problems = []
    others = []
    for line in out.splitlines():
        num, mclass, attr, src4, src6 = (line.split("|") + [""] * 5)[:5]
        if not mclass or int(mclass, 0) != MGMT_CLASS_CM or not attr:
            others.append(f"frame {num}: to QP1 but no CM MAD (class {mclass!r})")
            continue
        got.append((names.get(int(attr, 0), attr), src4 or src6, num))
    if [(n, s) for n, s, _ in got] != want:
        problems.append("CM messages to QP1: " + (", ".join(f"{n}@{s} (frame {f})" for n, s, f in got) or "none") +
                        "; want " + ", ".join(f"{n}@{s}" for n, s in want))
    if len(others) != other_want:
        problems += others + [f"{len(others)} frames to QP1 that are no CM MAD; want {other_want}"]
    return problems, len(got)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--min-frames", type=int, default=1, help="fail if a file holds fewer frames")
    ap.add_argument("--cm", help="the CM messages to QP1 the capture must hold, in order: MSG@IP,...")
    ap.add_argument("--qp1-other", type=int, default=0,
                    help="with --cm: frames to QP1 that are no CM MAD the capture must hold (0)")
    ap.add_argument("pcaps", nargs="+")
    args = ap.parse_args()
    want_cm = None
    if args.cm:
        want_cm = []
        for item in args.cm.split(","):
            name, _, src = item.partition("@")
            if name not in CM_ATTRS or not src:
                ap.error(f"--cm: {item!r} is not MSG@IP with MSG one of {', '.join(CM_ATTRS)}")
            want_cm.append((name, src))
    failed = False
    for path in args.pcaps:
        frames, pauses, problems, ts_ieth = tshark_problems(path)
        icrc_p, n_ieth = icrc_problems(path, ts_ieth)
        problems += icrc_p
        if frames < args.min_frames:
            problems.append(f"only {frames} frames (want at least {args.min_frames})")
        n_cm = 0
        if want_cm is not None:
            cm_p, n_cm = cm_problems(path, want_cm, args.qp1_other)
            problems += cm_p
        status = "ok" if not problems else "FAIL"
        print(f"{status} {path}: {frames} frames" + (f" ({pauses} PAUSE)" if pauses else "") +
              (f", {n_cm} CM MADs to QP1" if want_cm is not None else "") +
              (f", {n_ieth} with an IETH" if n_ieth else ""))
        for msg in problems[:20]:
            print(f"  {msg}")
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
