"""Two-sided IoU counting (SPEC 2.1): recall per annotation, precision per predicted span.

The common cases are vectorized: an annotation with no candidate is FN, one with a single
candidate uses the pairwise IoU. Only annotations with several same-label candidates go
through the window search in Python, and only conflicts go through the one-to-one greedy.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from ..columns import SpanColumns, group_key, overlap_pairs
from .base import Cover, Match, Option, Strategy
from .intervals import best_window, iou_parts

Coverage = Literal["best", "pooled"]


def pairwise_iou(gs: np.ndarray, ge: np.ndarray, ps: np.ndarray, pe: np.ndarray) -> np.ndarray:
    """IoU of overlapping interval pairs: intersection over their hull (one interval)."""
    return (np.minimum(ge, pe) - np.maximum(gs, ps)) / (np.maximum(ge, pe) - np.minimum(gs, ps))


class TwoSided(Strategy):
    name: ClassVar[str] = "two_sided"
    infix: ClassVar[str] = "iou"
    uses_thresholds: ClassVar[bool] = True
    options: ClassVar[tuple[Option, ...]] = (
        Option.choice("coverage", "best", ("best", "pooled"),
                      "how several predictions cover one annotation: the best window, or all"),
        Option.flag("one_to_one", False, "credit each prediction to one annotation at most"),
    )
    coverage: Coverage
    one_to_one: bool

    def __init__(self, thresholds: tuple[float | None, ...], **options) -> None:
        super().__init__(thresholds, **options)
        self._tau = np.asarray(thresholds, dtype=float)

    def select(self, g_start: int, g_end: int, cands: list[tuple[int, int]]
               ) -> tuple[int, int, tuple[int, ...]]:
        """``(intersection, union, selection)`` of the winning selection among ``cands``."""
        if len(cands) == 1:
            inter, union = iou_parts(g_start, g_end, cands)
            return inter, union, (0,)
        if self.coverage == "pooled":
            inter, union = iou_parts(g_start, g_end, cands)
            return inter, union, tuple(range(len(cands)))
        return best_window(g_start, g_end, cands)

    def cover(self, g_start: int, g_end: int, cands: list[tuple[int, int]]) -> Cover:
        inter, union, sel = self.select(g_start, g_end, cands)
        score = inter / union
        return Cover(score, sel, score >= self._tau)

    def pair_cover(self, gs, ge, ps, pe):
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
            # Pairs come grouped by gold row; walk each multi-candidate gold's run once.
            order = multi[np.argsort(pg[multi], kind="stable")]
            bounds = np.flatnonzero(np.diff(pg[order])) + 1
            for run in np.split(order, bounds):
                g = int(pg[run[0]])
                cands = list(zip(ps[run].tolist(), pe[run].tolist(), strict=True))
                inter, union, sel = self.select(int(gold.start[g]), int(gold.end[g]), cands)
                best[g] = inter / union
                in_sel[run[list(sel)]] = True

        gold_tp = (best[None, :] >= self._tau[:, None]) & (n_cand > 0)[None, :]
        credited = np.zeros((self.n, n_p), dtype=bool)
        for t in range(self.n):
            if self.one_to_one:
                self._one_to_one(t, gold, pred, pg, pp, in_sel, gold_tp, credited)
            else:
                credited[t, pp[in_sel & gold_tp[t, pg]]] = True

        pred_score = np.zeros(n_p, dtype=float)
        np.maximum.at(pred_score, pp, pair_iou)
        return Match(gold_tp, credited, best, pred_score)

    def _one_to_one(self, t: int, gold: SpanColumns, pred: SpanColumns, pg: np.ndarray,
                    pp: np.ndarray, in_sel: np.ndarray, gold_tp: np.ndarray,
                    credited: np.ndarray) -> None:
        """Each prediction credited to at most one annotation (SPEC 2.1 ``one_to_one``).

        Annotations whose winning selections share a prediction are resolved greedily: highest
        IoU first, then earliest annotation; the others fall back to their remaining
        candidates. Annotations that share nothing keep their verdict untouched.
        """
        tp_pairs = in_sel & gold_tp[t, pg]
        uses = np.bincount(pp[tp_pairs], minlength=len(pred))
        credited[t, pp[tp_pairs]] = True
        if uses.max(initial=0) <= 1:
            return
        # Annotations (TP at this threshold) linked through shared candidates form components.
        tp_gold = gold_tp[t]
        cand_of: dict[int, list[int]] = {}
        golds_of: dict[int, list[int]] = {}
        for g, p in zip(pg.tolist(), pp.tolist(), strict=True):
            if tp_gold[g]:
                cand_of.setdefault(g, []).append(p)
                golds_of.setdefault(p, []).append(g)
        seen: set[int] = set()
        for p0 in np.flatnonzero(uses > 1).tolist():
            if golds_of[p0][0] in seen:
                continue
            component, stack = set(), list(golds_of[p0])
            while stack:
                g = stack.pop()
                if g in component:
                    continue
                component.add(g)
                for p in cand_of[g]:
                    stack.extend(golds_of[p])
            seen |= component
            self._greedy(t, sorted(component), cand_of, gold, pred, gold_tp, credited)

    def _greedy(self, t: int, component: list[int], cand_of: dict[int, list[int]],
                gold: SpanColumns, pred: SpanColumns, gold_tp: np.ndarray,
                credited: np.ndarray) -> None:
        tau = self._tau[t]
        for g in component:
            credited[t, cand_of[g]] = False
            gold_tp[t, g] = False
        consumed: set[int] = set()
        open_golds = list(component)
        while open_golds:
            best_key, best_g, best_sel = None, None, ()
            for g in open_golds:
                free = [p for p in cand_of[g] if p not in consumed]
                if not free:
                    continue
                cands = [(int(pred.start[p]), int(pred.end[p])) for p in free]
                inter, union, sel = self.select(int(gold.start[g]), int(gold.end[g]), cands)
                if inter / union < tau:
                    continue
                key = (-inter / union, int(gold.doc[g]), int(gold.start[g]), int(gold.end[g]),
                       int(gold.item[g]))
                if best_key is None or key < best_key:
                    best_key, best_g, best_sel = key, g, tuple(free[i] for i in sel)
            if best_g is None:
                return
            gold_tp[t, best_g] = True
            credited[t, list(best_sel)] = True
            consumed.update(best_sel)
            open_golds.remove(best_g)
