"""doccano's JSONL export for sequence labelling.

``{"id": 1, "text": "...", "label": [[start, end, "LABEL"], ...]}`` (character offsets), the
same lists under ``"entities"``, or the export with relations: ``"entities":
[{"id": 3, "start_offset": 0, "end_offset": 5, "label": "PER"}, ...]`` and ``"relations"``,
which are counted and left out. ``id`` pairs gold and predictions. Spans under any other key
are refused, never read as nothing, and so is a record with both ``label`` and ``entities``.

doccano downloads the export as a zip: one ``USER.jsonl`` per annotator, or ``all.jsonl``. A
zip is read member by member: ``--annotator USER`` reads that user's member (the others
counted); without it a zip of several members is refused, naming the users.
"""

from __future__ import annotations

import os
import zipfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from tempfile import TemporaryDirectory
from typing import Any, cast

from ..engine.spans import Span
from ..errors import InvalidInputError
from .base import Record, json_record, note, numbered, offset, record_id
from .jsonio import iter_json_values, plain_decoder
from .options import ReadingOptions
from .unread_spans import json_object, refuse_unread_spans, text_field

__all__ = ["READ_KEYS", "annotators", "read_doccano", "span_key", "span_list", "triple"]

#: The keys a doccano record is read from.
READ_KEYS = ("text", "data", "id", "label", "entities", "relations")
_OFFSETS = ("start_offset", "end_offset")


def read_doccano(
    path: Path | str, options: ReadingOptions, notes: Counter[str]
) -> Iterator[Record]:
    """One char-unit record per doccano line (of the chosen member, for a zip)."""
    if not zipfile.is_zipfile(path):
        if options.annotator is not None:
            raise InvalidInputError(
                f"{path}: a doccano JSONL file holds one user's spans: no annotator to choose "
                f"(--annotator {options.annotator!r}; a doccano zip can choose one)"
            )
        yield from _read_lines(path, options, notes)
        return
    with zipfile.ZipFile(path) as zf, TemporaryDirectory() as tmp:
        members = _members(zf)
        users, wanted = ", ".join(members), options.annotator
        if wanted is None and len(members) > 1:
            raise InvalidInputError(
                f"{path}: the annotations of {len(members)} users ({users}); choose one with "
                "--annotator NAME"
            )
        member = members.get(wanted) if wanted is not None else next(iter(members.values()), None)
        if member is None:
            raise InvalidInputError(
                f"{path}: no member for annotator {wanted!r} (users: {users or 'none'})"
            )
        note(notes, "zip members of other users not read", len(members) - 1)
        extracted = _Member(zf.extract(member, tmp), f"{path}:{member.filename}")
        yield from _read_lines(cast(Path, extracted), options, notes)


def _members(zf: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    """A zip's files by user (the file's stem)."""
    return {PurePosixPath(m.filename).stem: m for m in zf.infolist() if not m.is_dir()}


def annotators(path: Path | str) -> list[str]:
    """The users of a doccano zip (none for a JSONL file)."""
    if not zipfile.is_zipfile(path):
        return []
    with zipfile.ZipFile(path) as zf:
        return list(_members(zf))


class _Member(os.PathLike[str]):
    """A zip member extracted to a file, named in messages as ``ARCHIVE:MEMBER`` (the readers
    open it as a path and name it as a string)."""

    def __init__(self, file: str, shown: str) -> None:
        self.file, self.shown = file, shown

    def __fspath__(self) -> str:
        return self.file

    def __str__(self) -> str:
        return self.shown


def _read_lines(path: Path | str, options: ReadingOptions, notes: Counter[str]) -> Iterator[Record]:
    for n, value, where in numbered(iter_json_values(path, plain_decoder()), path):
        obj = json_object(value, where, "doccano")
        refuse_unread_spans(obj, READ_KEYS, where, "doccano")
        text = text_field(obj, where, "doccano", obj.get("text", obj.get("data")))
        doc_id = record_id(obj.get("id"), "id", where)
        key = span_key(obj, ("label", "entities"), where, "doccano")
        spans = [_span(e, i, key, where) for i, e in enumerate(span_list(obj, key, where))]
        relations = obj.get("relations")
        if isinstance(relations, list) and relations:
            note(notes, "relations ignored", len(relations))
        yield json_record(path, n, where, doc_id, text, spans, options.side)


def span_key(record: dict[str, Any], keys: tuple[str, str], where: str, fmt: str) -> str:
    """The one of ``keys`` that ``record`` gives (the first when neither); a record giving
    both is refused: read from one, the other's spans would be lost."""
    given = [k for k in keys if k in record]
    if len(given) > 1:
        raise InvalidInputError(
            f"{where}: the record has both {keys[0]!r} and {keys[1]!r}; a {fmt} record keeps "
            "its spans under one of them"
        )
    return given[0] if given else keys[0]


def span_list(record: dict[str, Any], key: str, where: str, wrong: str = "") -> list[Any]:
    """The list of spans under ``key`` (none when absent or empty); ``wrong``: the message
    when it is no list."""
    raw = record.get(key) or []
    if not isinstance(raw, list):
        raise InvalidInputError(f"{where}: {wrong or f'field {key!r} must be a list of spans'}")
    return raw


def _span(raw: object, i: int, key: str, where: str) -> Span:
    if isinstance(raw, list):
        return triple(raw, f"{key} #{i}", where)
    if not isinstance(raw, dict) or not isinstance(raw.get("label"), str):
        raise InvalidInputError(
            f'{where}: {key} #{i} must be [start, end, "LABEL"] or an object with '
            f"'start_offset', 'end_offset' and 'label', not {raw!r}"
        )
    start, end = ("start", "end") if "start_offset" not in raw and "start" in raw else _OFFSETS
    return Span(
        offset(raw.get(start), f"{key} #{i} {start}", where),
        offset(raw.get(end), f"{key} #{i} {end}", where),
        raw["label"],
    )


def triple(raw: object, what: str, where: str) -> Span:
    """A ``[start, end, "LABEL"]`` list as a span (doccano, spaCy's training tuples)."""
    if not isinstance(raw, list) or len(raw) != 3 or not isinstance(raw[2], str):
        raise InvalidInputError(f'{where}: {what} must be [start, end, "LABEL"], not {raw!r}')
    return Span(
        offset(raw[0], f"{what} start", where), offset(raw[1], f"{what} end", where), raw[2]
    )
