"""Pairing gold and predicted records into engine documents, streamed.

Records pair by id when both files carry ids (the first record of each side decides), else by
position. Pairing by id keeps only out-of-order records waiting (and the ids seen, to catch a
repeated one), so files in the same order pair without holding documents. Any mismatch — a
document on one side only, a repeated id, texts or tokens that differ — is an error naming
the document and both files (semantics §1), never a guess. With ``pairs="gold"`` the gold
file's documents are scored: predictions for documents gold does not have are counted in the
predicted side's notes and left out (a gold document without predictions is still an error).
When a reader dropped documents (Prodigy's ``ignore``/``reject`` answers: see :class:`Notes`),
the message for an unpaired one says how many of them it dropped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, zip_longest
from typing import TYPE_CHECKING

from ..adapters.spacy_docs import KEPT_OFF_TOKENS
from ..engine.batching import SpanBatch, document_batches
from ..engine.spans import Document, Span, onto_tokens, span_counts, tokenized_pair
from ..errors import DocumentMismatchError, InvalidInputError
from .align import (
    Notes,
    SideInfo,
    align_by_position,
    differences_for,
    text_pairing,
)
from .base import Record, token_starts
from .grounding import ground_record
from .options import MIN_SHARED, ReadingOptions

if TYPE_CHECKING:  # (loaded by the pairs that pair character texts: see text_pairing)
    from .char_align import TextPairing


def pair_records(
    gold: Iterable[Record],
    pred: Iterable[Record],
    *,
    gold_name: str,
    pred_name: str,
    pairs: str = "both",
    notes: tuple[Counter[str], Counter[str]] | None = None,
) -> Iterator[tuple[Record, Record]]:
    """``(gold, predicted)`` record pairs, by id when both sides have ids, else by position.

    ``pairs``: ``"both"`` (every document must pair) or ``"gold"`` (predictions for documents
    gold does not have are counted in the predicted ``notes`` and left out). ``notes``: the
    two sides' notes (:class:`Notes` carry the ids their reader dropped)."""
    gold_it, pred_it = iter(gold), iter(pred)
    g0, p0 = next(gold_it, None), next(pred_it, None)
    if g0 is None or p0 is None:
        empty = gold_name if g0 is None else pred_name
        raise InvalidInputError(f"{empty}: no documents found (empty input); nothing to score")
    gold_it, pred_it = chain([g0], gold_it), chain([p0], pred_it)
    by = _by_id if g0.id is not None and p0.id is not None else _by_position
    return by(gold_it, pred_it, (gold_name, pred_name), pairs, notes or (Notes(), Notes()))


#: The note for predictions left out by ``pairs="gold"``.
NOT_IN_GOLD = "predicted documents not in gold left out (--pairs gold)"


#: The two sides' names or notes, gold first.
Sides = tuple[str, str]
SideNotes = tuple[Counter[str], Counter[str]]


def _by_position(
    gold: Iterator[Record], pred: Iterator[Record], names: Sides, pairs: str, notes: SideNotes
) -> Iterator[tuple[Record, Record]]:
    gold_name, pred_name = names
    for i, (g, p) in enumerate(zip_longest(gold, pred), 1):
        if g is None and pairs == "gold":
            notes[1][NOT_IN_GOLD] += 1 + sum(1 for _ in pred)
            return
        if g is None or p is None:
            longer, shorter, extra = (
                (pred_name, gold_name, p) if g is None else (gold_name, pred_name, g)
            )
            raise count_mismatch(i, extra.where, longer, shorter)
        yield g, p


def count_mismatch(i: int, where: str, longer: str, shorter: str) -> DocumentMismatchError:
    """One file has a ``i``-th document (at ``where``) and the other does not."""
    return DocumentMismatchError(
        f"{longer} has more documents than {shorter}: document {i} "
        f"({where}) has no partner in {shorter}"
    )


def _by_id(
    gold: Iterator[Record], pred: Iterator[Record], names: Sides, pairs: str, notes: SideNotes
) -> Iterator[tuple[Record, Record]]:
    waiting: tuple[dict[str, Record], dict[str, Record]] = ({}, {})
    seen: tuple[set[str], set[str]] = (set(), set())
    for g, p in zip_longest(gold, pred):
        if g is not None and p is not None and g.id == p.id:
            for side, r in enumerate((g, p)):
                _check_id(r, seen[side], names[side])
            yield g, p
            continue
        for side, r in ((0, g), (1, p)):
            if r is None:
                continue
            doc_id = _check_id(r, seen[side], names[side])
            partner = waiting[1 - side].pop(doc_id, None)
            if partner is None:
                waiting[side][doc_id] = r
            else:
                yield (r, partner) if side == 0 else (partner, r)
    if pairs == "gold" and waiting[1]:
        notes[1][NOT_IN_GOLD] += len(waiting[1])
        waiting[1].clear()
    for side in (0, 1):
        if waiting[side]:
            r = next(iter(waiting[side].values()))
            raise DocumentMismatchError(
                f"document {r.id!r} ({r.where}) is in {names[side]} but not in "
                f"{names[1 - side]} (documents pair by id; {len(waiting[side])} unpaired"
                f"{_dropped(waiting[side], notes, 1 - side, names[1 - side])})"
            )


def _dropped(unpaired: dict[str, Record], notes: SideNotes, other: int, other_name: str) -> str:
    """What the other side's reader dropped of the unpaired documents, for the message."""
    dropped = getattr(notes[other], "dropped", None) or {}
    why = Counter(dropped[i] for i in unpaired if i in dropped)
    if not why:
        return ""
    kinds = "/".join(f"'{k}'" for k in sorted(why))
    hint = "; use --pairs gold" if other == 0 else ""
    return (
        f": {sum(why.values())} were {kinds} answers in {other_name}, dropped by the reader{hint}"
    )


def _check_id(record: Record, seen: set[str], name: str) -> str:
    """The record's id, once it is known to be there and new to its side."""
    if record.id is None:
        raise InvalidInputError(
            f"{record.where}: record has no id, but {name} pairs documents by id "
            "(its first record has one); give every record an id, or none"
        )
    if record.id in seen:
        raise InvalidInputError(
            f"{record.where}: document id {record.id!r} appears twice in {name}"
        )
    seen.add(record.id)
    return record.id


def to_document(
    gold: Record,
    pred: Record,
    *,
    unit: str,
    texts: TextPairing | None = None,
    reading: ReadingOptions | None = None,
    notes: Counter[str] | None = None,
) -> Document:
    """The engine document of one pair, in ``unit``; differing content is an error, except
    character texts that ``texts`` reconciles (:mod:`.char_align`: trailing whitespace,
    ``--align chars``). Predicted strings are grounded in the gold text as ``reading`` says
    (:mod:`.grounding`; the tiers counted in ``notes``)."""
    doc_id = gold.id if gold.id is not None else gold.key
    if pred.strings is not None:
        return _strings_document(gold, pred, unit, doc_id, reading, notes)
    docs = gold.starts is not None and pred.starts is not None  # (two Docs: two tokenizations)
    if docs and not (unit == "char" and texts is not None and gold.text != pred.text):
        try:
            return tokenized_pair(doc_id, unit, gold.tokenized(), pred.tokenized(), KEPT_OFF_TOKENS)
        except DocumentMismatchError as exc:
            raise DocumentMismatchError(
                f"{exc} (gold {gold.where}, predicted {pred.where})"
            ) from None
    g_content, g_spans, unaligned_gold = _view(gold, unit)
    p_content, p_spans, _ = _view(pred, unit)
    unaligned_pred: list[tuple[Span, str]] = []
    try:
        if texts is not None and unit == "char" and g_content != p_content:
            moved = texts.reconcile(str(g_content), str(p_content), p_spans, g_spans, doc=doc_id)
            if moved is not None:  # (the predicted spans now lie on the gold text)
                p_content, (p_spans, unaligned_pred) = g_content, moved
        return Document.pair(
            id=doc_id,
            gold_text=g_content,
            pred_text=p_content,
            gold=g_spans,
            pred=p_spans,
            unit="token" if unit == "token" else "char",
            unaligned_pred=unaligned_pred,
            unaligned_gold=unaligned_gold,
        )
    except DocumentMismatchError as exc:
        raise DocumentMismatchError(f"{exc}; gold {gold.where}, predicted {pred.where}") from None


def _strings_document(
    gold: Record,
    pred: Record,
    unit: str,
    doc_id: str,
    reading: ReadingOptions | None,
    notes: Counter[str] | None,
) -> Document:
    """Gold with the spans its text gives the predicted strings (and the ungrounded ones)."""
    assert pred.strings is not None
    content, g_spans, unaligned_gold = _view(gold, unit)
    text = gold.char_text()
    if pred.text is not None and pred.text.rstrip() != text.rstrip():
        raise DocumentMismatchError(
            f"document {doc_id!r}: the predictions' text ({pred.where}) is not gold's "
            f"({gold.where}); strings are found in gold's text"
        )
    reading, notes = reading or ReadingOptions(), Counter() if notes is None else notes
    spans, unaligned = ground_record(gold, pred, unit, reading, notes)
    token = unit == "token"
    return Document.create(
        id=doc_id,
        gold=g_spans,
        pred=spans,
        unit="token" if token else "char",
        text=None if token else str(content),
        tokens=content if token else None,
        unaligned_pred=unaligned,
        unaligned_gold=unaligned_gold,
        strings=[(label, string) for label, string, _, _ in pred.strings],
    )


def _view(
    record: Record, unit: str
) -> tuple[str | tuple[str, ...], Sequence[Span], list[tuple[Span, str]]]:
    """``(tokens or text, spans, spans not in unit)`` of a record in ``unit``: a Doc's
    record's spans on its tokens in token unit (the gold kept beside it may not be)."""
    if unit == "token":
        if record.tokens is None:
            raise InvalidInputError(
                f"{record.where}: token unit needs tokens, and this record has only a text; "
                "score it with --unit char (or give CoNLL or .spacy input)"
            )
        if record.starts is None:
            return record.tokens, record.spans, []
        return record.tokens, *onto_tokens(
            record.spans, record.tokens, record.starts, KEPT_OFF_TOKENS
        )
    if record.tokens is None or record.starts is not None:
        return record.char_text(), record.spans, []
    return record.char_text(), tokens_to_chars(record.tokens, record.spans), []


def tokens_to_chars(tokens: tuple[str, ...], spans: Iterable[Span]) -> list[Span]:
    """Token spans as character spans of the tokens joined by single spaces."""
    starts = token_starts(tokens)
    return [
        Span(starts[s.start], starts[s.end - 1] + len(tokens[s.end - 1]), s.label) for s in spans
    ]


def documents(
    pairs: Iterable[tuple[Record, Record]],
    *,
    unit: str,
    gold_info: SideInfo | None = None,
    pred_info: SideInfo | None = None,
    align: str = "text",
    align_share: float = MIN_SHARED,
    reading: ReadingOptions | None = None,
) -> Iterator[Document]:
    """Engine documents from record pairs, counting documents, spans and repairs per side.

    ``align="position"`` pairs the tokens of each sentence by position
    (:func:`.align.align_by_position`); the differing tokens are counted in
    ``pred_info.alignment``. Character texts equal up to trailing whitespace pair (counted
    in ``pred_info.notes``); ``align="chars"`` aligns differing texts character by
    character (:mod:`.char_align`, keeping ``align_share`` of their characters), reported in
    ``pred_info.alignment``."""
    differences = differences_for(align, pred_info)
    texts = text_pairing(align, unit, pred_info, align_share)
    for i, (g, p) in enumerate(pairs, 1):
        if differences is not None:
            p = align_by_position(g, p, index=i, differences=differences)
        notes = pred_info.notes if pred_info is not None else None
        doc = to_document(g, p, unit=unit, texts=texts, reading=reading, notes=notes)
        n_gold, n_pred = span_counts(doc)
        if gold_info is not None:
            gold_info.count(g)
            gold_info.spans += n_gold + len(doc.unaligned_gold)
        if pred_info is not None:
            pred_info.count(p, g)
            pred_info.spans += n_pred + len(doc.unaligned_pred)
        yield doc


#: Documents per batch on the generic road (the engine's own batch size).
BATCH_DOCUMENTS = 2048


def record_batches(
    pairs: Iterable[tuple[Record, Record]],
    unit: str,
    info: dict[str, SideInfo],
    reading: ReadingOptions,
    aligned: bool = True,
) -> Iterator[SpanBatch]:
    """The generic road's end: record pairs as :func:`documents` (aligned as ``reading``
    says, unless not ``aligned``: a pipeline's predictions are on gold's own tokens), in
    batches; ``info``: what each side read, filled in as they pass."""
    docs = documents(
        pairs,
        unit=unit,
        gold_info=info["gold"],
        pred_info=info["predicted"],
        align=reading.align if aligned else "text",
        align_share=reading.align_share,
        reading=reading,
    )
    return document_batches(docs, unit, BATCH_DOCUMENTS)
