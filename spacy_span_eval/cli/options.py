"""The command-line options, each declared once, and how a command takes a whole dataclass of
them.

Every flag and argument is an ``Annotated`` type below: its typer declaration (names, help,
checks) written once and reused by every command that has it. The flags that fill a
:class:`~spacy_span_eval.readers.ReadingOptions` or a
:class:`~spacy_span_eval.jobs.options.ScoringOptions` are grouped into :class:`Flags` sets, and
a command takes the dataclass itself, naming the set in the annotation::

    @app.command("evaluate")
    @takes_options
    def evaluate_cli(gold: GoldFile, pred: PredFile = None, *,
                     scoring: Annotated[ScoringOptions, SCORING_FLAGS],
                     reading: Annotated[ReadingOptions, READING_FLAGS], ...) -> None:

:func:`takes_options` puts the set's flags into the command's signature, where typer looks for
parameters, and calls the command with the filled-in dataclass (and every choice as its plain
string).

Why generate these parameters instead of writing them out: written out, the four scoring
commands declared 22-27 parameters each and collected them again by hand into the options, so
a new option meant five edits that had to agree. Here a new reading or scoring option is a
dataclass field, a flag type and a line in its set; ``--help``, parsing and the value the
command sees follow. The parameters that differ per command (its arguments, ``--output``,
``--floors``, the interval options) stay written out, so a command's signature still says what
it takes, and a command whose flags differ names a variant set made with :meth:`Flags.but`
(``gate`` takes its strategy from the floors; ``report`` and ``compare`` have one main
``--threshold``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, get_args, get_origin

import attrs
import typer

from ..engine.settings import COMPARE_METHODS, DEFAULT_STRATEGY, STRATEGY_NAMES
from ..engine.spans import UNITS
from ..jobs.options import RunOptions, ScoringOptions
from ..readers.align import ALIGN_MODES
from ..readers.conll import DELIMITERS
from ..readers.formats import FORMATS
from ..readers.options import PAIRS_MODES, ReadingOptions
from ..readers.schemes import REPAIR_POLICIES, SCHEME_ALIASES, SCHEMES
from ..render.formats import COMPARE_FORMATS, OUTPUT_FORMATS

__all__ = [
    "COMPARE_READING_FLAGS",
    "COMPARE_RUN_FLAGS",
    "COMPARE_SCORING_FLAGS",
    "CONVERT_READING_FLAGS",
    "GATE_SCORING_FLAGS",
    "READING_FLAGS",
    "REPORT_SCORING_FLAGS",
    "RUN_FLAGS",
    "SCORING_FLAGS",
    "Flags",
    "takes_options",
]


def _choices(name: str, values: Iterable[str]) -> Any:
    """An Enum that typer shows and checks as a choice, built from the names the layers below
    define; the command gets the string (:func:`_plain`), which is what type checkers see."""
    return Enum(name, {v: v for v in values}, type=str)


if TYPE_CHECKING:  # a command receives the choice as its string
    Strategy = str
    Unit = str
    OutputFormat = str
    InputFormat = str
    Scheme = str
    Repair = str
    Delimiter = str
    Align = str
    Pairs = str
    CompareFormat = str
    CompareMethod = str
else:
    Strategy = _choices("Strategy", STRATEGY_NAMES)
    Unit = _choices("Unit", UNITS)
    OutputFormat = _choices("OutputFormat", OUTPUT_FORMATS)
    InputFormat = _choices("InputFormat", FORMATS)
    Scheme = _choices("Scheme", (*SCHEMES, *SCHEME_ALIASES))
    Repair = _choices("Repair", REPAIR_POLICIES)
    Delimiter = _choices("Delimiter", DELIMITERS)
    Align = _choices("Align", ALIGN_MODES)
    Pairs = _choices("Pairs", PAIRS_MODES)
    CompareFormat = _choices("CompareFormat", COMPARE_FORMATS)
    CompareMethod = _choices("CompareMethod", COMPARE_METHODS)

# --- Arguments ---------------------------------------------------------------------------

GoldFile = Annotated[
    Path,
    typer.Argument(
        metavar="GOLD",
        help="Gold file or folder, in any input format (see --input-format): "
        + ", ".join(fmt.shown for fmt in FORMATS.values()),
        show_default=False,
    ),
]
PredFile = Annotated[
    Path | None,
    typer.Argument(
        metavar="PRED",
        help="Predictions file (same text as gold); or use --model",
        show_default=False,
    ),
]
PredAFile = Annotated[
    Path, typer.Argument(metavar="PRED_A", help="Predictions of system A", show_default=False)
]
PredBFile = Annotated[
    Path, typer.Argument(metavar="PRED_B", help="Predictions of system B", show_default=False)
]
DocBinFile = Annotated[
    Path, typer.Argument(metavar="OUTPUT", help="The .spacy file to write", show_default=False)
]
CorpusFolder = Annotated[
    Path, typer.Argument(metavar="FOLDER", help="Folder for train/dev/test.jsonl")
]

# --- What to score -------------------------------------------------------------------------

ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        "-m",
        metavar="MODEL",
        help="Trained pipeline (path or package) to run on the gold documents "
        "instead of a predictions file",
    ),
]
FloorsOpt = Annotated[
    Path,
    typer.Option(
        "--floors",
        metavar="FILE",
        help="Floors file (JSON/YAML/.cfg): per-label recall/precision/f floors and min_support",
        show_default=False,
    ),
]
DemoFloorsOpt = Annotated[
    Path | None,
    typer.Option(
        "--floors", metavar="FILE", help="Floors file (default: the built-in demo floors)"
    ),
]
ReportFloorsOpt = Annotated[
    Path | None,
    typer.Option(
        "--floors",
        metavar="FILE",
        help="Floors file: show the gate verdict (exit 1 when a floor is breached)",
    ),
]

# --- Scoring (fields of ScoringOptions) ----------------------------------------------------

StrategyOpt = Annotated[
    Strategy,
    typer.Option("--strategy", "-s", help="Matching strategy"),
]
FloorsStrategyOpt = Annotated[
    Strategy | None,
    typer.Option(
        "--strategy", "-s", help="Matching strategy (default: the floors file's, else two_sided)"
    ),
]
ThresholdsOpt = Annotated[
    list[float],
    typer.Option(
        "--threshold",
        "-t",
        metavar="TAU",
        help="IoU threshold, repeatable (two_sided; default 0.5)",
    ),
]
MainThresholdOpt = Annotated[
    float,
    typer.Option(
        "--threshold",
        "-t",
        metavar="TAU",
        help="Main IoU threshold (two_sided): scores, intervals, confusion "
        "and errors; the curve spans 0.05-1.0",
    ),
]
BetaOpt = Annotated[
    float, typer.Option("--beta", metavar="BETA", help="F-beta weight (2.0 favours recall)")
]
LabelMapOpt = Annotated[
    Path | None,
    typer.Option(
        "--label-map", metavar="FILE", help="Label map file (JSON/YAML/.cfg): alias -> canonical"
    ),
]
StrictLabelsOpt = Annotated[
    bool,
    typer.Option(
        "--strict-labels",
        metavar="",
        help="A label the map does not know is an error instead of passing through",
    ),
]
HierarchyOpt = Annotated[
    Path | None,
    typer.Option(
        "--hierarchy",
        metavar="FILE",
        help="Hierarchy file: levels such as branch, binary, each scored too",
    ),
]
LabelsOpt = Annotated[
    list[str],
    typer.Option(
        "--labels",
        metavar="LABEL,...",
        help="Score only these labels (as named after the label "
        "map; comma-separated or repeated); the other labels' spans are left out on both sides",
        show_default=False,
    ),
]
ErrorsOpt = Annotated[
    int,
    typer.Option(
        "--errors",
        min=0,
        metavar="N",
        help="Show (and keep in JSON) the first N error records per table",
    ),
]
ReportErrorsOpt = Annotated[
    int,
    typer.Option(
        "--errors",
        min=0,
        metavar="N",
        help="Error records kept for the error browser (the first ones, in document order)",
    ),
]
CompareErrorsOpt = Annotated[
    int | None,
    typer.Option(
        "--errors", min=0, metavar="N", help="html: error records kept per system (default 300)"
    ),
]

# --- Reading (fields of ReadingOptions) ----------------------------------------------------

InputFormatOpt = Annotated[
    InputFormat | None,
    typer.Option(
        "--input-format",
        help="Input format of both files (default: from each file name; no extension means CoNLL)",
    ),
]
UnitOpt = Annotated[
    Unit | None,
    typer.Option(
        "--unit", help="Span unit (default: the gold format's own: token for CoNLL, char otherwise)"
    ),
]
SchemeOpt = Annotated[
    Scheme,
    typer.Option("--scheme", help="CoNLL tag scheme"),
]
RepairOpt = Annotated[
    Repair,
    typer.Option("--repair", help="CoNLL: what to do with ill-formed chunks"),
]
TagColumnOpt = Annotated[
    int,
    typer.Option("--tag-column", metavar="COLUMN", help="CoNLL: tag column (0-based; -1 = last)"),
]
PredTagColumnOpt = Annotated[
    int | None,
    typer.Option(
        "--pred-tag-column",
        metavar="COLUMN",
        help="CoNLL: tag column of the predictions file, if it differs (e.g. "
        "-1 and --tag-column -2 to read a conlleval-style file twice)",
    ),
]
DelimiterOpt = Annotated[
    Delimiter,
    typer.Option("--delimiter", help="CoNLL column separator"),
]
AlignOpt = Annotated[
    Align,
    typer.Option(
        "--align",
        help="How gold and predicted content must agree. 'text': the same tokens or the "
        "same text (texts that differ only in trailing whitespace pair, counted); "
        "'position': token files (CoNLL) pair each sentence's tokens by position, as "
        "conlleval does, counting the tokens whose strings differ; 'chars': character texts "
        "(every format, in char unit) are aligned character by character, predicted offsets "
        "are moved onto the gold text, and spans on changed characters are counted and "
        "listed (texts sharing under 90% of their characters are refused)",
    ),
]
SpansKeyOpt = Annotated[
    str,
    typer.Option(
        "--spans-key", metavar="KEY", help=".spacy and --model: 'ents' or a span group key"
    ),
]
ModelVersionOpt = Annotated[
    str | None,
    typer.Option(
        "--model-version",
        metavar="VERSION",
        help="Label Studio: the predictions' model_version to read as predictions "
        "(default: the only one; several are refused, naming them)",
    ),
]
AnnotatorOpt = Annotated[
    str | None,
    typer.Option(
        "--annotator",
        metavar="NAME",
        help="Prodigy: read only this _annotator_id's answers (multi-annotator db-out)",
    ),
]
SessionOpt = Annotated[
    str | None,
    typer.Option(
        "--session",
        metavar="NAME",
        help="Prodigy: read only this _session_id's answers (multi-annotator db-out)",
    ),
]
PairsOpt = Annotated[
    Pairs,
    typer.Option(
        "--pairs",
        help="'both': every document of either file must pair; 'gold': score the gold "
        "file's documents (predictions for other documents are counted and left out)",
    ),
]
NProcessOpt = Annotated[
    int,
    typer.Option(
        "--n-process",
        min=1,
        metavar="N",
        help="Worker processes: for nlp.pipe with --model, else for scoring "
        "(same numbers as one process)",
    ),
]
BatchSizeOpt = Annotated[
    int, typer.Option("--batch-size", min=1, metavar="N", help="--model: nlp.pipe batch size")
]
CodeOpt = Annotated[
    str | None,
    typer.Option(
        "--code",
        "-c",
        metavar="FILE",
        help="--model: Python file to import first (registered "
        "functions and components the pipeline needs), as spaCy's --code",
    ),
]
GpuIdOpt = Annotated[
    int,
    typer.Option(
        "--gpu-id",
        "-g",
        metavar="N",
        help="--model: GPU to run the pipeline on (-1: CPU), as spaCy's --gpu-id",
    ),
]
DaskSchedulerOpt = Annotated[
    str | None,
    typer.Option(
        "--dask-scheduler",
        metavar="ADDRESS",
        help="Score on this Dask cluster (tcp://host:8786; needs spacy-span-eval\\[dask])",
    ),
]
ConnectTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--connect-timeout",
        metavar="SECONDS",
        help="--dask-scheduler: seconds to wait for the scheduler to answer",
    ),
]

# --- Output --------------------------------------------------------------------------------

FormatOpt = Annotated[
    OutputFormat,
    typer.Option("--format", "-f", help="Report format"),
]
CompareFormatOpt = Annotated[
    CompareFormat,
    typer.Option(
        "--format", "-f", help="Output format (html: the report with both systems side by side)"
    ),
]
WideOpt = Annotated[
    bool,
    typer.Option(
        "--wide",
        metavar="",
        help="Text and Markdown: a full ledger table per threshold (gold, pred, TP, FN, "
        "credited, FP, P, R, F) instead of the thresholds side by side",
    ),
]
OutputOpt = Annotated[
    Path | None,
    typer.Option("--output", "-o", metavar="FILE", help="Write the report to this file"),
]
ReportOutputOpt = Annotated[
    Path,
    typer.Option(
        "--output",
        "-o",
        metavar="FILE",
        help="Write the HTML report to this file",
        show_default=False,
    ),
]
TitleOpt = Annotated[
    str | None, typer.Option("--title", metavar="TEXT", help="Title of the HTML page")
]
PerDocumentOpt = Annotated[
    Path | None,
    typer.Option(
        "--per-document",
        metavar="FILE",
        help="Also write each document's ledgers (and errors = "
        "FN + FP, to sort by) to this file: JSON Lines (.jsonl) or CSV (.csv), by its suffix",
    ),
]
SilentOpt = Annotated[
    bool,
    typer.Option(
        "--silent", metavar="", help="Print nothing; only the exit code and --output speak"
    ),
]
QuietOpt = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        metavar="",
        help="No progress bar (shown on a terminal for long files and model runs)",
    ),
]

# --- Intervals and the paired test (report, compare) ---------------------------------------

ResamplesOpt = Annotated[
    int,
    typer.Option(
        "--resamples",
        min=0,
        metavar="N",
        help="Bootstrap resamples of the documents (0: no intervals)",
    ),
]
CompareResamplesOpt = Annotated[
    int, typer.Option("--resamples", min=1, metavar="N", help="Paired resamples of the documents")
]
SeedOpt = Annotated[
    int,
    typer.Option(
        "--seed",
        metavar="SEED",
        help="Seed of the resampling: the same seed gives the same intervals and p-values",
    ),
]
ConfidenceOpt = Annotated[
    float,
    typer.Option(
        "--confidence",
        min=0.5,
        max=0.999,
        metavar="LEVEL",
        help="Coverage of the percentile intervals",
    ),
]
MethodOpt = Annotated[
    CompareMethod,
    typer.Option("--method", help="p-value: paired bootstrap or approximate randomization"),
]
NameAOpt = Annotated[
    str | None,
    typer.Option("--name-a", metavar="NAME", help="Name of system A (default: its file name)"),
]
NameBOpt = Annotated[
    str | None,
    typer.Option("--name-b", metavar="NAME", help="Name of system B (default: its file name)"),
]

# --- convert ---------------------------------------------------------------------------------

LimitOpt = Annotated[
    int, typer.Option("--limit", min=0, metavar="N", help="At most this many documents (0: all)")
]
LangOpt = Annotated[
    str, typer.Option("--lang", metavar="LANG", help="Language of the blank tokenizer")
]


class Flags:
    """The flags that fill one options dataclass, in ``--help`` order.

    Each keyword names a field of ``target`` and gives its flag type, whose default is the
    field's own, or a ``(flag type, default)`` pair when the command line's default differs
    (an empty repeatable flag, or a command's own default). A field without a flag keeps its
    dataclass default.
    """

    def __init__(self, target: type, **flags: Any) -> None:
        defaults = {f.name: f.default for f in attrs.fields(target)}
        unknown = sorted(set(flags) - set(defaults))
        if unknown:
            raise TypeError(f"{target.__name__} has no field {', '.join(unknown)}")
        self.target = target
        self.flags: dict[str, tuple[Any, Any]] = {
            name: flag if isinstance(flag, tuple) else (flag, defaults[name])
            for name, flag in flags.items()
        }

    def but(self, **changes: Any) -> Flags:
        """These flags with some replaced (as in the constructor) or left out (``None``)."""
        merged = {**self.flags, **changes}
        return Flags(self.target, **{k: v for k, v in merged.items() if v is not None})

    def only(self, *names: str) -> Flags:
        """These flags for the fields ``names`` only."""
        return Flags(self.target, **{k: v for k, v in self.flags.items() if k in names})

    def parameters(self) -> list[inspect.Parameter]:
        """The flags as keyword parameters, for a command's signature."""
        return [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=annotation,
                default=inspect.Parameter.empty if default is attrs.NOTHING else default,
            )
            for name, (annotation, default) in self.flags.items()
        ]

    def collect(self, values: dict[str, Any]) -> Any:
        """The dataclass, from (and taking out of) a command's parsed ``values``."""
        given = {name: values.pop(name) for name in self.flags}
        # A repeatable flag given no times leaves the field's default.
        return self.target(**{k: v for k, v in given.items() if v != ()})


def _plain(value: Any) -> Any:
    """A parsed value as the layers below take it: a choice as its string, a list a tuple."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list):
        return tuple(_plain(v) for v in value)
    return value


def _flags_of(annotation: Any) -> Flags | None:
    if get_origin(annotation) is not Annotated:
        return None
    target, *extras = get_args(annotation)
    for extra in extras:
        if isinstance(extra, Flags):
            if extra.target is not target:
                raise TypeError(
                    f"{annotation}: flags of {extra.target.__name__}, not {target.__name__}"
                )
            return extra
    return None


def takes_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Let a typer command take options dataclasses.

    Each keyword-only parameter annotated ``Annotated[SomeOptions, SOME_FLAGS]`` is replaced,
    in the signature typer reads, by the flags of ``SOME_FLAGS``; the command is called with
    the dataclass filled in from them. Every choice reaches the command as its string.
    """
    signature = inspect.signature(command, eval_str=True)
    sets: dict[str, Flags] = {}
    parameters: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        flags = _flags_of(parameter.annotation)
        if flags is None:
            parameters.append(parameter)
            continue
        if parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
            raise TypeError(f"{command.__name__}: make {parameter.name} keyword-only (after *)")
        sets[parameter.name] = flags
        parameters.extend(flags.parameters())
    names = [p.name for p in parameters]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise TypeError(f"{command.__name__}: {', '.join(repeated)} declared twice")

    @functools.wraps(command)
    def run(**values: Any) -> Any:
        values = {name: _plain(value) for name, value in values.items()}
        for name, flags in sets.items():
            try:
                values[name] = flags.collect(values)
            except ValueError as exc:  # a value the dataclass refuses (beta nan, ...)
                raise typer.BadParameter(str(exc)) from None
        return command(**values)

    run.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in parameters}
    return run


# --- The option sets -------------------------------------------------------------------------

#: How to read the files: every command that reads gold and predictions.
READING_FLAGS = Flags(
    ReadingOptions,
    input_format=InputFormatOpt,
    unit=UnitOpt,
    scheme=SchemeOpt,
    repair=RepairOpt,
    tag_column=TagColumnOpt,
    pred_tag_column=PredTagColumnOpt,
    delimiter=DelimiterOpt,
    source=SpansKeyOpt,
    align=AlignOpt,
    model_version=ModelVersionOpt,
    annotator=AnnotatorOpt,
    session=SessionOpt,
    pairs=PairsOpt,
)
#: compare reads two prediction files, never runs a pipeline.
COMPARE_READING_FLAGS = READING_FLAGS
#: convert reads one gold file.
CONVERT_READING_FLAGS = READING_FLAGS.only("input_format", "scheme", "annotator", "session")

#: Where the work is done: every command that reads gold and predictions.
RUN_FLAGS = Flags(
    RunOptions,
    n_process=NProcessOpt,
    batch_size=BatchSizeOpt,
    code=CodeOpt,
    gpu_id=GpuIdOpt,
    dask_scheduler=DaskSchedulerOpt,
    connect_timeout=ConnectTimeoutOpt,
)
#: compare: never runs a pipeline.
COMPARE_RUN_FLAGS = RUN_FLAGS.only("n_process", "dask_scheduler", "connect_timeout")

#: How to score: evaluate's flags.
SCORING_FLAGS = Flags(
    ScoringOptions,
    strategy=(StrategyOpt, DEFAULT_STRATEGY),
    thresholds=(ThresholdsOpt, []),
    beta=BetaOpt,
    label_map=LabelMapOpt,
    strict_labels=StrictLabelsOpt,
    hierarchy=HierarchyOpt,
    errors=ErrorsOpt,
    labels=(LabelsOpt, []),
)
#: gate: the strategy defaults to the floors file's.
GATE_SCORING_FLAGS = SCORING_FLAGS.but(strategy=FloorsStrategyOpt)
#: report: the floors' strategy, one main threshold, 300 error records, no hierarchy.
REPORT_SCORING_FLAGS = GATE_SCORING_FLAGS.but(
    thresholds=(MainThresholdOpt, 0.5), errors=(ReportErrorsOpt, 300), hierarchy=None
)
#: compare: one main threshold, no hierarchy; its --errors depends on --format, so the
#: command declares it.
COMPARE_SCORING_FLAGS = SCORING_FLAGS.but(
    thresholds=(MainThresholdOpt, 0.5), errors=None, hierarchy=None
)
