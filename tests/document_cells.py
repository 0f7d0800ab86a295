"""Filling and measuring :class:`~spacy_span_eval.engine.document_counts.DocumentCounts` by
hand: the package fills it from verdicts only; the tests also give it rows directly, to check
its storage (cells, parts, widening) on values worked out by hand. A test helper, not part of
the package.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from spacy_span_eval.engine.document_counts import DocumentCounts
from spacy_span_eval.engine.ledger import N_FIELDS

__all__ = ["append", "append_cells", "n_cells", "nbytes"]


def n_cells(counts: DocumentCounts) -> int:
    """How many (document, label) cells are stored (what memory grows with)."""
    return len(counts.cells()[0])


def nbytes(counts: DocumentCounts) -> int:
    """Bytes held by the cells' arrays."""
    return sum(int(a.nbytes) for part in counts._parts for a in part)


def append_cells(
    counts: DocumentCounts,
    doc_ids: Sequence[str],
    doc: np.ndarray,
    labels: Sequence[str],
    val: np.ndarray,
) -> None:
    """Add a batch of ``doc_ids`` from its cells: ``doc[k]`` (an index into ``doc_ids``),
    ``labels[k]`` and ``val[k]`` (``(len(kept), N_FIELDS)`` rows); all-zero cells dropped."""
    counts._append_ids(doc_ids, doc, counts._label_ids(labels), val)


def append(counts: DocumentCounts, doc_ids: list[str], per_label: Mapping[str, np.ndarray]) -> None:
    """Add a batch: ``per_label[label]`` has one row per document of ``doc_ids``, at the
    kept thresholds; labels left out have zero rows, a label given is known even so."""
    docs, names, vals = [], [], []
    for label, new in per_label.items():
        counts._label_ids([label])
        where = np.flatnonzero(new.reshape(len(new), -1).any(axis=1))
        docs.append(where)
        names.extend([label] * len(where))
        vals.append(new[where])
    append_cells(
        counts,
        doc_ids,
        np.concatenate(docs) if docs else np.zeros(0, dtype=np.int64),
        names,
        np.concatenate(vals) if vals else np.zeros((0, len(counts.kept), N_FIELDS), np.int64),
    )
