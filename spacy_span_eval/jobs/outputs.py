"""Writing outputs (semantics §7): never over an input, atomically where that means something.

:func:`check_output` refuses an output path that is (or links to) one of a command's inputs,
or that lies inside an input folder, before anything is read. :func:`write_atomic` writes a
regular file or a new path through a temporary file in the target's directory, renamed over
the target, so an interrupted run leaves the old file or none. Any other target is written
straight through: ``-`` is stdout, ``/dev/stdout``, ``/dev/stderr`` and ``/dev/fd/N`` (or a
link to one) are the process's own open stream, and an existing device or FIFO
(``/dev/null``, a named pipe a reader waits on) is opened and written, never replaced. The
commands' text outputs go through :func:`spacy_span_eval.api.write_text`, which uses it;
``convert`` writes its DocBin with it.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Iterable, Mapping
from contextlib import suppress
from pathlib import Path

from ..errors import InvalidInputError

__all__ = ["STDOUT", "check_output", "check_suffix", "is_stdout", "same_file", "write_atomic"]

#: The output path that means standard output.
STDOUT = "-"

# A path that names one of the process's open file descriptors.
_FD_PATH = re.compile(r"/dev/(?:(stdout)|(stderr)|fd/(\d+))|/proc/(self|\d+)/fd/(\d+)")
_LINK_HOPS = 40  # as the kernel's limit on links followed while resolving a path


def is_stdout(path: Path | str | None) -> bool:
    """Whether ``path`` is ``-``, standard output."""
    return path is not None and str(path) == STDOUT


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fd_of(path: Path | str) -> int | None:
    """The file descriptor a ``/dev/stdout``-style path names (following links to one), or
    ``None``."""
    here = os.path.abspath(path)
    for _ in range(_LINK_HOPS):
        match = _FD_PATH.fullmatch(here)
        if match is not None:
            stdout, stderr, dev_fd, process, proc_fd = match.groups()
            if stdout or stderr:
                return 1 if stdout else 2
            if dev_fd is not None:
                return int(dev_fd)
            if process in ("self", str(os.getpid())):
                return int(proc_fd)
            return None  # another process's descriptor: an ordinary path
        try:
            target = os.readlink(here)
        except OSError:  # not a link (or gone): an ordinary path
            return None
        here = os.path.normpath(os.path.join(os.path.dirname(here), target))
    return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _write_stream(fd: int, data: bytes) -> None:
    """Write to an open descriptor of this process: what Python buffered for stdout and
    stderr first, then ``data``; stdout through ``sys.stdout`` where it is stdout's own."""
    for stream in (sys.stdout, sys.stderr):
        with suppress(Exception):
            stream.flush()
    if fd == 1 and sys.stdout is not None:
        buffer = getattr(sys.stdout, "buffer", None)
        try:
            own = sys.stdout.fileno() == 1
        except (AttributeError, OSError, ValueError):  # replaced (a notebook, a test runner)
            own = False
        if not own:
            if buffer is not None:
                buffer.write(data)
                buffer.flush()
            else:
                sys.stdout.write(data.decode("utf-8"))
                sys.stdout.flush()
            return
    _write_all(fd, data)


def write_atomic(path: Path | str, data: bytes | Iterable[bytes], what: str) -> None:
    """Write ``data`` (bytes, or chunks of them made as they are written) to ``path``:
    atomically for a regular file or a new path (into a temporary file in the same
    directory, then renamed over it: a link is written through, the file it points to
    replaced; an existing file keeps its mode); straight through for ``-`` (stdout), a
    ``/dev/stdout``-style path, a device or a FIFO. The temporary file is removed whatever
    stops the write (an error, Ctrl-C, a signal turned into an exception). A failure is an
    :class:`~spacy_span_eval.errors.InvalidInputError` naming the file and ``what`` it is."""
    chunks: Iterable[bytes] = [data] if isinstance(data, bytes) else data
    try:
        fd = 1 if is_stdout(path) else _fd_of(path)
        if fd is not None:
            for chunk in chunks:
                _write_stream(fd, chunk)
            return
        target = Path(os.path.realpath(path))
        try:
            mode: int | None = target.stat().st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            with open(target, "wb") as fh:  # a device or a FIFO: its reader gets the output
                fh.writelines(chunks)
            return
        if mode is not None and stat.S_ISDIR(mode):
            raise InvalidInputError(f"{path}: cannot write the {what} (it is a directory)")
        _replace(target, chunks, mode & 0o7777 if mode is not None else 0o666 & ~_umask())
    except OSError as exc:
        raise InvalidInputError(
            f"{path}: cannot write the {what} ({exc.strerror or exc})"
        ) from None


def _replace(target: Path, chunks: Iterable[bytes], mode: int) -> None:
    """Write ``chunks`` into a new temporary file beside ``target`` and rename it over
    ``target`` with ``mode``; the temporary file is removed if anything stops that."""
    # The name is chosen before the try, so whatever stops the write from the moment the
    # file may exist (an exception raised by a signal handler right after the open, too)
    # finds it and removes it.
    tmp = target.parent / f".{target.name}.{os.urandom(6).hex()}.part"
    opened = False
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        opened = True
        try:
            for chunk in chunks:
                _write_all(fd, chunk)
        finally:
            os.close(fd)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        # An OSError before the open returned created nothing of ours (O_EXCL: a file of
        # that name is someone else's); anything else may have come after it did.
        if opened or not isinstance(exc, OSError):
            with suppress(OSError):
                os.unlink(tmp)
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


def _inside(output: Path | str, folder: Path | str) -> bool:
    """Whether ``output`` (once links are resolved; it need not exist) lies inside the
    directory ``folder``."""
    try:
        where = Path(os.path.realpath(output))
        top = Path(os.path.realpath(folder))
    except (OSError, ValueError):
        return False
    if where == top:
        return False
    if where.is_relative_to(top):
        return True
    # The same folder under another name (a bind mount, a case-folding disk):
    with suppress(OSError):
        return any(os.path.samefile(parent, top) for parent in where.parents[:-1])
    return False


def check_output(
    output: Path | str | None,
    inputs: Mapping[str, object],
    *,
    flag: str = "--output",
    binary: bool = False,
    beside: Mapping[str, Path | str | None] | None = None,
    silent: bool = False,
) -> None:
    """Refuse an ``output`` that is (or links to) one of the ``inputs`` (``{what: path}``;
    values that are not paths are skipped), or lies inside an input that is a folder, before
    anything is read (semantics §7). ``flag``: the option that names ``output``, for the
    message. ``binary``: the output is not text, so ``-`` is refused while stdout is a
    terminal. ``beside``: second outputs of the command (flag -> path), refused likewise,
    and where one is ``output`` too, or stdout while the report goes there (unless
    ``silent``).

    Inside an input folder means anywhere below it: which files there a reader reads
    depends on the format (its suffixes, its pairs of files), and a file written there
    today may be read as an input tomorrow, so the whole folder is the input."""
    _check_one(output, inputs, flag, binary)
    for second, path in (beside or {}).items():
        _check_one(path, inputs, second, False)
        if path is not None and output is not None and same_file(path, output):
            raise InvalidInputError(
                f"{path}: {second} and --output name the same file; give each its own"
            )
        if is_stdout(path) and output is None and not silent:
            raise InvalidInputError(
                f"{second} -: the report goes to stdout too; give --output a file (or --silent)"
            )


def check_suffix(output: Path | str | None, flag: str, suffixes: tuple[str, ...]) -> str:
    """``output``'s suffix (lower case; ``""`` for stdout or a name without one: the first
    format), refused unless one of ``suffixes``, so no format is written under another's
    name."""
    suffix = "" if output is None or is_stdout(output) else Path(output).suffix.lower()
    if suffix and suffix not in suffixes:
        raise InvalidInputError(
            f"{flag} {output}: writes {'/'.join(suffixes)} (by its suffix), not {suffix}"
        )
    return suffix


def _check_one(
    output: Path | str | None, inputs: Mapping[str, object], flag: str, binary: bool
) -> None:
    if output is None:
        return
    if is_stdout(output):
        if binary and sys.stdout is not None and sys.stdout.isatty():
            raise InvalidInputError(
                f"{flag} -: stdout is a terminal and this output is binary; redirect stdout "
                f"to a file or a pipe, or give a file name"
            )
        return
    for what, path in inputs.items():
        if not isinstance(path, str | Path):
            continue
        if same_file(output, path):
            raise InvalidInputError(
                f"{output}: the output is the {what} {path} (or a link to it); refusing to "
                f"overwrite an input, choose another {flag}"
            )
        if os.path.isdir(path) and _inside(output, path):
            raise InvalidInputError(
                f"{output}: the output is inside the {what} {path} (an input folder); refusing "
                f"to write into an input, choose another {flag}"
            )
