"""The ``report`` job: read, score on the threshold grid, bootstrap the intervals and gate
when floors are given. The page itself is rendered by :mod:`spacy_span_eval.render.html`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..engine.bootstrap import BootstrapIntervals, bootstrap_intervals
from ..engine.gates import Floors
from ..engine.resampling import check_resampling
from ..readers.options import ReadingOptions
from ..readers.settings_files import as_floors
from ..readers.source import open_pair
from .evaluate import HtmlReport, gate_verdict, slice_fields, slice_tables
from .options import REPORT_SCORING, RunOptions, ScoringOptions
from .scoring import score
from .system_run import SystemRun, report_evaluator

__all__ = [
    "REPORT_SCORING",
    "build_report",
    "intervals_of",
    "score_system",
]


def score_system(
    gold: Path | str,
    pred: Path | str | None,
    *,
    model: str | None,
    name: str,
    reading: ReadingOptions | None,
    scoring: ScoringOptions,
    run: RunOptions | None = None,
    floors: Floors | None = None,
    progress: bool = False,
    slice_by: Sequence[str] = (),
    intervals: Mapping[str, Any] | None = None,
) -> SystemRun:
    """Read and score one system for a report at ``scoring``'s main threshold (its other
    thresholds and the floors' join the curve's grid); gate it when ``floors`` (in every
    slice too, for a floor with ``every``); ``slice_by``: each slice's table at the main
    threshold (``system.slices``), with its bootstrap ``intervals`` when asked."""
    if scoring.hierarchy is not None:
        raise ValueError(
            "the report and the comparison do not show hierarchy levels; score them with evaluate"
        )
    loaded = scoring.load(floors)
    run = run or RunOptions()
    every = [f.every for f in floors.floors if f.every] if floors else []
    _, edges = slice_fields(gold, reading, [*slice_by, *every])
    source = open_pair(
        gold, pred, model=model, reading=reading, progress=progress, **run.pipeline()
    )
    evaluator, main = report_evaluator(
        loaded.strategy_for(),
        loaded.threshold,
        source.unit,
        extra_thresholds=(*loaded.thresholds[1:], *((floors.threshold,) if floors else ())),
        errors=loaded.errors,
        beta=loaded.beta,
        label_map=loaded.loaded_label_map(),
        labels=loaded.labels,
        strategy_options=loaded.strategy_options,
        sweep=loaded.sweep,
        **({"span_lengths": edges} if edges else {}),
    )
    part = score(source, evaluator, run=run, views=True)
    system = SystemRun(name, part.tally.result(), main, source.inputs(), part.documents)
    for key, runs in slice_tables(system.result, gold, reading, slice_by, intervals).items():
        system.slices[key] = next((r for r in runs if r["threshold"] == main), runs[0])
    if floors is not None:
        # Floors without a threshold of their own apply at the report's main threshold.
        at = floors if floors.threshold is not None else replace(floors, threshold=system.threshold)
        system.verdict = gate_verdict(system.result, at, gold, reading)
    return system


def intervals_of(
    run: SystemRun, *, resamples: int, seed: int, confidence: float
) -> BootstrapIntervals | None:
    if resamples == 0:  # (checked by the job: check_resampling)
        return None
    return bootstrap_intervals(
        run.result, threshold=run.threshold, resamples=resamples, seed=seed, confidence=confidence
    )


def build_report(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions = REPORT_SCORING,
    run: RunOptions | None = None,
    floors: Floors | Path | str | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    name: str | None = None,
    progress: bool = False,
    slice_by: Sequence[str] = (),
) -> HtmlReport:
    """Score ``pred`` (or ``model`` run on ``gold``) with intervals and the gate, for a page
    (``slice_by``: with its slice view; the caller renders the page). The strategy defaults to
    the floors' own, else ``two_sided``."""
    check_resampling(resamples=resamples, seed=seed, confidence=confidence, min_resamples=0)
    gate = as_floors(floors)
    shown = name or (Path(pred).stem if pred is not None else str(model))
    system = score_system(
        gold,
        pred,
        model=model,
        name=shown,
        reading=reading,
        scoring=scoring,
        run=run,
        floors=gate,
        progress=progress,
        slice_by=slice_by,
        intervals=dict(resamples=resamples, seed=seed, confidence=confidence),
    )
    intervals = intervals_of(system, resamples=resamples, seed=seed, confidence=confidence)
    return HtmlReport([system], [intervals])
