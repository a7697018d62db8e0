#!/usr/bin/env bash
# The repository needs nothing beside its own tree: no tracked file may name a
# folder outside it (a user's clone has only the tree and the packages that
# scripts/install-deps.sh installs). The patterns are built from pieces so
# this file does not match itself.
set -euo pipefail
cd "$(dirname "$0")/.."
up='\.\./' root='/wo''rk/'
pats=("${up}shared" "${root}shared")
# tracked files in a clone; every file but build/ in an unpacked archive
in_git=0
git rev-parse --git-dir >/dev/null 2>&1 && in_git=1
search() {
  if ((in_git)); then
    git grep -nE "$1" -- . ':!*.pcap' ':!*.hex'
  else
    grep -rnE --exclude-dir=build --exclude='*.pcap' --exclude='*.hex' "$1" .
  fi
}
bad=0
for p in "${pats[@]}"; do
  if hits=$(search "$p"); then
    echo "self-contained: FAIL files name a path outside the tree ($p):"
    echo "$hits" | sed 's/^/  /'
    bad=1
  fi
done
# every file the test lists and scripts read from tests/vectors is tracked
if ((in_git)); then
  n=$(git ls-files tests/vectors/rxe | grep -c '\.pcap$' || true)
else
  n=$(ls tests/vectors/rxe/*.pcap 2>/dev/null | wc -l)
fi
if [ "$n" -lt 7 ]; then
  echo "self-contained: FAIL tests/vectors/rxe holds $n tracked captures (7 expected)"; bad=1
fi
((bad == 0)) && echo "self-contained: no path outside the tree; $n rxe captures tracked"
exit $bad
