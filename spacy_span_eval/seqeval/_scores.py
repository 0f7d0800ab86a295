"""Counts to seqeval's figures: per-type sums, the divisions with their zero-division rule and
warnings, the averages, and the two report layouts.

The arithmetic is done on the same numpy arrays, in the same order, as seqeval does it, so
that every figure is the same float (and the same ``nan`` and ``RuntimeWarning`` where
seqeval averages nothing).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._tags import Decoded

AVERAGES: tuple[str | None, ...] = (None, "micro", "macro", "weighted")
EVERY = ("precision", "recall", "f-score")


def warning_class() -> type[Warning]:
    """scikit-learn's ``UndefinedMetricWarning`` (what seqeval warns with, and what its users
    filter), imported when a warning is due; a local twin when scikit-learn is absent."""
    try:
        from sklearn.exceptions import UndefinedMetricWarning  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - scikit-learn comes with seqeval
        return _UndefinedMetricWarning
    found: type[Warning] = UndefinedMetricWarning
    return found


class _UndefinedMetricWarning(UserWarning):
    """A ratio is undefined (no predictions or no gold chunks) and was set by zero_division."""


class Counts:
    """Per type (sorted by name): true positives, predicted and true chunk counts."""

    def __init__(self, names: list[str], tp: np.ndarray, pred: np.ndarray, true: np.ndarray):
        self.names, self.tp, self.pred, self.true = names, tp, pred, true


def count(both: Decoded) -> Counts:
    """Per-type counts of both sides' chunks; a chunk is a true positive when the other side
    has one with the same type, first and stop. No two chunks of one side share a stop (each
    decoder ends at most one chunk at a position), so the stop is the key to look up."""
    true, pred, types = both.true, both.pred, both.types
    n = len(types)
    size = int(max(true.stop.max(initial=0), pred.stop.max(initial=0))) + 1
    first_at = np.full(size, -1, dtype=np.int64)
    type_at = np.full(size, -1, dtype=np.int64)
    first_at[pred.stop] = pred.first
    type_at[pred.stop] = pred.type
    hit = true.type[(first_at[true.stop] == true.first) & (type_at[true.stop] == true.type)]
    tp = np.bincount(hit, minlength=n)
    n_pred = np.bincount(pred.type, minlength=n)
    n_true = np.bincount(true.type, minlength=n)
    present = np.flatnonzero((n_pred + n_true) > 0)
    if not present.size:  # seqeval's empty arrays are int32
        empty = np.zeros(0, dtype=np.int32)
        return Counts([], empty, empty.copy(), empty.copy())
    order = sorted(present.tolist(), key=types.__getitem__)
    return Counts(
        [types[k] for k in order],
        tp[order].astype(np.int64),
        n_pred[order].astype(np.int64),
        n_true[order].astype(np.int64),
    )


def check_average(average: object, beta: float) -> None:
    if beta < 0:
        raise ValueError("beta should be >=0 in the F-beta score")
    if average not in AVERAGES:
        raise ValueError(f"average has to be one of {AVERAGES}")


def zero_value(zero_division: object) -> float:
    return 0.0 if zero_division in ["warn", 0] else 1.0


def _undefined(
    metric: str, modifier: str, warn_for: Sequence[str], zero_division: object, size: int
) -> None:
    if zero_division != "warn" or metric not in warn_for:
        return
    subject = (
        f"{metric.title()} and F-score are" if "f-score" in warn_for else f"{metric.title()} is"
    )
    _warn(subject, modifier, size)


def _warn(subject: str, modifier: str, size: int) -> None:
    where = "due to" if size == 1 else "in labels with"
    warnings.warn(
        f"{subject} ill-defined and being set to 0.0 {where} no {modifier} samples. "
        "Use `zero_division` parameter to control this behavior.",
        warning_class(),
        stacklevel=1,  # (one place, as seqeval's: the default filter shows it once)
    )


def _divide(
    num: np.ndarray,
    den: np.ndarray,
    metric: str,
    modifier: str,
    warn_for: Sequence[str],
    zero_division: object,
) -> np.ndarray:
    zero = den == 0.0
    safe = den.copy()
    safe[zero] = 1
    out: np.ndarray = num / safe
    if zero.any():
        out[zero] = zero_value(zero_division)
        _undefined(metric, modifier, warn_for, zero_division, out.shape[0])
    return out


def prf(
    counts: Counts,
    *,
    average: str | None,
    warn_for: Sequence[str],
    beta: float,
    zero_division: object,
) -> tuple[Any, Any, Any, Any]:
    """Precision, recall, F-beta and support, per type (``average=None``) or averaged."""
    tp, pred, true = counts.tp, counts.pred, counts.true
    if average == "micro":
        tp, pred, true = np.array([tp.sum()]), np.array([pred.sum()]), np.array([true.sum()])
    precision = _divide(tp, pred, "precision", "predicted", warn_for, zero_division)
    recall = _divide(tp, true, "recall", "true", warn_for, zero_division)
    if zero_division == "warn" and warn_for == ("f-score",):
        if (pred[true == 0] == 0).any():
            _warn("F-score is", "true nor predicted", len(true))
    beta2 = beta**2
    if np.isposinf(beta):
        f_score = recall
    else:
        den = beta2 * precision + recall
        den[den == 0.0] = 1
        f_score = (1 + beta2) * precision * recall / den
    weights = None
    if average == "weighted":
        weights = true
        if weights.sum() == 0:
            zero = zero_value(zero_division)
            none_predicted = pred.sum() == 0
            return (
                zero if none_predicted else 0.0,
                zero,
                zero if none_predicted else 0.0,
                sum(true),
            )
    if average is None:
        return precision, recall, f_score, true
    return (
        np.average(precision, weights=weights),
        np.average(recall, weights=weights),
        np.average(f_score, weights=weights),
        sum(true),
    )


def report(
    counts: Counts,
    *,
    digits: int,
    output_dict: bool,
    zero_division: object,
    before_each: Callable[[], None] | None = None,
) -> str | dict[str, dict[str, Any]]:
    """seqeval's ``classification_report``: one row per type, then micro, macro and weighted
    averages; a dict or seqeval's text table. ``before_each`` runs before each of the four
    computations (seqeval decodes the tags again there, warning again)."""
    names = counts.names
    rows: list[tuple[str, Any, Any, Any, Any] | None] = []
    if not output_dict:
        width = max(max(map(len, names)), len("weighted avg"), digits)
    if before_each is not None:
        before_each()
    p, r, f, s = prf(counts, average=None, warn_for=EVERY, beta=1.0, zero_division=zero_division)
    rows.extend(zip(names, p, r, f, s, strict=True))
    rows.append(None)
    for average in ("micro", "macro", "weighted"):
        if before_each is not None:
            before_each()
        figures = prf(
            counts, average=average, warn_for=EVERY, beta=1.0, zero_division=zero_division
        )
        rows.append((f"{average} avg", *figures))
    rows.append(None)
    if output_dict:
        keys = ("precision", "recall", "f1-score", "support")
        return {row[0]: dict(zip(keys, row[1:], strict=True)) for row in rows if row is not None}
    head = f"{'':>{width}s} " + "".join(
        f" {h:>9}" for h in ("precision", "recall", "f1-score", "support")
    )
    lines = [
        ""
        if row is None
        else f"{row[0]:>{width}s} "
        + "".join(f" {v:>9.{digits}f}" for v in row[1:4])
        + f" {row[4]:>9}"
        for row in rows
    ]
    return head + "\n\n" + "\n".join(lines)
