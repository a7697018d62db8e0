#!/usr/bin/env bash
# Run every test registered in tests/list.d/*.list ("name | command" lines,
# '#' comments), from the repository root, each with a time limit. Prints one
# line per test as it ends, the command that reproduces each failure, and a
# closing "N passed, N failed" line; exits non-zero if anything failed.
# Before that line: the run's wall time and its five slowest tests (every
# test's time is in build/test-logs/times.tsv), so a growing suite is seen.
#   run-tests.sh [FILTER...]   run only tests whose name contains one of the FILTERs
#   TEST_JOBS=N             tests at once (default: the number of CPUs)
#   RUN_START=T             epoch seconds the closing wall time counts from
#                           (make test: before its dependency check and build)
#   TEST_TIMEOUT=S          each test's time limit (900 s); a test named
#                           "name [limit=S]" gets S seconds instead
#   TEST_LONG=1             the long run (make test-long): tests named
#                           "name [long]" run too, and $QUICK is empty
# make test's run is the quick one: "name [long]" tests are left out and each
# command sees QUICK=--quick, which the programs with a long and a short form
# take (the e2e programs); make test-long runs the full forms.
# Tests run side by side, so each one writes only below its own build
# directory; a `make` a test starts waits for any other test's `make` (two
# makes of one target would race on its files). A test named "name [alone]"
# runs after the others, with nothing beside it (one that keeps wall-clock
# time with a process outside the simulation, such as the QEMU guest).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
filters=("$@")
limit=${TEST_TIMEOUT:-900}
long=${TEST_LONG:-0}
if [ "$long" = 1 ]; then export QUICK=""; else export QUICK=--quick; fi
export TEST_LONG=$long
jobs=${TEST_JOBS:-$(nproc)}
logdir=build/test-logs
mkdir -p "$logdir"
run=$(mktemp -d "$logdir/.run.XXXXXX")
tests_start=$(date +%s)
run_start=${RUN_START:-$tests_start}   # make test: when its build began
trap 'rm -rf "$run"' EXIT

# `make` for the tests: one at a time; the makes it starts run free
real_make=$(command -v make)
mkdir -p "$run/bin"
cat >"$run/bin/make" <<EOF
#!/usr/bin/env bash
[ -n "\${RNIC_TEST_MAKE_HELD:-}" ] && exec "$real_make" "\$@"
export RNIC_TEST_MAKE_HELD=1
exec flock "$run/make.lock" "$real_make" "\$@"
EOF
chmod +x "$run/bin/make"

names=(); cmds=(); alone=(); limits=()
for list in tests/list.d/*.list; do
  [ -e "$list" ] || continue
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in ''|'#'*) continue ;; esac
    name=$(echo "${line%%|*}" | xargs)
    solo=0 secs=$limit only_long=0
    # trailing tags, in any order: [alone], [long], [limit=S]
    while [[ "$name" =~ ^(.*)\ \[(alone|long|limit=([0-9]+))\]$ ]]; do
      name=${BASH_REMATCH[1]}
      case "${BASH_REMATCH[2]}" in
        alone) solo=1 ;;
        long) only_long=1 ;;
        *) secs=${BASH_REMATCH[3]} ;;
      esac
    done
    [ "$only_long" = 1 ] && [ "$long" != 1 ] && continue
    if [ ${#filters[@]} -gt 0 ]; then
      hit=0
      for f in "${filters[@]}"; do [[ "$name" == *"$f"* ]] && hit=1; done
      [ $hit = 1 ] || continue
    fi
    names+=("$name"); cmds+=("$(echo "${line#*|}" | sed 's/^ *//')"); alone+=("$solo"); limits+=("$secs")
  done < "$list"
done

# one test: its line (and a failure's reproduction and log tail) in one write
run_one() {
  local i=$1 name=${names[$1]} cmd=${cmds[$1]}
  local log="$logdir/${name//\//_}.log" start=$(date +%s) msg secs ok=0
  PATH="$run/bin:$PATH" timeout "${limits[$i]}" bash -c "$cmd" >"$log" 2>&1 && ok=1
  secs=$(( $(date +%s) - start ))
  echo "$secs" >"$run/$i.secs"
  if ((ok)); then
    echo pass >"$run/$i"
    msg=$(printf 'PASS %-48s %4ss' "$name" "$secs")
  else
    echo fail >"$run/$i"
    msg=$(printf 'FAIL %-48s %4ss  (log: %s)\n     reproduce: %s\n' "$name" \
          "$secs" "$log" "$cmd"; tail -n 15 "$log" | sed 's/^/     | /')
  fi
  printf '%s\n' "$msg"
}

running=0
for i in "${!names[@]}"; do
  ((alone[i])) && continue
  if ((running >= jobs)); then
    wait -n
    running=$((running - 1))
  fi
  run_one "$i" &
  running=$((running + 1))
done
wait
for i in "${!names[@]}"; do
  ((alone[i])) && run_one "$i"
done

pass=0; fail=0; failed=()
for i in "${!names[@]}"; do
  if [ "$(cat "$run/$i" 2>/dev/null)" = pass ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); failed+=("${names[$i]}")
  fi
done
# every test's time, and the five slowest
for i in "${!names[@]}"; do
  printf '%s\t%s\n' "$(cat "$run/$i.secs" 2>/dev/null || echo 0)" "${names[$i]}"
done | sort -rn >"$logdir/times.tsv"
wall=$(( $(date +%s) - run_start ))
echo
twall=$(( $(date +%s) - tests_start ))
printf 'wall time: %dm %02ds (deps and build %dm %02ds, %d tests %dm %02ds, %d at a time)\n' \
  $((wall / 60)) $((wall % 60)) $(((wall - twall) / 60)) $(((wall - twall) % 60)) \
  ${#names[@]} $((twall / 60)) $((twall % 60)) "$jobs"
echo "slowest:"
head -n 5 "$logdir/times.tsv" | awk -F'\t' '{printf "  %5ss  %s\n", $1, $2}'
((fail)) && printf 'failed: %s\n' "${failed[*]}"
echo "$pass passed, $fail failed"
((fail == 0 && pass > 0))
