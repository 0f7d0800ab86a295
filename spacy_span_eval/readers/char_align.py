"""Two texts of one document that differ: trailing whitespace, or ``--align chars``.

Readers of different tools disagree about the end of a text (a brat ``.txt`` ends with a
newline, a Prodigy task does not), and a system may rewrite a few characters of its input
(``''`` as ``\\`\\```, a dash, a space). Both sides' texts are known only once the records are
paired, so this runs in :func:`.pairing.to_document`, for every character-offset format alike.

- Texts equal up to trailing whitespace are the same text, whatever ``--align`` says: the
  predicted offsets stand as they are (the common part is identical), and the pair is counted.
- ``--align chars`` aligns the two strings character by character (a Levenshtein alignment,
  from rapidfuzz) and moves each predicted span onto the gold text. A predicted character
  has a gold counterpart when it is unchanged or substituted: the alignment substitutes
  characters one for one where it can and inserts or deletes the rest (``''`` against ``"``
  is one substitution and one deletion), so only an inserted character has none. A span
  whose first or last character has none cannot be placed: it is kept as an unaligned
  prediction with the reason (it counts as a false positive and is listed), never dropped.
  Spans that are placed but touch a changed character, on either side, are counted and the
  first few listed. A pair whose texts share less than :data:`MIN_SHARED` of the longer
  text's characters is refused.

The alignment is computed only for texts that differ; rapidfuzz's bit-parallel, banded
Levenshtein keeps it near-linear for texts that differ in a few places (difflib's character
matcher is quadratic: seconds on a text of a few thousand characters).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..engine.spans import Span
from ..errors import DocumentMismatchError

__all__ = [
    "MIN_SHARED",
    "TRAILING_WHITESPACE",
    "CharDifferences",
    "CharMapping",
    "TextPairing",
    "align_texts",
    "reconcile",
]

#: The least share of the longer text's characters that two texts must keep unchanged for
#: ``--align chars`` to pair them.
MIN_SHARED = 0.9
#: The predicted side's note for a pair whose texts differ only in trailing whitespace.
TRAILING_WHITESPACE = "texts differing from gold only in trailing whitespace"


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


@dataclass(frozen=True)
class CharMapping:
    """A character alignment of a predicted text onto a gold text.

    ``to_gold[j]``: the gold index of predicted character ``j`` (``-1``: none);
    ``gold_changed[i]`` / ``pred_changed[j]``: whether a character is not kept unchanged;
    ``shared``: characters kept unchanged."""

    to_gold: Sequence[int]
    gold_changed: Sequence[bool]
    pred_changed: Sequence[bool]
    shared: int

    def place(self, span: Span) -> Span | None:
        """``span`` (predicted offsets) on the gold text, or ``None`` when its first or last
        character has no gold counterpart."""
        if not 0 <= span.start < span.end <= len(self.to_gold):
            return None
        first, last = self.to_gold[span.start], self.to_gold[span.end - 1]
        if first < 0 or last < 0 or last < first:
            return None
        return Span(first, last + 1, span.label)


def align_texts(gold: str, pred: str, *, doc: str) -> CharMapping:
    """Align ``pred`` onto ``gold`` character by character; texts sharing less than
    :data:`MIN_SHARED` of the longer one's characters are an error naming ``doc``."""
    from rapidfuzz.distance import Levenshtein  # (here: loaded only when texts are aligned)

    longer = max(len(gold), len(pred))
    # Two texts sharing MIN_SHARED of their characters are at most 2 * (1 - MIN_SHARED) of
    # the longer apart; the band widens from small (cheap) until the distance fits in it.
    bound = math.ceil(2 * (1 - MIN_SHARED) * longer)
    cutoff = min(64, bound)
    while True:
        distance = Levenshtein.distance(gold, pred, score_cutoff=cutoff)
        if distance <= cutoff or cutoff >= bound:
            break
        cutoff = min(cutoff * 4, bound)
    if distance > bound:
        raise _too_different(doc, 0, longer)
    to_gold = [-1] * len(pred)
    gold_changed = [True] * len(gold)
    pred_changed = [True] * len(pred)
    shared = 0
    for op in Levenshtein.opcodes(gold, pred, score_hint=max(distance, 1)):
        tag, i1, i2 = op.tag, int(op.src_start), int(op.src_end)
        j1, j2 = int(op.dest_start), int(op.dest_end)
        if tag == "equal":
            shared += i2 - i1
            gold_changed[i1:i2] = [False] * (i2 - i1)
            pred_changed[j1:j2] = [False] * (j2 - j1)
        if tag in ("equal", "replace") and i2 - i1 == j2 - j1:
            to_gold[j1:j2] = range(i1, i2)
    if shared < MIN_SHARED * longer:
        raise _too_different(doc, shared, longer)
    return CharMapping(to_gold, gold_changed, pred_changed, shared)


def _too_different(doc: str, shared: int, longer: int) -> DocumentMismatchError:
    share = f"{shared / longer:.0%}" if shared else f"less than {MIN_SHARED:.0%}"
    return DocumentMismatchError(
        f"document {doc!r}: gold and predicted texts share {share} of their characters; "
        f"--align chars pairs texts that keep at least {MIN_SHARED:.0%} of them, and these "
        "look like different documents"
    )


def _touches(changed: Sequence[bool], span: Span) -> bool:
    return any(changed[span.start : span.end])


def reconcile(
    gold_text: str,
    pred_text: str,
    pred_spans: Sequence[Span],
    gold_spans: Sequence[Span],
    *,
    align: str,
    doc: str,
    differences: CharDifferences | None,
) -> tuple[list[Span], list[tuple[Span, str]], bool] | None:
    """The predicted spans on the gold text when the texts differ and may still pair:
    ``(placed, unplaced with reasons, trailing whitespace only)``; ``None`` when they may not
    (the caller's comparison then names the difference). Equal texts are not passed here."""
    if gold_text.rstrip() == pred_text.rstrip():
        n = len(gold_text)
        placed = [s for s in pred_spans if s.end <= n]
        lost = [
            (s, "ends in trailing whitespace that the gold text does not have")
            for s in pred_spans
            if s.end > n
        ]
        return placed, lost, True
    if align != "chars":
        return None
    mapping = align_texts(gold_text, pred_text, doc=doc)
    placed, lost = [], []
    report = differences if differences is not None else CharDifferences()
    report.documents += 1
    report.changed_characters += max(sum(mapping.gold_changed), sum(mapping.pred_changed))
    for span in pred_spans:
        moved = mapping.place(span)
        if moved is None:
            reason = (
                f"--align chars: predicted span [{span.start}, {span.end}) "
                f"{pred_text[span.start : span.end]!r} starts or ends on characters the "
                "gold text does not have"
            )
            lost.append((span, reason))
            report.unplaced_spans += 1
            report.example(f"document {doc!r}: {reason}")
            continue
        placed.append(moved)
        if _touches(mapping.pred_changed, span):
            report.spans_over_changes += 1
            report.example(
                f"document {doc!r}: predicted {pred_text[span.start : span.end]!r} placed on "
                f"gold {gold_text[moved.start : moved.end]!r}"
            )
    for span in gold_spans:
        if span.end <= len(gold_text) and _touches(mapping.gold_changed, span):
            report.spans_over_changes += 1
            report.example(
                f"document {doc!r}: gold span {gold_text[span.start : span.end]!r} touches "
                "characters the predicted text changed"
            )
    return placed, lost, False


@dataclass
class TextPairing:
    """How one pair of files treats texts that differ (``align``: ``"text"`` or
    ``"chars"``), with the predicted side's notes (``notes``) and, with ``"chars"``, the
    alignment report (``differences``)."""

    align: str = "text"
    notes: Counter[str] | None = None
    differences: CharDifferences | None = None

    def reconcile(
        self,
        gold_text: str,
        pred_text: str,
        pred_spans: Sequence[Span],
        gold_spans: Sequence[Span],
        *,
        doc: str,
    ) -> tuple[list[Span], list[tuple[Span, str]]] | None:
        """:func:`reconcile` for this pair, counting a trailing-whitespace pair in
        :attr:`notes`: ``(placed, unplaced with reasons)`` or ``None``."""
        out = reconcile(
            gold_text,
            pred_text,
            pred_spans,
            gold_spans,
            align=self.align,
            doc=doc,
            differences=self.differences,
        )
        if out is None:
            return None
        placed, lost, trailing = out
        if trailing and self.notes is not None:
            self.notes[TRAILING_WHITESPACE] += 1
        return placed, lost
