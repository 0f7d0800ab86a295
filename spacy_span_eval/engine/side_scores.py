"""A strategy's side table in a result: its counts per label and overall, and their figures.

The counts come from the tally (additive, like the ledger); the figures are derived here by
the strategy's own ``side_figures``, never stored, so merging can not drift. The overall row
is kept apart from the labels, so a label may be called ``overall`` (semantics §4).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .strategies import SideTable


@dataclass(frozen=True)
class SideScores:
    """One threshold's side table: ``per_label[label]`` and ``overall`` are int arrays
    ``(len(table.rows), len(table.counts))``."""

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
