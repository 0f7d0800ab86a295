"""Label projection: the labels each level of an evaluation scores.

A batch's raw labels go through the label map, then through each hierarchy level's projection;
each level then sees the batch's spans (and unaligned predictions) relabelled to ids into its
own sorted label list. Label ids are in alphabetical order, which the confusion cells rely on
to break ties. A label that can not be mapped is an error naming the first span that uses it,
so a bad label in a million-line file points at a line, not at a label list.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UnknownLabelError
from .batching import SpanBatch
from .columns import INT, SpanColumns
from .labels import Hierarchy, LabelMap
from .settings import BASE_LEVEL


@dataclass(frozen=True)
class LevelView:
    """One level's view of a batch: its labels (sorted) and the batch's spans with label ids
    into them; ``unaligned`` / ``unaligned_gold`` hold the label id of each of
    ``batch.unaligned`` / ``batch.unaligned_gold``."""

    level: str
    labels: list[str]
    gold: SpanColumns
    pred: SpanColumns
    unaligned: np.ndarray
    unaligned_gold: np.ndarray


class LabelProjection:
    """Maps a batch's labels to each level's labels: label map first, then the hierarchy."""

    def __init__(self, label_map: LabelMap | None, hierarchy: Hierarchy | None) -> None:
        self.label_map = label_map
        self.hierarchy = hierarchy

    def mapped(self, batch: SpanBatch) -> list[str]:
        """``batch.labels`` through the label map (the base level's label names)."""
        if self.label_map is None:
            return list(batch.labels)
        return self._each(self.label_map, batch.labels, batch)

    def view(self, level: str, mapped: list[str], batch: SpanBatch) -> LevelView:
        """The batch as ``level`` sees it; ``mapped`` is :meth:`mapped` of the batch."""
        names = mapped if level == BASE_LEVEL else self._each(
            lambda label: self._project(level, label), mapped, batch)
        unaligned = [self._unaligned_label(level, d_i, batch, span, "prediction")
                     for d_i, span, _ in batch.unaligned]
        unaligned_gold = [self._unaligned_label(level, d_i, batch, span, "gold span")
                          for d_i, span, _ in batch.unaligned_gold]
        labels = sorted(set(names) | set(unaligned) | set(unaligned_gold))
        ids = {name: i for i, name in enumerate(labels)}
        proj = np.array([ids[n] for n in names], dtype=INT)
        gold, pred = (c.relabel(proj[c.label]) if len(c) else c for c in (batch.gold, batch.pred))
        return LevelView(level, labels, gold, pred,
                         np.array([ids[n] for n in unaligned], dtype=INT),
                         np.array([ids[n] for n in unaligned_gold], dtype=INT))

    def _project(self, level: str, label: str) -> str:
        assert self.hierarchy is not None
        return self.hierarchy.project(level, label)

    def _each(self, fn, labels, batch: SpanBatch) -> list[str]:
        out = []
        for i, label in enumerate(labels):
            try:
                out.append(fn(label))
            except UnknownLabelError as exc:
                raise UnknownLabelError(f"{first_use(batch, i)}: {exc}") from None
        return out

    def _unaligned_label(self, level: str, d_i: int, batch: SpanBatch, span, what: str
                         ) -> str:
        try:
            raw = self.label_map(span.label) if self.label_map is not None else span.label
            return raw if level == BASE_LEVEL else self._project(level, raw)
        except UnknownLabelError as exc:
            raise UnknownLabelError(f"document {batch.doc_ids[d_i]!r}, unaligned "
                                    f"{what} {span}: {exc}") from None


def first_use(batch: SpanBatch, label_id: int) -> str:
    """Where label ``label_id`` of a batch is first used: document and span."""
    for side, cols in (("gold", batch.gold), ("predicted", batch.pred)):
        hits = np.flatnonzero(cols.label == label_id)
        if hits.size:
            i = int(hits[0])
            return f"document {batch.doc_ids[int(cols.doc[i])]!r}, {side} span #{int(cols.item[i])}"
    return "unaligned prediction"
