"""Release gates (semantics §6): per-label floors on recall, precision, F and support.

A gate is data (:class:`Floors`) and a pure function (:func:`check_gate`) from an
:class:`~.result.EvaluationResult` to a :class:`GateVerdict`. Every floor is checked and
reported, breached or not. A label with a floor but no gold spans fails: missing evidence is
not a pass. An undefined figure (``None``, e.g. precision with no predictions) cannot show
that it meets its floor, so it fails too.

A floor is the decimal the user wrote (semantics §6): floors are kept as :class:`~decimal.Decimal`
(a float given in Python becomes the shortest decimal that reads back as it, ``0.95`` ->
``Decimal("0.95")``) and compared with the figure as an exact fraction (``tp /
num_annotated``), never through a binary float: recall 19/20 meets a floor of 0.95.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import attrs

from ..errors import InvalidInputError
from .labels import SPAN_LENGTH
from .ledger import RATIOS, Ledger, exact_figures
from .result import EvaluationResult, ThresholdScores
from .settings import BASE_LEVEL, as_decimal, plural, shown_number
from .strategies import STRATEGIES, option_names, resolve_options
from .sweep import ledger_at, operating_point, sweep_points

__all__ = [
    "FIGURES",
    "Check",
    "Floor",
    "Floors",
    "GateVerdict",
    "check_gate",
    "exact_figures",
]

FIGURES: tuple[str, ...] = ("recall", "precision", "f")
#: Figures whose floor is a most, not a least: the share of predicted strings found nowhere in
#: their document (semantics §11).
CEILINGS: tuple[str, ...] = ("ungrounded_rate",)
_OPTIONS = ("strategy", "threshold", "level")
_LATE = ("score", "slice")  # (keys of a check's JSON only when set: added later)


def _figure_floor(value: object, floor: Any, figure: attrs.Attribute[Any]) -> Decimal | None:
    """A figure's floor (:func:`as_decimal`), named by its label and figure when it is not a
    number in [0, 1]; ``None`` stays ``None``."""
    if value is None:
        return None
    return as_decimal(value, f"floors for {floor.label!r}: {figure.name} floor")


# The converter is handed the floor (for its label) and the field (for the figure's name).
# mypy's attrs plugin takes only plain functions as converters, hence the ignores below
# ([misc]: "Unsupported converter"); it then takes any value for these fields in __init__,
# as the converter does.
_FIGURE_FLOOR = attrs.Converter(_figure_floor, takes_self=True, takes_field=True)


@attrs.frozen
class Floor:
    """The floors of one label; ``None`` leaves a figure unchecked. Figure floors are kept as
    the decimals written (see :func:`as_decimal`)."""

    label: str
    recall: Decimal | None = attrs.field(default=None, converter=_FIGURE_FLOOR)  # type: ignore[misc]
    precision: Decimal | None = attrs.field(default=None, converter=_FIGURE_FLOOR)  # type: ignore[misc]
    f: Decimal | None = attrs.field(default=None, converter=_FIGURE_FLOOR)  # type: ignore[misc]
    min_support: int = 0
    ungrounded_rate: Decimal | None = attrs.field(default=None, converter=_FIGURE_FLOOR)  # type: ignore[misc]
    #: the floors hold in each slice of this field too, on ``min_slice_support`` gold spans
    every: str | None = None
    min_slice_support: int = 0


@dataclass(frozen=True)
class Floors:
    """A gate: floors per label, and optionally the strategy (and its options), threshold and
    hierarchy level they were set for (the first scored threshold and the base labels by
    default)."""

    floors: tuple[Floor, ...]
    strategy: str | None = None
    threshold: float | None = None
    level: str | None = None
    source: str = "floors"
    strategy_options: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str = "floors") -> Floors:
        """Build from ``{"floors": {LABEL: {figure: floor}}, "gate": {options}}``."""
        unknown = set(data) - {"floors", "gate"}
        if unknown:
            raise InvalidInputError(
                f"{source}: unknown top-level key(s) "
                f"{', '.join(sorted(map(str, unknown)))}; expected 'floors' "
                "and optionally 'gate'"
            )
        options = data.get("gate") or {}
        # The gate section may also set the strategy's options (``min_gold: 0.7``).
        accepted = (*_OPTIONS, *option_names())
        if not isinstance(options, Mapping) or set(options) - set(accepted):
            raise InvalidInputError(
                f"{source}: 'gate' may set {', '.join(accepted)} only, found {options!r}"
            )
        strategy, level = options.get("strategy"), options.get("level")
        if strategy is not None and (not isinstance(strategy, str) or strategy not in STRATEGIES):
            raise InvalidInputError(
                f"{source}: gate.strategy {strategy!r} is not a strategy; "
                f"use one of {', '.join(STRATEGIES)}"
            )
        if level is not None and (not isinstance(level, str) or not level):
            raise InvalidInputError(f"{source}: gate.level must be a level name, not {level!r}")
        raw = data.get("floors")
        if not isinstance(raw, Mapping) or not raw:
            raise InvalidInputError(
                f"{source}: 'floors' must map each gated label to its "
                'floors, e.g. {"SSN": {"recall": 0.95}}'
            )
        floors = tuple(_floor(label, spec, source) for label, spec in raw.items())
        threshold = _threshold(options.get("threshold"), source)
        # (numbers are read as the decimals written; an option takes a float)
        chosen = {
            k: float(v) if isinstance(v, Decimal) else v
            for k, v in options.items()
            if k not in _OPTIONS
        }
        try:
            if chosen and strategy is not None:
                resolve_options(strategy, chosen)
        except ValueError as exc:
            raise InvalidInputError(f"{source}: gate: {exc}") from None
        return cls(
            floors,
            strategy=strategy,
            threshold=threshold,
            level=level,
            source=source,
            strategy_options=tuple(chosen.items()),
        )


def _threshold(threshold: object, source: str) -> float | None:
    """The gate's IoU threshold as a float in (0, 1], or None when the file sets none."""
    if threshold is None:
        return None
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float | Decimal)
        or not 0 < float(threshold) <= 1
    ):
        raise InvalidInputError(
            f"{source}: gate.threshold must be an IoU threshold in (0, 1], "
            f"not {shown_number(threshold)}"
        )
    return float(threshold)


def _floor(label: object, spec: object, source: str) -> Floor:
    where = f"{source}: floors for {label!r}"
    if not isinstance(label, str) or not label:
        raise InvalidInputError(f"{where}: a label must be a non-empty string")
    if not isinstance(spec, Mapping) or not spec:
        raise InvalidInputError(
            f'{where}: expected figures such as {{"recall": 0.9}}, found {spec!r}'
        )
    values: dict[str, Decimal | int | str] = {}
    for key, value in spec.items():
        if key in (*FIGURES, *CEILINGS):
            if isinstance(value, str):  # a quoted number is not a number
                raise InvalidInputError(
                    f"{where}: {key} floor must be a number in [0, 1], not {shown_number(value)}"
                )
            values[key] = as_decimal(value, f"{where}: {key} floor")
        elif key in ("min_support", "min_slice_support"):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InvalidInputError(
                    f"{where}: {key} must be a whole number >= 0, not {shown_number(value)}"
                )
            values[key] = value
        elif key == "every" and isinstance(value, str) and value.partition(":")[0] == SPAN_LENGTH:
            raise InvalidInputError(
                f"{where}: every must name a gold field: span-length slices hold spans, not "
                f"documents, so a floor cannot hold in each of them (not {value!r})"
            )
        elif key == "every" and isinstance(value, str) and value:
            values[key] = value
        elif key == "every":
            raise InvalidInputError(f"{where}: every must name a slice field, not {value!r}")
        else:
            raise InvalidInputError(
                f"{where}: unknown figure {key!r}; use {', '.join(FIGURES + CEILINGS)}, "
                "min_support, every or min_slice_support"
            )
    if "min_slice_support" in values and "every" not in values:
        raise InvalidInputError(f"{where}: min_slice_support needs every (a slice field)")
    # each key is a figure or min_support, its value checked above for that key
    return Floor(label, **values)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Check:
    """One floor of one label: the figure found, the floor, and whether it holds."""

    label: str
    figure: str
    value: float | int | None
    floor: Decimal | int
    passed: bool
    reason: str | None = None
    #: the score threshold the figure was read at (``--choose-thresholds``), else ``None``
    score: float | None = None
    #: the slice (``FIELD=VALUE``) the figure was read in, else ``None`` (the whole)
    slice: str | None = None

    def shown(self) -> str:
        """The figure found: 4 decimals, or as many more as it takes to read on its side of the
        bound (2/3 failing a floor of 0.66667 is not "0.6667 < floor 0.66667")."""
        if self.value is None or isinstance(self.value, int):
            return "undefined" if self.value is None else str(self.value)
        sign = -1 if self.figure in CEILINGS else 1  # (a ceiling holds at or below its bound)
        for digits in range(4, 17):
            text = f"{self.value:.{digits}f}"
            if (sign * (Decimal(text) - self.floor) >= 0) == self.passed:
                return text
        return repr(self.value)

    def describe(self) -> str:
        shown = self.shown()
        relation = ((">=", "<") if self.figure not in CEILINGS else ("<=", ">"))[not self.passed]
        bound = "most" if self.figure in CEILINGS else "floor"
        text = f"{self.label} {self.figure} {shown} {relation} {bound} {self.floor}"
        text += "" if self.score is None else f" at score >= {self.score!r}"
        text += "" if self.slice is None else f" in {self.slice}"
        return f"{text} ({self.reason})" if self.reason else text


@dataclass(frozen=True)
class GateVerdict:
    """Every check of a gate; it passes when all of them do."""

    checks: tuple[Check, ...]
    strategy: str
    threshold: float | None
    level: str
    source: str
    #: ``--choose-thresholds``: per label whose recall floor a score threshold meets, the
    #: highest such threshold and the figures there (semantics §9); else ``None``
    score_thresholds: Mapping[str, Mapping[str, float | None]] | None = None
    #: the lowest of them when every floor holds there too: one threshold for every label
    shared_threshold: float | None = None
    #: predictions given as strings: ``(ungrounded, strings)`` over every label, else ``None``
    ungrounded: tuple[int, int] | None = None

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def breaches(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if not c.passed)

    def lines(self) -> list[str]:
        """Headline first, then each breached floor (label, figure, value, floor)."""
        where = f"{self.strategy}" + (
            f" at IoU >= {self.threshold:g}" if self.threshold is not None else ""
        )
        where += "" if self.score_thresholds is None else ", recall floors at chosen scores"
        # figure floors and support checks (one per label, min_support or not) counted apart
        kinds = [
            (noun, [c for c in self.checks if (c.figure == "support") == support])
            for noun, support in (("floor", False), ("support check", True))
        ]
        bad, n = self.ungrounded or (0, 0)
        tail = [f"Ungrounded strings: {bad} of {n} ({bad / n if n else 0:.4f})"] if n else []
        if self.passed:
            held = " and ".join(plural(len(cs), noun) for noun, cs in kinds if cs)
            return [f"Gate passed: {held or '0 floors'} of {self.source} hold ({where})", *tail]
        breached = " and ".join(
            f"{sum(not c.passed for c in cs)} of {plural(len(cs), noun)}"
            for noun, cs in kinds
            if cs
        )
        head = f"Gate failed: {breached} of {self.source} breached ({where})"
        return [head, *(c.describe() for c in self.breaches), *tail]

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "floors": self.source,
            "strategy": self.strategy,
            "threshold": self.threshold,
            "level": self.level,
            # a floor as the number written (``float`` reads ``Decimal("0.95")`` back as the
            # binary float whose shortest form is ``0.95``)
            "checks": [
                {
                    **{k: v for k, v in asdict(c).items() if k not in _LATE or v is not None},
                    "floor": float(c.floor) if isinstance(c.floor, Decimal) else c.floor,
                }
                for c in self.checks
            ],
            "breaches": len(self.breaches),
            **({} if self.score_thresholds is None else self.thresholds()),
            **({} if self.ungrounded is None else {"ungrounded": list(self.ungrounded)}),
        }

    def thresholds(self) -> dict[str, Any]:
        """The chosen score thresholds (``--choose-thresholds``; their file adds where they
        were chosen): label -> threshold and its figures, and the one number for every label."""
        return {
            "score_thresholds": dict(self.score_thresholds or {}),
            "spancat_threshold": self.shared_threshold,
        }


def check_gate(
    result: EvaluationResult,
    floors: Floors,
    *,
    choose_thresholds: bool = False,
    slices: Mapping[str, Sequence[str]] | None = None,
) -> GateVerdict:
    """Check every floor against ``result`` (at the floors' threshold and level, else the
    first threshold and the base labels). ``choose_thresholds`` (a result scored with
    ``sweep``): a label with a recall floor is checked at the highest score threshold whose
    recall meets it, else at its best recall (semantics §9). A floor with ``every`` holds in
    each slice too: ``slices[field]``, each document's value (semantics §10)."""
    run, level, points = _gated_scores(result, floors, choose_thresholds)
    checks: list[Check] = []
    chosen: dict[str, Mapping[str, Any]] = {}
    gated = []  # (floor, ledger, points) of each label with gold
    sliced = [  # (after the whole's)
        c
        for floor in floors.floors
        if floor.every is not None
        for c in _slice_checks(floor, result, run, level, choose_thresholds, slices or {})
    ]
    for floor in floors.floors:
        ledger = run.per_label.get(floor.label) or Ledger()
        checks.append(_support(floor, ledger, floor.min_support))
        if not ledger.num_annotated:
            continue
        mine = points.get(floor.label, [])
        gated.append((floor, ledger, mine))
        score, met = None, True
        if choose_thresholds and floor.recall is not None:
            ledger, score, met = operating_point(mine, floor.recall, ledger)
            if met and score is not None:
                found = ledger.to_dict(run.beta, run.zero_division)
                chosen[floor.label] = {"threshold": score, **{k: found[k] for k in RATIOS}}
        checks += _figure_checks(floor, ledger, run, score, met)
        if floor.ungrounded_rate is not None:
            checks.append(_ungrounded_check(floor.label, floor.ungrounded_rate, run))
    shared = min((c["threshold"] for c in chosen.values()), default=None)
    if shared is not None and not all(
        c.passed
        for c in (
            *(c for c in checks if c.figure == "support"),
            *(c for f, g, p in gated for c in _figure_checks(f, ledger_at(p, shared, g), run)),
        )
    ):
        shared = None
    return GateVerdict(
        (*checks, *sliced),
        result.settings.strategy,
        run.threshold,
        level,
        floors.source,
        chosen if choose_thresholds else None,
        shared,
        None if run.grounding is None else run.grounding.ungrounded(),
    )


def _gated_scores(
    result: EvaluationResult, floors: Floors, choose_thresholds: bool
) -> tuple[ThresholdScores, str, dict[str, list[dict[str, Any]]]]:
    """The scores the floors are checked against (their strategy, threshold and level
    refused when not scored) and, to choose thresholds, each label's swept points."""
    if floors.strategy is not None and floors.strategy != result.settings.strategy:
        raise InvalidInputError(
            f"{floors.source}: the floors are for the {floors.strategy!r} "
            f"strategy, but the evaluation used {result.settings.strategy!r}"
        )
    level = floors.level or BASE_LEVEL
    if level not in result.levels:
        raise InvalidInputError(
            f"{floors.source}: gate level {level!r} was not scored "
            f"(scored: {', '.join(result.levels)})"
        )
    try:
        run = result.scores(floors.threshold, level=level)
    except KeyError as exc:
        raise InvalidInputError(f"{floors.source}: {exc.args[0]}") from None
    points = (
        sweep_points(result.sweep, result.settings.levels[0], run.threshold, level, floors.source)
        if choose_thresholds
        else {}
    )
    return run, level, points


def _support(floor: Floor, ledger: Ledger, least: int, where: str | None = None) -> Check:
    """The support check of ``floor`` (at least ``least`` gold spans, and one) in the whole
    or in the slice ``where``: too few is missing evidence, never a pass."""
    support, need = ledger.num_annotated, max(least, 1)
    short = "no gold spans" if not support else "too few gold spans" if where else None
    reason = f"{short}: missing evidence is not a pass" if short and support < need else None
    return Check(floor.label, "support", support, need, support >= need, reason, slice=where)


def _slice_checks(
    floor: Floor,
    result: EvaluationResult,
    run: ThresholdScores,
    level: str,
    choose_thresholds: bool,
    slices: Mapping[str, Sequence[str]],
) -> list[Check]:
    """``floor``'s support and figure checks in each slice of ``floor.every``, from the
    per-document counts summed per slice."""
    documents, values = result.at_level(level).documents, slices.get(str(floor.every))
    t = result.settings.thresholds.index(run.threshold)
    held = f"the floors for {floor.label!r} hold in every slice of {floor.every!r}"
    if choose_thresholds:
        raise InvalidInputError(f"--choose-thresholds: {held}, read with every prediction kept")
    if documents is None or t not in documents.kept or values is None:
        raise InvalidInputError(
            f"{held}: that needs each document's value (slices={{{floor.every!r}: [value, ...]}},"
            " in the documents' order) and per-document counts (per_document=True)"
        )
    names, labels, rows = documents.by_slice(values)
    k = documents.kept.index(t)
    j, checks = labels.index(floor.label) if floor.label in labels else None, []
    for i, name in enumerate(names):
        ledger = Ledger() if j is None else Ledger.from_row(rows[i, j, k])
        where = f"{floor.every}={name}"
        checks.append(_support(floor, ledger, floor.min_slice_support, where))
        if ledger.num_annotated:
            checks += _figure_checks(floor, ledger, run, where=where)
    return checks


def _ungrounded_check(label: str, most: Decimal, run: ThresholdScores) -> Check:
    """The ceiling on ``label``'s share of predicted strings found nowhere in the text."""
    bad, n = run.grounding.ungrounded(label) if run.grounding is not None else (0, 0)
    passed = n > 0 and Fraction(bad, n) <= Fraction(most)
    why = None if n else "undefined: no predicted strings"
    return Check(label, "ungrounded_rate", bad / n if n else None, most, passed, why)


def _figure_checks(
    floor: Floor,
    ledger: Ledger,
    run: ThresholdScores,
    score: float | None = None,
    reached: bool = True,
    where: str | None = None,
) -> list[Check]:
    """The figure floors of ``floor`` against ``ledger`` (read at ``score``; ``reached``:
    whether a score threshold met the recall floor; ``where``: the slice it is of)."""
    z = run.zero_division
    found = ledger.to_dict(run.beta, z)
    exact = exact_figures(ledger, run.beta, z)
    checks = []
    for figure in FIGURES:
        bound = getattr(floor, figure)
        if bound is None:
            continue
        value, fraction = found[figure], exact[figure]
        passed = fraction is not None and fraction >= Fraction(bound)
        reason = (
            "the best recall at any score threshold"
            if not reached and figure == "recall"
            else "undefined: no predictions"
            if value is None
            else None
        )
        checks.append(Check(floor.label, figure, value, bound, passed, reason, score, where))
    return checks
