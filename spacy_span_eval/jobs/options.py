"""How to score: :class:`ScoringOptions`, the one set of scoring settings that every command
(evaluate, gate, report, compare, the demo) takes.

It lives with the jobs, not in the engine, because it may name settings files: a label map or
a hierarchy given as a path is loaded by :mod:`spacy_span_eval.readers.settings_files`
(:meth:`ScoringOptions.load`), and the engine below only ever sees loaded values. How to read
the files is the other half, :class:`spacy_span_eval.readers.ReadingOptions`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ..engine.evaluator import SpanEvaluator
from ..engine.gates import Floors
from ..engine.labels import Hierarchy, LabelMap
from ..engine.settings import check_beta, check_count, check_threshold
from ..engine.spans import Document
from ..errors import UnknownLabelError
from ..readers.settings_files import as_hierarchy, as_label_map

__all__ = ["CONNECT_TIMEOUT", "DEFAULT_STRATEGY", "REPORT_SCORING", "ScoringOptions", "as_labels",
           "as_thresholds", "resolve_n_process"]

#: The strategy when neither the options nor a gate's floors choose one.
DEFAULT_STRATEGY = "two_sided"
#: Seconds to wait for a Dask scheduler (``--connect-timeout``); here, not in
#: :mod:`.dask_scoring`, so that the commands' defaults do not import it.
CONNECT_TIMEOUT = 10.0


def resolve_n_process(n_process: int) -> int:
    """spaCy's convention: a positive count, or ``-1`` for one process per CPU."""
    if n_process == -1:
        return os.cpu_count() or 1
    if isinstance(n_process, bool) or not isinstance(n_process, int) or n_process < 1:
        raise ValueError(f"n_process must be a positive integer or -1 (all CPUs), "
                         f"not {n_process!r}")
    return n_process


def as_thresholds(value: float | Iterable[float]) -> tuple[float, ...]:
    """Thresholds as a tuple: a lone number is one threshold."""
    return (value,) if isinstance(value, int | float) else tuple(value)


def as_labels(value: str | Iterable[str]) -> tuple[str, ...]:
    """Label names as a tuple: each value may hold several, separated by commas
    (``"PER,LOC"``); blanks are dropped, the order kept, repeats removed."""
    values = [value] if isinstance(value, str) else list(value)
    names = (name.strip() for v in values for name in str(v).split(","))
    return tuple(dict.fromkeys(name for name in names if name))


@dataclass(frozen=True)
class ScoringOptions:
    """How to score a system.

    ``strategy``: ``two_sided``, ``exact``, ``overlap`` or ``token``; ``None`` takes the
    floors' own when a gate is checked, else ``two_sided``. ``thresholds``: IoU thresholds
    (``two_sided`` only; a single number is one threshold). ``evaluate`` and ``gate`` score
    them all; ``report`` and ``compare`` show the first (:attr:`threshold`) and add the
    others to the curve's grid. ``beta``: the F-beta weight.
    ``label_map``: alias -> canonical, as a file path, a mapping or a
    :class:`~spacy_span_eval.engine.labels.LabelMap`; ``strict_labels``: a label it does not
    know is an error. ``hierarchy``: coarser levels, as a file path or a
    :class:`~spacy_span_eval.engine.labels.Hierarchy` (``evaluate`` and ``gate``).
    ``errors``: error records kept per table (``evaluate``, ``gate``) or per system
    (``report``, ``compare``). ``labels``: score only these labels (named after the label
    map; empty: all), as if the others' spans were not in either file.
    """

    strategy: str | None = None
    thresholds: tuple[float, ...] = (0.5,)
    beta: float = 1.0
    label_map: Path | str | LabelMap | Mapping[str, str] | None = None
    strict_labels: bool = False
    hierarchy: Path | str | Hierarchy | None = None
    errors: int = 0
    labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # A lone number or a list (from the command line) becomes a tuple. Numbers are
        # checked here, before any file is read (NaN, infinity, out of range).
        object.__setattr__(self, "thresholds", as_thresholds(self.thresholds))
        for threshold in self.thresholds:
            check_threshold(threshold)
        check_beta(self.beta)
        check_count(self.errors, "errors")
        object.__setattr__(self, "labels", as_labels(self.labels))

    @property
    def threshold(self) -> float | None:
        """The main threshold of a report or a comparison: the first one."""
        return self.thresholds[0] if self.thresholds else None

    def strategy_for(self, floors: Floors | None = None) -> str:
        """The strategy to score with: the chosen one, else the floors', else two_sided."""
        return (self.strategy or (floors.strategy if floors is not None else None)
                or DEFAULT_STRATEGY)

    def load(self, floors: Floors | None = None) -> ScoringOptions:
        """These options with the strategy decided (see :meth:`strategy_for`) and the label
        map and hierarchy loaded from their files (given values pass through)."""
        return replace(self, strategy=self.strategy_for(floors),
                       label_map=self.loaded_label_map(),
                       hierarchy=as_hierarchy(self.hierarchy))

    def evaluator(self, unit: str, *, thresholds: Iterable[float] | None = None,
                  per_document: bool = False) -> SpanEvaluator:
        """An evaluator with these options in ``unit`` (``thresholds`` replaces theirs;
        ``per_document`` keeps each document's ledgers)."""
        return SpanEvaluator(
            strategy=self.strategy_for(), unit=unit, beta=self.beta,
            thresholds=self.thresholds if thresholds is None else thresholds,
            label_map=self.loaded_label_map(), strict_labels=self.strict_labels,
            hierarchy=as_hierarchy(self.hierarchy), max_errors=self.errors,
            per_document=per_document)

    def loaded_label_map(self) -> LabelMap | None:
        """The label map, loaded from its file when it is a path (strict when
        ``strict_labels``, even without a map: then every label is unknown)."""
        return as_label_map(self.label_map, strict=self.strict_labels)

    def select_labels(self, docs: Iterable[Document]) -> Iterator[Document]:
        """The documents with only the spans of :attr:`labels` (after the label map), gold,
        predicted and unaligned alike; every span when no labels are chosen. A label the
        strict map does not know is kept, so that scoring reports it."""
        if not self.labels:
            yield from docs
            return
        wanted = set(self.labels)
        label_map = self.loaded_label_map()

        def keep(label: str) -> bool:
            if label_map is None:
                return label in wanted
            try:
                return label_map(label) in wanted
            except UnknownLabelError:
                return True

        for doc in docs:
            yield replace(doc, gold=tuple(s for s in doc.gold if keep(s.label)),
                          pred=tuple(s for s in doc.pred if keep(s.label)),
                          unaligned_pred=tuple(u for u in doc.unaligned_pred
                                               if keep(u[0].label)))

    def files(self) -> list[str]:
        """The settings files these options name (``"label map PATH"``), for messages."""
        return [f"{what} {path}" for what, path in (("label map", self.label_map),
                                                     ("hierarchy", self.hierarchy))
                if isinstance(path, str | Path)]


#: ``report``'s defaults: the page's error browser keeps 300 records per system.
REPORT_SCORING = ScoringOptions(errors=300)
