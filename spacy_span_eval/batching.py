"""Turning documents into columnar batches (and the batch type the engine consumes)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice

import numpy as np

from .columns import INT, SpanColumns
from .spans import Document, Span


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

    def __len__(self) -> int:
        return len(self.doc_ids)


def batches(docs: Iterable[Document], size: int) -> Iterator[list[Document]]:
    it = iter(docs)
    while chunk := list(islice(it, size)):
        yield chunk


def documents_to_batch(docs: Sequence[Document]) -> SpanBatch:
    """Flatten documents into columns; labels are interned per batch."""
    label_ids: dict[str, int] = {}

    def side(get) -> SpanColumns:
        doc_col: list[int] = []
        rows: list[tuple[int, int, int]] = []
        item_col: list[int] = []
        for d_i, doc in enumerate(docs):
            spans = get(doc)
            doc_col.extend([d_i] * len(spans))
            item_col.extend(range(len(spans)))
            rows.extend((s.start, s.end, label_ids.setdefault(s.label, len(label_ids)))
                        for s in spans)
        if not rows:
            return SpanColumns.empty()
        arr = np.array(rows, dtype=INT).reshape(-1, 3)
        return SpanColumns(np.array(doc_col, dtype=INT), arr[:, 0], arr[:, 1], arr[:, 2],
                           np.array(item_col, dtype=INT))

    gold = side(lambda d: d.gold)
    pred = side(lambda d: d.pred)
    unaligned = [(d_i, span, reason) for d_i, doc in enumerate(docs)
                 for span, reason in doc.unaligned_pred]
    return SpanBatch(
        doc_ids=[d.id for d in docs],
        lengths=np.fromiter((d.length for d in docs), dtype=INT, count=len(docs)),
        gold=gold,
        pred=pred,
        labels=list(label_ids),
        texts=[d.text for d in docs],
        tokens=[d.tokens for d in docs],
        unaligned=unaligned,
    )
