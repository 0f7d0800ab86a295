"""Which format a file or folder is in by its shape, for :func:`.formats.infer_format` when
``--input-format`` is not given.

- A folder: brat standoff when it holds ``.ann`` files, re3d's layout when it (or its
  sub-folders) hold ``documents.json`` and ``entities.json``.
- A ``.json``/``.jsonl``/``.ndjson`` file: its first record decides. ``full_text``: presidio;
  ``data`` with ``annotations`` or ``predictions``: Label Studio; ``answer``,
  ``_input_hash``/``_task_hash`` or spans with ``token_start``: Prodigy; ``label`` as
  ``[[start, end, label], ...]`` or ``entities`` with ``start_offset``: doccano; ``entities``
  as label -> strings or ``{"text", "label"}`` without offsets, ``response`` or
  ``extractions``: predicted strings (:mod:`.strings`); otherwise the
  generic JSON records (``text`` and ``spans``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError
from .spanlike import span_like

__all__ = [
    "first_value",
    "folder_format",
    "min_span_keys",
    "re3d_sources",
    "record_format",
    "shape",
]

#: The files of one re3d source.
RE3D_FILES = ("documents.json", "entities.json")

#: Bytes of a file read first to find its first record (doubled until it is whole).
HEAD_BYTES = 1 << 16


def re3d_sources(folder: Path) -> list[Path]:
    """The folders holding re3d's files: ``folder`` itself, else its sub-folders that do."""
    if all((folder / f).is_file() for f in RE3D_FILES):
        return [folder]
    return sorted(
        p for p in folder.iterdir() if p.is_dir() and all((p / f).is_file() for f in RE3D_FILES)
    )


def folder_format(folder: Path) -> str:
    """``"brat"`` or ``"re3d"`` for a folder; an error naming what was looked for otherwise."""
    if next(folder.rglob("*.ann"), None) is not None:
        return "brat"
    if re3d_sources(folder):
        return "re3d"
    raise InvalidInputError(
        f"{folder}: a folder is read as brat standoff (.txt and .ann files) or re3d's layout "
        "(documents.json and entities.json), and this one holds neither"
    )


#: Records looked at when the first one holds no spans and no format's own keys.
LOOK_AHEAD = 50


def record_format(path: Path) -> str:
    """The JSON-based format of ``path`` from its first record (``"jsonl"`` when unsure).

    A first record that holds no spans and none of a format's own keys (a document without
    entities: ``"label": []`` or no span key at all) does not decide: the first of the next
    :data:`LOOK_AHEAD` records that does, decides."""
    try:
        first = first_value(path)
    except (ValueError, OSError, RecursionError):
        return "jsonl"  # the reader will say what is wrong, naming the line
    if _decides(first):
        return shape(first)
    from .jsonio import iter_json_values  # (here: a CoNLL run loads no JSON reader)

    try:
        for n, (_, record) in enumerate(iter_json_values(path)):
            if n >= LOOK_AHEAD:
                break
            if _decides(record):
                return shape(record)
    except (InvalidInputError, ValueError, OSError, RecursionError):
        pass  # the reader will say what is wrong, naming the line
    return shape(first)


def _decides(record: object) -> bool:
    """Whether one record tells its format: it holds spans, or a format's own keys (any
    value but an object decides: no format's record, the reader refuses it)."""
    if not isinstance(record, dict):
        return True
    return any(key in record for key in _MARKERS) or any(map(span_like, record.values()))


#: Keys only one format's records have.
_MARKERS = ("full_text", "data", "answer", "_input_hash", "_task_hash", "response", "extractions")


def first_value(path: Path | str) -> object:
    """The first element of a file holding a JSON array, else the value on its first
    non-blank line (JSON Lines); ``None`` for an empty array or file. Only the head of the
    file is read and decoded (the readers decode a whole chunk of records at a time: for a
    look at one record). ``ValueError``: neither."""
    from .jsonio import first_line_array  # (here: a CoNLL run loads no JSON reader)

    size = HEAD_BYTES
    with open(path, "rb") as fh:
        while True:
            fh.seek(0)
            head = fh.read(size)
            whole = len(head) < size
            text = _decoded_head(head, whole).lstrip()
            if text.startswith("[") and (lines := first_line_array(text)) is not None:
                return lines
            if text.startswith("["):
                body = text[1:].lstrip()
                if body.startswith("]"):
                    return None
                try:
                    return json.JSONDecoder().raw_decode(body)[0]
                except ValueError:
                    if whole:
                        raise
            else:
                end = text.find("\n")
                if end >= 0 or whole:
                    line = text if end < 0 else text[:end]
                    return json.loads(line) if line.strip() else None
            size *= 2


def _decoded_head(head: bytes, whole: bool) -> str:
    """``head`` as text (a byte-order mark dropped); a character cut at its end is left out
    unless the file ends there (``ValueError`` then, as for any bytes that are not UTF-8)."""
    try:
        return head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if whole or exc.start < len(head) - 3:
            raise
        return head[: exc.start].decode("utf-8-sig")


def shape(record: object) -> str:
    """The format one JSON record looks like."""
    if isinstance(record, list):  # spaCy's training tuple: [text, {"entities": [...]}]
        training = len(record) == 2 and isinstance(record[0], str)
        return "tuples" if training and isinstance(record[1], dict) else "jsonl"
    if not isinstance(record, dict):
        return "jsonl"
    return next((name for name, looks in _SHAPES if looks(record)), "jsonl")


def _string_item(item: object) -> bool:
    """A predicted string without offsets: ``{"text", "label"}``, no ``start``."""
    return isinstance(item, dict) and "text" in item and "label" in item and "start" not in item


def _strings(record: dict[str, Any]) -> bool:
    """Predictions as strings (:mod:`.strings`)."""
    entities = record.get("entities")
    return (
        isinstance(record.get("response"), str)
        or isinstance(record.get("extractions"), list)
        or isinstance(entities, dict)
        or (isinstance(entities, list) and bool(entities) and all(map(_string_item, entities)))
    )


def _labelstudio(record: dict[str, Any]) -> bool:
    return isinstance(record.get("data"), dict) and (
        "annotations" in record or "predictions" in record
    )


def _prodigy(record: dict[str, Any]) -> bool:
    spans = record.get("spans")
    return any(key in record for key in ("answer", "_input_hash", "_task_hash")) or (
        isinstance(spans, list) and any(isinstance(s, dict) and "token_start" in s for s in spans)
    )


def _doccano(record: dict[str, Any]) -> bool:
    if "spans" in record:
        return False
    label, entities = record.get("label"), record.get("entities")
    return (isinstance(label, list) and all(isinstance(x, list) for x in label)) or (
        isinstance(entities, list)
        and any(
            (isinstance(e, dict) and "start_offset" in e) or (isinstance(e, list) and len(e) >= 3)
            for e in entities
        )
    )


def _tuples(record: dict[str, Any]) -> bool:
    spans = record.get("spans")
    return isinstance(spans, list) and bool(spans) and all(isinstance(s, list) for s in spans)


def min_span_keys(record: dict[str, Any]) -> list[str]:
    """The keys of a Label Studio JSON-MIN record that hold its regions: lists of objects
    with ``start``, ``end`` and ``labels`` (the key is the labeling config's name, often
    ``label``)."""
    return [
        key
        for key, value in record.items()
        if isinstance(value, list)
        and value
        and all(
            isinstance(v, dict) and "start" in v and "end" in v and "labels" in v for v in value
        )
    ]


#: Each format's test of one JSON object, in the order they are tried.
_SHAPES: tuple[tuple[str, Callable[[dict[str, Any]], object]], ...] = (
    ("presidio", lambda record: "full_text" in record),
    ("strings", _strings),
    ("labelstudio", _labelstudio),
    ("prodigy", _prodigy),
    ("doccano", _doccano),
    ("tuples", _tuples),
    ("labelstudio-min", min_span_keys),
)
