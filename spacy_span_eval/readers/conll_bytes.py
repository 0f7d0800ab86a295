"""Byte kernels of the columnar CoNLL reader: questions asked of many byte ranges of one chunk
at once, with numpy, so that no Python string is made per token.

A chunk is padded with :data:`PAD` so that an 8-byte word can be read at every byte of it.
"""

from __future__ import annotations

import numpy as np

from ..engine.columns import INT

__all__ = ["PAD", "UNICODE_SPACE", "ascii_spaces", "differing_tokens", "equals", "intern"]

PAD = b"\0" * 8
#: Bytes of a string compared or keyed as 8-byte words; longer strings are rare, and are
#: compared as byte strings so that one long token costs its length, not that times all.
WORD_BYTES = 64
# The low k bytes of a word, for k = 0..8.
_LOW = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)

# Non-ASCII characters str.split splits on (str.isspace);
# tests/readers/test_readers_conll_columns.py checks this list against Python's own.
UNICODE_SPACE = (
    "\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_SPACE_BYTES = [c.encode("utf-8") for c in UNICODE_SPACE]
_SPACE_LEAD = np.zeros(256, dtype=bool)
_SPACE_LEAD[[b[0] for b in _SPACE_BYTES]] = True
_SPACE_CODES2 = np.array([b[0] << 8 | b[1] for b in _SPACE_BYTES if len(b) == 2], np.uint32)
_SPACE_CODES3 = np.array(
    [b[0] << 16 | b[1] << 8 | b[2] for b in _SPACE_BYTES if len(b) == 3], np.uint32
)
_SPACE_LEADS = tuple(sorted({b[:1] for b in _SPACE_BYTES if len(b) > 1}))


def words(buf: bytes) -> np.ndarray:
    """8-byte little-endian words starting at every byte of a padded chunk."""
    return np.ndarray(shape=(len(buf) - 7,), dtype="<u8", buffer=buf, strides=(1,))


def ascii_spaces(buf: bytes) -> np.ndarray:
    """The bytes of a (valid UTF-8, padded) chunk, with the bytes of every character of
    :data:`UNICODE_SPACE` read as ASCII spaces: ``str.split`` splits there, so the layout
    parsers do too. Found from the lead bytes of their encodings (C2, E1, E2, E3) and the bytes
    after them; a copy only where there is one."""
    arr = np.frombuffer(buf, dtype=np.uint8)
    if not any(lead in buf for lead in _SPACE_LEADS):  # (memchr: most text has none)
        return arr
    at = np.flatnonzero((arr[: len(buf) - len(PAD)] - np.uint8(0xC2)) <= 0x21)  # C2..E3
    at = at[_SPACE_LEAD[arr[at]]]
    code = (arr[at].astype(np.uint32) << 16) | (arr[at + 1].astype(np.uint32) << 8) | arr[at + 2]
    three, two = at[np.isin(code, _SPACE_CODES3)], at[np.isin(code >> 8, _SPACE_CODES2)]
    if not (three.shape[0] or two.shape[0]):
        return arr
    arr = arr.copy()
    for i in range(3):
        arr[three + i] = 32
    arr[two], arr[two + 1] = 32, 32
    return arr


def equals(arr: np.ndarray, starts: np.ndarray, needle: bytes) -> np.ndarray:
    """Whether the bytes at each of ``starts`` begin with ``needle``."""
    same = np.ones(starts.shape[0], dtype=bool)
    limit = arr.shape[0] - 1
    for i, b in enumerate(needle):
        same &= arr[np.minimum(starts + i, limit)] == b
    return same


def differing_tokens(
    gbuf: bytes,
    gs: np.ndarray,
    gl: np.ndarray,
    pbuf: bytes,
    ps: np.ndarray,
    pl: np.ndarray,
) -> np.ndarray:
    """Indices of the tokens whose bytes differ (token ``i`` is ``gs[i]:gs[i] + gl[i]`` in
    ``gbuf`` and ``ps[i]:ps[i] + pl[i]`` in ``pbuf``, both padded chunks).

    The first :data:`WORD_BYTES` bytes are compared 8 at a time for all tokens at once; the
    few tokens still equal past that are compared as byte strings."""
    bad = gl != pl
    gu, pu = words(gbuf), words(pbuf)
    glim, plim = gu.shape[0] - 1, pu.shape[0] - 1
    longest = int(gl.max()) if gl.shape[0] else 0
    if longest:  # every token starts inside its chunk, so inside the word view
        diff = gu[gs]  # (in place from here: a new array each step is one more pass)
        diff ^= pu[ps]
        diff &= _LOW[gl if longest <= 8 else np.minimum(gl, 8)]
        bad |= diff != 0
        del diff
    for w in range(8, min(longest, WORD_BYTES), 8):
        rows = np.flatnonzero(~bad & (gl > w))
        if not rows.shape[0]:
            break
        mask = _LOW[np.minimum(gl[rows] - w, 8)]
        diff = (gu[np.minimum(gs[rows] + w, glim)] ^ pu[np.minimum(ps[rows] + w, plim)]) & mask
        bad[rows[diff != 0]] = True
    if longest > WORD_BYTES:
        gview, pview = memoryview(gbuf), memoryview(pbuf)
        rows = np.flatnonzero(~bad & (gl > WORD_BYTES))
        for i, a, b, n in zip(
            rows.tolist(), gs[rows].tolist(), ps[rows].tolist(), gl[rows].tolist(), strict=True
        ):
            if gview[a : a + n] != pview[b : b + n]:
                bad[i] = True
    return np.flatnonzero(bad)


def intern(buf: bytes, starts: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Ids for the byte strings ``buf[start:start + len]`` (equal strings, equal ids), and
    the string of each id.

    Strings up to :data:`WORD_BYTES` long are keyed 8 bytes at a time, all at once; longer
    ones (rare) one by one as byte strings."""
    long = lens > WORD_BYTES
    if not long.any():
        return _intern_short(buf, starts, lens)
    ids = np.empty(lens.shape[0], dtype=INT)
    names: list[str] = []
    short = np.flatnonzero(~long)
    if short.shape[0]:
        ids[short], names = _intern_short(buf, starts[short], lens[short])
    seen: dict[bytes, int] = {}
    rows = np.flatnonzero(long)
    for row, s, n in zip(rows.tolist(), starts[rows].tolist(), lens[rows].tolist(), strict=True):
        key = buf[s : s + n]
        if key not in seen:
            seen[key] = len(names)
            names.append(key.decode("utf-8"))
        ids[row] = seen[key]
    return ids, names


def _intern_short(buf: bytes, starts: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """:func:`intern` for strings of at most :data:`WORD_BYTES` bytes."""
    u64 = words(buf)
    limit = u64.shape[0] - 1
    n_words = max((int(lens.max()) + 7) // 8, 1)
    keys = []
    for w in range(n_words):
        # (every string starts inside its chunk, so its first word inside the word view)
        word = u64[starts] if w == 0 else u64[np.minimum(starts + 8 * w, limit)]
        word &= _LOW[np.clip(lens - 8 * w, 0, 8)]  # (in place: one pass fewer)
        keys.append(word)
    key = lens.astype(np.uint64)
    if n_words == 1 and int(lens.max()) < 8:  # the length and 7 bytes: exact
        key <<= np.uint64(56)
        key |= keys[0]
        _, ids = unique_ids(key)
    else:
        for word in keys:  # a hash: checked below
            key = key * np.uint64(0x9E3779B97F4A7C15) ^ word
        _, ids = unique_ids(key)
        rep = _first_of_each(ids)
        if not all((w == w[rep][ids]).all() for w in (*keys, lens)):
            table = np.stack([*(w.view(np.int64) for w in keys), lens.astype(np.int64)], 1)
            _, ids = np.unique(table, axis=0, return_inverse=True)
            ids = ids.reshape(-1)
    rep = _first_of_each(ids)
    names = [
        buf[s : s + n].decode("utf-8")
        for s, n in zip(starts[rep].tolist(), lens[rep].tolist(), strict=True)
    ]
    return ids.astype(INT), names


def _first_of_each(ids: np.ndarray) -> np.ndarray:
    """For each id, a position that holds it (ids run from 0 with no gap)."""
    rep = np.empty(int(ids.max()) + 1, dtype=INT)
    rep[ids] = np.arange(ids.shape[0])
    return rep


def unique_ids(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted distinct keys, index of each key among them)``; cheap when few are distinct."""
    uniq = _distinct(key[:4096])
    ids = np.minimum(np.searchsorted(uniq, key), uniq.shape[0] - 1)
    miss = uniq[ids] != key
    if miss.any():
        uniq = _distinct(np.concatenate([uniq, key[miss]]))
        ids = np.searchsorted(uniq, key)
    return uniq, ids


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted. (Not ``np.unique``: on its first call numpy 2 imports
    ``numpy.ma``, which every command would then pay for at its start.)"""
    values = np.sort(values)
    keep = np.ones(values.shape[0], dtype=bool)
    keep[1:] = values[1:] != values[:-1]
    return values[keep]
