"""Loom from Python: compile an ONNX model to an int8 package and run it on cpu, fsim, tsim or a
board, with NumPy arrays in and out (docs/python.md).

    import loom
    pkg = loom.compile("digits.onnx", board="pynq-z1", calibration=images[:100])
    sess = loom.Session(pkg, device="fsim")
    logits = sess.run(image)           # one input: an array in, an array (or a dict) out
    sess.profile()                     # per-layer cycles, MACs and stalls

Failures raise a :class:`loom.Error` subclass per Loom status code, carrying Loom's message.
"""

from __future__ import annotations

import os as _os

# A wheel carries the named hardware configs and boards (python/CMakeLists.txt); the build tree's
# extension finds them in the source tree, where it was configured.
_data = _os.path.join(_os.path.dirname(__file__), "data")
for _sub, _var in (("configs", "LOOM_CONFIG_PATH"), ("boards", "LOOM_BOARD_PATH")):
    _dir = _os.path.join(_data, _sub)
    if _os.path.isdir(_dir):
        _os.environ[_var] = _os.pathsep.join(filter(None, [_os.environ.get(_var), _dir]))

from ._errors import (  # noqa: E402
    DataLoss,
    Deadlock,
    DeadlineExceeded,
    Error,
    FailedPrecondition,
    Internal,
    InvalidArgument,
    NotFound,
    OutOfRange,
    Unimplemented,
)
from ._package import Package, compile, load  # noqa: E402
from ._session import Session, default_device, devices  # noqa: E402

__all__ = [
    "compile",
    "load",
    "Package",
    "Session",
    "devices",
    "default_device",
    "Error",
    "InvalidArgument",
    "NotFound",
    "OutOfRange",
    "FailedPrecondition",
    "Deadlock",
    "DataLoss",
    "Unimplemented",
    "Internal",
    "DeadlineExceeded",
]
