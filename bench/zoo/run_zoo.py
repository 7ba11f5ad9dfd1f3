#!/usr/bin/env python3
"""Model-zoo benchmark: compile every model, run it on cpu and fsim (tsim for the small ones),
check bit-exactness and fidelity, and report compile time, offload, arena, cycles, utilization,
latency per board and per-layer utilization (`loom profile`).

Runs on the machine's python3 (pip: bench/zoo/requirements.txt). Writes OUT/zoo.json,
OUT/zoo.md and PNG plots; prints the markdown table. See bench/zoo/README.md.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ZOO = ["resnet18", "resnet50", "mobilenet_v2", "squeezenet1_1", "vgg11"]
BOARDS = ["pynq-z1", "ultra96-v2", "zcu104", "alveo-u250"]
BASE_CONFIG = "1x16x16"


def run(cmd, log):
    """Runs cmd, returns (wall seconds, stdout); raises with the tool's stderr on failure."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    log.write("$ " + " ".join(cmd) + f"\n# {dt:.2f} s, exit {p.returncode}\n{p.stderr}\n")
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return dt, p.stdout


def cosine(a, b):
    a = a.astype(np.float64).ravel()
    b = b.astype(np.float64).ravel()
    d = np.linalg.norm(a) * np.linalg.norm(b)
    return float(a @ b / d) if d else 0.0


def top1_agreement(a, b):
    a = a.reshape(a.shape[0], -1)
    b = b.reshape(b.shape[0], -1)
    return float(np.mean(np.argmax(a, 1) == np.argmax(b, 1)))


def load_boards():
    boards = {}
    for b in BOARDS:
        with open(os.path.join(ROOT, "boards", b + ".json")) as f:
            d = json.load(f)
        boards[b] = {"clock_mhz": d["clock_mhz"], "config": d["config"]}
    return boards


def models(args):
    """(name, onnx, input, fp32 logits or None, calibration, labels or None)."""
    out = []
    wanted = set(args.models.split(",")) if args.models else None
    for m in ZOO:
        onnx = os.path.join(args.models_dir, m + ".onnx")
        if not os.path.exists(onnx) or (wanted and m not in wanted):
            continue
        x = os.path.join(args.models_dir, m + "_input.npy")
        out.append((m, onnx, x, os.path.join(args.models_dir, m + "_logits.npy"), x, None))
    if not wanted or "digits" in wanted:
        d = os.path.join(ROOT, "examples", "digits")
        out.append(("digits", os.path.join(d, "digits.onnx"), os.path.join(d, "test_images.npy"),
                    None, os.path.join(d, "calibration.npy"), os.path.join(d, "test_labels.npy")))
    return out


def fp32_reference(onnx, x):
    """Logits of the fp32 model from onnxruntime, one sample at a time."""
    import onnxruntime as ort
    s = ort.InferenceSession(onnx, providers=["CPUExecutionProvider"])
    name = s.get_inputs()[0].name
    return np.concatenate([s.run(None, {name: x[i:i + 1]})[0] for i in range(x.shape[0])])


def bench_model(args, loom, boards, spec, log):
    name, onnx, x_path, logits_path, calib, labels_path = spec
    w = os.path.join(args.work, name)
    os.makedirs(w, exist_ok=True)
    pkg, report = os.path.join(w, name + ".loom"), os.path.join(w, "compile_report.json")
    r = {"model": name, "config": BASE_CONFIG}
    r["compile_s"], _ = run([loom, "compile", onnx, "-o", pkg, "--board", "pynq-z1",
                             "--calibration", calib, "--report", report, "--no-sqnr"], log)
    _, insp = run([loom, "inspect", pkg, "--json"], log)
    insp = json.loads(insp)
    r["arena_bytes"] = insp["arena_bytes"]
    r["constants_bytes"] = insp["constants_bytes"]
    r["offload_ops"] = insp["offload"]["ops"]
    r["offload_macs"] = insp["offload"]["macs"]
    r["model_macs"] = sum(s["macs"] for s in insp["segments"])
    r["segments"] = len(insp["segments"])
    with open(report) as f:
        rep = json.load(f)
    r["compile_report_offload"] = rep.get("package", {}).get("offload")

    outs, stats = {}, {}
    for dev in ["cpu", "fsim"] + (["tsim"] if name in args.tsim.split(",") else []):
        o, s = os.path.join(w, dev + ".npy"), os.path.join(w, dev + "_stats.json")
        try:
            r[dev + "_host_s"], _ = run([loom, "run", pkg, "--device", dev, "--input", x_path,
                                         "--output", o, "--stats", s, "-q"], log)
        except RuntimeError as e:
            if dev != "tsim":
                raise
            r["tsim_skipped"] = str(e).splitlines()[-1].split("): ", 1)[-1]
            continue
        outs[dev] = np.load(o)
        with open(s) as f:
            stats[dev] = json.load(f)
    r["cpu_fsim_bit_exact"] = bool(np.array_equal(outs["cpu"], outs["fsim"]))
    if "tsim" in outs:
        r["cpu_tsim_bit_exact"] = bool(np.array_equal(outs["cpu"], outs["tsim"]))
        r["tsim_cycles"] = stats["tsim"]["cycles"] // max(1, stats["tsim"]["segments"][0]["runs"])
    fs = stats["fsim"]
    runs = max(1, max(s["runs"] for s in fs["segments"]))
    r["inferences"] = runs
    r["cycles"] = fs["cycles"] // runs
    r["gemm_macs"] = fs["macs"] // runs
    r["gemm_utilization"] = fs["gemm_utilization"]
    r["bytes_loaded"] = fs["bytes_loaded"] // runs
    r["bytes_stored"] = fs["bytes_stored"] // runs
    r["cpu_segment_ms"] = sum(s["wall_ms"] for s in fs["segments"] if s["ran_on"] == "host") / runs
    r["latency_ms"] = {}
    for b, d in boards.items():
        r["latency_ms"][b] = {"ms": r["cycles"] / (d["clock_mhz"] * 1e3), "clock_mhz": d["clock_mhz"],
                              "board_config": d["config"],
                              "scaled_from": BASE_CONFIG if d["config"] != BASE_CONFIG else None}

    # Fidelity against fp32.
    x = np.load(x_path)
    ref = np.load(logits_path) if logits_path else fp32_reference(onnx, x)
    q = outs["cpu"].reshape(ref.shape)
    r["cosine"] = cosine(q, ref)
    r["cosine_min_per_sample"] = min(cosine(q[i], ref[i]) for i in range(ref.shape[0]))
    r["top1_agreement"] = top1_agreement(q, ref)
    r["samples"] = int(ref.shape[0])
    if labels_path:
        labels = np.load(labels_path)
        r["accuracy_int8"] = float(np.mean(np.argmax(q, 1) == labels))
        r["accuracy_fp32"] = float(np.mean(np.argmax(ref, 1) == labels))

    # Per-layer view: one inference on the first sample.
    x1 = x_path
    if x.shape[0] > 1:
        x1 = os.path.join(w, "input1.npy")
        np.save(x1, x[:1])
    prof = os.path.join(w, "profile.json")
    r["profile_host_s"], _ = run([loom, "profile", pkg, "--device", "fsim", "--input", x1,
                                  "--json", prof], log)
    with open(prof) as f:
        p = json.load(f)
    r["peak_macs_per_cycle"] = p["peak_macs_per_cycle"]
    r["axi_bytes_per_cycle"] = p["axi_bytes_per_cycle"]
    r["layers"] = [{k: l[k] for k in ("name", "op", "cycles", "macs", "gemm_utilization",
                                      "bytes_loaded", "bytes_stored", "stalls")}
                   for l in p["layers"] if l.get("timed")]
    return r


def plot(results, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    for r in results:
        layers = r["layers"]
        if not layers:
            continue
        fig, ax = plt.subplots(figsize=(max(4, 0.12 * len(layers) + 2), 2.6), dpi=72)
        util = [100 * l["gemm_utilization"] for l in layers]
        colors = ["tab:blue" if l["op"].startswith("Conv2d") and "dw" not in l["op"] else "tab:orange"
                  for l in layers]
        ax.bar(range(len(layers)), util, color=colors, width=0.8)
        ax.set_ylim(0, 100)
        ax.set_ylabel("GEMM util %")
        ax.set_xlabel("accelerator layer (blue: conv/dense, orange: other)")
        ax.set_title(f"{r['model']} on {r['config']} (fsim): end to end {100 * r['gemm_utilization']:.1f}%",
                     fontsize=9)
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"{r['model']}_layers.png"))
        plt.close(fig)

        # Roofline: achieved MACs/cycle against operational intensity (MACs per DRAM byte).
        peak, bw = r["peak_macs_per_cycle"], r["axi_bytes_per_cycle"]
        pts = [(l["macs"] / max(1, l["bytes_loaded"] + l["bytes_stored"]), l["macs"] / max(1, l["cycles"]))
               for l in layers if l["macs"] > 0]
        fig, ax = plt.subplots(figsize=(4.5, 3.2), dpi=72)
        xs = np.logspace(-2, 4, 200)
        ax.loglog(xs, np.minimum(peak, bw * xs), "k-", lw=1,
                  label=f"roof: {peak} MACs/cycle, {bw} B/cycle")
        if pts:
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o", ms=3, alpha=0.7, label="layers")
        ax.set_xlabel("MACs per DRAM byte")
        ax.set_ylabel("MACs per cycle")
        ax.set_title(f"{r['model']} roofline ({r['config']}, fsim)", fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"{r['model']}_roofline.png"))
        plt.close(fig)


def table(results, boards):
    head = ["model", "MMACs", "compile s", "offload ops/MACs", "arena MiB", "Mcycles",
            "GEMM util"] + [f"{b} ms" for b in boards] + ["fsim host s", "cpu=fsim", "cosine", "top-1"]
    rows = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in results:
        lat = []
        for b in boards:
            v = r["latency_ms"][b]
            lat.append(f"{v['ms']:.3g}" + ("*" if v["scaled_from"] else ""))
        exact = "yes" if r["cpu_fsim_bit_exact"] else "**no**"
        if "cpu_tsim_bit_exact" in r:
            exact += ", tsim " + ("yes" if r["cpu_tsim_bit_exact"] else "**no**")
        elif "tsim_skipped" in r:
            exact += ", tsim skipped"
        top1 = f"{100 * r['top1_agreement']:.0f}% of {r['samples']}"
        if "accuracy_int8" in r:
            top1 += f" (acc {100 * r['accuracy_int8']:.1f}% vs fp32 {100 * r['accuracy_fp32']:.1f}%)"
        rows.append("| " + " | ".join([
            r["model"], f"{r['model_macs'] / 1e6:.1f}", f"{r['compile_s']:.1f}",
            f"{100 * r['offload_ops']:.0f}% / {100 * r['offload_macs']:.1f}%",
            f"{r['arena_bytes'] / 2**20:.1f}", f"{r['cycles'] / 1e6:.3g}",
            f"{100 * r['gemm_utilization']:.1f}%"] + lat + [
            f"{r['fsim_host_s']:.1f}", exact, f"{r['cosine']:.4f}", top1]) + " |")
    return "\n".join(rows) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loom", default=os.path.join(ROOT, "build", "bin", "loom"))
    ap.add_argument("--models-dir", default=os.path.join(ROOT, "bench", "models", "out"))
    ap.add_argument("--models", default="", help="comma-separated subset (default: every model found + digits)")
    ap.add_argument("--tsim", default="digits,squeezenet1_1", help="models also run on tsim ('' for none)")
    ap.add_argument("--work", default="/tmp/loom-zoo", help="packages, outputs and logs")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    args = ap.parse_args()
    if not shutil.which(args.loom) and not os.path.exists(args.loom):
        sys.exit(f"no loom binary at {args.loom} (build it, or pass --loom)")
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    boards = load_boards()
    results, failed = [], []
    with open(os.path.join(args.work, "log.txt"), "w") as log:
        for spec in models(args):
            print(f"{spec[0]} ...", file=sys.stderr, flush=True)
            try:
                results.append(bench_model(args, args.loom, boards, spec, log))
            except RuntimeError as e:  # a model Loom cannot compile or run yet: report, go on
                failed.append({"model": spec[0], "error": str(e).splitlines()[-1]})
                print(f"  failed: {failed[-1]['error']}", file=sys.stderr)
            log.flush()
    scaled = [b for b, d in boards.items() if d["config"] != BASE_CONFIG]
    md = table(results, boards)
    md += (f"\nAll on {BASE_CONFIG} (pynq-z1 board), cycles from fsim for one inference; latency = cycles / "
           "board clock, accelerator segments only (CPU segments excluded). "
           f"* {', '.join(scaled)} use another config; their column is the {BASE_CONFIG} cycle count at "
           "that board's clock, not a compile for its config.\n")
    for r in results:
        if "tsim_skipped" in r:
            md += f"\n{r['model']}: tsim skipped — {r['tsim_skipped']}\n"
    for f in failed:
        md += f"\n{f['model']}: not measured — {f['error']}\n"
    print(md)
    with open(os.path.join(args.out, "zoo.md"), "w") as f:
        f.write(md)
    meta = {"command": " ".join(sys.argv), "boards": boards, "base_config": BASE_CONFIG,
            "host": os.uname().nodename, "cpus": os.cpu_count(), "results": results,
            "failed": failed}
    with open(os.path.join(args.out, "zoo.json"), "w") as f:
        json.dump(meta, f, indent=1)
    plot(results, args.out)


if __name__ == "__main__":
    main()
