#!/usr/bin/env bash
# Run every test registered in tests/list.d/*.list ("name | command" lines,
# '#' comments), from the repository root, each with a time limit. Prints one
# line per test, the command that reproduces each failure, and a closing
# "N passed, N failed" line; exits non-zero if anything failed.
#   run-tests.sh [FILTER]   run only tests whose name contains FILTER
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
filter=${1:-}
limit=${TEST_TIMEOUT:-900}
logdir=build/test-logs
mkdir -p "$logdir"
pass=0; fail=0; failed=()
for list in tests/list.d/*.list; do
  [ -e "$list" ] || continue
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in ''|'#'*) continue ;; esac
    name=$(echo "${line%%|*}" | xargs)
    cmd=$(echo "${line#*|}" | sed 's/^ *//')
    [ -n "$filter" ] && [[ "$name" != *"$filter"* ]] && continue
    log="$logdir/${name//\//_}.log"
    start=$(date +%s)
    if timeout "$limit" bash -c "$cmd" >"$log" 2>&1; then
      pass=$((pass + 1)); printf 'PASS %-48s %4ss\n' "$name" "$(( $(date +%s) - start ))"
    else
      fail=$((fail + 1)); failed+=("$name")
      printf 'FAIL %-48s %4ss  (log: %s)\n' "$name" "$(( $(date +%s) - start ))" "$log"
      printf '     reproduce: %s\n' "$cmd"
      tail -n 15 "$log" | sed 's/^/     | /'
    fi
  done < "$list"
done
echo
((fail)) && printf 'failed: %s\n' "${failed[*]}"
echo "$pass passed, $fail failed"
((fail == 0 && pass > 0))
