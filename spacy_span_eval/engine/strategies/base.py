"""What every matching strategy returns, the interface the engine calls, and what a strategy
declares about itself (name, score-key infix, thresholds, options) for the registry."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from numbers import Real
from typing import Any, ClassVar

import numpy as np

from ..columns import SpanColumns


@dataclass(frozen=True, slots=True)
class Match:
    """Verdicts for one batch: per gold row and per pred row, per threshold (axis 0)."""

    gold_tp: np.ndarray  # bool (n_thresholds, n_gold)
    pred_credited: np.ndarray  # bool (n_thresholds, n_pred)
    gold_score: np.ndarray  # float (n_gold): best same-label score found (IoU for two_sided)
    pred_score: np.ndarray  # float (n_pred): best pairwise same-label score found
    # Optional, bool (n_thresholds, n_gold): whether an annotation's own-label predictions
    # find it when nothing competes for them (one-to-one rules aside). A strategy that knows
    # it cheaply says so; otherwise boundary errors (semantics §4) ask ``cover``.
    found_alone: np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class Cover:
    """How well one label's predictions cover one annotation (used for confusion cells)."""

    score: float
    selection: tuple[int, ...]  # indices into the candidate list
    passes: np.ndarray  # bool (n_thresholds,)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A strategy's verdicts on a batch, with the rows they refer to.

    ``gold``/``pred`` are the rows actually counted: the input, or what the strategy made of
    it (exact collapses duplicates, token expands spans to positions); ``notes`` says how many
    rows that changed, so nothing disappears silently.
    """

    gold: SpanColumns
    pred: SpanColumns
    match: Match
    notes: dict[str, int] = field(default_factory=dict)
    side: SideCounts | None = None  # the strategy's side table counts (``side_table``), if any


@dataclass(frozen=True)
class SideTable:
    """What a strategy counts beside its ledger: a grid of ``rows`` × ``counts`` of ints, per
    label, overall and threshold, additive like the ledger (semantics §2.5 has the semeval
    one). ``key`` names it in a run's JSON (``run["schemas"]``); ``title`` heads its table in
    text reports, where ``row_name`` heads the column of row names; each row's name is also a
    score-key fragment (``ents_semeval_partial_f``).

    ``unmatched_gold`` and ``unmatched_pred`` name the counts a span that matches nothing adds
    one to, in every row: unaligned spans (ones a reader could not put in the unit) never
    reach the strategy, and are counted there for it (``Verdicts``), as in the ledger.
    """

    key: str
    title: str
    row_name: str
    rows: tuple[str, ...]
    counts: tuple[str, ...]
    unmatched_gold: str
    unmatched_pred: str


@dataclass(frozen=True, slots=True)
class SideCounts:
    """One batch's side table counts. ``overall`` is counted on its own, not summed from the
    labels: a strategy may match across labels there (semeval does)."""

    per_label: np.ndarray  # int (n_thresholds, n_labels, n_rows, n_counts)
    overall: np.ndarray  # int (n_thresholds, n_rows, n_counts)


@dataclass(frozen=True)
class Option:
    """One option a strategy takes.

    Its ``name`` is a keyword of the strategy's constructor and of ``SpanEvaluator``, and a key
    of ``Settings.to_dict()``; ``default`` applies when it is not given. ``check`` says whether
    a value is allowed, ``expected`` finishes the message "{name} must be {expected}, not ...".
    """

    name: str
    default: Any
    check: Callable[[Any], bool]
    expected: str

    def validate(self, value: Any) -> None:
        if not self.check(value):
            raise ValueError(f"{self.name} must be {self.expected}, not {value!r}")

    @classmethod
    def choice(cls, name: str, default: Any, values: tuple[Any, ...]) -> Option:
        """One of a few values."""
        return cls(name, default, lambda v: v in values, " or ".join(map(repr, values)))

    @classmethod
    def flag(cls, name: str, default: bool = False) -> Option:
        return cls(name, default, lambda v: v in (True, False), "True or False")

    @classmethod
    def fraction(cls, name: str, default: float) -> Option:
        """A share in (0, 1]."""
        # typeshed's numbers.Real declares no comparison with an int
        return cls(
            name,
            default,
            lambda v: isinstance(v, Real) and not isinstance(v, bool) and 0 < v <= 1,  # type: ignore[operator]
            "in (0, 1]",
        )


class Strategy:
    """A matching strategy. Each subclass declares what the rest of the package reads from the
    registry (:data:`spacy_span_eval.engine.strategies.STRATEGIES`), so no other module names
    strategies:

    - ``name``: what users choose it by (``--strategy``, ``SpanEvaluator(strategy=...)``);
    - ``infix``: its spaCy score keys, next to spaCy's own (``ents_{infix}_f``);
    - ``uses_thresholds``: scored at each (IoU) threshold, or once (``threshold: null``);
    - ``options``: the :class:`Option` values it takes; the constructor checks them and sets
      each as an attribute (``self.coverage``);
    - ``per_position``: its ledgers count the positions (tokens or characters) spans cover,
      not spans;
    - ``side_table``: counts it keeps beside the ledger (``None``: none), which its ``run``
      returns as ``Outcome.side`` and :meth:`side_figures` turns into figures. Tallies, results,
      JSON, text reports and the spaCy score keys carry them without naming the strategy.
    """

    name: ClassVar[str]
    infix: ClassVar[str]
    uses_thresholds: ClassVar[bool] = False
    options: ClassVar[tuple[Option, ...]] = ()
    per_position: ClassVar[bool] = False
    side_table: ClassVar[SideTable | None] = None
    #: Whether a gold span's and a prediction's verdicts depend only on the spans of their
    #: document and label that overlap them, so a score sweep may rescore only the groups
    #: a removal touches (:mod:`..sweep`); a strategy without it refuses ``sweep``.
    sweep_local: ClassVar[bool] = False

    def __init__(self, thresholds: tuple[float | None, ...], **options: Any) -> None:
        self.thresholds = thresholds
        self.n = len(thresholds)
        for name, value in self.resolve_options(options).items():
            setattr(self, name, value)

    @classmethod
    def resolve_options(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every option of this strategy, in declared order: the given value (checked) or the
        default. An option it does not declare is an error."""
        out = {o.name: given.get(o.name, o.default) for o in cls.options}
        unknown = [name for name in given if name not in out]
        if unknown:
            takes = f"; it takes {', '.join(out)}" if out else ""
            raise ValueError(f"the {cls.name} strategy has no option {unknown[0]!r}{takes}")
        for option in cls.options:
            option.validate(out[option.name])
        return out

    @classmethod
    def describe(cls, options: Mapping[str, Any]) -> str | None:
        """The options worth naming in a report's title (``None``: nothing to add)."""
        return None

    @classmethod
    def side_figures(
        cls,
        row: str,
        counts: Mapping[str, int],
        beta: float = 1.0,
        zero_division: float | None = None,
    ) -> dict[str, int | float | None]:
        """What one row of the side table derives from its ``counts`` (named as in
        ``side_table.counts``): further counts and ratios, ``None`` where undefined."""
        return {}

    def run(self, gold: SpanColumns, pred: SpanColumns, n_labels: int) -> Outcome:
        """Score a batch; rows of equal ``label`` and ``doc`` are compared with each other."""
        return Outcome(gold, pred, self.match(gold, pred, n_labels))

    def match(self, gold: SpanColumns, pred: SpanColumns, n_labels: int) -> Match:
        raise NotImplementedError

    def pair_cover(
        self, gs: np.ndarray, ge: np.ndarray, ps: np.ndarray, pe: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Vectorized :meth:`cover` for annotations with exactly one candidate each:
        ``(score, passes)`` with ``passes`` of shape ``(n_thresholds, n)``."""
        raise NotImplementedError

    def cover(self, g_start: int, g_end: int, cands: list[tuple[int, int]]) -> Cover:
        """Score one annotation against candidate spans of some (other) label."""
        raise NotImplementedError
