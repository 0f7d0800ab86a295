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

import json
from collections.abc import Iterator, Mapping, Sequence
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Literal

from wasabi.markdown import MarkdownRenderer
from wasabi.tables import table

from ..engine.ledger import Ledger
from ..engine.result import EvaluationResult, ThresholdScores
from ..engine.settings import plural
from ..errors import printable
from .kinds import kinds_markdown

if TYPE_CHECKING:  # (the gate is loaded when a command has floors)
    from ..engine.gates import GateVerdict
    from ..readers.options import ReadingOptions

__all__ = [
    "alignment_line",
    "count",
    "f_name",
    "label_hints",
    "result_markdown",
    "result_text",
    "summary_lines",
    "rule_before_summary",
    "shown_notes",
    "slice_tables",
    "verdict_markdown",
]

#: What the readers report of each side (``gold``, ``predictions``): path, format, spans,
#: repaired chunks, notes and alignment, as in the JSON output's ``inputs``.
Inputs = Mapping[str, Mapping[str, Any]]
Align = Literal["l", "r"]

# Column titles of the ledger row (LedgerField order).
COUNT_HEADER = ("gold", "pred", "TP", "FN", "credited", "FP")
AGGREGATES = ("micro", "macro", "weighted", "any entity")
#: The input formats read from tags, whose repaired chunks are always reported (semantics
#: §5); the others read spans, and have no chunks to repair.
TAGGED_FORMATS = ("conll",)
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


def group_title(run: ThresholdScores, strategy: str) -> str:
    """The title of a threshold's column group: ``IoU >= 0.5``, else the strategy."""
    return strategy if run.threshold is None else f"IoU >= {run.threshold:g}"


def side_by_side(
    runs: Sequence[ThresholdScores], strategy: str
) -> tuple[list[tuple[str, int]], list[str], list[list[str]]]:
    """One level's thresholds in one table: the column groups (title, width), the header and
    the rows. Support (gold, pred) is the same at every threshold; each threshold adds a
    P, R, F group."""
    labels = sorted({label for run in runs for label in run.per_label})
    groups = [("", 3)] + [(group_title(run, strategy), 3) for run in runs]
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


def _error_rows(run: ThresholdScores, limit: int) -> tuple[list[str], list[list[str]]]:
    header = ["kind", "document", "span", "label", "predicted", "text", "best"]
    rows = []
    for e in run.errors[:limit]:
        text = "" if e.text is None else repr(e.text if len(e.text) <= 40 else e.text[:37] + "...")
        side = "pred" if e.side == "predicted" else "gold"
        rows.append(
            [
                f"{e.kind} ({side})" if e.kind in ("boundary", "wrong_label") else e.kind,
                printable(str(e.document)),
                f"[{e.start}, {e.end})",
                printable(e.label),
                printable(e.predicted_label or ""),
                text if e.reason is None else e.reason,
                f"{e.best_iou:.2f}",
            ]
        )
    return header, rows


def _errors_title(run: ThresholdScores, shown: int, side_by_side: bool) -> str:
    where = f" at IoU >= {run.threshold:g}" if side_by_side and run.threshold is not None else ""
    return f"First {shown:,} of {run.micro.fn + run.micro.fp:,} errors{where}:"


def summary_lines(result: EvaluationResult, inputs: Inputs | None = None) -> list[str]:
    """Documents read, each side's spans and (formats read from tags) repaired chunks, and the
    engine's notes (unaligned, ...): unaligned predictions where an alignment was made, else
    only the notes that count something."""
    lines = [f"Documents: {result.n_documents:,}"]
    for side, info in (inputs or {}).items():
        details = [info["format"]]
        if "tokens" in info:
            details.append(plural(info["tokens"], "token"))
        details.append(plural(info["spans"], "span"))
        if info["format"] in TAGGED_FORMATS or info["repaired"]:
            details.append(f"repaired chunks: {count(info['repaired'])}")
        lines.append(f"{side}: {info['path']} ({', '.join(details)})")
        if "correct_tags" in info:
            lines.append(conlleval_line(result, info))
        if info.get("alignment"):
            lines.append(alignment_line(info["alignment"]))
        if info.get("notes"):  # what the reader read differently or left out
            lines.append(f"  read: {', '.join(f'{k} {v}' for k, v in info['notes'].items())}")
    if notes := shown_notes(result, inputs):
        shown = (f"{k.replace('_', ' ')} {count(v)}" for k, v in sorted(notes.items()))
        lines.append("Notes: " + ", ".join(shown))
    return lines


def conlleval_line(result: EvaluationResult, info: Mapping[str, Any]) -> str:
    """A CoNLL pair's tokens and token accuracy (tags equal, as conlleval counts them); under
    ``exact`` the rest of conlleval's first line too: gold chunks, predicted ones, exact
    matches."""
    n, accuracy = info["tokens"], info["token_accuracy"]
    share = "-" if accuracy is None else f"{accuracy:.2%}"
    if result.settings.strategy != "exact":
        equal = f"{count(info['correct_tags'])} tags equal"
        return (
            f"Tokens: {count(n)} processed; accuracy: {share} ({equal}, as conlleval counts them)"
        )
    m = result.micro
    return (
        f"As conlleval: processed {count(n)} tokens with {count(m.num_annotated)} phrases; "
        f"found: {count(m.num_predicted)} phrases; correct: {count(m.tp)}; accuracy: {share}"
    )


def shown_notes(result: EvaluationResult, inputs: Inputs | None) -> dict[str, int]:
    """The engine's notes worth a line: those that count something, and the unaligned
    predictions (0 too) where an input was aligned."""
    notes = dict(result.notes)
    if any(info.get("alignment") for info in (inputs or {}).values()):
        notes.setdefault("unaligned_predictions", 0)
    return notes


def alignment_line(alignment: Mapping[str, Any]) -> str:
    """The tokens paired by position whose strings differ (``--align position``), or the
    texts aligned character by character (``--align chars``)."""
    if alignment.get("align") == "chars":
        n = alignment["documents"]
        return (
            f"Texts aligned by characters: {plural(n, 'document')} {_differ(n)} from gold in "
            f"{plural(alignment['changed_characters'], 'character')}; spans on changed "
            f"characters: {alignment['unplaced_spans']:,} predicted not placed (scored as "
            f"unaligned), {alignment['spans_over_changes']:,} kept"
            + ("; first: " + "; ".join(alignment["examples"]) if alignment["examples"] else "")
        )
    n = alignment["differing_tokens"]
    if not n:
        return "Tokens paired by position: every predicted token equals its gold token"
    return (
        f"Tokens paired by position: {plural(n, 'predicted token')} in "
        f"{plural(alignment['sentences'], 'sentence')} {_differ(n)} from gold; first: "
        + "; ".join(alignment["examples"])
    )


def _differ(n: int) -> str:
    return "differs" if n == 1 else "differ"


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
    out: list[str] = []
    for title, runs in _tables(result, wide):
        out.append(f"\n== {title}")
        if wide:
            header, rows = score_rows(runs[0])
            grid = table(
                rows, header=header, divider=True, aligns=_right(len(header) - 1), max_col=40
            )
        else:
            groups, header, rows = side_by_side(runs, result.settings.strategy)
            grid = _grouped_table(groups if len(runs) > 1 else [], header, rows)
        out.append(rule_before_summary(grid, len(rows) - len(AGGREGATES)))
        for run in runs:
            if run.side is not None:
                side_title, sh, sr = side_rows(run)
                grid = table(sr, header=sh, divider=True, aligns=_right(len(sh) - 1), max_col=40)
                out += [side_title, grid]
            if errors and run.errors:
                eh, er = _error_rows(run, errors)
                out.append(_errors_title(run, len(er), len(runs) > 1))
                out.append(table(er, header=eh, divider=True, max_col=48))
    for title, header, rows in sweep_tables(result):
        out += [f"\n== {title}", table(rows, header=header, divider=True, aligns=_right(6))]
    for title, header, rows in slice_tables(slices or {}):
        grid = table(rows, header=header, divider=True, aligns=("l", *_right(7)), max_col=40)
        out += [f"\n== {title}", grid]
    out.append("\n" + "\n".join(summary_lines(result, inputs)))
    return "\n".join(out)


def sweep_tables(result: EvaluationResult) -> Iterator[tuple[str, list[str], list[list[str]]]]:
    """Per IoU threshold of a sweep (``--sweep``): per label and micro, average precision,
    the best-F score with its figures, and the calibration error."""
    for i, entry in enumerate(result.sweep or ()):
        tau = entry["threshold"]
        at = "" if tau is None else f" (IoU >= {tau:g})"
        title = f"Operating points{at} · mAP {_ratio(entry['map'])}"
        if result.map_thresholds and not i:  # (--map-thresholds)
            title += f" · mAP@[0.5:0.95] {_ratio(result.map_thresholds['map'])}"
        header = ["label", "AP", "best score", "P", "R", f_name(result.settings.beta), "ECE"]
        rows = []
        for name, figures in [*entry["per_label"].items(), ("micro", entry["micro"])]:
            best = figures["best"] or {}
            score = best.get("score")
            rows.append(
                [
                    name,
                    _ratio(figures["average_precision"]),
                    "-" if score is None else f"{score:g}",
                    *(_ratio(best.get(k)) for k in ("precision", "recall", "f")),
                    _ratio(figures["ece"]),
                ]
            )
        yield title, header, rows


def _md_header(runs: Sequence[ThresholdScores], strategy: str) -> list[str]:
    """Markdown has no column groups: with several thresholds each figure names its own
    (``P @0.5``)."""
    header = ["label", "gold", "pred"]
    for run in runs:
        suffix = "" if len(runs) == 1 else f" @{group_title(run, strategy).split()[-1]}"
        header += [f"{name}{suffix}" for name in ("P", "R", f_name(run.beta))]
    return header


def slice_tables(
    slices: Mapping[str, Sequence[Mapping[str, Any]]],
) -> Iterator[tuple[str, list[str], list[list[str]]]]:
    """Per field and threshold: a row per label and slice with spans of it (support, P, R,
    F), the label's worst slice marked (semantics §10)."""
    header = ["label", "slice", "docs", "gold", "pred", "P", "R", "F", ""]
    for name, runs in slices.items():
        for run in runs:
            at = "" if run["threshold"] is None else f" at threshold {run['threshold']:g}"
            rows = []
            for label in sorted({lab for s in run["slices"] for lab in s["per_label"]}):
                first = label
                for s in run["slices"]:
                    led = s["per_label"][label]
                    if not (led["num_annotated"] or led["num_predicted"]):
                        continue  # (JSON keeps it: the slices add up there)
                    worst = "worst" if run["worst"].get(label) == s["slice"] else ""
                    figures = [_ratio(led[k]) for k in ("precision", "recall", "f")]
                    n = (s.get("documents"), led["num_annotated"], led["num_predicted"])
                    rows.append([first, s["slice"], *map(count, n), *figures, worst])
                    first = ""
            yield f"Slices by {name}{at}", header, rows


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
    for title, runs in _tables(result, wide):
        md.add(md.title(3, title))
        if wide:
            header, rows = score_rows(runs[0])
        else:
            header = _md_header(runs, result.settings.strategy)
            rows = side_by_side(runs, result.settings.strategy)[2]
        md.add(md.table(rows, header, aligns=_right(len(header) - 1)))
        for run in runs:
            if run.side is not None:
                side_title, sh, sr = side_rows(run)
                md.add(side_title)
                md.add(md.table(sr, sh, aligns=_right(len(sh) - 1)))
            kinds_markdown(md, run)
            if errors and run.errors:
                eh, er = _error_rows(run, errors)
                md.add(_errors_title(run, len(er), len(runs) > 1))
                md.add(md.table([[c.replace("|", "\\|") for c in r] for r in er], eh))
    for title, header, rows in sweep_tables(result):
        md.add(md.title(3, title))
        md.add(md.table(rows, header, aligns=_right(6)))
    for title, header, rows in slice_tables(slices or {}):
        md.add(md.title(3, title))
        md.add(md.table(rows, header, aligns=("l", *_right(7))))
    return md.text


def label_hints(
    run: ThresholdScores, chosen: Sequence[str] = (), counted: str = "span"
) -> list[str]:
    """Hints about labels that cannot match: predicted labels that never occur in gold
    (suggesting ``--label-map``, with the gold label each one's predictions cover most), and
    chosen labels (``--labels``) found on neither side. ``counted``: what the ledgers count
    (:attr:`~spacy_span_eval.engine.settings.Settings.counted`)."""
    lines = []
    labels = sorted(run.per_label.items())
    only_pred = {k: v.num_predicted for k, v in labels if not v.num_annotated and v.num_predicted}
    if only_pred:
        named = ", ".join(f"{label} ({plural(n, counted)})" for label, n in only_pred.items())
        covered = sorted(
            (-n, pred, gold)
            for (gold, pred), n in run.confusion.items()
            if pred in only_pred and gold is not None
        )
        mapping = {pred: gold for _, pred, gold in reversed(covered)}
        if not run.detailed:  # (no confusion cells counted: which gold label is unknown)
            mapping = {next(iter(only_pred)): "GOLD_LABEL"}
        example = (
            f" (e.g. {json.dumps(dict(sorted(mapping.items())))} if they name the same thing)"
            if mapping
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
    scores: ThresholdScores, chosen: Sequence[str] = (), prefix: str = "", counted: str = "span"
) -> list[tuple[str, str]]:
    """The label hints (:func:`label_hints`) as console lines ``("warn", line)``."""
    return [("warn", f"hint: {prefix}{line}") for line in label_hints(scores, chosen, counted)]


def input_hints(
    inputs: Inputs | None, reading: ReadingOptions | None = None
) -> list[tuple[str, str]]:
    """Hints about how the files were read, as console lines ``("warn", line)``: a side read
    as IOB2 (``reading``'s scheme; ``None``: the defaults) most of whose chunks were
    repaired (they open with ``I-``, as IOB1 files' chunks do) may be IOB1, which ``--scheme
    IOB1`` reads without repairs. The chunks read are the spans kept and, with ``--repair
    discard``, those dropped."""
    scheme, repair = (reading.scheme, reading.repair) if reading else ("IOB2", "conlleval")
    if scheme.upper() not in ("IOB2", "BIO"):
        return []
    lines = []
    for side, info in (inputs or {}).items():
        repaired = info.get("repaired", 0)
        chunks = info.get("spans", 0) + (repaired if repair == "discard" else 0)
        if repaired * 2 > chunks > 0:
            lines.append(
                (
                    "warn",
                    f"hint: {side}: {count(repaired)} of {count(chunks)} chunks were repaired "
                    "(most open with I-, as in IOB1 files): read with --scheme IOB1?",
                )
            )
    return lines


def verdict_table(verdict: GateVerdict) -> tuple[list[str], list[list[str]]]:
    header = ["label", "figure", "value", "floor", "result"]
    rows = [
        [
            c.label,
            c.figure if c.score is None else f"{c.figure} (score >= {c.score:g})",
            "-"
            if c.value is None
            else count(c.value)
            if isinstance(c.value, int)
            else _ratio(c.value),
            str(c.floor),
            "pass" if c.passed else "FAIL" + (f": {c.reason}" if c.reason else ""),
        ]
        for c in verdict.checks
    ]
    return header, rows


def verdict_text(verdict: GateVerdict) -> str:
    header, rows = verdict_table(verdict)
    return table(rows, header=header, divider=True, aligns=("l", "l", "r", "r", "l"), max_col=60)


def verdict_markdown(verdict: GateVerdict) -> str:
    md = MarkdownRenderer()
    md.add(md.title(3, "Gate"))
    md.add(md.list(verdict.lines()))
    header, rows = verdict_table(verdict)
    md.add(md.table(rows, header))
    return md.text
