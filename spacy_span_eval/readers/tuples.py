"""spaCy's training tuples, and records whose spans are ``[start, end, label]`` lists.

- ``["text", {"entities": [[0, 12, "PER"], ...]}]``: the tuple spaCy v2's ``train`` took, one
  a line (JSON Lines) or all in one JSON array; the dict may carry ``"id"`` (else the record
  is paired by position). Other keys of the dict (``cats``, ``links``) are counted and left
  out; spans under any of them are refused.
- ``{"text": "...", "spans": [[0, 12, "PER"], ...], "id": ...}``: the generic record with
  its spans as lists, or under ``entities`` (a record with both is refused).

Character offsets, ``end`` exclusive.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from ..errors import InvalidInputError
from .base import Record, json_record, note, numbered, record_id
from .doccano import span_key, span_list, triple
from .jsonio import iter_json_values, lone_surrogate, plain_decoder
from .options import ReadingOptions
from .unread_spans import refuse_shape, refuse_unread_spans, text_field

__all__ = ["read_tuples"]

_SPAN_KEYS = ("spans", "entities")


def read_tuples(path: Path | str, options: ReadingOptions, notes: Counter[str]) -> Iterator[Record]:
    """One char-unit record per training tuple or ``text``/``spans`` record."""
    for n, obj, where in numbered(iter_json_values(path, plain_decoder(objects=False)), path):
        if isinstance(obj, list) and len(obj) == 2 and isinstance(obj[0], str):
            text, annotations = obj
            if lone_surrogate(text):  # (an array's strings: no object hook looked at them)
                raise InvalidInputError(
                    f"{where}: invalid JSON: the text holds a lone surrogate escape "
                    "(\\ud800-\\udfff without its pair), which is no character"
                )
            if not isinstance(annotations, dict):
                raise InvalidInputError(
                    f'{where}: a training tuple is ["text", {{"entities": [...]}}], '
                    f"and its second item is {type(annotations).__name__}"
                )
            refuse_unread_spans(annotations, ("entities", "id"), where, "tuples")
            for key, value in annotations.items():
                if key not in ("entities", "id") and value:
                    note(notes, f"{key} ignored")
            record, key = annotations, "entities"
        elif isinstance(obj, dict):
            text = text_field(obj, where, "tuples")
            refuse_unread_spans(obj, ("text", "id", *_SPAN_KEYS), where, "tuples")
            record, key = obj, span_key(obj, _SPAN_KEYS, where, "tuples")
        else:
            raise refuse_shape(
                obj,
                where,
                "tuples",
                f'expected ["text", {{"entities": [...]}}] or an object with "text", '
                f"found {type(obj).__name__}",
            )
        spans = [
            triple(s, f"{key} #{i}", where) for i, s in enumerate(span_list(record, key, where))
        ]
        doc_id = record_id(record.get("id"), "id", where)
        yield json_record(path, n, where, doc_id, text, spans, options.side)
