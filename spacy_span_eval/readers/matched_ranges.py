"""Range pairs for two CoNLL files, found by matching sentences instead of counting them.

:func:`.ranges.plan_ranges` numbers every paragraph of both files to find where the
predictions file holds the gold file's n-th sentence: a scan of every byte of both files in
the process that hands out the work, before and while the workers read (on two cores, time
taken from the workers). Here the gold file is cut about every
``part_bytes`` at a paragraph start, and its partner in the predictions file is found by
content: near where the bytes seen so far say it should be, the one paragraph start whose
sentence, and the sentence before it, have the same tokens (first column) as gold's. Only
newlines are counted all the way (for the line numbers at the cuts; one numpy pass).

A match is a guess, and it is checked as :mod:`.ranges` checks its own: the ranges are
consecutive, start a paragraph on both sides, and the reader of each pair of ranges requires
the same number of documents on both sides with the same tokens; then, by induction from the
files' starts, every pair holds the same documents as one process pairs. Where no single
match is found near enough (repeated sentences: every sentence the same tokens, or a token
column of ``_``; a layout that moves things far), the plan counts instead from the last cut
on (:class:`.ranges.CountedCuts`): the n-th paragraph after it in gold pairs the n-th in the
predictions, checked by the readers in the same way. Files with a ``\\r`` are left to
:func:`.ranges.plan_ranges` (``None`` here), which knows how text mode reads them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .ranges import DOCSTART, ByteRange, CountedCuts, Cut, RangePair, consecutive, part_size

__all__ = ["matched_ranges"]

#: Bytes searched on each side of where the partner is expected, at first and at most (the
#: window grows 4x at a time; the first that holds a match must hold only one).
WINDOW, MAX_WINDOW = 1 << 12, 1 << 22
#: Gold paragraphs tried in turn at one cut before cutting stops; lines compared a sentence.
TRIES, MAX_LINES = 8, 64
#: Bytes read at a time: to count newlines, and around a paragraph to compare its tokens.
BLOCK, NEAR, SMALL = 1 << 20, 1 << 16, 1 << 12


class _File:
    """A file read by position (``os.pread``): a window here and there, and newlines
    counted a block at a time into one reused buffer."""

    def __init__(self, path: Path | str) -> None:
        self.path = path
        self.fd = os.open(path, os.O_RDONLY)
        self.size = os.fstat(self.fd).st_size
        self.buf = bytearray(BLOCK)
        self.cr = False  # a \r was seen while counting

    def close(self) -> None:
        os.close(self.fd)

    def read(self, lo: int, hi: int) -> bytes:
        lo, hi = max(lo, 0), min(hi, self.size)
        return os.pread(self.fd, hi - lo, lo) if hi > lo else b""

    def newlines(self, lo: int, hi: int) -> int:
        """Newlines in ``[lo, hi)``; notes a ``\\r`` there in :attr:`cr`."""
        total, view = 0, memoryview(self.buf)
        for a in range(lo, hi, BLOCK):
            n = os.preadv(self.fd, [view[: min(BLOCK, hi - a)]], a)
            total += int(np.count_nonzero(np.frombuffer(self.buf, np.uint8, n) == 10))
            self.cr = self.cr or self.buf.find(b"\r", 0, n) >= 0
        return total


def matched_ranges(
    gold: Path | str, pred: Path | str, *, part_bytes: int, taper: int = 0
) -> Iterator[RangePair] | None:
    """Consecutive range pairs covering both CoNLL files (see the module notes), gold ranges
    about ``part_bytes`` long; ``taper`` > 0: a range is at most ``1/taper`` of what is left
    of the gold file (and at least a sixteenth of ``part_bytes``), so the last ones are
    short and the workers finish together. ``None``: a file's head holds a ``\\r`` (a
    ``\\r`` further on stops the cutting there)."""
    g = _File(gold)
    try:
        p = _File(pred)
    except BaseException:
        g.close()
        raise
    if b"\r" in g.read(0, NEAR) or b"\r" in p.read(0, NEAR):
        g.close()
        p.close()
        return None
    return _plan(g, p, part_bytes, taper)


def _plan(g: _File, p: _File, part_bytes: int, taper: int) -> Iterator[RangePair]:
    counted: CountedCuts | None = None  # once a cut finds no partner: counting from there

    def next_cut(g_at: ByteRange, p_at: ByteRange) -> Cut | None:
        nonlocal counted
        if counted is not None:
            return counted.next_cut(g_at, p_at)
        size = part_size(part_bytes, taper, g.size - g_at.start)
        cut = _cut(g, p, g_at.start + size, g_at.start, p_at.start)
        if cut is None:
            return None
        c, m = cut
        if m is None:
            # No single partner (sentences that repeat: the same tokens, or ``_`` for
            # every token): the n-th paragraph after the last cut on one side pairs the
            # n-th on the other. The readers check each pair of ranges as they do matched
            # ones (as many sentences, the same tokens), so a wrong count is caught.
            counted = CountedCuts(
                g.path,
                p.path,
                rule="paragraph",
                part_bytes=part_bytes,
                taper=taper,
                at=RangePair(g_at, p_at),
            )
            return counted.next_cut(g_at, p_at)
        g_line = g_at.line + g.newlines(g_at.start, c)
        p_line = p_at.line + p.newlines(p_at.start, m)
        if g.cr or p.cr:  # (text mode may read lines differently from here on)
            return None
        return c, g_line, m, p_line

    try:
        yield from consecutive(next_cut)
    finally:
        g.close()
        p.close()
        if counted is not None:
            counted.close()


def _cut(g: _File, p: _File, target: int, g_lo: int, p_lo: int) -> tuple[int, int | None] | None:
    """``(gold cut, its partner)``: the first gold sentence start at or after ``target``
    whose partner after ``p_lo`` is found (``TRIES`` of them at most); the partner is
    ``None`` when none of them has one; ``None`` when gold has no sentence start there."""
    at, first = target, None
    for _ in range(TRIES):
        c = _sentence_start(g, at)
        if c is None:
            break
        first = c if first is None else first
        # Where it should be: as far on as the sizes say, corrected by the last cut.
        ratio = p_lo / g_lo if g_lo and p_lo else p.size / max(g.size, 1)
        m = _partner(g, c, p, p_lo + int((c - g_lo) * ratio), p_lo)
        if m is not None:
            return c, m
        at = c + 1
    return None if first is None else (first, None)


def _sentence_start(f: _File, at: int) -> int | None:
    """The first paragraph start at or after ``at`` (the first non-empty line after an
    empty one) that is not a lone ``-DOCSTART-`` line."""
    lo = max(at - 2, 0)
    while lo < f.size:
        window = f.read(lo, lo + NEAR)
        i = window.find(b"\n\n")
        while i >= 0:
            j = i + 2
            while j < len(window) and window[j] == 10:
                j += 1
            if j + len(DOCSTART) + 1 > len(window) and lo + len(window) < f.size:
                break  # too near the window's end to tell: read on from here
            if j >= len(window):
                return None  # only empty lines to the end of the file
            if not _is_docstart(window, j):
                return lo + j
            i = window.find(b"\n\n", j)
        else:
            lo += max(len(window) - 2, 1)
            continue
        lo += max(i, 1)
    return None


def _is_docstart(data: bytes, j: int) -> bool:
    end = j + len(DOCSTART)
    return data[j:end] == DOCSTART and (end >= len(data) or data[end] in b" \t\n")


def _tokens(text: bytes) -> list[bytes]:
    """The first column of each line of ``text`` up to its first empty line (``MAX_LINES``
    lines at most)."""
    end = text.find(b"\n\n")
    if end >= 0:
        text = text[:end]
    return [
        line.split(None, 1)[0] if line.strip() else b""
        for line in text.split(b"\n", MAX_LINES)[:MAX_LINES]
    ]


def _sentence_pair(
    f: _File, start: int, near: tuple[bytes, int] | None = None
) -> tuple[list[bytes], list[bytes]] | None:
    """The tokens of the paragraph at ``start`` and of the paragraph before it (``None``
    when that one reaches further back than :data:`NEAR` bytes). A few kilobytes around
    ``start`` first (sentences are short): from ``near`` (bytes already read, and the file
    offset of their first) when they hold them; :data:`NEAR` where that is not enough."""
    for size in (SMALL, NEAR):
        lo, hi = max(start - size, 0), min(start + size, f.size)
        if near is not None and near[1] <= lo and hi <= near[1] + len(near[0]):
            text = near[0][lo - near[1] : hi - near[1]]
        else:
            text = f.read(lo, hi)
        at = start - lo  # where ``start`` is in ``text``
        before = text[:at].rstrip(b"\n")
        i = before.rfind(b"\n\n")
        if (i >= 0 or lo == 0) and (text.find(b"\n\n", at) >= 0 or hi == f.size):
            return _tokens(text[at:]), _tokens(before[i + 2 :] if i >= 0 else before)
    return None


def _partner(g: _File, c: int, p: _File, expected: int, p_lo: int) -> int | None:
    """The one paragraph start of the predictions after ``p_lo`` whose sentence and the
    sentence before it have the tokens of gold's at ``c``, searched in windows growing
    around ``expected``; ``None`` when there is none, or more than one, in the widest."""
    want = _sentence_pair(g, c)
    if want is None or not want[0] or not want[0][0]:
        return None
    width = WINDOW
    while True:
        lo, hi = max(p_lo + 1, expected - width), min(p.size, expected + width)
        if hi > lo:
            near = (p.read(lo - SMALL, hi + SMALL), max(lo - SMALL, 0))
            found = _candidates(near, lo, hi, want[0][0])
            matches = [j for j in found if _sentence_pair(p, j, near) == want]
        else:
            matches = []
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1 or width >= MAX_WINDOW:
            return None
        width *= 4


def _candidates(near: tuple[bytes, int], lo: int, hi: int, first: bytes) -> list[int]:
    """Paragraph starts in ``[lo, hi)`` whose first line begins with the token ``first``;
    ``near``: the bytes around them, and the file offset of the first."""
    data, offset = near
    pad = max(2 - lo, 0)  # (before the file's start: as if after an empty line)
    w = np.frombuffer(b"\n" * pad + data, dtype=np.uint8)  # w[k]: byte offset - pad + k
    base = offset - pad
    a, b = lo - 2 - base, hi - base  # w[a:b]: bytes lo - 2 .. hi - 1
    nl = w[a:b] == 10
    starts = np.flatnonzero(nl[:-2] & nl[1:-1] & ~nl[2:]) + a + 2  # (in w)
    if not starts.shape[0]:
        return []
    limit = w.shape[0] - 1
    keep = np.ones(starts.shape[0], dtype=bool)
    for k, byte in enumerate(first):
        keep &= w[np.minimum(starts + k, limit)] == byte
    after = w[np.minimum(starts + len(first), limit)]
    keep &= (after == 9) | (after == 32) | (after == 10) | (starts + len(first) > limit)
    return [int(s) + base for s in starts[keep]]
