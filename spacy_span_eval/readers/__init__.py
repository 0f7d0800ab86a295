"""Readers: files (and trained pipelines) to streams of records, and records to documents.

Formats are chosen by name from :data:`READERS`; :func:`infer_format` picks one from the file
name when the user gives none. :class:`ReadingOptions` says how to read a pair of files and
gives each side its :class:`ReadOptions`. Every reader yields one :class:`Record` per document
without loading the whole file (a DocBin excepted: it is one blob).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .align import ALIGN_MODES, TokenDifferences
from .base import Record, check_readable
from .conll import DELIMITERS, read_conll
from .options import ReadingOptions, ReadOptions
from .pairing import SideInfo, documents, pair_records, to_document, tokens_to_chars

# The other readers are imported when first used (PEP 562): reading CoNLL files needs no
# JSON decoder, and nothing here loads spaCy until a .spacy file or a pipeline is read.
_LAZY = {
    "read_brat": "brat",
    "read_docbin": "docbin",
    "read_doccano": "doccano",
    "read_jsonl": "jsonl",
    "read_labelstudio": "labelstudio",
    "load_pipeline": "model",
    "predict": "model",
    "read_presidio": "presidio",
    "read_prodigy": "prodigy",
    "read_re3d": "re3d",
}

if TYPE_CHECKING:
    from .brat import read_brat
    from .docbin import read_docbin
    from .doccano import read_doccano
    from .jsonl import read_jsonl
    from .labelstudio import read_labelstudio
    from .model import load_pipeline, predict
    from .presidio import read_presidio
    from .prodigy import read_prodigy
    from .re3d import read_re3d


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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


def _lazy(name: str) -> Callable[..., Iterator[Record]]:
    """The reader ``name`` of this package, imported on the first call."""
    def call(*args: Any, **kwargs: Any) -> Iterator[Record]:
        return __getattr__(name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    return call


READERS: dict[str, Callable[[Path, ReadOptions], Iterator[Record]]] = {
    "conll": lambda path, o: read_conll(path, scheme=o.scheme, repair=o.repair,
                                        tag_column=o.tag_column, delimiter=o.delimiter,
                                        comment=o.comment),
    "jsonl": lambda path, o: _lazy("read_jsonl")(path, side=o.side),
    "presidio": lambda path, o: _lazy("read_presidio")(path, side=o.side),
    "spacy": lambda path, o: _lazy("read_docbin")(path, vocab=o.vocab),
    "brat": _lazy("read_brat"),
    "prodigy": _lazy("read_prodigy"),
    "labelstudio": _lazy("read_labelstudio"),
    "doccano": _lazy("read_doccano"),
    "re3d": _lazy("read_re3d"),
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
        from .detect import folder_format

        return folder_format(path)
    suffix = path.suffix.lower()
    if suffix in (".json", ".jsonl", ".ndjson"):
        from .detect import record_format

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
