"""Which error records a batch adds: every FN annotation and FP prediction, in document order,
each of its kind (semantics §4: missed, wrong boundaries, wrong label, spurious).

Records are kept in document order (then start, end; gold, predicted, unaligned gold,
unaligned predicted on ties) up
to the cap, so the kept ones are the corpus's first ones whatever the batch boundaries; the
ledger counts every error anyway.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from .batching import SpanBatch
from .columns import INT
from .confusion import Misses
from .records import ErrorKind, ErrorRecord, span_context
from .settings import Settings
from .verdicts import Verdicts

_GOLD, _PRED, _UNALIGNED_GOLD, _UNALIGNED = 0, 1, 2, 3


def keep_errors(
    kept: list[list[ErrorRecord]],
    v: Verdicts,
    misses: Misses,
    batch: SpanBatch,
    settings: Settings,
    thresholds: Sequence[int] | None = None,
    room: Sequence[int] | None = None,
) -> None:
    """Append a level's records of one batch to ``kept`` (one list per threshold; with
    ``thresholds``, to those lists alone).

    ``misses``: the kind of each unmatched span, as the confusion cells found them.
    ``room``: per threshold, the most records its list may hold, when fewer than the cap
    (a share of a run whose total has kept some already).
    """
    cap = settings.max_errors
    u_doc, ug_doc = v.unaligned_doc, v.unaligned_gold_doc
    u_start = np.array([span.start for _, span, _ in v.unaligned], dtype=INT)
    u_end = np.array([span.end for _, span, _ in v.unaligned], dtype=INT)
    ug_start = np.array([span.start for _, span, _ in v.unaligned_gold], dtype=INT)
    ug_end = np.array([span.end for _, span, _ in v.unaligned_gold], dtype=INT)
    for t in range(len(kept)) if thresholds is None else thresholds:
        records = kept[t]
        limit = cap  # the most records this list may hold
        if room is not None:
            limit = room[t] if limit is None else min(limit, room[t])
        left = None if limit is None else limit - len(records)
        if left is not None and left <= 0:
            continue
        fn = np.flatnonzero(~v.match.gold_tp[t])
        fp = np.flatnonzero(~v.match.pred_credited[t])
        side = np.concatenate(
            [
                np.full(fn.size, _GOLD, dtype=INT),
                np.full(fp.size, _PRED, dtype=INT),
                np.full(ug_doc.size, _UNALIGNED_GOLD, dtype=INT),
                np.full(u_doc.size, _UNALIGNED, dtype=INT),
            ]
        )
        rows = np.concatenate(
            [fn, fp, np.arange(ug_doc.size, dtype=INT), np.arange(u_doc.size, dtype=INT)]
        )
        doc = np.concatenate([v.gold.doc[fn], v.pred.doc[fp], ug_doc, u_doc])
        start = np.concatenate([v.gold.start[fn], v.pred.start[fp], ug_start, u_start])
        end = np.concatenate([v.gold.end[fn], v.pred.end[fp], ug_end, u_end])
        order = np.lexsort((side, end, start, doc))
        if left is not None:
            order = order[:left]
        wrong = misses.wrong(t)
        for i in order.tolist():
            records.append(
                _record(int(side[i]), int(rows[i]), v, batch, misses, t, settings, wrong)
            )


def _record(
    side: int,
    row: int,
    v: Verdicts,
    batch: SpanBatch,
    misses: Misses,
    t: int,
    settings: Settings,
    wrong: dict[int, str],
) -> ErrorRecord:
    if side == _UNALIGNED:
        d_i, span, reason = v.unaligned[row]
        label = v.labels[int(v.unaligned_label[row])]
        return ErrorRecord(
            "false_positive",
            batch.doc_ids[d_i],
            span.start,
            span.end,
            label,
            label,
            None,
            None,
            None,
            0.0,
            reason,
            "predicted",
        )
    if side == _UNALIGNED_GOLD:
        d_i, span, reason = v.unaligned_gold[row]
        label = v.labels[int(v.unaligned_gold_label[row])]
        return ErrorRecord(
            "false_negative",
            batch.doc_ids[d_i],
            span.start,
            span.end,
            label,
            None,
            None,
            None,
            None,
            0.0,
            reason,
            "gold",
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
    kind: ErrorKind
    if side == _GOLD:
        predicted = wrong.get(row)
        if predicted is not None:
            kind = "wrong_label"
        elif misses.boundary_gold[t, row]:
            kind, predicted = "boundary", label
        else:
            kind = "false_negative"
        score = float(v.match.gold_score[row])
    else:
        kind = "boundary" if misses.boundary_pred[t, row] else "false_positive"
        predicted, score = label, float(v.match.pred_score[row])
    return ErrorRecord(
        kind,
        batch.doc_ids[d],
        s,
        e,
        label,
        predicted,
        text,
        left,
        right,
        score,
        side="gold" if side == _GOLD else "predicted",
    )


#: A whole-corpus error string: ``(label, kind, text, other label)`` where kind is
#: ``missed`` (an annotation found by no prediction of its label: missed or boundary),
#: ``spurious`` (a prediction that finds nothing: spurious or boundary) or ``relabelled``
#: (an annotation a prediction of ``other`` label covers); ``other`` is ``""`` unless
#: relabelled.
StringKey = tuple[str, str, str, str]


def count_error_strings(
    strings: list[Counter[StringKey]],
    v: Verdicts,
    misses: Misses,
    batch: SpanBatch,
    settings: Settings,
    thresholds: Sequence[int],
) -> None:
    """Count the text of every FN annotation and FP prediction of a batch (whatever the
    cap on kept records), per threshold, so that the most frequent ones are the corpus's.
    Spans without text (unaligned, or no text or tokens given) are not counted."""
    for t in thresholds:
        wrong = misses.wrong(t)
        counter = strings[t]
        fp = ~v.match.pred_credited[t]
        if misses.relabelling is not None:
            fp &= ~misses.relabelling[t]  # counted with the annotation they relabel
        for side, cols, rows in (
            (_GOLD, v.gold, np.flatnonzero(~v.match.gold_tp[t])),
            (_PRED, v.pred, np.flatnonzero(fp)),
        ):
            if not rows.size:
                continue
            docs = cols.doc[rows].tolist()
            starts = cols.start[rows].tolist()
            ends = cols.end[rows].tolist()
            labels = cols.label[rows].tolist()
            for row, d, s, e, lab in zip(rows.tolist(), docs, starts, ends, labels, strict=True):
                text = _span_text(batch, d, s, e, settings.unit)
                if text is None:
                    continue
                other = wrong.get(row, "") if side == _GOLD else ""
                kind = "relabelled" if other else ("missed" if side == _GOLD else "spurious")
                counter[(v.labels[lab], kind, text, other)] += 1


def _span_text(batch: SpanBatch, d: int, start: int, end: int, unit: str) -> str | None:
    if unit == "token":
        tokens = batch.tokens[d] if batch.tokens else None
        return None if tokens is None else " ".join(tokens[start:end])
    text = batch.texts[d] if batch.texts else None
    return None if text is None else text[start:end]
