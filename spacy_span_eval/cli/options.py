"""The command-line options, each declared once: every flag and argument is an ``Annotated``
type (its typer declaration: names, help, checks) reused by every command that has it, and
the flags that fill an options dataclass (reading, scoring, running) are grouped into a
:class:`~.typer_app.Flags` set per command, which the command takes whole
(:func:`~.typer_app.takes_options`). A command whose flags differ names a variant set made
with :meth:`~.typer_app.Flags.but` (``gate`` takes its strategy from the floors; ``report``
and ``compare`` have one main ``--threshold``).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..engine.settings import COMPARE_METHODS, MAX_RESAMPLES, STRATEGY_NAMES
from ..engine.spans import UNITS
from ..readers.conll import DELIMITERS
from ..readers.formats import FORMATS
from ..readers.options import ALIGN_MODES, GROUNDING_TIERS, OCCURRENCES, PAIRS_MODES, SNAP_MODES
from ..readers.schemes import REPAIR_POLICIES, SCHEME_ALIASES, SCHEMES
from ..render import COMPARE_FORMATS, OUTPUT_FORMATS


def _choices(name: str, values: Iterable[str]) -> Any:
    """An Enum that typer shows and checks as a choice, built from the names the layers below
    define; the command gets the string (``typer_app._plain``), which is what type checkers see."""
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
Grounding = _choices("Grounding", GROUNDING_TIERS)
Occurrence = _choices("Occurrence", OCCURRENCES)
Snap = _choices("Snap", SNAP_MODES)

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
        help="Write the majority gold: JSON Lines (.jsonl, .ndjson; ties counted in each "
        "record, not kept) or a DocBin (.spacy), by its suffix",
    ),
]
QueueOpt = Annotated[
    int,
    typer.Option(
        "--queue", min=0, metavar="N", help="Contested documents in the adjudication queue (0: all)"
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
        help="Also score each value's documents of this gold field apart (meta.KEY, "
        "data.KEY, a user_data key, folder, document, a CoNLL # KEY = value comment; "
        "span-length[:EDGE,...]: spans by length), with the worst slice per label (repeatable)",
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
        max=MAX_RESAMPLES,
        metavar="N",
        help="Bootstrap resamples of the documents (0: no intervals)",
    ),
]
SliceResamplesOpt = Annotated[
    int,
    typer.Option(
        "--resamples",
        min=0,
        max=MAX_RESAMPLES,
        metavar="N",
        help="--slice-by: bootstrap intervals of each slice, resampling its documents (0: none)",
    ),
]
CompareResamplesOpt = Annotated[
    int,
    typer.Option(
        "--resamples",
        min=1,
        max=MAX_RESAMPLES,
        metavar="N",
        help="Paired resamples of the documents",
    ),
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
