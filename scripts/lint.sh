#!/usr/bin/env bash
# RTL lint: every module under rtl/ with `verilator --lint-only -Wall` at
# DATA_WIDTH 64 and 512 (modules without that parameter once) and every file
# through `iverilog -g2012`. Waivers live only in rtl/lint.vlt. Synthesis is
# scripts/synth.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
pkgs=(rtl/rnic_pkg.sv rtl/rnic_hdr_pkg.sv rtl/rnic_icrc_pkg.sv rtl/rnic_gates_pkg.sv)
mods=()
for f in rtl/*.sv; do
  case " ${pkgs[*]} " in *" $f "*) continue ;; esac
  mods+=("$f")
done
# the control processor's core comes from its package, not from the tree
pico=$(bash scripts/picorv32-path.sh)
all=("${pkgs[@]}" "${mods[@]}" "$pico")
abs=()
for f in "${pkgs[@]}" "${mods[@]}"; do abs+=("$root/$f"); done
abs+=("$pico")
fail=0
for f in "${mods[@]}"; do
  top=$(basename "$f" .sv)
  widths=(default)
  grep -q "parameter[^;]*DATA_WIDTH" "$f" && widths=(64 512)
  for w in "${widths[@]}"; do
    gflag=(); [ "$w" = default ] || gflag=(-GDATA_WIDTH="$w")
    if ! verilator --lint-only -Wall "$root/rtl/lint.vlt" "${abs[@]}" --top-module "$top" "${gflag[@]}"; then
      echo "lint: FAIL verilator $top DATA_WIDTH=$w"
      echo "  reproduce: verilator --lint-only -Wall rtl/lint.vlt ${all[*]} --top-module $top ${gflag[*]}"
      fail=1
    fi
  done
done
echo "lint: verilator checked ${#mods[@]} modules"
# Icarus says "sorry" for every constant part-select in an always_comb (it
# makes the whole vector sensitive, which changes nothing here): count those
# notices instead of printing hundreds of them over the messages that matter.
sorry="sorry: constant selects in always_\* processes are not currently supported"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
irc=0
iverilog -g2012 -Wall -Wno-timescale -Wno-sensitivity-entire-vector -Wno-sensitivity-entire-array \
  -o /dev/null "${all[@]}" >"$out" 2>&1 || irc=$?
grep -v "$sorry" "$out" || true
if [ $irc -ne 0 ]; then
  echo "lint: FAIL iverilog -g2012 ${all[*]}"; fail=1
else
  echo "lint: iverilog -g2012 compiled ${#all[@]} files ($(grep -c "$sorry" "$out" || true) notices of Icarus's constant-select limitation not shown)"
fi
exit $fail
