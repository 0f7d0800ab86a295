"""The commands as Python functions: read, score, render, write and (unless ``silent``) print.

Each function is a job (:mod:`.jobs`) followed by a renderer (:mod:`.render`); the CLI is a
thin layer over these. Results go to ``output`` or stdout, messages to stderr (:class:`Messages`).
An ``output`` that is one of the inputs is refused before anything is read, and outputs are
written atomically (:func:`write_text`).

Each scoring command is one function (``evaluate_files``, ``gate_files``, ``report_files``,
``compare_files``) that takes its settings as three option sets — how to read
(:class:`~.readers.ReadingOptions`), how to score (:class:`~.jobs.options.ScoringOptions`),
how to run (:class:`~.jobs.options.RunOptions`) — or any of their fields as a flat keyword
(:class:`OptionKeywords`, which a test holds equal to the fields), as the command line's
flags are. So every command-line option is reachable from here, and a type checker refuses a
misspelt one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partialmethod
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, Unpack

import attrs
from wasabi.printer import Printer
from wasabi.util import COLORS, ICONS, color, locale_escape

from .errors import InvalidInputError
from .jobs.evaluate import Report, evaluate, gate
from .jobs.options import (
    REPORT_SCORING,
    CompareKeywords,
    OptionKeywords,
    RunOptions,
    ScoringOptions,
)
from .jobs.outputs import check_output, is_stdout, same_file, write_atomic
from .readers import ReadingOptions
from .render.report import COMPARE_FORMATS, check_output_format, render_outputs
from .render.text import hint_console, input_hints, verdict_console

if TYPE_CHECKING:  # (the report, compare and demo jobs are imported when run: a command
    # imports what it uses, and scoring two files starts faster)
    from .engine.bootstrap import BootstrapIntervals, PairedTest
    from .engine.gates import Floors, GateVerdict  # (loaded when floors are given)
    from .jobs.compare import Comparison
    from .jobs.system_run import SystemRun

OptionSet = TypeVar("OptionSet", bound=attrs.AttrsInstance)

__all__ = [
    "HtmlReport",
    "Messages",
    "OptionKeywords",
    "ReadingOptions",
    "RunOptions",
    "ScoringOptions",
    "check_output",
    "compare_errors",
    "compare_files",
    "evaluate_files",
    "gate_files",
    "msg",
    "report_files",
    "run_compare",
    "run_demo",
    "run_evaluate",
    "run_gate",
    "run_report",
    "write_text",
]


class Messages:
    """Messages for people, on stderr: one line each, with wasabi's icons, in colour only
    when stderr is a terminal and ``NO_COLOR`` is not set (https://no-color.org). Results
    (tables, JSON, Markdown) go to stdout (:data:`blocks`), so ``-f json > out.json`` holds
    the JSON and nothing else."""

    def _say(self, kind: str | None, title: object) -> None:  # (stderr looked up when said)
        stream = sys.stderr
        text = str(title)
        if kind is not None:
            text = f"{ICONS[kind]} {text}"
            if not os.environ.get("NO_COLOR") and getattr(stream, "isatty", bool)():
                text = color(text, fg=COLORS[kind])
        print(locale_escape(text), file=stream, flush=True)

    good = partialmethod(_say, "good")
    fail = partialmethod(_say, "fail")
    warn = partialmethod(_say, "warn")
    info = partialmethod(_say, "info")
    text = partialmethod(_say, None)


msg = Messages()  # messages: stderr, icons, colour on a terminal
blocks = Printer(pretty=False)  # tables and JSON: printed to stdout exactly as rendered


@dataclass
class HtmlReport:
    """The systems shown, their intervals, the comparison (two systems) and the page."""

    runs: list[SystemRun] = field(repr=False)
    intervals: list[BootstrapIntervals | None] = field(repr=False)
    html: str = field(repr=False)
    comparison: PairedTest | None = field(default=None, repr=False)

    @property
    def verdict(self) -> GateVerdict | None:
        return self.runs[0].verdict

    def _repr_html_(self) -> str:
        """The notebook view: each system's scores at the main threshold (the page itself is
        in :attr:`html`)."""
        return "".join(run.result._repr_html_() for run in self.runs)


def write_text(path: Path | str, text: str, what: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically: into a temporary file in the same
    directory, then renamed over it, so an interrupted run leaves the old file or none (semantics
    §7). A link is written through (the file it points to is replaced); an existing file keeps
    its mode."""
    write_atomic(path, text.encode("utf-8"), what)


def _inputs(
    gold: Path | str,
    scoring: ScoringOptions | None,
    floors: object = None,
    **preds: Path | str | None,
) -> dict[str, object]:
    """Every input file of a command, by what it is (for :func:`check_output`)."""
    scoring = scoring or ScoringOptions()
    return {
        "gold file": gold,
        **{name.replace("_", " "): p for name, p in preds.items()},
        "floors file": floors,
        "label map": scoring.label_map,
        "hierarchy file": scoring.hierarchy,
    }


#: Which option set each keyword fills.
_OPTION_SETS: tuple[type, ...] = (ReadingOptions, ScoringOptions, RunOptions)


def _option_sets(
    reading: ReadingOptions | None,
    scoring: ScoringOptions | None,
    run: RunOptions | None,
    keywords: Mapping[str, Any],
) -> tuple[ReadingOptions | None, ScoringOptions, RunOptions | None]:
    """The option sets with the flat ``keywords`` put in (a keyword given beside its set
    replaces that field of it; a set not given starts from its defaults)."""
    fields = {f.name for cls in _OPTION_SETS for f in attrs.fields(cls)}
    unknown = sorted(set(keywords) - fields)
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(unknown)}")
    return (
        _with(ReadingOptions, reading, keywords),
        _with(ScoringOptions, scoring, keywords) or ScoringOptions(),
        _with(RunOptions, run, keywords),
    )


def _with(
    cls: type[OptionSet], given: OptionSet | None, keywords: Mapping[str, Any]
) -> OptionSet | None:
    """``given`` (else the defaults of ``cls``) with the ``keywords`` that are its fields."""
    changes = {k: v for k, v in keywords.items() if k in attrs.fields_dict(cls)}
    if not changes:
        return given
    # attrs' mypy plugin cannot follow a TypeVar bound to AttrsInstance into evolve
    return attrs.evolve(given or cls(), **changes)  # type: ignore[misc]


def evaluate_files(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    run: RunOptions | None = None,
    floors: Floors | Path | str | None = None,
    output_format: str = "text",
    output: Path | str | None = None,
    per_document: Path | str | None = None,
    wide: bool = False,
    silent: bool = True,
    quiet: bool = False,
    error_strings: bool | None = None,
    details: bool = True,
    **options: Unpack[OptionKeywords],
) -> Report:
    """Score ``pred`` (or ``model`` run on ``gold``) against ``gold``; gate it when ``floors``.

    Render the report in ``output_format`` (``text``, ``json``, ``markdown``) and write it to
    ``output`` (never over an input) or, unless ``silent``, print it. ``wide``: text and
    Markdown show the full ledger of each threshold instead of the thresholds side by side.
    ``per_document``: also write each document's ledgers to this file (JSON Lines or CSV, by
    its suffix; see :mod:`.render.documents`). ``quiet``: no progress bar (``silent`` shows
    none either). How to read, score and run: ``reading``, ``scoring``, ``run``, or any of
    their fields as a keyword (``thresholds=(0.5, 1.0)``, ``align="position"``,
    ``n_process=2``, ``strategy_options={"coverage": "pooled"}``). ``error_strings``: count
    the most frequent error strings (``frequent_errors``); by default only for the formats
    that show them (``json``, ``markdown``), as reading every error's text is a good part of
    the time. ``details=False``: count no confusion cells, error kinds or error records (the
    command line's text output with no ``--errors`` shows none of them).
    """
    reading, scoring, run = _option_sets(reading, scoring, run, options)
    check_output_format(output_format)
    documents_format = None
    if per_document is not None:  # (the documents' writer, and csv, only when asked for)
        from .render.documents import per_document_format

        # (stdout has no suffix: JSON Lines, one document a line)
        documents_format = "jsonl" if is_stdout(per_document) else per_document_format(per_document)
    inputs = _inputs(gold, scoring, floors, predictions_file=pred)
    check_output(output, inputs)
    check_output(per_document, inputs, flag="--per-document")
    if per_document is not None and output is not None and same_file(per_document, output):
        raise InvalidInputError(
            f"{per_document}: --per-document and --output name the same file; give each its own"
        )
    if is_stdout(per_document) and output is None and not silent:
        raise InvalidInputError(
            "--per-document -: the report goes to stdout too; give --output a file (or --silent)"
        )
    report = evaluate(
        gold,
        pred,
        floors=floors,
        per_document=per_document is not None,
        **_job_keywords(
            model, reading, scoring, run, silent or quiet, error_strings, output_format, details
        ),
    )
    _emit(report, output_format, output, scoring, silent, wide, per_document, documents_format)
    return report


def gate_files(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    floors: Floors | Path | str,
    model: str | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    run: RunOptions | None = None,
    output_format: str = "text",
    output: Path | str | None = None,
    wide: bool = False,
    silent: bool = True,
    quiet: bool = False,
    error_strings: bool | None = None,
    details: bool = True,
    **options: Unpack[OptionKeywords],
) -> Report:
    """:func:`evaluate_files` with a gate; the strategy defaults to the floors' own
    (``error_strings`` and ``details`` as there)."""
    reading, scoring, run = _option_sets(reading, scoring, run, options)
    check_output_format(output_format)
    check_output(output, _inputs(gold, scoring, floors, predictions_file=pred))
    report = gate(
        gold,
        pred,
        floors=floors,
        **_job_keywords(
            model, reading, scoring, run, silent or quiet, error_strings, output_format, details
        ),
    )
    _emit(report, output_format, output, scoring, silent, wide)
    return report


def _job_keywords(
    model: str | None,
    reading: ReadingOptions | None,
    scoring: ScoringOptions,
    run: RunOptions | None,
    hushed: bool,
    error_strings: bool | None,
    output_format: str,
    details: bool,
) -> dict[str, Any]:
    """What :func:`evaluate_files` and :func:`gate_files` pass their job alike (``hushed``:
    no progress bar); the error strings are counted as asked, else for the formats that
    show them (not the text table)."""
    return {
        "model": model,
        "reading": reading,
        "scoring": scoring,
        "run": run,
        "progress": not hushed,
        "error_strings": output_format != "text" if error_strings is None else error_strings,
        "details": details,
    }


def run_demo(
    *,
    floors: Floors | Path | str | None = None,
    output_format: str = "text",
    errors: int = 0,
    silent: bool = True,
    wide: bool = False,
) -> Report:
    """Score the embedded demo corpus (two_sided at 0.5, 0.75, 1.0) and gate it."""
    from .jobs.demo import demo

    check_output_format(output_format)
    report = demo(floors=floors, errors=errors)
    _emit(report, output_format, None, ScoringOptions(errors=errors), silent, wide)
    return report


def _main_threshold(scoring: ScoringOptions, threshold: float | None) -> ScoringOptions:
    """``scoring`` with ``threshold`` (when given) as its one, main threshold."""
    return scoring if threshold is None else attrs.evolve(scoring, thresholds=(threshold,))


def report_files(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    output: Path | str | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions = REPORT_SCORING,
    run: RunOptions | None = None,
    threshold: float | None = None,
    floors: Floors | Path | str | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    title: str | None = None,
    name: str | None = None,
    options: ReadingOptions | None = None,
    silent: bool = True,
    quiet: bool = False,
    **keywords: Unpack[OptionKeywords],
) -> HtmlReport:
    """Score ``pred`` (or ``model`` run on ``gold``) and build the HTML report; write it to
    ``output`` when given. The strategy defaults to the floors' own, else two_sided.
    ``threshold``: the main threshold (else the first of ``scoring.thresholds``; the others
    join the curve's grid). ``options``: an older name of ``reading``. ``quiet``: no
    progress bar."""
    from .jobs.report import build_report
    from .render.html import render_page

    reading, scoring, run = _option_sets(reading or options, scoring, run, keywords)
    scoring = _main_threshold(scoring, threshold)
    check_output(output, _inputs(gold, scoring, floors, predictions_file=pred))
    content = build_report(
        gold,
        pred,
        model=model,
        reading=reading,
        scoring=scoring,
        run=run,
        floors=floors,
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        name=name,
        progress=not (silent or quiet),
    )
    html = render_page(content.runs, intervals=content.intervals, title=title)
    if output is not None:
        write_text(output, html, "HTML report")
    report = HtmlReport(content.runs, content.intervals, html)
    if not silent:
        deliver([], _announced(report, output, scoring.labels))
    return report


def compare_errors(errors: int | None, output_format: str) -> int:
    """Error records a comparison keeps per system: ``errors``, else 300 for the HTML page
    (its error browser) and none for the other formats."""
    return errors if errors is not None else (300 if output_format == "html" else 0)


def compare_files(
    gold: Path | str,
    pred_a: Path | str,
    pred_b: Path | str,
    *,
    names: tuple[str, str] | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    run: RunOptions | None = None,
    threshold: float | None = None,
    errors: int | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    method: str = "bootstrap",
    output_format: str = "text",
    output: Path | str | None = None,
    title: str | None = None,
    options: ReadingOptions | None = None,
    silent: bool = True,
    quiet: bool = False,
    **keywords: Unpack[CompareKeywords],
) -> Comparison:
    """Score ``pred_a`` and ``pred_b`` against ``gold`` and test their F differences.

    ``threshold``: the main threshold (else the first of ``scoring.thresholds``).
    ``errors``: error records kept per system for the HTML page (default as
    :func:`compare_errors`, unless ``scoring`` sets them). ``output`` writes the rendered
    comparison to a file. ``options``: an older name of ``reading``; ``quiet``: no progress
    bar."""
    from .jobs.compare import compare
    from .render.comparison import render_comparison

    check_output_format(output_format, COMPARE_FORMATS)
    if scoring is None or errors is not None:
        scoring = attrs.evolve(
            scoring or ScoringOptions(), errors=compare_errors(errors, output_format)
        )
    reading, scoring, run = _option_sets(reading or options, scoring, run, keywords)
    scoring = _main_threshold(scoring, threshold)
    check_output(output, _inputs(gold, scoring, predictions_of_A=pred_a, predictions_of_B=pred_b))
    comparison = compare(
        gold,
        pred_a,
        pred_b,
        names=names,
        reading=reading,
        scoring=scoring,
        run=run,
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        method=method,
        progress=not (silent or quiet),
    )
    rendered = render_comparison(comparison, output_format, title=title)
    text = rendered if rendered.endswith("\n") else rendered + "\n"
    console = _compare_console(comparison, rendered, output, output_format, scoring.labels)
    deliver([(output, text, f"{output_format} comparison")], [] if silent else console)
    return comparison


def _compare_console(
    comparison: Comparison,
    rendered: str,
    output: Path | str | None,
    output_format: str,
    labels: Sequence[str],
) -> list[tuple[str, str]]:
    """The comparison (when it is not written) or where it went, then the hints."""
    lines = []
    if output is None:
        lines.append(("block", rendered))
    elif not is_stdout(output):
        lines.append(("good", f"Saved the {output_format} comparison to {output}"))
    # (gold is the same file for both systems: its reading hint once)
    lines.extend(dict.fromkeys(line for s in comparison.runs for line in input_hints(s.inputs)))
    for system in comparison.runs:
        lines.extend(hint_console(system.main, labels, f"{system.name}: "))
    return lines


#: The same functions under the names the command line once called them by.
run_evaluate = evaluate_files
run_gate = gate_files
run_report = report_files
run_compare = compare_files


def _emit(
    report: Report,
    output_format: str,
    output: Path | str | None,
    scoring: ScoringOptions,
    silent: bool,
    wide: bool = False,
    per_document: Path | str | None = None,
    documents_format: str | None = None,
) -> None:
    """Render everything the report shows (:func:`~.render.report.render_outputs`), then
    write the files and, unless ``silent``, print: the report (when it is not written), where
    the files went, and the console lines (hints; a gate's verdict in any format)."""
    rendered = render_outputs(
        report,
        output_format,
        errors=scoring.errors,
        wide=wide,
        labels=scoring.labels,
        documents_format=documents_format,
    )
    files = [
        (output, rendered.report + "\n", "report"),
        (per_document, rendered.documents, "per-document ledgers"),
    ]
    shown: list[tuple[str, str]] = []  # (-o -: the report is written to stdout, no word)
    if output is None:
        shown.append(("block", rendered.report))
    elif not is_stdout(output):
        shown.append(("good", f"Saved the {output_format} report to {output}"))
    if per_document is not None and not is_stdout(per_document):
        shown.append(
            ("good", f"Saved {report.result.n_documents} documents' ledgers to {per_document}")
        )
    deliver(files, [] if silent else [*shown, *rendered.console])


def deliver(
    files: Iterable[tuple[Path | str | None, str | Iterable[bytes] | None, str]],
    lines: Iterable[tuple[str, str]],
) -> None:
    """Write each ``(path, text, what)`` whose path and text are given (atomically, UTF-8),
    then print ``(kind, line)`` pairs: a ``block`` (a table, JSON, Markdown) on stdout exactly
    as rendered, any other kind as a message on stderr (:class:`Messages`: ``good``,
    ``fail``, ``warn``, ``info``, ``text``). Nothing is said to be saved before it is."""
    for path, text, what in files:
        if path is not None and text is not None:
            write_atomic(path, text.encode("utf-8") if isinstance(text, str) else text, what)
    for kind, line in lines:
        show = blocks.text if kind == "block" else getattr(msg, kind)
        sys.stdout.flush()  # (a message comes after what stdout holds so far)
        show(line)


def _announced(
    report: HtmlReport, output: Path | str | None, labels: Sequence[str]
) -> list[tuple[str, str]]:
    """Where the page went, each gate verdict, then the label hints, as console lines."""
    lines = []
    if output is not None and not is_stdout(output):
        lines.append(("good", f"Saved the HTML report to {output}"))
    several = len(report.runs) > 1
    for run in report.runs:
        if run.verdict is not None:
            prefix = f"{run.name}: " if several else ""
            lines.extend(verdict_console(run.verdict.lines(), run.verdict.passed, prefix))
    # (gold is the same file for every run: its hint once)
    lines.extend(dict.fromkeys(line for run in report.runs for line in input_hints(run.inputs)))
    lines.extend(line for run in report.runs for line in hint_console(run.main, labels))
    return lines
