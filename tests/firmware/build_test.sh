#!/usr/bin/env bash
# The firmware's cross build: `make firmware` reports text/data/bss and that
# the image fits; the hex image has FW_RAM_BYTES/4 lines of one 32-bit
# little-endian word each and starts with the binary; _start (the ELF entry)
# is at FW_RESET_PC; and the budget is enforced: an image budget smaller than
# the image, or a RAM too small for image + bss + stack, fails the build.
set -uo pipefail
cd "$(dirname "$0")/../.."
fails=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
const() { echo "RNIC_$1" | ${CC:-cc} -E -P -include rnic/rnic_hw.h -Ihost/include -x c - | tail -n 1; }

out=$(make -s firmware 2>&1)
rc=$?
echo "$out"
((rc == 0)) && pass "make firmware" || fail "make firmware (exit $rc)"
line=$(grep -E '^rnic_fw: text [0-9]+  data [0-9]+  bss [0-9]+' <<<"$out")
[ -n "$line" ] && pass "sizes reported" || fail "no text/data/bss line"
grep -qx 'rnic_fw: fits' <<<"$out" && pass "fits" || fail "no 'fits' line"

elf=build/firmware/rnic_fw.elf bin=build/firmware/rnic_fw.bin hex=build/firmware/rnic_fw.hex
ram=$(($(const FW_RAM_BYTES))) image_max=$(($(const FW_IMAGE_MAX_BYTES))) stack=$(($(const FW_STACK_BYTES)))
read -r text data bss _ < <(riscv64-unknown-elf-size -B "$elf" | tail -n 1)
((text + data <= image_max)) && pass "image $((text + data)) <= $image_max" || fail "image over budget"
((text + data + bss + stack <= ram)) && pass "RAM $((text + data + bss + stack)) <= $ram" || fail "RAM over budget"
[ "$(wc -l <"$hex")" -eq $((ram / 4)) ] && pass "hex has $((ram / 4)) words" || fail "hex word count"
grep -qvE '^[0-9a-f]{8}$' "$hex" && fail "hex lines not 8 hex digits" || pass "hex format"
first=$(od -An -tx4 -N4 --endian=little "$bin" | tr -d ' ')
[ "$(head -n 1 "$hex")" = "$first" ] && pass "hex word 0 = bin word 0 ($first)" || fail "hex word 0"
nwords=$(( ($(stat -c %s "$bin") + 3) / 4 ))
[ "$(sed -n "${nwords}p" "$hex")" = "$(od -An -tx4 --endian=little -j $(((nwords - 1) * 4)) "$bin" | tr -d ' ' | head -n 1)" ] \
	&& pass "hex last image word" || fail "hex last image word"
[ -z "$(sed -n "$((nwords + 1)),\$p" "$hex" | grep -v '^00000000$')" ] && pass "hex padded with zeros" || fail "hex padding"
entry=$(riscv64-unknown-elf-readelf -h "$elf" | awk '/Entry point/ {print $4}')
[ $((entry)) -eq $(($(const FW_RESET_PC))) ] && pass "entry $entry = FW_RESET_PC" || fail "entry $entry"
riscv64-unknown-elf-readelf -h "$elf" | grep 'RISC-V' >/dev/null && pass "RISC-V ELF" || fail "not a RISC-V ELF"
riscv64-unknown-elf-readelf -A "$elf" 2>/dev/null | grep 'rv32i.*_m' >/dev/null || \
	riscv64-unknown-elf-objdump -f "$elf" | grep 'elf32-littleriscv' >/dev/null && pass "rv32" || fail "not rv32"

# The budget is enforced: a scratch build with a 1 KiB image budget, and one
# with a 64 KiB RAM, must fail.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if make -s firmware FW_BUILD="$tmp/img" FW_IMAGE_BUDGET=1024 >"$tmp/img.log" 2>&1; then
	fail "an image over FW_IMAGE_MAX_BYTES built"
else
	grep -q 'exceeds FW_IMAGE_MAX_BYTES' "$tmp/img.log" && pass "image budget enforced" ||
		{ cat "$tmp/img.log"; fail "image budget: wrong failure"; }
fi
if make -s firmware FW_BUILD="$tmp/ram" FW_RAM_BUDGET=65536 >"$tmp/ram.log" 2>&1; then
	fail "image + bss + stack over FW_RAM_BYTES built"
else
	grep -q 'exceed FW_RAM_BYTES' "$tmp/ram.log" && pass "RAM budget enforced" ||
		{ cat "$tmp/ram.log"; fail "RAM budget: wrong failure"; }
fi
# A core with smaller tables has a smaller RAM: the firmware built with its
# tables sized to match (the ECP5 run of hw/runs.json, 16 of each) fits it;
# its QP table is 72 bytes per QP, so the full-size tables cannot.
read -r small_ram small_defs < <(python3 -c '
import json
r = [r for r in json.load(open("hw/runs.json")) if r["name"] == "ecp5-64"][0]
print(r["params"]["FW_RAM_BYTES"], " ".join("-D%s=%s" % kv for kv in sorted(r["firmware_defs"].items())))')
if make -s firmware FW_BUILD="$tmp/small" FW_RAM_BUDGET="$small_ram" FW_DEFS="$small_defs" >"$tmp/small.log" 2>&1 &&
	grep -qx 'rnic_fw: fits' "$tmp/small.log"; then
	pass "16-entry tables fit a $small_ram-byte RAM ($(grep -o 'image + bss + stack [0-9]* of [0-9]*' "$tmp/small.log"))"
else
	cat "$tmp/small.log"
	fail "the firmware with 16-entry tables does not fit $small_ram bytes"
fi
read -r _ _ small_bss _ < <(riscv64-unknown-elf-size -B "$tmp/small/rnic_fw.elf" | tail -n 1)
((small_bss + 16 * 72 < bss)) && pass "smaller tables, smaller bss ($small_bss < $bss)" || fail "FW_DEFS did not size the tables"

# The size report checks on its own too (the linker is not its only guard).
bash firmware/size.sh riscv64-unknown-elf-size "$elf" $((text + data - 4)) "$ram" "$stack" >/dev/null 2>&1 &&
	fail "size.sh passed an image 4 bytes over budget" || pass "size.sh: image limit"
bash firmware/size.sh riscv64-unknown-elf-size "$elf" "$image_max" $((text + data + bss + stack - 4)) "$stack" >/dev/null 2>&1 &&
	fail "size.sh passed a RAM 4 bytes too small" || pass "size.sh: RAM limit"

echo "build test: $fails failed"
((fails == 0))
