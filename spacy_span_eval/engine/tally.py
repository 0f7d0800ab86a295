"""Tallies: the additive state of an evaluation, mergeable across batches and processes.

Counts are kept per level, threshold and label as ledger rows (columns:
:class:`~.ledger.LedgerField`). Adding two tallies (``a + b``) gives
the tally of the concatenated corpus; error records keep the first ``max_errors`` in stream
order, while their totals stay exact in the counters.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .document_counts import DocumentCounts
from .ledger import N_FIELDS, has_spans
from .records import ErrorRecord
from .result import EvaluationResult
from .settings import Settings
from .strategies import SideCounts


@dataclass
class ViewTally:
    """One level's counts (per label), confusion cells and kept error records, per threshold;
    and the strategy's side table counts, if it keeps one (per label, and overall)."""

    n_thresholds: int
    counts: dict[str, np.ndarray] = field(default_factory=dict)  # label -> (n_thr, N_FIELDS)
    confusion: list[Counter] = field(default_factory=list)
    errors: list[list[ErrorRecord]] = field(default_factory=list)
    boundary: list[Counter] = field(default_factory=list)  # boundary errors per "O" cell
    side: dict[str, np.ndarray] = field(default_factory=dict)  # label -> (n_thr, rows, counts)
    side_overall: np.ndarray | None = None  # (n_thr, rows, counts)

    def __post_init__(self) -> None:
        if not self.confusion:
            self.confusion = [Counter() for _ in range(self.n_thresholds)]
        if not self.errors:
            self.errors = [[] for _ in range(self.n_thresholds)]
        if not self.boundary:
            self.boundary = [Counter() for _ in range(self.n_thresholds)]

    def add_counts(self, label: str, rows: np.ndarray) -> None:
        have = self.counts.get(label)
        self.counts[label] = rows.copy() if have is None else have + rows

    def add_rows(self, labels: list[str], rows: np.ndarray) -> None:
        """Add ``(n_thresholds, len(labels), N_FIELDS)`` rows; labels without any span in them
        are skipped, so every counted label was seen."""
        for lab in np.flatnonzero(has_spans(rows[0])).tolist():
            self.add_counts(labels[lab], rows[:, lab, :])

    def add_side(self, labels: list[str], side: SideCounts) -> None:
        """Add a batch's side table counts; labels with no count in it are skipped."""
        present = side.per_label.sum(axis=(0, 2, 3)) > 0
        for lab in np.flatnonzero(present).tolist():
            have = self.side.get(labels[lab])
            rows = side.per_label[:, lab]
            self.side[labels[lab]] = rows.copy() if have is None else have + rows
        self._add_side_overall(side.overall)

    def _add_side_overall(self, overall: np.ndarray | None) -> None:
        if overall is not None:
            self.side_overall = (overall.copy() if self.side_overall is None
                                 else self.side_overall + overall)

    def merge(self, other: ViewTally, max_errors: int | None) -> ViewTally:
        out = ViewTally(self.n_thresholds)
        for src in (self, other):
            for label, rows in src.counts.items():
                out.add_counts(label, rows)
            for label, rows in src.side.items():
                have = out.side.get(label)
                out.side[label] = rows.copy() if have is None else have + rows
            out._add_side_overall(src.side_overall)
        out.confusion = [a + b for a, b in zip(self.confusion, other.confusion, strict=True)]
        out.boundary = [a + b for a, b in zip(self.boundary, other.boundary, strict=True)]
        out.errors = [(a + b)[:max_errors] if max_errors is not None else a + b
                      for a, b in zip(self.errors, other.errors, strict=True)]
        return out


@dataclass
class Tally:
    """Everything an evaluation has counted so far. Sum tallies to merge partial results."""

    settings: Settings
    views: dict[str, ViewTally]
    agnostic: np.ndarray  # (n_thr, N_FIELDS), every label collapsed to one
    notes: Counter = field(default_factory=Counter)
    n_documents: int = 0
    documents: DocumentCounts | None = None  # kept when settings.per_document

    @classmethod
    def empty(cls, settings: Settings) -> Tally:
        n = len(settings.thresholds)
        return cls(settings, {v: ViewTally(n) for v in settings.levels},
                   np.zeros((n, N_FIELDS), dtype=np.int64),
                   documents=DocumentCounts(n) if settings.per_document else None)

    def __add__(self, other: Tally) -> Tally:
        if not isinstance(other, Tally):
            return NotImplemented
        if other.settings != self.settings:
            raise ValueError("cannot merge tallies scored under different settings: "
                             f"{self.settings.difference(other.settings)}")
        return Tally(
            self.settings,
            {k: v.merge(other.views[k], self.settings.max_errors) for k, v in self.views.items()},
            self.agnostic + other.agnostic,
            self.notes + other.notes,
            self.n_documents + other.n_documents,
            self.documents.merge(other.documents) if self.documents is not None
            and other.documents is not None else None,
        )

    def __radd__(self, other: object) -> Tally:
        if other == 0:
            return self
        return NotImplemented

    def result(self) -> EvaluationResult:
        """Scores of everything tallied so far (raises on an empty evaluation)."""
        return EvaluationResult.from_tally(self)
