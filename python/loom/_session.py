"""loom.Session: a package opened on a device."""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

import numpy as np

from . import _native
from ._errors import FailedPrecondition, InvalidArgument
from ._package import Package, load

__all__ = ["Session", "devices", "default_device"]

Inputs = Union[np.ndarray, Mapping[str, np.ndarray]]


def devices() -> List[str]:
    """The devices this build registered (``cpu``, ``fsim``, ``tsim``, ``null``, ...)."""
    return list(_native.devices())


def default_device() -> str:
    """The device used when none is named: fsim where registered, else cpu."""
    return _native.default_device()


def _tqdm_run_progress() -> Optional[Callable[[int, int], None]]:
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    bar: List[Any] = []

    def update(done: int, total: int) -> None:
        if not bar:
            bar.append(tqdm(total=total, desc="run", unit="inference", leave=False))
        bar[0].update(done - bar[0].n)
        if done >= total:
            bar[0].close()

    return update


class Session:
    """A package opened on a device: ``Session(pkg, device="fsim").run(x)``.

    package: a :class:`loom.Package` or the path of a ``.loom`` file.
    device: any registered device (:func:`devices`): ``cpu``, ``fsim``, ``tsim``, and on boards
        the hardware drivers.
    config: open the device with this HwConfig (name or file) instead of the package's; a package
        built for another config is then refused (loom.FailedPrecondition), as hardware would.
    trace: record the instruction timeline for :meth:`trace` (memory grows with every run).
    timeline: keep per-instruction timing, which :meth:`profile` needs for per-layer cycles.
    timeout_ms: per accelerator submission, device time; wall_timeout_ms: host time on a
        simulator (0: none).

    Not thread-safe: one run at a time per session. Runs release the GIL.
    """

    def __init__(
        self,
        package: Union[Package, str, os.PathLike],
        device: Optional[str] = None,
        config: Optional[str] = None,
        *,
        trace: bool = False,
        timeline: bool = True,
        timeout_ms: int = 600000,
        wall_timeout_ms: int = 300000,
    ) -> None:
        if not isinstance(package, Package):
            if not isinstance(package, (str, os.PathLike)):
                raise TypeError("Session needs a loom.Package or a package path, not "
                                f"{type(package).__name__}")
            package = load(package)
        self.package = package
        self.device = device or default_device()
        self._trace = trace
        self._native = _native.Session(package.data, self.device, config or "", bool(trace),
                                       bool(timeline), int(timeout_ms), int(wall_timeout_ms))
        self._inputs = package.inputs
        self._outputs = package.outputs

    @property
    def input_names(self) -> List[str]:
        return [b["name"] for b in self._inputs]

    @property
    def output_names(self) -> List[str]:
        return [b["name"] for b in self._outputs]

    def _wire(self, inputs: Inputs) -> List[Any]:
        if isinstance(inputs, Mapping):
            items = list(inputs.items())
        else:
            if len(self._inputs) != 1:
                raise InvalidArgument(
                    f"the model has {len(self._inputs)} inputs ({', '.join(self.input_names)}); "
                    "pass a dict name -> array")
            items = [(self._inputs[0]["name"], inputs)]
        wire = []
        for name, value in items:
            if not isinstance(name, str):
                raise InvalidArgument(f"input names are strings, not {name!r}")
            a = np.asarray(value)
            # An int8 input takes float32 (quantized with its scale) or int8 (its values); every
            # other input takes exactly its own type (int64 indices, bool masks, float16, ...).
            model = next((b["dtype"] for b in self._inputs if b["name"] == name), None)
            takes = ("float32", "int8") if model == "int8" else (model,)
            if model is not None and a.dtype.name not in takes:
                raise InvalidArgument(
                    f"input '{name}' is {a.dtype}; the model's input is {model}, so Loom takes "
                    f"{' or '.join(takes)}: convert with .astype(np.{takes[0]})")
            a = np.ascontiguousarray(a)
            wire.append((name, a.dtype.name, list(a.shape), a))
        return wire

    def run(
        self,
        inputs: Inputs,
        int8_outputs: bool = False,
        progress: Union[None, bool, Callable[[int, int], None]] = None,
    ) -> Union[np.ndarray, Dict[str, np.ndarray]]:
        """Runs the model. ``inputs``: one array for a single-input model, else a dict name ->
        array, in the input's shape or with a leading dimension k times it (k runs, outputs
        stacked). float32 is quantized with the input's scale; int8 is taken as is.

        Returns one array for a single-output model, else a dict name -> array (float32, or int8
        with ``int8_outputs``). Raises loom.NotFound for an unknown or missing input name and
        loom.InvalidArgument for a wrong dtype or shape.

        progress: for a stacked batch, True shows a tqdm bar (when tqdm is installed); a callable
        gets (done, k) after each of the k runs. The GIL is released while the device runs."""
        callback = None
        if progress is True:
            callback = _tqdm_run_progress()
        elif callable(progress):
            callback = progress
        elif progress not in (None, False):
            raise TypeError("progress must be None, a bool or a callable(done, total)")
        out = self._native.run(self._wire(inputs), bool(int8_outputs), callback)
        arrays = {name: np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape).copy()
                  for name, dtype, shape, data in out}
        if len(arrays) == 1:
            return next(iter(arrays.values()))
        return arrays

    @property
    def counters(self) -> Dict[str, Any]:
        """Counters accumulated over every run since the session opened (or reset_counters()):
        inferences, and per segment and in total: runs, wall_ms, cycles, MACs,
        gemm_utilization, bytes loaded/stored, instructions, busy cycles per module."""
        return self._native.counters()

    def reset_counters(self) -> None:
        self._native.reset_counters()

    def profile(self, inputs: Optional[Inputs] = None, as_dict: bool = False) -> Any:
        """Runs one inference (zeros when ``inputs`` is None) and attributes it to the package's
        layers, as ``loom profile`` does: one row per layer with op, segment, cycles, MACs,
        utilization, bytes and stall cycles by cause (``stall_*``; cycles and stalls on devices
        with a timeline: fsim, tsim). A pandas DataFrame when pandas is installed, else a list of
        dicts; ``as_dict=True`` returns the whole report (segments too) as one dict. Resets the
        counters."""
        report = json.loads(self._native.profile([] if inputs is None else self._wire(inputs)))
        if as_dict:
            return report
        rows = []
        for layer in report["layers"]:
            row = {k: v for k, v in layer.items() if k not in ("busy", "stalls")}
            row.setdefault("cycles", None)
            for k, v in layer.get("busy", {}).items():
                row[f"busy_{k}"] = v
            for k, v in layer.get("stalls", {}).items():
                row[f"stall_{k}"] = v
            rows.append(row)
        try:
            import pandas
        except ImportError:
            return rows
        return pandas.DataFrame(rows)

    def trace(self, path: Union[str, os.PathLike]) -> None:
        """Writes the instruction timeline of every run so far as Chrome/Perfetto JSON (open it in
        https://ui.perfetto.dev). Needs ``Session(..., trace=True)``."""
        if not self._trace:
            raise FailedPrecondition("Session.trace: the session was opened without trace=True, "
                                     "so no timeline was recorded")
        text = self._native.trace()
        with open(path, "w") as f:
            f.write(text)

    def __repr__(self) -> str:
        return f"<loom.Session device={self.device} inputs={self.input_names}>"
