"""Matching strategies, chosen by name.

A strategy is one module here: a :class:`~.base.Strategy` subclass that declares its
``name``, score-key ``infix``, ``uses_thresholds`` and ``options``; one line in
:data:`BUILT_IN`; and its name in :data:`~..settings.STRATEGY_NAMES`, the light copy the
command line lists without importing numpy (a test holds the two equal). Everything else
reads the registry (:mod:`.registry`).
"""

from __future__ import annotations

from .base import Cover, Match, Option, Outcome, SideCounts, SideTable, Strategy
from .exact import Exact
from .overlap import Overlap
from .registry import (
    STRATEGIES,
    get_strategy,
    option_default,
    option_names,
    register,
    resolve_options,
)
from .semeval import SemEval
from .token import TokenLevel
from .two_sided import TwoSided

#: The strategies that ship with the package, in the order the CLI lists them.
BUILT_IN: tuple[type[Strategy], ...] = (TwoSided, Exact, Overlap, TokenLevel, SemEval)

for _strategy in BUILT_IN:
    register(_strategy)

__all__ = [
    "BUILT_IN",
    "STRATEGIES",
    "Cover",
    "Exact",
    "Match",
    "Option",
    "Outcome",
    "Overlap",
    "SemEval",
    "SideCounts",
    "SideTable",
    "Strategy",
    "TokenLevel",
    "TwoSided",
    "get_strategy",
    "option_default",
    "option_names",
    "register",
    "resolve_options",
]
