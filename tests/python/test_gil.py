"""The GIL is released while a device runs: Python keeps running on another thread meanwhile."""

import sys
import threading
import time

import numpy as np

import loom


def spin_while(work):
    """Runs work() on a thread while this one counts loop iterations; returns work's result and
    the count at each progress mark work recorded. With a huge switch interval the interpreter
    never forces the GIL from a thread, so the count moves between two marks only if the C++
    between them released the GIL. The loop yields (sleep(0)) now and then so the thread starts."""
    count = [0]
    marks = []
    result = {}
    done = threading.Event()

    def worker():
        try:
            result["value"] = work(lambda *args: marks.append(count[0]))
        finally:
            done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        t = threading.Thread(target=worker)
        t.start()
        while not done.is_set():
            count[0] += 1
            if count[0] % 1000 == 0:
                time.sleep(0)
        t.join()
    finally:
        sys.setswitchinterval(old)
    return result.get("value"), marks


def test_run_releases_the_gil(digits_pkg, digits_data):
    sess = loom.Session(digits_pkg, device="fsim")
    images = np.concatenate([digits_data["images"]] * 2)  # 720 stacked inferences
    # The run's progress callback comes from inside the native run, after each inference.
    out, marks = spin_while(lambda mark: sess.run(images, progress=mark))
    assert out.shape == (720, 10) and len(marks) == 720
    assert marks[-1] > marks[0], "the main thread ran no Python during the run"


def test_compile_releases_the_gil(digits_data):
    from conftest import DIGITS

    # The progress callback runs inside the native compile, per calibration sample and per layer
    # tensorized; loom.compile's own Python (temporary files) lies outside the marks.
    pkg, marks = spin_while(lambda mark: loom.compile(
        DIGITS / "digits.onnx", calibration=digits_data["calibration"], progress=mark))
    assert isinstance(pkg, loom.Package) and len(marks) > 100
    assert marks[-1] > marks[0], "the main thread ran no Python during the compile"
