"""Scores derived from a tally: per label, micro, macro, weighted, confusion, error records.

``to_dict()`` is JSON-safe: counts are ints, ratios floats or ``None`` (never NaN). Figures
are derived here, never stored, so merging tallies can not drift: the ledger's ratios, and a
strategy's side table's by the strategy's own ``side_figures``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import attrs

from .confusion import Cell
from .document_counts import DocumentCounts
from .error_kinds import KindCounts, error_kinds, frequent_strings
from .ledger import RATIOS, Ledger
from .records import ErrorRecord
from .settings import Settings
from .strings import StringScores
from .sweep import SweepTally
from .tidy import (
    DOCUMENT_COLUMNS,
    RESULT_COLUMNS,
    SWEEP_COLUMNS,
    document_rows,
    frame,
    html_table,
    run_rows,
    sweep_rows,
)

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from .strategies import SideTable

SCHEMA = "spacy-span-eval/result"
SCHEMA_VERSION = 1


def _average(values: list[tuple[float | None, float]]) -> float | None:
    """Weighted mean of the defined values; ``None`` when none is defined."""
    defined = [(v, w) for v, w in values if v is not None and w > 0]
    return sum(v * w for v, w in defined) / sum(w for _, w in defined) if defined else None


def _cell_order(item: tuple[Cell, int]) -> tuple[bool, str, bool, str]:
    """Confusion cells by gold then predicted label, the "no label" row and column last."""
    (gold, pred), _ = item
    return (gold is None, gold or "", pred is None, pred or "")


@dataclass(frozen=True)
class SideScores:
    """One threshold's side table: ``per_label[label]`` and ``overall`` are int arrays
    ``(len(table.rows), len(table.counts))``. The overall row is kept apart from the labels,
    so a label may be called ``overall`` (semantics §4)."""

    table: SideTable
    per_label: Mapping[str, np.ndarray]
    overall: np.ndarray
    figures: Callable[..., dict[str, int | float | None]]
    beta: float = 1.0
    zero_division: float | None = None

    def row(self, row: str, label: str | None = None) -> dict[str, int | float | None]:
        """Counts and figures of one row (``"strict"``), overall or of one label."""
        counts = self.overall if label is None else self.per_label[label]
        i = self.table.rows.index(row)
        named = {name: int(counts[i, j]) for j, name in enumerate(self.table.counts)}
        return {**named, **self.figures(row, named, self.beta, self.zero_division)}

    def rows(self, label: str | None = None) -> dict[str, dict[str, int | float | None]]:
        """Every row, in the table's order: ``{"strict": {...}, "exact": {...}, ...}``."""
        return {row: self.row(row, label) for row in self.table.rows}

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: ``{"title", "overall": {row: {...}}, "per_label": {label: {row: ...}}}``."""
        return {
            "title": self.table.title,
            "overall": self.rows(),
            "per_label": {label: self.rows(label) for label in sorted(self.per_label)},
        }


@attrs.frozen
class ThresholdScores:
    """Everything scored at one threshold (``None`` for strategies without one), one level."""

    threshold: float | None
    per_label: Mapping[str, Ledger]
    entity_agnostic: Ledger
    # (gold, predicted) -> count; ``None`` (NO_LABEL) is the "no label" row and column.
    confusion: Mapping[Cell, int]
    errors: tuple[ErrorRecord, ...]
    beta: float = 1.0
    zero_division: float | None = None
    side: SideScores | None = None  # the strategy's side table (semeval: the four schemas)
    # How many spans of each "no label" cell of ``confusion`` are boundary errors
    # (semantics §4).
    boundary: Mapping[Cell, int] = attrs.field(factory=dict)
    # The text of every FN and FP span, counted: (label, kind, text, other label) -> count
    # (engine.error_records.count_error_strings).
    strings: Mapping[tuple[str, str, str, str], int] = attrs.field(factory=dict)
    # Predictions given as strings (semantics §11): ungrounded rates and the string-set score.
    grounding: StringScores | None = None
    micro: Ledger = attrs.field(init=False)

    @micro.default
    def _pooled(self) -> Ledger:
        return sum(self.per_label.values(), Ledger())

    def _averaged(self, weight: Callable[[Ledger], float]) -> dict[str, Any]:
        b, z = self.beta, self.zero_division
        rows = [(ledger.to_dict(b, z), weight(ledger)) for ledger in self.per_label.values()]
        return {
            **{name: _average([(r[name], w) for r, w in rows]) for name in RATIOS},
            "labels": sum(1 for _, w in rows if w > 0),
        }

    @property
    def macro(self) -> dict[str, Any]:
        """Unweighted mean over labels present in gold or predictions (undefined ratios skipped,
        unless ``zero_division`` gives them a value)."""
        return self._averaged(lambda ledger: 1.0)

    @property
    def weighted(self) -> dict[str, Any]:
        """Mean over labels weighted by gold support (labels without gold spans weigh 0)."""
        return self._averaged(lambda ledger: float(ledger.num_annotated))

    @property
    def detailed(self) -> bool:
        """Whether confusion cells (and so error kinds) were counted at this threshold."""
        m = self.micro
        return bool(self.confusion) or (m.num_annotated == 0 and m.num_predicted == 0)

    def error_kinds(self) -> dict[str, KindCounts] | None:
        """Per label, every error of the corpus by kind (:mod:`.error_kinds`); ``None``
        at a threshold scored without confusion cells."""
        if not self.detailed:
            return None
        return error_kinds(self.per_label, self.confusion, self.boundary)

    def frequent_errors(self, top: int = 10) -> dict[str, dict[str, list[tuple[str, str, int]]]]:
        """Per label, the ``top`` most frequent missed, spurious and relabelled strings of
        the whole corpus, each ``(text, label given or "", count)``."""
        return frequent_strings(self.strings, top)

    def to_dict(self) -> dict[str, Any]:
        b, z = self.beta, self.zero_division
        kinds = self.error_kinds()
        detail: dict[str, Any] = (
            {}
            if kinds is None
            else {
                "error_kinds": {
                    "per_label": {k: v.to_dict() for k, v in sorted(kinds.items())},
                    "micro": sum(kinds.values(), KindCounts()).to_dict(),
                },
                "frequent_errors": {
                    label: {
                        kind: [{"text": t, "given": o or None, "count": n} for t, o, n in rows]
                        for kind, rows in by_kind.items()
                    }
                    for label, by_kind in self.frequent_errors().items()
                },
            }
        )
        side = {self.side.table.key: self.side.to_dict()} if self.side is not None else {}
        return {
            "threshold": self.threshold,
            "per_label": {k: v.to_dict(b, z) for k, v in sorted(self.per_label.items())},
            "micro": self.micro.to_dict(b, z),
            "macro": self.macro,
            "weighted": self.weighted,
            "entity_agnostic": self.entity_agnostic.to_dict(b, z),
            "confusion": [
                {"gold": g, "predicted": p, "count": n, "boundary": self.boundary.get((g, p), 0)}
                for (g, p), n in sorted(self.confusion.items(), key=_cell_order)
            ],
            "errors": [e.to_dict() for e in self.errors],
            "errors_total": self.micro.fn + self.micro.fp,
            **detail,
            **side,
            **(self.grounding.to_dict(b, z) if self.grounding is not None else {}),
        }


@dataclass(frozen=True)
class EvaluationResult:
    """The scores of one evaluation, per hierarchy level and threshold."""

    settings: Settings
    levels: Mapping[str, tuple[ThresholdScores, ...]]
    n_documents: int
    notes: Mapping[str, int]
    # Per-document ledger rows of the base labels (``per_document=True`` only).
    documents: DocumentCounts | None = None
    #: With ``sweep=True``: per IoU threshold, the operating points (:mod:`.sweep`).
    sweep: list[dict[str, Any]] | None = None
    #: With ``span_lengths``: per label, rows ``(n_thresholds, n_buckets, N_FIELDS)``.
    lengths: Mapping[str, np.ndarray] | None = None
    #: With ``map_thresholds=True``: span mAP over IoU 0.5:0.05:0.95 (:mod:`.sweep`).
    map_thresholds: dict[str, Any] | None = None
    #: With ``sweep`` and ``per_document``: the sweep's events per document (a paired test's).
    sweep_events: SweepTally | None = None
    #: Each coarser level's ``documents`` and ``lengths`` (its slices', semantics §10).
    level_counts: Mapping[str, tuple[DocumentCounts | None, Mapping[str, np.ndarray] | None]] = (
        field(default_factory=dict)
    )

    def at_level(self, level: str) -> EvaluationResult:
        """This result with ``level``'s per-document counts and span-length rows in place of
        the base labels' (what that level's slices read)."""
        documents, lengths = self.level_counts.get(level, (self.documents, self.lengths))
        return replace(self, documents=documents, lengths=lengths)

    def scores(
        self, threshold: float | None = None, *, level: str | None = None
    ) -> ThresholdScores:
        """Scores at one threshold (default: the first) and level (default: the labels)."""
        runs = self.levels[level or self.settings.levels[0]]
        if threshold is None:
            return runs[0]
        for run in runs:
            if run.threshold == threshold:
                return run
        raise KeyError(
            f"threshold {threshold!r} was not scored; scored: {[r.threshold for r in runs]}"
        )

    @property
    def per_label(self) -> Mapping[str, Ledger]:
        return self.scores().per_label

    @property
    def micro(self) -> Ledger:
        return self.scores().micro

    def rows(self) -> list[dict[str, Any]]:
        """Tidy rows: per level, threshold and label (then ``micro`` and
        ``entity_agnostic``), the ledger, precision, recall and F (``None`` when undefined);
        see :data:`~.tidy.RESULT_COLUMNS`."""
        return [
            row
            for level, runs in self.levels.items()
            for run in runs
            for row in run_rows(level, run)
        ]

    def document_rows(self, *, per_label: bool = True) -> list[dict[str, Any]]:
        """Per-document tidy rows (needs ``per_document=True``): each document's ledger per
        threshold, with ``errors`` (FN + FP) to sort by, and (``per_label``) per label; see
        :data:`~.tidy.DOCUMENT_COLUMNS`."""
        return list(self.iter_document_rows(per_label=per_label))

    def iter_document_rows(self, *, per_label: bool = True) -> Iterator[dict[str, Any]]:
        """:meth:`document_rows` made as they are drawn (a million documents are never held
        at once), refused at once without per-document counts."""
        if self.documents is None:
            raise ValueError(
                "no per-document counts: score with SpanEvaluator(per_document=True), "
                "evaluate_files(per_document=True) or evaluate --per-document"
            )
        return document_rows(
            self.documents,
            self.settings.thresholds,
            beta=self.settings.beta,
            zero_division=self.settings.zero_division,
            per_label=per_label,
        )

    def to_frame(self, *, per_document: bool = False, sweep: bool = False) -> pd.DataFrame:
        """A pandas ``DataFrame`` in tidy long form: :meth:`rows` (``level``, ``threshold``,
        ``row``, ``label``, the ledger fields, ``precision``, ``recall``, ``f``), with
        ``per_document`` :meth:`document_rows`, or with ``sweep`` one row per point of the
        sweep (:data:`~.tidy.SWEEP_COLUMNS`: IoU ``threshold``, label, ``score``, ledger,
        ratios). Needs pandas (the ``pandas`` extra: ``pip install -e ".[pandas]"`` in the
        clone); undefined ratios are NaN there."""
        if sweep:
            if self.sweep is None or per_document:
                raise ValueError(
                    "to_frame(sweep=True) needs a result scored with SpanEvaluator(sweep=True) "
                    "(or evaluate --sweep), and no per_document"
                )
            return frame(sweep_rows(self), SWEEP_COLUMNS)
        if per_document:
            return frame(self.document_rows(), DOCUMENT_COLUMNS)
        return frame(self.rows(), RESULT_COLUMNS)

    def _repr_html_(self) -> str:
        """The notebook view: a compact per-label table per threshold."""
        return html_table(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "version": SCHEMA_VERSION,
            "settings": self.settings.to_dict(),
            "documents": self.n_documents,
            "notes": dict(sorted(self.notes.items())),
            "levels": {name: [r.to_dict() for r in runs] for name, runs in self.levels.items()},
            **({"sweep": self.sweep} if self.sweep is not None else {}),
            **({"map_thresholds": self.map_thresholds} if self.map_thresholds else {}),
        }
