#!/usr/bin/env bash
# `yosys synth` of rnic_core with small tables (the whole design, the
# control processor's core from its package, no block-RAM library); prints
# the design's cell count. Log: build/lint/yosys.log.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# the packages first, then every module
files=(rtl/rnic_pkg.sv rtl/rnic_hdr_pkg.sv)
for f in rtl/*.sv; do
  [[ "$f" == *_pkg.sv ]] || files+=("$f")
done
files+=("$(bash scripts/picorv32-path.sh)")
mkdir -p build/lint
if ! yosys -q -l build/lint/yosys.log -p "read_verilog -sv ${files[*]}; \
    chparam -set QPN_WIDTH 4 -set MR_INDEX_WIDTH 4 -set CQN_WIDTH 4 -set MTT_INDEX_WIDTH 4 -set RD_PLACE_LOG2 4 -set RX_FIFO_BYTES 2048 -set TX_DMA_BUF_BYTES 2048 -set FW_RAM_BYTES 1024 rnic_core; \
    synth -top rnic_core; stat" >/dev/null; then
  echo "synth: FAIL yosys synth (log: build/lint/yosys.log)"
  tail -5 build/lint/yosys.log
  exit 1
fi
# the whole design's count: the last one after the hierarchy summary
cells=$(awk '/=== design hierarchy ===/ {h = 1} h && /Number of cells/ {n = $0} END {print n}' \
        build/lint/yosys.log | xargs)
[ -n "$cells" ] || { echo "synth: FAIL no cell count in build/lint/yosys.log"; exit 1; }
echo "synth: yosys synth rnic_core (16 QPs/MRs/CQs/MTT pages/READ SGE lists, 2 KiB RX FIFO, 1 KiB firmware RAM, no block-RAM library): $cells"
