"""Spans and documents: the plain data the engine scores.

A span is half-open ``[start, end)`` in one unit (token indices or character offsets), stated
once here. The engine never sees spaCy objects; adapters turn ``Doc.ents``, span groups, BIO
tags or JSON offsets into :class:`Document` values.
"""

from __future__ import annotations

import math
import operator
import threading
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from itertools import repeat
from typing import Any, Literal, cast

from ..errors import DocumentMismatchError, InvalidSpanError

Unit = Literal["token", "char"]
UNITS: tuple[str, ...] = ("token", "char")


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A labelled half-open interval ``[start, end)`` in the document's unit."""

    start: int
    end: int
    label: str
    #: A prediction's confidence, where its format carries one (semantics §9); not part of
    #: the span's identity.
    score: float | None = field(default=None, compare=False, repr=False)

    def __len__(self) -> int:
        return self.end - self.start


def show(value: object, limit: int = 80) -> str:
    """``repr(value)`` for a message: a huge integer by its number of digits (its repr may
    not even be allowed), anything long cut short."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**18:
        bits = value.bit_length()  # str() of an int over 4300 digits is refused
        digits = len(str(abs(value))) if bits < 14000 else f"~{int(bits * 0.30103) + 1}"
        return f"<a {digits}-digit number>"
    if isinstance(value, tuple | list):
        inner = ", ".join(show(v, limit) for v in value[:5]) + (", ..." if len(value) > 5 else "")
        text = (
            f"({inner}{',' if len(value) == 1 else ''})"
            if isinstance(value, tuple)
            else f"[{inner}]"
        )
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(doc_id: object, side: str, index: int, span: object) -> str:
    return f"document {doc_id!r}, {side} span #{index} {show(span)}"


def validate_spans(
    spans: Iterable[Span | tuple[int, int, str]],
    *,
    length: int,
    doc_id: object,
    side: str,
) -> tuple[Span, ...]:
    """Check every span against semantics §1 and return them as :class:`Span` values.

    Nothing is clipped or dropped: the first bad span raises :class:`InvalidSpanError`
    naming the document, the side and the span.
    """
    out: list[Span] = []
    for i, raw in enumerate(spans):
        span = Span(*raw) if isinstance(raw, tuple | list) and len(raw) == 3 else raw
        if not isinstance(span, Span):
            why = "a span is a Span or a (start, end, label) triple"
            raise InvalidSpanError(f"{_describe(doc_id, side, i, raw)}: {why}")
        start, end, label = span.start, span.end, span.label
        if not isinstance(start, int) or not isinstance(end, int) or isinstance(start, bool):
            why = "offsets must be integers"
        elif not isinstance(label, str) or not label:
            why = "label must be a non-empty string"
        elif (bounds := bounds_error(start, end, length)) is not None:
            why = bounds
        else:
            out.append(span)
            continue
        raise InvalidSpanError(f"{_describe(doc_id, side, i, (start, end, label))}: {why}")
    return tuple(out)


def bounds_error(start: int, end: int, length: int) -> str | None:
    """Why ``[start, end)`` is not a span of a document of ``length`` (semantics §1), if so."""
    if start < 0:
        return "start is negative"
    if end == start:
        return "span is empty (end == start)"
    if end < start:
        return "span is inverted (end < start)"
    return f"end is past the end of the document ({length})" if end > length else None


# -- how a Document keeps its spans ---------------------------------------------------------
#
# Each side is one ``bytes`` object of int64 rows ``(start, end, label id)``; the gold side
# starts with a header row ``(length, has unaligned spans, 0)``. Label ids come from a table
# of this process (:func:`label_id`), never pickled: a pickled Document carries its spans as
# ``Span`` values. ``documents_to_batch`` joins many documents' rows and reads them as numpy
# arrays, a few C-level operations per document instead of attribute reads per span;
# ``doc.gold`` and ``doc.pred`` build their tuples of ``Span`` when read.

_LABEL_IDS: dict[Any, int] = {}
#: The label of every id :func:`label_id` gave out in this process.
LABEL_NAMES: list[Any] = []
_INTERNING = threading.Lock()
_HEAD = 3  # int64 words of the gold side's header row


def label_id(label: Any) -> int:
    """The id of ``label`` in this process's label table (added on first sight)."""
    found = _LABEL_IDS.get(label)
    if found is None:
        with _INTERNING:
            found = _LABEL_IDS.get(label)
            if found is None:
                found = len(LABEL_NAMES)
                LABEL_NAMES.append(label)
                _LABEL_IDS[label] = found
    return found


def _rows(spans: Iterable[Any], doc_id: object, side: str, head: tuple[int, ...]) -> bytes:
    """Spans (``Span`` or ``(start, end, label)``) packed as they are after the ``head`` row,
    unchecked (what constructing a :class:`Document` directly stores; the engine checks them
    when scoring)."""
    out = array("q", head)
    for i, span in enumerate(spans):
        start, end, label = (span.start, span.end, span.label) if isinstance(span, Span) else span
        try:
            why = "label must be a non-empty string"
            key = label_id(label)
            why = "offsets must be integers"
            out.extend((start, end, key))
        except (TypeError, OverflowError) as exc:
            if isinstance(exc, OverflowError):
                why = "offsets do not fit in 64 bits"
            raise InvalidSpanError(
                f"{_describe(doc_id, side, i, (start, end, label))}: {why}"
            ) from None
    return out.tobytes()


def _checked_rows(
    spans: Iterable[Span | tuple[int, int, str]],
    *,
    length: int,
    doc_id: str,
    side: str,
    head: tuple[int, ...],
) -> bytes:
    """:func:`validate_spans`, packed: plain ints and strings are checked inline; anything
    else (a bad span, an int or str subclass) goes through :func:`validate_spans`, which
    names the first bad span."""
    spans = spans if isinstance(spans, list | tuple) else list(spans)
    out = array("q", head)
    add = out.extend
    ids = _LABEL_IDS
    for raw in spans:
        if type(raw) is Span:
            start, end, label = raw.start, raw.end, raw.label
        elif type(raw) is tuple and len(raw) == 3:
            start, end, label = raw
        else:
            break
        if not (
            type(start) is int
            and type(end) is int
            and type(label) is str
            and 0 <= start < end <= length
            and label
        ):
            break
        found = ids.get(label)
        add((start, end, label_id(label) if found is None else found))
    else:
        return out.tobytes()
    checked = validate_spans(spans, length=length, doc_id=doc_id, side=side)
    return _rows(checked, doc_id, side, head)


class _PackedSpans:
    """The ``gold`` / ``pred`` field of :class:`Document`: packed rows in the field's own
    slot, a tuple of :class:`Span` when read."""

    def __init__(self, slot: Any, side: str, head: bool) -> None:
        self.slot, self.side = slot, side
        self.head = (0,) * _HEAD if head else ()  # (__post_init__ writes the gold side's)

    def __get__(self, doc: Document | None, owner: type | None = None) -> Any:
        if doc is None:
            return self
        words = iter(memoryview(self.slot.__get__(doc)).cast("q")[len(self.head) :])
        names = LABEL_NAMES
        scores = (doc.scores if not self.head else None) or repeat(math.nan)  # NaN: no score
        return tuple(
            Span(s, e, names[k], None if c != c else c)
            for s, e, k, c in zip(words, words, words, scores, strict=False)
        )

    def __set__(self, doc: Document, spans: Iterable[Any]) -> None:
        self.slot.__set__(doc, _rows(spans, getattr(doc, "id", None), self.side, self.head))


@dataclass(frozen=True, slots=True)
class Document:
    """One document with its gold and predicted spans, both in the same unit.

    ``length`` is the document's size in the unit. It is derived from ``text`` (char unit)
    or ``tokens`` (token unit) when those are given; ``text``/``tokens`` are only needed for
    error records with context. Construct through :meth:`create` to validate.

    ``gold`` and ``pred`` read as tuples of :class:`Span`; they are stored packed (int64
    rows), which is what makes scoring many documents cheap, and built again on each read:
    keep the tuple if you read it often.
    """

    id: str
    length: int
    gold: tuple[Span, ...]
    pred: tuple[Span, ...]
    text: str | None = None
    tokens: tuple[str, ...] | None = None
    # Spans the adapter could not bring into this unit (e.g. token projection failed);
    # counted as unmatched predictions per semantics §1, with a reason each.
    unaligned_pred: tuple[tuple[Span, str], ...] = field(default=())
    # Gold spans that cannot be expressed in this unit (e.g. a gold span that starts or ends
    # inside a token, scored in token unit): still gold, counted as FN with a reason each.
    unaligned_gold: tuple[tuple[Span, str], ...] = field(default=())
    # The unit the spans are in, when known (set by create); an evaluator in another unit
    # refuses the document instead of scoring token indices as character offsets.
    unit: str | None = None
    # The predictions' scores, in ``pred`` order (NaN: none); ``None`` when none has one.
    scores: tuple[float, ...] | None = None
    # Predictions given as strings (semantics §11): each ``(label, string)`` the model wrote,
    # which ``pred`` and ``unaligned_pred`` hold as grounded; ``None``: spans were given.
    strings: tuple[tuple[str, str], ...] | None = None

    def __post_init__(self) -> None:
        # The header row of the gold side (its spans were packed by the field's __set__).
        rows = _GOLD_SLOT.__get__(self)
        head = array("q", _head(_length(self.length, self.id), self))
        _GOLD_SLOT.__set__(self, head.tobytes() + rows[8 * _HEAD :])

    def __reduce__(self) -> tuple[type[Document], tuple[Any, ...]]:
        # Label ids belong to this process: a pickle carries the spans themselves.
        return type(self), tuple(getattr(self, f.name) for f in fields(self))

    @classmethod
    def create(
        cls,
        *,
        id: str | int,
        gold: Iterable[Span | tuple[int, int, str]],
        pred: Iterable[Span | tuple[int, int, str]],
        unit: Unit = "char",
        text: str | None = None,
        tokens: Sequence[str] | None = None,
        length: int | None = None,
        unaligned_pred: Iterable[tuple[Span, str]] = (),
        unaligned_gold: Iterable[tuple[Span, str]] = (),
        strings: Iterable[tuple[str, str]] | None = None,
    ) -> Document:
        """Build and validate a document. The unit decides which of text/tokens sets length."""
        doc_id = str(id)
        if unit not in UNITS:
            raise ValueError(f"unit must be one of {UNITS}, not {unit!r}")
        content, what = (text, "text") if unit == "char" else (tokens, "tokens")
        derived = None if content is None else len(content)
        if length is None:
            if derived is None:
                raise ValueError(
                    f"document {doc_id!r}: give length, or {what} to derive it in {unit} unit"
                )
            length = derived
        elif derived is not None and derived != length:
            raise DocumentMismatchError(
                f"document {doc_id!r}: length {length} does not match its {what} ({derived})"
            )
        length = _length(length, doc_id)
        pred = pred if isinstance(pred, list | tuple) else list(pred)
        put = object.__setattr__
        put(doc := object.__new__(cls), "scores", pred_scores(pred))
        put(doc, "id", doc_id)
        put(doc, "length", length)
        put(doc, "text", text)
        put(doc, "tokens", tuple(tokens) if tokens is not None else None)
        put(doc, "unaligned_pred", tuple(unaligned_pred))
        put(doc, "unaligned_gold", tuple(unaligned_gold))
        put(doc, "unit", unit)
        put(doc, "strings", None if strings is None else tuple(strings))
        head = _head(length, doc)
        _GOLD_SLOT.__set__(
            doc, _checked_rows(gold, length=length, doc_id=doc_id, side="gold", head=head)
        )
        _PRED_SLOT.__set__(
            doc, _checked_rows(pred, length=length, doc_id=doc_id, side="predicted", head=())
        )
        return doc

    @classmethod
    def pair(
        cls,
        *,
        id: str | int,
        gold_text: str | Sequence[str],
        pred_text: str | Sequence[str],
        gold: Iterable[Span | tuple[int, int, str]],
        pred: Iterable[Span | tuple[int, int, str]],
        unit: Unit = "char",
        unaligned_pred: Iterable[tuple[Span, str]] = (),
        unaligned_gold: Iterable[tuple[Span, str]] = (),
    ) -> Document:
        """Pair a gold and a predicted annotation of what must be the same text.

        ``*_text`` is a string (char unit) or a token sequence (token unit). Differing texts
        are an error naming the document and the first difference, never a guess.
        ``unaligned_*`` as in :meth:`create`.
        """
        same = (list(gold_text) == list(pred_text)) if unit == "token" else gold_text == pred_text
        if not same:
            raise DocumentMismatchError(
                f"document {id!r}: gold and predicted texts differ "
                f"({_first_difference(gold_text, pred_text)})"
            )
        text, tokens = (None, list(gold_text)) if unit == "token" else (str(gold_text), None)
        return cls.create(
            id=id,
            gold=gold,
            pred=pred,
            unit=unit,
            text=text,
            tokens=tokens,
            unaligned_pred=unaligned_pred,
            unaligned_gold=unaligned_gold,
        )


_GOLD_SLOT = Document.__dict__["gold"]
_PRED_SLOT = Document.__dict__["pred"]
# The packing descriptors take the slots' place; mypy sees fields of a frozen dataclass.
Document.gold = _PackedSpans(_GOLD_SLOT, "gold", head=True)  # type: ignore[misc,assignment]
Document.pred = _PackedSpans(_PRED_SLOT, "predicted", head=False)  # type: ignore[misc,assignment]
#: A document's stored rows: gold (header row first), predicted (see :func:`label_id`).
gold_rows = _GOLD_SLOT.__get__
pred_rows = _PRED_SLOT.__get__


def _head(length: int, doc: Document) -> tuple[int, int, int]:
    """The gold side's header row: the length, and whether the document has unaligned spans
    or strings (which a batch reads from the document itself)."""
    return length, int(bool(doc.unaligned_pred or doc.unaligned_gold or doc.strings is not None)), 0


def _length(length: object, doc_id: object) -> int:
    try:
        # anything may come in: what is not an integer raises TypeError, answered below
        return operator.index(length)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(
            f"document {doc_id!r}: length must be an integer, not {length!r}"
        ) from None


def pred_scores(spans: Sequence[object]) -> tuple[float, ...] | None:
    """The scores of ``spans`` (NaN for a span without one); ``None`` when none has one."""
    scores = [getattr(s, "score", None) for s in spans]
    if all(c is None for c in scores):
        return None
    return tuple(float("nan") if c is None else float(c) for c in scores)


def span_counts(doc: Document) -> tuple[int, int]:
    """``(gold spans, predicted spans)`` of a document, without building them."""
    return len(gold_rows(doc)) // 24 - 1, len(pred_rows(doc)) // 24


#: Why a span of another tokenization is not on the reference's tokens.
NOT_ON_REFERENCE = "cannot project onto reference tokens"
#: One tokenization of a text, as plain data: the text, its tokens, where each starts, and
#: spans in characters.
Tokenized = tuple[str, Sequence[str], Sequence[int], Sequence[Span]]


def tokenized_pair(
    doc_id: str | int, unit: str, gold: Tokenized, pred: Tokenized, gold_why: str
) -> Document:
    """One document of two tokenizations of one text (else an error naming the document and
    the first difference): in token unit every span is projected onto gold's tokens (those
    that cannot be are unaligned, gold ones with ``gold_why``)."""
    text, tokens, starts, gold_spans = gold
    if pred[0] != text:
        raise texts_differ(doc_id, text, pred[0])
    if unit == "char":
        return Document.create(id=doc_id, unit="char", text=text, gold=gold_spans, pred=pred[3])
    g, unaligned_gold = onto_tokens(gold_spans, tokens, starts, gold_why)
    p, unaligned = onto_tokens(pred[3], tokens, starts, NOT_ON_REFERENCE)
    return Document.create(
        id=doc_id,
        unit=cast(Unit, unit),  # (Document.create refuses any other unit)
        tokens=tokens,
        gold=g,
        pred=p,
        unaligned_pred=unaligned,
        unaligned_gold=unaligned_gold,
    )


def texts_differ(doc_id: object, gold_text: str, pred_text: str) -> DocumentMismatchError:
    """Two tokenizations of what must be one text, and the texts differ: where, first."""
    where = next(
        (i for i, (a, b) in enumerate(zip(gold_text, pred_text, strict=False)) if a != b),
        min(len(gold_text), len(pred_text)),
    )
    return DocumentMismatchError(
        f"document {doc_id!r}: reference and predicted texts differ at character {where} "
        f"({gold_text[where : where + 20]!r} != {pred_text[where : where + 20]!r})"
    )


def onto_tokens(
    spans: Iterable[Span], tokens: Sequence[str], starts: Sequence[int], why: str
) -> tuple[list[Span], list[tuple[Span, str]]]:
    """Character spans of a text onto its ``tokens`` (each starting at ``starts``, with the
    whitespace after it up to the next): ``(token spans, [(span, why: why not)])``. A span
    projects when its first character starts a token and its last character ends one."""
    first = {s: i for i, s in enumerate(starts)}
    last = {s + len(t): i + 1 for i, (s, t) in enumerate(zip(starts, tokens, strict=True))}
    projected: list[Span] = []
    unaligned: list[tuple[Span, str]] = []
    for span in spans:
        s, e = span.start, span.end
        ts, te = first.get(s), last.get(e)
        if ts is not None and te is not None and te > ts:
            projected.append(Span(ts, te, span.label, span.score))
            continue
        inside = [  # (each end's token: the one whose characters, with its whitespace, hold it)
            f"{side} character {pos} falls inside reference token {tokens[i]!r} "
            f"[{starts[i]}, {starts[i] + len(tokens[i])})"
            for side, pos, hit in (("start", s, ts), ("end", e, te))
            if hit is None
            for i in (max(0, bisect_right(starts, pos if side == "start" else pos - 1) - 1),)
        ]
        unaligned.append(
            (span, f"{why}: {'; '.join(inside) if inside else 'no whole token inside'}")
        )
    return projected, unaligned


def _first_difference(a: str | Sequence[str], b: str | Sequence[str]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"at position {i}: {x!r} != {y!r}"
    return f"lengths {len(a)} != {len(b)}"
