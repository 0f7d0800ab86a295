"""Streaming JSON input: JSON Lines, or one top-level JSON array read element by element.

Files are read in chunks of whole records. For each chunk the line number of every record is
found once from the chunk's bytes: for JSON Lines the non-blank lines, for an array the
top-level elements (:func:`.json_scan.scan_array`, with numpy). The chunk's records are then
decoded in one call: by :mod:`msgspec` into typed structures when the caller gives a decoder
(see :mod:`.jsonl`), else by the standard library. Memory follows the chunk, not the file.

Anything unusual in a chunk (invalid JSON, a value the typed decoder rejects, a stray ``\\r``
line end) sends that chunk, and for an array the rest of the file, through the reference road
(:mod:`.json_reference`), whose errors carry the line and column that go into the message.

A key given twice in one object is an error (semantics §7). The standard library's decoder
refuses it (:func:`unique_keys`); :mod:`msgspec` does not, so a chunk goes to the typed
decoder only when :func:`.json_scan.may_repeat_keys` finds no two keys of one object that
might be the same, and else takes the standard library's road, which decides.
"""

from __future__ import annotations

import json
from codecs import BOM_UTF8
from collections.abc import Callable, Iterator
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from ..errors import InvalidInputError
from .base import (
    MAX_LINE_CHARS,
    long_line_at,
    long_line_error,
    not_utf8,
    open_text,
    record_id,
    unfinished_utf8,
    whole_lines,
    without_bom,
)
from .detect import first_line_array
from .json_reference import (
    ArrayStream,
    DuplicateKeyError,
    JsonChunk,
    in_chunks,
    lone_surrogate,
    reference_lines,
    repeated_key_error,
    unique_keys,
)
from .json_scan import may_repeat_keys, scan_array
from .ranges import ByteRange

if TYPE_CHECKING:
    from msgspec.json import Decoder

    from .options import ReadingOptions

__all__ = [  # (the reference road's names that the settings and tuple readers take from here)
    "DuplicateKeyError",
    "JsonChunk",
    "field_value",
    "is_json_array",
    "iter_json_chunks",
    "iter_json_values",
    "json_fields",
    "lone_surrogate",
    "plain_decoder",
    "repeated_key_error",
    "unique_keys",
]

_CHUNK = 1 << 22
# str.strip() whitespace among ASCII bytes (a blank JSON line is skipped by that rule).
_STRIP_BYTES = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


def iter_json_values(
    path: Path | str, decoder: Decoder[Any] | None = None
) -> Iterator[tuple[int, object]]:
    """Each value of a JSON Lines file, or each element of a file holding one JSON array.

    ``decoder``: as for :func:`iter_json_chunks`; with :func:`plain_decoder` the values are
    the same plain JSON values, decoded by :mod:`msgspec` where it can."""
    for chunk in iter_json_chunks(path, decoder):
        yield from zip(chunk.lines, chunk.values, strict=True)


def field_value(value: object, field: str) -> object:
    """``field`` of a JSON value: its key, else a dotted path (``meta.source``,
    ``data.source``); ``None`` where there is none."""
    if not isinstance(value, dict):
        return None
    if field in value:
        return value[field]
    head, dot, rest = field.partition(".")
    return field_value(value.get(head), rest) if dot else None


def json_fields(
    path: Path,
    field: str,
    options: ReadingOptions | None = None,
    doc_id: Callable[[Any, str], str | None] = lambda obj, where: record_id(
        obj.get("id"), "id", where
    ),
) -> Iterator[tuple[str, object]]:
    """The slice fields of a JSON format's records (a format's ``fields``), each named by
    ``doc_id`` (its ``id``), else ``FILE:LINE``."""
    for n, obj in iter_json_values(path, plain_decoder()):
        name = doc_id(obj, f"{path} line {n}") if isinstance(obj, dict) else None
        yield name or f"{path.name}:{n}", field_value(obj, field)


@cache
def plain_decoder(objects: bool = True) -> Decoder[list[Any]]:
    """A :mod:`msgspec` decoder of a chunk of records as plain JSON values: objects (dicts
    with string keys) when ``objects``, else any value. A chunk it rejects (a record of
    another type, ``NaN``, a lone surrogate, a number out of range) is decoded by the
    standard library, whose values and errors are the reference; a possible repeated key
    sends the chunk there first (see the module docstring), so the values are the same
    either way."""
    import msgspec  # (here: the settings files read through this module need no msgspec)

    return msgspec.json.Decoder(list[dict[str, Any]] if objects else list[Any])


def iter_json_chunks(
    path: Path | str, decoder: Decoder[Any] | None = None, part: ByteRange | None = None
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
        elif _holds_array(fh):
            yield from _array_chunks(fh, path, decoder)
        else:
            yield from _line_chunks(fh, path, decoder)


def is_json_array(path: Path | str) -> bool:
    """Whether the file holds one JSON array (else it is read as JSON Lines)."""
    with open(path, "rb") as fh:
        return _holds_array(fh)


#: The longest first line looked at to tell JSON Lines of arrays from one JSON array.
_FIRST_LINE = 1 << 20


def _holds_array(fh: BinaryIO) -> bool:
    """Whether the file holds one JSON array: it starts with ``[`` and is not JSON Lines of
    arrays (see :func:`first_line_array`). Leaves the file at its start."""
    if _first_char(fh) != "[":
        return False
    head = fh.read(_FIRST_LINE)
    fh.seek(0)
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        text = head[: exc.start].decode("utf-8-sig", errors="replace")
    return first_line_array(text) is None


def _first_char(fh: BinaryIO) -> str:
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
    fh: BinaryIO, path: Path | str, decoder: Decoder[Any] | None, part: ByteRange | None = None
) -> Iterator[JsonChunk]:
    """The file's JSON lines (only those of ``part``), a chunk of whole lines at a time."""
    part = part or ByteRange(0, None, 1)
    line = part.line  # line number of the chunk's first line
    left = None if part.stop is None else part.stop - part.start
    pending = b""
    first = part.start == 0
    fh.seek(part.start)
    while True:
        data = fh.read(_CHUNK if left is None else min(_CHUNK, left))
        if left is not None:
            left -= len(data)
        end = len(data) < _CHUNK or left == 0  # a short read is the end of the file
        block = pending + data
        if first:
            first = False
            block = without_bom(block, len(data) < _CHUNK)[0]
        if len(block) > MAX_LINE_CHARS and (long := long_line_at(block)) is not None:
            # As the reference (bounded_lines): the lines before it, then an error naming it.
            yield from _lines_of(block[:long], line, path, decoder)
            raise long_line_error(path, block, long, line + block.count(b"\n", 0, long))()
        tail = b""
        if not end:
            cut = block.rfind(b"\n") + 1
            block, pending = block[:cut], block[cut:]
        elif cut := unfinished_utf8(block):  # text mode reports it after whole lines
            block, tail = block[: whole_lines(block[:-cut])], block[-cut:]
        yield from _lines_of(block, line, path, decoder)
        line += block.count(b"\n")
        if tail:
            try:
                tail.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise not_utf8(path, exc) from None
        if end:
            return


def _lines_of(
    chunk: bytes, line: int, path: Path | str, decoder: Decoder[Any] | None
) -> Iterator[JsonChunk]:
    """The non-blank lines of ``chunk`` (whole lines, the first numbered ``line``)."""
    if not chunk:
        return
    if b"\r" in chunk and chunk.count(b"\r") != chunk.count(b"\r\n"):
        yield from reference_lines(chunk, line, path)  # a lone \r ends a line in text mode
        return
    rows = chunk.split(b"\n")
    if chunk.endswith(b"\n"):
        rows.pop()
    filled = [(n, row) for n, row in enumerate(rows, line) if row.strip(_STRIP_BYTES)]
    if not filled:
        return
    lines = [n for n, _ in filled]
    body = b"[" + b",".join(row for _, row in filled) + b"]"
    values = _decode(body, len(lines), decoder)
    if values is None:
        yield from reference_lines(chunk, line, path)
        return
    yield JsonChunk(lines, values[0], values[1])


def _decode(
    body: bytes,
    count: int,
    decoder: Decoder[Any] | None,
    may_repeat: Callable[[], bool] | None = None,
) -> tuple[list[Any], bool] | None:
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


def _array_chunks(
    fh: BinaryIO, path: Path | str, decoder: Decoder[Any] | None
) -> Iterator[JsonChunk]:
    """Elements of the file's top-level array, a chunk of whole elements at a time."""
    buf = fh.read(_CHUNK)
    offset = 0  # file offset of buf[0]
    if buf.startswith(BOM_UTF8):
        buf, offset = buf[len(BOM_UTF8) :], len(BOM_UTF8)
    open_at = buf.find(b"[")
    if open_at < 0 or buf[:open_at].strip(b" \t\n\r"):
        yield from _reference_array(path, 0, 1, True)  # odd whitespace before the '['
        return
    at = open_at + 1  # first byte after the '[' or the ',' before the next element
    line = 1 + buf.count(b"\n", 0, at)  # line number of buf[at]
    first = True
    eof = False
    want = _CHUNK
    while True:
        scan = scan_array(buf, at, first)
        if scan is None:
            if eof or len(buf) - at > MAX_LINE_CHARS:
                # the end, or an element too long to buffer here: the reference stream reads
                # on and says what is wrong (too_long past MAX_LINE_CHARS characters)
                yield from _reference_array(path, offset + at - 1, line, first)
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
                yield from _reference_array(path, offset + at - 1, line, first)
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
            yield from _reference_array(path, offset + at, line, False)  # extra data
            return
        want = _CHUNK


def _reference_array(path: Path | str, offset: int, line: int, first: bool) -> Iterator[JsonChunk]:
    """The rest of an array through the reference stream, from byte ``offset``: the ``[``
    (``first``), or a ``,`` or the ``]`` after an element, on ``line``."""
    with open_text(path) as fh:
        fh.seek(offset)  # (an ASCII byte's offset, where no character is cut: a text position)
        stream = ArrayStream(
            fh.read, path, line=line, first=first, chunk=_CHUNK, limit=MAX_LINE_CHARS
        )
        yield from in_chunks(iter(stream), path)
