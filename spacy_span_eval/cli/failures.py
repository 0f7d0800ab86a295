"""How a command's failure reads on the console: one line, naming the file, line or option
where the input errors name them, else what went wrong (exit 2, decided by the caller)."""

from __future__ import annotations

import sys

from ..errors import SpanEvalError

__all__ = ["describe_failure"]


def describe_failure(exc: Exception, *, debug: bool = False) -> str:
    """One line for a failure: what the input errors say, else what went wrong (``debug``:
    the traceback is printed already, so no hint to ask for it)."""
    return " ".join(_describe(exc, debug).split())


#: How Python says a thread could not start (no memory, or no more threads allowed), and
#: how a pool's shutdown then fails.
_NO_THREAD = ("can't start new thread", "cannot join thread before it is started")


def _describe(exc: Exception, debug: bool) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"{exc.filename}: no such file" if exc.filename else str(exc)
    if isinstance(exc, IsADirectoryError):
        return f"{exc.filename}: is a directory, not a file"
    if isinstance(exc, SpanEvalError | ValueError | ImportError):
        return str(exc)  # named by the code that raised it (file, line, document, option)
    pools = sys.modules.get("concurrent.futures.process")  # (loaded where a pool ran)
    if pools is not None and isinstance(exc, pools.BrokenProcessPool):
        return (
            "a worker process died (killed, or out of memory); run again with fewer "
            "--n-process or more memory"
        )
    if isinstance(exc, RecursionError):
        return (
            "the input is nested too deeply to be read (a JSON value nested thousands of "
            "levels deep?)"
        )
    if isinstance(exc, MemoryError):
        return (
            "out of memory (is one record or line of the input huge?); run again with more "
            "memory or fewer --n-process"
        )
    if isinstance(exc, RuntimeError) and str(exc) in _NO_THREAD:
        return (
            "out of memory: a thread could not be started; run again with more memory or "
            "fewer --n-process"
        )
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    hint = "" if debug else " (run again with --debug for the traceback)"
    return f"unexpected error: {type(exc).__name__}: {exc}{hint}"
