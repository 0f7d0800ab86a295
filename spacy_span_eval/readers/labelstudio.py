"""Label Studio's JSON export: a list of tasks, each with ``data``, ``annotations`` and
``predictions``.

- The text is ``data["text"]`` (else the task's only string in ``data``).
- Spans are the results of type ``labels`` (``value``: ``start``, ``end``, ``labels``); a
  region with several labels is one span per label. Other results (choices, relations, text
  areas) are counted and left out.
- **Gold** is a task's first annotation that was not cancelled. **Predictions** are its first
  ``predictions`` entry (a task without one predicted nothing), so one export read as both
  sides scores the pre-annotations against what annotators made of them. A task without a
  completed annotation is not gold: skipped and counted on both sides, so the sides still pair.
- The task ``id`` pairs gold and predictions.
- Offsets: Label Studio counts UTF-16 code units (JavaScript strings). A text with characters
  beyond the BMP (emoji) is converted to Python's code points; plain text is unchanged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path

from ..engine.spans import Span
from ..errors import InvalidInputError
from .base import Record, char_record, empty_input, note, offset, record_id
from .jsonio import iter_json_values
from .options import ReadOptions

__all__ = ["read_labelstudio"]


def read_labelstudio(path: Path | str, options: ReadOptions, notes: Counter) -> Iterator[Record]:
    """One char-unit record per task with a completed annotation."""
    name = Path(path).name
    seen = 0
    for n, task in iter_json_values(path):
        where = f"{path} task {n}"
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
            raise InvalidInputError(f"{where}: a Label Studio task is an object with 'data'")
        annotations = [
            a
            for a in task.get("annotations") or []
            if isinstance(a, dict) and not a.get("was_cancelled")
        ]
        if not annotations:
            note(notes, "tasks without a completed annotation skipped")
            continue
        seen += 1
        doc_id = record_id(task.get("id"), "id", where)
        where = f"{path} task {doc_id if doc_id is not None else n}"
        text = _text(task["data"], where)
        if options.side == "predicted":
            predictions = [p for p in task.get("predictions") or [] if isinstance(p, dict)]
            if not predictions:
                note(notes, "tasks without predictions (nothing predicted)")
            results = predictions[0].get("result") if predictions else []
        else:
            results = annotations[0].get("result")
            if len(annotations) > 1:
                note(notes, "further annotations of a task ignored", len(annotations) - 1)
        spans = list(_spans(results or [], text, where, notes))
        yield char_record(
            where,
            doc_id if doc_id is not None else f"{name}:{n}",
            doc_id,
            text,
            spans,
            options.side,
        )
    if not seen:
        raise empty_input(path, "tasks with a completed annotation")


def _text(data: dict, where: str) -> str:
    if isinstance(data.get("text"), str):
        return data["text"]
    strings = [v for v in data.values() if isinstance(v, str)]
    if len(strings) != 1:
        raise InvalidInputError(
            f"{where}: no 'text' in the task's data, and not exactly one string to take instead"
        )
    return strings[0]


def _spans(results: list, text: str, where: str, notes: Counter) -> Iterator[Span]:
    to_index = _utf16_index(text)
    for i, result in enumerate(results):
        if not isinstance(result, dict) or result.get("type") != "labels":
            kind = result.get("type") if isinstance(result, dict) else None
            note(notes, f"{kind or 'untyped'} results ignored")
            continue
        value = result.get("value") or {}
        labels = value.get("labels")
        if not isinstance(labels, list) or not labels:
            raise InvalidInputError(f"{where}: result #{i} has no labels: {value!r}")
        start = to_index(offset(value.get("start"), f"result #{i} start", where))
        end = to_index(offset(value.get("end"), f"result #{i} end", where))
        for label in labels:
            yield Span(start, end, label)


def _utf16_index(text: str):
    """UTF-16 offset -> code point offset for ``text`` (identity for BMP-only text)."""
    if all(ord(c) < 0x10000 for c in text):
        return lambda i: i
    ends = list(accumulate(2 if ord(c) >= 0x10000 else 1 for c in text))
    positions = {0: 0, **{units: k + 1 for k, units in enumerate(ends)}}
    return lambda i: positions.get(i, i)
