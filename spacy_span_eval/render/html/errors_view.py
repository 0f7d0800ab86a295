"""Error records shown in their sentence, the way the text reads: every gold and predicted
span drawn around its characters, with its label.

Gold spans are green and drawn above the words, predicted ones amber and below; the span
(or spans) a card is about keeps its colour, is outlined in red and marked ``✗``, so a gold
span in error and a predicted one read apart. The text is never spread apart: bars and labels
are placed out of the flow, in lanes (a row above or below the line) that the line height
reserves, and a span and its label never share a lane with one they would overlap, however
short and close the spans are. A boundary inside a word leaves the word whole on screen. The
window is the sentence around the error (the whole document when it is short).

A boundary error is one card: the gold span with the predictions of its label that overlap
it with other boundaries (each also a record of its own, folded in when kept).
A relabelled span (a gold annotation covered by a prediction of another label) is one card:
the gold ``wrong_label`` record, with the predictions that cover it (their own predicted
``wrong_label`` records, a card of their own only when that record is not kept) drawn as
part of the same error, and their boundary IoU.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from itertools import accumulate, pairwise
from typing import Any

from ...engine.records import ErrorRecord
from ...jobs.system_run import DocumentView, Relabel

__all__ = [
    "KIND_COLORS",
    "KIND_TITLES",
    "ErrorCard",
    "Mark",
    "draw_text",
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
    the records of the predictions that relabel it)."""

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
        lo, hi = max(0, start - WINDOW_TOKENS), min(len(toks), end + WINDOW_TOKENS)
        after_ends = [i + 1 for i in range(lo, start) if toks[i] in _SENTENCE_END_TOKENS]
        b = next((i + 1 for i in range(end, hi) if toks[i] in _SENTENCE_END_TOKENS), hi)
        return (after_ends[-1] if after_ends else lo), b
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


@dataclass(frozen=True)
class Mark:
    start: int
    end: int
    side: str
    label: str
    target: bool


def _marks(
    record: ErrorRecord, view: DocumentView, also: Iterable[tuple[int, int, str]] = ()
) -> list[Mark]:
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
                Mark(s.start, s.end, side, s.label, (side, s.start, s.end, s.label) in targets)
            )
    return marks


def _lanes(extents: Sequence[tuple[int, int]]) -> list[int]:
    """A lane per extent, in the given order, each in the lowest lane where it overlaps no
    extent already there."""
    taken: list[list[tuple[int, int]]] = []
    lane = []
    for s, e in extents:
        for k, in_lane in enumerate(taken):
            if all(e <= a or b <= s for a, b in in_lane):
                in_lane.append((s, e))
                lane.append(k)
                break
        else:
            taken.append([(s, e)])
            lane.append(len(taken) - 1)
    return lane


def _tag_text(m: Mark) -> str:
    return f"{m.label} ✗" if m.target else m.label


def _extent(s: int, e: int, m: Mark) -> tuple[int, int]:
    """The characters a span's lane holds: its own, or as many as its label needs when the
    label is wider (a label's small capitals take about one character of text each, plus
    its padding)."""
    return s, max(e, s + len(_tag_text(m)) + 2)


def draw_text(text: str, spans: Sequence[tuple[int, int, Mark]]) -> str:
    """``text`` as it reads, with each span (``[start, end)`` in ``text``) drawn as a bar
    and a small label outside the line: gold above the words, predicted below, each side in
    lanes (spans, with their labels, that overlap never share one). The text is cut only
    where a span or a run of spaces starts or ends, into inline pieces without padding or
    margins, so words keep their spacing and a boundary inside a word does not split it on
    screen; bars and labels are positioned out of the flow, and the line height reserves
    their room."""
    lanes: dict[int, int] = {}
    for side in ("gold", "pred"):
        mine = sorted(
            (i for i, (_, _, m) in enumerate(spans) if m.side == side),
            key=lambda i: (spans[i][0], -spans[i][1]),
        )
        lanes.update(zip(mine, _lanes([_extent(*spans[i]) for i in mine]), strict=True))
    cuts = {0, len(text)}
    cuts.update(x for s, e, _ in spans for x in (s, e) if 0 < x < len(text))
    cuts.update(x for m in re.finditer(r"\s+", text) for x in m.span())
    out = []
    for a, b in pairwise(sorted(cuts)):
        over = sorted(
            (i for i, (s, e, _) in enumerate(spans) if s <= a and b <= e),
            key=lambda i: (spans[i][2].side != "gold", lanes[i]),
        )
        piece = escape(text[a:b])
        marks = "".join(_piece_marks(a, b, *spans[i], lanes[i]) for i in over)
        out.append(f'<span class="sg">{piece}{marks}</span>' if over else piece)
    rows = max(lanes.values(), default=-1) + 1  # (lanes on the busier side)
    return f'<div class="spans" style="--lanes:{rows}">{"".join(out)}</div>'


def _piece_marks(a: int, b: int, s: int, e: int, m: Mark, lane: int) -> str:
    """The bar of span ``[s, e)`` over the piece ``[a, b)`` of its text, and its label on
    its first piece."""
    ends = [*(["start"] if a == s else []), *(["end"] if b == e else [])]
    classes = " ".join(["bar", m.side, *(["target"] if m.target else []), *ends])
    bar = f'<i class="{classes}" style="--k:{lane}"></i>'
    if a != s:
        return bar
    # The span in error keeps its side's colour and gets the error's outline (CSS
    # ``.target``), so gold and predicted spans in error still read apart.
    target = " target" if m.target else ""
    return bar + (
        f'<span class="tag {m.side}{target}" style="--k:{lane}" '
        f'title="{m.side}">{escape(_tag_text(m))}</span>'
    )


def render_in_context(
    record: ErrorRecord, view: DocumentView, also: Iterable[tuple[int, int, str]] = ()
) -> str:
    """The record's sentence with every gold and predicted span that falls in it; the
    record's span and the predictions in ``also`` (``(start, end, label)``) marked ✗."""
    a, b = sentence_window(view, record.start, record.end)
    marks = [m for m in _marks(record, view, also) if m.start < b and m.end > a]
    return render_window(view, a, b, marks)


def token_offsets(tokens: Sequence[str]) -> tuple[list[int], list[int]]:
    """Where each token starts and ends in the tokens joined by single spaces (the starts
    go on one past the last token)."""
    starts = [0, *accumulate(len(t) + 1 for t in tokens)]
    return starts, [s + len(t) for s, t in zip(starts, tokens, strict=False)]


def render_window(view: DocumentView, a: int, b: int, marks: Sequence[Mark]) -> str:
    """The window ``[a, b)`` of a document (in its unit) with ``marks`` drawn over it, an
    ellipsis where the document goes on."""
    if view.unit == "token" and view.tokens is not None:
        tokens = view.tokens[a:b]
        text, length = " ".join(tokens), len(view.tokens)
        starts, ends = token_offsets(tokens)
    else:
        text, length = (view.text or "")[a:b], len(view.text or "")
        starts, ends = list(range(len(text))), list(range(1, len(text) + 1))
    lead = "… " if a > 0 else ""
    spans = []
    for m in marks:
        s, e = max(m.start, a) - a, min(m.end, b) - a
        s, e = (starts[s], ends[e - 1]) if e > s else (0, 0)
        if text[s:e].strip():  # a span of whitespace only has nothing to draw
            spans.append((s + len(lead), e + len(lead), m))
    text = lead + text + (" …" if b < length else "")
    return f'<div class="snippet">{draw_text(text, spans)}</div>'


def _summary(
    record: ErrorRecord,
    relabel: Relabel | None,
    partners: Sequence[ErrorRecord] = (),
    others: Sequence[str] = (),
) -> str:
    """The card's sentence; ``others``: the labels a relabelling prediction covers."""
    text = "" if record.text is None else f"“{record.text}”"
    if record.kind == "boundary" and partners:
        found = ", ".join(
            f"“{p.text}”" if p.text is not None else f"[{p.start}, {p.end})" for p in partners
        )
        return (
            f"gold {record.label} {text} predicted with other boundaries as {found} "
            f"(best IoU {record.best_iou:.2f})"
        )
    if record.kind == "wrong_label" and record.side == "predicted":
        return f"predicted {record.label} {text} covers gold {'/'.join(others)}: wrong label"
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


def _overlap(a: Any, b: Any) -> bool:
    return bool(a.start < b.end and b.start < a.end)


def _folds(
    records: Sequence[ErrorRecord], relabels: Mapping[int, Relabel]
) -> tuple[dict[int, int], dict[int, list[int]]]:
    """Which records another's card shows (record -> the card's record), and each boundary
    card's partners: a relabelled span's card shows the records of the predictions
    that relabel it; a boundary error is one card, the gold side's record, with the
    predictions of its label that overlap it with other boundaries (their own boundary
    records, when kept)."""
    fp_at = {
        (r.document, r.start, r.end, r.label): i
        for i, r in enumerate(records)
        if r.side == "predicted" and r.kind != "boundary" and r.reason is None
    }
    folded: dict[int, int] = {}
    for i in sorted(relabels):
        for s, e, label in relabels[i].spans:
            j = fp_at.get((records[i].document, s, e, label))
            if j is not None:
                folded.setdefault(j, i)
    boundary_pred: dict[tuple[str, str], list[int]] = {}
    for j, r in enumerate(records):
        if r.kind == "boundary" and r.side == "predicted":
            boundary_pred.setdefault((r.document, r.label), []).append(j)
    partners: dict[int, list[int]] = {}
    for i, r in enumerate(records):
        if r.kind != "boundary" or r.side != "gold":
            continue
        for j in boundary_pred.get((r.document, r.label), ()):
            p = records[j]
            if j not in folded and _overlap(p, r):
                folded[j] = i
                partners.setdefault(i, []).append(j)
    return folded, partners


def _card(
    system: str,
    r: ErrorRecord,
    view: DocumentView | None,
    relabel: Relabel | None,
    partners: Sequence[ErrorRecord],
    n_folded: int,
) -> ErrorCard:
    also = [(p.start, p.end, p.label) for p in partners]
    if relabel is not None:
        also.extend(relabel.spans)
    if r.reason is not None or view is None:
        body = f'<p class="reason">{escape(r.reason or "document text not available")}</p>'
    else:
        body = render_in_context(r, view, also)
    labels: tuple[str, ...] = (r.label,)
    if r.predicted_label is not None and r.predicted_label != r.label:
        labels = (r.label, r.predicted_label)
    others: tuple[str, ...] = ()
    if r.kind == "wrong_label" and r.side == "predicted" and view is not None:
        # the labels of the annotations it relabels (the records of which may not be kept)
        others = tuple(
            sorted({g.label for g in view.gold if g.label != r.label and _overlap(g, r)})
        )
        labels += others
    score, score_name = (
        (r.best_iou, "best IoU") if relabel is None else (relabel.score, "boundary IoU")
    )
    return ErrorCard(
        system,
        r.kind,
        kind_title(r.kind),
        labels,
        r.document,
        r.where("" if view is None else view.unit),
        score,
        r.reason or _summary(r, relabel, partners, others),
        body,
        score_name,
        1 + n_folded,
    )


def error_cards(
    system: str,
    records: Sequence[ErrorRecord],
    documents: Mapping[str, DocumentView],
    relabels: Mapping[int, Relabel] | None = None,
) -> list[ErrorCard]:
    """One card per error, in the engine's order (documents in stream order). A relabelled
    span is one card: ``relabels`` (record index -> the predictions covering it and their
    boundary IoU) folds those predictions' records into its card."""
    relabels = relabels or {}
    folded, partners = _folds(records, relabels)
    shown_by = Counter(folded.values())
    return [
        _card(
            system,
            r,
            documents.get(r.document),
            relabels.get(i),
            [records[j] for j in partners.get(i, ())],
            shown_by[i],
        )
        for i, r in enumerate(records)
        if i not in folded
    ]
