"""``spacy-span-eval``: score files or a pipeline, gate a release, run the demo.

A thin typer layer over :mod:`spacy_span_eval.api`: each command hands its option sets
(reading, scoring, run; flags declared once, in :mod:`.options`) to the API function of the
same name. Exit codes (semantics §7): 0 ok, 1 a gate floor breached and nothing else, 2 a
usage or input error and any unexpected failure too (one message on stderr naming the file,
line or document; a traceback only with ``--debug``), 130 interrupted (Ctrl-C), 128 + N
stopped by signal N (143 SIGTERM, 129 SIGHUP). Messages go to stderr, results to stdout or
``--output``.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer

from ..engine.settings import plural
from ..errors import printable
from ..jobs.options import RunOptions, ScoringOptions
from ..readers.options import ReadingOptions
from .option_sets import (
    AGREE_READING_FLAGS,
    AGREE_SCORING_FLAGS,
    COMPARE_READING_FLAGS,
    COMPARE_RUN_FLAGS,
    COMPARE_SCORING_FLAGS,
    CONVERT_READING_FLAGS,
    GATE_SCORING_FLAGS,
    READING_FLAGS,
    REPORT_SCORING_FLAGS,
    RUN_FLAGS,
    SCORING_FLAGS,
)
from .options import (
    AgreeFormatOpt,
    AlphaFloorsOpt,
    AnnotatorFiles,
    AnnotatorNamesOpt,
    AnnotatorsOpt,
    ChooseThresholdsOpt,
    CompareErrorsOpt,
    CompareFormatOpt,
    CompareResamplesOpt,
    ConfidenceOpt,
    ConsensusOpt,
    CorpusFolder,
    DemoFloorsOpt,
    DocBinFile,
    ErrorsOpt,
    FloorsOpt,
    FormatOpt,
    GoldFile,
    LangOpt,
    LimitOpt,
    MethodOpt,
    ModelOpt,
    NameAOpt,
    NameBOpt,
    OutputOpt,
    PerDocumentOpt,
    PredAFile,
    PredBFile,
    PredFile,
    QueueOpt,
    QuietOpt,
    ReportFloorsOpt,
    ReportOutputOpt,
    ResamplesOpt,
    SeedOpt,
    SilentOpt,
    SliceByOpt,
    SliceResamplesOpt,
    TitleOpt,
    WideOpt,
)
from .typer_app import (
    EXIT_GATE_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    Stopped,
    app,
    app_for,
    command,
    debugging,
    describe_failure,
    exit_now,
    exit_stopped,
    plain_when_no_color,
    stop_on_signals,
)

if TYPE_CHECKING:
    from ..api import (
        agree_files,
        compare_errors,
        compare_files,
        evaluate_files,
        gate_files,
        msg,
        report_files,
        run_demo,
    )
    from ..engine.gates import GateVerdict

__all__ = ["app", "exit_by_gate", "main", "run_job"]

# The API loads the engine, the readers and numpy, which --help and a usage error do not need:
# its names are imported when a command runs (PEP 562 keeps ``cli.evaluate_files`` readable).
_API = (
    "agree_files",
    "compare_errors",
    "compare_files",
    "evaluate_files",
    "gate_files",
    "msg",
    "report_files",
    "run_demo",
)


def _load_api() -> None:
    """Import the API's names into this module, once; a name already set (a test's stand-in)
    stays."""
    from .. import api

    for name in _API:
        globals().setdefault(name, getattr(api, name))


def __getattr__(name: str) -> Any:
    if name not in _API:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _load_api()
    return globals()[name]


T = TypeVar("T")


def _shows_details(output_format: str, scoring: ScoringOptions) -> bool:
    """Whether the output shows confusion cells, error kinds or error records: the text
    table shows none unless ``--errors`` asks for records, so a text run need not count
    them."""
    return output_format != "text" or scoring.errors > 0


def run_job(job: Callable[[], T]) -> T:
    """Run a command's work; every failure is exit 2 with one line on stderr (exit 1 is only
    ever a breached gate, which the commands decide), Ctrl-C is exit 130."""
    _load_api()
    try:
        return job()
    except typer.Exit:
        raise
    except KeyboardInterrupt:
        msg.fail("Interrupted")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except Exception as exc:  # a crash must not read as "floor breached"
        if debugging():
            traceback.print_exception(exc, file=sys.stderr)
        msg.fail(describe_failure(exc, debug=debugging()))
    raise typer.Exit(EXIT_USAGE)


def exit_by_gate(verdict: GateVerdict | None) -> NoReturn:
    """Exit 1 when the gate was breached, else 0 (no gate: 0)."""
    raise typer.Exit(EXIT_GATE_FAILED if verdict is not None and not verdict.passed else EXIT_OK)


# Each command hands its parameters to the API function by name, so a type checker holds
# the two doors together.


@command(app, "evaluate")
def evaluate_cli(
    gold: GoldFile,
    pred: PredFile = None,
    *,
    model: ModelOpt = None,
    scoring: Annotated[ScoringOptions, SCORING_FLAGS],
    output_format: FormatOpt = "text",
    wide: WideOpt = False,
    output: OutputOpt = None,
    per_document: PerDocumentOpt = None,
    slice_by: SliceByOpt = None,
    resamples: SliceResamplesOpt = 0,
    seed: SeedOpt = 0,
    confidence: ConfidenceOpt = 0.95,
    reading: Annotated[ReadingOptions, READING_FLAGS],
    run: Annotated[RunOptions, RUN_FLAGS],
    silent: SilentOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Score PRED (or --model run on GOLD) against GOLD: per-label tables per threshold."""
    run_job(
        lambda: evaluate_files(
            gold,
            pred,
            model=model,
            reading=reading,
            scoring=scoring,
            run=run,
            output_format=output_format,
            output=output,
            per_document=per_document,
            slice_by=slice_by or (),
            resamples=resamples,
            seed=seed,
            confidence=confidence,
            wide=wide,
            silent=silent,
            quiet=quiet,
            details=_shows_details(output_format, scoring),
        )
    )


@command(app, "gate")
def gate_cli(
    gold: GoldFile,
    pred: PredFile = None,
    *,
    floors: FloorsOpt,
    choose_thresholds: ChooseThresholdsOpt = None,
    model: ModelOpt = None,
    scoring: Annotated[ScoringOptions, GATE_SCORING_FLAGS],
    output_format: FormatOpt = "text",
    wide: WideOpt = False,
    output: OutputOpt = None,
    slice_by: SliceByOpt = None,
    reading: Annotated[ReadingOptions, READING_FLAGS],
    run: Annotated[RunOptions, RUN_FLAGS],
    silent: SilentOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Check per-label floors: exit 1 when one is breached (or a gated label has no gold)."""
    report = run_job(
        lambda: gate_files(
            gold,
            pred,
            floors=floors,
            choose_thresholds=choose_thresholds,
            slice_by=slice_by or (),
            model=model,
            reading=reading,
            scoring=scoring,
            run=run,
            output_format=output_format,
            output=output,
            wide=wide,
            silent=silent,
            quiet=quiet,
            details=_shows_details(output_format, scoring),
        )
    )
    exit_by_gate(report.verdict)


@command(app, "report")
def report_cli(
    gold: GoldFile,
    pred: PredFile = None,
    *,
    model: ModelOpt = None,
    output: ReportOutputOpt,
    scoring: Annotated[ScoringOptions, REPORT_SCORING_FLAGS],
    floors: ReportFloorsOpt = None,
    resamples: ResamplesOpt = 1000,
    seed: SeedOpt = 0,
    confidence: ConfidenceOpt = 0.95,
    title: TitleOpt = None,
    slice_by: SliceByOpt = None,
    reading: Annotated[ReadingOptions, READING_FLAGS],
    run: Annotated[RunOptions, RUN_FLAGS],
    silent: SilentOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Write a self-contained HTML report of the scores, with intervals and an error browser.

    The page shows the scores with bootstrap intervals, curves against the IoU threshold,
    the confusion heatmap, an error browser and (--floors) the gate.
    """
    report = run_job(
        lambda: report_files(
            gold,
            pred,
            model=model,
            output=output,
            reading=reading,
            scoring=scoring,
            run=run,
            floors=floors,
            resamples=resamples,
            seed=seed,
            confidence=confidence,
            title=title,
            slice_by=slice_by or (),
            silent=silent,
            quiet=quiet,
        )
    )
    exit_by_gate(report.verdict)


@command(app, "compare")
def compare_cli(
    gold: GoldFile,
    pred_a: PredAFile,
    pred_b: PredBFile,
    *,
    name_a: NameAOpt = None,
    name_b: NameBOpt = None,
    scoring: Annotated[ScoringOptions, COMPARE_SCORING_FLAGS],
    resamples: CompareResamplesOpt = 1000,
    seed: SeedOpt = 0,
    confidence: ConfidenceOpt = 0.95,
    method: MethodOpt = "permutation",
    output_format: CompareFormatOpt = "text",
    output: OutputOpt = None,
    errors: CompareErrorsOpt = None,
    title: TitleOpt = None,
    slice_by: SliceByOpt = None,
    reading: Annotated[ReadingOptions, COMPARE_READING_FLAGS],
    run: Annotated[RunOptions, COMPARE_RUN_FLAGS],
    silent: SilentOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Compare two systems on GOLD: which one is better, by how much, and how sure.

    Per label, micro and macro: the differences in P, R and F with paired-bootstrap intervals
    and paired permutation p-values (documents swapped between the systems), and a verdict in
    plain words for each figure.
    """
    named = (name_a, name_b) != (None, None)
    run_job(
        lambda: compare_files(
            gold,
            pred_a,
            pred_b,
            names=(name_a or "A", name_b or "B") if named else None,
            reading=reading,
            scoring=scoring,
            run=run,
            errors=compare_errors(errors, output_format),
            resamples=resamples,
            seed=seed,
            confidence=confidence,
            method=method,
            output_format=output_format,
            output=output,
            title=title,
            silent=silent,
            quiet=quiet,
            slice_by=slice_by or (),
        )
    )


@command(app, "agree")
def agree_cli(
    files: AnnotatorFiles,
    *,
    names: AnnotatorNamesOpt = None,
    annotators: AnnotatorsOpt = None,
    scoring: Annotated[ScoringOptions, AGREE_SCORING_FLAGS],
    queue: QueueOpt = 20,
    floors: AlphaFloorsOpt = None,
    resamples: ResamplesOpt = 1000,
    seed: SeedOpt = 0,
    confidence: ConfidenceOpt = 0.95,
    write_consensus: ConsensusOpt = None,
    output_format: AgreeFormatOpt = None,
    output: OutputOpt = None,
    reading: Annotated[ReadingOptions, AGREE_READING_FLAGS],
    silent: SilentOpt = False,
) -> None:
    """How far annotators agree: one file or folder each, or one export with --annotators.

    Each pair scored as evaluate scores it (the row's annotator as gold) on the documents both
    saw, Krippendorff's alpha (nominal, per token or character, overall and per label), each
    annotator's mean F with the others, and the documents by contested spans.
    """
    agreement = run_job(
        lambda: agree_files(
            *files,
            names=[n.strip() for n in names.split(",")] if names else None,
            annotators=[a.strip() for a in annotators.split(",")] if annotators else None,
            reading=reading,
            scoring=scoring,
            queue=queue,
            floors=floors,
            resamples=resamples,
            seed=seed,
            confidence=confidence,
            write_consensus=write_consensus,
            output_format=output_format,
            output=output,
            silent=silent,
        )
    )
    raise typer.Exit(EXIT_OK if agreement.passed else EXIT_GATE_FAILED)


@command(app, "demo")
def demo_cli(
    floors: DemoFloorsOpt = None,
    errors: ErrorsOpt = 0,
    output_format: FormatOpt = "text",
    wide: WideOpt = False,
) -> None:
    """Score the built-in demo corpus (no download) at IoU 0.5, 0.75, 1.0 and gate it."""
    report = run_job(
        lambda: run_demo(
            floors=floors, errors=errors, output_format=output_format, wide=wide, silent=False
        )
    )
    exit_by_gate(report.verdict)


@command(app, "convert")
def convert_cli(
    source: GoldFile,
    output: DocBinFile,
    *,
    limit: LimitOpt = 0,
    reading: Annotated[ReadingOptions, CONVERT_READING_FLAGS],
    lang: LangOpt = "en",
) -> None:
    """Convert a gold file to a .spacy DocBin for spacy train (the workflow's convert step)."""
    from ..jobs.convert import convert_split  # (loads the engine, which --help need not)

    r = run_job(
        lambda: convert_split(str(source), output, limit=limit or None, reading=reading, lang=lang)
    )  # never over SOURCE, written atomically
    msg.good(f"{plural(r.documents, 'document')}, {plural(r.spans, 'span')} -> {output}")
    for what, n in sorted(r.read.items()):  # what the reader read differently or left out
        msg.info(f"{n} {what}")
    if r.kept:
        msg.warn(
            f"{sum(r.kept.values())} of them {r.kept_summary()} "
            "(in user_data['span_eval_kept_gold']; every score counts them)"
        )
    for reason, n in sorted(r.problems.items()):
        msg.warn(f"{n} x {reason}")
    for example in r.examples:
        msg.text(f"  e.g. {example}")


@command(app, "demo-corpus")
def demo_corpus_cli(folder: CorpusFolder = Path("assets/demo")) -> None:
    """Write the embedded demo corpus's splits as JSONL (the files in assets/demo)."""
    from ..readers.demo_corpus import write_splits  # (loads the engine, as above)

    for written in run_job(lambda: write_splits(folder)):
        msg.good(f"Wrote {written}")


def main() -> None:
    """Console-script entry point. A failure outside a command's own handling (while typer
    parses the arguments) is exit 2 with one line too, never a traceback with exit 1.
    SIGTERM and SIGHUP stop the command as Ctrl-C does, with exit 128 + the signal's number
    and one line (:func:`.typer_app.stop_on_signals`)."""
    plain_when_no_color()
    with stop_on_signals():
        try:
            app_for(sys.argv[1:])()
        except Stopped as stopped:
            exit_stopped(stopped)
        except KeyboardInterrupt:
            _load_api()
            msg.fail("Interrupted")
            exit_now(EXIT_INTERRUPTED)
        except SystemExit as exc:
            if exc.code == EXIT_INTERRUPTED:
                exit_now(EXIT_INTERRUPTED)
            raise
        except Exception as exc:
            line = describe_failure(exc, debug=debugging())
            try:
                _load_api()
            except Exception:  # (too little memory left to load the printer of messages)
                print(f"\u2718 {printable(line)}", file=sys.stderr)
            else:
                msg.fail(line)
            sys.exit(EXIT_USAGE)
