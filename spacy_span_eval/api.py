"""The commands as Python functions: a job (:mod:`.jobs`), a renderer (:mod:`.render`), the
output written (atomically, never over an input) and, unless ``silent``, printed: results on
stdout, messages on stderr (:class:`Messages`). The CLI is a thin layer over these. Settings
come as three option sets (``reading=``, ``scoring=``, ``run=``) or any of their fields as a
typed keyword (:class:`~.jobs.options.OptionKeywords`): a type checker refuses a misspelt one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, Unpack

import attrs

from .engine.settings import plural
from .jobs.evaluate import HtmlReport, Report, demo, evaluate
from .jobs.options import (
    REPORT_SCORING,
    CompareKeywords,
    OptionKeywords,
    RunOptions,
    ScoringOptions,
)
from .jobs.outputs import check_output, check_suffix
from .readers.options import ReadingOptions
from .render.report import (
    COMPARE_FORMATS,
    Messages,
    announced,
    check_output_format,
    deliver,
    documents_output,
    emit,
    hints,
    msg,
    saved,
    shown,
    verdict_console,
    write_text,
)

if TYPE_CHECKING:  # (the report and compare jobs are imported when run: a command
    # imports what it uses, and scoring two files starts faster)
    from .engine.gates import Floors  # (loaded when floors are given)
    from .jobs.agree import Agreement
    from .jobs.compare import Comparison

OptionSet = TypeVar("OptionSet", bound=attrs.AttrsInstance)

__all__ = [
    "HtmlReport",
    "Messages",
    "OptionKeywords",
    "ReadingOptions",
    "RunOptions",
    "ScoringOptions",
    "agree_files",
    "check_output",
    "compare_errors",
    "compare_files",
    "evaluate_files",
    "gate_files",
    "msg",
    "report_files",
    "run_demo",
    "write_text",
]


def _inputs(
    gold: Path | str, scoring: ScoringOptions, floors: object = None, **preds: Path | str | None
) -> dict[str, object]:
    """Every input file of a command, by what it is (for :func:`check_output`)."""
    return {
        "gold file": gold,
        **{name.replace("_", " "): p for name, p in preds.items()},
        "floors file": floors,
        "label map": scoring.label_map,
        "hierarchy file": scoring.hierarchy,
    }


def _option_sets(
    reading: ReadingOptions | None,
    scoring: ScoringOptions | None,
    run: RunOptions | None,
    keywords: Mapping[str, Any],
    threshold: float | None = None,
) -> tuple[ReadingOptions | None, ScoringOptions, RunOptions | None]:
    """The option sets with the flat ``keywords`` put in (a keyword given beside its set
    replaces that field of it; a set not given starts from its defaults), and ``threshold``
    (when given) as the one, main threshold."""
    unknown = sorted(set(keywords) - set(OptionKeywords.__annotations__))
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(unknown)}")
    reading = _with(ReadingOptions, reading, keywords)
    scoring = _with(ScoringOptions, scoring, keywords) or ScoringOptions()
    if threshold is not None:
        scoring = attrs.evolve(scoring, thresholds=(threshold,))
    return reading, scoring, _with(RunOptions, run, keywords)


def _with(
    cls: type[OptionSet], given: OptionSet | None, keywords: Mapping[str, Any]
) -> OptionSet | None:
    """``given`` (else the defaults of ``cls``) with the ``keywords`` that are its fields."""
    changes = {k: v for k, v in keywords.items() if k in attrs.fields_dict(cls)}
    if not changes:
        return given
    # attrs' mypy plugin cannot follow a TypeVar bound to AttrsInstance into evolve
    return attrs.evolve(given or cls(), **changes)  # type: ignore[misc]


def evaluate_files(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    run: RunOptions | None = None,
    floors: Floors | Path | str | None = None,
    output_format: str = "text",
    output: Path | str | None = None,
    per_document: Path | str | bool | None = None,
    wide: bool = False,
    silent: bool = True,
    quiet: bool = False,
    error_strings: bool | None = None,
    details: bool = True,
    slice_by: Sequence[str] = (),
    resamples: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
    **options: Unpack[OptionKeywords],
) -> Report:
    """Score ``pred`` (or ``model`` run on ``gold``) against ``gold``; gate it when ``floors``.
    Render the report in ``output_format`` (``text``, ``json``, ``markdown``; ``wide``: a full
    ledger per threshold) to ``output`` or, unless ``silent``, stdout; ``per_document``: each
    document's ledgers to this file too (JSON Lines or CSV, by its suffix), or with ``True``
    kept on the result alone (``report.to_frame(per_document=True)``). ``quiet``: no
    progress bar. How to read, score and run: ``reading``, ``scoring``, ``run``, or their
    fields as keywords (``thresholds=(0.5, 1.0)``, ``strategy_options={"coverage": "pooled"}``).
    ``error_strings``: count the most frequent error strings; by default only for the formats
    that show them, as reading every error's text takes a good part of the time.
    ``details=False``: no confusion cells, error kinds or records (text without ``--errors``).
    ``slice_by``: gold fields to score each value's documents apart, or ``span-length``
    (``report.slices``; see :func:`~spacy_span_eval.jobs.evaluate.evaluate`); ``resamples``
    (``seed``, ``confidence``): each field slice's bootstrap intervals.
    """
    intervals = dict(resamples=resamples, seed=seed, confidence=confidence) if resamples else None
    return _evaluate(
        gold, pred, model, reading, scoring, run, floors, output_format, output, per_document,
        None, wide, silent, silent or quiet, error_strings, details, slice_by, options, intervals,
    )  # fmt: skip


def _evaluate(
    gold: Path | str,
    pred: Path | str | None,
    model: str | None,
    reading: ReadingOptions | None,
    scoring: ScoringOptions | None,
    run: RunOptions | None,
    floors: Floors | Path | str | None,
    output_format: str,
    output: Path | str | None,
    per_document: Path | str | bool | None,
    choose_thresholds: Path | str | None,
    wide: bool,
    silent: bool,
    hushed: bool,
    error_strings: bool | None,
    details: bool,
    slice_by: Sequence[str],
    options: Mapping[str, Any],
    intervals: Mapping[str, Any] | None = None,
) -> Report:
    """:func:`evaluate_files` and :func:`gate_files`: check the outputs, run the job, emit;
    the error strings are counted as asked, else for the formats that show them (not the
    text table)."""
    reading, scoring, run = _option_sets(reading, scoring, run, options)
    check_output_format(output_format)
    keep_documents, per_document, documents_format = documents_output(per_document)
    inputs = _inputs(gold, scoring, floors, predictions_file=pred)
    seconds = {"--per-document": per_document, "--choose-thresholds": choose_thresholds}
    check_output(output, inputs, beside=seconds, silent=silent)
    report = evaluate(
        gold,
        pred,
        model=model,
        reading=reading,
        scoring=scoring,
        run=run,
        floors=floors,
        progress=not hushed,
        per_document=keep_documents,
        error_strings=output_format != "text" if error_strings is None else error_strings,
        details=details,
        slice_by=slice_by,
        choose_thresholds=choose_thresholds is not None,
        intervals=intervals,
    )
    emit(
        report,
        output_format,
        output,
        scoring,
        silent,
        wide,
        per_document,
        documents_format,
        thresholds=choose_thresholds,
    )
    return report


def gate_files(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    floors: Floors | Path | str,
    model: str | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    run: RunOptions | None = None,
    output_format: str = "text",
    output: Path | str | None = None,
    wide: bool = False,
    silent: bool = True,
    quiet: bool = False,
    error_strings: bool | None = None,
    details: bool = True,
    choose_thresholds: Path | str | None = None,
    slice_by: Sequence[str] = (),
    **options: Unpack[OptionKeywords],
) -> Report:
    """:func:`evaluate_files` with a gate; the strategy defaults to the floors' own
    (``error_strings``, ``details`` and ``slice_by`` as there). ``choose_thresholds``: sweep the
    predictions' scores, check each recall floor at the highest score threshold that meets it
    (semantics §9) and write those thresholds to this file (JSON)."""
    return _evaluate(
        gold, pred, model, reading, scoring, run, floors, output_format, output, None,
        choose_thresholds, wide, silent, silent or quiet, error_strings, details, slice_by, options,
    )  # fmt: skip


def run_demo(
    *,
    floors: Floors | Path | str | None = None,
    output_format: str = "text",
    errors: int = 0,
    silent: bool = True,
    wide: bool = False,
) -> Report:
    """Score the embedded demo corpus (two_sided at 0.5, 0.75, 1.0) and gate it."""
    check_output_format(output_format)
    report = demo(floors=floors, errors=errors)
    emit(report, output_format, None, ScoringOptions(errors=errors), silent, wide)
    return report


def report_files(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    output: Path | str | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions = REPORT_SCORING,
    run: RunOptions | None = None,
    threshold: float | None = None,
    floors: Floors | Path | str | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    title: str | None = None,
    name: str | None = None,
    options: ReadingOptions | None = None,
    silent: bool = True,
    quiet: bool = False,
    slice_by: Sequence[str] = (),
    **keywords: Unpack[OptionKeywords],
) -> HtmlReport:
    """Score ``pred`` (or ``model`` run on ``gold``) and build the HTML report; write it to
    ``output`` when given. The strategy defaults to the floors' own, else two_sided.
    ``slice_by``: as :func:`evaluate_files`'s, drawn in the page's slice view.
    ``threshold``: the main threshold (else the first of ``scoring.thresholds``; the others
    join the curve's grid). ``options``: an older name of ``reading``. ``quiet``: no
    progress bar."""
    from .jobs.compare import build_report
    from .render.html import render_page

    reading, scoring, run = _option_sets(reading or options, scoring, run, keywords, threshold)
    check_output(output, _inputs(gold, scoring, floors, predictions_file=pred))
    report = build_report(
        gold,
        pred,
        model=model,
        reading=reading,
        scoring=scoring,
        run=run,
        floors=floors,
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        name=name,
        progress=not (silent or quiet),
        slice_by=slice_by,
    )
    report.html = render_page(report.runs, intervals=report.intervals, title=title)
    deliver(
        [(output, report.html, "HTML report")],
        [] if silent else announced(report, output, scoring, reading),
    )
    return report


def compare_errors(errors: int | None, output_format: str) -> int:
    """Error records a comparison keeps per system: ``errors``, else 300 for the HTML page
    (its error browser) and none for the other formats."""
    return errors if errors is not None else (300 if output_format == "html" else 0)


def compare_files(
    gold: Path | str,
    pred_a: Path | str,
    pred_b: Path | str,
    *,
    names: tuple[str, str] | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    run: RunOptions | None = None,
    threshold: float | None = None,
    errors: int | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    method: str = "permutation",
    output_format: str = "text",
    output: Path | str | None = None,
    title: str | None = None,
    options: ReadingOptions | None = None,
    silent: bool = True,
    quiet: bool = False,
    slice_by: Sequence[str] = (),
    **keywords: Unpack[CompareKeywords],
) -> Comparison:
    """Score ``pred_a`` and ``pred_b`` against ``gold`` and test their F differences.
    ``threshold``: the main threshold (else the first of ``scoring.thresholds``). ``errors``:
    error records kept per system (default: :func:`compare_errors`, unless ``scoring`` sets
    them). ``options``: an older name of ``reading``; ``quiet``: no progress bar.
    ``slice_by``: gold JSONL fields tested per slice too (Holm over slices x labels)."""
    from .jobs.compare import compare
    from .render.comparison import render_comparison

    check_output_format(output_format, COMPARE_FORMATS)
    if scoring is None or errors is not None:
        scoring = attrs.evolve(
            scoring or ScoringOptions(), errors=compare_errors(errors, output_format)
        )
    reading, scoring, run = _option_sets(reading or options, scoring, run, keywords, threshold)
    check_output(output, _inputs(gold, scoring, predictions_of_A=pred_a, predictions_of_B=pred_b))
    comparison = compare(
        gold,
        pred_a,
        pred_b,
        names=names,
        reading=reading,
        scoring=scoring,
        run=run,
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        method=method,
        progress=not (silent or quiet),
        slice_by=slice_by,
    )
    rendered = render_comparison(comparison, output_format, title=title)
    text = rendered if rendered.endswith("\n") else rendered + "\n"
    console = [
        *shown(rendered, output, f"{output_format} comparison"),
        *hints(comparison.runs, scoring.labels, named=True, reading=reading),
    ]
    deliver([(output, text, f"{output_format} comparison")], [] if silent else console)
    return comparison


def agree_files(
    *paths: Path | str,
    names: Sequence[str] | None = None,
    annotators: Sequence[str] | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    queue: int = 20,
    floors: Mapping[str, float | Decimal] | Path | str | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    write_consensus: Path | str | None = None,
    output_format: str | None = None,
    output: Path | str | None = None,
    silent: bool = True,
    **options: Unpack[OptionKeywords],
) -> Agreement:
    """How far the annotators of ``paths`` (one file or folder each, named ``names`` or by
    their stems), or the ``annotators`` of one multi-annotator export, agree: each pair
    scored as :func:`evaluate_files` scores it, Krippendorff's alpha overall and per label,
    and the ``queue`` most contested documents (0: all). ``floors``: the least alpha per
    label (``{label: floor}`` or a JSON/YAML/.cfg file; ``agreement.passed`` says whether all
    hold). ``resamples``, ``seed``, ``confidence``: each pair's bootstrap intervals over
    documents (0 resamples: none). ``write_consensus``: the majority gold as JSON Lines
    (character offsets; each record's ``ties`` counts the spans exactly half of its
    annotators gave, not kept), or as a DocBin (``.spacy``), by its suffix. Rendered
    in ``output_format`` (default: ``html`` when ``output`` ends in ``.html``, else
    ``text``) to ``output`` or, unless ``silent``, stdout."""
    from .jobs.agree import agree
    from .render.agreement import render_agreement

    reading, scoring, _ = _option_sets(reading, scoring, None, options)
    output_format, docbin = _agree_outputs(
        paths, floors, output_format, output, write_consensus, silent
    )
    agreement = agree(
        paths,
        names=names,
        annotators=annotators,
        reading=reading,
        scoring=scoring,
        queue=queue,
        floors=floors,
        resamples=resamples,
        seed=seed,
        confidence=confidence,
    )
    rendered = render_agreement(agreement, output_format)
    where = shown(rendered, output, f"{output_format} agreement")
    ties = f" ({plural(len(agreement.ties), 'tied span')} listed, not kept)"
    where += saved(
        write_consensus, f"consensus of {plural(len(agreement.consensus), 'document')}", ties
    )
    if agreement.floors is not None:
        where.extend(verdict_console(agreement.verdict_lines(), agreement.passed))
    deliver(
        [
            (output, rendered + "\n", f"{output_format} agreement"),
            (write_consensus, agreement.consensus_file(docbin), "consensus"),
        ],
        [] if silent else where,
    )
    return agreement


def _agree_outputs(
    paths: Sequence[Path | str],
    floors: object,
    output_format: str | None,
    output: Path | str | None,
    write_consensus: Path | str | None,
    silent: bool,
) -> tuple[str, bool]:
    """The output format (by default ``html`` for a ``.html`` output, else ``text``) and
    whether the consensus is a DocBin, each output refused before reading when it is an
    input, the other output, or stdout while the report goes there."""
    if output_format is None:
        output_format = "html" if str(output or "").lower().endswith(".html") else "text"
    check_output_format(output_format, COMPARE_FORMATS)
    inputs: dict[str, object] = {f"file of annotator {i}": p for i, p in enumerate(paths, 1)}
    inputs["floors file"] = floors
    check_output(output, inputs, beside={"--write-consensus": write_consensus}, silent=silent)
    consensus = check_suffix(write_consensus, "--write-consensus", (".jsonl", ".ndjson", ".spacy"))
    return output_format, consensus == ".spacy"
