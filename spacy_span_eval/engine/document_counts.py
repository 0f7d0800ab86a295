"""Per-document ledgers, kept on request, so statistics can resample documents cheaply.

A bootstrap over documents only needs each document's counts: summing resampled rows gives
the resampled ledger, with no re-scoring. Documents are in stream order; merging
concatenates.

They are the one part of a tally that grows with the corpus, so they are kept compact: only
at the thresholds asked for (``per_document=(0.5,)``: a report's intervals need its main
threshold, not the whole curve), and only the cells that count something. A document holds a
few labels of the thousands a corpus may have, so a cell is stored per (document, label)
pair that has a span, never per document *and* label: three parallel arrays (the
document's index, the label's index, its ledger rows at the kept thresholds), as 32-bit
integers (64-bit once a count outgrows them), one set per batch, joined once when read
instead of being copied at every batch. Memory and time grow with the cells that count, not
with documents x labels.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from .labels import slice_order
from .ledger import N_FIELDS
from .verdicts import Verdicts, count_rows

_INT32_MAX = int(np.iinfo(np.int32).max)


class DocumentCounts:
    """Sparse per-document ledger rows (columns: :class:`~.ledger.LedgerField`): for each
    (document, label) cell with a span, its rows ``(len(kept), N_FIELDS)``; ``kept``: the
    indices of the scored thresholds these rows are kept at (default: all
    ``n_thresholds``). Cells are stored in document order."""

    def __init__(self, n_thresholds: int, kept: Sequence[int] | None = None) -> None:
        self.n_thresholds = n_thresholds
        self.kept: tuple[int, ...] = tuple(range(n_thresholds)) if kept is None else tuple(kept)
        self.doc_ids: list[str] = []
        self._label_index: dict[str, int] = {}  # each label's index, in order of first sight
        # (doc, lab, val) per batch added, joined into one when read
        self._parts: list[tuple[np.ndarray, ...]] = [
            (
                np.zeros(0, np.int64),
                np.zeros(0, np.int32),
                np.zeros((0, len(self.kept), N_FIELDS), np.int32),
            )
        ]

    # -- reading ----------------------------------------------------------------------------
    @property
    def n_documents(self) -> int:
        return len(self.doc_ids)

    @property
    def labels(self) -> list[str]:
        """The labels with per-document rows, sorted."""
        return sorted(self._label_index)

    def cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
        """``(doc, lab, values, names)``: each stored cell's document index, label index
        (into ``names``) and ``(len(kept), N_FIELDS)`` rows (read-only views)."""
        if len(self._parts) > 1:
            self._parts = [tuple(np.concatenate(a) for a in zip(*self._parts, strict=True))]
        doc, lab, val = self._parts[0]
        for a in (doc, lab, val):
            a.flags.writeable = False
        return doc, lab, val, list(self._label_index)

    @property
    def counts(self) -> dict[str, np.ndarray]:
        """Each label's dense rows ``(n_documents, len(kept), N_FIELDS)``, zeros where a
        document has no span of it (read-only; built on request, documents x labels cells:
        for small corpora and tests, not for statistics)."""
        views = {label: self._dense(label)[:] for label in self._label_index}
        for view in views.values():
            view.flags.writeable = False
        return views

    def rows(self, label: str, t: int) -> np.ndarray:
        """``(n_documents, N_FIELDS)`` rows of ``label`` at threshold index ``t`` (zeros for a
        label without spans)."""
        if t not in self.kept:
            raise KeyError(
                f"per-document counts were not kept at threshold index {t} "
                f"(kept: {list(self.kept)})"
            )
        return self._dense(label)[:, self.kept.index(t)]

    def _dense(self, label: str) -> np.ndarray:
        """``label``'s rows ``(n_documents, len(kept), N_FIELDS)``, zeros where a document has
        no span of it."""
        doc, lab, val, _ = self.cells()
        where = lab == self._label_index.get(label, -1)
        out = np.zeros((self.n_documents, len(self.kept), N_FIELDS), dtype=val.dtype)
        out[doc[where]] = val[where]
        return out

    def by_document(self) -> Iterator[tuple[str, list[tuple[str, np.ndarray]]]]:
        """``(doc_id, [(label, rows), ...])`` per document in stream order, its labels
        sorted, ``rows`` ``(len(kept), N_FIELDS)``: one document at a time, never documents
        x labels."""
        doc, lab, val, names = self.cells()
        rank = np.argsort(sorted(range(len(names)), key=names.__getitem__))  # each name's place
        order = np.lexsort((rank[lab], doc))
        doc, lab = doc[order], lab[order]
        starts = np.searchsorted(doc, np.arange(self.n_documents + 1))
        for d, doc_id in enumerate(self.doc_ids):
            lo, hi = int(starts[d]), int(starts[d + 1])
            yield doc_id, [(names[int(lab[k])], val[order[k]]) for k in range(lo, hi)]

    def total(self, label: str | None = None) -> np.ndarray:
        """Summed ``(len(kept), N_FIELDS)`` rows of one label, or of all labels (micro)."""
        _, lab, val, _ = self.cells()
        if label is not None:
            val = val[lab == self._label_index.get(label, -1)]
        out: np.ndarray = val.sum(axis=0, dtype=np.int64).reshape(len(self.kept), N_FIELDS)
        return out

    def by_slice(self, values: Sequence[str]) -> tuple[list[str], list[str], np.ndarray]:
        """``(slices, labels, rows)``: rows ``(slice, label, len(kept), N_FIELDS)`` summed over
        the documents whose slice value (``values[d]``, one per document) is that slice; the
        slices add up to :meth:`total` exactly (semantics §10)."""
        if len(values) != self.n_documents:
            raise ValueError(f"{len(values)} slice values for {self.n_documents} documents")
        unique, inverse = np.unique(np.asarray(values, dtype=str), return_inverse=True)
        slices = slice_order(unique.tolist())
        position = {s: i for i, s in enumerate(slices)}
        inverse = np.array([position[u] for u in unique.tolist()], dtype=np.int64)[inverse]
        doc, lab, val, names = self.cells()
        out = np.zeros((len(slices), len(names), len(self.kept), N_FIELDS), dtype=np.int64)
        np.add.at(out, (inverse[doc], lab), val)
        return slices, names, out

    # -- adding -----------------------------------------------------------------------------
    def _label_ids(self, labels: Sequence[str]) -> np.ndarray:
        # a label first seen gets the next index
        index = self._label_index
        return np.array([index.setdefault(label, len(index)) for label in labels], dtype=np.int32)

    def _append_ids(
        self, doc_ids: Sequence[str], doc: np.ndarray, lab: np.ndarray, val: np.ndarray
    ) -> None:
        if val.shape[1:] != (len(self.kept), N_FIELDS):
            raise ValueError(
                f"cell rows have shape {val.shape[1:]}, not {(len(self.kept), N_FIELDS)}"
            )
        keep = val.reshape(len(val), len(self.kept) * N_FIELDS).any(axis=1)
        wide = val.size and int(val.max()) > _INT32_MAX
        self._parts.append(
            (
                np.asarray(doc, dtype=np.int64)[keep] + self.n_documents,
                np.asarray(lab, dtype=np.int32)[keep],
                val[keep].astype(np.int64 if wide else np.int32),
            )
        )
        self.doc_ids.extend(doc_ids)

    def append_verdicts(self, doc_ids: list[str], verdicts: Verdicts) -> None:
        """Add a batch from its verdicts, counting only the (document, label) cells that
        hold a span (``Verdicts.ledger_rows`` keyed by the cells present, never by
        documents x labels)."""
        n_lab = max(1, len(verdicts.labels))
        keys = [
            verdicts.gold.doc * n_lab + verdicts.gold.label,
            verdicts.pred.doc * n_lab + verdicts.pred.label,
            verdicts.unaligned_doc * n_lab + verdicts.unaligned_label,
            verdicts.unaligned_gold_doc * n_lab + verdicts.unaligned_gold_label,
        ]
        present, inverse = np.unique(
            np.concatenate([k.astype(np.int64) for k in keys]), return_inverse=True
        )
        g, p, u, ug = np.split(inverse, np.cumsum([len(k) for k in keys])[:-1])
        rows = count_rows(g, p, verdicts.match, len(present), u, ug, self.kept)
        ids = self._label_ids(verdicts.labels) if verdicts.labels else np.zeros(1, np.int32)
        self._append_ids(doc_ids, present // n_lab, ids[present % n_lab], rows.transpose(1, 0, 2))

    def extend(self, other: DocumentCounts) -> None:
        """Append ``other``'s documents in place (kept at the same thresholds: tallies merge
        under equal settings only)."""
        doc, lab, val, names = other.cells()
        ids = self._label_ids(names) if names else np.zeros(1, np.int32)
        self._append_ids(list(other.doc_ids), doc, ids[lab], val)

    def merge(self, other: DocumentCounts) -> DocumentCounts:
        out = DocumentCounts(self.n_thresholds, self.kept)
        out.extend(self)
        out.extend(other)
        return out
