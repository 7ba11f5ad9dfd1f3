#!/usr/bin/env python3
"""Writes the network blocks the end-to-end tests compile and run on every device.

Each block is a torch module with random weights and non-trivial BatchNorm statistics (fixed
seed), exported to ONNX (opset 13), plus a calibration set and a test input drawn from N(0, 1) and torch's fp32 output for it.
Channel counts are deliberately not multiples of 16, so channel padding is exercised.

  resnet_basic      conv3x3-BN-ReLU-conv3x3-BN + identity, ReLU        (ResNet-18/34)
  resnet_bottleneck 1x1-3x3(stride 2)-1x1 + 1x1 stride-2 projection     (ResNet-50)
  mbv2_inverted     1x1 expand-ReLU6, 3x3 depthwise-ReLU6, 1x1 project + identity (MobileNetV2)
  squeeze_fire      1x1 squeeze-ReLU, 1x1 and 3x3 expand-ReLU, concat, ceil-mode maxpool (SqueezeNet 1.1)
  mbv3_bneck        1x1 expand-hardswish, 3x3 depthwise-hardswish, squeeze-excitation (pool, 1x1-ReLU,
                    1x1-hardsigmoid, channel-wise multiply), 1x1 project + identity (MobileNetV3)
  effnet_mbconv     1x1 expand-SiLU, 3x3 depthwise-SiLU, squeeze-excitation (SiLU, sigmoid), 1x1
                    project + identity (EfficientNet-B0's MBConv)
  lraspp_head       LR-ASPP: 1x1-BN-ReLU branch gated by a pooled 1x1-sigmoid branch, bilinear
                    upsample, plus a classifier of the low-level features (LRASPP-MobileNetV3)
  regnet_block      1x1-BN-ReLU, 3x3 grouped conv (group width 8)-BN-ReLU, squeeze-excitation,
                    1x1-BN + identity, ReLU (RegNetY)
  resnext_block     1x1-BN-ReLU, 3x3 grouped conv (8 groups of 8)-BN-ReLU, 1x1-BN + identity, ReLU,
                    then a stride-2 3x3 grouped conv 64->128 (16 groups of 4 -> 8) (ResNeXt):
                    groups of whole channel blocks, which the CPU runs a group at a time
  wide_conv         conv3x3 72->20-BN-ReLU on 7x9: its weights outgrow the CPU row kernels' L1
                    chunk, so native code and fast::Conv2d split the reduction (native tests only)
  vit_block         LayerNorm, 2-head self-attention, LayerNorm, GELU MLP, two residual adds on
                    [1, 16 tokens, 40] (torchvision's ViT EncoderBlock; opset 14)

The outputs are committed (a few KB each), so CI needs no torch. To regenerate:
    python3 -m pip install -r bench/models/requirements.txt   # torch and torchvision (vit_block)
    tests/e2e/models/make_blocks.py [BLOCK...]      # default: every block
"""
import os
import sys

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 1234


def bn(c):
    b = nn.BatchNorm2d(c)
    with torch.no_grad():
        b.weight.uniform_(0.5, 1.5)
        b.bias.uniform_(-0.2, 0.2)
        b.running_mean.uniform_(-0.2, 0.2)
        b.running_var.uniform_(0.5, 2.0)
    return b


class ResNetBasic(nn.Module):
    def __init__(self, c=24):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(c, c, 3, padding=1, bias=False), bn(c)
        self.c2, self.b2 = nn.Conv2d(c, c, 3, padding=1, bias=False), bn(c)

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        return torch.relu(self.b2(self.c2(y)) + x)


class ResNetBottleneck(nn.Module):
    def __init__(self, cin=20, mid=12, cout=40):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(cin, mid, 1, bias=False), bn(mid)
        self.c2, self.b2 = nn.Conv2d(mid, mid, 3, stride=2, padding=1, bias=False), bn(mid)
        self.c3, self.b3 = nn.Conv2d(mid, cout, 1, bias=False), bn(cout)
        self.down, self.bd = nn.Conv2d(cin, cout, 1, stride=2, bias=False), bn(cout)

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        y = torch.relu(self.b2(self.c2(y)))
        return torch.relu(self.b3(self.c3(y)) + self.bd(self.down(x)))


class InvertedResidual(nn.Module):
    def __init__(self, c=24, expand=4):
        super().__init__()
        h = c * expand
        self.e, self.be = nn.Conv2d(c, h, 1, bias=False), bn(h)
        self.d, self.bd = nn.Conv2d(h, h, 3, padding=1, groups=h, bias=False), bn(h)
        self.p, self.bp = nn.Conv2d(h, c, 1, bias=False), bn(c)

    def forward(self, x):
        y = nn.functional.relu6(self.be(self.e(x)))
        y = nn.functional.relu6(self.bd(self.d(y)))
        return self.bp(self.p(y)) + x


class Fire(nn.Module):
    def __init__(self, cin=20, squeeze=8, expand=24):
        super().__init__()
        self.s = nn.Conv2d(cin, squeeze, 1)
        self.e1 = nn.Conv2d(squeeze, expand, 1)
        self.e3 = nn.Conv2d(squeeze, expand, 3, padding=1)
        self.pool = nn.MaxPool2d(3, stride=2, ceil_mode=True)  # as in SqueezeNet

    def forward(self, x):
        s = torch.relu(self.s(x))
        y = torch.cat([torch.relu(self.e1(s)), torch.relu(self.e3(s))], 1)
        return self.pool(y)


class SqueezeExcite(nn.Module):
    def __init__(self, c, squeeze, act, gate):
        super().__init__()
        self.fc1, self.fc2 = nn.Conv2d(c, squeeze, 1), nn.Conv2d(squeeze, c, 1)
        self.act, self.gate = act, gate

    def forward(self, x):
        s = nn.functional.adaptive_avg_pool2d(x, 1)
        return x * self.gate(self.fc2(self.act(self.fc1(s))))


class MobileNetV3Bneck(nn.Module):
    def __init__(self, c=20, h=48, squeeze=12):
        super().__init__()
        self.e, self.be = nn.Conv2d(c, h, 1, bias=False), bn(h)
        self.d, self.bd = nn.Conv2d(h, h, 3, padding=1, groups=h, bias=False), bn(h)
        self.se = SqueezeExcite(h, squeeze, nn.ReLU(), nn.Hardsigmoid())
        self.p, self.bp = nn.Conv2d(h, c, 1, bias=False), bn(c)

    def forward(self, x):
        y = nn.functional.hardswish(self.be(self.e(x)))
        y = self.se(nn.functional.hardswish(self.bd(self.d(y))))
        return self.bp(self.p(y)) + x


class MBConv(nn.Module):
    def __init__(self, c=20, h=60, squeeze=5):
        super().__init__()
        self.e, self.be = nn.Conv2d(c, h, 1, bias=False), bn(h)
        self.d, self.bd = nn.Conv2d(h, h, 3, padding=1, groups=h, bias=False), bn(h)
        self.se = SqueezeExcite(h, squeeze, nn.SiLU(), nn.Sigmoid())
        self.p, self.bp = nn.Conv2d(h, c, 1, bias=False), bn(c)

    def forward(self, x):
        y = nn.functional.silu(self.be(self.e(x)))
        y = self.se(nn.functional.silu(self.bd(self.d(y))))
        return self.bp(self.p(y)) + x


class LRASPPHead(nn.Module):
    def __init__(self, low=20, high=40, inter=24, classes=5):
        super().__init__()
        self.down, self.bdown = nn.Conv2d(low, high, 3, stride=2, padding=1, bias=False), bn(high)
        self.cbr, self.bcbr = nn.Conv2d(high, inter, 1, bias=False), bn(inter)
        self.scale = nn.Conv2d(high, inter, 1, bias=False)
        self.low_classifier = nn.Conv2d(low, classes, 1)
        self.high_classifier = nn.Conv2d(inter, classes, 1)

    def forward(self, x):
        high = torch.relu(self.bdown(self.down(x)))  # the backbone's stride-2 features
        y = torch.relu(self.bcbr(self.cbr(high)))
        y = y * torch.sigmoid(self.scale(nn.functional.adaptive_avg_pool2d(high, 1)))
        y = nn.functional.interpolate(y, size=x.shape[-2:], mode='bilinear', align_corners=False)
        return self.low_classifier(x) + self.high_classifier(y)


class RegNetBlock(nn.Module):
    def __init__(self, c=24, group_width=8, squeeze=6):
        super().__init__()
        self.a, self.ba = nn.Conv2d(c, c, 1, bias=False), bn(c)
        self.b, self.bb = nn.Conv2d(c, c, 3, padding=1, groups=c // group_width, bias=False), bn(c)
        self.se = SqueezeExcite(c, squeeze, nn.ReLU(), nn.Sigmoid())
        self.c, self.bc = nn.Conv2d(c, c, 1, bias=False), bn(c)

    def forward(self, x):
        y = torch.relu(self.ba(self.a(x)))
        y = self.se(torch.relu(self.bb(self.b(y))))
        return torch.relu(self.bc(self.c(y)) + x)


class ResNeXtBlock(nn.Module):
    def __init__(self, c=64, width=8, out=128):
        super().__init__()
        self.a, self.ba = nn.Conv2d(c, c, 1, bias=False), bn(c)
        self.b, self.bb = nn.Conv2d(c, c, 3, padding=1, groups=c // width, bias=False), bn(c)
        self.c, self.bc = nn.Conv2d(c, c, 1, bias=False), bn(c)
        self.d = nn.Conv2d(c, out, 3, stride=2, padding=1, groups=16)

    def forward(self, x):
        y = torch.relu(self.ba(self.a(x)))
        y = torch.relu(self.bb(self.b(y)))
        y = torch.relu(self.bc(self.c(y)) + x)
        return self.d(y)


class WideConv(nn.Module):
    def __init__(self, cin=72, cout=20):
        super().__init__()
        self.conv, self.bn = nn.Conv2d(cin, cout, 3, padding=1, bias=False), bn(cout)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


def vit_block():
    from torchvision.models.vision_transformer import EncoderBlock

    block = EncoderBlock(num_heads=2, hidden_dim=40, mlp_dim=80, dropout=0.0, attention_dropout=0.0)
    with torch.no_grad():  # LayerNorm's default scale 1 and shift 0 would make its folding trivial
        for ln in (block.ln_1, block.ln_2):
            ln.weight.uniform_(0.5, 1.5)
            ln.bias.uniform_(-0.2, 0.2)
    return block


BLOCKS = {
    'resnet_basic': (ResNetBasic, (1, 24, 10, 10)),
    'resnet_bottleneck': (ResNetBottleneck, (1, 20, 12, 12)),
    'mbv2_inverted': (InvertedResidual, (1, 24, 8, 8)),
    'squeeze_fire': (Fire, (1, 20, 12, 12)),
    'mbv3_bneck': (MobileNetV3Bneck, (1, 20, 8, 8)),
    'effnet_mbconv': (MBConv, (1, 20, 8, 8)),
    'lraspp_head': (LRASPPHead, (1, 20, 12, 12)),
    'regnet_block': (RegNetBlock, (1, 24, 8, 8)),
    'resnext_block': (ResNeXtBlock, (1, 64, 8, 8)),
    'vit_block': (vit_block, (1, 16, 40)),
    'wide_conv': (WideConv, (1, 72, 7, 9)),
}
# scaled_dot_product_attention (nn.MultiheadAttention) exports from opset 14 on.
OPSET = {'vit_block': 14}


def main():
    only = set(sys.argv[1:])  # block names to regenerate (default: all)
    for name, (cls, shape) in BLOCKS.items():
        if only and name not in only:
            continue
        torch.manual_seed(SEED)
        model = cls().eval()
        rng = np.random.default_rng(SEED)
        calib = rng.standard_normal((8,) + shape[1:]).astype(np.float32)
        test = rng.standard_normal((4,) + shape[1:]).astype(np.float32)
        path = os.path.join(HERE, name + '.onnx')
        torch.onnx.export(model, torch.from_numpy(test[:1]), path, opset_version=OPSET.get(name, 13),
                          input_names=['x'], output_names=['y'], do_constant_folding=True,
                          dynamo=False)
        np.save(os.path.join(HERE, name + '_calibration.npy'), calib)
        np.save(os.path.join(HERE, name + '_input.npy'), test)
        with torch.no_grad():
            expected = model(torch.from_numpy(test)).numpy()
        np.save(os.path.join(HERE, name + '_expected.npy'), expected.astype(np.float32))
        print(f'{name}: {path} ({os.path.getsize(path)} bytes)')


if __name__ == '__main__':
    main()
