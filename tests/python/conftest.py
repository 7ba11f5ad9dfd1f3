"""Shared fixtures: the digits example (examples/digits) compiled once per test process."""

import pathlib

import numpy as np
import pytest

import loom

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIGITS = ROOT / "examples" / "digits"


@pytest.fixture(scope="session")
def digits_data():
    return {
        "calibration": np.load(DIGITS / "calibration.npy"),
        "images": np.load(DIGITS / "test_images.npy"),
        "labels": np.load(DIGITS / "test_labels.npy"),
    }


@pytest.fixture(scope="session")
def digits_pkg(digits_data):
    return loom.compile(DIGITS / "digits.onnx", board="pynq-z1",
                        calibration=digits_data["calibration"], progress=False)
