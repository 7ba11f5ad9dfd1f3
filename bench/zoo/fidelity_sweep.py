#!/usr/bin/env python3
"""Cosine of Loom's int8 zoo models to fp32 under several sets of `loom compile` flags.

Each model gets the zoo's inputs (run_zoo.py: 4 calibration samples, the seeded input plus 4
held-out evaluation inputs; `--held-out N` adds N more drawn with numpy.random.default_rng(5)),
one compile per variant (`--board pynq-z1`, `--no-sqnr`, timed), `loom run --device cpu` on the
evaluation inputs, and the cosine (whole set / worst input) against onnxruntime fp32. With
`--fsim`, the first variant's package also runs on fsim and must give the same bytes (the script
exits 1 when it does not).

  bench/zoo/fidelity_sweep.py --loom build/bin/loom --models-dir /work/main/bench/models/out \\
      --variant off='--bias-correction off' --variant on='--bias-correction on' --fsim
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_zoo import ZOO, calibration_set, cosine, eval_inputs, ort_logits, ort_session, run  # noqa: E402

HELD_OUT_SEED = 5


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loom", default="build/bin/loom")
    ap.add_argument("--models-dir", default="bench/models/out")
    ap.add_argument("--models", default="", help="comma-separated subset (default: every zoo model found)")
    ap.add_argument("--variant", action="append", default=[],
                    help="NAME=FLAGS, one per variant (default: off/on bias correction)")
    ap.add_argument("--held-out", type=int, default=0,
                    help="evaluate on this many other inputs (default_rng(5)) instead of the zoo's five")
    ap.add_argument("--fsim", action="store_true", help="check the first variant on fsim, bit for bit")
    ap.add_argument("--work", default="/tmp/loom-fidelity")
    args = ap.parse_args()
    variants = [v.split("=", 1) for v in args.variant] or [
        ["off", "--bias-correction off"], ["on", "--bias-correction on"]]
    wanted = set(args.models.split(",")) if args.models else None
    log = open(os.path.join(os.makedirs(args.work, exist_ok=True) or args.work, "log.txt"), "a")
    rows, differs = [], []
    for m in ZOO:
        onnx = os.path.join(args.models_dir, m + ".onnx")
        if not os.path.exists(onnx) or (wanted and m not in wanted):
            continue
        w = os.path.join(args.work, m)
        os.makedirs(w, exist_ok=True)
        first = os.path.join(args.models_dir, m + "_input.npy")
        calib = calibration_set(first, 4, os.path.join(w, "calibration.npy"))
        if args.held_out:
            x0 = np.load(first)
            x = np.random.default_rng(HELD_OUT_SEED).standard_normal(
                (args.held_out,) + x0.shape[1:]).astype(np.float32)
            x_path = os.path.join(w, "held_out.npy")
            np.save(x_path, x)
        else:
            x_path, x = eval_inputs({"first": first, "eval": None}, 4, os.path.join(w, "eval.npy"))
        ref = ort_logits(ort_session(onnx), x).reshape(x.shape[0], -1)
        row = [m]
        for i, (name, flags) in enumerate(variants):
            pkg, out = os.path.join(w, name + ".loom"), os.path.join(w, name + ".npy")
            t0 = time.perf_counter()
            run([args.loom, "compile", onnx, "-o", pkg, "--board", "pynq-z1", "--calibration", calib,
                 "--no-sqnr"] + flags.split(), log)
            secs = time.perf_counter() - t0
            run([args.loom, "run", pkg, "--device", "cpu", "--input", x_path, "--output", out, "-q"], log)
            q = np.load(out).reshape(x.shape[0], -1)
            worst = min(cosine(q[k], ref[k]) for k in range(x.shape[0]))
            cell = f"{cosine(q, ref):.4f} / {worst:.4f} ({secs:.1f} s)"
            if args.fsim and i == 0:
                fo = os.path.join(w, name + ".fsim.npy")
                run([args.loom, "run", pkg, "--device", "fsim", "--input", x_path, "--output", fo, "-q"], log)
                same = np.array_equal(np.load(fo), np.load(out))
                cell += ", fsim " + ("identical" if same else "DIFFERS")
                differs += [] if same else [m]
            row.append(cell)
            print(f"{m} {name}: {cell}", file=sys.stderr, flush=True)
        rows.append(row)
    print("| model | " + " | ".join(v[0] for v in variants) + " |")
    print("| --- |" + " --- |" * len(variants))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    if differs:
        sys.exit(f"fsim gave other bytes than cpu for: {', '.join(differs)}")


if __name__ == "__main__":
    main()
