"""Error records: one per FN (missed or wrong label) and one per FP, with context to read."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Literal

ErrorKind = Literal["false_negative", "wrong_label", "false_positive"]
ERROR_KINDS: tuple[str, ...] = ("false_negative", "wrong_label", "false_positive")


@dataclass(frozen=True, slots=True)
class ErrorRecord:
    """One counted error.

    ``false_negative`` and ``wrong_label`` records are gold annotations (together they number
    the ledger's ``fn``); ``wrong_label`` ones were covered by predictions of
    ``predicted_label`` instead. ``false_positive`` records are predicted spans (they number the
    ledger's ``fp``). ``best_iou`` is the best same-label score the strategy found (IoU for
    ``two_sided``); ``reason`` explains spans that could not be matched at all.
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

    def to_dict(self) -> dict:
        return asdict(self)


def span_context(start: int, end: int, *, text: str | None, tokens: Sequence[str] | None,
                 unit: str, window: int) -> tuple[str | None, str | None, str | None]:
    """``(left, span text, right)`` around a span, in the document's unit."""
    if unit == "token" and tokens is not None:
        return (" ".join(tokens[max(0, start - window):start]), " ".join(tokens[start:end]),
                " ".join(tokens[end:end + window]))
    if unit == "char" and text is not None:
        return text[max(0, start - window):start], text[start:end], text[end:end + window]
    return None, None, None
