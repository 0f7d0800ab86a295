"""An :class:`~spacy_span_eval.jobs.agree.Agreement` as text, Markdown or JSON: the pairwise F
matrix (rows: the annotator taken as gold), α overall and per label with each label's mean
pairwise F, each annotator's mean F with the others, the adjudication queue and the ties a
majority consensus leaves out."""

from __future__ import annotations

from collections.abc import Sequence

from wasabi.markdown import MarkdownRenderer
from wasabi.tables import table

from ..jobs.agree import Agreement
from .report import check_output_format, json_text
from .text import _ratio, _right

__all__ = ["render_agreement"]

Section = tuple[str, list[str], list[list[str]]]


def _mean(values: Sequence[float | None]) -> float | None:
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


def _cell(agreement: Agreement, a: str, b: str) -> str:
    """F of ``b`` against ``a``, with its bootstrap interval when there is one."""
    f, ci = agreement.pair_f(a, b), agreement.f_interval(a, b)
    if ci is None or ci.low is None or ci.high is None:
        return _ratio(f)
    return f"{_ratio(f)} [{ci.low:.3f}, {ci.high:.3f}]"


def sections(agreement: Agreement) -> tuple[list[str], list[Section]]:
    """The summary lines and the tables, each ``(title, header, rows)``."""
    names = agreement.annotators
    s = agreement.settings
    summary = [
        f"{len(names)} annotators, {agreement.n_documents:,} documents; {s['strategy']}"
        + (f" at {s['threshold']:g}" if s["threshold"] is not None else "")
        + f", {s['unit']} unit",
        f"Krippendorff's alpha (nominal, {s['unit']} labels): {_ratio(agreement.alpha)}",
    ]
    boot = next((b for b in agreement.intervals.values() if b is not None), None)
    if boot is not None:
        summary.append(
            f"F intervals: {boot.confidence:.0%} {boot.method}, {boot.resamples:,} resamples"
        )
    matrix = [[a, *("" if a == b else _cell(agreement, a, b) for b in names)] for a in names]
    labels = [
        [
            label,
            _ratio(agreement.label_alpha[label]),
            _ratio(_mean([agreement.pair_f(a, b, label) for a, b in agreement.pairs])),
        ]
        for label in agreement.labels()
    ]
    means = [[name, _ratio(agreement.mean_f(name))] for name in names]
    queue = [
        [
            str(d["id"]),
            f"{d['contested']:,}",
            ", ".join(f"{n}: {len(spans)}" for n, spans in d["spans"].items()),
        ]
        for d in agreement.queue
        if d["contested"]
    ]
    ties = [
        [str(t["id"]), str(t["start"]), str(t["end"]), t["label"], f"{t['votes']} of {t['of']}"]
        for t in agreement.ties
    ]
    return summary, [
        (
            "F of each column against each row as gold (micro)",
            ["gold \\ predicted", *names],
            matrix,
        ),
        ("Per label", ["label", "alpha", "mean pairwise F"], labels),
        ("Mean F with the other annotators", ["annotator", "mean F"], means),
        (
            "Adjudication queue (most contested spans first)",
            ["document", "contested", "spans"],
            queue,
        ),
        (
            "Ties: spans exactly half the annotators gave (not in a consensus)",
            ["document", "start", "end", "label", "given by"],
            ties,
        ),
    ]


def render_agreement(agreement: Agreement, output_format: str = "text") -> str:
    """The agreement in ``output_format`` (``text``, ``markdown``, ``json``)."""
    check_output_format(output_format)
    if output_format == "json":
        return json_text(agreement.to_dict())
    summary, tables = sections(agreement)
    if output_format == "markdown":
        md = MarkdownRenderer()
        md.add(md.title(2, "Annotator agreement"))
        md.add(md.list(summary))
        for title, header, rows in tables:
            md.add(md.title(3, title))
            md.add(md.table(rows, header, aligns=_right(len(header) - 1)) if rows else "(none)")
        return md.text
    out = [*summary]
    for title, header, rows in tables:
        out += ["", title]
        grid = table(rows, header=header, divider=True, aligns=_right(len(header) - 1), max_col=60)
        out.append(grid if rows else "(none)")
    return "\n".join(out)
