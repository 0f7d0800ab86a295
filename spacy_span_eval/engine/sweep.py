"""Operating points (semantics §9): the ledger at every prediction score, in one pass.

A strategy that declares ``sweep_local`` decides a gold span and a prediction of one document
and label from the spans of that label they overlap. Removing predictions then changes only
the verdicts of the group they belong to (gold and predictions joined by overlap), so each
group is scored once per distinct score of its predictions, with those at or above it kept,
by the strategy itself: no shortcut decides a verdict. The differences between a group's
successive ledgers are events, additive across batches and processes; the ledger at threshold
``s`` is every gold span counted as missed plus the events at scores ``>= s``. Most groups
hold one prediction and are scored once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from ..errors import InvalidInputError
from .batching import SpanBatch
from .columns import INT, SpanColumns, group_key, overlap_pairs, ramp, row_codes
from .ledger import N_FIELDS, Ledger, LedgerField, ledger_figures
from .projection import LevelView
from .settings import MAP_THRESHOLDS
from .spans import Span
from .strategies import Strategy
from .verdicts import count_rows, distinct

F = LedgerField
BINS = 10  # equal-width score bins of the calibration error
_SEEN, _HIT = N_FIELDS, N_FIELDS + 1  # an event's predictions of its score, credited ones


@dataclass
class SweepTally:
    """A sweep's additive state: per label, ``(scores, deltas, docs)``: at each distinct score
    (rising), the ledger's change ``(n_thresholds, n, N_FIELDS)`` followed by two columns,
    the predictions of that score and how many of them the whole run credits; and the
    predictions seen without a score (an error when the sweep is read). All integers, so
    the figures do not depend on the order batches are added in. With ``doc_ids`` (a list),
    the events stay apart per document (``docs``: the index in it) so that a paired test
    can recompute the figures of resampled documents; else ``docs`` is all zero."""

    n_thresholds: int
    events: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    unscored: int = 0
    first_unscored: str | None = None
    doc_ids: list[str] | None = None

    def add(self, label: str, scores: np.ndarray, deltas: np.ndarray, docs: np.ndarray) -> None:
        have = self.events.get(label)
        if self.doc_ids is None:
            docs = np.zeros_like(docs)
        if have is not None:
            scores, docs = np.r_[have[0], scores], np.r_[have[2], docs]
            deltas = np.concatenate([have[1], deltas], 1)
        self.events[label] = _compact(scores, deltas, docs)

    def merge(self, other: SweepTally) -> SweepTally:
        both = (
            None if self.doc_ids is None or other.doc_ids is None else self.doc_ids + other.doc_ids
        )
        first = self.first_unscored or other.first_unscored
        out = SweepTally(self.n_thresholds, {}, self.unscored + other.unscored, first, both)
        for src, offset in ((self, 0), (other, len(self.doc_ids or ()))):
            for label, (scores, deltas, docs) in src.events.items():
                out.add(label, scores, deltas, docs + offset)
        return out

    def missing(self, count: int, where: str) -> None:
        """Count ``count`` predictions without a score, the first of them at ``where``."""
        self.first_unscored = self.first_unscored or where
        self.unscored += count


def _compact(
    scores: np.ndarray, deltas: np.ndarray, docs: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One event per document and distinct score (the deltas at it summed), scores rising."""
    if not scores.shape[0]:
        return scores, deltas, docs
    order = np.lexsort((docs, scores))
    scores, docs = scores[order], docs[order]
    first = np.flatnonzero(np.r_[True, (scores[1:] != scores[:-1]) | (docs[1:] != docs[:-1])])
    return scores[first], np.add.reduceat(deltas[:, order], first, axis=1), docs[first]


def add_batch(tally: SweepTally, strategy: Strategy, view: LevelView, batch: SpanBatch) -> None:
    """Add one batch's events at the labels level ``view`` to ``tally``."""
    offset = len(tally.doc_ids or ())
    if tally.doc_ids is not None:
        tally.doc_ids.extend(batch.doc_ids)
    pred = view.pred
    score = pred.score if pred.score is not None else np.full(len(pred), np.nan)
    missing = np.isnan(score)
    lost: list[tuple[int, Span, str]] = [u for u in batch.unaligned if u[1].score is None]
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        first = (int(pred.start[i]), int(pred.end[i]), view.labels[int(pred.label[i])])
        where = f"document {batch.doc_ids[int(pred.doc[i])]!r}, predicted span #{int(pred.item[i])}"
        tally.missing(int(missing.sum()), f"{where} {first!r}")
    if lost:
        d_i, span, _ = lost[0]
        where = f"document {batch.doc_ids[d_i]!r}, unaligned predicted span {span}"
        tally.missing(len(lost), where)
    if tally.unscored:
        return
    n_lab, n_thr = len(view.labels), tally.n_thresholds
    gold, _ = distinct(view.gold)
    pred = _best_of_identical(pred)
    inst_label, inst_score, inst_doc, deltas, credited = _groups(strategy, gold, pred, n_lab, n_thr)
    # unaligned predictions: one FP each, at their score (identical ones as one, the best;
    # as verdicts.distinct_unaligned, the reason tells ungrounded strings apart)
    best: dict[tuple[int, int, int, int, str], float] = {}
    for (d_i, span, why), lab in zip(batch.unaligned, view.unaligned.tolist(), strict=True):
        key = (d_i, span.start, span.end, lab, why)
        best[key] = max(best.get(key, -np.inf), float(span.score or 0.0))
    u_label, u_doc = (np.array([k[i] for k in best], dtype=INT) for i in (3, 0))
    u_score = np.array(list(best.values()), dtype=np.float64)
    u_delta = np.zeros((n_thr, len(best), N_FIELDS + 2), dtype=np.int64)
    u_delta[:, :, F.NUM_PREDICTED] = u_delta[:, :, F.FP] = u_delta[:, :, _SEEN] = 1
    # every prediction once more, with no ledger change: its outcome for calibration
    seen = np.zeros((n_thr, len(pred), N_FIELDS + 2), dtype=np.int64)
    seen[:, :, _SEEN], seen[:, :, _HIT] = 1, credited
    ledger = np.zeros((n_thr, deltas.shape[1], N_FIELDS + 2), dtype=np.int64)
    ledger[:, :, :N_FIELDS] = deltas
    labels = np.concatenate([inst_label, u_label, pred.label])
    scores = np.concatenate([inst_score, u_score, pred.score if len(pred) else np.zeros(0)])
    deltas = np.concatenate([ledger, u_delta, seen], axis=1)
    docs = np.concatenate([inst_doc, u_doc, pred.doc]) + offset
    for lab in np.unique(labels).tolist():
        mine = labels == lab
        tally.add(view.labels[lab], scores[mine], deltas[:, mine], docs[mine])


def _best_of_identical(pred: SpanColumns) -> SpanColumns:
    """Identical predictions as one, with the best score of them (what any threshold keeps)."""
    if len(pred) < 2:
        return pred
    assert pred.score is not None
    (code,) = row_codes(pred)
    order = np.lexsort((-pred.score, code))
    first = np.r_[True, code[order][1:] != code[order][:-1]]
    return pred.take(np.sort(order[first]))


def _components(gold: SpanColumns, pred: SpanColumns, n_lab: int) -> np.ndarray:
    """A group id per gold row, then per prediction: rows joined by same-label overlap."""
    g, p = overlap_pairs(gold, pred, group_key(gold, n_lab), group_key(pred, n_lab))
    comp = np.arange(len(gold) + len(pred), dtype=INT)
    a, b = g, p + len(gold)
    while a.shape[0]:
        low = np.minimum(comp[a], comp[b])
        if (comp[a] == low).all() and (comp[b] == low).all():
            break
        np.minimum.at(comp, a, low)
        np.minimum.at(comp, b, low)
        comp = comp[comp]
    return comp


def _groups(
    strategy: Strategy, gold: SpanColumns, pred: SpanColumns, n_lab: int, n_thr: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Score every group at each distinct score of its predictions: ``(each instance's
    label, its score, its document, ledger deltas (n_thr, n, N_FIELDS), each prediction's
    verdict with every prediction kept (n_thr, len(pred)))``."""
    n_g, n_p = len(gold), len(pred)
    empty = np.zeros(0, dtype=INT)
    if not n_p:
        none = np.zeros((n_thr, 0, N_FIELDS), INT)
        return empty, np.zeros(0), empty, none, np.zeros((n_thr, 0), bool)
    assert pred.score is not None
    comp = _components(gold, pred, n_lab)
    cg, cp = comp[:n_g], comp[n_g:]
    order = np.lexsort((-pred.score, cp))
    s_cp, s_score = cp[order], pred.score[order]
    new_comp = np.r_[True, s_cp[1:] != s_cp[:-1]]
    new_level = new_comp | np.r_[True, s_score[1:] != s_score[:-1]]
    level = np.cumsum(new_level) - 1  # each prediction's first instance (sorted order)
    n_inst = int(level[-1]) + 1
    comps = s_cp[new_comp]  # rising
    first = level[new_comp]
    last = np.r_[first[1:], n_inst] - 1
    c_of_pred = np.cumsum(new_comp) - 1
    # a prediction is in the instances from its own score's down to its group's last
    p_rep = last[c_of_pred] - level + 1
    p_rows = np.repeat(order, p_rep)
    p_inst = np.repeat(level, p_rep) + ramp(p_rep)
    at = np.searchsorted(comps, cg)
    has = (at < comps.shape[0]) & (comps[np.minimum(at, comps.shape[0] - 1)] == cg)
    g_idx, c_of_gold = np.flatnonzero(has), at[has]
    g_rep = last[c_of_gold] - first[c_of_gold] + 1
    g_rows = np.repeat(g_idx, g_rep)
    g_inst = np.repeat(first[c_of_gold], g_rep) + ramp(g_rep)
    gs, ps = (
        _instances(cols, rows, inst)
        for cols, rows, inst in ((gold, g_rows, g_inst), (pred, p_rows, p_inst))
    )
    out = strategy.run(gs, ps, n_lab)
    rows = count_rows(out.gold.doc, out.pred.doc, out.match, n_inst, empty)
    # before a group's first instance: its gold all missed, nothing predicted
    base = np.zeros((n_thr, comps.shape[0], N_FIELDS), dtype=np.int64)
    base[:, :, F.NUM_ANNOTATED] = base[:, :, F.FN] = np.bincount(
        c_of_gold, minlength=comps.shape[0]
    )
    prev = np.concatenate([rows[:, :1], rows[:, :-1]], axis=1)
    prev[:, first] = base
    # each prediction's verdict in its group's last instance (every prediction kept)
    credited = np.zeros((n_thr, n_p), dtype=bool)
    whole = out.pred.doc == last[np.searchsorted(first, out.pred.doc, side="right") - 1]
    credited[:, out.pred.item[whole]] = out.match.pred_credited[:, whole]
    return (
        pred.label[order][new_level],
        s_score[new_level],
        pred.doc[order][new_level],
        rows - prev,
        credited,
    )


def _instances(cols: SpanColumns, rows: np.ndarray, inst: np.ndarray) -> SpanColumns:
    """``cols``' ``rows`` as documents ``inst``, in instance then input order; ``item``
    holds each row's index in ``cols`` (its input order)."""
    order = np.lexsort((rows, inst))
    rows, inst = rows[order], inst[order]
    return SpanColumns(inst, cols.start[rows], cols.end[rows], cols.label[rows], rows)


# -- figures ---------------------------------------------------------------------------------


def sweep_figures(
    tally: SweepTally,
    annotated: Mapping[str, int],
    thresholds: Sequence[float | None],
    *,
    beta: float = 1.0,
) -> list[dict[str, Any]]:
    """Per IoU threshold: per label and micro, the points (score, ledger, P/R/F), average
    precision, the best-F score and the calibration error; ``map`` over the labels with gold.
    ``annotated``: the run's gold spans per label."""
    if tally.unscored:
        raise InvalidInputError(
            f"--sweep, --choose-thresholds: {tally.unscored} prediction(s) have no score "
            f"(the first: {tally.first_unscored}); a sweep needs a score on every prediction"
        )
    labels = sorted(set(annotated) | set(tally.events))
    none = np.zeros(0), np.zeros((len(thresholds), 0, N_FIELDS + 2), dtype=np.int64), np.zeros(0)
    every = [_by_score(*tally.events.get(label, none)) for label in labels]
    pooled = _by_score(
        np.concatenate([e[0] for e in every]), np.concatenate([e[1] for e in every], axis=1)
    )
    out = []
    for t, tau in enumerate(thresholds):
        per_label = {
            label: _label(scores, deltas[t], annotated.get(label, 0), beta)
            for label, (scores, deltas, _) in zip(labels, every, strict=True)
        }
        micro = _label(pooled[0], pooled[1][t], sum(annotated.values()), beta)
        aps = [
            v["average_precision"] for v in per_label.values() if v["average_precision"] is not None
        ]
        out.append(
            {
                "threshold": tau,
                "map": float(np.mean(aps)) if aps else None,
                "per_label": per_label,
                "micro": micro,
            }
        )
    return out


def _by_score(
    scores: np.ndarray, deltas: np.ndarray, _: object = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Events of every document pooled: one per distinct score."""
    return _compact(scores, deltas, np.zeros(scores.shape[0], dtype=INT))


def map_over_thresholds(entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Span mAP at each IoU threshold of :data:`~.settings.MAP_THRESHOLDS` and their mean
    (COCO's mAP@[0.5:0.95]; ``None`` where no label has gold)."""
    maps = {e["threshold"]: e["map"] for e in entries}
    each = [maps[t] for t in MAP_THRESHOLDS]
    defined = [m for m in each if m is not None]
    return {
        "thresholds": list(MAP_THRESHOLDS),
        "maps": each,
        "map": float(np.mean(defined)) if defined else None,
    }


def _label(scores: np.ndarray, deltas: np.ndarray, annotated: int, beta: float) -> dict[str, Any]:
    """One label's sweep figures; the ledger at each of ``scores`` (rising) is every gold
    span missed plus the ``deltas`` at that score or above."""
    rows = np.cumsum(deltas[::-1, :N_FIELDS], axis=0)[::-1].astype(np.int64)
    rows[:, [F.NUM_ANNOTATED, F.FN]] += annotated
    figures = ledger_figures(rows, beta=beta)
    p, r, f = figures["precision"], figures["recall"], figures["f"]
    down = slice(None, None, -1)  # from the highest score down
    ap = None
    if annotated:
        recall = np.r_[0.0, np.nan_to_num(r[down])]
        ap = float(np.sum(np.diff(recall) * np.nan_to_num(p[down])))
    best = None
    if scores.shape[0] and not np.isnan(f).all():
        i = int(np.nanargmax(np.where(np.isnan(f), -1.0, f)[down]))  # ties: the highest score
        i = scores.shape[0] - 1 - i
        best = {"score": float(scores[i]), **_figures(p[i], r[i], f[i])}
    # calibration: equal-width bins of the scores as chances (one outside [0, 1] as 0 or 1)
    chance = np.clip(scores, 0, 1)
    b = np.minimum(chance * BINS, BINS - 1).astype(INT)
    n = np.bincount(b, weights=deltas[:, _SEEN], minlength=BINS)
    seen = n > 0
    total = np.bincount(b, weights=chance * deltas[:, _SEEN], minlength=BINS)
    mean = np.divide(total, n, out=np.zeros(BINS), where=seen)
    hit = np.divide(
        np.bincount(b, weights=deltas[:, _HIT], minlength=BINS), n, out=np.zeros(BINS), where=seen
    )
    ece = float(np.sum(n * np.abs(hit - mean)) / n.sum()) if n.sum() else None
    return {
        "average_precision": ap,
        "best": best,
        "ece": ece,
        "reliability": [
            {
                "low": k / BINS,
                "high": (k + 1) / BINS,
                "predictions": int(n[k]),
                "mean_score": float(mean[k]) if seen[k] else None,
                "credited": float(hit[k]) if seen[k] else None,
            }
            for k in range(BINS)
        ],
        "points": [
            {
                "score": float(s),
                **{fl.key: int(v) for fl, v in zip(F, row, strict=True)},
                **_figures(pi, ri, fi),
            }
            for s, row, pi, ri, fi in zip(
                scores[down], rows[down], p[down], r[down], f[down], strict=True
            )
        ],
    }


def _figures(p: float, r: float, f: float) -> dict[str, float | None]:
    return {
        k: None if np.isnan(v) else float(v) for k, v in (("precision", p), ("recall", r), ("f", f))
    }


# -- operating points of a gate (semantics §9) -----------------------------------------------
def point_ledger(point: Mapping[str, Any]) -> Ledger:
    """The ledger of one point of a sweep."""
    return Ledger(*(int(point[f.key]) for f in LedgerField))


def operating_point(
    points: list[dict[str, Any]], floor: Decimal, kept: Ledger
) -> tuple[Ledger, float | None, bool]:
    """``(ledger, score, reached)``: at the highest score whose recall meets ``floor``, else
    at the score with the best recall (the highest of equals); ``kept``: every prediction's."""
    at = [(p["score"], point_ledger(p)) for p in points]
    for score, ledger in at:
        if Fraction(ledger.tp, ledger.num_annotated) >= Fraction(floor):
            return ledger, score, True
    score, ledger = max(at, key=lambda a: a[1].tp, default=(None, kept))
    return ledger, score, False


def ledger_at(points: list[dict[str, Any]], score: float, kept: Ledger) -> Ledger:
    """The ledger of the predictions with ``score`` or more (none: every gold span missed)."""
    above = [p for p in points if p["score"] >= score]
    n = kept.num_annotated
    return point_ledger(above[-1]) if above else Ledger(num_annotated=n, fn=n)


def sweep_points(
    sweep: list[dict[str, Any]] | None,
    swept_level: str,
    threshold: float | None,
    level: str,
    source: str,
) -> dict[str, list[dict[str, Any]]]:
    """Per label, the points at IoU ``threshold`` (highest score first) of a result's
    ``sweep``, which is of its first level (``swept_level``) alone."""
    entry = next((e for e in sweep or () if e["threshold"] == threshold), None)
    if entry is None or level != swept_level:
        raise InvalidInputError(
            f"{source}: choosing score thresholds needs the sweep of the labels level at the "
            f"gate's threshold (gate level {level!r}{'' if entry else ', no sweep there'})"
        )
    return {label: v["points"] for label, v in entry["per_label"].items()}
