#!/usr/bin/env bash
# Print the firmware's text/data/bss (riscv64-unknown-elf-size) and check the
# budget: text + data (the image: code, read-only data, initialized data)
# within FW_IMAGE_MAX_BYTES, image + bss + stack within FW_RAM_BYTES.
#   size.sh SIZE-TOOL ELF IMAGE_MAX RAM_BYTES STACK_BYTES
set -euo pipefail
size_tool=$1 elf=$2 image_max=$(($3)) ram=$(($4)) stack=$(($5))
read -r text data bss _ < <("$size_tool" -B "$elf" | tail -n 1)
image=$((text + data))
total=$((image + bss + stack))
printf 'rnic_fw: text %d  data %d  bss %d  (image %d of %d bytes; image + bss + stack %d of %d bytes)\n' \
	"$text" "$data" "$bss" "$image" "$image_max" "$total" "$ram"
if ((image > image_max)); then
	echo "rnic_fw: image of $image bytes exceeds FW_IMAGE_MAX_BYTES ($image_max)" >&2
	exit 1
fi
if ((total > ram)); then
	echo "rnic_fw: image + bss + stack of $total bytes exceed FW_RAM_BYTES ($ram)" >&2
	exit 1
fi
echo "rnic_fw: fits"
