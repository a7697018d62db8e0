#!/usr/bin/env bash
# Instructions per call of the host library's fast path, counted by
# valgrind's callgrind: rnic_post_send (one signaled WRITE WQE, one SGE, its
# doorbell) and rnic_poll_cq (one CQE), from tests/host/fastpath_bench.c on
# the fake device; and rnic_post_send of the same WRITE inline, which takes
# the low-latency path (the WQE also written into the doorbell page's WQE
# window). Two runs (N and 2N pairs) and their difference divided by
# N: the marginal cost of one call, exact and repeatable, free of set-up.
#
#   fastpath-callgrind.sh BENCH_BIN [N] [--max-post X --max-poll Y]
# prints one line per call; with --max-* exits 1 when a count exceeds it.
set -euo pipefail
bin=$1; shift
n=1000
if [ $# -gt 0 ] && [[ $1 != --* ]]; then n=$1; shift; fi
max_post=""; max_poll=""
while [ $# -gt 0 ]; do
	case $1 in
	--max-post) max_post=$2; shift 2 ;;
	--max-poll) max_poll=$2; shift 2 ;;
	*) echo "fastpath-callgrind: unknown option $1" >&2; exit 2 ;;
	esac
done
command -v valgrind >/dev/null || { echo "fastpath-callgrind: valgrind is missing (make deps)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# inclusive Ir of one function (the largest figure callgrind_annotate lists for it)
ir() {
	callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
		awk -v fn=":$2" 'index($0, fn) { gsub(",", "", $1); if ($1 + 0 > m) m = $1 + 0 } END { print m + 0 }'
}

# run COUNT [inline]
run() {
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$1$2" \
		--toggle-collect=rnic_post_send --toggle-collect=rnic_poll_cq "$bin" "$1" $2 \
		>"$tmp/out.$1$2" 2>"$tmp/err.$1$2" || { cat "$tmp/out.$1$2" "$tmp/err.$1$2" >&2; exit 1; }
}
run "$n" ""
run "$((2 * n))" ""
run "$n" inline
run "$((2 * n))" inline
# per FUNCTION [inline]
per() { echo $(( ($(ir "$tmp/cg.$((2 * n))${2:-}" "$1") - $(ir "$tmp/cg.$n${2:-}" "$1")) / n )); }
post=$(per rnic_post_send)
poll=$(per rnic_poll_cq)
bar=$(per fake_bar_write32)
lib=$((post - bar))
ipost=$(per rnic_post_send inline)
ibar=$(per fake_bar_write32 inline)
echo "fast path, instructions per call (callgrind, marginal over $n calls):"
echo "  rnic_post_send  $post  (library $lib + the fake device's BAR write $bar)"
echo "  rnic_poll_cq    $poll"
echo "  rnic_post_send, 64 B inline through the WQE window  $ipost  (library $((ipost - ibar)) + the fake device's 33 BAR writes $ibar)"
rc=0
if [ -n "$max_post" ] && [ "$lib" -gt "$max_post" ]; then echo "FAIL post_send: $lib > $max_post instructions"; rc=1; fi
if [ -n "$max_poll" ] && [ "$poll" -gt "$max_poll" ]; then echo "FAIL poll_cq: $poll > $max_poll instructions"; rc=1; fi
if [ "$lib" -le 0 ] || [ "$poll" -le 0 ] || [ "$ipost" -le "$post" ]; then echo "FAIL: no instructions counted"; rc=1; fi
exit $rc
