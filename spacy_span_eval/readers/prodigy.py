"""Prodigy's JSONL (``prodigy db-out``): ``text``, ``spans``, ``tokens`` and ``answer``.

- A span gives character offsets (``start``, ``end``) or token indices (``token_start``,
  ``token_end``, **inclusive** as Prodigy writes them), which the record's ``tokens`` (each
  with ``start`` and ``end``) turn into characters. Character offsets win when both are given.
- ``answer`` ``"reject"`` or ``"ignore"``: the example is not gold (an annotator turned it
  down or skipped it), so it is skipped and counted; ``"accept"`` (or no answer) is read.
- The id pairs gold and predictions: ``id``, else ``meta.id``, else ``_input_hash`` (the same
  for every annotation of one input text).
- A multi-annotator export (``db-out`` of a dataset several annotators or sessions worked on)
  holds an input once per annotator: ``--annotator NAME`` (``_annotator_id``; an answer
  without one, its ``_session_id``) or ``--session NAME`` (``_session_id``) reads one's
  answers and counts the others; without
  either, an input answered twice is refused, naming the annotators and sessions found.
- Binary ``ner`` answers (``_view_id: "ner"``: one suggested span accepted or not) judge the
  spans shown, not the whole text: read, and counted in the notes as partial gold.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..engine.spans import Span
from ..errors import InvalidInputError
from .base import Record, empty_input, json_record, note, offset, record_id
from .doccano import span_list
from .jsonio import iter_json_values, json_fields, plain_decoder
from .options import ReadingOptions
from .unread_spans import json_object, refuse_unread_spans, text_field

__all__ = [
    "BINARY_NOTE",
    "READ_KEYS",
    "SKIPPED_ANSWERS",
    "annotators",
    "prodigy_fields",
    "read_prodigy",
]

SKIPPED_ANSWERS = ("reject", "ignore")
#: The keys a Prodigy example's spans are read from.
READ_KEYS = ("text", "spans", "tokens")
#: The note for binary ``ner`` answers (one suggested span accepted or not).
BINARY_NOTE = (
    "binary 'ner' answers read as partial gold (each judged the spans shown, not the whole text)"
)


def read_prodigy(
    path: Path | str, options: ReadingOptions, notes: Counter[str]
) -> Iterator[Record]:
    """One char-unit record per accepted Prodigy example (of the chosen annotator or
    session, when ``options`` names one)."""
    seen = 0
    ids: set[str] = set()
    dropped = getattr(notes, "dropped", None)  # (pairing's Notes: ids for its messages)
    chosen = {"_annotator_id": options.annotator, "_session_id": options.session}
    for n, value in iter_json_values(path, plain_decoder()):
        where = f"{path} line {n}"
        obj = json_object(value, where, "prodigy")
        refuse_unread_spans(obj, READ_KEYS, where, "prodigy")
        if not _chosen(obj, chosen, notes):
            continue
        doc_id = _doc_id(obj, where)
        answer = obj.get("answer")
        if answer in SKIPPED_ANSWERS:
            note(
                notes,
                "rejected examples skipped" if answer == "reject" else "ignored examples skipped",
            )
            if dropped is not None and doc_id is not None:
                dropped[doc_id] = answer
            continue
        seen += 1
        if doc_id is not None:
            if doc_id in ids and all(v is None for v in chosen.values()):
                _refuse_repeat(path, where, doc_id)
            ids.add(doc_id)
        text = text_field(obj, where, "prodigy")
        if obj.get("_view_id") == "ner":
            note(notes, BINARY_NOTE)
        relations = obj.get("relations")
        if isinstance(relations, list):
            note(notes, "relations ignored", len(relations))
        raw = span_list(obj, "spans", where, "field 'spans' must be a list")
        spans = [_span(s, i, obj.get("tokens"), where) for i, s in enumerate(raw)]
        yield json_record(path, n, where, doc_id, text, spans, options.side)
    if not seen:
        _refuse_none(path, chosen)


def prodigy_fields(path: Path, field: str, options: ReadingOptions) -> Iterator[tuple[str, object]]:
    """The slice fields of the examples (``meta.KEY``, ...), each named as its record is."""
    return json_fields(path, field, options, _doc_id)


def _chosen(obj: dict[str, Any], chosen: dict[str, str | None], notes: Counter[str]) -> bool:
    """Whether the answer is of the annotator and session asked for (others are counted)."""
    other = next(
        (k for k, want in chosen.items() if want not in (None, _name(obj, k))),
        None,
    )
    if other is not None:
        note(
            notes,
            f"answers of other {'annotators' if other == '_annotator_id' else 'sessions'} not read",
        )
    return other is None


def _name(obj: dict[str, Any], key: str) -> str | None:
    """The answer's ``key`` id as listed (a number as its digits); an answer without an
    annotator id is its session's."""
    value = obj.get(key)
    value = obj.get("_session_id") if value is None else value
    return str(value) if isinstance(value, str | int) and not isinstance(value, bool) else None


def _doc_id(obj: dict[str, Any], where: str) -> str | None:
    """``id``, else ``meta.id``, else ``_input_hash``."""
    meta = obj.get("meta")
    meta = meta if isinstance(meta, dict) else {}
    if obj.get("id") is not None:
        return record_id(obj.get("id"), "id", where)
    if meta.get("id") is not None:
        return record_id(meta.get("id"), "meta.id", where)
    return record_id(obj.get("_input_hash"), "_input_hash", where)


def _refuse_none(path: Path | str, chosen: dict[str, str | None]) -> None:
    """No accepted answer: name the annotators and sessions found when one was chosen."""
    if any(chosen.values()):
        found = _who(path)
        raise InvalidInputError(
            f"{path}: no accepted answers of "
            + " and ".join(f"{k.strip('_')[:-3]} {v!r}" for k, v in chosen.items() if v)
            + f" (annotators found: {', '.join(found['_annotator_id']) or 'none'}; "
            f"sessions found: {', '.join(found['_session_id']) or 'none'})"
        )
    raise empty_input(path, "accepted examples")


def _refuse_repeat(path: Path | str, where: str, doc_id: str) -> None:
    """An input answered twice: from several annotators or sessions, name them and the
    flags that choose one; else pairing says it appears twice."""
    found = _who(path)
    several = {k: v for k, v in found.items() if len(v) > 1}
    if not several:
        return
    listed = "; ".join(
        f"{'annotators' if k == '_annotator_id' else 'sessions'}: {', '.join(v)}"
        for k, v in several.items()
    )
    raise InvalidInputError(
        f"{where}: document {doc_id!r} appears twice: the file holds the answers of several "
        f"annotators or sessions ({listed}); choose one with --annotator NAME or --session NAME"
    )


def _who(path: Path | str) -> dict[str, list[str]]:
    """The annotators and sessions whose answers the file holds (for messages)."""
    found: dict[str, set[str]] = {"_annotator_id": set(), "_session_id": set()}
    for _, obj in iter_json_values(path, plain_decoder()):
        if isinstance(obj, dict):
            for key, names in found.items():
                if key in obj and (name := _name(obj, key)) is not None:
                    names.add(name)
    return {key: sorted(names) for key, names in found.items()}


def annotators(path: Path | str) -> list[str]:
    """Whose answers a multi-annotator export holds (``agree`` reads each): each answer's
    ``_annotator_id``, else its ``_session_id``; an answer with neither, where others have
    one, is an error (it would be in no one's reading)."""
    who = {
        n: _name(obj, "_annotator_id")
        for n, obj in iter_json_values(path, plain_decoder())
        if isinstance(obj, dict)
    }
    nobody = [n for n, name in who.items() if name is None]
    if nobody and len(nobody) < len(who):
        raise InvalidInputError(
            f"{path} line {nobody[0]}: the answer names no annotator (no '_annotator_id' or "
            "'_session_id'): agree would read it as no one's; give it one, or choose the "
            "annotators with --annotators"
        )
    return sorted({name for name in who.values() if name is not None})


def _span(raw: object, i: int, tokens: object, where: str) -> Span:
    if not isinstance(raw, dict) or not isinstance(raw.get("label"), str):
        raise InvalidInputError(f"{where}: span #{i} must be an object with a 'label': {raw!r}")
    if "start" in raw and "end" in raw:
        return Span(
            offset(raw["start"], f"span #{i} start", where),
            offset(raw["end"], f"span #{i} end", where),
            raw["label"],
        )
    if "token_start" not in raw or "token_end" not in raw:
        raise InvalidInputError(
            f"{where}: span #{i} has neither 'start'/'end' nor 'token_start'/'token_end': {raw!r}"
        )
    first = offset(raw["token_start"], f"span #{i} token_start", where)
    last = offset(raw["token_end"], f"span #{i} token_end", where)
    if not isinstance(tokens, list) or not 0 <= first <= last < len(tokens):
        have = len(tokens) if isinstance(tokens, list) else 0
        raise InvalidInputError(
            f"{where}: span #{i} tokens {first}..{last} (token_end inclusive) need the "
            f"record's 'tokens' list to hold them ({have} tokens)"
        )
    try:
        start, end = tokens[first]["start"], tokens[last]["end"]
    except (TypeError, KeyError):
        raise InvalidInputError(
            f"{where}: tokens need 'start' and 'end' character offsets to place token spans"
        ) from None
    return Span(offset(start, "token start", where), offset(end, "token end", where), raw["label"])
