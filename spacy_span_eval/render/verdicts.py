"""A paired difference in plain words: which system is higher on a figure, by how many
points, how sure (interval and p-value), and whether that is likely to be chance."""

from __future__ import annotations

from collections.abc import Iterator

from ..engine.bootstrap import FIGURES
from ..engine.paired import SMALL_SAMPLE, Difference, FigureDifference, PairedTest
from ..engine.result import ThresholdScores
from ..engine.settings import plural
from .summary import count, percent
from .text import f_name

__all__ = [
    "SIGNIFICANCE",
    "figure_name",
    "figure_verdicts",
    "format_p",
    "format_ps",
    "difference_rows",
    "holm_line",
    "is_significant",
    "p_value_method",
    "small_sample_note",
    "verdict",
]

#: Below this p-value a difference is called unlikely to be chance.
SIGNIFICANCE = 0.05


def format_p(p: float | None, *, name: str = "p") -> str:
    """A p-value as computed, to two significant digits: ``p < 0.001``, ``p = 0.0042``,
    ``p = 0.047``, ``p = 0.31``, ``p = 1.0``. Never rounded onto :data:`SIGNIFICANCE`: a
    p-value that two digits would show as the threshold gets as many more as it takes to
    land on its own side (0.0496 reads ``p = 0.0496``, not ``p = 0.050``)."""
    if p is None:
        return "-"
    if p < 0.001:
        return f"{name} < 0.001"
    digits = 2
    shown = f"{p:#.{digits}g}"
    while digits < 6 and p != SIGNIFICANCE and float(shown) == SIGNIFICANCE:
        digits += 1
        shown = f"{p:#.{digits}g}"
    return f"{name} = {shown}"


def is_significant(d: FigureDifference) -> bool:
    """Whether a difference is called unlikely to be chance: its p-value, Holm-adjusted where
    it is a label's (:attr:`~.FigureDifference.decisive_p`), below :data:`SIGNIFICANCE`."""
    p = d.decisive_p
    return p is not None and p < SIGNIFICANCE


def format_ps(d: FigureDifference) -> str:
    """The p-value, and after it the Holm-adjusted one where there is one:
    ``p = 0.047, Holm p = 0.28``."""
    shown = format_p(d.p_value)
    if d.adjusted and d.p_holm is not None:
        shown += f", {format_p(d.p_holm, name='Holm p')}"
    return shown


def figure_name(figure: str, beta: float = 1.0) -> str:
    """``precision``, ``recall`` or ``F1`` (``F2`` and so on for another beta)."""
    return f_name(beta) if figure == "f" else figure


def difference_rows(
    test: PairedTest, main: ThresholdScores
) -> Iterator[tuple[bool, str, str, bool, str, FigureDifference]]:
    """A row per label (then micro and macro) and figure of ``test``: ``(first, name, gold
    support, pooled, figure, difference)``, the name and support on a row's first figure
    only; micro's support is micro's gold spans, macro (a mean) has none."""
    for name, diff, pooled in test.named_rows():
        ledger = (main.micro if name == "micro" else None) if pooled else main.per_label.get(name)
        support = "" if ledger is None else count(ledger.num_annotated)
        for i, f in enumerate(FIGURES):
            shown = (name, support) if i == 0 else ("", "")
            yield i == 0, *shown, pooled, figure_name(f, main.beta), diff.figures[f]


def figure_verdicts(
    d: Difference, names: tuple[str, str], test: PairedTest, beta: float
) -> list[str]:
    """One :func:`verdict` per figure of a row of ``test``."""
    return [
        verdict(d.figures[f], figure_name(f, beta), names, confidence=test.confidence)
        for f in FIGURES
    ]


def _points(x: float) -> str:
    return f"{100 * x:.1f}"


def verdict(
    d: FigureDifference, figure: str, names: tuple[str, str], *, confidence: float = 0.95
) -> str:
    """One sentence on one figure: which system is higher, by how many points, the interval
    of that gap, the p-value (and a label's Holm-adjusted one) and whether the gap is
    unlikely to be chance (:func:`is_significant`: for a label, its Holm-adjusted p below
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
        return f"{a} and {b} have the same {figure} ({_points(d.a or 0.0)}%); {format_ps(d)}"
    higher, gap = (a, d.difference) if d.difference > 0 else (b, -d.difference)
    ci = ""
    if d.low is not None and d.high is not None:
        low, high = (d.low, d.high) if d.difference > 0 else (-d.high, -d.low)
        ci = f" ({percent(confidence)} CI {_points(low)} to {_points(high)})"
    chance = "unlikely to be chance" if is_significant(d) else "could be chance"
    unit = "point" if _points(gap) == "1.0" else "points"
    return f"{higher}'s {figure} is {_points(gap)} {unit} higher{ci}; {format_ps(d)}, {chance}"


def holm_line(test: PairedTest) -> str:
    """What the label-level p-values were adjusted over, and that micro and macro were not."""
    sizes = test.family_sizes()
    counts = sorted(set(sizes.values()))
    if not counts or counts == [0]:
        return "No label-level p-values to adjust; micro and macro are single tests."
    if len(counts) == 1:
        n = counts[0]
        families = (
            f"over {n:,} label{'s' if n != 1 else ''} (one family per figure: precision, recall, F)"
        )
    else:
        named = [(n, "F" if f == "f" else f) for f, n in sizes.items()]
        first, *rest = named
        per_figure = ", ".join(
            [f"{plural(first[0], 'label')} for {first[1]}", *(f"{n:,} for {f}" for n, f in rest)]
        )
        families = (
            f"over the labels, one family per figure: {per_figure} (a label whose difference "
            "is undefined has no p-value)"
        )
    return (
        f"Label-level p-values are Holm-adjusted {families}; a label's verdict rests on its "
        "Holm p. Micro and macro are "
        "single tests of the whole corpus and are not adjusted."
    )


def p_value_method(test: PairedTest) -> str:
    """How the p-values were computed, in words, and the smallest one that test can give."""
    if test.method == "bootstrap":
        how = (
            "the centred paired bootstrap (the resampled differences less the observed one: "
            "the null, centred on 0)"
        )
    else:
        tried = (
            f"all {count(2**test.n_documents)}"
            if test.exact
            else f"{count(test.resamples)} random (seed {test.seed})"
        )
        how = f"the paired permutation test over {tried} ways to swap documents between the systems"
    return f"{how}; the smallest p-value it can give is {test.smallest_p:.2g}"


def small_sample_note(test: PairedTest) -> str | None:
    """A warning below :data:`~.paired.SMALL_SAMPLE` paired documents; ``None`` from there."""
    if not test.small_sample:
        return None
    return (
        f"Only {plural(test.n_documents, 'document')}: a small sample (under {SMALL_SAMPLE} paired "
        "documents), so the intervals are rough and a real difference can easily read as "
        "chance."
    )
