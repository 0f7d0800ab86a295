"""Character-offset JSON records: the spaCy ecosystem's ``{"text", "spans": [...]}`` shape.

A record is ``{"text": str, "spans": [{"start": int, "end": int, "label": str}, ...]}`` with
an optional ``"id"`` (string or integer). ``spans`` may be left out (no entities). The file is
JSON Lines or one JSON array; either way it is streamed (see :mod:`.jsonio`). The same code
reads presidio-style records through a different :class:`Fields` (:data:`PRESIDIO_FIELDS`).

Records are read a chunk at a time (:func:`char_record_chunks`). :mod:`msgspec` decodes a
chunk straight into typed structures, which checks every field's type in C; the spans are then
checked as arrays (offsets inside the text, end after start, a label), and only the first bad
span, if any, gets a message: the reference check's own, naming file, line, document and span.
A chunk the typed decoder rejects (a missing field, a float offset, ``NaN``...) is decoded by
the standard library and checked record by record by the reference code, so messages and
results are the same either way. msgspec rather than orjson: its typed decoding validates
types and skips unused fields (``masked``, ``entity_value``...) without building dicts (see
``docs/benchmarks.md``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from ..engine.spans import Span
from ..errors import InvalidInputError
from .base import Record, checked_spans, empty_input, record_id, span_score
from .jsonio import iter_json_chunks
from .options import ReadingOptions
from .ranges import ByteRange
from .unread_spans import refuse_unread_spans, shape_hint

INT = np.int64
_TEXT, _START, _END, _LABEL = (attrgetter(a) for a in ("text", "start", "end", "label"))


@dataclass(frozen=True)
class Fields:
    """Where a record format keeps its text, spans, offsets, label and id."""

    text: str = "text"
    spans: str = "spans"
    start: str = "start"
    end: str = "end"
    label: str = "label"
    id: str = "id"
    #: The format's name, for messages.
    format: str = "jsonl"


JSONL_FIELDS = Fields()
#: presidio-research's synthetic data sets: ``full_text`` and ``spans`` of ``entity_type``
#: with ``start_position`` / ``end_position``; only the layout differs.
PRESIDIO_FIELDS = Fields(
    "full_text", "spans", "start_position", "end_position", "entity_type", "id", "presidio"
)

#: Keys a record may carry beside its text, spans and id that the typed decoder accepts as
#: they are (their types hold no spans). A record with any other key is decoded by the
#: standard library and each such key is checked for spans it would leave unread
#: (:mod:`.spanlike`).
_SCALAR = str | int | float | bool | None
_PLAIN_EXTRAS: dict[str, Any] = {
    "meta": dict[str, _SCALAR] | None,
    "metadata": dict[str, _SCALAR] | None,
    "masked": str | None,
    "template_id": int | str | None,
    "source": _SCALAR,
    "answer": str | None,
}


def read_jsonl(
    path: Path | str, options: ReadingOptions | None = None, notes: Counter[str] | None = None
) -> Iterator[Record]:
    """Yield one char-unit record per JSON record (``text`` / ``spans`` / optional ``id``):
    the JSONL format's reader. ``options.side`` ("gold" or "predicted") only words error
    messages."""
    return read_char_records(path, JSONL_FIELDS, side=(options or ReadingOptions()).side)


@dataclass
class CharChunk:
    """Consecutive records of one file as columns; ``error`` is raised right after them."""

    path: Path | str
    lines: list[int]
    texts: list[str]
    ids: list[str | None]
    span_off: np.ndarray  # per record, offsets into the span arrays (n + 1)
    start: np.ndarray
    end: np.ndarray
    label: np.ndarray
    labels: list[str]
    error: Callable[[], Exception] | None = None
    score: np.ndarray | None = None  # float64 per span (NaN: none); None: no span has one

    @classmethod
    def from_spans(
        cls,
        path: Path | str,
        lines: list[int],
        texts: list[str],
        ids: list[str | None],
        groups: Sequence[Sequence[Any]],
        error: Callable[[], Exception] | None = None,
    ) -> CharChunk:
        """The chunk of records with these spans (``groups``: each record's, as objects with a
        start, an end and a label); OverflowError when an offset does not fit in 64 bits."""
        counts = np.fromiter(map(len, groups), dtype=INT, count=len(groups))
        flat = list(chain.from_iterable(groups))
        start = np.fromiter(map(_START, flat), dtype=INT, count=len(flat))
        end = np.fromiter(map(_END, flat), dtype=INT, count=len(flat))
        names = list(map(_LABEL, flat))
        table = {name: i for i, name in enumerate(dict.fromkeys(names))}
        label = np.fromiter(map(table.__getitem__, names), dtype=INT, count=len(flat))
        span_off = np.zeros(len(groups) + 1, dtype=INT)
        np.cumsum(counts, out=span_off[1:])
        scores = list(map(_score, flat))
        score = None
        if any(c is not None for c in scores):
            score = np.array([np.nan if c is None else c for c in scores], dtype=np.float64)
        return cls(path, lines, texts, ids, span_off, start, end, label, list(table), error, score)

    def __post_init__(self) -> None:
        self.name = Path(self.path).name

    def __len__(self) -> int:
        return len(self.texts)

    def where(self, i: int) -> str:
        return f"{self.path} line {self.lines[i]}"

    def key(self, i: int) -> str:
        return self.keys(i, i + 1)[0]

    def keys(self, lo: int, hi: int) -> list[str]:
        """Document ids of records ``lo:hi`` (the id, else ``"<file name>:<line>"``)."""
        name = self.name
        return [
            f"{name}:{n}" if doc_id is None else doc_id
            for doc_id, n in zip(self.ids[lo:hi], self.lines[lo:hi], strict=True)
        ]

    def spans(self, i: int) -> tuple[Span, ...]:
        lo, hi = int(self.span_off[i]), int(self.span_off[i + 1])
        scores = [None] * (hi - lo) if self.score is None else self.score[lo:hi].tolist()
        return tuple(
            Span(s, e, self.labels[k], None if c is None or c != c else c)
            for s, e, k, c in zip(
                self.start[lo:hi].tolist(),
                self.end[lo:hi].tolist(),
                self.label[lo:hi].tolist(),
                scores,
                strict=True,
            )
        )

    def record(self, i: int) -> Record:
        return Record(
            where=self.where(i),
            key=self.key(i),
            id=self.ids[i],
            spans=self.spans(i),
            text=self.texts[i],
        )


def presidio_reader(path: Path, options: ReadingOptions, notes: Counter[str]) -> Iterator[Record]:
    """The presidio format's reader."""
    return read_char_records(path, PRESIDIO_FIELDS, side=options.side)


def read_char_records(path: Path | str, fields: Fields, *, side: str = "gold") -> Iterator[Record]:
    """Records with a text and character-offset spans, in the layout ``fields`` names."""
    for chunk in char_record_chunks(path, fields, side=side):
        yield from map(chunk.record, range(len(chunk)))
        if chunk.error is not None:
            raise chunk.error()


def char_record_chunks(
    path: Path | str, fields: Fields, *, side: str = "gold", part: ByteRange | None = None
) -> Iterator[CharChunk]:
    """The file's records a chunk at a time, checked; a chunk with ``error`` is the last.

    Raises nothing itself for bad records: the caller raises ``chunk.error()`` after using
    the records before it, which keeps errors in the order the reference meets them. A file
    without records ends in an empty chunk with that error (not a ``part`` of the file:
    ``part``: only that range of a JSON Lines file).
    """
    name = Path(path).name
    empty = part is None
    for raw in iter_json_chunks(path, _decoder(fields), part):
        chunk = _typed_chunk(path, name, raw.lines, raw.values, fields, side) if raw.typed else None
        if chunk is None:  # (typed values back as the JSON objects they were decoded from)
            values = msgspec.to_builtins(raw.values) if raw.typed else raw.values
            chunk = _reference_chunk(path, name, raw.lines, values, fields, side)
        yield chunk
        empty = empty and not len(chunk)
        if chunk.error is not None:
            return
    if empty:
        yield CharChunk.from_spans(path, [], [], [], [], lambda: empty_input(path, "records"))


@cache
def _decoder(fields: Fields) -> msgspec.json.Decoder[list[Any]]:
    span = msgspec.defstruct(
        "SpanFields",
        [
            ("start", int),
            ("end", int),
            ("label", str),
            ("score", float | None, None),
            ("confidence", float | None, None),
        ],
        rename={"start": fields.start, "end": fields.end, "label": fields.label},
    )
    # span and record are classes made here, at run time: mypy takes no variable as a type
    # Unknown keys are refused here: such a record takes the standard library's road, where
    # each one is checked for spans (a key spelled like a read one is not an extra).
    extras = {f"x_{k}": k for k in _PLAIN_EXTRAS if k not in (fields.text, fields.spans, fields.id)}
    record = msgspec.defstruct(
        "RecordFields",
        [
            ("text", str),
            ("spans", list[span] | None, None),  # type: ignore[valid-type]
            ("id", str | int | None, None),
            *((name, _PLAIN_EXTRAS[key], None) for name, key in extras.items()),
        ],
        rename={"text": fields.text, "spans": fields.spans, "id": fields.id, **extras},
        forbid_unknown_fields=True,
    )
    return msgspec.json.Decoder(list[record])  # type: ignore[valid-type]


def _typed_chunk(
    path: Path | str, name: str, lines: list[int], values: list[Any], fields: Fields, side: str
) -> CharChunk | None:
    """A chunk of typed records, its spans checked as arrays (``None``: an offset too large
    for 64 bits; the reference road handles it)."""
    texts = list(map(_TEXT, values))
    ids = [None if r.id is None else str(r.id) for r in values]
    groups = [r.spans or () for r in values]
    try:
        chunk = CharChunk.from_spans(path, lines, texts, ids, groups)
    except OverflowError:
        return None
    if chunk.start.shape[0]:
        start, end, label = chunk.start, chunk.end, chunk.label
        length = np.fromiter(map(len, texts), dtype=INT, count=len(texts))
        doc = np.repeat(np.arange(len(values)), np.diff(chunk.span_off))
        bad = (start < 0) | (end <= start) | (end > length[doc])
        if "" in chunk.labels:
            bad |= label == chunk.labels.index("")
        hits = np.flatnonzero(bad)
        if hits.shape[0]:
            r = int(doc[hits[0]])  # the records before it, then its error
            error = _span_error(path, name, lines[r], ids[r], texts[r], groups[r], side)
            return CharChunk.from_spans(path, lines[:r], texts[:r], ids[:r], groups[:r], error)
    return chunk


def _score(span: Any) -> float | None:
    """A decoded span's ``score``, else its ``confidence`` (``None``: neither)."""
    score = span.score
    return getattr(span, "confidence", None) if score is None else score


def _span_error(
    path: Path | str,
    name: str,
    line: int,
    doc_id: str | None,
    text: str,
    spans: Sequence[Any],
    side: str,
) -> Callable[[], Exception]:
    """The reference check's own message for a record that has a bad span."""
    where = f"{path} line {line}"
    try:
        checked_spans(
            [Span(s.start, s.end, s.label) for s in spans],
            length=len(text),
            where=where,
            doc_id=doc_id if doc_id is not None else f"{name}:{line}",
            side=side,
        )
    except InvalidInputError as exc:
        return _raise(exc)
    raise AssertionError(
        f"{where}: a span failed the array check but not the reference check"
    )  # pragma: no cover


def _reference_chunk(
    path: Path | str, name: str, lines: list[int], values: list[Any], fields: Fields, side: str
) -> CharChunk:
    """Plain JSON values checked record by record, as the reference reader does."""
    rows: list[tuple[str, str | None, tuple[Span, ...]]] = []
    error: Callable[[], Exception] | None = None
    for n, obj in zip(lines, values, strict=True):
        try:
            rows.append(_reference_record(path, name, n, obj, fields, side))
        except InvalidInputError as exc:
            error = _raise(exc)
            break
    texts, ids, spans = (list(c) for c in zip(*rows, strict=True)) if rows else ([], [], [])
    # Checked spans lie inside their text, so their offsets fit in 64 bits.
    return CharChunk.from_spans(path, lines[: len(texts)], texts, ids, spans, error)


def _raise(exc: Exception) -> Callable[[], Exception]:
    return lambda: exc


def refuse_unread_fields(obj: dict[str, Any], where: str, fields: Fields) -> None:
    """Refuse a record holding spans under a key ``fields`` does not read, saying where this
    format reads them (or which format the record looks like)."""
    shape = (
        f"the {fields.format} reader reads spans under {fields.spans!r}, as objects with "
        f"{fields.start!r}, {fields.end!r} and {fields.label!r}"
    )
    hint = shape_hint(obj, fields.format)[2:] or shape
    refuse_unread_spans(obj, (fields.text, fields.spans, fields.id), where, fields.format, hint)


def _reference_record(
    path: Path | str, name: str, n: int, obj: object, fields: Fields, side: str
) -> tuple[str, str | None, tuple[Span, ...]]:
    """The reference reader's checks of one decoded record: ``(text, id, spans)``."""
    where = f"{path} line {n}"
    if not isinstance(obj, dict):
        raise InvalidInputError(
            f"{where}: expected a JSON object, found {type(obj).__name__}"
            + shape_hint(obj, fields.format)
        )
    refuse_unread_fields(obj, where, fields)
    text = obj.get(fields.text)
    if not isinstance(text, str):
        problem = "is missing" if text is None else f"is {type(text).__name__}, not a string"
        raise InvalidInputError(
            f"{where}: field {fields.text!r} {problem}" + shape_hint(obj, fields.format)
        )
    doc_id = record_id(obj.get(fields.id), fields.id, where)
    raw_spans = obj.get(fields.spans)
    if raw_spans is None:
        raw_spans = []
    if not isinstance(raw_spans, list):
        raise InvalidInputError(
            f"{where}: field {fields.spans!r} must be a list of spans, "
            f"not {type(raw_spans).__name__}"
        )
    spans = [_span(raw, i, fields, where) for i, raw in enumerate(raw_spans)]
    return (
        text,
        doc_id,
        checked_spans(
            spans,
            length=len(text),
            where=where,
            doc_id=doc_id if doc_id is not None else f"{name}:{n}",
            side=side,
        ),
    )


def _span(raw: object, i: int, fields: Fields, where: str) -> Span:
    if not isinstance(raw, dict):
        raise InvalidInputError(
            f"{where}: span #{i} must be an object with "
            f"{fields.start!r}, {fields.end!r} and {fields.label!r}, "
            f"not {raw!r}"
        )
    for key in (fields.start, fields.end, fields.label):
        if key not in raw:
            raise InvalidInputError(f"{where}: span #{i} has no {key!r}: {raw!r}")
    score = raw.get("score")
    score = span_score(raw.get("confidence") if score is None else score, f"span #{i}", where)
    return Span(raw[fields.start], raw[fields.end], raw[fields.label], score)
