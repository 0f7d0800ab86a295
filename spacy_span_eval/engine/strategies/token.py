"""Token-level scoring (semantics §2.4): per-position labels, P/R/F over non-``O`` positions.

Each span is expanded to one unit-length item per position it covers (per token in token
unit, per character in char unit); a position covered by several spans of one label counts
once, and overlapping spans of different labels give that position several labels. The items
are then scored exactly, so every ledger invariant holds in positions. For diagnosis, not for
gating.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..columns import SpanColumns, ramp
from .base import Outcome
from .exact import Exact


def expand_positions(cols: SpanColumns) -> SpanColumns:
    lengths = cols.end - cols.start
    rows = np.repeat(np.arange(len(cols)), lengths)
    pos = cols.start[rows] + ramp(lengths)
    return SpanColumns(cols.doc[rows], pos, pos + 1, cols.label[rows], pos)


class TokenLevel(Exact):
    sweep_local = False  # a token takes the label of the span covering it
    name: ClassVar[str] = "token"
    infix: ClassVar[str] = "token"
    per_position: ClassVar[bool] = True

    def run(self, gold: SpanColumns, pred: SpanColumns, n_labels: int) -> Outcome:
        out = super().run(expand_positions(gold), expand_positions(pred), n_labels)
        return Outcome(
            out.gold,
            out.pred,
            out.match,
            {
                "gold_positions_shared": out.notes.get("gold_duplicates_collapsed", 0),
                "pred_positions_shared": out.notes.get("pred_duplicates_collapsed", 0),
            },
        )
