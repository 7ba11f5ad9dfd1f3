"""loom.compile, loom.load and loom.Package."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from . import _native
from ._errors import InvalidArgument

ArrayLike = Any  # anything np.asarray accepts
Calibration = Union[ArrayLike, Mapping[str, ArrayLike], Sequence[Union[ArrayLike, Mapping[str, ArrayLike]]]]
Progress = Callable[[str, int, int], None]

__all__ = ["Package", "compile", "load"]


class Package:
    """A compiled, verified Loom package (the bytes of a ``.loom`` file).

    Made by :func:`compile` or :func:`load`; open it on a device with :class:`loom.Session`.
    ``report`` holds the compile report (per-layer quantization, placement, schedule) when
    ``compile(..., report=True)`` asked for it, else None.
    """

    def __init__(self, data: bytes, report: Optional[Dict[str, Any]] = None) -> None:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"Package() needs the package's bytes, not {type(data).__name__}")
        self._data = bytes(data)
        self._native = _native.Package(self._data)  # loads and verifies; raises loom.DataLoss, ...
        self._info: Optional[Dict[str, Any]] = None
        self.report = report

    @property
    def data(self) -> bytes:
        """The package file's bytes."""
        return self._data

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Writes the package to ``path`` (a ``.loom`` file that ``loom run`` and loom-run read)."""
        with open(path, "wb") as f:
            f.write(self._data)

    def inspect(self, disasm: bool = False) -> Dict[str, Any]:
        """What ``loom inspect --json`` prints, as plain dicts and lists: version, config, board,
        provenance, ``arena_bytes``, ``inputs``/``outputs`` (name, shape, dtype, scale),
        ``segments`` (kind, ops, MACs, instructions) and the offload table. With ``disasm`` every
        accelerator program's instructions too."""
        if disasm:
            return json.loads(self._native.inspect_json(True))
        if self._info is None:
            self._info = json.loads(self._native.inspect_json(False))
        return json.loads(json.dumps(self._info))  # a copy the caller may change

    def summary(self) -> str:
        """The table ``loom inspect`` prints."""
        return self._native.summary()

    @property
    def inputs(self) -> List[Dict[str, Any]]:
        """The I/O signature's inputs: name, shape, dtype (of the package tensor), scale."""
        return self.inspect()["inputs"]

    @property
    def outputs(self) -> List[Dict[str, Any]]:
        """The I/O signature's outputs."""
        return self.inspect()["outputs"]

    def __repr__(self) -> str:
        info = self.inspect()
        sig = ", ".join(f"{b['name']}{list(b['shape'])}" for b in info["inputs"])
        return (f"<loom.Package config={info['config']['name']} board={info['board'] or '-'} "
                f"inputs=({sig}) segments={len(info['segments'])} bytes={len(self._data)}>")


def load(path: Union[str, os.PathLike]) -> Package:
    """Reads and verifies a ``.loom`` package file. Raises loom.NotFound for a missing file and
    loom.DataLoss (or InvalidArgument) for a damaged one."""
    return Package(_native.read_package_file(os.fspath(path)))


def _float_array(what: str, value: ArrayLike) -> np.ndarray:
    a = np.asarray(value)
    if a.dtype.kind not in "fiub":
        raise InvalidArgument(f"{what}: calibration data must be numbers, not dtype {a.dtype}")
    return np.ascontiguousarray(a, dtype=np.float32)


def _calibration_files(calibration: Calibration, folder: str) -> List[str]:
    """Writes the calibration samples as .npy files in `folder`; returns the specs (FILE.npy or
    NAME=FILE.npy) `loom compile --calibration` takes. Samples stack on axis 0, as there."""
    if calibration is None:
        return []
    if isinstance(calibration, (list, tuple)):
        if not calibration:
            raise InvalidArgument("calibration: the list of samples is empty")
        if all(isinstance(s, Mapping) for s in calibration):
            names = list(calibration[0].keys())
            for i, s in enumerate(calibration):
                if sorted(s.keys()) != sorted(names):
                    raise InvalidArgument(
                        f"calibration[{i}]: inputs {sorted(s.keys())} differ from calibration[0]'s "
                        f"{sorted(names)}")
            calibration = {
                n: np.concatenate([_float_array(f"calibration[{i}]['{n}']", s[n])
                                   for i, s in enumerate(calibration)])
                for n in names
            }
        elif any(isinstance(s, Mapping) for s in calibration):
            raise InvalidArgument("calibration: a list of samples must be all arrays or all dicts")
        else:
            calibration = np.concatenate(
                [_float_array(f"calibration[{i}]", s) for i, s in enumerate(calibration)])
    specs = []
    if isinstance(calibration, Mapping):
        for k, (name, value) in enumerate(calibration.items()):
            if not isinstance(name, str) or "=" in name:
                raise InvalidArgument(f"calibration: {name!r} is not an input name")
            path = os.path.join(folder, f"calibration_{k}.npy")
            np.save(path, _float_array(f"calibration['{name}']", value))
            specs.append(f"{name}={path}")
    else:
        path = os.path.join(folder, "calibration.npy")
        np.save(path, _float_array("calibration", calibration))
        specs.append(path)
    return specs


def _tqdm_progress() -> Optional[Progress]:
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    bars: Dict[str, Any] = {}

    def update(stage: str, done: int, total: int) -> None:
        bar = bars.get(stage)
        if bar is None:
            bar = bars[stage] = tqdm(total=total, desc=stage, unit="step", leave=False)
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update


def compile(
    model: Union[str, os.PathLike, bytes, Any],
    board: Optional[str] = None,
    config: Optional[str] = None,
    calibration: Calibration = None,
    input_shapes: Optional[Mapping[str, Sequence[int]]] = None,
    report: bool = False,
    *,
    calibration_method: str = "mse",
    percentile: float = 99.99,
    measure_sqnr: bool = True,
    bias_correction: bool = False,
    activations: str = "asymmetric",
    progress: Union[None, bool, Progress] = None,
    verbose: bool = False,
) -> Package:
    """Compiles an ONNX model into a Loom package: what ``loom compile`` does.

    model: a path, the model's bytes, or an ``onnx.ModelProto``.
    board: a board name (``pynq-z1``, ``zcu104``, ...) or a board file; gives the config.
    config: a HwConfig name (``1x16x16``) or file; default the board's, else 1x16x16.
    calibration: float samples for post-training quantization: an array (the single input, N
        samples stacked on axis 0), a dict input name -> array, or a list of either (one per
        sample, concatenated on axis 0). None: random N(0, 1) samples, with poor scales.
    input_shapes: fixes dynamic input shapes, e.g. ``{"input": [1, 3, 224, 224]}``.
    report: keep the compile report (``Package.report``, what ``--report`` writes).
    bias_correction: shift each convolution's int32 bias by the mean error its int8 output shows
        on the calibration samples (``--bias-correction on``; docs/quantization.md).
    activations: ``"asymmetric"`` (a zero point per activation where every op that makes or reads
        it takes one) or ``"symmetric"`` (zero point 0 everywhere); ``--activations``.
    progress: None shows tqdm bars when tqdm is installed; False shows nothing; a callable gets
        (stage, done, total) with stage "calibration" (per sample), "bias-correction" (per
        layer) or "tensorize" (per layer).
    verbose: the compiler's log on stderr, as the command line prints it.

    The GIL is released while the compiler runs. Raises a loom.Error subclass on failure.
    """
    if progress is None:
        progress = _tqdm_progress()
    elif progress is False or progress is True:
        progress = _tqdm_progress() if progress else None
    elif not callable(progress):
        raise TypeError("progress must be None, a bool or a callable(stage, done, total)")
    shapes: Dict[str, List[int]] = {}
    for name, shape in (input_shapes or {}).items():
        try:
            shapes[str(name)] = [int(d) for d in shape]
        except (TypeError, ValueError):
            raise InvalidArgument(f"input_shapes['{name}']: {shape!r} is not a list of integers") from None
    with tempfile.TemporaryDirectory(prefix="loom-compile-") as folder:
        if isinstance(model, (str, os.PathLike)):
            model_path = os.fspath(model)
        else:
            if isinstance(model, (bytes, bytearray, memoryview)):
                data = bytes(model)
            elif hasattr(model, "SerializeToString"):
                data = model.SerializeToString()
            else:
                raise TypeError("model must be a path, bytes or an onnx.ModelProto, not "
                                f"{type(model).__name__}")
            model_path = os.path.join(folder, "model.onnx")
            with open(model_path, "wb") as f:
                f.write(data)
        output = os.path.join(folder, "model.loom")
        specs = _calibration_files(calibration, folder)
        command = "loom.compile(" + repr(os.path.basename(model_path))
        if board:
            command += f", board={board!r}"
        if config:
            command += f", config={config!r}"
        command += f", calibration_method={calibration_method!r}"
        if bias_correction:
            command += ", bias_correction=True"
        if activations not in ("asymmetric", "symmetric"):
            raise InvalidArgument(f"activations must be \"asymmetric\" or \"symmetric\", not {activations!r}")
        if activations != "asymmetric":
            command += f", activations={activations!r}"
        command += ")"
        report_json = _native.compile(
            model_path, output, config or "", board or "", specs, shapes, calibration_method,
            float(percentile), bool(measure_sqnr), bool(bias_correction),
            activations == "asymmetric", bool(report), bool(verbose), command, progress)
        with open(output, "rb") as f:
            data = f.read()
    return Package(data, json.loads(report_json) if report else None)
