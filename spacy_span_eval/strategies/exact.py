"""Exact matching (SPEC 2.2): sets of ``(start, end, label)``, as seqeval, conlleval and spaCy.

Identical duplicates collapse as in a set; how many collapsed is reported per side, so no
span disappears silently.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..columns import INT, SpanColumns
from .base import Cover, Match, Prepared, Strategy


def row_codes(*sides: SpanColumns) -> list[np.ndarray]:
    """One int64 per row, equal exactly when (doc, start, end, label) are equal across sides."""
    room = 1 + max((int(c.end.max()) for c in sides if len(c)), default=0)
    n_docs = 1 + max((int(c.doc.max()) for c in sides if len(c)), default=0)
    n_lab = 1 + max((int(c.label.max()) for c in sides if len(c)), default=0)
    if n_docs * room * room * n_lab < 2**62:
        return [((c.doc * room + c.start) * room + c.end) * n_lab + c.label for c in sides]
    rows = np.concatenate([np.stack([c.doc, c.start, c.end, c.label], axis=1) for c in sides])
    _, inverse = np.unique(rows, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1).astype(INT)
    return np.split(inverse, np.cumsum([len(c) for c in sides])[:-1])


def first_of_each(codes: np.ndarray) -> np.ndarray:
    """Row indices keeping the first occurrence of each code (stable, in input order)."""
    _, first = np.unique(codes, return_index=True)
    return np.sort(first)


class Exact(Strategy):
    name: ClassVar[str] = "exact"

    def prepare(self, gold: SpanColumns, pred: SpanColumns) -> Prepared:
        g_codes, p_codes = row_codes(gold, pred)
        g_keep, p_keep = first_of_each(g_codes), first_of_each(p_codes)
        return Prepared(gold.take(g_keep), pred.take(p_keep), {
            "gold_duplicates_collapsed": len(gold) - len(g_keep),
            "pred_duplicates_collapsed": len(pred) - len(p_keep),
        })

    def match(self, gold: SpanColumns, pred: SpanColumns, n_labels: int) -> Match:
        g_codes, p_codes = row_codes(gold, pred)
        tp = np.isin(g_codes, p_codes)
        credited = np.isin(p_codes, g_codes)
        return Match(tp[None, :], credited[None, :], tp.astype(float), credited.astype(float))

    def cover(self, g_start: int, g_end: int, cands: list[tuple[int, int]]) -> Cover:
        for i, (s, e) in enumerate(cands):
            if s == g_start and e == g_end:
                return Cover(1.0, (i,), np.ones(self.n, dtype=bool))
        return Cover(0.0, (), np.zeros(self.n, dtype=bool))
