"""Pairing tokens by position (``--align position``), as conlleval scores a file.

By default gold and predictions must carry the same tokens (a different token is an error
naming the sentence). Systems that normalized some token strings but kept the tokenization
(``gt`` -> ``get``, URLs replaced) are refused that way, while conlleval, which only reads
the tag columns, scores them by position. :func:`align_by_position` does the same for one
pair of sentences: the same number of tokens is required (else an error naming the
sentence), the predicted sentence takes the gold tokens, and every token whose string
differs is counted in a :class:`TokenDifferences`, the first few with their file and line.

The record stream of :func:`.pairing.documents` calls it once per sentence pair, before the
tokens are compared. The columnar CoNLL reader (:mod:`.conll_columns`) finds the differing
tokens of many sentences at once; it counts them in the same :class:`TokenDifferences`,
names them with :func:`difference_example`, and replays a sentence of different lengths
through :func:`align_by_position` for its error. Parts of a file pair read apart merge
their counts with :meth:`TokenDifferences.add`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..errors import DocumentMismatchError, InvalidInputError
from .base import Record
from .options import ALIGN_MODES, MIN_SHARED

if TYPE_CHECKING:  # (loaded by the pairs that pair character texts: see text_pairing)
    from .char_align import CharDifferences, TextPairing

__all__ = [
    "Notes",
    "SideInfo",
    "TokenDifferences",
    "align_by_position",
    "difference_example",
    "differences_for",
    "text_pairing",
]

_LINE = re.compile(r"^(.*) line (\d+)$")


@dataclass
class TokenDifferences:
    """Tokens whose strings differ between gold and predictions, paired by position:
    how many, in how many sentences, and the first ``limit`` as ``"FILE line N: 'gold' vs
    FILE line M: 'predicted'"``."""

    tokens: int = 0
    sentences: int = 0
    examples: list[str] = field(default_factory=list)
    limit: int = 5

    def to_dict(self) -> dict[str, object]:
        return {
            "align": "position",
            "differing_tokens": self.tokens,
            "sentences": self.sentences,
            "examples": list(self.examples),
        }

    def add(self, later: TokenDifferences) -> None:
        """Count in ``later``'s differences, found after these ones (a later part of the
        same files): the totals add, and the examples stay the first ``limit`` in order."""
        self.tokens += later.tokens
        self.sentences += later.sentences
        self.examples.extend(later.examples[: max(0, self.limit - len(self.examples))])


class Notes(Counter[str]):
    """A side's notes (what its reader read differently or left out, counted), the ids of
    the documents the reader dropped, with why (``dropped``: id -> ``"ignore"``...), for the
    message about a document left unpaired, and (CoNLL) the tag of each ``-DOCSTART-`` line
    in file order (``None``: no tag column), a boundary here and a token to conlleval.pl."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.dropped: dict[str, str] = {}
        self.docstarts: list[str | None] = []

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (dict(self),), self.__dict__  # (Counter's leaves the lists out)


@dataclass
class SideInfo:
    """What was read from one side: filled in while the documents stream past."""

    path: str
    format: str
    documents: int = 0
    spans: int = 0
    repaired: int = 0
    # CoNLL pairs: the tokens read and (predicted side) how many have the gold token's tag,
    # the figures conlleval prints beside its chunks.
    tokens: int | None = None
    correct_tags: int | None = None
    # With --align position (predicted side): the tokens whose strings differ from gold.
    alignment: TokenDifferences | None = None
    # With --align chars (predicted side): the texts aligned by characters.
    char_alignment: CharDifferences | None = None
    #: What the reader read differently or left out, counted (``"relations ignored"``); it
    #: fills this counter through its :class:`ReadingOptions`.
    notes: Notes = field(default_factory=Notes)

    def count(self, record: Record, gold: Record | None = None) -> None:
        """One more document read; ``gold``: the gold record of a predicted one, whose tags
        its own are compared with."""
        self.documents += 1
        self.repaired += record.repaired
        if record.tags is not None:
            self.tokens = (self.tokens or 0) + len(record.tags)
        if gold is not None and gold.tags is not None and record.tags is not None:
            equal = len(gold.tags) == len(record.tags)  # (else no token pairs with another)
            same = sum(a == b for a, b in zip(gold.tags, record.tags, strict=False)) if equal else 0
            self.correct_tags = (self.correct_tags or 0) + same

    def to_dict(self, gold: SideInfo | None = None) -> dict[str, object]:
        """The report's figures; ``-DOCSTART-`` lines count as tokens, as in conlleval.pl,
        and a predicted side's k-th is a correct tag where ``gold``'s k-th has its tag."""
        out: dict[str, object] = {
            "path": self.path,
            "format": self.format,
            "documents": self.documents,
            "spans": self.spans,
            "repaired": self.repaired,
        }
        if self.tokens is not None:
            out["tokens"] = tokens = self.tokens + len(self.notes.docstarts)
            if self.correct_tags is not None:
                theirs = gold.notes.docstarts if gold else []  # (the k-th lines pair)
                pairs = zip(theirs, self.notes.docstarts, strict=False)
                correct = self.correct_tags + sum(p is not None and g == p for g, p in pairs)
                out["correct_tags"] = correct
                out["token_accuracy"] = correct / tokens if tokens else None
        if self.alignment is not None:
            out["alignment"] = self.alignment.to_dict()
        elif self.char_alignment is not None:
            out["alignment"] = self.char_alignment.to_dict()
        if self.notes:  # only readers that leave something out write it
            out["notes"] = dict(sorted(self.notes.items()))
        return out


def differences_for(align: str, pred_info: SideInfo | None) -> TokenDifferences | None:
    """Where a reader counts the differing tokens of ``align`` (``None`` with ``"text"``),
    set as the predicted side's alignment report; an unknown mode is a ValueError."""
    if align not in ALIGN_MODES:
        raise ValueError(f"unknown alignment {align!r}; choose one of {', '.join(ALIGN_MODES)}")
    if align != "position":
        return None
    differences = TokenDifferences()
    if pred_info is not None:
        pred_info.alignment = differences
    return differences


def text_pairing(
    align: str, unit: str, pred_info: SideInfo | None = None, share: float = MIN_SHARED
) -> TextPairing:
    """How a pair read in ``unit`` treats character texts that differ under ``align``
    (``share``: what ``"chars"`` must keep); with ``"chars"`` its report becomes the predicted
    side's alignment. ``"chars"`` in token unit is an error: it places character offsets, so
    the pair must be scored in char unit."""
    if align == "chars" and unit != "char":
        raise InvalidInputError(
            "--align chars aligns character texts and places character offsets, but this "
            f"pair is scored in {unit} unit: add --unit char (token files are then read as "
            "their tokens joined by spaces), or pair CoNLL tokens with --align position"
        )
    # (here: a plain evaluate, whose texts never differ by characters, loads no char_align)
    from .char_align import CharDifferences, TextPairing

    differences = CharDifferences() if align == "chars" else None
    if differences is not None and pred_info is not None:
        pred_info.char_alignment = differences
    notes = pred_info.notes if pred_info is not None else None
    return TextPairing(align, notes, differences, share)


def token_place(where: str, i: int) -> str:
    """Where token ``i`` of a sentence is: ``FILE line N`` for a record found at ``FILE line
    M`` (one token per line), else ``WHERE, token i+1``."""
    m = _LINE.match(where)
    if m is None:
        return f"{where}, token {i + 1}"
    return f"{m.group(1)} line {int(m.group(2)) + i}"


def align_by_position(
    gold: Record, pred: Record, *, index: int, differences: TokenDifferences
) -> Record:
    """``pred`` with the gold tokens, its spans kept as token positions; differing strings
    are counted in ``differences``. Different token counts are an error naming the
    sentence (``index``: its number, from 1) and both files."""
    if gold.tokens is None or pred.tokens is None:
        side = gold if gold.tokens is None else pred
        raise InvalidInputError(
            f"{side.where}: --align position pairs tokens by position and needs token input "
            "on both sides (CoNLL); this record has only a text: align character texts "
            "with --align chars"
        )
    if len(gold.tokens) != len(pred.tokens):
        raise DocumentMismatchError(
            f"sentence {index}: gold has {len(gold.tokens)} tokens, the predictions "
            f"{len(pred.tokens)}; --align position pairs tokens by position and needs the "
            f"same number in each sentence (gold {gold.where}, predicted {pred.where})"
        )
    differ = [i for i, (g, p) in enumerate(zip(gold.tokens, pred.tokens, strict=True)) if g != p]
    if not differ:
        return pred
    differences.tokens += len(differ)
    differences.sentences += 1
    for i in differ[: max(0, differences.limit - len(differences.examples))]:
        differences.examples.append(
            difference_example(gold.where, pred.where, i, gold.tokens[i], pred.tokens[i])
        )
    return replace(pred, tokens=gold.tokens)


def difference_example(
    gold_where: str, pred_where: str, i: int, gold_token: str, pred_token: str
) -> str:
    """How token ``i`` of a sentence pair (found at ``gold_where`` and ``pred_where``) is
    named when its strings differ: ``"FILE line N: 'gold' vs FILE line M: 'predicted'"``."""
    return (
        f"{token_place(gold_where, i)}: {gold_token!r} vs "
        f"{token_place(pred_where, i)}: {pred_token!r}"
    )
