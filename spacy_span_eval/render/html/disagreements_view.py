"""The comparison's disagreement view: per label, the gold spans one system finds and the
other misses (counted over the whole corpus from the engine's match flags), and a card for
each kept one: the gold span in its context with both systems' predictions around it."""

from __future__ import annotations

from markupsafe import Markup

from ...jobs.disagreements import DIRECTIONS, Disagreement, Disagreements
from .errors_view import Mark, draw_text, token_offsets

__all__ = ["direction_titles", "disagreement_view"]


def direction_titles(names: tuple[str, str]) -> dict[str, str]:
    a, b = names
    return {"a_only": f"{a} right, {b} wrong", "b_only": f"{b} right, {a} wrong"}


def _window(d: Disagreement) -> tuple[str, int, list[int], list[int]]:
    """The context as one string, the unit position its first character stands for, and
    the character offsets where each unit position starts and ends in it."""
    left, text, right = d.left or "", d.text or "", d.right or ""
    if d.unit != "token":
        window = left + text + right
        first = d.start - len(left)
        offsets = list(range(len(window) + 1))
        return window, first, offsets, offsets
    tokens = [t for part in (left, text, right) if part for t in part.split(" ")]
    first = d.start - (len(left.split(" ")) if left else 0)
    return " ".join(tokens), first, *token_offsets(tokens)


def _card_html(d: Disagreement, names: tuple[str, str]) -> str:
    """The gold span (above the words) in its context; each system's predictions
    that overlap it below, labelled with the system's name."""
    window, first, starts, ends = _window(d)
    n = len(starts) - 1

    def place(s: int, e: int) -> tuple[int, int]:
        s, e = max(s - first, 0), min(e - first, n)
        return (starts[s], ends[e - 1]) if e > s else (0, 0)

    spans = [(*place(d.start, d.end), Mark(d.start, d.end, "gold", d.label, False))]
    for name, preds in zip(names, (d.pred_a, d.pred_b), strict=True):
        for s, e, label in preds:
            spans.append((*place(s, e), Mark(s, e, "pred", f"{name}: {label}", False)))
    spans = [x for x in spans if x[1] > x[0]]
    lead = "… " if first > 0 else ""
    spans = [(s + len(lead), e + len(lead), m) for s, e, m in spans]
    return f'<div class="snippet">{draw_text(lead + window, spans)}</div>'


def _summary(d: Disagreement, names: tuple[str, str]) -> str:
    found, missed = names if d.direction == "a_only" else names[::-1]
    preds = d.pred_b if d.direction == "a_only" else d.pred_a
    text = "" if d.text is None else f"“{d.text}” "
    what = (
        "predicts nothing over it"
        if not preds
        else "predicts " + ", ".join(f"{label} [{s}, {e})" for s, e, label in preds)
    )
    return f"gold {d.label} {text}found by {found}; {missed} {what}"


def disagreement_view(d: Disagreements) -> dict[str, object]:
    """What the page's disagreement section shows."""
    titles = direction_titles(d.names)
    rows = [
        {
            "label": label,
            "a_only": f"{x:,}",
            "b_only": f"{y:,}",
            "both": f"{z:,}",
            "neither": f"{w:,}",
        }
        for label, x, y, z, w in d.rows()
    ]
    totals = {key: f"{d.total(key):,}" for key in (*DIRECTIONS, "both", "neither")}
    cards = [
        {
            "direction": x.direction,
            "title": titles[x.direction],
            "label": x.label,
            "document": x.document,
            "where": f"[{x.start}, {x.end})",
            "summary": _summary(x, d.names),
            "html": Markup(_card_html(x, d.names)),
        }
        for x in d.shown
    ]
    where = "" if d.threshold is None else f" at IoU ≥ {d.threshold:g}"
    unpaired = (
        f" {d.unpaired_documents:,} documents in one system's pairing only are left out."
        if d.unpaired_documents
        else ""
    )
    caption = (
        f"Gold spans found{where} by one system and missed by the other: every gold span "
        "is counted, from the engine's match flags for each system. "
        f"{len(cards):,} of {d.n_disagreements:,} disagreements shown, a seeded sample "
        "spread across labels and directions (every label and direction gets a span before "
        f"any gets a second), in document order.{unpaired}"
    )
    return {
        "titles": titles,
        "rows": rows,
        "totals": totals,
        "cards": cards,
        "labels": sorted({c["label"] for c in cards}),
        "caption": caption,
        "shown": f"{len(cards):,}",
        "total": f"{d.n_disagreements:,}",
    }
