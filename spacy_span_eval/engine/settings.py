"""Settings of one evaluation: what must be equal for two tallies to be merged."""

from __future__ import annotations

import contextlib
import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Final

import attrs

from ..errors import InvalidInputError
from .labels import Hierarchy, LabelMap, hierarchy_difference, label_map_difference
from .spans import UNITS, show

if TYPE_CHECKING:
    from .strategies import Strategy

#: The name of the level that scores the (mapped) labels themselves; hierarchy levels add more.
BASE_LEVEL = "labels"
#: The IoU thresholds span mAP is averaged over with ``map_thresholds`` (COCO's 0.5:0.05:0.95).
MAP_THRESHOLDS: Final = tuple(round(0.5 + 0.05 * k, 2) for k in range(10))

#: The built-in strategies, in the order the CLI lists them: the names of
#: :data:`~.strategies.BUILT_IN` (a test holds the two equal), written here so that the CLI
#: reads its choices without importing the strategies (and numpy, which they load); the live
#: registry is :data:`~.strategies.STRATEGIES`.
STRATEGY_NAMES: tuple[str, ...] = ("two_sided", "exact", "overlap", "token", "semeval")
#: How two systems' differences are tested (:func:`.paired.paired_test`), the default first;
#: here, where the command line reads its choices without importing the test.
COMPARE_METHODS: tuple[str, ...] = ("permutation", "bootstrap")
#: The strategy when neither the caller nor a gate's floors choose one.
DEFAULT_STRATEGY: Final = "two_sided"
#: The error records' context on each side of a span, by unit, unless chosen.
_CONTEXT: Final = {"char": 40, "token": 6}


def _number(value: object, ok: Callable[[float], bool], message: str) -> float:
    """``value`` as a float, when it is a finite real number that ``ok`` accepts; else
    :class:`InvalidInputError` with ``message`` (``{value!r}`` in it names the value)."""
    number = math.nan
    if not isinstance(value, bool) and isinstance(value, numbers.Real | Decimal):
        with contextlib.suppress(OverflowError):  # an int or Decimal beyond float
            number = float(value)
    if not math.isfinite(number) or not ok(number):
        raise InvalidInputError(message.format(value=value))
    return number


def check_beta(beta: object) -> float:
    """The F-beta weight: a finite number > 0 whose square is finite too (F-beta uses
    ``beta ** 2``; ``1e308`` would make every F ``nan``)."""
    return _number(
        beta,
        lambda b: b > 0 and math.isfinite(b * b),
        "beta must be a finite number > 0 (e.g. 1.0, or 2.0 to weigh recall higher), not {value!r}",
    )


def check_zero_division(zero_division: object) -> float | None:
    """What an undefined ratio becomes: ``None`` (undefined), or a number in [0, 1]."""
    if zero_division is None:
        return None
    message = "zero_division must be None or a number in [0, 1], not {value!r}"
    return _number(zero_division, lambda z: 0 <= z <= 1, message)


def plural(n: int, noun: str) -> str:
    """``"1 span"``, ``"2,001 documents"``, ``"2 worker processes"``: a count with thousands
    separators and its noun, singular for one."""
    if n == 1:
        return f"1 {noun}"
    return f"{n:,} {noun}{'es' if noun.endswith('s') else 's'}"


#: The most resamples allowed (bootstrap intervals, paired tests): every resample's figures are
#: kept to take percentiles of, so memory and time grow with them; at this many the resampling
#: noise is already small next to an interval's width.
MAX_RESAMPLES = 100_000


def check_count(value: object, name: str, *, minimum: int = 0) -> int:
    """A whole number >= ``minimum`` (``context``, ``max_errors``, ``seed``, ...)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InvalidInputError(f"{name} must be a whole number >= {minimum}, not {value!r}")
    return int(value)


def shown_number(value: object) -> str:
    """A settings value in a message: a number as written (``1.5``, not ``Decimal('1.5')``),
    anything else as its ``repr``."""
    return str(value) if isinstance(value, Decimal) else repr(value)


def as_decimal(value: object, what: str) -> Decimal:
    """A floor as the decimal written: a ``Decimal`` or an int as it is, a float as the
    shortest decimal that reads back as it (``repr``), a string parsed. Finite, in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal | str):
        raise InvalidInputError(f"{what} must be a number in [0, 1], not {shown_number(value)}")
    try:
        number = Decimal(repr(value) if isinstance(value, float) else value)
    except ArithmeticError:
        number = Decimal("NaN")
    if not number.is_finite() or not 0 <= number <= 1:
        raise InvalidInputError(f"{what} must be a number in [0, 1], not {shown_number(value)}")
    return number


@attrs.frozen(init=False, slots=False)
class Settings:
    """What an evaluation was scored under, so also what two tallies must share to be merged
    (:meth:`difference` says what differs).

    ``label_map`` and ``hierarchy`` are compared by content: tallies scored under different
    maps count different labels. ``labels`` is the keep-set of (mapped) label names scored,
    sorted; ``()`` scores every label. ``strategy_options`` holds the chosen strategy's options,
    every one of them in declared order, as ``(name, value)`` pairs (hashable). Read one as an
    attribute (``settings.coverage``) or with :meth:`option`; pass them as keywords
    (``Settings(strategy="overlap", min_gold=0.7)``) or as ``strategy_options``; ``None``
    means the option's default. ``thresholds`` is ``(None,)`` for a strategy scored without
    thresholds; ``levels`` follow from the hierarchy. ``context`` defaults to 40 characters or
    6 tokens. ``error_strings``: count the text of every error span for the most frequent
    missed, spurious and relabelled strings; reading every erring document's text costs about
    as much as the rest of scoring, so an output that does not show them turns it off.
    """

    strategy: str
    thresholds: tuple[float | None, ...]
    unit: str
    beta: float
    zero_division: float | None
    max_errors: int | None
    context: int
    # Keep each document's ledger rows (for bootstrap intervals and paired tests): at every
    # threshold (True), or only at those of a tuple (see :attr:`document_thresholds`).
    per_document: bool | tuple[float, ...]
    # Keep confusion cells and error records: at every threshold (True), or only at those of
    # a tuple (a report's curve needs the other thresholds' ledgers alone).
    details: bool | tuple[float, ...]
    error_strings: bool
    # Sweep the predictions' scores for operating points (semantics §9): at every threshold
    # (True), or only at those of a tuple (a report's main threshold); ``map_thresholds``:
    # also at MAP_THRESHOLDS, for span mAP averaged over them.
    sweep: bool | tuple[float, ...]
    map_thresholds: bool
    # Lower edges of the span-length buckets scored apart (semantics §10); () for none.
    span_lengths: tuple[int, ...]
    strategy_options: tuple[tuple[str, Any], ...]
    label_map: LabelMap | None
    hierarchy: Hierarchy | None
    labels: tuple[str, ...]

    def __init__(
        self,
        strategy: str = DEFAULT_STRATEGY,
        thresholds: float | Iterable[float | None] = (0.5,),
        unit: str = "char",
        *,
        beta: float = 1.0,
        zero_division: float | None = None,
        max_errors: int | None = 1000,
        context: int | None = None,
        per_document: bool | float | Iterable[float | None] = False,
        details: bool | float | Iterable[float | None] = True,
        error_strings: bool = True,
        sweep: bool | float | Iterable[float | None] = False,
        span_lengths: Iterable[int] = (),
        map_thresholds: bool = False,
        label_map: LabelMap | Mapping[str, str] | None = None,
        strict_labels: bool = False,
        hierarchy: Hierarchy | None = None,
        labels: str | Iterable[str] | None = None,
        strategy_options: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
        **options: Any,
    ) -> None:
        from .strategies import get_strategy, resolve_options  # (they load numpy)

        cls = get_strategy(strategy)
        given = {**dict(strategy_options), **options}
        chosen = resolve_options(strategy, {k: v for k, v in given.items() if v is not None})
        if unit not in UNITS:
            raise ValueError(f"unit must be one of {UNITS}, not {unit!r}")
        taus = _thresholds(cls.name, cls.uses_thresholds, thresholds)
        sweep = _chosen_thresholds(sweep, taus, "sweep")
        _check_sweep(cls, bool(sweep), map_thresholds)
        # The keywords are normalised and checked here; attrs sets the fields.
        self.__attrs_init__(
            strategy=strategy,
            thresholds=taus,
            unit=unit,
            beta=check_beta(beta),
            zero_division=check_zero_division(zero_division),
            max_errors=None
            if max_errors is None
            else check_count(max_errors, "max_errors (None keeps all)"),
            context=check_count(context if context is not None else _CONTEXT[unit], "context"),
            per_document=_chosen_thresholds(per_document, taus, "per_document"),
            details=_chosen_thresholds(details, taus, "details"),
            error_strings=bool(error_strings),
            sweep=sweep,
            span_lengths=_edges(span_lengths),
            map_thresholds=bool(map_thresholds),
            strategy_options=tuple(chosen.items()),
            label_map=LabelMap.coerce(label_map, strict=strict_labels),
            hierarchy=hierarchy,
            labels=check_labels(labels),
        )

    @property
    def document_thresholds(self) -> tuple[int, ...]:
        """Indices (into :attr:`thresholds`) of the thresholds whose per-document rows are
        kept: all of them with ``per_document=True``, none without."""
        return self._indices(self.per_document)

    @property
    def detail_thresholds(self) -> tuple[int, ...]:
        """Indices (into :attr:`thresholds`) of the thresholds whose confusion cells and
        error records are kept: all of them unless ``details`` names some."""
        return self._indices(self.details)

    def _indices(self, chosen: bool | tuple[float, ...]) -> tuple[int, ...]:
        if chosen is True:
            return tuple(range(len(self.thresholds)))
        if chosen is False:
            return ()
        return tuple(self.thresholds.index(t) for t in chosen)

    @property
    def swept(self) -> tuple[float | None, ...]:
        """The scored thresholds whose operating points are shown: all with ``sweep=True``,
        else those ``sweep`` names."""
        return tuple(self.thresholds[i] for i in self._indices(self.sweep))

    @property
    def sweep_thresholds(self) -> tuple[float | None, ...]:
        """The IoU thresholds swept: :attr:`swept`, then (``map_thresholds``) the others of
        :data:`MAP_THRESHOLDS`."""
        more = MAP_THRESHOLDS if self.map_thresholds else ()
        return (*self.swept, *(t for t in more if t not in self.swept))

    @property
    def levels(self) -> tuple[str, ...]:
        """The scored levels: the (mapped) labels, then each hierarchy level."""
        return (BASE_LEVEL, *(self.hierarchy.levels if self.hierarchy is not None else ()))

    def difference(self, other: Settings) -> str | None:
        """What differs between two settings, in a few words (``None``: nothing)."""
        plain = [f.name for f in attrs.fields(Settings)]
        plain = plain[: plain.index("strategy_options")]  # (the plain values come first)
        out = [
            f"{name}: {getattr(self, name)!r} vs {getattr(other, name)!r}"
            for name in plain
            if getattr(self, name) != getattr(other, name)
        ]
        if self.strategy == other.strategy:  # (then both name the same options, in order)
            pairs = zip(self.strategy_options, other.strategy_options, strict=True)
            out += [f"{k}: {a!r} vs {b!r}" for (k, a), (_, b) in pairs if a != b]
        out += filter(
            None,
            (
                label_map_difference(self.label_map, other.label_map),
                hierarchy_difference(self.hierarchy, other.hierarchy),
            ),
        )
        if self.labels != other.labels:
            shown = (", ".join(chosen) or "all" for chosen in (self.labels, other.labels))
            out.append("labels: " + " vs ".join(shown))
        return "; ".join(out) or None

    def option(self, name: str) -> Any:
        """The value of a strategy option: the chosen strategy's own, else the default of the
        registered strategy that declares it (``settings.min_gold`` under ``two_sided``)."""
        for key, value in self.__dict__.get("strategy_options", ()):
            if key == name:
                return value
        from .strategies import option_default  # (numpy: not when the CLI reads the names)

        return option_default(name)

    def __getattr__(self, name: str) -> Any:
        # Only reached when ordinary lookup fails: strategy options read as attributes.
        if not name.startswith("_"):
            with contextlib.suppress(KeyError):
                return self.option(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def counted(self) -> str:
        """What a ledger counts: spans, or the tokens or characters of a strategy that scores
        positions (``token``)."""
        from .strategies import get_strategy  # (numpy: not when the CLI reads the names)

        if not get_strategy(self.strategy).per_position:
            return "span"
        return "token" if self.unit == "token" else "character"

    def describe_options(self) -> str | None:
        """The options worth naming next to the strategy in a report title, if any."""
        from .strategies import STRATEGIES  # (numpy: not when the CLI reads the names)

        cls = STRATEGIES.get(self.strategy)
        return cls.describe(dict(self.strategy_options)) if cls is not None else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe. Every registered strategy's options are keys (the chosen strategy's
        values, the others' defaults), so the keys do not depend on the strategy;
        ``label_map`` and ``hierarchy`` are ``{"mapping"|"levels": ..., "strict": ...}`` or
        ``None``; ``labels`` (sorted) is a key only when some labels were chosen, so a result
        scored on every label reads as it always has."""
        from .strategies import option_names  # (numpy: not when the CLI reads the names)

        names = dict.fromkeys([*option_names(), *(k for k, _ in self.strategy_options)])
        return {
            "strategy": self.strategy,
            "thresholds": list(self.thresholds),
            "unit": self.unit,
            **{name: self.option(name) for name in names},
            "beta": self.beta,
            "zero_division": self.zero_division,
            "max_errors": self.max_errors,
            "context": self.context,
            "levels": list(self.levels),
            # whether rows were kept (at which thresholds is not part of the JSON schema)
            "per_document": bool(self.per_document),
            "label_map": self.label_map.to_dict() if self.label_map is not None else None,
            "hierarchy": self.hierarchy.to_dict() if self.hierarchy is not None else None,
            **({"labels": list(self.labels)} if self.labels else {}),
            **({"sweep": True} if self.sweep else {}),
            **({"span_lengths": list(self.span_lengths)} if self.span_lengths else {}),
            **({"map_thresholds": True} if self.map_thresholds else {}),
        }


def _check_sweep(cls: type[Strategy], sweep: bool, map_thresholds: bool) -> None:
    """A sweep needs a strategy that can be swept exactly; span mAP a sweep at IoU thresholds."""
    from .strategies import get_strategy  # (numpy: not when the CLI reads the names)

    if sweep and not cls.sweep_local:
        local = ", ".join(n for n in STRATEGY_NAMES if get_strategy(n).sweep_local)
        raise InvalidInputError(
            f"--sweep, --choose-thresholds: the {cls.name} strategy cannot be swept "
            f"exactly; use one of {local}"
        )
    if map_thresholds and not (sweep and cls.uses_thresholds):
        raise InvalidInputError(
            "--map-thresholds: needs --sweep and a strategy with IoU thresholds (two_sided)"
        )


def _edges(edges: Iterable[int]) -> tuple[int, ...]:
    """Span-length bucket edges: increasing positive integers, the first 1."""
    out = tuple(edges)
    if out and (out[0] != 1 or any(b <= a for a, b in zip(out, out[1:], strict=False))):
        raise InvalidInputError(f"span-length edges must rise from 1, not {list(out)}")
    return out


def check_labels(labels: object) -> tuple[str, ...]:
    """The labels to score (after the label map), sorted and without repeats; ``()`` for
    every label (``None`` or nothing chosen). One string is one label."""
    if labels is None:
        return ()
    given = (labels,) if isinstance(labels, str) else labels
    if not isinstance(given, Iterable):
        raise InvalidInputError(
            f"labels must be label names (or None for every label), not {show(labels)}"
        )
    chosen = tuple(given)
    names = [label for label in chosen if isinstance(label, str) and label]
    if len(names) != len(chosen):
        bad = next(label for label in chosen if not isinstance(label, str) or not label)
        raise InvalidInputError(f"labels must be non-empty strings, not {show(bad)}")
    return tuple(sorted(set(names)))


def _chosen_thresholds(
    chosen: Any, thresholds: tuple[float | None, ...], name: str
) -> bool | tuple[float, ...]:
    """``True`` (every threshold), ``False``, or the scored thresholds named, in scoring order;
    naming all of them is ``True``, so equal choices compare equal. A strategy without
    thresholds keeps its one set for any threshold named."""
    if chosen is None or isinstance(chosen, bool):
        return bool(chosen)
    given = (chosen,) if isinstance(chosen, int | float) else tuple(chosen)
    if not given:
        return False
    if thresholds == (None,):
        return True
    missing = [t for t in given if t not in thresholds]
    if missing:
        raise ValueError(
            f"{name} names thresholds that are not scored: {missing!r} (scored: {list(thresholds)})"
        )
    kept = tuple(float(t) for t in thresholds if t is not None and t in given)
    return True if len(kept) == len(thresholds) else kept


def as_thresholds(value: object) -> tuple[float, ...]:
    """IoU thresholds as a tuple of checked floats: a lone number is one threshold (the one
    normalisation of every caller's thresholds: options, scorers, settings)."""
    given = value if isinstance(value, Iterable) and not isinstance(value, str) else (value,)
    message = "IoU thresholds must be in (0, 1], not {value!r}"
    return tuple(_number(t, lambda t: 0 < t <= 1, message) for t in given)


def _thresholds(strategy: str, uses_thresholds: bool, thresholds: Any) -> tuple[float | None, ...]:
    """The thresholds as floats, checked; ``(None,)`` for a strategy without thresholds."""
    if not uses_thresholds:
        return (None,)
    out = as_thresholds(thresholds)
    if not out:
        raise ValueError(f"{strategy} needs at least one IoU threshold")
    if len(set(out)) != len(out):
        raise ValueError(f"duplicate thresholds in {tuple(out)!r}")
    return tuple(out)
