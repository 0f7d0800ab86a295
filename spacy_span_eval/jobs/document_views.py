"""The documents an error browser shows: their content and their (mapped) spans, taken from
the batches as they are scored, for the documents the kept error records point to only."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from ..engine.batching import SpanBatch
from ..engine.columns import SpanColumns
from ..engine.evaluator import SpanEvaluator
from ..engine.settings import BASE_LEVEL
from ..engine.spans import Span
from ..engine.tally import Tally

__all__ = ["DocumentView", "error_documents", "views_of"]


@dataclass(frozen=True)
class DocumentView:
    """A document the error browser shows: its content and its (mapped) spans."""

    id: str
    unit: str
    text: str | None
    tokens: tuple[str, ...] | None
    gold: tuple[Span, ...]
    pred: tuple[Span, ...]


def error_documents(tally: Tally) -> set[str]:
    """The documents the tally's kept error records (of the labels themselves) point to."""
    return {e.document for errors in tally.views[BASE_LEVEL].errors for e in errors}


def views_of(
    batch: SpanBatch, wanted: Iterable[str], evaluator: SpanEvaluator
) -> dict[str, DocumentView]:
    """The documents of ``batch`` named in ``wanted``, as the evaluator sees them: the spans
    of the labels it scores, under its label map, in their own order."""
    wanted = set(wanted)
    if not wanted:
        return {}
    batch = evaluator.projection.select(batch)
    label_map = evaluator.label_map
    mapped: Callable[[str], str] = label_map if label_map is not None else str
    unit = evaluator.settings.unit
    out: dict[str, DocumentView] = {}
    for i, doc_id in enumerate(batch.doc_ids):
        if doc_id in wanted and doc_id not in out:
            out[doc_id] = _view(batch, i, doc_id, unit, mapped)
    return out


def _view(
    batch: SpanBatch, i: int, doc_id: str, unit: str, mapped: Callable[[str], str]
) -> DocumentView:
    def spans(cols: SpanColumns) -> tuple[Span, ...]:
        rows = np.flatnonzero(cols.doc == i)
        rows = rows[np.argsort(cols.item[rows], kind="stable")]
        return tuple(
            Span(int(cols.start[r]), int(cols.end[r]), mapped(batch.labels[int(cols.label[r])]))
            for r in rows.tolist()
        )

    text = batch.texts[i] if batch.texts is not None else None
    tokens = batch.tokens[i] if batch.tokens is not None else None  # (per document: or None)
    return DocumentView(
        doc_id,
        unit,
        text,
        tuple(tokens) if tokens is not None else None,
        spans(batch.gold),
        spans(batch.pred),
    )
