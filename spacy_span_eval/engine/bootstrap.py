"""Bootstrap confidence intervals and paired significance tests, resampling documents.

Documents, not spans, are the unit of resampling: spans of one document are not independent
(one long prediction can decide several annotations), documents roughly are. The engine keeps
each document's ledger rows (``per_document=True``), so a resample is a weighted sum of rows,
never a re-scoring: the ``(B, n_documents)`` matrix of how often each document was drawn,
times the ``(n_documents, labels x N_FIELDS)`` rows, gives all ``B`` resampled ledgers. The
rows are taken by their non-zero cells (:class:`SparseRows`; a document has spans of few
labels), so the product costs what the cells do, not documents x labels.

Resamples are drawn one after another from one generator seeded with ``seed``, one call per
resample, so a seed gives the same intervals whatever the batching. Ratios follow semantics
section 3: precision is ``credited / num_predicted``, recall ``tp / num_annotated``; a
resample where a figure is undefined (zero denominator) is left out of its percentiles and
counted in ``undefined``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ParamSpec, TypeVar

import numpy as np

from ..errors import InvalidInputError
from .document_counts import DocumentCounts
from .ledger import N_FIELDS, LedgerField, f_beta_array, has_spans, ledger_figures
from .result import EvaluationResult
from .settings import COMPARE_METHODS, check_count

__all__ = [
    "COMPARE_METHODS",
    "FIGURES",
    "BootstrapIntervals",
    "Difference",
    "FigureDifference",
    "Interval",
    "PairedTest",
    "bootstrap_intervals",
    "check_resampling",
    "holm",
    "paired_test",
    "resample_weights",
    "resampled_sums",
    "wilson_interval",
]

FIGURES: tuple[str, ...] = ("precision", "recall", "f")
MICRO, MACRO = "micro", "macro"
# Cells of the (resamples x documents) weight matrix built at once; bounds memory only (the
# draws do not depend on it).
_BLOCK_CELLS = 1 << 22


_P = ParamSpec("_P")
_R = TypeVar("_R")


# -- drawing ----------------------------------------------------------------------------------
def _one_blas_thread(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``func``'s resampling products on one BLAS thread.

    They are skinny (a block of resamples x documents, times documents x a few dozen
    columns) and bound by memory, so a second thread buys little; on a busy machine, though,
    a BLAS thread waiting for a descheduled sibling made them 10-20x slower (200,000
    documents, 1000 resamples, 2 shared cores: 10 s instead of 0.6 s). Their values are
    sums of whole numbers, exact in any order, so the thread count never changes a figure.
    """

    @functools.wraps(func)
    def on_one_thread(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return func(*args, **kwargs)

    return on_one_thread


def _rows(
    n_documents: int, resamples: int, seed: int, draw: Callable[[np.random.Generator], np.ndarray]
) -> Iterator[np.ndarray]:
    """Blocks of ``draw(rng)`` rows, one call per resample from one seeded generator, so the
    rows do not depend on how they are blocked."""
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, not {resamples!r}")
    if n_documents < 1:
        raise ValueError("cannot resample an evaluation without documents")
    rng = np.random.default_rng(seed)
    rows_per_block = max(1, _BLOCK_CELLS // n_documents)
    for lo in range(0, resamples, rows_per_block):
        out = np.empty((min(rows_per_block, resamples - lo), n_documents), dtype=np.float64)
        for i in range(out.shape[0]):
            out[i] = draw(rng)
        yield out


def resample_weights(n_documents: int, *, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of rows of the ``(resamples, n_documents)`` count matrix: row ``r`` says how
    often each document is drawn in resample ``r`` (``n_documents`` draws with replacement).
    Deterministic for a seed."""
    return _rows(
        n_documents,
        resamples,
        seed,
        lambda rng: np.bincount(rng.integers(0, n_documents, n_documents), minlength=n_documents),
    )


@dataclass(frozen=True)
class SparseRows:
    """An ``(n_rows, n_cols)`` matrix of whole numbers by its non-zero cells: ``row[k]``,
    ``col[k]``, ``val[k]`` (float64), ordered by row, then column. The bootstrap's input:
    a row per document, ``labels x N_FIELDS`` columns, of which a document fills few."""

    n_rows: int
    n_cols: int
    row: np.ndarray
    col: np.ndarray
    val: np.ndarray

    @classmethod
    def of(cls, m: np.ndarray) -> SparseRows:
        row, col = np.nonzero(m)
        return cls(m.shape[0], m.shape[1], row, col, m[row, col].astype(np.float64))

    def dense(self) -> np.ndarray:
        out = np.zeros((self.n_rows, self.n_cols), dtype=np.float64)
        out[self.row, self.col] = self.val
        return out

    def sum(self) -> np.ndarray:
        """``(n_cols,)``: the column sums."""
        return np.bincount(self.col, weights=self.val, minlength=self.n_cols)

    def take(self, rows: np.ndarray) -> SparseRows:
        """The matrix of the rows ``rows`` (each at most once), in that order."""
        new = np.full(self.n_rows, -1, dtype=np.int64)
        new[rows] = np.arange(len(rows))
        at = new[self.row]
        keep = at >= 0
        at, col, val = at[keep], self.col[keep], self.val[keep]
        order = np.lexsort((col, at))
        return SparseRows(len(rows), self.n_cols, at[order], col[order], val[order])

    def beside(self, other: SparseRows) -> SparseRows:
        """``[self, other]``: the two side by side (same rows)."""
        row = np.concatenate([self.row, other.row])
        col = np.concatenate([self.col, other.col + self.n_cols])
        order = np.lexsort((col, row))
        val = np.concatenate([self.val, other.val])
        return SparseRows(
            self.n_rows, self.n_cols + other.n_cols, row[order], col[order], val[order]
        )

    def minus(self, other: SparseRows) -> SparseRows:
        """``self - other`` (same shape), zeros dropped."""
        key = np.concatenate(
            [self.row * self.n_cols + self.col, other.row * self.n_cols + other.col]
        )
        cells, at = np.unique(key, return_inverse=True)
        val = np.bincount(at, weights=np.concatenate([self.val, -other.val]), minlength=len(cells))
        nz = val != 0
        cells = cells[nz]
        return SparseRows(
            self.n_rows, self.n_cols, cells // self.n_cols, cells % self.n_cols, val[nz]
        )

    def times(self, w: np.ndarray) -> np.ndarray:
        """``w @ self`` for weights ``w`` ``(b, n_rows)``: ``(b, n_cols)``, by gathering each
        cell's weights and summing them per column (exact: sums of whole numbers), in blocks
        of at most ``_BLOCK_CELLS`` gathered weights; dense ``@`` where most cells are
        filled."""
        if 8 * self.val.size >= self.n_rows * self.n_cols:
            dense: np.ndarray = w @ self.dense()
            return dense
        out = np.zeros((w.shape[0], self.n_cols), dtype=np.float64)
        if not self.val.size:
            return out
        by_col = np.argsort(self.col, kind="stable")
        col, row, val = self.col[by_col], self.row[by_col], self.val[by_col]
        starts = np.flatnonzero(np.r_[True, col[1:] != col[:-1]])
        step = max(1, _BLOCK_CELLS // val.size)
        for lo in range(0, w.shape[0], step):
            out[lo : lo + step, col[starts]] = np.add.reduceat(
                w[lo : lo + step, row] * val, starts, axis=1
            )
        return out


def resampled_sums(m: np.ndarray | SparseRows, *, resamples: int, seed: int) -> np.ndarray:
    """``(resamples, columns)``: each resample's rows of ``m`` summed, ``m``'s rows drawn
    ``n`` times with replacement (``n``: its number of rows, one per document). ``m``: a
    dense array or its :class:`SparseRows` (the same sums; time and memory grow with the
    non-zero cells).

    Documents with the same counts are interchangeable in a sum, and a corpus has few
    distinct rows of counts (200,000 short sentences: a few hundred). Where there are at
    most a quarter as many as documents, a resample draws how many of its ``n`` documents
    fall in each group of alike ones, all at once: ``Multinomial(n, group size / n)``, the
    same distribution as drawing the documents one by one, for a few hundred draws instead
    of ``n`` (1000 resamples of 200,000 documents: 0.02 s instead of 0.7 s). Otherwise the
    documents themselves are drawn (:func:`resample_weights`). Either way the numbers are
    fixed by ``seed`` and ``m``."""
    sparse = m if isinstance(m, SparseRows) else SparseRows.of(m)
    n = sparse.n_rows
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, not {resamples!r}")
    if n < 1:
        raise ValueError("cannot resample an evaluation without documents")
    grouped = _distinct_rows(sparse)
    if grouped is None or 4 * grouped[0].n_rows > n:
        return np.concatenate(
            [sparse.times(w) for w in resample_weights(n, resamples=resamples, seed=seed)]
        )
    distinct, row_of = grouped
    sizes = np.bincount(row_of, minlength=distinct.n_rows)
    counts = np.random.default_rng(seed).multinomial(n, sizes / n, size=resamples)
    return distinct.times(counts.astype(np.float64))


def _distinct_rows(m: SparseRows) -> tuple[SparseRows, np.ndarray] | None:
    """``(distinct rows, index of each row among them)``, or ``None`` in the unlikely case
    that two different rows share a key. (Sorting rows as records is slow; one random
    projection sorts as fast as a column.)"""
    projection = np.random.default_rng(0x5EED).uniform(1.0, 2.0, m.n_cols)
    key = np.bincount(m.row, weights=m.val * projection[m.col], minlength=m.n_rows)
    order = np.argsort(key, kind="stable")
    new = np.ones(order.shape[0], dtype=bool)
    new[1:] = key[order[1:]] != key[order[:-1]]
    row_of = np.empty(order.shape[0], dtype=np.intp)
    row_of[order] = np.cumsum(new) - 1
    first = order[new]  # each group's first row: its representative
    # Every row must equal its representative, cell for cell.
    indptr = np.searchsorted(m.row, np.arange(m.n_rows + 1))
    filled = np.diff(indptr)
    rep = first[row_of]
    if not np.array_equal(filled, filled[rep]):
        return None
    offset = np.arange(m.row.size) - indptr[m.row]
    twin = indptr[rep[m.row]] + offset
    if not (np.array_equal(m.col, m.col[twin]) and np.array_equal(m.val, m.val[twin])):
        return None
    return m.take(first), row_of


def _swap_masks(n_documents: int, *, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of 0/1 rows: which documents trade their two systems' rows (randomization)."""
    return _rows(n_documents, resamples, seed, lambda rng: rng.integers(0, 2, n_documents))


# -- figures from ledger arrays --------------------------------------------------------------
def figures(
    ledgers: np.ndarray, *, beta: float = 1.0, zero_division: float | None = None
) -> dict[str, np.ndarray]:
    """Precision, recall and F-beta of ledger rows ``(..., N_FIELDS)``, NaN where undefined
    (:func:`~.ledger.ledger_figures`: the ledger's own rules, vectorized)."""
    return ledger_figures(ledgers, beta=beta, zero_division=zero_division)


def _macro(per_label: np.ndarray, ledgers: np.ndarray) -> np.ndarray:
    """Mean over labels present in gold or predictions, undefined values skipped (as
    :attr:`~.result.ThresholdScores.macro`); the last axis is the label."""
    use = has_spans(ledgers) & ~np.isnan(per_label)
    n = use.sum(axis=-1)
    total = np.where(use, per_label, 0.0).sum(axis=-1)
    mean: np.ndarray = np.divide(total, n, out=np.full(total.shape, np.nan), where=n > 0)
    return mean


def _all_figures(
    ledgers: np.ndarray, *, beta: float, zero_division: float | None
) -> dict[str, dict[str, np.ndarray]]:
    """``{figure: {"labels": (..., L), "micro": (...), "macro": (...)}}`` of
    ``(..., L, N_FIELDS)``."""
    per_label = figures(ledgers, beta=beta, zero_division=zero_division)
    micro = figures(ledgers.sum(axis=-2), beta=beta, zero_division=zero_division)
    return {
        name: {
            "labels": per_label[name],
            MICRO: micro[name],
            MACRO: _macro(per_label[name], ledgers),
        }
        for name in FIGURES
    }


# -- intervals -------------------------------------------------------------------------------
def _value(x: float | np.ndarray) -> float | None:
    return None if np.isnan(x) else float(x)


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
        defined = samples[~np.isnan(samples)]
        if not defined.size:
            return cls(_value(estimate), None, None, int(samples.size), support)
        tail = 100 * (1 - confidence) / 2
        low, high = np.percentile(defined, [tail, 100 - tail])
        return cls(
            _value(estimate), float(low), float(high), int(samples.size - defined.size), support
        )

    def widened(self, bound: tuple[float, float] | None) -> Interval:
        """This interval stretched to cover ``bound`` (when it has bounds of its own)."""
        if bound is None or self.low is None or self.high is None:
            return self
        low, high = min(self.low, bound[0]), max(self.high, bound[1])
        return Interval(
            self.estimate,
            low,
            high,
            self.undefined,
            self.support,
            self.wilson or low < self.low or high > self.high,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "estimate": self.estimate,
            "low": self.low,
            "high": self.high,
            "undefined": self.undefined,
            "support": self.support,
            "wilson": self.wilson,
        }


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion ``successes / n``; ``None`` when ``n`` is 0.

    Unlike a bootstrap over few spans, it never collapses to a point: 5 of 5 gives
    0.566-1.000 at 95%, 50 of 50 gives 0.929-1.000.
    """
    if n <= 0:
        return None
    from statistics import NormalDist  # (on use: the CLI imports this module for its choices)

    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p, z2 = successes / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, float(centre - half)), min(1.0, float(centre + half))


#: Below this many spans (the smaller of gold and predicted), F's interval also covers the F
#: of the Wilson ends of precision and recall.
SMALL_SUPPORT = 100


def _small_sample_bounds(
    ledger: np.ndarray, beta: float, confidence: float
) -> dict[str, tuple[float, float] | None]:
    """Wilson bounds of precision and recall of one ledger row, and the F bounds they imply
    (F rises with both, so F of the two lower ends and of the two upper ends). The F bound
    ignores that P and R move together, so it is wider than it needs to be when both rest
    on many spans: it is given below :data:`SMALL_SUPPORT` spans only (and the caller also
    applies it where the resamples all agree)."""
    n_gold, n_pred = int(ledger[LedgerField.NUM_ANNOTATED]), int(ledger[LedgerField.NUM_PREDICTED])
    p = wilson_interval(int(ledger[LedgerField.CREDITED]), n_pred, confidence)
    r = wilson_interval(int(ledger[LedgerField.TP]), n_gold, confidence)
    f = None
    if p is not None and r is not None:
        lo, hi = f_beta_array(np.array([p[0], p[1]]), np.array([r[0], r[1]]), beta)
        f = (float(lo), float(hi))
    return {
        "precision": p,
        "recall": r,
        "f": f,
        "f_always": f if min(n_gold, n_pred) < SMALL_SUPPORT else None,
    }


@dataclass(frozen=True)
class BootstrapIntervals:
    """Percentile intervals of precision, recall and F per label, micro and macro, at one
    threshold: ``per_label[label][figure]``, ``micro[figure]``, ``macro[figure]``. The
    aggregates are kept apart from the labels, so a label called ``micro`` or ``macro`` has
    its own intervals."""

    threshold: float | None
    resamples: int
    seed: int
    confidence: float
    n_documents: int
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
        return {
            "method": self.method,
            "threshold": self.threshold,
            "resamples": self.resamples,
            "seed": self.seed,
            "confidence": self.confidence,
            "documents": self.n_documents,
            "per_label": {
                name: {k: v.to_dict() for k, v in row.items()}
                for name, row in self.per_label.items()
            },
            MICRO: {k: v.to_dict() for k, v in self.micro.items()},
            MACRO: {k: v.to_dict() for k, v in self.macro.items()},
        }


def _documents(result: EvaluationResult, what: str) -> DocumentCounts:
    if result.documents is None:
        raise ValueError(
            f"{what} needs per-document counts: evaluate with SpanEvaluator(per_document=True)"
        )
    return result.documents


def _threshold_index(result: EvaluationResult, threshold: float | None) -> int:
    """Index of ``threshold`` (default: the first one kept per document) among the scored."""
    taus = result.settings.thresholds
    kept = result.documents.kept if result.documents is not None else (0,)
    if threshold is None:
        return kept[0] if kept else 0
    if threshold not in taus:
        raise KeyError(f"threshold {threshold!r} was not scored; scored: {list(taus)}")
    t = taus.index(threshold)
    if t not in kept:
        raise KeyError(
            f"threshold {threshold!r} has no per-document counts; kept at "
            f"{[taus[k] for k in kept]} (per_document=True keeps every threshold)"
        )
    return t


def check_resampling(
    *, resamples: int, seed: int, confidence: float, min_resamples: int = 1
) -> None:
    """Check the resampling settings up front (before anything is read or scored):
    ``resamples`` and ``seed`` whole numbers (``resamples >= min_resamples``, ``seed >= 0``),
    ``confidence`` a number in (0, 1)."""
    check_count(resamples, "resamples", minimum=min_resamples)
    check_count(seed, "seed")
    value = (
        float(confidence)
        if isinstance(confidence, int | float) and not isinstance(confidence, bool)
        else math.nan
    )
    if not 0 < value < 1:
        raise InvalidInputError(f"confidence must be a number in (0, 1), not {confidence!r}")


def _matrix(
    documents: DocumentCounts, labels: Sequence[str], t: int, order: np.ndarray | None = None
) -> SparseRows:
    """The ``(n_documents, L * N_FIELDS)`` rows of the labels at threshold index ``t``, by
    their non-zero cells (``order``: the documents' order, by index)."""
    doc, lab, val, names = documents.cells()
    position = {label: i for i, label in enumerate(labels)}
    col_of = np.array([position.get(name, -1) for name in names], dtype=np.int64)
    rows = val[:, documents.kept.index(t), :]
    cell, field = np.nonzero(rows)
    cols = col_of[lab[cell]]
    keep = cols >= 0
    cell, field, cols = cell[keep], field[keep], cols[keep]
    m = SparseRows(
        documents.n_documents,
        len(labels) * N_FIELDS,
        doc[cell],
        cols * N_FIELDS + field,
        rows[cell, field].astype(np.float64),
    )
    return m.take(np.arange(m.n_rows) if order is None else order)


@_one_blas_thread
def bootstrap_intervals(
    result: EvaluationResult,
    *,
    threshold: float | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    small_sample: bool = True,
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
    ``micro`` keeps its own intervals)."""
    check_resampling(resamples=resamples, seed=seed, confidence=confidence)
    documents = _documents(result, "bootstrap_intervals")
    t = _threshold_index(result, threshold)
    s = result.settings
    labels = documents.labels
    m = _matrix(documents, labels, t)
    full = _all_figures(
        m.sum().reshape(len(labels), N_FIELDS), beta=s.beta, zero_division=s.zero_division
    )
    drawn = resampled_sums(m, resamples=resamples, seed=seed)
    boot = _all_figures(
        drawn.reshape(resamples, len(labels), N_FIELDS), beta=s.beta, zero_division=s.zero_division
    )
    ledgers = m.sum().reshape(len(labels), N_FIELDS)

    def intervals(
        ledger: np.ndarray, estimate: dict[str, np.ndarray], samples: dict[str, np.ndarray]
    ) -> dict[str, Interval]:
        support = {
            "precision": int(ledger[LedgerField.NUM_PREDICTED]),
            "recall": int(ledger[LedgerField.NUM_ANNOTATED]),
            "f": int(ledger[LedgerField.NUM_ANNOTATED]),
        }
        bounds = _small_sample_bounds(ledger, s.beta, confidence) if small_sample else {}
        out: dict[str, Interval] = {}
        for f in FIGURES:
            interval = Interval.of(estimate[f], samples[f], confidence, support[f])
            bound = bounds.get(f)
            if f == "f" and interval.low != interval.high:
                bound = bounds.get("f_always")
            out[f] = interval.widened(bound)
        return out

    per_label = {
        label: intervals(
            ledgers[i],
            {f: full[f]["labels"][i] for f in FIGURES},
            {f: boot[f]["labels"][:, i] for f in FIGURES},
        )
        for i, label in enumerate(labels)
    }
    micro = intervals(
        ledgers.sum(axis=0),
        {f: full[f][MICRO] for f in FIGURES},
        {f: boot[f][MICRO] for f in FIGURES},
    )
    present = int(has_spans(ledgers).sum())
    macro = {f: Interval.of(full[f][MACRO], boot[f][MACRO], confidence, present) for f in FIGURES}
    return BootstrapIntervals(
        s.thresholds[t],
        resamples,
        seed,
        confidence,
        documents.n_documents,
        per_label,
        micro,
        macro,
        small_sample,
    )


# -- paired comparison -----------------------------------------------------------------------
@dataclass(frozen=True)
class FigureDifference:
    """One figure (precision, recall or F) of system A minus the same figure of system B.

    ``low``/``high``: percentile interval of the paired-bootstrap differences. ``p_value``:
    two-sided, ``(1 + #extreme) / (1 + #defined)``; ``None`` when the difference is undefined.

    ``family``: how many p-values this one was adjusted with (Holm's step-down method over the
    labels of one figure, :func:`holm`), and ``p_holm`` the adjusted p-value; ``family`` is 0
    (and ``p_holm`` ``None``) for a test that was not adjusted: micro and macro, each one test
    of its own. ``p_value`` is always the unadjusted p-value.
    """

    a: float | None
    b: float | None
    difference: float | None
    low: float | None
    high: float | None
    p_value: float | None
    undefined: int
    p_holm: float | None = None
    family: int = 0

    @property
    def adjusted(self) -> bool:
        """Whether this p-value belongs to a Holm family (a label's, not micro's or macro's)."""
        return self.family > 0

    @property
    def decisive_p(self) -> float | None:
        """The p-value a verdict rests on: the Holm-adjusted one where there is one."""
        return self.p_holm if self.adjusted else self.p_value

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "a": self.a,
            "b": self.b,
            "difference": self.difference,
            "low": self.low,
            "high": self.high,
            "p_value": self.p_value,
            "undefined": self.undefined,
        }
        if self.adjusted:
            out["p_holm"] = self.p_holm
        return out


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment of a family of p-values (``None``: no test, left out of
    the family and ``None`` again). With the ``m`` defined p-values sorted ascending,
    ``p_(1) <= ... <= p_(m)``, the adjusted ``p_(i)`` is ``max over j <= i of
    min(1, (m - j + 1) * p_(j))``: rejecting where the adjusted p-value is below ``alpha``
    keeps the chance of any false rejection in the family at most ``alpha``, whatever the
    dependence between the tests."""
    defined = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(defined)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(defined):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


@dataclass(frozen=True)
class Difference:
    """System A minus system B for one label (or micro/macro): every figure in ``figures``
    (``"precision"``, ``"recall"``, ``"f"``), and F's again as the flat fields ``f_a``,
    ``f_b``, ``difference``, ``low``, ``high``, ``p_value`` and ``undefined`` (the first
    version of the comparison tested F only)."""

    f_a: float | None
    f_b: float | None
    difference: float | None
    low: float | None
    high: float | None
    p_value: float | None
    undefined: int
    figures: dict[str, FigureDifference] = field(default_factory=dict)

    @classmethod
    def of(cls, figures: dict[str, FigureDifference]) -> Difference:
        f = figures["f"]
        return cls(f.a, f.b, f.difference, f.low, f.high, f.p_value, f.undefined, figures)

    @property
    def p_holm(self) -> float | None:
        """F's Holm-adjusted p-value (``None`` for micro and macro, which are not adjusted)."""
        return self.figures["f"].p_holm if "f" in self.figures else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "f_a": self.f_a,
            "f_b": self.f_b,
            "difference": self.difference,
            "low": self.low,
            "high": self.high,
            "p_value": self.p_value,
        }
        if "f" in self.figures and self.figures["f"].adjusted:
            out["p_holm"] = self.figures["f"].p_holm
        out["undefined"] = self.undefined
        out["figures"] = {name: d.to_dict() for name, d in self.figures.items()}
        return out


@dataclass(frozen=True)
class PairedTest:
    """Per-label, micro and macro differences of two systems on the same documents (the
    aggregates apart from the labels, as in :class:`BootstrapIntervals`)."""

    threshold: float | None
    method: str
    resamples: int
    seed: int
    confidence: float
    n_documents: int
    per_label: dict[str, Difference]
    micro: Difference
    macro: Difference

    @property
    def labels(self) -> list[str]:
        return list(self.per_label)

    def family_sizes(self) -> dict[str, int]:
        """Per figure, how many labels' p-values were Holm-adjusted together (labels whose
        difference is undefined have no p-value and are not in the family)."""
        return {
            f: sum(d.figures[f].p_value is not None for d in self.per_label.values())
            for f in FIGURES
        }

    def named_rows(self) -> list[tuple[str, Difference, bool]]:
        """``(name, difference, is_aggregate)``: each label, then micro and macro."""
        return [
            *((name, d, False) for name, d in self.per_label.items()),
            (MICRO, self.micro, True),
            (MACRO, self.macro, True),
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "threshold": self.threshold,
            "resamples": self.resamples,
            "seed": self.seed,
            "confidence": self.confidence,
            "documents": self.n_documents,
            "per_label": {k: v.to_dict() for k, v in self.per_label.items()},
            MICRO: self.micro.to_dict(),
            MACRO: self.macro.to_dict(),
        }


def _aligned(a: DocumentCounts, b: DocumentCounts) -> np.ndarray:
    """Index of each of ``a``'s documents in ``b`` (the systems must score the same ones)."""
    where = {doc_id: i for i, doc_id in enumerate(b.doc_ids)}
    if len(where) != b.n_documents or len(set(a.doc_ids)) != a.n_documents:
        raise ValueError("paired test: document ids must be unique to pair two systems")
    missing = [d for d in a.doc_ids if d not in where]
    if missing or a.n_documents != b.n_documents:
        example = missing[0] if missing else next(d for d in b.doc_ids if d not in set(a.doc_ids))
        raise ValueError(
            f"paired test: the two systems were scored on different documents "
            f"(e.g. {example!r} is on one side only)"
        )
    return np.array([where[d] for d in a.doc_ids], dtype=np.int64)


def _tables(ledgers: np.ndarray, beta: float, zero_division: float | None) -> dict[str, np.ndarray]:
    """Per figure, ``(..., L + 2)`` values: each label, then micro, then macro."""
    figs = _all_figures(ledgers, beta=beta, zero_division=zero_division)
    return {
        name: np.concatenate([f["labels"], f[MICRO][..., None], f[MACRO][..., None]], axis=-1)
        for name, f in figs.items()
    }


@_one_blas_thread
def paired_test(
    a: EvaluationResult,
    b: EvaluationResult,
    *,
    threshold: float | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    method: str = "bootstrap",
) -> PairedTest:
    """Compare the precision, recall and F of two systems scored on the same documents,
    resampling documents jointly (the same draws for both, so per-document difficulty cancels
    out).

    ``method="bootstrap"``: the null distribution is the paired-bootstrap distribution of
    ``d* = X_A* - X_B*`` shifted to mean zero, i.e. ``p = (1 + #{|d* - d| >= |d|}) /
    (1 + B)``. ``method="randomization"``: approximate randomization, each document's two
    systems swapped with probability 1/2, ``p = (1 + #{|d'| >= |d|}) / (1 + B)``. Both are
    two-sided; a system compared with itself gets ``d = 0`` and ``p = 1``. The interval is the
    paired-bootstrap percentile interval of ``d`` either way. The same resamples serve every
    figure.
    """
    check_resampling(resamples=resamples, seed=seed, confidence=confidence)
    if method not in COMPARE_METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(COMPARE_METHODS)}")
    if (a.settings.beta, a.settings.zero_division) != (b.settings.beta, b.settings.zero_division):
        raise ValueError("paired test: the two results use different beta or zero_division")
    docs_a, docs_b = _documents(a, "paired_test"), _documents(b, "paired_test")
    t_a, t_b = _threshold_index(a, threshold), _threshold_index(b, threshold)
    labels = sorted(set(docs_a.labels) | set(docs_b.labels))
    m_a = _matrix(docs_a, labels, t_a)
    m_b = _matrix(docs_b, labels, t_b, order=_aligned(docs_a, docs_b))
    beta, z = a.settings.beta, a.settings.zero_division
    n_lab = len(labels)

    def tables(rows: np.ndarray) -> dict[str, np.ndarray]:
        return _tables(rows.reshape(*rows.shape[:-1], n_lab, N_FIELDS), beta, z)

    def minus(x: dict[str, np.ndarray], y: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {name: x[name] - y[name] for name in FIGURES}

    def stacked(blocks: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
        return {name: np.concatenate([blk[name] for blk in blocks]) for name in FIGURES}

    full_a, full_b = m_a.sum(), m_b.sum()
    fig_a, fig_b = tables(full_a), tables(full_b)
    observed = minus(fig_a, fig_b)
    # One draw of documents for both systems (their rows side by side): a paired resample.
    both = resampled_sums(m_a.beside(m_b), resamples=resamples, seed=seed)
    boot = minus(tables(both[:, : m_a.n_cols]), tables(both[:, m_a.n_cols :]))
    if method == "bootstrap":
        # centred: the bootstrap's picture of d's spread under H0
        null = {name: boot[name] - observed[name] for name in FIGURES}
    else:
        # Swapping document i moves its rows from one system to the other.
        delta = m_b.minus(m_a)
        moved = (
            delta.times(s) for s in _swap_masks(docs_a.n_documents, resamples=resamples, seed=seed)
        )
        null = stacked([minus(tables(full_a + d), tables(full_b - d)) for d in moved])
    # Columns of the tables: each label, then micro, then macro (see _tables).
    diffs = [
        Difference.of(
            {
                f: _difference(
                    fig_a[f][i],
                    fig_b[f][i],
                    observed[f][i],
                    boot[f][:, i],
                    null[f][:, i],
                    confidence,
                )
                for f in FIGURES
            }
        )
        for i in range(n_lab + 2)
    ]
    return PairedTest(
        a.settings.thresholds[t_a],
        method,
        resamples,
        seed,
        confidence,
        docs_a.n_documents,
        dict(zip(labels, _holm_over_labels(diffs[:n_lab]), strict=True)),
        diffs[n_lab],
        diffs[n_lab + 1],
    )


def _holm_over_labels(rows: list[Difference]) -> list[Difference]:
    """The labels' rows with each figure's p-values Holm-adjusted over the labels: one family
    per figure (precision, recall, F), the labels that have a p-value for it. Micro and macro
    are not in it: each is one summary test, read on its own."""
    adjusted = {f: holm([r.figures[f].p_value for r in rows]) for f in FIGURES}
    sizes = {f: sum(p is not None for p in adjusted[f]) for f in FIGURES}
    return [
        Difference.of(
            {f: replace(r.figures[f], p_holm=adjusted[f][i], family=sizes[f]) for f in FIGURES}
        )
        for i, r in enumerate(rows)
    ]


def _difference(
    x_a: float, x_b: float, observed: float, boot: np.ndarray, null: np.ndarray, confidence: float
) -> FigureDifference:
    spread = Interval.of(observed, boot, confidence)
    if np.isnan(observed):
        return FigureDifference(
            _value(x_a), _value(x_b), None, spread.low, spread.high, None, spread.undefined
        )
    defined = null[~np.isnan(null)]
    # A tolerance so that floating-point noise never turns "as extreme" into "less extreme".
    extreme = int(np.count_nonzero(np.abs(defined) >= abs(observed) - 1e-12))
    p = (1 + extreme) / (1 + defined.size)
    return FigureDifference(
        _value(x_a),
        _value(x_b),
        float(observed),
        spread.low,
        spread.high,
        min(1.0, p),
        spread.undefined,
    )
