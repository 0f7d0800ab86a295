"""The lines under a report's tables: the documents read, each side's file with its spans
(CoNLL: its tokens, repaired chunks and conlleval's first line), the notes that count
something, and how predicted texts were aligned; and the whole corpus's errors by kind per
label with the most frequent error strings per label, as Markdown tables (the HTML page draws
the same figures)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wasabi.markdown import MarkdownRenderer

from ..engine.error_kinds import FREQUENT_KINDS, KindCounts
from ..engine.result import EvaluationResult, ThresholdScores
from ..engine.settings import plural

__all__ = [
    "KIND_FIELDS",
    "KIND_HEADER",
    "TAGGED_FORMATS",
    "alignment_line",
    "count",
    "frequent_strings",
    "kind_rows",
    "kinds_markdown",
    "shown_notes",
    "summary_lines",
]

#: What the readers report of each side (``gold``, ``predictions``): path, format, spans,
#: repaired chunks, notes and alignment, as in the JSON output's ``inputs``.
Inputs = Mapping[str, Mapping[str, Any]]

#: The input formats read from tags, whose repaired chunks are always reported (semantics
#: §5); the others read spans, and have no chunks to repair.
TAGGED_FORMATS = ("conll",)


def count(n: int | None) -> str:
    """A count with thousands separators (``656,400``); blank for none."""
    return "" if n is None else f"{n:,}"


def percent(share: float) -> str:
    """A level such as a confidence as a percentage, as precise as it was given (``99.9%``,
    not a rounded ``100%``)."""
    return f"{share * 100:g}%"


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


#: The columns of the error-kind table: FN's three kinds and total, then FP's.
KIND_HEADER = (
    "label",
    "missed",
    "boundary (gold)",
    "wrong label (gold)",
    "FN",
    "spurious",
    "boundary (pred)",
    "wrong label (pred)",
    "FP",
)


#: The :class:`KindCounts` fields of those columns.
KIND_FIELDS = (
    "missed",
    "boundary_gold",
    "wrong_label_gold",
    "fn",
    "spurious",
    "boundary_predicted",
    "wrong_label_predicted",
    "fp",
)


def kind_rows(run: ThresholdScores) -> list[tuple[str, bool, dict[str, str]]] | None:
    """One row per label, then the pooled ``all labels``: ``(name, pooled, the count of each
    of :data:`KIND_FIELDS`)``; ``None`` where no kinds were counted."""
    kinds = run.error_kinds()
    if kinds is None:
        return None
    rows = [(label, False, k) for label, k in kinds.items()]
    rows.append(("all labels", True, sum(kinds.values(), KindCounts())))
    return [
        (name, pooled, {f: f"{getattr(k, f):,}" for f in KIND_FIELDS}) for name, pooled, k in rows
    ]


def frequent_strings(run: ThresholdScores, top: int = 10) -> dict[str, list[list[str]]]:
    """Per label, a list for each of :data:`FREQUENT_KINDS`: its ``top`` most frequent error
    strings, each ``text ×n`` (``text → given label ×n`` for a relabelled one)."""
    return {
        label: [
            [f"{text}" + (f" → {given}" if given else "") + f" ×{n:,}" for text, given, n in found]
            for found in (by_kind.get(kind, []) for kind in FREQUENT_KINDS)
        ]
        for label, by_kind in run.frequent_errors(top).items()
    }


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def kinds_markdown(md: MarkdownRenderer, run: ThresholdScores, top: int = 10) -> None:
    """Add the error-kind table and the most frequent error strings of ``run`` to ``md``."""
    rows = kind_rows(run)
    if rows is None:
        return
    where = "" if run.threshold is None else f" at τ = {run.threshold:g}"
    md.add(
        f"**Errors by kind{where}** (the whole corpus: FN = missed + boundary + wrong label, "
        "FP = spurious + boundary + wrong label)"
    )
    table = [[_escape(name), *cells.values()] for name, _, cells in rows]
    md.add(md.table(table, KIND_HEADER, aligns=("l", *"r" * 8)))
    frequent = frequent_strings(run, top)
    if not frequent:
        return
    md.add(f"**Most frequent error strings{where}** (top {top} per label and kind)")
    table = [
        [_escape(label), *("; ".join(map(_escape, items)) for items in lists)]
        for label, lists in frequent.items()
    ]
    md.add(md.table(table, ("label", *FREQUENT_KINDS)))
