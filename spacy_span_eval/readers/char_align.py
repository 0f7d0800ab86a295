"""Two texts of one document that differ: trailing whitespace, Unicode normalisation, or
``--align chars``.

Readers of different tools disagree about the end of a text (a brat ``.txt`` ends with a
newline, a Prodigy task does not), and a system may rewrite a few characters of its input
(``''`` as ``\\`\\```, a dash, a space). Both sides' texts are known only once the records are
paired, so this runs in :func:`.pairing.to_document`, for every character-offset format alike.

- Texts equal up to trailing whitespace are the same text, whatever ``--align`` says: the
  predicted offsets stand as they are (the common part is identical), and the pair is counted.
- Texts equal after NFC (one side composed, the other decomposed) are the same text too: the
  predicted offsets move onto the gold characters, and the pair is counted. Texts that differ
  only in what :func:`fold` erases are refused without ``--align chars`` by a message that says
  so.
- ``--align chars`` aligns the two texts character by character and moves each predicted span
  onto the gold text. Both texts are first *folded* (:func:`fold`): NFKC, typographic quotes,
  backticks and dashes as their ASCII forms, so a difference of that kind is no change at all.
  A predicted character has a gold counterpart when it is kept or substituted; only an
  inserted one has none. A span whose first or last character has none cannot be placed: it
  is kept as an unaligned prediction with the reason (a false positive, listed), never dropped.
  Spans that are placed but touch a changed character, on either side, are counted and the
  first few listed.

How much may change (:func:`lost_characters`): a *change* is what lies between two unchanged
stretches of at least :data:`MIN_RUN` characters. A change no longer than the longer stretch
beside it is an edit: its characters are substituted one for one, and only the difference of
its two lengths is lost (whitespace put in or taken out is never lost). A longer change, or
one with no stretch beside it, is a rewrite: all of it is lost. A pair losing more than
``max(ALLOWANCE, (1 - share) * longer text)`` characters, or keeping none, is refused as
different documents (``share``: :data:`MIN_SHARED` unless set).

Speed: rapidfuzz's Levenshtein alignment is fast C++ but bit-parallel over the whole pair,
so its time grows with the product of the two lengths once they differ in many places
(minutes for two million characters). :func:`_blocks` first anchors on k-grams found once in
each text (their longest increasing chain, with numpy), and rapidfuzz aligns only the gaps
between anchors; a gap too long to be an edit without an anchor inside is a rewrite, so
different documents are refused before any alignment.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine.spans import Span
from ..errors import DocumentMismatchError
from .options import MIN_SHARED

__all__ = [
    "ALLOWANCE",
    "MIN_SHARED",
    "NORMALISATION",
    "TRAILING_WHITESPACE",
    "CharDifferences",
    "CharMapping",
    "TextPairing",
    "align_texts",
    "fold",
    "lost_characters",
]

#: Characters any pair may lose, however short its texts.
ALLOWANCE = 3
#: Unchanged characters in a row that end a change.
MIN_RUN = 3
#: The predicted side's note for a pair whose texts differ only in trailing whitespace.
TRAILING_WHITESPACE = "texts differing from gold only in trailing whitespace"
#: The predicted side's note for a pair whose texts are equal after NFC.
NORMALISATION = "texts differing from gold only in Unicode normalisation (NFC)"

#: Typographic quotes and dashes as ASCII; invisible characters (soft hyphen, zero width
#: space, byte order mark) as nothing.
_ASCII = str.maketrans(
    {
        **dict.fromkeys("“”„‟«»〝〞", '"'),
        **dict.fromkeys("‘’‚‛′`", "'"),
        **dict.fromkeys("‐‑‒–—―−", "-"),
        **dict.fromkeys("\u00ad\u200b\u2060\ufeff", None),
    }
)
#: What :func:`fold` looks at; anything else is ASCII that folds to itself.
_SPECIAL = re.compile(r"``|''|-{2,}|`|.?[^\x00-\x7f]+", re.S)
#: A gap between anchors at most this long (on either side) is aligned by rapidfuzz.
_GAP = 2000
#: k-gram lengths of the anchors: the whole texts, then within a long gap.
_K = (16, 8)


def _fold_unit(unit: str) -> str:
    out = unicodedata.normalize("NFKC", unit).translate(_ASCII)
    return '"' if out in ("''", "``") else "-" if out and set(out) == {"-"} else out


def _units(piece: str) -> list[str]:
    """``piece`` cut before each character that starts a new character (combining class 0)."""
    units: list[str] = []
    for c in piece:
        if units and (unicodedata.combining(c) or "\u1160" <= c <= "\u11ff"):
            units[-1] += c
        else:
            units.append(c)
    return units


def fold(text: str) -> tuple[str, np.ndarray, np.ndarray]:
    """``text`` folded for comparison: each character with the combining marks after it
    (one *unit*) in NFKC, typographic quotes, ``''``, backticks and dashes (and ``--``) as
    ASCII ``"``, ``'`` and ``-``. Returns the folded text and, for each original character,
    the folded range ``[start, end)`` of its unit (two arrays)."""
    n = len(text)
    is_start = np.ones(n, dtype=bool)
    width = np.ones(n, dtype=np.int64)
    pieces, at = [], 0
    for m in _SPECIAL.finditer(text):
        piece = m.group()
        if piece.isascii() or not (
            unicodedata.is_normalized("NFKC", piece) and piece.translate(_ASCII) == piece
        ):
            pieces.append(text[at : m.start()])
            o = m.start()
            for unit in [piece] if piece.isascii() else _units(piece):
                folded = _fold_unit(unit)
                pieces.append(folded)
                is_start[o + 1 : o + len(unit)] = False
                width[o] = len(folded)
                width[o + 1 : o + len(unit)] = 0
                o += len(unit)
            at = m.end()
    pieces.append(text[at:])
    unit_of = np.cumsum(is_start) - 1
    unit_end = np.cumsum(width[is_start])
    end = unit_end[unit_of]
    return "".join(pieces), end - width[is_start][unit_of], end


def _codes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _once(codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The hashes of a quarter of the k-grams of ``codes`` (those whose hash says so: the
    same k-grams in both texts) found once, and where."""
    h = np.zeros(len(codes) - k + 1, dtype=np.uint64)
    for t in range(k):
        h = h * np.uint64(1_000_003) + codes[t : t + len(h)]
    where = np.flatnonzero(h * np.uint64(0x9E3779B97F4A7C15) >> np.uint64(62) == 0)
    order = np.argsort(h[where])
    keys = h[where][order]
    differ = keys[1:] != keys[:-1]
    once = np.r_[True, differ] & np.r_[differ, True]
    return keys[once], where[order[once]]


def _increasing(seq: list[int]) -> list[int]:
    """The indexes of a longest strictly increasing subsequence of ``seq``."""
    tails: list[int] = []  # the least last value of an increasing run of each length
    at: list[int] = []  # where that value is
    prev = [-1] * len(seq)
    for t, v in enumerate(seq):
        k = bisect_left(tails, v)
        if k == len(tails):
            tails.append(v)
            at.append(t)
        tails[k], at[k] = v, t
        prev[t] = at[k - 1] if k else -1
    out, t = [], at[-1] if at else -1
    while t >= 0:
        out.append(t)
        t = prev[t]
    return out[::-1]


Block = tuple[int, int, int]  # (gold start, predicted start, length) of an exact match


def _blocks(a: str, b: str, depth: int = 0) -> list[Block]:
    """Exact matches of ``a`` and ``b``, in order on both: k-grams found once in each, the
    longest chain of them, each grown over its run; gaps longer than :data:`_GAP` are
    searched again with shorter k-grams."""
    k = _K[depth]
    if min(len(a), len(b)) <= k:
        return []
    (ka, ia), (kb, jb) = _once(_codes(a), k), _once(_codes(b), k)
    at = np.minimum(np.searchsorted(kb, ka), len(kb) - 1)
    x = np.flatnonzero(kb[at] == ka) if len(kb) else np.zeros(0, dtype=np.int64)
    order = np.argsort(ia[x])
    i, j = ia[x][order], jb[at[x]][order]
    # k-grams on one diagonal that overlap or touch are one run of equal characters
    step = np.r_[len(i) > 0, (i[1:] - i[:-1] > k) | (j[1:] - i[1:] != j[:-1] - i[:-1])]
    heads = np.flatnonzero(step)
    ends = i[np.r_[heads[1:], len(i)][: len(heads)] - 1] + k
    chain = _increasing(j[heads].tolist())
    found = [(int(i[heads[t]]), int(j[heads[t]]), int(ends[t] - i[heads[t]])) for t in chain]
    out: list[Block] = []
    end_a = end_b = 0
    for p, q, n in [*found, (len(a), len(b), 0)]:
        cut = max(end_a - p, end_b - q, 0)
        p, q, n = p + cut, q + cut, n - cut
        if a[p : p + n] != b[q : q + n] or (n <= 0 and p < len(a)):
            continue
        if depth + 1 < len(_K) and max(p - end_a, q - end_b) > _GAP:
            inner = _blocks(a[end_a:p], b[end_b:q], depth + 1)
            out += [(s + end_a, u + end_b, m) for s, u, m in inner]
        if n > 0:
            out.append((p, q, n))
            end_a, end_b = p + n, q + n
    return out


Op = tuple[str, int, int, int, int]  # rapidfuzz's opcodes, and "rewrite"


def _opcodes(a: str, b: str, budget: float) -> list[Op] | None:
    """The alignment of ``a`` onto ``b``; ``None`` when the gaps between anchors already
    lose more than ``budget`` characters (their rewrites)."""
    from rapidfuzz.distance import Levenshtein  # (here: loaded only when texts are aligned)

    if a == b:
        return [("equal", 0, len(a), 0, len(b))]
    if max(len(a), len(b)) <= _GAP:
        return _gap(Levenshtein.opcodes(a, b).as_list(), 0, 0)
    blocks = _blocks(a, b) + [(len(a), len(b), 0)]
    gaps, pi, pj = [], 0, 0
    for p, q, n in blocks:
        gaps.append((pi, p, pj, q))
        pi, pj = p + n, q + n
    if sum(n for i1, i2, j1, j2 in gaps if (n := max(i2 - i1, j2 - j1)) > _GAP) > budget:
        return None  # (a gap too long to be an edit is a rewrite: all of it is lost)
    ops: list[Op] = []
    for (i1, i2, j1, j2), (p, q, n) in zip(gaps, blocks, strict=True):
        if max(i2 - i1, j2 - j1) > _GAP:
            ops.append(("rewrite", i1, i2, j1, j2))
        elif i2 > i1 or j2 > j1:
            ops += _gap(Levenshtein.opcodes(a[i1:i2], b[j1:j2]).as_list(), i1, j1)
        if n:
            ops.append(("equal", p, p + n, q, q + n))
    return ops


def _gap(ops: list[Any], i: int, j: int) -> list[Op]:
    """rapidfuzz's opcodes of a gap, moved to where the gap starts."""
    return [
        (str(t), int(i + s1), int(i + s2), int(j + d1), int(j + d2)) for t, s1, s2, d1, d2 in ops
    ]


def lost_characters(ops: Sequence[Op], gold: str, pred: str) -> int:
    """Characters an alignment loses (see the module's docstring): per change, the
    difference of its two lengths when an unchanged stretch beside it is at least as long
    (whitespace put in or taken out aside), else all of it."""
    lost = a = b = left = run = 0
    rewrite = pending = False
    for tag, i1, i2, j1, j2 in [*ops, ("end", 0, 0, 0, 0)]:
        if tag == "equal":
            run += i2 - i1
            continue
        if run >= MIN_RUN or tag == "end":
            if pending:
                grown = run < MIN_RUN  # (the end: a short run is part of the change)
                a, b, run = (a + run, b + run, 0) if grown else (a, b, run)
                edit = not rewrite and max(left, run) >= max(a, b)
                lost += abs(a - b) if edit else max(a, b)
            a = b = 0
            left, rewrite = run, False
        else:
            a, b = a + run, b + run
        run, pending = 0, True
        rewrite |= tag == "rewrite"
        if tag in ("insert", "delete") and (gold[i1:i2] + pred[j1:j2]).isspace():
            continue
        a, b = a + i2 - i1, b + j2 - j1
    return lost


@dataclass
class CharDifferences:
    """What ``--align chars`` changed: documents whose texts differ, characters changed,
    predicted spans placed over changed characters and spans that could not be placed, with
    the first ``limit`` examples."""

    documents: int = 0
    changed_characters: int = 0
    spans_over_changes: int = 0
    unplaced_spans: int = 0
    examples: list[str] = field(default_factory=list)
    limit: int = 5

    def to_dict(self) -> dict[str, object]:
        return {
            "align": "chars",
            "documents": self.documents,
            "changed_characters": self.changed_characters,
            "spans_over_changes": self.spans_over_changes,
            "unplaced_spans": self.unplaced_spans,
            "examples": list(self.examples),
        }

    def example(self, line: str) -> None:
        if len(self.examples) < self.limit:
            self.examples.append(line)

    def place(
        self,
        mapping: CharMapping,
        gold: tuple[str, Sequence[Span]],
        pred: tuple[str, Sequence[Span]],
        doc: str,
    ) -> tuple[list[Span], list[tuple[Span, str]]]:
        """The predicted spans placed on the gold text through ``mapping``, and those that
        cannot be, with their reason; counted here with the spans over changed characters,
        on either side (``gold``, ``pred``: a text and its spans)."""
        (gold_text, gold_spans), (pred_text, pred_spans) = gold, pred
        placed, lost = [], []
        self.documents += 1
        self.changed_characters += int(max(sum(mapping.gold_changed), sum(mapping.pred_changed)))
        for span in pred_spans:
            moved = mapping.place(span)
            if moved is None:
                reason = (
                    f"--align chars: predicted span [{span.start}, {span.end}) "
                    f"{pred_text[span.start : span.end]!r} starts or ends on characters the "
                    "gold text does not have"
                )
                lost.append((span, reason))
                self.unplaced_spans += 1
                self.example(f"document {doc!r}: {reason}")
                continue
            placed.append(moved)
            if _touches(mapping.pred_changed, span):
                self.spans_over_changes += 1
                self.example(
                    f"document {doc!r}: predicted {pred_text[span.start : span.end]!r} placed on "
                    f"gold {gold_text[moved.start : moved.end]!r}"
                )
        for span in gold_spans:
            if span.end <= len(gold_text) and _touches(mapping.gold_changed, span):
                self.spans_over_changes += 1
                self.example(
                    f"document {doc!r}: gold span {gold_text[span.start : span.end]!r} touches "
                    "characters the predicted text changed"
                )
        return placed, lost


@dataclass(frozen=True)
class CharMapping:
    """A character alignment of a predicted text onto a gold text.

    ``starts[j]`` / ``ends[j]``: where on the gold text a span starting / ending (last
    character) at predicted character ``j`` starts / ends (``-1``: no counterpart);
    ``gold_changed[i]`` / ``pred_changed[j]``: whether a character is changed (folded
    differences are none); ``lost``: characters lost (:func:`lost_characters`)."""

    starts: Sequence[int] | np.ndarray
    ends: Sequence[int] | np.ndarray
    gold_changed: Sequence[bool] | np.ndarray
    pred_changed: Sequence[bool] | np.ndarray
    lost: int = 0

    def place(self, span: Span) -> Span | None:
        """``span`` (predicted offsets) on the gold text, or ``None`` when its first or last
        character has no gold counterpart."""
        if not 0 <= span.start < span.end <= len(self.starts):
            return None
        first, end = int(self.starts[span.start]), int(self.ends[span.end - 1])
        if first < 0 or end <= first:
            return None
        return Span(first, end, span.label)


def align_texts(gold: str, pred: str, *, doc: str, share: float = MIN_SHARED) -> CharMapping:
    """Align ``pred`` onto ``gold`` character by character; texts losing more than
    ``max(ALLOWANCE, (1 - share) * longer)`` of their folded characters, or all of them, are
    an error naming ``doc``."""
    (fg, g_start, g_end), (fp, p_start, p_end) = fold(gold), fold(pred)
    longer = max(len(fg), len(fp))
    budget = max(ALLOWANCE, longer - share * longer)
    ops = _opcodes(fg, fp, min(budget, longer - 1))
    lost = longer if ops is None else lost_characters(ops, fg, fp)
    if ops is None or lost > budget or (lost and lost >= longer):
        raise _too_different(doc, None if ops is None else 1 - lost / longer, share)
    to_gold = np.full(len(fp) + 1, -1, dtype=np.int64)  # (the last: no character)
    changed = np.ones(len(fg) + 1, dtype=bool), np.ones(len(fp) + 1, dtype=bool)
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            changed[0][i1:i2] = changed[1][j1:j2] = False
        if tag in ("equal", "replace") and i2 - i1 == j2 - j1:
            to_gold[j1:j2] = np.arange(i1, i2)
    changed[0][-1] = changed[1][-1] = False
    first, last = to_gold[p_start], to_gold[p_end - 1]
    empty = p_start == p_end
    return CharMapping(
        np.where((first < 0) | empty, -1, np.searchsorted(g_end, first, "right")),
        np.where((last < 0) | empty, -1, np.searchsorted(g_start, last, "right")),
        changed[0][g_start] | changed[0][g_end - 1],
        changed[1][p_start] | changed[1][p_end - 1],
        lost,
    )


def _too_different(doc: str, kept: float | None, share: float) -> DocumentMismatchError:
    said = f"keep {kept:.0%}" if kept is not None else f"keep less than {share:.0%}"
    return DocumentMismatchError(
        f"document {doc!r}: gold and predicted texts {said} of their characters; "
        f"--align chars pairs texts that keep at least {share:.0%} of them (or lose at most "
        f"{ALLOWANCE}; see --align-share), and these look like different documents"
    )


def _touches(changed: Sequence[bool] | np.ndarray, span: Span) -> bool:
    return any(changed[span.start : span.end])


def _first_difference(a: str, b: str) -> str:
    i = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
    return f"lengths {len(a)} != {len(b)}" if i is None else f"at {i}: {a[i]!r} != {b[i]!r}"


@dataclass
class TextPairing:
    """How one pair of files treats texts that differ (``align``: ``"text"`` or
    ``"chars"``; ``share``: see :func:`align_texts`), with the predicted side's notes
    (``notes``) and, with ``"chars"``, the alignment report (``differences``)."""

    align: str = "text"
    notes: Counter[str] | None = None
    differences: CharDifferences | None = None
    share: float = MIN_SHARED

    def _note(self, note: str) -> None:
        if self.notes is not None:
            self.notes[note] += 1

    def reconcile(
        self,
        gold_text: str,
        pred_text: str,
        pred_spans: Sequence[Span],
        gold_spans: Sequence[Span],
        *,
        doc: str,
    ) -> tuple[list[Span], list[tuple[Span, str]]] | None:
        """The predicted spans on the gold text when the texts differ and may still pair:
        ``(placed, unplaced with reasons)``, a trailing-whitespace or NFC pair counted in
        :attr:`notes`; ``None`` when they may not (the caller's comparison then names the
        difference). Texts that differ only in what :func:`fold` erases are an error saying
        so without ``--align chars``. Equal texts are not passed here."""
        if gold_text.rstrip() == pred_text.rstrip():
            n = len(gold_text)
            placed = [s for s in pred_spans if s.end <= n]
            lost = [
                (s, "ends in trailing whitespace that the gold text does not have")
                for s in pred_spans
                if s.end > n
            ]
            self._note(TRAILING_WHITESPACE)
            return placed, lost
        nfc = unicodedata.normalize("NFC", gold_text) == unicodedata.normalize("NFC", pred_text)
        if not nfc and self.align != "chars":
            if fold(gold_text)[0] == fold(pred_text)[0]:
                raise DocumentMismatchError(
                    f"document {doc!r}: gold and predicted texts differ only in Unicode "
                    "normalisation (NFKC), quotes or dashes "
                    f"({_first_difference(gold_text, pred_text)}); --align chars pairs them"
                )
            return None
        mapping = align_texts(gold_text, pred_text, doc=doc, share=self.share)
        report = self.differences if self.differences is not None and not nfc else CharDifferences()
        if nfc:
            self._note(NORMALISATION)
        return report.place(mapping, (gold_text, gold_spans), (pred_text, pred_spans), doc)
