#!/usr/bin/python3
"""FNV-1a 64 of .npy files' element bytes, as the bare-metal image prints it (main.cc).

    npy_checksum.py OUT0.npy [OUT1.npy ...]

Prints one line per file ("FILE fnv1a64 HEX") and a last line "checksum HEX" over every file's
bytes in order. Standard library only (Debian's python3), so no NumPy is needed to check an image.
"""
import struct
import sys

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK = (1 << 64) - 1


def npy_data(path):
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:6] != b"\x93NUMPY":
        sys.exit(f"npy_checksum.py: {path}: not a .npy file (no \\x93NUMPY magic)")
    major = blob[6]
    if major == 1:
        (header_len,) = struct.unpack_from("<H", blob, 8)
        start = 10 + header_len
    elif major in (2, 3):
        (header_len,) = struct.unpack_from("<I", blob, 8)
        start = 12 + header_len
    else:
        sys.exit(f"npy_checksum.py: {path}: .npy format version {major} is not 1, 2 or 3")
    if start > len(blob):
        sys.exit(f"npy_checksum.py: {path}: truncated header")
    return blob[start:]


def fnv1a(data, h=FNV_OFFSET):
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK
    return h


def main(paths):
    if not paths:
        sys.exit(__doc__.strip())
    total = FNV_OFFSET
    for path in paths:
        data = npy_data(path)
        print(f"{path} fnv1a64 {fnv1a(data):016x}")
        total = fnv1a(data, total)
    print(f"checksum {total:016x}")


if __name__ == "__main__":
    main(sys.argv[1:])
