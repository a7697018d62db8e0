#!/usr/bin/env bash
# rnic-info on a machine without a card: "no OpenRNIC device found" and why,
# exit status 1; -d with a BDF that holds no card says what is there instead.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
info=build/bin/rnic-info
fail() { echo "FAIL: $*"; exit 1; }
# the formats' PCI IDs, from the generated header
vid=$(sed -n 's/^#define RNIC_PCI_VENDOR_ID 0x\([0-9a-f]*\).*/\1/p' host/include/rnic/rnic_hw.h)
did=$(sed -n 's/^#define RNIC_PCI_DEVICE_ID 0x\([0-9a-f]*\).*/\1/p' host/include/rnic/rnic_hw.h)
ids=$(printf '%04x:%04x' "0x$vid" "0x$did")
[ "$ids" != 0000:0000 ] || fail "no PCI IDs in rnic_hw.h"

if [ -n "$($info -l 2>/dev/null)" ]; then
	echo "SKIP: an OpenRNIC is present: $($info -l | head -1)"
	exit 0
fi
err=$($info 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] || fail "exit status $rc, want 1"
want="rnic-info: no OpenRNIC device found: no PCI device $ids on this machine (check \`lspci -d $ids\`; is the FPGA programmed and the bus rescanned? echo 1 > /sys/bus/pci/rescan)"
[ -d /sys/bus/pci/devices ] || want="rnic-info: no OpenRNIC device found: this system exposes no PCI bus (/sys/bus/pci/devices is missing)"
[ "$err" = "$want" ] || fail "stderr '$err'"
echo "$err"
$info -l >/dev/null 2>&1; [ $? -eq 1 ] || fail "-l without a card must exit 1"

# RNIC_PCI_ID: another ID pair is looked for (a bitstream built with other IDs)
if [ -d /sys/bus/pci/devices ]; then
	err=$(RNIC_PCI_ID=1234:abcd $info 2>&1 >/dev/null); rc=$?
	[ $rc -eq 1 ] || fail "RNIC_PCI_ID=1234:abcd: exit status $rc, want 1"
	[ "$err" = "${want//$ids/1234:abcd}" ] || fail "RNIC_PCI_ID=1234:abcd: stderr '$err'"
	echo "$err"
fi
err=$(RNIC_PCI_ID=10ee $info -l 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] || fail "RNIC_PCI_ID=10ee: exit status $rc, want 1"
grep -qxF 'rnic: RNIC_PCI_ID="10ee" is not a PCI ID pair (vvvv:dddd, hexadecimal, as `lspci -n` prints)' <<<"$err" ||
	fail "RNIC_PCI_ID=10ee: '$err'"
echo "$err"

err=$($info -d 0000:7f:1f.7 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] || fail "-d absent: exit $rc"
grep -qx 'rnic: no OpenRNIC device found: no PCI device at 0000:7f:1f.7 (lspci -D lists the devices)' <<<"$err" || fail "-d absent: '$err'"
grep -qx 'rnic-info: 0000:7f:1f.7: cannot open: No such device' <<<"$err" || fail "-d absent: '$err'"
err=$($info -d bogus 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] || fail "-d bogus: exit $rc"
grep -q 'is not a PCI address' <<<"$err" || fail "-d bogus: '$err'"
echo "rnic-info without a card: ok"
