"""An evaluate, gate or demo :class:`~spacy_span_eval.jobs.evaluate.Report` as text,
Markdown or JSON."""

from __future__ import annotations

import json

from ..jobs.evaluate import Report
from .text import result_markdown, result_text, verdict_markdown, verdict_text

__all__ = ["COMPARE_FORMATS", "OUTPUT_FORMATS", "json_text", "render_report"]

OUTPUT_FORMATS: tuple[str, ...] = ("text", "json", "markdown")
#: What ``compare`` writes: the report's formats and an HTML page.
COMPARE_FORMATS: tuple[str, ...] = (*OUTPUT_FORMATS, "html")


def check_output_format(output_format: str, choices: tuple[str, ...] = OUTPUT_FORMATS) -> None:
    if output_format not in choices:
        raise ValueError(f"unknown output format {output_format!r}; choose one of "
                         f"{', '.join(choices)}")


def json_text(data: object) -> str:
    """JSON as the commands write it: indented, every float at full precision, and NaN or
    infinity refused (they are not JSON; semantics §7 says they never appear in any output)."""
    return json.dumps(data, indent=2, allow_nan=False)


def render_report(report: Report, output_format: str = "text", *, errors: int = 0,
                  wide: bool = False) -> str:
    """The report in ``output_format``; ``errors`` error records per table in text/Markdown.
    Text and Markdown show the thresholds side by side, or (``wide``) a full ledger table per
    threshold; JSON is the same either way."""
    check_output_format(output_format)
    if output_format == "json":
        return json_text(report.to_dict())
    if output_format == "markdown":
        text = result_markdown(report.result, errors=errors, inputs=report.inputs,
                               wide=wide)
        return text + ("\n\n" + verdict_markdown(report.verdict) if report.verdict else "")
    text = result_text(report.result, errors=errors, inputs=report.inputs, wide=wide)
    return text + ("\n\n" + verdict_text(report.verdict) if report.verdict else "")
