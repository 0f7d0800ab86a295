"""The lines a command prints on stderr beside its report: hints about labels that cannot
match and files read in an unlikely scheme, and the gate's verdict, each ``(kind, line)``
for the CLI's printer."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..engine.result import ThresholdScores
from ..engine.settings import plural
from .summary import Inputs, count

if TYPE_CHECKING:
    from ..readers.options import ReadingOptions

__all__ = ["hint_console", "input_hints", "label_hints", "verdict_console"]


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
