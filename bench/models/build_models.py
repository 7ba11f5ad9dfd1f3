#!/usr/bin/env python3
"""Builds the benchmark model zoo as ONNX: torchvision architectures with random weights.

For each model: <name>.onnx (opset 13, input float32 named 'input' - 1x3x224x224 for the vision
models, [1, tokens, dim] for the transformer block - and one output 'logits'),
<name>_input.npy (a random input) and <name>_logits.npy (onnxruntime's fp32 output for it, the
reference for fidelity checks), plus manifest.json describing all of them. Weights are random
(weights=None, fixed seed) - nothing is downloaded - and BatchNorm running statistics are set by a
few train-mode forward passes on random data, so activations have realistic ranges to calibrate on.
BatchNorm scale/shift and the biases torchvision initialises to zero get small random values too.

Needs the machine's python3 with bench/models/requirements.txt installed:
    python3 -m pip install -r bench/models/requirements.txt
    bench/models/build_models.py                 # writes bench/models/out/ (git-ignored)
"""
import argparse
import hashlib
import json
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 13
# nn.MultiheadAttention exports through scaled_dot_product_attention, whose exporter needs opset 14.
OPSET_OF = {'vit_block': 14}
IMAGE_SHAPE = (1, 3, 224, 224)
TOKENS_SHAPE = (1, 49, 192)  # a 224x224 image in 32x32 patches, ViT-Tiny's width


def out_logits(model):
    """Wraps a torchvision segmentation model, which returns {'out': ...}, to return the tensor."""
    import torch

    class OutLogits(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x)['out']

    return OutLogits(model)


def torchvision_model(name):
    import torchvision

    return lambda: torchvision.models.get_model(name, weights=None)


def lraspp():
    import torchvision

    # weights_backbone=None: the default would download ImageNet weights for the backbone.
    return out_logits(torchvision.models.get_model(
        'lraspp_mobilenet_v3_large', weights=None, weights_backbone=None, num_classes=21))


def vit_block():
    from torchvision.models.vision_transformer import EncoderBlock

    # ViT-Tiny's width (192, 3 heads, MLP 768): LayerNorm, multi-head attention, LayerNorm, MLP
    # with GELU, two residual adds.
    return EncoderBlock(num_heads=3, hidden_dim=192, mlp_dim=768, dropout=0.0,
                        attention_dropout=0.0)


# name -> (what it is, builder, input shape)
MODELS = {
    'resnet18': ('resnet18', torchvision_model('resnet18'), IMAGE_SHAPE),
    'resnet50': ('resnet50', torchvision_model('resnet50'), IMAGE_SHAPE),
    'mobilenet_v2': ('mobilenet_v2', torchvision_model('mobilenet_v2'), IMAGE_SHAPE),
    'squeezenet1_1': ('squeezenet1_1', torchvision_model('squeezenet1_1'), IMAGE_SHAPE),
    'vgg11': ('vgg11', torchvision_model('vgg11'), IMAGE_SHAPE),
    'mobilenet_v3_large': ('mobilenet_v3_large', torchvision_model('mobilenet_v3_large'),
                           IMAGE_SHAPE),
    'mobilenet_v3_small': ('mobilenet_v3_small', torchvision_model('mobilenet_v3_small'),
                           IMAGE_SHAPE),
    'efficientnet_b0': ('efficientnet_b0', torchvision_model('efficientnet_b0'), IMAGE_SHAPE),
    'lraspp_mobilenet_v3_large': ('lraspp_mobilenet_v3_large (21 classes, output \'out\')',
                                  lraspp, IMAGE_SHAPE),
    'regnet_y_400mf': ('regnet_y_400mf', torchvision_model('regnet_y_400mf'), IMAGE_SHAPE),
    'vit_block': ('vision_transformer.EncoderBlock(3 heads, 192, MLP 768)', vit_block,
                  TOKENS_SHAPE),
}


def log(msg):
    print(msg, flush=True)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('out', nargs='?', default=os.path.join(HERE, 'out'),
                   help='output folder (default: bench/models/out)')
    p.add_argument('--models', default=','.join(MODELS),
                   help=f'comma-separated subset of: {", ".join(MODELS)} (default: all)')
    p.add_argument('--seed', type=int, default=0, help='seed for weights and data (default: 0)')
    p.add_argument('--bn-batches', type=int, default=4,
                   help='train-mode forward passes that set BatchNorm statistics (default: 4)')
    p.add_argument('--bn-batch-size', type=int, default=8)
    p.add_argument('--fold-bn', action='store_true',
                   help='let the exporter fold BatchNorm into the convolutions (default: keep '
                        'BatchNormalization nodes for Loom to fold)')
    args = p.parse_args()
    args.models = [m.strip() for m in args.models.split(',') if m.strip()]
    unknown = [m for m in args.models if m not in MODELS]
    if unknown:
        p.error(f'unknown model(s) {unknown}; choose from {list(MODELS)}')
    return args


def count_macs(model, x):
    """Multiply-accumulates of the Conv2d and Linear layers for one forward pass of x."""
    import torch

    macs = [0]

    def conv_hook(m, inputs, out):
        kh, kw = m.kernel_size
        macs[0] += out.numel() * (m.in_channels // m.groups) * kh * kw

    def linear_hook(m, inputs, out):
        macs[0] += out.numel() * m.in_features

    def attention_hook(m, inputs, out):
        # nn.MultiheadAttention calls its projections functionally, so no Linear hook sees them:
        # Q, K, V and output projections, Q·K^T and attention·V.
        n, t, d = inputs[0].shape  # batch_first
        macs[0] += n * (4 * t * d * d + 2 * t * t * d)

    hooks = []
    for m in model.modules():
        if isinstance(m, torch.nn.Conv2d):
            hooks.append(m.register_forward_hook(conv_hook))
        elif isinstance(m, torch.nn.Linear):
            hooks.append(m.register_forward_hook(linear_hook))
        elif isinstance(m, torch.nn.MultiheadAttention):
            assert m.batch_first, 'MAC count assumes batch_first attention'
            hooks.append(m.register_forward_hook(attention_hook))
    with torch.no_grad():
        model(x)
    for h in hooks:
        h.remove()
    return macs[0]


def randomize_constant_parameters(model, gen):
    """Gives BatchNorm and LayerNorm scale/shift and zero-initialised biases random values.

    torchvision initialises them to constants (gamma 1, beta 0, bias 0), which no trained network
    has: BN folding would be trivial, and torch's exporter merges identical initializers behind
    Identity nodes. Returns how many tensors changed.
    """
    import torch

    changed = 0
    with torch.no_grad():
        for m in model.modules():
            norm = (torch.nn.modules.batchnorm._BatchNorm, torch.nn.LayerNorm)
            if isinstance(m, norm) and m.weight is not None:
                m.weight.copy_(torch.rand(m.weight.shape, generator=gen) + 0.5)  # U(0.5, 1.5)
                m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.1)
                changed += 2
            elif isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)) and m.bias is not None:
                if not m.bias.any():
                    m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.01)
                    changed += 1
            elif isinstance(m, torch.nn.MultiheadAttention) and m.in_proj_bias is not None:
                m.in_proj_bias.copy_(torch.randn(m.in_proj_bias.shape, generator=gen) * 0.01)
                changed += 1
    return changed


def set_bn_statistics(model, batches, batch_size, shape, gen):
    """Replaces BN running mean/var with the average over `batches` random batches."""
    import torch

    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return 0
    saved = [bn.momentum for bn in bns]
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None  # cumulative average over the passes below
    model.train()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn((batch_size,) + shape[1:], generator=gen))
    for bn, momentum in zip(bns, saved):
        bn.momentum = momentum
    model.eval()
    return len(bns)


def export(model, x, path, fold_bn, opset):
    import torch

    # The TorchScript exporter (dynamo=False) writes opset 13; TrainingMode.PRESERVE on an
    # eval-mode model keeps inference BatchNormalization nodes, where EVAL would fold them. That
    # exporter is deprecated since torch 2.9 (it warns); the torch.export-based one targets opset
    # 18 and newer and needs onnxscript.
    mode = torch.onnx.TrainingMode.EVAL if fold_bn else torch.onnx.TrainingMode.PRESERVE
    with warnings.catch_warnings():
        warnings.filterwarnings('ignore', 'You are using the legacy TorchScript-based ONNX export',
                                DeprecationWarning)
        # PRESERVE also triggers a caution against constant folding meant for train-mode models;
        # the model is in eval mode, and folding only touches shape arithmetic here.
        warnings.filterwarnings('ignore', 'It is recommended that constant folding be turned off',
                                UserWarning)
        torch.onnx.export(model, (x,), path, dynamo=False, opset_version=opset,
                          input_names=['input'], output_names=['logits'], training=mode)


def op_counts(path):
    import onnx

    m = onnx.load(path, load_external_data=False)
    onnx.checker.check_model(path)  # by path: works past the 2 GB in-memory limit
    ops = {}
    for node in m.graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    return dict(sorted(ops.items()))


def run_onnxruntime(path, x):
    import onnxruntime as ort

    sess = ort.InferenceSession(path, providers=['CPUExecutionProvider'])
    t0 = time.perf_counter()
    out = sess.run(None, {'input': x})[0]
    return out, time.perf_counter() - t0


def sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def build(name, args):
    import torch

    torch.manual_seed(args.seed)  # per model, so a subset builds the same weights as the full set
    gen = torch.Generator().manual_seed(args.seed)
    what, builder, shape = MODELS[name]
    model = builder()
    params = sum(p.numel() for p in model.parameters())
    randomize_constant_parameters(model, gen)
    n_bn = set_bn_statistics(model, args.bn_batches, args.bn_batch_size, shape, gen)
    model.eval()
    x = torch.from_numpy(
        np.random.default_rng(args.seed).standard_normal(shape).astype(np.float32))
    macs = count_macs(model, x)
    with torch.no_grad():
        torch_out = model(x).numpy()

    onnx_path = os.path.join(args.out, f'{name}.onnx')
    t0 = time.perf_counter()
    opset = OPSET_OF.get(name, OPSET)
    export(model, x, onnx_path, args.fold_bn, opset)
    export_s = time.perf_counter() - t0
    ops = op_counts(onnx_path)
    ort_out, ort_s = run_onnxruntime(onnx_path, x.numpy())
    if not np.isfinite(ort_out).all():
        sys.exit(f'error: {name}: onnxruntime output is not finite')
    diff = float(np.abs(ort_out - torch_out).max())
    np.save(os.path.join(args.out, f'{name}_input.npy'), x.numpy())
    np.save(os.path.join(args.out, f'{name}_logits.npy'), ort_out)
    return {
        'name': name,
        'torchvision': what,
        'input_shape': list(shape),
        'opset': opset,
        'onnx': f'{name}.onnx',
        'input': f'{name}_input.npy',
        'logits': f'{name}_logits.npy',
        'params': params,
        'macs': macs,
        'batchnorm_layers': n_bn,
        'onnx_bytes': os.path.getsize(onnx_path),
        'onnx_sha256': sha256(onnx_path),
        'ops': ops,
        'export_seconds': round(export_s, 2),
        'onnxruntime_seconds': round(ort_s, 4),
        'max_abs_diff_onnxruntime_vs_torch': float(f'{diff:.3g}'),
        'logits_std': float(f'{float(ort_out.std()):.4g}'),
    }


def print_table(rows):
    header = ('model', 'params', 'MACs', 'ONNX size', 'BN', 'export', 'ORT 1st run', 'max |ORT-torch|')
    lines = [(r['name'], f"{r['params'] / 1e6:.2f} M", f"{r['macs'] / 1e9:.2f} G",
              f"{r['onnx_bytes'] / 2**20:.1f} MiB", str(r['ops'].get('BatchNormalization', 0)),
              f"{r['export_seconds']:.1f} s", f"{r['onnxruntime_seconds'] * 1e3:.0f} ms",
              f"{r['max_abs_diff_onnxruntime_vs_torch']:.1e}") for r in rows]
    widths = [max(len(x) for x in col) for col in zip(header, *lines)]
    for i, line in enumerate([header] + lines):
        log('  '.join(c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in
                      enumerate(zip(line, widths))))
        if i == 0:
            log('  '.join('-' * w for w in widths))


def main():
    args = parse_args()
    import onnx
    import onnxruntime
    import torch
    import torchvision

    log(f'torch {torch.__version__}, torchvision {torchvision.__version__}, onnx {onnx.__version__}'
        f', onnxruntime {onnxruntime.__version__}, numpy {np.__version__}')
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for i, name in enumerate(args.models):
        log(f'[{i + 1}/{len(args.models)}] {name}: build, BN statistics, export, onnxruntime ...')
        row = build(name, args)
        log(f'    {row["onnx_bytes"] / 2**20:.1f} MiB, {sum(row["ops"].values())} nodes, '
            f'export {row["export_seconds"]:.1f} s')
        rows.append(row)

    manifest = {
        'opset': OPSET,
        'seed': args.seed,
        'bn_batches': args.bn_batches,
        'bn_batch_size': args.bn_batch_size,
        'batchnorm': 'folded by the exporter' if args.fold_bn else 'kept as BatchNormalization',
        'versions': {'torch': torch.__version__, 'torchvision': torchvision.__version__,
                     'onnx': onnx.__version__, 'onnxruntime': onnxruntime.__version__,
                     'numpy': np.__version__},
        'models': rows,
    }
    with open(os.path.join(args.out, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=2)
        f.write('\n')
    log('')
    print_table(rows)
    log(f'\nwrote {len(rows)} models and manifest.json to {args.out}')


if __name__ == '__main__':
    main()
