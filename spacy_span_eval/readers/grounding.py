"""Grounding predicted strings in their document's text (semantics §11).

A string is looked for in tiers: ``exact``; ``caseless`` (case, runs of whitespace and how an
accented letter is composed ignored); ``fuzzy`` (rapidfuzz's best partial alignment, at a
similarity of at least ``similarity``, widened to whole words while it stays that similar),
tried only when the tiers before it find nothing. ``occurrence``: every non-overlapping
occurrence (spacy-llm's ``find_substrings`` default) or the first. The ``grounding`` option
names the last tier tried. In token unit a found character span is snapped to tokens as spaCy's
``Doc.char_span(alignment_mode=...)`` does (``strict``, ``contract``, ``expand``); one that
does not snap is an unaligned prediction with its reason. A string found nowhere is
*ungrounded*: an unaligned prediction whose reason starts with :data:`UNGROUNDED` (the engine
counts those per label). A LangExtract ``char_interval`` is the span (tier ``interval``) where
the text there is the string; elsewhere it is not trusted (counted) and the string is grounded.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from unicodedata import combining, normalize

from ..engine.spans import Span
from ..engine.strings import UNGROUNDED
from .base import Record, note, token_starts
from .options import ReadingOptions

__all__ = ["ground", "ground_record", "snap"]


def folded(text: str) -> tuple[str, list[int]]:
    """``text`` case-folded and decomposed (``é`` is ``e`` and its accent, as either is
    written), each run of whitespace one space, and where each character of that came from in
    ``text``."""
    out: list[str] = []
    at: list[int] = []
    for i, c in enumerate(text):
        if c.isspace():
            if i and text[i - 1].isspace():
                continue
            c = " "
        for d in normalize("NFD", c.casefold()):
            out.append(d)
            at.append(i)
    return "".join(out), at


def _find(text: str, needle: str, first: bool) -> list[tuple[int, int]]:
    """The non-overlapping occurrences of ``needle`` in ``text``, left to right."""
    hits, start = [], text.find(needle)
    while start >= 0:
        hits.append((start, start + len(needle)))
        if first:
            break
        start = text.find(needle, start + len(needle))
    return hits


def ground(
    text: str,
    string: str,
    *,
    grounding: str = "fuzzy",
    similarity: float = 0.9,
    occurrence: str = "all",
    fold: tuple[str, list[int]] | None = None,
) -> tuple[str | None, list[tuple[int, int]]]:
    """``(tier, character spans)`` of ``string`` in ``text`` (``(None, [])``: ungrounded).
    ``fold``: :func:`folded` of ``text``, when the caller has it already."""
    needle, first = string.strip(), occurrence == "first"
    if not needle:
        return None, []
    if grounding == "exact":
        hits = _find(text, needle, first)
        return ("exact" if hits else None), hits
    low, at = fold or folded(text)
    key = folded(needle)[0]
    found = _find(low, key, first)  # (not a letter whose accent follows: "Cafe" is not "Café")
    hits = [(at[s], at[e - 1] + 1) for s, e in found if not combining(low[e : e + 1] or " ")]
    if hits:
        exact = all(text[s:e] == needle for s, e in hits)
        return ("exact" if exact else "caseless"), hits
    if grounding == "fuzzy" and len(key) <= len(low):
        from rapidfuzz import fuzz  # (loaded when a string is not found as written)

        best = fuzz.partial_ratio_alignment(key, low, score_cutoff=similarity * 100)
        if best is not None and (piece := low[best.dest_start : best.dest_end]).strip():
            s = best.dest_start + len(piece) - len(piece.lstrip())  # (no space at an end)
            aligned = s, e = at[s], at[s + len(piece.strip()) - 1] + 1
            while s > 0 and text[s - 1].isalnum() and text[s].isalnum():
                s -= 1  # (a fuzzy match takes whole words, ...
            while e < len(text) and text[e].isalnum() and text[e - 1].isalnum():
                e += 1
            if fuzz.ratio(key, folded(text[s:e])[0]) < similarity * 100:
                s, e = aligned  # (... while as similar: a text without spaces is one word)
            return "fuzzy", [(s, e)]
    return None, []


def snap(
    start: int, end: int, starts: Sequence[int], ends: Sequence[int], mode: str
) -> tuple[int, int] | None:
    """The tokens ``[i, j)`` of character span ``[start, end)`` (``starts``/``ends``: each
    token's characters) as ``Doc.char_span(alignment_mode=mode)`` takes them; ``None``
    where it gives no span."""
    i, j = bisect_right(ends, start), bisect_left(starts, end)
    if mode == "strict":
        ok = i < j and starts[i] == start and ends[j - 1] == end
        return (i, j) if ok else None
    if mode == "contract":
        i += i < j and starts[i] < start
        j -= j > i and ends[j - 1] > end
    return (i, j) if i < j else None


def _token_bounds(gold: Record) -> tuple[Sequence[int], list[int]]:
    assert gold.tokens is not None
    starts = token_starts(gold.tokens) if gold.starts is None else gold.starts
    return starts, [s + len(t) for s, t in zip(starts, gold.tokens, strict=True)]


def ground_record(
    gold: Record,
    pred: Record,
    unit: str,
    options: ReadingOptions,
    notes: Counter[str],
) -> tuple[list[Span], list[tuple[Span, str]]]:
    """The spans of ``pred``'s strings in ``gold``'s text (in ``unit``), and the strings
    that found none or do not snap to tokens, as unaligned predictions with their reason.
    The tier of each string (label and text, whatever its scores) is counted once in
    ``notes``, as the strings table counts it."""
    assert pred.strings is not None
    text = gold.char_text()
    fold = folded(text) if options.grounding != "exact" else None
    bounds = _token_bounds(gold) if unit == "token" else None
    spans: list[Span] = []
    unaligned: list[tuple[Span, str]] = []
    counted: set[tuple[str, str]] = set()
    for label, string, score, interval in dict.fromkeys(pred.strings):
        tier: str | None = "interval"
        s, e = interval or (0, 0)
        if 0 <= s < e <= len(text) and text[s:e] == string:
            hits = [(s, e)]
        else:  # (an interval elsewhere than its text is not trusted)
            note(
                notes,
                "char_interval not matching its text: grounded by its text",
                interval is not None,
            )
            tier, hits = ground(
                text,
                string,
                grounding=options.grounding,
                similarity=options.similarity,
                occurrence=options.occurrence,
                fold=fold,
            )
        if (label, string) not in counted:
            note(notes, f"strings grounded ({tier})" if tier else "strings ungrounded")
        counted.add((label, string))
        if tier is None:
            unaligned.append((Span(0, 0, label, score), f"{UNGROUNDED} {string!r}"))
        for s, e in hits:
            where = (s, e) if bounds is None else snap(s, e, *bounds, options.snap)
            if where is None:
                reason = f"found at characters {s}-{e}, not on token boundaries ({options.snap})"
                unaligned.append((Span(s, e, label, score), reason))
            else:
                spans.append(Span(*where, label, score))
    return spans, unaligned
