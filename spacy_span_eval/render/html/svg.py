"""Inline SVG charts for the HTML report: line charts, a heatmap, interval strips and a
difference (forest) plot.

Hand-drawn so the report needs no plotting dependency and works offline: each function
returns one ``<svg>`` string, sized in CSS pixels, with ``<title>`` tooltips on the marks.
Every text is escaped here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from itertools import groupby

from ...engine.paired import FigureDifference
from ..verdicts import format_ps, is_significant

__all__ = [
    "Series",
    "difference_plot",
    "heatmap",
    "interval_strip",
    "line_chart",
    "slice_strip",
    "y_floor",
]

FONT = "font-family:inherit;font-size:11px"
GRID = "#e3e6eb"
AXIS = "#8a919c"
INK = "#1f2933"
Y_TICK = 'class="y-tick"'
#: How the heatmap shows the "no label" row and column (``None``; a label may be called "O").
NO_LABEL_NAME = "(no label)"


def _n(x: float) -> str:
    """A coordinate, short."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _svg(width: float, height: float, body: list[str], label: str, cls: str) -> str:
    return (
        f'<svg class="{cls}" xmlns="http://www.w3.org/2000/svg" width="{_n(width)}" '
        f'height="{_n(height)}" viewBox="0 0 {_n(width)} {_n(height)}" role="img" '
        f'aria-label="{escape(label)}">' + "".join(body) + "</svg>"
    )


def _text(
    x: float, y: float, content: str, *, anchor: str = "start", extra: str = "", fill: str = INK
) -> str:
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}" fill="{fill}" '
        f'style="{FONT}" {extra}>{escape(content)}</text>'
    )


def _line(x1: float, x2: float, y1: float, y2: float, stroke: str, extra: str = "") -> str:
    return (
        f'<line x1="{_n(x1)}" x2="{_n(x2)}" y1="{_n(y1)}" y2="{_n(y2)}" stroke="{stroke}"{extra}/>'
    )


def _whisker(x1: float, x2: float, y: float, color: str, opacity: str) -> str:
    """An interval: a thick, round-ended, translucent line."""
    return _line(
        x1, x2, y, y, color, f' stroke-width="3" stroke-linecap="round" opacity="{opacity}"'
    )


@dataclass(frozen=True)
class Series:
    """One line: ``ys[i]`` at ``xs[i]``; ``None`` leaves a gap. ``tips``: each point's
    tooltip (else its value at its IoU threshold)."""

    name: str
    xs: Sequence[float]
    ys: Sequence[float | None]
    color: str
    dash: str | None = None
    tips: Sequence[str] | None = None

    def segments(self) -> list[list[tuple[float, float, str]]]:
        """Each run of defined values, as ``(x, y, tooltip)``."""
        points = list(zip(self.xs, self.ys, strict=True))
        shown = [f"{self.name} {y:.3f} at τ = {x:g}" for x, y in points if y is not None]
        tips = iter(self.tips or shown)
        return [
            [(x, y, next(tips)) for x, y in run if y is not None]
            for defined, run in groupby(points, key=lambda point: point[1] is not None)
            if defined
        ]


def y_floor(values: Sequence[float | None]) -> float:
    """The lower end of a shared y axis ending at 1: a tenth below the smallest value, so
    small drops are visible without hiding where the axis starts."""
    defined = [v for v in values if v is not None]
    return 0.0 if not defined else max(0.0, math.floor((min(defined) - 0.02) * 10) / 10)


Scale = Callable[[float], float]


def _series(s: Series, px: Scale, py: Scale) -> list[str]:
    """A series' polylines (one per run of defined values) and a dot with a tooltip per
    value."""
    dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
    body = []
    for seg in s.segments():
        points = " ".join(f"{_n(px(x))},{_n(py(y))}" for x, y, _ in seg)
        body.append(
            f'<polyline class="series" data-series="{escape(s.name)}" '
            f'points="{points}" fill="none" stroke="{s.color}" stroke-width="1.8" '
            f'stroke-linejoin="round"{dash}/>'
        )
        body += [
            f'<circle cx="{_n(px(x))}" cy="{_n(py(y))}" r="2.2" fill="{s.color}">'
            f"<title>{escape(tip)}</title></circle>"
            for x, y, tip in seg
        ]
    return body


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    subtitle: str = "",
    marker: float | None = None,
    width: float = 280,
    height: float = 210,
    x_label: str = "IoU threshold τ",
    y_min: float = 0.0,
    spots: Sequence[tuple[float, float, str, str]] = (),
) -> str:
    """Values in [y_min, 1] against x in [0, 1], with a dashed marker line at ``marker`` and
    a ring at each of ``spots`` (``(x, y, colour, tooltip)``: an operating point)."""
    left, right, top, bottom = 34.0, 10.0, 30.0, 32.0
    pw, ph = width - left - right, height - top - bottom
    y_span = (1.0 - y_min) or 1.0

    def px(x: float) -> float:
        return left + x * pw

    def py(y: float) -> float:
        return top + (1 - (y - y_min) / y_span) * ph

    body = [
        _text(4, 13, title, extra='font-weight="600"'),
        _text(width - 6, 13, subtitle, anchor="end", fill=AXIS),
    ]
    # Round y ticks: 0.05 or 0.1 apart when that needs at most five gaps, else 0.2.
    step = next((s for s in (0.05, 0.1) if y_span <= 5 * s + 1e-9), 0.2)
    for k in range(math.ceil(y_min / step - 1e-9), round(1 / step) + 1):
        y, tick = k * step, f"{k * step:.{2 if step < 0.1 else 1}f}"
        body.append(_line(left, left + pw, py(y), py(y), GRID))
        body.append(_text(left - 5, py(y) + 3.5, tick, anchor="end", fill=AXIS, extra=Y_TICK))
    for v in (0, 0.25, 0.5, 0.75, 1):
        body.append(_text(px(v), top + ph + 13, f"{v:g}", anchor="middle", fill=AXIS))
    body.append(
        f'<rect x="{_n(left)}" y="{_n(top)}" width="{_n(pw)}" height="{_n(ph)}" '
        f'fill="none" stroke="{AXIS}" stroke-width="0.6"/>'
    )
    body.append(_text(left + pw / 2, height - 3, x_label, anchor="middle", fill=AXIS))
    if marker is not None:
        body.append(
            f'<line class="marker" x1="{_n(px(marker))}" x2="{_n(px(marker))}" '
            f'y1="{_n(top)}" y2="{_n(top + ph)}" stroke="{AXIS}" '
            f'stroke-dasharray="3 3"><title>main threshold τ = {marker:g}</title></line>'
        )
    for s in series:
        body += _series(s, px, py)
    body += [
        f'<circle class="spot" cx="{_n(px(x))}" cy="{_n(py(y))}" r="5" fill="none" '
        f'stroke="{color}" stroke-width="2"><title>{escape(tip)}</title></circle>'
        for x, y, color, tip in spots
    ]
    names = ", ".join(s.name for s in series)
    label = f"{title}: {names} against {x_label}"
    return _svg(width, height, body, label, "chart line-chart")


def _mix(share: float, rgb: tuple[int, int, int]) -> str:
    """White blended towards ``rgb`` by ``share`` (0..1)."""
    share = min(1.0, max(0.0, share))
    r, g, b = (round(255 + (c - 255) * (0.12 + 0.88 * share)) for c in rgb)
    return f"#{r:02x}{g:02x}{b:02x}"


def _axis_name(name: str | None) -> str:
    return NO_LABEL_NAME if name is None else name


def _cell(
    x: float, y: float, size: tuple[float, float], shown: str, share: float, tip: str, fill: str
) -> str:
    """A heatmap cell: its square with the tooltip, and its value (``shown``) when it has one."""
    cw, ch = size
    ink = "#ffffff" if share > 0.55 else INK
    value = _text(x + (cw - 2) / 2, y + ch / 2 + 3, shown, anchor="middle", fill=ink)
    return (
        f'<g class="cell"><rect x="{_n(x)}" y="{_n(y)}" width="{_n(cw - 2)}" '
        f'height="{_n(ch - 2)}" rx="3" fill="{fill}" stroke="{GRID}">'
        f"<title>{escape(tip)}</title></rect>{value if shown else ''}</g>"
    )


def _what(row: str | None, col: str | None) -> str:
    """What a heatmap cell counts."""
    if row == col and row is not None:
        return "found as itself"
    if col is None:
        return "missed (no prediction)"
    return "spurious prediction" if row is None else f"predicted as {col}"


def heatmap(
    rows: Sequence[str | None],
    columns: Sequence[str | None],
    cells: Mapping[tuple[str | None, str | None], float],
    *,
    title: str,
    row_title: str = "gold",
    column_title: str = "predicted",
    scores: bool = False,
) -> str:
    """Counts per (row, column), shaded by their share of the row: blue on the diagonal
    (a row's label found as itself), red off it (missed or found as another label). ``None``
    in ``rows`` or ``columns`` is the "no label" row or column. ``scores``: the cells are
    F scores (of the column against the row), each shaded blue by its value."""
    cw, ch = 52.0, 30.0
    label_w = 14 + 7.0 * max(len(_axis_name(r)) for r in rows)
    head_h = 20 + 6.5 * min(18, max(len(_axis_name(c)) for c in columns)) * 0.72
    left, top = label_w + 18, 28 + head_h
    middle = top + ch * len(rows) / 2
    turn = f'transform="rotate(-90 12 {_n(middle)})"'
    body = [
        _text(4, 14, title, extra='font-weight="600"'),
        _text(left + cw * len(columns) / 2, 30, f"{column_title} →", anchor="middle", fill=AXIS),
        _text(12, middle, f"{row_title} →", anchor="middle", fill=AXIS, extra=turn),
    ]
    for j, col in enumerate(columns):
        x = left + cw * (j + 0.5)
        turn = f'transform="rotate(-40 {_n(x)} {_n(top - 8)})"'
        body.append(_text(x, top - 8, _axis_name(col), anchor="start", extra=turn))
    for i, row in enumerate(rows):
        y = top + ch * i
        body.append(_text(left - 6, y + ch / 2 + 4, _axis_name(row), anchor="end"))
        total = sum(cells.get((row, c), 0) for c in columns)
        for j, col in enumerate(columns):
            n = cells.get((row, col), 0)
            share = n if scores else n / total if total else 0.0
            diagonal = row == col and row is not None
            red = not diagonal and not scores
            fill = "#ffffff" if not n else _mix(share, (200, 55, 45) if red else (37, 99, 175))
            where = f"{row_title} {_axis_name(row)} → {column_title} {_axis_name(col)}"
            tip = (
                f"F of {column_title} {col} against {row_title} {row}: {n:.4f}"
                if scores
                else f"{where}: {n} ({share:.1%} of the row; {_what(row, col)})"
            )
            shown = (f"{n:.2f}" if (row, col) in cells else "") if scores else str(n) if n else ""
            body.append(_cell(left + cw * j, y, (cw, ch), shown, share, tip, fill))
    width, height = left + cw * len(columns) + 12, top + ch * len(rows) + 12
    kind = "pairwise F" if scores else "confusion"
    return _svg(width, height, body, f"{title}: {kind} heatmap", "chart heatmap")


def interval_strip(
    estimate: float | None,
    low: float | None,
    high: float | None,
    *,
    domain: tuple[float, float] = (0.0, 1.0),
    width: float = 130,
    height: float = 16,
    color: str = "#2e7d5b",
) -> str:
    """A dot at the estimate with a whisker from ``low`` to ``high`` on a shared scale."""
    lo, hi = domain
    span = (hi - lo) or 1.0

    def px(v: float) -> float:
        return 4 + (min(hi, max(lo, v)) - lo) / span * (width - 8)

    mid = height / 2
    body = [_line(4, width - 4, mid, mid, GRID)]
    if low is not None and high is not None:
        body.append(_whisker(px(low), px(high), mid, color, "0.45"))
    if estimate is not None:
        body.append(f'<circle cx="{_n(px(estimate))}" cy="{_n(mid)}" r="3.5" fill="{color}"/>')
    tip = ("undefined" if estimate is None else f"{estimate:.3f}") + (
        f" [{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
    )
    body.append(f"<title>{escape(tip)}</title>")
    return _svg(width, height, body, f"interval {tip}", "strip")


def _short(name: str, room: int) -> str:
    return name if len(name) <= room else name[: room - 1] + "…"


def slice_strip(
    title: str, rows: Sequence[tuple[str, float | None, int, str]], worst: str | None
) -> str:
    """A small multiple: a bar per slice (``(name, F, gold spans, tooltip)``) on a 0-1
    scale with its F and support; the ``worst`` slice's bar red, its name bold."""
    width, top, rh, x0, bar = 300.0, 22.0, 16.0, 94.0, 96.0
    body = [_text(4, 13, _short(title, 46), extra='font-weight="600"')]
    for i, (name, f, gold, tip) in enumerate(rows):
        y, bad = top + rh * i, name == worst
        color = "#c0392b" if bad else "#2e7d5b"
        mark = ' font-weight="700"' if bad else ""
        body.append(f'<g class="slice{" worst" if bad else ""}" data-slice="{escape(name)}">')
        body.append(f"<title>{escape(tip)}</title>")
        body.append(_text(4, y + 11, _short(name, 14), extra=mark, fill=color if bad else INK))
        body.append(
            f'<rect x="{_n(x0)}" y="{_n(y + 3)}" width="{_n(bar)}" height="10" fill="{GRID}"/>'
        )
        if f is not None:
            body.append(
                f'<rect x="{_n(x0)}" y="{_n(y + 3)}" width="{_n(f * bar)}" height="10" '
                f'fill="{color}"/>'
            )
        body.append(_text(x0 + bar + 6, y + 11, f"{'–' if f is None else f'{f:.3f}'} · n {gold:,}"))
        body.append("</g>")
    return _svg(width, top + rh * len(rows) + 6, body, f"{title}: F per slice", "chart slices")


def difference_plot(
    rows: Sequence[tuple[str, FigureDifference]], *, title: str, a: str, b: str
) -> str:
    """A minus B per named row with its interval around a zero line; a difference unlikely
    to be chance (:func:`~..verdicts.is_significant`: a label's Holm-adjusted p-value) is
    coloured (green: A better, red: B better)."""
    left = 14 + 7.0 * max(len(name) for name, _ in rows)
    plot_w, right, top, rh = 420.0, 260.0, 40.0, 24.0
    bottom = top + rh * len(rows)
    reach = max(
        [0.01, *(abs(v) for _, d in rows for v in (d.low, d.high, d.difference) if v is not None)]
    )
    reach = min(1.0, reach * 1.15)

    def px(v: float) -> float:
        return left + (v + reach) / (2 * reach) * plot_w

    body = [
        _text(4, 14, title, extra='font-weight="600"'),
        _text(px(-reach), 32, f"← {b} better", fill=AXIS),
        _text(px(reach), 32, f"{a} better →", anchor="end", fill=AXIS),
    ]
    for v in (-reach, -reach / 2, 0.0, reach / 2, reach):
        body.append(_line(px(v), px(v), top - 4, bottom, AXIS if v == 0 else GRID))
        tick = f"{v:+.2f}" if v else "0"
        body.append(_text(px(v), bottom + 14, tick, anchor="middle", fill=AXIS))
    for i, (name, d) in enumerate(rows):
        y = top + rh * i + rh / 2
        body.append(_text(left - 8, y + 4, name, anchor="end"))
        if d.difference is None:
            body.append(_text(px(0) + 6, y + 4, "undefined", fill=AXIS))
            continue
        color = AXIS if not is_significant(d) else "#2e7d5b" if d.difference > 0 else "#c0392b"
        if d.low is not None and d.high is not None:
            body.append(_whisker(px(d.low), px(d.high), y, color, "0.5"))
        body.append(
            f'<circle cx="{_n(px(d.difference))}" cy="{_n(y)}" r="4.5" fill="{color}">'
            f"<title>{escape(name)}: {d.difference:+.4f}, {format_ps(d)}</title></circle>"
        )
        body.append(_text(left + plot_w + 10, y + 4, f"{d.difference:+.4f}   {format_ps(d)}"))
    width, height = left + plot_w + right, bottom + 26
    return _svg(width, height, body, f"{title}: F differences with intervals", "chart diff")
