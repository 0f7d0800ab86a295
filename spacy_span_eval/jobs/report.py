"""The ``report`` job: read, score on the threshold grid, bootstrap the intervals and gate
when floors are given. The page itself is rendered by :mod:`spacy_span_eval.render.html`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..engine.bootstrap import (
    BootstrapIntervals,
    PairedTest,
    bootstrap_intervals,
    check_resampling,
)
from ..engine.gates import Floors, GateVerdict, check_gate
from ..readers import ReadingOptions
from ..readers.settings_files import as_floors
from .inputs import read_column_inputs, read_documents
from .options import REPORT_SCORING, ScoringOptions
from .system_run import SystemRun, run_system, run_system_columns

__all__ = ["REPORT_SCORING", "ReportContent", "build_report", "intervals_of", "score_system"]


@dataclass
class ReportContent:
    """The systems a report shows, their intervals and (two systems) their comparison."""

    runs: list[SystemRun]
    intervals: list[BootstrapIntervals | None]
    comparison: PairedTest | None = None

    @property
    def verdict(self) -> GateVerdict | None:
        return self.runs[0].verdict


def score_system(gold: Path | str, pred: Path | str | None, *, model: str | None, name: str,
                 reading: ReadingOptions, scoring: ScoringOptions, floors: Floors | None,
                 progress: bool) -> SystemRun:
    """Read and score one system for a report at ``scoring``'s main threshold (its other
    thresholds and the floors' join the curve's grid); gate it when ``floors``."""
    if scoring.hierarchy is not None:
        raise ValueError("the report and the comparison do not show hierarchy levels; "
                         "score them with evaluate")
    loaded = scoring.load(floors)
    settings = {"name": name, "strategy": loaded.strategy_for(), "threshold": loaded.threshold,
                "beta": loaded.beta, "label_map": loaded.loaded_label_map(),
                "errors": loaded.errors,
                "extra_thresholds": (*loaded.thresholds[1:],
                                     *((floors.threshold,) if floors else ()))}
    # As evaluate does: a CoNLL or JSON pair read straight into columns where it can be.
    columns = None if model is not None else read_column_inputs(
        gold, pred, reading=reading, labels=loaded.labels, progress=progress)
    if columns is not None:
        span_batches, info, unit, _ = columns
        run = run_system_columns(span_batches, unit=unit, **settings)
    else:
        docs, info, unit = read_documents(gold, pred, model=model, reading=reading,
                                          progress=progress)
        run = run_system(loaded.select_labels(docs), unit=unit, **settings)
    run.inputs = {side: i.to_dict() for side, i in info.items()}
    if floors is not None:
        # Floors without a threshold of their own apply at the report's main threshold.
        at = floors if floors.threshold is not None else replace(floors,
                                                                  threshold=run.threshold)
        run.verdict = check_gate(run.result, at)
    return run


def intervals_of(run: SystemRun, *, resamples: int, seed: int, confidence: float
                 ) -> BootstrapIntervals | None:
    if resamples == 0:
        return None
    if resamples < 0:
        raise ValueError(f"resamples must be >= 0 (0: no intervals), not {resamples}")
    return bootstrap_intervals(run.result, threshold=run.threshold, resamples=resamples,
                               seed=seed, confidence=confidence)


def build_report(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions = REPORT_SCORING,
    floors: Floors | Path | str | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    name: str | None = None,
    progress: bool = False,
) -> ReportContent:
    """Score ``pred`` (or ``model`` run on ``gold``) with intervals and the gate, for a page.
    The strategy defaults to the floors' own, else ``two_sided``."""
    check_resampling(resamples=resamples, seed=seed, confidence=confidence, min_resamples=0)
    gate = as_floors(floors)
    shown = name or (Path(pred).stem if pred is not None else str(model))
    run = score_system(gold, pred, model=model, name=shown, reading=reading or ReadingOptions(),
                       scoring=scoring, floors=gate, progress=progress)
    intervals = intervals_of(run, resamples=resamples, seed=seed, confidence=confidence)
    return ReportContent([run], [intervals])
