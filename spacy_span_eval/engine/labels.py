"""Label maps (alias -> canonical) and label hierarchies (detailed -> branch -> binary).

Both are part of an evaluation's :class:`~.settings.Settings` (tallies scored under different
maps must not be merged), so both compare and hash by content, and can say how two of them
differ.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from ..errors import UnknownLabelError

#: The slice value of a document without the field sliced by (semantics §10).
NO_VALUE = "(none)"


def slice_names(values: Sequence[object]) -> list[str]:
    """The slices of a field's ``values`` (``None``: a document without it, in ``(none)``): a
    string as written, another value as JSON writes it (``true``, ``{"a": 1}``); a string
    that would read as another value, as ``(none)`` or as a quoted string (``"1"`` beside
    ``1``) keeps its JSON quotes, so that no two values share a slice."""
    texts = [NO_VALUE if v is None else v if isinstance(v, str) else _json(v) for v in values]
    taken = {NO_VALUE, *(t for v, t in zip(values, texts, strict=True) if not isinstance(v, str))}
    return [
        _json(v) if isinstance(v, str) and (v in taken or v.startswith('"')) else t
        for v, t in zip(values, texts, strict=True)
    ]


def slice_order(names: Iterable[str]) -> list[str]:
    """The slices of ``names`` in order: as numbers where every one is an integer (``(none)``
    first), else as text."""
    order = sorted(set(names))
    if all(n == NO_VALUE or n.removeprefix("-").isdecimal() for n in order):
        order.sort(key=lambda n: -math.inf if n == NO_VALUE else int(n))
    return order


def _json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # (a Doc.user_data value JSON cannot write)
        return str(value)


#: The slicing by span length (``--slice-by span-length``, ``span-length:1,3,10``): its
#: slices hold spans, not documents.
SPAN_LENGTH = "span-length"


def _copy(mapping: Mapping[str, str]) -> dict[str, str]:
    return dict(mapping)


def _sorted_items(mapping: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(mapping.items()))


def _copy_levels(levels: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, str]]:
    return {k: dict(v) for k, v in levels.items()}


@attrs.frozen
class LabelMap:
    """Maps labels before anything else is done with them (semantics §1).

    ``strict``: a label that is neither a key nor a canonical value is an error; otherwise it
    passes through unchanged. Two maps are equal (and hash alike) when they map alike,
    whatever the order of their entries.
    """

    mapping: Mapping[str, str] = attrs.field(factory=dict, converter=_copy, eq=_sorted_items)
    strict: bool = False

    def __call__(self, label: str) -> str:
        mapped = self.mapping.get(label)
        if mapped is not None:
            return mapped
        known = self.mapping.keys() | self.mapping.values()
        if self.strict and label not in known:
            raise UnknownLabelError(
                f"label {label!r} is not in the strict label map "
                f"(known: {', '.join(sorted(known))})"
            )
        return label

    @classmethod
    def coerce(
        cls, value: LabelMap | Mapping[str, str] | None, *, strict: bool = False
    ) -> LabelMap | None:
        if value is None:
            return cls({}, strict=True) if strict else None
        if isinstance(value, LabelMap):
            return value
        return cls(value, strict=strict)

    def to_dict(self) -> dict[str, Any]:
        return {"mapping": dict(sorted(self.mapping.items())), "strict": self.strict}


@attrs.frozen
class Hierarchy:
    """Coarser views of the (mapped) labels, each scored with the same settings.

    ``levels`` maps a level name (e.g. ``"branch"``, ``"binary"``) to a projection from the
    base labels to that level's labels. A base label missing from a projection is an error when
    ``strict`` (the default), since it would be scored under a label of the wrong level. Two
    hierarchies are equal (and hash alike) when they have the same levels in the same order,
    each projecting alike.
    """

    levels: Mapping[str, Mapping[str, str]] = attrs.field(
        converter=_copy_levels,
        eq=lambda levels: tuple((level, _sorted_items(p)) for level, p in levels.items()),
    )
    strict: bool = True

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

    def to_dict(self) -> dict[str, Any]:
        return {
            "levels": {
                level: dict(sorted(projection.items())) for level, projection in self.levels.items()
            },
            "strict": self.strict,
        }


def _first_difference(what: str, a: Mapping[str, str], b: Mapping[str, str]) -> str:
    """``what: 'PER' -> 'PERSON' vs 'PER' -> 'HUMAN'`` for the first differing key (sorted)."""
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    first = keys[0]

    def side(m: Mapping[str, str]) -> str:
        return f"{first!r} -> {m[first]!r}" if first in m else f"{first!r} not mapped"

    more = f" (and {len(keys) - 1} more)" if len(keys) > 1 else ""
    return f"{what}: {side(a)} vs {side(b)}{more}"


def label_map_difference(a: LabelMap | None, b: LabelMap | None) -> str | None:
    """How two label maps differ, in a few words; ``None`` when they are equal."""
    if a == b:
        return None
    if a is None or b is None:
        return "label map: " + " vs ".join(
            "none" if m is None else f"{len(m.mapping)} entries" for m in (a, b)
        )
    if a.strict != b.strict:
        return "label map: " + " vs ".join("strict" if m.strict else "not strict" for m in (a, b))
    return _first_difference("label map", a.mapping, b.mapping)


def hierarchy_difference(a: Hierarchy | None, b: Hierarchy | None) -> str | None:
    """How two hierarchies differ, in a few words; ``None`` when they are equal."""
    if a == b:
        return None
    if a is None or b is None or list(a.levels) != list(b.levels):
        return "hierarchy levels: " + " vs ".join(
            "none" if h is None else repr(tuple(h.levels)) for h in (a, b)
        )
    if a.strict != b.strict:
        return "hierarchy: " + " vs ".join("strict" if h.strict else "not strict" for h in (a, b))
    level = next(k for k in a.levels if a.levels[k] != b.levels[k])
    return _first_difference(f"hierarchy level {level!r}", a.levels[level], b.levels[level])
