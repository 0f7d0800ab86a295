"""Predictions as strings, without offsets (semantics §11): what an LLM returns.

One record per document (JSON Lines or a JSON array), its strings in one of these shapes:

- ``{"id": ..., "text"?: ..., "entities": {"PER": ["Angela Merkel"], ...}}``: label -> strings;
- ``{"id": ..., "entities": [{"text": "Angela Merkel", "label": "PER", "score"?: 0.9}]}``;
- ``{"id": ..., "response": "PER: Angela Merkel, Olaf Scholz\\nLOC: Berlin"}``: spacy-llm's
  NER response, ``LABEL: a, b`` a line (``==NONE==`` and empty items are nothing), or a list
  of them, one per shard (read as their lines, each grounded in the whole text);
- ``{"document_id": ..., "extractions": [{"extraction_class": "PER", "extraction_text":
  "...", "char_interval": {"start_pos": 0, "end_pos": 13}}]}``: LangExtract's documents (the
  interval is used where the text there is the extraction's; :mod:`.grounding`).

An empty or whitespace-only string, in any shape, predicts nothing: left out and counted.

A ``.spacy`` file (an llm pipeline's output, or spacy-llm's cache) gives each ``Doc``'s raw
responses, kept by spacy-llm under ``user_data["llm_io"][component]["response"]``
(``save_io``); read as ``.spacy`` (the default), its ``doc.ents`` are spacy-llm's own spans.
The text is the gold side's (pairing by id, else position); a record's own ``text`` must be the
same.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInputError
from .base import Record, note, numbered, record_id, span_score
from .docbin import docbin_docs
from .jsonio import iter_json_values, plain_decoder
from .options import ReadingOptions

if TYPE_CHECKING:
    from spacy.tokens import Doc

__all__ = ["llm_strings", "read_strings", "response_strings"]

Strings = list[tuple[str, str, float | None, tuple[int, int] | None]]


def response_strings(response: str) -> Strings:
    """The strings of spacy-llm's NER response: ``LABEL: a, b`` a line (``spacy.NER.v2``), or
    ``1. text | True | LABEL | reason`` (``spacy.NER.v3``'s reasoning; ``False`` rows are none)."""
    out: Strings = []
    for line in response.splitlines():
        row = [c.strip() for c in re.sub(r"^\s*\d+\.", "", line).split("|")]
        if len(row) == 4:
            if row[0] and row[1].lower() == "true" and row[2] != "==NONE==":
                out.append((row[2], row[0], None, None))
            continue
        label, colon, items = line.partition(":")
        if colon and label.strip():
            out += [
                (label.strip(), item.strip(), None, None)
                for item in items.split(",")
                if item.strip() and item.strip() != "==NONE=="
            ]
    return out


def _text(value: object, what: str, where: str, blank: bool = False) -> str:
    """A string of the record (``blank``: which may be empty, as a predicted string)."""
    if not isinstance(value, str) or not (value or blank):
        kind = "string" if blank else "non-empty string"
        raise InvalidInputError(f"{where}: {what} must be a {kind}, not {value!r}")
    return value


def _listed(items: object, where: str) -> Strings:
    """``[{"text", "label", "score"?}, ...]`` or LangExtract's ``extractions``."""
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise InvalidInputError(f"{where}: expected a list of objects, found {items!r}")
    out: Strings = []
    for item in items:
        if "extraction_class" in item:
            label = _text(item["extraction_class"], "extraction_class", where)
            text = _text(item.get("extraction_text"), "extraction_text", where, blank=True)
            span = item.get("char_interval") or {}
            if not isinstance(span, dict):
                raise InvalidInputError(f"{where}: char_interval must be an object, not {span!r}")
            ends = span.get("start_pos"), span.get("end_pos")
            interval = ends if all(type(e) is int for e in ends) else None
            out.append((label, text, None, interval))  # type: ignore[arg-type]
        else:
            score = span_score(item.get("score"), "a string's", where)
            label = _text(item.get("label"), "label", where)
            out.append((label, _text(item.get("text"), "text", where, blank=True), score, None))
    return out


def record_strings(obj: object, where: str) -> tuple[Strings, dict[str, Any]]:
    """A record's strings in any shape, and the record."""
    if not isinstance(obj, dict):
        raise InvalidInputError(f"{where}: expected a JSON object, not {obj!r}")
    response = obj.get("response")
    if isinstance(response, list):  # (spacy-llm with sharding: one response per shard)
        response = "\n".join(
            _text(r, f"response[{i}]", where, True) for i, r in enumerate(response)
        )
    if isinstance(response, str):
        return response_strings(response), obj
    if "extractions" in obj:
        return _listed(obj["extractions"], where), obj
    entities = obj.get("entities")
    if isinstance(entities, dict):
        out: Strings = []
        for label, items in entities.items():
            if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
                raise InvalidInputError(
                    f"{where}: entities[{label!r}] must be a list of strings, not {items!r}"
                )
            out += [(_text(label, "label", where), i, None, None) for i in items]
        return out, obj
    if isinstance(entities, list):
        return _listed(entities, where), obj
    held = next((f"{k!r} holds {obj[k]!r}; " for k in ("response", "entities") if k in obj), "")
    raise InvalidInputError(
        f"{where}: {held}predictions as strings need 'entities' (label -> strings, or a list "
        "of {'text', 'label'}), 'response' (spacy-llm's text) or 'extractions' (LangExtract)"
    )


def read_strings(
    path: Path | str, options: ReadingOptions, notes: Counter[str]
) -> Iterator[Record]:
    """One record per document, with ``strings`` and no spans (:mod:`.grounding` finds them)."""
    if options.side == "gold":
        raise InvalidInputError(f"{path}: strings without offsets can be predictions only")
    if Path(path).suffix.lower() == ".spacy":  # (spacy-llm's raw responses, kept in each Doc)
        for where, key, doc_id, doc in docbin_docs(path):
            yield Record(where, key, doc_id, text=doc.text, strings=llm_strings(doc))
        return
    name = Path(path).name
    for n, obj, where in numbered(iter_json_values(path, plain_decoder(objects=False)), path):
        said, record = record_strings(obj, where)
        strings = [s for s in said if s[1].strip()]  # (an empty string predicts nothing)
        note(notes, "empty strings left out (no prediction)", len(said) - len(strings))
        key = "document_id" if "document_id" in record else "id"
        doc_id = record_id(record.get(key), key, where)
        text = record.get("text")
        yield Record(
            where,
            doc_id if doc_id is not None else f"{name}:{n}",
            doc_id,
            text=text if isinstance(text, str) else None,
            strings=tuple(strings),
        )


def llm_strings(doc: Doc) -> tuple[tuple[str, str, float | None, tuple[int, int] | None], ...]:
    """The strings of the raw responses spacy-llm kept in ``doc`` (``save_io``), from every
    llm component and every shard."""
    io = doc.user_data.get("llm_io") or {}
    responses = [r.get("response") for r in io.values() if isinstance(r, dict)]
    texts = [t for r in responses for t in (r if isinstance(r, list) else [r])]
    return tuple(s for t in texts if isinstance(t, str) for s in response_strings(t))
