"""One system's evaluation for a report: the threshold curve, the main scores with error
records, per-document counts for the intervals, and the documents the error browser shows.

The curve comes from the same engine pass as the main scores (the threshold grid is scored
at once; overlaps are computed once). Documents are scored in chunks into one running tally,
so that only the documents holding a kept error record are remembered (their text, tokens and
spans; at most one per record, so at most the error cap); the rest of the corpus streams past.
What grows with the corpus is the intervals' input alone: one compact row of counts per
document and label, at the main threshold only (:mod:`~spacy_span_eval.engine.document_counts`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..engine.batching import document_batches
from ..engine.evaluator import SpanEvaluator
from ..engine.gates import GateVerdict
from ..engine.labels import LabelMap
from ..engine.ledger import Ledger
from ..engine.records import ErrorRecord
from ..engine.result import EvaluationResult, ThresholdScores
from ..engine.settings import BASE_LEVEL, DEFAULT_STRATEGY
from ..engine.spans import Document
from ..engine.strategies import get_strategy
from .chunks import DocumentView, score_batches

__all__ = [
    "CURVE_THRESHOLDS",
    "DocumentView",
    "Relabel",
    "SystemRun",
    "boundary_iou",
    "report_evaluator",
    "run_system",
]

# 0.05, 0.10, ..., 1.0: the IoU grid of the threshold curve.
CURVE_THRESHOLDS: tuple[float, ...] = tuple(round(k / 20, 2) for k in range(1, 21))
#: Documents per batch of :func:`run_system`.
CHUNK = 2048


@dataclass(frozen=True)
class Relabel:
    """The predictions of another label that cover a wrong-label annotation, as
    ``(start, end, label)``, and the IoU of the annotation with their union."""

    score: float
    spans: tuple[tuple[int, int, str], ...]


def boundary_iou(start: int, end: int, spans: Iterable[tuple[int, int]]) -> float:
    """IoU of ``[start, end)`` with the union of ``spans`` (each ``(start, end)``)."""
    merged: list[list[int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    inter = sum(max(0, min(end, e) - max(start, s)) for s, e in merged)
    union = (end - start) + sum(e - s for s, e in merged) - inter
    return inter / union if union else 0.0


@dataclass
class SystemRun:
    """A scored system: the result (curve grid plus main threshold), where it was read from,
    and the documents its kept error records point to."""

    name: str
    result: EvaluationResult
    threshold: float | None
    inputs: dict[str, Any] = field(default_factory=dict)
    documents: Mapping[str, DocumentView] = field(default_factory=dict)
    verdict: GateVerdict | None = None
    #: Per ``--slice-by`` name, its per-slice table at the main threshold
    #: (:func:`~spacy_span_eval.engine.slices.slice_ledgers`).
    slices: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def main(self) -> ThresholdScores:
        return self.result.scores(self.threshold)

    @property
    def errors(self) -> tuple[ErrorRecord, ...]:
        return self.main.errors

    def relabels(self) -> dict[int, Relabel]:
        """For each kept gold ``wrong_label`` record (by its index in :attr:`errors`), the
        predictions of the other label that cover it — the ones the strategy selects, else
        every one that overlaps it — and their boundary IoU."""
        s = self.result.settings
        strategy = get_strategy(s.strategy)(s.thresholds, **dict(s.strategy_options))
        out: dict[int, Relabel] = {}
        for i, r in enumerate(self.errors):
            view = self.documents.get(r.document)
            if (
                r.kind != "wrong_label"
                or r.side != "gold"
                or r.predicted_label is None
                or view is None
            ):
                continue
            cands = [
                (p.start, p.end)
                for p in view.pred
                if p.label == r.predicted_label and p.start < r.end and r.start < p.end
            ]
            if not cands:
                continue
            try:
                chosen = [cands[k] for k in strategy.cover(r.start, r.end, cands).selection]
            except NotImplementedError:
                chosen = []
            chosen = chosen or cands
            out[i] = Relabel(
                boundary_iou(r.start, r.end, chosen),
                tuple((a, b, r.predicted_label) for a, b in sorted(chosen)),
            )
        return out

    @property
    def has_curve(self) -> bool:
        return len(self.result.settings.thresholds) > 1

    def curve(self) -> dict[str, Any]:
        """``{"micro": FIGURES, "per_label": {label: FIGURES}}`` with ``FIGURES`` =
        ``{"precision"|"recall"|"f": [value per threshold]}`` (the aggregate apart from the
        labels, so a label called ``micro`` has its own curve)."""
        runs = self.result.levels[BASE_LEVEL]
        names = sorted({label for run in runs for label in run.per_label})

        def figures(ledgers: list[Ledger | None]) -> dict[str, list[float | None]]:
            values = [
                (None, None, None)
                if ledger is None
                else (ledger.precision(z), ledger.recall(z), ledger.f(run.beta, z))
                for run, ledger in zip(runs, ledgers, strict=True)
                for z in [run.zero_division]
            ]
            return {k: [v[i] for v in values] for i, k in enumerate(("precision", "recall", "f"))}

        return {
            "micro": figures([run.micro for run in runs]),
            "per_label": {
                name: figures([run.per_label.get(name) for run in runs]) for name in names
            },
        }

    @property
    def thresholds(self) -> list[float | None]:
        return list(self.result.settings.thresholds)


def report_thresholds(
    strategy: str, threshold: float | None, extra: Iterable[float | None] = ()
) -> tuple[float, ...]:
    """The curve grid plus the main (and gate) thresholds, sorted; none for strategies
    without a threshold."""
    if not get_strategy(strategy).uses_thresholds:
        return (0.5,)  # ignored by the strategy
    wanted = {*CURVE_THRESHOLDS, *(t for t in (threshold, *extra) if t is not None)}
    return tuple(sorted(float(t) for t in wanted))


def report_evaluator(
    strategy: str,
    threshold: float | None,
    unit: str,
    *,
    extra_thresholds: Iterable[float | None] = (),
    errors: int = 300,
    sweep: bool = False,
    **settings: Any,
) -> tuple[SpanEvaluator, float | None]:
    """An evaluator for a report, and its main threshold (``None`` for a strategy without
    thresholds): the curve grid plus the main (and ``extra``) thresholds, with per-document
    rows (the intervals' input), confusion cells and ``errors`` error records at the main
    threshold alone — the curve needs the other thresholds' totals only; ``sweep``: the
    predictions' scores swept there too. ``settings`` go to
    :class:`~spacy_span_eval.engine.evaluator.SpanEvaluator` (beta, label map, labels)."""
    uses = get_strategy(strategy).uses_thresholds
    main = float(threshold) if uses and threshold is not None else None
    if uses and main is None:
        raise ValueError(f"the {strategy} strategy needs an IoU threshold")
    return SpanEvaluator(
        strategy=strategy,
        unit=unit,
        thresholds=report_thresholds(strategy, main, extra_thresholds),
        max_errors=errors,
        per_document=(main,),
        details=(main,),
        sweep=(main,) if sweep else False,
        **settings,
    ), main


def run_system(
    docs: Iterable[Document],
    *,
    name: str,
    strategy: str = DEFAULT_STRATEGY,
    threshold: float | None = 0.5,
    unit: str = "char",
    beta: float = 1.0,
    label_map: LabelMap | None = None,
    errors: int = 300,
    extra_thresholds: Iterable[float | None] = (),
    inputs: dict[str, Any] | None = None,
    sweep: bool = False,
) -> SystemRun:
    """Score a stream of documents for a report; keep ``errors`` error records (stream
    order) and the documents they point to. (Commands read files through
    :func:`~spacy_span_eval.readers.open_pair` and :func:`.scoring.score` instead.)"""
    evaluator, main = report_evaluator(
        strategy,
        threshold,
        unit,
        extra_thresholds=extra_thresholds,
        errors=errors,
        beta=beta,
        label_map=label_map,
        sweep=sweep,
    )
    part = score_batches(evaluator, document_batches(docs, unit, CHUNK), views=True)
    return SystemRun(name, part.tally.result(), main, dict(inputs or {}), part.documents)
