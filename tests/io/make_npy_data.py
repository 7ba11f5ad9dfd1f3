#!/usr/bin/python3
"""Writes the .npy files the C++ reader is tested and fuzzed against.

tests/io/data/            files written by NumPy itself (np.save / np.lib.format.write_array),
                          read by tests/io/npy_test.cc
runtime/io/npy_fuzz_corpus/  the same valid files plus hand-broken ones, seeds for npy_fuzz

Runs on Debian's interpreter with its NumPy (apt-get install python3-numpy); the outputs are
committed, so the build and CI never run this. Re-run only to change the test data:
    tests/io/make_npy_data.py
"""
import argparse
import io
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def npy_bytes(array, version=None):
    buf = io.BytesIO()
    if version is None:
        np.save(buf, array, allow_pickle=True)
    else:
        np.lib.format.write_array(buf, array, version=version, allow_pickle=True)
    return buf.getvalue()


def valid_files():
    """name -> bytes, every one written by NumPy."""
    f32 = (np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5 - 1.0).astype('<f4')
    files = {
        'f32_2x3.npy': npy_bytes(f32),
        'f64_scalar.npy': npy_bytes(np.array(3.25, dtype='<f8')),
        'i8_4.npy': npy_bytes(np.array([-128, -1, 0, 127], dtype=np.int8)),
        'u8_2x2x2.npy': npy_bytes(np.arange(8, dtype=np.uint8).reshape(2, 2, 2) * 36),
        'i32_3x1.npy': npy_bytes(np.array([[-2147483648], [7], [2147483647]], dtype='<i4')),
        'i64_5.npy': npy_bytes(np.array([-2**63, -1, 0, 1, 2**63 - 1], dtype='<i8')),
        'f32_0x3.npy': npy_bytes(np.zeros((0, 3), dtype='<f4')),
        'f32_1x1x1x1x2.npy': npy_bytes(np.array([1.5, -2.5], dtype='<f4').reshape(1, 1, 1, 1, 2)),
        'f32_v2.npy': npy_bytes(f32, version=(2, 0)),
        'f32_v3.npy': npy_bytes(f32, version=(3, 0)),
    }
    return files


def unsupported_files():
    """Valid NumPy files the reader must reject, each with a clear message."""
    f32 = np.arange(6, dtype=np.float32).reshape(2, 3)
    structured = np.zeros(2, dtype=[('x', '<f4'), ('y', '<i4')])
    return {
        'fortran.npy': npy_bytes(np.asfortranarray(f32)),
        'bigendian.npy': npy_bytes(f32.astype('>f4')),
        'object.npy': npy_bytes(np.array([1, 'a'], dtype=object)),
        'int16.npy': npy_bytes(np.array([1, 2], dtype='<i2')),
        'structured.npy': npy_bytes(structured),
    }


def raw(header, data=b'', version=(1, 0)):
    """A .npy file with a hand-written header (not padded), for the broken seeds."""
    h = header.encode('latin1')
    fmt = '<H' if version[0] == 1 else '<I'
    return b'\x93NUMPY' + bytes(version) + struct.pack(fmt, len(h)) + h + data


def broken_files(valid):
    f32 = valid['f32_2x3.npy']
    return {
        'bad_magic.npy': b'\x93NUMPZ' + f32[6:],
        'empty.npy': b'',
        'truncated_preamble.npy': f32[:9],
        'truncated_header.npy': f32[:40],
        'truncated_data.npy': f32[:-3],
        'trailing_bytes.npy': f32 + b'\0\0\0\0',
        'bad_version.npy': b'\x93NUMPY\x04\x00' + f32[8:],
        'not_a_dict.npy': raw("[('descr', '<f4')]\n"),
        'missing_shape.npy': raw("{'descr': '<f4', 'fortran_order': False}\n"),
        'extra_key.npy': raw("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}\n",
                             b'\0' * 4),
        'overflow_shape.npy': raw(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n"),
        'huge_dim.npy': raw(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }\n"),
        'negative_dim.npy': raw("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }\n"),
        'paren_int_shape.npy': raw("{'descr': '<f4', 'fortran_order': False, 'shape': (3), }\n",
                                   b'\0' * 12),
        'unterminated.npy': raw("{'descr': '<f4}\n"),
        'huge_header_len.npy': b'\x93NUMPY\x02\x00\xff\xff\xff\x7f{',
        'v2_ok.npy': raw("{'shape':(2,),'fortran_order':False,'descr':'|u1'}", b'\1\2', (2, 0)),
        'py2_long.npy': raw("{'descr': '<i4', 'fortran_order': False, 'shape': (1L, 2L), }\n",
                            b'\1\0\0\0\2\0\0\0'),
    }


def write(folder, files):
    os.makedirs(folder, exist_ok=True)
    for name, data in sorted(files.items()):
        with open(os.path.join(folder, name), 'wb') as f:
            f.write(data)
        print(f'  {os.path.relpath(os.path.join(folder, name), ROOT):60s} {len(data):5d} bytes')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--data', default=os.path.join(HERE, 'data'),
                        help='folder for the test files (default: tests/io/data)')
    parser.add_argument('--corpus', default=os.path.join(ROOT, 'runtime', 'io', 'npy_fuzz_corpus'),
                        help='folder for the fuzz seeds (default: runtime/io/npy_fuzz_corpus)')
    args = parser.parse_args()

    print(f'numpy {np.__version__}, python {sys.version.split()[0]}')
    valid, unsupported = valid_files(), unsupported_files()
    print('test data:')
    write(args.data, {**valid, **unsupported})
    print('fuzz seeds:')
    write(args.corpus, {**valid, **unsupported, **broken_files(valid)})


if __name__ == '__main__':
    main()
