"""Spans and documents: the plain data the engine scores.

A span is half-open ``[start, end)`` in one unit (token indices or character offsets), stated
once here. The engine never sees spaCy objects; adapters turn ``Doc.ents``, span groups, BIO
tags or JSON offsets into :class:`Document` values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..errors import DocumentMismatchError, InvalidSpanError

Unit = Literal["token", "char"]
UNITS: tuple[str, ...] = ("token", "char")


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A labelled half-open interval ``[start, end)`` in the document's unit."""

    start: int
    end: int
    label: str

    def __len__(self) -> int:
        return self.end - self.start


def show(value: object, limit: int = 80) -> str:
    """``repr(value)`` for a message: a huge integer by its number of digits (its repr may
    not even be allowed), anything long cut short."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** 18:
        bits = value.bit_length()  # str() of an int over 4300 digits is refused
        digits = len(str(abs(value))) if bits < 14000 else f"~{int(bits * 0.30103) + 1}"
        return f"<a {digits}-digit number>"
    if isinstance(value, tuple | list):
        inner = ", ".join(show(v, limit) for v in value[:5]) + (", ..." if len(value) > 5 else "")
        text = f"({inner}{',' if len(value) == 1 else ''})" if isinstance(value, tuple) \
            else f"[{inner}]"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _describe(doc_id: object, side: str, index: int, span: object) -> str:
    return f"document {doc_id!r}, {side} span #{index} {show(span)}"


def _as_span(raw: object, doc_id: object, side: str, index: int) -> Span:
    """A :class:`Span`, or a ``(start, end, label)`` triple as one."""
    if isinstance(raw, Span):
        return raw
    if isinstance(raw, tuple | list) and len(raw) == 3:
        return Span(*raw)
    raise InvalidSpanError(f"{_describe(doc_id, side, index, raw)}: a span is a Span or a "
                           "(start, end, label) triple")


def validate_spans(
    spans: Iterable[Span | tuple[int, int, str]],
    *,
    length: int,
    doc_id: object,
    side: str,
) -> tuple[Span, ...]:
    """Check every span against SPEC section 1 and return them as :class:`Span` values.

    Nothing is clipped or dropped: the first bad span raises :class:`InvalidSpanError`
    naming the document, the side and the span.
    """
    out: list[Span] = []
    for i, raw in enumerate(spans):
        span = _as_span(raw, doc_id, side, i)
        start, end, label = span.start, span.end, span.label
        where = _describe(doc_id, side, i, (start, end, label))
        if not isinstance(start, int) or not isinstance(end, int) or isinstance(start, bool):
            raise InvalidSpanError(f"{where}: offsets must be integers")
        if not isinstance(label, str) or not label:
            raise InvalidSpanError(f"{where}: label must be a non-empty string")
        if start < 0:
            raise InvalidSpanError(f"{where}: start is negative")
        if end == start:
            raise InvalidSpanError(f"{where}: span is empty (end == start)")
        if end < start:
            raise InvalidSpanError(f"{where}: span is inverted (end < start)")
        if end > length:
            raise InvalidSpanError(f"{where}: end is past the end of the document ({length})")
        out.append(span)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Document:
    """One document with its gold and predicted spans, both in the same unit.

    ``length`` is the document's size in the unit. It is derived from ``text`` (char unit)
    or ``tokens`` (token unit) when those are given; ``text``/``tokens`` are only needed for
    error records with context. Construct through :meth:`create` to validate.
    """

    id: str
    length: int
    gold: tuple[Span, ...]
    pred: tuple[Span, ...]
    text: str | None = None
    tokens: tuple[str, ...] | None = None
    # Spans the adapter could not bring into this unit (e.g. token projection failed);
    # counted as unmatched predictions per SPEC section 1, with a reason each.
    unaligned_pred: tuple[tuple[Span, str], ...] = field(default=())
    # Gold spans that cannot be expressed in this unit (e.g. a gold span that starts or ends
    # inside a token, scored in token unit): still gold, counted as FN with a reason each.
    unaligned_gold: tuple[tuple[Span, str], ...] = field(default=())
    # The unit the spans are in, when known (set by create); an evaluator in another unit
    # refuses the document instead of scoring token indices as character offsets.
    unit: str | None = None

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
    ) -> Document:
        """Build and validate a document. The unit decides which of text/tokens sets length."""
        doc_id = str(id)
        if unit not in UNITS:
            raise ValueError(f"unit must be one of {UNITS}, not {unit!r}")
        derived: int | None = None
        if unit == "char" and text is not None:
            derived = len(text)
        elif unit == "token" and tokens is not None:
            derived = len(tokens)
        if length is None:
            if derived is None:
                raise ValueError(
                    f"document {doc_id!r}: give length, or "
                    f"{'text' if unit == 'char' else 'tokens'} to derive it in {unit} unit"
                )
            length = derived
        elif derived is not None and derived != length:
            raise DocumentMismatchError(
                f"document {doc_id!r}: length {length} does not match its "
                f"{'text' if unit == 'char' else 'tokens'} ({derived})"
            )
        return cls(
            id=doc_id,
            length=length,
            gold=validate_spans(gold, length=length, doc_id=doc_id, side="gold"),
            pred=validate_spans(pred, length=length, doc_id=doc_id, side="predicted"),
            text=text,
            tokens=tuple(tokens) if tokens is not None else None,
            unaligned_pred=tuple(unaligned_pred),
            unaligned_gold=tuple(unaligned_gold),
            unit=unit,
        )

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
        unaligned_gold: Iterable[tuple[Span, str]] = (),
    ) -> Document:
        """Pair a gold and a predicted annotation of what must be the same text.

        ``*_text`` is a string (char unit) or a token sequence (token unit). Differing texts
        are an error naming the document and the first difference, never a guess.
        ``unaligned_gold`` as in :meth:`create`.
        """
        same = (list(gold_text) == list(pred_text)) if unit == "token" else gold_text == pred_text
        if not same:
            raise DocumentMismatchError(
                f"document {id!r}: gold and predicted texts differ "
                f"({_first_difference(gold_text, pred_text)})"
            )
        if unit == "char":
            return cls.create(id=id, gold=gold, pred=pred, unit=unit, text=str(gold_text),
                              unaligned_gold=unaligned_gold)
        return cls.create(id=id, gold=gold, pred=pred, unit=unit, tokens=list(gold_text),
                          unaligned_gold=unaligned_gold)


def _first_difference(a: str | Sequence[str], b: str | Sequence[str]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"at position {i}: {x!r} != {y!r}"
    return f"lengths {len(a)} != {len(b)}"
