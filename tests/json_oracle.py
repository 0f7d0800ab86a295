"""The JSON readers as they were before the columnar path (commit 9afa9c9), kept as the test
oracle: the standard library's decoder, one value and one record at a time.

Only the imports changed, and one bug was fixed (in both readers): at the end of the file,
``_ArrayStream._more`` shifted its buffer before the caller turned a decoding error's
position (which points into the unshifted buffer) into a line number, so that line depended
on the buffer size. The quadratic line counting is left as it was (inputs here are small).

Rules added to the readers since, taken here from the package as the readers take them: a
record with spans under a key the reader does not read is refused (``spanlike``), a record of
another format's shape says which (``shape_hint``), and a file whose first line is a whole
array followed by another is JSON Lines of arrays (``detect.first_line_array``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from spacy_span_eval.engine.spans import Span
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers.base import Record, checked_spans, empty_input, not_utf8, open_text
from spacy_span_eval.readers.detect import first_line_array
from spacy_span_eval.readers.jsonl import refuse_unread_fields
from spacy_span_eval.readers.unread_spans import shape_hint

_CHUNK = 1 << 20
_SPACE = re.compile(r"[ \t\n\r]*")


def iter_json_values(path: Path | str) -> Iterator[tuple[int, object]]:
    """Each value of a JSON Lines file, or each element of a file holding one JSON array."""
    array = _first_char(path) == "[" and not _lines_of_arrays(path)
    with open_text(path) as fh:
        try:
            if array:
                yield from _ArrayStream(fh, path)
                return
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InvalidInputError(
                        f"{path} line {n}: invalid JSON: {exc.msg} (column {exc.colno})"
                    ) from None
                yield n, value
        except UnicodeDecodeError as exc:
            raise not_utf8(path, exc) from None


def _lines_of_arrays(path: Path | str) -> bool:
    head = Path(path).read_bytes()[: 1 << 20]
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        text = head[: exc.start].decode("utf-8-sig", errors="replace")
    return first_line_array(text) is not None


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
        data = self.fh.read(self.chunk)  # (fixed) read before shifting: see the module doc
        if not data:
            self.eof = True
            return False
        self.line += self.buf.count("\n", 0, self.pos)
        self.buf, self.pos = self.buf[self.pos :], 0
        self.chunk = min(self.chunk * 2, 64 * _CHUNK)  # big elements: fewer re-parses
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
                if self._more():
                    continue
                raise self._fail(exc.msg, exc.pos) from None
            if end == len(self.buf) and self._more():
                continue  # a number or literal may go on in the next chunk
            self.pos = end
            return value


@dataclass(frozen=True)
class Fields:
    """Where a record format keeps its text, spans, offsets, label and id."""

    text: str = "text"
    spans: str = "spans"
    start: str = "start"
    end: str = "end"
    label: str = "label"
    id: str = "id"
    format: str = "jsonl"


JSONL_FIELDS = Fields()


def read_jsonl(path: Path | str, *, side: str = "gold") -> Iterator[Record]:
    """Yield one char-unit record per JSON record (``text`` / ``spans`` / optional ``id``).

    ``side`` ("gold" or "predicted") only words error messages.
    """
    return read_char_records(path, JSONL_FIELDS, side=side)


def read_char_records(path: Path | str, fields: Fields, *, side: str = "gold") -> Iterator[Record]:
    """Records with a text and character-offset spans, in the layout ``fields`` names."""
    name = Path(path).name
    seen = 0
    for n, obj in iter_json_values(path):
        seen += 1
        where = f"{path} line {n}"
        if not isinstance(obj, dict):
            raise InvalidInputError(
                f"{where}: expected a JSON object, found {type(obj).__name__}"
                + shape_hint(obj, fields.format)
            )
        refuse_unread_fields(obj, where, fields)
        text = obj.get(fields.text)
        if not isinstance(text, str):
            problem = "is missing" if text is None else f"is {type(text).__name__}, not a string"
            raise InvalidInputError(
                f"{where}: field {fields.text!r} {problem}" + shape_hint(obj, fields.format)
            )
        doc_id = _record_id(obj.get(fields.id), fields.id, where)
        raw_spans = obj.get(fields.spans)
        if raw_spans is None:
            raw_spans = []
        if not isinstance(raw_spans, list):
            raise InvalidInputError(
                f"{where}: field {fields.spans!r} must be a list of spans, "
                f"not {type(raw_spans).__name__}"
            )
        spans = [_span(raw, i, fields, where) for i, raw in enumerate(raw_spans)]
        yield Record(
            where=where,
            key=doc_id if doc_id is not None else f"{name}:{n}",
            id=doc_id,
            spans=checked_spans(
                spans,
                length=len(text),
                where=where,
                doc_id=doc_id if doc_id is not None else f"{name}:{n}",
                side=side,
            ),
            text=text,
        )
    if not seen:
        raise empty_input(path, "records")


def _record_id(value: object, key: str, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidInputError(
            f"{where}: field {key!r} must be a string or an integer, not {value!r}"
        )
    return str(value)


def _span(raw: object, i: int, fields: Fields, where: str) -> Span:
    if not isinstance(raw, dict):
        raise InvalidInputError(
            f"{where}: span #{i} must be an object with "
            f"{fields.start!r}, {fields.end!r} and {fields.label!r}, "
            f"not {raw!r}"
        )
    for key in (fields.start, fields.end, fields.label):
        if key not in raw:
            raise InvalidInputError(f"{where}: span #{i} has no {key!r}: {raw!r}")
    return Span(raw[fields.start], raw[fields.end], raw[fields.label])
