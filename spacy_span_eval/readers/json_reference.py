"""The reference road of :mod:`.jsonio`: the standard library's decoder, one value at a time.

Its values and its errors are the reference: a chunk the fast road cannot take whole (invalid
JSON, a value the typed decoder rejects, a stray ``\\r`` line end) comes this way, and the
errors carry the line and column that go into the message. Line numbers are counted
incrementally, so this road is linear too.

A key given twice in one object is an error naming the file, the key and its line, never
"the last one wins" (semantics §7): the decoder refuses it as it builds each object
(:func:`unique_keys`).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError
from .base import not_utf8, too_long

_SPACE = re.compile(r"[ \t\n\r]*")
_KEY_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]')
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass
class JsonChunk:
    """Consecutive values of a file: their line numbers, and the values.

    ``typed``: the values came from the caller's typed decoder; otherwise they are plain
    JSON values as the standard library decodes them.
    """

    lines: list[int]
    values: list[Any]
    typed: bool


class DuplicateKeyError(ValueError):
    """A JSON object with a key given twice (raised by :func:`unique_keys`)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"key {key!r} given twice")
        self.key = key


class LoneSurrogateError(ValueError):
    """A JSON string with a lone surrogate (``"\\ud800"``): no character, and no UTF-8 for
    any output to write (raised by :func:`unique_keys`)."""


def lone_surrogate(value: Any) -> bool:
    """Whether a decoded string, or a string in a list of them, holds a lone surrogate (a
    well-formed escaped pair decodes to one character, so any surrogate left is lone)."""
    if isinstance(value, str):
        return not value.isascii() and _LONE_SURROGATE.search(value) is not None
    return isinstance(value, list) and any(map(lone_surrogate, value))


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for :mod:`json`: the object as a dict, or
    :class:`DuplicateKeyError` when a key comes twice, or :class:`LoneSurrogateError` when a
    key or a string value holds a lone surrogate (:mod:`msgspec` refuses those itself, so
    such a record always comes this way)."""
    for key, value in pairs:
        if lone_surrogate(key) or lone_surrogate(value):
            raise LoneSurrogateError(key)
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return out


def first_repeated_key(text: str) -> tuple[str, int] | None:
    """The first key (in reading order) given a second time in the same object of the JSON
    ``text``, and where that second one starts; ``None`` when there is none. For messages:
    the text is one that parsed up to its duplicate."""
    stack: list[set[str] | None] = []
    previous: tuple[str, int] | None = None
    for match in _KEY_TOKEN.finditer(text):
        token = match.group()
        if token == "{":
            stack.append(set())
        elif token == "[":
            stack.append(None)
        elif token in "]}":
            if stack:
                stack.pop()
        elif token == ":" and previous is not None and stack and (keys := stack[-1]) is not None:
            try:
                key = json.loads(previous[0])
            except ValueError:
                key = previous[0]
            if key in keys:
                return key, previous[1]
            keys.add(key)
        previous = (token, match.start()) if token.startswith('"') else None
    return None


def repeated_key_error(
    path: Path | str, line: int, text: str, key: str | None = None
) -> InvalidInputError:
    """The message for a key given twice in ``text`` (which starts on ``line``): the file,
    the key and the line of its second occurrence."""
    found = first_repeated_key(text)
    if found is not None:
        key, at = found
        line += text.count("\n", 0, at)
    return InvalidInputError(
        f"{path} line {line}: invalid JSON: the key {key!r} is given twice in one object "
        "(a key may appear once: neither value is taken)"
    )


def unreadable(path: Path | str, line: int, exc: Exception) -> InvalidInputError:
    """A value the decoder gives up on: nested too deeply, a lone surrogate, or a number
    too long."""
    if isinstance(exc, RecursionError):
        why = "nested too deeply to be read"
    elif isinstance(exc, LoneSurrogateError):
        why = (
            f"a string in the record (at key {exc.args[0]!r}) holds a lone surrogate escape "
            "(\\ud800-\\udfff without its pair), which is no character"
        )
    else:  # Python refuses integers of more than 4300 digits
        why = f"a number is too long to be read ({exc})"
    return InvalidInputError(f"{path} line {line}: invalid JSON: {why}")


def in_chunks(values: Iterator[tuple[int, Any]], path: Path | str) -> Iterator[JsonChunk]:
    """``(line, value)`` pairs as chunks of plain values; the values before an error are
    handed over before it is raised (a decoding error as the file's not-UTF-8 error)."""
    lines: list[int] = []
    got: list[Any] = []
    error: InvalidInputError | None = None
    try:
        for n, value in values:
            lines.append(n)
            got.append(value)
            if len(got) >= 1024:
                yield JsonChunk(lines, got, False)
                lines, got = [], []
    except UnicodeDecodeError as exc:
        error = not_utf8(path, exc)
    except InvalidInputError as exc:
        error = exc
    if got:
        yield JsonChunk(lines, got, False)
    if error is not None:
        raise error


def reference_lines(chunk: bytes, line: int, path: Path | str) -> Iterator[JsonChunk]:
    """JSON lines read line by line (the values before a bad line are handed over before
    its error is raised)."""
    return in_chunks(_line_values(chunk, line, path), path)


def _line_values(chunk: bytes, line: int, path: Path | str) -> Iterator[tuple[int, Any]]:
    text = chunk.decode("utf-8")  # (an error before the chunk's lines, as text mode raises it)
    for n, raw in enumerate(io.StringIO(text, newline=None), line):  # as text mode reads
        if not raw.strip():
            continue
        try:
            yield n, json.loads(raw, object_pairs_hook=unique_keys)
        except DuplicateKeyError as exc:
            raise repeated_key_error(path, n, raw, exc.key) from None
        except json.JSONDecodeError as exc:
            raise InvalidInputError(
                f"{path} line {n}: invalid JSON: {exc.msg} (column {exc.colno})"
            ) from None
        except (ValueError, RecursionError) as exc:
            raise unreadable(path, n, exc) from None


class ArrayStream:
    """Elements of a top-level ``[...]``, decoded one at a time from a sliding buffer.

    ``read``: the text from where the stream starts, ``n`` characters at a time: at the
    ``[`` (``first``; whitespace before it is skipped), else at a ``,`` after an element or
    at the closing ``]``; ``line``: its line number. ``chunk``: characters read at first;
    ``limit``: the longest element."""

    def __init__(
        self,
        read: Callable[[int], str],
        path: Path | str,
        *,
        line: int,
        first: bool,
        chunk: int,
        limit: int,
    ) -> None:
        self.read, self.buf, self.pos, self.path = read, "", 0, path
        self.line = line  # line number of buf[0]
        self.seen, self.seen_line = 0, line  # line number of buf[seen], counted forwards
        self.eof = False
        self.chunk, self.most, self.limit = chunk, 64 * chunk, limit
        self.decoder = json.JSONDecoder(object_pairs_hook=unique_keys)
        self.first = first

    def line_at(self, pos: int) -> int:
        """The line of ``buf[pos]``, counted on from the last position asked for (positions
        asked for never go back, but to 0 when the buffer moves on)."""
        self.seen_line += self.buf.count("\n", self.seen, pos)
        self.seen = pos
        return self.seen_line

    def _more(self) -> bool:
        if self.eof:
            return False
        data = self.read(self.chunk)
        if not data:  # the buffer stays as it is: an error's position still points into it
            self.eof = True
            return False
        self.line = self.line_at(self.pos)
        self.buf, self.pos = self.buf[self.pos :], 0
        self.seen, self.seen_line = 0, self.line
        self.chunk = min(self.chunk * 2, self.most)  # big elements: fewer re-parses
        self.buf += data
        return True

    def _peek(self) -> str:
        """The next non-space character ('' at end of file), leaving pos on it."""
        while True:
            # the pattern matches the empty string too: there is always a match
            self.pos = _SPACE.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._more():
                return ""

    def _fail(self, what: str, pos: int | None = None) -> InvalidInputError:
        line = self.line_at(self.pos if pos is None else pos)
        return InvalidInputError(f"{self.path} line {line}: invalid JSON: {what}")

    def __iter__(self) -> Iterator[tuple[int, object]]:
        first = self.first
        if first:
            self._peek()
            self.pos += 1  # the "["
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
            except DuplicateKeyError as exc:
                line = self.line_at(self.pos)
                raise repeated_key_error(self.path, line, self.buf[self.pos :], exc.key) from None
            except json.JSONDecodeError as exc:
                if len(self.buf) - self.pos > self.limit:
                    raise too_long(self.path, self.line_at(self.pos), "array element") from None
                if self._more():
                    continue
                raise self._fail(exc.msg, exc.pos) from None
            except (ValueError, RecursionError) as exc:
                raise unreadable(self.path, self.line_at(self.pos), exc) from None
            if end == len(self.buf) and self._more():
                continue  # a number or literal may go on in the next chunk
            self.pos = end
            return value
