"""How a command's failure reads on the console: one line, naming the file, line or option
where the input errors name them, else what went wrong (exit 2, decided by the caller)."""

from __future__ import annotations

from ..errors import InvalidInputError

__all__ = ["describe_failure"]


def describe_failure(exc: Exception, *, debug: bool = False) -> str:
    """One line for a failure: what the input errors say, else what went wrong (``debug``:
    the traceback is printed already, so no hint to ask for it)."""
    return " ".join(_describe(exc, debug).split())


def _describe(exc: Exception, debug: bool) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"{exc.filename}: no such file" if exc.filename else str(exc)
    if isinstance(exc, IsADirectoryError):
        return f"{exc.filename}: is a directory, not a file"
    if isinstance(exc, InvalidInputError | ValueError | ImportError):
        return str(exc)  # named by the code that raised it (file, line, document, option)
    if isinstance(exc, RecursionError):
        return (
            "the input is nested too deeply to be read (a JSON value nested thousands of "
            "levels deep?)"
        )
    if isinstance(exc, MemoryError):
        return "out of memory (is one record or line of the input huge?)"
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    hint = "" if debug else " (run again with --debug for the traceback)"
    return f"unexpected error: {type(exc).__name__}: {exc}{hint}"
