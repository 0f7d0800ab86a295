"""The flags that fill an options dataclass (reading, scoring, running), grouped into a
:class:`~.typer_app.Flags` set per command, which the command takes whole
(:func:`~.typer_app.takes_options`). A command whose flags differ names a variant set made
with :meth:`~.typer_app.Flags.but` (``gate`` takes its strategy from the floors; ``report``
and ``compare`` have one main ``--threshold``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..engine.settings import DEFAULT_STRATEGY
from ..jobs.options import RunOptions, ScoringOptions
from ..readers.options import ReadingOptions
from .options import (
    Align,
    Delimiter,
    ErrorsOpt,
    Grounding,
    InputFormat,
    Occurrence,
    Pairs,
    Repair,
    Scheme,
    Snap,
    Strategy,
    StrategyOpt,
    UnitOpt,
)
from .typer_app import Flags, flag

__all__ = [
    "AGREE_READING_FLAGS",
    "AGREE_SCORING_FLAGS",
    "COMPARE_READING_FLAGS",
    "COMPARE_RUN_FLAGS",
    "COMPARE_SCORING_FLAGS",
    "CONVERT_READING_FLAGS",
    "FloorsStrategyOpt",
    "GATE_SCORING_FLAGS",
    "GROUNDING_FLAGS",
    "READING_FLAGS",
    "REPORT_SCORING_FLAGS",
    "RUN_FLAGS",
    "SCORING_FLAGS",
]


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
        help="Read only this annotator's annotations, every file: Prodigy's _annotator_id "
        "(else _session_id), Label Studio's completed_by (user id or email), a doccano zip's user",
    ),
    session=flag(
        str | None,
        "--session",
        metavar="NAME",
        help="Prodigy: read only this _session_id's answers, every file",
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
    grounding=flag(
        Grounding,
        "--grounding",
        help="Predicted strings: the last tier a string is looked for at in its document's "
        "text: 'exact', 'caseless' (case, runs of whitespace and accent composition ignored), "
        "'fuzzy' (rapidfuzz, at --similarity or more); a string found at none is ungrounded",
    ),
    similarity=flag(
        float,
        "--similarity",
        min=0.0,
        max=1.0,
        metavar="SHARE",
        help="Predicted strings: the least similarity of a fuzzy match",
    ),
    occurrence=flag(
        Occurrence,
        "--occurrence",
        help="Predicted strings: every occurrence of a string in its text, or the first",
    ),
    snap=flag(
        Snap,
        "--snap",
        help="Predicted strings in token unit: how a found span snaps to tokens, as spaCy's "
        "Doc.char_span(alignment_mode=...): 'strict' (else it is an unaligned prediction), "
        "'contract' or 'expand'",
    ),
)
#: compare reads two prediction files, never runs a pipeline.
COMPARE_READING_FLAGS = READING_FLAGS.but(input_format=_input_format("the three files"))
#: spaCy's span-eval commands read a pipeline's output: of the reading flags, only how its
#: raw llm responses are grounded (``--input-format strings``).
GROUNDING_FLAGS = READING_FLAGS.only("grounding", "similarity", "occurrence", "snap")
#: convert reads one gold file.
CONVERT_READING_FLAGS = READING_FLAGS.only("input_format", "scheme", "annotator", "session").but(
    input_format=_input_format("the gold file", "its file name")
)

#: agree reads one file per annotator, each as a gold file.
AGREE_READING_FLAGS = READING_FLAGS.but(input_format=_input_format("every annotator's file")).only(
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
    thresholds=(_MAIN_THRESHOLD, 0.5),
    errors=None,
    hierarchy=None,
    sweep=flag(
        bool,
        "--sweep",
        metavar="",
        help="Also each label's average precision and mAP, their differences paired-tested "
        "as F's are (every prediction needs a score)",
    ),
    map_thresholds=None,
)
#: agree: one threshold, no hierarchy, no error records, no score sweep.
AGREE_SCORING_FLAGS = SCORING_FLAGS.but(
    thresholds=(
        flag(float, "--threshold", "-t", metavar="TAU", help="IoU threshold (two_sided)"),
        0.5,
    ),
    errors=None,
    hierarchy=None,
    sweep=None,
    map_thresholds=None,
)
