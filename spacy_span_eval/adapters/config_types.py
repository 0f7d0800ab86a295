"""The types of the registered functions' settings, so that spaCy's config system rejects a bad
value when the config is resolved, in its own "Config validation error" block naming the
config path (``components.ner.scorer -> strategy``), instead of a traceback mid-training.

spaCy resolves configs with confection, which checks each setting against the registered
function's annotation: a ``Literal`` for the choices (built from the same tuples the engine
checks against, so a strategy added to the registry before this module is imported is a
valid choice), and for the bounded numbers a ``float`` subclass whose pydantic core schema
carries the check (confection runs its validator; so would pydantic). Python callers who bypass
the config still get :class:`~.scorers.ScorerSettings`' own checks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from ..engine.settings import STRATEGY_NAMES
from ..engine.spans import UNITS

__all__ = [
    "Beta",
    "IoUThreshold",
    "KEY_MODES",
    "KeyMode",
    "NoScores",
    "PositiveCount",
    "StrategyName",
    "UnitName",
]

KEY_MODES: tuple[str, ...] = ("add", "replace")

# Both Literals are built at import from the engine's tuples, which mypy cannot read as types.
#: A strategy of the registry: ``two_sided``, ``exact``, ``overlap``, ``token`` (and any
#: registered before import).
StrategyName = Literal[STRATEGY_NAMES]  # type: ignore[valid-type]
#: ``"char"`` or ``"token"``.
UnitName = Literal[UNITS]  # type: ignore[valid-type]
#: How the scorers name their keys: ``"add"`` or ``"replace"``.
KeyMode = Literal["add", "replace"]


class _Rule(type):
    """Names a bounded type by its rule in messages (``0 is not an IoU threshold in (0, 1]``),
    where confection prints the annotation."""

    def __repr__(cls) -> str:
        return getattr(cls, "rule", "") or type.__repr__(cls)

    __str__ = __repr__


class _Checked(metaclass=_Rule):
    """A value checked against its rule wherever a config is validated."""

    rule = ""
    accepts: ClassVar[Callable[[Any], bool]]

    @classmethod
    def validate(cls, value: Any) -> Any:
        if not cls.accepts(value):
            raise ValueError(f"{value!r} is not {cls.rule}")
        return value

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: Any
    ) -> core_schema.PlainValidatorFunctionSchema:
        from pydantic_core import core_schema

        return core_schema.no_info_plain_validator_function(cls.validate)


class _Bounded(float, _Checked):
    """A float checked against bounds."""

    @classmethod
    def validate(cls, value: Any) -> float:
        # A quoted number is refused, not read: confection hands the registered function the
        # value as written, not the float returned here, so "0.5" would fail later, mid-run.
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{value!r} is not a number")
        return float(super().validate(value))


if TYPE_CHECKING:
    from pydantic_core import core_schema

    # To a Python caller a bounded number is a plain number (a float default, an int count):
    # the bounds are checked when a config is validated, and again by the settings built
    # from it.
    IoUThreshold = float
    Beta = float
    PositiveCount = float
    NoScores = bool
else:
    # (a bounded type's name and repr are its rule; its check, a plain function of the number)
    IoUThreshold = _Rule(
        "IoUThreshold",
        (_Bounded,),
        {"rule": "an IoU threshold in (0, 1]", "accepts": staticmethod(lambda v: 0.0 < v <= 1.0)},
    )
    Beta = _Rule(
        "Beta",
        (_Bounded,),
        {"rule": "a positive F-beta weight", "accepts": staticmethod(lambda v: v > 0.0)},
    )
    PositiveCount = _Rule(
        "PositiveCount",
        (_Bounded,),
        {"rule": "a whole number >= 1", "accepts": staticmethod(lambda v: v >= 1 and v == int(v))},
    )
    # The ents scorer's average_precision: Doc.ents carry no scores, so a sweep could only fail
    # at the first evaluation.
    NoScores = _Rule(
        "NoScores",
        (_Checked,),
        {
            "rule": 'possible: Doc.ents carry no scores (a span group\'s attrs["scores"] do)',
            "accepts": staticmethod(lambda v: v is False),
        },
    )
