"""Readable reports of an evaluation and a gate verdict: plain-text tables and Markdown.

Functions here return strings; the CLI prints them through its one printer. By default each
hierarchy level is one table: a row per label (then micro, macro, weighted and the
entity-agnostic row) with its support, and one column group (P, R, F) per threshold, so the
thresholds read side by side. ``wide=True`` gives the full ledger of every threshold instead
(gold, pred, TP, FN, credited, FP, P, R, F), one table each. Counts carry thousands
separators; an undefined ratio shows as ``-`` (it is ``None`` in JSON), never as 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from wasabi import MarkdownRenderer, table

from ..engine.ledger import Ledger
from ..engine.result import EvaluationResult, ThresholdScores

if TYPE_CHECKING:  # (the gate is loaded when a command has floors)
    from ..engine.gates import GateVerdict

__all__ = [
    "alignment_line",
    "count",
    "label_hints",
    "result_markdown",
    "result_text",
    "summary_lines",
    "rule_before_summary",
    "verdict_markdown",
]

# Column titles of the ledger row (LedgerField order).
COUNT_HEADER = ("gold", "pred", "TP", "FN", "credited", "FP")
ALIGNS: tuple[Literal["l", "r"], ...] = ("l", "r", "r", "r", "r", "r", "r", "r", "r", "r")
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


def count(n: int | None) -> str:
    """A count with thousands separators (``656,400``); blank for none."""
    return "" if n is None else f"{n:,}"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _f_name(beta: float) -> str:
    return "F1" if beta == 1 else f"F{beta:g}"


def _ledger_row(name: str, ledger: Ledger, run: ThresholdScores) -> list[str]:
    z = run.zero_division
    return [
        name,
        *map(count, ledger.to_row()),
        _ratio(ledger.precision(z)),
        _ratio(ledger.recall(z)),
        _ratio(ledger.f(run.beta, z)),
    ]


def _average_row(name: str, scores: Mapping) -> list[str]:
    return [
        name,
        "",
        "",
        "",
        "",
        "",
        "",
        _ratio(scores["precision"]),
        _ratio(scores["recall"]),
        _ratio(scores["f"]),
    ]


def score_rows(run: ThresholdScores) -> tuple[list[str], list[list[str]]]:
    """The full ledger table of one threshold (``--wide``): header and rows, each label,
    then micro, macro, weighted and the entity-agnostic row."""
    header = ["label", *COUNT_HEADER, "P", "R", _f_name(run.beta)]
    rows = [_ledger_row(label, ledger, run) for label, ledger in sorted(run.per_label.items())]
    rows.append(_ledger_row("micro", run.micro, run))
    rows.append(_average_row("macro", run.macro))
    rows.append(_average_row("weighted", run.weighted))
    rows.append(_ledger_row("any entity", run.entity_agnostic, run))
    return header, rows


def _row_ledger(run: ThresholdScores, kind: str, name: str) -> Ledger:
    """The ledger of a row: a label's (``kind`` ``"label"``), micro's or the
    entity-agnostic one. Looked up by kind, so a label called ``micro`` keeps its own."""
    if kind == "micro":
        return run.micro
    if kind == "any entity":
        return run.entity_agnostic
    return run.per_label.get(name, Ledger())


def _figures(run: ThresholdScores, kind: str, name: str) -> list[str]:
    """P, R and F of one row of one threshold (``kind``: ``"label"`` or an aggregate)."""
    if kind in ("macro", "weighted"):
        scores = run.macro if kind == "macro" else run.weighted
        return [_ratio(scores["precision"]), _ratio(scores["recall"]), _ratio(scores["f"])]
    ledger = _row_ledger(run, kind, name)
    z = run.zero_division
    return [_ratio(ledger.precision(z)), _ratio(ledger.recall(z)), _ratio(ledger.f(run.beta, z))]


def group_title(run: ThresholdScores, strategy: str) -> str:
    """The title of a threshold's column group: ``IoU >= 0.5``, else the strategy."""
    return strategy if run.threshold is None else f"IoU >= {run.threshold:g}"


def side_by_side(
    runs: Sequence[ThresholdScores], strategy: str
) -> tuple[list[tuple[str, int]], list[str], list[list[str]]]:
    """One level's thresholds in one table: the column groups (title, width), the header and
    the rows. Support (gold, pred) is the same at every threshold; each threshold adds a
    P, R, F group."""
    first = runs[0]
    labels = sorted({label for run in runs for label in run.per_label})
    groups = [("", 3)] + [(group_title(run, strategy), 3) for run in runs]
    header = ["label", "gold", "pred"]
    for run in runs:
        header += ["P", "R", _f_name(run.beta)]
    rows = []
    # Each label's row, then the aggregates': a label called "micro" has a row of its own.
    for kind, name in [
        *(("label", label) for label in labels),
        *((name, name) for name in AGGREGATES),
    ]:
        if kind in ("macro", "weighted"):
            support = ["", ""]
        else:
            ledger = _row_ledger(first, kind, name)
            support = [count(ledger.num_annotated), count(ledger.num_predicted)]
        rows.append([name, *support, *(v for run in runs for v in _figures(run, kind, name))])
    return groups, header, rows


def _grouped_table(
    groups: Sequence[tuple[str, int]], header: list[str], rows: list[list[str]]
) -> str:
    """A plain-text table whose header has a line of group titles, each centred over (and
    ruled across) its columns; the first column left-aligned, the others right-aligned."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    gap = "  "
    spans, i = [], 0
    for title, n in groups:
        spans.append((title, i, i + n))
        i += n
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
    short = {"precision": "P", "recall": "R", "f": _f_name(run.beta)}
    header = [run.side.table.row_name, *(short.get(n, n) for n in names)]
    rows = [
        [row, *(str(v) if isinstance(v, int) else _ratio(v) for v in values.values())]
        for row, values in figures.items()
    ]
    return f"{run.side.table.title}, overall:", header, rows


def _side_tables(run: ThresholdScores) -> list[str]:
    if run.side is None:
        return []
    title, sh, sr = side_rows(run)
    return [
        title,
        table(sr, header=sh, divider=True, aligns=("l", *"r" * (len(sh) - 1)), max_col=40),
    ]


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


def _error_rows(run: ThresholdScores, limit: int) -> tuple[list[str], list[list[str]]]:
    header = ["kind", "document", "span", "label", "predicted", "text", "best"]
    rows = []
    for e in run.errors[:limit]:
        text = "" if e.text is None else repr(e.text if len(e.text) <= 40 else e.text[:37] + "...")
        kind = (
            f"{e.kind} ({'pred' if e.side == 'predicted' else 'gold'})"
            if e.kind == "boundary"
            else e.kind
        )
        rows.append(
            [
                kind,
                e.document,
                f"[{e.start}, {e.end})",
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


def summary_lines(
    result: EvaluationResult, inputs: Mapping[str, Mapping] | None = None
) -> list[str]:
    """Documents read, repaired chunks per side and the engine's notes (unaligned, ...)."""
    lines = [f"Documents: {result.n_documents:,}"]
    for side, info in (inputs or {}).items():
        line = (
            f"{side}: {info['path']} ({info['format']}, {count(info['spans'])} spans, "
            f"repaired chunks: {count(info['repaired'])})"
        )
        lines.append(line)
        if info.get("alignment"):
            lines.append(alignment_line(info["alignment"]))
        if info.get("notes"):  # what the reader read differently or left out
            lines.append(f"  read: {', '.join(f'{k} {v}' for k, v in info['notes'].items())}")
    notes = dict(result.notes)
    notes.setdefault("unaligned_predictions", 0)
    lines.append(
        "Notes: " + ", ".join(f"{k.replace('_', ' ')} {count(v)}" for k, v in sorted(notes.items()))
    )
    return lines


def alignment_line(alignment: Mapping) -> str:
    """The tokens paired by position whose strings differ (``--align position``), or the
    texts aligned character by character (``--align chars``)."""
    if alignment.get("align") == "chars":
        return (
            f"Texts aligned by characters: {alignment['documents']:,} document(s) differ from "
            f"gold in {alignment['changed_characters']:,} character(s); spans on changed "
            f"characters: {alignment['unplaced_spans']:,} predicted not placed (scored as "
            f"unaligned), {alignment['spans_over_changes']:,} kept"
            + ("; first: " + "; ".join(alignment["examples"]) if alignment["examples"] else "")
        )
    n = alignment["differing_tokens"]
    if not n:
        return "Tokens paired by position: every predicted token equals its gold token"
    return (
        f"Tokens paired by position: {n:,} predicted token(s) in "
        f"{alignment['sentences']:,} sentence(s) differ from gold; first: "
        + "; ".join(alignment["examples"])
    )


def result_text(
    result: EvaluationResult,
    *,
    errors: int = 0,
    inputs: Mapping[str, Mapping] | None = None,
    wide: bool = False,
) -> str:
    """One table per level with the thresholds side by side (``wide``: one full ledger
    table per level and threshold), then the summary and (``errors`` > 0) the first error
    records of each threshold."""
    out: list[str] = []
    for level, runs in result.levels.items():
        if wide:
            for run in runs:
                out.append(f"\n== {run_title(result, run, level)}")
                header, rows = score_rows(run)
                ledgers = table(rows, header=header, divider=True, aligns=ALIGNS, max_col=40)
                out.append(rule_before_summary(ledgers, len(rows) - len(AGGREGATES)))
                out += _side_tables(run)
                out += _error_tables(run, errors, side_by_side=False)
            continue
        out.append(f"\n== {run_title(result, runs[0] if len(runs) == 1 else None, level)}")
        groups, header, rows = side_by_side(runs, result.settings.strategy)
        grouped = _grouped_table(groups if len(runs) > 1 else [], header, rows)
        out.append(rule_before_summary(grouped, len(rows) - len(AGGREGATES)))
        for run in runs:
            out += _side_tables(run)
            out += _error_tables(run, errors, side_by_side=len(runs) > 1)
    out.append("\n" + "\n".join(summary_lines(result, inputs)))
    return "\n".join(out)


def _error_tables(run: ThresholdScores, errors: int, *, side_by_side: bool) -> list[str]:
    if not errors or not run.errors:
        return []
    eh, er = _error_rows(run, errors)
    return [
        _errors_title(run, len(er), side_by_side),
        table(er, header=eh, divider=True, max_col=48),
    ]


def _md_header(runs: Sequence[ThresholdScores], strategy: str) -> list[str]:
    """Markdown has no column groups: with several thresholds each figure names its own
    (``P @0.5``)."""
    header = ["label", "gold", "pred"]
    for run in runs:
        suffix = "" if len(runs) == 1 else f" @{group_title(run, strategy).split()[-1]}"
        header += [f"{name}{suffix}" for name in ("P", "R", _f_name(run.beta))]
    return header


def result_markdown(
    result: EvaluationResult,
    *,
    errors: int = 0,
    inputs: Mapping[str, Mapping] | None = None,
    wide: bool = False,
) -> str:
    """The same report as :func:`result_text`, as Markdown."""
    md = MarkdownRenderer()
    md.add(md.title(2, "Span evaluation"))
    md.add(md.list(summary_lines(result, inputs)))
    for level, runs in result.levels.items():
        if wide:
            for run in runs:
                md.add(md.title(3, run_title(result, run, level)))
                header, rows = score_rows(run)
                md.add(md.table(rows, header, aligns=ALIGNS))
                _md_side(md, run)
                _md_errors(md, run, errors, side_by_side=False)
            continue
        md.add(md.title(3, run_title(result, runs[0] if len(runs) == 1 else None, level)))
        _, _, rows = side_by_side(runs, result.settings.strategy)
        header = _md_header(runs, result.settings.strategy)
        md.add(md.table(rows, header, aligns=("l", *("r" * (len(header) - 1)))))
        for run in runs:
            _md_side(md, run)
            _md_errors(md, run, errors, side_by_side=len(runs) > 1)
    return md.text


def _md_side(md: MarkdownRenderer, run: ThresholdScores) -> None:
    if run.side is not None:
        title, sh, sr = side_rows(run)
        md.add(title)
        md.add(md.table(sr, sh, aligns=("l", *"r" * (len(sh) - 1))))
    from .kinds import kinds_markdown

    kinds_markdown(md, run)


def _md_errors(
    md: MarkdownRenderer, run: ThresholdScores, errors: int, *, side_by_side: bool
) -> None:
    if errors and run.errors:
        eh, er = _error_rows(run, errors)
        md.add(_errors_title(run, len(er), side_by_side))
        md.add(md.table([[c.replace("|", "\\|") for c in r] for r in er], eh))


def label_hints(run: ThresholdScores, chosen: Sequence[str] = ()) -> list[str]:
    """Hints about labels that cannot match: predicted labels that never occur in gold
    (suggesting ``--label-map``), and chosen labels (``--labels``) found on neither side."""
    lines = []
    only_pred = {
        k: v.num_predicted
        for k, v in sorted(run.per_label.items())
        if v.num_annotated == 0 and v.num_predicted > 0
    }
    only_gold = [
        k for k, v in sorted(run.per_label.items()) if v.num_predicted == 0 and v.num_annotated > 0
    ]
    if only_pred:
        named = ", ".join(
            f"{label} ({count(n)} span{'s' if n != 1 else ''})" for label, n in only_pred.items()
        )
        example = (
            f' (e.g. {{"{next(iter(only_pred))}": "{only_gold[0]}"}} if they name the same thing)'
            if only_gold
            else ""
        )
        lines.append(
            f"Predicted labels never found in gold score 0: {named}. If the systems "
            f"name a gold label differently, map it with --label-map{example}."
        )
    missing = [
        label
        for label in chosen
        if label not in run.per_label
        or not run.per_label[label].num_annotated + run.per_label[label].num_predicted
    ]
    if missing:
        lines.append(f"--labels: {', '.join(missing)} found in neither gold nor predictions.")
    return lines


def verdict_console(lines: Sequence[str], passed: bool, prefix: str = "") -> list[tuple[str, str]]:
    """A gate's verdict (its :meth:`~spacy_span_eval.engine.gates.GateVerdict.lines`) as
    console lines ``(kind, line)``: the headline (``good`` or ``fail``), then each breached
    floor (``text``)."""
    head, *breaches = lines
    return [
        ("good" if passed else "fail", prefix + head),
        *(("text", f"  {line}") for line in breaches),
    ]


def hint_console(
    scores: ThresholdScores, chosen: Sequence[str] = (), prefix: str = ""
) -> list[tuple[str, str]]:
    """The label hints (:func:`label_hints`) as console lines ``("warn", line)``."""
    return [("warn", f"hint: {prefix}{line}") for line in label_hints(scores, chosen)]


def input_hints(inputs: Mapping[str, Mapping] | None) -> list[tuple[str, str]]:
    """Hints about how the files were read, as console lines ``("warn", line)``: a side most
    of whose chunks were repaired (they open with ``I-``, as IOB1 files' chunks do) may be
    IOB1, which ``--scheme IOB1`` reads without repairs."""
    lines = []
    for side, info in (inputs or {}).items():
        spans, repaired = info.get("spans", 0), info.get("repaired", 0)
        if spans and repaired * 2 > spans:
            lines.append(
                (
                    "warn",
                    f"hint: {side}: {count(repaired)} of {count(spans)} chunks were repaired "
                    "(most open with I-, as in IOB1 files): read with --scheme IOB1?",
                )
            )
    return lines


def verdict_table(verdict: GateVerdict) -> tuple[list[str], list[list[str]]]:
    header = ["label", "figure", "value", "floor", "result"]
    rows = []
    for c in verdict.checks:
        value = (
            "-"
            if c.value is None
            else (count(c.value) if isinstance(c.value, int) else f"{c.value:.4f}")
        )
        rows.append(
            [
                c.label,
                c.figure,
                value,
                str(c.floor),
                "pass" if c.passed else "FAIL" + (f": {c.reason}" if c.reason else ""),
            ]
        )
    return header, rows


def verdict_text(verdict: GateVerdict) -> str:
    header, rows = verdict_table(verdict)
    return table(rows, header=header, divider=True, aligns=("l", "l", "r", "r", "l"), max_col=60)


def verdict_markdown(verdict: GateVerdict) -> str:
    md = MarkdownRenderer()
    md.add(md.title(3, "Gate"))
    lines: Sequence[str] = verdict.lines()
    md.add(md.list(lines))
    header, rows = verdict_table(verdict)
    md.add(md.table(rows, header))
    return md.text
