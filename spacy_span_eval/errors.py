"""Exceptions. Every input problem names where it happened (file, line, document, span), and
what names it says are printed safe for a terminal (:func:`printable`)."""

from __future__ import annotations

import re

#: What a terminal acts on instead of showing: C0 and C1 controls but the newline, DEL, the
#: line and paragraph separators and the bidirectional overrides.
_UNPRINTABLE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` for a terminal: each control character as its Python escape (``\\x1b``,
    ``\\t``), as a document id's ``repr`` shows it, so a name in the data cannot retitle the
    terminal or clear the screen (newlines are kept)."""
    return _UNPRINTABLE.sub(lambda m: repr(m.group())[1:-1], text)


class SpanEvalError(Exception):
    """Base class for every error this package raises on purpose."""


class InvalidInputError(SpanEvalError, ValueError):
    """Input that cannot be scored as given: a bad span, a mismatched document pair, bad tags.

    The CLI maps it to exit code 2.
    """


class InvalidSpanError(InvalidInputError):
    """A span that breaks semantics §1 (negative, empty, inverted, past the end, no label)."""


class DocumentMismatchError(InvalidInputError):
    """Gold and predicted sides of one document do not refer to the same text."""


class EmptyEvaluationError(InvalidInputError):
    """No gold and no predicted spans at all: an empty evaluation must not pass as perfect."""


class UnknownLabelError(InvalidInputError):
    """A label the strict label map does not know."""


class LostWorkError(SpanEvalError):
    """Work lost with the processes doing it: a Dask scheduler gone mid-run, Dask workers
    that died each time they ran a part. Exit 2, one line saying what to try."""
