#!/usr/bin/env python3
"""Where a package's inference spends its time on Loom's cpu device, by kind of work.

Compiles each model (as run_cpu.py does), runs `loom run --device cpu` on a batch of copies of its
input under `perf record`, and groups the samples by kernel symbol into the classes of docs/cpu.md
(conv GEMM, first layer, depthwise, requantization, add, pooling, input quantization, copies...).
Work done while loading the package (checks of the programs, hashing, relocation, page faults) is
left out, so the split is the inference's. The batch makes loading a small share of the samples.

Needs perf (Debian: linux-perf). Prints one markdown table per model.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Symbols of package loading, not of the inference.
LOAD = ["strcmp", "isa::", "Fnv1a64", "_dl_", "PackWeights", "namespace)::Pack"]
# (substring of the symbol, class), first match wins.
CLASSES = [
    ("DwRows<", "depthwise, register-blocked rows (requantization fused)"),
    ("Rows<", "conv GEMM, register-blocked rows (requantization fused)"),
    ("PadInput", "conv input padding copy"),
    ("CopyRow", "conv input padding copy"),
    ("WidenRow", "conv input padding copy"),
    ("GemmRegs", "conv GEMM tile, full block"),
    ("GemmAny", "conv GEMM tile, partial block (3-channel first layer)"),
    ("Depthwise", "depthwise"),
    ("Requantize", "requantization epilogue"),
    ("ShrRnd", "requantization epilogue"),
    ("q::Add", "add"),
    ("AddAvx2", "add"),
    ("AddRun", "add"),
    ("fast::Add", "add"),
    ("MaxPool", "pooling"),
    ("MaxAvx2", "pooling"),
    ("MaxPortable", "pooling"),
    ("AvgPool", "pooling"),
    ("Quantize", "input quantization (f32 -> int8)"),
    ("PackActivation", "layout conversion"),
    ("UnpackActivation", "layout conversion"),
    ("Dequantize", "output dequantization"),
    ("kernels::Transpose", "float Transpose (the packed first layer's space-to-depth)"),
    ("memmove", "copies (memmove, memset)"),
    ("memset", "copies (memmove, memset)"),
    ("memcpy", "copies (memmove, memset)"),
    ("fast::Conv2d", "conv driver loop"),
]


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return p.stdout


def split(perf_data):
    out = run(["perf", "report", "-i", perf_data, "--no-children", "--sort", "symbol", "-g",
               "none"])
    groups = collections.Counter()
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\[.\])\s+(.*)", line)
        if not m:
            continue
        pct, kind, sym = float(m.group(1)), m.group(2), m.group(3)
        if kind == "[k]" or any(s in sym for s in LOAD):
            continue
        for key, cls in CLASSES:
            if key in sym:
                groups[cls] += pct
                break
        else:
            groups["other"] += pct
    total = sum(groups.values()) or 1.0
    return [(cls, 100.0 * v / total) for cls, v in groups.most_common()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loom", default=os.path.join(ROOT, "build", "bin", "loom"))
    ap.add_argument("--models-dir", default=os.path.join(ROOT, "bench", "models", "out"))
    ap.add_argument("--models", default="resnet18,mobilenet_v2")
    ap.add_argument("--batch", type=int, default=32, help="copies of the input in one run")
    ap.add_argument("--kernels", default="auto", help="LOOM_CPU_KERNELS for the run")
    ap.add_argument("--work", default="/tmp/loom_cpu_profile")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    for name in args.models.split(","):
        onnx = os.path.join(args.models_dir, name + ".onnx")
        x = os.path.join(args.models_dir, name + "_input.npy")
        pkg = os.path.join(args.work, name + ".loom")
        print(f"{name}: compiling", file=sys.stderr, flush=True)
        run([args.loom, "compile", onnx, "-o", pkg, "--board", "pynq-z1", "--calibration", x,
             "--no-sqnr"])
        xb = os.path.join(args.work, name + "_batch.npy")
        x1 = np.load(x)[:1].astype(np.float32)
        np.save(xb, np.repeat(x1, args.batch, axis=0))
        data = os.path.join(args.work, name + ".perf.data")
        print(f"{name}: perf record of {args.batch} inferences", file=sys.stderr, flush=True)
        env = dict(os.environ, LOOM_CPU_KERNELS=args.kernels)
        run(["perf", "record", "-F", "2000", "-o", data, args.loom, "run", pkg, "--device", "cpu",
             "--input", xb, "--output", os.path.join(args.work, "out.npy"), "-q"], env)
        print(f"\n{name} ({args.kernels} kernels, batch {args.batch})\n")
        print("| work | share of the inference |\n| --- | ---: |")
        for cls, pct in split(data):
            print(f"| {cls} | {pct:.1f} % |")


if __name__ == "__main__":
    main()
