"""Confusion cells (semantics §4), annotation-centric: each gold span in exactly one cell of its
row.

A TP annotation counts on the diagonal. An FN annotation counts under the other label whose
predictions cover it best by the strategy's own rule (a wrong label), else under
:data:`NO_LABEL` (missed). A prediction no cell represents (not credited, not the cover of a
wrong-label annotation, or unaligned) counts in the :data:`NO_LABEL` row, and a gold span that
could not be put in the unit (unaligned gold) in the :data:`NO_LABEL` column. Covers are
computed once per batch for every threshold; only annotations with several candidates of one
label go through Python.

The "no label" row and column are ``None`` (``null`` in JSON), never a string: a label may be
called ``"O"`` and still has its own row and column (semantics §4).

Beside the cells, how many spans of each "no label" cell are ``boundary`` errors: an
annotation that predictions of its own label overlap but do not find (their cover misses the
threshold), and the predictions of its label that overlap it without being credited
(semantics §4).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .columns import INT, overlap_pairs
from .strategies import Strategy
from .verdicts import Verdicts

__all__ = ["NO_LABEL", "Cell", "add_confusion"]

#: The "no label" row (predictions no cell represents) and column (missed annotations).
NO_LABEL = None
#: A confusion cell: (gold label or NO_LABEL, predicted label or NO_LABEL).
Cell = tuple[str | None, str | None]


@dataclass(frozen=True)
class Misses:
    """What kind of error each unmatched span of a batch is, per threshold (semantics §4):
    :meth:`wrong` maps each wrong-label annotation (gold row) to the label covering it;
    ``boundary_gold`` / ``boundary_pred`` flag the boundary errors."""

    # Per threshold, the wrong-label annotations (gold rows) and the label ids covering
    # them: made into a mapping only for the error records that ask (most batches keep none
    # once the records are capped).
    wrong_rows: list[tuple[np.ndarray, np.ndarray]]
    labels: list[str]
    boundary_gold: np.ndarray  # bool (n_thresholds, n_gold)
    boundary_pred: np.ndarray  # bool (n_thresholds, n_pred)
    # Predictions not credited that cover another label's wrong-label annotation (its cell
    # represents them): bool (n_thresholds, n_pred)
    relabelling: np.ndarray
    # Per side, the score of the other label's cover for each wrong-label span (what its
    # record shows): float (n_thresholds, n_gold) and (n_thresholds, n_pred)
    cover: tuple[np.ndarray, np.ndarray]

    def kinds(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """Per gold row and per pred row, at threshold ``t``, the kind of its error if it is
        one: 0 missed or spurious, 1 boundary, 2 wrong label (which takes precedence)."""
        gold = self.boundary_gold[t].astype(INT)
        gold[self.wrong_rows[t][0]] = 2
        return gold, np.where(self.relabelling[t], 2, self.boundary_pred[t].astype(INT))

    def wrong(self, t: int) -> dict[int, str]:
        """Wrong-label annotation (gold row) -> the label covering it, at threshold ``t``."""
        rows, label_ids = self.wrong_rows[t]
        return dict(zip(rows.tolist(), (self.labels[u] for u in label_ids.tolist()), strict=True))


def add_confusion(
    cells: list[Counter[Cell]],
    strategy: Strategy,
    v: Verdicts,
    boundary: list[Counter[Cell]] | None = None,
    thresholds: Sequence[int] | None = None,
) -> Misses:
    """Add a level's cells of one batch, per threshold, to ``cells`` (and to ``boundary`` how
    many spans of each :data:`NO_LABEL` cell are boundary errors). Returns what kind of error each
    unmatched span is. ``thresholds``: only at these (indices); the others are left as
    they are, with no misses."""
    gold, pred, m, labels = v.gold, v.pred, v.match, v.labels
    cov = label_covers(strategy, v)
    own_pg, own_pp, not_found = boundary_candidates(strategy, v)
    none = np.zeros(0, dtype=INT)
    wrong: list[tuple[np.ndarray, np.ndarray]] = [(none, none)] * strategy.n
    boundary_gold, boundary_pred, relabelling = (
        np.zeros((strategy.n, n), dtype=bool) for n in (len(gold), len(pred), len(pred))
    )
    cover = (np.zeros((strategy.n, len(gold))), np.zeros((strategy.n, len(pred))))
    for t in range(strategy.n) if thresholds is None else thresholds:
        tp = m.gold_tp[t]
        represented = m.pred_credited[t].copy()
        # Per FN annotation, the passing other label with the highest score (ties: the
        # alphabetically first label; view label ids are in alphabetical order).
        ok = np.flatnonzero(cov.passes[t] & ~tp[cov.gold])
        ok = ok[np.lexsort((cov.label[ok], -cov.score[ok], cov.gold[ok]))]
        first = np.ones(ok.size, dtype=bool)
        first[1:] = cov.gold[ok[1:]] != cov.gold[ok[:-1]]
        winners = ok[first]
        won = np.zeros(cov.gold.size, dtype=bool)
        won[winners] = True
        sel = won[cov.sel_cover]
        represented[cov.sel_pred[sel]] = True
        cover[0][t, cov.gold[winners]] = cov.score[winners]
        np.maximum.at(cover[1][t], cov.sel_pred[sel], cov.score[cov.sel_cover[sel]])
        missed = ~tp
        missed[cov.gold[winners]] = False
        for rows, columns in (
            (gold.label[tp], gold.label[tp]),
            (gold.label[cov.gold[winners]], cov.label[winners]),
            (gold.label[missed], None),
            (None, pred.label[~represented]),
            (None, v.unaligned_label),
            (v.unaligned_gold_label, None),
        ):
            _add_cells(cells[t], labels, rows, columns)
        wrong[t] = (cov.gold[winners], cov.label[winners])
        relabelling[t] = represented & ~m.pred_credited[t]
        # Boundary: missed (not wrong-label) annotations their own label's predictions overlap
        # without finding; and those predictions, where not credited.
        b_gold = missed & not_found[t]
        b_pred = boundary_pred[t]
        b_pred[own_pp[b_gold[own_pg]]] = True
        b_pred &= ~m.pred_credited[t]
        boundary_gold[t] = b_gold
        if boundary is not None:
            _add_cells(boundary[t], labels, gold.label[b_gold], None)
            _add_cells(boundary[t], labels, None, pred.label[b_pred & ~represented])
    return Misses(wrong, list(labels), boundary_gold, boundary_pred, relabelling, cover)


@dataclass(frozen=True)
class Covers:
    """Rows of (annotation, other label) that pass at some threshold, with their selections
    flattened as ``(sel_cover, sel_pred)`` pairs."""

    gold: np.ndarray
    label: np.ndarray
    score: np.ndarray
    passes: np.ndarray  # (n_thresholds, n)
    sel_cover: np.ndarray
    sel_pred: np.ndarray

    @classmethod
    def build(cls, parts: Sequence[tuple[np.ndarray, ...]]) -> Covers:
        """``parts``: ``(gold, label, score, passes, sel_cover, sel_pred)`` with ``sel_cover``
        indexing the part's own rows; concatenated with offsets."""
        offsets = np.cumsum([0] + [p[0].size for p in parts])[:-1]
        cat = np.concatenate
        return cls(
            cat([p[0] for p in parts]).astype(INT),
            cat([p[1] for p in parts]).astype(INT),
            cat([p[2] for p in parts]).astype(float),
            cat([p[3] for p in parts], axis=1),
            cat([p[4] + o for p, o in zip(parts, offsets, strict=True)]).astype(INT),
            cat([p[5] for p in parts]).astype(INT),
        )


def fn_pairs(v: Verdicts, *, same_label: bool) -> tuple[np.ndarray, np.ndarray]:
    """(gold row, pred row) pairs that overlap, for annotations that are FN at some
    threshold: with predictions of another label, or (``same_label``) of their own."""
    gold, pred, m = v.gold, v.pred, v.match
    fn_rows = np.flatnonzero(~m.gold_tp.all(axis=0))
    if not fn_rows.size or not len(pred):
        return np.zeros(0, dtype=INT), np.zeros(0, dtype=INT)
    has_fn = np.zeros(int(max(gold.doc.max(), pred.doc.max())) + 1, dtype=bool)
    has_fn[gold.doc[fn_rows]] = True
    near = np.flatnonzero(has_fn[pred.doc])
    sub_g, sub_p = gold.take(fn_rows), pred.take(near)
    cg, cp = overlap_pairs(sub_g, sub_p, sub_g.doc, sub_p.doc)
    cg, cp = fn_rows[cg], near[cp]
    keep = (pred.label[cp] == gold.label[cg]) == same_label
    return cg[keep], cp[keep]


def boundary_candidates(
    strategy: Strategy, v: Verdicts
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(pg, pp, not_found)``: the pairs of FN annotations with overlapping predictions of
    their own label, and per threshold which annotations those predictions, taken by the
    strategy's cover rule with nothing else competing for them, do not find (bool
    ``(n_thresholds, n_gold)``). An annotation they would find was lost to another one (a
    one-to-one assignment), not to its boundaries."""
    pg, pp = fn_pairs(v, same_label=True)
    not_found = np.zeros((strategy.n, len(v.gold)), dtype=bool)
    not_found[:, pg] = True
    if v.match.found_alone is not None:  # the strategy knows already
        return pg, pp, not_found & ~v.match.found_alone
    cov = label_covers(strategy, v, (pg, pp))
    not_found[:, cov.gold] &= ~cov.passes
    return pg, pp, not_found


def label_covers(
    strategy: Strategy, v: Verdicts, pairs: tuple[np.ndarray, np.ndarray] | None = None
) -> Covers:
    """How each other label's predictions cover the annotations that are FN at some
    threshold (one row per annotation and label that passes somewhere); or, given
    ``pairs``, the predictions of those pairs."""
    gold, pred = v.gold, v.pred
    cg, cp = fn_pairs(v, same_label=False) if pairs is None else pairs
    key = cg * len(v.labels) + pred.label[cp]  # (annotation, label)
    order = np.lexsort((cp, key))
    cg, cp, key = cg[order], cp[order], key[order]
    first = np.ones(key.size, dtype=bool)
    first[1:] = key[1:] != key[:-1]
    run = np.cumsum(first) - 1
    run_size = np.bincount(run)[run]
    single = run_size == 1
    g1, p1 = cg[single], cp[single]
    score, passes = strategy.pair_cover(gold.start[g1], gold.end[g1], pred.start[p1], pred.end[p1])
    keep = passes.any(axis=0)
    n_keep = int(keep.sum())
    parts = [
        (g1[keep], pred.label[p1[keep]], score[keep], passes[:, keep], np.arange(n_keep), p1[keep])
    ]
    multi = np.flatnonzero(~single)
    for run in np.split(multi, np.flatnonzero(first[multi])[1:]) if multi.size else ():
        g, rows = int(cg[run[0]]), cp[run]
        cands = list(zip(pred.start[rows].tolist(), pred.end[rows].tolist(), strict=True))
        c = strategy.cover(int(gold.start[g]), int(gold.end[g]), cands)
        if c.passes.any():
            sel = rows[list(c.selection)]
            parts.append(
                (
                    np.array([g]),
                    pred.label[rows[:1]],
                    np.array([c.score]),
                    c.passes[:, None],
                    np.zeros(sel.size, dtype=INT),
                    sel,
                )
            )
    return Covers.build(parts)


def _add_cells(
    cells: Counter[Cell], labels: list[str], rows: np.ndarray | None, columns: np.ndarray | None
) -> None:
    """Count (row label, column label) cells; ``None`` on one side stands for
    :data:`NO_LABEL` (label id ``len(labels)``)."""
    names, n = [*labels, NO_LABEL], len(labels) + 1
    ids = rows if rows is not None else columns
    assert ids is not None, "a cell has a label on one side at least"
    none = np.full(ids.size, n - 1)
    row, column = (none if a is None else a for a in (rows, columns))
    found = np.bincount(row * n + column, minlength=n * n)
    cells.update({(names[c // n], names[c % n]): int(found[c]) for c in np.flatnonzero(found)})
