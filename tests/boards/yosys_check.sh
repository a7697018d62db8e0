#!/usr/bin/env bash
# Each board top through the pinned yosys with its vendor IP as black boxes
# (boards/common/yosys_board.py: every module resolved, every port connected
# as declared, no latch, no `check` problem; small tables), after checking
# that the black boxes' port lists match the tops (gen_blackbox.py --check);
# then a planted mistake (the glue's reset input misnamed in a copy of the
# U250 top) must fail. synth_xilinx of the tops is make hw-report's.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
fail() { echo "FAIL: $*"; exit 1; }
python3 boards/common/gen_blackbox.py --check || fail "black boxes stale"
for b in au250 kcu105; do
	out=$(python3 boards/common/yosys_board.py --board $b 2>&1) || { echo "$out" | tail -20; fail "$b"; }
	grep "^yosys_board $b: rnic_$b (elaborated), no problem, no latch" <<<"$out" || { echo "$out" | tail -20; fail "$b: no summary"; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r rtl boards "$tmp/"
sed -i 's/\.core_rst_in(!axi_aresetn)/.core_reset_in(!axi_aresetn)/' "$tmp/boards/au250/rtl/rnic_au250.sv"
grep -q core_reset_in "$tmp/boards/au250/rtl/rnic_au250.sv" || fail "planting the mistake"
out=$(python3 boards/common/yosys_board.py --board au250 --root "$tmp" --out "$tmp/out" 2>&1) &&
	fail "self-test: a misnamed port passed"
grep "does not have a port named 'core_reset_in'" "$tmp/out/yosys.log" || fail "self-test: not failed for the misnamed port"
echo "self-test: the misnamed port failed the elaboration, as it must"
echo "boards yosys: ok"
