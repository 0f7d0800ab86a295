"""A :class:`~spacy_span_eval.jobs.compare.Comparison` as text, Markdown, JSON or HTML."""

from __future__ import annotations

import textwrap

from wasabi import MarkdownRenderer, table

from ..jobs.compare import Comparison
from .html import render_page
from .report import check_output_format, json_text

__all__ = ["COMPARE_FORMATS", "comparison_caption", "comparison_rows", "render_comparison"]

COMPARE_FORMATS: tuple[str, ...] = ("text", "json", "markdown", "html")
ALIGNS = ("l", "r", "r", "r", "r", "r", "r")


def _fmt(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def comparison_rows(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows: each label, then micro and macro."""
    a, b = comparison.names
    main = comparison.runs[0].main
    f = "F1" if main.beta == 1 else f"F{main.beta:g}"
    header = ["", "gold", f"{f} {a}", f"{f} {b}", "difference", "interval", "p"]
    out = []
    for name, d, pooled in comparison.test.named_rows():
        ledger = (main.micro if name == "micro" else None) if pooled \
            else main.per_label.get(name)
        support = "" if ledger is None else str(ledger.num_annotated)
        interval = ("-" if d.low is None or d.high is None
                    else f"[{d.low:+.4f}, {d.high:+.4f}]")
        out.append([name, support, _fmt(d.f_a), _fmt(d.f_b), _fmt(d.difference, True),
                    interval, "-" if d.p_value is None else f"{d.p_value:.4g}"])
    return header, out


def comparison_caption(comparison: Comparison) -> str:
    t = comparison.test
    a, b = comparison.names
    method = ("paired bootstrap (null centred on the observed difference)"
              if t.method == "bootstrap" else "approximate randomization")
    where = "" if t.threshold is None else f" at IoU >= {t.threshold:g}"
    return (f"{a} minus {b}{where} on {t.n_documents} documents: "
            f"{t.confidence:.0%} paired-bootstrap percentile intervals and two-sided "
            f"p-values by {method}, {t.resamples} resamples, seed {t.seed} (the smallest "
            f"p-value they can show is {1 / (t.resamples + 1):.2g}).")


def render_comparison(comparison: Comparison, output_format: str = "text", *,
                      title: str | None = None) -> str:
    check_output_format(output_format, COMPARE_FORMATS)
    a, b = comparison.names
    if output_format == "json":
        return json_text(comparison.to_dict())
    if output_format == "html":
        return render_page(list(comparison.runs), intervals=list(comparison.intervals),
                           comparison=comparison.test, title=title)
    header, rows = comparison_rows(comparison)
    if output_format == "text":
        return "\n".join([f"== Comparison: {a} vs {b}",
                          table(rows, header=header, divider=True, aligns=ALIGNS),
                          textwrap.fill(comparison_caption(comparison), 100)])
    md = MarkdownRenderer()
    md.add(md.title(2, f"Comparison: {a} vs {b}"))
    md.add(md.table(rows, header, aligns=ALIGNS))
    md.add(comparison_caption(comparison))
    return md.text
