"""The document stream of a command's inputs: a gold file paired with a predictions file, or
run through a trained pipeline, read as a :class:`~spacy_span_eval.readers.ReadingOptions`
says."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from ..engine.spans import Document
from ..readers import (
    NATIVE_UNIT,
    ReadingOptions,
    ReadOptions,
    SideInfo,
    documents,
    infer_format,
    load_pipeline,
    pair_records,
    predict,
    read,
)
from ..readers.columnar import read_columns
from ..readers.progress import batches_with_progress, with_progress

__all__ = ["read_column_inputs", "read_documents"]


def read_documents(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    reading: ReadingOptions | None = None,
    progress: bool = False,
) -> tuple[Iterator[Document], dict[str, SideInfo], str]:
    """A stream of documents from a gold file and a prediction file (or a pipeline).

    Returns the stream, the per-side :class:`SideInfo` (filled in as it is consumed) and the
    unit used (the gold format's own unless ``reading.unit`` sets one). ``progress``: a bar
    on stderr while it is consumed (:mod:`~spacy_span_eval.readers.progress`).
    """
    if (pred is None) == (model is None):
        raise ValueError("give either a predictions file or --model, not "
                         f"{'both' if pred is not None else 'neither'}")
    reading = reading or ReadingOptions()
    gold_format = reading.input_format or infer_format(gold)
    unit = reading.unit or NATIVE_UNIT.get(gold_format, "char")
    gold_info = SideInfo(str(gold), gold_format)
    gold_options = replace(reading.side("gold"), notes=gold_info.notes)
    if model is not None:
        nlp = load_pipeline(model, code=reading.code, gpu_id=reading.gpu_id)
        if gold_format == "spacy":
            gold_options = ReadOptions(vocab=nlp.vocab, notes=gold_info.notes)
        pred_info = SideInfo(model, "model")
        pairs = predict(nlp, read(gold, gold_format, gold_options), model_name=model,
                        batch_size=reading.batch_size, n_process=reading.n_process,
                        progress=progress)
    else:
        assert pred is not None
        pred_format = reading.input_format or infer_format(pred)
        pred_info = SideInfo(str(pred), pred_format)
        pairs = pair_records(read(gold, gold_format, gold_options),
                             read(pred, pred_format, replace(reading.side("predicted"),
                                                             notes=pred_info.notes)),
                             gold_name=str(gold), pred_name=str(pred))
    docs = documents(pairs, unit=unit, source=reading.source, gold_info=gold_info,
                     pred_info=pred_info, align=reading.align if model is None else "text")
    if model is None:  # a pipeline run shows its own bar
        docs = with_progress(docs, desc=f"Scoring {Path(str(pred)).name}", enabled=progress)
    return docs, {"gold": gold_info, "predicted": pred_info}, unit


def read_column_inputs(gold: Path | str, pred: Path | str | None, *, reading: ReadingOptions,
                       labels: Sequence[str] = (), progress: bool = False):
    """``(batches, info, unit, pair)`` of a file pair read straight into columns
    (:mod:`~spacy_span_eval.readers.columnar`: CoNLL, JSON Lines and presidio pairs), or
    ``None`` where the reference route of :func:`read_documents` applies: other formats, a
    pipeline, ``--labels``, ``--align position``. ``pair``: the arguments of a
    :class:`~.parallel_reading.FilePair`, for reading in parts. ``progress``: a bar on
    stderr as the batches are consumed."""
    if pred is None or labels or reading.align != "text":
        return None
    gold_format = reading.input_format or infer_format(gold)
    pred_format = reading.input_format or infer_format(pred)
    unit = reading.unit or NATIVE_UNIT.get(gold_format, "char")
    gold_options, pred_options = reading.side("gold"), reading.side("predicted")
    found = read_columns(gold, pred, gold_format=gold_format, pred_format=pred_format,
                         unit=unit, gold_options=gold_options, pred_options=pred_options)
    if found is None:
        return None
    span_batches, info = found
    span_batches = batches_with_progress(span_batches, desc=f"Scoring {Path(str(pred)).name}",
                                         enabled=progress)
    pair = (str(gold), str(pred), gold_format, pred_format, unit, gold_options, pred_options)
    return span_batches, info, unit, pair
