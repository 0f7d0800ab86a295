"""Label Studio's JSON exports: the full export (a list of tasks, each with ``data``,
``annotations`` and ``predictions``) and the JSON-MIN export (one flat record per task).

Full export:

- The text is ``data["text"]`` (else the task's only string in ``data``).
- Spans are the results of type ``labels`` (``value``: ``start``, ``end``, ``labels``); a
  region with several labels is one span per label. Other results (choices, relations, text
  areas) are counted and left out.
- **Gold** is the task's annotation marked ``ground_truth`` (the reviewer's star) when one is,
  else its most recent completed one: cancelled annotations (``was_cancelled``) never count,
  and "most recent" is the latest ``updated_at`` (else ``created_at``, else the highest
  ``id``, else the last in the file). The other completed annotations and the cancelled ones
  are counted in the notes. A task without a completed annotation is not gold: skipped and
  counted on both sides, so the sides still pair.
- **Predictions** are the task's ``predictions`` entry of one ``model_version``:
  ``--model-version`` names it; without it a file whose predictions come from several versions
  is refused, naming them. Predictions of other versions are counted. One export read as both
  sides scores the pre-annotations against what annotators made of them; what one side does
  not read (the predictions on the gold side, the annotations on the predicted side) is
  counted.
- The task ``id`` pairs gold and predictions.

JSON-MIN (``[{"id": 1, "text": "...", "label": [{"start": 0, "end": 5, "text": "Alice",
"labels": ["PER"]}], "annotator": ...}]``): the record's text is ``text``; its regions are the
list of ``start``/``end``/``labels`` objects under the key the labeling config names (often
``label``); two such keys are refused (which one is the span layer is not ours to guess). It
holds one annotation per task, read as either side.

Offsets: Label Studio counts UTF-16 code units (JavaScript strings). A text with characters
beyond the BMP (emoji) is converted to Python's code points; plain text is unchanged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from itertools import accumulate
from pathlib import Path
from typing import Any

from ..engine.spans import Span
from ..errors import InvalidInputError
from .base import Record, empty_input, json_record, note, numbered, offset, record_id, span_score
from .detect import min_span_keys
from .jsonio import iter_json_values, plain_decoder
from .options import ReadingOptions
from .unread_spans import json_object, refuse_shape, refuse_unread_spans, text_field

__all__ = ["gold_annotation", "read_labelstudio", "read_labelstudio_min"]

#: A JSON object as the decoder gives it.
JSON = dict[str, Any]

_TASK_KEYS = ("id", "data", "annotations", "predictions")
_NO_VERSION = "(no model_version)"


def read_labelstudio(
    path: Path | str, options: ReadingOptions, notes: Counter[str]
) -> Iterator[Record]:
    """One char-unit record per task with a completed annotation."""
    seen = 0
    versions: set[str] = set()
    for n, task in iter_json_values(path, plain_decoder()):
        where = f"{path} task {n}"
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
            raise refuse_shape(
                task, where, "labelstudio", "a Label Studio task is an object with 'data'"
            )
        refuse_unread_spans(task, _TASK_KEYS, where, "labelstudio")
        raw_annotations = [a for a in _list(task, "annotations", where) if isinstance(a, dict)]
        annotations = [a for a in raw_annotations if not a.get("was_cancelled")]
        predictions = [p for p in _list(task, "predictions", where) if isinstance(p, dict)]
        if not annotations:
            note(notes, "tasks without a completed annotation skipped")
            continue
        seen += 1
        doc_id = record_id(task.get("id"), "id", where)
        where = f"{path} task {doc_id if doc_id is not None else n}"
        text = _text(task["data"], where)
        score: object = None
        if options.side == "predicted":
            results, score = _predicted_results(
                len(raw_annotations), predictions, options.model_version, versions, path, notes
            )
        else:
            results = _gold_results(raw_annotations, annotations, len(predictions), notes)
        if results is not None and not isinstance(results, list):
            raise InvalidInputError(f"{where}: 'result' must be a list of results")
        spans = list(_spans(results or [], text, where, notes, score))
        yield json_record(path, n, where, doc_id, text, spans, options.side)
    if not seen:
        raise empty_input(path, "tasks with a completed annotation")
    if options.side == "predicted" and options.model_version not in (None, *versions):
        found = ", ".join(sorted(versions)) or "none"
        raise InvalidInputError(
            f"{path}: no predictions of --model-version {options.model_version!r} "
            f"(versions found: {found})"
        )


def _predicted_results(
    annotations: int,
    predictions: list[JSON],
    wanted: str | None,
    versions: set[str],
    path: Path | str,
    notes: Counter[str],
) -> tuple[object, object]:
    """The predicted side's results and the prediction's own score: the chosen prediction's
    (the annotations counted)."""
    note(notes, "annotations not read (the predicted side reads predictions)", annotations)
    chosen = _predictions(predictions, wanted, versions, path, notes)
    if chosen is None:
        note(notes, "tasks without predictions (nothing predicted)")
        return [], None
    return chosen.get("result"), chosen.get("score")


def _gold_results(
    raw: list[JSON], completed: list[JSON], predictions: int, notes: Counter[str]
) -> object:
    """The gold side's results: the gold annotation's (the others counted)."""
    note(notes, "cancelled annotations not used", len(raw) - len(completed))
    note(
        notes,
        "further completed annotations not used (gold: the ground_truth one, else the most recent)",
        len(completed) - 1,
    )
    note(notes, "predictions not read (the gold side reads annotations)", predictions)
    return gold_annotation(completed).get("result")


def _list(task: JSON, key: str, where: str) -> list[Any]:
    value = task.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidInputError(f"{where}: {key!r} must be a list, not {type(value).__name__}")
    return value


def gold_annotation(annotations: list[JSON]) -> JSON:
    """The gold one of a task's completed annotations: the ``ground_truth`` one when marked,
    else the most recent (``updated_at``, else ``created_at``, else ``id``, else the last)."""
    starred = [a for a in annotations if a.get("ground_truth") is True]
    pool = starred or annotations
    return max(enumerate(pool), key=lambda item: (_recency(item[1]), item[0]))[1]


def _recency(annotation: JSON) -> tuple[int, int | str]:
    for key in ("updated_at", "created_at"):
        value = annotation.get(key)
        if isinstance(value, str):
            try:
                stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                continue
            if stamp.tzinfo is not None:
                stamp = stamp.astimezone(UTC).replace(tzinfo=None)
            return (1, stamp.isoformat())
    value = annotation.get("id")
    if isinstance(value, int) and not isinstance(value, bool):
        return (0, value)
    return (0, -1)


def _version(prediction: JSON) -> str:
    value = prediction.get("model_version")
    return _NO_VERSION if value in (None, "") else str(value)


def _predictions(
    predictions: list[JSON],
    wanted: str | None,
    versions: set[str],
    path: Path | str,
    notes: Counter[str],
) -> JSON | None:
    """The task's prediction of the chosen model version (``None``: none of it)."""
    for p in predictions:
        versions.add(_version(p))
    if wanted is None and len(versions) > 1:
        found = _all_versions(path)
        raise InvalidInputError(
            f"{path}: predictions from {len(found)} model versions ({', '.join(sorted(found))}); "
            "choose one with --model-version"
        )
    mine = [p for p in predictions if wanted is None or _version(p) == wanted]
    note(notes, "predictions of other model versions not read", len(predictions) - len(mine))
    note(notes, "further predictions of the same model version not read", max(len(mine) - 1, 0))
    return mine[0] if mine else None


def _all_versions(path: Path | str) -> set[str]:
    """Every model version of the file's predictions (for the message that lists them)."""
    found: set[str] = set()
    for _, task in iter_json_values(path, plain_decoder()):
        if isinstance(task, dict):
            predictions = task.get("predictions")
            for p in predictions if isinstance(predictions, list) else []:
                if isinstance(p, dict):
                    found.add(_version(p))
    return found


def read_labelstudio_min(
    path: Path | str, options: ReadingOptions, notes: Counter[str]
) -> Iterator[Record]:
    """One char-unit record per JSON-MIN record."""
    values = iter_json_values(path, plain_decoder())
    for n, value, where in numbered(values, path, unit="record"):
        obj = json_object(value, where, "labelstudio-min")
        keys = min_span_keys(obj)
        if len(keys) > 1:
            raise InvalidInputError(
                f"{where}: {len(keys)} keys hold regions ({', '.join(map(repr, keys))}); "
                "a JSON-MIN record is read from one (export one labeling config's regions)"
            )
        refuse_unread_spans(obj, ("text", "id", *keys), where, "labelstudio-min")
        text = text_field(obj, where, "labelstudio-min")
        doc_id = record_id(obj.get("id"), "id", where)
        regions: list[Any] = obj[keys[0]] if keys else []
        results = [{"type": "labels", "value": r} for r in regions]
        spans = list(_spans(results, text, where, notes))
        yield json_record(path, n, where, doc_id, text, spans, options.side)


def _text(data: JSON, where: str) -> str:
    text = data.get("text")
    if isinstance(text, str):
        return text
    strings = [v for v in data.values() if isinstance(v, str)]
    if len(strings) != 1:
        raise InvalidInputError(
            f"{where}: no 'text' in the task's data, and not exactly one string to take instead"
        )
    return strings[0]


def _spans(
    results: list[Any], text: str, where: str, notes: Counter[str], score: object = None
) -> Iterator[Span]:
    """The results' spans; a result's ``score``, else ``score`` (the prediction's), is theirs."""
    to_index = _utf16_index(text)
    for i, result in enumerate(results):
        if not isinstance(result, dict) or result.get("type") != "labels":
            kind = result.get("type") if isinstance(result, dict) else None
            note(notes, f"{kind or 'untyped'} results ignored")
            continue
        value = result.get("value")
        if not isinstance(value, dict):
            raise InvalidInputError(f"{where}: result #{i} has no 'value' object: {value!r}")
        labels = value.get("labels")
        if not isinstance(labels, list) or not labels:
            raise InvalidInputError(f"{where}: result #{i} has no labels: {value!r}")
        if not all(isinstance(label, str) for label in labels):
            raise InvalidInputError(f"{where}: result #{i} labels must be strings: {labels!r}")
        start = to_index(offset(value.get("start"), f"result #{i} start", where))
        end = to_index(offset(value.get("end"), f"result #{i} end", where))
        own = result.get("score")
        confidence = span_score(score if own is None else own, f"result #{i}", where)
        for label in labels:
            yield Span(start, end, label, confidence)


def _utf16_index(text: str) -> Callable[[int], int]:
    """UTF-16 offset -> code point offset for ``text`` (identity for BMP-only text)."""
    if all(ord(c) < 0x10000 for c in text):
        return lambda i: i
    ends = list(accumulate(2 if ord(c) >= 0x10000 else 1 for c in text))
    positions = {0: 0, **{units: k + 1 for k, units in enumerate(ends)}}
    return lambda i: positions.get(i, i)
