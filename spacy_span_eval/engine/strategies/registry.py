"""The strategy registry: every strategy by name, and the rules for choosing one.

Everything that needs to know the strategies (``Settings``, ``SpanEvaluator``, the spaCy
score keys, the floors' gate section, the report titles) reads :data:`STRATEGIES` through the
functions here, so a new strategy is one module and one :func:`register` call (a line in
``strategies/__init__.py`` for a built-in one). The command line's ``--strategy`` choices
are the one exception: it lists ``settings.STRATEGY_NAMES`` so that ``--help`` loads no
numpy, so a built-in strategy adds its name there too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Strategy

STRATEGIES: dict[str, type[Strategy]] = {}

#: Keywords that ``SpanEvaluator`` and ``Settings`` already take: no option may be named so.
RESERVED_NAMES: frozenset[str] = frozenset(
    {
        "strategy",
        "thresholds",
        "unit",
        "beta",
        "zero_division",
        "label_map",
        "strict_labels",
        "hierarchy",
        "max_errors",
        "context",
        "per_document",
        "details",
        "error_strings",
        "sweep",
        "span_lengths",
        "map_thresholds",
        "batch_size",
        "levels",
        "strategy_options",
        "labels",
    }
)


def register(cls: type[Strategy]) -> type[Strategy]:
    """Add a strategy to the registry (usable as a class decorator).

    Refuses what would make a name ambiguous: a taken name or score-key infix, an option
    named like a setting, an option another strategy declares with a different default (the
    JSON settings hold one value per option name), a default its own check refuses.
    """
    for attr in ("name", "infix"):
        if not isinstance(getattr(cls, attr, None), str) or not getattr(cls, attr):
            raise TypeError(f"{cls.__name__} must declare a non-empty {attr!r}")
    for other in STRATEGIES.values():
        if other is cls:
            continue
        if other.name == cls.name:
            raise ValueError(f"strategy name {cls.name!r} is taken by {other.__name__}")
        if other.infix == cls.infix:
            raise ValueError(f"score-key infix {cls.infix!r} is taken by the {other.name} strategy")
    for option in cls.options:
        if option.name in RESERVED_NAMES:
            raise ValueError(f"{cls.name}: option {option.name!r} is already a setting")
        option.validate(option.default)
        try:
            shared = option_default(option.name, exclude=cls)
        except KeyError:
            continue
        if shared != option.default:
            raise ValueError(
                f"{cls.name}: option {option.name!r} is declared by another "
                f"strategy with default {shared!r}, not {option.default!r}"
            )
    STRATEGIES[cls.name] = cls
    return cls


def get_strategy(name: str) -> type[Strategy]:
    """The strategy registered as ``name`` (a ``ValueError`` listing the choices if none)."""
    try:
        return STRATEGIES[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown strategy {name!r}; choose one of {', '.join(STRATEGIES)}"
        ) from None


def option_default(name: str, *, exclude: type[Strategy] | None = None) -> Any:
    """The default of the registered option ``name`` (``KeyError`` when no strategy has it)."""
    found = [
        o for c in STRATEGIES.values() if c is not exclude for o in c.options if o.name == name
    ]
    if not found:
        raise KeyError(name)
    return found[0].default


def resolve_options(strategy: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """The chosen strategy's options, complete and checked, from what was given.

    An option of another strategy is accepted at its default (``SpanEvaluator`` passes them
    all) and refused otherwise: it would change nothing, so asking for it is a mistake. A name
    no strategy declares is refused.
    """
    cls = get_strategy(strategy)
    own = {o.name for o in cls.options}
    mine = {}
    for name, value in given.items():
        if name in own:
            mine[name] = value
            continue
        owners = [c.name for c in STRATEGIES.values() if any(o.name == name for o in c.options)]
        if not owners:
            raise ValueError(f"unknown option {name!r} (no strategy takes it)")
        if value != option_default(name):
            raise ValueError(
                f"{name} applies to the {' and '.join(owners)} strategy only, not to {strategy}"
            )
    return cls.resolve_options(mine)


def option_names() -> tuple[str, ...]:
    """Every registered option name, once, in registry order (the JSON settings keys)."""
    return tuple(dict.fromkeys(o.name for cls in STRATEGIES.values() for o in cls.options))
