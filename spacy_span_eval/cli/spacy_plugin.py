"""``python -m spacy span-eval ...``: this package's commands inside spaCy's own CLI.

spaCy loads every object registered under the ``spacy_cli`` entry-point group before it
parses its command line (``spacy.cli.setup_cli`` calls ``registry.cli.get_all()``); importing
this module adds the ``span-eval`` command group to spaCy's typer app. The entry point is
declared in ``pyproject.toml``, so ``pip install spacy-span-eval`` is all it takes.

The commands take spaCy's argument order and spaCy's option names (``MODEL DATA_PATH``,
``--output/-o``, ``--code/-c``, ``--gpu-id/-g``, ``--gold-preproc/-G``, ``--spans-key/-sk``,
``--displacy-path/-dp``, ``--displacy-limit/-dl``, ``--per-component/-P``) plus this
package's ``--strategy``, ``--threshold/-t`` (repeatable), ``--unit`` and ``--input-format
strings`` (an llm pipeline's raw responses, grounded). ``evaluate`` prints
``spacy evaluate``'s table (spaCy's figures, from ``nlp.evaluate``) and then this package's
per-label tables, one per threshold, each headed by its threshold; ``--output`` gets both as
one JSON file. Both tables score the same predictions: the pipeline is loaded once and run
once (:func:`spacy_evaluation`). ``gate`` and ``report`` are the project CLI's commands with
the same arguments, loading the pipeline once too.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import attrs
import typer
from spacy.cli import app as spacy_app  # type: ignore[attr-defined]  # (public, but not in an __all__)
from spacy.cli.evaluate import handle_scores_per_type, render_parses
from spacy.scorer import Scorer
from spacy.training import Corpus, Example
from thinc.api import fix_random_seed
from thinc.util import gpu_is_available
from wasabi.printer import Printer
from wasabi.util import color

from ..jobs.options import DEFAULT_STRATEGY, ScoringOptions
from ..jobs.outputs import check_output, write_atomic
from ..readers.model import PipelineRun, load_pipeline
from ..readers.options import ReadingOptions
from . import exit_by_gate, run_job
from .option_sets import GROUNDING_FLAGS, FloorsStrategyOpt
from .options import StrategyOpt, Unit
from .typer_app import command, stopped_by_signals

if TYPE_CHECKING:
    from spacy.language import Language

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
Thresholds = Annotated[
    list[float],
    typer.Option("--threshold", "-t", help="IoU threshold, repeatable (two_sided; default 0.5)"),
]
Predictions = Annotated[
    Literal["spacy", "strings"],
    typer.Option(
        "--input-format",
        help="What to score: spacy (the pipeline's Doc.ents or spans) or strings (the raw "
        "responses an llm pipeline kept with save_io, grounded in the text; ungrounded "
        "ones counted)",
    ),
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


def pipeline_source(nlp: Language, spans_key: str | None) -> str:
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


def _loaded(
    model: str, code: Path | None, gpu_id: int, spans_key: str | None
) -> tuple[PipelineRun, str]:
    """The pipeline, loaded once for the whole command (``--code`` imported first, on
    ``--gpu-id``), standing wherever its name goes; and what of its output to score."""
    pipeline = run_job(
        lambda: PipelineRun(
            model, load_pipeline(model, code=None if code is None else str(code), gpu_id=gpu_id)
        )
    )
    return pipeline, run_job(lambda: pipeline_source(pipeline.nlp, spans_key))


def _reading(source: str, unit: str, predictions: str, grounding: ReadingOptions) -> ReadingOptions:
    """How to read the data: the pipeline's output, ``source`` (or, ``strings``, its raw llm
    responses, grounded as ``grounding`` says), on the gold docs."""
    return attrs.evolve(grounding, input_format=predictions, source=source, unit=unit)


class _KeepingScorer(Scorer):
    """spaCy's scorer, keeping the examples it scores: the pipeline's predictions, which this
    package's tables score too, so the pipeline runs once."""

    examples: list[Example]

    def score(self, examples: Iterable[Example], *, per_component: bool = False) -> dict[str, Any]:
        self.examples = list(examples)
        return super().score(self.examples, per_component=per_component)


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
) -> tuple[dict[str, Any], PipelineRun]:
    """``spacy evaluate`` on the pipeline loaded already, by spaCy's public parts: its
    ``Corpus`` makes the examples (``-G`` as it does), ``nlp.evaluate`` runs the pipeline and
    scores it, and the examples it predicted come back in a :class:`PipelineRun`, for this
    package's tables to score the same predicted docs. What ``spacy evaluate`` prints it
    prints the same way (nothing but displaCy's files with ``per_component``, whose scores go
    to ``output``, the file this command writes)."""
    nlp = pipeline.nlp
    printer = Printer(no_print=per_component, pretty=not per_component)
    fix_random_seed()
    # (spaCy's lines about the device; load_pipeline has put the pipeline on it)
    printer.info(f"Using GPU: {gpu_id}" if gpu_id >= 0 else "Using CPU")
    if gpu_id < 0 and gpu_is_available():  # type: ignore[no-untyped-call]  # (thinc's, unannotated)
        printer.info("To switch to GPU 0, use the option: --gpu-id 0")
    examples = list(Corpus(data_path, gold_preproc=gold_preproc)(nlp))
    scorer = _KeepingScorer(nlp=nlp)
    scores: dict[str, Any] = nlp.evaluate(examples, scorer=scorer, per_component=per_component)
    if not per_component:
        printer.table(_spacy_results(scores, spans_key), title="Results")
        handle_scores_per_type(scores, {}, spans_key=spans_key, silent=False)
    if displacy_path:
        factories = [nlp.get_pipe_meta(name).factory for name in nlp.pipe_names]
        docs = list(nlp.pipe(eg.reference.text for eg in examples[:displacy_limit]))
        render_parses(
            docs,
            displacy_path,
            model_name=pipeline,
            limit=displacy_limit,
            deps="parser" in factories,
            ents="ner" in factories,
            spans="spancat" in factories,
        )
        printer.good(f"Generated {displacy_limit} parses as HTML", displacy_path)
    if per_component:
        from ..api import msg  # (the API: see above)

        if output is None:
            msg.warn("--per-component: spaCy's scores per component are kept only with --output")
        else:
            msg.info(f"--per-component: spaCy's scores per component go to {output}")
    return scores, PipelineRun(pipeline, nlp, scorer.examples)


def _spacy_results(scores: dict[str, Any], spans_key: str) -> dict[str, str]:
    """The rows of ``spacy evaluate``'s "Results" table (spaCy draws it only inside its own
    command, so its rule is written here: a percentage with two decimals, words a second
    whole, "-" for a figure it has none of)."""
    metrics = {
        "TOK": "token_acc",
        "TAG": "tag_acc",
        "POS": "pos_acc",
        "MORPH": "morph_acc",
        "LEMMA": "lemma_acc",
        "UAS": "dep_uas",
        "LAS": "dep_las",
        "NER P": "ents_p",
        "NER R": "ents_r",
        "NER F": "ents_f",
        "TEXTCAT": "cats_score",
        "SENT P": "sents_p",
        "SENT R": "sents_r",
        "SENT F": "sents_f",
        "SPAN P": f"spans_{spans_key}_p",
        "SPAN R": f"spans_{spans_key}_r",
        "SPAN F": f"spans_{spans_key}_f",
        "SPEED": "speed",
    }
    results = {}
    for metric, key in metrics.items():
        if key not in scores:
            continue
        value = scores[key]
        if key == "cats_score":
            metric += f" ({scores.get('cats_score_desc', 'unk')})"
        if not isinstance(value, int | float):
            results[metric] = "-"
        else:
            results[metric] = f"{value:.0f}" if key == "speed" else f"{value * 100:.2f}"
    return results


def _scoring(strategy: str | None, thresholds: Sequence[float]) -> ScoringOptions:
    return ScoringOptions(strategy=strategy, thresholds=tuple(thresholds) or (0.5,))


@command(span_eval_cli, "evaluate")
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
    predictions: Predictions = "spacy",
    *,
    grounding: Annotated[ReadingOptions, GROUNDING_FLAGS],
) -> None:
    """spaCy's evaluation table, then the per-label two-sided tables (one per IoU
    threshold), both from one run of the pipeline. Expects a loadable spaCy pipeline and
    data in the binary .spacy format."""
    # Settings and the output are checked before spaCy reads anything (semantics §7).
    scoring = run_job(lambda: _scoring(strategy, thresholds))
    run_job(lambda: check_output(output, {"data file": data_path}))
    pipeline, source = _loaded(model, code, gpu_id, spans_key)
    spacy_scores, ran = run_job(
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
    scored = "Doc.ents" if source == "ents" else f"doc.spans[{source!r}]"
    scored = "the llm responses" if predictions == "strings" else scored
    _divider(f"spacy-span-eval: {scoring.strategy} on {scored}")
    from ..api import evaluate_files, msg  # (the API: see above)
    from ..render.report import json_text  # (a renderer: loaded with the API, as above)

    report = run_job(
        lambda: evaluate_files(
            data_path,
            model=ran,
            reading=_reading(source, unit, predictions, grounding),
            scoring=scoring,
            silent=False,
            wide=True,
        )
    )
    if output is not None:
        both = {"spacy": spacy_scores, "span_eval": report.to_dict()}
        run_job(lambda: write_atomic(output, f"{json_text(both)}\n".encode(), "metrics"))
        msg.good(f"Saved results to {output}")


@command(span_eval_cli, "gate")
@stopped_by_signals
def gate_cli(
    model: Model,
    data_path: DataPath,
    floors: Floors,
    output: Output = None,
    code: Code = None,
    gpu_id: GpuId = -1,
    spans_key: SpansKey = None,
    strategy: FloorsStrategyOpt = None,
    thresholds: Thresholds = [],  # noqa: B006
    unit: UnitOpt = "char",
    predictions: Predictions = "spacy",
    *,
    grounding: Annotated[ReadingOptions, GROUNDING_FLAGS],
) -> None:
    """Score the pipeline on DATA_PATH and check per-label floors: exit 1 when a floor is
    breached (or a gated label has no gold), 0 when all hold; --output gets the JSON report."""
    pipeline, source = _loaded(model, code, gpu_id, spans_key)
    scoring = run_job(lambda: _scoring(strategy, thresholds))
    from ..api import gate_files  # (the API: see above)

    report = run_job(
        lambda: gate_files(
            data_path,
            floors=floors,
            model=pipeline,
            reading=_reading(source, unit, predictions, grounding),
            scoring=scoring,
            output_format="json" if output is not None else "text",
            output=output,
            silent=False,
        )
    )
    exit_by_gate(report.verdict)


@command(span_eval_cli, "report")
@stopped_by_signals
def report_cli(
    model: Model,
    data_path: DataPath,
    output: ReportOutput,
    code: Code = None,
    gpu_id: GpuId = -1,
    spans_key: SpansKey = None,
    floors: ReportFloors = None,
    strategy: FloorsStrategyOpt = None,
    threshold: Annotated[
        float, typer.Option("--threshold", "-t", help="Main IoU threshold (two_sided)")
    ] = 0.5,
    unit: UnitOpt = "char",
    predictions: Predictions = "spacy",
    *,
    grounding: Annotated[ReadingOptions, GROUNDING_FLAGS],
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
    pipeline, source = _loaded(model, code, gpu_id, spans_key)
    scoring = run_job(
        lambda: ScoringOptions(strategy=strategy, thresholds=(threshold,), errors=300)
    )
    from ..api import report_files  # (the API: see above)

    report = run_job(
        lambda: report_files(
            data_path,
            model=pipeline,
            reading=_reading(source, unit, predictions, grounding),
            scoring=scoring,
            floors=floors,
            resamples=resamples,
            seed=seed,
            output=output,
            silent=False,
        )
    )
    exit_by_gate(report.verdict)


def _divider(title: str) -> None:
    """The heading between spaCy's table and ours, drawn as spaCy draws its own, on stdout
    with the tables (bold only on a terminal, and not with ``NO_COLOR``)."""
    line = f" {title} ".center(80, "=")
    if not os.environ.get("NO_COLOR") and sys.stdout.isatty():
        line = color(line, bold=True)
    print(f"\n{line}\n", flush=True)
