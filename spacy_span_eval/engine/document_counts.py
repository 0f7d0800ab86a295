"""Per-document ledgers, kept on request, so statistics can resample documents cheaply.

A bootstrap over documents only needs each document's counts: summing resampled rows gives
the resampled ledger, with no re-scoring. Rows are in stream order; merging concatenates.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .ledger import N_FIELDS, has_spans


@dataclass
class DocumentCounts:
    """``counts[label]``: int array ``(n_documents, n_thresholds, N_FIELDS)`` of ledger rows
    (columns: :class:`~.ledger.LedgerField`), one row per document."""

    n_thresholds: int
    doc_ids: list[str] = field(default_factory=list)
    counts: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def n_documents(self) -> int:
        return len(self.doc_ids)

    def append(self, doc_ids: list[str], per_label: dict[str, np.ndarray]) -> None:
        """Add a batch: ``per_label[label]`` has one row per document of ``doc_ids``."""
        before, added = self.n_documents, len(doc_ids)
        for label in set(self.counts) | set(per_label):
            have = self.counts.get(label)
            if have is None:
                have = np.zeros((before, self.n_thresholds, N_FIELDS), dtype=np.int64)
            new = per_label.get(label)
            if new is None:
                new = np.zeros((added, self.n_thresholds, N_FIELDS), dtype=np.int64)
            self.counts[label] = np.concatenate([have, new])
        self.doc_ids.extend(doc_ids)

    def append_rows(self, doc_ids: list[str], labels: list[str], rows: np.ndarray) -> None:
        """Add a batch from its ``(n_thresholds, n_documents, n_labels, N_FIELDS)`` rows;
        labels without any span in the batch are left out (they stay zero)."""
        present = np.flatnonzero(has_spans(rows[0]).any(axis=0))
        self.append(doc_ids, {labels[lab]: rows[:, :, lab, :].transpose(1, 0, 2).copy()
                              for lab in present.tolist()})

    def merge(self, other: DocumentCounts) -> DocumentCounts:
        out = DocumentCounts(self.n_thresholds, list(self.doc_ids),
                             {k: v.copy() for k, v in self.counts.items()})
        out.append(list(other.doc_ids), other.counts)
        return out

    def total(self, label: str | None = None) -> np.ndarray:
        """Summed ``(n_thresholds, N_FIELDS)`` rows of one label, or of all labels (micro)."""
        rows = [self.counts[label]] if label is not None else list(self.counts.values())
        if not rows:
            return np.zeros((self.n_thresholds, N_FIELDS), dtype=np.int64)
        return sum(r.sum(axis=0) for r in rows)
