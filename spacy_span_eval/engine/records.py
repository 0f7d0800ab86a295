"""Error records: one per FN (missed, wrong boundaries or wrong label) and one per FP (spurious,
wrong boundaries or wrong label), with context to read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import attrs

from .strings import UNGROUNDED

ErrorKind = Literal["false_negative", "boundary", "wrong_label", "false_positive"]
Side = Literal["gold", "predicted"]


def _side(side: Side | None, record: Any) -> Side:
    """The record's side: as given, else the one its kind implies (a boundary record has
    none to imply)."""
    if side is not None:
        return side
    if record.kind == "boundary":
        raise ValueError("a boundary record must say its side ('gold' or 'predicted')")
    return "predicted" if record.kind == "false_positive" else "gold"


@attrs.frozen
class ErrorRecord:
    """One counted error.

    ``side`` says which span the record is about: ``"gold"`` records number the ledger's
    ``fn``, ``"predicted"`` ones its ``fp``. A gold record is ``wrong_label`` when predictions
    of ``predicted_label`` cover it instead, else ``boundary`` when predictions of its own
    label overlap it but do not find it even with nothing competing for them (the label was
    found, the extent was not), else ``false_negative``. A predicted record is
    ``wrong_label`` when it gives another label's annotation its label (that annotation's
    cell represents it), else ``boundary`` when it overlaps a ``boundary`` annotation of its
    label, else ``false_positive`` (semantics §4): the kinds of the error-kinds table.
    ``best_iou`` is the best same-label score the strategy found (IoU for ``two_sided``);
    ``reason`` explains spans that could not be matched at all. ``side`` may be left out for
    the kinds that imply it (``wrong_label`` implies gold; ``boundary`` implies none).
    """

    kind: ErrorKind
    document: str
    start: int
    end: int
    label: str
    predicted_label: str | None
    text: str | None
    context_left: str | None
    context_right: str | None
    best_iou: float
    reason: str | None = None
    # mypy's attrs plugin takes only plain functions as converters ([misc])
    side: Side | None = attrs.field(default=None, converter=attrs.Converter(_side, takes_self=True))  # type: ignore[misc]

    def to_dict(self) -> dict[str, Any]:
        out = attrs.asdict(self)
        if self.where("") == "-":  # (a string found nowhere has no span)
            out.update(start=None, end=None)
        return out

    def where(self, unit: str) -> str:
        """The span as shown: ``-`` for a string found nowhere; in token unit, a span with a
        reason (it could not be put on tokens) is the characters it was found at."""
        chars = "chars " * (unit == "token" and self.reason is not None)
        spanless = (self.reason or "").startswith(UNGROUNDED)
        return "-" if spanless else f"{chars}[{self.start}, {self.end})"


def span_context(
    start: int, end: int, *, text: str | None, tokens: Sequence[str] | None, unit: str, window: int
) -> tuple[str | None, str | None, str | None]:
    """``(left, span text, right)`` around a span, in the document's unit."""
    if unit == "token" and tokens is not None:
        return (
            " ".join(tokens[max(0, start - window) : start]),
            " ".join(tokens[start:end]),
            " ".join(tokens[end : end + window]),
        )
    if unit == "char" and text is not None:
        return text[max(0, start - window) : start], text[start:end], text[end : end + window]
    return None, None, None
