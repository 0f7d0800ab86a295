"""``python -m spacy span-eval ...``: this package's commands inside spaCy's own CLI.

spaCy loads every object registered under the ``spacy_cli`` entry-point group before it
parses its command line (``spacy.cli.setup_cli`` calls ``registry.cli.get_all()``); importing
this module adds the ``span-eval`` command group to spaCy's typer app. The entry point is
declared in ``pyproject.toml``, so ``pip install spacy-span-eval`` is all it takes.

The commands take spaCy's argument order and spaCy's option names (``MODEL DATA_PATH``,
``--output/-o``, ``--code/-c``, ``--gpu-id/-g``, ``--gold-preproc/-G``, ``--spans-key/-sk``,
``--displacy-path/-dp``, ``--displacy-limit/-dl``, ``--per-component/-P``) plus this
package's ``--strategy``, ``--threshold/-t`` (repeatable) and ``--unit``. ``evaluate`` prints
spaCy's own table (``spacy evaluate``'s, computed by spaCy) and then this package's per-label
tables, one per threshold, each headed by its threshold; ``--output`` gets both as one JSON
file. Both tables score the same predictions: the pipeline is loaded once and run once
(:func:`spacy_evaluation`). ``gate`` and ``report`` are the project CLI's commands with the
same arguments, loading the pipeline once too.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from spacy.cli._util import app as spacy_app
from wasabi.util import color

from ..jobs.options import DEFAULT_STRATEGY, RunOptions, ScoringOptions
from ..readers.model import PipelineRun, load_pipeline
from ..readers.options import ReadingOptions
from . import EXIT_GATE_FAILED, EXIT_OK, _run
from .options import Strategy, Unit
from .signals import stopped_by_signals

if TYPE_CHECKING:
    from ..api import Messages

# spaCy imports this module for every one of its commands (``spacy train`` too), so the API,
# and the engine with it, is imported when a span-eval command runs, not here.

__all__ = ["span_eval_cli"]

span_eval_cli = typer.Typer(
    name="span-eval",
    no_args_is_help=True,
    add_completion=False,
    help="Two-sided IoU span scores (spacy-span-eval) for a trained pipeline: evaluate, "
    "gate a release on per-label floors, write the HTML report.",
)
spacy_app.add_typer(span_eval_cli)

#: Components whose output is ``Doc.ents`` and those that fill a span group.
ENTS_FACTORIES = frozenset({"ner", "beam_ner", "entity_ruler", "entity_linker"})
SPANS_FACTORIES = frozenset({"spancat", "spancat_singlelabel", "span_ruler", "span_finder"})

# spaCy's own option names (spacy/cli/evaluate.py), so the commands read as spaCy's do.
Model = Annotated[str, typer.Argument(help="Model name or path", show_default=False)]
DataPath = Annotated[
    Path,
    typer.Argument(
        help="Location of evaluation data in .spacy format", exists=True, show_default=False
    ),
]
Output = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        dir_okay=False,
        help="Output JSON file: spaCy's metrics and this package's report",
    ),
]
Code = Annotated[
    Path | None,
    typer.Option(
        "--code",
        "-c",
        help="Path to Python file with additional code (registered functions) to be imported",
    ),
]
GpuId = Annotated[int, typer.Option("--gpu-id", "-g", help="GPU ID or -1 for CPU")]
GoldPreproc = Annotated[
    bool,
    typer.Option(
        "--gold-preproc",
        "-G",
        help="Predict on the gold sentences and tokens (as spacy evaluate -G): one example "
        "per gold sentence, tokenized as the gold is",
    ),
]
PerComponent = Annotated[
    bool,
    typer.Option(
        "--per-component",
        "-P",
        help="spaCy's scores keyed by component (as spacy evaluate -P), saved with --output "
        "instead of spaCy's table",
    ),
]
SpansKey = Annotated[
    str | None,
    typer.Option(
        "--spans-key",
        "-sk",
        help="Spans key to score (doc.spans[KEY]) or 'ents' (default: what "
        "the pipeline predicts: ents for ner/entity_ruler, the span group of spancat/span_ruler)",
    ),
]
DisplacyPath = Annotated[
    Path | None,
    typer.Option(
        "--displacy-path",
        "-dp",
        exists=True,
        file_okay=False,
        help="Directory to output rendered parses as HTML",
    ),
]
DisplacyLimit = Annotated[
    int, typer.Option("--displacy-limit", "-dl", help="Limit of parses to render as HTML")
]
StrategyOpt = Annotated[Strategy, typer.Option("--strategy", "-s", help="Matching strategy")]
GateStrategyOpt = Annotated[
    Strategy | None,
    typer.Option(
        "--strategy", "-s", help="Matching strategy (default: the floors file's, else two_sided)"
    ),
]
Thresholds = Annotated[
    list[float],
    typer.Option("--threshold", "-t", help="IoU threshold, repeatable (two_sided; default 0.5)"),
]
UnitOpt = Annotated[
    Unit, typer.Option("--unit", help="Span unit: char (any tokenization) or token")
]
Floors = Annotated[
    Path,
    typer.Option(
        "--floors",
        help="Floors file (JSON/YAML/.cfg): per-label recall/precision/f floors",
        show_default=False,
    ),
]
ReportFloors = Annotated[
    Path | None,
    typer.Option(
        "--floors", help="Floors file: show the gate verdict (exit 1 when a floor is breached)"
    ),
]
ReportOutput = Annotated[
    Path,
    typer.Option(
        "--output",
        "-o",
        dir_okay=False,
        help="Write the HTML report to this file",
        show_default=False,
    ),
]


def pipeline_source(nlp, spans_key: str | None) -> str:
    """What to score: ``spans_key`` when given, else ``"ents"`` for a pipeline with an entity
    recognizer, else the span group its spancat/span_ruler fills."""
    if spans_key is not None:
        return spans_key
    factories = {
        nlp.get_pipe_meta(name).factory: nlp.get_pipe_config(name) for name in nlp.pipe_names
    }
    if ENTS_FACTORIES & set(factories):
        return "ents"
    for factory in SPANS_FACTORIES & set(factories):
        return str(factories[factory].get("spans_key", "sc"))
    return "ents"


def _loaded(model: str, code: Path | None, gpu_id: int) -> PipelineRun:
    """The pipeline, loaded once for the whole command (``--code`` imported first, on
    ``--gpu-id``), standing wherever its name goes."""
    return PipelineRun(
        model, load_pipeline(model, code=None if code is None else str(code), gpu_id=gpu_id)
    )


def _options(source: str, unit: str | None) -> dict[str, ReadingOptions | RunOptions]:
    """How to read the data, as the API's ``reading=``; ``run=``: the pipeline is loaded
    already (its code imported, on its GPU)."""
    return {
        "reading": ReadingOptions(input_format="spacy", source=source, unit=unit),
        "run": RunOptions(),
    }


def spacy_evaluation(
    pipeline: PipelineRun,
    data_path: Path,
    *,
    gpu_id: int = -1,
    gold_preproc: bool = False,
    displacy_path: Path | None = None,
    displacy_limit: int = 25,
    per_component: bool = False,
    spans_key: str = "sc",
    output: Path | None = None,
) -> tuple[dict, PipelineRun]:
    """``spacy evaluate`` on the pipeline loaded already: spaCy's own function prints its
    table and returns its scores (``-G``, ``-P`` and displaCy as it does them), and the
    examples its ``nlp.evaluate`` predicted come back in a :class:`PipelineRun`, for this
    package's tables to score the same predicted docs.

    spaCy's function takes a pipeline's name and loads it; while it runs, loading that name
    gives the pipeline loaded here, and the pipeline's ``evaluate`` keeps its examples, so the
    pipeline is neither loaded nor run a second time. With ``per_component`` spaCy prints no
    table; where its scores go (``output``, the file this command writes) is said here, as
    spaCy's own line would name a file it is not given."""
    from spacy import util
    from spacy.cli.evaluate import evaluate
    from spacy.scorer import Scorer

    nlp = pipeline.nlp
    kept: list = []

    class KeepingScorer(Scorer):
        def score(self, examples, *, per_component=False):
            kept.extend(examples)
            return super().score(examples, per_component=per_component)

    def evaluate_keeping(examples, **settings):
        return type(nlp).evaluate(nlp, examples, scorer=KeepingScorer(nlp=nlp), **settings)

    def load_model(name, **settings):
        if name is pipeline and not settings:
            return nlp
        return loader(name, **settings)

    loader = util.load_model
    util.load_model = load_model
    nlp.evaluate = evaluate_keeping
    try:
        scores = evaluate(
            pipeline,
            data_path,
            output=None,
            use_gpu=gpu_id,
            gold_preproc=gold_preproc,
            displacy_path=displacy_path,
            displacy_limit=displacy_limit,
            per_component=per_component,
            silent=per_component,
            spans_key=spans_key,
        )
    finally:
        util.load_model = loader
        del nlp.evaluate
    msg = _messages()
    if per_component and output is None:
        msg.warn("--per-component: spaCy's scores per component are kept only with --output")
    elif per_component:
        msg.info(f"--per-component: spaCy's scores per component go to {output}")
    return scores, PipelineRun(pipeline, nlp, kept)


@span_eval_cli.command("evaluate")
@stopped_by_signals
def evaluate_cli(
    model: Model,
    data_path: DataPath,
    output: Output = None,
    code: Code = None,
    gpu_id: GpuId = -1,
    spans_key: SpansKey = None,
    gold_preproc: GoldPreproc = False,
    displacy_path: DisplacyPath = None,
    displacy_limit: DisplacyLimit = 25,
    per_component: PerComponent = False,
    strategy: StrategyOpt = DEFAULT_STRATEGY,
    thresholds: Thresholds = [],  # noqa: B006 (typer reads the default; never mutated)
    unit: UnitOpt = "char",
) -> None:
    """spaCy's evaluation table, then the per-label two-sided tables (one per IoU
    threshold), both from one run of the pipeline. Expects a loadable spaCy pipeline and
    data in the binary .spacy format."""
    # Settings and the output are checked before spaCy reads anything (semantics §7).
    scoring = _run(
        lambda: _checked(
            output,
            {"data file": data_path},
            ScoringOptions(strategy=_plain(strategy), thresholds=tuple(thresholds) or (0.5,)),
        )
    )
    pipeline = _run(lambda: _loaded(model, code, gpu_id))
    source = _run(lambda: pipeline_source(pipeline.nlp, spans_key))
    spacy_scores, ran = _run(
        lambda: spacy_evaluation(
            pipeline,
            data_path,
            gpu_id=gpu_id,
            gold_preproc=gold_preproc,
            displacy_path=displacy_path,
            displacy_limit=displacy_limit,
            per_component=per_component,
            spans_key=source if source != "ents" else "sc",
            output=output,
        )
    )
    _divider(f"spacy-span-eval: {scoring.strategy} on {_source_name(source)}")
    from ..api import evaluate_files, write_text

    report = _run(
        lambda: evaluate_files(
            data_path,
            model=ran,
            **_options(source, _plain(unit)),
            scoring=scoring,
            silent=False,
            wide=True,
        )
    )
    if output is not None:
        _run(
            lambda: write_text(
                output, _json({"spacy": spacy_scores, "span_eval": report.to_dict()}), "metrics"
            )
        )
        _messages().good(f"Saved results to {output}")


@span_eval_cli.command("gate")
@stopped_by_signals
def gate_cli(
    model: Model,
    data_path: DataPath,
    floors: Floors,
    output: Output = None,
    code: Code = None,
    gpu_id: GpuId = -1,
    spans_key: SpansKey = None,
    strategy: GateStrategyOpt = None,
    thresholds: Thresholds = [],  # noqa: B006
    unit: UnitOpt = "char",
) -> None:
    """Score the pipeline on DATA_PATH and check per-label floors: exit 1 when a floor is
    breached (or a gated label has no gold), 0 when all hold; --output gets the JSON report."""
    pipeline = _run(lambda: _loaded(model, code, gpu_id))
    source = _run(lambda: pipeline_source(pipeline.nlp, spans_key))
    scoring = _run(
        lambda: ScoringOptions(strategy=_plain(strategy), thresholds=tuple(thresholds) or (0.5,))
    )
    from ..api import gate_files

    report = _run(
        lambda: gate_files(
            data_path,
            floors=floors,
            model=pipeline,
            **_options(source, _plain(unit)),
            scoring=scoring,
            output_format="json" if output is not None else "text",
            output=output,
            silent=False,
        )
    )
    assert report.verdict is not None
    raise typer.Exit(EXIT_OK if report.verdict.passed else EXIT_GATE_FAILED)


@span_eval_cli.command("report")
@stopped_by_signals
def report_cli(
    model: Model,
    data_path: DataPath,
    output: ReportOutput,
    code: Code = None,
    gpu_id: GpuId = -1,
    spans_key: SpansKey = None,
    floors: ReportFloors = None,
    strategy: GateStrategyOpt = None,
    threshold: Annotated[
        float, typer.Option("--threshold", "-t", help="Main IoU threshold (two_sided)")
    ] = 0.5,
    unit: UnitOpt = "char",
    resamples: Annotated[
        int,
        typer.Option(
            "--resamples", min=0, help="Bootstrap resamples of the documents (0: no intervals)"
        ),
    ] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the resampling")] = 0,
) -> None:
    """Write the self-contained HTML report (intervals, threshold curves, confusion heatmap,
    error browser and, with --floors, the gate verdict)."""
    pipeline = _run(lambda: _loaded(model, code, gpu_id))
    source = _run(lambda: pipeline_source(pipeline.nlp, spans_key))
    scoring = _run(
        lambda: ScoringOptions(strategy=_plain(strategy), thresholds=(threshold,), errors=300)
    )
    from ..api import report_files

    report = _run(
        lambda: report_files(
            data_path,
            model=pipeline,
            **_options(source, _plain(unit)),
            scoring=scoring,
            floors=floors,
            resamples=resamples,
            seed=seed,
            output=output,
            silent=False,
        )
    )
    failed = report.verdict is not None and not report.verdict.passed
    raise typer.Exit(EXIT_GATE_FAILED if failed else EXIT_OK)


def _plain(value):
    return getattr(value, "value", value)


def _source_name(source: str) -> str:
    return "Doc.ents" if source == "ents" else f"doc.spans[{source!r}]"


def _checked(
    output: Path | None, inputs: dict[str, object], scoring: ScoringOptions
) -> ScoringOptions:
    from ..api import check_output

    check_output(output, inputs)
    return scoring


def _divider(title: str) -> None:
    """The heading between spaCy's table and ours, drawn as spaCy draws its own, on stdout
    with the tables (bold only on a terminal, and not with ``NO_COLOR``)."""
    line = f" {title} ".center(80, "=")
    if not os.environ.get("NO_COLOR") and sys.stdout.isatty():
        line = color(line, bold=True)
    print(f"\n{line}\n", flush=True)


def _json(data) -> str:
    from ..render.report import json_text

    return json_text(data) + "\n"


def _messages() -> Messages:
    from ..api import msg

    return msg
