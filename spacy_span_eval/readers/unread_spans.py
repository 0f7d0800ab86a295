"""Refusing a JSON record whose spans a reader would not read, or whose shape is another
format's: every JSON reader passes each record through :func:`refuse_unread_spans` (what
counts as spans: ``readers.spanlike``), and the message names the format the record looks
like (``readers.detect``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import InvalidInputError
from .detect import shape
from .spanlike import span_like_key

__all__ = ["json_object", "refuse_shape", "refuse_unread_spans", "shape_hint", "text_field"]


def refuse_unread_spans(
    record: object, read: Iterable[str], where: str, fmt: str, hint: str = ""
) -> None:
    """Raise when ``record`` holds spans under a key outside ``read`` (the keys the ``fmt``
    reader reads): they would be read as nothing. ``hint``: what to do instead."""
    key = span_like_key(record, read)
    if key is not None:
        raise InvalidInputError(
            f"{where}: the key {key!r} holds spans, and the {fmt} reader does not read "
            f"{key!r}; they would be read as nothing ({hint or _hint(record, fmt)})"
        )


def refuse_shape(record: object, where: str, fmt: str, what: str) -> InvalidInputError:
    """The error for a record that is not ``fmt``'s (``what``: what the format expects)."""
    return InvalidInputError(f"{where}: {what}; {_hint(record, fmt)}")


def shape_hint(record: object, fmt: str) -> str:
    """``"; the record looks like 'X': read it with --input-format X"`` when the record has
    another format's shape, else ``""``."""
    looks = shape(record)
    if looks != fmt and looks != "jsonl":
        return f"; the record looks like {looks!r}: read it with --input-format {looks}"
    return ""


def _hint(record: object, fmt: str) -> str:
    return shape_hint(record, fmt)[2:] or "give --input-format for the tool that wrote the file"


def json_object(record: object, where: str, fmt: str) -> dict[str, Any]:
    """``record`` when it is a JSON object, else the error naming what it is."""
    if not isinstance(record, dict):
        raise refuse_shape(
            record, where, fmt, f"expected a JSON object, found {type(record).__name__}"
        )
    return record


def text_field(record: dict[str, Any], where: str, fmt: str, text: object = None) -> str:
    """The record's ``text`` (or the ``text`` given), else the error saying it is missing."""
    text = record.get("text") if text is None else text
    if not isinstance(text, str):
        raise refuse_shape(record, where, fmt, "field 'text' is missing or not a string")
    return text
