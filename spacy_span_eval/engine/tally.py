"""Tallies: the additive state of an evaluation, mergeable across batches and processes.

Counts are kept per level, threshold and label as ledger rows (columns:
:class:`~.ledger.LedgerField`). Adding two tallies (``a + b``) gives
the tally of the concatenated corpus; error records keep a stratified sample of ``max_errors``
(:func:`.error_records.stratified`, the same whatever the order of the parts), while their
totals stay exact in the counters.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ..errors import EmptyEvaluationError
from .document_counts import DocumentCounts
from .error_records import document_order, stratified
from .ledger import N_FIELDS, Ledger, LedgerField, has_spans
from .records import ErrorRecord
from .result import EvaluationResult, SideScores, ThresholdScores
from .settings import Settings, plural
from .strategies import SideCounts, get_strategy
from .strings import StringScores
from .sweep import SweepTally, map_over_thresholds, sweep_figures

if TYPE_CHECKING:
    from .confusion import Cell

T = TypeVar("T")


@dataclass
class ViewTally:
    """One level's counts (per label), confusion cells and kept error records, per threshold;
    and the strategy's side table counts, if it keeps one (per label, and overall)."""

    n_thresholds: int
    counts: dict[str, np.ndarray] = field(default_factory=dict)  # label -> (n_thr, N_FIELDS)
    confusion: list[Counter[Cell]] = field(default_factory=list)
    errors: list[list[ErrorRecord]] = field(default_factory=list)
    # boundary errors per "no label" cell
    boundary: list[Counter[Cell]] = field(default_factory=list)
    # the text of every FN and FP span, counted (error_records.StringKey)
    strings: list[Counter[tuple[str, str, str, str]]] = field(default_factory=list)
    side: dict[str, np.ndarray] = field(default_factory=dict)  # label -> (n_thr, rows, counts)
    side_overall: np.ndarray | None = None  # (n_thr, rows, counts)
    # predictions given as strings: label -> strings.string_counts' row
    string_counts: dict[str, np.ndarray] = field(default_factory=dict)
    documents: DocumentCounts | None = None  # kept when settings.per_document
    #: With ``settings.span_lengths``: per label, rows ``(n_thr, n_buckets, N_FIELDS)``.
    lengths: dict[str, np.ndarray] | None = None

    def __post_init__(self) -> None:
        for name in ("confusion", "boundary", "strings"):
            if not getattr(self, name):
                setattr(self, name, [Counter() for _ in range(self.n_thresholds)])
        self.errors = self.errors or [[] for _ in range(self.n_thresholds)]

    def add_rows(self, labels: list[str], rows: np.ndarray) -> None:
        """Add ``(n_thresholds, len(labels), N_FIELDS)`` rows; labels without any span in them
        are skipped, so every counted label was seen."""
        for lab in np.flatnonzero(has_spans(rows[0])).tolist():
            add_to(self.counts, labels[lab], rows[:, lab, :])

    def add_side(self, labels: list[str], side: SideCounts) -> None:
        """Add a batch's side table counts; labels with no count in it are skipped."""
        present = side.per_label.sum(axis=(0, 2, 3)) > 0
        for lab in np.flatnonzero(present).tolist():
            add_to(self.side, labels[lab], side.per_label[:, lab])
        self.side_overall = _plus(self.side_overall, side.overall)

    def merge(self, other: ViewTally, max_errors: int | None) -> ViewTally:
        def joined(name: str) -> list[Any]:
            return [a + b for a, b in zip(getattr(self, name), getattr(other, name), strict=True)]

        return ViewTally(
            self.n_thresholds,
            _merged(self.counts, other.counts),
            joined("confusion"),
            [e if max_errors is None else stratified(e, max_errors) for e in joined("errors")],
            joined("boundary"),
            joined("strings"),
            _merged(self.side, other.side),
            _plus(self.side_overall, other.side_overall),
            _merged(self.string_counts, other.string_counts),
            _both(DocumentCounts.merge, self.documents, other.documents),
            _both(_merged, self.lengths, other.lengths),
        )

    def add_lengths(self, labels: list[str], rows: np.ndarray) -> None:
        """Add a batch's span-length rows (:meth:`.verdicts.Verdicts.length_rows`)."""
        assert self.lengths is not None
        for lab in np.flatnonzero(has_spans(rows[0]).any(axis=0)).tolist():
            add_to(self.lengths, labels[lab], rows[:, :, lab])


def add_to(table: dict[str, np.ndarray], label: str, rows: np.ndarray) -> None:
    """Add ``rows`` to ``table[label]`` (a copy of them where it has none yet)."""
    have = table.get(label)
    table[label] = rows.copy() if have is None else have + rows


def _plus(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    """``a + b``, where ``None`` counts nothing."""
    return b if a is None else a if b is None else a + b


@dataclass
class Tally:
    """Everything an evaluation has counted so far. Sum tallies to merge partial results."""

    settings: Settings
    views: dict[str, ViewTally]
    agnostic: np.ndarray  # (n_thr, N_FIELDS), every label collapsed to one
    notes: Counter[str] = field(default_factory=Counter)
    n_documents: int = 0
    #: With chosen labels (``settings.labels``): the spans of the other labels, per label,
    #: left out before scoring (what an empty evaluation names).
    left_out: Counter[str] = field(default_factory=Counter)
    sweep: SweepTally | None = None  # kept when settings.sweep

    @classmethod
    def empty(cls, settings: Settings) -> Tally:
        n, n_docs = len(settings.thresholds), len(settings.document_thresholds)
        return cls(
            settings,
            {
                v: ViewTally(
                    n,
                    documents=DocumentCounts(n, settings.document_thresholds)
                    if settings.per_document
                    else None,
                    lengths={} if settings.span_lengths else None,
                )
                for v in settings.levels
            },
            np.zeros((n, N_FIELDS), dtype=np.int64),
            sweep=SweepTally(len(settings.sweep_thresholds), doc_ids=[] if n_docs else None)
            if settings.sweep
            else None,
        )

    @property
    def documents(self) -> DocumentCounts | None:
        """The base labels' per-document counts (each level's: ``views[level].documents``)."""
        return self.views[self.settings.levels[0]].documents

    def __add__(self, other: Tally) -> Tally:
        if not isinstance(other, Tally):
            return NotImplemented
        if other.settings != self.settings:
            raise ValueError(
                "cannot merge tallies scored under different settings: "
                f"{self.settings.difference(other.settings)}"
            )
        return Tally(
            self.settings,
            {k: v.merge(other.views[k], self.settings.max_errors) for k, v in self.views.items()},
            self.agnostic + other.agnostic,
            self.notes + other.notes,
            self.n_documents + other.n_documents,
            self.left_out + other.left_out,
            _both(SweepTally.merge, self.sweep, other.sweep),
        )

    def __radd__(self, other: object) -> Tally:
        if other == 0:
            return self
        return NotImplemented

    def result(self) -> EvaluationResult:
        """Scores of everything tallied so far (raises on an empty evaluation)."""
        s = self.settings
        agnostic = [Ledger.from_row(row) for row in self.agnostic]
        levels = {
            level: tuple(
                ThresholdScores(
                    threshold=tau,
                    per_label={
                        label: Ledger.from_row(rows[t])
                        for label, rows in sorted(view.counts.items())
                    },
                    entity_agnostic=agnostic[t],
                    confusion=dict(view.confusion[t]),
                    errors=tuple(sorted(view.errors[t], key=document_order)),
                    beta=s.beta,
                    zero_division=s.zero_division,
                    side=_side(s, view, t),
                    boundary=dict(view.boundary[t]),
                    strings=dict(view.strings[t]),
                    grounding=StringScores(dict(view.string_counts))
                    if view.string_counts
                    else None,
                )
                for t, tau in enumerate(s.thresholds)
            )
            for level, view in self.views.items()
        }
        base = levels[s.levels[0]][0].micro
        if base.num_annotated == 0 and base.num_predicted == 0 and s.labels and self.left_out:
            found = ", ".join(f"{k} ({v:,})" for k, v in sorted(self.left_out.items()))
            raise EmptyEvaluationError(
                f"--labels {','.join(s.labels)}: found in neither gold nor predictions "
                f"({plural(self.n_documents, 'document')}); the labels found (spans): {found}"
            )
        if base.num_annotated == 0 and base.num_predicted == 0:
            raise EmptyEvaluationError(
                f"nothing to evaluate: {plural(self.n_documents, 'document')} with no gold and no "
                "predicted spans at all (an empty evaluation must not pass as perfect)"
            )
        sweep = over = None
        view = self.views[s.levels[0]]
        if self.sweep is not None:
            annotated = {k: int(v[0, LedgerField.NUM_ANNOTATED]) for k, v in view.counts.items()}
            sweep = sweep_figures(self.sweep, annotated, s.sweep_thresholds, beta=s.beta)
            over = map_over_thresholds(sweep) if s.map_thresholds else None
            sweep = sweep[: len(s.swept)]
        return EvaluationResult(
            s,
            levels,
            self.n_documents,
            dict(self.notes),
            view.documents,
            sweep,
            view.lengths,
            over,
            self.sweep if view.documents is not None else None,
            {k: (v.documents, v.lengths) for k, v in self.views.items() if v is not view},
        )


def _merged(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    out = dict(a)
    for label, rows in b.items():
        add_to(out, label, rows)
    return out


def _both(merge: Callable[[T, T], T], a: T | None, b: T | None) -> T | None:
    """``merge(a, b)``, or ``None`` when either part kept nothing."""
    return None if a is None or b is None else merge(a, b)


def _side(settings: Settings, view: ViewTally, t: int) -> SideScores | None:
    """Threshold ``t``'s side table of a level's tally, when the strategy keeps one."""
    strategy = get_strategy(settings.strategy)
    table = strategy.side_table
    if table is None:
        return None
    shape = (len(table.rows), len(table.counts))
    overall = view.side_overall[t] if view.side_overall is not None else np.zeros(shape, int)
    return SideScores(
        table,
        {label: rows[t] for label, rows in sorted(view.side.items())},
        overall,
        strategy.side_figures,
        settings.beta,
        settings.zero_division,
    )
