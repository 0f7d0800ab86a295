"""Label maps (alias -> canonical) and label hierarchies (detailed -> branch -> binary)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import UnknownLabelError


@dataclass(frozen=True)
class LabelMap:
    """Maps labels before anything else is done with them (SPEC section 1).

    ``strict``: a label that is neither a key nor a canonical value is an error; otherwise it
    passes through unchanged.
    """

    mapping: Mapping[str, str] = field(default_factory=dict)
    strict: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "mapping", dict(self.mapping))
        object.__setattr__(self, "_known", frozenset(self.mapping) | set(self.mapping.values()))

    def __call__(self, label: str, *, where: str = "") -> str:
        mapped = self.mapping.get(label)
        if mapped is not None:
            return mapped
        if self.strict and label not in self._known:  # type: ignore[attr-defined]
            at = f"{where}: " if where else ""
            raise UnknownLabelError(
                f"{at}label {label!r} is not in the strict label map "
                f"(known: {', '.join(sorted(self._known))})"  # type: ignore[attr-defined]
            )
        return label

    @classmethod
    def coerce(cls, value: LabelMap | Mapping[str, str] | None, *, strict: bool = False
               ) -> LabelMap | None:
        if value is None:
            return cls({}, strict=True) if strict else None
        if isinstance(value, LabelMap):
            return value
        return cls(value, strict=strict)


@dataclass(frozen=True)
class Hierarchy:
    """Coarser views of the (mapped) labels, each scored with the same settings.

    ``levels`` maps a level name (e.g. ``"branch"``, ``"binary"``) to a projection from the
    base labels to that level's labels. A base label missing from a projection is an error when
    ``strict`` (the default), since it would be scored under a label of the wrong level.
    """

    levels: Mapping[str, Mapping[str, str]]
    strict: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "levels", {k: dict(v) for k, v in self.levels.items()})

    def project(self, level: str, label: str) -> str:
        projection = self.levels[level]
        mapped = projection.get(label)
        if mapped is not None:
            return mapped
        if self.strict:
            raise UnknownLabelError(
                f"label {label!r} has no projection at hierarchy level {level!r}"
            )
        return label

    @classmethod
    def from_parents(cls, parents: Mapping[str, str], level_names: tuple[str, ...],
                     *, strict: bool = True) -> Hierarchy:
        """Build from a child -> parent tree: level 0 is the base, each next one a step up.

        ``level_names[0]`` names the base labels (not a projection); each further name is one
        step up the tree. A label without a parent stays itself at the upper levels.
        """
        levels: dict[str, dict[str, str]] = {}
        base = {c for c in parents} | set(parents.values())
        current = {label: label for label in base}
        for name in level_names[1:]:
            current = {label: parents.get(up, up) for label, up in current.items()}
            levels[name] = dict(current)
        return cls(levels, strict=strict)
