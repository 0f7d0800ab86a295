"""Character-offset JSON records: the spaCy ecosystem's ``{"text", "spans": [...]}`` shape.

A record is ``{"text": str, "spans": [{"start": int, "end": int, "label": str}, ...]}`` with
an optional ``"id"`` (string or integer). ``spans`` may be left out (no entities). The file is
JSON Lines or one JSON array; either way it is streamed (see :mod:`.jsonio`). The same code
reads presidio-style records through a different :class:`Fields` (see :mod:`.presidio`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..engine.spans import Span
from ..errors import InvalidInputError
from .base import Record, checked_spans, empty_input
from .jsonio import iter_json_values


@dataclass(frozen=True)
class Fields:
    """Where a record format keeps its text, spans, offsets, label and id."""

    text: str = "text"
    spans: str = "spans"
    start: str = "start"
    end: str = "end"
    label: str = "label"
    id: str = "id"


JSONL_FIELDS = Fields()


def read_jsonl(path: Path | str, *, side: str = "gold") -> Iterator[Record]:
    """Yield one char-unit record per JSON record (``text`` / ``spans`` / optional ``id``).

    ``side`` ("gold" or "predicted") only words error messages.
    """
    return read_char_records(path, JSONL_FIELDS, side=side)


def read_char_records(path: Path | str, fields: Fields, *, side: str = "gold"
                      ) -> Iterator[Record]:
    """Records with a text and character-offset spans, in the layout ``fields`` names."""
    name = Path(path).name
    seen = 0
    for n, obj in iter_json_values(path):
        seen += 1
        where = f"{path} line {n}"
        if not isinstance(obj, dict):
            raise InvalidInputError(f"{where}: expected a JSON object, found "
                                    f"{type(obj).__name__}")
        text = obj.get(fields.text)
        if not isinstance(text, str):
            problem = "is missing" if text is None else f"is {type(text).__name__}, not a string"
            raise InvalidInputError(f"{where}: field {fields.text!r} {problem}")
        doc_id = _record_id(obj.get(fields.id), fields.id, where)
        raw_spans = obj.get(fields.spans)
        if raw_spans is None:
            raw_spans = []
        if not isinstance(raw_spans, list):
            raise InvalidInputError(f"{where}: field {fields.spans!r} must be a list of spans, "
                                    f"not {type(raw_spans).__name__}")
        spans = [_span(raw, i, fields, where) for i, raw in enumerate(raw_spans)]
        yield Record(
            where=where, key=doc_id if doc_id is not None else f"{name}:{n}", id=doc_id,
            spans=checked_spans(spans, length=len(text), where=where,
                                doc_id=doc_id if doc_id is not None else f"{name}:{n}",
                                side=side),
            text=text)
    if not seen:
        raise empty_input(path, "records")


def _record_id(value: object, key: str, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidInputError(f"{where}: field {key!r} must be a string or an integer, "
                                f"not {value!r}")
    return str(value)


def _span(raw: object, i: int, fields: Fields, where: str) -> Span:
    if not isinstance(raw, dict):
        raise InvalidInputError(f"{where}: span #{i} must be an object with "
                                f"{fields.start!r}, {fields.end!r} and {fields.label!r}, "
                                f"not {raw!r}")
    for key in (fields.start, fields.end, fields.label):
        if key not in raw:
            raise InvalidInputError(f"{where}: span #{i} has no {key!r}: {raw!r}")
    return Span(raw[fields.start], raw[fields.end], raw[fields.label])
