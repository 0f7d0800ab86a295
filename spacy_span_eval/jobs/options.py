"""How to score and how to run: :class:`ScoringOptions` and :class:`RunOptions`, the option sets
every command takes beside the readers' :class:`~spacy_span_eval.readers.ReadingOptions`.

They live with the jobs, not in the engine, because scoring options may name settings files:
a label map or a hierarchy given as a path is loaded by
:mod:`spacy_span_eval.readers.settings_files` (:meth:`ScoringOptions.load`), and the engine
below only ever sees loaded values. The values are frozen and checked when made (attrs
converters and validators), before any file is read.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

import attrs

from ..engine.labels import Hierarchy, LabelMap
from ..engine.settings import (
    DEFAULT_STRATEGY,
    as_thresholds,
    check_beta,
    check_count,
    plural,
)
from ..errors import InvalidInputError, printable

if TYPE_CHECKING:  # (imported where used: the CLI builds its flags from these classes
    # without loading the engine, and numpy with it, for --help)
    from ..engine.evaluator import SpanEvaluator
    from ..engine.gates import Floors

__all__ = [
    "CONNECT_TIMEOUT",
    "CompareKeywords",
    "DEFAULT_STRATEGY",
    "LOGGER",
    "OptionKeywords",
    "REPORT_SCORING",
    "RunOptions",
    "ScoringOptions",
    "as_labels",
    "as_strategy_options",
    "as_thresholds",
    "available_cpus",
    "notice",
    "worker_count",
]

#: Seconds to wait for a Dask scheduler (``--connect-timeout``); here, not in
#: :mod:`.dask_scoring`, so that the commands' defaults do not import it.
CONNECT_TIMEOUT = 10.0


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, where the system has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # (no affinity on macOS and Windows)
        return os.cpu_count() or 1


def worker_count(n_process: int, *, parts: int | None = None) -> int:
    """Worker processes for ``n_process`` (spaCy's convention: a positive count, or ``-1``
    for one per CPU): at most one per available CPU (:func:`available_cpus`) and, where the
    work comes in a known number of ``parts``, one per part; capping an explicit count is
    said once on stderr (:func:`notice`)."""
    asked = (os.cpu_count() or 1) if n_process == -1 else n_process
    cpus = available_cpus()
    workers = min(asked, cpus)
    why = f"{plural(cpus, 'CPU')} available"
    if parts is not None and parts < workers:
        workers = max(parts, 1)
        why = f"the pair is cut into about {plural(parts, 'part')}"
    if workers < asked and n_process != -1:
        notice(f"--n-process {n_process}: {plural(workers, 'worker process')} ({why})")
    return workers


#: The logger of the package's notices: lines for people on stderr (with no handler set up,
#: Python's last-resort handler prints a warning's message there).
LOGGER = logging.getLogger("spacy_span_eval")


@functools.cache  # (once per process)
def notice(line: str) -> None:
    """Say ``line`` on stderr (a warning of :data:`LOGGER`), once per process."""
    LOGGER.warning(printable(line))


def _n_process(n_process: Any) -> int:
    if (
        isinstance(n_process, bool)
        or not isinstance(n_process, int)
        or (n_process < 1 and n_process != -1)
    ):
        raise ValueError(
            f"n_process must be a positive integer or -1 (all CPUs), not {n_process!r}"
        )
    return n_process


def as_labels(value: str | Iterable[str]) -> tuple[str, ...]:
    """Label names as a tuple: each value may hold several, separated by commas
    (``"PER,LOC"``); blanks are dropped, the order kept, repeats removed."""
    values = [value] if isinstance(value, str) else list(value)
    names = (name.strip() for v in values for name in str(v).split(","))
    return tuple(dict.fromkeys(name for name in names if name))


def as_strategy_options(
    value: Mapping[str, Any] | Iterable[str | tuple[str, Any]],
) -> tuple[tuple[str, Any], ...]:
    """Strategy options as ``(name, value)`` pairs, from a mapping, pairs, or the command
    line's ``KEY=VALUE`` texts (``coverage=pooled``, ``one_to_one=true``, ``min_gold=0.7``:
    ``true``/``false`` are booleans, a number is a number, anything else a string)."""
    pairs = value.items() if isinstance(value, Mapping) else value
    out: dict[str, Any] = {}
    for pair in pairs:
        if isinstance(pair, str):
            name, equals, text = pair.partition("=")
            if not equals or not name.strip():
                raise InvalidInputError(
                    f"--option takes KEY=VALUE (e.g. coverage=pooled), not {pair!r}"
                )
            out[name.strip()] = _option_value(text.strip())
        else:
            name, given = pair
            out[name] = given
    return tuple(out.items())


def _option_value(text: str) -> bool | float | str:
    """A strategy option's value as written on the command line."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    try:
        return float(text)
    except ValueError:
        return text


def _errors(value: object) -> int:
    return check_count(value, "errors")


def _batch_size(value: object) -> int:
    return check_count(value, "batch_size", minimum=1)


@attrs.frozen
class ScoringOptions:
    """How to score a system: the engine's :class:`~spacy_span_eval.engine.settings.Settings`
    as a command takes them (:meth:`settings` makes those).

    ``strategy``: a registered strategy; ``None`` takes the floors' own when a gate is
    checked, else :data:`DEFAULT_STRATEGY`. ``strategy_options``: its options (``coverage``,
    ``min_gold``, ...), checked against the strategy's declared ones; the floors' own apply
    where these do not set them. ``thresholds``: IoU thresholds (a single number is one
    threshold); ``evaluate`` and ``gate`` score them all, ``report`` and ``compare`` show the
    first (:attr:`threshold`) and add the others to the curve's grid. ``beta``: the F-beta
    weight. ``label_map``: alias -> canonical, as a file path, a mapping or a
    :class:`~spacy_span_eval.engine.labels.LabelMap`; ``strict_labels``: a label it does not
    know is an error. ``hierarchy``: coarser levels, as a file path or a
    :class:`~spacy_span_eval.engine.labels.Hierarchy` (``evaluate`` and ``gate``).
    ``errors``: error records kept per table (``evaluate``, ``gate``) or per system
    (``report``, ``compare``). ``labels``: score only these labels (named after the label
    map; empty: all), as if the others' spans were in neither file. ``sweep``: the
    ledger at every prediction score, average precision and calibration (``evaluate``);
    ``map_thresholds``: with it, span mAP over IoU 0.5:0.05:0.95 too.
    """

    strategy: str | None = None
    strategy_options: tuple[tuple[str, Any], ...] = attrs.field(
        default=(), converter=as_strategy_options
    )
    thresholds: tuple[float, ...] = attrs.field(default=(0.5,), converter=as_thresholds)
    beta: float = attrs.field(default=1.0, converter=check_beta)
    label_map: Path | str | LabelMap | Mapping[str, str] | None = None
    strict_labels: bool = False
    hierarchy: Path | str | Hierarchy | None = None
    errors: int = attrs.field(default=0, converter=_errors)
    labels: tuple[str, ...] = attrs.field(default=(), converter=as_labels)
    sweep: bool = False
    map_thresholds: bool = False

    def __attrs_post_init__(self) -> None:
        # Checked now when the strategy is known (else once the floors have chosen it).
        if self.strategy is not None and self.strategy_options:
            from ..engine.strategies import resolve_options  # (numpy: not for --help)

            resolve_options(self.strategy, dict(self.strategy_options))

    @property
    def threshold(self) -> float | None:
        """The main threshold of a report or a comparison: the first one."""
        return self.thresholds[0] if self.thresholds else None

    def strategy_for(self, floors: Floors | None = None) -> str:
        """The strategy to score with: the chosen one, else the floors', else the default."""
        return (
            self.strategy or (floors.strategy if floors is not None else None) or DEFAULT_STRATEGY
        )

    def load(self, floors: Floors | None = None) -> ScoringOptions:
        """These options with the strategy decided (see :meth:`strategy_for`), the floors'
        strategy options under these, and the label map and hierarchy loaded from their
        files (given values pass through)."""
        return attrs.evolve(
            self,
            strategy=self.strategy_for(floors),
            label_map=self.loaded_label_map(),
            hierarchy=_loaded_hierarchy(self.hierarchy),
            strategy_options={
                **dict(floors.strategy_options if floors is not None else ()),
                **dict(self.strategy_options),
            },
        )

    def settings(self, **changes: Any) -> dict[str, Any]:
        """The keywords of the engine's :class:`~spacy_span_eval.engine.settings.Settings`
        these options make, all but the unit (the gold file's: known once it is opened);
        ``changes`` replace or add settings (``thresholds``, ``error_strings``, ...)."""
        return {
            "strategy": self.strategy_for(),
            "thresholds": self.thresholds,
            "beta": self.beta,
            "max_errors": self.errors,
            "label_map": self.loaded_label_map(),
            "hierarchy": _loaded_hierarchy(self.hierarchy),
            "labels": self.labels,
            "strategy_options": self.strategy_options,
            "sweep": self.sweep,
            "map_thresholds": self.map_thresholds,
            **changes,
        }

    def evaluator(self, unit: str, **changes: Any) -> SpanEvaluator:
        """An evaluator of :meth:`settings` in ``unit``."""
        from ..engine.evaluator import SpanEvaluator  # (loads numpy: not for --help)

        return SpanEvaluator(unit=unit, **self.settings(**changes))

    def loaded_label_map(self) -> LabelMap | None:
        """The label map, loaded from its file when it is a path (strict when
        ``strict_labels``, even without a map: then every label is unknown)."""
        if not isinstance(self.label_map, str | Path):  # (no file to read: see below)
            return LabelMap.coerce(self.label_map, strict=self.strict_labels)
        from ..readers.settings_files import load_label_map

        return load_label_map(self.label_map, strict=self.strict_labels)

    def files(self) -> list[str]:
        """The settings files these options name (``"label map PATH"``), for messages."""
        return [
            f"{what} {path}"
            for what, path in (("label map", self.label_map), ("hierarchy", self.hierarchy))
            if isinstance(path, str | Path)
        ]


def _loaded_hierarchy(value: Path | str | Hierarchy | None) -> Hierarchy | None:
    """The hierarchy, read from its file when a path. The settings-file readers (JSON, YAML,
    ``.cfg``) are imported only then: a run without settings files does not load them."""
    if not isinstance(value, str | Path):
        return value
    from ..readers.settings_files import load_hierarchy

    return load_hierarchy(value)


@attrs.frozen
class RunOptions:
    """How to run a command: where its work is done.

    ``n_process``: worker processes — for the pipeline's ``nlp.pipe`` when a pipeline
    predicts, else for reading and scoring (the same numbers as one process; ``-1``: one per
    CPU). ``batch_size``: the pipeline's ``nlp.pipe`` batch size. ``code``: a Python file
    imported before the pipeline is loaded (its registered functions and components, as
    spaCy's ``--code``); ``gpu_id``: run the pipeline on this GPU (``-1``: CPU), as spaCy's
    ``--gpu-id``. ``dask_scheduler``: score on this Dask cluster (an address such as
    ``tcp://host:8786`` or a ``distributed.Client``), which must answer within
    ``connect_timeout`` seconds.
    """

    n_process: int = attrs.field(default=1, converter=_n_process)
    batch_size: int = attrs.field(default=256, converter=_batch_size)
    code: str | None = None
    gpu_id: int = -1
    dask_scheduler: Any = None
    connect_timeout: float = CONNECT_TIMEOUT

    def pipeline(self) -> dict[str, Any]:
        """The settings of a pipeline run (:func:`~spacy_span_eval.readers.open_pair`)."""
        return {name: getattr(self, name) for name in ("code", "gpu_id", "batch_size", "n_process")}


#: ``report``'s defaults: the page's error browser keeps 300 records per system.
REPORT_SCORING = ScoringOptions(errors=300)


# The option sets' fields as keywords (the API's flat keywords, which a type checker checks;
# a test holds them equal to the fields).


class CompareKeywords(TypedDict, total=False):
    """Every option field as a keyword but ``errors``, which ``compare_files`` takes itself
    (its default depends on the output format): those of
    :class:`~spacy_span_eval.readers.ReadingOptions`, :class:`RunOptions`, then
    :class:`ScoringOptions`."""

    input_format: str | None
    unit: str | None
    scheme: str
    repair: str
    tag_column: int
    pred_tag_column: int | None
    delimiter: str
    source: str
    align: str
    align_share: float
    model_version: str | None
    annotator: str | None
    session: str | None
    gold_annotator: str | None
    pred_annotator: str | None
    gold_session: str | None
    pred_session: str | None
    pairs: str
    grounding: str
    similarity: float
    occurrence: str
    snap: str
    n_process: int
    batch_size: int
    code: str | None
    gpu_id: int
    dask_scheduler: Any
    connect_timeout: float
    strategy: str | None
    strategy_options: Mapping[str, Any] | Iterable[str | tuple[str, Any]]
    thresholds: float | Iterable[float]
    beta: float
    label_map: Path | str | LabelMap | Mapping[str, str] | None
    strict_labels: bool
    hierarchy: Path | str | Hierarchy | None
    labels: str | Iterable[str]
    sweep: bool
    map_thresholds: bool


class OptionKeywords(CompareKeywords, total=False):
    """Every field of the three option sets, as the keywords of the scoring functions."""

    errors: int
