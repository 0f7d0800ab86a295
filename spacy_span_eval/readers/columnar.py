"""File pairs read straight into :class:`~spacy_span_eval.engine.batching.SpanBatch` columns.

The generic road is records -> :func:`.pairing.pair_records` -> ``Document`` objects ->
columns. For the formats where that is most of the run time, a column family builds the
columns directly, with the same documents, spans, counts and errors:

* ``"conll"``, two CoNLL files: :func:`.conll_columns.conll_pair_batches` (no object per
  token or span);
* ``"chars"``, two character-offset JSON files (JSONL / presidio, either way round):
  :func:`.char_columns.char_pair_batches` (imported when used: it brings the JSON decoder).

A :class:`ColumnPair` is such a pair and how to read it: whole (:meth:`ColumnPair.read`) or
in byte ranges that hold the same documents on both sides (:meth:`ColumnPair.plan`, then
``read(parts)``), which is how worker processes read a pair in parallel. It pickles.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.batching import SpanBatch
from .align import SideInfo
from .base import check_readable
from .conll_columns import conll_pair_batches
from .formats import InputFormat
from .options import ReadingOptions

if TYPE_CHECKING:  # (a parallel run's planner loads the ranges: see ColumnPair.plan)
    from .ranges import RangePair

__all__ = ["ColumnPair", "column_pair"]

#: The units each column family builds.
_UNITS = {"conll": ("token", "char"), "chars": ("char",)}


@dataclass(frozen=True)
class ColumnPair:
    """A gold and a predictions file of one column family, and how to read each side."""

    family: str
    gold: str
    pred: str
    gold_format: str
    pred_format: str
    unit: str
    gold_options: ReadingOptions
    pred_options: ReadingOptions
    align: str = "text"

    def sides(self) -> dict[str, SideInfo]:
        """Fresh per-side information, to be filled in as the batches are read."""
        return {
            "gold": SideInfo(self.gold, self.gold_format),
            "predicted": SideInfo(self.pred, self.pred_format),
        }

    def read(
        self, parts: RangePair | None = None, info: dict[str, SideInfo] | None = None
    ) -> tuple[Iterator[SpanBatch], dict[str, SideInfo]]:
        """The batches of the pair (or of ``parts`` of it) and the per-side information they
        fill in as they are read (``info``, else fresh). Missing files raise at once, gold
        first."""
        for path in (self.gold, self.pred):
            check_readable(path)
        info = info if info is not None else self.sides()
        if self.family == "conll":
            g, p = self.gold_options, self.pred_options
            batches = conll_pair_batches(
                self.gold,
                self.pred,
                scheme=g.scheme,
                repair=g.repair,
                gold_tag_column=g.tag_column,
                pred_tag_column=p.tag_column,
                delimiter=g.delimiter,
                comment=g.comment,
                unit=self.unit,
                gold_info=info["gold"],
                pred_info=info["predicted"],
                parts=parts,
                align=self.align,
            )
        else:
            # (not at the top: a CoNLL run does without the JSON decoder it brings)
            from .char_columns import CHAR_FIELDS, char_pair_batches

            batches = char_pair_batches(
                self.gold,
                self.pred,
                gold_fields=CHAR_FIELDS[self.gold_format],
                pred_fields=CHAR_FIELDS[self.pred_format],
                gold_side=self.gold_options.side,
                pred_side=self.pred_options.side,
                gold_info=info["gold"],
                pred_info=info["predicted"],
                parts=parts,
            )
        return batches, info

    def size(self) -> int:
        """Bytes of the gold file (what the parts are cut by)."""
        return os.path.getsize(self.gold)

    def plan(self, part_bytes: int, taper: int = 0) -> Iterator[RangePair] | None:
        """How to read the pair in ranges that can be read apart (:mod:`.ranges`), or
        ``None`` where it is read in one piece: a JSON array (its element boundaries need a
        scan of every string from the start). Records that pair by id are cut as if by
        position, with ``same_ids`` set: a range's reader then checks that its pairs have
        equal ids, and the caller that no id repeats across ranges (records in the same order
        in both files; see ``docs/parallel.md``). CoNLL pairs are cut by counting sentences
        (``taper``: shorter ranges towards the end)."""
        # (a parallel run's planner: a plain run does not load it)
        from .ranges import plan_ranges

        if self.family == "conll":
            return plan_ranges(
                self.gold, self.pred, rule="paragraph", part_bytes=part_bytes, taper=taper
            )
        from .char_columns import CHAR_FIELDS
        from .detect import first_value
        from .jsonio import is_json_array

        try:
            if is_json_array(self.gold) or is_json_array(self.pred):
                return None
            gold_first, pred_first = first_value(self.gold), first_value(self.pred)
        except (OSError, ValueError, RecursionError):
            return None  # the reading road names the problem
        if not isinstance(gold_first, dict) or not isinstance(pred_first, dict):
            return None  # the reading road names the problem
        by_id = (
            gold_first.get(CHAR_FIELDS[self.gold_format].id) is not None
            and pred_first.get(CHAR_FIELDS[self.pred_format].id) is not None
        )
        plan = plan_ranges(self.gold, self.pred, rule="line", part_bytes=part_bytes)
        return (replace(part, same_ids=True) for part in plan) if by_id else plan


def column_pair(
    gold: Path | str,
    pred: Path | str,
    *,
    gold_format: InputFormat,
    pred_format: InputFormat,
    unit: str,
    reading: ReadingOptions,
) -> ColumnPair | None:
    """The pair as a :class:`ColumnPair`, or ``None`` where no column family reads it: the
    formats differ in family, the unit is not one the family builds, or tokens are paired by
    position in a family that has no tokens."""
    family = gold_format.columns
    if family is None or family != pred_format.columns or unit not in _UNITS.get(family, ()):
        return None
    if reading.align == "chars" or (reading.align != "text" and family != "conll"):
        return None  # (tokens by position: CoNLL only; characters: the generic road aligns)
    return ColumnPair(
        family,
        str(gold),
        str(pred),
        gold_format.name,
        pred_format.name,
        unit,
        reading.for_side("gold"),
        reading.for_side("predicted"),
        reading.align,
    )
