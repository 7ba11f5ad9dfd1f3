#!/usr/bin/env python3
"""Trains the digits CNN and writes the example model Loom compiles end to end.

A small ResNet-style CNN on scikit-learn's bundled digits data set (8x8 grayscale, 10 classes,
1797 samples, no download), trained deterministically on the CPU and exported to ONNX (opset 13)
with its BatchNormalization nodes kept, so the compiler's BN folding has something to fold.

Needs the machine's python3 with examples/digits/requirements.txt installed:
    python3 -m pip install -r examples/digits/requirements.txt
    examples/digits/train.py            # writes into examples/digits/

Outputs (see README.md): digits.onnx, calibration.npy, test_images.npy, test_labels.npy,
expected.json.
"""
import argparse
import json
import os
import random
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 13
# Operators the exported graph must contain: the example exists to exercise them.
REQUIRED_OPS = {'Conv', 'BatchNormalization', 'Relu', 'Add', 'MaxPool', 'GlobalAveragePool',
                'Gemm'}


def log(msg):
    print(msg, flush=True)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--out', default=HERE, help='output folder (default: examples/digits)')
    p.add_argument('--seed', type=int, default=20240229, help='seed for split, init and shuffling')
    p.add_argument('--epochs', type=int, default=60)
    p.add_argument('--batch-size', type=int, default=32)
    p.add_argument('--lr', type=float, default=3e-3, help='peak Adam learning rate (cosine decay)')
    p.add_argument('--min-accuracy', type=float, default=0.95,
                   help='fail unless the fp32 test accuracy reaches this (default: 0.95)')
    return p.parse_args()


def load_data(seed):
    """The digits set as NCHW float32 in [0, 1], split 80/20 stratified with `seed`."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    images = (digits.images.astype(np.float32) / 16.0).reshape(-1, 1, 8, 8)
    labels = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(
        images, labels, test_size=0.2, stratify=labels, random_state=seed)
    return x_train, y_train, x_test, y_test


def calibration_set(x_train, y_train, seed, per_class=10):
    """100 training samples, 10 of each class, in a fixed shuffled order."""
    rng = np.random.default_rng(seed)
    picks = []
    for c in range(10):
        idx = np.flatnonzero(y_train == c)
        picks.extend(rng.choice(idx, size=per_class, replace=False))
    picks = rng.permutation(np.array(picks))
    return np.ascontiguousarray(x_train[picks])


def build_model():
    import torch.nn as nn

    class BasicBlock(nn.Module):
        """ResNet's basic block: conv-BN-ReLU-conv-BN, identity shortcut, add, ReLU."""

        def __init__(self, channels):
            super().__init__()
            self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(channels)
            self.relu = nn.ReLU()
            self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(channels)

        def forward(self, x):
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return self.relu(x + y)

    class DigitsNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1, bias=False),
                                      nn.BatchNorm2d(16), nn.ReLU())
            self.block = BasicBlock(16)
            self.pool = nn.MaxPool2d(2)  # 8x8 -> 4x4
            self.conv = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1, bias=False),
                                      nn.BatchNorm2d(32), nn.ReLU())
            self.gap = nn.AdaptiveAvgPool2d(1)  # exported as GlobalAveragePool
            self.fc = nn.Linear(32, 10)  # exported as Gemm

        def forward(self, x):
            x = self.conv(self.pool(self.block(self.stem(x))))
            return self.fc(self.gap(x).flatten(1))

    return DigitsNet()


def make_deterministic(seed):
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    # One thread: CPU reductions may otherwise split (and round) differently per machine.
    torch.set_num_threads(1)


def train(model, x_train, y_train, args):
    import torch
    import torch.nn.functional as F

    x = torch.from_numpy(x_train)
    y = torch.from_numpy(y_train)
    steps_per_epoch = (len(x) + args.batch_size - 1) // args.batch_size
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, epochs=args.epochs,
                                                steps_per_epoch=steps_per_epoch)
    gen = torch.Generator().manual_seed(args.seed)
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(x), generator=gen)
        total_loss, correct = 0.0, 0
        for i in range(0, len(x), args.batch_size):
            idx = order[i:i + args.batch_size]
            logits = model(x[idx])
            loss = F.cross_entropy(logits, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total_loss += loss.item() * len(idx)
            correct += (logits.argmax(1) == y[idx]).sum().item()
        if epoch % 10 == 9 or epoch == args.epochs - 1:
            log(f'  epoch {epoch + 1:3d}/{args.epochs}: loss {total_loss / len(x):.4f}, '
                f'train accuracy {correct / len(x):.4f}')


def torch_logits(model, images):
    import torch

    model.eval()
    with torch.no_grad():
        return model(torch.from_numpy(images)).numpy()


def export_onnx(model, path):
    import torch

    model.eval()
    # The TorchScript exporter (dynamo=False) with TrainingMode.PRESERVE on an eval-mode model
    # writes inference BatchNormalization nodes instead of folding them into the convolutions, and
    # no constant folding keeps the graph as the model was written.
    # That exporter is deprecated since torch 2.9 (it warns); the torch.export-based one targets
    # opset 18 and newer and needs onnxscript.
    with warnings.catch_warnings():
        warnings.filterwarnings('ignore', 'You are using the legacy TorchScript-based ONNX export',
                                DeprecationWarning)
        torch.onnx.export(model, (torch.zeros(1, 1, 8, 8),), path, dynamo=False,
                          opset_version=OPSET, input_names=['input'], output_names=['logits'],
                          training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)


def check_onnx(path):
    import onnx

    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)
    ops = {}
    for node in m.graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    missing = REQUIRED_OPS - set(ops)
    if missing:
        sys.exit(f'error: {path} lacks {sorted(missing)}; it has {ops}')
    opset = [o.version for o in m.opset_import if o.domain in ('', 'ai.onnx')]
    return ops, opset[0] if opset else None


def onnxruntime_logits(path, images):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(path, opts, providers=['CPUExecutionProvider'])
    # The model is exported for batch 1, as the accelerator runs it.
    return np.concatenate([sess.run(None, {'input': images[i:i + 1]})[0]
                           for i in range(len(images))])


def main():
    args = parse_args()
    t0 = time.time()
    import onnx
    import onnxruntime
    import sklearn
    import torch

    log(f'torch {torch.__version__}, onnx {onnx.__version__}, '
        f'onnxruntime {onnxruntime.__version__}, scikit-learn {sklearn.__version__}, '
        f'numpy {np.__version__}')
    make_deterministic(args.seed)
    os.makedirs(args.out, exist_ok=True)

    x_train, y_train, x_test, y_test = load_data(args.seed)
    log(f'digits: {len(x_train)} train, {len(x_test)} test samples (seed {args.seed})')

    model = build_model()
    params = sum(p.numel() for p in model.parameters())
    log(f'training DigitsNet ({params} parameters), {args.epochs} epochs ...')
    train(model, x_train, y_train, args)

    torch_pred = torch_logits(model, x_test).argmax(1)
    torch_acc = float((torch_pred == y_test).mean())
    log(f'torch fp32 test accuracy: {torch_acc:.4f} ({int((torch_pred == y_test).sum())}'
        f'/{len(y_test)})')

    onnx_path = os.path.join(args.out, 'digits.onnx')
    export_onnx(model, onnx_path)
    ops, opset = check_onnx(onnx_path)
    log(f'exported {onnx_path} (opset {opset}, {os.path.getsize(onnx_path)} bytes): '
        + ', '.join(f'{k} x{v}' for k, v in sorted(ops.items())))

    ort_logits = onnxruntime_logits(onnx_path, x_test)
    ref_logits = torch_logits(model, x_test)
    ort_pred = ort_logits.argmax(1)
    ort_acc = float((ort_pred == y_test).mean())
    max_diff = float(np.abs(ort_logits - ref_logits).max())
    log(f'onnxruntime fp32 test accuracy: {ort_acc:.4f} ({int((ort_pred == y_test).sum())}'
        f'/{len(y_test)}), max |logit difference| vs torch {max_diff:.2e}')

    calib = calibration_set(x_train, y_train, args.seed)
    arrays = {'calibration.npy': calib, 'test_images.npy': np.ascontiguousarray(x_test),
              'test_labels.npy': y_test}
    for name, a in arrays.items():
        np.save(os.path.join(args.out, name), a)
        log(f'wrote {name}: {a.dtype} {list(a.shape)}')

    expected = {
        'model': 'digits.onnx',
        'opset': opset,
        'input': {'name': 'input', 'shape': [1, 1, 8, 8], 'dtype': 'float32',
                  'range': [0.0, 1.0]},
        'output': {'name': 'logits', 'shape': [1, 10], 'dtype': 'float32'},
        'seed': args.seed,
        'split': {'test_size': 0.2, 'stratified': True, 'train_samples': len(x_train),
                  'test_samples': len(x_test)},
        'num_samples': len(x_test),
        'calibration_samples': len(calib),
        'accuracy': {'torch_fp32': round(torch_acc, 6), 'onnxruntime_fp32': round(ort_acc, 6)},
        'correct': {'torch_fp32': int((torch_pred == y_test).sum()),
                    'onnxruntime_fp32': int((ort_pred == y_test).sum())},
        'max_abs_logit_diff_onnxruntime_vs_torch': float(f'{max_diff:.3g}'),
        'ops': dict(sorted(ops.items())),
        'versions': {'torch': torch.__version__, 'onnx': onnx.__version__,
                     'onnxruntime': onnxruntime.__version__, 'numpy': np.__version__,
                     'scikit-learn': sklearn.__version__},
    }
    with open(os.path.join(args.out, 'expected.json'), 'w') as f:
        json.dump(expected, f, indent=2)
        f.write('\n')
    log(f'wrote expected.json ({time.time() - t0:.1f} s in all)')

    if (torch_pred != ort_pred).any():
        sys.exit('error: onnxruntime and torch disagree on '
                 f'{int((torch_pred != ort_pred).sum())} test predictions')
    if torch_acc < args.min_accuracy:
        sys.exit(f'error: test accuracy {torch_acc:.4f} is below --min-accuracy '
                 f'{args.min_accuracy}')


if __name__ == '__main__':
    main()
