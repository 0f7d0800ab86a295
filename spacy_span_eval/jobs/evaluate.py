"""The ``evaluate`` and ``gate`` jobs: read gold and predictions (or run a pipeline), score,
check floors, and return a :class:`Report` value. Nothing here prints or renders; see
:mod:`spacy_span_eval.api` for the functions that also write and print.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.evaluator import SpanEvaluator
from ..engine.gates import Floors, GateVerdict, check_gate
from ..engine.labels import Hierarchy, LabelMap
from ..engine.result import EvaluationResult
from ..engine.spans import Document
from ..errors import UnknownLabelError
from ..readers import (
    NATIVE_UNIT,
    ReadOptions,
    SideInfo,
    documents,
    infer_format,
    load_pipeline,
    pair_records,
    predict,
    read,
)
from ..readers.settings_files import as_floors, as_hierarchy, as_label_map
from .parallel import score_documents

__all__ = ["REPORT_SCHEMA", "REPORT_VERSION", "Report", "evaluate", "gate", "read_documents"]

REPORT_SCHEMA = "spacy-span-eval/report"
REPORT_VERSION = 1


@dataclass
class Report:
    """An evaluation with what was read (per side) and, for a gate, its verdict."""

    command: str
    result: EvaluationResult
    inputs: dict[str, dict] = field(default_factory=dict)
    verdict: GateVerdict | None = None

    def to_dict(self) -> dict:
        """The versioned JSON report (see ``docs/json_schema.md``)."""
        return {"schema": REPORT_SCHEMA, "version": REPORT_VERSION, "command": self.command,
                "inputs": self.inputs, "result": self.result.to_dict(),
                "gate": None if self.verdict is None else self.verdict.to_dict()}


def read_documents(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    input_format: str | None = None,
    unit: str | None = None,
    source: str = "ents",
    gold_options: ReadOptions | None = None,
    pred_options: ReadOptions | None = None,
    n_process: int = 1,
    batch_size: int = 256,
    progress: bool = False,
) -> tuple[Iterator[Document], dict[str, SideInfo], str]:
    """A stream of documents from a gold file and a prediction file (or a pipeline).

    Returns the stream, the per-side :class:`SideInfo` (filled in as it is consumed) and the
    unit used (the gold format's own when ``unit`` is ``None``).
    """
    if (pred is None) == (model is None):
        raise ValueError("give either a predictions file or --model, not "
                         f"{'both' if pred is not None else 'neither'}")
    gold_format = input_format or infer_format(gold)
    unit = unit or NATIVE_UNIT.get(gold_format, "char")
    gold_options = gold_options or ReadOptions()
    gold_info = SideInfo(str(gold), gold_format)
    if model is not None:
        nlp = load_pipeline(model)
        if gold_format == "spacy":
            gold_options = ReadOptions(vocab=nlp.vocab)
        pred_info = SideInfo(model, "model")
        pairs = predict(nlp, read(gold, gold_format, gold_options), model_name=model,
                        batch_size=batch_size, n_process=n_process, progress=progress)
    else:
        assert pred is not None
        pred_format = input_format or infer_format(pred)
        pred_options = pred_options or ReadOptions(side="predicted")
        pred_info = SideInfo(str(pred), pred_format)
        pairs = pair_records(read(gold, gold_format, gold_options),
                             read(pred, pred_format, pred_options),
                             gold_name=str(gold), pred_name=str(pred))
    docs = documents(pairs, unit=unit, source=source, gold_info=gold_info,
                     pred_info=pred_info)
    return docs, {"gold": gold_info, "predicted": pred_info}, unit


def evaluate(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    strategy: str = "two_sided",
    thresholds: float | Iterable[float] = (0.5,),
    unit: str | None = None,
    beta: float = 1.0,
    label_map: Path | str | LabelMap | Mapping[str, str] | None = None,
    strict_labels: bool = False,
    hierarchy: Path | str | Hierarchy | None = None,
    errors: int = 0,
    input_format: str | None = None,
    scheme: str = "IOB2",
    repair: str = "conlleval",
    tag_column: int = -1,
    pred_tag_column: int | None = None,
    delimiter: str = "auto",
    source: str = "ents",
    n_process: int = 1,
    batch_size: int = 256,
    dask_scheduler: str | None = None,
    progress: bool = False,
    floors: Floors | Path | str | None = None,
) -> Report:
    """Score ``pred`` (or ``model`` run on ``gold``) against ``gold``; gate it when ``floors``.

    ``errors`` keeps that many error records per table (shown in text and Markdown, listed in
    JSON).
    ``n_process`` runs the pipeline's ``nlp.pipe`` in that many processes with ``model``, and
    otherwise scores in that many processes; ``dask_scheduler`` scores on a Dask cluster. The
    numbers are the same either way (see docs/parallel.md).
    """
    gate_floors = as_floors(floors)
    taus = (thresholds,) if isinstance(thresholds, int | float) else tuple(thresholds)
    if gate_floors is not None and gate_floors.threshold is not None \
            and gate_floors.threshold not in taus:
        taus = (*taus, gate_floors.threshold)
    ev_label_map = as_label_map(label_map, strict=strict_labels)
    ev_hierarchy = as_hierarchy(hierarchy)
    docs, info, unit = read_documents(
        gold, pred, model=model, input_format=input_format, unit=unit, source=source,
        gold_options=ReadOptions(scheme=scheme, repair=repair, tag_column=tag_column,
                                 delimiter=delimiter),
        pred_options=ReadOptions(scheme=scheme, repair=repair, delimiter=delimiter,
                                 tag_column=tag_column if pred_tag_column is None
                                 else pred_tag_column, side="predicted"),
        n_process=n_process, batch_size=batch_size, progress=progress)
    evaluator = SpanEvaluator(strategy=strategy, thresholds=taus, unit=unit, beta=beta,
                              label_map=ev_label_map, strict_labels=strict_labels,
                              hierarchy=ev_hierarchy, max_errors=errors)
    try:
        if dask_scheduler is not None or (model is None and n_process != 1):
            tally = score_documents(docs, evaluator, n_process=1 if model else n_process,
                                    dask_scheduler=dask_scheduler)
            result = tally.result()
        else:
            result = evaluator.evaluate(docs)
    except UnknownLabelError as exc:
        files = [f"{what} {path}" for what, path in (("label map", label_map),
                                                     ("hierarchy", hierarchy))
                 if isinstance(path, str | Path)]
        raise UnknownLabelError(f"{exc} ({'; '.join(files)})" if files else str(exc)) from None
    inputs = {side: i.to_dict() for side, i in info.items()}
    report = Report("gate" if gate_floors is not None else "evaluate", result, inputs)
    if gate_floors is not None:
        report.verdict = check_gate(result, gate_floors)
    return report


def gate(gold: Path | str, pred: Path | str | None = None, *,
               floors: Floors | Path | str, strategy: str | None = None,
               **options) -> Report:
    """:func:`evaluate` with a gate; the strategy defaults to the floors' own."""
    floors = as_floors(floors)
    chosen = strategy or floors.strategy or "two_sided"
    return evaluate(gold, pred, floors=floors, strategy=chosen, **options)
