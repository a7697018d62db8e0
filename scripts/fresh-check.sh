#!/usr/bin/env bash
# make fresh-check: proves that scripts/install-deps.sh installs everything a
# bare Debian 12 needs. Builds a minimal Debian 12 root (debootstrap
# --variant=minbase, plus git, make and ca-certificates), clones this
# repository's HEAD into it, and there runs `make sim` and a slice of
# `make test` (FRESH_TESTS), as a new user on a new machine would. The root
# uses the host's Debian mirror, CA bundle, resolver and apt/pip network
# settings, so downloads work on the same network as the host; nothing else
# of the host is visible inside.
#
#   FRESH_DIR=DIR      where the root goes (build/fresh; removed first)
#   FRESH_MIRROR=URI   Debian mirror (default: the host's apt sources)
#   FRESH_TESTS="..."  the make test filters (default below)
#   FRESH_LONG_TESTS="..."  then these through make test-long (default:
#                      interop/quick, the rxe peer in QEMU; "" for none)
#   FRESH_KEEP=1       keep the root afterwards (default: removed on success)
#
# Needs root (debootstrap, mount namespaces, chroot). Log: FRESH_DIR/log.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${FRESH_DIR:-$root/build/fresh}
rootfs=$work/rootfs
suite=bookworm
tests=${FRESH_TESTS:-"formats/ tree/ rtl/lint host/ model/codec replay/rxe-w64 e2e/write-w64 e2e/srq-w512"}
long_tests=${FRESH_LONG_TESTS-"interop/quick"}

die() { echo "fresh-check: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, mount, chroot)"
git -C "$root" rev-parse --verify -q HEAD >/dev/null || die "$root is not a git checkout with a commit"

# the host's Debian archive and security archive, from its apt sources
host_uris() {
  { cat /etc/apt/sources.list 2>/dev/null
    cat /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null; } |
    grep -v '^\s*#' | grep -oE '(https?|file)://[^ ]+' | sed 's#/*$##'
}
mirror=${FRESH_MIRROR:-$(host_uris | grep -E '/debian$' | head -n 1 || true)}
security=$(host_uris | grep -E '/debian-security$' | head -n 1 || true)
[ -n "$mirror" ] || die "no Debian mirror in the host's apt sources: set FRESH_MIRROR"

if ! command -v debootstrap >/dev/null; then
  echo "fresh-check: installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap; }
fi

# a root left by an earlier run may still have mounts (a killed run): none
# are made outside the namespace below, so removing it is safe
rm -rf "$work"
mkdir -p "$work"
log=$work/log
start=$(date +%s)
stamp() { printf '%4ss  %s\n' "$(( $(date +%s) - start ))" "$*" | tee -a "$log"; }

stamp "debootstrap --variant=minbase $suite from $mirror"
debootstrap --variant=minbase --include=git,make,ca-certificates "$suite" "$rootfs" "$mirror" \
  >>"$log" 2>&1 || die "debootstrap failed (log: $log)"

# the host's network: resolver, CA bundle (a network that re-signs TLS needs
# it), apt's Acquire settings, pip's configuration
cp -L /etc/resolv.conf "$rootfs/etc/resolv.conf"
if [ -s /etc/ssl/certs/ca-certificates.crt ]; then
  cp -L /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/host-ca.crt"
fi
{ echo "deb $mirror $suite main"
  echo "deb $mirror $suite-updates main"
  [ -z "$security" ] || echo "deb $security $suite-security main"; } >"$rootfs/etc/apt/sources.list"
for f in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do
  [ -f "$f" ] && grep -q '^\s*Acquire' "$f" && cp "$f" "$rootfs/etc/apt/apt.conf.d/host-$(basename "$f")"
done
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$rootfs/etc/pip.conf"
envs=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
      LANG=C.UTF-8 TERM=dumb CI=true)
if [ -f "$rootfs/etc/ssl/host-ca.crt" ]; then
  for v in SSL_CERT_FILE REQUESTS_CA_BUNDLE PIP_CERT CURL_CA_BUNDLE GIT_SSL_CAINFO; do
    envs+=("$v=/etc/ssl/host-ca.crt")
  done
fi
for v in PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_TRUSTED_HOST PIP_DEFAULT_TIMEOUT \
         http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
  [ -n "${!v:-}" ] && envs+=("$v=${!v}")
done

# the run inside: clone, make sim, the make test slice
cat >"$rootfs/root/fresh-run.sh" <<EOF
set -euo pipefail
t0=\$(date +%s)
git clone -q /src /root/openrnic
cd /root/openrnic
echo "== make sim"
make sim
echo "== make sim: \$(( \$(date +%s) - t0 )) s"
t1=\$(date +%s)
echo "== make test TESTS='$tests'"
make test TESTS='$tests'
if [ -n '$long_tests' ]; then echo "== make test-long TESTS='$long_tests'"; make test-long TESTS='$long_tests'; fi
echo "== make test slice: \$(( \$(date +%s) - t1 )) s"
EOF

# a private mount namespace: the mounts go away with it, whatever happens
stamp "clone of $(git -C "$root" rev-parse --short HEAD), make sim, make test TESTS='$tests', make test-long TESTS='$long_tests'"
set +e
unshare --mount --propagation private bash -c '
  set -e
  r=$1; src=$2; shift 2
  mount -t proc proc "$r/proc"
  mount --rbind /sys "$r/sys"
  # a /dev of its own with the usual modes (a host whose /dev/null is not
  # world-writable would break apt'"'"'s unprivileged fetcher)
  mount -t tmpfs -o mode=755,nosuid dev "$r/dev"
  while read -r name major minor; do
    mknod -m 666 "$r/dev/$name" c "$major" "$minor"
  done <<<"null 1 3
zero 1 5
full 1 7
random 1 8
urandom 1 9
tty 5 0"
  mkdir -p "$r/dev/pts" "$r/dev/shm"
  mount -t devpts -o newinstance,ptmxmode=0666 devpts "$r/dev/pts"
  ln -s pts/ptmx "$r/dev/ptmx"
  mount -t tmpfs -o mode=1777 shm "$r/dev/shm"
  ln -s /proc/self/fd "$r/dev/fd"
  [ -e /dev/kvm ] && touch "$r/dev/kvm" && mount --bind /dev/kvm "$r/dev/kvm"
  mkdir -p "$r/src"
  mount --bind "$src" "$r/src"
  mount -o remount,bind,ro "$r/src"
  exec chroot "$r" env -i "$@" bash /root/fresh-run.sh
' fresh "$rootfs" "$root" "${envs[@]}" 2>&1 | tee -a "$log"
rc=${PIPESTATUS[0]}
set -e
wall=$(( $(date +%s) - start ))
if [ "$rc" -eq 0 ]; then
  stamp "PASS: make sim and the make test slice on a bare Debian 12 (wall time $((wall / 60))m $((wall % 60))s)"
  [ "${FRESH_KEEP:-0}" = 1 ] || rm -rf "$rootfs"
else
  stamp "FAIL (exit $rc): see $log; the root is kept in $rootfs"
fi
exit "$rc"
