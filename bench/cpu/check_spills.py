#!/usr/bin/env python3
"""Whether the NEON row kernels keep their accumulators in registers (docs/cpu.md).

Reads `objdump -d -C` of rows_neon.cc.o (aarch64-linux-gnu-objdump, arm-linux-gnueabihf-objdump or
arm-none-eabi-objdump) and prints, per kernel (`Smlal<W>::Run<P>`, `Dot`, `SmlalDw`, `DotDw`), its
multiply-accumulates and the vector loads and stores on `sp` between the first and the last of
them: the reduction loop, where a spilled accumulator costs a store and a load per use. Exits 1
when any kernel has one. The ARM objects native code carries (`loom compile --cpu-targets
armv7,aarch64`, docs/cpu.md "Native code") hold the same kernels: cut an object out of the package
at its ELF header and read its `objdump -d -C` the same way.

  aarch64-linux-gnu-objdump -d --no-show-raw-insn -C \\
      build-firmware/aarch64/runtime/kernels/int8/CMakeFiles/loom_kernels_int8.dir/fast/rows_neon.cc.o \\
      > rows.dis && bench/cpu/check_spills.py rows.dis
"""
import re
import sys

KERNEL = re.compile(r"(Dot|Smlal|SmlalDw|DotDw)<\d+ul?>::Run<\d+ul?>")
MAC = re.compile(r"\b(sdot|smlal2?|saddw2?|vmlal\.s16|vaddw\.s16)\b")
VECTOR = re.compile(r"\b[qd]\d+\b|\{d")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    kernels, current = [], None
    with open(sys.argv[1]) as f:
        for line in f:
            if line.rstrip().endswith(">:"):
                m = KERNEL.search(line)
                current = [m.group(0), []] if m else None
                if current:
                    kernels.append(current)
            elif current:
                current[1].append(line)
    if not kernels:
        sys.exit(f"{sys.argv[1]}: no row kernel found (objdump -d -C of rows_neon.cc.o?)")
    bad = 0
    for name, lines in kernels:
        at = [i for i, l in enumerate(lines) if MAC.search(l)]
        loop = lines[at[0]:at[-1] + 1] if at else []
        spills = [l for l in loop if "[sp" in l and VECTOR.search(l)]
        bad += bool(spills)
        print(f"{name:28s} {len(at):4d} multiply-accumulates, {len(spills)} vector accesses to the "
              "stack among them")
    print(f"{len(kernels)} kernels, {bad} with spills")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
