"""The whole corpus's errors by kind per label, and the most frequent error strings per
label, as Markdown tables (the HTML page draws the same figures)."""

from __future__ import annotations

from wasabi.markdown import MarkdownRenderer

from ..engine.error_kinds import FREQUENT_KINDS, KindCounts
from ..engine.result import ThresholdScores

__all__ = ["KIND_FIELDS", "KIND_HEADER", "frequent_strings", "kind_rows", "kinds_markdown"]

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
