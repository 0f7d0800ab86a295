"""File pairs read straight into :class:`~spacy_span_eval.batching.SpanBatch` columns.

The reference route is records -> :func:`.pairing.pair_records` -> ``Document`` objects ->
columns. For the formats where that is most of the run time, this module builds the columns
directly, with the same documents, spans, counts and errors:

* two CoNLL files: :func:`.conll_columns.conll_pair_batches` (no object per token or span);
* two character-offset JSON files (JSONL / presidio, either way round):
  :func:`.char_columns.char_pair_batches` (imported when used: it brings the JSON decoder).

:func:`read_columns` picks the route for a command (``None``: the reference route applies);
the evaluate job scores the batches.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from ..engine.batching import SpanBatch
from .base import check_readable
from .conll_columns import conll_pair_batches
from .pairing import SideInfo
from .ranges import RangePair, plan_ranges

__all__ = ["CHAR_FORMATS", "column_ranges", "read_columns"]

#: The character-offset JSON formats read by :mod:`.char_columns`.
CHAR_FORMATS = ("jsonl", "presidio")


def read_columns(gold: Path | str, pred: Path | str, *, gold_format: str, pred_format: str,
                 unit: str, gold_options, pred_options, parts: RangePair | None = None
                 ) -> tuple[Iterator[SpanBatch], dict[str, SideInfo]] | None:
    """Batches and per-side :class:`SideInfo` for a file pair, or ``None`` when the pair is
    not one this module reads (the caller then takes the reference route).

    ``*_options`` are :class:`~spacy_span_eval.readers.ReadOptions`. Missing files raise
    as :func:`~spacy_span_eval.readers.read` does, gold first. ``parts``: read only those
    ranges of the files (one of :func:`column_ranges`'s pairs).
    """
    route = _route(gold_format, pred_format, unit, gold_options, pred_options)
    if route is None:
        return None
    for path in (gold, pred):
        check_readable(path)
    info = {"gold": SideInfo(str(gold), gold_format), "predicted": SideInfo(str(pred),
                                                                            pred_format)}
    if route == "conll":
        batches = conll_pair_batches(
            gold, pred, scheme=gold_options.scheme, repair=gold_options.repair,
            gold_tag_column=gold_options.tag_column, pred_tag_column=pred_options.tag_column,
            delimiter=gold_options.delimiter, comment=gold_options.comment, unit=unit,
            gold_info=info["gold"], pred_info=info["predicted"], parts=parts)
    else:
        from .char_columns import CHAR_FIELDS, char_pair_batches

        batches = char_pair_batches(
            gold, pred, gold_fields=CHAR_FIELDS[gold_format],
            pred_fields=CHAR_FIELDS[pred_format], gold_side=gold_options.side,
            pred_side=pred_options.side, gold_info=info["gold"], pred_info=info["predicted"],
            parts=parts)
    return batches, info


def column_ranges(gold: Path | str, pred: Path | str, *, gold_format: str, pred_format: str,
                  unit: str, gold_options, pred_options, part_bytes: int, taper: int = 0
                  ) -> Iterator[RangePair] | None:
    """How to read the pair in ranges that can be read apart (:mod:`.ranges`), or ``None``
    where it is read in one piece: pairs :func:`read_columns` does not read, and a JSON
    array (its element boundaries need a scan of every string from the start). Records that
    pair by id are cut as if by position, with ``same_ids`` set: a range's reader then
    checks that its pairs have equal ids, and the caller that no id repeats across ranges
    (records in the same order in both files; see ``docs/parallel.md``). CoNLL pairs are cut
    where sentences match (:mod:`.matched_ranges`; ``taper``: shorter ranges towards the
    end), else by counting (:mod:`.ranges`)."""
    route = _route(gold_format, pred_format, unit, gold_options, pred_options)
    if route is None:
        return None
    if route == "conll":
        from .matched_ranges import matched_ranges

        matched = matched_ranges(gold, pred, part_bytes=part_bytes, taper=taper)
        if matched is not None:
            return matched
        return plan_ranges(gold, pred, rule="paragraph", part_bytes=part_bytes, taper=taper)
    from .char_columns import CHAR_FIELDS, first_record
    from .jsonio import is_json_array

    try:
        if is_json_array(gold) or is_json_array(pred):
            return None
        first = [first_record(path) for path in (gold, pred)]
    except OSError:
        return None  # the reading route names the problem
    if any(record is None for record in first):
        return None  # the reading route names the problem
    fields = (CHAR_FIELDS[gold_format], CHAR_FIELDS[pred_format])
    by_id = all(record.get(f.id) is not None for record, f in zip(first, fields, strict=True))
    plan = plan_ranges(gold, pred, rule="line", part_bytes=part_bytes)
    return (replace(part, same_ids=True) for part in plan) if by_id else plan


def _route(gold_format: str, pred_format: str, unit: str, gold_options, pred_options
           ) -> str | None:
    """``"conll"``, ``"chars"``, or ``None`` where this module does not read the pair."""
    if gold_format == pred_format == "conll" and unit in ("token", "char"):
        if (gold_options.scheme != pred_options.scheme
                or gold_options.repair != pred_options.repair
                or gold_options.delimiter != pred_options.delimiter
                or gold_options.comment != pred_options.comment):
            return None
        return "conll"
    if gold_format in CHAR_FORMATS and pred_format in CHAR_FORMATS and unit == "char":
        return "chars"
    return None
