"""Which error records a batch adds: every FN annotation and FP prediction, each of its kind
(semantics §4: missed, wrong boundaries, wrong label, spurious).

Without a cap every record is kept. With a cap (``max_errors``) the kept ones are a
**stratified sample of the whole corpus**: each error gets a seeded pseudo-random priority from
its document id, offsets and side (:func:`record_priority`), the errors are grouped by kind and
label, and the records kept are those with the lowest (rank within their group, priority): the
first of every group, then the second of every group, and so on. So every kind and label is
shown before any gets a second record, the sample is spread over the documents, and it is the
same whatever the batch boundaries or the order the parts of a run are merged in (a record
never left out can come back). The ledger counts every error anyway. Either way a result
lists its records in :func:`document_order`, whatever order the documents came in.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import cast

import numpy as np

from .batching import SpanBatch, SpanTexts
from .columns import INT, SpanColumns
from .confusion import Misses
from .records import ErrorKind, ErrorRecord, Side, span_context
from .settings import Settings
from .verdicts import Verdicts

_GOLD, _PRED, _UNALIGNED_GOLD, _UNALIGNED = 0, 1, 2, 3
#: The kind of an error by side (gold, predicted) and code (:meth:`.confusion.Misses.kinds`).
_KINDS: tuple[tuple[ErrorKind, ...], ...] = (
    ("false_negative", "boundary", "wrong_label"),
    ("false_positive", "boundary", "wrong_label"),
)


#: Mixed into every record's priority: the same corpus keeps the same sample.
SAMPLE_SEED = 0x5EED
_SIDE_CODE = {"gold": 1, "predicted": 2}


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer over uint64 values (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        out: np.ndarray = x ^ (x >> np.uint64(31))
        return out


def _priorities(
    doc_hash: np.ndarray, start: np.ndarray, end: np.ndarray, side: np.ndarray
) -> np.ndarray:
    """Seeded pseudo-random priorities from a document's hash, offsets and side."""
    with np.errstate(over="ignore"):
        x = doc_hash.astype(np.uint64) ^ np.uint64(SAMPLE_SEED)
        for value in (start, end, side):
            x = _mix(x + value.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
        return _mix(x)


def _doc_hash(doc_id: str) -> int:
    return zlib.crc32(doc_id.encode("utf-8"))


_DIGITS = re.compile(r"(\d+)")


def stratified(records: Sequence[ErrorRecord], cap: int) -> list[ErrorRecord]:
    """The ``cap`` records of lowest (rank within their kind and label, priority); see the
    module's docstring. The result is in :func:`document_order`."""
    # each record's seeded pseudo-random priority (lower: kept first)
    priority = _priorities(
        np.array([_doc_hash(r.document) for r in records], dtype=np.uint64),
        np.array([r.start for r in records], dtype=INT),
        np.array([r.end for r in records], dtype=INT),
        np.array([_SIDE_CODE.get(r.side or "", 0) for r in records], dtype=INT),
    ).tolist()
    groups: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for i, r in enumerate(records):
        groups.setdefault((r.kind, r.label), []).append((priority[i], i))
    keyed: list[tuple[int, int, tuple[object, ...], int]] = []
    for members in groups.values():
        members.sort(key=lambda m: (m[0], document_order(records[m[1]])))
        keyed.extend(
            (rank, p, document_order(records[i]), i) for rank, (p, i) in enumerate(members[:cap])
        )
    # Ties in priority (the same offsets on the same side, other labels or kinds) are broken
    # by the records' own fields, never by the order they arrived in: the sample is the same
    # however the corpus was cut into batches or parts.
    keyed.sort(key=lambda k: k[:3])
    chosen = [records[i] for _, _, _, i in keyed[:cap]]
    return sorted(chosen, key=document_order)


def document_order(r: ErrorRecord) -> tuple[object, ...]:
    """Document id with its numbers compared as numbers (``gold.conll:9`` before
    ``gold.conll:10``), then start, end, gold before predicted, then label and kind (a total
    order, so records sort the same whatever order they came in)."""
    parts = tuple((0, int(x), "") if x.isdigit() else (1, 0, x) for x in _DIGITS.split(r.document))
    return parts, r.start, r.end, r.side != "gold", r.label, r.kind


def keep_errors(
    kept: list[list[ErrorRecord]],
    v: Verdicts,
    misses: Misses,
    batch: SpanBatch,
    settings: Settings,
    thresholds: Sequence[int] | None = None,
) -> None:
    """Add a level's records of one batch to ``kept`` (one list per threshold; with
    ``thresholds``, to those lists alone): all of them without a cap, else the stratified
    sample of what was kept and this batch's errors.

    ``misses``: the kind of each unmatched span, as the confusion cells found them.
    """
    cap = settings.max_errors
    if cap == 0:
        return
    n_loose = [len(v.unaligned_gold), len(v.unaligned)]
    # (doc, start, end) of each unaligned gold span, then of each unaligned prediction
    loose = [
        np.array([(d_i, span.start, span.end) for d_i, span, _ in spans], dtype=INT).reshape(-1, 3)
        for spans in (v.unaligned_gold, v.unaligned)
    ]
    for t in range(len(kept)) if thresholds is None else thresholds:
        fn = np.flatnonzero(~v.match.gold_tp[t])
        fp = np.flatnonzero(~v.match.pred_credited[t])
        # each error's side (_GOLD, _PRED, _UNALIGNED_GOLD, _UNALIGNED) and row in it
        side = np.repeat(np.arange(4, dtype=INT), [fn.size, fp.size, *n_loose])
        if not side.size:
            continue
        rows = np.concatenate([fn, fp, *(np.arange(n, dtype=INT) for n in n_loose)])
        wrong, kinds = misses.wrong(t), misses.kinds(t)
        cover = (misses.cover[0][t], misses.cover[1][t])
        # every error without a cap (put in document order by the result)
        order = (
            np.arange(side.size)
            if cap is None
            else _candidates(v, batch, side, (fn, fp), kinds, loose, cap)
        )
        new = [
            _record(int(side[i]), int(rows[i]), v, batch, kinds, cover, settings, wrong)
            for i in order.tolist()
        ]
        if cap is None:
            kept[t].extend(new)
        else:
            kept[t][:] = stratified([*kept[t], *new], cap)


def _where(cols: SpanColumns, rows: np.ndarray) -> np.ndarray:
    return np.stack([cols.doc[rows], cols.start[rows], cols.end[rows]], axis=1)


def _candidates(
    v: Verdicts,
    batch: SpanBatch,
    side: np.ndarray,
    errors: tuple[np.ndarray, np.ndarray],
    kinds: tuple[np.ndarray, np.ndarray],
    loose: list[np.ndarray],
    cap: int,
) -> np.ndarray:
    """The errors of a batch that may be in the sample: the ``cap`` of lowest priority in
    each kind and label, and any that tie with them (a record past them ranks past ``cap`` in
    its group, whatever else comes; a tie, two documents whose ids share a CRC-32, is
    :func:`stratified`'s to break by document order, not arrival), so records are built for
    those alone. ``errors``: the FN gold rows and FP prediction rows; ``loose``: the (doc,
    start, end) of each unaligned gold span, then of each unaligned prediction."""
    fn, fp = errors
    label = np.concatenate(
        [v.gold.label[fn], v.pred.label[fp], v.unaligned_gold_label, v.unaligned_label]
    )
    kind = np.zeros(side.size, dtype=INT)  # 0 missed/spurious, 1 boundary, 2 wrong label
    kind[: fn.size + fp.size] = np.r_[kinds[0][fn], kinds[1][fp]]
    gold_side = (side == _GOLD) | (side == _UNALIGNED_GOLD)
    stratum = (kind * 2 + ~gold_side) * len(v.labels) + label
    hashes = np.array([_doc_hash(d) for d in batch.doc_ids], dtype=np.uint64)
    doc, start, end = np.concatenate([_where(v.gold, fn), _where(v.pred, fp), *loose]).T
    priority = _priorities(hashes[doc], start, end, np.where(gold_side, 1, 2))
    order = np.lexsort((priority, stratum))
    s, p = stratum[order], priority[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    # each error's rank in its group, the rank of the first of its priority when tied
    ties = np.r_[True, (s[1:] != s[:-1]) | (p[1:] != p[:-1])]
    first = np.maximum.accumulate(np.where(ties, np.arange(s.size), 0))
    rank = first - np.repeat(starts, np.diff(np.append(starts, s.size)))
    return order[rank < cap]


def _record(
    side: int,
    row: int,
    v: Verdicts,
    batch: SpanBatch,
    kinds: tuple[np.ndarray, np.ndarray],
    cover: tuple[np.ndarray, np.ndarray],
    settings: Settings,
    wrong: dict[int, str],
) -> ErrorRecord:
    """The record of one error: row ``row`` of its ``side``, of the kind ``kinds`` gives it
    (:meth:`.confusion.Misses.kinds`; ``wrong``: the label of a wrong-label annotation), with
    its best same-label score, or for a wrong-label error its ``cover`` score."""
    if side in (_UNALIGNED, _UNALIGNED_GOLD):  # it matches nothing
        gold = side == _UNALIGNED_GOLD
        d_i, span, reason = (v.unaligned_gold if gold else v.unaligned)[row]
        label = v.labels[int((v.unaligned_gold_label if gold else v.unaligned_label)[row])]
        return ErrorRecord(
            "false_negative" if gold else "false_positive",
            batch.doc_ids[d_i],
            span.start,
            span.end,
            label,
            None if gold else label,
            None,
            None,
            None,
            0.0,
            reason,
            "gold" if gold else "predicted",
        )
    cols = v.gold if side == _GOLD else v.pred
    d = int(cols.doc[row])
    s, e = int(cols.start[row]), int(cols.end[row])
    left, text, right = span_context(
        s,
        e,
        text=batch.texts[d] if batch.texts else None,
        tokens=batch.tokens[d] if batch.tokens else None,
        unit=settings.unit,
        window=settings.context,
    )
    label = v.labels[int(cols.label[row])]
    code = int(kinds[side][row])
    predicted = (None, label, wrong.get(row))[code] if side == _GOLD else label
    same = v.match.gold_score if side == _GOLD else v.match.pred_score
    score = float((cover[side] if code == 2 else same)[row])
    side_name: Side = "gold" if side == _GOLD else "predicted"
    kind = _KINDS[side][code]
    return ErrorRecord(
        kind, batch.doc_ids[d], s, e, label, predicted, text, left, right, score, side=side_name
    )


#: A whole-corpus error string: ``(label, kind, text, other label)`` where kind is, as in the
#: kinds table, ``missed`` (an annotation no prediction finds, relabels or overlaps with its
#: label), ``spurious`` (a prediction that finds nothing and is no boundary or wrong-label error) or
#: ``relabelled`` (an annotation a prediction of ``other`` label covers); ``other`` is ``""``
#: unless relabelled. Boundary errors are in none.
StringKey = tuple[str, str, str, str]


def count_error_strings(
    strings: list[Counter[StringKey]],
    v: Verdicts,
    misses: Misses,
    batch: SpanBatch,
    settings: Settings,
    thresholds: Sequence[int],
) -> None:
    """Count the text of every missed, relabelled and spurious span of a batch (whatever
    the cap on kept records), per threshold, so that the most frequent ones are the corpus's.
    Spans without text (unaligned, or no text or tokens given) are not counted."""
    token = settings.unit == "token"
    source = batch.tokens if token else batch.texts
    if not source:
        return
    for t in thresholds:
        wrong = misses.wrong(t)
        fn = np.flatnonzero(~(v.match.gold_tp[t] | misses.boundary_gold[t]))
        fp = ~(v.match.pred_credited[t] | misses.relabelling[t] | misses.boundary_pred[t])
        others = [wrong.get(row, "") for row in fn.tolist()] if wrong else [""] * fn.size
        for cols, rows, kinds, given in (
            (v.gold, fn, ["relabelled" if other else "missed" for other in others], others),
            (v.pred, np.flatnonzero(fp), None, None),
        ):
            names, texts = _texts(v, cols, rows, source, token)
            keys: Iterable[tuple[str, str, str | None, str]] = zip(
                names,
                kinds or ["spurious"] * len(names),
                texts,
                given or [""] * len(names),
                strict=True,
            )
            if None in texts:  # (spans without a text are not counted)
                keys = (key for key in keys if key[2] is not None)
            strings[t].update(cast(Iterable[StringKey], keys))


def _texts(
    v: Verdicts,
    cols: SpanColumns,
    rows: np.ndarray,
    source: Sequence[str | Sequence[str] | None],
    token: bool,
) -> tuple[list[str], list[str | None]]:
    """The label and the text (``None`` where its document has none) of each of ``rows``."""
    labels = [v.labels[i] for i in cols.label[rows].tolist()]
    if isinstance(source, SpanTexts):
        return labels, list(source.span_texts(cols.doc[rows], cols.start[rows], cols.end[rows]))
    docs = cols.doc[rows].tolist()
    where = {d: source[d] for d in set(docs)}  # each document read once
    starts, ends = cols.start[rows].tolist(), cols.end[rows].tolist()
    pieces = [
        None if where[d] is None else where[d][s:e]
        for d, s, e in zip(docs, starts, ends, strict=True)
    ]
    # a run of tokens reads as the tokens joined by spaces
    texts = [None if p is None else " ".join(p) for p in pieces] if token else pieces
    return labels, texts
