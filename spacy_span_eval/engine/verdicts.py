"""A level's verdicts on one batch, and the ledger rows they count to.

Unaligned spans (ones a reader could not put in the unit) enter the counts here and only here:
they match nothing, so an unaligned prediction is one ``num_predicted`` and one ``fp`` of its
label and document, and an unaligned gold span one ``num_annotated`` and one ``fn``, at every
threshold. The label totals, the per-document rows and the
entity-agnostic row are all :meth:`Verdicts.ledger_rows`, so they can not disagree on them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .batching import SpanBatch
from .columns import INT, SpanColumns
from .ledger import N_FIELDS, LedgerField
from .projection import LevelView
from .spans import Span
from .strategies import Match, SideCounts, Strategy


@dataclass(frozen=True)
class Verdicts:
    """What a strategy decided about one level of a batch.

    ``gold``/``pred`` are the rows it counted (exact collapses duplicates, token expands
    positions); ``unaligned`` are the batch's unaligned predictions, ``unaligned_label`` their
    label ids; ``unaligned_gold`` and ``unaligned_gold_label`` the same for gold spans.
    ``notes`` counts what changed on the way (strategy notes, unaligned ones); ``side`` holds
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
        out = strategy.run(view.gold, view.pred, len(view.labels))
        notes = {
            **out.notes,
            "unaligned_predictions": len(batch.unaligned),
            "unaligned_gold": len(batch.unaligned_gold),
        }
        return cls(
            view.labels,
            out.gold,
            out.pred,
            out.match,
            batch.unaligned,
            view.unaligned,
            {k: v for k, v in notes.items() if v},
            batch.unaligned_gold,
            view.unaligned_gold,
            out.side,
        )

    @classmethod
    def agnostic(cls, strategy: Strategy, batch: SpanBatch) -> Verdicts:
        """Every label collapsed into one ("any entity"), before any label map."""
        gold, pred = (c.relabel(np.zeros(len(c), dtype=INT)) for c in (batch.gold, batch.pred))
        out = strategy.run(gold, pred, 1)
        return cls(
            ["any"],
            out.gold,
            out.pred,
            out.match,
            batch.unaligned,
            np.zeros(len(batch.unaligned), dtype=INT),
            {},
            batch.unaligned_gold,
            np.zeros(len(batch.unaligned_gold), dtype=INT),
        )

    @property
    def unaligned_doc(self) -> np.ndarray:
        return np.array([d_i for d_i, _, _ in self.unaligned], dtype=INT)

    @property
    def unaligned_gold_doc(self) -> np.ndarray:
        return np.array([d_i for d_i, _, _ in self.unaligned_gold], dtype=INT)

    def ledger_rows(
        self, n_documents: int | None = None, thresholds: Sequence[int] | None = None
    ) -> np.ndarray:
        """``(n_thresholds, n_labels, N_FIELDS)`` ledger rows, or with ``n_documents``
        ``(n_thresholds, n_documents, n_labels, N_FIELDS)``: one row per document and label.
        ``thresholds``: only at these (indices; their rows in that order)."""
        n_lab = len(self.labels)
        g, p = self.gold.label, self.pred.label
        u, ug = self.unaligned_label, self.unaligned_gold_label
        if n_documents is None:
            return count_rows(g, p, self.match, n_lab, u, ug, thresholds)
        rows = count_rows(
            self.gold.doc * n_lab + g,
            self.pred.doc * n_lab + p,
            self.match,
            n_documents * n_lab,
            self.unaligned_doc * n_lab + u,
            self.unaligned_gold_doc * n_lab + ug,
            thresholds,
        )
        return rows.reshape(rows.shape[0], n_documents, n_lab, N_FIELDS)


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
