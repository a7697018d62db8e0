#!/usr/bin/env bash
# yosys on rnic_core with small tables (the whole design, the control
# processor's core from its package, no block-RAM library).
#   synth.sh           the quick check (about a minute; make test): yosys
#                      elaborates the design (hierarchy -check), turns every
#                      process into cells, flattens it and collects its
#                      memories; `check -assert` must find no problem (no
#                      multiple drivers, no undriven bits, no logic loop) and
#                      no latch may have been inferred
#   synth.sh --full    the same, then a generic `synth` down to gates (about
#                      12 minutes on an idle core; make lint, make test-long);
#                      prints the design's cell count
# Log: build/lint/yosys.log (--full: build/lint/yosys-full.log).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
full=0
[ "${1:-}" = --full ] && full=1
# the packages first, then every module
files=(rtl/rnic_pkg.sv rtl/rnic_hdr_pkg.sv rtl/rnic_icrc_pkg.sv rtl/rnic_gates_pkg.sv)
for f in rtl/*.sv; do
  [[ "$f" == *_pkg.sv ]] || files+=("$f")
done
files+=("$(bash scripts/picorv32-path.sh)")
# (read with -defer and elaborated once, with these values)
small="-chparam QPN_WIDTH 4 -chparam MR_INDEX_WIDTH 4 -chparam CQN_WIDTH 4 -chparam MTT_INDEX_WIDTH 4"
small+=" -chparam RD_PLACE_LOG2 4 -chparam RX_FIFO_BYTES 2048 -chparam TX_DMA_BUF_BYTES 2048 -chparam FW_RAM_BYTES 1024"
what="16 QPs/MRs/CQs/MTT pages/READ SGE lists, 2 KiB RX FIFO, 1 KiB firmware RAM, no block-RAM library"
mkdir -p build/lint

if ((full == 0)); then
  log=build/lint/yosys.log
  if ! yosys -q -l "$log" -p "read_verilog -defer -sv ${files[*]}; \
      hierarchy -check -top rnic_core $small; proc; flatten; opt_clean; check -assert; \
      memory -nomap; opt_clean; tee -o build/lint/yosys-stat.txt stat" >/dev/null; then
    echo "synth: FAIL yosys elaboration check (log: $log)"
    grep -E "^Warning: (multiple conflicting|found logic loop|Wire .* is used but has no driver)|ERROR" "$log" | head -10
    tail -5 "$log"
    exit 1
  fi
  # proc reports every latch it infers, also one whose output opt_clean then
  # drops (unused), so the log is the place to count them
  latches=$(grep -c "Latch inferred" "$log" || true)
  [ "$latches" = 0 ] || { echo "synth: FAIL $latches latches inferred (log: $log)"; grep "Latch inferred" "$log" | head -5; exit 1; }
  cells=$(awk '/Number of cells/ {n = $NF} END {print n}' build/lint/yosys-stat.txt)
  mems=$(awk '/\$mem_v2/ {n = $NF} END {print n + 0}' build/lint/yosys-stat.txt)
  dffs=$(awk '/\$dff|\$sdff|\$adff/ {n += $NF} END {print n + 0}' build/lint/yosys-stat.txt)
  echo "synth: yosys elaborates rnic_core ($what): no problem, no latch; $cells word-level cells, $mems memories, $dffs register cells"
  exit 0
fi

log=build/lint/yosys-full.log
if ! yosys -q -l "$log" -p "read_verilog -defer -sv ${files[*]}; \
    hierarchy -check -top rnic_core $small; synth -top rnic_core; stat" >/dev/null; then
  echo "synth: FAIL yosys synth (log: $log)"
  tail -5 "$log"
  exit 1
fi
# the whole design's count: the last one after the hierarchy summary
cells=$(awk '/=== design hierarchy ===/ {h = 1} h && /Number of cells/ {n = $0} END {print n}' "$log" | xargs)
[ -n "$cells" ] || { echo "synth: FAIL no cell count in $log"; exit 1; }
echo "synth: yosys synth rnic_core ($what): $cells"
