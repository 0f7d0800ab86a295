"""Reading options shared by ``report`` and ``compare``: one place that turns the CLI's input
flags into the readers' per-side options."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..engine.spans import Document
from ..readers import ReadOptions, SideInfo
from .evaluate import read_documents

__all__ = ["InputOptions", "open_documents"]


@dataclass(frozen=True)
class InputOptions:
    """How to read the files (each format uses the options that concern it)."""

    input_format: str | None = None
    unit: str | None = None
    scheme: str = "IOB2"
    repair: str = "conlleval"
    tag_column: int = -1
    pred_tag_column: int | None = None
    delimiter: str = "auto"
    source: str = "ents"
    n_process: int = 1
    batch_size: int = 256


def open_documents(gold: Path | str, pred: Path | str | None = None, *,
                   model: str | None = None, options: InputOptions | None = None,
                   progress: bool = False
                   ) -> tuple[Iterator[Document], dict[str, SideInfo], str]:
    """The document stream of gold paired with a predictions file (or ``model`` run on gold),
    the per-side reading info, and the unit (the gold format's own unless set)."""
    o = options or InputOptions()
    pred_column = o.tag_column if o.pred_tag_column is None else o.pred_tag_column
    return read_documents(
        gold, pred, model=model, input_format=o.input_format, unit=o.unit, source=o.source,
        gold_options=ReadOptions(scheme=o.scheme, repair=o.repair, tag_column=o.tag_column,
                                 delimiter=o.delimiter),
        pred_options=ReadOptions(scheme=o.scheme, repair=o.repair, tag_column=pred_column,
                                 delimiter=o.delimiter, side="predicted"),
        n_process=o.n_process, batch_size=o.batch_size, progress=progress)
