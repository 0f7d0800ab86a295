"""A level's verdicts on one batch, and the ledger rows they count to.

Identical spans on one side are made one here, per level, before the strategy sees them
(semantics §3, self-agreement): the same (document, start, end, label) at a labelled level,
the same extent at the any-entity level. Everything downstream (ledgers, confusion cells,
error records, per-document rows) reads the verdicts' rows, so all see the distinct spans;
the notes count what was collapsed, per side and level.

Unaligned spans (ones a reader could not put in the unit) enter the counts here and only here:
they match nothing, so an unaligned prediction is one ``num_predicted`` and one ``fp`` of its
label and document, and an unaligned gold span one ``num_annotated`` and one ``fn``, at every
threshold. The label totals, the per-document rows and the
entity-agnostic row are all :meth:`Verdicts.ledger_rows`, so they can not disagree on them. A
strategy's side table counts them too, in the counts its table names for spans that matched
nothing (semeval: ``missed`` and ``spurious``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .batching import SpanBatch
from .columns import INT, SpanColumns, distinct_rows
from .ledger import N_FIELDS, LedgerField
from .projection import LevelView
from .settings import BASE_LEVEL
from .spans import Span
from .strategies import Match, SideCounts, SideTable, Strategy


def duplicates_note(side: str, level: str | None) -> str:
    """The note counting identical spans collapsed on ``side`` ("gold" or "pred") at
    ``level``: ``gold_duplicates_collapsed`` at the labels level,
    ``..._any_entity`` at the any-entity level (``None``), ``..._at_{level}`` at a hierarchy
    level."""
    key = f"{side}_duplicates_collapsed"
    if level is None:
        return f"{key}_any_entity"
    return key if level == BASE_LEVEL else f"{key}_at_{level}"


def distinct(cols: SpanColumns) -> tuple[SpanColumns, int]:
    """``cols`` with identical rows (doc, start, end, label) as one, the first of each in
    input order, and how many rows that removed (semantics §3, self-agreement)."""
    keep = distinct_rows(cols)
    if keep is None:
        return cols, 0
    return cols.take(keep), len(cols) - len(keep)


def distinct_unaligned(
    spans: Sequence[tuple[int, Span, str]], label: np.ndarray
) -> tuple[Sequence[tuple[int, Span, str]], np.ndarray, int]:
    """Unaligned spans (document index, span, reason) with their level's ``label`` ids, those
    identical in document, offsets, level label and reason as one (the first): ``(spans, label ids,
    how many were removed)``. Rare and few, so walked in Python."""
    # (an ungrounded string's reason names it); from the last to the first, so each key
    # ends up with its first index
    keys = [
        (d_i, s.start, s.end, lab, why)
        for (d_i, s, why), lab in zip(spans, label.tolist(), strict=True)
    ]
    keep = sorted({key: i for i, key in reversed(list(enumerate(keys)))}.values())
    if len(keep) == len(spans):
        return spans, label, 0
    return [spans[i] for i in keep], label[keep], len(spans) - len(keep)


def with_unmatched(
    table: SideTable, side: SideCounts, gold_label: np.ndarray, pred_label: np.ndarray
) -> SideCounts:
    """``side`` with spans that matched nothing added: each gold span of label id
    ``gold_label[i]`` is one more ``table.unmatched_gold`` of its label and overall, in every
    row at every threshold; each prediction one more ``table.unmatched_pred``."""
    per_label, overall = side.per_label.copy(), side.overall.copy()
    n_labels = per_label.shape[1]
    for name, label in ((table.unmatched_gold, gold_label), (table.unmatched_pred, pred_label)):
        j = table.counts.index(name)
        per_label[:, :, :, j] += np.bincount(label, minlength=n_labels)[None, :, None]
        overall[:, :, j] += label.size
    return SideCounts(per_label, overall)


@dataclass(frozen=True)
class Verdicts:
    """What a strategy decided about one level of a batch.

    ``gold``/``pred`` are the rows it counted (exact collapses duplicates, token expands
    positions); ``unaligned`` are the batch's unaligned predictions, ``unaligned_label`` their
    label ids; ``unaligned_gold`` and ``unaligned_gold_label`` the same for gold spans.
    ``notes`` counts what changed on the way (identical spans made one, strategy notes,
    unaligned ones); ``side`` holds
    the strategy's side table counts, if it keeps one.
    """

    labels: list[str]
    gold: SpanColumns
    pred: SpanColumns
    match: Match
    unaligned: Sequence[tuple[int, Span, str]] = ()
    unaligned_label: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=INT))
    notes: Mapping[str, int] = field(default_factory=dict)
    unaligned_gold: Sequence[tuple[int, Span, str]] = ()
    unaligned_gold_label: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=INT))
    side: SideCounts | None = None

    @classmethod
    def of(cls, strategy: Strategy, view: LevelView, batch: SpanBatch) -> Verdicts:
        """The verdicts of ``view``'s level (``None``: any entity), on its distinct spans
        (semantics §3, self-agreement). Notes: at the labels level, the strategy's and the
        unaligned spans'; at every level, the identical spans collapsed on each side."""
        level, labels = view.level, view.labels
        (gold, n_gold), (pred, n_pred) = (distinct(cols) for cols in (view.gold, view.pred))
        unaligned, u_label, n_u = distinct_unaligned(batch.unaligned, view.unaligned)
        unaligned_gold, ug_label, n_ug = distinct_unaligned(
            batch.unaligned_gold, view.unaligned_gold
        )
        out = strategy.run(gold, pred, len(labels))
        side = (
            with_unmatched(strategy.side_table, out.side, ug_label, u_label)
            if out.side is not None and strategy.side_table is not None
            else out.side
        )
        notes: Counter[str] = Counter()
        if level == BASE_LEVEL:
            notes.update(out.notes)
            notes["unaligned_predictions"] += len(batch.unaligned)
            notes["unaligned_gold"] += len(batch.unaligned_gold)
        notes[duplicates_note("gold", level)] += n_gold + n_ug
        notes[duplicates_note("pred", level)] += n_pred + n_u
        return cls(
            labels,
            out.gold,
            out.pred,
            out.match,
            unaligned,
            u_label,
            {k: v for k, v in notes.items() if v},
            unaligned_gold,
            ug_label,
            side,
        )

    @classmethod
    def agnostic(cls, strategy: Strategy, batch: SpanBatch) -> Verdicts:
        """Every label collapsed into one ("any entity"), before any label map; identical
        extents on one side are one span."""
        gold, pred = (c.relabel(np.zeros(len(c), dtype=INT)) for c in (batch.gold, batch.pred))
        u, ug = (np.zeros(len(s), dtype=INT) for s in (batch.unaligned, batch.unaligned_gold))
        view = LevelView(None, ["any"], gold, pred, u, ug, np.zeros(0, dtype=INT))
        return cls.of(strategy, view, batch)

    @property
    def unaligned_doc(self) -> np.ndarray:
        return np.array([d_i for d_i, _, _ in self.unaligned], dtype=INT)

    @property
    def unaligned_gold_doc(self) -> np.ndarray:
        return np.array([d_i for d_i, _, _ in self.unaligned_gold], dtype=INT)

    def ledger_rows(self) -> np.ndarray:
        """``(n_thresholds, n_labels, N_FIELDS)`` ledger rows."""
        g, p = self.gold.label, self.pred.label
        u, ug = self.unaligned_label, self.unaligned_gold_label
        return count_rows(g, p, self.match, len(self.labels), u, ug)

    def length_rows(self, edges: Sequence[int]) -> np.ndarray:
        """``(n_thresholds, len(edges), n_labels, N_FIELDS)`` ledger rows per span-length
        bucket (``edges``: each bucket's least length) and label: a gold span counts in its
        own length's bucket (recall), a prediction in its own (precision); semantics §10."""

        def bucket(length: np.ndarray) -> np.ndarray:
            at: np.ndarray = np.searchsorted(np.asarray(edges), length, side="right") - 1
            out: np.ndarray = np.maximum(at, 0)
            return out

        def unaligned(spans: Sequence[tuple[int, Span, str]]) -> np.ndarray:
            return bucket(np.array([s.end - s.start for _, s, _ in spans], dtype=INT))

        # the bucket of each gold span, prediction, unaligned prediction and unaligned gold
        # span, as a key with its label
        n_lab, n_buckets = len(self.labels), len(edges)
        g, p, u, ug = (
            group * n_lab + label
            for group, label in (
                (bucket(self.gold.end - self.gold.start), self.gold.label),
                (bucket(self.pred.end - self.pred.start), self.pred.label),
                (unaligned(self.unaligned), self.unaligned_label),
                (unaligned(self.unaligned_gold), self.unaligned_gold_label),
            )
        )
        rows = count_rows(g, p, self.match, n_buckets * n_lab, u, ug)
        return rows.reshape(rows.shape[0], n_buckets, n_lab, N_FIELDS)


def count_rows(
    gold_key: np.ndarray,
    pred_key: np.ndarray,
    match: Match,
    n_keys: int,
    unmatched_key: np.ndarray,
    unmatched_gold_key: np.ndarray | None = None,
    thresholds: Sequence[int] | None = None,
) -> np.ndarray:
    """``(n_thresholds, n_keys, N_FIELDS)`` ledger rows of verdicts grouped by key; the
    ``unmatched_key`` predictions are counted as predicted and never credited, the
    ``unmatched_gold_key`` gold spans as annotated and never TP. ``thresholds``: only the
    rows of these threshold indices (a report keeps per-document rows at one of 21)."""
    F = LedgerField
    wanted = range(match.gold_tp.shape[0]) if thresholds is None else thresholds
    out = np.zeros((len(wanted), n_keys, N_FIELDS), dtype=np.int64)
    annotated = np.bincount(gold_key, minlength=n_keys)
    if unmatched_gold_key is not None:
        annotated = annotated + np.bincount(unmatched_gold_key, minlength=n_keys)
    predicted = np.bincount(pred_key, minlength=n_keys) + np.bincount(
        unmatched_key, minlength=n_keys
    )
    for i, t in enumerate(wanted):
        tp = np.bincount(gold_key[match.gold_tp[t]], minlength=n_keys)
        credited = np.bincount(pred_key[match.pred_credited[t]], minlength=n_keys)
        out[i, :, F.NUM_ANNOTATED], out[i, :, F.NUM_PREDICTED] = annotated, predicted
        out[i, :, F.TP], out[i, :, F.FN] = tp, annotated - tp
        out[i, :, F.CREDITED], out[i, :, F.FP] = credited, predicted - credited
    return out
