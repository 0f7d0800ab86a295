"""A result's slices (semantics §10): per slice, its ledgers per label and micro, its
documents and the worst slice per label; the documents by their value of a gold field (each
slice with its own bootstrap intervals when asked), or the spans by their length.

Not in :mod:`.document_counts`, whose sums per slice they read: a result holds those counts,
and a slice's intervals come from :mod:`.bootstrap`, which reads results (loaded when asked).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import product
from typing import Any

import numpy as np

from .labels import NO_VALUE
from .ledger import N_FIELDS, Ledger, LedgerField, ledger_figures
from .result import EvaluationResult

__all__ = ["document_values", "slice_ledgers", "slice_tables"]


def slice_tables(
    result: EvaluationResult,
    values: Mapping[str, Sequence[str]],
    slice_by: Sequence[str],
    intervals: Mapping[str, Any] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Per ``slice_by`` name, its per-slice tables (:func:`slice_ledgers`) at each level
    (each run naming its ``level`` when there are several): the documents by their value of
    a gold field (``values[name]``, one per document: :func:`document_values`), each slice
    with its bootstrap ``intervals`` when asked (its own documents resampled); else (a name
    without values) the spans by their length."""
    tables: dict[str, list[dict[str, Any]]] = {}
    levels = result.settings.levels
    for name, level in product(slice_by, levels):
        field, at = values.get(name), result.at_level(level)
        runs = slice_ledgers(at, *(_by_length(at) if field is None else _by_field(at, field)))
        tables.setdefault(name, []).extend(
            {"level": level, **r} if len(levels) > 1 else r for r in runs
        )
        if field is not None and intervals and intervals.get("resamples"):
            from .bootstrap import bootstrap_intervals  # (when asked: a plain run is lighter)

            of = np.asarray(field)  # (each document's value)
            for run, s in ((r, s) for r in runs for s in r["slices"]):
                s["intervals"] = bootstrap_intervals(
                    at,
                    threshold=run["threshold"],
                    documents=np.flatnonzero(of == s["slice"]),
                    **intervals,
                ).to_dict()
    return tables


def document_values(result: EvaluationResult, values: Mapping[str, Sequence[str]]) -> list[str]:
    """Each scored document's value (``values``: by document name, the k-th document of a
    name taking its k-th), in the result's order; ``(none)`` for a document without one."""
    assert result.documents is not None
    named = {name: iter(each) for name, each in values.items()}
    return [next(named.get(d, iter(())), NO_VALUE) for d in result.documents.doc_ids]


#: What :func:`slice_ledgers` takes after the result: slice names, labels, the rows (slice,
#: label, threshold, field), the thresholds and each slice's documents (``None``: spans).
_Parts = tuple[
    Sequence[str], Sequence[str], np.ndarray, Sequence[float | None], Sequence[int] | None
]


def _by_field(result: EvaluationResult, values: Sequence[str]) -> _Parts:
    """The documents by their slice value (one per document, in order)."""
    assert result.documents is not None
    names, labels, rows = result.documents.by_slice(values)
    n_docs = Counter(values)
    kept = [result.settings.thresholds[k] for k in result.documents.kept]
    return names, labels, rows, kept, [n_docs[n] for n in names]


def _by_length(result: EvaluationResult) -> _Parts:
    """The spans by their length (gold for recall, predicted for precision)."""
    assert result.lengths is not None
    edges = result.settings.span_lengths
    names = [
        f"{a}" if b == a + 1 else f"{a}-{b - 1}" for a, b in zip(edges, edges[1:], strict=False)
    ] + [f"{edges[-1]}+"]
    labels = sorted(result.lengths)
    if labels:  # (thresholds, buckets, labels, fields) -> (buckets, labels, thresholds, fields)
        rows = np.stack([result.lengths[lab] for lab in labels], axis=2).transpose(1, 2, 0, 3)
    else:
        rows = np.zeros((len(names), 0, len(result.settings.thresholds), N_FIELDS), dtype=int)
    return names, labels, rows, result.settings.thresholds, None


def slice_ledgers(
    result: EvaluationResult,
    names: Sequence[str],
    labels: Sequence[str],
    rows: np.ndarray,
    thresholds: Sequence[float | None],
    documents: Sequence[int] | None,
) -> list[dict[str, Any]]:
    """Per threshold: each slice's ledgers per label and micro (``rows``: slice, label,
    threshold, field), its documents when slicing documents, and the worst slice per label
    (the lowest F among the slices with gold spans of it)."""
    settings = result.settings

    def ledger(row: np.ndarray) -> dict[str, Any]:
        return Ledger.from_row(row).to_dict(settings.beta, settings.zero_division)

    order = sorted(range(len(labels)), key=labels.__getitem__)
    out = []
    for k, threshold in enumerate(thresholds):
        at = rows[:, :, k]
        f = ledger_figures(at, beta=settings.beta, zero_division=settings.zero_division)["f"]
        f = np.where(at[..., LedgerField.NUM_ANNOTATED] > 0, f, np.nan)
        worst = {
            labels[j]: names[int(np.nanargmin(f[:, j]))]
            for j in order
            if not np.isnan(f[:, j]).all()
        }
        table = [
            {
                "slice": name,
                **({} if documents is None else {"documents": documents[i]}),
                "per_label": {labels[j]: ledger(at[i, j]) for j in order},
                "micro": ledger(at[i].sum(axis=0)),
            }
            for i, name in enumerate(names)
        ]
        out.append({"threshold": threshold, "slices": table, "worst": worst})
    return out
