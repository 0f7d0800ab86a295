"""Per-document ledgers, kept on request, so statistics can resample documents cheaply.

A bootstrap over documents only needs each document's counts: summing resampled rows gives
the resampled ledger, with no re-scoring. Rows are in stream order; merging concatenates.

They are the one part of a tally that grows with the corpus, so they are kept compact: only
at the thresholds asked for (``per_document=(0.5,)``: a report's intervals need its main
threshold, not the whole curve), only for labels that have a span somewhere, as 32-bit
integers (64-bit for a label whose counts outgrow them), in buffers that grow by doubling
instead of being copied at every batch. A document where a label has no span costs that
label a row of zeros.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .ledger import N_FIELDS, has_spans

_INT32_MAX = int(np.iinfo(np.int32).max)
_MIN_CAPACITY = 1024


class _Rows:
    """One label's rows ``(n, n_kept, N_FIELDS)`` in a zero-filled buffer with room to grow;
    rows never written stay zero."""

    __slots__ = ("data",)

    def __init__(self, capacity: int, n_kept: int, dtype: type = np.int32) -> None:
        self.data: np.ndarray = np.zeros((capacity, n_kept, N_FIELDS), dtype=dtype)

    def put(self, at: int, rows: np.ndarray) -> None:
        """Write ``rows`` from row ``at`` on, growing (and widening) the buffer as needed."""
        end = at + len(rows)
        dtype = self.data.dtype
        if dtype == np.int32 and rows.size and int(rows.max()) > _INT32_MAX:
            dtype = np.dtype(np.int64)
        if end > len(self.data) or dtype != self.data.dtype:
            capacity = len(self.data)
            while capacity < end:
                capacity = max(2 * capacity, _MIN_CAPACITY)
            grown = np.zeros((capacity, *self.data.shape[1:]), dtype=dtype)
            held = min(at, len(self.data))
            grown[:held] = self.data[:held]
            self.data = grown
        self.data[at:end] = rows


class DocumentCounts:
    """``counts[label]``: int array ``(n_documents, len(kept), N_FIELDS)`` of ledger rows
    (columns: :class:`~.ledger.LedgerField`), one row per document; ``kept``: the indices of
    the scored thresholds these rows are kept at (default: all ``n_thresholds``)."""

    def __init__(self, n_thresholds: int, kept: Sequence[int] | None = None) -> None:
        self.n_thresholds = n_thresholds
        self.kept: tuple[int, ...] = tuple(range(n_thresholds)) if kept is None else tuple(kept)
        self.doc_ids: list[str] = []
        self._rows: dict[str, _Rows] = {}

    @property
    def n_documents(self) -> int:
        return len(self.doc_ids)

    @property
    def counts(self) -> dict[str, np.ndarray]:
        """Each label's rows (read-only views)."""
        out = {}
        for label, rows in self._rows.items():
            view = rows.data[: self.n_documents]
            view.flags.writeable = False
            out[label] = view
        return out

    def rows(self, label: str, t: int) -> np.ndarray:
        """``(n_documents, N_FIELDS)`` rows of ``label`` at threshold index ``t`` (zeros for a
        label without spans)."""
        if t not in self.kept:
            raise KeyError(
                f"per-document counts were not kept at threshold index {t} "
                f"(kept: {list(self.kept)})"
            )
        rows = self._rows.get(label)
        if rows is None:
            return np.zeros((self.n_documents, N_FIELDS), dtype=np.int32)
        return rows.data[: self.n_documents, self.kept.index(t), :]

    def append(self, doc_ids: list[str], per_label: Mapping[str, np.ndarray]) -> None:
        """Add a batch: ``per_label[label]`` has one row per document of ``doc_ids``, at the
        kept thresholds; labels left out have zero rows."""
        before = self.n_documents
        for label, new in per_label.items():
            if new.shape[1:] != (len(self.kept), N_FIELDS):
                raise ValueError(
                    f"rows of {label!r} have shape {new.shape[1:]}, "
                    f"not {(len(self.kept), N_FIELDS)}"
                )
            if label not in self._rows:
                self._rows[label] = _Rows(0, len(self.kept))
            self._rows[label].put(before, new)
        self.doc_ids.extend(doc_ids)

    def append_rows(self, doc_ids: list[str], labels: list[str], kept: np.ndarray) -> None:
        """Add a batch from its ``(len(kept), n_documents, n_labels, N_FIELDS)`` rows at
        the kept thresholds (``Verdicts.ledger_rows(n, thresholds=counts.kept)``); labels
        without any span in the batch are left out (they stay zero)."""
        present = np.flatnonzero(has_spans(kept[0]).any(axis=0))
        self.append(
            doc_ids,
            {labels[lab]: kept[:, :, lab, :].transpose(1, 0, 2) for lab in present.tolist()},
        )

    def extend(self, other: DocumentCounts) -> None:
        """Append ``other``'s documents in place."""
        if (other.n_thresholds, other.kept) != (self.n_thresholds, self.kept):
            raise ValueError("cannot merge per-document counts kept at different thresholds")
        self.append(list(other.doc_ids), other.counts)

    def merge(self, other: DocumentCounts) -> DocumentCounts:
        out = DocumentCounts(self.n_thresholds, self.kept)
        out.extend(self)
        out.extend(other)
        return out

    def total(self, label: str | None = None) -> np.ndarray:
        """Summed ``(len(kept), N_FIELDS)`` rows of one label, or of all labels (micro)."""
        rows = [self.counts[label]] if label is not None else list(self.counts.values())
        out = np.zeros((len(self.kept), N_FIELDS), dtype=np.int64)
        for r in rows:
            out += r.sum(axis=0, dtype=np.int64)
        return out
