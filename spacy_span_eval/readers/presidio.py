"""Presidio-style records: ``full_text`` and ``spans`` of ``entity_type`` with
``start_position`` / ``end_position`` (presidio-research's synthetic data sets use this).

Only the layout differs from :mod:`.jsonl`; an optional ``id`` pairs documents by id.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .base import Record
from .jsonl import Fields, read_char_records

PRESIDIO_FIELDS = Fields(
    text="full_text",
    spans="spans",
    start="start_position",
    end="end_position",
    label="entity_type",
    id="id",
    format="presidio",
)


def read_presidio(path: Path | str, *, side: str = "gold") -> Iterator[Record]:
    """Yield one char-unit record per presidio-style JSON record."""
    return read_char_records(path, PRESIDIO_FIELDS, side=side)
