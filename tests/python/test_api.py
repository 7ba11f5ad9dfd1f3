"""The Python API on the digits model: compile, inspect, run on cpu and fsim, save/load, counters,
profile, trace and progress."""

import json

import numpy as np
import pytest

import loom
from conftest import DIGITS


def test_devices_lists_the_registered_ones():
    devs = loom.devices()
    assert "cpu" in devs and "fsim" in devs
    assert loom.default_device() in devs


def test_cpu_and_fsim_are_bit_identical_and_accurate(digits_pkg, digits_data):
    images, labels = digits_data["images"], digits_data["labels"]
    out = {}
    for device in ("cpu", "fsim"):
        logits = loom.Session(digits_pkg, device=device).run(images)  # 360 stacked runs
        assert logits.shape == (360, 10) and logits.dtype == np.float32
        out[device] = logits
    assert np.array_equal(out["cpu"], out["fsim"])
    accuracy = float(np.mean(out["fsim"].argmax(axis=1) == labels))
    assert accuracy >= 0.95, accuracy  # fp32 is 99.7 % (examples/digits/README.md)


def test_tsim_matches_cpu_bit_for_bit():
    if "tsim" not in loom.devices():
        pytest.skip("this build has no tsim")
    # 1x8x8: the RTL model every build with tsim has (LOOM_TSIM_1X16X16 may be off).
    pkg = loom.compile(DIGITS / "digits.onnx", config="1x8x8",
                       calibration=np.load(DIGITS / "calibration.npy"), progress=False)
    x = np.load(DIGITS / "test_images.npy")[:2]
    assert np.array_equal(loom.Session(pkg, "tsim").run(x), loom.Session(pkg, "cpu").run(x))


def test_single_array_and_dict_inputs_agree(digits_pkg, digits_data):
    sess = loom.Session(digits_pkg, device="cpu")
    x = digits_data["images"][:1]
    a = sess.run(x)
    b = sess.run({"input": x})
    assert a.shape == (1, 10)
    assert np.array_equal(a, b)
    # digits' logits come from a float CPU segment: there is no int8 form to return.
    with pytest.raises(loom.InvalidArgument, match="output 'logits' is float32"):
        sess.run(x, int8_outputs=True)


def test_inspect_describes_the_package(digits_pkg):
    info = digits_pkg.inspect()
    assert info["config"]["name"] == "1x16x16"
    assert info["board"] == "pynq-z1"
    assert info["arena_bytes"] > 0
    assert [(b["name"], b["shape"]) for b in info["inputs"]] == [("input", [1, 1, 8, 8])]
    assert [(b["name"], b["shape"]) for b in info["outputs"]] == [("logits", [1, 10])]
    kinds = [s["kind"] for s in info["segments"]]
    assert "accel" in kinds
    accel = next(s for s in info["segments"] if s["kind"] == "accel")
    assert accel["instructions"] > 0 and accel["macs"] > 0
    ops = [op["type"] for s in info["segments"] for op in s["ops"]]
    assert ops, "every segment lists its ops"
    assert digits_pkg.inputs == info["inputs"]
    assert "1x16x16" in repr(digits_pkg)
    disasm = digits_pkg.inspect(disasm=True)
    assert json.dumps(disasm) != json.dumps(info)  # the programs' instructions are added


def test_save_load_round_trip(digits_pkg, digits_data, tmp_path):
    path = tmp_path / "digits.loom"
    digits_pkg.save(path)
    assert path.read_bytes() == digits_pkg.data
    loaded = loom.load(path)
    assert loaded.data == digits_pkg.data
    x = digits_data["images"][:8]
    assert np.array_equal(loom.Session(loaded, "fsim").run(x),
                          loom.Session(digits_pkg, "fsim").run(x))
    assert np.array_equal(loom.Session(str(path), "cpu").run(x),
                          loom.Session(digits_pkg, "cpu").run(x))


def test_compile_from_bytes_matches_compile_from_path(digits_pkg, digits_data):
    data = (DIGITS / "digits.onnx").read_bytes()
    pkg = loom.compile(data, board="pynq-z1", calibration=digits_data["calibration"],
                       progress=False)
    x = digits_data["images"][:4]
    assert np.array_equal(loom.Session(pkg, "cpu").run(x), loom.Session(digits_pkg, "cpu").run(x))


def test_symmetric_activations_are_an_option(digits_pkg, digits_data):
    sym = loom.compile(DIGITS / "digits.onnx", board="pynq-z1",
                       calibration=digits_data["calibration"], activations="symmetric",
                       progress=False)
    x = digits_data["images"][:8]
    a, b = loom.Session(sym, "cpu").run(x), loom.Session(digits_pkg, "cpu").run(x)
    assert a.shape == b.shape and not np.array_equal(a, b)
    assert np.array_equal(a, loom.Session(sym, "fsim").run(x))
    with pytest.raises(loom.InvalidArgument, match="activations must be"):
        loom.compile(DIGITS / "digits.onnx", activations="unsigned", progress=False)


def test_compile_from_onnx_model_proto(digits_data):
    onnx = pytest.importorskip("onnx")
    if not hasattr(onnx, "load"):
        pytest.skip(f"{onnx.__path__} is not the onnx Python package")
    model = onnx.load(str(DIGITS / "digits.onnx"))
    pkg = loom.compile(model, calibration=digits_data["calibration"], progress=False)
    assert pkg.inputs[0]["name"] == "input"


def test_calibration_forms_give_the_same_package(digits_pkg, digits_data):
    cal = digits_data["calibration"]
    as_dict = loom.compile(DIGITS / "digits.onnx", board="pynq-z1", calibration={"input": cal},
                           progress=False)
    as_list = loom.compile(DIGITS / "digits.onnx", board="pynq-z1",
                           calibration=[cal[i:i + 1] for i in range(len(cal))], progress=False)
    as_dicts = loom.compile(DIGITS / "digits.onnx", board="pynq-z1",
                            calibration=[{"input": cal[i:i + 1]} for i in range(len(cal))],
                            progress=False)
    x = digits_data["images"][:16]
    ref = loom.Session(digits_pkg, "cpu").run(x)
    for pkg in (as_dict, as_list, as_dicts):
        assert np.array_equal(loom.Session(pkg, "cpu").run(x), ref)
    # Other calibration data gives other scales, so the comparison above can fail.
    other = loom.compile(DIGITS / "digits.onnx", board="pynq-z1", calibration=cal[:3] * 0.25,
                         progress=False)
    assert other.data != digits_pkg.data


def test_report_and_progress(digits_data):
    calls = []
    pkg = loom.compile(DIGITS / "digits.onnx", board="pynq-z1",
                       calibration=digits_data["calibration"], report=True,
                       progress=lambda stage, done, total: calls.append((stage, done, total)))
    cal = [c for c in calls if c[0] == "calibration"]
    assert [c[1] for c in cal] == list(range(1, 101)) and all(c[2] == 100 for c in cal)
    tens = [c for c in calls if c[0] == "tensorize"]
    assert tens and tens[-1][1] == tens[-1][2]
    assert isinstance(pkg.report, dict) and "package" in pkg.report
    assert loom.compile(DIGITS / "digits.onnx", calibration=digits_data["calibration"],
                        progress=False).report is None


def test_bias_correction_changes_biases_not_bit_exactness(digits_pkg, digits_data):
    calls = []
    pkg = loom.compile(DIGITS / "digits.onnx", board="pynq-z1",
                       calibration=digits_data["calibration"], report=True, bias_correction=True,
                       progress=lambda stage, done, total: calls.append((stage, done, total)))
    assert pkg.report["calibration"]["bias_correction"] is True
    assert pkg.report["bias_correction"]["layers"] > 0
    steps = [c for c in calls if c[0] == "bias-correction"]
    assert steps and steps[-1][1] == steps[-1][2] == pkg.report["bias_correction"]["layers"]
    assert pkg.data != digits_pkg.data
    x = digits_data["images"][:8]
    assert np.array_equal(loom.Session(pkg, "cpu").run(x), loom.Session(pkg, "fsim").run(x))


def test_progress_callback_error_is_raised_after_compile(digits_data):
    def broken(stage, done, total):
        raise RuntimeError("progress bar broke")

    with pytest.raises(RuntimeError, match="progress bar broke"):
        loom.compile(DIGITS / "digits.onnx", calibration=digits_data["calibration"][:5],
                     progress=broken)


def test_counters_accumulate(digits_pkg, digits_data):
    sess = loom.Session(digits_pkg, device="fsim")
    sess.run(digits_data["images"][:5])
    sess.run(digits_data["images"][:3])
    c = sess.counters
    assert c["device"] == "fsim" and c["inferences"] == 8
    assert c["total"]["cycles"] > 0 and c["total"]["macs"] > 0
    accel = [s for s in c["segments"] if s["kind"] == "accel"]
    assert accel and all(s["runs"] == 8 and s["ran_on"] == "device" for s in accel)
    sess.reset_counters()
    assert sess.counters["inferences"] == 0


def test_profile_rows(digits_pkg, digits_data):
    sess = loom.Session(digits_pkg, device="fsim")
    rows = sess.profile(digits_data["images"][:1])
    if not isinstance(rows, list):  # pandas installed
        rows = rows.to_dict("records")
    report = sess.profile(as_dict=True)
    assert len(rows) == len(report["layers"]) > 0
    timed = [r for r in rows if r["timed"]]
    assert timed, "fsim has a timeline"
    for r in timed:
        assert r["cycles"] > 0 and "stall_total" in r and "busy_compute" in r
    assert sum(r["cycles"] for r in timed) <= report["cycles"]
    assert sum(r["macs"] for r in rows if r["accel"]) > 0


def test_trace_writes_perfetto_json(digits_pkg, digits_data, tmp_path):
    sess = loom.Session(digits_pkg, device="fsim", trace=True)
    sess.run(digits_data["images"][:1])
    path = tmp_path / "trace.json"
    sess.trace(path)
    trace = json.loads(path.read_text())
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    assert len(events) > 0


def test_profile_without_pandas_is_a_list(digits_pkg, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)  # import pandas -> ImportError
    rows = loom.Session(digits_pkg, device="cpu").profile()
    assert isinstance(rows, list) and rows and isinstance(rows[0], dict)
    assert all(r["cycles"] is None for r in rows)  # cpu has no timeline


def test_profile_is_a_dataframe_with_pandas(digits_pkg):
    pandas = pytest.importorskip("pandas")
    df = loom.Session(digits_pkg, device="fsim").profile()
    assert isinstance(df, pandas.DataFrame)
    assert {"name", "op", "cycles", "stall_total"} <= set(df.columns)
