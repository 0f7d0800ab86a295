"""Readable reports of an evaluation and a gate verdict: plain-text tables and Markdown.
Names in the data are printed with their control characters escaped (the cells of a table
before it is laid out, so that its columns line up; then the whole text).

Functions here return strings; the CLI prints them through its one printer. By default each
hierarchy level is one table: a row per label (then micro, macro, weighted and the
entity-agnostic row) with its support, and one column group (P, R, F) per threshold, so the
thresholds read side by side. ``wide=True`` gives the full ledger of every threshold instead
(gold, pred, TP, FN, credited, FP, P, R, F), one table each. Counts carry thousands
separators; an undefined ratio shows as ``-`` (it is ``None`` in JSON), never as 0.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Literal

from wasabi.markdown import MarkdownRenderer
from wasabi.tables import table

from ..engine.ledger import Ledger
from ..engine.result import EvaluationResult, ThresholdScores
from ..errors import printable
from .summary import Inputs, count, kinds_markdown, percent, summary_lines

if TYPE_CHECKING:  # (the gate is loaded when a command has floors)
    from ..engine.gates import GateVerdict

__all__ = [
    "f_name",
    "result_markdown",
    "result_text",
    "rule_before_summary",
    "slice_tables",
    "titled",
    "verdict_markdown",
]

Align = Literal["l", "r"]

# Column titles of the ledger row (LedgerField order).
COUNT_HEADER = ("gold", "pred", "TP", "FN", "credited", "FP")
AGGREGATES = ("micro", "macro", "weighted", "any entity")
#: The rule line that sets the summary rows apart from the labels' rows in a text table: a
#: label may be called ``micro`` or ``any entity`` (semantics §4), and its row sits above it.
SUMMARY_RULE = "-- summary rows, not labels "


def rule_before_summary(text: str, n_label_rows: int) -> str:
    """``text``, a table whose header ends with its divider line (the first line of dashes),
    with :data:`SUMMARY_RULE` drawn across it after the first ``n_label_rows`` rows."""
    lines = text.split("\n")
    divider = next(i for i, ln in enumerate(lines) if ln.startswith("-"))
    width = max(len(ln) for ln in lines)
    at = divider + 1 + n_label_rows
    return "\n".join([*lines[:at], SUMMARY_RULE.ljust(width, "-"), *lines[at:]])


def _ratio(value: float | None, sign: str = "") -> str:
    """A ratio to four decimals (``sign="+"``: signed, as a difference), ``-`` for none."""
    return "-" if value is None else f"{value:{sign}.4f}"


def f_name(beta: float) -> str:
    """``F1``, or ``F2`` and so on for another beta."""
    return "F1" if beta == 1 else f"F{beta:g}"


def _right(n: int) -> tuple[Align, ...]:
    """A left-aligned first column, then ``n`` right-aligned ones."""
    right: list[Align] = ["r"] * n
    return ("l", *right)


def _rows_of(labels: Sequence[str]) -> list[tuple[str, str]]:
    """``(kind, name)`` of each row: the labels' (kind ``"label"``), then the aggregates'. A
    row is looked up by its kind, so a label called ``micro`` keeps a row of its own."""
    return [*(("label", label) for label in labels), *((name, name) for name in AGGREGATES)]


def _ledger(run: ThresholdScores, kind: str, name: str) -> Ledger | None:
    """The ledger of a row; ``None`` for macro and weighted, which are means, not counts."""
    if kind in ("macro", "weighted"):
        return None
    if kind == "micro":
        return run.micro
    if kind == "any entity":
        return run.entity_agnostic
    return run.per_label.get(name, Ledger())


def _counts(run: ThresholdScores, kind: str, name: str) -> list[str]:
    ledger = _ledger(run, kind, name)
    return [""] * len(COUNT_HEADER) if ledger is None else [count(n) for n in ledger.to_row()]


def _figures(run: ThresholdScores, kind: str, name: str) -> list[str]:
    """P, R and F of one row of one threshold."""
    ledger, z = _ledger(run, kind, name), run.zero_division
    if ledger is None:
        scores = run.macro if kind == "macro" else run.weighted
        return [_ratio(scores[key]) for key in ("precision", "recall", "f")]
    return [_ratio(ledger.precision(z)), _ratio(ledger.recall(z)), _ratio(ledger.f(run.beta, z))]


def score_rows(run: ThresholdScores) -> tuple[list[str], list[list[str]]]:
    """The full ledger table of one threshold (``--wide``): header and rows, each label,
    then micro, macro, weighted and the entity-agnostic row."""
    header = ["label", *COUNT_HEADER, "P", "R", f_name(run.beta)]
    rows = [
        [printable(name), *_counts(run, kind, name), *_figures(run, kind, name)]
        for kind, name in _rows_of(sorted(run.per_label))
    ]
    return header, rows


def side_by_side(
    runs: Sequence[ThresholdScores], strategy: str
) -> tuple[list[tuple[str, int]], list[str], list[list[str]]]:
    """One level's thresholds in one table: the column groups (title, width), the header and
    the rows. Support (gold, pred) is the same at every threshold; each threshold adds a
    P, R, F group."""
    labels = sorted({label for run in runs for label in run.per_label})
    # A group's title: ``IoU >= 0.5``, else the strategy.
    titles = [strategy if run.threshold is None else f"IoU >= {run.threshold:g}" for run in runs]
    groups = [("", 3)] + [(title, 3) for title in titles]
    header = ["label", "gold", "pred", *(h for run in runs for h in ("P", "R", f_name(run.beta)))]
    rows = [
        [
            printable(name),
            *_counts(runs[0], kind, name)[:2],
            *(v for run in runs for v in _figures(run, kind, name)),
        ]
        for kind, name in _rows_of(labels)
    ]
    return groups, header, rows


def _grouped_table(
    groups: Sequence[tuple[str, int]], header: list[str], rows: list[list[str]]
) -> str:
    """A plain-text table whose header has a line of group titles, each centred over (and
    ruled across) its columns; the first column left-aligned, the others right-aligned."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    gap = "  "
    group_ends = list(accumulate(n for _, n in groups))
    spans = [(title, end - n, end) for (title, n), end in zip(groups, group_ends, strict=True)]
    # Widen a group's last column when its title is wider than the group.
    for title, a, b in spans:
        inner = sum(widths[a:b]) + len(gap) * (b - a - 1)
        if len(title) > inner:
            widths[b - 1] += len(title) - inner

    def line(cells: Sequence[str]) -> str:
        return gap.join(
            c.ljust(w) if k == 0 else c.rjust(w)
            for k, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    top, rule = [], []
    for title, a, b in spans:
        inner = sum(widths[a:b]) + len(gap) * (b - a - 1)
        top.append(title.center(inner) if title else " " * inner)
        rule.append(("-" * inner) if title else " " * inner)
    out = [gap.join(top).rstrip(), gap.join(rule).rstrip()] if spans else []
    out += [line(header), gap.join("-" * w for w in widths)]
    out += [line(r) for r in rows]
    return "\n".join(out)


def side_rows(run: ThresholdScores) -> tuple[str, list[str], list[list[str]]]:
    """The strategy's side table, overall, one row per table row (semeval: nervaluate's
    overall table, a schema per row): title, header and rows."""
    assert run.side is not None
    figures = run.side.rows()
    names = list(next(iter(figures.values())))
    short = {"precision": "P", "recall": "R", "f": f_name(run.beta)}
    header = [run.side.table.row_name, *(short.get(n, n) for n in names)]
    rows = [
        [row, *(str(v) if isinstance(v, int) else _ratio(v) for v in values.values())]
        for row, values in figures.items()
    ]
    return f"{run.side.table.title}, overall:", header, rows


def string_rows(run: ThresholdScores) -> tuple[str, list[str], list[list[str]]]:
    """Predictions as strings (semantics §11): per label and overall, the strings, the
    ungrounded ones and their rate, and the string-set score: title, header and rows."""
    assert run.grounding is not None
    g = run.grounding
    header = ["label", "strings", "ungrounded", "rate", "set P", "set R", f"set {f_name(run.beta)}"]
    rows = []
    for label in [*sorted(g.counts), None]:
        bad, n = g.ungrounded(label)
        led = g.string_set(label)
        figures = (led.precision(), led.recall(), led.f(run.beta))
        rows.append(
            [label or "overall", f"{n:,}", f"{bad:,}", _ratio(g.rate(label)), *map(_ratio, figures)]
        )
    title = (
        "Predictions as strings: ungrounded strings (found nowhere in their document), and the "
        "string-set score (normalised strings per document and label, positions ignored, as "
        "UniversalNER scores):"
    )
    return title, header, rows


def run_title(result: EvaluationResult, run: ThresholdScores | None, level: str) -> str:
    """What a table scores: strategy, threshold (``run``; ``None`` for a side-by-side
    table), options, unit and level."""
    s = result.settings
    parts = [s.strategy]
    if run is not None and run.threshold is not None:
        parts.append(f"IoU >= {run.threshold:g}")
    if options := s.describe_options():
        parts.append(options)
    parts.append(f"{s.unit} unit")
    if len(result.levels) > 1:
        parts.append(f"level {level!r}")
    return " · ".join(parts)


def _tables(
    result: EvaluationResult, wide: bool
) -> Iterator[tuple[str, Sequence[ThresholdScores]]]:
    """Each score table of the report, titled, with the thresholds it shows: per level, all
    of them side by side, or (``wide``) one table each."""
    for level, runs in result.levels.items():
        if wide:
            yield from ((run_title(result, run, level), [run]) for run in runs)
        else:
            yield run_title(result, runs[0] if len(runs) == 1 else None, level), runs


def _error_rows(run: ThresholdScores, limit: int, unit: str) -> tuple[list[str], list[list[str]]]:
    header = ["kind", "document", "span", "label", "predicted", "text", "best"]
    rows = []
    for e in run.errors[:limit]:
        text = "" if e.text is None else repr(e.text if len(e.text) <= 40 else e.text[:37] + "...")
        side = "pred" if e.side == "predicted" else "gold"
        rows.append(
            [
                f"{e.kind} ({side})" if e.kind in ("boundary", "wrong_label") else e.kind,
                str(e.document),
                e.where(unit),
                e.label,
                e.predicted_label or "",
                text if e.reason is None else e.reason,
                f"{e.best_iou:.2f}",
            ]
        )
    return header, rows


def _errors_title(run: ThresholdScores, shown: int, side_by_side: bool) -> str:
    where = f" at IoU >= {run.threshold:g}" if side_by_side and run.threshold is not None else ""
    return f"First {shown:,} of {run.micro.fn + run.micro.fp:,} errors{where}:"


class Plain(MarkdownRenderer):
    """Plain text through :class:`MarkdownRenderer`'s calls, so that one function writes a
    report both ways: a title is an ``== title`` line, a table wasabi's (:func:`grid`), the
    pieces joined by one newline."""

    def title(self, level: int, text: str, emoji: str | None = None) -> str:
        return f"\n== {text}"

    @property
    def text(self) -> str:
        return "\n".join(self.data)


def grid(
    out: MarkdownRenderer,
    rows: list[list[str]],
    header: list[str],
    aligns: Sequence[Align] | None = None,
    max_col: int = 40,
) -> str:
    """A table for ``out``: wasabi's in plain text (``max_col``: its widest column), else
    Markdown's. Names in the cells are data: their control characters and newlines are
    escaped before the columns are laid out, and in Markdown a ``|`` (it would split a cell)."""
    rows = [[printable(cell).replace("\n", "\\n") for cell in row] for row in rows]
    if isinstance(out, Plain):
        return table(rows, header=header, divider=True, aligns=aligns, max_col=max_col)
    return out.table([[cell.replace("|", "\\|") for cell in row] for row in rows], header, aligns)


def titled(
    out: MarkdownRenderer,
    title: str,
    header: list[str],
    rows: list[list[str]],
    aligns: Sequence[Align] | None = None,
    max_col: int = 40,
) -> None:
    """Add ``title``, then the table (:func:`grid`; by default its first column left-aligned,
    the others right-aligned)."""
    out.add(title)
    out.add(grid(out, rows, header, aligns or _right(len(header) - 1), max_col))


def _report(
    out: MarkdownRenderer,
    result: EvaluationResult,
    errors: int,
    wide: bool,
    slices: Mapping[str, Sequence[Mapping[str, Any]]] | None,
) -> None:
    """The tables of :func:`result_text` and :func:`result_markdown`. Markdown has no column
    groups: with several thresholds side by side each figure names its own (``P @0.5``)."""
    plain = isinstance(out, Plain)
    for title, runs in _tables(result, wide):
        out.add(out.title(3, title))
        groups, header, rows = (
            (None, *score_rows(runs[0])) if wide else side_by_side(runs, result.settings.strategy)
        )
        if groups is not None and plain:
            scores = _grouped_table(groups if len(runs) > 1 else [], header, rows)
        else:
            if groups is not None and len(runs) > 1:
                at = [f" @{title.split()[-1]}" for title, _ in groups[1:]]
                header = [*header[:3], *(h + at[i // 3] for i, h in enumerate(header[3:]))]
            scores = grid(out, rows, header, _right(len(header) - 1))
        out.add(rule_before_summary(scores, len(rows) - len(AGGREGATES)) if plain else scores)
        for run in runs:
            if run.side is not None:
                titled(out, *side_rows(run))
            if run.grounding is not None and run is runs[0]:  # (the same at every threshold)
                titled(out, *string_rows(run))
            if not plain:
                kinds_markdown(out, run)
            if errors and run.errors:
                eh, er = _error_rows(run, errors, result.settings.unit)
                out.add(_errors_title(run, len(er), len(runs) > 1))
                out.add(grid(out, er, eh, max_col=48))
    for title, header, rows in sweep_tables(result):
        titled(out, out.title(3, title), header, rows, max_col=30)
    for title, header, rows, n_label_rows in slice_tables(slices or {}, result.settings.beta):
        out.add(out.title(3, title))
        table = grid(out, rows, header, ("l", *_right(len(header) - 2)))
        out.add(rule_before_summary(table, n_label_rows) if plain else table)


def result_text(
    result: EvaluationResult,
    *,
    errors: int = 0,
    inputs: Inputs | None = None,
    wide: bool = False,
    slices: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> str:
    """One table per level with the thresholds side by side (``wide``: one full ledger
    table per level and threshold), then the summary and (``errors`` > 0) the first error
    records of each threshold."""
    out = Plain()
    _report(out, result, errors, wide, slices)
    out.add("\n" + "\n".join(summary_lines(result, inputs)))
    return out.text


def result_markdown(
    result: EvaluationResult,
    *,
    errors: int = 0,
    inputs: Inputs | None = None,
    wide: bool = False,
    slices: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> str:
    """The same report as :func:`result_text`, as Markdown."""
    md = MarkdownRenderer()
    md.add(md.title(2, "Span evaluation"))
    md.add(md.list(summary_lines(result, inputs)))
    _report(md, result, errors, wide, slices)
    return md.text


def sweep_tables(result: EvaluationResult) -> Iterator[tuple[str, list[str], list[list[str]]]]:
    """Per IoU threshold of a sweep (``--sweep``): per label and micro, average precision,
    the best-F score with its figures, and the calibration error."""
    for i, entry in enumerate(result.sweep or ()):
        tau = entry["threshold"]
        at = "" if tau is None else f" (IoU >= {tau:g})"
        title = f"Operating points{at} · mAP {_ratio(entry['map'])}"
        if result.map_thresholds and not i:  # (--map-thresholds)
            title += f" · mAP@[0.5:0.95] {_ratio(result.map_thresholds['map'])}"
        points = entry["micro"]["points"]  # (from the highest score down)
        if points and not 0 <= points[-1]["score"] <= points[0]["score"] <= 1:
            title += " · ECE takes scores as probabilities: those outside [0, 1] as 0 or 1"
        header = ["label", "AP", "best score", "P", "R", f_name(result.settings.beta), "ECE"]
        rows = []
        for name, figures in [*entry["per_label"].items(), ("micro", entry["micro"])]:
            best = figures["best"] or {}
            score = best.get("score")
            rows.append(
                [
                    name,
                    _ratio(figures["average_precision"]),
                    "-" if score is None else f"{score!r}",
                    *(_ratio(best.get(k)) for k in ("precision", "recall", "f")),
                    _ratio(figures["ece"]),
                ]
            )
        yield title, header, rows


def slice_tables(
    slices: Mapping[str, Sequence[Mapping[str, Any]]], beta: float
) -> Iterator[tuple[str, list[str], list[list[str]], int]]:
    """Per field, level and threshold: a row per label and slice with spans of it (support, P, R,
    F-``beta`` and, with intervals, F's), the label's worst slice marked (semantics §10), then
    each slice's micro row (the last number: how many label rows come before them)."""
    f = f_name(beta)
    for name, runs in slices.items():
        for run in runs:
            at = "" if run["threshold"] is None else f" at threshold {run['threshold']:g}"
            at += f" · level {run['level']!r}" if "level" in run else ""
            boot = [s.get("intervals") for s in run["slices"]]
            header = ["label", "slice", "docs", "gold", "pred", "P", "R", f, ""]
            if boot[0]:
                header[-1:] = [f"{f} {percent(boot[0]['confidence'])} CI", ""]
            rows: list[list[str]] = []
            labels = sorted({lab for s in run["slices"] for lab in s["per_label"]})
            n_label_rows = 0
            for label in [*labels, None]:  # (None: each slice's micro, after the labels)
                if label is None:
                    n_label_rows = len(rows)
                first = "micro" if label is None else label
                for s in run["slices"]:
                    led = _slice_ledger(s, label)
                    if not (led["num_annotated"] or led["num_predicted"]):
                        continue  # (JSON keeps it: the slices add up there)
                    worst = "worst" if run["worst"].get(label) == s["slice"] else ""
                    figures = [_ratio(led[k]) for k in ("precision", "recall", "f")]
                    n = (s.get("documents"), led["num_annotated"], led["num_predicted"])
                    if "intervals" in s:
                        ci = _slice_ledger(s["intervals"], label)["f"]
                        low, high = ci["low"], ci["high"]
                        figures.append("-" if low is None else f"{low:.4f}-{high:.4f}")
                    rows.append([first, s["slice"], *map(count, n), *figures, worst])
                    first = ""
            yield f"Slices by {name}{at}", header, rows, n_label_rows


def _slice_ledger(part: Mapping[str, Any], label: str | None) -> Any:
    """A slice's ledger of ``label`` (or of its intervals), its micro one for ``None``."""
    return part["micro"] if label is None else part["per_label"][label]


def verdict_table(verdict: GateVerdict) -> tuple[list[str], list[list[str]]]:
    header = ["label", "figure", "value", "floor", "result"]
    rows = [
        [
            c.label,
            c.figure
            + ("" if c.score is None else f" (score >= {c.score!r})")
            + ("" if c.slice is None else f" in {c.slice}"),
            "-" if c.value is None else count(c.value) if isinstance(c.value, int) else c.shown(),
            str(c.floor),
            "pass" if c.passed else "FAIL" + (f": {c.reason}" if c.reason else ""),
        ]
        for c in verdict.checks
    ]
    return header, rows


def verdict_text(verdict: GateVerdict) -> str:
    header, rows = verdict_table(verdict)
    return grid(Plain(), rows, header, ("l", "l", "r", "r", "l"), max_col=60)


def verdict_markdown(verdict: GateVerdict) -> str:
    md = MarkdownRenderer()
    md.add(md.title(3, "Gate"))
    md.add(md.list(verdict.lines()))
    header, rows = verdict_table(verdict)
    md.add(grid(md, rows, header))
    return md.text
