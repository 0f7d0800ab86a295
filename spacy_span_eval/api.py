"""The commands as Python functions: read, score, render, write and (unless ``silent``) print.

Each function is a job (:mod:`.jobs`) followed by a renderer (:mod:`.render`); the CLI is a
thin layer over these. Results go to ``output`` or stdout, messages to stderr (:class:`Messages`).
An ``output`` that is one of the inputs is refused before anything is read, and outputs are
written atomically (:func:`write_text`).

Each scoring command has two doors. ``evaluate_files``, ``gate_files``, ``report_files`` and
``compare_files`` take every setting as a keyword (the public API); they fill a
:class:`~.readers.ReadingOptions` and a :class:`~.jobs.options.ScoringOptions` and call
``run_evaluate``, ``run_gate``, ``run_report`` or ``run_compare``, which take the two
dataclasses by name (as the CLI does).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from wasabi import Printer
from wasabi.util import COLORS, ICONS, color, locale_escape

from .engine.gates import Floors, GateVerdict
from .engine.labels import Hierarchy, LabelMap
from .engine.result import ThresholdScores
from .errors import InvalidInputError
from .jobs.evaluate import Report, evaluate, gate
from .jobs.options import CONNECT_TIMEOUT, REPORT_SCORING, ScoringOptions, as_thresholds
from .jobs.outputs import check_output, same_file, write_atomic
from .readers import ReadingOptions
from .render.report import COMPARE_FORMATS, check_output_format, render_report
from .render.text import label_hints, verdict_lines

if TYPE_CHECKING:  # (the report, compare and demo jobs are imported when run: a command
    # imports what it uses, and scoring two files starts faster)
    from .engine.bootstrap import BootstrapIntervals, PairedTest
    from .jobs.compare import Comparison
    from .jobs.system_run import SystemRun

__all__ = ["HtmlReport", "Messages", "ReadingOptions", "ScoringOptions", "check_output",
           "compare_errors", "compare_files", "evaluate_files", "gate_files", "msg",
           "report_files", "run_compare", "run_demo", "run_evaluate", "run_gate", "run_report",
           "write_text"]


class Messages:
    """Messages for people, on stderr: one line each, with wasabi's icons, in colour only
    when stderr is a terminal and ``NO_COLOR`` is not set (https://no-color.org). Results
    (tables, JSON, Markdown) go to stdout (:data:`blocks`), so ``-f json > out.json`` holds
    the JSON and nothing else."""

    def _say(self, kind: str | None, title: object) -> None:
        stream = sys.stderr
        text = str(title)
        if kind is not None:
            text = f"{ICONS[kind]} {text}"
            if not os.environ.get("NO_COLOR") and getattr(stream, "isatty", bool)():
                text = color(text, fg=COLORS[kind])
        print(locale_escape(text), file=stream, flush=True)

    def good(self, title: object) -> None:
        self._say("good", title)

    def fail(self, title: object) -> None:
        self._say("fail", title)

    def warn(self, title: object) -> None:
        self._say("warn", title)

    def info(self, title: object) -> None:
        self._say("info", title)

    def text(self, title: object) -> None:
        self._say(None, title)


msg = Messages()  # messages: stderr, icons, colour on a terminal
blocks = Printer(pretty=False)  # tables and JSON: printed to stdout exactly as rendered


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


def hint(runs: Iterable[tuple[str, ThresholdScores]], chosen: Sequence[str] = ()) -> None:
    """Print the label hints (:func:`~.render.text.label_hints`) of each run to stderr."""
    sys.stdout.flush()  # after what was printed so far
    for name, run in runs:
        for line in label_hints(run, chosen):
            msg.warn(f"hint: {name}{line}")


def write_text(path: Path | str, text: str, what: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically: into a temporary file in the same
    directory, then renamed over it, so an interrupted run leaves the old file or none (semantics
    §7). A link is written through (the file it points to is replaced); an existing file keeps
    its mode."""
    write_atomic(path, text.encode("utf-8"), what)


def _inputs(gold: Path | str, scoring: ScoringOptions | None, floors: object = None,
            **preds: Path | str | None) -> dict[str, object]:
    """Every input file of a command, by what it is (for :func:`check_output`)."""
    scoring = scoring or ScoringOptions()
    return {"gold file": gold, **{name.replace("_", " "): p for name, p in preds.items()},
            "floors file": floors, "label map": scoring.label_map,
            "hierarchy file": scoring.hierarchy}


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
    labels: str | Iterable[str] = (),
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
    code: str | None = None,
    gpu_id: int = -1,
    dask_scheduler: str | None = None,
    output_format: str = "text",
    output: Path | str | None = None,
    silent: bool = True,
    floors: Floors | Path | str | None = None,
    wide: bool = False,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> Report:
    """Score ``pred`` (or ``model`` run on ``gold``) against ``gold``; gate it when ``floors``.

    ``output`` writes the rendered report to a file instead of printing it (never over an
    input). ``dask_scheduler`` scores on that Dask cluster, which must answer within
    ``connect_timeout`` seconds. The other keywords
    are the fields of :class:`ReadingOptions` and :class:`ScoringOptions`; see
    :func:`run_evaluate` for the same with the two dataclasses.
    """
    reading = ReadingOptions(
        input_format=input_format, unit=unit, scheme=scheme, repair=repair,
        tag_column=tag_column, pred_tag_column=pred_tag_column, delimiter=delimiter,
        source=source, n_process=n_process, batch_size=batch_size, code=code, gpu_id=gpu_id)
    scoring = ScoringOptions(
        strategy=strategy, thresholds=as_thresholds(thresholds), beta=beta, label_map=label_map,
        strict_labels=strict_labels, hierarchy=hierarchy, errors=errors,
        labels=labels)
    return run_evaluate(gold, pred, model=model, reading=reading, scoring=scoring,
                        floors=floors, dask_scheduler=dask_scheduler,
                        output_format=output_format, output=output, silent=silent, wide=wide,
                        connect_timeout=connect_timeout)


def gate_files(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    floors: Floors | Path | str,
    model: str | None = None,
    strategy: str | None = None,
    thresholds: float | Iterable[float] = (0.5,),
    unit: str | None = None,
    beta: float = 1.0,
    label_map: Path | str | LabelMap | Mapping[str, str] | None = None,
    strict_labels: bool = False,
    labels: str | Iterable[str] = (),
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
    code: str | None = None,
    gpu_id: int = -1,
    dask_scheduler: str | None = None,
    output_format: str = "text",
    output: Path | str | None = None,
    silent: bool = True,
    wide: bool = False,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> Report:
    """:func:`evaluate_files` with a gate; the strategy defaults to the floors' own."""
    reading = ReadingOptions(
        input_format=input_format, unit=unit, scheme=scheme, repair=repair,
        tag_column=tag_column, pred_tag_column=pred_tag_column, delimiter=delimiter,
        source=source, n_process=n_process, batch_size=batch_size, code=code, gpu_id=gpu_id)
    scoring = ScoringOptions(
        strategy=strategy, thresholds=as_thresholds(thresholds), beta=beta, label_map=label_map,
        strict_labels=strict_labels, hierarchy=hierarchy, errors=errors,
        labels=labels)
    return run_gate(gold, pred, floors=floors, model=model, reading=reading, scoring=scoring,
                    dask_scheduler=dask_scheduler, output_format=output_format, output=output,
                    silent=silent, wide=wide, connect_timeout=connect_timeout)


def run_evaluate(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    floors: Floors | Path | str | None = None,
    dask_scheduler: str | None = None,
    output_format: str = "text",
    output: Path | str | None = None,
    silent: bool = True,
    wide: bool = False,
    per_document: Path | str | None = None,
    quiet: bool = False,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> Report:
    """``evaluate`` (``gate`` with ``floors``) with its options as the two dataclasses: score,
    render the report in ``output_format``, write it to ``output`` or print it. ``wide``: text
    and Markdown show the full ledger of each threshold instead of the thresholds side by
    side. ``per_document``: also write each document's ledgers to this file (JSONL or CSV, by
    its suffix; see :mod:`.render.documents`). ``quiet``: no progress bar (``silent`` shows
    none either)."""
    from .render.documents import per_document_format, render_per_document

    check_output_format(output_format)
    per_document_fmt = per_document_format(per_document) if per_document is not None else None
    scoring = scoring or ScoringOptions()
    inputs = _inputs(gold, scoring, floors, predictions_file=pred)
    check_output(output, inputs)
    check_output(per_document, inputs, flag="--per-document")
    if per_document is not None and output is not None \
            and same_file(per_document, output):
        raise InvalidInputError(f"{per_document}: --per-document and --output name the same "
                                "file; give each its own")
    report = evaluate(gold, pred, model=model, reading=reading, scoring=scoring, floors=floors,
                      dask_scheduler=dask_scheduler, progress=not (silent or quiet),
                      per_document=per_document is not None, connect_timeout=connect_timeout)
    _emit(report, output_format=output_format, output=output, errors=scoring.errors,
          silent=silent, wide=wide, labels=scoring.labels)
    if per_document is not None and per_document_fmt is not None:
        write_text(per_document, render_per_document(report.result, per_document_fmt),
                   "per-document ledgers")
        if not silent:
            msg.good(f"Saved {report.result.n_documents} documents' ledgers to {per_document}")
    return report


def run_gate(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    floors: Floors | Path | str,
    model: str | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    dask_scheduler: str | None = None,
    output_format: str = "text",
    output: Path | str | None = None,
    silent: bool = True,
    wide: bool = False,
    quiet: bool = False,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> Report:
    """:func:`run_evaluate` with a gate; the strategy defaults to the floors' own."""
    check_output_format(output_format)
    scoring = scoring or ScoringOptions()
    check_output(output, _inputs(gold, scoring, floors, predictions_file=pred))
    report = gate(gold, pred, floors=floors, model=model, reading=reading, scoring=scoring,
                  dask_scheduler=dask_scheduler, progress=not (silent or quiet),
                  connect_timeout=connect_timeout)
    _emit(report, output_format=output_format, output=output, errors=scoring.errors,
          silent=silent, wide=wide, labels=scoring.labels)
    return report


def run_demo(*, floors: Floors | Path | str | None = None, output_format: str = "text",
             errors: int = 0, silent: bool = True, wide: bool = False) -> Report:
    """Score the embedded demo corpus (two_sided at 0.5, 0.75, 1.0) and gate it."""
    from .jobs.demo import demo

    check_output_format(output_format)
    report = demo(floors=floors, errors=errors)
    _emit(report, output_format=output_format, output=None, errors=errors, silent=silent,
          wide=wide)
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
    labels: str | Iterable[str] = (),
    floors: Floors | Path | str | None = None,
    errors: int = 300,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    title: str | None = None,
    name: str | None = None,
    options: ReadingOptions | None = None,
    silent: bool = True,
) -> HtmlReport:
    """Score ``pred`` (or ``model`` run on ``gold``) and build the HTML report; write it to
    ``output`` when given. The strategy defaults to the floors' own, else ``two_sided``.
    ``options``: how to read the files."""
    scoring = ScoringOptions(strategy=strategy, thresholds=(threshold,), beta=beta,
                             label_map=label_map, strict_labels=strict_labels, errors=errors,
                             labels=labels)
    return run_report(gold, pred, model=model, reading=options, scoring=scoring, floors=floors,
                      resamples=resamples, seed=seed, confidence=confidence, title=title,
                      name=name, output=output, silent=silent)


def run_report(
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
    title: str | None = None,
    name: str | None = None,
    output: Path | str | None = None,
    silent: bool = True,
    quiet: bool = False,
) -> HtmlReport:
    """:func:`report_files` with its options as the two dataclasses (``scoring.threshold``:
    the main threshold; ``quiet``: no progress bar)."""
    from .jobs.report import build_report
    from .render.html import render_page

    check_output(output, _inputs(gold, scoring, floors, predictions_file=pred))
    content = build_report(
        gold, pred, model=model, reading=reading, scoring=scoring, floors=floors,
        resamples=resamples, seed=seed, confidence=confidence, name=name,
        progress=not (silent or quiet))
    html = render_page(content.runs, intervals=content.intervals, title=title)
    if output is not None:
        write_text(output, html, "HTML report")
    report = HtmlReport(content.runs, content.intervals, html)
    if not silent:
        _announce(report, output)
        hint([("", run.main) for run in content.runs], scoring.labels)
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
    labels: str | Iterable[str] = (),
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    method: str = "bootstrap",
    errors: int | None = None,
    output_format: str = "text",
    output: Path | str | None = None,
    title: str | None = None,
    options: ReadingOptions | None = None,
    silent: bool = True,
) -> Comparison:
    """Score ``pred_a`` and ``pred_b`` against ``gold`` and test their F differences.

    ``errors``: error records kept per system for the HTML page (default 300 for ``html``,
    none otherwise). ``output`` writes the rendered comparison to a file. ``options``: how to
    read the files.
    """
    check_output_format(output_format, COMPARE_FORMATS)
    scoring = ScoringOptions(strategy=strategy, thresholds=(threshold,), beta=beta,
                             label_map=label_map, strict_labels=strict_labels,
                             errors=compare_errors(errors, output_format), labels=labels)
    return run_compare(gold, pred_a, pred_b, names=names, reading=options, scoring=scoring,
                       resamples=resamples, seed=seed, confidence=confidence, method=method,
                       output_format=output_format, output=output, title=title, silent=silent)


def compare_errors(errors: int | None, output_format: str) -> int:
    """Error records a comparison keeps per system: ``errors``, else 300 for the HTML page
    (its error browser) and none for the other formats."""
    return errors if errors is not None else (300 if output_format == "html" else 0)


def run_compare(
    gold: Path | str,
    pred_a: Path | str,
    pred_b: Path | str,
    *,
    names: tuple[str, str] | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    method: str = "bootstrap",
    output_format: str = "text",
    output: Path | str | None = None,
    title: str | None = None,
    silent: bool = True,
    quiet: bool = False,
) -> Comparison:
    """:func:`compare_files` with its options as the two dataclasses (``scoring.threshold``:
    the main threshold; ``scoring.errors``: records kept per system, default as
    :func:`compare_errors`; ``quiet``: no progress bar)."""
    from .jobs.compare import compare
    from .render.comparison import render_comparison

    check_output_format(output_format, COMPARE_FORMATS)
    if scoring is None:
        scoring = ScoringOptions(errors=compare_errors(None, output_format))
    check_output(output, _inputs(gold, scoring, predictions_of_A=pred_a,
                                 predictions_of_B=pred_b))
    comparison = compare(
        gold, pred_a, pred_b, names=names, reading=reading, scoring=scoring,
        resamples=resamples, seed=seed, confidence=confidence, method=method,
        progress=not (silent or quiet))
    rendered = render_comparison(comparison, output_format, title=title)
    if output is not None:
        write_text(output, rendered if rendered.endswith("\n") else rendered + "\n",
                   f"{output_format} comparison")
    if not silent:
        if output is not None:
            msg.good(f"Saved the {output_format} comparison to {output}")
        else:
            blocks.text(rendered)
        hint([(f"{run.name}: ", run.main) for run in comparison.runs], scoring.labels)
    return comparison


def _emit(report: Report, *, output_format: str, output: Path | str | None, errors: int,
          silent: bool, wide: bool = False, labels: Sequence[str] = ()) -> None:
    rendered = render_report(report, output_format, errors=errors, wide=wide)
    if output is not None:
        write_text(output, rendered + "\n", "report")
    if silent:
        return
    if output is not None:
        msg.good(f"Saved the {output_format} report to {output}")
    else:
        blocks.text(rendered)
    hint([("", report.result.scores())], labels)
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

