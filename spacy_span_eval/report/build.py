"""The ``report`` job as a plain function: read, score on the threshold grid, bootstrap the
intervals, gate when floors are given, and write the HTML page."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ..bootstrap import BootstrapIntervals, PairedTest, bootstrap_intervals
from ..commands import msg
from ..errors import InvalidInputError
from ..gates import Floors, GateVerdict, as_floors, check_gate
from ..labels import LabelMap
from ..labels_io import as_label_map
from ..render import verdict_lines
from .collect import SystemRun, run_system
from .html import render_page
from .inputs import InputOptions, open_documents

__all__ = ["HtmlReport", "announce", "report_files", "score_system"]


@dataclass
class HtmlReport:
    """The systems shown, their intervals, the comparison (two systems) and the page."""

    runs: list[SystemRun]
    intervals: list[BootstrapIntervals | None]
    html: str
    comparison: PairedTest | None = None

    @property
    def verdict(self) -> GateVerdict | None:
        return self.runs[0].verdict


def write_text(path: Path | str, text: str, what: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InvalidInputError(f"{path}: cannot write the {what} ({exc})") from None


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


def report_files(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    output: Path | str | None = None,
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
    title: str | None = None,
    name: str | None = None,
    options: InputOptions | None = None,
    silent: bool = True,
) -> HtmlReport:
    """Score ``pred`` (or ``model`` run on ``gold``) and build the HTML report; write it to
    ``output`` when given. The strategy defaults to the floors' own, else ``two_sided``."""
    gate = as_floors(floors)
    chosen = strategy or (gate.strategy if gate else None) or "two_sided"
    shown = name or (Path(pred).stem if pred is not None else str(model))
    run = score_system(gold, pred, model=model, name=shown, strategy=chosen,
                       threshold=threshold, beta=beta,
                       label_map=as_label_map(label_map, strict=strict_labels), errors=errors,
                       floors=gate, options=options or InputOptions(),
                       progress=not silent)
    intervals = intervals_of(run, resamples=resamples, seed=seed, confidence=confidence)
    html = render_page([run], intervals=[intervals], title=title)
    if output is not None:
        write_text(output, html, "HTML report")
    report = HtmlReport([run], [intervals], html)
    if not silent:
        announce(report, output)
    return report


def announce(report: HtmlReport, output: Path | str | None) -> None:
    """Where the page went, and each gate verdict (through the CLI's one printer)."""
    if output is not None:
        msg.good(f"Saved the HTML report to {output}")
    for run in report.runs:
        if run.verdict is None:
            continue
        lines = verdict_lines(run.verdict)
        prefix = f"{run.name}: " if len(report.runs) > 1 else ""
        (msg.good if run.verdict.passed else msg.fail)(prefix + lines[0])
        for line in lines[1:]:
            msg.text(f"  {line}")
