"""Chance-corrected agreement between annotators (semantics §12): Krippendorff's α, nominal,
from a coincidence matrix, over the labels of each position (token or character) of the
documents, "no label" a category, a position missing for an annotator who did not see its
document.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

import numpy as np

from .spans import Span

__all__ = ["covered", "label_alphas", "nominal_alpha"]


def nominal_alpha(values: np.ndarray) -> float | None:
    """Krippendorff's nominal α of ``values``: coders × units of category codes (small
    integers from 0), ``-1`` where a coder gave no value. Units with fewer than two values
    pair nothing and are left out; ``None`` when no pair is left or every value is one
    category (α is then undefined). Computed exactly from the counts and rounded once, so
    an α that meets a floor exactly reads as meeting it."""
    seen = values >= 0
    paired = seen.sum(axis=0) >= 2
    values, seen = values[:, paired], seen[:, paired]
    n_cats = int(values.max(initial=0)) + 1
    units = np.broadcast_to(np.arange(values.shape[1]), values.shape)[seen]
    counts = np.bincount(units * n_cats + values[seen], minlength=values.shape[1] * n_cats)
    counts = counts.reshape(values.shape[1], n_cats)
    n_c, m = counts.sum(axis=0), seen.sum(axis=0)
    n = int(n_c.sum())
    expected = n * n - int((n_c**2).sum())
    if n == 0 or expected == 0:
        return None
    # the unit's pairs of unlike values, each of its m values weighing 1 / (m - 1)
    unlike = m * m - (counts**2).sum(axis=1)
    observed = sum(Fraction(int(unlike[m == k].sum()), int(k) - 1) for k in np.unique(m))
    return float(1 - (n - 1) * observed / expected)


def covered(spans: Iterable[Span], length: int, labels: Sequence[str]) -> np.ndarray:
    """Labels × positions: whether a span of that label covers the position."""
    index = {label: i for i, label in enumerate(labels)}
    out = np.zeros((len(labels), length), dtype=bool)
    for span in spans:
        out[index[span.label], span.start : span.end] = True
    return out


def label_alphas(
    coverage: np.ndarray, seen: np.ndarray, labels: Sequence[str]
) -> tuple[float | None, dict[str, float | None]]:
    """α over all labels (a position's category: the set of labels covering it) and per
    label (binary: that label or not), from ``coverage`` (coders × labels × positions) and
    ``seen`` (coders × positions: whether the coder saw the position's document)."""
    coders, n_labels, positions = coverage.shape
    if n_labels < 63:  # (each position's set of labels as the bits of one integer)
        bits = (coverage.astype(np.int64) << np.arange(n_labels)[:, None]).sum(axis=1)
        _, sets = np.unique(bits, return_inverse=True)
    else:
        patterns = coverage.transpose(0, 2, 1).reshape(coders * positions, n_labels)
        _, sets = np.unique(patterns, axis=0, return_inverse=True)
    overall = np.where(seen, sets.reshape(coders, positions), -1)
    per_label = {
        label: nominal_alpha(np.where(seen, coverage[:, i, :], -1))
        for i, label in enumerate(labels)
    }
    return nominal_alpha(overall), per_label
