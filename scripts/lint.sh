#!/usr/bin/env bash
# RTL lint: every module under rtl/ with `verilator --lint-only -Wall` at
# DATA_WIDTH 64 and 512 (modules without that parameter once), every file
# through `iverilog -g2012`, and `yosys synth` of rnic_core with small tables.
# Waivers live only in rtl/lint.vlt.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
pkgs=(rtl/rnic_pkg.sv rtl/rnic_hdr_pkg.sv)
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
if ! iverilog -g2012 -Wall -Wno-timescale -Wno-sensitivity-entire-vector -Wno-sensitivity-entire-array -o /dev/null "${all[@]}"; then
  echo "lint: FAIL iverilog -g2012 ${all[*]}"; fail=1
else
  echo "lint: iverilog -g2012 compiled ${#all[@]} files"
fi
if [ -f rtl/rnic_core.sv ]; then
  mkdir -p build/lint
  if yosys -q -l build/lint/yosys.log -p "read_verilog -sv ${all[*]}; \
      chparam -set QPN_WIDTH 4 -set MR_INDEX_WIDTH 4 -set CQN_WIDTH 4 -set MTT_INDEX_WIDTH 4 -set RD_PLACE_LOG2 4 -set RX_FIFO_BYTES 2048 -set TX_DMA_BUF_BYTES 2048 -set FW_RAM_BYTES 1024 rnic_core; \
      synth -top rnic_core; stat" >/dev/null; then
    # the whole design's count: the last one after the hierarchy summary
    cells=$(awk '/=== design hierarchy ===/ {h = 1} h && /Number of cells/ {n = $0} END {print n}' \
            build/lint/yosys.log | xargs)
    echo "lint: yosys synth rnic_core (16 QPs/MRs/CQs/MTT pages/READ SGE lists, 2 KiB RX FIFO, 1 KiB firmware RAM, no block-RAM library): ${cells:-no cell count}"
  else
    echo "lint: FAIL yosys synth (log: build/lint/yosys.log)"; tail -5 build/lint/yosys.log; fail=1
  fi
fi
exit $fail
