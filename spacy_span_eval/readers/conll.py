"""CoNLL-style column files: one token per line, a tag column, blank lines between sentences.

Each sentence becomes one token-unit :class:`~.base.Record`, decoded by
:func:`spacy_span_eval.schemes.decode` with the chosen scheme and repair policy. The file is
read line by line and decoded a sentence at a time, so memory follows the longest sentence,
not the length of the file.

Accepted on the way: tab- or space-separated columns (``delimiter="auto"`` splits on tabs when
a line has one, else on runs of whitespace), CRLF line ends, a UTF-8 BOM, ``-DOCSTART-``
lines (a boundary, not a sentence), and comment lines such as ``# sent_id = 3``. A comment is
only recognised at the start of a sentence and only when the line does not read as a token
line, so a real ``#`` token (``# O``, ``#\\tB-TAG``) is never eaten.

A sentence's slice fields (:func:`conll_fields`): ``document``, the file name and line of the
``-DOCSTART-`` line above it (the file name before any), and each ``# key = value`` comment
above it in its document, the latest of a key holding.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..errors import InvalidInputError
from .align import Notes
from .base import Record, bounded_lines, empty_input, not_utf8, open_text
from .options import ReadingOptions
from .schemes import REPAIR_POLICIES, Scheme, decode, get_scheme

DOCSTART = "-DOCSTART-"
DELIMITERS: tuple[str, ...] = ("auto", "tab", "space")
Splitter = Callable[[str], list[str]]


def splitter(delimiter: str) -> Splitter:
    """How a line is split into columns with ``delimiter``."""
    if delimiter == "tab":
        return lambda line: line.split("\t")
    if delimiter == "space":
        return str.split
    if delimiter == "auto":
        return lambda line: line.split("\t") if "\t" in line else line.split()
    raise ValueError(f"unknown delimiter {delimiter!r}; choose one of {', '.join(DELIMITERS)}")


def check_repair(repair: str) -> None:
    """Raise ``ValueError`` for a repair policy that is not one of :data:`REPAIR_POLICIES`."""
    if repair not in REPAIR_POLICIES:
        raise ValueError(
            f"unknown repair policy {repair!r}; choose one of {', '.join(REPAIR_POLICIES)}"
        )


def read_conll(
    path: Path | str,
    *,
    scheme: str = "IOB2",
    repair: str = "conlleval",
    tag_column: int = -1,
    delimiter: str = "auto",
    comment: str | None = "#",
    fields: dict[str, str] | None = None,
    docstarts: list[str | None] | None = None,
) -> Iterator[Record]:
    """Yield one token-unit record per sentence of a CoNLL file (``fields``, ``docstarts``:
    as for :func:`records_from_lines`).

    ``tag_column`` indexes the split columns (``-1``: the last); the token is column 0.
    A malformed line or tag raises :class:`InvalidInputError` naming the file and line.

    This is the reference reader: one sentence at a time, in Python. The command line reads
    file pairs with :func:`.conll_columns.conll_pair_batches`, which gives the same records
    as columns and is tested against this one.
    """
    sch = get_scheme(scheme)
    check_repair(repair)
    split = splitter(delimiter)
    n_sentences = 0
    with open_text(path) as fh:
        try:
            for record in records_from_lines(
                bounded_lines(fh, path),
                path=path,
                scheme=sch,
                repair=repair,
                split=split,
                tag_column=tag_column,
                comment=comment,
                fields=fields,
                docstarts=docstarts,
            ):
                n_sentences += 1
                yield record
        except UnicodeDecodeError as exc:
            raise not_utf8(path, exc) from None
    if not n_sentences:
        raise empty_input(path, "sentences")


def read_conll_as(
    path: Path,
    options: ReadingOptions,
    notes: Counter[str] | None = None,
    *,
    fields: dict[str, str] | None = None,
) -> Iterator[Record]:
    """:func:`read_conll` with the CoNLL choices of ``options`` (the format's reader: the
    ``-DOCSTART-`` lines' tags go to ``notes`` where it is a side's :class:`~.align.Notes`)."""
    return read_conll(
        path,
        scheme=options.scheme,
        repair=options.repair,
        tag_column=options.tag_column,
        delimiter=options.delimiter,
        comment=options.comment,
        fields=fields,
        docstarts=notes.docstarts if isinstance(notes, Notes) else None,
    )


def conll_fields(path: Path, field: str, options: ReadingOptions) -> Iterator[tuple[str, object]]:
    """Each sentence's slice field ``field`` (see the module docstring), by its key."""
    fields: dict[str, str] = {}
    for record in read_conll_as(path, options, fields=fields):
        yield record.key, fields.get(field)


def column_need(tag_column: int) -> int:
    """How many columns a token line needs for ``tag_column``."""
    return max(2, tag_column + 1 if tag_column >= 0 else -tag_column)


def records_from_lines(
    lines: Iterable[str],
    *,
    path: Path | str,
    scheme: Scheme,
    repair: str,
    split: Splitter,
    tag_column: int,
    comment: str | None,
    first_line: int = 1,
    fields: dict[str, str] | None = None,
    docstarts: list[str | None] | None = None,
) -> Iterator[Record]:
    """The records of CoNLL lines (``first_line``: the file line number of the first one).

    The lines must start at a sentence boundary (the start of a file, or after a blank line).
    ``fields``, when given, holds each record's slice fields as it is yielded; ``docstarts``
    gets the tag of each ``-DOCSTART-`` line (``None`` where it has no tag column).
    """
    fields = {} if fields is None else fields
    fields["document"] = Path(path).name
    prefixes = tuple(f"{p}-" for p in scheme.prefixes)
    need = column_need(tag_column)
    tokens: list[str] = []
    tags: list[str] = []
    first = 0
    for n, raw in enumerate(lines, first_line):
        line = raw.rstrip()
        cols = split(line) if line else None
        if cols is None or cols[0] == DOCSTART:  # a boundary
            if tokens:
                yield _record(path, first, tokens, tags, scheme, repair)
                tokens, tags = [], []
            if cols:  # (a new document: its own fields)
                fields.clear()
                fields["document"] = f"{Path(path).name}:{n}"
                if docstarts is not None:
                    docstarts.append(cols[tag_column].strip() if len(cols) >= need else None)
            continue
        if (
            comment
            and not tokens
            and raw.startswith(comment)
            and not _looks_like_token(cols, need, tag_column, prefixes)
        ):
            key, eq, value = line[len(comment) :].partition("=")
            if eq:
                fields[key.strip()] = value.strip()
            continue
        if len(cols) < need:
            raise malformed_line(path, n, line, cols, need, tag_column)
        if not tokens:
            first = n
        tokens.append(cols[0])
        tags.append(cols[tag_column].strip())
    if tokens:
        yield _record(path, first, tokens, tags, scheme, repair)


def _record(
    path: Path | str, line0: int, tokens: list[str], tags: list[str], scheme: Scheme, repair: str
) -> Record:
    """The sentence whose first token is on line ``line0``, its tags decoded."""
    decoded = decode(
        tags,
        scheme=scheme,
        repair=repair,  # type: ignore[arg-type]  # (checked against REPAIR_POLICIES by the caller)
        context=lambda i: f"{path} line {line0 + i}",
    )
    return Record(
        where=f"{path} line {line0}",
        key=f"{Path(path).name}:{line0}",
        id=None,
        spans=decoded.spans,
        tokens=tuple(tokens),
        repaired=decoded.repaired,
        tags=tuple(tags),
    )


def malformed_line(
    path: Path | str, n: int, line: str, cols: list[str], need: int, tag_column: int
) -> InvalidInputError:
    return InvalidInputError(
        f"{path} line {n}: malformed line: expected at least {need} "
        f"columns (token ... tag, tag column {tag_column}), found "
        f"{len(cols)}: {line!r}"
    )


def _looks_like_token(
    cols: list[str], need: int, tag_column: int, prefixes: tuple[str, ...]
) -> bool:
    if len(cols) < need:
        return False
    tag = cols[tag_column].strip()
    return tag == "O" or tag.startswith(prefixes)
