#!/usr/bin/env python3
"""Loom's cpu device against ONNX Runtime on one thread: ResNet-18, MobileNetV2 and digits.

For each model: compile it once (`loom compile`, calibrated on the model's own input), then time
one inference of the same input on

  - Loom's cpu device, once per int8 kernel set named in --kernels (LOOM_CPU_KERNELS: `reference`
    is the portable reference kernels, `auto` the fastest this CPU runs; kernels/int8/fast/fast.h;
    `native` the package compiled with `--cpu-targets host`, LLVM native code, docs/cpu.md),
  - ONNX Runtime fp32, and ONNX Runtime int8 twice, from its own static quantizer (QDQ,
    per-channel int8 weights, calibrated with MinMax on the same input): `ort_int8` with QInt8
    activations (s8s8) and `ort_u8s8` with QUInt8 activations, the setting ORT's documentation
    recommends on x86 (its u8s8 kernels are its fastest there).

ORT runs one intra-op and one inter-op thread, sequential execution; `loom run` is one thread by
construction. A measurement is the mean of a batch of back-to-back inferences sized to about half a
second; the reported number is the median of --runs measurements (>= 7), and the rounds interleave
Loom and ORT so a change in the host's load falls on all of them alike. Loom's time is the
segments' wall time from `loom run --stats` (package loading and process start are not in it).

Runs on the machine's python3 (pip: bench/zoo/requirements.txt). Build the zoo models first with
bench/models/build_models.py. Writes OUT/cpu.json and OUT/cpu.md and prints the table.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "zoo"))
import run_zoo  # noqa: E402  (ORT session and quantizer set-up shared with the zoo bench)

MODELS = ["resnet18", "mobilenet_v2", "digits"]


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return p.stdout


def model_spec(name, models_dir):
    if name == "digits":
        d = os.path.join(ROOT, "examples", "digits")
        return {"onnx": os.path.join(d, "digits.onnx"),
                "calibration": os.path.join(d, "calibration.npy"),
                "input": os.path.join(d, "test_images.npy")}
    onnx = os.path.join(models_dir, name + ".onnx")
    if not os.path.exists(onnx):
        raise FileNotFoundError(f"{onnx} is missing: run bench/models/build_models.py {models_dir} "
                                f"--models {name}")
    x = os.path.join(models_dir, name + "_input.npy")
    return {"onnx": onnx, "calibration": x, "input": x}


def kernel_env(kernels):
    """LOOM_CPU_KERNELS for a --kernels entry: `native` is the package with native code for this
    host (`loom compile --cpu-targets host`), its other ops on `auto`."""
    return dict(os.environ, LOOM_CPU_KERNELS="auto" if kernels == "native" else kernels)


def loom_ms(args, pkgs, xb, batch, kernels, w):
    """Per-inference ms of one `loom run` over `batch` copies of the input."""
    st = os.path.join(w, "stats.json")
    pkg = pkgs[kernels == "native"]
    env = kernel_env(kernels)
    run([args.loom, "run", pkg, "--device", "cpu", "--input", xb, "--output",
         os.path.join(w, "out.npy"), "--stats", st, "-q"], env)
    with open(st) as f:
        return run_zoo.per_inference_ms(json.load(f))


def bench_model(args, name):
    spec = model_spec(name, args.models_dir)
    w = os.path.join(args.work, name)
    os.makedirs(w, exist_ok=True)
    pkg = os.path.join(w, name + ".loom")
    print(f"{name}: compiling", flush=True)
    run([args.loom, "compile", spec["onnx"], "-o", pkg, "--board", "pynq-z1", "--calibration",
         spec["calibration"], "--no-sqnr", "--cpu-targets", "none"])
    pkgs = [pkg, pkg]
    compile_s = {}
    if "native" in args.kernels:
        pkgs[1] = os.path.join(w, name + "_native.loom")
        t0 = time.perf_counter()
        run([args.loom, "compile", spec["onnx"], "-o", pkgs[1], "--board", "pynq-z1",
             "--calibration", spec["calibration"], "--no-sqnr", "--cpu-targets", "host"])
        compile_s["native"] = time.perf_counter() - t0
    x = np.load(spec["input"])[:1].astype(np.float32)
    x1 = os.path.join(w, "input1.npy")
    np.save(x1, x)

    sessions = {"ort_fp32": run_zoo.ort_session(spec["onnx"])}
    print(f"{name}: quantizing with onnxruntime", flush=True)
    quantized = run_zoo.ort_quantize(spec["onnx"], np.load(spec["calibration"]), w)
    sessions["ort_int8"] = run_zoo.ort_session(quantized["int8"][0])
    sessions["ort_u8s8"] = run_zoo.ort_session(quantized["int8_u8s8"][0])
    feeds = {k: {s.get_inputs()[0].name: x} for k, s in sessions.items()}

    # Batch sizes from one probe each, so every measurement lasts about half a second.
    batch = {}
    for k in args.kernels:
        probe = loom_ms(args, pkgs, x1, 1, k, w)
        batch[k] = int(np.clip(500 / max(probe, 1e-3), 1, 200))
    for k, s in sessions.items():
        s.run(None, feeds[k])
        t0 = time.perf_counter()
        s.run(None, feeds[k])
        batch[k] = int(np.clip(0.5 / max(time.perf_counter() - t0, 1e-6), 1, 2000))
    inputs = {}
    for k in args.kernels:
        inputs[k] = os.path.join(w, f"input_{batch[k]}.npy")
        np.save(inputs[k], np.repeat(x, batch[k], axis=0))

    times = {k: [] for k in list(args.kernels) + list(sessions)}
    for r in range(args.runs):
        print(f"{name}: round {r + 1}/{args.runs}", flush=True)
        for k in args.kernels:
            times[k].append(loom_ms(args, pkgs, inputs[k], batch[k], k, w))
        for k, s in sessions.items():
            t0 = time.perf_counter()
            for _ in range(batch[k]):
                s.run(None, feeds[k])
            times[k].append(1e3 * (time.perf_counter() - t0) / batch[k])
    out = {"model": name, "batch": batch, "runs_ms": times, "native_compile_s": compile_s,
           "ms": {k: float(np.median(v)) for k, v in times.items()}}
    # The outputs must not depend on the kernels: one run of each, compared byte for byte.
    ref = None
    for k in args.kernels:
        o = os.path.join(w, f"out_{k}.npy")
        run([args.loom, "run", pkgs[k == "native"], "--device", "cpu", "--input", x1, "--output",
             o, "-q"], kernel_env(k))
        y = np.load(o)
        ref = y if ref is None else ref
        out.setdefault("identical_outputs", True)
        out["identical_outputs"] &= bool(np.array_equal(y, ref))
    return out


def table(results, kernels):
    """Times, then each kernel set's ratio to both ORT int8 models, then the last set's ratio to
    ORT fp32 (a ratio above 1: Loom is slower)."""
    peers = [("ort_fp32", "ORT fp32"), ("ort_int8", "ORT int8"), ("ort_u8s8", "ORT u8s8")]
    head = (["model"] + [f"loom {k} ms" for k in kernels] + [f"{n} ms" for _, n in peers] +
            [f"loom {k} / {n}" for k in kernels for _, n in peers[1:]] +
            [f"loom {kernels[-1]} / ORT fp32", "outputs identical"])
    rows = []
    for r in results:
        ms = r["ms"]
        rows.append([r["model"]] + [f"{ms[k]:.2f}" for k in kernels] +
                    [f"{ms[p]:.2f}" for p, _ in peers] +
                    [f"{ms[k] / ms[p]:.2f}x" for k in kernels for p, _ in peers[1:]] +
                    [f"{ms[kernels[-1]] / ms['ort_fp32']:.2f}x",
                     "yes" if r["identical_outputs"] else "NO"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loom", default=os.path.join(ROOT, "build", "bin", "loom"))
    ap.add_argument("--models-dir", default=os.path.join(ROOT, "bench", "models", "out"))
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--kernels", default="reference,auto",
                    help="LOOM_CPU_KERNELS values to time, comma-separated, and `native` (the "
                         "package's LLVM native code for this host); the last is the one compared "
                         "with ORT fp32")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--work", default="/tmp/loom_bench_cpu")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    args = ap.parse_args()
    if args.runs < 7:
        ap.error("--runs must be at least 7 (the table reports medians)")
    args.kernels = args.kernels.split(",")
    import onnxruntime
    results = [bench_model(args, m) for m in args.models.split(",")]
    md = table(results, args.kernels)
    note = (f"One thread, median of {args.runs} measurements, same input (the model's first "
            f"sample); {cpu_name()}; onnxruntime {onnxruntime.__version__} (int8: QInt8 "
            f"activations; u8s8: QUInt8 activations, both with per-channel QInt8 weights); "
            f"load average {os.getloadavg()[0]:.1f} at the end; Loom built "
            f"{os.path.relpath(args.loom, ROOT)}. Command: `bench/cpu/run_cpu.py "
            f"--kernels {','.join(args.kernels)} --runs {args.runs}`.")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "cpu.json"), "w") as f:
        json.dump({"results": results, "runs": args.runs, "cpu": cpu_name(),
                   "onnxruntime": onnxruntime.__version__}, f, indent=1)
    with open(os.path.join(args.out, "cpu.md"), "w") as f:
        f.write("# Loom cpu device vs ONNX Runtime (one thread)\n\n" + md + "\n\n" + note + "\n")
    print(md)
    print(note)


if __name__ == "__main__":
    main()
