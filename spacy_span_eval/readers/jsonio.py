"""Streaming JSON input: JSON Lines, or one top-level JSON array read element by element.

Both yield ``(line number, value)`` without holding the file in memory. The standard
library's decoder is used here (not srsly) because its errors carry the line and column, which
go into the message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from ..errors import InvalidInputError
from .base import MAX_LINE_CHARS, bounded_lines, not_utf8, open_text, too_long

_CHUNK = 1 << 20
_SPACE = re.compile(r"[ \t\n\r]*")


def iter_json_values(path: Path | str) -> Iterator[tuple[int, object]]:
    """Each value of a JSON Lines file, or each element of a file holding one JSON array."""
    array = _first_char(path) == "["
    with open_text(path) as fh:
        try:
            if array:
                yield from _ArrayStream(fh, path)
                return
            for n, line in enumerate(bounded_lines(fh, path), 1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InvalidInputError(f"{path} line {n}: invalid JSON: {exc.msg} "
                                            f"(column {exc.colno})") from None
                except (ValueError, RecursionError) as exc:
                    raise _unreadable(path, n, exc) from None
                yield n, value
        except UnicodeDecodeError as exc:
            raise not_utf8(path, exc) from None


def _unreadable(path: Path | str, line: int, exc: Exception) -> InvalidInputError:
    """A value the decoder gives up on: nested too deeply, or a number too long."""
    if isinstance(exc, RecursionError):
        why = "nested too deeply to be read"
    else:  # Python refuses integers of more than 4300 digits
        why = f"a number is too long to be read ({exc})"
    return InvalidInputError(f"{path} line {line}: invalid JSON: {why}")


def _first_char(path: Path | str) -> str:
    with open_text(path) as fh:
        try:
            while block := fh.read(4096):
                if stripped := block.lstrip():
                    return stripped[0]
        except UnicodeDecodeError:
            return ""  # reported with its position when read for real
    return ""


class _ArrayStream:
    """Elements of a top-level ``[...]``, decoded one at a time from a sliding buffer."""

    def __init__(self, fh, path: Path | str) -> None:
        self.fh, self.buf, self.pos, self.path = fh, "", 0, path
        self.line = 1  # line number of buf[0]
        self.eof = False
        self.chunk = _CHUNK
        self.decoder = json.JSONDecoder()

    def line_at(self, pos: int) -> int:
        return self.line + self.buf.count("\n", 0, pos)

    def _more(self) -> bool:
        if self.eof:
            return False
        self.line += self.buf.count("\n", 0, self.pos)
        self.buf, self.pos = self.buf[self.pos:], 0
        data = self.fh.read(self.chunk)
        self.chunk = min(self.chunk * 2, 64 * _CHUNK)  # big elements: fewer re-parses
        if not data:
            self.eof = True
            return False
        self.buf += data
        return True

    def _peek(self) -> str:
        """The next non-space character ('' at end of file), leaving pos on it."""
        while True:
            self.pos = _SPACE.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._more():
                return ""

    def _fail(self, what: str, pos: int | None = None) -> InvalidInputError:
        line = self.line_at(self.pos if pos is None else pos)
        return InvalidInputError(f"{self.path} line {line}: invalid JSON: {what}")

    def __iter__(self) -> Iterator[tuple[int, object]]:
        self._peek()
        self.pos += 1  # the "["
        first = True
        while True:
            ch = self._peek()
            if ch == "]":
                self.pos += 1
                if self._peek():
                    raise self._fail("extra data after the closing ']'")
                return
            if not ch:
                raise self._fail("the array is not closed (missing ']')")
            if not first:
                if ch != ",":
                    raise self._fail(f"expected ',' or ']' between elements, found {ch!r}")
                self.pos += 1
                self._peek()
            first = False
            start_line = self.line_at(self.pos)
            yield start_line, self._value()

    def _value(self) -> object:
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if len(self.buf) - self.pos > MAX_LINE_CHARS:
                    raise too_long(self.path, self.line_at(self.pos), "array element") from None
                if self._more():
                    continue
                raise self._fail(exc.msg, exc.pos) from None
            except (ValueError, RecursionError) as exc:
                raise _unreadable(self.path, self.line_at(self.pos), exc) from None
            if end == len(self.buf) and self._more():
                continue  # a number or literal may go on in the next chunk
            self.pos = end
            return value
