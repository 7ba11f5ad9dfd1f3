#!/usr/bin/env python3
"""Compile the digits model for a Pynq-Z1 and evaluate the int8 package (fsim by default).
Run from a build tree: PYTHONPATH=build/python examples/python/digits.py [DEVICE]"""
import pathlib, sys
import numpy as np
import loom

d = pathlib.Path(__file__).resolve().parents[1] / "digits"
pkg = loom.compile(d / "digits.onnx", board="pynq-z1", calibration=np.load(d / "calibration.npy"))
images, labels = np.load(d / "test_images.npy"), np.load(d / "test_labels.npy")
sess = loom.Session(pkg, device=sys.argv[1] if len(sys.argv) > 1 else "fsim")
logits = sess.run(images)  # all 360 test images, stacked on axis 0
total = sess.counters["total"]
print(f"int8 accuracy on {sess.device}: {np.mean(logits.argmax(axis=1) == labels):.2%} "
      f"({len(labels)} images, {total['cycles']} cycles, GEMM utilization {total['gemm_utilization']:.1%})")
