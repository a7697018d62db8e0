#!/usr/bin/env python3
"""Planted miswirings of a board top: the board simulation must catch each.

For every plant below, an altered copy of the board's top (one connection
changed, as a slip in the top would change it) is built into a board model
of its own (sim/rules.mk: SIM_BOARD_TOP_<board>, SIM_BOARD_OBJ_<board>),
beside the real model of the other board, and the board soak runs on it.
The plant passes when the soak fails, and fails for the reason the plant
should cause (the text the run must print), so a model that stopped checking
what the plant breaks is seen.

  planted_miswiring.py [--only NAME] [--keep]
Each plant costs a Verilator build of its board's model (about 1 minute for
the KCU105's 64-bit core, 2 for the U250's 512-bit one, on 2 cores) and a
short soak; the run is in make test-long.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# name, board, the connection as the top has it, as the plant makes it,
# what the failing run must print (a regular expression), why
PLANTS = [
    ("mac-fcs-insert-off", "kcu105",
     ".ctl_tx_fcs_ins_enable_0(1'b1)", ".ctl_tx_fcs_ins_enable_0(1'b0)",
     r"ties a setting the core cannot work with",
     "the MAC told not to append the FCS: the core sends frames without one"),
    ("bar-read-address-bit2", "kcu105",
     ".s_axil_araddr(l_araddr[15:0])", ".s_axil_araddr(l_araddr[15:0] ^ 16'h4)",
     r"no OpenRNIC device",
     "BAR0 read address bit 2 inverted: every register read answers from the register beside it"),
    ("dma-read-address-bit5", "kcu105",
     ".s_axib_araddr(u_araddr)", ".s_axib_araddr(u_araddr ^ 64'h20)",
     r"not as expected",
     "DMA read address bit 5 inverted on the way to the bridge: reads return the bytes of the neighbouring 32-byte beat"),
    ("mac-rx-wrong-clock", "au250",
     ".mac_rx_clk(mac_clk)", ".mac_rx_clk(core_clk)",
     r"gave up after \d+ cycles \(no activity\)",
     "the receive stream taken into the core's clock domain on the core's clock instead of the MAC's"),
]

SOAK = ["--qps", "2", "--ops", "24", "--bytes", "16K", "--seed", "3", "--no-faults"]


def plant_top(board, old, new, out):
    src = os.path.join(ROOT, "boards", board, "rtl", f"rnic_{board}.sv")
    text = open(src).read()
    n = text.count(old)
    if n != 1:
        sys.exit(f"planted_miswiring: '{old}' is in {src} {n} times, not once: the plant is out of date")
    with open(out, "w") as f:
        f.write(text.replace(old, new))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", help="run only the plant of this name")
    ap.add_argument("--keep", action="store_true", help="keep each plant's build")
    a = ap.parse_args()
    plants = [p for p in PLANTS if not a.only or p[0] == a.only]
    if not plants:
        sys.exit(f"planted_miswiring: no plant named {a.only}")
    # the real models (the other board's is reused as it is)
    subprocess.run(["make", "-s", "rnic-soak-board"], cwd=ROOT, check=True)
    failed = 0
    for name, board, old, new, expect, why in plants:
        d = os.path.join(ROOT, "build", "boards-planted", name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        # where the waivers of boards/sim/lint.vlt find a top: */boards/*/rtl/
        top = os.path.join(d, "boards", board, "rtl", f"rnic_{board}.sv")
        os.makedirs(os.path.dirname(top))
        plant_top(board, old, new, top)
        other = "au250" if board == "kcu105" else "kcu105"
        binary = os.path.join(d, "rnic-soak-board")
        mk = ["make", "-s", binary,
              f"SIM_BOARD_BUILD={d}", f"SIM_BOARD_TOP_{board}={top}",
              f"SIM_BOARD_OBJ_{board}={d}/obj_{board}",
              f"SIM_BOARD_OBJ_{other}={ROOT}/build/sim/boards/obj_{other}",
              f"SOAK_BOARD_BIN={binary}"]
        b = subprocess.run(mk, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if b.returncode != 0:
            # a plant the compiler refuses tests nothing of the simulation
            print(f"FAIL {name}: the planted top did not build:\n{b.stdout[-3000:]}")
            failed += 1
            continue
        r = subprocess.run([binary, "--board", board] + SOAK, cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=900)
        tail = "\n".join(r.stdout.splitlines()[-12:])
        if r.returncode == 0:
            print(f"FAIL {name}: the board soak passed with the plant ({why})\n{tail}")
            failed += 1
        elif not re.search(expect, r.stdout):
            print(f"FAIL {name}: the soak failed, but without /{expect}/ ({why})\n{tail}")
            failed += 1
        else:
            first = next((l for l in r.stdout.splitlines() if re.search(expect, l)), "")
            print(f"PASS {name}: caught ({why}): {first.strip()[:200]}")
        if not a.keep:
            shutil.rmtree(d, ignore_errors=True)
    print(f"{len(plants) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
