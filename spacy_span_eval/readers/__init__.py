"""Readers: files (and trained pipelines) to a stream of batches the engine scores.

The jobs call :func:`open_pair` and get a :class:`PairSource`. Formats are entries of the
registry in :mod:`.formats` (:data:`FORMATS`, :func:`register_format`);
:func:`infer_format` picks one from the file name when the user gives none.
:class:`ReadingOptions` says how to read a pair of files and gives each side its
:class:`ReadOptions`. Every reader yields one :class:`Record` per document without loading
the whole file (a DocBin excepted: it is one blob).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Every name is imported when first used (PEP 562): the CLI's --help reads the format and
# mode names without loading numpy, reading CoNLL files needs no JSON decoder, and nothing
# here loads spaCy until a .spacy file or a pipeline is read. (A new format needs no line
# here: it is reached through the registry.)
_LAZY = {
    "ALIGN_MODES": "align",
    "TokenDifferences": "align",
    "Record": "base",
    "DELIMITERS": "conll",
    "read_conll": "conll",
    "FORMATS": "formats",
    "InputFormat": "formats",
    "format_named": "formats",
    "infer_format": "formats",
    "register_format": "formats",
    "ReadingOptions": "options",
    "ReadOptions": "options",
    "SideInfo": "pairing",
    "documents": "pairing",
    "pair_records": "pairing",
    "to_document": "pairing",
    "tokens_to_chars": "pairing",
    "PairSource": "source",
    "open_pair": "source",
    "read_records": "source",
    "read": "source:read_records",  # the records of one file
    "read_docbin": "docbin",
    "read_jsonl": "jsonl",
    "read_presidio": "presidio",
    "load_pipeline": "model",
    "predict": "model",
}

if TYPE_CHECKING:
    from .align import ALIGN_MODES, TokenDifferences
    from .base import Record
    from .conll import DELIMITERS, read_conll
    from .docbin import read_docbin
    from .formats import FORMATS, InputFormat, format_named, infer_format, register_format
    from .jsonl import read_jsonl
    from .model import load_pipeline, predict
    from .options import ReadingOptions, ReadOptions
    from .pairing import SideInfo, documents, pair_records, to_document, tokens_to_chars
    from .presidio import read_presidio
    from .source import PairSource, open_pair, read_records

    read = read_records


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, _, attribute = _LAZY[name].partition(":")
        value = getattr(import_module(f".{module}", __name__), attribute or name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "ALIGN_MODES",
    "DELIMITERS",
    "FORMATS",
    "InputFormat",
    "PairSource",
    "ReadOptions",
    "ReadingOptions",
    "Record",
    "SideInfo",
    "TokenDifferences",
    "documents",
    "format_named",
    "infer_format",
    "load_pipeline",
    "open_pair",
    "pair_records",
    "predict",
    "read",
    "read_conll",
    "read_docbin",
    "read_jsonl",
    "read_presidio",
    "read_records",
    "register_format",
    "to_document",
    "tokens_to_chars",
]
