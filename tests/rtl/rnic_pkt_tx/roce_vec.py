"""Shared helpers for the packet builder/parser/checker vector generators.

The packet-header record layout is read from rtl/rnic_hdr_pkg.sv and the
protocol constants from rtl/rnic_pkg.sv, so nothing here restates them.
"""
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
# the Linux rxe captures in the tree (tests/vectors/rxe/README.md)
RXE_DIR = os.path.join(ROOT, "tests", "vectors", "rxe")


def _read_params(path):
    vals = {}
    with open(os.path.join(ROOT, path)) as f:
        for line in f:
            m = re.match(r"\s*localparam\s+(?:int|logic\s*\[\d+:\d+\])\s+(\w+)\s*=\s*([^;]+);", line)
            if not m:
                continue
            v = m.group(2).strip()
            if "'h" in v:
                vals[m.group(1)] = int(v.split("'h")[1].replace("_", ""), 16)
            elif re.fullmatch(r"-?\d+", v):
                vals[m.group(1)] = int(v)
            # (anything else is computed in the package: not a field)
    return vals


HDR = _read_params("rtl/rnic_hdr_pkg.sv")
PKG = _read_params("rtl/rnic_pkg.sv")
HDR_BITS = HDR["HDR_BITS"]
HDR_FIELDS = sorted(k[len("HDR_"):-len("_LSB")] for k in HDR if k.endswith("_LSB"))


def pack_record(fields):
    """fields: dict name -> int (names as in rnic_hdr_pkg without HDR_ and _LSB)."""
    v = 0
    for name, val in fields.items():
        lsb = HDR[f"HDR_{name}_LSB"]
        w = HDR[f"HDR_{name}_W"]
        assert 0 <= val < (1 << w), (name, val)
        v |= val << lsb
    return v


def record_hex(v):
    return f"{v:0{(HDR_BITS + 3) // 4}x}"


def outdir(name):
    d = os.path.join(ROOT, "build", "vectors", name)
    os.makedirs(d, exist_ok=True)
    return d


class atomic_open:
    """open(path, "w") that appears whole or not at all: the tests at both
    widths generate the same vectors at once, and a testbench must never
    read a file another generator is halfway through writing."""

    def __init__(self, path):
        self.path = path
        self.tmp = "%s.tmp.%d" % (path, os.getpid())

    def __enter__(self):
        self.f = open(self.tmp, "w")
        return self.f

    def __exit__(self, kind, value, tb):
        self.f.close()
        if kind is None:
            os.replace(self.tmp, self.path)
        else:
            os.unlink(self.tmp)
        return False


# extension headers per RC opcode (IBTA Vol. 1 Table 38):
# (has_reth, has_aeth, has_immdt, other extension bytes: AtomicETH, AtomicAckETH, IETH)
def ext_of(op):
    P = PKG
    reth = op in (P["OP_RDMA_WRITE_FIRST"], P["OP_RDMA_WRITE_ONLY"], P["OP_RDMA_WRITE_ONLY_IMM"],
                  P["OP_RDMA_READ_REQUEST"])
    aeth = op in (P["OP_RDMA_READ_RESPONSE_FIRST"], P["OP_RDMA_READ_RESPONSE_LAST"],
                  P["OP_RDMA_READ_RESPONSE_ONLY"], P["OP_ACKNOWLEDGE"], P["OP_ATOMIC_ACKNOWLEDGE"])
    imm = op in (P["OP_SEND_LAST_IMM"], P["OP_SEND_ONLY_IMM"], P["OP_RDMA_WRITE_LAST_IMM"],
                 P["OP_RDMA_WRITE_ONLY_IMM"])
    other = 0
    if op in (P["OP_COMPARE_SWAP"], P["OP_FETCH_ADD"]):
        other = P["ATOMICETH_BYTES"]
    elif op == P["OP_ATOMIC_ACKNOWLEDGE"]:
        other = P["ATOMICACKETH_BYTES"]
    elif op in (P["OP_SEND_LAST_INV"], P["OP_SEND_ONLY_INV"]):
        other = 4  # IETH
    return reth, aeth, imm, other


# the RC opcodes (transport prefix 000b); UD's (011b) carry a DETH
RC_OPCODES = sorted(v for k, v in PKG.items() if k.startswith("OP_") and v >> 5 == 0)
UD_OPCODES = sorted(v for k, v in PKG.items() if k.startswith("OP_UD_"))


def icrc_model(frame_no_icrc):
    """ICRC bytes of a frame (IBTA Annex A17, as Linux rxe_icrc.c computes it):
    CRC32 over 8 bytes of ones for the LRH and the frame from the IP header on
    with the variant fields set to ones; stored least significant byte first."""
    import zlib
    b = bytearray(frame_no_icrc)
    et = (b[12] << 8) | b[13]
    if et == P_ETHERTYPE_IPV4:
        for i in (15, 22, 24, 25, 40, 41, 46):
            b[i] = 0xFF
    else:
        b[14] |= 0x0F
        for i in (15, 16, 17, 21, 60, 61, 66):
            b[i] = 0xFF
    return zlib.crc32(b"\xff" * 8 + bytes(b[14:])).to_bytes(4, "little")


P_ETHERTYPE_IPV4 = PKG["ETHERTYPE_IPV4"]
