"""What the bootstrap intervals and the paired test share: documents drawn with replacement
(or swapped between two systems) and per-document ledger rows summed per draw, whose
figures the ledger's own rules give (:func:`.ledger.all_figures`).

Documents, not spans, are the unit of resampling: spans of one document are not independent
(one long prediction can decide several annotations), documents roughly are. The engine keeps
each document's ledger rows (``per_document=True``), so a resample is a weighted sum of rows,
never a re-scoring: the ``(B, n_documents)`` matrix of how often each document was drawn,
times the ``(n_documents, labels x N_FIELDS)`` rows, gives all ``B`` resampled ledgers. The
rows are taken by their non-zero cells (:class:`SparseRows`; a document has spans of few
labels), so the product costs what the cells do, not documents x labels.

Resamples are drawn one after another from one generator seeded with ``seed``, one call per
resample, so a seed gives the same figures whatever the batching. Ratios follow semantics
section 3: precision is ``credited / num_predicted``, recall ``tp / num_annotated``; NaN
marks a figure a resample leaves undefined (zero denominator).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

import numpy as np
from threadpoolctl import threadpool_limits

from ..errors import InvalidInputError
from .document_counts import DocumentCounts
from .ledger import N_FIELDS, LedgerField
from .result import EvaluationResult
from .settings import MAX_RESAMPLES, check_count

# Cells of the (resamples x documents) weight matrix built at once; bounds memory only (the
# draws do not depend on it).
_BLOCK_CELLS = 1 << 22

_P = ParamSpec("_P")
_R = TypeVar("_R")


def one_blas_thread(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``func``'s resampling products on one BLAS thread.

    They are skinny (a block of resamples x documents, times documents x a few dozen
    columns) and bound by memory, so a second thread buys little; on a busy machine, though,
    a BLAS thread waiting for a descheduled sibling made them many times slower. Their
    values are sums of whole numbers, exact in any order, so the thread count never changes
    a figure.
    """

    @functools.wraps(func)
    def on_one_thread(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with threadpool_limits(limits=1, user_api="blas"):
            return func(*args, **kwargs)

    return on_one_thread


def _check_draws(n_documents: int, resamples: int) -> None:
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, not {resamples!r}")
    if n_documents < 1:
        raise ValueError("cannot resample an evaluation without documents")


def _rows(
    n_documents: int, resamples: int, seed: int, draw: Callable[[np.random.Generator], np.ndarray]
) -> Iterator[np.ndarray]:
    """Blocks of ``draw(rng)`` rows, one call per resample from one seeded generator, so the
    rows do not depend on how they are blocked."""
    _check_draws(n_documents, resamples)
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


def swap_masks(n_documents: int, *, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of 0/1 rows: which documents trade their two systems' rows, drawn at random."""
    return _rows(n_documents, resamples, seed, lambda rng: rng.integers(0, 2, n_documents))


def every_swap(n_documents: int) -> Iterator[np.ndarray]:
    """Blocks of 0/1 rows: every way of trading documents' rows but trading none, each once
    (row ``k - 1`` trades the documents whose bits are set in ``k``)."""
    _check_draws(n_documents, 1)
    bits = np.arange(n_documents)
    step = max(1, _BLOCK_CELLS // n_documents)
    for lo in range(1, 1 << n_documents, step):
        codes = np.arange(lo, min(lo + step, 1 << n_documents))
        yield ((codes[:, None] >> bits) & 1).astype(np.float64)


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
        return SparseRows._sorted(len(rows), self.n_cols, at[keep], self.col[keep], self.val[keep])

    def beside(self, other: SparseRows) -> SparseRows:
        """``[self, other]``: the two side by side (same rows)."""
        return SparseRows._sorted(
            self.n_rows,
            self.n_cols + other.n_cols,
            np.concatenate([self.row, other.row]),
            np.concatenate([self.col, other.col + self.n_cols]),
            np.concatenate([self.val, other.val]),
        )

    @staticmethod
    def _sorted(
        n_rows: int, n_cols: int, row: np.ndarray, col: np.ndarray, val: np.ndarray
    ) -> SparseRows:
        order = np.lexsort((col, row))
        return SparseRows(n_rows, n_cols, row[order], col[order], val[order])

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
    distinct rows of counts. Where there are at most a quarter as many as documents, a
    resample draws how many of its ``n`` documents fall in each group of alike ones, all at
    once: ``Multinomial(n, group size / n)``, the same distribution as drawing the documents
    one by one, for a few hundred draws instead of ``n``. Otherwise the documents themselves
    are drawn (:func:`resample_weights`). Either way the numbers are fixed by ``seed`` and
    ``m``."""
    sparse = m if isinstance(m, SparseRows) else SparseRows.of(m)
    n = sparse.n_rows
    _check_draws(n, resamples)
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
    new = np.r_[True, key[order[1:]] != key[order[:-1]]]
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


def value(x: float | np.ndarray) -> float | None:
    """A figure for a result: ``None`` for NaN (undefined)."""
    return None if np.isnan(x) else float(x)


def percentiles(samples: np.ndarray, confidence: float) -> tuple[float | None, float | None, int]:
    """``(low, high, undefined)``: the percentile interval of the defined ``samples`` (both
    ``None`` when none is) and how many are undefined (NaN)."""
    defined = samples[~np.isnan(samples)]
    undefined = int(samples.size - defined.size)
    if not defined.size:
        return None, None, undefined
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(defined, [tail, 100 - tail])
    return float(low), float(high), undefined


@dataclass(frozen=True)
class Resampled:
    """What a statistic over resampled documents was computed at and from."""

    threshold: float | None
    resamples: int
    seed: int
    confidence: float
    n_documents: int

    def head(self, method: str) -> dict[str, Any]:
        """The first keys of the statistic's JSON."""
        return {
            "method": method,
            "threshold": self.threshold,
            "resamples": self.resamples,
            "seed": self.seed,
            "confidence": self.confidence,
            "documents": self.n_documents,
        }


# -- the rows to resample --------------------------------------------------------------------
def check_resampling(
    *, resamples: int, seed: int, confidence: float, min_resamples: int = 1
) -> None:
    """Check the resampling settings up front (before anything is read or scored):
    ``resamples`` and ``seed`` whole numbers (``min_resamples <= resamples <=``
    :data:`MAX_RESAMPLES`, ``seed >= 0``), ``confidence`` a number in (0, 1)."""
    if check_count(resamples, "resamples", minimum=min_resamples) > MAX_RESAMPLES:
        raise InvalidInputError(f"resamples must be at most {MAX_RESAMPLES}, not {resamples}")
    check_count(seed, "seed")
    number = isinstance(confidence, int | float) and not isinstance(confidence, bool)
    if not (number and 0 < confidence < 1):
        raise InvalidInputError(f"confidence must be a number in (0, 1), not {confidence!r}")


def counts_at(
    result: EvaluationResult, what: str, threshold: float | None
) -> tuple[DocumentCounts, int]:
    """``result``'s per-document counts, which ``what`` needs, and the index of ``threshold``
    among its scored thresholds (default: the first one kept per document)."""
    documents, taus = result.documents, result.settings.thresholds
    if documents is None:
        raise ValueError(
            f"{what} needs per-document counts: evaluate with SpanEvaluator(per_document=True)"
        )
    if threshold is None:
        return documents, documents.kept[0]
    if threshold not in taus:
        raise KeyError(f"threshold {threshold!r} was not scored; scored: {list(taus)}")
    t = taus.index(threshold)
    if t not in documents.kept:
        raise KeyError(
            f"threshold {threshold!r} has no per-document counts; kept at "
            f"{[taus[k] for k in documents.kept]} (per_document=True keeps every threshold)"
        )
    return documents, t


def matrix(
    documents: DocumentCounts, labels: Sequence[str], t: int, order: np.ndarray | None = None
) -> SparseRows:
    """The ``(n_documents, L * N_FIELDS)`` rows of the labels at threshold index ``t``, by
    their non-zero cells (``order``: the documents' order, by index). ``labels`` holds every
    label of ``documents``."""
    doc, lab, val, names = documents.cells()
    position = {label: i for i, label in enumerate(labels)}
    col_of = np.array([position[name] for name in names], dtype=np.int64)
    rows = val[:, documents.kept.index(t), :]
    cell, field = np.nonzero(rows)
    cols = col_of[lab[cell]]
    m = SparseRows(
        documents.n_documents,
        len(labels) * N_FIELDS,
        doc[cell],
        cols * N_FIELDS + field,
        rows[cell, field].astype(np.float64),
    )
    return m.take(np.arange(m.n_rows) if order is None else order)


def weighted_ap(
    events: tuple[np.ndarray, np.ndarray, np.ndarray], annotated: np.ndarray, weights: np.ndarray
) -> np.ndarray:
    """Average precision (NaN without gold) with each document counted as often as a row of
    ``weights`` ``(R, n_docs)`` says: the AP of resampled or permuted documents, from their
    sweep ``events`` ``(scores, deltas (n, N_FIELDS...), docs)``, one per document and
    score, and gold spans ``annotated`` per document. Each score's TP, credited and
    predicted counts are summed over the weighted documents at once (a few columns where
    scores repeat), then accumulated from the highest score down."""
    scores, deltas, docs = events
    gold = weights @ annotated
    if not scores.size:  # nothing predicted: recall never rises from 0
        return np.where(gold == 0, np.nan, 0.0)
    order = np.argsort(-scores, kind="stable")
    ranked = scores[order]
    level = np.cumsum(np.r_[True, ranked[1:] != ranked[:-1]]) - 1  # each event's score rank
    n_levels = int(level[-1]) + 1
    fields = [LedgerField.TP, LedgerField.CREDITED, LedgerField.NUM_PREDICTED]
    counts = deltas[order][:, fields].astype(np.float64)
    cols = (level[:, None] * 3 + np.arange(3)).ravel()
    m = SparseRows._sorted(
        weights.shape[1], 3 * n_levels, np.repeat(docs[order], 3), cols, counts.ravel()
    )
    out = np.full(weights.shape[0], np.nan)
    step = max(1, (1 << 21) // (3 * n_levels))
    for lo in range(0, weights.shape[0], step):
        rows = np.cumsum(m.times(weights[lo : lo + step]).reshape(-1, n_levels, 3), axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            recall = rows[..., 0] / gold[lo : lo + step, None]
            precision = np.nan_to_num(rows[..., 1] / rows[..., 2])
            out[lo : lo + step] = np.sum(np.diff(recall, axis=1, prepend=0.0) * precision, 1)
    out[gold == 0] = np.nan
    return out
