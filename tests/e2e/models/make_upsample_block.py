#!/usr/bin/env python3
"""Writes `upsample_block`, the end-to-end block for nearest Resize on the accelerator, without torch.

  upsample_block  conv 3x3 (8 -> 16) - ReLU - Resize nearest x2 (scales, asymmetric + floor: how
                  torch exports F.interpolate(scale_factor=2)) - conv 3x3 (16 -> 16) - ReLU -
                  Resize nearest x2 (sizes, half_pixel + round_prefer_floor: ONNX's defaults) -
                  conv 1x1 (16 -> 8), on a 6x6 image (outputs 24x24)

Written with the onnx helpers (opset 13); the fp32 reference output is computed here with numpy.
Like make_blocks.py's outputs, the files are committed. To regenerate (numpy, onnx):
    python3 tests/e2e/models/make_upsample_block.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = 'upsample_block'
SEED = 4321
C, M, O, HW = 8, 16, 8, 6


def conv(x, w, b):
    k = w.shape[2]
    p = k // 2
    n, _, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    y = np.zeros((n, w.shape[0], h, wd), np.float64)
    for ky in range(k):
        for kx in range(k):
            y += np.einsum('nchw,oc->nohw', xp[:, :, ky:ky + h, kx:kx + wd], w[:, :, ky, kx])
    return y + b[None, :, None, None]


def up2(x):
    return np.repeat(np.repeat(x, 2, axis=2), 2, axis=3)


def main():
    rng = np.random.default_rng(SEED)

    def weights(o, c, k):
        w = (rng.standard_normal((o, c, k, k)) / np.sqrt(c * k * k)).astype(np.float32)
        return w, (0.1 * rng.standard_normal(o)).astype(np.float32)

    w1, b1 = weights(M, C, 3)
    w2, b2 = weights(M, M, 3)
    w3, b3 = weights(O, M, 1)
    scales = np.array([1, 1, 2, 2], np.float32)
    sizes = np.array([1, M, 4 * HW, 4 * HW], np.int64)
    nodes = [
        helper.make_node('Conv', ['x', 'w1', 'b1'], ['c1'], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node('Relu', ['c1'], ['r1']),
        helper.make_node('Resize', ['r1', '', 'scales'], ['u1'], mode='nearest',
                         coordinate_transformation_mode='asymmetric', nearest_mode='floor'),
        helper.make_node('Conv', ['u1', 'w2', 'b2'], ['c2'], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node('Relu', ['c2'], ['r2']),
        helper.make_node('Resize', ['r2', '', '', 'sizes'], ['u2'], mode='nearest'),
        helper.make_node('Conv', ['u2', 'w3', 'b3'], ['y'], kernel_shape=[1, 1]),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(w1, 'w1'), (b1, 'b1'), (w2, 'w2'), (b2, 'b2'), (w3, 'w3'), (b3, 'b3'),
              (scales, 'scales'), (sizes, 'sizes')]]
    graph = helper.make_graph(
        nodes, NAME, [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, C, HW, HW])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, O, 4 * HW, 4 * HW])], inits)
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
    u1 = up2(np.maximum(conv(t, w1, b1), 0))
    u2 = up2(np.maximum(conv(u1, w2, b2), 0))
    expected = conv(u2, w3, b3)
    np.save(os.path.join(HERE, NAME + '_expected.npy'), expected.astype(np.float32))
    print(f'{NAME}: {path} ({os.path.getsize(path)} bytes)')


if __name__ == '__main__':
    main()
