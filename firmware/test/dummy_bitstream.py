#!/usr/bin/python3
"""Writes a small file in Vivado's .bit format for the image test (firmware/test/image_test).

The header is what bootgen reads (design name, part, date, time, then the configuration data's
length); the data is a few dummy words around the sync word 0xAA995566. It configures nothing: a
real bitstream comes from `loom-hwconfig vivado` and Vivado (docs/boards.md).

usage: dummy_bitstream.py PART OUT.bit
"""
import struct
import sys


def field(key: bytes, text: str) -> bytes:
    value = text.encode() + b"\0"
    return key + struct.pack(">H", len(value)) + value


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    part, out = sys.argv[1], sys.argv[2]
    # The fixed preamble every .bit starts with: a 9-byte field, then a 1-byte one ('a' follows).
    head = struct.pack(">H", 9) + bytes([0x0F, 0xF0] * 4 + [0]) + struct.pack(">H", 1)
    head += field(b"a", "loom_dummy;UserID=0XFFFFFFFF;Version=2022.2")
    head += field(b"b", part)
    head += field(b"c", "2026/01/01")
    head += field(b"d", "00:00:00")
    data = b"\xff" * 32 + bytes.fromhex("000000bb11220044ffffffffffffffffaa995566")
    data += bytes.fromhex("20000000") * 16  # NOOPs
    with open(out, "wb") as f:
        f.write(head + b"e" + struct.pack(">I", len(data)) + data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
