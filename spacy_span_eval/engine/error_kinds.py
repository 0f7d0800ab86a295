"""Whole-corpus error kinds per label, from the tallies (not from the kept records).

Each FN annotation of a label is one of (docs/semantics.md §4): ``missed`` (no prediction
of its label finds it, none of another label covers it), ``boundary`` (predictions of its
label overlap it but miss the threshold) or ``wrong_label`` (a prediction of another label
covers it). Each FP prediction is one of ``spurious``, ``boundary`` (it overlaps a boundary
annotation of its own label) or ``wrong_label`` (it is the cover of another label's
wrong-label annotation, which that annotation's cell represents). So per label
``fn = missed + boundary + wrong_label`` on the gold side and
``fp = spurious + boundary + wrong_label`` on the predicted side.

The figures come from the confusion cells and their boundary counts: ``wrong_label`` (gold)
is the row's off-diagonal cells, ``boundary`` (gold) the boundary count of its "no label"
cell; on the predicted side, the "no label" row's cell of the label holds its spurious and
boundary predictions (the boundary count tells them apart) and the rest of its FP relabel.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import astuple, dataclass
from typing import Any

from .confusion import NO_LABEL, Cell
from .ledger import Ledger

__all__ = ["FREQUENT_KINDS", "KindCounts", "error_kinds", "frequent_strings"]

#: The lists of most frequent error strings, per label, of the kinds table's missed
#: annotations, spurious predictions and wrong-label annotations (with the label they were
#: given); boundary errors are in none.
FREQUENT_KINDS = ("missed", "spurious", "relabelled")


@dataclass(frozen=True)
class KindCounts:
    """One label's (or the total's) errors by kind: gold side (FN) and predicted side (FP)."""

    missed: int = 0
    boundary_gold: int = 0
    wrong_label_gold: int = 0
    spurious: int = 0
    boundary_predicted: int = 0
    wrong_label_predicted: int = 0

    @property
    def fn(self) -> int:
        return self.missed + self.boundary_gold + self.wrong_label_gold

    @property
    def fp(self) -> int:
        return self.spurious + self.boundary_predicted + self.wrong_label_predicted

    def __add__(self, other: KindCounts) -> KindCounts:
        return KindCounts(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))

    def to_dict(self) -> dict[str, Any]:
        return {
            "fn": {
                "missed": self.missed,
                "boundary": self.boundary_gold,
                "wrong_label": self.wrong_label_gold,
                "total": self.fn,
            },
            "fp": {
                "spurious": self.spurious,
                "boundary": self.boundary_predicted,
                "wrong_label": self.wrong_label_predicted,
                "total": self.fp,
            },
        }


def error_kinds(
    per_label: Mapping[str, Ledger], confusion: Mapping[Cell, int], boundary: Mapping[Cell, int]
) -> dict[str, KindCounts]:
    """Each label's errors by kind (labels in ``per_label``'s order)."""
    wrong = Counter[str | None]()
    for (g, p), n in confusion.items():
        if p not in (NO_LABEL, g):  # (a gold row of NO_LABEL is never read)
            wrong[g] += n
    out = {}
    for label, ledger in per_label.items():
        b_gold = boundary.get((label, NO_LABEL), 0)
        b_pred = boundary.get((NO_LABEL, label), 0)
        unrepresented = confusion.get((NO_LABEL, label), 0)
        out[label] = KindCounts(
            missed=ledger.fn - b_gold - wrong[label],
            boundary_gold=b_gold,
            wrong_label_gold=wrong[label],
            spurious=unrepresented - b_pred,
            boundary_predicted=b_pred,
            wrong_label_predicted=ledger.fp - unrepresented,
        )
    return out


def frequent_strings(
    strings: Mapping[tuple[str, str, str, str], int], top: int = 10
) -> dict[str, dict[str, list[tuple[str, str, int]]]]:
    """Per label and kind (:data:`FREQUENT_KINDS`), the ``top`` most frequent error strings as
    ``(text, other label or "", count)``: most frequent first, ties by text."""
    out: dict[str, dict[str, list[tuple[str, str, int]]]] = {}
    ranked = sorted(strings.items(), key=lambda kn: (*kn[0][:2], -kn[1], *kn[0][2:]))
    for (label, kind, text, other), n in ranked:
        rows = out.setdefault(label, {k: [] for k in FREQUENT_KINDS})[kind]
        if len(rows) < top:
            rows.append((text, other, n))
    return out
