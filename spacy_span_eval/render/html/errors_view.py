"""Error records shown in their sentence: gold and predicted spans drawn by displaCy.

displaCy's ``span`` style is used (not ``ent``) because gold and predicted spans overlap by
nature; gold spans are green, predicted ones amber, and the span the record is about is red
and marked ``✗``. The window is the sentence around the error (the whole document when it is
short). In ``char`` unit the window is cut into tokens at whitespace and at every span
boundary, so a boundary inside a word shows as a break in that word.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from itertools import pairwise

from spacy import displacy

from ...engine.records import ErrorRecord
from ...jobs.system_run import DocumentView

__all__ = ["ErrorCard", "error_cards", "render_in_context", "sentence_window"]

WINDOW_TOKENS = 40
WINDOW_CHARS = 240
GOLD_COLOR, PRED_COLOR, ERROR_COLOR = "#9fd8b4", "#ffd591", "#f59e98"
KIND_TITLES = {"false_negative": "missed (FN)", "boundary": "wrong boundaries",
               "wrong_label": "wrong label", "false_positive": "spurious (FP)"}
_SENTENCE_END_TOKENS = frozenset({".", "!", "?", "…"})
_SENTENCE_END = re.compile(r"[.!?…](?=\s)|\n")


@dataclass(frozen=True)
class ErrorCard:
    """What the error browser lists for one record."""

    system: str
    kind: str
    kind_title: str
    labels: tuple[str, ...]
    document: str
    where: str
    best_iou: float
    summary: str
    html: str


def sentence_window(view: DocumentView, start: int, end: int) -> tuple[int, int]:
    """``[a, b)`` around ``[start, end)``: the whole document when it is short (a tweet, a
    CoNLL sentence), else the sentence it is in, bounded to a few dozen tokens (or a few
    hundred characters) on each side."""
    if view.unit == "token" and view.tokens is not None:
        toks = view.tokens
        if len(toks) <= 2 * WINDOW_TOKENS:
            return 0, len(toks)
        a = max(0, start - WINDOW_TOKENS)
        for i in range(start - 1, a - 1, -1):
            if toks[i] in _SENTENCE_END_TOKENS:
                a = i + 1
                break
        b = min(len(toks), end + WINDOW_TOKENS)
        for i in range(end, b):
            if toks[i] in _SENTENCE_END_TOKENS:
                b = i + 1
                break
        return a, b
    text = view.text or ""
    if len(text) <= 2 * WINDOW_CHARS:
        return 0, len(text)
    lo = max(0, start - WINDOW_CHARS)
    ends = [m.end() for m in _SENTENCE_END.finditer(text, lo, start)]
    if ends:
        a = ends[-1]
    else:
        space = text.find(" ", lo, start) if lo else -1
        a = space + 1 if space >= 0 else lo
    hi = min(len(text), end + WINDOW_CHARS)
    m = _SENTENCE_END.search(text, end, hi)
    if m:
        b = m.end()
    else:
        space = text.rfind(" ", end, hi) if hi < len(text) else -1
        b = space if space >= 0 else hi
    return a, b


def _char_tokens(text: str, a: int, b: int, cuts: Iterable[int]) -> list[tuple[int, int]]:
    """Tokens of ``text[a:b]``: split at whitespace and at every span boundary."""
    points = sorted({a, b, *(c for c in cuts if a < c < b)})
    return [(s + m.start(), s + m.end()) for s, e in pairwise(points)
            for m in re.finditer(r"\S+", text[s:e])]


@dataclass(frozen=True)
class _Mark:
    start: int
    end: int
    label: str
    color: str


def _marks(record: ErrorRecord, view: DocumentView) -> list[_Mark]:
    target_side = "pred" if record.side == "predicted" else "gold"
    marks = []
    for side, spans, color in (("gold", view.gold, GOLD_COLOR), ("pred", view.pred, PRED_COLOR)):
        for s in spans:
            is_target = (side == target_side and (s.start, s.end, s.label)
                         == (record.start, record.end, record.label))
            # displaCy inserts labels as markup and colours them by label text: the side
            # goes in a class, so "PER" of gold and "PER" of pred get their own colours.
            label = f'<span class="{side}">{escape(s.label)}{" ✗" if is_target else ""}</span>'
            marks.append(_Mark(s.start, s.end, label, ERROR_COLOR if is_target else color))
    return marks


def render_in_context(record: ErrorRecord, view: DocumentView) -> str:
    """displaCy ``span`` markup of the record's sentence with every gold and predicted span
    that falls in it."""
    a, b = sentence_window(view, record.start, record.end)
    marks = [m for m in _marks(record, view) if m.start < b and m.end > a]
    if view.unit == "token" and view.tokens is not None:
        tokens = list(view.tokens[a:b])
        ranges = [(max(m.start, a) - a, min(m.end, b) - a) for m in marks]
    else:
        text = view.text or ""
        bounds = _char_tokens(text, a, b, (x for m in marks for x in (m.start, m.end)))
        tokens = [text[s:e] for s, e in bounds]
        starts, ends = [s for s, _ in bounds], [e for _, e in bounds]
        ranges = [(bisect_left(starts, max(m.start, a)), bisect_right(ends, min(m.end, b)))
                  for m in marks]
    length = len(view.tokens) if view.unit == "token" and view.tokens is not None \
        else len(view.text or "")
    # Ellipses as tokens of their own, so they sit in the line displaCy draws.
    lead = 1 if a > 0 else 0
    tokens = (["…"] if lead else []) + tokens + (["…"] if b < length else [])
    spans, colors = [], {}
    for m, (s, e) in zip(marks, ranges, strict=True):
        if e <= s:
            continue  # a span of whitespace only: nothing to draw
        spans.append({"start_token": s + lead, "end_token": e + lead, "label": m.label})
        colors[m.label] = m.color
    data = {"text": " ".join(tokens), "tokens": tokens, "spans": spans}
    markup = displacy.render(data, style="span", manual=True, page=False,
                             options={"colors": colors})
    return f'<div class="snippet">{markup}</div>'


def _summary(record: ErrorRecord) -> str:
    text = "" if record.text is None else f"“{record.text}”"
    if record.kind == "wrong_label":
        return f"gold {record.label} {text} covered by {record.predicted_label} instead"
    if record.kind == "false_negative":
        return f"gold {record.label} {text} not found (best IoU {record.best_iou:.2f})"
    if record.kind == "boundary":
        found = "gold" if record.side == "predicted" else "predicted"
        return (f"{'predicted' if record.side == 'predicted' else 'gold'} {record.label} {text}"
                f" overlaps {found} {record.label} with other boundaries (best IoU "
                f"{record.best_iou:.2f})")
    return f"predicted {record.label} {text} matches no gold span (best IoU " \
           f"{record.best_iou:.2f})"


def error_cards(system: str, records: Sequence[ErrorRecord],
                documents: Mapping[str, DocumentView]) -> list[ErrorCard]:
    """One card per record, in the engine's order (documents in stream order)."""
    cards = []
    for r in records:
        view = documents.get(r.document)
        if r.reason is not None or view is None:
            body = f'<p class="reason">{escape(r.reason or "document text not available")}</p>'
        else:
            body = render_in_context(r, view)
        labels = (r.label,) if r.predicted_label in (None, r.label) else (
            r.label, r.predicted_label)
        cards.append(ErrorCard(system, r.kind, KIND_TITLES[r.kind], labels, r.document,
                               f"[{r.start}, {r.end})", r.best_iou,
                               r.reason if r.reason else _summary(r), body))
    return cards

