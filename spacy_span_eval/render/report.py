"""An evaluate, gate or demo :class:`~spacy_span_eval.jobs.evaluate.Report` as text,
Markdown or JSON, and the lines a command prints on stderr beside a report: hints about labels
that cannot match and files read in an unlikely scheme, and the gate's verdict, each
``(kind, line)`` for the CLI's printer.

And where a command's output goes (:func:`deliver`): its files written (atomically, never over
an input), then its lines printed, results on stdout exactly as rendered and messages for
people on stderr (:class:`Messages`), with the hints and verdicts beside them."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partialmethod
from pathlib import Path
from typing import TYPE_CHECKING

from wasabi.printer import Printer
from wasabi.util import COLORS, ICONS, color, locale_escape

from ..engine.result import ThresholdScores
from ..engine.settings import plural
from ..errors import printable
from ..jobs.evaluate import HtmlReport, Report
from ..jobs.options import ScoringOptions
from ..jobs.outputs import is_stdout, write_atomic
from ..readers.options import ReadingOptions
from . import COMPARE_FORMATS, OUTPUT_FORMATS  # (each has one renderer below)
from .summary import Inputs, count
from .text import result_markdown, result_text, verdict_markdown, verdict_text

if TYPE_CHECKING:  # (the gate is loaded when a command has floors)
    from ..engine.gates import GateVerdict
    from ..jobs.system_run import SystemRun

__all__ = [
    "COMPARE_FORMATS",
    "Messages",
    "OUTPUT_FORMATS",
    "REPORT_RENDERERS",
    "Rendered",
    "announced",
    "blocks",
    "deliver",
    "documents_output",
    "emit",
    "hint_console",
    "hints",
    "input_hints",
    "json_text",
    "label_hints",
    "msg",
    "render_outputs",
    "render_report",
    "saved",
    "shown",
    "verdict_console",
    "write_text",
]


def check_output_format(output_format: str, choices: Sequence[str] = OUTPUT_FORMATS) -> None:
    if output_format not in choices:
        raise ValueError(
            f"unknown output format {output_format!r}; choose one of {', '.join(choices)}"
        )


def check_renderers(what: str, names: tuple[str, ...], renderers: Mapping[str, object]) -> None:
    """A format is its renderer, never a fallback to another's: a name without a renderer,
    or a renderer without a name, fails when the renderers are imported."""
    if tuple(renderers) != names:
        raise ImportError(f"{what} formats {names} and renderers {tuple(renderers)} differ")


def json_text(data: object) -> str:
    """JSON as the commands write it: indented, every float at full precision, and NaN or
    infinity refused (they are not JSON; semantics §7 says they never appear in any output)."""
    return json.dumps(data, indent=2, allow_nan=False)


@dataclass
class Rendered:
    """Everything a command shows of a report: the report in its format, the per-document
    ledgers (when asked for) and the lines for the console — label hints and the gate's
    verdict, each as ``(kind, line)`` with ``kind`` one of ``warn``, ``good``, ``fail``,
    ``text``."""

    report: str
    #: the per-document file as UTF-8 chunks, made while they are written (a text when
    #: built by hand)
    documents: str | Iterable[bytes] | None = None
    console: list[tuple[str, str]] = field(default_factory=list)


def render_outputs(
    report: Report,
    output_format: str = "text",
    *,
    errors: int = 0,
    wide: bool = False,
    labels: Sequence[str] = (),
    documents_format: str | None = None,
) -> Rendered:
    """The report in ``output_format`` (:func:`render_report`), its per-document ledgers in
    ``documents_format`` (``jsonl``/``csv``; ``None``: none) and the console lines: a hint
    for each label that cannot match (``labels``: the ones chosen) and, for a gate, its verdict
    whatever the format (a failed gate always says why)."""
    result = report.result  # (the engine's figures first, then the text made of them)
    main = result.scores()
    verdict = None if report.verdict is None else (report.verdict.lines(), report.verdict.passed)
    documents = None
    if documents_format is not None:  # (the documents' writer, and csv, only when asked for)
        rows = result.iter_document_rows()
        from .documents import per_document_chunks

        documents = per_document_chunks(rows, documents_format)
    text = render_report(report, output_format, errors=errors, wide=wide)
    console = input_hints(report.inputs, report.reading)
    console += hint_console(main, labels, counted=result.settings.counted)
    if verdict is not None:
        console.extend(verdict_console(*verdict))
    return Rendered(text, documents, console)


def render_report(
    report: Report, output_format: str = "text", *, errors: int = 0, wide: bool = False
) -> str:
    """The report in ``output_format``; ``errors`` error records per table in text/Markdown.
    Text and Markdown show the thresholds side by side, or (``wide``) a full ledger table per
    threshold; JSON is the same either way."""
    check_output_format(output_format, tuple(REPORT_RENDERERS))
    return REPORT_RENDERERS[output_format](report, errors, wide)


#: A report renderer: ``(report, errors, wide) -> str``.
ReportRenderer = Callable[[Report, int, bool], str]


def _tables(
    result_of: Callable[..., str], verdict_of: Callable[[GateVerdict], str]
) -> ReportRenderer:
    """A renderer of the result's tables (``result_of``: :func:`.text.result_text` or
    :func:`.text.result_markdown`), then the gate's verdict (``verdict_of``) when there is
    one."""

    def render(report: Report, errors: int, wide: bool) -> str:
        text = result_of(
            report.result, errors=errors, inputs=report.inputs, wide=wide, slices=report.slices
        )
        return printable(text + ("\n\n" + verdict_of(report.verdict) if report.verdict else ""))

    return render


def _json(report: Report, errors: int, wide: bool) -> str:
    return json_text(report.to_dict())


#: The renderer of each report format.
REPORT_RENDERERS: dict[str, ReportRenderer] = {
    "text": _tables(result_text, verdict_text),
    "json": _json,
    "markdown": _tables(result_markdown, verdict_markdown),
}
check_renderers("report", OUTPUT_FORMATS, REPORT_RENDERERS)


def label_hints(
    run: ThresholdScores, chosen: Sequence[str] = (), counted: str = "span"
) -> list[str]:
    """Hints about labels that cannot match: predicted labels that never occur in gold
    (suggesting ``--label-map``, with the gold label each one's predictions cover most), and
    chosen labels (``--labels``) found on neither side. ``counted``: what the ledgers count
    (:attr:`~spacy_span_eval.engine.settings.Settings.counted`)."""
    lines = []
    labels = sorted(run.per_label.items())
    only_pred = {k: v.num_predicted for k, v in labels if not v.num_annotated and v.num_predicted}
    if only_pred:
        named = ", ".join(f"{label} ({plural(n, counted)})" for label, n in only_pred.items())
        covered = sorted(
            (-n, pred, gold)
            for (gold, pred), n in run.confusion.items()
            if pred in only_pred and gold is not None
        )
        mapping = {pred: gold for _, pred, gold in reversed(covered)}
        if not run.detailed:  # (no confusion cells counted: which gold label is unknown)
            mapping = {next(iter(only_pred)): "GOLD_LABEL"}
        example = (
            f" (e.g. {json.dumps(dict(sorted(mapping.items())))} if they name the same thing)"
            if mapping
            else ""
        )
        lines.append(
            f"Predicted labels never found in gold score 0: {named}. If the systems "
            f"name a gold label differently, map it with --label-map{example}."
        )
    missing = [
        label
        for label in chosen
        if label not in run.per_label
        or not run.per_label[label].num_annotated + run.per_label[label].num_predicted
    ]
    if missing:
        lines.append(f"--labels: {', '.join(missing)} found in neither gold nor predictions.")
    return lines


def verdict_console(lines: Sequence[str], passed: bool, prefix: str = "") -> list[tuple[str, str]]:
    """A gate's verdict (its :meth:`~spacy_span_eval.engine.gates.GateVerdict.lines`) as
    console lines ``(kind, line)``: the headline (``good`` or ``fail``), then each breached
    floor (``text``)."""
    head, *breaches = lines
    return [
        ("good" if passed else "fail", prefix + head),
        *(("text", f"  {line}") for line in breaches),
    ]


def hint_console(
    scores: ThresholdScores, chosen: Sequence[str] = (), prefix: str = "", counted: str = "span"
) -> list[tuple[str, str]]:
    """The label hints (:func:`label_hints`) as console lines ``("warn", line)``."""
    return [("warn", f"hint: {prefix}{line}") for line in label_hints(scores, chosen, counted)]


def input_hints(
    inputs: Inputs | None, reading: ReadingOptions | None = None
) -> list[tuple[str, str]]:
    """Hints about how the files were read, as console lines ``("warn", line)``: a side read
    as IOB2 (``reading``'s scheme; ``None``: the defaults) most of whose chunks were
    repaired (they open with ``I-``, as IOB1 files' chunks do) may be IOB1, which ``--scheme
    IOB1`` reads without repairs. The chunks read are the spans kept and, with ``--repair
    discard``, those dropped."""
    scheme, repair = (reading.scheme, reading.repair) if reading else ("IOB2", "conlleval")
    if scheme.upper() not in ("IOB2", "BIO"):
        return []
    lines = []
    for side, info in (inputs or {}).items():
        repaired = info.get("repaired", 0)
        chunks = info.get("spans", 0) + (repaired if repair == "discard" else 0)
        if repaired * 2 > chunks > 0:
            lines.append(
                (
                    "warn",
                    f"hint: {side}: {count(repaired)} of {count(chunks)} chunks were repaired "
                    "(most open with I-, as in IOB1 files): read with --scheme IOB1?",
                )
            )
    return lines


THRESHOLDS_SCHEMA = "spacy-span-eval/thresholds"  # gate --choose-thresholds FILE


class Messages:
    """Messages for people, on stderr, one line each, with wasabi's icons; in colour only on a
    terminal without ``NO_COLOR`` (https://no-color.org). Results go to stdout (:data:`blocks`),
    so ``-f json > out.json`` holds the JSON and nothing else."""

    def _say(self, kind: str | None, title: object) -> None:  # (stderr looked up when said)
        stream = sys.stderr
        text = printable(str(title))
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


def write_text(path: Path | str, text: str, what: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, so an interrupted run leaves the old file
    or none (semantics §7; :func:`~.jobs.outputs.write_atomic`)."""
    write_atomic(path, text.encode("utf-8"), what)


def saved(output: Path | str | None, what: str, note: str = "") -> list[tuple[str, str]]:
    """Where ``what`` was written (and a ``note`` on it), unless nowhere or to stdout, as a
    console line."""
    return (
        [("good", f"Saved the {what} to {output}{note}")]
        if output is not None and not is_stdout(output)
        else []
    )


def shown(rendered: str, output: Path | str | None, what: str) -> list[tuple[str, str]]:
    """``rendered`` for stdout when there is no ``output``, else where it was saved."""
    return [("block", rendered)] if output is None else saved(output, what)


def hints(
    runs: Sequence[SystemRun], labels: Sequence[str], named: bool, reading: ReadingOptions | None
) -> list[tuple[str, str]]:
    """Each run's reading hints (the gold file's once: every run reads it), then its label
    hints, prefixed with its name when ``named``."""
    read = (line for run in runs for line in input_hints(run.inputs, reading))
    lines = list(dict.fromkeys(read))
    for run in runs:
        prefix, counted = f"{run.name}: " if named else "", run.result.settings.counted
        lines.extend(hint_console(run.main, labels, prefix, counted))
    return lines


def documents_output(
    per_document: Path | str | bool | None,
) -> tuple[bool, Path | str | None, str | None]:
    """``per_document``: whether each document's ledgers are kept, the file they go to and
    its format (refused before reading; the documents' writer, and csv, loaded only then)."""
    if per_document is None or isinstance(per_document, bool):
        return bool(per_document), None, None
    from .documents import per_document_format

    # (stdout has no suffix: JSON Lines, one document a line)
    return (
        True,
        per_document,
        "jsonl" if is_stdout(per_document) else per_document_format(per_document),
    )


def emit(
    report: Report,
    output_format: str,
    output: Path | str | None,
    scoring: ScoringOptions,
    silent: bool,
    wide: bool = False,
    per_document: Path | str | None = None,
    documents_format: str | None = None,
    thresholds: Path | str | None = None,
) -> None:
    """Render everything the report shows, write the files (``thresholds``: the gate's
    chosen score thresholds) and, unless ``silent``, print the report (when not written),
    where the files went and the console lines (hints, verdict)."""
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
    # (-o -: the report is written to stdout, no word)
    lines = shown(rendered.report, output, f"{output_format} report")
    lines += saved(per_document, f"ledgers of {plural(report.result.n_documents, 'document')}")
    if thresholds is not None and report.verdict is not None:
        v = report.verdict
        where = {"schema": THRESHOLDS_SCHEMA, "version": 1, "strategy": v.strategy}
        chosen = {**where, "iou_threshold": v.threshold, **v.thresholds()}
        files.append((thresholds, json_text(chosen) + "\n", "score thresholds"))
        n = plural(len(chosen["score_thresholds"]), "label")
        lines += saved(thresholds, f"score thresholds of {n}")
    deliver(files, [] if silent else [*lines, *rendered.console])


def deliver(
    files: Iterable[tuple[Path | str | None, str | Iterable[bytes] | None, str]],
    lines: Iterable[tuple[str, str]],
) -> None:
    """Write each ``(path, text, what)`` whose path and text are given (atomically, UTF-8),
    then print ``(kind, line)`` pairs: a ``block`` on stdout exactly as rendered, any other
    kind as a :class:`Messages` message. Nothing is said to be saved before it is."""
    for path, text, what in files:
        if path is not None and text is not None:
            write_atomic(path, text.encode("utf-8") if isinstance(text, str) else text, what)
    for kind, line in lines:
        show = blocks.text if kind == "block" else getattr(msg, kind)
        sys.stdout.flush()  # (a message comes after what stdout holds so far)
        show(line)


def announced(
    report: HtmlReport,
    output: Path | str | None,
    scoring: ScoringOptions,
    reading: ReadingOptions | None,
) -> list[tuple[str, str]]:
    """Where the page went, each gate verdict, then the hints, as console lines."""
    lines = saved(output, "HTML report")
    several = len(report.runs) > 1
    for run in report.runs:
        if run.verdict is not None:
            prefix = f"{run.name}: " if several else ""
            lines.extend(verdict_console(run.verdict.lines(), run.verdict.passed, prefix))
    return [*lines, *hints(report.runs, scoring.labels, named=False, reading=reading)]
