"""Writing outputs (semantics §7): never over an input, and atomically.

:func:`check_output` refuses an output path that is (or links to) one of a command's inputs,
before anything is read; :func:`write_atomic` writes into a temporary file in the target's
directory and renames it over the target, so an interrupted run leaves the old file or none.
The commands' text outputs go through :func:`spacy_span_eval.api.write_text`, which uses it;
``convert`` writes its DocBin with it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path

from ..errors import InvalidInputError

__all__ = ["check_output", "same_file", "write_atomic"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: Path | str, data: bytes, what: str) -> None:
    """Write ``data`` to ``path`` atomically: into a temporary file in the same directory,
    then renamed over it. A link is written through (the file it points to is replaced); an
    existing file keeps its mode. A failure is an :class:`~spacy_span_eval.errors.
    InvalidInputError` naming the file and ``what`` it is."""
    target = Path(os.path.realpath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    except OSError as exc:
        raise InvalidInputError(
            f"{path}: cannot write the {what} ({exc.strerror or exc})"
        ) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        mode = target.stat().st_mode & 0o7777 if target.is_file() else 0o666 & ~_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        with suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise InvalidInputError(
                f"{path}: cannot write the {what} ({exc.strerror or exc})"
            ) from None
        raise


def same_file(a: Path | str, b: Path | str) -> bool:
    """Whether two paths name one file: the same inode (hard links too) when both exist,
    else the same path once links are resolved."""
    with suppress(OSError):
        return os.path.samefile(a, b)
    try:
        return Path(a).resolve() == Path(b).resolve()
    except (OSError, RuntimeError):  # a link loop
        return False


def check_output(
    output: Path | str | None, inputs: Mapping[str, object], *, flag: str = "--output"
) -> None:
    """Refuse an ``output`` that is (or links to) one of the ``inputs`` (``{what: path}``;
    values that are not paths are skipped), before anything is read (semantics §7). ``flag``: the
    option that names ``output``, for the message."""
    if output is None:
        return
    for what, path in inputs.items():
        if isinstance(path, str | Path) and same_file(output, path):
            raise InvalidInputError(
                f"{output}: the output is the {what} {path} (or a link to it); refusing to "
                f"overwrite an input, choose another {flag}"
            )
