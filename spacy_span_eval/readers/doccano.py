"""doccano's JSONL export for sequence labelling.

``{"id": 1, "text": "...", "label": [[start, end, "LABEL"], ...]}`` (character offsets), or
the export with relations: ``"entities": [{"start_offset": 0, "end_offset": 5,
"label": "PER"}, ...]`` and ``"relations"``, which are counted and left out. ``id`` pairs gold
and predictions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from ..engine.spans import Span
from ..errors import InvalidInputError
from .base import Record, char_record, empty_input, note, offset, record_id
from .jsonio import iter_json_values
from .options import ReadOptions

__all__ = ["read_doccano"]


def read_doccano(path: Path | str, options: ReadOptions, notes: Counter) -> Iterator[Record]:
    """One char-unit record per doccano line."""
    name = Path(path).name
    seen = 0
    for n, obj in iter_json_values(path):
        seen += 1
        where = f"{path} line {n}"
        if not isinstance(obj, dict):
            raise InvalidInputError(f"{where}: expected a JSON object, found {type(obj).__name__}")
        text = obj.get("text", obj.get("data"))
        if not isinstance(text, str):
            raise InvalidInputError(f"{where}: field 'text' is missing or not a string")
        doc_id = record_id(obj.get("id"), "id", where)
        if "entities" in obj:
            spans = [_entity(e, i, where) for i, e in enumerate(obj["entities"] or [])]
        else:
            spans = [_labelled(e, i, where) for i, e in enumerate(obj.get("label") or [])]
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


def _labelled(raw: object, i: int, where: str) -> Span:
    if not isinstance(raw, list) or len(raw) != 3 or not isinstance(raw[2], str):
        raise InvalidInputError(f'{where}: label #{i} must be [start, end, "LABEL"], not {raw!r}')
    return Span(
        offset(raw[0], f"label #{i} start", where), offset(raw[1], f"label #{i} end", where), raw[2]
    )


def _entity(raw: object, i: int, where: str) -> Span:
    if not isinstance(raw, dict) or not isinstance(raw.get("label"), str):
        raise InvalidInputError(
            f"{where}: entity #{i} must be an object with 'start_offset', "
            f"'end_offset' and 'label', not {raw!r}"
        )
    return Span(
        offset(raw.get("start_offset"), f"entity #{i} start_offset", where),
        offset(raw.get("end_offset"), f"entity #{i} end_offset", where),
        raw["label"],
    )
