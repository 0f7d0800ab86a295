"""Two-sided IoU counting (semantics §2.1): recall per annotation, precision per predicted span.

The common cases are vectorized: an annotation with no candidate is FN, one with a single
candidate uses the pairwise IoU. Only annotations with several same-label candidates go
through the window search in Python; with ``one_to_one`` only the (document, label) groups
where a prediction is a candidate of several annotations go through the assignment walk.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import numpy as np

from ..columns import SpanColumns, group_key, overlap_pairs
from .base import Cover, Match, Option, Strategy
from .intervals import best_window, iou_parts, minimal_cover

Coverage = Literal["best", "pooled"]


def pairwise_iou(gs: np.ndarray, ge: np.ndarray, ps: np.ndarray, pe: np.ndarray) -> np.ndarray:
    """IoU of overlapping interval pairs: intersection over their hull (one interval)."""
    iou: np.ndarray = (np.minimum(ge, pe) - np.maximum(gs, ps)) / (
        np.maximum(ge, pe) - np.minimum(gs, ps)
    )
    return iou


class TwoSided(Strategy):
    sweep_local = True
    name: ClassVar[str] = "two_sided"
    infix: ClassVar[str] = "iou"
    uses_thresholds: ClassVar[bool] = True
    options: ClassVar[tuple[Option, ...]] = (
        # how several predictions cover one annotation: the best window, or all
        Option.choice("coverage", "best", ("best", "pooled")),
        Option.flag("one_to_one", False),  # credit each prediction to one annotation at most
    )
    coverage: Coverage
    one_to_one: bool

    def __init__(self, thresholds: tuple[float | None, ...], **options: Any) -> None:
        super().__init__(thresholds, **options)
        self._tau = np.asarray(thresholds, dtype=float)

    def select(
        self, g_start: int, g_end: int, cands: list[tuple[int, int]]
    ) -> tuple[int, int, tuple[int, ...]]:
        """``(intersection, union, selection)`` of the winning selection among ``cands``.

        ``"best"``: the winning window reduced to its minimal cover (semantics §2.1), so a nested
        prediction or an identical duplicate is not part of it; ties between identical spans
        go to the earlier one in ``cands``. ``"pooled"``: every candidate, as the original
        rule had it (``S = C``), with no reduction.
        """
        if len(cands) == 1 or self.coverage == "pooled":
            inter, union = iou_parts(g_start, g_end, cands)
            return inter, union, tuple(range(len(cands)))
        inter, union, window = best_window(g_start, g_end, cands)
        return inter, union, minimal_cover(cands, window)

    def cover(self, g_start: int, g_end: int, cands: list[tuple[int, int]]) -> Cover:
        inter, union, sel = self.select(g_start, g_end, cands)
        score = inter / union
        return Cover(score, sel, score >= self._tau)

    def pair_cover(
        self, gs: np.ndarray, ge: np.ndarray, ps: np.ndarray, pe: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        iou = pairwise_iou(gs, ge, ps, pe)
        return iou, iou[None, :] >= self._tau[:, None]

    def match(self, gold: SpanColumns, pred: SpanColumns, n_labels: int) -> Match:
        n_g, n_p = len(gold), len(pred)
        pg, pp = overlap_pairs(gold, pred, group_key(gold, n_labels), group_key(pred, n_labels))
        gs, ge = gold.start[pg], gold.end[pg]
        ps, pe = pred.start[pp], pred.end[pp]
        pair_iou = pairwise_iou(gs, ge, ps, pe)

        n_cand = np.bincount(pg, minlength=n_g)
        best = np.zeros(n_g, dtype=float)
        in_sel = n_cand[pg] == 1
        best[pg[in_sel]] = pair_iou[in_sel]

        multi = np.flatnonzero(n_cand[pg] >= 2)
        if multi.size:
            # Pairs come grouped by gold row (overlap_pairs); walk each multi-candidate gold's
            # run once.
            bounds = np.flatnonzero(np.diff(pg[multi])) + 1
            for run in np.split(multi, bounds):
                g = int(pg[run[0]])
                cands = list(zip(ps[run].tolist(), pe[run].tolist(), strict=True))
                inter, union, sel = self.select(int(gold.start[g]), int(gold.end[g]), cands)
                best[g] = inter / union
                in_sel[run[list(sel)]] = True

        score, in_sel = (
            self._one_to_one(gold, pred, n_labels, pg, pp, n_cand, best, in_sel)
            if self.one_to_one
            else (best, in_sel)
        )
        # The selection does not depend on tau, only the verdict does (semantics §2.1); an
        # annotation with no candidate left has score 0, below every tau in (0, 1].
        gold_tp = (score[None, :] >= self._tau[:, None]) & (n_cand > 0)[None, :]
        credited = np.zeros((self.n, n_p), dtype=bool)
        for t in range(self.n):
            credited[t, pp[in_sel & gold_tp[t, pg]]] = True

        pred_score = np.zeros(n_p, dtype=float)
        np.maximum.at(pred_score, pp, pair_iou)
        found_alone = (best[None, :] >= self._tau[:, None]) & (n_cand > 0)[None, :]
        return Match(gold_tp, credited, best, pred_score, found_alone)

    def _one_to_one(
        self,
        gold: SpanColumns,
        pred: SpanColumns,
        n_labels: int,
        pg: np.ndarray,
        pp: np.ndarray,
        n_cand: np.ndarray,
        best: np.ndarray,
        in_sel: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each prediction in the selection of at most one annotation (semantics §2.1
        ``one_to_one``).

        One assignment for every threshold: annotations in order of their best IoU, computed
        before any assignment (highest first, then earliest start, then label, then end), each
        taking its winning selection among the candidates no earlier annotation took; one left
        with none scores 0. Returns the assigned IoU per annotation and the assigned selection
        per (gold, pred) pair. Only (document, label) groups where a prediction is a candidate
        of several annotations can differ from the free selections, so only those are walked.
        """
        shared = np.bincount(pp, minlength=len(pred)) >= 2
        if not shared[pp].any():
            return best, in_sel
        key = group_key(gold, n_labels)
        hot = np.isin(key, np.unique(key[pg[shared[pp]]])) & (n_cand > 0)
        rows = np.flatnonzero(hot)
        rows = rows[
            np.lexsort(
                (gold.item[rows], gold.end[rows], gold.label[rows], gold.start[rows], -best[rows])
            )
        ]
        score, in_sel = best.copy(), in_sel.copy()
        # overlap_pairs lists pairs by gold row, each gold's candidates by (start, row).
        assert not (np.diff(pg) < 0).any(), "pairs must be grouped by gold row"
        bounds = np.searchsorted(pg, np.arange(len(gold) + 1))
        taken = np.zeros(len(pred), dtype=bool)
        for g in rows.tolist():
            lo, hi = int(bounds[g]), int(bounds[g + 1])
            free = np.flatnonzero(~taken[pp[lo:hi]])
            if free.size == hi - lo:
                chosen = lo + np.flatnonzero(in_sel[lo:hi])  # nothing taken: the free winner
            else:
                in_sel[lo:hi] = False
                if not free.size:
                    score[g] = 0.0
                    continue
                cand_rows = pp[lo + free]
                cands = list(
                    zip(pred.start[cand_rows].tolist(), pred.end[cand_rows].tolist(), strict=True)
                )
                inter, union, sel = self.select(int(gold.start[g]), int(gold.end[g]), cands)
                score[g] = inter / union
                chosen = lo + free[list(sel)]
                in_sel[chosen] = True
            taken[pp[chosen]] = True
        return score, in_sel
