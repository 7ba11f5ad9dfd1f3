#!/usr/bin/env python3
"""Writes `deconv_block`, the end-to-end block for ConvTranspose on the accelerator, without torch.

  deconv_block  an FPN/decoder step on a 6x6 image:
                c1 = ReLU(conv 3x3 (8 -> 16)); d = ReLU(conv 3x3 stride 2 (16 -> 16), 3x3)
                u  = ConvTranspose 2x2 stride 2 (16 -> 16) of d, back to 6x6
                s  = ReLU(u + conv 1x1 (16 -> 16) of c1)      (the lateral connection)
                v  = ReLU(ConvTranspose 3x3 stride 2 pad 1 output_padding 1 (16 -> 8) of s), 12x12
                y  = conv 3x3 (8 -> 8) of v

Both ConvTransposes carry a bias. Written with the onnx helpers (opset 13); the fp32 reference
output is computed here with numpy, the transposed convolutions by their definition (every input
pixel scatters its kernel-sized patch at stride s, then the pads are cropped), independent of the
compiler's zero-insertion rewrite. Like make_blocks.py's outputs, the files are committed. To
regenerate (numpy, onnx):
    python3 tests/e2e/models/make_deconv_block.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = 'deconv_block'
SEED = 2612
C, M, O, HW = 8, 16, 8, 6


def conv(x, w, b, stride=1):
    k = w.shape[2]
    p = k // 2
    n, _, h, wd = x.shape
    oh, ow = (h + 2 * p - k) // stride + 1, (wd + 2 * p - k) // stride + 1
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    y = np.zeros((n, w.shape[0], oh, ow), np.float64)
    for ky in range(k):
        for kx in range(k):
            patch = xp[:, :, ky:ky + stride * (oh - 1) + 1:stride, kx:kx + stride * (ow - 1) + 1:stride]
            y += np.einsum('nchw,oc->nohw', patch, w[:, :, ky, kx])
    return y + b[None, :, None, None]


def conv_transpose(x, w, b, stride, pad, out_pad):
    n, _, h, wd = x.shape
    k = w.shape[2]
    full = np.zeros((n, w.shape[1], stride * (h - 1) + k + out_pad,
                     stride * (wd - 1) + k + out_pad), np.float64)
    for i in range(h):
        for j in range(wd):
            full[:, :, stride * i:stride * i + k, stride * j:stride * j + k] += np.einsum(
                'nc,cmyx->nmyx', x[:, :, i, j], w)
    oh, ow = full.shape[2] - 2 * pad, full.shape[3] - 2 * pad
    return full[:, :, pad:pad + oh, pad:pad + ow] + b[None, :, None, None]


def main():
    rng = np.random.default_rng(SEED)

    def weights(shape, fan_in):
        w = (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)
        return w, (0.1 * rng.standard_normal(shape[0] if len(shape) else 1)).astype(np.float32)

    w1, b1 = weights((M, C, 3, 3), C * 9)
    w2, b2 = weights((M, M, 3, 3), M * 9)
    wl, bl = weights((M, M, 1, 1), M)
    wt1 = (rng.standard_normal((M, M, 2, 2)) / np.sqrt(M)).astype(np.float32)
    bt1 = (0.1 * rng.standard_normal(M)).astype(np.float32)
    wt2 = (rng.standard_normal((M, O, 3, 3)) / np.sqrt(M * 9 / 4)).astype(np.float32)
    bt2 = (0.1 * rng.standard_normal(O)).astype(np.float32)
    w3, b3 = weights((O, O, 3, 3), O * 9)
    nodes = [
        helper.make_node('Conv', ['x', 'w1', 'b1'], ['c1'], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node('Relu', ['c1'], ['r1']),
        helper.make_node('Conv', ['r1', 'w2', 'b2'], ['c2'], kernel_shape=[3, 3], pads=[1] * 4,
                         strides=[2, 2]),
        helper.make_node('Relu', ['c2'], ['r2']),
        helper.make_node('ConvTranspose', ['r2', 'wt1', 'bt1'], ['u'], name='up2x2',
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node('Conv', ['r1', 'wl', 'bl'], ['lat'], kernel_shape=[1, 1]),
        helper.make_node('Add', ['u', 'lat'], ['sum']),
        helper.make_node('Relu', ['sum'], ['s']),
        helper.make_node('ConvTranspose', ['s', 'wt2', 'bt2'], ['t'], name='up3x3',
                         kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4, output_padding=[1, 1]),
        helper.make_node('Relu', ['t'], ['v']),
        helper.make_node('Conv', ['v', 'w3', 'b3'], ['y'], kernel_shape=[3, 3], pads=[1] * 4),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(w1, 'w1'), (b1, 'b1'), (w2, 'w2'), (b2, 'b2'), (wl, 'wl'), (bl, 'bl'),
              (wt1, 'wt1'), (bt1, 'bt1'), (wt2, 'wt2'), (bt2, 'bt2'), (w3, 'w3'), (b3, 'b3')]]
    graph = helper.make_graph(
        nodes, NAME, [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, C, HW, HW])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, O, 2 * HW, 2 * HW])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = os.path.join(HERE, NAME + '.onnx')
    onnx.save(model, path)
    calib = rng.standard_normal((8, C, HW, HW)).astype(np.float32)
    test = rng.standard_normal((4, C, HW, HW)).astype(np.float32)
    np.save(os.path.join(HERE, NAME + '_calibration.npy'), calib)
    np.save(os.path.join(HERE, NAME + '_input.npy'), test)
    t = test.astype(np.float64)
    r1 = np.maximum(conv(t, w1, b1), 0)
    r2 = np.maximum(conv(r1, w2, b2, stride=2), 0)
    s = np.maximum(conv_transpose(r2, wt1, bt1, 2, 0, 0) + conv(r1, wl, bl), 0)
    expected = conv(np.maximum(conv_transpose(s, wt2, bt2, 2, 1, 1), 0), w3, b3)
    np.save(os.path.join(HERE, NAME + '_expected.npy'), expected.astype(np.float32))
    print(f'{NAME}: {path} ({os.path.getsize(path)} bytes)')


if __name__ == '__main__':
    main()
