"""Readers: files (and trained pipelines) to streams of records, and records to documents.

Formats are chosen by name from :data:`READERS`; :func:`infer_format` picks one from the file
name when the user gives none. :class:`ReadingOptions` says how to read a pair of files and
gives each side its :class:`ReadOptions`. Every reader yields one :class:`Record` per document
without loading the whole file (a DocBin excepted: it is one blob).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from .align import ALIGN_MODES, TokenDifferences
from .base import Record, check_readable
from .brat import read_brat
from .conll import DELIMITERS, read_conll
from .detect import folder_format, record_format
from .docbin import read_docbin
from .doccano import read_doccano
from .jsonl import read_jsonl
from .labelstudio import read_labelstudio
from .model import load_pipeline, predict
from .options import ReadingOptions, ReadOptions
from .pairing import SideInfo, documents, pair_records, to_document, tokens_to_chars
from .presidio import read_presidio
from .prodigy import read_prodigy
from .re3d import read_re3d

__all__ = [
    "ALIGN_MODES",
    "DELIMITERS",
    "FORMATS",
    "NATIVE_UNIT",
    "READERS",
    "ReadOptions",
    "ReadingOptions",
    "Record",
    "SideInfo",
    "TokenDifferences",
    "documents",
    "infer_format",
    "load_pipeline",
    "pair_records",
    "predict",
    "read",
    "read_conll",
    "read_docbin",
    "read_jsonl",
    "read_presidio",
    "read_brat",
    "read_doccano",
    "read_labelstudio",
    "read_prodigy",
    "read_re3d",
    "to_document",
    "tokens_to_chars",
]


READERS: dict[str, Callable[[Path, ReadOptions], Iterator[Record]]] = {
    "conll": lambda path, o: read_conll(path, scheme=o.scheme, repair=o.repair,
                                        tag_column=o.tag_column, delimiter=o.delimiter,
                                        comment=o.comment),
    "jsonl": lambda path, o: read_jsonl(path, side=o.side),
    "presidio": lambda path, o: read_presidio(path, side=o.side),
    "spacy": lambda path, o: read_docbin(path, vocab=o.vocab),
    "brat": read_brat,
    "prodigy": read_prodigy,
    "labelstudio": read_labelstudio,
    "doccano": read_doccano,
    "re3d": read_re3d,
}
FORMATS: tuple[str, ...] = tuple(READERS)

# Native unit of each format: what --unit defaults to.
NATIVE_UNIT: dict[str, str] = {"conll": "token", "jsonl": "char", "presidio": "char",
                               "spacy": "char", "brat": "char", "prodigy": "char",
                               "labelstudio": "char", "doccano": "char", "re3d": "char"}

_SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".spacy": "spacy"}


def infer_format(path: Path | str) -> str:
    """The format a file name (and for JSON, its first record) suggests.

    A folder is brat standoff or re3d's layout (see :mod:`.detect`); ``.spacy`` is a DocBin;
    ``.json``, ``.jsonl`` and ``.ndjson`` are read by the shape of their first record
    (presidio, Label Studio, Prodigy, doccano, else ``text`` records); anything else —
    ``.conll``, ``.txt``, ``.tsv``, ``.dev``, no extension at all, as CoNLL files often come —
    is CoNLL.
    """
    path = Path(path)
    if path.is_dir():
        return folder_format(path)
    suffix = path.suffix.lower()
    if suffix in (".json", ".jsonl", ".ndjson"):
        return record_format(path)
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix]
    return "conll"


def read(path: Path | str, fmt: str | None = None, options: ReadOptions | None = None
         ) -> Iterator[Record]:
    """Records of ``path`` in format ``fmt`` (inferred from the name when ``None``)."""
    fmt = fmt or infer_format(path)
    if fmt not in READERS:
        raise ValueError(f"unknown input format {fmt!r}; choose one of {', '.join(FORMATS)}")
    check_readable(path)
    return READERS[fmt](Path(path), options or ReadOptions())
