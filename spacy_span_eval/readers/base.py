"""What every reader yields: one :class:`Record` per document, streamed.

A record is one side (gold or predicted) of one document, in the unit its format carries
natively: token indices for tag columns, character offsets for JSON. :mod:`.pairing` puts
two records together into an engine :class:`~spacy_span_eval.spans.Document`.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.spans import Span, validate_spans
from ..errors import InvalidInputError, InvalidSpanError


@dataclass(frozen=True, slots=True)
class Record:
    """One side of one document.

    ``where`` locates it for messages (``"btc.test line 12"``); ``key`` names it in results
    when it has no ``id`` (``"btc.test:12"``). Exactly one of ``tokens`` (spans in token
    indices) and ``text`` (character offsets) is the native content; ``doc`` holds a spaCy
    ``Doc`` for the DocBin reader, whose spans are read by :mod:`..spacy_docs` instead.
    """

    where: str
    key: str
    id: str | None
    spans: tuple[Span, ...] = ()
    text: str | None = None
    tokens: tuple[str, ...] | None = None
    repaired: int = 0
    doc: Any = None

    @property
    def unit(self) -> str:
        return "token" if self.tokens is not None else "char"

    def char_text(self) -> str:
        """The text in character unit (tokens joined by single spaces when token-native)."""
        if self.text is not None:
            return self.text
        assert self.tokens is not None
        return " ".join(self.tokens)


def checked_spans(spans: Iterable[Span], *, length: int, where: str, doc_id: str | None,
                  side: str) -> tuple[Span, ...]:
    """Validate spans against the document (SPEC 1), naming the file and line on failure."""
    try:
        return validate_spans(spans, length=length, doc_id=doc_id, side=side)
    except InvalidSpanError as exc:
        raise InvalidSpanError(f"{where}: {exc}") from None


def char_record(where: str, key: str, doc_id: str | None, text: str, spans: Iterable[Span],
                side: str) -> Record:
    """A char-unit record of ``text`` whose ``spans`` are checked against it (SPEC 1)."""
    name = doc_id if doc_id is not None else key
    return Record(where=where, key=key, id=doc_id, text=text,
                  spans=checked_spans(spans, length=len(text), where=where, doc_id=name,
                                      side=side))


def record_id(value: object, key: str, where: str) -> str | None:
    """A document id as a string (a string or an integer in the file), or ``None``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidInputError(f"{where}: field {key!r} must be a string or an integer, "
                                f"not {value!r}")
    return str(value)


def offset(value: object, what: str, where: str) -> int:
    """An integer offset from a file, or an error naming it (never a silent ``int(3.7)``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(f"{where}: {what} must be an integer, not {value!r}")
    return value


def empty_input(path: Path | str, what: str) -> InvalidInputError:
    return InvalidInputError(f"{path}: no {what} found (empty input); nothing to score")


def not_utf8(path: Path | str, exc: UnicodeDecodeError) -> InvalidInputError:
    return InvalidInputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})")


def unfinished_utf8(data: bytes) -> int:
    """Bytes at the end of ``data`` that begin a UTF-8 character without finishing it (0 if
    none). Text mode reports those only at the end of the file, after every line before them;
    an invalid byte it reports when it decodes the block that holds it."""
    for back in range(1, min(3, len(data)) + 1):
        b = data[-back]
        if b & 0xC0 != 0x80:  # the last lead byte (or ASCII)
            need = 2 if b >> 5 == 6 else 3 if b >> 4 == 14 else 4 if b >> 3 == 30 else 1
            if need <= back:
                return 0
            try:
                left = codecs.getincrementaldecoder("utf-8")().decode(data[-back:], final=False)
                data[:-back].decode("utf-8")  # an invalid byte before it is reported first
            except UnicodeDecodeError:
                return 0
            return back if left == "" else 0
    return 0


def whole_lines(data: bytes) -> int:
    """Bytes of ``data`` up to its last line end as text mode sees it before more data: a
    ``\r`` at the very end may yet be the start of ``\r\n``, so it does not count."""
    return max(data.rfind(b"\n"), data.rfind(b"\r", 0, len(data) - 1)) + 1


def open_text(path: Path | str):
    """Open a UTF-8 file (a leading BOM is dropped, CRLF reads as LF)."""
    try:
        return open(path, encoding="utf-8-sig", newline=None)  # noqa: SIM115
    except IsADirectoryError:
        raise InvalidInputError(f"{path}: is a directory, not a file") from None
