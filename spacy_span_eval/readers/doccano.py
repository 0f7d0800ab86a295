"""doccano's JSONL export for sequence labelling.

``{"id": 1, "text": "...", "label": [[start, end, "LABEL"], ...]}`` (character offsets), the
same lists under ``"entities"``, or the export with relations: ``"entities":
[{"id": 3, "start_offset": 0, "end_offset": 5, "label": "PER"}, ...]`` and ``"relations"``,
which are counted and left out. ``id`` pairs gold and predictions. Spans under any other key
(or under both ``label`` and ``entities``) are refused, never read as nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from ..engine.spans import Span
from ..errors import InvalidInputError
from .base import Record, char_record, empty_input, note, offset, record_id
from .jsonio import iter_json_values, plain_decoder
from .options import ReadOptions
from .spanlike import span_like
from .unread_spans import refuse_shape, refuse_unread_spans

__all__ = ["READ_KEYS", "read_doccano", "triple"]

#: The keys a doccano record is read from.
READ_KEYS = ("text", "data", "id", "label", "entities", "relations")


def read_doccano(path: Path | str, options: ReadOptions, notes: Counter) -> Iterator[Record]:
    """One char-unit record per doccano line."""
    name = Path(path).name
    seen = 0
    for n, obj in iter_json_values(path, plain_decoder()):
        seen += 1
        where = f"{path} line {n}"
        if not isinstance(obj, dict):
            raise refuse_shape(
                obj, where, "doccano", f"expected a JSON object, found {type(obj).__name__}"
            )
        refuse_unread_spans(obj, READ_KEYS, where, "doccano")
        text = obj.get("text", obj.get("data"))
        if not isinstance(text, str):
            raise refuse_shape(obj, where, "doccano", "field 'text' is missing or not a string")
        doc_id = record_id(obj.get("id"), "id", where)
        key = "entities" if "entities" in obj else "label"
        if key == "entities" and span_like(obj.get("label")):
            raise InvalidInputError(
                f"{where}: both 'label' and 'entities' hold spans; a doccano record has one"
            )
        raw = obj.get(key) or []
        if not isinstance(raw, list):
            raise InvalidInputError(f"{where}: field {key!r} must be a list of spans")
        spans = [_span(e, i, key, where) for i, e in enumerate(raw)]
        relations = obj.get("relations")
        if isinstance(relations, list) and relations:
            note(notes, "relations ignored", len(relations))
        yield char_record(
            where,
            doc_id if doc_id is not None else f"{name}:{n}",
            doc_id,
            text,
            spans,
            options.side,
        )
    if not seen:
        raise empty_input(path, "records")


def _span(raw: object, i: int, key: str, where: str) -> Span:
    if isinstance(raw, list):
        return triple(raw, f"{key} #{i}", where)
    if not isinstance(raw, dict) or not isinstance(raw.get("label"), str):
        raise InvalidInputError(
            f'{where}: {key} #{i} must be [start, end, "LABEL"] or an object with '
            f"'start_offset', 'end_offset' and 'label', not {raw!r}"
        )
    i_name = f"{key} #{i}"
    if "start_offset" not in raw and "start" in raw:
        return Span(
            offset(raw.get("start"), f"{i_name} start", where),
            offset(raw.get("end"), f"{i_name} end", where),
            raw["label"],
        )
    return Span(
        offset(raw.get("start_offset"), f"{i_name} start_offset", where),
        offset(raw.get("end_offset"), f"{i_name} end_offset", where),
        raw["label"],
    )


def triple(raw: object, what: str, where: str) -> Span:
    """A ``[start, end, "LABEL"]`` list as a span (doccano, spaCy's training tuples)."""
    if not isinstance(raw, list) or len(raw) != 3 or not isinstance(raw[2], str):
        raise InvalidInputError(f'{where}: {what} must be [start, end, "LABEL"], not {raw!r}')
    return Span(
        offset(raw[0], f"{what} start", where), offset(raw[1], f"{what} end", where), raw[2]
    )
