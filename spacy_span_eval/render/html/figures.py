"""The report page's figures: each number the summary shows, formatted with its interval and
the support behind it.

Kept apart from the page's assembly so that the figures a reader acts on (a label row's
precision, recall and F; the headline tiles) sit in one small module that the tests read
value by value (and mutation testing covers).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from markupsafe import Markup

from ...engine.bootstrap import FIGURES, BootstrapIntervals, Interval
from ...engine.ledger import N_FIELDS, Ledger
from ...jobs.system_run import SystemRun
from ..text import f_name
from ..verdicts import figure_name
from .svg import interval_strip

__all__ = [
    "by_support",
    "f_name",
    "figure_cells",
    "fmt",
    "interval_text",
    "ledger_row",
    "strip_domain",
    "summary_figures",
]

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
