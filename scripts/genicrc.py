"""The ICRC pipeline's XOR matrices (rtl/rnic_icrc_pkg.sv), for every data-path
width the core supports, computed from the CRC constants and header sizes of
docs/formats.toml. Used by genformats.py.

rnic_icrc computes the CRC of a whole beat as XOR matrices applied to the
register and to the beat (see its header comment). The matrices are
constants of the polynomial and the width; they are computed here rather
than by constant functions in the RTL because yosys unrolls such a function
one loop step at a time at a cost that grows with every identifier the
design has (over a minute per rnic_icrc instance at 512 bits).
"""

KEEPS = (8, 16, 32, 64)   # lanes per beat: DATA_WIDTH 64 .. 512
MASK32 = 0xFFFFFFFF


def _clog2(n):
    return (n - 1).bit_length()


class Crc:
    def __init__(self, poly):
        self.poly = poly

    def step(self, c):             # one bit forward (reflected)
        return (c >> 1) ^ self.poly if c & 1 else c >> 1

    def back(self, c):             # one bit back: bit 0 comes back from bit 31 (the polynomial's top)
        return (((c ^ self.poly) << 1) | 1) & MASK32 if c >> 31 else (c << 1) & MASK32

    def zeros(self, c, n):         # the register after n zero bytes
        for _ in range(8 * n):
            c = self.step(c)
        return c


def _bits(value, width):
    """A SystemVerilog constant of width bits."""
    digits = (width + 3) // 4
    return "%d'h%0*x" % (width, digits, value)


def tables(consts):
    """{keep: {name: (width, value)}} and the width-independent constants."""
    crc = Crc(consts["ICRC_POLY"])
    start = consts["ICRC_CRC_INIT"]
    for _ in range(consts["ICRC_LRH_ONES_BYTES"]):
        start ^= 0xFF
        for _ in range(8):
            start = crc.step(start)
    eth, ip4, ip6, udp = (consts[k] for k in ("ETH_HDR_BYTES", "IPV4_HDR_BYTES", "IPV6_HDR_BYTES", "UDP_HDR_BYTES"))
    # IBA Annex A17 variant fields (read as ones), by frame byte: {byte: (bits 3:0, bits 7:4)}
    v4 = {eth + 1: (1, 1),                      # TOS
          eth + 8: (1, 1),                      # TTL
          eth + 10: (1, 1), eth + 11: (1, 1),   # header checksum
          eth + ip4 + 6: (1, 1), eth + ip4 + 7: (1, 1),   # UDP checksum
          eth + ip4 + udp + 4: (1, 1)}          # BTH resv8a
    v6 = {eth + 0: (1, 0),                      # traffic class, high nibble (below the version)
          eth + 1: (1, 1), eth + 2: (1, 1), eth + 3: (1, 1),   # traffic class, flow label
          eth + 7: (1, 1),                      # hop limit
          eth + ip6 + 6: (1, 1), eth + ip6 + 7: (1, 1),   # UDP checksum
          eth + ip6 + udp + 4: (1, 1)}          # BTH resv8a
    last = max(max(v4), max(v6))
    out = {}
    for keep in KEEPS:
        dw = 8 * keep
        t = {}
        zw = _clog2(keep + 1)
        table = max(1 << (zw - 3), 8)
        zh = keep // 8 + 1
        hdr_beats = last // keep + 1
        beat_width = _clog2(hdr_beats + 1)
        lo_lane = eth % keep
        t["HDR_BEATS"] = ("int", hdr_beats)
        t["BEAT_WIDTH"] = ("int", beat_width)
        t["TABLE"] = ("int", table)
        # the register at the beat holding frame byte 14: the start moved over its skipped lanes
        t["CRC_LO"] = (32, crc.zeros(start, keep - lo_lane))
        # state matrix of a beat of zeros, row r at [32*r +: 32]
        m = 0
        for j in range(32):
            c = crc.zeros(1 << j, keep)
            for r in range(32):
                if c >> r & 1:
                    m |= 1 << (32 * r + j)
        t["BEAT_MATRIX"] = (32 * 32, m)

        # inverse matrices of 0, n, 2n, .. (count - 1) * n zero bytes (the rest zero):
        # row r of matrix t at [32*(TABLE*r + t) +: 32]
        def unzero(count, n):
            m = 0
            for i in range(32):
                c = 1 << i
                for k in range(table):
                    if k < count:
                        for r in range(32):
                            if c >> r & 1:
                                m |= 1 << (32 * (table * r + k) + i)
                    for _ in range(8 * n):
                        c = crc.back(c)
            return m
        t["UNZERO_LO"] = (table * 32 * 32, unzero(8, 1))
        t["UNZERO_HI"] = (table * 32 * 32, unzero(zh, 8))
        # data matrix of a whole beat from a zero register: row r at [dw*r +: dw], lane 0 first
        m = 0
        v = [1 << k for k in range(8)]
        for i in range(keep - 1, -1, -1):
            for k in range(8):
                c = v[k]
                for _ in range(8):
                    c = crc.step(c)
                v[k] = c
                for r in range(32):
                    if c >> r & 1:
                        m |= 1 << (dw * r + 8 * i + k)
        t["DATA_MATRIX"] = (32 * dw, m)
        # per-lane masks of every beat index the beat counter can hold: [keep*beat +: keep]
        beats = 1 << beat_width
        masks = {"SKIP": 0, "V4_ONES_LO": 0, "V4_ONES_HI": 0, "V6_ONES_LO": 0, "V6_ONES_HI": 0}
        for b in range(min(beats, hdr_beats)):
            for i in range(keep):
                pos, bit = b * keep + i, 1 << (b * keep + i)
                if pos < eth:
                    masks["SKIP"] |= bit
                for name, var in (("V4", v4), ("V6", v6)):
                    lo, hi = var.get(pos, (0, 0))
                    masks[name + "_ONES_LO"] |= bit if lo else 0
                    masks[name + "_ONES_HI"] |= bit if hi else 0
        for name, value in masks.items():
            t[name] = (beats * keep, value)
        out[keep] = t
    return out, start


def gen_sv(consts, banner):
    per_keep, start = tables(consts)
    o = [f"// {banner}", "",
         "// The ICRC pipeline's constants (rnic_icrc), one set per beat width K (lanes), from the",
         "// polynomial ICRC_POLY and the header sizes; layouts as rnic_icrc reads them.",
         "", "`resetall", "`timescale 1ns / 1ps", "`default_nettype none", "",
         "package rnic_icrc_pkg;", "",
         "  // the register after the LRH stand-in (ICRC_LRH_ONES_BYTES of 0xFF from ICRC_CRC_INIT)",
         f"  localparam logic [31:0] CRC_START = {_bits(start, 32)};"]
    for keep, t in per_keep.items():
        o.append("")
        o.append(f"  // K = {keep} (DATA_WIDTH {8 * keep})")
        for name, (width, value) in t.items():
            n = f"K{keep}_{name}"
            if width == "int":
                o.append(f"  localparam int {n} = {value};")
            else:
                o.append(f"  localparam logic [{width - 1}:0] {n} = {_bits(value, width)};")
    o += ["", "endpackage", "", "`resetall", ""]
    return "\n".join(o)
