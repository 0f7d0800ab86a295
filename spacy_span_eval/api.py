"""The commands as Python functions: read, score, render, write and (unless ``silent``) print.

Each function is a job (:mod:`.jobs`) followed by a renderer (:mod:`.render`); the CLI is a
thin layer over these. Results go to ``output`` or stdout, messages to stderr (:class:`Messages`).
An ``output`` that is one of the inputs is refused before anything is read, and outputs are
written atomically (:func:`write_text`).

Each scoring command is one function (``evaluate_files``, ``gate_files``, ``report_files``,
``compare_files``) that takes its settings as three option sets — how to read
(:class:`~.readers.ReadingOptions`), how to score (:class:`~.jobs.options.ScoringOptions`),
how to run (:class:`~.jobs.options.RunOptions`) — or any of their fields as a flat keyword,
generated from the fields (:func:`takes_option_keywords`), as the command line's flags are.
So every command-line option is reachable from here.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
from wasabi import Printer
from wasabi.util import COLORS, ICONS, color, locale_escape

from .errors import InvalidInputError
from .jobs.evaluate import Report, evaluate, gate
from .jobs.options import REPORT_SCORING, RunOptions, ScoringOptions
from .jobs.outputs import check_output, is_stdout, same_file, write_atomic
from .readers.options import ReadingOptions
from .render.report import COMPARE_FORMATS, check_output_format, render_outputs
from .render.text import hint_console, input_hints, verdict_console

if TYPE_CHECKING:  # (the report, compare and demo jobs are imported when run: a command
    # imports what it uses, and scoring two files starts faster)
    from .engine.bootstrap import BootstrapIntervals, PairedTest
    from .engine.gates import Floors, GateVerdict  # (loaded when floors are given)
    from .jobs.compare import Comparison
    from .jobs.system_run import SystemRun

T = TypeVar("T")

__all__ = [
    "OPTION_SETS",
    "HtmlReport",
    "Messages",
    "ReadingOptions",
    "RunOptions",
    "ScoringOptions",
    "check_output",
    "takes_option_keywords",
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


class _Unset:
    """The default of a generated option keyword: not given (the options object decides)."""

    def __repr__(self) -> str:
        return "<from the options>"


UNSET: Any = _Unset()

#: The option sets a command takes, by parameter name.
OPTION_SETS: dict[str, type] = {
    "reading": ReadingOptions,
    "scoring": ScoringOptions,
    "run": RunOptions,
}


def takes_option_keywords(function: Callable[..., T]) -> Callable[..., T]:
    """Give ``function`` a flat keyword for every field of the option sets it takes
    (:data:`OPTION_SETS`: ``reading=``, ``scoring=``, ``run=``), as the command line has a
    flag for each: ``evaluate_files(gold, pred, thresholds=(0.5, 1.0), n_process=2)`` is
    ``evaluate_files(gold, pred, scoring=ScoringOptions(thresholds=(0.5, 1.0)),
    run=RunOptions(n_process=2))``. A keyword given beside its options object replaces that
    field of it. Keywords the function declares itself are left to it."""
    signature = inspect.signature(function)
    own = set(signature.parameters)
    sets = {name: cls for name, cls in OPTION_SETS.items() if name in own}
    fields_of = {
        name: [f.name for f in attrs.fields(cls) if f.name not in own] for name, cls in sets.items()
    }
    added = [
        inspect.Parameter(field_name, inspect.Parameter.KEYWORD_ONLY, default=UNSET)
        for names in fields_of.values()
        for field_name in names
    ]
    parameters = list(signature.parameters.values())
    at = next((i for i, p in enumerate(parameters) if p.kind is p.VAR_KEYWORD), len(parameters))
    parameters[at:at] = added

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> T:
        for set_name, names in fields_of.items():
            given = {
                name: kwargs.pop(name)
                for name in names
                if name in kwargs and kwargs[name] is not UNSET
            }
            if given:
                base = kwargs.get(set_name) or _default_set(signature, set_name)
                kwargs[set_name] = attrs.evolve(base, **given)
        return function(*args, **kwargs)

    call.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return call


def _default_set(signature: inspect.Signature, name: str) -> Any:
    default = signature.parameters[name].default
    return default if default is not None else OPTION_SETS[name]()


@takes_option_keywords
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
) -> Report:
    """Score ``pred`` (or ``model`` run on ``gold``) against ``gold``; gate it when ``floors``.

    Render the report in ``output_format`` (``text``, ``json``, ``markdown``) and write it to
    ``output`` (never over an input) or, unless ``silent``, print it. ``wide``: text and
    Markdown show the full ledger of each threshold instead of the thresholds side by side.
    ``per_document``: also write each document's ledgers to this file (JSON Lines or CSV, by
    its suffix; see :mod:`.render.documents`). ``quiet``: no progress bar (``silent`` shows
    none either). How to read, score and run: ``reading``, ``scoring``, ``run``, or any of
    their fields as a keyword (``thresholds=(0.5, 1.0)``, ``align="position"``,
    ``n_process=2``, ``dask_scheduler=...``). ``error_strings``: count the most frequent
    error strings (``frequent_errors``); by default only for the formats that show them
    (``json``, ``markdown``), as reading every error's text is a good part of the time.
    ``details=False``: count no confusion cells, error kinds or error records (the command
    line's text output with no ``--errors`` shows none of them).
    """
    check_output_format(output_format)
    per_document_fmt = None
    if per_document is not None:  # (the documents' writer, and csv, only when asked for)
        from .render.documents import per_document_format

        # (stdout has no suffix: JSON Lines, one document a line)
        per_document_fmt = "jsonl" if is_stdout(per_document) else per_document_format(per_document)
    scoring = scoring or ScoringOptions()
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
        model=model,
        reading=reading,
        scoring=scoring,
        run=run,
        floors=floors,
        progress=not (silent or quiet),
        per_document=per_document is not None,
        error_strings=_error_strings(error_strings, output_format),
        details=details,
    )
    _emit(
        report,
        output_format=output_format,
        output=output,
        errors=scoring.errors,
        silent=silent,
        wide=wide,
        labels=scoring.labels,
        per_document=per_document,
        documents_format=per_document_fmt,
    )
    return report


@takes_option_keywords
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
) -> Report:
    """:func:`evaluate_files` with a gate; the strategy defaults to the floors' own
    (``error_strings`` and ``details`` as there)."""
    check_output_format(output_format)
    scoring = scoring or ScoringOptions()
    check_output(output, _inputs(gold, scoring, floors, predictions_file=pred))
    report = gate(
        gold,
        pred,
        floors=floors,
        model=model,
        reading=reading,
        scoring=scoring,
        run=run,
        progress=not (silent or quiet),
        error_strings=_error_strings(error_strings, output_format),
        details=details,
    )
    _emit(
        report,
        output_format=output_format,
        output=output,
        errors=scoring.errors,
        silent=silent,
        wide=wide,
        labels=scoring.labels,
    )
    return report


def _error_strings(asked: bool | None, output_format: str) -> bool:
    """Whether to count the most frequent error strings: as asked, else for the formats that
    show them (not the text table)."""
    return output_format != "text" if asked is None else asked


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
    _emit(report, output_format=output_format, output=None, errors=errors, silent=silent, wide=wide)
    return report


def _main_threshold(scoring: ScoringOptions, threshold: float | None) -> ScoringOptions:
    """``scoring`` with ``threshold`` (when given) as its one, main threshold."""
    return scoring if threshold is None else attrs.evolve(scoring, thresholds=(threshold,))


@takes_option_keywords
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
) -> HtmlReport:
    """Score ``pred`` (or ``model`` run on ``gold``) and build the HTML report; write it to
    ``output`` when given. The strategy defaults to the floors' own, else two_sided.
    ``threshold``: the main threshold (else the first of ``scoring.thresholds``; the others
    join the curve's grid). ``options``: an older name of ``reading``. ``quiet``: no
    progress bar."""
    from .jobs.report import build_report
    from .render.html import render_page

    scoring = _main_threshold(scoring, threshold)
    check_output(output, _inputs(gold, scoring, floors, predictions_file=pred))
    content = build_report(
        gold,
        pred,
        model=model,
        reading=reading or options,
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


@takes_option_keywords
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
    scoring = _main_threshold(scoring, threshold)
    check_output(output, _inputs(gold, scoring, predictions_of_A=pred_a, predictions_of_B=pred_b))
    comparison = compare(
        gold,
        pred_a,
        pred_b,
        names=names,
        reading=reading or options,
        scoring=scoring,
        run=run,
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        method=method,
        progress=not (silent or quiet),
    )
    rendered = render_comparison(comparison, output_format, title=title)
    if output is not None:
        write_text(
            output,
            rendered if rendered.endswith("\n") else rendered + "\n",
            f"{output_format} comparison",
        )
    if not silent:
        if output is not None:
            if not is_stdout(output):
                msg.good(f"Saved the {output_format} comparison to {output}")
        else:
            blocks.text(rendered)
        # (gold is the same file for both systems: its reading hint once)
        read_hints = dict.fromkeys(
            line for system in comparison.runs for line in input_hints(system.inputs)
        )
        deliver(
            [],
            [
                *read_hints,
                *(
                    line
                    for system in comparison.runs
                    for line in hint_console(system.main, scoring.labels, f"{system.name}: ")
                ),
            ],
        )
    return comparison


#: The same functions under the names the command line once called them by.
run_evaluate = evaluate_files
run_gate = gate_files
run_report = report_files
run_compare = compare_files


def _emit(
    report: Report,
    *,
    output_format: str,
    output: Path | str | None,
    errors: int,
    silent: bool,
    wide: bool = False,
    labels: Sequence[str] = (),
    per_document: Path | str | None = None,
    documents_format: str | None = None,
) -> None:
    """Render everything the report shows (:func:`~.render.report.render_outputs`), then
    write the files and, unless ``silent``, print: the report (when it is not written), where
    the files went, and the console lines (hints; a gate's verdict in any format)."""
    rendered = render_outputs(
        report,
        output_format,
        errors=errors,
        wide=wide,
        labels=labels,
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
