"""The command-line jobs as plain functions: evaluate files, gate a release, run the demo.

Each returns a :class:`Report` and, unless ``silent``, prints it through one wasabi printer;
:mod:`.cli` only parses arguments and maps errors to exit codes. Usable from Python as is.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import srsly
from wasabi import Printer

from .demo_corpus import gold_documents, recognizer
from .engine import SpanEvaluator
from .errors import InvalidInputError, UnknownLabelError
from .gates import Floors, GateVerdict, as_floors, check_gate, load_floors
from .labels import Hierarchy, LabelMap
from .labels_io import as_hierarchy, as_label_map, read_settings_file
from .parallel import score_documents
from .readers import (
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
from .readers.columnar import read_columns, tally_batches
from .render import result_markdown, result_text, verdict_lines, verdict_markdown, verdict_text
from .result import EvaluationResult
from .spans import Document

__all__ = ["OUTPUT_FORMATS", "REPORT_SCHEMA", "REPORT_VERSION", "Report", "evaluate_files",
           "gate_files", "run_demo"]

REPORT_SCHEMA = "spacy-span-eval/report"
REPORT_VERSION = 1
OUTPUT_FORMATS: tuple[str, ...] = ("text", "json", "markdown")
DEMO_THRESHOLDS = (0.5, 0.75, 1.0)

msg = Printer()  # messages: icons, colour, wrapped
blocks = Printer(pretty=False)  # tables and JSON: printed exactly as rendered


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

    def render(self, output_format: str = "text", *, errors: int = 0) -> str:
        if output_format == "json":
            return srsly.json_dumps(self.to_dict(), indent=2)
        if output_format == "markdown":
            text = result_markdown(self.result, errors=errors, inputs=self.inputs)
            return text + ("\n\n" + verdict_markdown(self.verdict) if self.verdict else "")
        if output_format == "text":
            text = result_text(self.result, errors=errors, inputs=self.inputs)
            return text + ("\n\n" + verdict_text(self.verdict) if self.verdict else "")
        raise ValueError(f"unknown output format {output_format!r}; choose one of "
                         f"{', '.join(OUTPUT_FORMATS)}")


def _check_choice(name: str, value: str, choices: Iterable[str]) -> None:
    if value not in choices:
        raise ValueError(f"unknown {name} {value!r}; choose one of {', '.join(choices)}")


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


def _read_columns(gold, pred, *, model, input_format, unit, gold_options, pred_options,
                  serial):
    """``(batches, info, unit)`` of the columnar readers, or ``None`` where they do not
    apply (a model, parallel scoring, other formats): see readers/columnar.py."""
    if model is not None or pred is None or not serial:
        return None
    gold_format = input_format or infer_format(gold)
    pred_format = input_format or infer_format(pred)
    unit = unit or NATIVE_UNIT.get(gold_format, "char")
    found = read_columns(gold, pred, gold_format=gold_format, pred_format=pred_format,
                         unit=unit, gold_options=gold_options, pred_options=pred_options)
    return None if found is None else (*found, unit)


def evaluate_files(
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
    output_format: str = "text",
    output: Path | str | None = None,
    silent: bool = True,
    floors: Floors | Path | str | None = None,
) -> Report:
    """Score ``pred`` (or ``model`` run on ``gold``) against ``gold``; gate it when ``floors``.

    ``errors`` keeps that many error records per table (shown in text and Markdown, listed in
    JSON). ``output`` writes the rendered report to a file instead of printing it.
    ``n_process`` runs the pipeline's ``nlp.pipe`` in that many processes with ``model``, and
    otherwise scores in that many processes; ``dask_scheduler`` scores on a Dask cluster. The
    numbers are the same either way (see docs/parallel.md).
    """
    _check_choice("output format", output_format, OUTPUT_FORMATS)
    gate = as_floors(floors)
    taus = (thresholds,) if isinstance(thresholds, int | float) else tuple(thresholds)
    if gate is not None and gate.threshold is not None and gate.threshold not in taus:
        taus = (*taus, gate.threshold)
    ev_label_map = as_label_map(label_map, strict=strict_labels)
    ev_hierarchy = as_hierarchy(hierarchy)
    gold_options = ReadOptions(scheme=scheme, repair=repair, tag_column=tag_column,
                               delimiter=delimiter)
    pred_options = ReadOptions(scheme=scheme, repair=repair, delimiter=delimiter,
                               tag_column=tag_column if pred_tag_column is None
                               else pred_tag_column, side="predicted")
    # Fast path: a CoNLL or JSON file pair read straight into columns (readers/columnar.py).
    columns = _read_columns(gold, pred, model=model, input_format=input_format, unit=unit,
                            gold_options=gold_options, pred_options=pred_options,
                            serial=n_process == 1 and dask_scheduler is None)
    if columns is not None:
        span_batches, info, unit = columns
    else:
        docs, info, unit = read_documents(
            gold, pred, model=model, input_format=input_format, unit=unit, source=source,
            gold_options=gold_options, pred_options=pred_options,
            n_process=n_process, batch_size=batch_size, progress=not silent)
    evaluator = SpanEvaluator(strategy=strategy, thresholds=taus, unit=unit, beta=beta,
                              label_map=ev_label_map, strict_labels=strict_labels,
                              hierarchy=ev_hierarchy, max_errors=errors)
    try:
        if columns is not None:
            result = tally_batches(evaluator, span_batches).result()
        elif dask_scheduler is not None or (model is None and n_process != 1):
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
    report = Report("gate" if gate is not None else "evaluate", result, inputs)
    if gate is not None:
        report.verdict = check_gate(result, gate)
    _emit(report, output_format=output_format, output=output, errors=errors, silent=silent)
    return report


def gate_files(gold: Path | str, pred: Path | str | None = None, *,
               floors: Floors | Path | str, strategy: str | None = None,
               **options) -> Report:
    """:func:`evaluate_files` with a gate; the strategy defaults to the floors' own."""
    gate = as_floors(floors)
    chosen = strategy or gate.strategy or "two_sided"
    return evaluate_files(gold, pred, floors=gate, strategy=chosen, **options)


def demo_floors_path() -> Path:
    return Path(str(resources.files("spacy_span_eval") / "data" / "demo_floors.json"))


def run_demo(*, floors: Floors | Path | str | None = None, output_format: str = "text",
             errors: int = 0, silent: bool = True) -> Report:
    """Score the embedded demo corpus (two_sided at 0.5, 0.75, 1.0) and gate it.

    Needs no download: the corpus and its imperfect recognizer are generated in code.
    """
    _check_choice("output format", output_format, OUTPUT_FORMATS)
    if floors is None:
        gate = Floors.from_dict(read_settings_file(demo_floors_path()),
                                source="built-in demo_floors.json")
    else:
        gate = floors if isinstance(floors, Floors) else load_floors(floors)
    docs = (Document.create(id=s.id, text=s.text, gold=s.spans, pred=recognizer(s))
            for s in gold_documents())
    evaluator = SpanEvaluator(strategy="two_sided", thresholds=DEMO_THRESHOLDS, unit="char",
                              max_errors=errors)
    result = evaluator.evaluate(docs)
    micro = result.scores().micro
    inputs = {side: SideInfo(name, "demo", result.n_documents, spans).to_dict()
              for side, name, spans in (("gold", "built-in demo corpus", micro.num_annotated),
                                        ("predicted", "built-in demo recognizer",
                                         micro.num_predicted))}
    report = Report("demo", result, inputs)
    report.verdict = check_gate(result, gate)
    _emit(report, output_format=output_format, output=None, errors=errors, silent=silent)
    return report


def _emit(report: Report, *, output_format: str, output: Path | str | None, errors: int,
          silent: bool) -> None:
    rendered = report.render(output_format, errors=errors)
    if output is not None:
        try:
            Path(output).write_text(rendered + "\n", encoding="utf-8")
        except OSError as exc:
            raise InvalidInputError(f"{output}: cannot write the report ({exc})") from None
    if silent:
        return
    if output is not None:
        msg.good(f"Saved the {output_format} report to {output}")
    else:
        blocks.text(rendered)
    if report.verdict is not None and output_format != "json":
        lines = verdict_lines(report.verdict)
        (msg.good if report.verdict.passed else msg.fail)(lines[0])
        for line in lines[1:]:
            msg.text(f"  {line}")
