"""The commands as Python functions: read, score, render, write and (unless ``silent``) print.

Each function is a job (:mod:`.jobs`) followed by a renderer (:mod:`.render`); the CLI is a
thin layer over these. Results go to ``output`` or stdout, messages to stderr.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from wasabi import Printer

from .engine.bootstrap import BootstrapIntervals, PairedTest
from .engine.gates import Floors, GateVerdict
from .engine.labels import Hierarchy, LabelMap
from .errors import InvalidInputError
from .jobs.compare import Comparison, compare
from .jobs.demo import demo
from .jobs.evaluate import Report, evaluate, gate
from .jobs.inputs import InputOptions
from .jobs.report import build_report
from .jobs.system_run import SystemRun
from .render.comparison import COMPARE_FORMATS, render_comparison
from .render.html import render_page
from .render.report import check_output_format, render_report
from .render.text import verdict_lines

__all__ = ["HtmlReport", "compare_files", "evaluate_files", "gate_files", "msg",
           "report_files", "run_demo"]

msg = Printer()  # messages: icons, colour, wrapped
blocks = Printer(pretty=False)  # tables and JSON: printed exactly as rendered


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


def evaluate_files(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    strategy: str = "two_sided",
    thresholds: float | Iterable[float] = (0.5,),
    unit: str | None = None,
    beta: float = 1.0,
    label_map: Path | str | LabelMap | Mapping[str, str] | None = None,
    strict_labels: bool = False,
    hierarchy: Path | str | Hierarchy | None = None,
    errors: int = 0,
    input_format: str | None = None,
    scheme: str = "IOB2",
    repair: str = "conlleval",
    tag_column: int = -1,
    pred_tag_column: int | None = None,
    delimiter: str = "auto",
    source: str = "ents",
    n_process: int = 1,
    batch_size: int = 256,
    dask_scheduler: str | None = None,
    output_format: str = "text",
    output: Path | str | None = None,
    silent: bool = True,
    floors: Floors | Path | str | None = None,
) -> Report:
    """Score ``pred`` (or ``model`` run on ``gold``) against ``gold``; gate it when ``floors``.

    ``output`` writes the rendered report to a file instead of printing it. See
    :func:`spacy_span_eval.jobs.evaluate.evaluate` for the scoring options.
    """
    check_output_format(output_format)
    report = evaluate(
        gold, pred, model=model, strategy=strategy, thresholds=thresholds, unit=unit,
        beta=beta, label_map=label_map, strict_labels=strict_labels, hierarchy=hierarchy,
        errors=errors, input_format=input_format, scheme=scheme, repair=repair,
        tag_column=tag_column, pred_tag_column=pred_tag_column, delimiter=delimiter,
        source=source, n_process=n_process, batch_size=batch_size,
        dask_scheduler=dask_scheduler, progress=not silent, floors=floors)
    _emit(report, output_format=output_format, output=output, errors=errors, silent=silent)
    return report


def gate_files(gold: Path | str, pred: Path | str | None = None, *,
               floors: Floors | Path | str, strategy: str | None = None,
               output_format: str = "text", output: Path | str | None = None,
               silent: bool = True, errors: int = 0, **options) -> Report:
    """:func:`evaluate_files` with a gate; the strategy defaults to the floors' own."""
    check_output_format(output_format)
    report = gate(gold, pred, floors=floors, strategy=strategy, errors=errors,
                  progress=not silent, **options)
    _emit(report, output_format=output_format, output=output, errors=errors, silent=silent)
    return report


def run_demo(*, floors: Floors | Path | str | None = None, output_format: str = "text",
             errors: int = 0, silent: bool = True) -> Report:
    """Score the embedded demo corpus (two_sided at 0.5, 0.75, 1.0) and gate it."""
    check_output_format(output_format)
    report = demo(floors=floors, errors=errors)
    _emit(report, output_format=output_format, output=None, errors=errors, silent=silent)
    return report


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
    content = build_report(
        gold, pred, model=model, strategy=strategy, threshold=threshold, beta=beta,
        label_map=label_map, strict_labels=strict_labels, floors=floors, errors=errors,
        resamples=resamples, seed=seed, confidence=confidence, name=name, options=options,
        progress=not silent)
    html = render_page(content.runs, intervals=content.intervals, title=title)
    if output is not None:
        write_text(output, html, "HTML report")
    report = HtmlReport(content.runs, content.intervals, html)
    if not silent:
        _announce(report, output)
    return report


def compare_files(
    gold: Path | str,
    pred_a: Path | str,
    pred_b: Path | str,
    *,
    names: tuple[str, str] | None = None,
    strategy: str = "two_sided",
    threshold: float = 0.5,
    beta: float = 1.0,
    label_map: Path | str | LabelMap | Mapping[str, str] | None = None,
    strict_labels: bool = False,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    method: str = "bootstrap",
    errors: int | None = None,
    output_format: str = "text",
    output: Path | str | None = None,
    title: str | None = None,
    options: InputOptions | None = None,
    silent: bool = True,
) -> Comparison:
    """Score ``pred_a`` and ``pred_b`` against ``gold`` and test their F differences.

    ``errors``: error records kept per system for the HTML page (default 300 for ``html``,
    none otherwise). ``output`` writes the rendered comparison to a file.
    """
    check_output_format(output_format, COMPARE_FORMATS)
    keep = errors if errors is not None else (300 if output_format == "html" else 0)
    comparison = compare(
        gold, pred_a, pred_b, names=names, strategy=strategy, threshold=threshold, beta=beta,
        label_map=label_map, strict_labels=strict_labels, resamples=resamples, seed=seed,
        confidence=confidence, method=method, errors=keep, options=options,
        progress=not silent)
    rendered = render_comparison(comparison, output_format, title=title)
    if output is not None:
        write_text(output, rendered if rendered.endswith("\n") else rendered + "\n",
                   f"{output_format} comparison")
    if not silent:
        if output is not None:
            msg.good(f"Saved the {output_format} comparison to {output}")
        else:
            blocks.text(rendered)
    return comparison


def _emit(report: Report, *, output_format: str, output: Path | str | None, errors: int,
          silent: bool) -> None:
    rendered = render_report(report, output_format, errors=errors)
    if output is not None:
        write_text(output, rendered + "\n", "report")
    if silent:
        return
    if output is not None:
        msg.good(f"Saved the {output_format} report to {output}")
    else:
        blocks.text(rendered)
    if report.verdict is not None and output_format != "json":
        lines = verdict_lines(report.verdict)
        (msg.good if report.verdict.passed else msg.fail)(lines[0])
        for line in lines[1:]:
            msg.text(f"  {line}")


def _announce(report: HtmlReport, output: Path | str | None) -> None:
    """Where the page went, and each gate verdict."""
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

