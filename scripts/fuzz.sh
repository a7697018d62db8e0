#!/usr/bin/env bash
# `make fuzz`: the long fuzzing runs (docs/memcheck.md), not part of make test.
#   rnic-fuzz-rx    FUZZ_FRAMES frames (10^7) over FUZZ_JOBS processes (2),
#                   64-bit core, seeds FUZZ_SEED.. (1000), seeded from the
#                   rxe captures, every second process with --requester;
#                   failing batches go to build/fuzz/crash
#   fuzz-cmd-native FUZZ_CMDS firmware commands (10^6 small tables, 10^6 full)
#   rnic-fuzz-cmd   FUZZ_SIM_CMDS commands through the simulated mailbox (3000)
# Prints each run's closing line and a summary; exits 1 if anything failed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
frames=${FUZZ_FRAMES:-10000000}
jobs=${FUZZ_JOBS:-2}
seed=${FUZZ_SEED:-1000}
cmds=${FUZZ_CMDS:-1000000}
sim_cmds=${FUZZ_SIM_CMDS:-3000}
out=build/fuzz/run
mkdir -p "$out" build/fuzz/crash
corpus=()
for f in tests/vectors/rxe/*.pcap; do [ -e "$f" ] && corpus+=(--corpus "$f"); done
start=$(date +%s)
pids=()
for ((j = 0; j < jobs; j++)); do
  n=$(( frames / jobs + (j < frames % jobs ? 1 : 0) ))
  extra=()
  ((j % 2 == 1)) && extra=(--requester) # every second process also drives the requester
  build/bin/rnic-fuzz-rx --width 64 --seed $((seed + j)) --frames "$n" --crash-dir build/fuzz/crash \
    "${extra[@]}" "${corpus[@]}" >"$out/rx-$j.log" 2>&1 &
  pids+=($!)
done
fail=0
for ((j = 0; j < jobs; j++)); do
  wait "${pids[$j]}" || fail=1
  tail -n 1 "$out/rx-$j.log"
done
rx_secs=$(( $(date +%s) - start ))
python3 - "$out" "$jobs" "$rx_secs" <<'PY'
import re, sys
out, jobs, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
total = 0
for j in range(jobs):
    m = re.search(r": (\d+) frames \(", open(f"{out}/rx-{j}.log").read())
    total += int(m.group(1)) if m else 0
print(f"rnic-fuzz-rx: {total} frames in {secs} s over {jobs} processes, {total / max(secs, 1):.0f} frames/s together")
PY
build/fuzz/fuzz-cmd-native --seed "$seed" --cmds "$cmds" --small | tail -n 2 || fail=1
build/fuzz/fuzz-cmd-native --seed $((seed + 1)) --cmds "$cmds" | tail -n 2 || fail=1
build/bin/rnic-fuzz-cmd --width 64 --seed "$seed" --cmds "$sim_cmds" | tail -n 2 || fail=1
echo "make fuzz: $(( $(date +%s) - start )) s, $([ $fail = 0 ] && echo 'no failure' || echo 'FAILED (inputs in build/fuzz/crash)')"
exit $fail
