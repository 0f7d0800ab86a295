"""Bidirectional overlap matching (semantics §2.3: Kaggle Feedback Prize style).

A same-label (gold, pred) pair matches when the overlap covers at least ``min_gold`` of the
gold span and ``min_pred`` of the predicted span. Matching is one-to-one and greedy per
document: best overlap first, where "best" is the larger share of the gold span, then of the
predicted span; ties by gold start, then pred start.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ..columns import SpanColumns, assign, group_key, overlap_pairs
from .base import Cover, Match, Option, Strategy


class Overlap(Strategy):
    sweep_local = True
    name: ClassVar[str] = "overlap"
    infix: ClassVar[str] = "overlap"
    options: ClassVar[tuple[Option, ...]] = (
        Option.fraction("min_gold", 0.5),  # share of the gold span the overlap must cover
        Option.fraction("min_pred", 0.5),  # share of the predicted span the overlap must cover
    )
    min_gold: float
    min_pred: float

    @classmethod
    def describe(cls, options: Mapping[str, Any]) -> str:
        return f"min_gold {options['min_gold']:g}, min_pred {options['min_pred']:g}"

    def _shares(
        self, gs: np.ndarray | int, ge: np.ndarray | int, ps: np.ndarray, pe: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        inter = np.minimum(ge, pe) - np.maximum(gs, ps)
        return inter / (ge - gs), inter / (pe - ps)

    def match(self, gold: SpanColumns, pred: SpanColumns, n_labels: int) -> Match:
        n_g, n_p = len(gold), len(pred)
        pg, pp = overlap_pairs(gold, pred, group_key(gold, n_labels), group_key(pred, n_labels))
        share_g, share_p = self._shares(gold.start[pg], gold.end[pg], pred.start[pp], pred.end[pp])
        gold_score = np.zeros(n_g)
        np.maximum.at(gold_score, pg, np.minimum(share_g, share_p))
        pred_score = np.zeros(n_p)
        np.maximum.at(pred_score, pp, np.minimum(share_g, share_p))

        ok = (share_g >= self.min_gold) & (share_p >= self.min_pred)
        pg, pp, share_g, share_p = pg[ok], pp[ok], share_g[ok], share_p[ok]
        # Greedily: larger share of the gold span first, then of the prediction, then position;
        # only pairs with a rival need the order (assign takes the others whatever it is).
        rest = np.flatnonzero((np.bincount(pg)[pg] > 1) | (np.bincount(pp)[pp] > 1))
        g, p = pg[rest], pp[rest]
        order = rest[
            np.lexsort((pred.start[p], gold.start[g], -share_p[rest], -share_g[rest], gold.doc[g]))
        ]
        g_pair, p_pair = assign(pg, pp, order, n_g, n_p)
        tp, credited = g_pair >= 0, p_pair >= 0
        return Match(tp[None, :], credited[None, :], gold_score, pred_score)

    def pair_cover(
        self, gs: np.ndarray, ge: np.ndarray, ps: np.ndarray, pe: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        share_g, share_p = self._shares(gs, ge, ps, pe)
        ok = (share_g >= self.min_gold) & (share_p >= self.min_pred)
        return np.where(ok, share_g, 0.0), np.broadcast_to(ok, (self.n, ok.shape[0]))

    def cover(self, g_start: int, g_end: int, cands: list[tuple[int, int]]) -> Cover:
        """The qualifying candidate with the largest share of the gold span, then of itself;
        ties by position, so the choice never depends on the candidates' order."""
        s, e = np.array(cands, dtype=np.int64).reshape(-1, 2).T
        share_g, share_p = self._shares(g_start, g_end, s, e)
        ok = np.flatnonzero((share_g >= self.min_gold) & (share_p >= self.min_pred))
        if not ok.size:
            return Cover(0.0, (), np.zeros(self.n, dtype=bool))
        i = int(ok[np.lexsort((e[ok], s[ok], -share_p[ok], -share_g[ok]))[0]])
        return Cover(float(share_g[i]), (i,), np.ones(self.n, dtype=bool))
