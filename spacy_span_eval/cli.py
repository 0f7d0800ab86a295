"""``spacy-span-eval``: score files or a pipeline, gate a release, run the demo.

A thin typer layer over :mod:`.commands`. Exit codes: 0 ok, 1 a gate floor breached, 2 a
usage or input error (printed as one message naming the file, line or document; never a
traceback).
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from .api import compare_files, evaluate_files, gate_files, msg, report_files, run_demo
from .engine.bootstrap import COMPARE_METHODS
from .engine.settings import STRATEGY_NAMES
from .engine.spans import UNITS
from .errors import InvalidInputError
from .jobs.evaluate import Report
from .jobs.inputs import InputOptions
from .readers import DELIMITERS, FORMATS
from .readers.schemes import REPAIR_POLICIES, SCHEME_ALIASES, SCHEMES
from .render.comparison import COMPARE_FORMATS
from .render.report import OUTPUT_FORMATS

__all__ = ["app", "main"]

EXIT_OK, EXIT_GATE_FAILED, EXIT_USAGE = 0, 1, 2


def _choices(name: str, values) -> type[Enum]:
    return Enum(name, {v: v for v in values}, type=str)  # type: ignore[return-value]


Strategy = _choices("Strategy", STRATEGY_NAMES)
Unit = _choices("Unit", UNITS)
OutputFormat = _choices("OutputFormat", OUTPUT_FORMATS)
InputFormat = _choices("InputFormat", FORMATS)
Scheme = _choices("Scheme", (*SCHEMES, *SCHEME_ALIASES))
Repair = _choices("Repair", REPAIR_POLICIES)
Delimiter = _choices("Delimiter", DELIMITERS)
CompareFormat = _choices("CompareFormat", COMPARE_FORMATS)
CompareMethod = _choices("CompareMethod", COMPARE_METHODS)

app = typer.Typer(
    name="spacy-span-eval", add_completion=False, no_args_is_help=True,
    help="Score NER span predictions with two-sided IoU counting (or exact, overlap, token).")

_GOLD = typer.Argument(..., help="Gold file: CoNLL, JSONL, presidio JSON or .spacy",
                       show_default=False)
_PRED = typer.Argument(None, help="Predictions file (same text as gold); or use --model",
                       show_default=False)
_MODEL = typer.Option(None, "--model", "-m", help="Trained pipeline (path or package) to run "
                      "on the gold documents instead of a predictions file")
_STRATEGY = typer.Option("two_sided", "--strategy", "-s", help="Matching strategy")
_GATE_STRATEGY = typer.Option(None, "--strategy", "-s", help="Matching strategy (default: the "
                              "floors file's, else two_sided)")
_FLOORS = typer.Option(..., "--floors", help="Floors file (JSON/YAML/.cfg): per-label "
                       "recall/precision/f floors and min_support", show_default=False)
_DEMO_FLOORS = typer.Option(None, "--floors", help="Floors file (default: the built-in demo "
                            "floors)")
_THRESHOLD = typer.Option([], "--threshold", "-t", help="IoU threshold, repeatable "
                          "(two_sided; default 0.5)")
_UNIT = typer.Option(None, "--unit", help="Span unit (default: the gold format's own: token "
                     "for CoNLL, char otherwise)")
_BETA = typer.Option(1.0, "--beta", help="F-beta weight (2.0 favours recall)")
_LABEL_MAP = typer.Option(None, "--label-map", help="Label map file (JSON/YAML/.cfg): "
                          "alias -> canonical")
_STRICT = typer.Option(False, "--strict-labels", help="A label the map does not know is an "
                       "error instead of passing through")
_HIERARCHY = typer.Option(None, "--hierarchy", help="Hierarchy file: levels such as branch, "
                          "binary, each scored too")
_ERRORS = typer.Option(0, "--errors", min=0, help="Show (and keep in JSON) the first N error "
                       "records per table")
_FORMAT = typer.Option("text", "--format", "-f", help="Report format")
_OUTPUT = typer.Option(None, "--output", "-o", help="Write the report to this file")
_INPUT_FORMAT = typer.Option(None, "--input-format", help="Input format of both files "
                             "(default: from each file name; no extension means CoNLL)")
_SCHEME = typer.Option("IOB2", "--scheme", help="CoNLL tag scheme")
_REPAIR = typer.Option("conlleval", "--repair", help="CoNLL: what to do with ill-formed chunks")
_TAG_COLUMN = typer.Option(-1, "--tag-column", help="CoNLL: tag column (0-based; -1 = last)")
_PRED_TAG_COLUMN = typer.Option(None, "--pred-tag-column", help="CoNLL: tag column of the "
                                "predictions file, if it differs (e.g. -1 and --tag-column -2 "
                                "to read a conlleval-style file twice)")
_DELIMITER = typer.Option("auto", "--delimiter", help="CoNLL column separator")
_SPANS_KEY = typer.Option("ents", "--spans-key", help=".spacy and --model: 'ents' or a "
                          "span group key")
_N_PROCESS = typer.Option(1, "--n-process", min=1, help="Worker processes: for nlp.pipe with "
                          "--model, else for scoring (same numbers as one process)")
_DASK = typer.Option(None, "--dask-scheduler", help="Score on this Dask cluster "
                     "(tcp://host:8786; needs spacy-span-eval[dask])")
_BATCH_SIZE = typer.Option(256, "--batch-size", min=1, help="--model: nlp.pipe batch size")
_SILENT = typer.Option(False, "--silent", help="Print nothing; only the exit code and "
                       "--output speak")


_REPORT_OUTPUT = typer.Option(..., "--output", "-o", help="Write the HTML report to this file",
                              show_default=False)
_MAIN_THRESHOLD = typer.Option(0.5, "--threshold", "-t", help="Main IoU threshold (two_sided): "
                               "scores, intervals, confusion and errors; the curve spans "
                               "0.05-1.0")
_REPORT_FLOORS = typer.Option(None, "--floors", help="Floors file: show the gate verdict "
                              "(exit 1 when a floor is breached)")
_REPORT_ERRORS = typer.Option(300, "--errors", min=0, help="Error records kept for the error "
                              "browser (the first ones, in document order)")
_RESAMPLES = typer.Option(1000, "--resamples", min=0, help="Bootstrap resamples of the "
                          "documents (0: no intervals)")
_SEED = typer.Option(0, "--seed", help="Seed of the resampling: the same seed gives the same "
                     "intervals and p-values")
_CONFIDENCE = typer.Option(0.95, "--confidence", min=0.5, max=0.999,
                           help="Coverage of the percentile intervals")
_TITLE = typer.Option(None, "--title", help="Title of the HTML page")
_PRED_A = typer.Argument(..., help="Predictions of system A", show_default=False)
_PRED_B = typer.Argument(..., help="Predictions of system B", show_default=False)
_NAME_A = typer.Option(None, "--name-a", help="Name of system A (default: its file name)")
_NAME_B = typer.Option(None, "--name-b", help="Name of system B (default: its file name)")
_COMPARE_RESAMPLES = typer.Option(1000, "--resamples", min=1, help="Paired resamples of the "
                                  "documents")
_METHOD = typer.Option("bootstrap", "--method", help="p-value: paired bootstrap or approximate "
                       "randomization")
_COMPARE_FORMAT = typer.Option("text", "--format", "-f", help="Output format (html: the "
                               "report with both systems side by side)")
_COMPARE_ERRORS = typer.Option(None, "--errors", min=0, help="html: error records kept per "
                               "system (default 300)")


def _value(choice) -> str | None:
    return None if choice is None else getattr(choice, "value", choice)


def _run(job) -> Report:
    """Run a command, turning input and usage problems into exit code 2 with one message."""
    try:
        return job()
    except FileNotFoundError as exc:
        msg.fail(f"{exc.filename}: no such file" if exc.filename else str(exc))
    except IsADirectoryError as exc:
        msg.fail(f"{exc.filename}: is a directory, not a file")
    except (InvalidInputError, ValueError) as exc:
        msg.fail(str(exc))
    raise typer.Exit(EXIT_USAGE)


def _common(gold, pred, model, strategy, threshold, unit, beta, label_map, strict_labels,
            hierarchy, errors, output_format, output, input_format, scheme, repair,
            tag_column, pred_tag_column, delimiter, spans_key, n_process, batch_size,
            silent, dask_scheduler=None) -> dict:
    options = dict(
        model=model, unit=_value(unit), beta=beta, label_map=label_map,
        strict_labels=strict_labels, hierarchy=hierarchy, errors=errors,
        output_format=_value(output_format), output=output,
        input_format=_value(input_format), scheme=_value(scheme), repair=_value(repair),
        tag_column=tag_column, pred_tag_column=pred_tag_column, delimiter=_value(delimiter),
        source=spans_key, n_process=n_process, batch_size=batch_size, silent=silent,
        dask_scheduler=dask_scheduler)
    if threshold:
        options["thresholds"] = tuple(threshold)
    if strategy is not None:
        options["strategy"] = _value(strategy)
    return options


@app.command("evaluate")
def evaluate_cli(
    gold: Path = _GOLD,
    pred: Path | None = _PRED,
    model: str | None = _MODEL,
    strategy: Strategy = _STRATEGY,  # type: ignore[valid-type]
    threshold: list[float] = _THRESHOLD,
    unit: Unit | None = _UNIT,  # type: ignore[valid-type]
    beta: float = _BETA,
    label_map: Path | None = _LABEL_MAP,
    strict_labels: bool = _STRICT,
    hierarchy: Path | None = _HIERARCHY,
    errors: int = _ERRORS,
    output_format: OutputFormat = _FORMAT,  # type: ignore[valid-type]
    output: Path | None = _OUTPUT,
    input_format: InputFormat | None = _INPUT_FORMAT,  # type: ignore[valid-type]
    scheme: Scheme = _SCHEME,  # type: ignore[valid-type]
    repair: Repair = _REPAIR,  # type: ignore[valid-type]
    tag_column: int = _TAG_COLUMN,
    pred_tag_column: int | None = _PRED_TAG_COLUMN,
    delimiter: Delimiter = _DELIMITER,  # type: ignore[valid-type]
    spans_key: str = _SPANS_KEY,
    n_process: int = _N_PROCESS,
    batch_size: int = _BATCH_SIZE,
    dask_scheduler: str | None = _DASK,
    silent: bool = _SILENT,
) -> None:
    """Score PRED (or --model run on GOLD) against GOLD: per-label tables per threshold."""
    options = _common(gold, pred, model, strategy, threshold, unit, beta, label_map,
                      strict_labels, hierarchy, errors, output_format, output, input_format,
                      scheme, repair, tag_column, pred_tag_column, delimiter, spans_key,
                      n_process, batch_size, silent, dask_scheduler)
    _run(lambda: evaluate_files(gold, pred, **options))


@app.command("gate")
def gate_cli(
    gold: Path = _GOLD,
    pred: Path | None = _PRED,
    floors: Path = _FLOORS,
    model: str | None = _MODEL,
    strategy: Strategy | None = _GATE_STRATEGY,  # type: ignore[valid-type]
    threshold: list[float] = _THRESHOLD,
    unit: Unit | None = _UNIT,  # type: ignore[valid-type]
    beta: float = _BETA,
    label_map: Path | None = _LABEL_MAP,
    strict_labels: bool = _STRICT,
    hierarchy: Path | None = _HIERARCHY,
    errors: int = _ERRORS,
    output_format: OutputFormat = _FORMAT,  # type: ignore[valid-type]
    output: Path | None = _OUTPUT,
    input_format: InputFormat | None = _INPUT_FORMAT,  # type: ignore[valid-type]
    scheme: Scheme = _SCHEME,  # type: ignore[valid-type]
    repair: Repair = _REPAIR,  # type: ignore[valid-type]
    tag_column: int = _TAG_COLUMN,
    pred_tag_column: int | None = _PRED_TAG_COLUMN,
    delimiter: Delimiter = _DELIMITER,  # type: ignore[valid-type]
    spans_key: str = _SPANS_KEY,
    n_process: int = _N_PROCESS,
    batch_size: int = _BATCH_SIZE,
    dask_scheduler: str | None = _DASK,
    silent: bool = _SILENT,
) -> None:
    """Fail (exit 1) when a label's figure is below its floor, or a gated label has no gold."""
    options = _common(gold, pred, model, strategy, threshold, unit, beta, label_map,
                      strict_labels, hierarchy, errors, output_format, output, input_format,
                      scheme, repair, tag_column, pred_tag_column, delimiter, spans_key,
                      n_process, batch_size, silent, dask_scheduler)
    report = _run(lambda: gate_files(gold, pred, floors=floors, **options))
    assert report.verdict is not None
    raise typer.Exit(EXIT_OK if report.verdict.passed else EXIT_GATE_FAILED)


def _input_options(unit, input_format, scheme, repair, tag_column, pred_tag_column, delimiter,
                   spans_key, n_process, batch_size) -> InputOptions:
    return InputOptions(
        input_format=_value(input_format), unit=_value(unit), scheme=_value(scheme) or "IOB2",
        repair=_value(repair) or "conlleval", tag_column=tag_column,
        pred_tag_column=pred_tag_column, delimiter=_value(delimiter) or "auto",
        source=spans_key, n_process=n_process, batch_size=batch_size)


@app.command("report")
def report_cli(
    gold: Path = _GOLD,
    pred: Path | None = _PRED,
    model: str | None = _MODEL,
    output: Path = _REPORT_OUTPUT,
    strategy: Strategy | None = _GATE_STRATEGY,  # type: ignore[valid-type]
    threshold: float = _MAIN_THRESHOLD,
    unit: Unit | None = _UNIT,  # type: ignore[valid-type]
    beta: float = _BETA,
    label_map: Path | None = _LABEL_MAP,
    strict_labels: bool = _STRICT,
    floors: Path | None = _REPORT_FLOORS,
    errors: int = _REPORT_ERRORS,
    resamples: int = _RESAMPLES,
    seed: int = _SEED,
    confidence: float = _CONFIDENCE,
    title: str | None = _TITLE,
    input_format: InputFormat | None = _INPUT_FORMAT,  # type: ignore[valid-type]
    scheme: Scheme = _SCHEME,  # type: ignore[valid-type]
    repair: Repair = _REPAIR,  # type: ignore[valid-type]
    tag_column: int = _TAG_COLUMN,
    pred_tag_column: int | None = _PRED_TAG_COLUMN,
    delimiter: Delimiter = _DELIMITER,  # type: ignore[valid-type]
    spans_key: str = _SPANS_KEY,
    n_process: int = _N_PROCESS,
    batch_size: int = _BATCH_SIZE,
    silent: bool = _SILENT,
) -> None:
    """Write a self-contained HTML report: scores with bootstrap intervals, curves against
    the IoU threshold, the confusion heatmap, an error browser and (--floors) the gate."""
    options = _input_options(unit, input_format, scheme, repair, tag_column, pred_tag_column,
                             delimiter, spans_key, n_process, batch_size)
    report = _run(lambda: report_files(  # type: ignore[arg-type,return-value]
        gold, pred, model=model, output=output, strategy=_value(strategy),
        threshold=threshold, beta=beta, label_map=label_map, strict_labels=strict_labels,
        floors=floors, errors=errors, resamples=resamples, seed=seed, confidence=confidence,
        title=title, options=options, silent=silent))
    failed = report.verdict is not None and not report.verdict.passed
    raise typer.Exit(EXIT_GATE_FAILED if failed else EXIT_OK)


@app.command("compare")
def compare_cli(
    gold: Path = _GOLD,
    pred_a: Path = _PRED_A,
    pred_b: Path = _PRED_B,
    name_a: str | None = _NAME_A,
    name_b: str | None = _NAME_B,
    strategy: Strategy = _STRATEGY,  # type: ignore[valid-type]
    threshold: float = _MAIN_THRESHOLD,
    unit: Unit | None = _UNIT,  # type: ignore[valid-type]
    beta: float = _BETA,
    label_map: Path | None = _LABEL_MAP,
    strict_labels: bool = _STRICT,
    resamples: int = _COMPARE_RESAMPLES,
    seed: int = _SEED,
    confidence: float = _CONFIDENCE,
    method: CompareMethod = _METHOD,  # type: ignore[valid-type]
    output_format: CompareFormat = _COMPARE_FORMAT,  # type: ignore[valid-type]
    output: Path | None = _OUTPUT,
    errors: int | None = _COMPARE_ERRORS,
    title: str | None = _TITLE,
    input_format: InputFormat | None = _INPUT_FORMAT,  # type: ignore[valid-type]
    scheme: Scheme = _SCHEME,  # type: ignore[valid-type]
    repair: Repair = _REPAIR,  # type: ignore[valid-type]
    tag_column: int = _TAG_COLUMN,
    pred_tag_column: int | None = _PRED_TAG_COLUMN,
    delimiter: Delimiter = _DELIMITER,  # type: ignore[valid-type]
    spans_key: str = _SPANS_KEY,
    silent: bool = _SILENT,
) -> None:
    """Compare two systems on GOLD: per-label and micro/macro F differences with paired
    bootstrap intervals and p-values (documents resampled jointly)."""
    options = _input_options(unit, input_format, scheme, repair, tag_column, pred_tag_column,
                             delimiter, spans_key, 1, 256)
    names = None
    if name_a is not None or name_b is not None:
        names = (name_a or "A", name_b or "B")
    _run(lambda: compare_files(  # type: ignore[arg-type,return-value]
        gold, pred_a, pred_b, names=names, strategy=_value(strategy) or "two_sided",
        threshold=threshold, beta=beta, label_map=label_map, strict_labels=strict_labels,
        resamples=resamples, seed=seed, confidence=confidence,
        method=_value(method) or "bootstrap", errors=errors,
        output_format=_value(output_format) or "text", output=output, title=title,
        options=options, silent=silent))


@app.command("demo")
def demo_cli(
    floors: Path | None = _DEMO_FLOORS,
    errors: int = _ERRORS,
    output_format: OutputFormat = _FORMAT,  # type: ignore[valid-type]
) -> None:
    """Score the built-in demo corpus (no download) at IoU 0.5, 0.75, 1.0 and gate it."""
    report = _run(lambda: run_demo(floors=floors, output_format=_value(output_format),
                                   errors=errors, silent=False))
    assert report.verdict is not None
    raise typer.Exit(EXIT_OK if report.verdict.passed else EXIT_GATE_FAILED)


@app.command("convert")
def convert_cli(
    source: Annotated[Path, typer.Argument(
        help="Gold file: CoNLL, JSONL, presidio JSON or .spacy", show_default=False)],
    output: Annotated[Path, typer.Argument(help="The .spacy file to write",
                                           show_default=False)],
    limit: Annotated[int, typer.Option("--limit", min=0,
                                       help="At most this many documents (0: all)")] = 0,
    input_format: InputFormat | None = _INPUT_FORMAT,  # type: ignore[valid-type]
    scheme: Scheme = _SCHEME,  # type: ignore[valid-type]
    lang: Annotated[str, typer.Option("--lang", help="Language of the blank tokenizer")] = "en",
) -> None:
    """Convert a gold file to a .spacy DocBin for spacy train (the workflow's convert step)."""
    from .jobs.convert import convert_split
    from .readers import ReadOptions

    r = _run(lambda: convert_split(  # type: ignore[arg-type,return-value]
        str(source), output, limit=limit or None, input_format=_value(input_format),
        options=ReadOptions(scheme=_value(scheme) or "IOB2"), lang=lang))
    msg.good(f"{r.documents} documents, {r.spans} spans -> {output}")  # type: ignore[attr-defined]
    if r.kept:  # type: ignore[attr-defined]
        msg.warn(f"{sum(r.kept.values())} of them {r.kept_summary()} "  # type: ignore[attr-defined]
                 "(in user_data['span_eval_kept_gold']; every score counts them)")
    for reason, n in sorted(r.problems.items()):  # type: ignore[attr-defined]
        msg.warn(f"{n} x {reason}")
    for example in r.examples:  # type: ignore[attr-defined]
        msg.text(f"  e.g. {example}")


@app.command("demo-corpus")
def demo_corpus_cli(
    folder: Annotated[Path, typer.Argument(help="Folder for train/dev/test.jsonl")] = Path(
        "assets/demo"),
) -> None:
    """Write the embedded demo corpus's splits as JSONL (the files in assets/demo)."""
    from .readers.demo_corpus import write_splits

    for written in _run(lambda: write_splits(folder)):  # type: ignore[union-attr]
        msg.good(f"Wrote {written}")


def main() -> None:
    """Console-script entry point."""
    app()
