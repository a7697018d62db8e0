#!/usr/bin/env python3
"""rnic-info --sim: every field is printed for both simulated NICs, the
capabilities equal what the device's DEV block reports (read independently by
rnic_info_check), the port shows the MAC and GID table sim_pair gave it, and
the counters tell the story of the one 4 KiB RDMA WRITE from sim0 to sim1.
Run from the repository root: python3 tests/host/rnic_info_sim.py [64|512]..."""
import re
import subprocess
import sys

INFO = "build/bin/rnic-info"
CHECK = "build/host/tests/rnic_info_check"
FIELDS = ["transport", "fw_ver", "hw_ver", "vendor_id", "vendor_part_id", "backend", "data_width",
          "clock_mhz", "max_mr_size", "mtt_entries", "max_qp", "max_qp_wr", "max_sge", "max_cq",
          "max_cqe", "max_mr", "max_pd", "max_qp_rd_atom", "max_qp_init_rd_atom", "max_inflight",
          "max_inline_data", "wqe_window", "phys_port_cnt", "state", "max_mtu", "link_layer", "mac"]
COUNTERS = ["tx_frames", "tx_bytes", "rx_frames", "rx_bytes", "rx_drop_not_roce", "rx_drop_udp_port",
            "rx_drop_ip_csum", "rx_drop_icrc", "rx_drop_malformed", "rx_drop_qpn", "rx_drop_overflow",
            "rx_psn_err", "rx_duplicate", "tx_ack", "tx_nak", "rx_ack", "rx_nak", "cqe", "recv_cqe",
            "loc_prot_err", "cq_overrun", "rx_access_err", "tx_rnr_nak", "rx_rnr_nak", "retry",
            "ack_timeout", "tx_wqe_window", "rx_pause_req",
            "rx_pause_stall"]
# sim_pair with all_gids (host/tools/sim_pair.h)
GIDS = [["::ffff:198.18.0.1", "fe80::ff:fe00:a", "2001:db8::1", "2001:db8:1::1"],
        ["::ffff:198.18.0.2", "fe80::ff:fe00:b", "2001:db8::2", "2001:db8:1::2"]]
MACS = ["02:00:00:00:00:0a", "02:00:00:00:00:0b"]

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL", what)


def parse(text):
    """hca_id blocks -> {name: {key: value}}"""
    devs, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^hca_id:\s+(\S+)$", line)
        if m:
            cur = devs.setdefault(m.group(1), {})
            continue
        m = re.match(r"^\s+(GID\[\s*\d+\]|[a-z_0-9]+):\s*(.*)$", line)
        if m and cur is not None:
            key = re.sub(r"\s", "", m.group(1))
            cur[key] = m.group(2).strip()
    return devs


def run(width):
    out = subprocess.run([INFO, "--sim", "-v", "--width", str(width)], capture_output=True, text=True)
    check(out.returncode == 0, f"rnic-info --sim exit {out.returncode}: {out.stderr}")
    devs = parse(out.stdout)
    check(sorted(devs) == ["sim0", "sim1"], f"devices {sorted(devs)}")
    ref = dict(l.split(" ", 1) for l in subprocess.run([CHECK, "--width", str(width)], capture_output=True,
                                                      text=True, check=True).stdout.splitlines())
    check(ref["data_width"] == str(width), f"the checker's world is {ref['data_width']} bits")
    for i, name in enumerate(["sim0", "sim1"]):
        d = devs.get(name, {})
        for f in FIELDS + COUNTERS + [f"GID[{k}]" for k in range(int(ref["gid_table_size"]))]:
            check(f in d, f"{name}: field {f} missing")
        for k, v in ref.items():
            if k in ("gid_table_size",):
                continue
            check(d.get(k) == v, f"{name}: {k} is {d.get(k)!r}, the device reports {v!r}")
        check(d.get("mac") == MACS[i], f"{name}: mac {d.get('mac')}")
        for k, g in enumerate(GIDS[i]):
            check(d.get(f"GID[{k}]") == g, f"{name}: GID[{k}] {d.get(f'GID[{k}]')} != {g}")
        check(d.get("backend") == "sim", f"{name}: backend {d.get('backend')}")
        check(d.get("state") == "unknown (no link status register)", f"{name}: state {d.get('state')}")
    a, b = devs.get("sim0", {}), devs.get("sim1", {})
    c = lambda d, k: int(d.get(k, "-1"))
    # one WRITE of 4096 bytes, one ACK back; the wire loses nothing
    check(c(a, "tx_frames") == c(b, "rx_frames") >= 1, "sim0 tx_frames == sim1 rx_frames >= 1")
    check(c(b, "tx_frames") == c(a, "rx_frames") >= 1, "sim1 tx_frames == sim0 rx_frames >= 1")
    check(c(a, "tx_bytes") == c(b, "rx_bytes") > 4096, "sim0 tx_bytes == sim1 rx_bytes > 4096")
    check(c(b, "tx_bytes") == c(a, "rx_bytes"), "sim1 tx_bytes == sim0 rx_bytes")
    check(c(b, "tx_ack") == c(a, "rx_ack") >= 1, "sim1 tx_ack == sim0 rx_ack >= 1")
    check(c(a, "cqe") == 1 and c(b, "cqe") == 0, "one send CQE, on sim0")
    for k in COUNTERS:
        if k.startswith("rx_drop") or k in ("tx_nak", "rx_nak", "retry", "ack_timeout", "loc_prot_err",
                                            "rx_access_err", "cq_overrun"):
            check(c(a, k) == 0 and c(b, k) == 0, f"{k} is 0 on both")
    print(f"rnic-info --sim --width {width}: {len(devs)} devices, "
          f"{sum(len(d) for d in devs.values())} fields checked against the device")


for w in sys.argv[1:] or ["64", "512"]:
    run(int(w))
# the counters only with -v
plain = subprocess.run([INFO, "--sim"], capture_output=True, text=True)
check(plain.returncode == 0 and "tx_frames" not in plain.stdout and "fw_ver" in plain.stdout,
      "without -v: no counters")
h = subprocess.run([INFO, "--help"], capture_output=True, text=True)
check(h.returncode == 0 and "--sim" in h.stdout and "usage: rnic-info" in h.stdout, "--help")
bad = subprocess.run([INFO, "--bogus"], capture_output=True, text=True)
check(bad.returncode == 2, f"a bad option exits 2, not {bad.returncode}")
bad = subprocess.run([INFO, "--sim", "-d", "0000:03:00.0"], capture_output=True, text=True)
check(bad.returncode == 2, "--sim with -d exits 2")
print("FAILED" if failures else "ok", f"({failures} failures)")
sys.exit(1 if failures else 0)
