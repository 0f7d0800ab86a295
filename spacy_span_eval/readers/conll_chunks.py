"""A CoNLL file cut into chunks of whole sentences (at blank lines), as bytes with ``\\n`` line
ends, each with the problem the reference reader meets right after it, if any."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from ..errors import InvalidInputError
from .base import (
    MAX_LINE_CHARS,
    long_line_at,
    long_line_error,
    not_utf8,
    unfinished_utf8,
    whole_lines,
    without_bom,
)

if TYPE_CHECKING:  # (byte ranges are a parallel run's: its planner loads them)
    from .ranges import ByteRange

__all__ = ["LongLine", "chunks"]


@dataclass(frozen=True)
class LongLine:
    """The line after a chunk is longer than :data:`~.base.MAX_LINE_CHARS` (it starts at
    byte ``at`` of ``data``, which starts at file offset ``offset``): an error whose line
    number the caller knows."""

    data: bytes
    at: int
    offset: int

    def error(self, path: Path | str, line: int) -> Callable[[], Exception]:
        return long_line_error(path, self.data, self.at, line, self.offset)


Tail = Callable[[], Exception] | LongLine | None


def chunks(
    path: Path | str, size: int, part: ByteRange | None = None
) -> Iterator[tuple[bytes, int, Tail]]:
    """``(chunk, byte offset, error)``: whole sentences ending with a newline; ``error`` (last
    chunk only): the file ends inside a character, which text mode reports after everything
    before it, or the next line is too long (:class:`LongLine`; the chunk then holds the
    whole lines before it, and may end inside a sentence). ``part``: only those bytes."""
    with _open(path) as fh:
        offset = 0 if part is None else part.start
        left = None if part is None or part.stop is None else part.stop - part.start
        fh.seek(offset)
        first, pending, want = offset == 0, b"", size
        while True:
            data = fh.read(want if left is None else min(want, left))
            if left is not None:
                left -= len(data)
            eof = len(data) < want or left == 0  # a short read is the end of the file
            block = pending + data if pending else data
            if first:
                first = False
                block, offset = without_bom(block, eof)
            if len(block) > MAX_LINE_CHARS and (long := long_line_at(block)) is not None:
                # The reference reads the lines before it, then stops (bounded_lines): the
                # whole lines before it are the last chunk, and its sentence is left open.
                yield _newlines(block[:long]), offset, LongLine(block, long, offset)
                return
            if eof:
                chunk, pending = block, b""
            else:
                cut = block.rfind(b"\n\n")
                if b"\r" in block:
                    cut = max(cut, block.rfind(b"\n\r\n"))
                if cut < 0:
                    pending, want = block, want * 2
                    continue
                chunk, pending, want = block[: cut + 1], block[cut + 1 :], size
            # (let the copied buffers go before the chunk is parsed: its arrays can reuse them)
            data = block = b""
            yield from _last_lines(path, chunk, offset) if eof else _lines(chunk, offset)
            offset += len(chunk)
            if eof:
                return


def _open(path: Path | str) -> BinaryIO:
    try:
        return open(path, "rb")  # noqa: SIM115 - the caller closes it
    except IsADirectoryError:
        raise InvalidInputError(f"{path}: is a directory, not a file") from None


def _newlines(chunk: bytes) -> bytes:
    """``\\r\\n`` and ``\\r`` line ends as ``\\n``."""
    if b"\r" in chunk:
        return chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return chunk


def _lines(chunk: bytes, offset: int, error: Tail = None) -> Iterator[tuple[bytes, int, Tail]]:
    if chunk:
        chunk = _newlines(chunk)
        yield chunk if chunk.endswith(b"\n") else chunk + b"\n", offset, error
    elif error is not None:
        yield b"", offset, error


def _last_lines(path: Path | str, chunk: bytes, offset: int) -> Iterator[tuple[bytes, int, Tail]]:
    """The file's last chunk: where it ends inside a character, the whole lines before that
    character, and the error."""
    if cut := unfinished_utf8(chunk):
        try:
            chunk[-cut:].decode("utf-8")
        except UnicodeDecodeError as exc:
            failure = not_utf8(path, exc, offset + len(chunk) - cut)
            error = lambda: failure  # noqa: E731 - (``exc`` is unbound after the block)
            return _lines(chunk[: whole_lines(chunk[:-cut])], offset, error)
        raise AssertionError("an unfinished character decoded")  # pragma: no cover
    return _lines(chunk, offset)
