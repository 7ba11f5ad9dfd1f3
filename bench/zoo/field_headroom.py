#!/usr/bin/env python3
"""Instruction-field headroom: the largest value each ISA field takes over compiled packages,
against the field's range for their config (docs/isa.md §2). The lowering's verifier already
refuses a value that does not fit; this shows how close real models come, so a config change
(a larger buffer, a wider block) knows which field to widen first.

usage: field_headroom.py [--loom build/bin/loom] [--hwconfig build/bin/loom-hwconfig] PKG.loom...

All packages must share one config. Prints a markdown table; exits 1 if a value is out of range.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def index_bits(hwconfig, config):
    """{buffer: (depth, index bits)} from `loom-hwconfig show CONFIG`."""
    out = subprocess.run([hwconfig, "show", config], capture_output=True, text=True, check=True).stdout
    bits = {}
    for m in re.finditer(r"^(uop|inp|wgt|acc|out)\s+\d+\s+\d+\s+(\d+)\s+(\d+)\s*$", out, re.M):
        bits[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    if len(bits) != 5:
        sys.exit(f"field_headroom: cannot read the buffer table of `loom-hwconfig show {config}`")
    return bits


def limits(b):
    """{field: (exclusive upper bound, what bounds it)}: the buffer depth where the ISA checks the
    index against it, else the field width."""
    u, i, w, a = (b[k][0] for k in ("uop", "inp", "wgt", "acc"))
    ai = max(b["inp"][1], b["acc"][1])
    return {
        "sram (uop)": (u, "UOP depth"), "sram (inp)": (i, "INP depth"), "sram (wgt)": (w, "WGT depth"),
        "sram (acc)": (a, "ACC depth"), "sram (out)": (b["out"][0], "OUT depth"),
        "dram": (1 << 32, "32 bits"), "y": (1 << 16, "16 bits"), "x": (1 << 16, "16 bits"),
        "stride": (1 << 16, "16 bits"), "pad": (1 << 4, "4 bits"),
        "uop end": (u + 1, "UOP depth"), "loop": (1 << 14, "14 bits"),
        "gemm dst factor": (1 << b["acc"][1], f"A = {b['acc'][1]} bits"),
        "gemm src factor": (1 << b["inp"][1], f"I = {b['inp'][1]} bits"),
        "gemm wgt factor": (1 << b["wgt"][1], f"W = {b['wgt'][1]} bits"),
        "alu factor": (1 << b["acc"][1], f"A = {b['acc'][1]} bits"),
        "alu imm": (1 << 15, "16 bits signed"),
        "uop dst": (1 << b["acc"][1], f"A = {b['acc'][1]} bits"),
        "uop src": (1 << ai, f"max(I, A) = {ai} bits"),
        "uop wgt": (1 << b["wgt"][1], f"W = {b['wgt'][1]} bits"),
    }


def fields(line):
    """(field, value) pairs of one disassembled instruction or micro-op."""
    text = line.split("#", 1)[0].split()
    if len(text) < 2:
        return
    op, args = text[1], text[2:]
    kv = dict(a.split("=", 1) for a in args if "=" in a)
    if op == "uop":
        for k in ("dst", "src", "wgt"):
            yield "uop " + k, int(kv[k])
    elif op.startswith(("load.", "store.")):
        yield f"sram ({op.split('.')[1]})", int(kv["sram"])
        for k in ("dram", "y", "x", "stride"):
            yield k, int(kv[k])
        for p in kv.get("pad", "0").split(","):
            yield "pad", int(p)
    elif op == "gemm" or op.startswith("alu."):
        lo, hi = kv["uop"].split(":")
        yield "uop end", int(hi)
        for n in kv["loop"].split("x"):
            yield "loop", int(n)
        unit = "gemm" if op == "gemm" else "alu"
        for k in ("dst", "src", "wgt"):
            for f in kv.get(k, "0,0").split(","):
                yield (f"gemm {k} factor" if unit == "gemm" else "alu factor"), int(f)
        if "imm" in kv:
            yield "alu imm", abs(int(kv["imm"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loom", default=os.path.join(ROOT, "build", "bin", "loom"))
    ap.add_argument("--hwconfig", default=os.path.join(ROOT, "build", "bin", "loom-hwconfig"))
    ap.add_argument("packages", nargs="+")
    args = ap.parse_args()
    config, seen = None, {}
    for pkg in args.packages:
        text = subprocess.run([args.loom, "inspect", "--disasm", pkg], capture_output=True, text=True,
                              check=True).stdout
        c = re.search(r"config (\S+) \(hash", text).group(1)
        if config and c != config:
            sys.exit(f"field_headroom: {pkg} is built for {c}, the others for {config}")
        config = c
        name = os.path.basename(pkg)
        for line in text.splitlines():
            for f, v in fields(line):
                if v >= seen.get(f, (-1, ""))[0]:
                    seen[f] = (v, name)
    lim = limits(index_bits(args.hwconfig, config))
    print(f"config {config}, {len(args.packages)} packages\n")
    print("| field | largest value | in | limit | bounded by | used |")
    print("| --- | ---: | --- | ---: | --- | ---: |")
    bad = False
    for f, (bound, why) in lim.items():
        if f not in seen:
            continue
        v, where = seen[f]
        bad |= v >= bound
        print(f"| {f} | {v} | {where} | {bound - 1} | {why} | {100 * v / (bound - 1):.1f}% |")
    if bad:
        print("\nfield_headroom: a value is out of range (the verifier should have refused it)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
