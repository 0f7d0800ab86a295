"""The ``report`` and ``compare`` jobs: one system scored for a page, with intervals and the
gate when floors are given (the page itself is rendered by :mod:`spacy_span_eval.render.html`);
or two systems' predictions against the same gold, with a paired test.

Both prediction files are paired with the gold file and scored with the same settings; the
paired test (:func:`~spacy_span_eval.engine.paired.paired_test`) resamples or swaps the same
documents for both, so the interval and p-value of each difference account for how much the
corpus alone can move it. :mod:`spacy_span_eval.render.comparison` renders the result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.bootstrap import BootstrapIntervals, bootstrap_intervals
from ..engine.gates import Floors, check_gate
from ..engine.labels import SPAN_LENGTH, slice_order
from ..engine.paired import SMALL_SAMPLE, PairedTest, holm_over_slices, paired_test
from ..engine.resampling import check_resampling
from ..engine.settings import COMPARE_METHODS
from ..engine.slices import document_values, slice_tables
from ..errors import InvalidInputError
from ..readers.detect import input_format
from ..readers.options import ReadingOptions
from ..readers.settings_files import as_floors
from ..readers.source import open_pair
from .disagreements import DEFAULT_SAMPLE, Disagreements, disagreements_of
from .evaluate import HtmlReport, slice_fields
from .options import REPORT_SCORING, RunOptions, ScoringOptions
from .scoring import score
from .system_run import SystemRun, report_evaluator

__all__ = [
    "COMPARISON_SCHEMA",
    "COMPARISON_VERSION",
    "REPORT_SCORING",
    "Comparison",
    "build_report",
    "compare",
    "default_names",
    "intervals_of",
    "score_system",
]

COMPARISON_SCHEMA = "spacy-span-eval/comparison"
COMPARISON_VERSION = 1


@dataclass
class Comparison:
    """Two scored systems, their intervals, the paired test of their differences and the
    gold spans one finds and the other misses (``None`` when not asked for)."""

    runs: tuple[SystemRun, SystemRun]
    test: PairedTest
    intervals: tuple[BootstrapIntervals | None, BootstrapIntervals | None]
    disagreements: Disagreements | None = None
    #: per ``--slice-by`` field, each slice's paired test (Holm over slices x labels)
    slices: dict[str, dict[str, PairedTest]] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, str]:
        return self.runs[0].name, self.runs[1].name

    def to_dict(self) -> dict[str, Any]:
        systems: dict[str, Any] = {}
        for run, bi in zip(self.runs, self.intervals, strict=True):
            scores = run.main.to_dict()
            scores.pop("errors")
            systems[run.name] = {
                "inputs": run.inputs,
                "scores": scores,
                "intervals": None if bi is None else bi.to_dict(),
            }
        return {
            "schema": COMPARISON_SCHEMA,
            "version": COMPARISON_VERSION,
            "settings": self.runs[0].result.settings.to_dict(),
            "threshold": self.runs[0].threshold,
            "documents": self.test.n_documents,
            "systems": systems,
            "comparison": self.test.to_dict(),
            "disagreements": None if self.disagreements is None else self.disagreements.to_dict(),
            **(
                {
                    "slices": {
                        name: {k: t.to_dict() for k, t in tests.items()}
                        for name, tests in self.slices.items()
                    }
                }
                if self.slices
                else {}
            ),
        }


def score_system(
    gold: Path | str,
    pred: Path | str | None,
    *,
    model: str | None,
    name: str,
    reading: ReadingOptions | None,
    scoring: ScoringOptions,
    run: RunOptions | None = None,
    floors: Floors | None = None,
    progress: bool = False,
    slice_by: Sequence[str] = (),
    intervals: Mapping[str, Any] | None = None,
) -> SystemRun:
    """Read and score one system for a report at ``scoring``'s main threshold (its other
    thresholds and the floors' join the curve's grid); gate it when ``floors`` (in every
    slice too, for a floor with ``every``); ``slice_by``: each slice's table at the main
    threshold (``system.slices``), with its bootstrap ``intervals`` when asked."""
    if scoring.hierarchy is not None:
        raise ValueError(
            "the report and the comparison do not show hierarchy levels; score them with evaluate"
        )
    loaded = scoring.load(floors)
    run = run or RunOptions()
    every = [f.every for f in floors.floors if f.every] if floors else []
    fields, edges = slice_fields([*slice_by, *every])
    source = open_pair(
        gold, pred, model=model, reading=reading, progress=progress, fields=fields, **run.pipeline()
    )
    evaluator, main = report_evaluator(
        loaded.strategy_for(),
        loaded.threshold,
        source.unit,
        extra_thresholds=(*loaded.thresholds[1:], *((floors.threshold,) if floors else ())),
        errors=loaded.errors,
        beta=loaded.beta,
        label_map=loaded.loaded_label_map(),
        labels=loaded.labels,
        strategy_options=loaded.strategy_options,
        sweep=loaded.sweep,
        **({"span_lengths": edges} if edges else {}),
    )
    part = score(source, evaluator, run=run, views=True)
    try:
        result = part.tally.result()
    except InvalidInputError as exc:  # (a sweep's refusal names a document: here, its file)
        raise type(exc)(f"{pred if pred is not None else model}: {exc}") from None
    system = SystemRun(name, result, main, source.inputs(), part.documents)
    by_document = {name: document_values(system.result, v) for name, v in source.values.items()}
    for key, runs in slice_tables(system.result, by_document, slice_by, intervals).items():
        system.slices[key] = next((r for r in runs if r["threshold"] == main), runs[0])
    if floors is not None:
        # Floors without a threshold of their own apply at the report's main threshold.
        at = floors if floors.threshold is not None else replace(floors, threshold=system.threshold)
        system.verdict = check_gate(system.result, at, slices=by_document)
    return system


def intervals_of(
    run: SystemRun, *, resamples: int, seed: int, confidence: float
) -> BootstrapIntervals | None:
    if resamples == 0:  # (checked by the job: check_resampling)
        return None
    return bootstrap_intervals(
        run.result, threshold=run.threshold, resamples=resamples, seed=seed, confidence=confidence
    )


def build_report(
    gold: Path | str,
    pred: Path | str | None = None,
    *,
    model: str | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions = REPORT_SCORING,
    run: RunOptions | None = None,
    floors: Floors | Path | str | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    name: str | None = None,
    progress: bool = False,
    slice_by: Sequence[str] = (),
) -> HtmlReport:
    """Score ``pred`` (or ``model`` run on ``gold``) with intervals and the gate, for a page
    (``slice_by``: with its slice view; the caller renders the page). The strategy defaults to
    the floors' own, else ``two_sided``."""
    check_resampling(resamples=resamples, seed=seed, confidence=confidence, min_resamples=0)
    gate = as_floors(floors)
    shown = name or (Path(pred).stem if pred is not None else str(model))
    system = score_system(
        gold,
        pred,
        model=model,
        name=shown,
        reading=reading,
        scoring=scoring,
        run=run,
        floors=gate,
        progress=progress,
        slice_by=slice_by,
        intervals=dict(resamples=resamples, seed=seed, confidence=confidence),
    )
    intervals = intervals_of(system, resamples=resamples, seed=seed, confidence=confidence)
    return HtmlReport([system], [intervals])


def default_names(pred_a: Path | str, pred_b: Path | str) -> tuple[str, str]:
    """Short names that tell two prediction files apart: their stems when these differ
    (``a.conll``, ``b.conll``: ``a``, ``b``); else the parts of their file names that differ
    (``btc.predA``, ``btc.predB``: ``predA``, ``predB``); else the shortest ends of their
    paths that differ (``sys1/out.conll``, ``sys2/out.conll``: ``sys1/out``, ``sys2/out``);
    ``A`` and ``B`` for the same path twice."""
    pa, pb = Path(pred_a), Path(pred_b)
    if pa.stem != pb.stem:
        return pa.stem, pb.stem
    parts_a, parts_b = pa.name.split("."), pb.name.split(".")
    only_a = ".".join(p for p in parts_a if p not in parts_b)
    only_b = ".".join(p for p in parts_b if p not in parts_a)
    if only_a and only_b and only_a != only_b:
        return only_a, only_b
    dirs_a, dirs_b = pa.parent.parts, pb.parent.parts
    for k in range(1, max(len(dirs_a), len(dirs_b)) + 1):
        end_a = "/".join([*dirs_a[-k:], pa.stem])
        end_b = "/".join([*dirs_b[-k:], pb.stem])
        if end_a != end_b:
            return end_a, end_b
    return "A", "B"


def compare(
    gold: Path | str,
    pred_a: Path | str,
    pred_b: Path | str,
    *,
    names: tuple[str, str] | None = None,
    reading: ReadingOptions | None = None,
    scoring: ScoringOptions | None = None,
    run: RunOptions | None = None,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    method: str = "permutation",
    progress: bool = False,
    disagreements: int | None = DEFAULT_SAMPLE,
    slice_by: Sequence[str] = (),
) -> Comparison:
    """Score ``pred_a`` and ``pred_b`` against ``gold`` with the same ``scoring`` (at its main
    threshold) and test their differences in precision, recall and F. ``method="bootstrap"``
    is refused below :data:`~.paired.SMALL_SAMPLE` documents, where its p-values are too
    small.

    ``scoring.errors``: error records kept per system (the HTML page shows them).
    ``disagreements``: how many of the gold spans one system finds and the other misses to
    keep as a sample (all are counted; the pairs are read a second time for it); ``None``:
    do not look for them. ``slice_by``: gold JSONL fields whose slices are each tested apart,
    each slice's documents alone, the labels' p-values Holm-adjusted over every slice and
    label of the field (semantics §10).
    """
    boot: dict[str, Any] = dict(resamples=resamples, seed=seed, confidence=confidence)
    values = _check_request(gold, reading, slice_by, method, boot)
    loaded = (scoring or ScoringOptions()).load()  # the label map is read once for both
    if names is not None and names[0] == names[1]:
        raise ValueError(f"the two systems need different names, not {names[0]!r} twice")
    preds = (pred_a, pred_b)
    score = partial(
        score_system, gold, model=None, reading=reading, scoring=loaded, run=run, progress=progress
    )
    names = default_names(pred_a, pred_b) if names is None else names
    run_a, run_b = (score(pred, name=name) for pred, name in zip(preds, names, strict=True))
    test_slice = partial(
        paired_test, run_a.result, run_b.result, threshold=run_a.threshold, method=method, **boot
    )
    test = test_slice()
    if method == "bootstrap" and test.small_sample:
        raise InvalidInputError(
            f"the bootstrap test needs at least {SMALL_SAMPLE} paired documents, not "
            f"{test.n_documents}: its p-values are too small on fewer (use the permutation test)"
        )
    interval_a, interval_b = (intervals_of(r, **boot) for r in (run_a, run_b))
    found = (
        None
        if disagreements is None
        else _disagreements(gold, preds, (run_a, run_b), reading, loaded, disagreements)
    )
    sliced = {
        name: _slice_tests(test_slice, document_values(run_a.result, values[name]))
        for name in slice_by
    }
    return Comparison((run_a, run_b), test, (interval_a, interval_b), found, sliced)


def _check_request(
    gold: Path | str,
    reading: ReadingOptions | None,
    slice_by: Sequence[str],
    method: str,
    boot: dict[str, Any],
) -> dict[str, dict[str, list[str]]]:
    """Refuse, before reading a prediction, what the paired test cannot do (the method
    before the gold file is read); each gold field's values for the slices' tests, one set
    for both systems (each system's own pair reads them again for its slice tables)."""
    check_resampling(**boot)
    if method not in COMPARE_METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(COMPARE_METHODS)}")
    fields, edges = slice_fields(slice_by)
    if edges:
        raise InvalidInputError(
            f"compare --slice-by {SPAN_LENGTH}: the paired test swaps documents, and span "
            "lengths are no slices of documents"
        )
    side = (reading or ReadingOptions()).for_side("gold")  # (no field: the gold is not sniffed)
    return input_format(gold, side.input_format).slice_values(gold, fields, side) if fields else {}


def _slice_tests(test_slice: Callable[..., PairedTest], of: Sequence[str]) -> dict[str, PairedTest]:
    """Each slice value's paired test on its own documents, Holm over slices x labels."""
    values = np.asarray(of)
    tests = {v: test_slice(documents=np.flatnonzero(values == v)) for v in slice_order(of)}
    return holm_over_slices(tests)


def _disagreements(
    gold: Path | str,
    preds: tuple[Path | str, Path | str],
    runs: tuple[SystemRun, SystemRun],
    reading: ReadingOptions | None,
    scoring: ScoringOptions,
    sample: int,
) -> Disagreements:
    """Read both pairs again, in step, and pair each gold span's verdicts (in this process:
    the match flags of two batches at a time are all it holds, besides the sample)."""
    sources = [open_pair(gold, pred, reading=reading) for pred in preds]
    threshold = runs[0].threshold
    evaluator = scoring.evaluator(
        sources[0].unit,
        thresholds=(0.5,) if threshold is None else (threshold,),
        max_errors=0,
        details=False,
    )
    return disagreements_of(
        evaluator,
        sources[0].batches(),
        sources[1].batches(),
        names=(runs[0].name, runs[1].name),
        threshold=threshold,
        sample=sample,
    )
