#!/usr/bin/env bash
# Run one module testbench with Icarus at one data width.
#   tests/rtl/run_tb.sh <tb dir> <DATA_WIDTH> [seed] [NAME=VALUE ...]
# (NAME=VALUE: more parameters of the testbench's top, each run in a folder
# of its own)
# The tb dir holds tb.sv (top module `tb`, parameter DATA_WIDTH, reads +seed=N)
# and sources.f (RTL files, one per line, relative to the repository root;
# @picorv32 names the PicoRV32 core of the pinned package).
# The testbench prints "TB PASS" when every check held; anything else fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$1; width=$2; seed=${3:-1}
shift $(($# < 3 ? $# : 3))
params=(); suffix=""
for p in "$@"; do params+=(-P "tb.$p"); suffix+="-${p//=/-}"; done
name=$(basename "$dir")
out="$root/build/tb/$name-w$width$suffix"
mkdir -p "$out"
srcs=()
while IFS= read -r f || [ -n "$f" ]; do
  case "$f" in ''|'#'*) continue ;; esac
  # @picorv32: the control processor's core from its package
  if [ "$f" = "@picorv32" ]; then srcs+=("$(bash "$root/scripts/picorv32-path.sh")"); continue; fi
  srcs+=("$root/$f")
done < "$dir/sources.f"
# tests/rtl on the include path: the testbenches' shared pieces (*.svh)
# the image and the log per seed: two seeds of one testbench may run at once
# (make test runs two tests at a time); files a testbench reads stay in $out
iverilog -g2012 -Wall -Wno-timescale -I "$root/tests/rtl" -o "$out/tb-s$seed.vvp" -s tb -P "tb.DATA_WIDTH=$width" "${params[@]}" \
  "${srcs[@]}" "$dir/tb.sv"
( cd "$out" && vvp -n "tb-s$seed.vvp" "+seed=$seed" ) | tee "$out/run-s$seed.log"
grep -q "^TB PASS" "$out/run-s$seed.log"
