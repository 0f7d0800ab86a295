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

import os
import stat
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..engine.batching import SpanBatch, document_batches
from ..errors import InvalidInputError
from .align import SideInfo
from .base import Record, check_readable
from .columnar import ColumnPair, column_pair
from .detect import input_format
from .formats import InputFormat, check_choices
from .model import PipelineRun, example_pairs, load_pipeline, predict
from .options import MIN_SHARED, SIDES, ReadingOptions
from .pairing import documents, pair_records
from .progress import with_progress

__all__ = ["BATCH_DOCUMENTS", "PairSource", "open_pair", "read_records", "record_batches"]

#: Documents per batch on the generic road (the engine's own batch size).
BATCH_DOCUMENTS = 2048


@dataclass
class PairSource:
    """A gold/predictions pair, opened: its batches (read once, as they are consumed), the
    unit its spans are in, and per side what was read and left out (:attr:`info`, filled in
    as the batches are read).

    ``parts``: where the pair can be read in byte ranges by worker processes (a
    :class:`~.columnar.ColumnPair`: ``plan`` and ``read(parts)``). ``pipeline``: the
    predictions come from a pipeline whose own processes (``n_process``) run it, so the
    scoring stays in this process. ``stamps``: each input file's :func:`stamp` when the pair
    was opened.
    """

    unit: str
    info: dict[str, SideInfo]
    stream: Iterator[SpanBatch]
    parts: ColumnPair | None = None
    pipeline: bool = False
    stamps: dict[str, Stamp | None] = field(default_factory=dict)

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
        return {side: info.to_dict() for side, info in self.info.items()}


#: A file's size, modification time (ns) and inode.
Stamp = tuple[int, int, int]


def stamp(path: Path | str) -> Stamp | None:
    """``path``'s :data:`Stamp`; ``None`` where it cannot be read (its reader says why) or
    is no regular file (a pipe's time changes as it is written)."""
    with suppress(OSError):
        found = os.stat(path)
        if stat.S_ISREG(found.st_mode):
            return found.st_size, found.st_mtime_ns, found.st_ino
    return None


def _stamps(*paths: Path | str) -> dict[str, Stamp | None]:
    """The stamp of each input file, of each file under an input folder."""
    files = []
    for path in map(Path, paths):
        files += sorted(f for f in path.rglob("*") if f.is_file()) if path.is_dir() else [path]
    return {str(f): stamp(f) for f in files}


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
) -> PairSource:
    """Open ``gold`` with ``pred`` (a predictions file) or ``model`` (a trained pipeline run
    over the gold documents), read as ``reading`` says.

    The unit is the gold format's own unless ``reading.unit`` sets one. With ``model``:
    ``code`` and ``gpu_id`` as spaCy's ``--code``/``--gpu-id``, ``batch_size`` and
    ``n_process`` for ``nlp.pipe``. ``progress``: a bar on stderr while the batches are
    consumed (:mod:`.progress`). Missing files raise here, gold first.
    """
    if (pred is None) == (model is None):
        raise ValueError(
            "give either a predictions file or --model, not "
            f"{'both' if pred is not None else 'neither'}"
        )
    reading = reading or ReadingOptions()
    paths = [path for path in (gold, pred) if path is not None]
    for path in paths:
        check_readable(path)
    stamps = _stamps(*paths)
    gold_format = input_format(gold, reading.input_format)
    unit = reading.unit or gold_format.unit
    files = {"gold": (gold, gold_format)}
    if model is not None:
        check_choices(reading, files)
        source = _pipeline_source(
            gold, gold_format, model, unit, reading, progress, code, gpu_id, batch_size, n_process
        )
        return replace(source, stamps=stamps)
    assert pred is not None
    pred_format = input_format(pred, reading.input_format)
    check_choices(reading, {**files, "predicted": (pred, pred_format)})
    pair = (  # (--pairs gold: the generic road pairs and counts)
        column_pair(
            gold, pred, gold_format=gold_format, pred_format=pred_format, unit=unit, reading=reading
        )
        if reading.pairs == "both"
        else None
    )
    stream, info = (
        pair.read()
        if pair is not None
        else _generic_road((gold, gold_format), (pred, pred_format), unit, reading)
    )
    bar = with_progress(stream, desc=f"Scoring {Path(str(pred)).name}", enabled=progress, size=len)
    return PairSource(unit, info, bar, parts=pair, stamps=stamps)


def _generic_road(
    gold: tuple[Path | str, InputFormat],
    pred: tuple[Path | str, InputFormat],
    unit: str,
    reading: ReadingOptions,
) -> tuple[Iterator[SpanBatch], dict[str, SideInfo]]:
    """Each file's records (``gold`` and ``pred``: a path and its format), paired, as
    documents in batches, and what each side read."""
    (gold_path, gold_format), (pred_path, pred_format) = gold, pred
    info = _side_infos(gold_path, gold_format.name, pred_path, pred_format.name)
    pairs = pair_records(
        *(
            fmt.read(path, reading.for_side(side), info[side].notes)
            for side, (path, fmt) in zip(SIDES, (gold, pred), strict=True)
        ),
        gold_name=str(gold_path),
        pred_name=str(pred_path),
        pairs=reading.pairs,
        notes=(info["gold"].notes, info["predicted"].notes),
    )
    stream = record_batches(
        pairs, unit, reading.source, info, reading.align, reading.align_share, reading
    )
    return stream, info


def _side_infos(
    gold: Path | str, gold_format: str, pred: object, pred_format: str
) -> dict[str, SideInfo]:
    """What each side read, to be filled in as the batches pass."""
    return {"gold": SideInfo(str(gold), gold_format), "predicted": SideInfo(str(pred), pred_format)}


def record_batches(
    pairs: Iterable[tuple[Record, Record]],
    unit: str,
    source: str,
    info: dict[str, SideInfo],
    align: str,
    align_share: float = MIN_SHARED,
    reading: ReadingOptions | None = None,
) -> Iterator[SpanBatch]:
    """The generic road: record pairs as documents, in batches (``reading``: how predicted
    strings are grounded)."""
    docs = documents(
        pairs,
        unit=unit,
        source=source,
        gold_info=info["gold"],
        pred_info=info["predicted"],
        align=align,
        align_share=align_share,
        reading=reading,
    )
    return document_batches(docs, unit, BATCH_DOCUMENTS)


def _pipeline_source(
    gold: Path | str,
    gold_format: InputFormat,
    model: str,
    unit: str,
    reading: ReadingOptions,
    progress: bool,
    code: str | None,
    gpu_id: int,
    batch_size: int,
    n_process: int,
) -> PairSource:
    """The gold documents with a pipeline's predictions (its own bar while it runs); those of
    a :class:`~.model.PipelineRun` that has run already, as it ran. With ``--input-format
    strings`` the predictions are the raw responses an llm pipeline kept (:func:`llm_strings`)."""
    info = _side_infos(gold, gold_format.name, model, "model")
    if isinstance(model, PipelineRun) and model.examples is not None:
        pairs = example_pairs(model.examples, data=gold, model_name=model)
    else:
        nlp = load_pipeline(model, code=code, gpu_id=gpu_id)
        options = reading.for_side("gold")
        if gold_format.name == "spacy":  # read into the pipeline's vocab
            options = ReadingOptions(vocab=nlp.vocab)
        records = gold_format.read(gold, options, info["gold"].notes)
        pairs = predict(
            nlp,
            records,
            model_name=model,
            batch_size=batch_size,
            n_process=n_process,
            progress=progress,
        )
    if reading.input_format == "strings":  # an llm pipeline's raw responses, grounded here
        from .strings import llm_strings  # (a reader: loaded when its format is read)

        pairs = ((g, replace(p, strings=llm_strings(p.doc))) for g, p in pairs)
    stream = record_batches(pairs, unit, reading.source, info, "text", reading=reading)
    return PairSource(unit, info, stream, pipeline=True)
