"""re3d's layout: a folder holding ``documents.json`` and ``entities.json``, MongoDB exports
(one JSON object a line), as github.com/dstl/re3d ships each of its sources.

``documents.json``: ``_id``, ``text`` (and metadata); ``entities.json``: ``documentId``,
``begin``, ``end``, ``type`` (character offsets). Entities overlap and nest: a span-group
corpus. The folder may also be the corpus's root: then every sub-folder with both files is
read, in sorted order. ``relations.json`` is counted and left out. Documents pair by ``_id``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

from ..engine.spans import Span
from ..errors import InvalidInputError
from .base import Record, char_record, empty_input, note, offset, record_id
from .detect import re3d_sources
from .jsonio import field_value, iter_json_values
from .options import ReadingOptions

__all__ = ["re3d_fields", "read_re3d"]


def read_re3d(path: Path | str, options: ReadingOptions, notes: Counter[str]) -> Iterator[Record]:
    """One char-unit record per document of one re3d source (or of every source)."""
    folder = Path(path)
    if not folder.is_dir():
        raise InvalidInputError(
            f"{path}: re3d input is a folder with documents.json and "
            "entities.json (or the corpus root holding such folders)"
        )
    sources = re3d_sources(folder)
    if not sources:
        raise empty_input(path, "documents.json and entities.json")
    for source in sources:
        entities: dict[str, list[Span]] = defaultdict(list)
        for n, ent in iter_json_values(source / "entities.json"):
            where = f"{source / 'entities.json'} line {n}"
            if not isinstance(ent, dict) or not isinstance(ent.get("type"), str):
                raise InvalidInputError(
                    f"{where}: an entity needs 'documentId', 'begin', 'end' and 'type'"
                )
            owner = record_id(ent.get("documentId"), "documentId", where)
            entities[str(owner)].append(
                Span(
                    offset(ent.get("begin"), "begin", where),
                    offset(ent.get("end"), "end", where),
                    ent["type"],
                )
            )
        relations = source / "relations.json"
        if relations.is_file():
            note(notes, "relations ignored", sum(1 for _ in iter_json_values(relations)))
        for n, doc in iter_json_values(source / "documents.json"):
            where = f"{source / 'documents.json'} line {n}"
            if not isinstance(doc, dict) or not isinstance(doc.get("text"), str):
                raise InvalidInputError(f"{where}: a document needs '_id' and 'text'")
            doc_id = record_id(doc.get("_id"), "_id", where)
            if doc_id is None:
                raise InvalidInputError(f"{where}: a document needs '_id'")
            yield char_record(
                where, doc_id, doc_id, doc["text"], entities.pop(doc_id, []), options.side
            )
        if entities:
            orphan = next(iter(entities))
            raise InvalidInputError(
                f"{source / 'entities.json'}: entities of document "
                f"{orphan!r}, which documents.json does not have"
            )


def re3d_fields(path: Path, field: str, options: ReadingOptions) -> Iterator[tuple[str, object]]:
    """Each document's ``folder`` (its source's folder under ``path``, ``.`` for ``path``
    itself), or a field of its ``documents.json`` record, by its ``_id``."""
    for source in re3d_sources(path):
        folder = source.relative_to(path).as_posix()
        for n, doc in iter_json_values(source / "documents.json"):
            value = folder if field == "folder" else field_value(doc, field)
            yield str(record_id(field_value(doc, "_id"), "_id", f"{source} line {n}")), value
