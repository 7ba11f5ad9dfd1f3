#!/usr/bin/env python3
"""Model-zoo benchmark: compile every model, run it on cpu and fsim (tsim for the small ones),
check bit-exactness and fidelity, time Loom's cpu device against ONNX Runtime, and report compile
time, offload, arena, cycles, utilization, latency per board and per-layer utilization.

Runs on the machine's python3 (pip: bench/zoo/requirements.txt). Writes OUT/zoo.json,
OUT/zoo.md and PNG plots; prints the markdown tables. See bench/zoo/README.md.
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import traceback

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ZOO = ["resnet18", "resnet50", "mobilenet_v2", "squeezenet1_1", "vgg11", "mobilenet_v3_large",
       "mobilenet_v3_small", "efficientnet_b0", "lraspp_mobilenet_v3_large", "regnet_y_400mf",
       "vit_block"]
BOARDS = ["pynq-z1", "ultra96-v2", "zcu104", "alveo-u250"]
BASE_CONFIG = "1x16x16"
# Held-out zoo inputs. build_models.py draws each model's first input with seed 0.
EVAL_SEED = 1
# Further calibration inputs past that first one.
CALIB_SEED = 2


def run(cmd, log):
    """Runs cmd, returns (wall seconds, stdout); raises with the tool's stderr on failure."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    log.write("$ " + " ".join(cmd) + f"\n# {dt:.2f} s, exit {p.returncode}\n{p.stderr}\n")
    log.flush()
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return dt, p.stdout


def cosine(a, b):
    a = a.astype(np.float64).ravel()
    b = b.astype(np.float64).ravel()
    d = np.linalg.norm(a) * np.linalg.norm(b)
    return float(a @ b / d) if d else 0.0


def fidelity(q, ref, labels):
    """Cosine (whole set and worst sample), top-1 agreement with the fp32 logits, and how often
    fp32's top-1 is among q's five largest."""
    q = q.reshape(ref.shape[0], -1)
    ref = ref.reshape(ref.shape[0], -1)
    top1 = np.argmax(ref, 1)
    f = {"cosine": cosine(q, ref),
         "cosine_per_sample": [cosine(q[i], ref[i]) for i in range(ref.shape[0])],
         "top1_agreement": float(np.mean(np.argmax(q, 1) == top1)),
         "fp32_top1_in_top5": float(np.mean([t in np.argsort(-qi)[:5] for qi, t in zip(q, top1)]))}
    f["cosine_min_per_sample"] = min(f["cosine_per_sample"])
    if len(f["cosine_per_sample"]) > 16:  # digits: 360 samples, the minimum is enough
        del f["cosine_per_sample"]
    if labels is not None:
        f["accuracy"] = float(np.mean(np.argmax(q, 1) == labels))
    return f


def load_boards(names):
    boards = {}
    for b in names:
        path = os.path.join(ROOT, "boards", b + ".json")
        if not os.path.exists(path):
            sys.exit(f"--boards: no board {b} ({path} does not exist)")
        with open(path) as f:
            d = json.load(f)
        boards[b] = {"clock_mhz": d["clock_mhz"], "config": d["config"]}
    return boards


def board_configs(boards):
    """{config: the first board that uses it} for every config other than BASE_CONFIG."""
    out = {}
    for b, d in boards.items():
        if d["config"] != BASE_CONFIG:
            out.setdefault(d["config"], b)
    return out


def bench_board_config(args, spec, config, board, x1, w, log):
    """Compiles the model once for `board`'s own config and runs one inference on fsim (cycles)
    and cpu (bit-exactness against fsim's output)."""
    loom = args.loom
    pkg = os.path.join(w, f"{spec['name']}.{config}.loom")
    r = {"board": board}
    r["compile_s"], _ = run([loom, "compile", spec["onnx"], "-o", pkg, "--board", board,
                             "--calibration", spec["calibration"], "--no-sqnr"]
                            + args.compile_flags.split(), log)
    _, insp = run([loom, "inspect", pkg, "--json"], log)
    insp = json.loads(insp)
    c = insp["config"]
    peak = c["batch"] * c["block_in"] * c["block_out"]
    outs = {}
    for dev in ("cpu", "fsim"):
        o, st = os.path.join(w, f"{dev}.{config}.npy"), os.path.join(w, f"{dev}.{config}_stats.json")
        run([loom, "run", pkg, "--device", dev, "--input", x1, "--output", o, "--stats", st, "-q"], log)
        outs[dev] = np.load(o)
    with open(os.path.join(w, f"fsim.{config}_stats.json")) as f:
        fs = json.load(f)
    runs = max(1, fs["inferences"])
    r["cpu_fsim_bit_exact"] = bool(np.array_equal(outs["cpu"], outs["fsim"]))
    r["cycles"] = fs["cycles"] // runs
    r["gemm_utilization"] = fs["gemm_utilization"]
    # Counted on the model's own MACs, not the padded ones the array did.
    r["real_mac_utilization"] = insp["offload"]["accel_macs"] / (r["cycles"] * peak) if r["cycles"] else 0.0
    r["fsim_ms_per_inference"] = per_inference_ms(fs)
    return r


def models(args):
    """One dict per model: name, onnx, calibration input, evaluation inputs, labels."""
    out = []
    wanted = set(args.models.split(",")) if args.models else None
    for m in ZOO:
        onnx = os.path.join(args.models_dir, m + ".onnx")
        if not os.path.exists(onnx) or (wanted and m not in wanted):
            continue
        first = os.path.join(args.models_dir, m + "_input.npy")
        calib = calibration_set(first, args.calibration_samples,
                                os.path.join(args.work, m, "calibration.npy"))
        out.append({"name": m, "onnx": onnx, "first": first, "calibration": calib, "eval": None,
                    "labels": None})
    if not wanted or "digits" in wanted:
        d = os.path.join(ROOT, "examples", "digits")
        out.append({"name": "digits", "onnx": os.path.join(d, "digits.onnx"),
                    "calibration": os.path.join(d, "calibration.npy"),
                    "eval": os.path.join(d, "test_images.npy"),
                    "labels": os.path.join(d, "test_labels.npy")})
    return out


def calibration_set(first, samples, path):
    """The model's seeded input followed by samples - 1 standard-normal inputs drawn with
    CALIB_SEED; returns the path of the .npy written."""
    x0 = np.load(first)
    more = np.random.default_rng(CALIB_SEED).standard_normal((samples - 1,) + x0.shape[1:])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.save(path, np.concatenate([x0, more.astype(np.float32)]))
    return path


def eval_inputs(spec, extra, path):
    """Zoo: the model's first input (also the first calibration sample) followed by `extra`
    standard-normal inputs drawn with EVAL_SEED (the same for every zoo model). Digits: the test
    set. Returns (path of the .npy, array)."""
    if spec["eval"]:
        return spec["eval"], np.load(spec["eval"])
    x0 = np.load(spec["first"])
    held_out = np.random.default_rng(EVAL_SEED).standard_normal((extra,) + x0.shape[1:])
    x = np.concatenate([x0, held_out.astype(np.float32)])
    np.save(path, x)
    return path, x


def per_inference_ms(stats):
    """Host time of one inference from `loom run --stats`: the segments' wall_ms (process start and
    package loading are not in them), summed and divided by the inferences run."""
    return sum(s["wall_ms"] for s in stats["segments"]) / max(1, stats["inferences"])


def cycles_per_s(stats):
    """Simulated cycles per host second over the accelerator segments."""
    ms = sum(s["wall_ms"] for s in stats["segments"] if s["ran_on"] == "device")
    return stats["cycles"] / (ms / 1e3) if ms else 0.0


def ort_session(path):
    """One thread, sequential execution, default graph optimizations."""
    import onnxruntime as ort
    o = ort.SessionOptions()
    o.intra_op_num_threads = 1
    o.inter_op_num_threads = 1
    o.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(path, o, providers=["CPUExecutionProvider"])


def ort_logits(sess, x):
    name = sess.get_inputs()[0].name
    return np.concatenate([sess.run(None, {name: x[i:i + 1]})[0] for i in range(x.shape[0])])


def ort_quantize(onnx, calib, w):
    """ONNX Runtime's static quantizer, QDQ, per-channel int8 weights, calibrated (MinMax) on the
    input Loom calibrates on, after ORT's recommended pre-processing (shape inference, graph
    optimization). Three activation schemes: QInt8 (int8 with a zero point per tensor: ORT's
    default is asymmetric), QUInt8 (what ORT recommends for x86), and QInt8 with
    ActivationSymmetric (zero point 0, Loom's scheme; fidelity only, not timed).
    Returns {key: (path, seconds)}."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self, name, x):
            self.it = iter([{name: x[i:i + 1]} for i in range(x.shape[0])])

        def get_next(self):
            return next(self.it, None)

    name = ort_session(onnx).get_inputs()[0].name
    t0 = time.perf_counter()
    pre = os.path.join(w, "ort_pre.onnx")
    try:
        quant_pre_process(onnx, pre)
    except AssertionError:
        # Its symbolic shape inference fails on some exports (vit_block's attention reshapes);
        # ONNX's own shape inference is enough for static shapes.
        quant_pre_process(onnx, pre, skip_symbolic_shape=True)
    pre_s = time.perf_counter() - t0
    out = {}
    for key, act, sym in (("int8", QuantType.QInt8, False), ("int8_u8s8", QuantType.QUInt8, False),
                          ("int8_sym", QuantType.QInt8, True)):
        path = os.path.join(w, f"ort_{key}.onnx")
        t0 = time.perf_counter()
        quantize_static(pre, path, Reader(name, calib), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=act, weight_type=QuantType.QInt8,
                        extra_options={"ActivationSymmetric": sym})
        out[key] = (path, pre_s + time.perf_counter() - t0)
    return out


def cpu_comparison(args, pkg, spec, x, fp32, ref, labels, loom_ms, w, log):
    """Loom's cpu device against ONNX Runtime (fp32, and its own int8 models) on the first sample.

    A measurement is the mean of `batch` back-to-back inferences, batch sized to about 1 s of
    Loom's time (loom_ms per inference) so tiny models are not timed one cold call at a time. The
    rounds interleave Loom and ORT, so a change in the host's load falls on all of them alike.
    """
    import onnxruntime
    sessions = {"fp32": fp32}
    ort = {"version": onnxruntime.__version__, "threads": 1}
    for key, (path, quantize_s) in ort_quantize(spec["onnx"], np.load(spec["calibration"]), w).items():
        sess = ort_session(path)
        ort[key] = {"quantize_s": quantize_s, **fidelity(ort_logits(sess, x), ref, labels)}
        if key != "int8_sym":  # the symmetric model is there for its fidelity, not timed
            sessions[key] = sess
    batch = int(np.clip(1000 / loom_ms, 1, 100))
    xb = os.path.join(w, "input_timing.npy")
    np.save(xb, np.repeat(x[:1], batch, axis=0))
    feeds = {k: {s.get_inputs()[0].name: x[:1]} for k, s in sessions.items()}
    times = {k: [] for k in ["loom_cpu"] + list(sessions)}
    r = {"loadavg": [os.getloadavg()[0]]}
    for _ in range(args.timing_runs):
        st = os.path.join(w, "cpu_timing_stats.json")
        run([args.loom, "run", pkg, "--device", "cpu", "--input", xb, "--output",
             os.path.join(w, "cpu_timing.npy"), "--stats", st, "-q"], log)
        with open(st) as f:
            times["loom_cpu"].append(per_inference_ms(json.load(f)))
        for k, sess in sessions.items():
            sess.run(None, feeds[k])  # warm-up
            t0 = time.perf_counter()
            for _ in range(batch):
                sess.run(None, feeds[k])
            times[k].append(1e3 * (time.perf_counter() - t0) / batch)
    r["loadavg"].append(os.getloadavg()[0])
    r["loom_cpu"] = {"ms": float(np.median(times["loom_cpu"])), "runs_ms": times["loom_cpu"], "batch": batch}
    for k in sessions:
        ort.setdefault(k, {}).update({"ms": float(np.median(times[k])), "runs_ms": times[k]})
    r["ort"] = ort
    for key in sessions:
        r[f"loom_cpu_vs_ort_{key}"] = r["loom_cpu"]["ms"] / ort[key]["ms"]
    return r


def bench_model(args, boards, spec, log):
    name, onnx, loom = spec["name"], spec["onnx"], args.loom
    w = os.path.join(args.work, name)
    os.makedirs(w, exist_ok=True)
    pkg, report = os.path.join(w, name + ".loom"), os.path.join(w, "compile_report.json")
    r = {"model": name, "config": BASE_CONFIG}
    r["calibration_samples"] = int(np.load(spec["calibration"], mmap_mode="r").shape[0])
    r["compile_s"], _ = run([loom, "compile", onnx, "-o", pkg, "--board", "pynq-z1",
                             "--calibration", spec["calibration"], "--no-sqnr"]
                            + args.compile_flags.split(), log)
    if not args.no_sqnr:
        # The per-layer SQNR (the float and int8 graphs on the interpreter over the calibration
        # samples) is measured by a second, untimed compile, so compile_s stays the compile alone.
        run([loom, "compile", onnx, "-o", os.path.join(w, name + ".sqnr.loom"), "--board",
             "pynq-z1", "--calibration", spec["calibration"], "--report", report]
            + args.compile_flags.split(), log)
        sqnr = [l["sqnr_db"] for l in json.load(open(report))["layers"] if l["sqnr_db"] is not None]
        if sqnr:
            r["sqnr_min_db"], r["sqnr_last_db"] = min(sqnr), sqnr[-1]
    _, insp = run([loom, "inspect", pkg, "--json"], log)
    insp = json.loads(insp)
    r["arena_bytes"] = insp["arena_bytes"]
    r["constants_bytes"] = insp["constants_bytes"]
    r["offload_ops"] = insp["offload"]["ops"]
    r["offload_macs"] = insp["offload"]["macs"]
    r["accel_macs"] = insp["offload"]["accel_macs"]
    r["model_macs"] = sum(s["macs"] for s in insp["segments"])
    r["segments"] = len(insp["segments"])

    x_path, x = eval_inputs(spec, args.extra_samples, os.path.join(w, "eval_input.npy"))
    x1 = os.path.join(w, "input1.npy")
    np.save(x1, x[:1])
    labels = np.load(spec["labels"]) if spec["labels"] else None

    # Every device on the evaluation set.
    outs, stats = {}, {}
    for dev in ["cpu", "fsim"] + (["tsim"] if name in args.tsim.split(",") else []):
        o, s = os.path.join(w, dev + ".npy"), os.path.join(w, dev + "_stats.json")
        try:
            r[dev + "_process_s"], _ = run([loom, "run", pkg, "--device", dev, "--input", x_path,
                                            "--output", o, "--stats", s, "-q"], log)
        except RuntimeError as e:
            if dev != "tsim":
                raise
            r["tsim_skipped"] = str(e).splitlines()[-1].split("): ", 1)[-1]
            continue
        outs[dev] = np.load(o)
        with open(s) as f:
            stats[dev] = json.load(f)
        r[dev + "_ms_per_inference"] = per_inference_ms(stats[dev])
    fs = stats["fsim"]
    runs = max(1, fs["inferences"])
    r["inferences"] = runs
    r["cpu_fsim_bit_exact"] = bool(np.array_equal(outs["cpu"], outs["fsim"]))
    r["cycles"] = fs["cycles"] // runs
    r["gemm_macs"] = fs["macs"] // runs
    r["gemm_utilization"] = fs["gemm_utilization"]
    r["bytes_loaded"] = fs["bytes_loaded"] // runs
    r["bytes_stored"] = fs["bytes_stored"] // runs
    r["cpu_segment_ms"] = sum(s["wall_ms"] for s in fs["segments"] if s["ran_on"] == "host") / runs
    # The accelerator's share of one inference's time on the pynq-z1: its cycles at the board's
    # clock against the CPU segments' time on this host (a Cortex-A9 is slower, so this is an
    # upper bound of the CPU's share).
    accel_ms = r["cycles"] / (boards["pynq-z1"]["clock_mhz"] * 1e3)
    r["accel_time_share"] = accel_ms / (accel_ms + r["cpu_segment_ms"]) if accel_ms else 0.0
    r["fsim_cycles_per_s"] = cycles_per_s(fs)
    if "tsim" in outs:
        ts = stats["tsim"]
        r["cpu_tsim_bit_exact"] = bool(np.array_equal(outs["cpu"], outs["tsim"]))
        r["tsim_cycles"] = ts["cycles"] // max(1, ts["inferences"])
        r["tsim_fsim_cycles"] = ts["cycles"] / fs["cycles"] if fs["cycles"] else 0.0
        seg = [t["cycles"] / f["cycles"] for t, f in zip(ts["segments"], fs["segments"]) if f["cycles"]]
        r["tsim_fsim_cycles_per_segment"] = [min(seg), max(seg)] if seg else None
        r["tsim_cycles_per_s"] = cycles_per_s(ts)
    # Each board's latency from a compile for its own config, at its own clock.
    r["board_configs"] = {}
    for config, board in board_configs(boards).items():
        print(f"  {config} (--board {board}) ...", file=sys.stderr, flush=True)
        r["board_configs"][config] = bench_board_config(args, spec, config, board, x1, w, log)
    r["latency_ms"] = {}
    for b, d in boards.items():
        cycles = r["cycles"] if d["config"] == BASE_CONFIG else r["board_configs"][d["config"]]["cycles"]
        r["latency_ms"][b] = {"ms": cycles / (d["clock_mhz"] * 1e3), "clock_mhz": d["clock_mhz"],
                              "board_config": d["config"], "cycles": cycles}

    # Fidelity against fp32 (onnxruntime, the same one-thread session that is timed below).
    fp32 = ort_session(onnx)
    ref = ort_logits(fp32, x)
    r["samples"] = int(ref.shape[0])
    # Gap between fp32's two largest logits, in logit standard deviations: small on random weights.
    srt = np.sort(ref.reshape(ref.shape[0], -1), 1)
    r["fp32_top2_gap_over_std"] = float(np.median((srt[:, -1] - srt[:, -2]) / srt.std(1)))
    r.update(fidelity(outs["cpu"], ref, labels))
    if labels is not None:
        r["accuracy_int8"] = r.pop("accuracy")
        r["accuracy_fp32"] = float(np.mean(np.argmax(ref.reshape(ref.shape[0], -1), 1) == labels))

    r.update(cpu_comparison(args, pkg, spec, x, fp32, ref, labels, r["cpu_ms_per_inference"], w, log))

    # Per-layer view: one inference on the first sample.
    prof = os.path.join(w, "profile.json")
    r["profile_host_s"], _ = run([loom, "profile", pkg, "--device", "fsim", "--input", x1,
                                  "--json", prof], log)
    with open(prof) as f:
        p = json.load(f)
    r["peak_macs_per_cycle"] = p["peak_macs_per_cycle"]
    r["axi_bytes_per_cycle"] = p["axi_bytes_per_cycle"]
    # Real-MAC utilization (the model's own MACs, no channel padding) and the roofline bound
    # (sum over the device layers of max(real MACs / peak, compulsory DRAM bytes / rate)).
    r["real_mac_utilization"] = p.get("real_mac_utilization", 0.0)
    r["bound_cycles"] = p.get("bound_cycles", 0)
    r["layers"] = [{k: l[k] for k in ("name", "op", "cycles", "macs", "gemm_utilization",
                                      "bytes_loaded", "bytes_stored", "stalls")
                    if k in l} | {k: l[k] for k in ("model_macs", "real_utilization", "roofline",
                                                   "cycles_over_bound") if k in l}
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


def md_table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows]) + "\n"


def yes(b):
    return "yes" if b else "**no**"


def tables(results, boards):
    """Three markdown tables: the accelerator, correctness and fidelity, the CPU comparison."""
    acc = []
    for r in results:
        # *: a row merged from a run before per-board compiles, whose cycles are 1x16x16's.
        lat = [f"{r['latency_ms'][b]['ms']:.3g}" + ("*" if r["latency_ms"][b].get("scaled_from") else "")
               if b in r["latency_ms"] else "-" for b in boards]
        acc.append([r["model"], f"{r['model_macs'] / 1e6:.1f}", f"{r['compile_s']:.1f}",
                    f"{100 * r['offload_ops']:.0f}% / {100 * r['offload_macs']:.1f}%",
                    f"{100 * r['accel_time_share']:.0f}%" if "accel_time_share" in r else "-",
                    f"{r['arena_bytes'] / 2**20:.1f}", f"{r['cycles'] / 1e6:.3g}",
                    f"{100 * r['gemm_utilization']:.1f}%",
                    f"{100 * r['real_mac_utilization']:.1f}%" if "real_mac_utilization" in r else "-",
                    f"{r['bound_cycles'] / 1e6:.3g} (x{r['cycles'] / r['bound_cycles']:.2f})"
                    if r.get("bound_cycles") else "-"] + lat +
                   [f"{r['fsim_ms_per_inference'] / 1e3:.2g}"])
    md = md_table(["model", "MMACs", "compile s", "offload ops/MACs", "accel time", "arena MiB", "Mcycles",
                   "GEMM util", "real util", "bound Mcycles"] + [f"{b} ms" for b in boards] +
                  ["fsim host s"], acc)

    fid = []
    for r in results:
        if "cpu_tsim_bit_exact" in r:
            tsim = [yes(r["cpu_tsim_bit_exact"]), f"{r['tsim_fsim_cycles']:.4f}",
                    f"{r['tsim_ms_per_inference'] / 1e3:.3g}"]
        else:
            tsim = ["skipped" if "tsim_skipped" in r else "-", "-", "-"]
        o, sym = r["ort"]["int8"], r["ort"].get("int8_sym")
        top1 = f"{100 * r['top1_agreement']:.0f}% / {100 * r['fp32_top1_in_top5']:.0f}%"
        ort_top1 = f"{100 * o['top1_agreement']:.0f}% / {100 * o['fp32_top1_in_top5']:.0f}%"
        if "accuracy_int8" in r:
            top1 += f" (acc {100 * r['accuracy_int8']:.1f}%)"
            ort_top1 += f" (acc {100 * o['accuracy']:.1f}%)"
        fid.append([r["model"], str(r["samples"]), yes(r["cpu_fsim_bit_exact"])] + tsim + [
            f"{r['cosine']:.4f} / {r['cosine_min_per_sample']:.4f}", top1,
            f"{o['cosine']:.4f} / {o['cosine_min_per_sample']:.4f}", ort_top1,
            f"{sym['cosine']:.4f} / {sym['cosine_min_per_sample']:.4f}" if sym else "-",
            f"{r['sqnr_min_db']:.1f} / {r['sqnr_last_db']:.1f}" if "sqnr_min_db" in r else "-"])
    md += "\n" + md_table(["model", "samples", "cpu=fsim", "cpu=tsim", "tsim/fsim cycles", "tsim host s",
                           "Loom cosine (all / worst)", "Loom top-1 / top-5",
                           "ORT int8 cosine (all / worst)", "ORT int8 top-1 / top-5",
                           "ORT int8 zero point 0 cosine", "Loom SQNR dB (min / last layer)"], fid)

    cpu = []
    for r in results:
        o = r["ort"]
        cpu.append([r["model"], f"{r['loom_cpu']['ms']:.3g}", f"{o['fp32']['ms']:.3g}",
                    f"{o['int8']['ms']:.3g}", f"{o['int8_u8s8']['ms']:.3g}",
                    f"{r['loom_cpu_vs_ort_fp32']:.1f}x", f"{r['loom_cpu_vs_ort_int8']:.1f}x",
                    f"{r['loom_cpu_vs_ort_int8_u8s8']:.1f}x"])
    md += "\n" + md_table(["model", "Loom cpu ms", "ORT fp32 ms", "ORT int8 ms", "ORT u8s8 ms",
                           "Loom / ORT fp32", "Loom / ORT int8", "Loom / ORT u8s8"], cpu)
    md += board_config_table(results, boards)
    return md


def board_config_table(results, boards):
    """Fourth table: each model compiled for each board's own config (BASE_CONFIG's row from the
    first table's run)."""
    rows = []
    for r in results:
        # Rows merged from runs before accel_macs was recorded have no real-MAC figure.
        base_real = r["accel_macs"] / (r["cycles"] * r["peak_macs_per_cycle"]) \
            if r.get("accel_macs") and r.get("peak_macs_per_cycle") and r["cycles"] else None
        per = {BASE_CONFIG: {"cycles": r["cycles"], "gemm_utilization": r["gemm_utilization"],
                             "real_mac_utilization": base_real, "cpu_fsim_bit_exact": r["cpu_fsim_bit_exact"],
                             "compile_s": r["compile_s"]}}
        per.update(r.get("board_configs", {}))
        for config in sorted(per, key=lambda c: (c != BASE_CONFIG, c)):
            d = per[config]
            on = [b for b, bd in boards.items() if bd["config"] == config]
            if not on:
                continue
            rows.append([r["model"], config, ", ".join(on), f"{d['compile_s']:.1f}", f"{d['cycles'] / 1e6:.3g}",
                         "-" if d["real_mac_utilization"] is None else f"{100 * d['real_mac_utilization']:.1f}%",
                         f"{100 * d['gemm_utilization']:.1f}%",
                         yes(d["cpu_fsim_bit_exact"])] +
                        [f"{r['latency_ms'][b]['ms']:.3g}" if b in on else "" for b in boards])
    return "\n" + md_table(["model", "config", "boards", "compile s", "Mcycles", "real-MAC util",
                            "GEMM util", "cpu=fsim"] + [f"{b} ms" for b in boards], rows)


def notes(results, failed, boards, args):
    own = [f"{b} ({d['config']})" for b, d in boards.items() if d["config"] != BASE_CONFIG]
    ver = results[0]["ort"]["version"] if results else "?"
    load = [x for r in results for x in r["loadavg"]] or [0.0]
    md = (f"\nFirst table: all on {BASE_CONFIG} (pynq-z1 board), cycles from fsim for one inference; "
          "latency = cycles / board clock, accelerator segments only (CPU segments excluded). "
          + (f"{', '.join(own)}: the model compiled once more with `--board` for that config; "
             "their latency is that compile's fsim cycles at the board's clock (fourth table; "
             f"* marks rows merged from older runs, which rescaled the {BASE_CONFIG} cycles). "
             if own else "") +
          "accel time: the accelerator "
          "segments' pynq-z1 time over that plus the CPU segments' time on this host. "
          "Calibration: the model's first input plus more standard-normal ones, "
          "`calibration_samples` per row in zoo.json (this run: "
          f"{args.calibration_samples}). fsim host s: host time of one simulated inference.\n"
          "\nSecond table: outputs of Loom's int8 package (cpu device) and of ONNX Runtime's own "
          "int8 quantization (QDQ, per-channel, QInt8 activations and weights) against the fp32 "
          "model in onnxruntime. Zoo models: the first calibration input plus "
          f"{args.extra_samples} held-out standard-normal inputs (seed {EVAL_SEED}); digits: the "
          "360 test images. Cosine over all logits and for the worst sample; top-1: agreement "
          "with fp32's argmax (digits: and accuracy on the labels); top-5: fp32's top-1 is among "
          "the five largest int8 logits. tsim/fsim cycles: cycles the RTL took over the cycles "
          "fsim's timing model predicts, same inputs.\n"
          f"\nThird table: time of one inference of one input on this host ({os.cpu_count()} "
          f"CPUs), one thread each, median of {args.timing_runs} measurements; onnxruntime {ver}; loom "
          f"built {args.build}. Loom cpu: "
          "the package's segments on Loom's int8 CPU kernels, process start and package loading "
          "excluded. ORT int8: QInt8 activations (as in the second table); ORT u8s8: QUInt8 "
          "activations, which ORT recommends on x86. Ratio > 1: Loom is slower. Host load average "
          f"during the timings: {min(load):.1f}-{max(load):.1f}.\n"
          "\nFourth table: each model compiled for each board's own config (`loom compile --board`), "
          "one inference of the first input on fsim (cycles) and cpu (bit-exactness). real-MAC util: "
          "the model's accelerator MACs over cycles x the array's MACs per cycle; GEMM util: the MACs "
          "the array did, channel padding included, over the same.\n")
    for r in results:
        if "tsim_skipped" in r:
            md += f"\n{r['model']}: tsim skipped — {r['tsim_skipped']}\n"
    for f in failed:
        md += f"\n{f['model']}: not measured — {f['error']}\n"
    return md


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loom", default=os.path.join(ROOT, "build", "bin", "loom"))
    ap.add_argument("--models-dir", default=os.path.join(ROOT, "bench", "models", "out"))
    ap.add_argument("--models", default="", help="comma-separated subset (default: every model found + digits)")
    ap.add_argument("--tsim", default="digits,squeezenet1_1,mobilenet_v2",
                    help="models also run on tsim ('' for none)")
    ap.add_argument("--extra-samples", type=int, default=4,
                    help="held-out inputs per zoo model besides the calibration input (default 4)")
    ap.add_argument("--calibration-samples", type=int, default=4,
                    help="calibration inputs per zoo model: its seeded input and more drawn with "
                         f"seed {CALIB_SEED} (default 4)")
    ap.add_argument("--compile-flags", default="",
                    help="extra `loom compile` flags, e.g. --partition-cost (default none)")
    ap.add_argument("--boards", default=",".join(BOARDS),
                    help="comma-separated boards (boards/NAME.json) to report latency for; each "
                         f"config other than {BASE_CONFIG} among them costs one more compile and "
                         f"fsim run per model (default {','.join(BOARDS)})")
    ap.add_argument("--merge", action="store_true",
                    help="keep the rows of models not run this time from OUT/zoo.json")
    ap.add_argument("--no-sqnr", action="store_true",
                    help="skip the per-layer SQNR compile (compile_report.json then has null sqnr_db)")
    ap.add_argument("--timing-runs", type=int, default=7, help="measurements per CPU timing (default 7)")
    ap.add_argument("--build", default="",
                    help="how the loom binary was built, for the record (default: CMAKE_BUILD_TYPE "
                         "from the CMakeCache.txt above its bin/)")
    ap.add_argument("--work", default="/tmp/loom-zoo", help="packages, outputs and logs")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    args = ap.parse_args()
    if not shutil.which(args.loom) and not os.path.exists(args.loom):
        sys.exit(f"no loom binary at {args.loom} (build it, or pass --loom)")
    if not args.build:
        cache = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.loom))), "CMakeCache.txt")
        if os.path.exists(cache):
            with open(cache) as f:
                args.build = next((l.split("=", 1)[1].strip() or "(no build type)" for l in f
                                   if l.startswith("CMAKE_BUILD_TYPE:")), "")
        args.build = args.build or "(unknown)"
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    boards = load_boards([b for b in args.boards.split(",") if b])
    results, failed = [], []
    t0 = time.perf_counter()
    with open(os.path.join(args.work, "log.txt"), "w") as log:
        for spec in models(args):
            print(f"{spec['name']} ...", file=sys.stderr, flush=True)
            try:
                results.append(bench_model(args, boards, spec, log))
            except Exception as e:  # a model Loom (or onnxruntime) cannot handle: report, go on
                log.write(traceback.format_exc())
                failed.append({"model": spec["name"],
                               "error": (str(e).strip().splitlines() or [repr(e)])[-1]})
                print(f"  failed: {failed[-1]['error']}", file=sys.stderr)
    runs = [{"command": shlex.join(sys.argv), "wall_s": time.perf_counter() - t0,
             "models": [r["model"] for r in results]}]
    if args.merge and os.path.exists(os.path.join(args.out, "zoo.json")):
        with open(os.path.join(args.out, "zoo.json")) as f:
            old = json.load(f)
        ran = {r["model"] for r in results} | {f["model"] for f in failed}
        kept = [r for r in old["results"] if r["model"] not in ran]
        results = kept + results
        failed = [f for f in old.get("failed", []) if f["model"] not in ran] + failed
        runs = old.get("runs", [{"command": old["command"], "wall_s": old["wall_s"],
                                 "models": [r["model"] for r in kept]}]) + runs
        order = {m: i for i, m in enumerate(ZOO + ["digits"])}
        results.sort(key=lambda r: order.get(r["model"], len(order)))
    md = tables(results, boards) + notes(results, failed, boards, args)
    print(md)
    with open(os.path.join(args.out, "zoo.md"), "w") as f:
        f.write(md)
    meta = {"command": runs[-1]["command"], "wall_s": runs[-1]["wall_s"], "runs": runs,
            "boards": boards,
            "base_config": BASE_CONFIG, "host": os.uname().nodename, "cpus": os.cpu_count(),
            "eval_seed": EVAL_SEED, "extra_samples": args.extra_samples,
            "timing_runs": args.timing_runs, "calibration_samples": args.calibration_samples,
            "compile_flags": args.compile_flags, "loom_build": args.build, "results": results,
            "failed": failed}
    with open(os.path.join(args.out, "zoo.json"), "w") as f:
        json.dump(meta, f, indent=1)
    plot([r for r in results if r["model"] in runs[-1]["models"]], args.out)


if __name__ == "__main__":
    main()
