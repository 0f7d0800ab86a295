"""Error records shown in their sentence: every gold and predicted span drawn under its
words, with its label.

Gold spans are green, predicted ones amber; the span (or spans) a card is about keeps its
colour, is outlined in red and marked ``✗``, so a gold span in error and a predicted one read
apart. Each span gets a lane (a row under the words): spans that overlap never share
one, and a label sits inside its first word's box, which widens to fit it, so two labels never
overlap however short and close their spans are. The window is the sentence around the error
(the whole document when it is short). In ``char`` unit the window is cut into tokens at
whitespace and at every span boundary, so a boundary inside a word shows as a break in that
word.

A relabelled span (a gold annotation covered by a prediction of another label) is one card:
the ``wrong_label`` record, with the predictions that cover it (otherwise false positives
cards of their own) drawn as part of the same error, and their boundary IoU.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from itertools import pairwise

from ...engine.records import ErrorRecord
from ...jobs.system_run import DocumentView, Relabel

__all__ = [
    "KIND_COLORS",
    "KIND_TITLES",
    "ErrorCard",
    "error_cards",
    "kind_title",
    "render_in_context",
    "sentence_window",
]

WINDOW_TOKENS = 40
WINDOW_CHARS = 240
GOLD_COLOR, PRED_COLOR, ERROR_COLOR = "#9fd8b4", "#ffd591", "#c0392b"
#: How each error kind is named and coloured in the browser; a kind missing here shows
#: under its own name in grey.
KIND_TITLES = {
    "false_negative": "missed (FN)",
    "boundary": "wrong boundaries",
    "wrong_label": "wrong label",
    "false_positive": "spurious (FP)",
}
KIND_COLORS = {
    "false_negative": "#c0392b",
    "boundary": "#2a7ab0",
    "wrong_label": "#8e44ad",
    "false_positive": "#d9822b",
}
OTHER_KIND_COLOR = "#66717f"
_SENTENCE_END_TOKENS = frozenset({".", "!", "?", "…"})
_SENTENCE_END = re.compile(r"[.!?…](?=\s)|\n")


def kind_title(kind: str) -> str:
    return KIND_TITLES.get(kind, kind.replace("_", " "))


def kind_color(kind: str) -> str:
    return KIND_COLORS.get(kind, OTHER_KIND_COLOR)


@dataclass(frozen=True)
class ErrorCard:
    """What the error browser lists for one error: a record (and, for a relabelled span,
    the false-positive records of the predictions that relabel it)."""

    system: str
    kind: str
    kind_title: str
    labels: tuple[str, ...]
    document: str
    where: str
    best_iou: float
    summary: str
    html: str
    score_name: str = "best IoU"
    records: int = 1


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
    return [
        (s + m.start(), s + m.end())
        for s, e in pairwise(points)
        for m in re.finditer(r"\S+", text[s:e])
    ]


@dataclass(frozen=True)
class _Mark:
    start: int
    end: int
    side: str
    label: str
    target: bool


def _marks(
    record: ErrorRecord, view: DocumentView, also: Iterable[tuple[int, int, str]] = ()
) -> list[_Mark]:
    """Every gold and predicted span of the document; the record's span (and the predictions
    in ``also``) are the targets."""
    targets = {
        ("pred" if record.side == "predicted" else "gold", record.start, record.end, record.label)
    }
    targets |= {("pred", s, e, label) for s, e, label in also}
    marks = []
    for side, spans in (("gold", view.gold), ("pred", view.pred)):
        for s in spans:
            marks.append(
                _Mark(s.start, s.end, side, s.label, (side, s.start, s.end, s.label) in targets)
            )
    return marks


def _lanes(ranges: Sequence[tuple[int, int]]) -> list[int]:
    """A lane per token range, in the given order, each in the lowest lane where it shares
    no token with a range already there."""
    taken: list[list[tuple[int, int]]] = []
    lane = []
    for s, e in ranges:
        for k, ranges_in in enumerate(taken):
            if all(e <= a or b <= s for a, b in ranges_in):
                ranges_in.append((s, e))
                lane.append(k)
                break
        else:
            taken.append([(s, e)])
            lane.append(len(taken) - 1)
    return lane


def _draw(tokens: Sequence[str], spans: Sequence[tuple[int, int, _Mark]]) -> str:
    """Tokens as boxes, each with a bar per lane; a span's label sits in its first token's
    bar, in the normal flow, so the box grows to fit it."""
    lanes = _lanes([(s, e) for s, e, _ in spans])
    n_lanes = max(lanes, default=-1) + 1
    grid: list[list[tuple[int, int, _Mark] | None]] = [[None] * n_lanes for _ in tokens]
    for (s, e, m), k in zip(spans, lanes, strict=True):
        for t in range(s, e):
            grid[t][k] = (s, e, m)
    out = ['<div class="spans">']
    for t, tok in enumerate(tokens):
        cells = []
        for cell in grid[t]:
            if cell is None:
                cells.append('<span class="bar none"></span>')
                continue
            s, e, m = cell
            # The span in error keeps its side's colour (gold or predicted) and gets the
            # error's outline (CSS ``.bar.target``), so a gold span in error and a
            # predicted one still read apart.
            color = GOLD_COLOR if m.side == "gold" else PRED_COLOR
            classes = [
                "bar",
                m.side,
                *(["target"] if m.target else []),
                *(["start"] if t == s else []),
                *(["end"] if t == e - 1 else []),
            ]
            tag = ""
            if t == s:
                tag = (
                    f'<span class="tag {m.side}" title="{m.side}">{escape(m.label)}'
                    f"{' ✗' if m.target else ''}</span>"
                )
            cells.append(
                f'<span class="{" ".join(classes)}" style="background:{color}">{tag}</span>'
            )
        out.append(f'<span class="tok"><span class="w">{escape(tok)}</span>{"".join(cells)}</span>')
    out.append("</div>")
    return "".join(out)


def render_in_context(
    record: ErrorRecord, view: DocumentView, also: Iterable[tuple[int, int, str]] = ()
) -> str:
    """The record's sentence with every gold and predicted span that falls in it; the
    record's span and the predictions in ``also`` (``(start, end, label)``) marked ✗."""
    a, b = sentence_window(view, record.start, record.end)
    marks = [m for m in _marks(record, view, also) if m.start < b and m.end > a]
    if view.unit == "token" and view.tokens is not None:
        tokens = list(view.tokens[a:b])
        ranges = [(max(m.start, a) - a, min(m.end, b) - a) for m in marks]
    else:
        text = view.text or ""
        bounds = _char_tokens(text, a, b, (x for m in marks for x in (m.start, m.end)))
        tokens = [text[s:e] for s, e in bounds]
        starts, ends = [s for s, _ in bounds], [e for _, e in bounds]
        ranges = [
            (bisect_left(starts, max(m.start, a)), bisect_right(ends, min(m.end, b))) for m in marks
        ]
    length = (
        len(view.tokens)
        if view.unit == "token" and view.tokens is not None
        else len(view.text or "")
    )
    # Ellipses as tokens of their own, so they sit in the line.
    lead = 1 if a > 0 else 0
    tokens = (["…"] if lead else []) + tokens + (["…"] if b < length else [])
    spans = [
        (s + lead, e + lead, m) for m, (s, e) in zip(marks, ranges, strict=True) if e > s
    ]  # a span of whitespace only has nothing to draw
    # Gold lanes above predicted ones, each side by position (longest first): the lanes
    # read the same way in every card.
    spans.sort(key=lambda x: (x[2].side != "gold", x[0], -x[1]))
    return f'<div class="snippet">{_draw(tokens, spans)}</div>'


def _summary(record: ErrorRecord, relabel: Relabel | None) -> str:
    text = "" if record.text is None else f"“{record.text}”"
    if record.kind == "wrong_label":
        iou = "" if relabel is None else f" (boundary IoU {relabel.score:.2f})"
        return f"gold {record.label} {text} predicted as {record.predicted_label}{iou}"
    if record.kind == "false_negative":
        return f"gold {record.label} {text} not found (best IoU {record.best_iou:.2f})"
    if record.kind == "boundary":
        found = "gold" if record.side == "predicted" else "predicted"
        return (
            f"{'predicted' if record.side == 'predicted' else 'gold'} {record.label} {text}"
            f" overlaps {found} {record.label} with other boundaries (best IoU "
            f"{record.best_iou:.2f})"
        )
    if record.kind == "false_positive":
        return (
            f"predicted {record.label} {text} matches no gold span (best IoU {record.best_iou:.2f})"
        )
    return f"{kind_title(record.kind)}: {record.label} {text} (best IoU {record.best_iou:.2f})"


def error_cards(
    system: str,
    records: Sequence[ErrorRecord],
    documents: Mapping[str, DocumentView],
    relabels: Mapping[int, Relabel] | None = None,
) -> list[ErrorCard]:
    """One card per error, in the engine's order (documents in stream order). A relabelled
    span is one card: ``relabels`` (record index -> the predictions covering it and their
    boundary IoU) folds those predictions' false-positive records into its card."""
    relabels = relabels or {}
    fp_at = {
        (r.document, r.start, r.end, r.label): i
        for i, r in enumerate(records)
        if r.kind == "false_positive" and r.reason is None
    }
    folded: dict[int, int] = {}  # FP record -> the relabel card that shows it
    for i in sorted(relabels):
        for s, e, label in relabels[i].spans:
            j = fp_at.get((records[i].document, s, e, label))
            if j is not None:
                folded.setdefault(j, i)
    cards = []
    for i, r in enumerate(records):
        if i in folded:
            continue
        relabel = relabels.get(i)
        view = documents.get(r.document)
        if r.reason is not None or view is None:
            body = f'<p class="reason">{escape(r.reason or "document text not available")}</p>'
        else:
            body = render_in_context(r, view, relabel.spans if relabel else ())
        labels = (
            (r.label,) if r.predicted_label in (None, r.label) else (r.label, r.predicted_label)
        )
        n_folded = sum(1 for owner in folded.values() if owner == i)
        score, score_name = (
            (relabel.score, "boundary IoU") if relabel is not None else (r.best_iou, "best IoU")
        )
        cards.append(
            ErrorCard(
                system,
                r.kind,
                kind_title(r.kind),
                labels,
                r.document,
                f"[{r.start}, {r.end})",
                score,
                r.reason if r.reason else _summary(r, relabel),
                body,
                score_name,
                1 + n_folded,
            )
        )
    return cards
