"""What the readers hand the jobs: one :class:`PairSource` per gold/predictions pair.

:func:`open_pair` decides how a pair is read, out of sight of the jobs: a pair of one column
family (:mod:`.columnar`) is read straight into batches, and can be read in byte ranges by
worker processes (:attr:`PairSource.parts`); any other pair goes through the generic road —
each file's records (:mod:`.formats`), paired by id or position (:mod:`.pairing`), as
documents, in batches — and so does a trained pipeline run over the gold documents
(:mod:`.model`). ``--align`` and the per-format options are the readers' business here; the
jobs see a stream of :class:`~spacy_span_eval.engine.batching.SpanBatch` and, per side,
what was read and what was left out (:class:`~.align.SideInfo`).

Every input file is stamped (size, modification time, inode) when the pair is opened and
checked once it is read (:meth:`PairSource.check_unchanged`): a file replaced or rewritten
meanwhile is refused, since what was read may be neither version.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.batching import SpanBatch
from ..errors import InvalidInputError
from .align import SideInfo
from .base import Record, Stamp, check_readable, file_stamps, stamp
from .columnar import ColumnPair, column_pair
from .detect import input_format
from .formats import check_choices
from .model import pipeline_pairs
from .options import ReadingOptions
from .pairing import pair_records, record_batches
from .progress import with_progress

__all__ = ["PairSource", "open_pair", "read_records"]


@dataclass
class PairSource:
    """A gold/predictions pair, opened: its batches (read once, as they are consumed), the
    unit its spans are in, and per side what was read and left out (:attr:`info`, filled in
    as the batches are read).

    ``parts``: where the pair can be read in byte ranges by worker processes (a
    :class:`~.columnar.ColumnPair`: ``plan`` and ``read(parts)``). ``pipeline``: the
    predictions come from a pipeline whose own processes (``n_process``) run it, so the
    scoring stays in this process. ``stamps``: each input file's :func:`stamp` when the pair
    was opened. ``values``: per gold field asked for, the gold documents' values by their
    name (read when the pair is opened, before its batches).
    """

    unit: str
    info: dict[str, SideInfo]
    stream: Iterator[SpanBatch]
    parts: ColumnPair | None = None
    pipeline: bool = False
    stamps: dict[str, Stamp | None] = field(default_factory=dict)
    values: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def batches(self) -> Iterator[SpanBatch]:
        """The stream of batches, in document order (one pass), the files checked at its end
        (:meth:`check_unchanged`)."""
        yield from self.stream
        self.check_unchanged()

    def check_unchanged(self) -> None:
        """Refuse the pair if an input file changed since it was opened (it was read in
        part from each version, or by workers from the new one)."""
        for path, before in self.stamps.items():
            if stamp(path) != before:
                raise InvalidInputError(
                    f"{path} changed while it was read; run again when it is stable"
                )

    def inputs(self) -> dict[str, dict[str, object]]:
        """What was read, per side, as the reports show it."""
        return {side: info.to_dict(self.info["gold"]) for side, info in self.info.items()}


def read_records(
    path: Path | str,
    fmt: str | None = None,
    options: ReadingOptions | None = None,
    notes: Counter[str] | None = None,
) -> Iterator[Record]:
    """The records of one file, in format ``fmt`` (inferred from the name when ``None``);
    what the reader leaves out is counted in ``notes``."""
    check_readable(path)
    chosen = input_format(path, fmt)
    options = options or ReadingOptions()
    check_choices(options, {options.side: (path, chosen)})
    return chosen.read(path, options, notes if notes is not None else Counter())


def open_pair(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    reading: ReadingOptions | None = None,
    code: str | None = None,
    gpu_id: int = -1,
    batch_size: int = 256,
    n_process: int = 1,
    progress: bool = False,
    fields: Sequence[str] = (),
) -> PairSource:
    """Open ``gold`` with ``pred`` (a predictions file) or ``model`` (a trained pipeline run
    over the gold documents), read as ``reading`` says, with the gold's ``fields`` (``values``).

    The unit is the gold format's own unless ``reading.unit`` sets one. With ``model``: ``code`` and
    ``gpu_id`` as spaCy's ``--code``/``--gpu-id``, ``batch_size`` and ``n_process`` for ``nlp.pipe``
    (the pipeline's own bar while it runs). ``progress``: a bar on stderr while the batches are
    consumed (:mod:`.progress`). Missing files raise here, gold first.
    """
    if (pred is None) == (model is None):
        given = "both" if pred is not None else "neither"
        raise ValueError(f"give either a predictions file or --model, not {given}")
    reading = reading or ReadingOptions()
    stamps = file_stamps(*(path for path in (gold, pred) if path is not None))
    files = {"gold": (gold, input_format(gold, reading.for_side("gold").input_format))}
    if pred is not None:
        files["predicted"] = (pred, input_format(pred, reading.input_format))
    check_choices(reading, files)
    values = files["gold"][1].slice_values(gold, fields, reading.for_side("gold"))
    unit = reading.unit or files["gold"][1].unit
    pair = None
    if pred is not None and reading.pairs == "both":  # (--pairs gold: the generic road counts)
        formats = {"gold_format": files["gold"][1], "pred_format": files["predicted"][1]}
        pair = column_pair(gold, pred, **formats, unit=unit, reading=reading)
    if pair is not None:
        stream, info = pair.read()
    else:
        info = {side: SideInfo(str(path), fmt.name) for side, (path, fmt) in files.items()}
        records = [
            fmt.read(path, reading.for_side(side), info[side].notes)
            for side, (path, fmt) in files.items()
        ]
        if model is not None:
            info["predicted"] = SideInfo(str(model), "model")
            pairs = pipeline_pairs(
                model, records[0], gold, reading, progress, code, gpu_id, batch_size, n_process
            )
        else:
            notes = (info["gold"].notes, info["predicted"].notes)
            pairs = pair_records(
                *records, gold_name=str(gold), pred_name=str(pred), pairs=reading.pairs, notes=notes
            )
        stream = record_batches(pairs, unit, info, reading, model is None)
    if model is None:
        stream = with_progress(
            stream, desc=f"Scoring {Path(str(pred)).name}", enabled=progress, size=len
        )
    return PairSource(
        unit, info, stream, parts=pair, pipeline=model is not None, stamps=stamps, values=values
    )
