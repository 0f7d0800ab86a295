"""Readable reports of an evaluation and a gate verdict: plain-text tables and Markdown.

Functions here return strings (built with wasabi's table and Markdown helpers); the CLI
prints them through its one printer. Counts are shown as they are; an undefined ratio shows as
``-`` (it is ``None`` in JSON), never as 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from wasabi import MarkdownRenderer, table

from ..engine.gates import GateVerdict
from ..engine.ledger import Ledger
from ..engine.result import EvaluationResult, ThresholdScores

__all__ = ["result_markdown", "result_text", "summary_lines", "verdict_markdown",
           "verdict_lines"]

# Column titles of the ledger row (LedgerField order).
COUNT_HEADER = ("gold", "pred", "TP", "FN", "credited", "FP")
ALIGNS = ("l", "r", "r", "r", "r", "r", "r", "r", "r", "r")


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _f_name(beta: float) -> str:
    return "F1" if beta == 1 else f"F{beta:g}"


def _ledger_row(name: str, ledger: Ledger, run: ThresholdScores) -> list[str]:
    z = run.zero_division
    return [name, *map(str, ledger.to_row()),
            _ratio(ledger.precision(z)), _ratio(ledger.recall(z)),
            _ratio(ledger.f(run.beta, z))]


def _average_row(name: str, scores: Mapping) -> list[str]:
    return [name, "", "", "", "", "", "", _ratio(scores["precision"]),
            _ratio(scores["recall"]), _ratio(scores["f"])]


def score_rows(run: ThresholdScores) -> tuple[list[str], list[list[str]]]:
    """Header and rows: each label, then micro, macro, weighted and the entity-agnostic row."""
    header = ["label", *COUNT_HEADER, "P", "R", _f_name(run.beta)]
    rows = [_ledger_row(label, ledger, run) for label, ledger in sorted(run.per_label.items())]
    rows.append(_ledger_row("micro", run.micro, run))
    rows.append(_average_row("macro", run.macro))
    rows.append(_average_row("weighted", run.weighted))
    rows.append(_ledger_row("any entity", run.entity_agnostic, run))
    return header, rows


def run_title(result: EvaluationResult, run: ThresholdScores, level: str) -> str:
    s = result.settings
    parts = [s.strategy]
    if run.threshold is not None:
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
        rows.append([e.kind, e.document, f"[{e.start}, {e.end})", e.label,
                     e.predicted_label or "", text if e.reason is None else e.reason,
                     f"{e.best_iou:.2f}"])
    return header, rows


def summary_lines(result: EvaluationResult, inputs: Mapping[str, Mapping] | None = None
                  ) -> list[str]:
    """Documents read, repaired chunks per side and the engine's notes (unaligned, ...)."""
    lines = [f"Documents: {result.n_documents}"]
    for side, info in (inputs or {}).items():
        lines.append(f"{side}: {info['path']} ({info['format']}, {info['spans']} spans, "
                     f"repaired chunks: {info['repaired']})")
        if info.get("notes"):  # what the reader read differently or left out
            lines.append(f"  read: {', '.join(f'{k} {v}' for k, v in info['notes'].items())}")
    notes = dict(result.notes)
    notes.setdefault("unaligned_predictions", 0)
    lines.append("Notes: " + ", ".join(f"{k.replace('_', ' ')} {v}"
                                       for k, v in sorted(notes.items())))
    return lines


def result_text(result: EvaluationResult, *, errors: int = 0,
                inputs: Mapping[str, Mapping] | None = None) -> str:
    """One table per level and threshold, then the summary and (``errors`` > 0) the first
    error records of each table."""
    out: list[str] = []
    for level, runs in result.levels.items():
        for run in runs:
            out.append(f"\n== {run_title(result, run, level)}")
            header, rows = score_rows(run)
            out.append(table(rows, header=header, divider=True, aligns=ALIGNS, max_col=40))
            if errors and run.errors:
                eh, er = _error_rows(run, errors)
                out.append(f"First {len(er)} of {run.micro.fn + run.micro.fp} errors:")
                out.append(table(er, header=eh, divider=True, max_col=48))
    out.append("\n".join(summary_lines(result, inputs)))
    return "\n".join(out)


def result_markdown(result: EvaluationResult, *, errors: int = 0,
                    inputs: Mapping[str, Mapping] | None = None) -> str:
    """The same report as :func:`result_text`, as Markdown."""
    md = MarkdownRenderer()
    md.add(md.title(2, "Span evaluation"))
    md.add(md.list(summary_lines(result, inputs)))
    for level, runs in result.levels.items():
        for run in runs:
            md.add(md.title(3, run_title(result, run, level)))
            header, rows = score_rows(run)
            md.add(md.table(rows, header, aligns=ALIGNS))
            if errors and run.errors:
                eh, er = _error_rows(run, errors)
                md.add(f"First {len(er)} of {run.micro.fn + run.micro.fp} errors:")
                md.add(md.table([[c.replace("|", "\\|") for c in r] for r in er], eh))
    return md.text


def verdict_lines(verdict: GateVerdict) -> list[str]:
    """Headline first, then each breached floor (label, figure, value, floor)."""
    where = f"{verdict.strategy}" + (f" at IoU >= {verdict.threshold:g}"
                                     if verdict.threshold is not None else "")
    if verdict.passed:
        head = (f"Gate passed: {len(verdict.checks)} floor(s) of {verdict.source} hold "
                f"({where})")
        return [head]
    head = (f"Gate failed: {len(verdict.breaches)} of {len(verdict.checks)} floor(s) of "
            f"{verdict.source} breached ({where})")
    return [head, *(c.describe() for c in verdict.breaches)]


def verdict_table(verdict: GateVerdict) -> tuple[list[str], list[list[str]]]:
    header = ["label", "figure", "value", "floor", "result"]
    rows = []
    for c in verdict.checks:
        value = "-" if c.value is None else (str(c.value) if isinstance(c.value, int)
                                             else f"{c.value:.4f}")
        rows.append([c.label, c.figure, value, str(c.floor),
                     "pass" if c.passed else "FAIL" + (f": {c.reason}" if c.reason else "")])
    return header, rows


def verdict_text(verdict: GateVerdict) -> str:
    header, rows = verdict_table(verdict)
    return table(rows, header=header, divider=True, aligns=("l", "l", "r", "r", "l"),
                 max_col=60)


def verdict_markdown(verdict: GateVerdict) -> str:
    md = MarkdownRenderer()
    md.add(md.title(3, "Gate"))
    lines: Sequence[str] = verdict_lines(verdict)
    md.add(md.list(lines))
    header, rows = verdict_table(verdict)
    md.add(md.table(rows, header))
    return md.text
