"""Matching strategies, chosen by name."""

from __future__ import annotations

from .base import Cover, Match, Outcome, Strategy
from .exact import Exact
from .overlap import Overlap
from .token import TokenLevel
from .two_sided import TwoSided

STRATEGIES: dict[str, type[Strategy]] = {
    cls.name: cls for cls in (TwoSided, Exact, Overlap, TokenLevel)
}

__all__ = ["STRATEGIES", "Cover", "Exact", "Match", "Outcome", "Overlap", "Strategy",
           "TokenLevel", "TwoSided"]
