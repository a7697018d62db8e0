#!/usr/bin/env bash
# `make install` into a temporary prefix, then build host/examples/rnic_hello.c
# against the installed copy with pkg-config, dynamically and statically, and
# run it: on a machine without a card it must say so and exit 0. Also: the
# staged layout with DESTDIR, the soname, and that librnic.so exports exactly
# the calls of the installed headers (rnic_open_sim excepted).
set -euo pipefail
# (`cmd | grep >/dev/null`, not `grep -q`: grep -q stops reading at the first
# match, cmd may then die of SIGPIPE, and pipefail turns that into a failure,
# or a success under `!`)
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

prefix=$tmp/prefix
make -s install PREFIX="$prefix" >/dev/null
for f in lib/librnic.a lib/librnic.so lib/librnic.so.0 lib/pkgconfig/rnic.pc bin/rnic-info bin/rnic-perf bin/rnic-rping \
	include/rnic/verbs.h include/rnic/pci.h include/rnic/backend.h include/rnic/rnic_hw.h; do
	[ -e "$prefix/$f" ] || fail "$f not installed"
done
# the installed tools run from the prefix
for t in rnic-info rnic-perf rnic-rping; do
	[ -x "$prefix/bin/$t" ] || fail "bin/$t is not executable"
	"$prefix/bin/$t" --help | grep '^usage: \(.*/\)\?'"$t"' ' >/dev/null || fail "$t --help from the prefix"
	cmp -s "$prefix/bin/$t" "build/bin/$t" || fail "bin/$t differs from build/bin/$t"
done
soname=$(readelf -d "$prefix/lib/librnic.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = librnic.so.0 ] || fail "soname '$soname'"
readelf -d "$prefix/lib/librnic.so" | grep 'NEEDED.*libpciaccess' >/dev/null || fail "librnic.so does not need libpciaccess"
# no sim backend in the installed libraries
! nm -D --defined-only "$prefix/lib/librnic.so" | grep rnic_open_sim >/dev/null || fail "librnic.so has rnic_open_sim"
! nm "$prefix/lib/librnic.a" 2>/dev/null | grep ' T rnic_open_sim' >/dev/null || fail "librnic.a has rnic_open_sim"

# exported symbols == functions declared in the public headers
# (not the static inline ones, which are defined in the headers themselves)
inline=$(cat "$prefix"/include/rnic/*.h | grep -oE '^static inline [^(]*\brnic_[a-z0-9_]+\(' |
	grep -oE 'rnic_[a-z0-9_]+\($' | tr -d '(' | sort -u)
declared=$(cat "$prefix"/include/rnic/*.h | grep -v '^static inline' |
	grep -oE '\brnic_[a-z0-9_]+\(' | tr -d '(' | grep -v '^rnic_open_sim$' |
	grep -vxF -f <(echo "$inline") | sort -u)
exported=$(nm -D --defined-only "$prefix/lib/librnic.so" | awk '$2 == "T" {print $3}' | sort -u)
[ "$declared" = "$exported" ] || { diff <(echo "$declared") <(echo "$exported") || true; fail "exports differ from the headers"; }

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --modversion rnic)" = 0.1.0 ] || fail "pkg-config --modversion rnic"
pkg-config --static --libs rnic | grep -- -lpciaccess >/dev/null || fail "static libs lack -lpciaccess"

# dynamic: -lrnic from the prefix
cc -std=c11 -Wall -Wextra -Werror host/examples/rnic_hello.c $(pkg-config --cflags --libs rnic) \
	-Wl,-rpath,"$prefix/lib" -o "$tmp/hello"
ldd "$tmp/hello" | grep "$prefix/lib/librnic.so.0" >/dev/null || fail "rnic_hello does not use the installed librnic.so"
# static: the archive and what pkg-config --static adds
cc -std=c11 -Wall -Wextra -Werror host/examples/rnic_hello.c $(pkg-config --cflags rnic) \
	"$prefix/lib/librnic.a" $(pkg-config --static --libs-only-l rnic | sed 's/-lrnic\b//') -o "$tmp/hello-static"
! ldd "$tmp/hello-static" | grep librnic >/dev/null || fail "rnic_hello-static uses librnic.so"

if [ -n "$(build/bin/rnic-info -l 2>/dev/null)" ]; then
	echo "SKIP running rnic_hello for 'no device': an OpenRNIC is present"
	"$tmp/hello"
else
	for h in "$tmp/hello" "$tmp/hello-static"; do
		out=$("$h") || fail "$(basename "$h") exited $?"
		[ "$out" = "rnic_hello: no OpenRNIC device found on this machine" ] || fail "$(basename "$h") printed '$out'"
		echo "$(basename "$h"): $out"
	done
fi

# DESTDIR: staged under it, the .pc names the final prefix
make -s install PREFIX=/usr/local DESTDIR="$tmp/stage" >/dev/null
[ -e "$tmp/stage/usr/local/lib/librnic.so.0.1.0" ] || fail "DESTDIR: library not staged"
[ -e "$tmp/stage/usr/local/include/rnic/pci.h" ] || fail "DESTDIR: headers not staged"
[ -x "$tmp/stage/usr/local/bin/rnic-perf" ] || fail "DESTDIR: rnic-perf not staged"
grep -qx 'prefix=/usr/local' "$tmp/stage/usr/local/lib/pkgconfig/rnic.pc" || fail "DESTDIR: rnic.pc prefix"
grep -qx 'Requires.private: pciaccess' "$tmp/stage/usr/local/lib/pkgconfig/rnic.pc" || fail "rnic.pc Requires.private"
echo "install: ok"
