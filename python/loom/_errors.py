"""Loom's errors as Python exceptions: one class per StatusCode (runtime/core/status.h).

Every exception the package raises for a Loom failure is a :class:`loom.Error`; catch a subclass
to handle one kind. The message is Loom's own and names the problem and where it is.
"""

from __future__ import annotations


class Error(Exception):
    """A Loom failure. ``code`` is the StatusCode's number (1..9)."""

    code: int = 0


class InvalidArgument(Error, ValueError):
    """Bad input from the caller: a file, an option, an array's dtype or shape."""

    code = 1


class NotFound(Error, LookupError):
    """A named thing (file, config, board, device, tensor, input) does not exist."""

    code = 2


class OutOfRange(Error, IndexError):
    """An access outside a buffer, DRAM or tensor."""

    code = 3


class FailedPrecondition(Error):
    """The state does not allow the call (e.g. the package's config is not the device's)."""

    code = 4


class Deadlock(Error):
    """The instruction stream can never finish."""

    code = 5


class DataLoss(Error):
    """Corrupted or truncated data (e.g. a damaged package)."""

    code = 6


class Unimplemented(Error, NotImplementedError):
    """This device or build does not provide the call."""

    code = 7


class Internal(Error):
    """A bug in Loom itself."""

    code = 8


class DeadlineExceeded(Error, TimeoutError):
    """A wait ran out of time."""

    code = 9


for _cls in list(globals().values()):
    if isinstance(_cls, type) and issubclass(_cls, Error):
        _cls.__module__ = "loom"  # tracebacks say loom.NotFound, as users spell it

# StatusCode -> class; the extension raises through this table (python/src/module.cc).
_BY_CODE = {
    cls.code: cls
    for cls in (
        InvalidArgument,
        NotFound,
        OutOfRange,
        FailedPrecondition,
        Deadlock,
        DataLoss,
        Unimplemented,
        Internal,
        DeadlineExceeded,
    )
}
_BY_CODE[0] = Internal  # an error Status never has code 0; if one did, that is a bug
