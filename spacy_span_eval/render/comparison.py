"""A :class:`~spacy_span_eval.jobs.compare.Comparison` as text, Markdown, JSON or HTML.

Text and Markdown give, for each label, micro and macro, the precision, recall and F of both
systems, their difference with its paired interval and p-value (a label's also Holm-adjusted
over the labels, figure by figure), and one verdict in plain words per figure
(:func:`~.verdicts.verdict`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from typing import Literal

from wasabi.markdown import MarkdownRenderer

from ..engine.bootstrap import FIGURES
from ..engine.paired import SMALL_SAMPLE, FigureDifference
from ..engine.settings import plural
from ..errors import printable
from ..jobs.compare import Comparison
from ..jobs.disagreements import VERDICTS
from .report import COMPARE_FORMATS, check_output_format, check_renderers, json_text
from .summary import count, percent
from .text import Plain, _ratio, f_name, grid, rule_before_summary, titled
from .verdicts import (
    SIGNIFICANCE,
    difference_rows,
    figure_verdicts,
    format_p,
    holm_line,
    p_value_method,
    small_sample_note,
)

__all__ = [
    "COMPARE_FORMATS",
    "COMPARISON_RENDERERS",
    "ap_rows",
    "comparison_caption",
    "comparison_rows",
    "disagreement_caption",
    "disagreement_rows",
    "render_comparison",
    "verdicts",
]

ALIGNS: tuple[Literal["l", "r"], ...] = ("l", "r", "l", "r", "r", "r", "r", "r", "r")
DISAGREEMENT_ALIGNS: tuple[Literal["l", "r"], ...] = ("l", "r", "r", "r", "r")
SLICE_ALIGNS: tuple[Literal["l", "r"], ...] = ("l", "l", *ALIGNS[3:], "r")


def _difference_cells(d: FigureDifference) -> list[str]:
    """A difference's cells: A, B, A - B, its interval, p and (when adjusted) Holm's p."""
    interval = "-" if d.low is None or d.high is None else f"[{d.low:+.4f}, {d.high:+.4f}]"
    holm = format_p(d.p_holm) if d.adjusted else ""
    return [
        _ratio(d.a),
        _ratio(d.b),
        _ratio(d.difference, "+"),
        interval,
        format_p(d.p_value),
        holm,
    ]


def verdicts(comparison: Comparison) -> list[tuple[str, list[str]]]:
    """``(row, sentences)``, one sentence per figure, for micro, macro and then each label
    (a label called ``micro`` or ``macro`` is a row of its own, after the aggregates)."""
    test, names = comparison.test, comparison.names
    beta = comparison.runs[0].main.beta
    rows = [("micro", test.micro), ("macro", test.macro), *test.per_label.items()]
    return [(name, figure_verdicts(d, names, test, beta)) for name, d in rows]


def comparison_rows(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    """Header and rows: each label, then micro and macro, one row per figure."""
    a, b = comparison.names
    main = comparison.runs[0].main
    interval = f"{percent(comparison.test.confidence)} interval"
    header = ["", "gold", "figure", a, b, f"{a} - {b}", interval, "p", "Holm p"]
    out = [
        [
            name,
            support,
            figure,
            *_difference_cells(d),
        ]
        for _, name, support, _, figure, d in difference_rows(comparison.test, main)
    ]
    return header, out


def slice_rows(comparison: Comparison) -> Iterator[tuple[str, list[str], list[list[str]]]]:
    """Per ``--slice-by`` field: a row per label and slice with a difference in F (F of
    each system, the difference, its interval, p and the Holm p over slices x labels)."""
    header = ["label", "slice", "docs", *comparison_rows(comparison)[0][3:]]
    for name, tests in comparison.slices.items():
        rows = [
            [label, value, count(t.n_documents), *_difference_cells(d)]
            for label in sorted({lab for t in tests.values() for lab in t.per_label})
            for value, t in tests.items()
            for d in [t.per_label[label].figures["f"]]
            if d.difference is not None
        ]
        small = sum(t.small_sample for t in tests.values())
        note = f"; {small} of {len(tests)} under {SMALL_SAMPLE} documents: small samples"
        f = f_name(comparison.runs[0].main.beta)
        title = f"{f} per slice by {name} (Holm over slices x labels{note if small else ''})"
        yield title, header, rows


def comparison_caption(comparison: Comparison) -> str:
    t = comparison.test
    a, b = comparison.names
    where = "" if t.threshold is None else f" at IoU >= {t.threshold:g}"
    return (
        f"{a} minus {b}{where} on {plural(t.n_documents, 'document')}: "
        f"{percent(t.confidence)} paired-bootstrap percentile intervals ({count(t.resamples)} "
        f"resamples, seed {t.seed}) and two-sided p-values by {p_value_method(t)}. A "
        f"difference is called unlikely to be chance when p < {SIGNIFICANCE:g} (for a label, "
        "its Holm p)."
    )


def disagreement_rows(comparison: Comparison) -> tuple[list[str], list[list[str]]] | None:
    """Header and rows of the gold spans one system finds and the other misses, per label
    (most disagreements first), then the total; ``None`` when they were not looked for."""
    d = comparison.disagreements
    if d is None:
        return None
    a, b = comparison.names
    header = ["label", f"{a} right, {b} wrong", f"{b} right, {a} wrong", "both right", "both wrong"]
    rows = [[label, *(count(n) for n in ns)] for label, *ns in d.rows()]
    rows.append(["all", *(count(d.total(k)) for k in VERDICTS)])
    return header, rows


def ap_rows(comparison: Comparison) -> tuple[list[str], list[list[str]]] | None:
    """Header and rows of each label's average precision, then mAP's (``--sweep`` only)."""
    t = comparison.test
    if t.average_precision is None or t.map is None:
        return None
    header, _ = comparison_rows(comparison)
    rows = [
        [
            name,
            *_difference_cells(d),
        ]
        for name, d in [*t.average_precision.items(), ("mAP", t.map)]
    ]
    return [header[0], *header[3:]], rows


AP_CAPTION = (
    "Average precision over the predictions' scores (semantics §9), per label and its mean "
    "over the labels with gold (mAP), tested as F is: the same swaps of documents between the "
    "systems, as many bootstrap resamples (seeded alike)."
)


def disagreement_caption(comparison: Comparison) -> str:
    d = comparison.disagreements
    assert d is not None
    where = "" if d.threshold is None else f" at IoU >= {d.threshold:g}"
    unpaired = (
        f" {count(d.unpaired_documents)} documents were in one system's pairing only and are "
        "left out."
        if d.unpaired_documents
        else ""
    )
    return (
        f"Gold spans found{where} by one system and missed by the other, per label, from "
        f"the engine's match flags; every span counted, {len(d.shown):,} of "
        f"{d.n_disagreements:,} disagreements kept as a seeded sample spread across labels "
        f"and directions (in the JSON and the HTML page).{unpaired}"
    )


def render_comparison(
    comparison: Comparison, output_format: str = "text", *, title: str | None = None
) -> str:
    check_output_format(output_format, tuple(COMPARISON_RENDERERS))
    return COMPARISON_RENDERERS[output_format](comparison, title)


def _json(comparison: Comparison, title: str | None) -> str:
    return json_text(comparison.to_dict())


def _html(comparison: Comparison, title: str | None) -> str:
    from .html import render_page  # (Jinja2 and the chart code load only for a page)

    return render_page(
        list(comparison.runs),
        intervals=list(comparison.intervals),
        comparison=comparison.test,
        disagreements=comparison.disagreements,
        title=title,
    )


def _write(comparison: Comparison, out: MarkdownRenderer) -> str:
    """The comparison as text (``out`` a :class:`~.text.Plain`: paragraphs wrapped at 100
    columns, each row's verdicts an indented list under its name) or Markdown."""
    plain = isinstance(out, Plain)

    def say(text: str, end: str = "") -> None:
        out.add(textwrap.fill(text, 100) + end if plain else text)

    a, b = comparison.names
    header, rows = comparison_rows(comparison)
    note = small_sample_note(comparison.test)
    out.add(f"== Comparison: {a} vs {b}\n" if plain else out.title(2, f"Comparison: {a} vs {b}"))
    if note is not None:
        say(note if plain else f"**{note}**", "\n")
    say(holm_line(comparison.test), "\n")
    for name, sentences in verdicts(comparison):
        if plain:
            out.add("\n".join([f"{name}:", *(f"  {sentence}" for sentence in sentences)]))
        else:
            out.add(out.title(3, name))
            out.add(out.list(sentences))
    main = grid(out, rows, header, ALIGNS, max_col=30)
    pooled = len(FIGURES) * len(comparison.test.per_label)
    out.add("\n" + rule_before_summary(main, pooled) if plain else main)
    say(comparison_caption(comparison))
    ap = ap_rows(comparison)
    if ap is not None:
        titled(out, out.title(3, "Average precision"), *ap, ALIGNS[:1] + ALIGNS[3:], 30)
        say(AP_CAPTION)
    for title, header, rows in slice_rows(comparison):
        titled(out, out.title(3, title), header, rows, SLICE_ALIGNS, 30)
    found = disagreement_rows(comparison)
    if found is not None:
        titled(out, out.title(3, "Where they disagree"), *found, DISAGREEMENT_ALIGNS, 30)
        say(disagreement_caption(comparison))
    return printable(out.text)


#: The renderer of each comparison format: ``(comparison, title) -> str``.
COMPARISON_RENDERERS: dict[str, Callable[[Comparison, str | None], str]] = {
    "text": lambda comparison, title: _write(comparison, Plain()),
    "json": _json,
    "markdown": lambda comparison, title: _write(comparison, MarkdownRenderer()),
    "html": _html,
}
check_renderers("comparison", COMPARE_FORMATS, COMPARISON_RENDERERS)
