"""File pairs read straight into :class:`~spacy_span_eval.batching.SpanBatch` columns.

The reference route is records -> :func:`.pairing.pair_records` -> ``Document`` objects ->
columns. For the formats where that is most of the run time, this module builds the columns
directly, with the same documents, spans, counts and errors:

* two CoNLL files: :func:`.conll_columns.conll_pair_batches` (no object per token or span);
* two character-offset JSON files (JSONL / presidio, either way round):
  :func:`char_pair_batches` (records paired by id or position as the reference pairs them;
  spans stay arrays from the reader to the engine).

:func:`read_columns` picks the route for a command (``None``: the reference route applies);
the evaluate job scores the batches.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from itertools import islice
from pathlib import Path

import numpy as np

from ..engine.batching import SpanBatch
from ..engine.columns import INT, SpanColumns
from ..errors import InvalidInputError
from .aligned import Side, aligned
from .base import check_readable, empty_input
from .conll_columns import conll_pair_batches
from .jsonio import is_json_array
from .jsonl import JSONL_FIELDS, CharChunk, Fields, char_record_chunks
from .pairing import SideInfo, pair_records, to_document
from .presidio import PRESIDIO_FIELDS
from .ranges import ByteRange, RangePair, plan_ranges

__all__ = ["CHAR_FIELDS", "char_pair_batches", "column_ranges", "read_columns"]

_BOM = b"\xef\xbb\xbf"

CHAR_FIELDS: dict[str, Fields] = {"jsonl": JSONL_FIELDS, "presidio": PRESIDIO_FIELDS}
#: Documents per batch of character-offset records.
CHAR_BATCH = 4096


def read_columns(gold: Path | str, pred: Path | str, *, gold_format: str, pred_format: str,
                 unit: str, gold_options, pred_options, parts: RangePair | None = None
                 ) -> tuple[Iterator[SpanBatch], dict[str, SideInfo]] | None:
    """Batches and per-side :class:`SideInfo` for a file pair, or ``None`` when the pair is
    not one this module reads (the caller then takes the reference route).

    ``*_options`` are :class:`~spacy_span_eval.readers.ReadOptions`. Missing files raise
    as :func:`~spacy_span_eval.readers.read` does, gold first. ``parts``: read only those
    ranges of the files (one of :func:`column_ranges`'s pairs).
    """
    route = _route(gold_format, pred_format, unit, gold_options, pred_options)
    if route is None:
        return None
    for path in (gold, pred):
        check_readable(path)
    info = {"gold": SideInfo(str(gold), gold_format), "predicted": SideInfo(str(pred),
                                                                            pred_format)}
    if route == "conll":
        batches = conll_pair_batches(
            gold, pred, scheme=gold_options.scheme, repair=gold_options.repair,
            gold_tag_column=gold_options.tag_column, pred_tag_column=pred_options.tag_column,
            delimiter=gold_options.delimiter, comment=gold_options.comment, unit=unit,
            gold_info=info["gold"], pred_info=info["predicted"], parts=parts)
    else:
        batches = char_pair_batches(
            gold, pred, gold_fields=CHAR_FIELDS[gold_format],
            pred_fields=CHAR_FIELDS[pred_format], gold_side=gold_options.side,
            pred_side=pred_options.side, gold_info=info["gold"], pred_info=info["predicted"],
            parts=parts)
    return batches, info


def column_ranges(gold: Path | str, pred: Path | str, *, gold_format: str, pred_format: str,
                  unit: str, gold_options, pred_options, part_bytes: int
                  ) -> Iterator[RangePair] | None:
    """How to read the pair in ranges that can be read apart (:mod:`.ranges`), or ``None``
    where it is read in one piece: pairs :func:`read_columns` does not read, and a JSON
    array (its element boundaries need a scan of every string from the start). Records that
    pair by id are cut as if by position, with ``same_ids`` set: a range's reader then
    checks that its pairs have equal ids, and the caller that no id repeats across ranges
    (records in the same order in both files; see ``docs/parallel.md``)."""
    route = _route(gold_format, pred_format, unit, gold_options, pred_options)
    if route is None:
        return None
    if route == "conll":
        return plan_ranges(gold, pred, rule="paragraph", part_bytes=part_bytes)
    try:
        if is_json_array(gold) or is_json_array(pred):
            return None
        first = [_first_record(path) for path in (gold, pred)]
    except OSError:
        return None  # the reading route names the problem
    if any(record is None for record in first):
        return None  # the reading route names the problem
    fields = (CHAR_FIELDS[gold_format], CHAR_FIELDS[pred_format])
    by_id = all(record.get(f.id) is not None for record, f in zip(first, fields, strict=True))
    plan = plan_ranges(gold, pred, rule="line", part_bytes=part_bytes)
    return (replace(part, same_ids=True) for part in plan) if by_id else plan


def _route(gold_format: str, pred_format: str, unit: str, gold_options, pred_options
           ) -> str | None:
    """``"conll"``, ``"chars"``, or ``None`` where this module does not read the pair."""
    if gold_format == pred_format == "conll" and unit in ("token", "char"):
        if (gold_options.scheme != pred_options.scheme
                or gold_options.repair != pred_options.repair
                or gold_options.delimiter != pred_options.delimiter
                or gold_options.comment != pred_options.comment):
            return None
        return "conll"
    if gold_format in CHAR_FIELDS and pred_format in CHAR_FIELDS and unit == "char":
        return "chars"
    return None


def _first_record(path: Path | str) -> dict | None:
    """The first record of a JSON Lines file as a dict (``None``: not one)."""
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh):
            line = raw[len(_BOM):] if n == 0 and raw.startswith(_BOM) else raw
            if line.strip():
                try:
                    value = json.loads(line)
                except ValueError:
                    return None
                return value if isinstance(value, dict) else None
    return None


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


def _chunks(path: Path | str, fields: Fields, side: str, part: ByteRange | None = None
            ) -> Iterator[CharChunk]:
    """The file's chunks, and an empty one carrying the error when it has no record (not
    for a ``part`` of the file)."""
    seen = 0
    for chunk in char_record_chunks(path, fields, side=side, part=part):
        seen += len(chunk)
        yield chunk
    if not seen and part is None:
        z = np.zeros(0, dtype=INT)
        yield CharChunk(path, [], [], [], np.zeros(1, dtype=INT), z, z, z, [],
                        lambda: empty_input(path, "records"))


def _refs(side: Side) -> Iterator[_Ref]:
    """The records a side has left, one at a time; its error where the reference raises it."""
    while n := side.available():
        chunk, lo, hi = side.take(n)
        for i in range(lo, hi):
            yield _Ref(chunk, i)
    if side.error is not None:
        raise side.error()


def char_pair_batches(gold: Path | str, pred: Path | str, *, gold_fields: Fields = JSONL_FIELDS,
                      pred_fields: Fields = JSONL_FIELDS, gold_side: str = "gold",
                      pred_side: str = "predicted", gold_info: SideInfo | None = None,
                      pred_info: SideInfo | None = None, batch_size: int = CHAR_BATCH,
                      parts: RangePair | None = None) -> Iterator[SpanBatch]:
    """Char-unit batches of two JSON record files, paired as :func:`pair_records` pairs them
    (by id when both first records have one, else by position).

    Same documents and errors as ``documents(pair_records(read(gold), read(pred)),
    unit="char")``. ``parts``: only those ranges of two JSON Lines files, their records
    paired by position (a worker's share of a file pair that pairs by position).
    """
    g = Side(_chunks(gold, gold_fields, gold_side, None if parts is None else parts.gold))
    p = Side(_chunks(pred, pred_fields, pred_side, None if parts is None else parts.pred))
    if parts is None and (g.available() and p.available() and g.block.ids[g.at] is not None
                          and p.block.ids[p.at] is not None):
        batches = _by_id(g, p, str(gold), str(pred), batch_size)
    else:
        batches = _by_position(g, p, str(gold), str(pred), batch_size,
                               same_ids=parts is not None and parts.same_ids)
    for batch in batches:
        for info, cols in ((gold_info, batch.gold), (pred_info, batch.pred)):
            if info is not None:
                info.documents += len(batch)
                info.spans += len(cols)
        yield batch


def _by_position(g: Side, p: Side, gold_name: str, pred_name: str, size: int, *,
                 same_ids: bool = False) -> Iterator[SpanBatch]:
    done = 0
    for gc, glo, ghi, pc, plo, phi in aligned(g, p, gold_name=gold_name, pred_name=pred_name,
                                              where=lambda c, i: c.where(i), most=size):
        ids = gc.ids[glo:ghi]
        if same_ids and (ids != pc.ids[plo:phi] or None in ids):
            raise InvalidInputError(f"{gold_name}, {pred_name}: records do not pair by id in "
                                    "the order they come")  # (read again in one piece)
        texts = gc.texts[glo:ghi]
        if texts != pc.texts[plo:phi]:
            for k, (a, b) in enumerate(zip(texts, pc.texts[plo:phi], strict=True)):
                if a != b:
                    to_document(gc.record(glo + k), pc.record(plo + k), index=done + k + 1,
                                unit="char")  # raises the reference's error
        labels: dict[str, int] = {}
        gold_cols = _slice_columns(gc, glo, ghi, labels)
        pred_cols = _slice_columns(pc, plo, phi, labels)
        yield SpanBatch(doc_ids=gc.keys(glo, ghi),
                        lengths=np.fromiter(map(len, texts), dtype=INT, count=len(texts)),
                        gold=gold_cols, pred=pred_cols, labels=list(labels), texts=texts,
                        tokens=[None] * len(texts))
        done += ghi - glo


def _slice_columns(chunk: CharChunk, lo: int, hi: int, labels: dict[str, int]) -> SpanColumns:
    a, z = int(chunk.span_off[lo]), int(chunk.span_off[hi])
    if a == z:
        return SpanColumns.empty()
    counts = np.diff(chunk.span_off[lo:hi + 1])
    remap = np.array([labels.setdefault(name, len(labels)) for name in chunk.labels],
                     dtype=INT)
    doc = np.repeat(np.arange(hi - lo, dtype=INT), counts)
    item = np.arange(z - a, dtype=INT) - np.repeat(np.cumsum(counts) - counts, counts)
    return SpanColumns(doc, chunk.start[a:z], chunk.end[a:z], remap[chunk.label[a:z]], item)


def _by_id(g: Side, p: Side, gold_name: str, pred_name: str, size: int
           ) -> Iterator[SpanBatch]:
    pairs = pair_records(_refs(g), _refs(p), gold_name=gold_name, pred_name=pred_name)
    done = 0
    while group := list(islice(_same_texts(pairs, done), size)):
        gold_refs = [r for r, _ in group]
        pred_refs = [r for _, r in group]
        texts = [r.chunk.texts[r.i] for r in gold_refs]
        labels: dict[str, int] = {}
        gold_cols = _columns(gold_refs, labels)
        pred_cols = _columns(pred_refs, labels)
        yield SpanBatch(
            doc_ids=[r.id if r.id is not None else r.chunk.key(r.i) for r in gold_refs],
            lengths=np.fromiter(map(len, texts), dtype=INT, count=len(texts)),
            gold=gold_cols, pred=pred_cols, labels=list(labels), texts=texts,
            tokens=[None] * len(texts))
        done += len(group)


def _same_texts(pairs: Iterator[tuple[_Ref, _Ref]], done: int
                ) -> Iterator[tuple[_Ref, _Ref]]:
    """The pairs, each checked as it comes (before the next is read, as the reference
    does): differing texts raise the reference's error."""
    for k, (g, p) in enumerate(pairs, done + 1):
        if g.chunk.texts[g.i] != p.chunk.texts[p.i]:
            to_document(g.chunk.record(g.i), p.chunk.record(p.i), index=k, unit="char")
        yield g, p


def _columns(refs: list[_Ref], labels: dict[str, int]) -> SpanColumns:
    """The spans of ``refs`` (one document each, in order), gathered from their chunks."""
    parts = []
    k = 0
    n = len(refs)
    while k < n:
        chunk = refs[k].chunk
        stop = k + 1
        while stop < n and refs[stop].chunk is chunk:
            stop += 1
        rows = np.fromiter((r.i for r in refs[k:stop]), dtype=INT, count=stop - k)
        lo, hi = chunk.span_off[rows], chunk.span_off[rows + 1]
        counts = hi - lo
        index = np.repeat(lo - (np.cumsum(counts) - counts), counts) + np.arange(
            int(counts.sum()), dtype=INT)
        remap = np.array([labels.setdefault(name, len(labels)) for name in chunk.labels],
                         dtype=INT)
        parts.append((np.repeat(np.arange(k, stop, dtype=INT), counts), chunk.start[index],
                      chunk.end[index], remap[chunk.label[index]] if remap.shape[0] else
                      chunk.label[index], counts))
        k = stop
    doc = np.concatenate([p[0] for p in parts])
    if not doc.shape[0]:
        return SpanColumns.empty()
    counts = np.concatenate([p[4] for p in parts])
    item = np.arange(doc.shape[0], dtype=INT) - np.repeat(np.cumsum(counts) - counts, counts)
    return SpanColumns(doc, np.concatenate([p[1] for p in parts]).astype(INT),
                       np.concatenate([p[2] for p in parts]).astype(INT),
                       np.concatenate([p[3] for p in parts]).astype(INT), item)
