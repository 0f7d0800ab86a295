"""The per-label ledger: counts that add up, and the ratios derived from them.

Like spaCy's ``PRFScore``, a :class:`Ledger` is a small value you can sum across documents,
batches or processes. Ratios are derived, never stored, so merging can not drift.
"""

from __future__ import annotations

from dataclasses import dataclass, fields


def ratio(numerator: float, denominator: float, zero_division: float | None = None) -> float | None:
    """``numerator / denominator``, or ``zero_division`` (default ``None``) when undefined."""
    if denominator == 0:
        return zero_division
    return numerator / denominator


def f_beta(
    precision: float | None, recall: float | None, beta: float = 1.0,
    zero_division: float | None = None,
) -> float | None:
    """F-beta of two ratios.

    When one ratio is undefined and the other is 0, F is 0 whatever the undefined one would
    be (a label never predicted but present in gold scores F = 0); otherwise undefined.
    """
    if precision is None or recall is None:
        other = recall if precision is None else precision
        return 0.0 if other == 0 else zero_division
    b2 = beta * beta
    denominator = b2 * precision + recall
    if denominator == 0:
        return 0.0
    return (1 + b2) * precision * recall / denominator


@dataclass(frozen=True, slots=True)
class Ledger:
    """Counts of one label (or of the pooled micro level).

    Recall side: ``tp + fn == num_annotated`` (per gold annotation). Precision side:
    ``credited + fp == num_predicted`` (per emitted prediction span). The two numerators may
    differ: one wide prediction can make two annotations TP and still be one credited span.
    """

    num_annotated: int = 0
    num_predicted: int = 0
    tp: int = 0
    fn: int = 0
    credited: int = 0
    fp: int = 0

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
        return f_beta(self.precision(zero_division), self.recall(zero_division), beta,
                      zero_division)

    def check(self) -> None:
        """Raise ``AssertionError`` when an invariant of SPEC section 2 is broken."""
        assert self.tp + self.fn == self.num_annotated, self
        assert self.credited + self.fp == self.num_predicted, self
        assert min(self.num_annotated, self.num_predicted, self.tp, self.fn,
                   self.credited, self.fp) >= 0, self

    def to_dict(self, beta: float = 1.0, zero_division: float | None = None) -> dict:
        """JSON-safe counts and ratios (``None`` for an undefined ratio, never NaN)."""
        return {
            "num_annotated": self.num_annotated,
            "num_predicted": self.num_predicted,
            "tp": self.tp,
            "fn": self.fn,
            "credited": self.credited,
            "fp": self.fp,
            "precision": self.precision(zero_division),
            "recall": self.recall(zero_division),
            "f": self.f(beta, zero_division),
        }
