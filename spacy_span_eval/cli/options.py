"""The command-line options, each declared once: every flag and argument is an ``Annotated``
type (its typer declaration: names, help, checks) reused by every command that has it, and
the flags that fill an options dataclass (reading, scoring, running) are grouped into a
:class:`~.flag_sets.Flags` set per command, which the command takes whole
(:func:`~.flag_sets.takes_options`). A command whose flags differ names a variant set made
with :meth:`~.flag_sets.Flags.but` (``gate`` takes its strategy from the floors; ``report``
and ``compare`` have one main ``--threshold``).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..engine.settings import COMPARE_METHODS, DEFAULT_STRATEGY, STRATEGY_NAMES
from ..engine.spans import UNITS
from ..jobs.options import RunOptions, ScoringOptions
from ..readers.conll import DELIMITERS
from ..readers.formats import FORMATS
from ..readers.options import ALIGN_MODES, PAIRS_MODES, ReadingOptions
from ..readers.schemes import REPAIR_POLICIES, SCHEME_ALIASES, SCHEMES
from ..render.formats import COMPARE_FORMATS, OUTPUT_FORMATS
from .flag_sets import Flags, flag

__all__ = [
    "AGREE_READING_FLAGS",
    "AGREE_SCORING_FLAGS",
    "COMPARE_READING_FLAGS",
    "COMPARE_RUN_FLAGS",
    "COMPARE_SCORING_FLAGS",
    "CONVERT_READING_FLAGS",
    "GATE_SCORING_FLAGS",
    "READING_FLAGS",
    "REPORT_SCORING_FLAGS",
    "RUN_FLAGS",
    "SCORING_FLAGS",
]


def _choices(name: str, values: Iterable[str]) -> Any:
    """An Enum that typer shows and checks as a choice, built from the names the layers below
    define; the command gets the string (``flag_sets._plain``), which is what type checkers see."""
    return Enum(name, {v: v for v in values}, type=str)


if TYPE_CHECKING:  # a command receives the choice as its string
    Strategy = str
    Unit = str
    OutputFormat = str
    CompareFormat = str
    CompareMethod = str
else:
    Strategy = _choices("Strategy", STRATEGY_NAMES)
    Unit = _choices("Unit", UNITS)
    OutputFormat = _choices("OutputFormat", OUTPUT_FORMATS)
    CompareFormat = _choices("CompareFormat", COMPARE_FORMATS)
    CompareMethod = _choices("CompareMethod", COMPARE_METHODS)
# Choices that only flag sets use (the command gets the dataclass, not the flag).
InputFormat = _choices("InputFormat", FORMATS)
Scheme = _choices("Scheme", (*SCHEMES, *SCHEME_ALIASES))
Repair = _choices("Repair", REPAIR_POLICIES)
Delimiter = _choices("Delimiter", DELIMITERS)
Align = _choices("Align", ALIGN_MODES)
Pairs = _choices("Pairs", PAIRS_MODES)

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
AnnotatorFiles = Annotated[
    list[Path],
    typer.Argument(
        metavar="FILE",
        help="One file or folder per annotator, in any input format; documents pair by id",
        show_default=False,
    ),
]
AnnotatorNamesOpt = Annotated[
    str | None,
    typer.Option(
        "--names", metavar="NAME,...", help="The annotators' names (default: the file stems)"
    ),
]
AnnotatorsOpt = Annotated[
    str | None,
    typer.Option(
        "--annotators",
        metavar="NAME,...",
        help="One multi-annotator export (Prodigy db-out, Label Studio, a doccano zip): "
        "read it once per annotator named here, as --annotator reads one",
    ),
]
AlphaFloorsOpt = Annotated[
    Path | None,
    typer.Option(
        "--floors",
        metavar="FILE",
        help='Least alpha per label (JSON/YAML/.cfg: {"alpha": {"PER": 0.8}}): exit 1 '
        "naming each label below its floor",
    ),
]
ConsensusOpt = Annotated[
    Path | None,
    typer.Option(
        "--write-consensus",
        metavar="FILE",
        help="Write the majority gold (JSON Lines; ties listed in each record, not kept)",
    ),
]
QueueOpt = Annotated[
    int,
    typer.Option(
        "--queue", min=0, metavar="N", help="Documents in the adjudication queue (0: all)"
    ),
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
ChooseThresholdsOpt = Annotated[
    Path | None,
    typer.Option(
        "--choose-thresholds",
        metavar="FILE",
        help="Sweep the predictions' scores: check each recall floor at the highest score "
        "threshold that meets it and write those thresholds to FILE (JSON)",
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

# --- Scoring (beside the fields of ScoringOptions, in the flag sets below) -----------------

StrategyOpt = Annotated[Strategy, typer.Option("--strategy", "-s", help="Matching strategy")]
ErrorsOpt = Annotated[
    int,
    typer.Option(
        "--errors",
        min=0,
        metavar="N",
        help="Show (and keep in JSON) the first N error records per table",
    ),
]
CompareErrorsOpt = Annotated[
    int | None,
    typer.Option(
        "--errors", min=0, metavar="N", help="html: error records kept per system (default 300)"
    ),
]

UnitOpt = Annotated[
    Unit | None,
    typer.Option(
        "--unit", help="Span unit (default: the gold format's own: token for CoNLL, char otherwise)"
    ),
]

# --- Output --------------------------------------------------------------------------------

FormatOpt = Annotated[OutputFormat, typer.Option("--format", "-f", help="Report format")]
CompareFormatOpt = Annotated[
    CompareFormat,
    typer.Option(
        "--format", "-f", help="Output format (html: the report with both systems side by side)"
    ),
]
AgreeFormatOpt = Annotated[
    CompareFormat | None,
    typer.Option(
        "--format",
        "-f",
        help="Output format [default: html when --output ends in .html, else text]",
        show_default=False,
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
SliceByOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--slice-by",
        metavar="FIELD",
        help="Also score each value's documents of this gold JSONL field (meta.KEY: one "
        "under meta) apart, with the worst slice per label (repeatable)",
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
    typer.Option("--method", help="p-value: paired permutation test or centred paired bootstrap"),
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


# --- The option sets -------------------------------------------------------------------------


def _input_format(files: str, default: str = "each file name") -> Any:
    """``--input-format``, its help naming the command's ``files`` (``"both files"``)."""
    return flag(
        InputFormat | None,
        "--input-format",
        help=f"Input format of {files} (default: from {default}; no extension means CoNLL)",
    )


#: How to read the files: every command that reads gold and predictions.
READING_FLAGS = Flags(
    ReadingOptions,
    input_format=_input_format("both files"),
    unit=UnitOpt,
    scheme=flag(Scheme, "--scheme", help="CoNLL tag scheme"),
    repair=flag(Repair, "--repair", help="CoNLL: what to do with ill-formed chunks"),
    tag_column=flag(
        int, "--tag-column", metavar="COLUMN", help="CoNLL: tag column (0-based; -1 = last)"
    ),
    pred_tag_column=flag(
        int | None,
        "--pred-tag-column",
        metavar="COLUMN",
        help="CoNLL: tag column of the predictions file, if it differs (e.g. "
        "-1 and --tag-column -2 to read a conlleval-style file twice)",
    ),
    delimiter=flag(Delimiter, "--delimiter", help="CoNLL column separator"),
    source=flag(
        str, "--spans-key", metavar="KEY", help=".spacy and --model: 'ents' or a span group key"
    ),
    align=flag(
        Align,
        "--align",
        help="How gold and predicted content must agree. 'text': the same tokens or the "
        "same text (texts that differ only in trailing whitespace pair, counted); "
        "'position': token files (CoNLL) pair each sentence's tokens by position, as "
        "conlleval does, counting the tokens whose strings differ; 'chars': character texts "
        "(every format, in char unit) are aligned character by character, predicted offsets "
        "are moved onto the gold text, and spans on changed characters are counted and "
        "listed (texts keeping under --align-share of their characters are refused)",
    ),
    align_share=flag(
        float,
        "--align-share",
        min=0.0,
        max=1.0,
        metavar="SHARE",
        help="--align chars: the least share of the longer text's characters two texts must "
        "keep to pair (substituted characters and quote, dash and Unicode normalisation "
        "differences are kept; any pair may lose 3)",
    ),
    model_version=flag(
        str | None,
        "--model-version",
        metavar="VERSION",
        help="Label Studio: the predictions' model_version to read as predictions "
        "(default: the only one; several are refused, naming them)",
    ),
    annotator=flag(
        str | None,
        "--annotator",
        metavar="NAME",
        help="Read only this annotator's annotations, both files: Prodigy's _annotator_id, "
        "Label Studio's completed_by (user id or email), a doccano zip's user",
    ),
    session=flag(
        str | None,
        "--session",
        metavar="NAME",
        help="Prodigy: read only this _session_id's answers, both files",
    ),
    gold_annotator=flag(
        str | None, "--gold-annotator", metavar="NAME", help="--annotator for the gold file"
    ),
    pred_annotator=flag(
        str | None,
        "--pred-annotator",
        metavar="NAME",
        help="--annotator for the predictions file",
    ),
    gold_session=flag(
        str | None, "--gold-session", metavar="NAME", help="--session for the gold file"
    ),
    pred_session=flag(
        str | None, "--pred-session", metavar="NAME", help="--session for the predictions file"
    ),
    pairs=flag(
        Pairs,
        "--pairs",
        help="'both': every document of either file must pair; 'gold': score the gold "
        "file's documents (predictions for other documents are counted and left out)",
    ),
)
#: compare reads two prediction files, never runs a pipeline.
COMPARE_READING_FLAGS = READING_FLAGS.but(input_format=_input_format("the three files"))
#: convert reads one gold file.
CONVERT_READING_FLAGS = READING_FLAGS.only("input_format", "scheme", "annotator", "session").but(
    input_format=_input_format("the gold file", "its file name")
)

#: agree reads one file per annotator, each as a gold file.
AGREE_READING_FLAGS = READING_FLAGS.only(
    "input_format",
    "unit",
    "scheme",
    "repair",
    "tag_column",
    "delimiter",
    "source",
    "align",
    "align_share",
    "annotator",
    "session",
)

#: Where the work is done: every command that reads gold and predictions.
RUN_FLAGS = Flags(
    RunOptions,
    n_process=flag(
        int,
        "--n-process",
        min=1,
        metavar="N",
        help="Worker processes: for nlp.pipe with --model, else for scoring "
        "(same numbers as one process)",
    ),
    batch_size=flag(int, "--batch-size", min=1, metavar="N", help="--model: nlp.pipe batch size"),
    code=flag(
        str | None,
        "--code",
        "-c",
        metavar="FILE",
        help="--model: Python file to import first (registered "
        "functions and components the pipeline needs), as spaCy's --code",
    ),
    gpu_id=flag(
        int,
        "--gpu-id",
        "-g",
        metavar="N",
        help="--model: GPU to run the pipeline on (-1: CPU), as spaCy's --gpu-id",
    ),
    dask_scheduler=flag(
        str | None,
        "--dask-scheduler",
        metavar="ADDRESS",
        help="Score on this Dask cluster (tcp://host:8786; needs the project's dask extra: "
        'pip install -e ".\\[dask]" in the clone)',
    ),
    connect_timeout=flag(
        float,
        "--connect-timeout",
        metavar="SECONDS",
        help="--dask-scheduler: seconds to wait for the scheduler to answer",
    ),
)
#: compare: never runs a pipeline.
COMPARE_RUN_FLAGS = RUN_FLAGS.only("n_process", "dask_scheduler", "connect_timeout")

#: report's and compare's one --threshold.
_MAIN_THRESHOLD = flag(
    float,
    "--threshold",
    "-t",
    metavar="TAU",
    help="Main IoU threshold (two_sided): scores, intervals, confusion and errors; the curve "
    "spans 0.05-1.0",
)

#: evaluate's and report's --sweep.
_SWEEP = flag(
    bool,
    "--sweep",
    metavar="",
    help="Sweep the predictions' scores: the ledger at every score, average precision "
    "per label and mAP, the best-F score, calibration error (every prediction needs a score)",
)
#: How to score: evaluate's flags.
SCORING_FLAGS = Flags(
    ScoringOptions,
    strategy=(StrategyOpt, DEFAULT_STRATEGY),
    strategy_options=(
        flag(
            list[str],
            "--option",
            metavar="KEY=VALUE",
            help="A strategy option, repeatable: coverage=pooled, one_to_one=true (two_sided); "
            "min_gold=0.7, min_pred=0.7 (overlap)",
            show_default=False,
        ),
        [],
    ),
    thresholds=(
        flag(
            list[float],
            "--threshold",
            "-t",
            metavar="TAU",
            help="IoU threshold, repeatable (two_sided; default 0.5)",
        ),
        [],
    ),
    beta=flag(float, "--beta", metavar="BETA", help="F-beta weight (2.0 favours recall)"),
    label_map=flag(
        Path | None,
        "--label-map",
        metavar="FILE",
        help="Label map file (JSON/YAML/.cfg): alias -> canonical",
    ),
    strict_labels=flag(
        bool,
        "--strict-labels",
        metavar="",
        help="A label the map does not know is an error instead of passing through",
    ),
    hierarchy=flag(
        Path | None,
        "--hierarchy",
        metavar="FILE",
        help="Hierarchy file: levels such as branch, binary, each scored too",
    ),
    errors=ErrorsOpt,
    labels=(
        flag(
            list[str],
            "--labels",
            metavar="LABEL,...",
            help="Score only these labels (as named after the label "
            "map; comma-separated or repeated); the other labels' spans are left out on both sides",
            show_default=False,
        ),
        [],
    ),
    sweep=_SWEEP,
    map_thresholds=flag(
        bool,
        "--map-thresholds",
        metavar="",
        help="--sweep: also span mAP averaged over IoU 0.5:0.05:0.95, as COCO's (two_sided)",
    ),
)
#: gate: the strategy defaults to the floors file's.
FloorsStrategyOpt = Annotated[
    Strategy | None,
    typer.Option(
        "--strategy", "-s", help="Matching strategy (default: the floors file's, else two_sided)"
    ),
]
GATE_SCORING_FLAGS = SCORING_FLAGS.but(strategy=FloorsStrategyOpt, sweep=None, map_thresholds=None)
#: report: the floors' strategy, one main threshold, 300 error records, no hierarchy; a
#: sweep at the main threshold.
REPORT_SCORING_FLAGS = GATE_SCORING_FLAGS.but(
    sweep=_SWEEP,
    thresholds=(_MAIN_THRESHOLD, 0.5),
    errors=(
        flag(
            int,
            "--errors",
            min=0,
            metavar="N",
            help="Error records kept for the error browser (the first ones, in document order)",
        ),
        300,
    ),
    hierarchy=None,
)
#: compare: one main threshold, no hierarchy; its --errors depends on --format, so the
#: command declares it.
COMPARE_SCORING_FLAGS = SCORING_FLAGS.but(
    thresholds=(_MAIN_THRESHOLD, 0.5), errors=None, hierarchy=None, sweep=None, map_thresholds=None
)
#: agree: one threshold, no hierarchy, no error records.
AGREE_SCORING_FLAGS = SCORING_FLAGS.but(
    thresholds=(
        flag(float, "--threshold", "-t", metavar="TAU", help="IoU threshold (two_sided)"),
        0.5,
    ),
    errors=None,
    hierarchy=None,
)
