"""Units of work, scored one by one and merged back in stream order.

The shared machinery of every scoring road (:mod:`.scoring`): in this process, local process
pools (:class:`.scoring.InPool`), parallel reading (:mod:`.parallel_reading`) and Dask clusters
(:mod:`.dask_scoring`). A unit of work is a run of whole batches (:func:`score_batches`), a
worker scores one, and the caller merges the answers in submission order, so the result
equals ``evaluator.tally_batches(batches)`` whatever runs the units.

A unit may also keep the documents an error browser shows (:class:`DocumentView`: their
content and their mapped spans), taken from the batches as they are scored, for the documents
the kept error records point to only.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Protocol, TypeVar

import numpy as np

from ..engine.batching import SpanBatch, document_batches, documents_to_batch
from ..engine.columns import SpanColumns
from ..engine.evaluator import SpanEvaluator
from ..engine.settings import BASE_LEVEL, Settings
from ..engine.spans import Document, Span
from ..engine.tally import Tally

#: Default chunk: this many engine batches (``evaluator.batch_size`` documents each).
BATCHES_PER_CHUNK = 4

T = TypeVar("T")


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


@dataclass
class Part:
    """What a unit of work gives back: its tally and, when asked for them, the documents its
    kept error records point to (for an error browser). Parts add up in stream order."""

    tally: Tally
    documents: dict[str, DocumentView] = field(default_factory=dict)

    def __add__(self, other: Part) -> Part:
        return Part(self.tally + other.tally, {**other.documents, **self.documents})

    def shown(self) -> Part:
        """This part with only the documents its (merged) error records point to."""
        wanted = error_documents(self.tally)
        return Part(self.tally, {k: v for k, v in self.documents.items() if k in wanted})


def score_batches(
    evaluator: SpanEvaluator, span_batches: Iterable[SpanBatch], *, views: bool = False
) -> Part:
    """The unit of work of every road: batches scored in order into a :class:`Part`.

    ``views``: also keep the documents the kept error records point to, as each batch
    passes (only those: the rest of the corpus streams by).
    """
    if not views:
        return Part(evaluator.tally_batches(span_batches))
    total = Tally.empty(evaluator.settings)
    kept: dict[str, DocumentView] = {}
    for batch in span_batches:
        evaluator.tally_batches((batch,), into=total)
        pointed = error_documents(total)
        if kept.keys() - pointed:  # documents of records the sample has let go of
            kept = {k: view for k, view in kept.items() if k in pointed}
        kept.update(views_of(batch, pointed - kept.keys(), evaluator))
    return Part(total, kept)


def score_chunk(
    evaluator: SpanEvaluator,
    chunk: Sequence[Any],
    views: bool = False,
    *,
    parse: Callable[[Any], Document] | None = None,
) -> Part:
    """The unit of work of a pool or a cluster: a chunk of batches (:func:`score_batches`),
    or with ``parse`` a chunk of batch-sized lists of raw items, made documents here."""
    if parse is None:
        return score_batches(evaluator, chunk, views=views)
    parsed = (documents_to_batch([parse(item) for item in items]) for items in chunk)
    return score_batches(evaluator, parsed, views=views)


def chunk_batches(items: Iterable[T], per_chunk: int = BATCHES_PER_CHUNK) -> Iterator[list[T]]:
    """Items (batches, by default) in lists of ``per_chunk``, a unit of work each."""
    it = iter(items)
    while chunk := list(islice(it, per_chunk)):
        yield chunk


def chunk_documents(
    docs: Iterable[Any],
    evaluator: SpanEvaluator,
    partition_size: int | None = None,
    *,
    parse: Callable[[Any], Document] | None = None,
) -> Iterator[list[Any]]:
    """Chunks cut exactly where ``evaluator.tally`` would cut batches: lists of columnar
    batches, or (with ``parse``) lists of batch-sized lists of raw items.

    Whole batches: each worker then scores exactly the batches one process would (same
    sizes, same label interning), which keeps "identical" easy to reason about.
    """
    size = evaluator.batch_size
    if partition_size is not None and partition_size < 1:
        raise ValueError(
            f"partition_size must be a positive number of documents, not {partition_size!r}"
        )
    per_chunk = BATCHES_PER_CHUNK if partition_size is None else -(-partition_size // size)
    groups: Iterator[Any] = (
        document_batches(docs, evaluator.settings.unit, size)
        if parse is None
        else chunk_batches(docs, size)
    )
    yield from chunk_batches(groups, per_chunk)


class _Result(Protocol):
    def result(self) -> Any: ...

    def cancel(self) -> bool: ...


def merge_in_order(
    submit: Callable[[Any], _Result],
    chunks: Iterable[Any],
    *,
    settings: Settings,
    max_in_flight: int,
    start: Any = None,
) -> Any:
    """Submit chunks while at most ``max_in_flight`` are unmerged; merge in submission order.

    Waiting on the oldest chunk (not the first to finish) is what keeps the error records in
    stream order; the bound (a road's slots, doubled) is what keeps memory flat on a corpus
    of any size. The answers (tallies, or :class:`Part` values) are added to ``start``
    (default: an empty tally).
    """
    total = Tally.empty(settings) if start is None else start
    pending: deque[_Result] = deque()
    try:
        for chunk in chunks:
            pending.append(submit(chunk))
            if len(pending) >= max_in_flight:
                total = total + pending.popleft().result()
        while pending:
            total = total + pending.popleft().result()
    except BaseException:
        for future in pending:
            future.cancel()
        raise
    return total
