"""Byte ranges that cut a gold file and a predictions file at the same document: the plan
of parallel reading.

Pairing by position pairs the i-th document of one file with the i-th of the other, so a
pair of ranges can be read and scored on its own when both start at the same document. A
document boundary is found without parsing: a CoNLL sentence starts a **paragraph** (the
first non-empty line after an empty one; a paragraph of a lone ``-DOCSTART-`` line does not
count), a JSON Lines record starts a non-empty **line**. The plan cuts the gold file about
every ``part_bytes`` at such a start, numbers it (the n-th start of the file), and cuts the
predictions file at its own n-th start; line numbers at the cuts are counted on the way.

That is a guess wherever a paragraph is not exactly a sentence (a whitespace-only line, a
lone comment, a malformed line) or the files differ in layout, so it is checked where it
matters: each pair of ranges must hold as many documents on both sides (the reader pairing
a range raises otherwise), and then the pairs are exactly the single-process ones, since the
ranges are consecutive and each starts a document on both sides. The caller reads the files
in one process when a check fails. Bytes are scanned with numpy a block at a time, only as far
as the next cut: ranges can be handed out while the rest is scanned.

A file with a lone ``\\r`` line end (a line break for the readers, not for this count) is
not cut past it: the rest is one range, so no line number is wrong.
"""

from __future__ import annotations

from codecs import BOM_UTF8
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["ByteRange", "RangePair", "plan_ranges"]

#: Bytes scanned at a time (small enough that the arrays of a block stay in the CPU cache).
SCAN_BLOCK = 1 << 18
DOCSTART = b"-DOCSTART-"


@dataclass(frozen=True)
class ByteRange:
    """Bytes ``[start, stop)`` of a file (``stop`` ``None``: to its end); ``line`` is the
    number of the line at ``start``."""

    start: int
    stop: int | None
    line: int


@dataclass(frozen=True)
class RangePair:
    """The ranges of the gold and the predictions file that hold the same documents (if
    the plan's guess holds; see the module notes). ``same_ids``: the files pair records by
    id, so the reader also checks that the i-th records of the two ranges have the same id
    (then pairing by position is pairing by id, once ids are known not to repeat)."""

    gold: ByteRange
    pred: ByteRange
    same_ids: bool = False


def part_size(part_bytes: int, taper: int, left: int) -> int:
    """Gold bytes of the next range: ``part_bytes``, or with ``taper`` > 0 at most
    ``1/taper`` of the ``left`` bytes (at least a sixteenth of ``part_bytes``), so that the
    last ranges are short and the workers finish together."""
    if taper <= 0:
        return max(part_bytes, 1)
    return max(part_bytes // 16, min(part_bytes, left // taper), 1)


def plan_ranges(
    gold: Path | str, pred: Path | str, *, rule: str, part_bytes: int, taper: int = 0
) -> Iterator[RangePair]:
    """Consecutive range pairs that cover both files, the gold ranges about ``part_bytes``
    long; yielded as soon as the scan has found their ends. The n-th document start after a
    cut in gold pairs the n-th in the predictions. ``rule``: what starts a document,
    ``"paragraph"`` (CoNLL sentences) or ``"line"`` (JSON Lines records)."""
    with _Starts(gold, rule) as g, _Starts(pred, rule) as p:
        g_at, p_at = ByteRange(0, None, 1), ByteRange(0, None, 1)
        while (
            cut := g.first_at_or_after(
                g_at.start + part_size(part_bytes, taper, g.file_size - g_at.start)
            )
        ) is not None and (partner := p.nth(cut[1])) is not None:
            (g_pos, _, g_line), (p_pos, p_line) = cut, partner
            yield RangePair(
                ByteRange(g_at.start, g_pos, g_at.line), ByteRange(p_at.start, p_pos, p_at.line)
            )
            g_at, p_at = ByteRange(g_pos, None, g_line), ByteRange(p_pos, None, p_line)
        yield RangePair(g_at, p_at)


class _Starts:
    """The document starts of one file (see the module notes), found a block at a time."""

    def __init__(self, path: Path | str, rule: str) -> None:
        self.rule = rule
        self.fh = open(path, "rb")  # noqa: SIM115 - closed with the plan (or when dropped)
        self.file_size = self.fh.seek(0, 2)
        self.fh.seek(0)
        self.skip = len(BOM_UTF8) if self.fh.read(len(BOM_UTF8)) == BOM_UTF8 else 0
        self.lo = self.hi = self.skip  # the block scanned last: [lo, hi)
        # The block, after the 3 bytes before it (newlines before the file's start), and one
        # byte after it (what follows a \r at its end); buffers reused from block to block.
        self.buf = bytearray(b"\n\n\n" + bytes(SCAN_BLOCK + 1))
        self.nl = np.zeros(SCAN_BLOCK + 4, dtype=bool)
        self.mask = np.zeros(0, dtype=bool)  # which bytes of the block start a document
        self.size = 0  # bytes in the block
        self.before = 0  # starts before the block
        self.count = 0  # starts in the block
        self.line = 1  # line number at self.lo
        self.lines = 0  # line ends in the block
        self.positions: np.ndarray | None = None
        self.stopped = False  # a lone \r: nothing past it is numbered

    def __enter__(self) -> _Starts:
        return self

    def __exit__(self, *exc: object) -> None:
        self.fh.close()

    def first_at_or_after(self, offset: int) -> tuple[int, int, int] | None:
        """``(position, index, line)`` of the first start at or after ``offset``."""
        while True:
            if self.hi > offset and self.count:
                at = self._positions()
                k = int(np.searchsorted(at, offset))
                if k < at.shape[0]:
                    return int(at[k]), self.before + k, self._line_at(int(at[k]))
            if not self._next_block():
                return None

    def nth(self, index: int) -> tuple[int, int] | None:
        """``(position, line)`` of start number ``index`` (from 0), asked in order."""
        while self.before + self.count <= index:
            if not self._next_block():
                return None
        pos = int(self._positions()[index - self.before])
        return pos, self._line_at(pos)

    def _line_at(self, pos: int) -> int:
        return self.line + int(np.count_nonzero(self.nl[3 : 3 + pos - self.lo]))

    def _positions(self) -> np.ndarray:
        if self.positions is None:
            self.positions = self.lo + np.flatnonzero(self.mask)
        return self.positions

    def _next_block(self) -> bool:
        if self.stopped:  # (at a lone \r)
            return False
        buf = self.buf
        if self.size:
            buf[:3] = buf[self.size : self.size + 3]  # the last 3 bytes of the block before
        lo = self.hi
        self.fh.seek(lo)
        got = self.fh.readinto(memoryview(buf)[3:])
        n = min(got, SCAN_BLOCK)
        if not n:
            return False
        w = np.frombuffer(buf, dtype=np.uint8, count=3 + n)
        nl = np.equal(w, 10, out=self.nl[: 3 + n])
        if buf.find(b"\r", 3, 3 + n) < 0:
            mask = nl[2:-1] > nl[3:]  # a line starts here, and it is not empty
            if self.rule == "paragraph":
                mask &= nl[1:-2]  # and the line before it is
        else:
            cr = w == 13
            mask = nl[2:-1] & ~(nl[3:] | cr[3:])
            if self.rule == "paragraph":
                mask &= nl[1:-2] | (cr[1:-2] & nl[:-3])
            at = np.flatnonzero(cr[3:]) + 3
            after = np.frombuffer(buf, dtype=np.uint8, count=4 + n)[np.minimum(at + 1, 3 + n)]
            lone = at[(after != 10) | (at + 1 >= 3 + got)]
            if lone.shape[0]:  # nothing after a lone \r is numbered: no start there
                mask[lone[0] - 3 :] = False
                self.stopped = True
        if self.rule == "paragraph":
            dash = np.flatnonzero(mask & (w[3:] == DOCSTART[0]))  # (cheaper than a find)
            if dash.shape[0]:
                self._drop_docstart_paragraphs(mask, lo, dash)
        self.before += self.count
        self.line += self.lines
        self.lo, self.hi, self.size = lo, lo + n, n
        self.mask, self.count = mask, int(np.count_nonzero(mask))
        self.lines = int(np.count_nonzero(nl[3:]))
        self.positions = None
        return True

    def _drop_docstart_paragraphs(self, mask: np.ndarray, lo: int, dash: np.ndarray) -> None:
        """A paragraph that is one ``-DOCSTART-`` line holds no sentence (``dash``: the
        paragraphs of the block that start with ``-``)."""
        buf = self.buf
        for at in dash.tolist():
            if buf[3 + at : 3 + at + len(DOCSTART)] != DOCSTART:
                continue
            self.fh.seek(lo + at + len(DOCSTART))
            rest = self.fh.readline()
            after = self.fh.read(2)
            if rest[:1] in (b"", b" ", b"\t", b"\r", b"\n") and (
                after[:1] in (b"", b"\n") or after == b"\r\n"
            ):
                mask[at] = False
