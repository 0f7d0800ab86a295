"""What every reader yields: one :class:`Record` per document, streamed.

A record is one side (gold or predicted) of one document, in the unit its format carries
natively: token indices for tag columns, character offsets for JSON. :mod:`.pairing` puts
two records together into an engine :class:`~spacy_span_eval.spans.Document`.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import TextIO, TypeVar

from ..engine.spans import Span, Tokenized, validate_spans
from ..errors import InvalidInputError, InvalidSpanError

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Record:
    """One side of one document.

    ``where`` locates it for messages (``"btc.test line 12"``); ``key`` names it in results
    when it has no ``id`` (``"btc.test:12"``). Exactly one of ``tokens`` (spans in token
    indices) and ``text`` (character offsets) is the native content, but for a spaCy ``Doc``
    (the DocBin reader's, a pipeline's): ``text`` with its spans in characters, and its
    ``tokens``, each starting at ``starts`` in the text.
    """

    where: str
    key: str
    id: str | None
    spans: tuple[Span, ...] = ()
    text: str | None = None
    tokens: tuple[str, ...] | None = None
    repaired: int = 0
    starts: tuple[int, ...] | None = None
    # CoNLL: each token's tag as read (conlleval's token accuracy compares them)
    tags: tuple[str, ...] | None = None
    # Predictions as strings (:mod:`.strings`): (label, string, score, character interval or
    # None) each, grounded in the gold text when paired (:mod:`.grounding`)
    strings: tuple[tuple[str, str, float | None, tuple[int, int] | None], ...] | None = None

    def tokenized(self) -> Tokenized:
        """A Doc's record as the engine's plain :data:`~..engine.spans.Tokenized`."""
        assert self.text is not None and self.tokens is not None and self.starts is not None
        return self.text, self.tokens, self.starts, self.spans

    def char_text(self) -> str:
        """The text in character unit (tokens joined by single spaces when token-native)."""
        if self.text is not None:
            return self.text
        assert self.tokens is not None
        return " ".join(self.tokens)


def token_starts(tokens: Sequence[str]) -> list[int]:
    """Where each token starts in the tokens joined by single spaces."""
    return [0, *accumulate(len(token) + 1 for token in tokens)][: len(tokens)]


def note(notes: Counter[str], what: str, n: int = 1) -> None:
    """Count ``n`` of ``what`` a reader read differently or left out (none: no entry)."""
    if n:
        notes[what] += n


def checked_spans(
    spans: Iterable[Span], *, length: int, where: str, doc_id: str | None, side: str
) -> tuple[Span, ...]:
    """Validate spans against the document (semantics §1), naming the file and line on failure."""
    try:
        return validate_spans(spans, length=length, doc_id=doc_id, side=side)
    except InvalidSpanError as exc:
        raise InvalidSpanError(f"{where}: {exc}") from None


def char_record(
    where: str, key: str, doc_id: str | None, text: str, spans: Iterable[Span], side: str
) -> Record:
    """A char-unit record of ``text`` whose ``spans`` are checked against it (semantics §1)."""
    name = doc_id if doc_id is not None else key
    return Record(
        where=where,
        key=key,
        id=doc_id,
        text=text,
        spans=checked_spans(spans, length=len(text), where=where, doc_id=name, side=side),
    )


def json_record(
    path: Path | str,
    n: int,
    where: str,
    doc_id: str | None,
    text: str,
    spans: Iterable[Span],
    side: str,
) -> Record:
    """The char-unit record of a JSON file's ``n``-th value, keyed ``FILE:n`` when it has no id."""
    key = doc_id if doc_id is not None else f"{Path(path).name}:{n}"
    return char_record(where, key, doc_id, text, spans, side)


def numbered(
    values: Iterable[tuple[int, T]], path: Path | str, what: str = "records"
) -> Iterator[tuple[int, T, str]]:
    """``(n, value, where)`` for each value of ``path`` and the line it starts on; none at all
    is an error."""
    seen = False
    for n, value in values:
        seen = True
        yield n, value, f"{path} line {n}"
    if not seen:
        raise empty_input(path, what)


def span_score(value: object, what: str, where: str) -> float | None:
    """A span's confidence as read (semantics §9): a finite number, or ``None`` when absent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise InvalidInputError(f"{where}: {what} score must be a number, not {value!r}")
    if abs(value) == float("inf"):
        raise InvalidInputError(f"{where}: {what} score must be finite, not {value!r}")
    return float(value)


def record_id(value: object, key: str, where: str) -> str | None:
    """A document id as a string (a string or an integer in the file), or ``None``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidInputError(
            f"{where}: field {key!r} must be a string or an integer, not {value!r}"
        )
    return str(value)


def offset(value: object, what: str, where: str) -> int:
    """An integer offset from a file, or an error naming it (never a silent ``int(3.7)``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(f"{where}: {what} must be an integer, not {value!r}")
    return value


def empty_input(path: Path | str, what: str) -> InvalidInputError:
    return InvalidInputError(f"{path}: no {what} found (empty input); nothing to score")


def not_utf8(path: Path | str, exc: UnicodeDecodeError, offset: int = 0) -> InvalidInputError:
    """``offset``: where ``exc``'s input starts in the file."""
    return InvalidInputError(f"{path}: not UTF-8 text ({exc.reason} at byte {offset + exc.start})")


#: The longest line (or JSON record) a reader takes, in characters. Memory follows the
#: longest record, so a file without line ends (``/dev/zero``, a binary file) must not be
#: read as one line: past this it is an error naming the line.
MAX_LINE_CHARS = 1 << 26


def too_long(path: Path | str, line: int, what: str = "line") -> InvalidInputError:
    return InvalidInputError(
        f"{path} line {line}: the {what} is longer than {MAX_LINE_CHARS:,} characters; is "
        "this a text file of the right format?"
    )


def bounded_lines(fh: Iterable[str], path: Path | str) -> Iterator[str]:
    """The lines of a text file, each at most :data:`MAX_LINE_CHARS` long (else an error
    naming the line, instead of reading a file without line ends into memory)."""
    readline = fh.readline  # type: ignore[attr-defined]
    n = 0
    while line := readline(MAX_LINE_CHARS + 1):
        n += 1
        if len(line) > MAX_LINE_CHARS:
            raise too_long(path, n)
        yield line


def long_line_at(data: bytes) -> int | None:
    """Where the first line of ``data`` longer than :data:`MAX_LINE_CHARS` characters starts
    (a byte offset; its line end counts as one character, as :func:`bounded_lines` counts
    it), or ``None``. For the readers that read bytes in chunks (the columnar CoNLL reader,
    JSON Lines): a chunk that has grown past the bound without a line end in sight is
    checked, so a file without line ends is an error naming the line, not a 2 GB buffer."""
    if len(data) <= MAX_LINE_CHARS:
        return None
    import numpy as np  # (here: the CLI's --help and --version load no numpy)

    arr = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero((arr == 10) | (arr == 13))  # "\r\n" is two ends; no matter here
    starts = np.concatenate(([0], ends + 1))
    stops = np.concatenate((ends + 1, [len(data)]))
    for i in np.flatnonzero(stops - starts > MAX_LINE_CHARS).tolist():  # enough bytes
        a, b = int(starts[i]), int(stops[i])
        chars = (b - a) - int(np.count_nonzero((arr[a:b] & 0xC0) == 0x80))
        if chars > MAX_LINE_CHARS:
            return a
    return None


def long_line_error(
    path: Path | str, data: bytes, at: int, line: int, offset: int = 0
) -> Callable[[], InvalidInputError]:
    """The error for the long line at byte ``at`` of ``data`` (line number ``line``;
    ``offset``: the file offset of ``data[0]``): not UTF-8 when its first characters do not
    decode (text mode would say so first), else :func:`too_long`."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(
            data[at : at + MAX_LINE_CHARS + 1], final=False
        )
    except UnicodeDecodeError as exc:
        error = not_utf8(path, exc, offset + at)
        return lambda: error
    return lambda: too_long(path, line)


def check_readable(path: Path | str) -> None:
    """Raise as a reader would for a path it cannot open: ``FileNotFoundError`` ("no such
    file") when nothing is there, an :class:`~spacy_span_eval.errors.InvalidInputError`
    naming the reason (a link loop, a name too long, no permission, a named pipe: a file is
    opened more than once, to find its format and to read it) otherwise."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    except OSError as exc:
        raise InvalidInputError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        raise InvalidInputError(
            f"{path}: not a regular file but a pipe; input is read more than once (its "
            "format, then its documents), so give a file"
        )


#: A file's size, modification time (ns) and inode.
Stamp = tuple[int, int, int]


def stamp(path: Path | str) -> Stamp | None:
    """``path``'s :data:`Stamp`; ``None`` where it cannot be read (its reader says why) or
    is no regular file (a pipe's time changes as it is written)."""
    with suppress(OSError):
        found = os.stat(path)
        if stat.S_ISREG(found.st_mode):
            return found.st_size, found.st_mtime_ns, found.st_ino
    return None


def file_stamps(*paths: Path | str) -> dict[str, Stamp | None]:
    """Each input's :func:`check_readable`, in order, then the stamp of each input file, of
    each file under an input folder."""
    files = []
    for path in map(Path, paths):
        check_readable(path)
        files += sorted(f for f in path.rglob("*") if f.is_file()) if path.is_dir() else [path]
    return {str(f): stamp(f) for f in files}


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


def without_bom(block: bytes, eof: bool) -> tuple[bytes, int]:
    """A file's first bytes less a UTF-8 BOM, and the offset of what is left (``eof``: the
    block is all the file, and a file cut inside a BOM reads as empty text, as utf-8-sig
    reads it)."""
    bom = codecs.BOM_UTF8
    if block.startswith(bom):
        return block[len(bom) :], len(bom)
    return (b"" if eof and bom.startswith(block) else block), 0


def open_text(path: Path | str) -> TextIO:
    """Open a UTF-8 file (a leading BOM is dropped, CRLF reads as LF)."""
    try:
        return open(path, encoding="utf-8-sig", newline=None)  # noqa: SIM115
    except IsADirectoryError:
        raise InvalidInputError(f"{path}: is a directory, not a file") from None
