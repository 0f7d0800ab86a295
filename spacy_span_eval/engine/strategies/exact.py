"""Exact matching (semantics §2.2): sets of ``(start, end, label)``, as seqeval, conlleval and
spaCy.

Identical duplicates collapse as in a set; how many collapsed is reported per side, so no
span disappears silently. (The evaluator makes identical spans one before any strategy runs,
semantics §3, so here that collapses the positions ``token`` expands spans to, or rows of a
direct caller.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..columns import SpanColumns, distinct_rows, row_codes
from .base import Cover, Match, Outcome, Strategy


class SameBoundaries:
    """A strategy whose ``run`` does the matching (its ``match`` is ``run``'s) and for which
    another label's prediction covers an annotation when it has the same boundaries: exact
    matching, and the strict ledger of ``semeval``."""

    n: int

    if TYPE_CHECKING:
        # Given by the strategy that mixes this in.
        def run(self, gold: SpanColumns, pred: SpanColumns, n_labels: int) -> Outcome: ...

    def match(self, gold: SpanColumns, pred: SpanColumns, n_labels: int) -> Match:
        return self.run(gold, pred, n_labels).match

    def pair_cover(
        self, gs: np.ndarray, ge: np.ndarray, ps: np.ndarray, pe: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        same = (gs == ps) & (ge == pe)
        return same.astype(float), np.broadcast_to(same, (self.n, same.shape[0]))

    def cover(self, g_start: int, g_end: int, cands: list[tuple[int, int]]) -> Cover:
        for i, (s, e) in enumerate(cands):
            if s == g_start and e == g_end:
                return Cover(1.0, (i,), np.ones(self.n, dtype=bool))
        return Cover(0.0, (), np.zeros(self.n, dtype=bool))


class Exact(SameBoundaries, Strategy):
    sweep_local = True
    name: ClassVar[str] = "exact"
    infix: ClassVar[str] = "exact"

    def run(self, gold: SpanColumns, pred: SpanColumns, n_labels: int) -> Outcome:
        """Match in one sort of both sides' codes (duplicates on a side collapsed first)."""
        n_g = len(gold)
        codes = np.concatenate(row_codes(gold, pred))
        order = np.argsort(codes, kind="stable")
        ordered = codes[order]
        is_gold = order < n_g
        same = ordered[1:] == ordered[:-1]
        if (same & (is_gold[1:] == is_gold[:-1])).any():
            # Duplicates on a side: make each set of identical rows one (the first), then match.
            kept = [c if (k := distinct_rows(c)) is None else c.take(k) for c in (gold, pred)]
            out = Exact.run(self, kept[0], kept[1], n_labels)
            return Outcome(
                out.gold,
                out.pred,
                out.match,
                {
                    "gold_duplicates_collapsed": n_g - len(kept[0]),
                    "pred_duplicates_collapsed": len(pred) - len(kept[1]),
                },
            )
        # No duplicates on either side: equal neighbours are exactly the matches.
        hit = np.zeros(codes.shape[0], dtype=bool)
        hit[:-1] |= same
        hit[1:] |= same
        matched = np.empty_like(hit)
        matched[order] = hit
        tp, credited = matched[:n_g], matched[n_g:]
        match = Match(tp[None, :], credited[None, :], tp.astype(float), credited.astype(float))
        return Outcome(gold, pred, match)
