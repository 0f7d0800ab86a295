"""Each document's ledgers as a file (``evaluate --per-document FILE``), so documents can be
sorted by their errors: JSON Lines or CSV, chosen by the file's suffix.

- **JSONL** (``.jsonl``, ``.ndjson``): one object per document and threshold, in the order the
  documents were read: ``document``, ``threshold``, the ledger (``num_annotated``,
  ``num_predicted``, ``tp``, ``fn``, ``credited``, ``fp``), ``errors`` (``fn + fp``),
  ``precision``, ``recall``, ``f`` (``null`` when undefined) and ``per_label``: the same per
  label the document has a span of.
- **CSV** (``.csv``): the same, flat: the columns of
  :data:`~spacy_span_eval.engine.tidy.DOCUMENT_COLUMNS`, one ``row=document`` line per
  document and threshold followed by its ``row=label`` lines; an undefined ratio is an empty
  cell (pandas reads it as NaN). A document id or label that a spreadsheet would run as a
  formula (it begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is written
  after a single quote, and so is one that begins with a quote: taking one leading quote off
  every such text cell gives the names back (numbers are never quoted).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from ..engine.tidy import DOCUMENT_COLUMNS
from ..errors import InvalidInputError

__all__ = [
    "PER_DOCUMENT_SUFFIXES",
    "per_document_chunks",
    "per_document_format",
]

PER_DOCUMENT_SUFFIXES: dict[str, str] = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}


def per_document_format(path: Path | str) -> str:
    """``"jsonl"`` or ``"csv"``, from the file's suffix; any other suffix is an error."""
    suffix = Path(path).suffix.lower()
    if suffix not in PER_DOCUMENT_SUFFIXES:
        raise InvalidInputError(
            f"{path}: --per-document writes JSON Lines (.jsonl, .ndjson) or CSV (.csv), "
            f"chosen by the suffix; {suffix or 'no suffix'} is neither"
        )
    return PER_DOCUMENT_SUFFIXES[suffix]


#: Characters of rows gathered before a chunk goes to the file.
_CHUNK_CHARS = 1 << 20


def per_document_chunks(rows: Iterable[dict[str, Any]], fmt: str) -> Iterator[bytes]:
    """The per-document file (``fmt``: ``csv``, else JSON Lines) of the tidy ``rows``
    (:func:`~spacy_span_eval.engine.tidy.document_rows`) as UTF-8 chunks of whole lines, made
    as they are written: the rows are drawn as the chunks are made, so that writing a million
    documents holds one chunk of lines, never every row."""
    out = io.StringIO()
    write: Callable[[Any], object] = out.write
    records: Iterable[Any] = _jsonl_lines(rows)
    if fmt == "csv":  # (rows written straight into the chunk)
        out.write(",".join(DOCUMENT_COLUMNS) + "\n")
        write, records = partial(_csv_row, out, csv.DictWriter(out, DOCUMENT_COLUMNS)), rows
    for record in records:
        write(record)
        if out.tell() >= _CHUNK_CHARS:
            yield out.getvalue().encode("utf-8")
            out.seek(0)
            out.truncate()
    if out.tell():
        yield out.getvalue().encode("utf-8")


#: How a cell a spreadsheet runs as a formula begins (OWASP's CSV injection list), and the
#: quote that guards it (guarded too, so that the guard can be taken off).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "'")


def _csv_row(out: io.StringIO, writer: csv.DictWriter[str], row: dict[str, Any]) -> None:
    """Write ``row`` with its text cells (document id, label) quoted where they would start
    a formula, ended by ``\\n``. (The writer ends lines with ``\\r\\n``, the last two
    characters written, because it quotes a cell only for the characters of its line ending:
    a carriage return inside a name must be quoted too.)"""
    for key in ("document", "label"):
        cell = row[key]
        if isinstance(cell, str) and cell.startswith(_FORMULA_STARTS):
            row[key] = "'" + cell
    writer.writerow(row)
    out.seek(out.tell() - 2)
    out.write("\n")
    out.truncate()


def _jsonl_lines(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    current: dict[str, Any] | None = None
    for row in rows:
        body = {k: v for k, v in row.items() if k not in ("row", "label")}
        if row["row"] == "document":
            if current is not None:
                yield json.dumps(current, ensure_ascii=False) + "\n"
            current = {**body, "per_label": {}}
        else:
            assert current is not None
            current["per_label"][row["label"]] = {
                k: v for k, v in body.items() if k not in ("document", "threshold")
            }
    if current is not None:
        yield json.dumps(current, ensure_ascii=False) + "\n"
