"""Which format a file or folder is in: :func:`sniff` (one call, a format's name), for
:func:`input_format` when ``--input-format`` is not given.

- A folder: brat standoff when it holds ``.ann`` files, re3d's layout when it (or its
  sub-folders) hold ``documents.json`` and ``entities.json``.
- A ``.json``/``.jsonl``/``.ndjson`` file: its first record decides, read with the standard
  library from the head of the file. ``full_text``: presidio; ``data`` with ``annotations``
  or ``predictions``: Label Studio; ``answer``, ``_input_hash``/``_task_hash`` or spans with
  ``token_start``: Prodigy; ``label`` as ``[[start, end, label], ...]`` or ``entities`` with
  ``start_offset``: doccano; ``entities`` as label -> strings or ``{"text", "label"}``
  without offsets, ``response`` or ``extractions``: predicted strings (:mod:`.strings`);
  otherwise the generic JSON records (``text`` and ``spans``).
- Any other file: the format whose registered suffix it has (``.spacy``: a DocBin), else
  CoNLL (``.conll``, ``.txt``, no extension).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError
from .formats import FORMATS, InputFormat, format_named
from .json_reference import unique_keys
from .spanlike import span_like

__all__ = [
    "first_line_array",
    "first_value",
    "input_format",
    "min_span_keys",
    "re3d_sources",
    "record_format",
    "shape",
    "sniff",
]

#: The files of one re3d source.
RE3D_FILES = ("documents.json", "entities.json")

#: Bytes of a file read first to find its first record (doubled until it is whole).
HEAD_BYTES = 1 << 16
#: Bytes of a file whose records are looked at when its first record does not decide.
LOOK_BYTES = 1 << 20


def input_format(path: Path | str, name: str | None = None) -> InputFormat:
    """The registered format ``name``, else the one :func:`sniff` finds for ``path``."""
    name = name or sniff(path)
    return format_named(name)


def sniff(path: Path | str) -> str:
    """The name of the format a file's name (and for JSON, its first records) or a folder's
    files say (see the module docstring)."""
    path = Path(path)
    if path.is_dir():
        if (path / "config.cfg").is_file() and (path / "meta.json").is_file():
            raise InvalidInputError(
                f"{path}: this is a spaCy pipeline (config.cfg and meta.json), not annotated "
                f"documents: to score its predictions, use --model {path} and give the gold "
                "file alone (spacy-span-eval evaluate GOLD --model PIPELINE)"
            )
        if next(path.rglob("*.ann"), None) is not None:
            return "brat"
        if re3d_sources(path):
            return "re3d"
        raise InvalidInputError(
            f"{path}: a folder is read as brat standoff (.txt and .ann files) or re3d's "
            "layout (documents.json and entities.json), and this one holds neither"
        )
    suffix = path.suffix.lower()
    if suffix in (".json", ".jsonl", ".ndjson"):
        return record_format(path)
    return next((fmt.name for fmt in FORMATS.values() if suffix in fmt.suffixes), "conll")


def re3d_sources(folder: Path) -> list[Path]:
    """The folders holding re3d's files: ``folder`` itself, else its sub-folders that do."""
    if all((folder / f).is_file() for f in RE3D_FILES):
        return [folder]
    return sorted(
        p for p in folder.iterdir() if p.is_dir() and all((p / f).is_file() for f in RE3D_FILES)
    )


#: Records looked at when the first one holds no spans and no format's own keys.
LOOK_AHEAD = 50


def record_format(path: Path) -> str:
    """The JSON-based format of ``path`` from its first record (``"jsonl"`` when unsure).

    A first record that holds no spans and none of a format's own keys (a document without
    entities: ``"label": []`` or no span key at all) does not decide: the first of the next
    :data:`LOOK_AHEAD` records in the file's first :data:`LOOK_BYTES` that does, decides."""
    try:
        first = first_value(path)
    except (ValueError, OSError, RecursionError):
        return "jsonl"  # the reader will say what is wrong, naming the line
    if _decides(first):
        return shape(first)
    deciding = (r for r in islice(_head_values(path), LOOK_AHEAD) if _decides(r))
    return shape(next(deciding, first))


_SPACE = re.compile(r"[ \t\n\r]*")


def _head_values(path: Path) -> Iterator[object]:
    """The values in the file's first :data:`LOOK_BYTES`, in order, up to the first that is
    cut off or does not decode (the reader will say what is wrong, naming the line)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(LOOK_BYTES)
        text = _decoded_head(head, len(head) < LOOK_BYTES)
        decode = json.JSONDecoder(object_pairs_hook=unique_keys).raw_decode
        body = text.lstrip()
        if not body.startswith("[") or first_line_array(body) is not None:  # JSON Lines
            for line in io.StringIO(text, newline=None):
                if line.strip() and (line.endswith("\n") or len(head) < LOOK_BYTES):
                    yield json.loads(line, object_pairs_hook=unique_keys)
            return
        at, ch = 1, ","
        while ch == ",":
            value, at = decode(body, _SPACE.match(body, at).end())  # type: ignore[union-attr]
            yield value
            at = _SPACE.match(body, at).end()  # type: ignore[union-attr]
            ch, at = body[at : at + 1], at + 1
    except (ValueError, OSError, RecursionError):
        return


def _decides(record: object) -> bool:
    """Whether one record tells its format: it holds spans, predicted strings or a format's
    own keys (any value but an object decides: no format's record, the reader refuses it)."""
    if not isinstance(record, dict):
        return True
    return (
        any(key in record for key in _MARKERS)
        or any(map(span_like, record.values()))
        or _strings(record)
    )


#: Keys only one format's records have.
_MARKERS = ("full_text", "data", "answer", "_input_hash", "_task_hash", "response", "extractions")


def first_value(path: Path | str) -> object:
    """The first element of a file holding a JSON array, else the value on its first
    non-blank line (JSON Lines); ``None`` for an empty array or file. Only the head of the
    file is read and decoded (the readers decode a whole chunk of records at a time: for a
    look at one record). ``ValueError``: neither."""
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


def first_line_array(text: str) -> list[Any] | None:
    """The first line's array when ``text`` (a file's head) is JSON Lines of arrays (spaCy's
    training tuples, ``["text", {"entities": [...]}]`` a line): its first non-blank line is a
    whole JSON array and the next non-blank line starts another, or the file's only line is one
    training tuple (``[str, object]``: no other format's file is an array of a string and an
    object). Else ``None``: any other array on one line, or an array spread over lines, is one
    JSON array."""
    text = text.lstrip(" \t\r\n")
    cut = text.find("\n")
    rest = text[cut:].lstrip(" \t\r\n") if cut >= 0 else ""
    if rest and not rest.startswith("["):
        return None
    try:
        first = json.loads(text[:cut] if cut >= 0 else text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(first, list):
        return None
    if rest or (len(first) == 2 and isinstance(first[0], str) and isinstance(first[1], dict)):
        return first
    return None


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
        "response" in record  # (whatever it holds: the reader names a value it cannot read)
        or "extractions" in record
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
