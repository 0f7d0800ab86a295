"""A paired difference in plain words: which system is higher on a figure, by how many
points, how sure (interval and p-value), and whether that is likely to be chance."""

from __future__ import annotations

from ..engine.bootstrap import FigureDifference

__all__ = ["SIGNIFICANCE", "figure_name", "format_p", "verdict"]

#: Below this p-value a difference is called unlikely to be chance.
SIGNIFICANCE = 0.05


def format_p(p: float | None) -> str:
    """A p-value as people read it: ``p < 0.001``, ``p = 0.004``, ``p = 0.31``."""
    if p is None:
        return "-"
    if p < 0.001:
        return "p < 0.001"
    return f"p = {p:.3f}" if p < 0.01 else f"p = {p:.2f}"


def figure_name(figure: str, beta: float = 1.0) -> str:
    """``precision``, ``recall`` or ``F1`` (``F2`` and so on for another beta)."""
    if figure == "f":
        return "F1" if beta == 1 else f"F{beta:g}"
    return figure


def _points(x: float) -> str:
    return f"{100 * x:.1f}"


def verdict(
    d: FigureDifference, figure: str, names: tuple[str, str], *, confidence: float = 0.95
) -> str:
    """One sentence on one figure: which system is higher, by how many points, the interval
    of that gap, the p-value and whether the gap is unlikely to be chance (p below
    :data:`SIGNIFICANCE`). E.g. ``B's recall is 2.1 points higher (95% CI 0.8 to 3.4);
    p < 0.001, unlikely to be chance``."""
    a, b = names
    if d.difference is None:
        missing = [n for n, v in ((a, d.a), (b, d.b)) if v is None]
        return (
            f"{figure} is undefined for {' and '.join(missing)} (no spans to compute it "
            "from); nothing to compare"
        )
    if abs(d.difference) < 1e-12:
        return f"{a} and {b} have the same {figure} ({_points(d.a or 0.0)}%); {format_p(d.p_value)}"
    higher, gap = (a, d.difference) if d.difference > 0 else (b, -d.difference)
    ci = ""
    if d.low is not None and d.high is not None:
        low, high = (d.low, d.high) if d.difference > 0 else (-d.high, -d.low)
        ci = f" ({confidence:.0%} CI {_points(low)} to {_points(high)})"
    chance = (
        "unlikely to be chance"
        if d.p_value is not None and d.p_value < SIGNIFICANCE
        else "could be chance"
    )
    unit = "point" if _points(gap) == "1.0" else "points"
    return (
        f"{higher}'s {figure} is {_points(gap)} {unit} higher{ci}; {format_p(d.p_value)}, {chance}"
    )
