"""What every matching strategy returns, and the interface the engine calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ..columns import SpanColumns


@dataclass(frozen=True, slots=True)
class Match:
    """Verdicts for one batch: per gold row and per pred row, per threshold (axis 0)."""

    gold_tp: np.ndarray  # bool (n_thresholds, n_gold)
    pred_credited: np.ndarray  # bool (n_thresholds, n_pred)
    gold_score: np.ndarray  # float (n_gold): best same-label score found (IoU for two_sided)
    pred_score: np.ndarray  # float (n_pred): best pairwise same-label score found


@dataclass(frozen=True, slots=True)
class Cover:
    """How well one label's predictions cover one annotation (used for confusion cells)."""

    score: float
    selection: tuple[int, ...]  # indices into the candidate list
    passes: np.ndarray  # bool (n_thresholds,)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A strategy's verdicts on a batch, with the rows they refer to.

    ``gold``/``pred`` are the rows actually counted: the input, or what the strategy made of
    it (exact collapses duplicates, token expands spans to positions); ``notes`` says how many
    rows that changed, so nothing disappears silently.
    """

    gold: SpanColumns
    pred: SpanColumns
    match: Match
    notes: dict[str, int] = field(default_factory=dict)


class Strategy:
    """A matching strategy, chosen by name from :data:`spacy_span_eval.strategies.STRATEGIES`."""

    name: ClassVar[str]
    uses_thresholds: ClassVar[bool] = False

    def __init__(self, thresholds: tuple[float | None, ...]) -> None:
        self.thresholds = thresholds
        self.n = len(thresholds)

    def run(self, gold: SpanColumns, pred: SpanColumns, n_labels: int) -> Outcome:
        """Score a batch; rows of equal ``label`` and ``doc`` are compared with each other."""
        return Outcome(gold, pred, self.match(gold, pred, n_labels))

    def match(self, gold: SpanColumns, pred: SpanColumns, n_labels: int) -> Match:
        raise NotImplementedError

    def pair_cover(self, gs: np.ndarray, ge: np.ndarray, ps: np.ndarray, pe: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Vectorized :meth:`cover` for annotations with exactly one candidate each:
        ``(score, passes)`` with ``passes`` of shape ``(n_thresholds, n)``."""
        raise NotImplementedError

    def cover(self, g_start: int, g_end: int, cands: list[tuple[int, int]]) -> Cover:
        """Score one annotation against candidate spans of some (other) label."""
        raise NotImplementedError
