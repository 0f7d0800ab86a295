"""The per-label ledger: counts that add up, and the ratios derived from them.

Like spaCy's ``PRFScore``, a :class:`Ledger` is a small value you can sum across documents,
batches or processes. Ratios are derived, never stored, so merging can not drift.

The engine keeps ledgers as int arrays whose last axis is :class:`LedgerField` (tallies,
per-document counts, bootstrap resamples); :meth:`Ledger.from_row` and :meth:`Ledger.to_row`
cross between the two. F-beta has one implementation, :func:`f_beta_array`, which the scalar
:func:`f_beta` calls, so the scores and the bootstrap can not disagree on its rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from enum import IntEnum
from fractions import Fraction

import numpy as np


class LedgerField(IntEnum):
    """The columns of a ledger row, in order. ``field.key`` is the :class:`Ledger` attribute
    and the JSON key of the column."""

    NUM_ANNOTATED = 0
    NUM_PREDICTED = 1
    TP = 2
    FN = 3
    CREDITED = 4
    FP = 5

    @property
    def key(self) -> str:
        return self.name.lower()


#: Length of a ledger row (the last axis of every count array).
N_FIELDS = len(LedgerField)
#: The column names, in row order (``"num_annotated", ..., "fp"``).
FIELD_NAMES: tuple[str, ...] = tuple(f.key for f in LedgerField)
#: The ratios derived from a ledger, in the order every output lists them.
RATIOS: tuple[str, ...] = ("precision", "recall", "f")
#: The keys of every label pooled and of their mean, beside each label's (:func:`all_figures`).
MICRO, MACRO = "micro", "macro"


def has_spans(rows: np.ndarray) -> np.ndarray:
    """Where ledger rows ``(..., N_FIELDS)`` count any gold or predicted span (a label that is
    present, as opposed to one that merely has a column)."""
    present: np.ndarray = (
        rows[..., LedgerField.NUM_ANNOTATED] + rows[..., LedgerField.NUM_PREDICTED]
    ) > 0
    return present


def ratio(numerator: float, denominator: float, zero_division: float | None = None) -> float | None:
    """``numerator / denominator``, or ``zero_division`` (default ``None``) when undefined."""
    if denominator == 0:
        return zero_division
    return numerator / denominator


def ratio_array(
    numerator: np.ndarray, denominator: np.ndarray, zero_division: float | None = None
) -> np.ndarray:
    """:func:`ratio` of arrays: ``zero_division``, else NaN, where the denominator is 0."""
    out = np.full(
        np.broadcast(numerator, denominator).shape,
        np.nan if zero_division is None else float(zero_division),
    )
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def f_beta_array(
    precision: np.ndarray | float,
    recall: np.ndarray | float,
    beta: float = 1.0,
    zero_division: float | None = None,
) -> np.ndarray:
    """F-beta of ratio arrays, NaN standing for an undefined ratio (in and out).

    When one ratio is undefined and the other is 0, F is 0 whatever the undefined one would
    be (a label never predicted but present in gold scores F = 0); otherwise it is
    ``zero_division``, else undefined. Both ratios 0 give F = 0.
    """
    p, r = np.asarray(precision, dtype=np.float64), np.asarray(recall, dtype=np.float64)
    b2 = beta * beta
    den = b2 * p + r
    f = np.zeros(den.shape)
    np.divide((1 + b2) * p * r, den, out=f, where=den > 0)
    undefined = np.isnan(den)  # one ratio (or both) undefined
    if undefined.any():
        other = np.where(np.isnan(p), r, p)
        fallback = np.where(
            other == 0, 0.0, np.nan if zero_division is None else float(zero_division)
        )
        f[undefined] = fallback[undefined]
    return f


def f_beta(
    precision: float | None,
    recall: float | None,
    beta: float = 1.0,
    zero_division: float | None = None,
) -> float | None:
    """F-beta of two ratios (``None`` = undefined): :func:`f_beta_array` on scalars."""
    f = f_beta_array(
        np.nan if precision is None else precision,
        np.nan if recall is None else recall,
        beta,
        zero_division,
    )
    return None if np.isnan(f) else float(f)


def ledger_figures(
    rows: np.ndarray, *, beta: float = 1.0, zero_division: float | None = None
) -> dict[str, np.ndarray]:
    """Precision, recall and F-beta of ledger rows ``(..., N_FIELDS)``, NaN where undefined:
    the figures of :class:`Ledger`, for many ledgers at once."""
    F = LedgerField
    p = ratio_array(rows[..., F.CREDITED], rows[..., F.NUM_PREDICTED], zero_division)
    r = ratio_array(rows[..., F.TP], rows[..., F.NUM_ANNOTATED], zero_division)
    return {"precision": p, "recall": r, "f": f_beta_array(p, r, beta, zero_division)}


def _macro(per_label: np.ndarray, ledgers: np.ndarray) -> np.ndarray:
    """Mean over labels present in gold or predictions, undefined values skipped (as
    :attr:`~.result.ThresholdScores.macro`); the last axis is the label."""
    use = has_spans(ledgers) & ~np.isnan(per_label)
    n = use.sum(axis=-1)
    total = np.where(use, per_label, 0.0).sum(axis=-1)
    mean: np.ndarray = np.divide(total, n, out=np.full(total.shape, np.nan), where=n > 0)
    return mean


def all_figures(
    ledgers: np.ndarray, *, beta: float, zero_division: float | None
) -> dict[str, dict[str, np.ndarray]]:
    """``{figure: {"labels": (..., L), "micro": (...), "macro": (...)}}`` of
    ``(..., L, N_FIELDS)``."""
    per_label = ledger_figures(ledgers, beta=beta, zero_division=zero_division)
    micro = ledger_figures(ledgers.sum(axis=-2), beta=beta, zero_division=zero_division)
    return {
        name: {
            "labels": per_label[name],
            MICRO: micro[name],
            MACRO: _macro(per_label[name], ledgers),
        }
        for name in RATIOS
    }


@dataclass(frozen=True, slots=True)
class Ledger:
    """Counts of one label (or of the pooled micro level).

    Recall side: ``tp + fn == num_annotated`` (per gold annotation). Precision side:
    ``credited + fp == num_predicted`` (per emitted prediction span). The two numerators may
    differ: one wide prediction can make two annotations TP and still be one credited span.
    The attributes are the :class:`LedgerField` columns, in the same order.
    """

    num_annotated: int = 0
    num_predicted: int = 0
    tp: int = 0
    fn: int = 0
    credited: int = 0
    fp: int = 0

    @classmethod
    def from_row(cls, row: Sequence[int] | np.ndarray) -> Ledger:
        """The ledger of one row of a count array (indexed by :class:`LedgerField`)."""
        return cls(*(int(row[f]) for f in LedgerField))

    def to_row(self) -> tuple[int, ...]:
        """The counts in :class:`LedgerField` order (``np.array(ledger.to_row())`` is a row)."""
        return tuple(getattr(self, f.key) for f in LedgerField)

    def __add__(self, other: Ledger) -> Ledger:
        if not isinstance(other, Ledger):
            return NotImplemented
        return Ledger(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __radd__(self, other: object) -> Ledger:
        # Lets ``sum(ledgers)`` start from 0.
        if other == 0:
            return self
        return NotImplemented

    def precision(self, zero_division: float | None = None) -> float | None:
        return ratio(self.credited, self.num_predicted, zero_division)

    def recall(self, zero_division: float | None = None) -> float | None:
        return ratio(self.tp, self.num_annotated, zero_division)

    def f(self, beta: float = 1.0, zero_division: float | None = None) -> float | None:
        return f_beta(
            self.precision(zero_division), self.recall(zero_division), beta, zero_division
        )

    def check(self) -> None:
        """Raise ``AssertionError`` when an invariant of semantics §2 is broken."""
        assert self.tp + self.fn == self.num_annotated, self
        assert self.credited + self.fp == self.num_predicted, self
        assert min(self.to_row()) >= 0, self

    def to_dict(
        self, beta: float = 1.0, zero_division: float | None = None, *, errors: bool = False
    ) -> dict[str, int | float | None]:
        """JSON-safe counts and ratios (``None`` for an undefined ratio, never NaN);
        ``errors``: with ``fn + fp`` between them (what documents are sorted by)."""
        p, r = self.precision(zero_division), self.recall(zero_division)
        counts = {f.key: getattr(self, f.key) for f in LedgerField}
        if errors:
            counts["errors"] = self.fn + self.fp
        return {**counts, "precision": p, "recall": r, "f": f_beta(p, r, beta, zero_division)}


def _exact(value: float) -> Fraction:
    """A setting (``beta``, ``zero_division``) as the decimal its shortest form reads."""
    return Fraction(repr(float(value)))


def exact_figures(
    ledger: Ledger, beta: float = 1.0, zero_division: float | None = None
) -> dict[str, Fraction | None]:
    """Recall, precision and F-beta as exact fractions, by the ledger's own rules
    (:func:`~.ledger.f_beta_array`): ``None`` where undefined, ``zero_division`` if given."""
    z = None if zero_division is None else _exact(zero_division)
    p = Fraction(ledger.credited, ledger.num_predicted) if ledger.num_predicted else z
    r = Fraction(ledger.tp, ledger.num_annotated) if ledger.num_annotated else z
    if p is None or r is None:
        other = r if p is None else p
        f = z if other is None or other != 0 else Fraction(0)
    else:
        b2 = _exact(beta) ** 2
        den = b2 * p + r
        f = (1 + b2) * p * r / den if den > 0 else Fraction(0)
    return {"recall": r, "precision": p, "f": f}
