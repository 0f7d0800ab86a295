"""Turning documents into columnar batches (and the batch type the engine consumes)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice
from operator import attrgetter

import numpy as np

from ..errors import InvalidInputError
from .columns import INT, SpanColumns
from .spans import Document, Span, show


@dataclass(frozen=True)
class SpanBatch:
    """Many documents' spans as columns, plus what records need to show context.

    ``labels`` names the label ids used in ``gold.label`` / ``pred.label`` (before any label
    map). ``texts`` / ``tokens`` are optional, per document.
    """

    doc_ids: Sequence[str]
    lengths: np.ndarray
    gold: SpanColumns
    pred: SpanColumns
    labels: Sequence[str]
    texts: Sequence[str | None] | None = None
    tokens: Sequence[Sequence[str] | None] | None = None
    # (document index, span, reason) for predictions that could not be put in this unit.
    unaligned: Sequence[tuple[int, Span, str]] = field(default=())
    # (document index, span, reason) for gold spans that could not be put in this unit.
    unaligned_gold: Sequence[tuple[int, Span, str]] = field(default=())

    def __len__(self) -> int:
        return len(self.doc_ids)


_start, _end, _label = attrgetter("start"), attrgetter("end"), attrgetter("label")


def checked_documents(docs: Iterable[object], unit: str) -> Iterator[Document]:
    """The documents of a stream, each checked to be a :class:`Document` in ``unit`` (a
    document built without a unit is taken as it is); anything else is an
    :class:`~spacy_span_eval.errors.InvalidInputError` naming the item."""
    for i, doc in enumerate(docs):
        if not isinstance(doc, Document):
            raise InvalidInputError(
                f"item {i} of the documents (counting from 0) is {type(doc).__name__} "
                f"{show(doc)}, not a Document; build one with Document.create(...)")
        if doc.unit is not None and doc.unit != unit:
            raise InvalidInputError(
                f"document {doc.id!r} (item {i}) is in {doc.unit} unit, but the evaluator "
                f"scores in {unit} unit; create the documents in {unit} unit or the "
                f"evaluator with unit={doc.unit!r}")
        yield doc


def batches(docs: Iterable[Document], size: int) -> Iterator[list[Document]]:
    it = iter(docs)
    while chunk := list(islice(it, size)):
        yield chunk


def documents_to_batch(docs: Sequence[Document]) -> SpanBatch:
    """Flatten documents into columns; labels are interned per batch."""
    label_ids: dict[str, int] = {}

    def side(spans_of) -> SpanColumns:
        per_doc = [spans_of(d) for d in docs]
        counts = np.fromiter(map(len, per_doc), dtype=INT, count=len(per_doc))
        spans = list(chain.from_iterable(per_doc))
        if not spans:
            return SpanColumns.empty()
        n = len(spans)
        intern = label_ids.setdefault
        labels = [intern(label, len(label_ids)) for label in map(_label, spans)]
        doc = np.repeat(np.arange(len(per_doc), dtype=INT), counts)
        item = np.arange(n, dtype=INT) - np.repeat(np.cumsum(counts) - counts, counts)
        return SpanColumns(doc, np.fromiter(map(_start, spans), dtype=INT, count=n),
                           np.fromiter(map(_end, spans), dtype=INT, count=n),
                           np.array(labels, dtype=INT), item)

    gold = side(lambda d: d.gold)
    pred = side(lambda d: d.pred)
    unaligned = [(d_i, span, reason) for d_i, doc in enumerate(docs)
                 for span, reason in doc.unaligned_pred]
    unaligned_gold = [(d_i, span, reason) for d_i, doc in enumerate(docs)
                      for span, reason in doc.unaligned_gold]
    return SpanBatch(
        doc_ids=[d.id for d in docs],
        lengths=np.fromiter((d.length for d in docs), dtype=INT, count=len(docs)),
        gold=gold,
        pred=pred,
        labels=list(label_ids),
        texts=[d.text for d in docs],
        tokens=[d.tokens for d in docs],
        unaligned=unaligned,
        unaligned_gold=unaligned_gold,
    )
