#!/usr/bin/env python3
"""Check `rnic-sim --replay FILE --frames-json` line by line against an
independent decode of the same capture.

For every capture and seed, runs the program (which must exit 0) and
compares each JSON line with:
  - the verdict of the receive checker's reference classifier
    (tests/rtl/rnic_rx_check/gen.py: the same ordered checks, its own ICRC);
  - scapy's dissection (Ether / IP or IPv6 / UDP / scapy.contrib.roce BTH)
    for opcode and name, dest QPN, PSN, ack-req, solicited, migreq, pad,
    P_Key, addresses, traffic class, TTL / hop limit, flow label, UDP source
    port; the extension headers after the BTH read from the frame's bytes
    by opcode (IBTA Vol. 1 Table 38), and from them the header lengths and
    the payload length;
  - scapy's ICRC (tests/e2e/check_pcap.py) for icrc_ok, scapy's IPv4 header
    checksum for ip_csum_ok, the pcap's timestamp and length;
  - with --expect FILE.json, the verdicts (and hdr_bad, ip_version) the
    frames were generated with (tests/replay/gen_frames.py).
Prints "frame N: field: expected X, got Y" for every disagreement, one line
per capture, and exits non-zero if anything disagreed.

    check_replay.py [--bin BIN] [--width 64|512] [--seeds 1,2] [--expect F] PCAP|DIR...
(a DIR stands for every *.pcap / *.pcapng under it)
"""
import argparse
import glob
import importlib.util
import ipaddress
import json
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "rtl", "rnic_pkt_tx"))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
import roce_vec as rv  # noqa: E402
import check_pcap  # noqa: E402

from scapy.all import Ether, IP, IPv6, UDP, RawPcapReader  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402


def load_ref():
    spec = importlib.util.spec_from_file_location(
        "rx_check_ref", os.path.join(ROOT, "tests", "rtl", "rnic_rx_check", "gen.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


REF = load_ref()
P = rv.PKG
NAMES = ["ok", "not_roce", "bad_udp_port", "bad_ip_csum", "bad_icrc", "malformed"]
# RC opcodes as RC_<name>, UD ones (OP_UD_<name>) as UD_<name>
OP_NAMES = {v: ("" if k.startswith("OP_UD_") else "RC_") + k[len("OP_"):] for k, v in P.items()
            if k.startswith("OP_")}
ALWAYS = {"frame", "len", "ts_ns", "ethertype", "verdict", "ip_version", "ip_csum_ok", "icrc_ok"}
PARSED = {"hdr_bad", "opcode", "opcode_name", "dest_qpn", "psn", "ack_req", "solicited", "migreq",
          "pad", "pkey", "eth_dst", "eth_src", "ip_src", "ip_dst", "tclass", "ttl", "udp_sport",
          "hdr_len", "payload_len", "payload_streamed", "payload_data_ok"}
OPTIONAL = {"orig_len", "flow_label", "reth", "aeth", "immdt", "deth"}
EXTS = ("reth", "aeth", "immdt", "deth")


def scapy_op_name(op):
    """scapy's name for an opcode in the form the program uses, or None."""
    name = BTH.opcode.i2s.get(op) if hasattr(BTH, "opcode") else None
    if name is None:
        name = BTH().get_field("opcode").i2s.get(op)
    if name is None or not (name.startswith("RC_") or name.startswith("UD_")):
        return None
    return name.replace("_WITH_IMMEDIATE", "_IMM")


def ip_csum_good(frame):
    """scapy's IPv4 header checksum of the frame's header equals the one carried."""
    ip = Ether(frame)[IP]
    carried = ip.chksum
    hdr = IP(bytes(ip)[:ip.ihl * 4])
    hdr.chksum = None
    return IP(bytes(hdr)).chksum == carried


def expected(frame, ts_ns, wirelen):
    """The line the program must print for a frame, as far as it is defined."""
    e = {"len": len(frame), "ts_ns": ts_ns,
         "ethertype": struct.unpack("!H", frame[12:14])[0] if len(frame) >= 14 else None}
    if wirelen != len(frame):
        e["orig_len"] = wirelen
    cls = NAMES[REF.classify(frame)]
    e["verdict"] = cls
    is_ip = cls in ("ok", "bad_icrc", "bad_udp_port", "bad_ip_csum")
    v6 = len(frame) >= 14 and struct.unpack("!H", frame[12:14])[0] == P["ETHERTYPE_IPV6"]
    e["ip_version"] = (6 if v6 else 4) if is_ip else None
    e["ip_csum_ok"] = ip_csum_good(frame) if is_ip and not v6 else None
    if cls not in ("ok", "bad_icrc"):
        e["icrc_ok"] = None
        return e, False
    carried, good = check_pcap.scapy_icrc(frame)
    e["icrc_ok"] = carried == good

    p = Ether(frame)
    ip = p[IPv6] if v6 else p[IP]
    udp, bth = p[UDP], p[BTH]
    ip_len = 40 if v6 else ip.ihl * 4
    bth_off = 14 + ip_len + 8
    ext_off = bth_off + 12
    op = bth.opcode
    ud = op in rv.UD_OPCODES   # BTH, DETH (, ImmDt)
    known = op in rv.RC_OPCODES or ud
    if ud:
        reth, aeth, imm, other = False, False, op == P["OP_UD_SEND_ONLY_IMM"], 0
    else:
        reth, aeth, imm, other = rv.ext_of(op) if known else (False, False, False, 0)
    deth = P["DETH_BYTES"] if ud else 0
    ext = reth * P["RETH_BYTES"] + aeth * P["AETH_BYTES"] + imm * P["IMMDT_BYTES"] + other + deth
    plen = udp.len - 8 - 12 - ext - bth.padcount - 4
    bad = not known or bth.version != 0 or plen < 0
    if cls == "ok" and bad:
        e["verdict"] = "malformed"
    e.update(hdr_bad=bad, opcode=op, opcode_name=OP_NAMES.get(op), dest_qpn=bth.dqpn, psn=bth.psn,
             ack_req=bool(bth.ackreq), solicited=bool(bth.solicited), migreq=bool(bth.migreq),
             pad=bth.padcount, pkey=bth.pkey, eth_dst=p[Ether].dst.lower(), eth_src=p[Ether].src.lower(),
             ip_src=ipaddress.ip_address(ip.src).compressed, ip_dst=ipaddress.ip_address(ip.dst).compressed,
             tclass=ip.tc if v6 else ip.tos, ttl=ip.hlim if v6 else ip.ttl, udp_sport=udp.sport)
    if v6:
        e["flow_label"] = ip.fl
    sname = scapy_op_name(op)
    if sname is not None and sname != e["opcode_name"]:
        raise AssertionError(f"opcode {op}: scapy calls it {sname}, the formats {e['opcode_name']}")
    e["hdr_len"] = {"eth": 14, "ip": ip_len, "udp": 8, "bth": 12,
                    "reth": P["RETH_BYTES"] if reth else 0, "aeth": P["AETH_BYTES"] if aeth else 0,
                    "immdt": P["IMMDT_BYTES"] if imm else 0,
                    "atomiceth": other if op in (P["OP_COMPARE_SWAP"], P["OP_FETCH_ADD"]) else 0,
                    "atomicacketh": other if op == P["OP_ATOMIC_ACKNOWLEDGE"] else 0,
                    "ieth": other if op in (P["OP_SEND_LAST_INV"], P["OP_SEND_ONLY_INV"]) else 0,
                    "deth": deth}
    e["payload_len"] = 0 if bad else plen
    e["payload_streamed"] = e["payload_len"]
    e["payload_data_ok"] = True
    # extension header contents; a bad frame may be too short to hold them
    x = frame[ext_off:]
    if not bad:
        if reth:
            va, rkey, dlen = struct.unpack("!QII", x[:16])
            e["reth"] = {"va": va, "rkey": rkey, "len": dlen}
        if aeth:
            e["aeth"] = {"syndrome": x[0], "msn": int.from_bytes(x[1:4], "big")}
        if imm:
            e["immdt"] = struct.unpack("!I", x[16:20] if reth else x[8:12] if ud else x[:4])[0]
        if ud:
            qkey, sqp = struct.unpack("!II", x[:8])
            e["deth"] = {"qkey": qkey, "src_qpn": sqp & 0xFFFFFF}
    return e, not bad


def read_frames(path):
    """[(bytes, timestamp in ns, wire length)] of a pcap (us or ns) or pcapng."""
    r = RawPcapReader(path)
    frames = []
    for data, m in r:
        if hasattr(m, "tshigh"):  # pcapng: tsresol units per second
            ts = ((m.tshigh << 32) | m.tslow) * 10**9 // m.tsresol
        else:
            ts = m.sec * 10**9 + m.usec * (1 if getattr(r, "nano", False) else 1000)
        frames.append((data, ts, m.wirelen))
    r.close()
    return frames


def compare(n, exp, has_ext, got, label, problems):
    def bad(field, want, have):
        problems.append(f"frame {n}: {field}: expected {json.dumps(want)}, got {json.dumps(have)}")

    if "error" in got:
        bad("error", None, got["error"])
        return
    for k, v in exp.items():
        if k in EXTS and not has_ext:
            continue
        if got.get(k, "(absent)") != v:
            bad(k, v, got.get(k, "(absent)"))
    parsed = "opcode" in exp
    allowed = ALWAYS | OPTIONAL | (PARSED if parsed else set())
    for k in got:
        if k not in allowed:
            bad(k, "(absent)", got[k])
    if parsed:
        for k in EXTS:
            if has_ext and (k in got) != (k in exp):
                bad(k, exp.get(k, "(absent)"), got.get(k, "(absent)"))
    for k, v in (label or {}).items():
        if got.get(k, "(absent)") != v:
            bad(f"{k} (generated label)", v, got.get(k, "(absent)"))


def run(binary, width, seed, path):
    r = subprocess.run([binary, "--replay", path, "--frames-json", "--width", str(width),
                        "--seed", str(seed)], capture_output=True, text=True)
    lines = [json.loads(s) for s in r.stdout.splitlines()]
    return r.returncode, lines, r.stderr.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin", "rnic-sim"))
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--expect", help="per-frame labels (JSON list) for a single capture")
    ap.add_argument("pcaps", nargs="+")
    args = ap.parse_args()
    paths = []
    for p in args.pcaps:
        if os.path.isdir(p):
            paths += sorted(glob.glob(os.path.join(p, "**", "*.pcap"), recursive=True) +
                            glob.glob(os.path.join(p, "**", "*.pcapng"), recursive=True))
        else:
            paths.append(p)
    if not paths:
        print("no captures found")
        return 1
    labels = None
    if args.expect:
        assert len(paths) == 1, "--expect goes with one capture"
        with open(args.expect) as f:
            labels = json.load(f)
    failed = False
    totals = {}
    for path in paths:
        frames = read_frames(path)
        exps = [expected(d, ts, wl) for d, ts, wl in frames]
        if labels is not None and len(labels) != len(frames):
            print(f"FAIL {path}: {len(labels)} labels for {len(frames)} frames")
            failed = True
            continue
        for seed in args.seeds.split(","):
            rc, lines, err = run(args.bin, args.width, seed, path)
            problems = []
            if rc != 0:
                problems.append(f"exit status {rc}: {err}")
            if len(lines) != len(frames):
                problems.append(f"{len(lines)} lines for {len(frames)} frames")
            for i, (got, (exp, has_ext)) in enumerate(zip(lines, exps)):
                if got.get("frame") != i + 1:
                    problems.append(f"line {i + 1}: frame number {got.get('frame')}")
                compare(i + 1, exp, has_ext, got, labels[i] if labels else None, problems)
            counts = {}
            for got in lines:
                counts[got.get("verdict", "error")] = counts.get(got.get("verdict", "error"), 0) + 1
                totals[got.get("opcode_name")] = totals.get(got.get("opcode_name"), 0) + 1
            status = "ok" if not problems else "FAIL"
            print(f"{status} {path} (width {args.width}, seed {seed}): {len(lines)} frames {counts}")
            for msg in problems[:40]:
                print(f"  {msg}")
            if len(problems) > 40:
                print(f"  ... {len(problems) - 40} more")
            failed |= bool(problems)
    seen = sorted(k for k in totals if k)
    print(f"opcodes compared: {', '.join(seen) or 'none'}")
    if not seen:
        print("FAIL: no frame was parsed, nothing compared")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
