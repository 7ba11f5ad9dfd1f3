#!/usr/bin/env python3
"""Writes `resnet_stem` and `vgg_stem`, end-to-end blocks for first-layer packing, without torch.

  resnet_stem  conv 7x7 stride 2 pad 3 over 3 channels (bias) - ReLU - maxpool 3x3/2 pad 1
               (ResNet's stem on a 30x30 image: an odd output size and 20 output channels)
  vgg_stem     conv 3x3 stride 1 pad 1 over 3 channels (bias) - ReLU - maxpool 2x2/2
               (VGG's features.0-2 on a 16x16 image, 8 output channels: the width im2col alone)

Written with the onnx helpers (opset 13); the fp32 reference output is computed here with numpy.
Like make_blocks.py's outputs, the files are committed. To regenerate (numpy, onnx):
    python3 tests/e2e/models/make_stem_block.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 1234
C, O, HW, K, S, P = 3, 20, 30, 7, 2, 3


def conv(x, w, b):
    n, _, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (P, P), (P, P)))
    oh, ow = (h + 2 * P - K) // S + 1, (wd + 2 * P - K) // S + 1
    y = np.zeros((n, O, oh, ow), np.float64)
    for ky in range(K):
        for kx in range(K):
            patch = xp[:, :, ky:ky + S * oh:S, kx:kx + S * ow:S]
            y += np.einsum('nchw,oc->nohw', patch, w[:, :, ky, kx])
    return y + b[None, :, None, None]


def maxpool(x):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    oh, ow = (h + 2 - 3) // 2 + 1, (w + 2 - 3) // 2 + 1
    return np.max([xp[:, :, ky:ky + 2 * oh:2, kx:kx + 2 * ow:2]
                   for ky in range(3) for kx in range(3)], axis=0)


def save_block(name, nodes, in_shape, out_shape, w, b, rng, reference):
    """Writes NAME.onnx (x -> nodes -> y, constants w and b), then 8 calibration and 4 test
    images drawn from `rng` in that order, and `reference(test)` as NAME_expected.npy."""
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info('x', TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, out_shape)],
        [numpy_helper.from_array(w, 'w'), numpy_helper.from_array(b, 'b')])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = os.path.join(HERE, f'{name}.onnx')
    onnx.save(model, path)
    calib = rng.standard_normal((8, *in_shape[1:])).astype(np.float32)
    test = rng.standard_normal((4, *in_shape[1:])).astype(np.float32)
    np.save(os.path.join(HERE, f'{name}_calibration.npy'), calib)
    np.save(os.path.join(HERE, f'{name}_input.npy'), test)
    np.save(os.path.join(HERE, f'{name}_expected.npy'), reference(test).astype(np.float32))
    print(f'{name}: {path} ({os.path.getsize(path)} bytes)')


def main():
    rng = np.random.default_rng(SEED)
    w = (rng.standard_normal((O, C, K, K)) / np.sqrt(C * K * K)).astype(np.float32)
    b = (0.1 * rng.standard_normal(O)).astype(np.float32)
    nodes = [
        helper.make_node('Conv', ['x', 'w', 'b'], ['c'], kernel_shape=[K, K], strides=[S, S],
                         pads=[P, P, P, P]),
        helper.make_node('Relu', ['c'], ['r']),
        helper.make_node('MaxPool', ['r'], ['y'], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1]),
    ]
    save_block('resnet_stem', nodes, [1, C, HW, HW], [1, O, 8, 8], w, b, rng,
               lambda t: maxpool(np.maximum(conv(t.astype(np.float64), w, b), 0)))


def vgg_stem():
    rng = np.random.default_rng(SEED + 1)
    c, o, hw = 3, 8, 16
    w = (rng.standard_normal((o, c, 3, 3)) / np.sqrt(c * 9)).astype(np.float32)
    b = (0.1 * rng.standard_normal(o)).astype(np.float32)
    nodes = [
        helper.make_node('Conv', ['x', 'w', 'b'], ['c'], kernel_shape=[3, 3], strides=[1, 1],
                         pads=[1, 1, 1, 1]),
        helper.make_node('Relu', ['c'], ['r']),
        helper.make_node('MaxPool', ['r'], ['y'], kernel_shape=[2, 2], strides=[2, 2]),
    ]

    def reference(test):
        xp = np.pad(test.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
        y = sum(np.einsum('nchw,oc->nohw', xp[:, :, ky:ky + hw, kx:kx + hw], w[:, :, ky, kx])
                for ky in range(3) for kx in range(3)) + b[None, :, None, None]
        return np.maximum(y, 0).reshape(4, o, hw // 2, 2, hw // 2, 2).max(axis=(3, 5))

    save_block('vgg_stem', nodes, [1, c, hw, hw], [1, o, hw // 2, hw // 2], w, b, rng, reference)


if __name__ == '__main__':
    main()
    vgg_stem()
