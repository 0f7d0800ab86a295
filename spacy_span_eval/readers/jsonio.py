"""Streaming JSON input: JSON Lines, or one top-level JSON array read element by element.

Files are read in chunks of whole records. For each chunk the line number of every record is
found once, with numpy, from the chunk's bytes: for JSON Lines the non-blank lines, for an
array the top-level elements, found by a vectorized scan (quotes that are not escaped open and
close strings; brackets and braces outside strings give the depth; commas at depth 1 separate
elements). The chunk's records are then decoded in one call: by :mod:`msgspec` into typed
structures when the caller gives a decoder (see :mod:`.jsonl`), else by the standard library.
Memory follows the chunk, not the file.

Anything unusual in a chunk (invalid JSON, a value the typed decoder rejects, a stray ``\\r``
line end) sends that chunk, and for an array the rest of the file, through the reference
path: the standard library's decoder, one value at a time, whose errors carry the line and
column that go into the message. Line numbers there are counted incrementally, so that path
is linear too.

A key given twice in one object is an error naming the file, the key and its line, never
"the last one wins" (semantics §7). The standard library's decoder refuses it as it builds
each object (:func:`unique_keys`); :mod:`msgspec` does not, so before a chunk goes to the
typed decoder a vectorized scan over its bytes (:func:`may_repeat_keys`) looks for two keys of
one object that might be the same, and a chunk where it finds any takes the standard
library's road instead, which decides. The scan never misses a repeated key (a key with an
escape in it counts as a possible repeat), so no duplicate passes silently on either road.
For a JSON array it works from the marks (quotes, colons, brackets, commas) that the scan
for the elements found anyway, so there it adds only work per key.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidInputError
from .base import (
    MAX_LINE_CHARS,
    long_line_at,
    long_line_error,
    not_utf8,
    open_text,
    too_long,
    unfinished_utf8,
    whole_lines,
)
from .ranges import ByteRange

_CHUNK = 1 << 22
_SPACE = re.compile(r"[ \t\n\r]*")
_BOM = b"\xef\xbb\xbf"
# str.strip() whitespace among ASCII bytes (a blank JSON line is skipped by that rule).
_STRIP = np.zeros(256, dtype=bool)
_STRIP[list(b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")] = True
_JSON_SPACE = np.zeros(256, dtype=bool)
_JSON_SPACE[list(b" \t\n\r")] = True
_DEPTH = np.zeros(256, dtype=np.int8)
_DEPTH[[ord("["), ord("{")]] = 1
_DEPTH[[ord("]"), ord("}")]] = -1
_KEY_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]')


class DuplicateKeyError(ValueError):
    """A JSON object with a key given twice (raised by :func:`unique_keys`)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"key {key!r} given twice")
        self.key = key


class LoneSurrogateError(ValueError):
    """A JSON string with a lone surrogate (``"\\ud800"``): no character, and no UTF-8 for
    any output to write (raised by :func:`unique_keys`)."""


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


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
        elif token == ":" and previous is not None and stack and stack[-1] is not None:
            try:
                key = json.loads(previous[0])
            except ValueError:
                key = previous[0]
            if key in stack[-1]:
                return key, previous[1]
            stack[-1].add(key)
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


def may_repeat_keys(body: bytes) -> bool:
    """Whether some object in the JSON ``body`` might have a key twice: ``False`` only when
    none has, for a ``body`` that is valid JSON (the caller trusts the answer only once its
    decoder has accepted the body; for anything else it may be either).

    Vectorized: one pass over the bytes finds the quotes, colons and brackets (a quote
    after an odd run of backslashes is escaped); quote parity tells the marks outside strings,
    whose brackets give the depth, and :func:`_keys_may_repeat` looks at the keys. (A JSON
    array's elements are found by a scan of the same marks, which checks its chunk's keys
    itself: see :func:`_scan_array`.)"""
    if b":" not in body:
        return False
    arr = np.frombuffer(body, dtype=np.uint8)
    hits = arr == 34
    for byte in b":[]{}":
        hits |= arr == byte
    found = np.flatnonzero(hits)
    kinds = arr[found]
    is_quote = kinds == 34
    if b"\\" in body:
        is_quote[np.flatnonzero(is_quote)[_escaped(arr, found[is_quote])]] = False
    quotes_before = np.cumsum(is_quote, dtype=np.int32)
    if int(quotes_before[-1]) % 2:
        return True
    quotes_before -= is_quote  # unescaped quotes before each mark
    outside = np.flatnonzero(((quotes_before & 1) == 0) & (kinds != 34))
    kinds = kinds[outside]
    depth = np.cumsum(_DEPTH[kinds], dtype=np.int32)
    return _keys_may_repeat(
        body, 0, found[outside], kinds, depth, quotes_before[outside], found[is_quote]
    )


def _keys_may_repeat(
    buf: bytes,
    base: int,
    marks: np.ndarray,
    kinds: np.ndarray,
    depth: np.ndarray,
    quote_index: np.ndarray,
    quotes: np.ndarray,
) -> bool:
    """Whether two keys of one object might be the same, from the marks outside strings of
    valid JSON: their positions (``marks``, from ``buf[base]``), bytes (``kinds``: colons and
    brackets, commas allowed), the depth after each, the number of unescaped quotes before
    each (``quote_index``) and those quotes' positions (``quotes``).

    A key is the string right before a ``:`` (only whitespace lies between): the last quote
    before the colon closes it. Its object is the last ``{`` at the key's depth before it.
    Two keys of one object are told apart by their length and their first and last eight
    bytes (exact up to 16 bytes; longer keys that agree there count as a possible repeat,
    and so does a key with a backslash, since an escape may spell another key's characters,
    and anything nested more than 100 deep)."""
    is_colon = kinds == 58
    colon_at = np.flatnonzero(is_colon)
    if colon_at.shape[0] < 2:
        return False
    closing = quote_index[colon_at] - 1  # the number of each key's closing quote
    if closing[0] < 1:
        return True
    ends = quotes[closing]
    starts = quotes[closing - 1]
    length = ends - starts - 1
    # Each key's first and last eight bytes, read as 64-bit words.
    n = len(buf) - base
    if int(starts[-1]) + 9 > n:
        buf, base, n = buf[base:] + bytes(8), 0, n + 8  # (a key at the end: zeros after it)
    words = np.ndarray((n - 7,), dtype="<u8", buffer=buf, offset=base, strides=(1,))
    head = words[starts + 1]
    head &= _KEEP[np.minimum(length, 8)]
    tail = words[np.maximum(ends - 8, 0)]
    tail[length <= 8] = 0
    if buf.find(b"\\", base) >= 0:
        if _has_backslash(head) or _has_backslash(tail):
            return True
        long = np.flatnonzero(length > 16)
        if long.shape[0]:
            slashes = np.flatnonzero(np.frombuffer(buf, dtype=np.uint8, offset=base) == 92)
            inside = np.searchsorted(slashes, ends[long]) - np.searchsorted(slashes, starts[long])
            if inside.any():
                return True
    same = (head * np.uint64(0xC2B2AE3D27D4EB4F)) ^ (tail * np.uint64(0x165667B19E3779F9))
    same ^= length.astype(np.uint64)
    # With the '{'s and the keys sorted by depth (stably: in reading order within a depth),
    # a key's object is the last '{' before it, and the keys of one object are consecutive.
    is_object = kinds == 123
    events = np.flatnonzero(is_object | is_colon)
    level = depth[events]
    if int(level.max()) > 100 or int(level.min()) < 1:
        return True
    order = np.argsort(level.astype(np.int8), kind="stable")
    opener = is_object[events[order]]
    keys = ~opener
    owner = np.cumsum(opener, dtype=np.int32)[keys]  # (1 + the number of its '{')
    if owner[0] < 1:
        return True
    rank = np.cumsum(is_colon[events], dtype=np.int32) - 1  # (each key's, in reading order)
    return _repeats(owner, same[rank[order[keys]]])


def _repeats(owner: np.ndarray, same: np.ndarray) -> bool:
    """Whether two keys of one object look alike: those of one object (``owner``) are
    consecutive, so each is compared with the ones before it in its object, or, where an
    object has more than 16 keys, all are sorted."""
    for step in range(1, 17):
        together = owner[step:] == owner[:-step]
        if not together.any():
            return False
        if (together & (same[step:] == same[:-step])).any():
            return True
    mixed = owner.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) ^ same
    mixed.sort()
    return bool((mixed[1:] == mixed[:-1]).any())


# The bytes of a word to keep for a key of 0..8 bytes (low bytes first).
_KEEP = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_LOW = np.uint64(0x0101010101010101)
_HIGH = np.uint64(0x8080808080808080)
_SLASHES = np.uint64(0x5C5C5C5C5C5C5C5C)


def _has_backslash(words: np.ndarray) -> bool:
    """Whether any byte of the 64-bit ``words`` is a backslash (a zero byte after XOR)."""
    x = words ^ _SLASHES
    return bool(((x - _LOW) & ~x & _HIGH).any())


@dataclass
class JsonChunk:
    """Consecutive values of a file: their line numbers, and the values.

    ``typed``: the values came from the caller's typed decoder; otherwise they are plain
    JSON values as the standard library decodes them.
    """

    lines: list[int]
    values: list[Any]
    typed: bool


def iter_json_values(path: Path | str, decoder: Any = None) -> Iterator[tuple[int, object]]:
    """Each value of a JSON Lines file, or each element of a file holding one JSON array.

    ``decoder``: as for :func:`iter_json_chunks`; with :func:`plain_decoder` the values are
    the same plain JSON values, decoded by :mod:`msgspec` where it can (the annotation tools'
    readers: about 1.6x faster on a Prodigy export)."""
    for chunk in iter_json_chunks(path, decoder):
        yield from zip(chunk.lines, chunk.values, strict=True)


@cache
def plain_decoder(objects: bool = True) -> Any:
    """A :mod:`msgspec` decoder of a chunk of records as plain JSON values: objects (dicts
    with string keys) when ``objects``, else any value. A chunk it rejects (a record of
    another type, ``NaN``, a lone surrogate, a number out of range) is decoded by the
    standard library, whose values and errors are the reference; a possible repeated key
    sends the chunk there first (see the module docstring), so the values are the same
    either way."""
    import msgspec

    return msgspec.json.Decoder(list[dict[str, Any]] if objects else list[Any])


def iter_json_chunks(
    path: Path | str, decoder: Any = None, part: ByteRange | None = None
) -> Iterator[JsonChunk]:
    """The values of a JSON Lines file or of a top-level JSON array, a chunk at a time.

    ``decoder``: a ``msgspec.json.Decoder`` for a list of records; a chunk it rejects is
    decoded by the standard library instead (``typed`` False), so values are never lost or
    changed, only slower. ``part``: only those lines of a JSON Lines file (a range that
    starts a line; see :mod:`.ranges`).
    """
    try:
        fh = open(path, "rb")  # noqa: SIM115
    except IsADirectoryError:
        raise InvalidInputError(f"{path}: is a directory, not a file") from None
    with fh:
        if part is not None:
            yield from _line_chunks(fh, path, decoder, part)
        elif _first_char(fh) == "[" and not _lines_of_arrays(fh):
            yield from _array_chunks(fh, path, decoder)
        else:
            yield from _line_chunks(fh, path, decoder)


def is_json_array(path: Path | str) -> bool:
    """Whether the file holds one JSON array (else it is read as JSON Lines)."""
    with open(path, "rb") as fh:
        return _first_char(fh) == "[" and not _lines_of_arrays(fh)


#: The longest first line looked at to tell JSON Lines of arrays from one JSON array.
_FIRST_LINE = 1 << 20


def _lines_of_arrays(fh) -> bool:
    """Whether a file that starts with ``[`` is JSON Lines of arrays (see
    :func:`first_line_array`). Leaves the file at its start."""
    try:
        head = fh.read(_FIRST_LINE)
        try:
            text = head.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            text = head[: exc.start].decode("utf-8-sig", errors="replace")
        return first_line_array(text) is not None
    finally:
        fh.seek(0)


def first_line_array(text: str) -> list | None:
    """The first line's array when ``text`` (a file's head) is JSON Lines of arrays (spaCy's
    training tuples, ``["text", {"entities": [...]}]`` a line): its first non-blank line is a
    whole JSON array and the next non-blank line starts another, or the file's only line is one
    training tuple (``[str, object]``: no other format's file is an array of a string and an
    object). Else ``None``: any other array on one line, or an array spread over lines, is one
    JSON array."""
    text = text.lstrip(" \t\r\n")
    cut = text.find("\n")
    rest = text[cut:].lstrip(" \t\r\n") if cut >= 0 else ""
    if rest and not rest.startswith("["):
        return None
    try:
        first = json.loads(text[:cut] if cut >= 0 else text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(first, list):
        return None
    if rest or (len(first) == 2 and isinstance(first[0], str) and isinstance(first[1], dict)):
        return first
    return None


def _first_char(fh) -> str:
    """The first character that is not whitespace, as the reference reads it ('' if none or
    not UTF-8); leaves the file at its start. Leading whitespace is dropped as it is read,
    so a file of nothing but whitespace is read once, in linear time."""
    head, codec = b"", "utf-8-sig"  # a BOM is dropped at the start of the file only
    try:
        while block := fh.read(1 << 16):
            head += block
            try:
                text = head.decode(codec)
            except UnicodeDecodeError as exc:
                if exc.start < len(head) - 3:
                    return ""
                continue  # a character cut at the block's end
            if stripped := text.lstrip():
                return stripped[0]
            head, codec = b"", "utf-8"
        return ""
    finally:
        fh.seek(0)


# -- JSON Lines -----------------------------------------------------------------------------


def _line_chunks(
    fh, path: Path | str, decoder: Any, part: ByteRange | None = None
) -> Iterator[JsonChunk]:
    line = 1 if part is None else part.line  # line number of the chunk's first line
    left = None if part is None or part.stop is None else part.stop - part.start
    pending = b""
    first = part is None or part.start == 0
    if part is not None:
        fh.seek(part.start)
    while True:
        data = fh.read(_CHUNK if left is None else min(_CHUNK, left))
        if left is not None:
            left -= len(data)
        block = pending + data if pending else data
        if first:
            first = False
            if block.startswith(_BOM):
                block = block[len(_BOM) :]
            elif block and _BOM.startswith(block) and len(data) < _CHUNK:
                block = b""  # a file cut inside a BOM reads as empty text (utf-8-sig)
        if len(block) > MAX_LINE_CHARS and (long := long_line_at(block)) is not None:
            # As the reference (bounded_lines): the lines before it, then an error naming it.
            head = block[:long]
            if head:
                yield from _lines_of(head, line, path, decoder)
            raise long_line_error(path, block, long, line + head.count(b"\n"))()
        tail = b""
        if len(data) == _CHUNK and left != 0:  # a short read is the end of the file
            cut = block.rfind(b"\n")
            if cut < 0:
                pending = block
                continue
            chunk, pending = block[: cut + 1], block[cut + 1 :]
        else:
            chunk, pending = block, b""
            if cut := unfinished_utf8(chunk):  # text mode reports it after whole lines
                tail = chunk[-cut:]
                chunk = chunk[: whole_lines(chunk[:-cut])]
        if chunk:
            yield from _lines_of(chunk, line, path, decoder)
            line += chunk.count(b"\n")
        if tail:
            try:
                tail.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise not_utf8(path, exc) from None
        if len(data) < _CHUNK or left == 0:
            return


def _lines_of(chunk: bytes, line: int, path: Path | str, decoder: Any) -> Iterator[JsonChunk]:
    if b"\r" in chunk and chunk.count(b"\r") != chunk.count(b"\r\n"):
        yield from _reference_lines(chunk, line, path)  # a lone \r ends a line in text mode
        return
    arr = np.frombuffer(chunk, dtype=np.uint8)
    ends = np.flatnonzero(arr == 10)
    if not chunk.endswith(b"\n"):
        ends = np.append(ends, len(chunk))
    starts = np.empty_like(ends)
    starts[:1] = 0
    starts[1:] = ends[:-1] + 1
    limit = len(chunk) - 1
    filled = (ends > starts) & ~_STRIP[arr[np.minimum(starts, limit)]]
    doubt = np.flatnonzero((ends > starts) & ~filled)  # a line that starts with whitespace
    for i in doubt.tolist():
        filled[i] = bool(chunk[starts[i] : ends[i]].strip(b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"))
    rows = np.flatnonzero(filled)
    if not rows.shape[0]:
        return
    lines = (rows + line).tolist()
    if rows.shape[0] == ends.shape[0] and chunk.endswith(b"\n"):
        body = b"[" + chunk[:-1].replace(b"\n", b",") + b"]"
    else:
        body = (
            b"["
            + b",".join(
                chunk[s:e] for s, e in zip(starts[rows].tolist(), ends[rows].tolist(), strict=True)
            )
            + b"]"
        )
    values = _decode(body, len(lines), decoder)
    if values is None:
        yield from _reference_lines(chunk, line, path)
        return
    yield JsonChunk(lines, values[0], values[1])


def _reference_lines(chunk: bytes, line: int, path: Path | str) -> Iterator[JsonChunk]:
    """The reference reading of JSON lines: the standard library, line by line (the values
    before a bad line are handed over before its error is raised)."""
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError as exc:  # raised before the chunk's lines, as text mode does
        raise not_utf8(path, exc) from None
    lines: list[int] = []
    values: list[Any] = []
    for n, raw in enumerate(io.StringIO(text, newline=None), line):  # as text mode reads
        if not raw.strip():
            continue
        try:
            value = json.loads(raw, object_pairs_hook=unique_keys)
        except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
            if values:
                yield JsonChunk(lines, values, False)
            if isinstance(exc, DuplicateKeyError):
                raise repeated_key_error(path, n, raw, exc.key) from None
            if isinstance(exc, json.JSONDecodeError):
                raise InvalidInputError(
                    f"{path} line {n}: invalid JSON: {exc.msg} (column {exc.colno})"
                ) from None
            raise _unreadable(path, n, exc) from None
        lines.append(n)
        values.append(value)
    if values:
        yield JsonChunk(lines, values, False)


def _decode(
    body: bytes, count: int, decoder: Any, may_repeat: Callable[[], bool] | None = None
) -> tuple[list, bool] | None:
    """``count`` values from ``[...]``: typed when ``decoder`` can, else the standard library's
    (``None``: not exactly ``count`` valid values; the caller takes the reference path).
    ``may_repeat``: :func:`may_repeat_keys` of ``body``, from a scan the caller made."""
    if decoder is not None and not (may_repeat or partial(may_repeat_keys, body))():
        try:
            values = decoder.decode(body)
        except Exception:  # noqa: BLE001 - any rejection: the standard library decides
            values = None
        if values is not None and len(values) == count:
            return values, True
    try:
        values = json.loads(body.decode("utf-8"), object_pairs_hook=unique_keys)
    except (UnicodeDecodeError, ValueError, RecursionError):  # a repeated key too
        return None
    return (values, False) if len(values) == count else None


# -- one JSON array ---------------------------------------------------------------------------


def _array_chunks(fh, path: Path | str, decoder: Any) -> Iterator[JsonChunk]:
    """Elements of the file's top-level array, a chunk of whole elements at a time."""
    buf = fh.read(_CHUNK)
    offset = 0  # file offset of buf[0]
    if buf.startswith(_BOM):
        buf, offset = buf[len(_BOM) :], len(_BOM)
    open_at = buf.find(b"[")
    if open_at < 0 or buf[:open_at].strip(b" \t\n\r"):
        yield from _reference_array(path, 0, 1, None)  # odd whitespace before the '['
        return
    at = open_at + 1  # first byte after the '[' or the ',' before the next element
    line = 1 + buf.count(b"\n", 0, at)  # line number of buf[at]
    first = True
    eof = False
    want = _CHUNK
    while True:
        scan = _scan_array(buf, at, first)
        if scan is None:
            if eof or len(buf) - at > MAX_LINE_CHARS:
                # the end, or an element too long to buffer here: the reference stream reads
                # on and says what is wrong (too_long past MAX_LINE_CHARS characters)
                yield from _reference_array(path, offset + at, line, _resume(first))
                return
            more = fh.read(want)
            if not more:
                eof = True
            else:
                buf = buf[at:] + more
                offset += at
                at = 0
                want = min(want * 2, 64 * _CHUNK)
            continue
        starts, ends, closed, newlines, may_repeat = scan
        if starts.shape[0]:
            lines = (line + newlines(starts)).tolist()
            body = b"[" + buf[int(starts[0]) : int(ends[-1])] + b"]"
            values = _decode(body, len(lines), decoder, may_repeat)
            if values is None:
                yield from _reference_array(path, offset + at, line, _resume(first))
                return
            yield JsonChunk(lines, values[0], values[1])
            first = False
        stop = closed if closed is not None else int(ends[-1]) + 1
        line += int(newlines(np.array([stop]))[0])
        at = stop
        if closed is not None:
            rest = buf[closed + 1 :]
            while not rest.strip(b" \t\n\r"):
                more = fh.read(want)
                if not more:
                    return
                rest = more
            yield from _reference_array(path, offset + at, line, "closed")  # extra data
            return
        want = _CHUNK


def _scan_array(buf: bytes, at: int, first: bool):
    """Top-level elements that end within ``buf``, scanning from ``at`` (just after the
    ``[`` or a ``,``, outside any string).

    Returns ``(element starts, element ends, position of the closing ']' or None, a function
    counting the newlines from at to given positions, a function telling whether a key might
    be given twice in those elements: :func:`may_repeat_keys` from the marks found here)``,
    or ``None`` when no element (and no closing ``]``) ends in ``buf`` or the text is not a
    well-formed array here (the caller then reads more, or takes the reference path).
    """
    arr = np.frombuffer(buf, dtype=np.uint8)[at:]
    quotes = np.flatnonzero(arr == 34)
    if quotes.shape[0]:
        quotes = quotes[~_escaped(arr, quotes)]
    hits = arr == 44
    for byte in b":[]{}":
        hits |= arr == byte
    marks = np.flatnonzero(hits)
    quote_index = np.searchsorted(quotes, marks)  # (the unescaped quotes before each mark)
    outside = np.flatnonzero((quote_index & 1) == 0)
    if not outside.shape[0]:
        return None
    marks, quote_index = marks[outside], quote_index[outside]
    kinds = arr[marks]
    depth = np.cumsum(_DEPTH[kinds], dtype=np.int32)  # after each mark, relative to the array
    ends_at = np.flatnonzero(depth < 0)
    close = int(ends_at[0]) if ends_at.shape[0] else None
    if close is not None:
        if kinds[close] != ord("]"):
            return None
        marks, kinds, depth = marks[: close + 1], kinds[: close + 1], depth[: close + 1]
        quote_index = quote_index[: close + 1]
    top = np.flatnonzero((kinds == ord(",")) & (depth == 0))
    bounds = marks[top]
    if close is not None:
        bounds = np.append(bounds, marks[close])
    if not bounds.shape[0]:
        return None
    starts = np.empty_like(bounds)
    starts[:1] = 0
    starts[1:] = bounds[:-1] + 1
    # Each element starts at its first non-space byte; a blank one is an error (or "[]").
    limit = arr.shape[0] - 1
    for _ in range(16):
        space = _JSON_SPACE[arr[np.minimum(starts, limit)]] & (starts < bounds)
        if not space.any():
            break
        starts[space] += 1
    else:  # deep indentation: look the first non-space byte up
        solid = np.flatnonzero(~_JSON_SPACE[arr])
        starts = np.minimum(
            solid[np.minimum(np.searchsorted(solid, starts), solid.shape[0] - 1)], bounds
        )
    blank = starts >= bounds
    if blank.any():
        if not (first and close is not None and bounds.shape[0] == 1):
            return None  # "[1,]", "[,1]", "[1,,2]": the reference words the error
        starts, bounds = starts[:0], bounds[:0]
    closed = at + int(marks[close]) if close is not None else None

    found: list[np.ndarray] = []  # the newlines' positions, once asked for

    def newlines(positions: np.ndarray) -> np.ndarray:
        """Newlines between ``at`` and each of ``positions``."""
        if not found:
            found.append(np.flatnonzero(arr == 10))
        return np.searchsorted(found[0], positions - at)

    def may_repeat() -> bool:
        """:func:`may_repeat_keys` for the elements found, from the marks at hand."""
        cut = int(np.searchsorted(marks, bounds[-1]))
        return _keys_may_repeat(
            buf, at, marks[:cut], kinds[:cut], depth[:cut], quote_index[:cut], quotes
        )

    return starts + at, bounds + at, closed, newlines, may_repeat


def _escaped(arr: np.ndarray, quotes: np.ndarray, slashes: np.ndarray | None = None) -> np.ndarray:
    """Which quotes follow an odd run of backslashes (``slashes``: where the backslashes
    are, when the caller has them)."""
    out = np.zeros(quotes.shape[0], dtype=bool)
    maybe = np.flatnonzero(arr[np.maximum(quotes - 1, 0)] == 92) if quotes.shape[0] else quotes
    maybe = maybe[quotes[maybe] > 0]
    if not maybe.shape[0]:
        return out
    if slashes is None:
        slashes = np.flatnonzero(arr == 92)
    run_start = np.ones(slashes.shape[0], dtype=bool)
    run_start[1:] = slashes[1:] != slashes[:-1] + 1
    first = slashes[np.maximum.accumulate(np.where(run_start, np.arange(slashes.shape[0]), 0))]
    last = np.searchsorted(slashes, quotes[maybe] - 1)  # the backslash right before
    out[maybe] = (quotes[maybe] - first[last]) % 2 == 1
    return out


def _resume(first: bool) -> str:
    return "first" if first else "comma"


def _unreadable(path: Path | str, line: int, exc: Exception) -> InvalidInputError:
    """A value the decoder gives up on: nested too deeply, or a number too long."""
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


def _reference_array(
    path: Path | str, offset: int, line: int, resume: str | None
) -> Iterator[JsonChunk]:
    """The rest of an array through the reference stream, from byte ``offset``: the file's
    start (``resume`` None), just after the ``[`` ("first"), just after a ``,`` ("comma"),
    or at the closing ``]`` ("closed")."""
    with open_text(path) as fh:
        try:
            if resume is not None:
                fh.buffer.seek(offset)
                fh = _Rebased(fh)
            stream = _ArrayStream(fh, path, line=line, resume=resume)
            lines, values = [], []
            try:
                for n, value in stream:
                    lines.append(n)
                    values.append(value)
                    if len(values) >= 1024:
                        yield JsonChunk(lines, values, False)
                        lines, values = [], []
            except (InvalidInputError, UnicodeDecodeError):
                if values:  # the records before the error come first, as in the reference
                    yield JsonChunk(lines, values, False)
                raise
            if values:
                yield JsonChunk(lines, values, False)
        except UnicodeDecodeError as exc:
            raise not_utf8(path, exc) from None


class _Rebased:
    """A text view of a file from a byte offset on (universal newlines, no BOM handling)."""

    def __init__(self, fh) -> None:
        import codecs

        self.raw = fh.buffer
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.cr = False

    def read(self, n: int) -> str:
        data = self.raw.read(n)
        text = self.decoder.decode(data, final=not data)
        if self.cr and text.startswith("\n"):
            text = text[1:]
        self.cr = text.endswith("\r")
        return text.replace("\r\n", "\n").replace("\r", "\n")


class _ArrayStream:
    """Elements of a top-level ``[...]``, decoded one at a time from a sliding buffer."""

    def __init__(self, fh, path: Path | str, *, line: int = 1, resume: str | None = None) -> None:
        self.fh, self.buf, self.pos, self.path = fh, "", 0, path
        self.line = line  # line number of buf[0]
        self.seen, self.seen_line = 0, line  # line number of buf[seen], counted forwards
        self.eof = False
        self.chunk = _CHUNK
        self.decoder = json.JSONDecoder(object_pairs_hook=unique_keys)
        self.resume = resume

    def line_at(self, pos: int) -> int:
        if pos < self.seen:
            self.seen, self.seen_line = 0, self.line
        self.seen_line += self.buf.count("\n", self.seen, pos)
        self.seen = pos
        return self.seen_line

    def _more(self) -> bool:
        if self.eof:
            return False
        data = self.fh.read(self.chunk)
        if not data:  # the buffer stays as it is: an error's position still points into it
            self.eof = True
            return False
        self.line = self.line_at(self.pos)
        self.buf, self.pos = self.buf[self.pos :], 0
        self.seen, self.seen_line = 0, self.line
        self.chunk = min(self.chunk * 2, 64 * _CHUNK)  # big elements: fewer re-parses
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
        first = True
        if self.resume is None:
            self._peek()
            self.pos += 1  # the "["
        elif self.resume == "closed":
            first = False
        elif self.resume == "comma":
            first = False
            self._peek()
            yield self.line_at(self.pos), self._value()
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
