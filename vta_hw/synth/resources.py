#!/usr/bin/env python3
"""Turns the `stat` output of a Yosys synth_xilinx run into a resource table beside a board's
capacity (boards/<board>.json "resources"). Used by synth.sh.

usage: resources.py STAT_TXT BOARD_JSON CONFIG FAMILY SECONDS
"""
import json
import re
import sys

# Cells per resource. LUT RAM and shift registers sit in LUTs: a RAM64M/RAM32M is four LUTs, the
# single- and dual-port primitives one per port, an SRL one.
LUT_LOGIC = {f"LUT{n}": 1 for n in range(1, 7)}
LUT_MEMORY = {"RAM32M": 4, "RAM64M": 4, "RAM32M16": 8, "RAM64M8": 8, "RAM32X1D": 2,
              "RAM64X1D": 2, "RAM128X1D": 4, "RAM256X1D": 8, "RAM32X1S": 1, "RAM64X1S": 1,
              "RAM128X1S": 2, "RAM256X1S": 4, "SRL16E": 1, "SRLC32E": 1, "SRLC16E": 1}
FF = {"FDRE", "FDSE", "FDCE", "FDPE"}
DSP = {"DSP48E1", "DSP48E2"}
BRAM36 = {"RAMB36E1": 1.0, "RAMB36E2": 1.0, "RAMB18E1": 0.5, "RAMB18E2": 0.5}
URAM = {"URAM288": 1}


def main():
    stat, board_json, config, family, seconds = sys.argv[1:6]
    cells = {}
    for line in open(stat):
        m = re.match(r"\s+(\S+)\s+(\d+)\s*$", line)
        if m and not m.group(1).startswith("Number"):
            cells[m.group(1)] = cells.get(m.group(1), 0) + int(m.group(2))
    board = json.load(open(board_json))
    cap = board["resources"]
    lut_logic = sum(cells.get(c, 0) * n for c, n in LUT_LOGIC.items())
    lut_mem = sum(cells.get(c, 0) * n for c, n in LUT_MEMORY.items())
    used = {
        "LUT": lut_logic + lut_mem,
        "FF": sum(cells.get(c, 0) for c in FF),
        "DSP": sum(cells.get(c, 0) for c in DSP),
        "BRAM36": sum(cells.get(c, 0) * w for c, w in BRAM36.items()),
        "URAM": sum(cells.get(c, 0) for c in URAM),
    }
    capacity = {"LUT": cap["lut"], "FF": cap["ff"], "DSP": cap["dsp"], "BRAM36": cap["bram36"],
                "URAM": cap["uram"]}
    print(f"### {config} on {family} ({board['name']}, {board['fpga_part']}), "
          f"yosys synth_xilinx, {int(seconds) // 60} min {int(seconds) % 60} s\n")
    print("| resource | used | available | utilization |")
    print("| --- | ---: | ---: | ---: |")
    fits = True
    for name in ["LUT", "FF", "DSP", "BRAM36", "URAM"]:
        u, c = used[name], capacity[name]
        pct = f"{100.0 * u / c:.1f} %" if c else ("-" if u == 0 else "does not fit")
        fits = fits and (u <= c)
        shown = f"{u:g}" if name == "BRAM36" else f"{u}"
        print(f"| {name} | {shown} | {c} | {pct} |")
    print(f"\nLUT as logic {lut_logic}, as memory (LUT RAM, SRL) {lut_mem}. "
          f"{'Fits' if fits else 'Does NOT fit'} the {board['fpga_part']} by these counts "
          "(before placement and routing).\n")


if __name__ == "__main__":
    main()
