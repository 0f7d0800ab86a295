"""Label projection: the labels each level of an evaluation scores.

A batch's raw labels go through the label map, then through each hierarchy level's projection;
each level then sees the batch's spans (and unaligned predictions) relabelled to ids into its
own sorted label list. With a keep-set of labels, :meth:`LabelProjection.select` first drops
the spans of every other label from the batch, so nothing that reads it counts them. Label ids
are in alphabetical order, which the confusion cells rely on
to break ties. A label that can not be mapped is an error naming the first span that uses it,
so a bad label in a million-line file points at a line, not at a label list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..errors import UnknownLabelError
from .batching import SpanBatch
from .columns import INT, SpanColumns
from .labels import Hierarchy, LabelMap
from .settings import BASE_LEVEL
from .spans import Span


@dataclass(frozen=True)
class LevelView:
    """One level's view of a batch: its labels (sorted) and the batch's spans with label ids
    into them; ``unaligned`` / ``unaligned_gold`` hold the label id of each of
    ``batch.unaligned`` / ``batch.unaligned_gold``. ``level`` ``None``: the any-entity view."""

    level: str | None
    labels: list[str]
    gold: SpanColumns
    pred: SpanColumns
    unaligned: np.ndarray
    unaligned_gold: np.ndarray
    strings: np.ndarray  # the label id of each of ``batch.strings``


class LabelProjection:
    """Maps a batch's labels to each level's labels: label map first, then the hierarchy;
    ``labels`` (mapped names) is the keep-set :meth:`select` applies (empty: every label)."""

    def __init__(
        self, label_map: LabelMap | None, hierarchy: Hierarchy | None, labels: Iterable[str] = ()
    ) -> None:
        self.label_map = label_map
        self.hierarchy = hierarchy
        self.labels = frozenset(labels)

    def keeps(self, label: str) -> bool:
        """Whether spans of raw ``label`` are scored: its mapped name is in the keep-set (or
        no labels are chosen). A label the strict map does not know is kept, so that scoring
        reports it."""
        if not self.labels:
            return True
        if self.label_map is None:
            return label in self.labels
        try:
            return self.label_map(label) in self.labels
        except UnknownLabelError:
            return True

    def select(self, batch: SpanBatch) -> SpanBatch:
        """The batch with only the spans of kept labels (:meth:`keeps`): gold, predicted,
        unaligned predictions and unaligned gold alike; the batch itself when every span is
        kept. Documents stay (with fewer spans or none), ``labels`` names the kept labels
        alone, and each row keeps its ``item`` (its place in the document's own list)."""
        if not self.labels:
            return batch
        keep = np.fromiter(map(self.keeps, batch.labels), dtype=bool, count=len(batch.labels))
        unaligned, unaligned_gold, strings = (
            self._kept(spans) for spans in (batch.unaligned, batch.unaligned_gold, batch.strings)
        )
        if keep.all() and unaligned is None and unaligned_gold is None and strings is None:
            return batch
        remap = np.cumsum(keep, dtype=INT) - 1
        labels = [name for name, kept in zip(batch.labels, keep.tolist(), strict=True) if kept]
        gold, pred = (self._rows(cols, keep, remap) for cols in (batch.gold, batch.pred))
        return replace(
            batch,
            gold=gold,
            pred=pred,
            labels=labels,
            unaligned=batch.unaligned if unaligned is None else unaligned,
            unaligned_gold=batch.unaligned_gold if unaligned_gold is None else unaligned_gold,
            strings=batch.strings if strings is None else strings,
        )

    @staticmethod
    def _rows(cols: SpanColumns, keep: np.ndarray, remap: np.ndarray) -> SpanColumns:
        rows = np.flatnonzero(keep[cols.label])
        return cols.take(rows).relabel(remap[cols.label[rows]])

    def _kept(self, spans: Sequence[tuple[int, Span, str]]) -> list[tuple[int, Span, str]] | None:
        """The unaligned spans of kept labels; ``None`` when that is all of them."""
        kept = {label: self.keeps(label) for label in {span.label for _, span, _ in spans}}
        if all(kept.values()):
            return None
        return [entry for entry in spans if kept[entry[1].label]]

    def mapped(self, batch: SpanBatch) -> list[str]:
        """``batch.labels`` through the label map (the base level's label names)."""
        if self.label_map is None:
            return list(batch.labels)
        return self._each(self.label_map, batch.labels, batch)

    def view(self, level: str, mapped: list[str], batch: SpanBatch) -> LevelView:
        """The batch as ``level`` sees it; ``mapped`` is :meth:`mapped` of the batch."""
        names = (
            mapped
            if level == BASE_LEVEL
            else self._each(lambda label: self._project(level, label), mapped, batch)
        )
        # the label of each unaligned prediction, unaligned gold span and string
        loose = [
            [self._unaligned_label(level, d_i, batch, span, what) for d_i, span, _ in spans]
            for spans, what in (
                (batch.unaligned, "prediction"),
                (batch.unaligned_gold, "gold span"),
                (batch.strings, "string"),
            )
        ]
        labels = sorted(set(names).union(*loose))
        ids = {name: i for i, name in enumerate(labels)}
        proj = np.array([ids[n] for n in names], dtype=INT)
        gold, pred = (c.relabel(proj[c.label]) if len(c) else c for c in (batch.gold, batch.pred))
        u, ug, strings = (np.array([ids[n] for n in each], dtype=INT) for each in loose)
        return LevelView(level, labels, gold, pred, u, ug, strings)

    def _project(self, level: str, label: str) -> str:
        assert self.hierarchy is not None
        return self.hierarchy.project(level, label)

    def _each(self, fn: Callable[[str], str], labels: Iterable[str], batch: SpanBatch) -> list[str]:
        out: list[str] = []
        for i, label in enumerate(labels):
            try:
                out.append(fn(label))
            except UnknownLabelError as exc:
                raise UnknownLabelError(f"{first_use(batch, i)}: {exc}") from None
        return out

    def _unaligned_label(
        self, level: str, d_i: int, batch: SpanBatch, span: Span, what: str
    ) -> str:
        try:
            raw = self.label_map(span.label) if self.label_map is not None else span.label
            return raw if level == BASE_LEVEL else self._project(level, raw)
        except UnknownLabelError as exc:
            raise UnknownLabelError(
                f"document {batch.doc_ids[d_i]!r}, unaligned {what} {span}: {exc}"
            ) from None


def first_use(batch: SpanBatch, label_id: int) -> str:
    """Where label ``label_id`` of a batch is first used: document and span."""
    for side, cols in (("gold", batch.gold), ("predicted", batch.pred)):
        hits = np.flatnonzero(cols.label == label_id)
        if hits.size:
            i = int(hits[0])
            return f"document {batch.doc_ids[int(cols.doc[i])]!r}, {side} span #{int(cols.item[i])}"
    return "unaligned prediction"
