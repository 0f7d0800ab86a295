"""The paired comparison of two systems scored on the same documents: per label, micro and
macro, each figure of system A minus system B, its interval and a two-sided p-value, from
documents resampled jointly or swapped between the systems (:mod:`.resampling`), so
per-document difficulty cancels out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from typing import Any

import numpy as np

from .document_counts import DocumentCounts
from .ledger import MACRO, MICRO, N_FIELDS, RATIOS, LedgerField, all_figures
from .resampling import (
    Resampled,
    SparseRows,
    check_resampling,
    counts_at,
    every_swap,
    matrix,
    one_blas_thread,
    percentiles,
    resample_weights,
    resampled_sums,
    swap_masks,
    value,
    weighted_ap,
)
from .result import EvaluationResult
from .settings import COMPARE_METHODS, Settings

__all__ = [
    "EXACT_ASSIGNMENTS",
    "SMALL_SAMPLE",
    "Difference",
    "FigureDifference",
    "PairedTest",
    "holm",
    "holm_over_slices",
    "paired_test",
]

Figures = dict[str, np.ndarray]
#: The permutation test tries every assignment of the systems to the documents when there are
#: at most this many (or at most ``resamples``); a few thousand cost what as many resamples do.
EXACT_ASSIGNMENTS = 1 << 12
#: Below this many paired documents every output says the sample is small.
SMALL_SAMPLE = 30


@dataclass(frozen=True)
class FigureDifference:
    """One figure (precision, recall or F) of system A minus the same figure of system B.

    ``low``/``high``: percentile interval of the paired-bootstrap differences. ``p_value``:
    two-sided, ``(1 + #extreme) / (1 + #defined)`` over the null's samples (the exact
    permutation p-value where they are every assignment but the observed one); ``None`` when
    the difference is undefined.

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
        # (the Holm family's size is not in the JSON; p_holm only where adjusted)
        hidden = {"family"} if self.adjusted else {"family", "p_holm"}
        return {k: v for k, v in asdict(self).items() if k not in hidden}


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
        f = self.figures.get("f")
        return {
            "f_a": self.f_a,
            "f_b": self.f_b,
            "difference": self.difference,
            "low": self.low,
            "high": self.high,
            "p_value": self.p_value,
            **({"p_holm": f.p_holm} if f is not None and f.adjusted else {}),
            "undefined": self.undefined,
            "figures": {name: d.to_dict() for name, d in self.figures.items()},
        }


@dataclass(frozen=True)
class PairedTest(Resampled):
    """Per-label, micro and macro differences of two systems on the same documents (the
    aggregates apart from the labels, as in :class:`~.bootstrap.BootstrapIntervals`).
    ``exact``: the p-values are the permutation test's over every assignment, not over
    ``resamples`` random ones."""

    method: str
    exact: bool
    per_label: dict[str, Difference]
    micro: Difference
    macro: Difference
    #: With both results swept per document: each label's average precision (Holm over the
    #: labels) and mAP (the mean over the labels with gold), A minus B.
    average_precision: dict[str, FigureDifference] | None = None
    map: FigureDifference | None = None

    @property
    def labels(self) -> list[str]:
        return list(self.per_label)

    @property
    def small_sample(self) -> bool:
        return self.n_documents < SMALL_SAMPLE

    @property
    def smallest_p(self) -> float:
        """The smallest p-value the test can give: every assignment has its mirror (each
        document swapped the other way), as extreme as itself."""
        return 2.0 ** (1 - self.n_documents) if self.exact else 1 / (self.resamples + 1)

    def family_sizes(self) -> dict[str, int]:
        """Per figure, how many labels' p-values were Holm-adjusted together (labels whose
        difference is undefined have no p-value and are not in the family)."""
        return {
            f: sum(d.figures[f].p_value is not None for d in self.per_label.values())
            for f in RATIOS
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
            **self.head(self.method),
            "exact": self.exact,
            "small_sample": self.small_sample,
            "per_label": {k: v.to_dict() for k, v in self.per_label.items()},
            MICRO: self.micro.to_dict(),
            MACRO: self.macro.to_dict(),
            **(
                {}
                if self.average_precision is None or self.map is None
                else {
                    "average_precision": {
                        k: v.to_dict() for k, v in self.average_precision.items()
                    },
                    "map": self.map.to_dict(),
                }
            ),
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


def _tables(
    rows: np.ndarray, *, n_labels: int, beta: float, zero_division: float | None
) -> Figures:
    """Per figure, ``(..., L + 2)`` values of ledger rows ``(..., L * N_FIELDS)``: each
    label, then micro, then macro."""
    ledgers = rows.reshape(*rows.shape[:-1], n_labels, N_FIELDS)
    figs = all_figures(ledgers, beta=beta, zero_division=zero_division)
    return {
        name: np.concatenate([f["labels"], f[MICRO][..., None], f[MACRO][..., None]], axis=-1)
        for name, f in figs.items()
    }


def _minus(x: Figures, y: Figures) -> Figures:
    return {name: x[name] - y[name] for name in RATIOS}


def _permuted(
    m_a: SparseRows,
    m_b: SparseRows,
    tables: Callable[[np.ndarray], Figures],
    masks: Iterable[np.ndarray],
) -> Figures:
    """The differences when the documents of each 0/1 row of ``masks`` swap their two
    systems: swapping a document moves its rows from one system to the other."""
    full_a, full_b = m_a.sum(), m_b.sum()
    delta = m_b.minus(m_a)
    moved = (delta.times(s) for s in masks)
    blocks = [_minus(tables(full_a + d), tables(full_b - d)) for d in moved]
    return {name: np.concatenate([blk[name] for blk in blocks]) for name in RATIOS}


def _check_pair(a: EvaluationResult, b: EvaluationResult, method: str, **boot: Any) -> None:
    """Refuse bad resampling settings (``boot``), an unknown method, and two results whose
    figures are not comparable."""
    check_resampling(**boot)
    if method not in COMPARE_METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(COMPARE_METHODS)}")
    if (a.settings.beta, a.settings.zero_division) != (b.settings.beta, b.settings.zero_division):
        raise ValueError("paired test: the two results use different beta or zero_division")


@one_blas_thread
def paired_test(
    a: EvaluationResult,
    b: EvaluationResult,
    *,
    threshold: float | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    method: str = "permutation",
    documents: Sequence[int] | np.ndarray | None = None,
) -> PairedTest:
    """Compare the precision, recall and F of two systems scored on the same documents,
    resampling documents jointly (the same draws for both, so per-document difficulty cancels
    out).

    ``method="permutation"``: the paired permutation test, each document's two systems
    swapped or not; over every assignment when there are at most ``max(resamples,``
    :data:`EXACT_ASSIGNMENTS` ``)`` of them (the exact p-value), else over ``resamples``
    random ones, each document swapped with probability 1/2: ``p = (1 + #{|d'| >= |d|}) /
    (1 + R)``. Valid at every size: two documents never give ``p < 1/2``.
    ``method="bootstrap"``: the null distribution is the paired-bootstrap distribution of
    ``d* = X_A* - X_B*`` shifted to mean zero, i.e. ``p = (1 + #{|d* - d| >= |d|}) /
    (1 + B)``; too small on few documents. Both are two-sided; a system compared with itself
    gets ``d = 0`` and ``p = 1``. The interval is the paired-bootstrap percentile interval of
    ``d`` either way. The same resamples serve every figure. ``documents``: the indices (in
    ``a``'s order) of a slice's documents, the test of those alone, without AP
    (:func:`holm_over_slices` adjusts the slices' tests together).
    """
    _check_pair(a, b, method, resamples=resamples, seed=seed, confidence=confidence)
    (docs_a, t_a), (docs_b, t_b) = (counts_at(r, "paired_test", threshold) for r in (a, b))
    at = a.settings.thresholds[t_a]
    labels = sorted(set(docs_a.labels) | set(docs_b.labels))
    kept = np.arange(docs_a.n_documents) if documents is None else np.asarray(documents)
    m_a = matrix(docs_a, labels, t_a, order=kept)
    m_b = matrix(docs_b, labels, t_b, order=_aligned(docs_a, docs_b)[kept])
    n = m_a.n_rows
    exact = method == "permutation" and 1 << n <= max(resamples, EXACT_ASSIGNMENTS)
    masks_of: Callable[[], Iterable[np.ndarray]] = (
        partial(every_swap, n) if exact else partial(swap_masks, n, resamples=resamples, seed=seed)
    )
    diffs = _differences(
        m_a, m_b, len(labels), a.settings, method, masks_of, resamples, seed, confidence
    )
    ap, mean_ap = None, None
    if documents is None and a.sweep_events is not None and b.sweep_events is not None:
        ap, mean_ap = _paired_ap((a, b), docs_a, at, masks_of, method, resamples, seed, confidence)
    return PairedTest(
        threshold=at,
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        n_documents=n,
        method=method,
        exact=exact,
        per_label=dict(zip(labels, _holm_over_labels(diffs[:-2]), strict=True)),
        micro=diffs[-2],
        macro=diffs[-1],
        average_precision=ap,
        map=mean_ap,
    )


def _differences(
    m_a: SparseRows,
    m_b: SparseRows,
    n_labels: int,
    settings: Settings,
    method: str,
    masks_of: Callable[[], Iterable[np.ndarray]],
    resamples: int,
    seed: int,
    confidence: float,
) -> list[Difference]:
    """Each label's, then micro's and macro's :class:`Difference`: A's figures minus B's,
    against the paired bootstrap's differences and those under H0 (``method``'s)."""
    tables = partial(
        _tables, n_labels=n_labels, beta=settings.beta, zero_division=settings.zero_division
    )
    fig_a, fig_b = tables(m_a.sum()), tables(m_b.sum())
    # One draw of documents for both systems (their rows side by side): a paired resample.
    both = resampled_sums(m_a.beside(m_b), resamples=resamples, seed=seed)
    boot = _minus(tables(both[:, : m_a.n_cols]), tables(both[:, m_a.n_cols :]))
    # bootstrap: centred, the bootstrap's picture of d's spread under H0
    null = (
        _minus(boot, _minus(fig_a, fig_b))
        if method == "bootstrap"
        else _permuted(m_a, m_b, tables, masks_of())
    )
    # Columns of the tables: each label, then micro, then macro (see _tables).
    return [
        Difference.of({f: _difference(fig_a, fig_b, boot, null, f, i, confidence) for f in RATIOS})
        for i in range(n_labels + 2)
    ]


def holm_over_slices(tests: dict[str, PairedTest]) -> dict[str, PairedTest]:
    """Each slice's test with its labels' p-values Holm-adjusted over every slice and label
    together, one family per figure (semantics §10): as many slices as labels, as many tests."""
    rows = iter(_holm_over_labels([d for t in tests.values() for d in t.per_label.values()]))
    return {
        name: replace(test, per_label={label: next(rows) for label in test.per_label})
        for name, test in tests.items()
    }


def _paired_ap(
    results: tuple[EvaluationResult, EvaluationResult],
    docs: DocumentCounts,
    threshold: float | None,
    masks_of: Callable[[], Iterable[np.ndarray]],
    method: str,
    resamples: int,
    seed: int,
    confidence: float,
) -> tuple[dict[str, FigureDifference], FigureDifference]:
    """Each label's average precision difference (Holm over the labels), then mAP's, from
    :func:`paired_test`'s swaps (and :func:`.resampling.resample_weights`' draws): each
    system's sweep events per document (``docs``' order, B's after A's) weighted by the
    documents a resample draws or a permutation gives that system."""
    n = docs.n_documents
    position = {doc_id: i for i, doc_id in enumerate(docs.doc_ids)}
    events: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
    for side, r in enumerate(results):
        assert r.sweep_events is not None and r.sweep_events.doc_ids is not None
        where = np.array([position[d] for d in r.sweep_events.doc_ids], dtype=np.int64) + side * n
        t = r.settings.sweep_thresholds.index(threshold)
        for label, (scores, deltas, at) in r.sweep_events.events.items():
            events.setdefault(label, []).append((scores, deltas[t], where[at]))
    labels = sorted({*events, *docs.labels})
    none = (np.zeros(0), np.zeros((0, N_FIELDS)), np.zeros(0, dtype=np.int64))
    joined = [
        (np.concatenate(s), np.concatenate(d), np.concatenate(at))
        for s, d, at in (zip(*events.get(label, [none]), strict=True) for label in labels)
    ]
    gold = [
        np.tile(docs.rows(lab, docs.kept[0])[:, LedgerField.NUM_ANNOTATED], 2) for lab in labels
    ]

    def table(a_w: np.ndarray, b_w: np.ndarray) -> np.ndarray:
        """``(R, L + 1)``: each label's AP, then mAP, weighting A's documents by ``a_w`` and
        B's by ``b_w`` (rows of ``(R, n)``)."""
        weights = np.c_[a_w, b_w]
        aps = np.stack([weighted_ap(e, g, weights) for e, g in zip(joined, gold, strict=True)], 1)
        defined = (~np.isnan(aps)).sum(1)
        mean = np.where(defined > 0, np.nansum(aps, 1) / np.maximum(defined, 1), np.nan)
        out: np.ndarray = np.c_[aps, mean]
        return out

    one, zero = np.ones((1, n)), np.zeros((1, n))
    fig_a, fig_b = table(one, zero)[0], table(zero, one)[0]
    draws = resample_weights(n, resamples=resamples, seed=seed)
    boot = np.concatenate([table(w, 0 * w) - table(0 * w, w) for w in draws])
    null = (
        boot - (fig_a - fig_b)
        if method == "bootstrap"
        else np.concatenate([table(1 - m, m) - table(m, 1 - m) for m in masks_of()])
    )
    figures = ({"ap": fig_a}, {"ap": fig_b}, {"ap": boot}, {"ap": null})
    rows = [_difference(*figures, "ap", i, confidence) for i in range(len(labels) + 1)]
    return dict(zip(labels, _holm_rows(rows[:-1]), strict=True)), rows[-1]


def _holm_rows(rows: list[FigureDifference]) -> list[FigureDifference]:
    """One figure's differences over the labels, Holm-adjusted as one family (the labels
    with a p-value)."""
    adjusted = holm([r.p_value for r in rows])
    family = sum(p is not None for p in adjusted)
    return [replace(r, p_holm=p, family=family) for r, p in zip(rows, adjusted, strict=True)]


def _holm_over_labels(rows: list[Difference]) -> list[Difference]:
    """The labels' rows with each figure's p-values Holm-adjusted over the labels: one family
    per figure (precision, recall, F). Micro and macro are not in it: each is one summary
    test, read on its own."""
    adjusted = {f: _holm_rows([r.figures[f] for r in rows]) for f in RATIOS}
    return [Difference.of({f: adjusted[f][i] for f in RATIOS}) for i in range(len(rows))]


def _difference(
    fig_a: Figures, fig_b: Figures, boot: Figures, null: Figures, f: str, i: int, confidence: float
) -> FigureDifference:
    """Figure ``f`` of column ``i``: A's, B's, their difference with the interval of the
    bootstrap differences ``boot``, and its p-value against the null differences ``null``."""
    x_a, x_b = fig_a[f][i], fig_b[f][i]
    observed = x_a - x_b
    low, high, undefined = percentiles(boot[f][:, i], confidence)
    if np.isnan(observed):
        return FigureDifference(value(x_a), value(x_b), None, low, high, None, undefined)
    samples = null[f][:, i]
    defined = samples[~np.isnan(samples)]
    # A tolerance so that floating-point noise never turns "as extreme" into "less extreme".
    extreme = int(np.count_nonzero(np.abs(defined) >= abs(observed) - 1e-12))
    p = min(1.0, (1 + extreme) / (1 + defined.size))
    return FigureDifference(value(x_a), value(x_b), float(observed), low, high, p, undefined)
