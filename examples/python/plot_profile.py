#!/usr/bin/env python3
"""Per-layer cycles and stalls of the digits model on fsim, as a table and a bar chart (PNG).

Notebook-style: each `# %%` cell runs on its own in Jupyter or VS Code. As a script:
    PYTHONPATH=build/python examples/python/plot_profile.py [OUT.png] [--device tsim]
matplotlib is optional: without it the table is printed and no PNG is written.
"""
# %% Compile and profile one inference
import argparse
import pathlib

import numpy as np

import loom

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("png", nargs="?", default="digits_profile.png", help="where to write the chart")
ap.add_argument("--device", default="fsim", help="a device with a timeline: fsim or tsim")
args = ap.parse_args()

d = pathlib.Path(__file__).resolve().parents[1] / "digits"
pkg = loom.compile(d / "digits.onnx", board="pynq-z1", calibration=np.load(d / "calibration.npy"),
                   progress=False)
sess = loom.Session(pkg, device=args.device)
report = sess.profile(np.load(d / "test_images.npy")[:1], as_dict=True)
layers = [layer for layer in report["layers"] if layer["timed"]]

# %% The table
stall_kinds = ["compute_on_load", "load_on_compute", "store_on_compute", "compute_on_store",
               "queue_full", "dram_port", "fetch"]
print(f"{'layer':<28} {'op':<12} {'cycles':>9} {'stalls':>9} {'util':>6}")
for layer in layers:
    print(f"{layer['name'][:28]:<28} {layer['op'][:12]:<12} {layer['cycles']:>9} "
          f"{layer['stalls']['total']:>9} {layer['gemm_utilization']:>6.1%}")
print(f"total {report['cycles']} cycles on {report['device']} ({report['config']})")

# %% The chart: cycles per layer, and stall cycles by cause (each module waits on its own, so
# the stalls of the three modules add up to more than the layer's cycles)
try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no chart written")
    raise SystemExit(0)

names = [layer["name"] for layer in layers]
x = np.arange(len(layers))
fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(max(6, 0.6 * len(layers) + 2), 7), sharex=True)
ax1.bar(x, [layer["cycles"] for layer in layers], color="tab:blue")
ax1.set_ylabel("cycles")
ax1.set_title(f"digits on {report['device']} ({report['config']}): {report['cycles']} cycles")
bottom = np.zeros(len(layers))
for kind in stall_kinds:
    values = np.array([layer["stalls"][kind] for layer in layers], dtype=float)
    if values.any():
        ax2.bar(x, values, bottom=bottom, label=kind.replace("_", " "))
        bottom += values
ax2.set_ylabel("stall cycles (summed over\nload, compute, store)")
ax2.legend(fontsize="small")
ax2.set_xticks(x)
ax2.set_xticklabels(names, rotation=60, ha="right", fontsize="small")
fig.tight_layout()
fig.savefig(args.png, dpi=100)
print(f"wrote {args.png}")
