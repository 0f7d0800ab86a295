"""What looks like spans in a JSON record: the test behind the readers' refusals
(``readers.unread_spans``) and behind shape detection (``readers.detect``).

A JSON reader reads its spans from the keys its format names; spans under any other key would
be read as nothing, and a file of them scores as "no gold" with exit 0. A value is span-like
when it is a list of span-like items:

- an object with a start, an end and a label (``start``/``end``, ``start_offset``/
  ``end_offset``, ``start_position``/``end_position``... with ``label``, ``labels``,
  ``entity_type``, ``entity``, ``tag`` or ``type``); an object with offsets and no label (a
  token with ``start``/``end``) is not a span;
- a list ``[start, end, label]`` of two integers and a string (doccano, spaCy's training
  tuples);

or an object holding such a list one level down (``{"entities": [[0, 5, "PER"]]}``).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["LABEL_KEYS", "is_span_item", "span_like", "span_like_key"]

#: Keys that name a span's label.
LABEL_KEYS = frozenset(("label", "labels", "entity_type", "entity", "tag", "type", "ner"))


def is_span_item(item: object) -> bool:
    """Whether one list item looks like a span (see the module docstring)."""
    if isinstance(item, dict):
        keys = [k for k in item if isinstance(k, str)]
        return (
            any("start" in k for k in keys)
            and any("end" in k for k in keys)
            and any(k in LABEL_KEYS for k in keys)
        )
    if isinstance(item, list) and len(item) >= 3:
        a, b, c = item[:3]
        return (
            isinstance(a, int)
            and isinstance(b, int)
            and not isinstance(a, bool)
            and not isinstance(b, bool)
            and isinstance(c, str)
        )
    return False


def span_like(value: object, depth: int = 1) -> bool:
    """Whether ``value`` is a list holding span-like items, or (``depth`` levels down) an
    object with such a list."""
    if isinstance(value, list):
        return any(is_span_item(item) for item in value)
    if isinstance(value, dict) and depth > 0:
        return any(span_like(v, depth - 1) for v in value.values())
    return False


def span_like_key(record: object, read: Iterable[str]) -> str | None:
    """The first key of ``record`` outside ``read`` whose value is span-like, else ``None``."""
    if not isinstance(record, dict):
        return None
    known = set(read)
    spans = (k for k, v in record.items() if isinstance(k, str) and k not in known and span_like(v))
    return next(spans, None)
