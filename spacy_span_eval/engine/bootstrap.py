"""Bootstrap confidence intervals of precision, recall and F, resampling documents
(:mod:`.resampling`).

A resample where a figure is undefined (zero denominator) is left out of its percentiles and
counted in ``undefined``. Over few spans a percentile interval can collapse to a point, so it
is widened to the Wilson score interval of the figure's spans (:func:`wilson_interval`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from functools import partial
from statistics import NormalDist
from typing import Any

import numpy as np

from .ledger import MACRO, MICRO, N_FIELDS, LedgerField, all_figures, f_beta_array, has_spans
from .ledger import RATIOS as FIGURES
from .resampling import (
    Resampled,
    check_resampling,
    counts_at,
    matrix,
    one_blas_thread,
    percentiles,
    resampled_sums,
    value,
)
from .result import EvaluationResult

__all__ = ["FIGURES", "BootstrapIntervals", "Interval", "bootstrap_intervals", "wilson_interval"]


@dataclass(frozen=True)
class Interval:
    """A figure on the whole corpus and its interval.

    ``low``/``high``: the percentile interval over the resamples where the figure is defined
    (``undefined`` counts the others; both ``None`` when none is), widened where needed to the
    small-sample bound (:func:`wilson_interval`; ``wilson`` says whether it widened either
    end). ``support``: the number of spans the figure is a share of (gold spans for recall
    and F, predicted spans for precision; labels for macro).
    """

    estimate: float | None
    low: float | None
    high: float | None
    undefined: int
    support: int | None = None
    wilson: bool = False

    @classmethod
    def of(
        cls,
        estimate: float | np.ndarray,
        samples: np.ndarray,
        confidence: float,
        support: int | None = None,
    ) -> Interval:
        return cls(value(estimate), *percentiles(samples, confidence), support)

    def widened(self, bound: tuple[float, float] | None) -> Interval:
        """This interval stretched to cover ``bound`` (when it has bounds of its own)."""
        if bound is None or self.low is None or self.high is None:
            return self
        low, high = min(self.low, bound[0]), max(self.high, bound[1])
        wilson = self.wilson or low < self.low or high > self.high
        return replace(self, low=low, high=high, wilson=wilson)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion ``successes / n``; ``None`` when ``n`` is 0.

    Unlike a bootstrap over few spans, it never collapses to a point: 5 of 5 gives
    0.566-1.000 at 95%, 50 of 50 gives 0.929-1.000.
    """
    if n <= 0:
        return None
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p, z2 = successes / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, float(centre - half)), min(1.0, float(centre + half))


#: Below this many spans (the smaller of gold and predicted), F's interval also covers the F
#: of the Wilson ends of precision and recall.
SMALL_SUPPORT = 100


def _intervals(
    ledger: np.ndarray,
    at: tuple[str, int | None],
    full: dict[str, dict[str, np.ndarray]],
    boot: dict[str, dict[str, np.ndarray]],
    confidence: float,
    beta: float | None,
) -> dict[str, Interval]:
    """The intervals of one ledger row's figures (``at``: its key in the whole corpus's
    ``full`` and the resamples' ``boot``, and its label's index), with ``beta`` each widened to
    its small-sample bound: the Wilson bounds of precision and recall, and for F the F of
    their two lower ends and of their two upper ends (F rises with both). That F bound
    ignores that P and R move together, so it is wider than it needs to be when both rest on
    many spans: it applies below :data:`SMALL_SUPPORT` spans, or where every resample gave
    the same F."""
    n_gold, n_pred = int(ledger[LedgerField.NUM_ANNOTATED]), int(ledger[LedgerField.NUM_PREDICTED])
    support = {"precision": n_pred, "recall": n_gold, "f": n_gold}
    bounds: dict[str, tuple[float, float] | None] = {}
    if beta is not None:
        p = wilson_interval(int(ledger[LedgerField.CREDITED]), n_pred, confidence)
        r = wilson_interval(int(ledger[LedgerField.TP]), n_gold, confidence)
        bounds = {"precision": p, "recall": r}
        if p is not None and r is not None:
            lo, hi = f_beta_array(np.array([p[0], p[1]]), np.array([r[0], r[1]]), beta)
            bounds["f"] = (float(lo), float(hi))
    key, i = at
    out: dict[str, Interval] = {}
    for f in FIGURES:
        estimate, samples = full[f][key], boot[f][key]
        if i is not None:
            estimate, samples = estimate[..., i], samples[..., i]
        interval = Interval.of(estimate, samples, confidence, support[f])
        few = f != "f" or interval.low == interval.high or min(n_gold, n_pred) < SMALL_SUPPORT
        out[f] = interval.widened(bounds.get(f) if few else None)
    return out


@dataclass(frozen=True)
class BootstrapIntervals(Resampled):
    """Percentile intervals of precision, recall and F per label, micro and macro, at one
    threshold: ``per_label[label][figure]``, ``micro[figure]``, ``macro[figure]``. The
    aggregates are kept apart from the labels, so a label called ``micro`` or ``macro`` has
    its own intervals."""

    per_label: dict[str, dict[str, Interval]]
    micro: dict[str, Interval]
    macro: dict[str, Interval]
    small_sample: bool = False

    @property
    def labels(self) -> list[str]:
        return list(self.per_label)

    @property
    def method(self) -> str:
        return "percentile bootstrap over documents" + (
            ", widened to the Wilson score interval" if self.small_sample else ""
        )

    def to_dict(self) -> dict[str, Any]:
        def each(row: dict[str, Interval]) -> dict[str, Any]:
            return {k: v.to_dict() for k, v in row.items()}

        return {
            **self.head(self.method),
            "per_label": {name: each(row) for name, row in self.per_label.items()},
            MICRO: each(self.micro),
            MACRO: each(self.macro),
        }


@one_blas_thread
def bootstrap_intervals(
    result: EvaluationResult,
    *,
    threshold: float | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    small_sample: bool = True,
    documents: Sequence[int] | np.ndarray | None = None,
) -> BootstrapIntervals:
    """Intervals for P/R/F per label, micro and macro at one threshold (default: the first
    scored with per-document rows), resampling documents ``resamples`` times. ``result`` must
    come from an evaluator with ``per_document=True`` (or ``per_document=`` that threshold);
    its ``beta`` and ``zero_division`` apply.

    Each interval is the percentile interval of the resamples; with ``small_sample`` (the
    default), that of precision, recall and F of each label and of micro is widened to cover
    the Wilson score interval of the figure's spans, so that a figure over a handful of spans
    never reads as certain (5 of 5 found: recall 0.566-1.000, not 1.000-1.000). F's interval
    is widened to the F of the two Wilson ends of P and R where it rests on fewer than
    :data:`SMALL_SUPPORT` spans or where every resample gave the same F. Macro keeps the
    percentile interval. The aggregates are computed apart from the labels (a label called
    ``micro`` keeps its own intervals). ``documents``: the indices of a slice's documents,
    the figures and resamples of those alone (semantics §10)."""
    check_resampling(resamples=resamples, seed=seed, confidence=confidence)
    counts, t = counts_at(result, "bootstrap_intervals", threshold)
    beta, zero_division = result.settings.beta, result.settings.zero_division
    labels = counts.labels
    m = matrix(counts, labels, t, None if documents is None else np.asarray(documents))
    ledgers = m.sum().reshape(len(labels), N_FIELDS)
    drawn = resampled_sums(m, resamples=resamples, seed=seed)
    full = all_figures(ledgers, beta=beta, zero_division=zero_division)
    boot = all_figures(
        drawn.reshape(resamples, len(labels), N_FIELDS), beta=beta, zero_division=zero_division
    )

    intervals = partial(
        _intervals, full=full, boot=boot, confidence=confidence, beta=beta if small_sample else None
    )
    present = int(has_spans(ledgers).sum())
    return BootstrapIntervals(
        threshold=result.settings.thresholds[t],
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        n_documents=m.n_rows,
        per_label={label: intervals(ledgers[i], ("labels", i)) for i, label in enumerate(labels)},
        micro=intervals(ledgers.sum(axis=0), (MICRO, None)),
        macro={
            f: Interval.of(full[f][MACRO], boot[f][MACRO], confidence, present) for f in FIGURES
        },
        small_sample=small_sample,
    )
