"""The page's charts over thresholds and scores: threshold curves per figure (one or two
systems), precision-recall curves per label with the operating point, and the reliability
diagram (``--sweep``); and the summary's figures, each number formatted with its interval and
the support behind it (a label row's precision, recall and F; the headline tiles), which the
tests read value by value."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from markupsafe import Markup

from ...engine.bootstrap import FIGURES, BootstrapIntervals, Interval
from ...engine.ledger import N_FIELDS, Ledger
from ...jobs.system_run import SystemRun
from ..text import f_name, sweep_tables
from ..verdicts import figure_name
from .svg import AXIS, Series, interval_strip, line_chart, y_floor

__all__ = [
    "FIGURE_COLORS",
    "SYSTEM_COLORS",
    "SYSTEM_DASHES",
    "by_support",
    "curves",
    "f_name",
    "figure_cells",
    "fmt",
    "interval_text",
    "ledger_row",
    "operating_points",
    "strip_domain",
    "summary_figures",
]

#: What the template is given for one part of the page (its rows, captions and charts).
Context = dict[str, Any]

FIGURE_COLORS = {"precision": "#2563af", "recall": "#d9822b", "f": "#2e7d5b"}
SYSTEM_COLORS = ("#2e7d5b", "#7b3fb0")
SYSTEM_DASHES = (None, "5 3")
#: Labels the threshold curves show at most (those with most support).
CURVE_LABELS = 30
#: Points a precision-recall curve draws at most: evenly spread over its scores, the
#: operating point always among them (a page stays small at any number of scores).
PR_POINTS = 300
#: One chart's values per figure and threshold (``None`` for a label a system never saw).
CurveRows = Mapping[str, list[float | None]] | None


def _curve_series(
    runs: Sequence[SystemRun], rows_of: Sequence[CurveRows], xs: list[float]
) -> list[Series]:
    """One chart's lines: precision, recall and F of one system, or each system's F."""
    if len(runs) == 1:
        rows, beta = rows_of[0], runs[0].main.beta
        assert rows is not None
        return [Series(figure_name(f, beta), xs, rows[f], FIGURE_COLORS[f]) for f in FIGURES]
    return [
        Series(
            f"{run.name} {f_name(run.main.beta)}", xs, rows["f"], SYSTEM_COLORS[i], SYSTEM_DASHES[i]
        )
        for i, (run, rows) in enumerate(zip(runs, rows_of, strict=True))
        if rows is not None
    ]


def _system_legend(
    runs: Sequence[SystemRun], name: Callable[[SystemRun], str]
) -> list[dict[str, str]]:
    """A legend item per system, ``name(run)`` each: the first solid, the second dashed."""
    return [
        {
            "name": name(r),
            "cls": "dashed" if i else "",
            "style": f"background:{SYSTEM_COLORS[i]}" if not i else f"color:{SYSTEM_COLORS[i]}",
        }
        for i, r in enumerate(runs)
    ]


def _curve_legend(runs: Sequence[SystemRun]) -> list[dict[str, str]]:
    if len(runs) == 1:
        beta = runs[0].main.beta
        legend = [
            {"name": figure_name(f, beta), "cls": "", "style": f"background:{FIGURE_COLORS[f]}"}
            for f in FIGURES
        ]
    else:
        legend = _system_legend(runs, lambda r: f"{r.name} {f_name(r.main.beta)}")
    return [*legend, {"name": "main threshold", "cls": "dashed", "style": "color:#8a919c"}]


def curves(runs: Sequence[SystemRun]) -> Context | None:
    if not all(r.has_curve for r in runs):
        return None
    first = runs[0]
    xs = [float(t) for t in first.thresholds if t is not None]
    curves = [r.curve() for r in runs]
    # The micro chart, then one per label (a label called "micro" has its own).
    labels, hidden = _charted(first, [name for c in curves for name in c["per_label"]])
    charts_of = [
        ("micro", [c["micro"] for c in curves], first.main.micro),
        *(
            (name, [c["per_label"].get(name) for c in curves], first.main.per_label.get(name))
            for name in labels
        ),
    ]
    charts = []
    for name, rows_of, ledger in charts_of:
        series = _curve_series(runs, rows_of, xs)
        support = f"{ledger.num_annotated:,} gold" if ledger is not None else ""
        # Each chart its own y axis: one label at 0 everywhere flattens no other.
        y_min = y_floor([v for s in series for v in s.ys])
        chart = line_chart(
            series, title=name, subtitle=support, marker=first.threshold, y_min=y_min
        )
        charts.append(Markup(chart))
    caption = (
        "One engine pass at τ = 0.05, 0.10, …, 1.0. Recall and precision never rise "
        "as τ rises (docs/semantics.md §2.1): where a curve drops is where boundary "
        "errors start to cost. Each chart has its own y axis, from a tenth below its "
        "lowest value to 1 (read its axis before comparing two charts); hover a point for "
        "its value."
    )
    caption += _hidden_note(
        hidden, "the summary table (their curves: evaluate with the same thresholds, JSON output)"
    )
    return {"charts": charts, "legend": _curve_legend(runs), "caption": caption}


def _charted(first: SystemRun, names: Sequence[str]) -> tuple[list[str], int]:
    """The labels that get a chart (every one when there are few; else the
    :data:`CURVE_LABELS` with most gold spans) and how many are left out."""
    labels = list(dict.fromkeys(names))
    if len(labels) <= CURVE_LABELS:
        return labels, 0
    top = set(by_support(first.main.per_label)[:CURVE_LABELS])
    kept = [name for name in labels if name in top][:CURVE_LABELS]
    return kept, len(labels) - len(kept)


def _hidden_note(hidden: int, where: str) -> str:
    if not hidden:
        return ""
    return (
        f" Curves of the {CURVE_LABELS} labels with most gold spans; the other "
        f"{hidden:,} are in {where}."
    )


def _sweep_at(run: SystemRun) -> dict[str, Any] | None:
    """The sweep of the run's scores at its main threshold (``None``: not swept)."""
    return next((e for e in run.result.sweep or () if e["threshold"] == run.threshold), None)


def _pr_curve(
    name: str, where: str, figures: Mapping[str, Any], color: str, dash: str | None, beta: float
) -> tuple[Series, tuple[float, float, str, str]]:
    """A label's precision against recall, a point per score (at most :data:`PR_POINTS`),
    and its operating point: the best-F one. ``where``: the label (and system) in tooltips."""
    points, best = figures["points"], figures["best"]
    at = next(i for i, p in enumerate(points) if p["score"] == best["score"])
    n = len(points)
    shown = sorted({at, *(round(k * (n - 1) / (PR_POINTS - 1)) for k in range(PR_POINTS))})
    chosen = [points[i] for i in shown] if n > PR_POINTS else points

    def tip(p: Mapping[str, Any]) -> str:
        return (
            f"{where}: score ≥ {p['score']!r}: P {fmt(p['precision'])}, R {fmt(p['recall'])}, "
            f"{f_name(beta)} {fmt(p['f'])}"
        )

    series = Series(
        name,
        [p["recall"] for p in chosen],
        [p["precision"] for p in chosen],
        color,
        dash,
        [tip(p) for p in chosen],
    )
    return series, (best["recall"], best["precision"], color, f"best {tip(points[at])}")


def _reliability(title: str, figures: Mapping[str, Any], color: str) -> str:
    """The calibration table as a chart: each score bin's mean score against the share of
    its predictions credited, with the diagonal where the two agree."""
    bins = [b for b in figures["reliability"] if b["predictions"]]
    diagonal = Series("calibrated", [0.0, 1.0], [0.0, 1.0], AXIS, "3 3", ["diagonal"] * 2)
    shares = Series(
        "credited",
        [b["mean_score"] for b in bins],
        [b["credited"] for b in bins],
        color,
        tips=[
            f"scores {b['low']:g}–{b['high']:g}: {b['predictions']:,} predictions, mean "
            f"score {b['mean_score']:.3f}, {b['credited']:.1%} credited"
            for b in bins
        ],
    )
    return line_chart(
        [diagonal, shares],
        title=title,
        subtitle=f"ECE {fmt(figures['ece'])}",
        x_label="mean score of a bin",
    )


def _pr_chart(
    name: str, runs: Sequence[SystemRun], swept: Sequence[dict[str, Any]]
) -> Markup | None:
    """The precision-recall chart of label ``name`` (or micro): a curve per system that
    has a best point there, its AP in the subtitle; ``None`` when no system has one."""
    two = len(runs) > 1
    drawn = [
        (run, e["micro"] if name == "micro" else e["per_label"].get(name), i)
        for i, (run, e) in enumerate(zip(runs, swept, strict=True))
    ]
    curves = [
        _pr_curve(
            run.name if two else "precision",
            f"{name} ({run.name})" if two else name,
            f,
            SYSTEM_COLORS[i],
            SYSTEM_DASHES[i],
            run.main.beta,
        )
        for run, f, i in drawn
        if f is not None and f["best"] and f["average_precision"] is not None  # gold, points
    ]
    if not curves:
        return None
    aps = " / ".join(fmt(f["average_precision"]) if f else "–" for _, f, _ in drawn)
    series = [c[0] for c in curves]
    return Markup(
        line_chart(
            series,
            title=name,
            subtitle=f"AP {aps}",
            x_label="recall",
            y_min=y_floor([v for s in series for v in s.ys]),
            spots=[c[1] for c in curves],
        )
    )


def operating_points(runs: Sequence[SystemRun]) -> Context | None:
    """Per label and micro, precision against recall over the scores with the best-F point
    ringed; each system's calibration; the sweep's table (``--sweep``)."""
    entries = [_sweep_at(r) for r in runs]
    if any(e is None for e in entries):
        return None
    swept = [e for e in entries if e is not None]
    first, two = runs[0], len(runs) > 1
    names = [
        n
        for e in swept
        for n, v in e["per_label"].items()
        if v["best"] and v["average_precision"] is not None
    ]
    labels, hidden = _charted(first, names)
    charts = [c for c in (_pr_chart(n, runs, swept) for n in ("micro", *labels)) if c is not None]
    legend = _system_legend(runs, lambda r: f"{r.name} precision" if two else "precision")
    legend.append({"name": f"best {f_name(first.main.beta)} point", "cls": "ring", "style": ""})
    caption = (
        "Precision against recall as the score threshold falls: a threshold keeps the "
        "predictions scored at or above it, each point one distinct score (at most "
        f"{PR_POINTS} drawn, evenly spread over the scores), scored from scratch "
        "(docs/semantics.md §9). The ring marks the operating point: the best "
        f"{f_name(first.main.beta)}, at the highest score among ties. AP: average precision. "
        "Calibration: the predictions in ten equal-width score bins, each bin's mean score "
        "against the share of its predictions credited; on the dashed diagonal a score is "
        "the chance of being credited."
    ) + _hidden_note(hidden, "the table below")
    tables = [
        {
            "system": run.name,
            "title": f"{run.name}: {title}" if two else title,
            "header": header,
            "rows": rows,
        }
        for run in runs
        for title, header, rows in sweep_tables(run.result)
    ]
    return {
        "charts": charts,
        "calibration": [
            Markup(
                _reliability(
                    f"{run.name if two else 'micro'} calibration",
                    e["micro"],
                    SYSTEM_COLORS[i],
                )
            )
            for i, (run, e) in enumerate(zip(runs, swept, strict=True))
        ],
        "legend": legend,
        "caption": caption,
        "tables": tables,
    }


#: A summary row's intervals, per figure (``None``: no resamples).
Intervals = Mapping[str, Interval] | None
#: What the template shows of a summary row or a headline tile.
Figures = dict[str, object]


def fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


#: What an interval's support counts, per figure.
SUPPORT_OF = {"precision": "predicted", "recall": "gold", "f": "gold"}


def interval_text(interval: Interval | None, figure: str = "f", macro: bool = False) -> str:
    """``low–high · n = support``: every interval with the number of spans behind it."""
    if interval is None or interval.low is None or interval.high is None:
        return ""
    text = f"{interval.low:.3f}–{interval.high:.3f}"
    if interval.support is not None:
        what = "labels" if macro else SUPPORT_OF[figure]
        text += f" · n = {interval.support:,} {what}"
    return text


def strip_domain(intervals: Sequence[BootstrapIntervals | None]) -> tuple[float, float]:
    values = [
        v
        for bi in intervals
        if bi is not None
        for row in (*bi.per_label.values(), bi.micro, bi.macro)
        for v in (row["f"].low, row["f"].high, row["f"].estimate)
        if v is not None
    ]
    if not values:
        return 0.0, 1.0
    lo, hi = math.floor(min(values) * 10) / 10, math.ceil(max(values) * 10) / 10
    return (lo, hi) if hi - lo >= 0.1 else (max(0.0, hi - 0.1), hi)


def figure_cells(
    ratios: Sequence[float | None], row: Intervals, macro: bool = False
) -> list[dict[str, str]]:
    """A table cell per figure: the value, its interval and (a line of its own, so that a
    six-digit support widens no column) the support behind it."""
    cells = []
    for v, f in zip(ratios, FIGURES, strict=True):
        interval, n = interval_text(row[f] if row else None, f, macro).partition(" · ")[::2]
        cells.append({"value": fmt(v), "ci": interval, "n": n})
    return cells


def _row(
    name: str,
    counts: list[str],
    ratios: Sequence[float | None],
    row: Intervals,
    domain: tuple[float, float],
    cls: str,
    macro: bool = False,
) -> Figures:
    """A summary row: counts, P/R/F with their intervals, and F's interval strip."""
    f = row["f"] if row else None
    return {
        "name": name,
        "cls": cls,
        "counts": counts,
        "figures": figure_cells(ratios, row, macro),
        "strip": Markup(interval_strip(ratios[2], f.low, f.high, domain=domain)) if f else "",
    }


def ledger_row(
    name: str,
    ledger: Ledger,
    run: SystemRun,
    row: Intervals,
    domain: tuple[float, float],
    cls: str = "",
) -> Figures:
    """A summary row; ``row``: its intervals (looked up by the caller, so a label named
    like an aggregate never gets the aggregate's)."""
    z, beta = run.main.zero_division, run.main.beta
    ratios = (ledger.precision(z), ledger.recall(z), ledger.f(beta, z))
    return _row(name, [f"{n:,}" for n in ledger.to_row()], ratios, row, domain, cls)


def by_support(per_label: Mapping[str, Ledger]) -> list[str]:
    """Labels, most gold spans first (then most predicted, then by name)."""
    return sorted(
        per_label, key=lambda k: (-per_label[k].num_annotated, -per_label[k].num_predicted, k)
    )


def summary_figures(
    run: SystemRun, intervals: BootstrapIntervals | None, domain: tuple[float, float]
) -> tuple[list[Figures], list[Figures]]:
    """The summary table's rows (labels, micro, macro, any entity) and the four headline
    tiles, each figure with its interval and support."""
    main = run.main
    per_label = intervals.per_label if intervals is not None else {}
    micro_row = intervals.micro if intervals is not None else None
    macro_row = intervals.macro if intervals is not None else None
    rows = [
        ledger_row(label, ledger, run, per_label.get(label), domain)
        for label, ledger in sorted(main.per_label.items())
    ]
    rows.append(ledger_row("micro", main.micro, run, micro_row, domain, "pooled"))
    macro = [main.macro[f] for f in FIGURES]
    rows.append(_row("macro", [""] * N_FIELDS, macro, macro_row, domain, "pooled", macro=True))
    rows.append(ledger_row("any entity", main.entity_agnostic, run, None, domain, "pooled"))
    z = main.zero_division
    micro = (main.micro.precision(z), main.micro.recall(z), main.micro.f(main.beta, z))
    tiles = [("micro", f, v, micro_row) for f, v in zip(FIGURES, micro, strict=True)]
    tiles.append(("macro", "f", macro[2], macro_row))
    headline: list[Figures] = [
        {
            "name": f"{scope} {figure_name(f, main.beta)}",
            "cls": f[0],  # (p, r or f)
            "value": fmt(v),
            "ci": interval_text(row[f] if row else None, f, macro=scope == "macro"),
        }
        for scope, f, v, row in tiles
    ]
    return rows, headline
