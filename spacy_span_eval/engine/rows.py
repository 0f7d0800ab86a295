"""Documents from plain rows: the shape of a dataframe row, a JSON line, a bag element.

One row per document: ``id``, ``gold``, ``pred`` and one of ``text`` (char unit), ``tokens``
(token unit) or ``length``. Used where documents are built far from any reader: on Dask
workers, or in local workers given raw rows.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInputError
from .spans import Document, Span

#: Row fields understood by :func:`document_from_row`.
ROW_FIELDS: tuple[str, ...] = ("id", "text", "tokens", "length", "gold", "pred")


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _span(raw: object) -> Span | tuple[int, int, object]:
    if isinstance(raw, Span):
        return raw
    score: Any = None
    if isinstance(raw, Mapping):
        start, end, label, score = raw["start"], raw["end"], raw["label"], raw.get("score")
    elif isinstance(raw, tuple | list) and len(raw) == 4:
        start, end, label, score = raw
    else:
        # any other row value is taken as (start, end, label); a wrong shape raises here
        start, end, label = raw  # type: ignore[misc]
    # operator.index takes numpy integers (parquet, arrow) but refuses floats: 3.7 is an
    # error for validation to report, never a silent int(3.7) == 3.
    try:
        start, end = operator.index(start), operator.index(end)
    except TypeError:
        pass  # validate_spans names the document and the span
    if _missing(score):
        return start, end, label
    return Span(start, end, label, float(score))


def document_from_row(row: Mapping[str, Any], *, unit: str) -> Document:
    """A document from a row: ``id``, ``gold``, ``pred`` and one of ``text`` (char unit),
    ``tokens`` (token unit) or ``length``.

    ``gold``/``pred`` are sequences of spans, each ``(start, end, label)`` or a mapping with
    those keys (what parquet/arrow give for a list of structs). A missing span list is an
    error: write an empty list for "no spans", so a failed join is not scored as silence.
    """
    # Each field, None where it is missing (None or NaN, as a data frame leaves it).
    given: dict[str, Any] = {k: None if _missing(v := row.get(k)) else v for k in ROW_FIELDS}
    doc_id = given["id"]
    if doc_id is None:
        raise InvalidInputError(f"row without an id: {dict(row)!r}")
    # A row's values are unchecked here: Document.create validates ids, labels and the unit.
    sides: dict[str, list[Any]] = {}
    for side in ("gold", "pred"):
        spans = given[side]
        if spans is None:
            raise InvalidInputError(
                f"document {str(doc_id)!r}: {side!r} is missing (give an empty list for no spans)"
            )
        if isinstance(spans, str | bytes):
            # Dask's "dataframe.convert-string" turns object columns (lists of tuples) into
            # their repr; parsing that back would be a guess.
            raise InvalidInputError(
                f"document {str(doc_id)!r}: {side!r} is a string, not a list of spans (Dask "
                "converts object columns to strings: use an arrow list<struct> column, or "
                "dask.config.set({'dataframe.convert-string': False}) when building the frame)"
            )
        sides[side] = [_span(s) for s in spans]
    unit_name: Any = unit
    return Document.create(
        id=doc_id,
        gold=sides["gold"],
        pred=sides["pred"],
        unit=unit_name,
        text=given["text"],
        tokens=None if given["tokens"] is None else list(given["tokens"]),
        length=None if given["length"] is None else operator.index(given["length"]),
    )


def as_document(item: Document | Mapping[str, Any], unit: str) -> Document:
    if isinstance(item, Document):
        return item
    if isinstance(item, Mapping):
        return document_from_row(item, unit=unit)
    raise TypeError(f"expected a Document or a row mapping, not {type(item).__name__}")
