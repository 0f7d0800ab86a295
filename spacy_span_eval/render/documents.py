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
  cell (pandas reads it as NaN).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from ..engine.result import EvaluationResult
from ..engine.tidy import DOCUMENT_COLUMNS
from ..errors import InvalidInputError

__all__ = ["PER_DOCUMENT_SUFFIXES", "per_document_format", "render_per_document"]

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


def render_per_document(result: EvaluationResult, fmt: str) -> str:
    """The per-document file's text (the result must hold per-document counts)."""
    rows = result.document_rows()
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(DOCUMENT_COLUMNS), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue()
    if fmt != "jsonl":
        raise ValueError(f"unknown per-document format {fmt!r}")
    lines: list[str] = []
    current: dict | None = None
    for row in rows:
        body = {k: v for k, v in row.items() if k not in ("row", "label")}
        if row["row"] == "document":
            if current is not None:
                lines.append(json.dumps(current, ensure_ascii=False))
            current = {**body, "per_label": {}}
        else:
            assert current is not None
            current["per_label"][row["label"]] = {
                k: v for k, v in body.items() if k not in ("document", "threshold")
            }
    if current is not None:
        lines.append(json.dumps(current, ensure_ascii=False))
    return "\n".join(lines) + "\n" if lines else ""
