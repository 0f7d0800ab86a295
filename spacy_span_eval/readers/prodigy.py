"""Prodigy's JSONL (``prodigy db-out``): ``text``, ``spans``, ``tokens`` and ``answer``.

- A span gives character offsets (``start``, ``end``) or token indices (``token_start``,
  ``token_end``, **inclusive** as Prodigy writes them), which the record's ``tokens`` (each
  with ``start`` and ``end``) turn into characters. Character offsets win when both are given.
- ``answer`` ``"reject"`` or ``"ignore"``: the example is not gold (an annotator turned it
  down or skipped it), so it is skipped and counted; ``"accept"`` (or no answer) is read.
- The id pairs gold and predictions: ``id``, else ``meta.id``, else ``_input_hash`` (the same
  for every annotation of one input text).
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

__all__ = ["SKIPPED_ANSWERS", "read_prodigy"]

SKIPPED_ANSWERS = ("reject", "ignore")


def read_prodigy(path: Path | str, options: ReadOptions, notes: Counter) -> Iterator[Record]:
    """One char-unit record per accepted Prodigy example."""
    name = Path(path).name
    seen = 0
    for n, obj in iter_json_values(path):
        where = f"{path} line {n}"
        if not isinstance(obj, dict):
            raise InvalidInputError(f"{where}: expected a JSON object, found {type(obj).__name__}")
        answer = obj.get("answer")
        if answer in SKIPPED_ANSWERS:
            note(
                notes,
                f"{answer}ed examples skipped"
                if answer == "reject"
                else "ignored examples skipped",
            )
            continue
        seen += 1
        text = obj.get("text")
        if not isinstance(text, str):
            raise InvalidInputError(f"{where}: field 'text' is missing or not a string")
        meta = obj.get("meta")
        if not isinstance(meta, dict):
            meta = {}
        doc_id = (
            record_id(obj.get("id"), "id", where)
            if obj.get("id") is not None
            else record_id(meta.get("id"), "meta.id", where)
            if meta.get("id") is not None
            else record_id(obj.get("_input_hash"), "_input_hash", where)
        )
        raw = obj.get("spans") or []
        if not isinstance(raw, list):
            raise InvalidInputError(f"{where}: field 'spans' must be a list")
        spans = [_span(s, i, obj.get("tokens"), where) for i, s in enumerate(raw)]
        yield char_record(
            where,
            doc_id if doc_id is not None else f"{name}:{n}",
            doc_id,
            text,
            spans,
            options.side,
        )
    if not seen:
        raise empty_input(path, "accepted examples")


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
