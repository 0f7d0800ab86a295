"""Two character-offset JSON files (JSON Lines / presidio, either way round) read straight
into :class:`~spacy_span_eval.engine.batching.SpanBatch` columns: records paired by id or by
position as :func:`.pairing.pair_records` pairs them, spans kept as arrays from the reader to
the engine. The CoNLL counterpart is :mod:`.conll_columns`; :mod:`.columnar` picks the route.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import groupby, islice
from pathlib import Path
from typing import Protocol, cast

import numpy as np

from ..engine.batching import SpanBatch, documents_to_batch
from ..engine.columns import INT, SpanColumns
from ..errors import InvalidInputError
from .align import SideInfo
from .aligned import Side, aligned
from .base import Record
from .char_align import TextPairing
from .jsonl import JSONL_FIELDS, PRESIDIO_FIELDS, CharChunk, Fields, char_record_chunks
from .pairing import pair_records, to_document
from .ranges import RangePair

__all__ = ["CHAR_BATCH", "CHAR_FIELDS", "char_pair_batches"]

CHAR_FIELDS: dict[str, Fields] = {"jsonl": JSONL_FIELDS, "presidio": PRESIDIO_FIELDS}
#: Documents per batch of character-offset records.
CHAR_BATCH = 4096


# -- character-offset records ---------------------------------------------------------------


class _Ref:
    """One record of a chunk, as :func:`.pairing.pair_records` sees it."""

    __slots__ = ("chunk", "i", "id")

    def __init__(self, chunk: CharChunk, i: int) -> None:
        self.chunk, self.i = chunk, i
        self.id = chunk.ids[i]

    @property
    def where(self) -> str:
        return self.chunk.where(self.i)


class _PairRefs(Protocol):
    """:func:`.pairing.pair_records` over :class:`_Ref` records."""

    def __call__(
        self, gold: Iterable[_Ref], pred: Iterable[_Ref], *, gold_name: str, pred_name: str
    ) -> Iterator[tuple[_Ref, _Ref]]: ...


# pair_records is annotated for Record, but it reads only ``id`` and ``where`` of what it
# pairs and yields the objects it was given; _Ref has both, so it pairs refs as they are.
_pair_refs = cast(_PairRefs, pair_records)


def _refs(side: Side) -> Iterator[_Ref]:
    """The records a side has left, one at a time; its error where the reference raises it."""
    while n := side.available():
        chunk, lo, hi = side.take(n)
        for i in range(lo, hi):
            yield _Ref(chunk, i)
    if side.error is not None:
        raise side.error()


def char_pair_batches(
    gold: Path | str,
    pred: Path | str,
    *,
    gold_fields: Fields = JSONL_FIELDS,
    pred_fields: Fields = JSONL_FIELDS,
    gold_side: str = "gold",
    pred_side: str = "predicted",
    gold_info: SideInfo | None = None,
    pred_info: SideInfo | None = None,
    batch_size: int = CHAR_BATCH,
    parts: RangePair | None = None,
) -> Iterator[SpanBatch]:
    """Char-unit batches of two JSON record files, paired as :func:`pair_records` pairs them
    (by id when both first records have one, else by position).

    Same documents and errors as ``documents(pair_records(read(gold), read(pred)),
    unit="char")``. ``parts``: only those ranges of two JSON Lines files, their records
    paired by position (a worker's share of a file pair that pairs by position).
    """
    # texts equal up to trailing whitespace pair (counted): such a batch goes through documents
    texts = TextPairing("text", pred_info.notes if pred_info is not None else None)
    g = Side(
        char_record_chunks(
            gold, gold_fields, side=gold_side, part=None if parts is None else parts.gold
        )
    )
    p = Side(
        char_record_chunks(
            pred, pred_fields, side=pred_side, part=None if parts is None else parts.pred
        )
    )
    if parts is None and (
        g.available()
        and p.available()
        and g.block.ids[g.at] is not None
        and p.block.ids[p.at] is not None
    ):
        batches = _by_id(g, p, str(gold), str(pred), batch_size, texts)
    else:
        batches = _by_position(
            g,
            p,
            str(gold),
            str(pred),
            batch_size,
            texts,
            same_ids=parts is not None and parts.same_ids,
        )
    for batch in batches:
        for info, cols, lost in (
            (gold_info, batch.gold, batch.unaligned_gold),
            (pred_info, batch.pred, batch.unaligned),
        ):
            if info is not None:
                info.documents += len(batch)
                info.spans += len(cols) + len(lost)
        yield batch


def _by_position(
    g: Side,
    p: Side,
    gold_name: str,
    pred_name: str,
    size: int,
    pairing: TextPairing,
    *,
    same_ids: bool = False,
) -> Iterator[SpanBatch]:
    for gc, glo, ghi, pc, plo, phi in aligned(
        g, p, gold_name=gold_name, pred_name=pred_name, where=lambda c, i: c.where(i), most=size
    ):
        ids = gc.ids[glo:ghi]
        if same_ids and (ids != pc.ids[plo:phi] or None in ids):
            raise InvalidInputError(
                f"{gold_name}, {pred_name}: records do not pair by id in the order they come"
            )  # (read again in one piece)
        texts = gc.texts[glo:ghi]
        if texts != pc.texts[plo:phi]:  # the reference's error, or texts that still pair
            pairs = [(gc.record(glo + k), pc.record(plo + k)) for k in range(ghi - glo)]
            yield _through_documents(pairs, pairing)
            continue
        labels: dict[str, int] = {}
        gold_cols = _slice_columns(gc, glo, ghi, labels)
        yield _batch(
            gc.keys(glo, ghi), texts, gold_cols, _slice_columns(pc, plo, phi, labels), labels
        )


def _batch(
    doc_ids: list[str],
    texts: list[str],
    gold: SpanColumns,
    pred: SpanColumns,
    labels: dict[str, int],
) -> SpanBatch:
    return SpanBatch(
        doc_ids=doc_ids,
        lengths=np.fromiter(map(len, texts), dtype=INT, count=len(texts)),
        gold=gold,
        pred=pred,
        labels=list(labels),
        texts=texts,
        tokens=[None] * len(texts),
    )


def _remap(chunk: CharChunk, labels: dict[str, int]) -> np.ndarray:
    """The batch's label id of each of the chunk's labels (new ones added to ``labels``)."""
    return np.array([labels.setdefault(name, len(labels)) for name in chunk.labels], dtype=INT)


def _items(counts: np.ndarray) -> np.ndarray:
    """Each span's index within its document, for documents of ``counts`` spans."""
    items = np.arange(int(counts.sum()), dtype=INT)
    items -= np.repeat(np.cumsum(counts) - counts, counts)
    return items


def _slice_columns(chunk: CharChunk, lo: int, hi: int, labels: dict[str, int]) -> SpanColumns:
    a, z = int(chunk.span_off[lo]), int(chunk.span_off[hi])
    if a == z:
        return SpanColumns.empty()
    counts = np.diff(chunk.span_off[lo : hi + 1])
    doc = np.repeat(np.arange(hi - lo, dtype=INT), counts)
    label = _remap(chunk, labels)[chunk.label[a:z]]
    score = None if chunk.score is None else chunk.score[a:z]
    return SpanColumns(doc, chunk.start[a:z], chunk.end[a:z], label, _items(counts), score)


def _by_id(
    g: Side, p: Side, gold_name: str, pred_name: str, size: int, pairing: TextPairing
) -> Iterator[SpanBatch]:
    pairs = _pair_refs(_refs(g), _refs(p), gold_name=gold_name, pred_name=pred_name)
    while group := list(islice(_same_texts(pairs), size)):
        if any(g.chunk.texts[g.i] != p.chunk.texts[p.i] for g, p in group):
            records = [(g.chunk.record(g.i), p.chunk.record(p.i)) for g, p in group]
            yield _through_documents(records, pairing)
            continue
        gold_refs = [r for r, _ in group]
        texts = [r.chunk.texts[r.i] for r in gold_refs]
        labels: dict[str, int] = {}
        gold_cols = _columns(gold_refs, labels)
        pred_cols = _columns([r for _, r in group], labels)
        doc_ids = [r.id if r.id is not None else r.chunk.key(r.i) for r in gold_refs]
        yield _batch(doc_ids, texts, gold_cols, pred_cols, labels)


def _same_texts(pairs: Iterator[tuple[_Ref, _Ref]]) -> Iterator[tuple[_Ref, _Ref]]:
    """The pairs, each checked as it comes (before the next is read, as the reference
    does): differing texts raise the reference's error unless they pair all the same."""
    for g, p in pairs:
        if g.chunk.texts[g.i] != p.chunk.texts[p.i]:
            to_document(g.chunk.record(g.i), p.chunk.record(p.i), unit="char", texts=_CHECK)
        yield g, p


#: Texts checked to pair, not counted (the batch that holds them counts them).
_CHECK = TextPairing("text")


def _through_documents(pairs: list[tuple[Record, Record]], pairing: TextPairing) -> SpanBatch:
    """The batch of record ``pairs`` built through documents, as
    the reference builds it: where texts differ, the reference's error, or texts that pair
    all the same (:mod:`.char_align`: trailing whitespace, counted)."""
    docs = [to_document(g, p, unit="char", texts=pairing) for g, p in pairs]
    return documents_to_batch(docs)


def _columns(refs: list[_Ref], labels: dict[str, int]) -> SpanColumns:
    """The spans of ``refs`` (one document each, in order), gathered from their chunks."""
    parts = []
    k = 0
    for _, group in groupby(refs, key=lambda r: id(r.chunk)):
        run = list(group)
        chunk = run[0].chunk
        rows = np.fromiter((r.i for r in run), dtype=INT, count=len(run))
        lo = chunk.span_off[rows]
        counts = chunk.span_off[rows + 1] - lo
        index = np.repeat(lo, counts) + _items(counts)
        doc = np.repeat(np.arange(k, k + len(run), dtype=INT), counts)
        label = _remap(chunk, labels)[chunk.label[index]]
        score = np.full(len(index), np.nan) if chunk.score is None else chunk.score[index]
        parts.append((doc, chunk.start[index], chunk.end[index], label, counts, score))
        k += len(run)
    doc, start, end, label, counts, score = (np.concatenate(c) for c in zip(*parts, strict=True))
    if not doc.shape[0]:
        return SpanColumns.empty()
    scored = not np.isnan(score).all()
    return SpanColumns(doc, start, end, label, _items(counts), score if scored else None)
