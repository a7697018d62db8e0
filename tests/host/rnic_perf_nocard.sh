#!/usr/bin/env bash
# rnic-perf against a card (the peer session of host/tools/perf_link.c on
# the pci backend) on a machine without one: server and client both stop
# before any network traffic with the library's "no OpenRNIC device found"
# message and exit 1, and say nothing else; bad options exit 2.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
perf=build/bin/rnic-perf
fail() { echo "FAIL: $*"; exit 1; }
# the formats' PCI IDs, from the generated header
vid=$(sed -n 's/^#define RNIC_PCI_VENDOR_ID 0x\([0-9a-f]*\).*/\1/p' host/include/rnic/rnic_hw.h)
did=$(sed -n 's/^#define RNIC_PCI_DEVICE_ID 0x\([0-9a-f]*\).*/\1/p' host/include/rnic/rnic_hw.h)
ids=$(printf '%04x:%04x' "0x$vid" "0x$did")
[ "$ids" != 0000:0000 ] || fail "no PCI IDs in rnic_hw.h"

if [ -n "$(build/bin/rnic-info -l 2>/dev/null)" ]; then
	echo "SKIP: an OpenRNIC is present"
	exit 0
fi
want="rnic: no OpenRNIC device found: no PCI device $ids on this machine (check \`lspci -d $ids\`; is the FPGA programmed and the bus rescanned? echo 1 > /sys/bus/pci/rescan)"
[ -d /sys/bus/pci/devices ] || want="rnic: no OpenRNIC device found: this system exposes no PCI bus (/sys/bus/pci/devices is missing)"
for role in server client; do
	args=(write_bw -p 18599 --peer-mac 02:00:00:00:00:0a)
	[ $role = client ] && args+=(127.0.0.1)
	out=$(timeout 20 $perf "${args[@]}" 2>&1); rc=$?
	[ $rc -eq 1 ] || fail "$role: exit status $rc, want 1: $out"
	grep -qxF "$want" <<<"$out" || fail "$role: no library message: '$out'"
	grep -qx "rnic-perf: $role: cannot open an OpenRNIC: No such device" <<<"$out" || fail "$role: '$out'"
	[ "$(wc -l <<<"$out")" -eq 2 ] || fail "$role: more than the two lines: '$out'"
	grep -qi "not available" <<<"$out" && fail "$role: '$out'"
	echo "$role: $out"
done
# RNIC_PCI_ID: the library looks for that pair instead; a malformed one is refused
if [ -d /sys/bus/pci/devices ]; then
	out=$(RNIC_PCI_ID=1234:abcd timeout 20 $perf write_bw -p 18599 --peer-mac 02:00:00:00:00:0a 2>&1); rc=$?
	[ $rc -eq 1 ] || fail "RNIC_PCI_ID=1234:abcd: exit status $rc, want 1: $out"
	grep -qxF "${want//$ids/1234:abcd}" <<<"$out" || fail "RNIC_PCI_ID=1234:abcd: '$out'"
fi
out=$(RNIC_PCI_ID=xyz timeout 20 $perf write_bw -p 18599 --peer-mac 02:00:00:00:00:0a 2>&1); rc=$?
[ $rc -eq 1 ] || fail "RNIC_PCI_ID=xyz: exit status $rc, want 1: $out"
grep -qxF 'rnic: RNIC_PCI_ID="xyz" is not a PCI ID pair (vvvv:dddd, hexadecimal, as `lspci -n` prints)' <<<"$out" ||
	fail "RNIC_PCI_ID=xyz: '$out'"
# nothing may listen on the port afterwards (it never opened one)
if command -v ss >/dev/null && ss -ltn | grep ':18599 ' >/dev/null; then fail "port 18599 left listening"; fi
for bad in "" "nosuch_bw --sim" "write_bw -m 1000 --sim" "write_bw -s 0 --sim" "write_bw --sim host" \
	"atomic_bw -s 16 --sim" "write_lat -t 4 --sim" "write_bw --width 128 --sim" "write_bw -I 65 --sim" \
	"write_bw 127.0.0.1" "write_bw --peer-mac 02:00:00:00:00:0a --pcap x.pcap" \
	"write_bw --sim --peer-mac 02:00:00:00:00:0a" "send_lat -a --peer-mac 02:00:00:00:00:0a" \
	"write_bw -c UD --peer-mac 02:00:00:00:00:0a" "send_bw -c XY --sim" "send_bw -c UD --sim" \
	"send_bw --use-srq --sim" "send_bw -c UD --use-srq --peer-mac 02:00:00:00:00:0a" \
	"write_bw -R --sim" "send_bw -R -c UD --peer-mac 02:00:00:00:00:0a" \
	"send_bw -R --use-srq --peer-mac 02:00:00:00:00:0a"; do
	$perf $bad >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] || fail "'rnic-perf $bad': exit status $rc, want 2"
done
# --mw: a window type, 1 or 2; against perftest; the tests whose peer
# addresses our buffer (not SEND, not UD); each refusal says why
for bad in "write_bw --mw 3 --peer-mac 02:00:00:00:00:0a" "write_bw --mw 0 --peer-mac 02:00:00:00:00:0a" \
	"send_bw --mw 1 --sim" "send_bw --mw 1 --peer-mac 02:00:00:00:00:0a" \
	"send_lat --mw 2 --peer-mac 02:00:00:00:00:0a" "send_bw -c UD --mw 2 --peer-mac 02:00:00:00:00:0a"; do
	out=$($perf $bad 2>&1); rc=$?
	[ $rc -eq 2 ] && grep -q "^rnic-perf: --mw: " <<<"$out" || fail "'rnic-perf $bad': exit status $rc, '$out'"
done
$perf --help | grep -- '--mw 1|2' >/dev/null || fail "--help does not list --mw"
# -R with -g: refused as perftest refuses it, saying why
out=$($perf send_bw -R -g --peer-mac 02:00:00:00:00:0a 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "multicast does not go with rdma_cm" <<<"$out" || fail "-R -g: exit $rc, '$out'"
$perf --help | grep '^usage: ' >/dev/null || fail "--help"
echo "rnic-perf without a card: ok"
