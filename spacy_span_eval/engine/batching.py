"""Turning documents into columnar batches (and the batch type the engine consumes)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from operator import attrgetter
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import InvalidInputError
from .columns import INT, SpanColumns, ramp
from .spans import LABEL_NAMES, Document, Span, gold_rows, pred_rows, show


@runtime_checkable
class SpanTexts(Protocol):
    """A batch's ``texts`` or ``tokens`` that also read many spans' texts at once: each
    span's text as the engine cuts it from its document (the characters ``start:end`` of the
    text; the tokens ``start:end`` joined by single spaces), without reading whole documents.
    """

    def span_texts(self, docs: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> list[str]:
        """The texts of the spans ``(docs[k], starts[k], ends[k])``."""
        ...


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
    # Predictions given as strings: (document index, Span(0, 0, label), the string) of each,
    # and the documents whose predictions are strings (:mod:`.strings`).
    strings: Sequence[tuple[int, Span, str]] = field(default=())
    string_docs: Sequence[int] = field(default=())

    def __len__(self) -> int:
        return len(self.doc_ids)


def checked_documents(docs: Iterable[object], unit: str) -> Iterator[Document]:
    """The documents of a stream, each checked to be a :class:`Document` in ``unit`` (a
    document built without a unit is taken as it is); anything else is an
    :class:`~spacy_span_eval.errors.InvalidInputError` naming the item."""
    for i, doc in enumerate(docs):
        if not isinstance(doc, Document):
            raise InvalidInputError(
                f"item {i} of the documents (counting from 0) is {type(doc).__name__} "
                f"{show(doc)}, not a Document; build one with Document.create(...)"
            )
        if doc.unit is not None and doc.unit != unit:
            raise InvalidInputError(
                f"document {doc.id!r} (item {i}) is in {doc.unit} unit, but the evaluator "
                f"scores in {unit} unit; create the documents in {unit} unit or the "
                f"evaluator with unit={doc.unit!r}"
            )
        yield doc


def document_batches(docs: Iterable[object], unit: str, size: int) -> Iterator[SpanBatch]:
    """Documents as columnar batches of ``size`` (the last may be shorter), each document
    checked to be a :class:`~.spans.Document` in ``unit`` (:func:`checked_documents`)."""
    checked = checked_documents(docs, unit)
    while chunk := list(islice(checked, size)):
        yield documents_to_batch(chunk)


def documents_to_batch(docs: Sequence[Document]) -> SpanBatch:
    """Flatten documents into columns; labels are interned per batch, in order of first
    appearance (gold spans first, then predicted).

    Each document's spans are stored packed (see :mod:`.spans`): the batch joins them and
    reads them as arrays, with a few C-level operations per document and none per span.
    Ids, texts and tokens are read from the documents when asked for.
    """
    n = len(docs)
    gold_raw = list(map(gold_rows, docs))
    pred_raw = list(map(pred_rows, docs))
    g_rows = np.fromiter(map(len, gold_raw), dtype=INT, count=n) // 24  # header included
    p_counts = np.fromiter(map(len, pred_raw), dtype=INT, count=n) // 24
    gold = np.frombuffer(b"".join(gold_raw), dtype=INT).reshape(-1, 3)
    pred = np.frombuffer(b"".join(pred_raw), dtype=INT).reshape(-1, 3)
    head_at = np.cumsum(g_rows) - g_rows
    head = gold[head_at]
    gold = np.delete(gold, head_at, axis=0)
    g_counts = g_rows - 1
    names, (g_label, p_label) = _local_labels(gold[:, 2], pred[:, 2])
    # The documents whose header flags unaligned spans or strings, read one by one.
    flagged = [(d_i, docs[d_i]) for d_i in np.flatnonzero(head[:, 1]).tolist()]
    return SpanBatch(
        doc_ids=_Read(docs, "id"),
        lengths=head[:, 0].copy(),
        gold=_columns(gold, g_label, g_counts),
        pred=_columns(pred, p_label, p_counts, _scores(docs, p_counts)),
        labels=names,
        texts=_Read(docs, "text"),
        tokens=_Read(docs, "tokens"),
        unaligned=[(d_i, *unaligned) for d_i, doc in flagged for unaligned in doc.unaligned_pred],
        unaligned_gold=[
            (d_i, *unaligned) for d_i, doc in flagged for unaligned in doc.unaligned_gold
        ],
        strings=[
            (d_i, Span(0, 0, label), text)
            for d_i, doc in flagged
            for label, text in doc.strings or ()
        ],
        string_docs=[d_i for d_i, doc in flagged if doc.strings is not None],
    )


def _columns(
    rows: np.ndarray, label: np.ndarray, counts: np.ndarray, score: np.ndarray | None = None
) -> SpanColumns:
    if not rows.shape[0]:
        return SpanColumns.empty()
    doc = np.repeat(np.arange(counts.shape[0], dtype=INT), counts)
    return SpanColumns(doc, rows[:, 0].copy(), rows[:, 1].copy(), label, ramp(counts), score)


def _scores(docs: Sequence[Document], counts: np.ndarray) -> np.ndarray | None:
    """The predictions' score column (NaN: none); ``None`` when no document has scores."""
    if all(d.scores is None for d in docs):
        return None
    nan = float("nan")
    return np.array(
        [c for d, n in zip(docs, counts.tolist(), strict=True) for c in d.scores or (nan,) * n],
        dtype=np.float64,
    )


def _local_labels(*sides: np.ndarray) -> tuple[list[str], list[np.ndarray]]:
    """Process-wide label ids (see :func:`.spans.label_id`) renumbered ``0, 1, ...`` in order
    of first appearance across ``sides``: ``(names, ids per side)``."""
    ids = np.concatenate(sides)
    if not ids.shape[0]:
        return [], list(sides)
    distinct = int(np.count_nonzero(np.bincount(ids)))
    look = 64
    while True:  # the first rows nearly always hold every label
        order = list(dict.fromkeys(ids[:look].tolist()))
        if len(order) == distinct:
            break
        look *= 4
    remap = np.zeros(max(order) + 1, dtype=INT)
    remap[order] = np.arange(len(order), dtype=INT)
    return [LABEL_NAMES[k] for k in order], [remap[s] for s in sides]


class _Read(Sequence[Any]):
    """One attribute of every document of a batch, read when asked for (ids, texts and
    tokens are only needed by error records and per-document rows); pickles as a list."""

    def __init__(self, docs: Sequence[Document], name: str) -> None:
        self.docs, self.get = docs, attrgetter(name)

    def __len__(self) -> int:
        return len(self.docs)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return list(map(self.get, self.docs[i]))
        return self.get(self.docs[i])

    def __iter__(self) -> Iterator[Any]:
        return map(self.get, self.docs)

    def __reduce__(self) -> tuple[type[list[Any]], tuple[list[Any]]]:
        return list, (list(self),)
