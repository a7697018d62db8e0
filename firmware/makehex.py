#!/usr/bin/env python3
"""Turn the firmware's flat binary into a $readmemh image: one 32-bit
little-endian word per line (8 hex digits), padded with zero words to the
RAM's size in words.

    makehex.py rnic_fw.bin WORDS > rnic_fw.hex
"""
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    words = int(sys.argv[2], 0)
    data += b"\0" * (-len(data) % 4)
    if len(data) // 4 > words:
        print(f"makehex: {sys.argv[1]}: {len(data)} bytes do not fit {words} words", file=sys.stderr)
        return 1
    out = []
    for i in range(words):
        chunk = data[4 * i:4 * i + 4]
        out.append("%08x" % (int.from_bytes(chunk, "little") if chunk else 0))
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
