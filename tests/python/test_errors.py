"""Bad inputs raise the loom.Error subclass for Loom's status code, with Loom's message naming the
problem; none of them takes the interpreter down."""

import numpy as np
import pytest

import loom
from conftest import DIGITS


@pytest.fixture(scope="module")
def sess(digits_pkg):
    return loom.Session(digits_pkg, device="fsim")


def test_every_error_is_a_loom_error():
    for cls in (loom.InvalidArgument, loom.NotFound, loom.OutOfRange, loom.FailedPrecondition,
                loom.Deadlock, loom.DataLoss, loom.Unimplemented, loom.Internal,
                loom.DeadlineExceeded):
        assert issubclass(cls, loom.Error)
    assert issubclass(loom.InvalidArgument, ValueError)
    assert issubclass(loom.NotFound, LookupError)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8])
def test_wrong_dtype(sess, digits_data, dtype):
    x = digits_data["images"][:1].astype(dtype)
    with pytest.raises(loom.InvalidArgument, match=f"input 'input' is {np.dtype(dtype).name}"):
        sess.run(x)


def test_int8_data_for_a_float_input(sess):
    # int8 passes the Python check; the runtime knows the model's input is float32.
    with pytest.raises(loom.InvalidArgument, match="input 'input'"):
        sess.run(np.zeros((1, 1, 8, 8), np.int8))


@pytest.mark.parametrize("shape", [(1, 1, 8, 7), (8, 8), (1, 2, 8, 8), (3, 1, 8, 9)])
def test_wrong_shape(sess, shape):
    with pytest.raises(loom.InvalidArgument, match="input"):
        sess.run(np.zeros(shape, np.float32))


def test_unknown_input_name(sess):
    with pytest.raises(loom.NotFound, match="no input named 'image'"):
        sess.run({"image": np.zeros((1, 1, 8, 8), np.float32)})


def test_missing_input(sess):
    with pytest.raises(loom.NotFound, match="'input' was not given"):
        sess.run({})


def test_non_contiguous_input_is_copied_not_refused(sess, digits_data):
    x = np.asfortranarray(digits_data["images"][:2])
    assert np.array_equal(sess.run(x), sess.run(np.ascontiguousarray(x)))


def test_missing_package_file(tmp_path):
    missing = tmp_path / "nope.loom"
    with pytest.raises(loom.NotFound, match="nope.loom"):
        loom.load(missing)
    with pytest.raises(loom.NotFound, match="nope.loom"):
        loom.Session(missing)


def test_corrupt_package_bytes(digits_pkg):
    data = bytearray(digits_pkg.data)
    data[len(data) // 2] ^= 0x5A
    with pytest.raises(loom.DataLoss):
        loom.Package(bytes(data))
    with pytest.raises(loom.Error):
        loom.Package(digits_pkg.data[: len(digits_pkg.data) // 3])
    with pytest.raises(loom.Error):
        loom.Package(b"")
    with pytest.raises(loom.Error):
        loom.Package(np.random.default_rng(1).bytes(4096))


def test_corrupt_package_file(digits_pkg, tmp_path):
    path = tmp_path / "bad.loom"
    data = bytearray(digits_pkg.data)
    data[-10] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(loom.DataLoss):
        loom.load(path)


def test_unknown_device(digits_pkg):
    with pytest.raises(loom.NotFound, match="warp-drive") as e:
        loom.Session(digits_pkg, device="warp-drive")
    assert "fsim" in str(e.value)  # the message lists the devices there are


def test_unknown_config(digits_pkg):
    with pytest.raises(loom.NotFound, match="9x9x9"):
        loom.Session(digits_pkg, device="fsim", config="9x9x9")


def test_config_mismatch(digits_pkg):
    with pytest.raises(loom.FailedPrecondition, match="1x8x8"):
        loom.Session(digits_pkg, device="fsim", config="1x8x8")


def test_trace_needs_trace_true(digits_pkg, tmp_path):
    with pytest.raises(loom.FailedPrecondition, match="trace=True"):
        loom.Session(digits_pkg, device="fsim").trace(tmp_path / "t.json")


def test_compile_missing_model(tmp_path):
    with pytest.raises(loom.NotFound, match="missing.onnx"):
        loom.compile(tmp_path / "missing.onnx", progress=False)


def test_compile_garbage_model():
    with pytest.raises(loom.Error):
        loom.compile(b"this is not an onnx model", progress=False)


def test_compile_bad_options(digits_data):
    cal = digits_data["calibration"]
    model = DIGITS / "digits.onnx"
    with pytest.raises(loom.NotFound, match="no-such-board"):
        loom.compile(model, board="no-such-board", calibration=cal, progress=False)
    with pytest.raises(loom.InvalidArgument, match="calibration_method"):
        loom.compile(model, calibration=cal, calibration_method="median", progress=False)
    with pytest.raises(loom.Error, match="pixels"):
        loom.compile(model, calibration={"pixels": cal}, progress=False)
    with pytest.raises(loom.InvalidArgument, match="calibration"):
        loom.compile(model, calibration=np.zeros((4, 1, 8, 7), np.float32), progress=False)
    with pytest.raises(loom.InvalidArgument, match="numbers"):
        loom.compile(model, calibration=np.array(["a", "b"]), progress=False)
    with pytest.raises(loom.InvalidArgument, match="input_shapes"):
        loom.compile(model, calibration=cal, input_shapes={"input": "1x1x8x8"}, progress=False)
    with pytest.raises(TypeError):
        loom.compile(12345, progress=False)


def test_session_needs_a_package():
    with pytest.raises(TypeError):
        loom.Session(42)
