"""An :class:`~spacy_span_eval.jobs.agree.Agreement` as text, Markdown, JSON or an HTML page: the
pairwise F matrix (rows: the annotator taken as gold; a heatmap on the page), α overall and per
label with each label's mean pairwise F, each annotator's mean F with the others, the
adjudication queue (on the page, a card per document with each annotator's spans drawn on its
text, as the report's error cards are) and the ties a majority consensus leaves out."""

from __future__ import annotations

from collections import Counter
from typing import Any

from markupsafe import Markup
from wasabi.markdown import MarkdownRenderer

from ..about import __version__
from ..engine.settings import plural
from ..jobs.agree import Agreement
from . import COMPARE_FORMATS
from .html.errors_view import (
    ERROR_COLOR,
    GOLD_COLOR,
    PRED_COLOR,
    Mark,
    render_window,
    sentence_window,
)
from .html.page import template
from .html.svg import heatmap
from .report import check_output_format, json_text
from .summary import percent
from .text import Plain, _ratio, _right, f_name, grid

__all__ = ["render_agreement"]

Section = tuple[str, list[str], list[list[str]]]
#: The tables the page shows (the queue is its cards): ``(index in sections, id, nav link)``.
PAGE_TABLES = (
    (0, "matrix", "Pairwise F"),
    (1, "labels", "Per label"),
    (2, "annotators", "Per annotator"),
    (4, "ties", "Ties"),
)


def _cell(agreement: Agreement, a: str, b: str) -> str:
    """F of ``b`` against ``a``, with its bootstrap interval when there is one."""
    f, ci = agreement.pair_f(a, b), agreement.f_interval(a, b)
    if ci is None or ci.low is None or ci.high is None:
        return _ratio(f)
    return f"{_ratio(f)} [{ci.low:.3f}, {ci.high:.3f}]"


def _summary(agreement: Agreement) -> list[str]:
    """Who agreed on how much, scored how, and the intervals' method."""
    s = agreement.settings
    summary = [
        f"{len(agreement.annotators)} annotators, {plural(agreement.n_documents, 'document')}; "
        f"{s['strategy']}"
        + (f" at {s['threshold']:g}" if s["threshold"] is not None else "")
        + f", {s['unit']} unit"
        + ("" if s["beta"] == 1 else f"; every F is {f_name(s['beta'])}"),
        f"Krippendorff's alpha (nominal, {s['unit']} labels): {_ratio(agreement.alpha)}",
    ]
    summary += [
        f"{plural(n, 'span')} of {name} not placed on the tokens or text of the first "
        "annotator who saw its document: in the pairs as unmatched predictions, not in alpha, "
        "the queue or the consensus"
        for name, n in agreement.unplaced.items()
    ]
    boot = next((b for b in agreement.intervals.values() if b is not None), None)
    if boot is not None:
        summary.append(
            f"F intervals: {percent(boot.confidence)} {boot.method}, {boot.resamples:,} resamples"
        )
    return summary


def sections(agreement: Agreement) -> tuple[list[str], list[Section]]:
    """The summary lines and the tables, each ``(title, header, rows)``."""
    names = agreement.annotators
    matrix = [[a, *("" if a == b else _cell(agreement, a, b) for b in names)] for a in names]
    labels = [
        [
            label,
            _ratio(agreement.label_alpha[label]),
            _ratio(agreement.mean_f(label=label)),
        ]
        for label in agreement.labels()
    ]
    means = [
        [name, _ratio(agreement.mean_f(name)), _ratio(agreement.consensus_f(name))]
        for name in names
    ]
    queue = [
        [
            str(d["id"]),
            f"{d['contested']:,}",
            ", ".join(f"{n}: {len(spans)}" for n, spans in d["spans"].items()),
        ]
        for d in agreement.queue
    ]
    ties = [
        [str(t["id"]), str(t["start"]), str(t["end"]), t["label"], f"{t['votes']} of {t['of']}"]
        for t in agreement.ties
    ]
    return _summary(agreement), [
        (
            "F of each column against each row as gold (micro)",
            ["gold \\ predicted", *names],
            matrix,
        ),
        ("Per label", ["label", "alpha", "mean pairwise F"], labels),
        (
            "Each annotator: mean F with the others, and F against the majority consensus as gold",
            ["annotator", "mean F", "F vs consensus"],
            means,
        ),
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


def _card(agreement: Agreement, entry: dict[str, Any]) -> dict[str, Any]:
    """A queue document's card: its contested stretch (the sentence around its contested
    spans) with each annotator's spans, the first above the words, the others below."""
    names = list(entry["spans"])
    given = [(n, s, e, label) for n in names for s, e, label, _ in entry["spans"][n]]
    votes = Counter(g[1:] for g in given)
    contested = [k for k, v in votes.items() if v < len(names)]
    view = agreement.views[entry["id"]]
    a, b = sentence_window(view, min(k[0] for k in contested), max(k[1] for k in contested))
    marks = [
        Mark(
            s,
            e,
            "gold" if n == names[0] else "pred",
            f"{n}: {label}",
            votes[(s, e, label)] < len(names),
        )
        for n, s, e, label in given
        if s < b and e > a
    ]
    return {
        "document": entry["id"],
        "contested": f"{entry['contested']:,} contested",
        "summary": "; ".join(f"{n}: {plural(len(entry['spans'][n]), 'span')}" for n in names),
        "html": Markup(render_window(view, a, b, marks)),
    }


def _html(agreement: Agreement) -> str:
    """The page: the summary with the pairwise F heatmap, the tables, and the queue's cards."""
    summary, tables = sections(agreement)
    names = agreement.annotators
    cells: dict[tuple[str | None, str | None], float] = {
        (a, b): f
        for a in names
        for b in names
        if a != b
        for f in [agreement.pair_f(a, b)]
        if f is not None
    }
    return template().render(
        version=__version__,
        agreement={
            "summary": summary,
            "verdict": agreement.verdict_lines() if agreement.floors is not None else [],
            "passed": agreement.passed,
            "heatmap": Markup(heatmap(names, names, cells, title="Pairwise F", scores=True)),
            "tables": [
                {"id": i, "nav": n, "title": t, "header": h, "rows": r}
                for k, i, n in PAGE_TABLES
                for t, h, r in [tables[k]]
            ],
            "cards": [_card(agreement, d) for d in agreement.queue],
            "caption": "The documents by contested spans (given by some but not all of the "
            "annotators who saw the document, at the same extent and label), most first.",
            "first": "the first annotator of the document",
        },
        title="Annotator agreement",
        subtitle=summary[0],
        colors={"gold": GOLD_COLOR, "pred": PRED_COLOR, "error": ERROR_COLOR},
        errors={"kinds": []},
        disagreements=None,
        footer=f"spacy-span-eval {__version__} · a self-contained page: nothing is fetched "
        "when it is viewed.",
    )


def render_agreement(agreement: Agreement, output_format: str = "text") -> str:
    """The agreement in ``output_format`` (``text``, ``json``, ``markdown``, ``html``)."""
    check_output_format(output_format, COMPARE_FORMATS)
    if output_format == "json":
        return json_text(agreement.to_dict())
    if output_format == "html":
        return _html(agreement)
    summary, tables = sections(agreement)
    summary += agreement.verdict_lines() if agreement.floors is not None else []
    plain = output_format == "text"
    out = Plain() if plain else MarkdownRenderer()
    if not plain:
        out.add(out.title(2, "Annotator agreement"))
    out.add("\n".join(summary) if plain else out.list(summary))
    for title, header, rows in tables:
        out.add(f"\n{title}" if plain else out.title(3, title))
        out.add(grid(out, rows, header, _right(len(header) - 1), max_col=60) if rows else "(none)")
    return out.text
