#!/usr/bin/env python3
"""Where one module's cycles go: sums an instruction timeline (`loom profile --trace T.json` or
`loom run --trace`, Chrome/Perfetto JSON) by instruction kind and by stall cause, per module.
The compute module's split answers "is it the GEMM, the ALU epilogue or waiting on DMA?".

usage: trace_breakdown.py T.json --clock-mhz 200 [--module compute]

Timestamps in the trace are microseconds at the config's clock; --clock-mhz (that clock, from
`loom-hwconfig show CONFIG`) turns them back into cycles.
"""
import argparse
import collections
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--module", default="compute", help="load, compute or store (default compute)")
    ap.add_argument("--clock-mhz", type=float, required=True,
                    help="the config's clock; the trace's timestamps are microseconds at it")
    args = ap.parse_args()
    with open(args.trace) as f:
        d = json.load(f)
    events = d["traceEvents"] if isinstance(d, dict) else d
    tids = {e["tid"]: e["args"]["name"] for e in events
            if e.get("ph") == "M" and e.get("name") == "thread_name"}
    tid = next((t for t, n in tids.items() if n == args.module), None)
    if tid is None:
        sys.exit(f"trace_breakdown: no module '{args.module}' in {args.trace} (has: "
                 f"{', '.join(sorted(tids.values()))})")
    clock = args.clock_mhz
    cycles = collections.Counter()
    for e in events:
        if e.get("ph") != "X" or e.get("tid") != tid:
            continue
        key = e["name"].split(" ")[0] if e.get("cat") == "exec" else "stall: " + e["name"]
        cycles[key] += e["dur"] * clock
    total = sum(cycles.values())
    if not total:
        sys.exit(f"trace_breakdown: no timed events on module '{args.module}'")
    print(f"| {args.module} | cycles | share |")
    print("| --- | ---: | ---: |")
    for k, v in cycles.most_common():
        print(f"| {k} | {v / 1e3:.1f} k | {100 * v / total:.1f} % |")
    print(f"| total | {total / 1e3:.1f} k | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
