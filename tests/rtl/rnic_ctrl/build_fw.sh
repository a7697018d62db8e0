#!/usr/bin/env bash
# Assemble echo_fw.S for the control processor and write it as a $readmemh
# image (one 32-bit word per line) to $1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
riscv64-unknown-elf-gcc -march=rv32im -mabi=ilp32 -nostdlib -ffreestanding -Wl,-Ttext=0 \
  -Wl,--no-relax -o "$tmp/fw.elf" "$here/echo_fw.S"
riscv64-unknown-elf-objcopy -O binary "$tmp/fw.elf" "$tmp/fw.bin"
python3 - "$tmp/fw.bin" "$out" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
data += b"\0" * (-len(data) % 4)
with open(sys.argv[2], "w") as f:
    for (w,) in struct.iter_unpack("<I", data):
        f.write(f"{w:08x}\n")
PY
