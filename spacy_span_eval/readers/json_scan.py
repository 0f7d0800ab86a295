"""Vectorized scans over the bytes of JSON text, for :mod:`.jsonio`'s fast road.

Both scans start from the same marks: quotes that are not escaped open and close strings;
the marks outside strings (brackets, braces, colons, commas) give the depth.

- :func:`scan_array` finds the top-level elements of a JSON array in a buffer (commas at
  depth 1 separate them), so that a chunk of whole elements is decoded in one call.
- :func:`may_repeat_keys` tells whether two keys of one object might be the same. It never
  misses a repeated key (a key with an escape in it counts as a possible repeat), so a chunk
  it clears may go to :mod:`msgspec`, which would keep the last value of a repeated key
  silently; any other chunk takes the standard library's road, which refuses the repeat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

_JSON_SPACE = np.zeros(256, dtype=bool)
_JSON_SPACE[list(b" \t\n\r")] = True
_DEPTH = np.zeros(256, dtype=np.int8)
_DEPTH[[ord("["), ord("{")]] = 1
_DEPTH[[ord("]"), ord("}")]] = -1
# The bytes of a word to keep for a key of 0..8 bytes (low bytes first).
_KEEP = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_LOW = np.uint64(0x0101010101010101)
_HIGH = np.uint64(0x8080808080808080)
_SLASHES = np.uint64(0x5C5C5C5C5C5C5C5C)


def _marks(arr: np.ndarray, also: int) -> np.ndarray:
    """Positions of the colons, brackets and braces in ``arr``, and of the byte ``also``."""
    hits = arr == also
    for byte in b":[]{}":
        hits |= arr == byte
    return np.flatnonzero(hits)


def may_repeat_keys(body: bytes) -> bool:
    """Whether some object in the JSON array ``body`` might have a key twice: ``False`` only
    when none has, for a ``body`` that is valid JSON (the caller trusts the answer only once
    its decoder has accepted the body; for anything else it may be either)."""
    if b":" not in body:
        return False
    scan = scan_array(body, 1, True)
    return scan is None or not scan.starts.shape[0] or scan.may_repeat()


def _keys_may_repeat(
    buf: bytes,
    base: int,
    kinds: np.ndarray,
    depth: np.ndarray,
    quote_index: np.ndarray,
    quotes: np.ndarray,
) -> bool:
    """Whether two keys of one object might be the same, from the marks outside strings of
    valid JSON: their bytes (``kinds``), the depth after each, the number of unescaped quotes
    before each (``quote_index``) and those quotes' positions (``quotes``, from ``buf[base]``).

    A key is the string right before a ``:``: the last quote before the colon closes it.
    Two keys are told apart by their length and their first and last eight bytes (exact up
    to 16 bytes; longer keys that agree there count as a possible repeat, and so does a key
    with a backslash, since an escape may spell another key's characters)."""
    is_colon = kinds == ord(":")
    colon_at = np.flatnonzero(is_colon)
    if colon_at.shape[0] < 2:
        return False
    closing = quote_index[colon_at] - 1  # the number of each key's closing quote
    if closing[0] < 1:
        return True
    ends = quotes[closing]
    starts = quotes[closing - 1]
    length = ends - starts - 1
    # Each key's first and last eight bytes, read as 64-bit words.
    n = len(buf) - base
    if int(starts[-1]) + 9 > n:
        buf, base, n = buf[base:] + bytes(8), 0, n + 8  # (a key at the end: zeros after it)
    words = np.ndarray((n - 7,), dtype="<u8", buffer=buf, offset=base, strides=(1,))
    head = words[starts + 1]
    head &= _KEEP[np.minimum(length, 8)]
    tail = words[np.maximum(ends - 8, 0)]
    tail[length <= 8] = 0
    if buf.find(b"\\", base) >= 0:
        if _has_backslash(head) or _has_backslash(tail):
            return True
        long = np.flatnonzero(length > 16)
        if long.shape[0]:
            slashes = np.flatnonzero(np.frombuffer(buf, dtype=np.uint8, offset=base) == 92)
            inside = np.searchsorted(slashes, ends[long]) - np.searchsorted(slashes, starts[long])
            if inside.any():
                return True
    same = (head * np.uint64(0xC2B2AE3D27D4EB4F)) ^ (tail * np.uint64(0x165667B19E3779F9))
    same ^= length.astype(np.uint64)
    return _same_object_repeats(kinds == ord("{"), is_colon, depth, same)


def _same_object_repeats(
    is_object: np.ndarray, is_colon: np.ndarray, depth: np.ndarray, same: np.ndarray
) -> bool:
    """Whether two keys that look alike (``same``: one value per key) are in one object.

    With the '{'s and the keys sorted by depth (stably: in reading order within a depth),
    a key's object is the last '{' before it, and the keys of one object are consecutive;
    anything nested more than 100 deep counts as a possible repeat."""
    events = np.flatnonzero(is_object | is_colon)
    level = depth[events]
    if int(level.max()) > 100 or int(level.min()) < 1:
        return True
    order = np.argsort(level.astype(np.int8), kind="stable")
    opener = is_object[events[order]]
    keys = ~opener
    owner = np.cumsum(opener, dtype=np.int32)[keys]  # (1 + the number of its '{')
    if owner[0] < 1:
        return True
    rank = np.cumsum(is_colon[events], dtype=np.int32) - 1  # (each key's, in reading order)
    return _repeats(owner, same[rank[order[keys]]])


def _repeats(owner: np.ndarray, same: np.ndarray) -> bool:
    """Whether two keys of one object look alike: those of one object (``owner``) are
    consecutive, so each is compared with the ones before it in its object, or, where an
    object has more than 16 keys, all are sorted."""
    for step in range(1, 17):
        together = owner[step:] == owner[:-step]
        if not together.any():
            return False
        if (together & (same[step:] == same[:-step])).any():
            return True
    mixed = owner.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) ^ same
    mixed.sort()
    return bool((mixed[1:] == mixed[:-1]).any())


def _has_backslash(words: np.ndarray) -> bool:
    """Whether any byte of the 64-bit ``words`` is a backslash (a zero byte after XOR)."""
    x = words ^ _SLASHES
    return bool(((x - _LOW) & ~x & _HIGH).any())


class ArrayScan(NamedTuple):
    """The top-level elements found by :func:`scan_array` (positions in the buffer)."""

    starts: np.ndarray
    ends: np.ndarray
    #: Where the closing ']' is, or ``None`` when it is not in the buffer.
    closed: int | None
    #: The newlines from the scan's start to each of the positions given.
    newlines: Callable[[np.ndarray], np.ndarray]
    #: :func:`may_repeat_keys` for the elements found, from the marks found here.
    may_repeat: Callable[[], bool]


def scan_array(buf: bytes, at: int, first: bool) -> ArrayScan | None:
    """Top-level elements that end within ``buf``, scanning from ``at`` (just after the
    ``[`` or a ``,``, outside any string; ``first``: after the ``[``).

    ``None`` when no element (and no closing ``]``) ends in ``buf`` or the text is not a
    well-formed array here (the caller then reads more, or takes the reference road)."""
    arr = np.frombuffer(buf, dtype=np.uint8)[at:]
    quotes = np.flatnonzero(arr == ord('"'))
    if quotes.shape[0]:
        quotes = quotes[~_escaped(arr, quotes)]
    marks = _marks(arr, ord(","))
    quote_index = np.searchsorted(quotes, marks)  # (the unescaped quotes before each mark)
    outside = np.flatnonzero((quote_index & 1) == 0)
    if not outside.shape[0]:
        return None
    marks, quote_index = marks[outside], quote_index[outside]
    kinds = arr[marks]
    depth = np.cumsum(_DEPTH[kinds], dtype=np.int32)  # after each mark, relative to the array
    ends_at = np.flatnonzero(depth < 0)
    close = int(ends_at[0]) if ends_at.shape[0] else None
    if close is not None:
        if kinds[close] != ord("]"):
            return None
        marks, kinds, depth = marks[: close + 1], kinds[: close + 1], depth[: close + 1]
        quote_index = quote_index[: close + 1]
    bounds = marks[np.flatnonzero((kinds == ord(",")) & (depth == 0))]
    if close is not None:
        bounds = np.append(bounds, marks[close])
    if not bounds.shape[0]:
        return None
    starts = _element_starts(arr, bounds)
    if (starts >= bounds).any():  # a blank element
        if not (first and close is not None and bounds.shape[0] == 1):
            return None  # "[1,]", "[,1]", "[1,,2]": the reference words the error
        starts, bounds = starts[:0], bounds[:0]
    found: list[np.ndarray] = []  # the newlines' positions, once asked for

    def newlines(positions: np.ndarray) -> np.ndarray:
        if not found:
            found.append(np.flatnonzero(arr == ord("\n")))
        return np.searchsorted(found[0], positions - at)

    def may_repeat() -> bool:
        cut = int(np.searchsorted(marks, bounds[-1]))
        return _keys_may_repeat(buf, at, kinds[:cut], depth[:cut], quote_index[:cut], quotes)

    closed = at + int(marks[close]) if close is not None else None
    return ArrayScan(starts + at, bounds + at, closed, newlines, may_repeat)


def _element_starts(arr: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Each element's first byte that is not JSON whitespace (its bound when there is
    none), the elements ending at ``bounds``."""
    starts = np.empty_like(bounds)
    starts[:1] = 0
    starts[1:] = bounds[:-1] + 1
    limit = arr.shape[0] - 1
    for _ in range(16):
        space = _JSON_SPACE[arr[np.minimum(starts, limit)]] & (starts < bounds)
        if not space.any():
            return starts
        starts[space] += 1
    # deep indentation: look the first non-space byte up
    solid = np.flatnonzero(~_JSON_SPACE[arr])
    nearest = np.minimum(np.searchsorted(solid, starts), solid.shape[0] - 1)
    np.minimum(solid[nearest], bounds, out=starts)
    return starts


def _escaped(arr: np.ndarray, quotes: np.ndarray) -> np.ndarray:
    """Which quotes follow an odd run of backslashes."""
    out = np.zeros(quotes.shape[0], dtype=bool)
    maybe = (
        np.flatnonzero(arr[np.maximum(quotes - 1, 0)] == ord("\\")) if quotes.shape[0] else quotes
    )
    maybe = maybe[quotes[maybe] > 0]
    if not maybe.shape[0]:
        return out
    slashes = np.flatnonzero(arr == ord("\\"))
    run_start = np.ones(slashes.shape[0], dtype=bool)
    run_start[1:] = slashes[1:] != slashes[:-1] + 1
    first = slashes[np.maximum.accumulate(np.where(run_start, np.arange(slashes.shape[0]), 0))]
    last = np.searchsorted(slashes, quotes[maybe] - 1)  # the backslash right before
    out[maybe] = (quotes[maybe] - first[last]) % 2 == 1
    return out
