"""An evaluate, gate or demo :class:`~spacy_span_eval.jobs.evaluate.Report` as text,
Markdown or JSON."""

from __future__ import annotations

import srsly

from ..jobs.evaluate import Report
from .text import result_markdown, result_text, verdict_markdown, verdict_text

__all__ = ["OUTPUT_FORMATS", "render_report"]

OUTPUT_FORMATS: tuple[str, ...] = ("text", "json", "markdown")


def check_output_format(output_format: str, choices: tuple[str, ...] = OUTPUT_FORMATS) -> None:
    if output_format not in choices:
        raise ValueError(f"unknown output format {output_format!r}; choose one of "
                         f"{', '.join(choices)}")


def render_report(report: Report, output_format: str = "text", *, errors: int = 0,
                  wide: bool = False) -> str:
    """The report in ``output_format``; ``errors`` error records per table in text/Markdown.
    Text and Markdown show the thresholds side by side, or (``wide``) a full ledger table per
    threshold; JSON is the same either way."""
    check_output_format(output_format)
    if output_format == "json":
        return srsly.json_dumps(report.to_dict(), indent=2)
    if output_format == "markdown":
        text = result_markdown(report.result, errors=errors, inputs=report.inputs,
                               wide=wide)
        return text + ("\n\n" + verdict_markdown(report.verdict) if report.verdict else "")
    text = result_text(report.result, errors=errors, inputs=report.inputs, wide=wide)
    return text + ("\n\n" + verdict_text(report.verdict) if report.verdict else "")
