"""spaCy adapter: turn ``Example`` / ``Doc`` pairs into engine :class:`~.spans.Document` values.

The engine never imports spaCy; this module is the one place that reads ``Doc.ents`` or
``Doc.spans[key]``: the readers take a ``Doc`` as plain data (:func:`doc_content`), and a pair
of them becomes one document by the engine's ``tokenized_pair``. In ``char`` unit spans keep
their character offsets, so differing tokenizations compare exactly. In ``token`` unit
predicted spans are projected onto the reference tokens through character offsets; a span
whose boundaries fall inside a reference token cannot be projected and is kept as an
unaligned prediction with a reason (semantics §1), never dropped.

Gold spans a ``Doc`` cannot hold (they start or end inside a token) travel beside it, in
``doc.user_data["span_eval_kept_gold"]`` (written by ``convert``, saved in the ``.spacy``
file). They are read on the reference side only and are gold like any other: in ``char`` unit
they are matched as usual, in ``token`` unit they are unaligned gold (an FN with its reason).
A predicted doc that carries them is an error (:func:`check_predicted`), never a silent guess.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeGuard

from ..engine.spans import NOT_ON_REFERENCE, Document, Span, onto_tokens, tokenized_pair
from ..errors import InvalidInputError, InvalidSpanError

if TYPE_CHECKING:
    from spacy.tokens import Doc
    from spacy.tokens import Span as DocSpan
    from spacy.training import Example

__all__ = [
    "DOC_ID_KEY",
    "KEPT_GOLD_KEY",
    "check_predicted",
    "docs_to_document",
    "example_to_document",
    "has_source_annotation",
    "kept_gold_in_unit",
    "kept_gold_spans",
    "doc_content",
    "project_to_tokens",
    "set_kept_gold",
    "source_spans",
    "stored_doc_id",
]

# Readers store a document's own id under this ``Doc.user_data`` key, so errors name it.
DOC_ID_KEY = "span_eval_id"
# Gold spans the Doc's tokens cannot hold, kept beside it: ``{source: [[start_char, end_char,
# label], ...]}``, ``source`` being ``"ents"`` or a span group key (docs/spacy_integration.md).
KEPT_GOLD_KEY = "span_eval_kept_gold"
#: Why a gold span of a Doc is not on its tokens: only one kept beside it can be so.
KEPT_OFF_TOKENS = "gold span not on token boundaries (kept beside the Doc)"


def stored_doc_id(*docs: Doc) -> str | int | None:
    """The id a reader stored in ``user_data`` (first doc that has one), else ``None``."""
    for doc in docs:
        value: str | int | None = doc.user_data.get(DOC_ID_KEY)
        if value is not None:
            return value
    return None


def source_spans(doc: Doc, source: str) -> Sequence[DocSpan]:
    """``doc.ents`` for ``source="ents"``, else the span group ``doc.spans[source]``.

    A doc without that span group has no spans of it (as spaCy's own span scorers treat it).
    """
    if source == "ents":
        return doc.ents
    group = doc.spans.get(source)
    return () if group is None else group


def span_scores(spans: Sequence[DocSpan]) -> list[float | None]:
    """Each span's score: a span group's ``attrs["scores"]`` (spancat writes one per span)
    where it holds one finite number per span; else none (``Doc.ents`` have no scores)."""
    attrs = getattr(spans, "attrs", None)
    try:
        scores = [float(s) for s in attrs["scores"]] if attrs and "scores" in attrs else []
    except (TypeError, ValueError):
        scores = []
    return (
        [*scores]
        if len(scores) == len(spans) and all(map(math.isfinite, scores))
        else [None] * len(spans)
    )


def has_source_annotation(doc: Doc, source: str) -> bool:
    """Whether a reference doc is annotated for ``source`` at all.

    spaCy's scorers skip such docs (``has_annotation("ENT_IOB")`` for entities, the key being
    present for span groups); the scorers here do too, but count them. Gold spans kept beside
    the doc for ``source`` are annotation too.
    """
    annotated = doc.has_annotation("ENT_IOB") if source == "ents" else source in doc.spans
    return annotated or bool(_kept_rows(doc, source))


def set_kept_gold(doc: Doc, source: str, spans: Iterable[Span]) -> None:
    """Keep gold ``spans`` (character offsets) beside ``doc`` for ``source``.

    Stored as plain lists, so ``DocBin(store_user_data=True)`` saves them in the ``.spacy``
    file. No spans: nothing is stored.
    """
    rows = [[int(sp.start), int(sp.end), str(sp.label)] for sp in spans]
    if not rows:
        return
    stored = doc.user_data.get(KEPT_GOLD_KEY)
    if not isinstance(stored, dict):
        stored = doc.user_data[KEPT_GOLD_KEY] = {}
    stored.setdefault(source, []).extend(rows)


def _kept_rows(doc: Doc, source: str) -> list[Any]:
    stored = doc.user_data.get(KEPT_GOLD_KEY)
    if not stored:
        return []
    rows = stored.get(source) if isinstance(stored, dict) else stored
    return rows or []


def check_predicted(
    pred_doc: Doc, source: str, doc_id: object, gold_doc: Doc | None = None
) -> None:
    """A predicted doc must not carry gold kept beside it (unless it *is* the reference).

    Spans beside a ``Doc`` are gold written by ``convert``; on the predicted side they would
    be either gold copied along with ``user_data`` (a reference doc run through a pipeline:
    free credit) or predictions a ``Doc`` cannot hold. Neither is guessed: this raises
    :class:`~.errors.InvalidInputError` naming the document.
    """
    if pred_doc is gold_doc or not _kept_rows(pred_doc, source):
        return
    raise InvalidInputError(
        f"document {doc_id!r}: the predicted doc carries gold spans kept beside it "
        f"(user_data[{KEPT_GOLD_KEY!r}][{source!r}], written by convert). Predictions must "
        "be spans of the Doc; if this doc is a copy of the reference, remove that key, and "
        "score predictions a tokenizer cannot hold from a JSONL file in char unit"
    )


def _offset(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def kept_gold_spans(doc: Doc, source: str, doc_id: object = None) -> list[Span]:
    """The gold spans kept beside ``doc`` for ``source``, as character :class:`Span` values.

    Every stored entry is checked against semantics §1 (integer offsets inside the text, a
    non-empty label); a malformed one raises :class:`~.errors.InvalidSpanError` naming the
    document, never dropped or clipped.
    """
    stored = doc.user_data.get(KEPT_GOLD_KEY)
    if not stored:
        return []
    if doc_id is None:
        doc_id = stored_doc_id(doc)
    where = f"document {doc_id!r}, user_data[{KEPT_GOLD_KEY!r}]"
    if not isinstance(stored, dict):
        raise InvalidSpanError(
            f"{where}: expected a mapping of source to spans, not {type(stored).__name__}"
        )
    rows = stored.get(source) or []
    if not isinstance(rows, list | tuple):
        raise InvalidSpanError(
            f"{where}[{source!r}]: expected a list of [start, end, label], "
            f"not {type(rows).__name__}"
        )
    length = len(doc.text)
    out = []
    for i, row in enumerate(rows):
        ok = isinstance(row, list | tuple) and len(row) == 3
        start, end, label = row if ok else (None, None, None)
        if not (ok and _offset(start) and _offset(end)) or not isinstance(label, str) or not label:
            raise InvalidSpanError(
                f"{where}[{source!r}] #{i} {row!r}: expected [start, end, "
                "label] with integer offsets and a non-empty label"
            )
        if not 0 <= start < end <= length:
            raise InvalidSpanError(
                f"{where}[{source!r}] #{i} {row!r}: offsets outside the "
                f"text (0 <= start < end <= {length})"
            )
        out.append(Span(start, end, label))
    return out


def kept_gold_in_unit(
    doc: Doc, source: str, unit: str, doc_id: object = None
) -> tuple[list[Span], list[tuple[Span, str]]]:
    """``(spans, unaligned)``: the kept gold spans in ``unit``.

    In ``char`` unit every kept span is an ordinary gold span. In ``token`` unit a span that
    does fall on ``doc``'s tokens becomes a token span; the others are unaligned gold (counted
    as FN) with their reason, in character offsets.
    """
    kept = kept_gold_spans(doc, source, doc_id)
    if unit == "char" or not kept:
        return kept, []
    return onto_tokens(kept, [t.text for t in doc], [t.idx for t in doc], KEPT_OFF_TOKENS)


def project_to_tokens(
    gold_doc: Doc, spans: Sequence[DocSpan]
) -> tuple[list[Span], list[tuple[Span, str]]]:
    """Project spans of another tokenization of the same text onto ``gold_doc``'s tokens.

    Returns ``(projected, unaligned)``. A span projects when its first character starts a
    reference token and its last character ends one; otherwise it goes to ``unaligned`` as a
    ``char``-offset span with the reason.
    """
    tokens, starts = [t.text for t in gold_doc], [t.idx for t in gold_doc]
    return onto_tokens(char_spans(spans), tokens, starts, NOT_ON_REFERENCE)


def doc_content(
    doc: Doc, source: str, side: str, doc_id: object
) -> tuple[str, tuple[str, ...], tuple[int, ...], tuple[Span, ...]]:
    """A ``Doc`` as plain data (:data:`~..engine.spans.Tokenized`): its text, its tokens,
    where each starts, and its ``source`` spans in characters (a span group's scores kept).
    On the ``"gold"`` side the gold kept beside it follows them (:func:`kept_gold_spans`);
    on the ``"predicted"`` side a doc that carries any is refused (:func:`check_predicted`)."""
    if side == "predicted":
        check_predicted(doc, source, doc_id)
    spans = char_spans(source_spans(doc, source))
    if side == "gold":
        spans += kept_gold_spans(doc, source, doc_id)
    return doc.text, tuple(t.text for t in doc), tuple(t.idx for t in doc), tuple(spans)


def docs_to_document(
    gold_doc: Doc,
    pred_doc: Doc,
    *,
    source: str = "ents",
    unit: str = "char",
    doc_id: str | int | None = None,
) -> Document:
    """One engine document from a reference doc and a predicted doc of the same text.

    ``source`` is ``"ents"`` or a span group key. The id is ``doc_id``, else the one a reader
    stored under ``user_data["span_eval_id"]``, else ``0``. Texts that differ raise
    :class:`~.errors.DocumentMismatchError` naming the document. Gold spans kept beside the
    reference doc (:data:`KEPT_GOLD_KEY`) are gold too (:func:`kept_gold_in_unit`).
    """
    if doc_id is None:
        doc_id = stored_doc_id(gold_doc, pred_doc)
    if doc_id is None:
        doc_id = 0
    gold = doc_content(gold_doc, source, "gold", doc_id)
    pred = doc_content(pred_doc, source, "predicted" if pred_doc is not gold_doc else "", doc_id)
    return tokenized_pair(doc_id, unit, gold, pred, KEPT_OFF_TOKENS)


def char_spans(spans: Sequence[DocSpan]) -> list[Span]:
    """A Doc's spans as engine spans in characters (every caller maps them onto tokens
    itself), a span group's scores kept (:func:`span_scores`)."""
    scores = span_scores(spans)
    return [Span(s.start_char, s.end_char, s.label_, c) for s, c in zip(spans, scores, strict=True)]


def example_to_document(
    example: Example,
    *,
    source: str = "ents",
    unit: str = "char",
    doc_id: str | int | None = None,
) -> Document:
    """One engine document from a spaCy ``Example`` (gold = reference, pred = predicted)."""
    return docs_to_document(
        example.reference, example.predicted, source=source, unit=unit, doc_id=doc_id
    )
