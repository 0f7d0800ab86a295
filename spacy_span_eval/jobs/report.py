"""The ``report`` job: read, score on the threshold grid, bootstrap the intervals and gate
when floors are given. The page itself is rendered by :mod:`spacy_span_eval.render.html`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ..engine.bootstrap import BootstrapIntervals, PairedTest, bootstrap_intervals
from ..engine.gates import Floors, GateVerdict, check_gate
from ..engine.labels import LabelMap
from ..readers.settings_files import as_floors, as_label_map
from .inputs import InputOptions, open_documents
from .system_run import SystemRun, run_system

__all__ = ["ReportContent", "build_report", "intervals_of", "score_system"]


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
                 strategy: str, threshold: float | None, beta: float,
                 label_map: LabelMap | None, errors: int, floors: Floors | None,
                 options: InputOptions, progress: bool) -> SystemRun:
    """Read and score one system for a report; gate it when ``floors``."""
    docs, info, unit = open_documents(gold, pred, model=model, options=options,
                                      progress=progress)
    run = run_system(docs, name=name, strategy=strategy, threshold=threshold, unit=unit,
                     beta=beta, label_map=label_map, errors=errors,
                     extra_thresholds=(floors.threshold,) if floors else ())
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
    strategy: str | None = None,
    threshold: float = 0.5,
    beta: float = 1.0,
    label_map: Path | str | LabelMap | Mapping[str, str] | None = None,
    strict_labels: bool = False,
    floors: Floors | Path | str | None = None,
    errors: int = 300,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    name: str | None = None,
    options: InputOptions | None = None,
    progress: bool = False,
) -> ReportContent:
    """Score ``pred`` (or ``model`` run on ``gold``) with intervals and the gate, for a page.
    The strategy defaults to the floors' own, else ``two_sided``."""
    gate = as_floors(floors)
    chosen = strategy or (gate.strategy if gate else None) or "two_sided"
    shown = name or (Path(pred).stem if pred is not None else str(model))
    run = score_system(gold, pred, model=model, name=shown, strategy=chosen,
                       threshold=threshold, beta=beta,
                       label_map=as_label_map(label_map, strict=strict_labels), errors=errors,
                       floors=gate, options=options or InputOptions(), progress=progress)
    intervals = intervals_of(run, resamples=resamples, seed=seed, confidence=confidence)
    return ReportContent([run], [intervals])
