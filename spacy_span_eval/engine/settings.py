"""Settings of one evaluation: what must be equal for two tallies to be merged."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from .spans import UNITS

#: The name of the level that scores the (mapped) labels themselves; hierarchy levels add more.
BASE_LEVEL = "labels"

STRATEGY_NAMES: tuple[str, ...] = ("two_sided", "exact", "overlap", "token")


@dataclass(frozen=True)
class Settings:
    strategy: str = "two_sided"
    thresholds: tuple[float | None, ...] = (0.5,)
    unit: Literal["token", "char"] = "char"
    coverage: Literal["best", "pooled"] = "best"
    one_to_one: bool = False
    beta: float = 1.0
    zero_division: float | None = None
    min_gold: float = 0.5
    min_pred: float = 0.5
    max_errors: int | None = 1000
    context: int = 40
    levels: tuple[str, ...] = ("labels",)
    # Keep each document's ledger rows (for bootstrap intervals and paired tests).
    per_document: bool = False

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGY_NAMES:
            raise ValueError(
                f"unknown strategy {self.strategy!r}; choose one of {', '.join(STRATEGY_NAMES)}")
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of {UNITS}, not {self.unit!r}")
        if self.beta <= 0:
            raise ValueError(f"beta must be positive, not {self.beta!r}")
        if self.max_errors is not None and self.max_errors < 0:
            raise ValueError("max_errors must be >= 0 or None (keep all)")
        if self.strategy == "two_sided":
            if not self.thresholds:
                raise ValueError("two_sided needs at least one IoU threshold")
            for t in self.thresholds:
                if t is None or not 0 < t <= 1:
                    raise ValueError(f"IoU thresholds must be in (0, 1], not {t!r}")
            if len(set(self.thresholds)) != len(self.thresholds):
                raise ValueError(f"duplicate thresholds in {self.thresholds!r}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["thresholds"] = list(self.thresholds)
        d["levels"] = list(self.levels)
        return d
