#!/usr/bin/env python3
"""A sanity check of the ARM int8 kernels under QEMU user mode (not a timing of any hardware).

Runs cross-built `loom-run-board` binaries (scripts/firmware; build-firmware/TARGET/bin) under
qemu-aarch64 or qemu-arm on packages compiled on the host (`loom compile ... --board pynq-z1`),
once per LOOM_CPU_KERNELS value, --runs times each, and prints the median of two numbers per
cell: the CPU time QEMU spent (user + system of the child: the translated code, so a proxy for
the work the kernels do, not for a core's cycles) and the segments' wall time from --stats
(loading and process start left out; on a loaded host the wall time moves a lot more than the
CPU time). Passing two binaries (e.g. one built before a kernel change) compares them; every run
of a model must give the same output bytes, which the script checks.

Example (the numbers in docs/cpu.md):
  bench/cpu/qemu_cpu.py --qemu qemu-aarch64 --cpu max \
      --binary rows=build-firmware/aarch64/bin/loom-run-board --binary tiles=/tmp/old-loom-run-board \
      --model resnet18=resnet18.loom:resnet18_x1.npy --kernels portable,neon,neondot --runs 3
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "zoo"))
import run_zoo  # noqa: E402  (per_inference_ms: the same reading of --stats as the other benches)


def pair(text, what):
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise argparse.ArgumentTypeError(f"{what} '{text}': expected NAME=VALUE")
    return name, value


def run_once(args, binary, kernels, package, x, work):
    out, st = os.path.join(work, "out.npy"), os.path.join(work, "stats.json")
    cmd = [args.qemu, "-cpu", args.cpu, binary, "run", package, "--device", "cpu", "--input", x,
           "--output", out, "--stats", st, "-q"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True,
                       env=dict(os.environ, LOOM_CPU_KERNELS=kernels))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(st) as f:
        stats = json.load(f)
    wall_ms = run_zoo.per_inference_ms(stats)
    with open(out, "rb") as f:
        return cpu_s, wall_ms, f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--qemu", default="qemu-aarch64")
    ap.add_argument("--cpu", default="max", help="QEMU's CPU model (max has sdot; cortex-a53 not)")
    ap.add_argument("--binary", action="append", required=True, type=lambda t: pair(t, "--binary"),
                    help="LABEL=PATH of a cross-built loom-run-board; repeatable")
    ap.add_argument("--model", action="append", required=True, type=lambda t: pair(t, "--model"),
                    help="NAME=PACKAGE:INPUT.npy; repeatable")
    ap.add_argument("--kernels", default="portable,neon,neondot")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    kernels = args.kernels.split(",")
    print(f"QEMU user mode ({args.qemu} -cpu {args.cpu}), median of {args.runs}: CPU s of the "
          "QEMU process / segments' wall ms. Not hardware timings.\n")
    print("| model | binary | " + " | ".join(kernels) + " |")
    print("| --- | --- | " + " | ".join("---:" for _ in kernels) + " |")
    with tempfile.TemporaryDirectory(prefix=f"loom_qemu_{os.getpid()}_") as work:
        for model, spec in args.model:
            package, _, x = spec.partition(":")
            first = None
            for label, binary in args.binary:
                cells = []
                for k in kernels:
                    cpu, wall = [], []
                    for i in range(args.runs):
                        print(f"{model} {label} {k} run {i + 1}/{args.runs}", file=sys.stderr,
                              flush=True)
                        c, w, out = run_once(args, binary, k, package, x, work)
                        if first is None:
                            first = out
                        elif out != first:
                            sys.exit(f"{model}: {label} with {k} gave other output bytes")
                        cpu.append(c)
                        wall.append(w)
                    cells.append(f"{statistics.median(cpu):.2f} s / "
                                 f"{statistics.median(wall):.0f} ms")
                print(f"| {model} | {label} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
