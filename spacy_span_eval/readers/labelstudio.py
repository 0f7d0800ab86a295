"""Label Studio's JSON exports: the full export (a list of tasks, each with ``data``,
``annotations`` and ``predictions``) and the JSON-MIN export (one flat record per
annotation).

Full export:

- The text is ``data["text"]`` (else the task's only string in ``data``).
- Spans are the results of type ``labels`` (``value``: ``start``, ``end``, ``labels``); a
  region with several labels is one span per label. Other results (choices, relations, text
  areas) are counted and left out.
- **Gold** is the task's annotation marked ``ground_truth`` (the reviewer's star) when one is,
  else its most recent completed one: cancelled annotations (``was_cancelled``) never count,
  and "most recent" is the latest ``updated_at``, then ``created_at``, then the highest
  ``id``, then the last in the file. ``--annotator`` (a user's id or email, as
  ``completed_by`` gives them) chooses among that annotator's annotations. The other
  annotations are counted in the notes. A task without a completed annotation (of the
  annotator) is not gold: skipped and counted.
- **Predictions** are the task's newest ``predictions`` entry (``created_at``, then
  ``updated_at``, then ``id``) of one ``model_version``: ``--model-version`` names it (a
  missing key is ``(no model_version)``, not ``''``); without it a file whose predictions
  come from several versions is refused, naming them. Predictions of other versions are
  counted. Every task with a prediction or a completed annotation is read (without a
  prediction: nothing predicted). One export read as both sides scores the pre-annotations
  against what annotators made of them (``--pairs gold`` leaves out the predictions of
  tasks nobody annotated); what one side does not read is counted.
- The task ``id`` pairs gold and predictions.

JSON-MIN (``[{"id": 1, "text": "...", "label": [{"start": 0, "end": 5, "text": "Alice",
"labels": ["PER"]}], "annotator": "ann@example.com", "annotation_id": 7, "created_at": ...,
"updated_at": ...}]``): one record per completed annotation, a task's records in a row, and
for a task nobody annotated one record with ``annotation_id`` null. A task's records are read
as the full export's annotations (either side reads them: JSON-MIN has no predictions), so
both exports give the same documents. A record's regions are the list of
``start``/``end``/``labels`` objects under the key the labeling config names (often
``label``); two such keys are refused (which one is the span layer is not ours to guess).

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

__all__ = ["annotators", "gold_annotation", "read_labelstudio", "read_labelstudio_min"]

#: A JSON object as the decoder gives it.
JSON = dict[str, Any]

_TASK_KEYS = ("id", "data", "annotations", "predictions")
_NO_VERSION = "(no model_version)"


def read_labelstudio(
    path: Path | str, options: ReadingOptions, notes: Counter[str]
) -> Iterator[Record]:
    """One char-unit record per task read (see the module docstring)."""
    return _read_tasks(path, _full_tasks(path), options, notes, predictions=True)


def read_labelstudio_min(
    path: Path | str, options: ReadingOptions, notes: Counter[str]
) -> Iterator[Record]:
    """One char-unit record per task of a JSON-MIN export (its records regrouped as the
    full export's tasks, so the same annotation is read)."""
    return _read_tasks(path, _min_tasks(path), options, notes, predictions=False)


#: A task as the shared loop takes it: its number in the file, where it is, its id, itself.
Task = tuple[int, str, str | None, JSON]


def _read_tasks(
    path: Path | str,
    tasks: Iterator[Task],
    options: ReadingOptions,
    notes: Counter[str],
    *,
    predictions: bool,
) -> Iterator[Record]:
    """The tasks' records: gold reads the chosen annotation; the predicted side of a full
    export (``predictions``) the chosen prediction, every task that has one or a completed
    annotation; a JSON-MIN export's predicted side reads annotations, as gold."""
    seen, versions = 0, set[str]()
    reads_predictions = predictions and options.side == "predicted"
    dropped = getattr(notes, "dropped", None)  # (pairing's Notes: ids for its messages)
    for n, where, doc_id, task in tasks:
        raw = [a for a in _list(task, "annotations", where) if isinstance(a, dict)]
        completed = [a for a in raw if not a.get("was_cancelled")]
        offered = [p for p in _list(task, "predictions", where) if isinstance(p, dict)]
        if reads_predictions:
            note(notes, "annotations not read (the predicted side reads predictions)", len(raw))
            chosen = _prediction(offered, options.model_version, versions, path, notes)
            if chosen is None and not completed:
                note(notes, "tasks without a completed annotation or a prediction skipped")
                continue
            if chosen is None:
                note(notes, "tasks without predictions (nothing predicted)")
            results, score = (chosen or {}).get("result", []), (chosen or {}).get("score")
        else:
            note(notes, "predictions not read (the gold side reads annotations)", len(offered))
            mine = _of_annotator(raw, completed, options.annotator, notes)
            if not mine:
                note(notes, "tasks without a completed annotation skipped")
                if dropped is not None and doc_id is not None:
                    dropped[doc_id] = "unannotated"
                continue
            results, score = gold_annotation(mine).get("result"), None
        if results is not None and not isinstance(results, list):
            raise InvalidInputError(f"{where}: 'result' must be a list of results")
        seen += 1
        text = _text(task["data"], where)
        spans = list(_spans(results or [], text, where, notes, score))
        yield json_record(path, n, where, doc_id, text, spans, options.side)
    if not seen:
        by = "" if options.annotator is None else f" of annotator {options.annotator!r}"
        with_ = "a prediction or a completed annotation" if reads_predictions else ""
        raise empty_input(path, f"tasks with {with_ or 'a completed annotation' + by}")
    if reads_predictions and options.model_version not in (None, *versions):
        raise InvalidInputError(
            f"{path}: no predictions of --model-version {options.model_version!r} "
            f"(versions found: {_listed(versions)})"
        )


def _full_tasks(path: Path | str) -> Iterator[Task]:
    for n, task in iter_json_values(path, plain_decoder()):
        where = f"{path} line {n}"
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
            raise refuse_shape(
                task, where, "labelstudio", "a Label Studio task is an object with 'data'"
            )
        refuse_unread_spans(task, _TASK_KEYS, where, "labelstudio")
        doc_id = record_id(task.get("id"), "id", where)
        yield n, where if doc_id is None else f"{path} task {doc_id} (line {n})", doc_id, task


def _min_tasks(path: Path | str) -> Iterator[Task]:
    """JSON-MIN's records as tasks: one record per completed annotation (a task's records in
    a row), ``annotation_id`` null for a task nobody annotated."""
    task: Task | None = None
    values = iter_json_values(path, plain_decoder())
    for n, value, where in numbered(values, path):
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
        if task is None or doc_id is None or doc_id != task[2] or text != task[3]["data"]["text"]:
            if task is not None:
                yield task
            task = (n, where, doc_id, {"data": {"text": text}, "annotations": []})
        if "annotation_id" not in obj or obj["annotation_id"] is not None:
            task[3]["annotations"].append(
                {
                    "id": obj.get("annotation_id"),
                    "completed_by": obj.get("annotator"),
                    "created_at": obj.get("created_at"),
                    "updated_at": obj.get("updated_at"),
                    "result": [{"type": "labels", "value": r} for r in obj[keys[0]]]
                    if keys
                    else [],
                }
            )
    if task is not None:
        yield task


def _list(task: JSON, key: str, where: str) -> list[Any]:
    value = task.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidInputError(f"{where}: {key!r} must be a list, not {type(value).__name__}")
    return value


def _of_annotator(
    raw: list[JSON], completed: list[JSON], wanted: str | None, notes: Counter[str]
) -> list[JSON]:
    """The task's completed annotations of the chosen annotator (``completed_by``: a user's
    id or email; ``None``: all); the cancelled ones and the others are counted."""
    note(notes, "cancelled annotations not used", len(raw) - len(completed))
    mine = [a for a in completed if wanted is None or wanted in _annotator(a)]
    note(notes, "annotations of other annotators not read", len(completed) - len(mine))
    note(
        notes,
        "further completed annotations not used (gold: the ground_truth one, else the most recent)",
        max(len(mine) - 1, 0),
    )
    return mine


def annotators(path: Path | str, *, min_format: bool = False) -> list[str]:
    """Who completed the export's annotations (each by email, else id; in order of first
    appearance), as ``--annotator`` names them; an annotation naming no one is an error
    (read once per annotator, it would be in no one's reading)."""
    found: dict[str, None] = {}
    for _, where, _, task in _min_tasks(path) if min_format else _full_tasks(path):
        for i, a in enumerate(_list(task, "annotations", where)):
            if isinstance(a, dict) and not a.get("was_cancelled"):
                who = sorted(_annotator(a), key=lambda name: "@" not in name)
                if not who:
                    raise InvalidInputError(
                        f"{where}: annotation #{i} names no annotator (no "
                        f"{'annotator' if min_format else 'completed_by'!r}): agree would read "
                        "it as no one's; give it one, or choose the annotators with --annotators"
                    )
                found.update(dict.fromkeys(who[:1]))
    return list(found)


def _annotator(annotation: JSON) -> set[str]:
    """The names an annotation's annotator goes by: the user's id, and email if given."""
    who = annotation.get("completed_by")
    if isinstance(who, dict):
        return {str(who[k]) for k in ("id", "email") if who.get(k) is not None}
    return set() if who is None else {str(who)}


def gold_annotation(annotations: list[JSON]) -> JSON:
    """The gold one of a task's completed annotations: the ``ground_truth`` one when marked,
    else the most recent (the latest ``updated_at``, then ``created_at``, then the highest
    ``id``, then the last)."""
    starred = [a for a in annotations if a.get("ground_truth") is True]
    pool = starred or annotations
    stamps = ("updated_at", "created_at")
    return max(enumerate(pool), key=lambda item: (_recency(item[1], stamps), item[0]))[1]


def _recency(entry: JSON, stamps: tuple[str, str]) -> tuple[str, str, str, int]:
    """How recent an annotation or prediction is: its first date of ``stamps`` that reads,
    then each, then its ``id`` (a missing date or id is the oldest)."""
    first, second = (_stamp(entry.get(key)) for key in stamps)
    value = entry.get("id")
    number = value if isinstance(value, int) and not isinstance(value, bool) else -1
    return (first or second, first, second, number)


def _stamp(value: object) -> str:
    """A date as a sortable UTC string ("" when it is none or does not read)."""
    if not isinstance(value, str):
        return ""
    try:
        stamp = datetime.fromisoformat(value)
    except ValueError:
        return ""
    if stamp.tzinfo is not None:
        stamp = stamp.astimezone(UTC).replace(tzinfo=None)
    return stamp.isoformat()


def _version(prediction: JSON) -> str:
    value = prediction.get("model_version")
    return _NO_VERSION if value is None else str(value)


def _listed(versions: set[str]) -> str:
    return ", ".join(v or "''" for v in sorted(versions)) or "none"


def _prediction(
    predictions: list[JSON],
    wanted: str | None,
    versions: set[str],
    path: Path | str,
    notes: Counter[str],
) -> JSON | None:
    """The task's newest prediction of the chosen model version (``None``: none of it)."""
    for p in predictions:
        versions.add(_version(p))
    if wanted is None and len(versions) > 1:
        found = _all_versions(path)
        raise InvalidInputError(
            f"{path}: predictions from {len(found)} model versions ({_listed(found)}); "
            "choose one with --model-version"
        )
    mine = [p for p in predictions if wanted is None or _version(p) == wanted]
    note(notes, "predictions of other model versions not read", len(predictions) - len(mine))
    note(notes, "further predictions of the same model version not read", max(len(mine) - 1, 0))
    stamps = ("created_at", "updated_at")
    newest = max(
        enumerate(mine), key=lambda item: (_recency(item[1], stamps), -item[0]), default=None
    )
    return None if newest is None else newest[1]


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
