"""The self-contained HTML page: summary with intervals, threshold curves, confusion heatmap,
error browser and gate verdict, for one system or two side by side (with their disagreement
view: per label, the gold spans one system finds and the other misses, and a card for each
kept one, the gold span in its context with both systems' predictions around it).

The page is one file: styles, script and charts are inline and nothing is fetched when it is
viewed. The layout lives in ``data/report.html.jinja`` (Jinja2 comes with spaCy, with
autoescaping on); this module only turns results into the values it shows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from importlib import resources
from typing import Any

from jinja2 import Environment, StrictUndefined, Template
from markupsafe import Markup

from ...about import __version__
from ...engine.bootstrap import BootstrapIntervals
from ...engine.confusion import NO_LABEL, Cell
from ...engine.gates import GateVerdict
from ...engine.ledger import Ledger
from ...engine.paired import PairedTest
from ...engine.settings import plural
from ...jobs.disagreements import VERDICTS, Disagreement, Disagreements
from ...jobs.system_run import SystemRun
from ..summary import (
    TAGGED_FORMATS,
    alignment_line,
    count,
    frequent_strings,
    kind_rows,
    percent,
    shown_notes,
)
from ..text import f_name, string_rows, verdict_table
from ..verdicts import (
    SIGNIFICANCE,
    difference_rows,
    figure_verdicts,
    format_p,
    holm_line,
    is_significant,
    p_value_method,
    small_sample_note,
    verdict,
)
from .charts import by_support, curves, fmt, operating_points, strip_domain, summary_figures
from .errors_view import (
    ERROR_COLOR,
    GOLD_COLOR,
    KIND_TITLES,
    PRED_COLOR,
    Mark,
    draw_text,
    error_cards,
    kind_color,
    kind_title,
    token_offsets,
)
from .svg import difference_plot, heatmap, slice_strip

__all__ = [
    "direction_titles",
    "disagreement_view",
    "render_page",
    "template",
]

#: What the template is given for one part of the page (its rows, captions and charts).
Context = dict[str, Any]

#: Error cards per page of the error browser.
PAGE_SIZE = 50
#: Labels the confusion heatmap shows at most (those with most support); the page stays
#: linear in the number of labels.
MATRIX_LABELS = 30
#: The error-kind table's columns: (key in KindCounts, header, side).
KIND_COLUMNS = (
    ("missed", "missed", "gold"),
    ("boundary_gold", "boundary", "gold"),
    ("wrong_label_gold", "wrong label", "gold"),
    ("spurious", "spurious", "predicted"),
    ("boundary_predicted", "boundary", "predicted"),
    ("wrong_label_predicted", "wrong label", "predicted"),
)


def template() -> Template:
    source = resources.files("spacy_span_eval") / "data" / "report.html.jinja"
    env = Environment(
        autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True
    )
    return env.from_string(source.read_text(encoding="utf-8"))


def _inputs(run: SystemRun) -> list[str]:
    lines = []
    for side, info in run.inputs.items():
        where = info.get("path") or info.get("model") or ""
        details = [str(info["format"])] if info.get("format") else []
        if "documents" in info:
            details.append(
                f"{plural(info['documents'], 'document')}, {plural(info.get('spans', 0), 'span')}"
            )
        if info.get("format") in TAGGED_FORMATS or info.get("repaired"):
            details.append(plural(info.get("repaired", 0), "repaired chunk"))
        lines.append(f"{side}: {where}" + (f" ({', '.join(details)})" if details else ""))
        if info.get("alignment"):
            lines.append(alignment_line(info["alignment"]))
    return lines


def _matrix(
    per_label: Mapping[str, Ledger], confusion: Mapping[Cell, int]
) -> tuple[list[str | None], Mapping[Cell, int]]:
    """The heatmap's axis and cells: every label when there are few; else the
    :data:`MATRIX_LABELS` with most support, the others pooled in one row and column (a
    matrix of every label grows with the square of their number)."""
    labels = sorted(per_label)
    if len(labels) <= MATRIX_LABELS:
        return [*labels, NO_LABEL], confusion
    shown = set(by_support(per_label)[:MATRIX_LABELS])
    other = f"({len(labels) - MATRIX_LABELS:,} other labels)"

    def fold(label: str | None) -> str | None:
        return label if label is None or label in shown else other

    cells: Counter[Cell] = Counter()
    for (g, p), n in confusion.items():
        cells[(fold(g), fold(p))] += n
    return [*sorted(shown), other, NO_LABEL], cells


def _system(
    run: SystemRun, intervals: BootstrapIntervals | None, domain: tuple[float, float]
) -> Context:
    rows, headline = summary_figures(run, intervals, domain)
    notes = sorted(shown_notes(run.result, run.inputs).items())
    shown = ", ".join(f"{k.replace('_', ' ')}: {v:,}" for k, v in notes)
    axis, cells = _matrix(run.main.per_label, run.main.confusion)
    where = "" if run.threshold is None else f" · τ = {run.threshold:g}"
    return {
        "name": run.name,
        "inputs": _inputs(run),
        "headline": headline,
        "rows": rows,
        "strip_domain": f"({domain[0]:g}–{domain[1]:g})",
        "notes": plural(run.result.n_documents, "document") + (f" · {shown}" if shown else ""),
        "strings": None if run.main.grounding is None else string_rows(run.main),
        "heatmap": Markup(heatmap(axis, axis, cells, title=f"{run.name}{where}")),
        "verdict": _verdict(run.verdict),
        "kinds": _error_kinds(run),
    }


def _error_kinds(run: SystemRun) -> Context | None:
    """The whole corpus's errors by kind per label (from the tallies) and the most frequent
    error strings per label, for the page."""
    found = kind_rows(run.main)
    if found is None:
        return None
    rows = [
        {
            "name": name,
            "cls": "pooled" if pooled else "",
            "cells": [(key, cells[key]) for key, _, _ in KIND_COLUMNS],
            "fn": cells["fn"],
            "fp": cells["fp"],
            "gold": count((run.main.micro if pooled else run.main.per_label[name]).num_annotated),
        }
        for name, pooled, cells in found
    ]
    strings = frequent_strings(run.main)
    return {"rows": rows, "strings": [{"label": k, "lists": v} for k, v in strings.items()]}


def _verdict(verdict: GateVerdict | None) -> Context | None:
    if verdict is None:
        return None
    header, rows = verdict_table(verdict)  # (label, figure, value, floor, result)
    checks = [
        {**dict(zip(header, r, strict=True)), "passed": c.passed}
        for r, c in zip(rows, verdict.checks, strict=True)
    ]
    return {"passed": verdict.passed, "headline": verdict.lines()[0], "checks": checks}


def _comparison_rows(a: SystemRun, names: tuple[str, str], test: PairedTest) -> list[Context]:
    """A row per label (then micro and macro) and figure."""
    return [
        {
            "name": name,
            "first": first,
            "cls": "pooled" if pooled else "",
            "support": support,
            "figure": figure,
            "a": fmt(d.a),
            "b": fmt(d.b),
            "difference": "–" if d.difference is None else f"{d.difference:+.4f}",
            "interval": "" if d.low is None or d.high is None else f"[{d.low:+.3f}, {d.high:+.3f}]",
            "p": format_p(d.p_value),
            "p_holm": format_p(d.p_holm) if d.adjusted else "",
            "significant": is_significant(d),
            "verdict": verdict(d, figure, names, confidence=test.confidence),
        }
        for first, name, support, pooled, figure, d in difference_rows(test, a.main)
    ]


def _comparison(runs: Sequence[SystemRun], test: PairedTest) -> Context:
    a, b = runs
    names = (a.name, b.name)
    note = small_sample_note(test)
    caption = ("" if note is None else f"{note} ") + (
        f"Precision, recall and {f_name(a.main.beta)} of {a.name} minus {b.name} on the same "
        f"{plural(test.n_documents, 'document')}. Intervals: {percent(test.confidence)} "
        f"percentile, paired bootstrap, {test.resamples:,} resamples (seed {test.seed}). "
        "p-value: two-sided, "
        f"{p_value_method(test)}; a difference is called unlikely to be chance "
        f"(and coloured) when p < {SIGNIFICANCE:g} (for a label, its Holm p). "
        f"{holm_line(test)}"
    )
    plot = difference_plot(
        [(name, d.figures["f"]) for name, d, _ in test.named_rows()],
        title=f"{f_name(a.main.beta)} difference",
        a=a.name,
        b=b.name,
    )
    return {
        "a": a.name,
        "b": b.name,
        "rows": _comparison_rows(a, names, test),
        "caption": caption,
        "plot": Markup(plot),
        "headline": figure_verdicts(test.micro, names, test, a.main.beta),
    }


def _slice_charts(name: str, table: Mapping[str, Any]) -> list[Context]:
    """A small multiple per label, then micro: a bar per slice with spans of it, the
    label's worst slice (micro: the lowest F among slices with gold) highlighted."""
    labels = sorted({label for s in table["slices"] for label in s["per_label"]})
    out = []
    for label in [*labels, None]:
        rows = []
        for s in table["slices"]:
            led = s["micro"] if label is None else s["per_label"][label]
            if not (led["num_annotated"] or led["num_predicted"]):
                continue
            docs = f", {plural(s['documents'], 'document')}" if "documents" in s else ""
            tip = (
                f"{s['slice']}: F {fmt(led['f'])}, P {fmt(led['precision'])}, R "
                f"{fmt(led['recall'])}; {led['num_annotated']:,} gold, "
                f"{led['num_predicted']:,} predicted{docs}"
            )
            rows.append((s["slice"], led["f"], led["num_annotated"], tip))
        scored = [(f, n) for n, f, gold, _ in rows if gold and f is not None]
        worst = table["worst"].get(label) if label else min(scored, default=(0, None))[1]
        chart = slice_strip(f"{label or 'micro'} by {name}", rows, worst)
        out.append({"label": label or "micro", "field": name, "chart": Markup(chart)})
    return out


def _interval_caption(intervals: Sequence[BootstrapIntervals | None], run: SystemRun) -> str:
    bi = next((x for x in intervals if x is not None), None)
    where = "" if run.threshold is None else f" at IoU τ = {run.threshold:g}"
    if bi is None:
        return f"Scores{where}; no intervals (no resamples requested)."
    small = (
        " For precision and recall (and F over few spans) the interval also covers the "
        "Wilson score interval, so a figure over a handful of spans never reads as "
        "certain; n is the number of spans behind each interval (see docs/report.md)."
        if bi.small_sample
        else ""
    )
    return (
        f"Scores{where}. Intervals: {percent(bi.confidence)} percentile bootstrap over the "
        f"{plural(bi.n_documents, 'document')} ({bi.resamples:,} resamples, seed {bi.seed}); "
        f"precision = credited / predicted, recall = TP / gold.{small}"
    )


def _errors(runs: Sequence[SystemRun], where: str) -> Context:
    """The error browser: a card per error kept, the kinds present and their filter."""
    cards = [
        replace(card, html=Markup(card.html))
        for run in runs
        for card in error_cards(run.name, run.errors, run.documents, run.relabels())
    ]
    total = sum(run.main.micro.fn + run.main.micro.fp for run in runs)
    kept = sum(len(run.errors) for run in runs)
    # The kinds present, the known ones in their usual order: a new kind needs no code here.
    order = list(KIND_TITLES)
    present = sorted(
        {c.kind for c in cards}, key=lambda k: (order.index(k) if k in order else len(order), k)
    )
    counts = Counter(c.kind for c in cards)
    return {
        "cards": cards,
        "kinds": [
            {"value": k, "title": kind_title(k), "color": kind_color(k), "count": counts[k]}
            for k in present
        ],
        "page_size": PAGE_SIZE,
        "labels": sorted({label for c in cards for label in c.labels}),
        "caption": (
            f"{kept:,} of {total:,} error records{where} shown, as "
            f"{len(cards):,} cards, each in its sentence with every gold and "
            "predicted span around it. The records shown are a seeded, "
            "stratified sample of the whole corpus: every kind and label gets a "
            "record before any gets a second, documents drawn at random (the "
            "same every run), listed in document order. A relabelled span is "
            "one card, with the predictions that relabel it and their boundary "
            "IoU."
        ),
    }


def render_page(
    runs: Sequence[SystemRun],
    *,
    intervals: Sequence[BootstrapIntervals | None] | None = None,
    comparison: PairedTest | None = None,
    disagreements: Disagreements | None = None,
    title: str | None = None,
) -> str:
    """The report page of one system, or of two with their paired comparison (and the gold
    spans one finds and the other misses)."""
    intervals = list(intervals) if intervals is not None else [None] * len(runs)
    domain = strip_domain(intervals)
    first = runs[0]
    s = first.result.settings
    where = "" if first.threshold is None else f" at τ = {first.threshold:g}"
    parts = [s.strategy, f"{s.unit} unit", plural(first.result.n_documents, "document")]
    if first.threshold is not None:
        parts.insert(1, f"IoU ≥ {first.threshold:g}")
    if s.beta != 1:
        parts.append(f"β = {s.beta:g}")
    names = " vs ".join(run.name for run in runs)
    return template().render(
        version=__version__,
        agreement=None,
        title=title
        or ("Span evaluation report" if len(runs) == 1 else f"Span evaluation: {names}"),
        subtitle=" · ".join(parts),
        f_name=f_name(s.beta),
        strategy=s.strategy,
        interval_caption=_interval_caption(intervals, first),
        systems=[_system(r, bi, domain) for r, bi in zip(runs, intervals, strict=True)],
        any_gate=any(r.verdict is not None for r in runs),
        comparison=_comparison(runs, comparison) if comparison is not None else None,
        disagreements=None if disagreements is None else disagreement_view(disagreements),
        curves=curves(runs),
        operating=operating_points(runs),
        at_threshold=where,
        kind_headers=[h for _, h, _ in KIND_COLUMNS],
        colors={"gold": GOLD_COLOR, "pred": PRED_COLOR, "error": ERROR_COLOR},
        errors=_errors(runs, where),
        slices=[
            {"system": run.name, **chart}
            for run in runs
            for name, table in run.slices.items()
            for chart in _slice_charts(name, table)
        ],
        footer=(
            f"spacy-span-eval {__version__} · two-sided counting: recall per gold "
            "annotation, precision per predicted span (credited / predicted) · a "
            "self-contained page: nothing is fetched when it is viewed."
        ),
    )


def direction_titles(names: tuple[str, str]) -> dict[str, str]:
    a, b = names
    return {"a_only": f"{a} right, {b} wrong", "b_only": f"{b} right, {a} wrong"}


def _window(d: Disagreement) -> tuple[str, int, list[int], list[int]]:
    """The context as one string, the unit position its first character stands for, and
    the character offsets where each unit position starts and ends in it."""
    left, text, right = d.left or "", d.text or "", d.right or ""
    if d.unit != "token":
        window = left + text + right
        first = d.start - len(left)
        offsets = list(range(len(window) + 1))
        return window, first, offsets, offsets
    tokens = [t for part in (left, text, right) if part for t in part.split(" ")]
    first = d.start - (len(left.split(" ")) if left else 0)
    return " ".join(tokens), first, *token_offsets(tokens)


def _card_html(d: Disagreement, names: tuple[str, str]) -> str:
    """The gold span (above the words) in its context; each system's predictions
    that overlap it below, labelled with the system's name."""
    window, first, starts, ends = _window(d)
    n = len(starts) - 1

    def place(s: int, e: int) -> tuple[int, int]:
        s, e = max(s - first, 0), min(e - first, n)
        return (starts[s], ends[e - 1]) if e > s else (0, 0)

    spans = [(*place(d.start, d.end), Mark(d.start, d.end, "gold", d.label, False))]
    for name, preds in zip(names, (d.pred_a, d.pred_b), strict=True):
        for s, e, label in preds:
            spans.append((*place(s, e), Mark(s, e, "pred", f"{name}: {label}", False)))
    spans = [x for x in spans if x[1] > x[0]]
    lead = "… " if first > 0 else ""
    spans = [(s + len(lead), e + len(lead), m) for s, e, m in spans]
    return f'<div class="snippet">{draw_text(lead + window, spans)}</div>'


def _summary(d: Disagreement, names: tuple[str, str]) -> str:
    found, missed = names if d.direction == "a_only" else names[::-1]
    preds = d.pred_b if d.direction == "a_only" else d.pred_a
    text = "" if d.text is None else f"“{d.text}” "
    what = (
        "predicts nothing over it"
        if not preds
        else "predicts " + ", ".join(f"{label} [{s}, {e})" for s, e, label in preds)
    )
    return f"gold {d.label} {text}found by {found}; {missed} {what}"


def disagreement_view(d: Disagreements) -> dict[str, object]:
    """What the page's disagreement section shows."""
    titles = direction_titles(d.names)
    rows = [
        {
            "label": label,
            "a_only": f"{x:,}",
            "b_only": f"{y:,}",
            "both": f"{z:,}",
            "neither": f"{w:,}",
        }
        for label, x, y, z, w in d.rows()
    ]
    totals = {key: f"{d.total(key):,}" for key in VERDICTS}
    cards = [
        {
            "direction": x.direction,
            "title": titles[x.direction],
            "label": x.label,
            "document": x.document,
            "where": f"[{x.start}, {x.end})",
            "summary": _summary(x, d.names),
            "html": Markup(_card_html(x, d.names)),
        }
        for x in d.shown
    ]
    where = "" if d.threshold is None else f" at IoU ≥ {d.threshold:g}"
    unpaired = (
        f" {d.unpaired_documents:,} documents in one system's pairing only are left out."
        if d.unpaired_documents
        else ""
    )
    caption = (
        f"Gold spans found{where} by one system and missed by the other: every gold span "
        "is counted, from the engine's match flags for each system. "
        f"{len(cards):,} of {d.n_disagreements:,} disagreements shown, a seeded sample "
        "spread across labels and directions (every label and direction gets a span before "
        f"any gets a second), in document order.{unpaired}"
    )
    return {
        "titles": titles,
        "rows": rows,
        "totals": totals,
        "cards": cards,
        "labels": sorted({c["label"] for c in cards}),
        "caption": caption,
        "shown": f"{len(cards):,}",
        "total": f"{d.n_disagreements:,}",
    }
