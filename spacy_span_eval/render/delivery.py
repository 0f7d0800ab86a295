"""Where a command's output goes: its files written (atomically, never over an input), then
its lines printed, results on stdout exactly as rendered and messages for people on stderr
(:class:`Messages`), with the hints and verdicts beside them."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from functools import partialmethod
from pathlib import Path
from typing import TYPE_CHECKING

from wasabi.printer import Printer
from wasabi.util import COLORS, ICONS, color, locale_escape

from ..engine.settings import plural
from ..errors import printable
from ..jobs.evaluate import Report
from ..jobs.options import ScoringOptions
from ..jobs.outputs import is_stdout, write_atomic
from ..readers.options import ReadingOptions
from .report import hint_console, input_hints, json_text, render_outputs, verdict_console

if TYPE_CHECKING:
    from ..jobs.html_report import HtmlReport
    from ..jobs.system_run import SystemRun

__all__ = [
    "Messages",
    "announced",
    "blocks",
    "deliver",
    "emit",
    "hints",
    "msg",
    "saved",
    "write_text",
]

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


def saved(output: Path | str | None, what: str) -> list[tuple[str, str]]:
    """Where ``what`` was written, unless nowhere or to stdout, as a console line."""
    return (
        [("good", f"Saved the {what} to {output}")]
        if output is not None and not is_stdout(output)
        else []
    )


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
    shown = (
        [("block", rendered.report)] if output is None else saved(output, f"{output_format} report")
    )
    if per_document is not None and not is_stdout(per_document):
        shown.append(
            (
                "good",
                f"Saved the ledgers of {plural(report.result.n_documents, 'document')} "
                f"to {per_document}",
            )
        )
    if thresholds is not None and report.verdict is not None:
        v = report.verdict
        where = {"schema": THRESHOLDS_SCHEMA, "version": 1, "strategy": v.strategy}
        chosen = {**where, "iou_threshold": v.threshold, **v.thresholds()}
        files.append((thresholds, json_text(chosen) + "\n", "score thresholds"))
        n = plural(len(chosen["score_thresholds"]), "label")
        shown += saved(thresholds, f"score thresholds of {n}")
    deliver(files, [] if silent else [*shown, *rendered.console])


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
