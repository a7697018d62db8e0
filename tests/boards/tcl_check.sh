#!/usr/bin/env bash
# The board builds' Tcl under plain tclsh against a recording stub of the
# vendor commands (tests/boards/tcl_check.tcl says what is checked), for each
# board, with the formats' PCI IDs and with IDs given at build time; then the
# check's self-test: copies of the tree with one planted mistake each (a
# source missing, the board XDC not read, a broken XDC line, a pin on a port
# the top lacks, the IP given the wrong device ID, timing not met) must fail.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
fail() { echo "FAIL: $*"; exit 1; }
command -v tclsh >/dev/null || fail "tclsh is not installed (Debian package tcl; make deps)"
make -s firmware >/dev/null || fail "make firmware"
export RNIC_FW_HEX=$root/build/firmware/rnic_fw.hex
export RNIC_PICORV32=$(bash scripts/picorv32-path.sh)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for b in au250 kcu105; do
	out=$(tclsh tests/boards/tcl_check.tcl $b "$root" 2>&1) || { echo "$out"; fail "$b"; }
	grep '^tcl-check' <<<"$out"
	out=$(RNIC_PCI_VENDOR_ID=1234 RNIC_PCI_DEVICE_ID=ABCD tclsh tests/boards/tcl_check.tcl $b "$root" 2>&1) ||
		{ echo "$out"; fail "$b with RNIC_PCI_VENDOR_ID/RNIC_PCI_DEVICE_ID"; }
	grep 'PCI 1234:abcd' <<<"$out" >/dev/null || fail "$b: the build-time IDs were not used: $out"
	out=$(RNIC_PCI_VENDOR_ID=12345 tclsh tests/boards/tcl_check.tcl $b "$root" 2>&1) && fail "$b: a 5-digit vendor ID was accepted"
	grep 'RNIC_PCI_VENDOR_ID=12345 is not a 16-bit PCI ID' <<<"$out" >/dev/null || fail "$b: bad ID: $out"
done

# planted mistakes: each must make the check fail, with the reason named
plant() {  # name board expected-message edit-command...
	local name=$1 board=$2 want=$3; shift 3
	local t=$tmp/$name
	mkdir -p "$t"
	cp -r rtl constraints boards "$t/"
	(cd "$t" && eval "$@") || fail "planting $name"
	local out
	if out=$(tclsh tests/boards/tcl_check.tcl "$board" "$t" 2>&1); then
		echo "$out"; fail "self-test: the check passed with a planted mistake ($name)"
	fi
	grep -F -- "$want" <<<"$out" >/dev/null || { echo "$out"; fail "self-test $name: no '$want' in the output"; }
	echo "self-test $name: failed as it must: $(grep -F -- "$want" <<<"$out" | head -1)"
}
plant missing-source au250 "no such file" \
	"sed -i 's|boards/au250/rtl/rnic_au250.sv\\]|boards/au250/rtl/rnic_au250.sv boards/au250/rtl/rnic_au250_pll.sv]|' boards/au250/build.tcl"
plant board-rtl-unread kcu105 "board source not read" "cp boards/kcu105/rtl/rnic_kcu105.sv boards/kcu105/rtl/rnic_kcu105_extra.sv"
plant xdc-not-read kcu105 "constraint file not read" "sed -i '/read_xdc \\[file join \$root constraints/d' boards/common/build.tcl"
plant xdc-broken au250 "incomplete Tcl command" "echo 'set_property -dict {PACKAGE_PIN BC21 [get_ports {led[0]}]' >> constraints/au250.xdc"
plant xdc-unknown-cmd au250 "invalid command name" "echo 'set_propery PACKAGE_PIN BC21 [get_ports {led[0]}]' >> constraints/au250.xdc"
plant xdc-foreign-port kcu105 "which rnic_kcu105 lacks" "echo 'set_property PACKAGE_PIN AA1 [get_ports sfp1_rx_p]' >> constraints/kcu105.xdc"
plant pin-missing kcu105 "has no constraint (pin)" "sed -i '/sfp0_tx_disable_b\\]/d' constraints/kcu105.xdc"
plant wrong-device-id au250 "CONFIG.pf0_device_id is" "sed -i 's|CONFIG.pf0_device_id \$rnic_pci_device_id|CONFIG.pf0_device_id 903f|' boards/common/pcie_ip.tcl"
plant ip-not-created kcu105 "which no create_ip makes" "sed -i 's|-module_name rnic_dma_upsize|-module_name rnic_dma_upsizer|; s|get_ips rnic_dma_upsize\\]|get_ips rnic_dma_upsizer]|' boards/kcu105/ip.tcl"
out=$(STUB_SLACK=-0.2 tclsh tests/boards/tcl_check.tcl kcu105 "$root" 2>&1) && fail "self-test: timing not met passed"
grep 'timing not met' <<<"$out" >/dev/null || { echo "$out"; fail "self-test timing: no message"; }
echo "self-test timing-not-met: failed as it must"
echo "boards tcl: ok"
