"""The ``evaluate`` and ``gate`` jobs: read gold and predictions (or run a pipeline), score,
check floors, and return a :class:`Report` value; the ``demo`` job, the same on the embedded
demo corpus and its recognizer; and :class:`HtmlReport`, what the ``report`` job returns
(here, so that the API names it without loading the bootstrap or the report job). Nothing
here prints or renders; see :mod:`spacy_span_eval.api` for the functions that also write and
print.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.evaluator import SpanEvaluator
from ..engine.labels import SPAN_LENGTH
from ..engine.result import EvaluationResult
from ..engine.settings import BASE_LEVEL
from ..engine.slices import document_values, slice_tables
from ..engine.spans import Document
from ..engine.tidy import SLICE_COLUMNS, frame, slice_rows
from ..errors import InvalidInputError, UnknownLabelError
from ..readers.align import SideInfo
from ..readers.options import ReadingOptions
from ..readers.source import open_pair
from .options import RunOptions, ScoringOptions
from .scoring import score

if TYPE_CHECKING:  # (the gate and the settings-file readers are loaded when floors are given)
    from ..engine.bootstrap import BootstrapIntervals
    from ..engine.gates import Floors, GateVerdict
    from .system_run import SystemRun

__all__ = [
    "DEMO_THRESHOLDS",
    "REPORT_SCHEMA",
    "REPORT_VERSION",
    "HtmlReport",
    "Report",
    "demo",
    "demo_floors_path",
    "evaluate",
]

REPORT_SCHEMA = "spacy-span-eval/report"
#: ``--slice-by span-length``: spans by their length in the unit, in buckets from these
#: least lengths (1, 2, 3, 4-5, 6+), or from those given (``span-length:1,3,10``).
SPAN_LENGTHS = (1, 2, 3, 4, 6)
REPORT_VERSION = 1
DEMO_THRESHOLDS = (0.5, 0.75, 1.0)


@dataclass
class Report:
    """An evaluation with what was read (per side) and, for a gate, its verdict."""

    command: str
    result: EvaluationResult
    inputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    verdict: GateVerdict | None = None
    # How the files were read (for the reading hints; not in the JSON: ``inputs`` says it).
    reading: ReadingOptions | None = None
    #: Per ``--slice-by`` field, its per-slice tables
    #: (:func:`~spacy_span_eval.engine.slices.slice_ledgers`).
    slices: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON report (see ``docs/json_schema.md``)."""
        return {
            "schema": REPORT_SCHEMA,
            "version": REPORT_VERSION,
            "command": self.command,
            "inputs": self.inputs,
            "result": self.result.to_dict(),
            "gate": None if self.verdict is None else self.verdict.to_dict(),
            **({"slices": self.slices} if self.slices else {}),
        }

    def to_frame(self, *, per_document: bool = False, sweep: bool = False) -> Any:
        """The result as a tidy pandas ``DataFrame`` (see
        :meth:`~spacy_span_eval.engine.result.EvaluationResult.to_frame`); sliced, its rows
        with ``slice_by`` and ``slice`` missing, then a row per slice and label and per
        slice's micro (:data:`~spacy_span_eval.engine.tidy.SLICE_COLUMNS`)."""
        if not self.slices or per_document or sweep:
            return self.result.to_frame(per_document=per_document, sweep=sweep)
        rows = chain(self.result.rows(), slice_rows(self.slices, BASE_LEVEL))
        return frame(rows, SLICE_COLUMNS)

    def _repr_html_(self) -> str:
        """The notebook view: the gate's verdict (if any) above the result's table, then
        what the readers read and left out (their notes)."""
        table = self.result._repr_html_() + _inputs_html(self.inputs)
        if self.verdict is None:
            return table
        lines = self.verdict.lines()
        items = "".join(f"<li>{html.escape(line)}</li>" for line in lines[1:])
        head = f"<p><strong>{html.escape(lines[0])}</strong></p>"
        return head + (f"<ul>{items}</ul>" if items else "") + table


@dataclass
class HtmlReport:
    """The systems shown, their intervals and the page (``""`` until it is rendered: the
    report job scores, the API renders)."""

    runs: list[SystemRun] = field(repr=False)
    intervals: list[BootstrapIntervals | None] = field(repr=False)
    html: str = field(default="", repr=False)

    @property
    def verdict(self) -> GateVerdict | None:
        return self.runs[0].verdict

    def _repr_html_(self) -> str:
        """The notebook view: each system's scores at the main threshold (the page itself is
        in :attr:`html`)."""
        return "".join(run.result._repr_html_() for run in self.runs)


def _inputs_html(inputs: dict[str, dict[str, Any]]) -> str:
    """Per side: the file, its format and spans, and the reader's notes."""
    items = []
    for side, info in inputs.items():
        what = [str(info["format"])] if info.get("format") else []
        if "spans" in info:
            what.append(f"{info['spans']:,} span" + ("" if info["spans"] == 1 else "s"))
        line = f"{side}: {info.get('path') or info.get('model') or ''}"
        line += f" ({', '.join(what)})" if what else ""
        if info.get("notes"):
            line += "; read: " + ", ".join(f"{k} {v:,}" for k, v in info["notes"].items())
        items.append(f"<li>{html.escape(line)}</li>")
    return f"<ul>{''.join(items)}</ul>" if items else ""


def evaluate(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    run: RunOptions | None = None,
    floors: Floors | Path | str | None = None,
    progress: bool = False,
    per_document: bool = False,
    error_strings: bool = True,
    details: bool = True,
    slice_by: Sequence[str] = (),
    choose_thresholds: bool = False,
    intervals: Mapping[str, Any] | None = None,
) -> Report:
    """Score ``pred`` (or ``model`` run on ``gold``) against ``gold``; gate it when ``floors``
    (scored at their threshold too, and with their strategy unless ``scoring`` names one;
    ``choose_thresholds``: swept, each recall floor met at the highest score it can be).
    ``per_document`` keeps each document's ledgers (``report.result.document_rows()``).
    ``error_strings=False`` skips counting the most frequent error strings (for an output
    that does not show them; ``frequent_errors`` is then empty). ``details=False`` keeps no
    confusion cells, error kinds or error records (for an output that shows none; each
    threshold's scores then say so: ``detailed`` is false, ``error_kinds()`` is ``None``).

    ``scoring.errors`` keeps that many error records per table (shown in text and Markdown,
    listed in JSON). ``run`` says where the work is done (processes, a Dask cluster, the
    pipeline's GPU); the numbers are the same either way (see docs/parallel.md).
    ``slice_by`` names gold fields (the gold format's: ``meta.KEY``, ``data.KEY``, a
    ``user_data`` key, ``folder``, ``document``, ...; see docs/cli.md) to score each of their
    values' documents apart, or ``span-length`` (``span-length:1,3,10``: bucket edges) to
    score spans by their length in the unit apart (``report.slices``; semantics §10);
    ``intervals`` (``resamples``, ``seed``, ``confidence``): each field slice's bootstrap
    intervals too, resampling its own documents.
    """
    if intervals:
        from ..engine.resampling import check_resampling  # (as the bootstrap: when asked)

        check_resampling(**intervals, min_resamples=0)
        if not slice_fields(slice_by)[0]:  # (the whole's intervals are the report's)
            raise InvalidInputError("--resamples: needs --slice-by FIELD (it resamples slices)")
    chosen = scoring or ScoringOptions()
    run = run or RunOptions()
    gate_floors = _floors(floors)
    loaded = chosen.load(gate_floors)
    every = [f.every for f in gate_floors.floors if f.every] if gate_floors else []
    taus = chosen.thresholds
    extra = None if gate_floors is None else gate_floors.threshold
    if extra is not None and extra not in taus:  # (the floors' threshold is scored too)
        taus = (*taus, extra)
    # What the evaluator keeps besides the scores: what this run asks for, not options.
    settings = loaded.settings(
        thresholds=taus,
        details=details,
        error_strings=error_strings,
        **({"sweep": True} if choose_thresholds else {}),
    )
    fields, edges = slice_fields([*slice_by, *every])
    source = open_pair(
        gold, pred, model=model, reading=reading, progress=progress, fields=fields, **run.pipeline()
    )
    try:  # (the unit is the pair's; per-document counts are kept for the field slices too)
        evaluator = SpanEvaluator(
            unit=source.unit,
            per_document=per_document or bool(fields),
            span_lengths=edges,
            **settings,
        )
        result = score(source, evaluator, run=run).tally.result()
    except UnknownLabelError as exc:  # (its message names the label files read)
        files = chosen.files()
        raise UnknownLabelError(f"{exc} ({'; '.join(files)})" if files else str(exc)) from None
    report = Report(
        "gate" if gate_floors is not None else "evaluate", result, source.inputs(), reading=reading
    )
    by_document = {name: document_values(result, v) for name, v in source.values.items()}
    report.slices = slice_tables(result, by_document, slice_by, intervals)
    if gate_floors is not None:
        from ..engine.gates import check_gate  # (loaded only with floors: a plain run is lighter)

        report.verdict = check_gate(
            result, gate_floors, choose_thresholds=choose_thresholds, slices=by_document
        )
    if not per_document:
        report.result = replace(result, documents=None, level_counts={})
    return report


def slice_fields(slice_by: Sequence[str]) -> tuple[list[str], tuple[int, ...]]:
    """The gold fields of ``slice_by`` (each document's value is read when the pair is
    opened: :attr:`~..readers.source.PairSource.values`) and its span-length bucket edges
    (none: not asked)."""
    fields, edges = [], set()
    for name in slice_by:
        head, colon, given = name.partition(":")
        if head != SPAN_LENGTH:
            fields.append(name)
            continue
        try:
            edges.add(tuple(map(int, given.split(","))) if colon else SPAN_LENGTHS)
        except ValueError:
            raise InvalidInputError(
                f"--slice-by {name}: give {SPAN_LENGTH}:EDGE,EDGE,... (whole numbers from 1)"
            ) from None
    if len(edges) > 1:
        raise InvalidInputError(f"--slice-by {SPAN_LENGTH}: one set of bucket edges at a time")
    return fields, next(iter(edges), ())


def _floors(value: Floors | Path | str | None) -> Floors | None:
    """The floors, read from their file when a path: a run without floors loads neither the
    gate nor the settings-file readers."""
    if value is None:
        return None
    from ..readers.settings_files import as_floors

    return as_floors(value)


def demo_floors_path() -> Path:
    from importlib import resources  # (it loads zip and compression modules: when asked)

    return Path(str(resources.files("spacy_span_eval") / "data" / "demo_floors.json"))


def demo(*, floors: Floors | Path | str | None = None, errors: int = 0) -> Report:
    """Score the embedded demo corpus (two_sided at 0.5, 0.75, 1.0) and gate it. Needs no
    download: the corpus and its imperfect recognizer are generated in code
    (:mod:`spacy_span_eval.readers.demo_corpus`)."""
    from ..engine.gates import Floors, check_gate  # (as the gate's: loaded when run)
    from ..readers.demo_corpus import gold_documents, recognizer
    from ..readers.settings_files import load_floors, read_settings_file

    if floors is None:
        gate = Floors.from_dict(
            read_settings_file(demo_floors_path()), source="built-in demo_floors.json"
        )
    else:
        gate = floors if isinstance(floors, Floors) else load_floors(floors)
    docs = (
        Document.create(id=s.id, text=s.text, gold=s.spans, pred=recognizer(s))
        for s in gold_documents()
    )
    scoring = ScoringOptions(strategy="two_sided", thresholds=DEMO_THRESHOLDS, errors=errors)
    result = scoring.evaluator("char").evaluate(docs)
    micro = result.scores().micro
    inputs = {
        side: SideInfo(name, "demo", result.n_documents, spans).to_dict()
        for side, name, spans in (
            ("gold", "built-in demo corpus", micro.num_annotated),
            ("predicted", "built-in demo recognizer", micro.num_predicted),
        )
    }
    return Report("demo", result, inputs, check_gate(result, gate))
