"""Exceptions. Every input problem names where it happened (file, line, document, span)."""

from __future__ import annotations


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
