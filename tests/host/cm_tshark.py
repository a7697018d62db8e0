#!/usr/bin/env python3
"""The CM codec against Wireshark's InfiniBand dissector: the wire images of
a REQ, REP, RTU, REJ, DREQ and DREP as host/src/cm_mad.c writes them
(`test_cm_mad --dump`: the bytes and the field values they were made from)
go into RoCEv2 frames to QP1 (BTH UD SEND Only, DETH with the GSI Q_Key,
ICRC by scapy), written to a pcap; tshark decodes it, and every field it
shows must equal the value the codec was given. A field tshark does not
show at all is a failure too (the dissector did not see a CM message)."""
import json
import os
import struct
import subprocess
import sys
import tempfile

from scapy.all import Ether, IP, UDP, Raw, raw, wrpcap  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def hw_const(name):
    """A constant of host/include/rnic/rnic_hw.h (generated from docs/formats.toml)."""
    with open(os.path.join(ROOT, "host", "include", "rnic", "rnic_hw.h")) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[0] == "#define" and parts[1] == "RNIC_" + name:
                return int(parts[2].rstrip("u"), 0)
    raise KeyError(name)


ROCEV2_PORT = hw_const("ROCEV2_UDP_PORT")
GSI_QPN = hw_const("GSI_QPN")
GSI_QKEY = hw_const("GSI_QKEY")
PKEY = hw_const("DEFAULT_PKEY")
UD_SEND_ONLY = hw_const("GSI_BTH_OPCODE")


def frame(mad, psn):
    deth = struct.pack(">II", GSI_QKEY, GSI_QPN)
    p = (Ether(src="02:11:22:33:44:55", dst="02:11:22:33:44:66") /
         IP(src="10.0.0.1", dst="10.0.0.2", flags="DF") /
         UDP(sport=0xc000, dport=ROCEV2_PORT, chksum=0) /
         BTH(opcode=UD_SEND_ONLY, pkey=PKEY, dqpn=GSI_QPN, psn=psn, icrc=None) /
         Raw(deth + mad))
    return Ether(raw(p))


def norm(v):
    """A tshark value as a number where it is one."""
    try:
        return int(v, 0)
    except ValueError:
        return v


def main():
    dump = subprocess.run([os.path.join(ROOT, "build", "host", "tests", "test_cm_mad"), "--dump"],
                          check=True, capture_output=True, text=True).stdout
    msgs = json.loads(dump)
    fields = sorted({f for m in msgs for f in m["fields"]})
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cm.pcap")
        wrpcap(path, [frame(bytes.fromhex(m["mad"]), i) for i, m in enumerate(msgs)])
        cmd = ["tshark", "-r", path, "-T", "fields", "-E", "separator=|", "-E", "occurrence=f",
               "-e", "infiniband.deth.q_key", "-e", "_ws.malformed"]
        for f in fields:
            cmd += ["-e", f]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()
    if len(out) != len(msgs):
        print(f"FAIL: tshark shows {len(out)} frames, {len(msgs)} written")
        return 1
    for m, line in zip(msgs, out):
        vals = line.split("|")
        qkey, malformed, got = vals[0], vals[1], dict(zip(fields, vals[2:]))
        if norm(qkey) != GSI_QKEY:
            print(f"FAIL {m['name']}: DETH Q_Key {qkey}")
            failures += 1
        if malformed:
            print(f"FAIL {m['name']}: tshark says malformed")
            failures += 1
        checked = 0
        for f, want in m["fields"].items():
            g = got.get(f, "")
            if g == "":
                print(f"FAIL {m['name']}: tshark shows no {f}")
                failures += 1
            elif norm(g) != want:
                print(f"FAIL {m['name']}: {f} = {g}, the codec wrote {want}")
                failures += 1
            else:
                checked += 1
        print(f"{m['name']}: {checked} fields as tshark decodes them")
    print("cm_tshark:", "FAIL" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
