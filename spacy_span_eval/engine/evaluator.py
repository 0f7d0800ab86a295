"""The evaluator: streams documents in columnar batches through a strategy into a tally.

The engine knows nothing about spaCy; anything that yields :class:`~.spans.Document` values
(or :class:`~.batching.SpanBatch` columns) can be scored. Per batch and level, the evaluator
only wires its collaborators together: :mod:`.projection` (which labels each level scores),
the strategy, :mod:`.verdicts` (ledger rows; unaligned predictions), :mod:`.confusion` and
:mod:`.error_records`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from .batching import SpanBatch, document_batches
from .columns import check_columns
from .confusion import add_confusion
from .error_records import count_error_strings, keep_errors
from .labels import LabelMap
from .projection import LabelProjection
from .settings import BASE_LEVEL, Settings
from .spans import Document
from .strategies import Strategy, get_strategy
from .strings import string_counts
from .sweep import add_batch
from .tally import Tally, ViewTally, add_to
from .verdicts import Verdicts

if TYPE_CHECKING:
    from .result import EvaluationResult


class SpanEvaluator:
    """Scores documents under one set of settings.

    >>> ev = SpanEvaluator(strategy="two_sided", thresholds=(0.5, 0.75))
    >>> result = ev.evaluate(documents)          # or: tally = ev.tally(part1) + ev.tally(part2)
    >>> result.to_dict()["levels"]["labels"][0]["per_label"]
    """

    def __init__(
        self, settings: Settings | None = None, *, batch_size: int = 2048, **keywords: Any
    ) -> None:
        """``settings``, or the keywords of :class:`~.settings.Settings` that make them:
        ``strategy``, ``thresholds``, ``unit``, ``label_map`` and ``strict_labels``,
        ``labels`` (score only these, named after the label map), the strategy's options
        (``coverage=``, ``min_gold=``; ``None``: its default), ... ``batch_size``: documents
        per columnar batch."""
        if settings is not None and keywords:
            raise TypeError("give SpanEvaluator settings or their keywords, not both")
        self.settings = settings if settings is not None else Settings(**keywords)
        s = self.settings
        self.strategy: Strategy = get_strategy(s.strategy)(s.thresholds, **dict(s.strategy_options))
        # The sweep's own strategy when its thresholds differ (a report's main one; mAP's).
        self.sweeper = (
            self.strategy
            if s.sweep_thresholds == s.thresholds
            else get_strategy(s.strategy)(s.sweep_thresholds, **dict(s.strategy_options))
        )
        self.projection = LabelProjection(s.label_map, s.hierarchy, s.labels)
        self.batch_size = batch_size

    @property
    def label_map(self) -> LabelMap | None:
        return self.settings.label_map

    @property
    def labels(self) -> tuple[str, ...]:
        """The (mapped) labels scored, sorted; ``()``: every label."""
        return self.settings.labels

    # -- public API ------------------------------------------------------------------------
    def evaluate(self, docs: Iterable[Document]) -> EvaluationResult:
        """Score documents and return an :class:`~.result.EvaluationResult`."""
        return self.tally(docs).result()

    def tally(self, docs: Iterable[Document], *, into: Tally | None = None) -> Tally:
        """Score documents into a mergeable :class:`~.tally.Tally` (streaming, batched).
        Each item must be a :class:`~.spans.Document` in the evaluator's unit.

        ``into``: add them to this tally in place and return it; a running total over a
        stream read in parts then costs what each part adds (``total + tally(part)`` copies
        the per-document rows, and builds error records the total has no room for)."""
        return self.tally_batches(
            document_batches(docs, self.settings.unit, self.batch_size), into=into
        )

    def tally_batches(
        self,
        batches: Iterable[SpanBatch],
        *,
        into: Tally | None = None,
    ) -> Tally:
        """Score columnar batches in order (readers that build columns directly); the same
        tally as :meth:`tally` on the documents they hold. ``into`` as for :meth:`tally`."""
        if into is not None and into.settings != self.settings:
            raise ValueError(
                "cannot score into a tally of different settings: "
                f"{self.settings.difference(into.settings)}"
            )
        total = Tally.empty(self.settings) if into is None else into
        for batch in batches:
            self._tally_batch_into(total, batch)
        return total

    def tally_batch(self, batch: SpanBatch) -> Tally:
        """Score one columnar batch (the fast path for pre-extracted spans)."""
        return self.tally_batches([batch])

    # -- batch scoring -----------------------------------------------------------------------
    def _tally_batch_into(self, total: Tally, batch: SpanBatch) -> None:
        # The labels not chosen leave the batch before anything reads it (ledgers at every
        # level, the any-entity ledger, confusion cells, records, per-document rows, notes);
        # their spans are still checked.
        kept = self.projection.select(batch)
        if kept is not batch:
            total.left_out.update(_left_out(batch, kept))
        mapped = self.projection.mapped(kept)
        for side, cols in (("gold", batch.gold), ("predicted", batch.pred)):
            check_columns(cols, batch.lengths, batch.doc_ids, side, list(batch.labels))
        batch = kept
        total.n_documents += len(batch)
        for level in self.settings.levels:
            view = self.projection.view(level, mapped, batch)
            verdicts = Verdicts.of(self.strategy, view, batch)
            total.notes.update(verdicts.notes)
            if level == BASE_LEVEL and total.sweep is not None:
                add_batch(total.sweep, self.sweeper, view, batch)
            self._add_level(total.views[level], verdicts, batch)
            if batch.string_docs:
                for label, row in string_counts(verdicts, view, batch).items():
                    add_to(total.views[level].string_counts, label, row)
        agnostic = Verdicts.agnostic(self.strategy, batch)
        total.notes.update(agnostic.notes)
        total.agnostic += agnostic.ledger_rows()[:, 0, :]

    def _add_level(self, view: ViewTally, verdicts: Verdicts, batch: SpanBatch) -> None:
        """One level's counts per label (per document and span length too, when kept),
        confusion cells and error records of a batch."""
        view.add_rows(verdicts.labels, verdicts.ledger_rows())
        if view.documents is not None:
            view.documents.append_verdicts(list(batch.doc_ids), verdicts)
        if view.lengths is not None:
            view.add_lengths(verdicts.labels, verdicts.length_rows(self.settings.span_lengths))
        if verdicts.side is not None:
            view.add_side(verdicts.labels, verdicts.side)
        detailed = self.settings.detail_thresholds
        if not detailed:
            return
        misses = add_confusion(view.confusion, self.strategy, verdicts, view.boundary, detailed)
        keep_errors(view.errors, verdicts, misses, batch, self.settings, detailed)
        if self.settings.error_strings:
            count_error_strings(view.strings, verdicts, misses, batch, self.settings, detailed)


def _left_out(batch: SpanBatch, kept: SpanBatch) -> dict[str, int]:
    """Spans per label (gold and predicted) of ``batch`` that label selection left out of
    ``kept``."""
    n = len(batch.labels)
    counts = np.bincount(batch.gold.label, minlength=n) + np.bincount(batch.pred.label, minlength=n)
    chosen = set(kept.labels)
    return {
        name: int(c)
        for name, c in zip(batch.labels, counts.tolist(), strict=True)
        if c and name not in chosen
    }
