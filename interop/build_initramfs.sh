#!/usr/bin/env bash
# Build the Soft-RoCE peer: a Debian 12 kernel (downloaded with apt-get
# download and unpacked with dpkg-deb -x, never installed) and an initramfs
# with rdma_rxe, sch_netem, static busybox, the RDMA tools of this machine
# (rdma-core's ibv_devinfo, rdmacm-utils' rping, perftest's ib_*, iproute2's
# rdma, tc and ip (ip joins IPv4 groups: autojoin), with their shared
# libraries) and interop/init.
#
#   build_initramfs.sh OUTDIR     writes OUTDIR/vmlinuz, OUTDIR/initrd.cpio.gz
#
# The kernel is the one linux-image-amd64 depends on (KPKG overrides it);
# its .deb and unpacked tree are cached in OUTDIR/cache. Anything missing
# (a package, a binary, a kernel without rdma_rxe or sch_netem) stops the
# build with a message saying what.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build_initramfs.sh OUTDIR}
mkdir -p "$out/cache"
out=$(cd "$out" && pwd)
cache=$out/cache

die() { echo "build_initramfs: $*" >&2; exit 1; }

for tool in apt-get dpkg-deb depmod modprobe cpio gzip ldd; do
  command -v "$tool" >/dev/null || die "$tool is missing (make deps installs kmod, cpio)"
done
BINS=(/usr/bin/rdma /usr/sbin/tc /usr/sbin/ip /usr/bin/ibv_devinfo /usr/bin/ibv_devices
      /usr/bin/ib_write_bw /usr/bin/ib_write_lat /usr/bin/ib_read_bw /usr/bin/ib_read_lat
      /usr/bin/ib_send_bw /usr/bin/ib_send_lat /usr/bin/ib_atomic_bw /usr/bin/rping)
PROV=/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
for f in /bin/busybox "${BINS[@]}" "$PROV" /etc/libibverbs.d/rxe.driver; do
  [ -e "$f" ] || die "$f is missing (make deps installs busybox-static, ibverbs-utils, ibverbs-providers, perftest, rdmacm-utils, iproute2)"
done
ldd /bin/busybox >/dev/null 2>&1 && die "/bin/busybox is not the static one (busybox-static)"

kpkg=${KPKG:-$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/{print $2; exit}')}
[ -n "$kpkg" ] || die "cannot tell which kernel linux-image-amd64 depends on (apt-get update?)"
cd "$cache"
if ! ls "${kpkg}"_*.deb >/dev/null 2>&1; then
  echo "build_initramfs: downloading $kpkg"
  apt-get download "$kpkg" >/dev/null || die "apt-get download $kpkg failed"
fi
deb=$(ls "${kpkg}"_*.deb | head -1)
if [ ! -e "kroot.$kpkg/.done" ]; then
  rm -rf "kroot.$kpkg"
  dpkg-deb -x "$deb" "kroot.$kpkg"
  touch "kroot.$kpkg/.done"
fi
kroot=$cache/kroot.$kpkg
kver=$(ls "$kroot/lib/modules" | head -1)
[ -f "$kroot/lib/modules/$kver/modules.dep" ] || depmod -b "$kroot" "$kver"
for m in rdma_rxe sch_netem; do
  modprobe -d "$kroot" -S "$kver" --show-depends "$m" >/dev/null 2>&1 ||
    die "kernel $kver has no $m module"
done
cp "$kroot/boot/vmlinuz-$kver" "$out/vmlinuz"

r=$cache/initramfs
rm -rf "$r"
mkdir -p "$r"/{bin,sbin,etc/libibverbs.d,proc,sys,dev,tmp,run,root,usr/bin,usr/sbin,lib/modules/$kver}
ln -s lib "$r/lib64"
cp /bin/busybox "$r/bin/busybox"

# modules and what they depend on (rxe needs the "crc32" hash: crc32_generic)
mods="rdma_rxe ib_uverbs rdma_ucm crc32_generic crc32-pclmul virtio_pci virtio_net sch_netem"
for m in $mods; do
  modprobe -d "$kroot" -S "$kver" --show-depends "$m" | awk '$1=="insmod"{print $2}'
done | sort -u | while read -r f; do
  rel=${f#"$kroot"/lib/modules/"$kver"/}
  mkdir -p "$r/lib/modules/$kver/$(dirname "$rel")"
  cp "$f" "$r/lib/modules/$kver/$rel"
done
cp "$kroot/lib/modules/$kver"/modules.{order,builtin,builtin.modinfo} "$r/lib/modules/$kver/"
depmod -b "$r" "$kver"

for b in "${BINS[@]}"; do cp "$b" "$r$b"; done
mkdir -p "$r$(dirname "$PROV")"
cp "$PROV" "$r$PROV"
cp /etc/libibverbs.d/rxe.driver "$r/etc/libibverbs.d/"
for f in "${BINS[@]}" "$PROV"; do
  ldd "$f" | awk '/=>/ {print $3} $1 ~ /^\/lib64\// {print $1}'
done | sort -u | while read -r lib; do
  [ -n "$lib" ] || continue
  mkdir -p "$r$(dirname "$lib")"
  cp "$(readlink -f "$lib")" "$r$lib"
done
# glibc loads libgcc_s at run time (rping's threads end with pthread_exit,
# which unwinds through it): ldd does not list it
gcc_s=/lib/x86_64-linux-gnu/libgcc_s.so.1
[ -e "$gcc_s" ] || die "$gcc_s is missing"
cp "$(readlink -f "$gcc_s")" "$r$gcc_s"
printf '/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n' > "$r/etc/ld.so.conf"
echo "root:x:0:0:root:/root:/bin/sh" > "$r/etc/passwd"
echo "root:x:0:" > "$r/etc/group"
printf '127.0.0.1 localhost\n' > "$r/etc/hosts"
cp "$here/init" "$r/init"
chmod 755 "$r/init"
(cd "$r" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$out/initrd.cpio.gz.tmp"
mv "$out/initrd.cpio.gz.tmp" "$out/initrd.cpio.gz"
echo "build_initramfs: $out/vmlinuz ($kver), $out/initrd.cpio.gz ($(du -k "$out/initrd.cpio.gz" | cut -f1) KiB)"
