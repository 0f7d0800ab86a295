"""The ``evaluate`` and ``gate`` jobs: read gold and predictions (or run a pipeline), score,
check floors, and return a :class:`Report` value. Nothing here prints or renders; see
:mod:`spacy_span_eval.api` for the functions that also write and print.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..engine.gates import Floors, GateVerdict, check_gate
from ..engine.result import EvaluationResult
from ..errors import UnknownLabelError
from ..readers import ReadingOptions
from ..readers.settings_files import as_floors
from .inputs import read_column_inputs, read_documents
from .options import CONNECT_TIMEOUT, ScoringOptions, resolve_n_process

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


def evaluate(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    floors: Floors | Path | str | None = None,
    dask_scheduler: str | None = None,
    progress: bool = False,
    per_document: bool = False,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> Report:
    """Score ``pred`` (or ``model`` run on ``gold``) against ``gold``; gate it when ``floors``
    (scored at their threshold too, and with their strategy unless ``scoring`` names one).
    ``per_document`` keeps each document's ledgers (``report.result.document_rows()``).

    ``scoring.errors`` keeps that many error records per table (shown in text and Markdown,
    listed in JSON). ``reading.n_process`` runs the pipeline's ``nlp.pipe`` in that many
    processes with ``model``, and otherwise scores in that many processes; ``dask_scheduler``
    scores on a Dask cluster (which must answer within ``connect_timeout`` seconds). The
    numbers are the same either way (see docs/parallel.md).
    """
    reading = reading or ReadingOptions()
    chosen = scoring or ScoringOptions()
    gate_floors = as_floors(floors)
    taus = chosen.thresholds
    if gate_floors is not None and gate_floors.threshold is not None \
            and gate_floors.threshold not in taus:
        taus = (*taus, gate_floors.threshold)
    loaded = chosen.load(gate_floors)
    # Fast path: a CoNLL or JSON file pair read straight into columns (readers/columnar.py),
    # by n_process workers that each read their own part of the files where it can be cut
    # (jobs/parallel_reading.py).
    columns = (read_column_inputs(gold, pred, reading=reading, labels=chosen.labels,
                                  progress=progress)
               if dask_scheduler is None and model is None else None)
    if columns is not None:
        span_batches, info, unit, pair = columns
    else:
        docs, info, unit = read_documents(gold, pred, model=model, reading=reading,
                                          progress=progress)
        docs = loaded.select_labels(docs)
    evaluator = loaded.evaluator(unit, thresholds=taus, per_document=per_document)
    try:
        if columns is not None:
            tally = None
            workers = resolve_n_process(reading.n_process)
            if workers > 1:
                from .parallel_reading import FilePair, score_pair_in_processes

                tally = score_pair_in_processes(FilePair(*pair), evaluator, n_process=workers,
                                                info=info)
            if tally is None:  # one process (or the pair cannot be read in parts)
                tally = evaluator.tally_batches(span_batches)
            result = tally.result()
        elif dask_scheduler is not None or (model is None and reading.n_process != 1):
            from .parallel import score_documents  # (imports multiprocessing: on demand)

            tally = score_documents(docs, evaluator,
                                    n_process=1 if model else reading.n_process,
                                    dask_scheduler=dask_scheduler,
                                    connect_timeout=connect_timeout)
            result = tally.result()
        else:
            result = evaluator.evaluate(docs)
    except UnknownLabelError as exc:
        files = chosen.files()
        raise UnknownLabelError(f"{exc} ({'; '.join(files)})" if files else str(exc)) from None
    inputs = {side: i.to_dict() for side, i in info.items()}
    report = Report("gate" if gate_floors is not None else "evaluate", result, inputs)
    if gate_floors is not None:
        report.verdict = check_gate(result, gate_floors)
    return report


def gate(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    floors: Floors | Path | str,
    model: str | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    dask_scheduler: str | None = None,
    progress: bool = False,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> Report:
    """:func:`evaluate` with a gate; the strategy defaults to the floors' own."""
    return evaluate(gold, pred, model=model, reading=reading, scoring=scoring,
                    floors=as_floors(floors), dask_scheduler=dask_scheduler, progress=progress,
                    connect_timeout=connect_timeout)
