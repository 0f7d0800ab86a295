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

from ...engine.bootstrap import BootstrapIntervals, Interval
from ...engine.ledger import N_FIELDS, Ledger
from ...jobs.system_run import SystemRun
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


def f_name(beta: float) -> str:
    return "F1" if beta == 1 else f"F{beta:g}"


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
    ratios: tuple[float | None, ...], row: dict[str, Interval] | None, macro: bool = False
) -> list[dict]:
    """A table cell per figure: the value, its interval and (a line of its own, so that a
    six-digit support widens no column) the support behind it."""
    cells = []
    for v, f in zip(ratios, ("precision", "recall", "f"), strict=True):
        interval, n = interval_text(row[f] if row else None, f, macro).partition(" · ")[::2]
        cells.append({"value": fmt(v), "ci": interval, "n": n})
    return cells


def ledger_row(
    name: str, ledger: Ledger, run: SystemRun, row: dict[str, Interval] | None, domain, cls=""
) -> dict:
    """A summary row; ``row``: its intervals (looked up by the caller, so a label named
    like an aggregate never gets the aggregate's)."""
    z, beta = run.main.zero_division, run.main.beta
    f_interval = row["f"] if row else None
    return {
        "name": name,
        "cls": cls,
        "counts": [f"{n:,}" for n in ledger.to_row()],
        "figures": figure_cells((ledger.precision(z), ledger.recall(z), ledger.f(beta, z)), row),
        "strip": Markup(
            interval_strip(ledger.f(beta, z), f_interval.low, f_interval.high, domain=domain)
        )
        if f_interval
        else "",
    }


def by_support(per_label: Mapping[str, Ledger]) -> list[str]:
    """Labels, most gold spans first (then most predicted, then by name)."""
    return sorted(
        per_label, key=lambda k: (-per_label[k].num_annotated, -per_label[k].num_predicted, k)
    )


def summary_figures(
    run: SystemRun, intervals: BootstrapIntervals | None, domain: tuple[float, float]
) -> tuple[list[dict], list[dict]]:
    """The summary table's rows (labels, micro, macro, any entity) and the four headline
    tiles, each figure with its interval and support."""
    main = run.main
    z = main.zero_division
    micro = main.micro
    rows = [
        ledger_row(
            label,
            ledger,
            run,
            intervals.per_label.get(label) if intervals is not None else None,
            domain,
        )
        for label, ledger in sorted(main.per_label.items())
    ]
    micro_row = intervals.micro if intervals is not None else None
    rows.append(ledger_row("micro", micro, run, micro_row, domain, "pooled"))
    macro_row = intervals.macro if intervals is not None else None
    rows.append(
        {
            "name": "macro",
            "cls": "pooled",
            "counts": [""] * N_FIELDS,
            "figures": figure_cells(
                (main.macro["precision"], main.macro["recall"], main.macro["f"]),
                macro_row,
                macro=True,
            ),
            "strip": Markup(
                interval_strip(
                    main.macro["f"], macro_row["f"].low, macro_row["f"].high, domain=domain
                )
            )
            if macro_row
            else "",
        }
    )
    rows.append(ledger_row("any entity", main.entity_agnostic, run, None, domain, "pooled"))
    beta_name = f_name(main.beta)
    headline = [
        {
            "name": "micro precision",
            "cls": "p",
            "value": fmt(micro.precision(z)),
            "ci": interval_text(micro_row["precision"] if micro_row else None, "precision"),
        },
        {
            "name": "micro recall",
            "cls": "r",
            "value": fmt(micro.recall(z)),
            "ci": interval_text(micro_row["recall"] if micro_row else None, "recall"),
        },
        {
            "name": f"micro {beta_name}",
            "cls": "f",
            "value": fmt(micro.f(main.beta, z)),
            "ci": interval_text(micro_row["f"] if micro_row else None),
        },
        {
            "name": f"macro {beta_name}",
            "cls": "f",
            "value": fmt(main.macro["f"]),
            "ci": interval_text(macro_row["f"] if macro_row else None, "f", macro=True),
        },
    ]
    return rows, headline
