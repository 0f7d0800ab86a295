"""CoNLL file pairs read straight into columns: the fast path behind ``evaluate``.

:func:`.conll.read_conll` (the reference) makes a Python string per token and a
:class:`~.base.Record` per sentence; on a 100k-sentence file that is most of the run time.
Here a file is read in chunks of whole sentences (cut at blank lines), and each chunk is
parsed as one byte array with numpy:

* the positions of whitespace bytes give the lines, the whitespace-separated words and the tab
  positions, so the token column, the tag column and the column count of every line come from
  a few gathers (``delimiter`` ``auto``/``tab``/``space`` split exactly as the reference's
  ``str.split`` does);
* blank lines, ``-DOCSTART-`` lines and comment lines (only at the start of a sentence, and
  only when the line does not read as a token line) are classified by vectorized rules, and
  sentences are runs of consecutive token lines;
* tags become a prefix code and a label id (labels read as 8-byte words and interned), and
  :func:`spacy_span_eval.schemes_columns.decode_columns` decodes every sentence at once;
* the two files' tokens are compared as words of bytes, all at once (with
  ``align="position"``, those that differ are counted and the first few named, as
  :func:`.align.align_by_position` does, and the predicted spans sit on the gold tokens).

No Python object is made per token or per span. Anything that would raise in the reference
(a malformed line, an unknown tag, an ill-formed chunk under ``repair="error"``, tokens that
differ between the files) is located by the arrays, and that one sentence is then replayed
through the reference code, so messages are the reference's own and name the file and line.
Errors are raised in the order the reference would meet them (gold sentence ``k``, predicted
sentence ``k``, then the pair ``k``). A chunk holding a non-ASCII whitespace character (which
``str.split`` splits on) is read by the reference line loop instead.

Entry point: :func:`conll_pair_batches` yields :class:`~spacy_span_eval.batching.SpanBatch`
columns that :meth:`SpanEvaluator.tally_batch` scores directly.
"""

from __future__ import annotations

import io
from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, TypeVar, overload

import numpy as np

from ..engine.batching import SpanBatch
from ..engine.columns import INT, SpanColumns
from ..engine.spans import Span
from ..errors import InvalidInputError
from .align import TokenDifferences, align_by_position, difference_example, differences_for
from .aligned import Side, aligned
from .base import (
    MAX_LINE_CHARS,
    Record,
    empty_input,
    long_line_at,
    long_line_error,
    unfinished_utf8,
    whole_lines,
)
from .conll import (
    DELIMITERS,
    DOCSTART,
    column_need,
    malformed_line,
    records_from_lines,
    splitter,
)
from .pairing import SideInfo, to_document
from .schemes import REPAIR_POLICIES, Scheme, decode, get_scheme
from .schemes_columns import (
    OUTSIDE_CODE,
    UNKNOWN_CODE,
    DecodedColumns,
    decode_columns,
    scheme_tables,
)

if TYPE_CHECKING:  # (byte ranges are a parallel run's: its planner loads them)
    from .ranges import ByteRange, RangePair

__all__ = ["CHUNK_BYTES", "ConllBlock", "conll_blocks", "conll_pair_batches"]

#: Bytes read per chunk (a chunk always ends at a blank line, so it can be larger). 2 MB:
#: fewer batches than 1 MB (each costs the engine some fixed work), while the arrays of a
#: chunk still mostly fit the CPU caches (4 MB was slower).
CHUNK_BYTES = 2 << 20
#: Sentences per batch handed to the engine.
BATCH_SENTENCES = 1 << 16

# ASCII whitespace as str.split/str.strip see it; every one is a byte <= 32.
_WS = np.zeros(256, dtype=bool)
_WS[list(b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")] = True
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
_PAD = b"\0" * 8
_BOM = b"\xef\xbb\xbf"
_LOW = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_DOCSTART = DOCSTART.encode("ascii")


@dataclass(frozen=True)
class _Options:
    path: Path | str
    scheme: Scheme
    repair: str
    tag_column: int
    delimiter: str
    comment: str | None

    @property
    def name(self) -> str:
        return Path(self.path).name


@dataclass
class ConllBlock:
    """One side's sentences from one chunk of its file, as columns.

    ``buf`` is the chunk (newlines normalized, padded with 8 NUL bytes); tokens are byte
    ranges of it. ``error``, when set, is what the reference raises right after these
    sentences.
    """

    opts: _Options
    buf: bytes
    sent_line: np.ndarray  # file line of each sentence's first token
    tok_off: np.ndarray  # per sentence, offsets into the token arrays (n + 1)
    tok_start: np.ndarray
    tok_len: np.ndarray
    tag_start: np.ndarray
    tag_len: np.ndarray
    span_sent: np.ndarray
    span_start: np.ndarray
    span_end: np.ndarray
    span_label: np.ndarray
    labels: list[str]
    repaired: np.ndarray  # per sentence
    error: Callable[[], Exception] | None = None
    _chars: np.ndarray | None = None

    @property
    def n(self) -> int:
        return int(self.sent_line.shape[0])

    def __len__(self) -> int:
        return int(self.sent_line.shape[0])

    def u64(self) -> np.ndarray:
        """8-byte little-endian words starting at every byte of the chunk."""
        return np.ndarray(shape=(len(self.buf) - 7,), dtype="<u8", buffer=self.buf, strides=(1,))

    def tokens(self, j: int) -> tuple[str, ...]:
        lo, hi = int(self.tok_off[j]), int(self.tok_off[j + 1])
        return tuple(
            self.buf[s : s + n].decode("utf-8")
            for s, n in zip(
                self.tok_start[lo:hi].tolist(), self.tok_len[lo:hi].tolist(), strict=True
            )
        )

    def record(self, j: int) -> Record:
        """Sentence ``j`` as the reference reader's record (for messages)."""
        line0 = int(self.sent_line[j])
        lo, hi = np.searchsorted(self.span_sent, [j, j + 1])
        spans = tuple(
            Span(int(s), int(e), self.labels[int(k)])
            for s, e, k in zip(
                self.span_start[lo:hi], self.span_end[lo:hi], self.span_label[lo:hi], strict=True
            )
        )
        return Record(
            where=f"{self.opts.path} line {line0}",
            key=f"{self.opts.name}:{line0}",
            id=None,
            spans=spans,
            tokens=self.tokens(j),
            repaired=int(self.repaired[j]),
        )

    def char_lengths(self) -> np.ndarray:
        """Length of every token in characters (bytes, less UTF-8 continuation bytes)."""
        if self._chars is None:
            size = len(self.buf) - len(_PAD)
            arr = np.frombuffer(self.buf, dtype=np.uint8, count=size)
            if not (arr >= 0x80).any():
                self._chars = self.tok_len.copy()
            else:
                cont = np.zeros(size + 1, dtype=np.int64)
                np.cumsum((arr & 0xC0) == 0x80, out=cont[1:])
                self._chars = self.tok_len - (
                    cont[self.tok_start + self.tok_len] - cont[self.tok_start]
                )
        return self._chars


# -- reading a file in chunks ---------------------------------------------------------------


@dataclass(frozen=True)
class _LongLine:
    """The line after a chunk is longer than :data:`~.base.MAX_LINE_CHARS` (it starts at
    byte ``at`` of ``data``, which starts at file offset ``offset``): an error whose line
    number :func:`conll_blocks` knows."""

    data: bytes
    at: int
    offset: int

    def error(self, path: Path | str, line: int) -> Callable[[], Exception]:
        return long_line_error(path, self.data, self.at, line, self.offset)


def _chunks(
    path: Path | str, size: int, part: ByteRange | None = None
) -> Iterator[tuple[bytes, int, Callable[[], Exception] | _LongLine | None]]:
    """``(chunk, byte offset, error)``: whole sentences, newlines normalized, ending with a
    newline; ``error`` (last chunk only): the file ends inside a character, which text mode
    reports after everything before it, or the next line is too long (:class:`_LongLine`;
    the chunk then holds the whole lines before it, and may end inside a sentence).
    ``part``: only those bytes of the file."""
    try:
        fh = open(path, "rb")  # noqa: SIM115
    except IsADirectoryError:
        raise InvalidInputError(f"{path}: is a directory, not a file") from None
    with fh:
        pending = b""
        offset = 0 if part is None else part.start
        left = None if part is None or part.stop is None else part.stop - part.start
        first = offset == 0
        fh.seek(offset)
        want = size
        while True:
            data = fh.read(want if left is None else min(want, left))
            if left is not None:
                left -= len(data)
            eof = len(data) < want or left == 0  # a short read is the end of the file
            block = pending + data if pending else data
            if first:
                first = False
                if block.startswith(_BOM):
                    block = block[len(_BOM) :]
                    offset = len(_BOM)
                elif eof and _BOM.startswith(block):
                    block = b""  # a file cut inside a BOM reads as empty text (utf-8-sig)
            if len(block) > MAX_LINE_CHARS and (long := long_line_at(block)) is not None:
                # The reference reads the lines before it, then stops (bounded_lines): the
                # whole lines before it are the last chunk, and its sentence is left open.
                chunk = block[:long]
                if b"\r" in chunk:
                    chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
                yield chunk, offset, _LongLine(block, long, offset)
                return
            if not eof:
                cut = block.rfind(b"\n\n")
                if b"\r" in block:
                    cut = max(cut, block.rfind(b"\n\r\n"))
                if cut < 0:
                    pending, want = block, want * 2
                    continue
                chunk, pending = block[: cut + 1], block[cut + 1 :]
                want = size
            else:
                chunk, pending = block, b""
            error = None
            if eof and (cut := unfinished_utf8(chunk)):
                error = _not_utf8_tail(path, chunk[-cut:], offset + len(chunk) - cut)
                chunk = chunk[: whole_lines(chunk[:-cut])]
            # (``data`` and ``block`` are copied into ``chunk`` and ``pending``: let them go
            # before the chunk is parsed, whose arrays can then take their memory)
            data = block = b""
            if chunk:
                start = offset
                offset += len(chunk)
                if b"\r" in chunk:
                    chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
                if not chunk.endswith(b"\n"):
                    chunk += b"\n"
                yield chunk, start, error
            elif error is not None:
                yield b"", offset, error
            if eof:
                return


def conll_blocks(
    path: Path | str,
    *,
    scheme: str | Scheme = "IOB2",
    repair: str = "conlleval",
    tag_column: int = -1,
    delimiter: str = "auto",
    comment: str | None = "#",
    chunk_bytes: int = CHUNK_BYTES,
    part: ByteRange | None = None,
) -> Iterator[ConllBlock]:
    """One side of a CoNLL file as blocks of columns (same options as :func:`read_conll`).

    Every block's sentences are valid; a block with ``error`` set is the last one.
    ``part``: only that range of the file (it starts a sentence, and its first line is
    ``part.line``; see :mod:`.ranges`), and no error when it holds no sentence.
    """
    if repair not in REPAIR_POLICIES:
        raise ValueError(
            f"unknown repair policy {repair!r}; choose one of {', '.join(REPAIR_POLICIES)}"
        )
    if delimiter not in DELIMITERS:
        raise ValueError(f"unknown delimiter {delimiter!r}; choose one of {', '.join(DELIMITERS)}")
    opts = _Options(path, get_scheme(scheme), repair, tag_column, delimiter, comment)
    line = 1 if part is None else part.line
    total = 0
    for chunk, offset, tail in _chunks(path, chunk_bytes, part):
        tail_error = (
            tail.error(path, line + chunk.count(b"\n")) if isinstance(tail, _LongLine) else tail
        )
        if not chunk:
            yield _failed(opts, tail_error)  # type: ignore[arg-type]
            return
        if not chunk.isascii():
            try:
                text = chunk.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield _failed(opts, _not_utf8(path, exc, offset))
                return
            buf = chunk + _PAD
            if _has_unicode_space(buf):
                block, n_lines = _parse_reference(text, line, opts, tail_error is not None)
            else:
                block, n_lines = _parse(chunk, line, opts, buf, tail_error is not None)
        else:
            block, n_lines = _parse(chunk, line, opts, None, tail_error is not None)
        line += n_lines
        total += block.n
        yield block
        if block.error is not None:
            return
        if tail_error is not None:
            yield _failed(opts, tail_error)
            return
    if not total and part is None:
        yield _failed(opts, lambda: empty_input(path, "sentences"))


def _has_unicode_space(buf: bytes) -> bool:
    """Whether (valid UTF-8, padded) ``buf`` holds one of :data:`UNICODE_SPACE`, found from
    the lead bytes of their encodings (C2, E1, E2, E3) and the bytes after them."""
    if not any(lead in buf for lead in _SPACE_LEADS):  # (memchr: most text has none)
        return False
    arr = np.frombuffer(buf, dtype=np.uint8)
    at = np.flatnonzero((arr[: len(buf) - len(_PAD)] - np.uint8(0xC2)) <= 0x21)  # C2..E3
    at = at[_SPACE_LEAD[arr[at]]]
    if not at.shape[0]:
        return False
    code = (arr[at].astype(np.uint32) << 16) | (arr[at + 1].astype(np.uint32) << 8) | arr[at + 2]
    two = (code >> 8) & 0xFFFF
    return bool(np.isin(code, _SPACE_CODES3).any() or np.isin(two, _SPACE_CODES2).any())


def _not_utf8_tail(path, tail: bytes, offset: int) -> Callable[[], Exception]:
    try:
        tail.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _not_utf8(path, exc, offset)
    raise AssertionError("an unfinished character decoded")  # pragma: no cover


def _not_utf8(path, exc: UnicodeDecodeError, offset: int) -> Callable[[], Exception]:
    return lambda: InvalidInputError(
        f"{path}: not UTF-8 text ({exc.reason} at byte {offset + exc.start})"
    )


def _failed(opts: _Options, error: Callable[[], Exception]) -> ConllBlock:
    z = np.zeros(0, dtype=INT)
    return ConllBlock(opts, _PAD, z, np.zeros(1, dtype=INT), z, z, z, z, z, z, z, z, [], z, error)


# -- one chunk, as arrays -------------------------------------------------------------------


@dataclass
class _Lines:
    """Every line of a chunk: its span, and its token and tag fields as byte ranges.

    ``tag_len`` is 0 where the line has no column ``tag_column``.
    """

    start: np.ndarray
    end: np.ndarray  # position of the line's newline
    blank: np.ndarray
    ncols: np.ndarray
    tok_start: np.ndarray
    tok_end: np.ndarray
    tag_start: np.ndarray
    tag_len: np.ndarray


def _lines(
    arr: np.ndarray, size: int, pos: np.ndarray, byte: np.ndarray, o: _Options
) -> _Lines | None:
    """Split every line as the reference does (``None``: the chunk has no word at all).

    ``pos``: the positions of the chunk's whitespace bytes, ``byte``: those bytes."""
    is_nl = byte == 10
    nl_entry = np.flatnonzero(is_nl)  # index into pos of every newline
    line_end = pos[nl_entry]
    line_start = np.empty_like(line_end)
    line_start[:1] = 0
    line_start[1:] = line_end[:-1] + 1
    if pos.shape[0] == size:  # nothing but whitespace
        return None
    n_tab = int(np.count_nonzero(byte == 9))
    n_space = int(np.count_nonzero(byte == 32))
    n_other = byte.shape[0] - nl_entry.shape[0] - n_tab - n_space
    seps = [b for b, n in ((9, n_tab), (32, n_space), (-1, n_other)) if n]
    if len(seps) <= 1 and seps != [-1]:
        gap_one = pos[1:] - pos[:-1] == 1
        clean = not (gap_one & ~(is_nl[1:] & is_nl[:-1])).any() and not (
            pos.shape[0] and pos[0] == 0 and byte[0] != 10
        )
        if clean:
            split = bool(seps) and not (o.delimiter == "tab" and seps[0] != 9)
            return _clean_lines(pos, nl_entry, line_start, line_end, o.tag_column, split)
    return _general_lines(pos, byte, is_nl, nl_entry, line_start, line_end, o)


def _clean_lines(pos, nl_entry, line_start, line_end, k: int, split: bool) -> _Lines:
    """Lines whose separators are single bytes of one kind, never at a line's start or end
    and never next to each other: then every split gives the same columns."""
    blank = line_end == line_start
    if split:
        first_entry = np.empty_like(nl_entry)  # entry index of the line's first separator
        first_entry[:1] = 0
        first_entry[1:] = nl_entry[:-1] + 1
        nsep = nl_entry - first_entry
    else:
        first_entry = nsep = np.zeros_like(nl_entry)
    ncols = nsep + 1
    ncols[blank] = 0
    top = pos.shape[0] - 1
    tok_end = np.where(nsep > 0, pos[np.minimum(first_entry, top)], line_end)
    if k == -1:  # the last column: after the line's last separator
        tag_start = np.where(nsep > 0, pos[nl_entry - 1] + 1, line_start)
        tag_len = line_end - tag_start
        tag_len[blank] = 0
        return _Lines(line_start, line_end, blank, ncols, line_start, tok_end, tag_start, tag_len)
    f = k if k >= 0 else ncols + k
    ok = ~blank & (f >= 0) & (f < ncols)
    f = np.where(ok, f, 0)
    tag_start = np.where(f > 0, pos[np.clip(first_entry + f - 1, 0, top)] + 1, line_start)
    tag_end = np.where(f < nsep, pos[np.clip(first_entry + f, 0, top)], line_end)
    return _Lines(
        line_start,
        line_end,
        blank,
        ncols,
        line_start,
        tok_end,
        tag_start,
        np.where(ok, tag_end - tag_start, 0),
    )


def _general_lines(pos, byte, is_nl, nl_entry, line_start, line_end, o: _Options) -> _Lines:
    """Any layout: runs of whitespace, leading and trailing whitespace, tabs and spaces
    mixed (``auto`` splits a line on tabs when its stripped text has one)."""
    n_lines = nl_entry.shape[0]
    # Words: the runs of non-whitespace bytes, each ended by the whitespace entry `term`.
    before = np.empty_like(pos)
    before[:1] = -1
    before[1:] = pos[:-1]
    term = np.flatnonzero(pos - before > 1)
    w_start = before[term] + 1
    w_end = pos[term]
    nl_before = np.cumsum(is_nl) - is_nl  # newlines before each whitespace entry
    nwords = np.bincount(nl_before[term], minlength=n_lines)
    first_word = np.cumsum(nwords) - nwords
    blank = nwords == 0
    filled = ~blank
    fw = np.where(filled, first_word, 0)
    lw = np.where(filled, first_word + nwords - 1, 0)
    ncols = nwords
    tok_s, tok_e = w_start[fw], w_end[fw]
    k = o.tag_column
    j = k if k >= 0 else nwords + k
    ok_col = filled & (j >= 0) & (j < nwords)
    jw = np.where(ok_col, first_word + j, 0)
    tag_s, tag_e = w_start[jw], w_end[jw]

    is_tab = byte == 9 if o.delimiter != "space" else None
    if is_tab is not None and (o.delimiter == "tab" or is_tab.any()):
        tab_entry = np.flatnonzero(is_tab)
        tabs_before = np.cumsum(is_tab) - is_tab
        line_first_entry = np.empty_like(nl_entry)
        line_first_entry[:1] = 0
        line_first_entry[1:] = nl_entry[:-1] + 1
        t_lo = tabs_before[line_first_entry]
        ntabs = np.where(filled, tabs_before[term[lw]] - t_lo, 0)
        tab_mode = filled & (ntabs > 0) if o.delimiter == "auto" else filled
        rows = np.flatnonzero(tab_mode)
        if rows.shape[0]:
            wcum = np.zeros(pos.shape[0] + 1, dtype=INT)  # words ended at entries < e
            wcum[term + 1] = 1
            np.cumsum(wcum, out=wcum)
            tl, nt = t_lo[rows], ntabs[rows]
            nc = nt + 1
            tabs = tab_entry if tab_entry.shape[0] else np.zeros(1, dtype=INT)
            top = tabs.shape[0] - 1
            ncols = ncols.copy()
            ncols[rows] = nc
            tok_s, tok_e = tok_s.copy(), tok_e.copy()
            tok_s[rows] = line_start[rows]
            tok_e[rows] = np.where(nt > 0, pos[tabs[np.minimum(tl, top)]], w_end[lw[rows]])
            jj = k if k >= 0 else nc + k
            good = (jj >= 0) & (jj < nc)
            jj = np.where(good, jj, 0)
            # The field is between entry e_lo (a tab, or the newline before the line) and
            # entry e_hi (a tab, or the end of the line's last word); strip = its words.
            e_lo = np.where(jj > 0, tabs[np.clip(tl + jj - 1, 0, top)], line_first_entry[rows] - 1)
            e_hi = np.where(jj < nc - 1, tabs[np.clip(tl + jj, 0, top)], term[lw[rows]])
            first = wcum[e_lo + 1]
            last = wcum[e_hi + 1] - 1
            empty = first > last
            ok_col = ok_col.copy()
            ok_col[rows] = good
            tag_s, tag_e = tag_s.copy(), tag_e.copy()
            tag_s[rows] = np.where(empty, 0, w_start[np.minimum(first, w_start.shape[0] - 1)])
            tag_e[rows] = np.where(empty, 0, w_end[np.maximum(last, 0)])
    return _Lines(
        line_start, line_end, blank, ncols, tok_s, tok_e, tag_s, np.where(ok_col, tag_e - tag_s, 0)
    )


def _parse(
    chunk: bytes, first_line: int, o: _Options, buf: bytes | None = None, cut_short: bool = False
) -> tuple[ConllBlock, int]:
    """One chunk as a block. ``cut_short``: the file goes on past the chunk (and fails
    there), so a sentence still open at the chunk's end is never complete."""
    size = len(chunk)
    if buf is None:
        buf = chunk + _PAD
    arr = np.frombuffer(buf, dtype=np.uint8)
    pos = np.flatnonzero(arr[:size] <= 32)
    # (pos stays int64: numpy gathers with int64 indices directly and converts any other
    # index type first; as int32, ``arr[pos]`` and the gathers through pos took twice as long)
    byte = arr[pos]
    rows = _uniform_rows(arr, chunk, pos, byte, o)  # (sees any byte that is not a space)
    lines: _Lines | None = None
    if rows is not None:
        n_lines, tok_lines, tok_s, tok_n, ts, tl = rows
        malformed = tok_lines[:0]
        del pos, byte, rows  # (read no more: their memory goes to the arrays below)
    else:
        ws = _WS[byte]
        if not ws.all():
            pos, byte = pos[ws], byte[ws]
        if pos.shape[0] == size:  # nothing but whitespace
            return _empty_block(o, buf), chunk.count(b"\n")
        lines = _lines(arr, size, pos, byte, o)
        assert lines is not None
        n_lines = int(lines.start.shape[0])
        tok_lines, malformed = _token_lines(arr, chunk, lines, o)
        tok_s = lines.tok_start[tok_lines]
        tok_n = lines.tok_end[tok_lines] - tok_s
        ts, tl = lines.tag_start[tok_lines], lines.tag_len[tok_lines]
    new = np.ones(tok_lines.shape[0], dtype=bool)
    new[1:] = tok_lines[1:] - tok_lines[:-1] > 1
    sent_first = np.flatnonzero(new)
    open_end = malformed[0] if malformed.shape[0] else n_lines if cut_short else -1
    if tok_lines.shape[0] and tok_lines[-1] == open_end - 1:
        # A malformed line (or the end of a cut-short chunk) continues a sentence: that
        # sentence is never yielded, nor decoded.
        cut = int(sent_first[-1])
        tok_lines, tok_s, tok_n, ts, tl = (a[:cut] for a in (tok_lines, tok_s, tok_n, ts, tl))
        sent_first = sent_first[:-1]
    n_tok = int(tok_lines.shape[0])
    tok_off = np.append(sent_first, n_tok).astype(INT)
    lengths = np.diff(tok_off)
    sent_line = first_line + tok_lines[sent_first]
    del tok_lines, new  # (each array let go when read no more lowers the chunk's peak)

    codes = _prefix_codes(arr, ts, tl, o.scheme)
    labelled = np.flatnonzero(codes > 0)
    labels = np.zeros(n_tok, dtype=INT)
    names: list[str] = []
    if labelled.shape[0]:
        label_s, label_n = ts[labelled], tl[labelled]
        label_s += 2  # (in place: the label after the prefix and its "-")
        label_n -= 2
        ids, names = _intern(buf, label_s, label_n)
        labels[labelled] = ids
        del label_s, label_n, ids
    del labelled
    dec = decode_columns(codes, labels, lengths, scheme=o.scheme, repair=o.repair)
    valid = int(sent_first.shape[0])
    error: Callable[[], Exception] | None = None
    if dec.error is not None:
        valid = dec.error.sentence
        error = _replay(o, buf, tok_off, ts, tl, int(sent_line[valid]), valid)
    elif malformed.shape[0]:
        assert lines is not None  # (only the general path finds malformed lines)
        m = int(malformed[0])
        error = _malformed(o, buf, int(lines.start[m]), int(lines.end[m]), first_line + m)
    n = int(tok_off[valid])
    block = ConllBlock(
        o,
        buf,
        sent_line[:valid].astype(INT),
        tok_off[: valid + 1],
        tok_s[:n],
        tok_n[:n],
        ts[:n],
        tl[:n],
        *_spans_before(dec, valid),
        names,
        dec.repaired[:valid],
        error,
    )
    return block, n_lines


def _prefix_codes(arr, ts: np.ndarray, tl: np.ndarray, scheme: Scheme) -> np.ndarray:
    """The code of every tag ``arr[ts:ts + tl]``: 0 for ``O``, 1 + k for the scheme's k-th
    prefix followed by ``-`` and a label, -1 for anything else."""
    b0 = arr[ts]
    outside = (tl == 1) & (b0 == 79)
    codes = np.full(ts.shape[0], OUTSIDE_CODE, dtype=np.int8)
    rest = np.flatnonzero(~outside)
    if rest.shape[0]:
        good = (tl[rest] >= 3) & (arr[ts[rest] + 1] == 45)
        codes[rest] = np.where(good, scheme_tables(scheme).byte_code[b0[rest]], UNKNOWN_CODE)
    return codes


def _token_lines(arr, chunk: bytes, lines: _Lines, o: _Options) -> tuple[np.ndarray, np.ndarray]:
    """``(token lines, malformed lines)``: lines that are blank, ``-DOCSTART-`` or comments
    set aside; token lines stop at the first malformed line."""
    need = column_need(o.tag_column)
    boundary = lines.blank
    if _DOCSTART in chunk:
        tok_len = lines.tok_end - lines.tok_start
        maybe = np.flatnonzero(tok_len == len(_DOCSTART))
        boundary = boundary.copy()
        boundary[maybe[_equals(arr, lines.tok_start[maybe], _DOCSTART)]] = True
    content = ~boundary
    if o.comment:
        prefix = o.comment.encode("utf-8")
        if (arr[lines.start] == prefix[0]).any():
            content = _drop_comments(arr, lines, boundary, prefix, o.scheme, need)
    malformed = np.flatnonzero(content & (lines.ncols < need))
    limit = int(malformed[0]) if malformed.shape[0] else content.shape[0]
    return np.flatnonzero(content[:limit]), malformed


def _uniform_rows(arr, chunk: bytes, pos, byte, o: _Options):
    """The common layout, without looking at lines one by one: every line blank, or with the
    same number of single separators of one kind (tabs, or spaces), no empty column, no
    comment. ``None`` when the chunk is not so (the general path reads it).

    Returns ``(lines, token lines, token start, token length, tag start, tag length)``.
    """
    is_nl = byte == 10
    n_lines = int(np.count_nonzero(is_nl))
    sep = np.flatnonzero(~is_nl)
    if not sep.shape[0]:
        return None
    kind = int(byte[sep[0]])
    if (
        kind not in (9, 32)
        or (kind == 32 and o.delimiter == "tab")
        or int(np.count_nonzero(byte == kind)) != sep.shape[0]
    ):
        return None
    head = sep[:64]
    step = np.flatnonzero(head[1:] != head[:-1] + 1)
    k = int(step[0]) + 1 if step.shape[0] else head.shape[0]  # separators per line
    if k == head.shape[0] and k < sep.shape[0]:
        return None  # 64 columns or more
    if sep.shape[0] % k:
        return None
    rows = sep.reshape(-1, k)
    first, last = rows[:, 0], rows[:, -1]
    if k > 1 and not (rows[:, 1:] == rows[:, :-1] + 1).all():
        return None
    # (Arrays of a chunk's lines are made in place where one is no longer needed: each new
    # one is a pass over memory as well as the arithmetic.)
    start = pos[first - 1]  # the newline before each line (the first may start the chunk)
    start += 1
    if first[0] == 0:
        start[0] = 0
    elif not is_nl[first[0] - 1]:
        return None
    # Each row's separators end at a newline; so the next row starts after one: a row is a
    # line's separators, all of them.
    after = last + 1
    if not is_nl[after].all():
        return None
    end = pos[after]
    del after
    cuts = pos[rows]
    tok_len = cuts[:, 0] - start
    ncols = k + 1
    col = o.tag_column if o.tag_column >= 0 else ncols + o.tag_column
    if not (0 <= col < ncols) or ncols < column_need(o.tag_column):
        return None
    if not (
        (tok_len > 0).all()
        and (k == 1 or (cuts[:, 1:] > cuts[:, :-1] + 1).all())
        and (col == k or (end > cuts[:, -1] + 1).all())  # (col == k: tag_len, below)
    ):
        return None  # an empty column
    # Lines partition the chunk: every other line is blank iff the lengths add up.
    if int(end.sum()) - int(start.sum()) + n_lines != len(chunk):
        return None
    if col == 0:
        tag_start = start
    elif k == 1:  # (one column of separators: contiguous, and read no more)
        tag_start = cuts[:, 0]
        tag_start += 1
    else:
        tag_start = cuts[:, col - 1] + 1
    if col < k:
        tag_len = cuts[:, col] - tag_start
    else:  # the last column ends the line; ``end`` is read no more
        tag_len = end
        tag_len -= tag_start
    if not (tag_len > 0).all():
        return None  # an empty column
    lead = o.comment.encode("utf-8")[:1] if o.comment else b""
    if lead and lead in chunk and (arr[start] == lead[0]).any():  # (memchr first)
        return None
    line = np.arange(0, -first.shape[0] * k, -k)  # newlines before each row
    line += first
    doc = np.flatnonzero(tok_len == len(_DOCSTART))  # (cheaper than ``in chunk``)
    if doc.shape[0]:
        doc = doc[_equals(arr, start[doc], _DOCSTART)]
        if doc.shape[0]:
            keep = np.ones(first.shape[0], dtype=bool)
            keep[doc] = False
            line, start, tok_len, tag_start, tag_len = (
                a[keep] for a in (line, start, tok_len, tag_start, tag_len)
            )
    return n_lines, line, start, tok_len, tag_start, tag_len


def _drop_comments(
    arr, lines: _Lines, boundary, prefix: bytes, scheme: Scheme, need: int
) -> np.ndarray:
    """Content lines once comments are set aside: lines that start with ``prefix`` and do
    not read as token lines, where nothing but comments came since the last boundary."""
    n_lines = boundary.shape[0]
    cand = np.flatnonzero(~boundary)
    cand = cand[_equals(arr, lines.start[cand], prefix)]
    cand = cand[
        ~_looks_like_token(arr, scheme, cand, lines.ncols, need, lines.tag_start, lines.tag_len)
    ]
    comment = np.zeros(n_lines, dtype=bool)
    comment[cand] = True
    if cand.shape[0]:
        last_other = np.maximum.accumulate(np.where(~comment, np.arange(n_lines), -1))
        at = last_other[cand]
        real = (at < 0) | boundary[np.maximum(at, 0)]
        comment[cand[~real]] = False
    return ~boundary & ~comment


def _empty_block(o: _Options, buf: bytes) -> ConllBlock:
    block = _failed(o, lambda: InvalidInputError("unreachable"))
    block.error = None
    block.buf = buf
    return block


def _spans_before(
    dec: DecodedColumns, valid: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    stop = int(np.searchsorted(dec.sentence, valid))
    return dec.sentence[:stop], dec.start[:stop], dec.end[:stop], dec.label[:stop]


def _equals(arr: np.ndarray, starts: np.ndarray, needle: bytes) -> np.ndarray:
    """Whether the bytes at each of ``starts`` begin with ``needle``."""
    same = np.ones(starts.shape[0], dtype=bool)
    limit = arr.shape[0] - 1
    for i, b in enumerate(needle):
        same &= arr[np.minimum(starts + i, limit)] == b
    return same


def _looks_like_token(arr, scheme: Scheme, rows, ncols, need, tag_s, tag_len) -> np.ndarray:
    """The reference's ``_looks_like_token`` for lines ``rows``: enough columns, and a tag that
    is ``O`` or starts with one of the scheme's prefixes and ``-``."""
    ts, tl = tag_s[rows], tag_len[rows]
    b0 = arr[ts]
    tag_ok = ((tl == 1) & (b0 == 79)) | (
        (tl >= 2) & (arr[ts + 1] == 45) & (scheme_tables(scheme).byte_code[b0] > 0)
    )
    return (ncols[rows] >= need) & tag_ok


def _intern(buf: bytes, starts: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Ids for the byte strings ``buf[start:start + len]`` (equal strings, equal ids).

    Strings up to ``_WORD_BYTES`` long are keyed 8 bytes at a time, all at once; longer ones
    (rare) one by one as byte strings, so one very long string costs its length, not its
    length times the number of strings."""
    long = lens > _WORD_BYTES
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
    """:func:`_intern` for strings of at most ``_WORD_BYTES`` bytes."""
    u64 = np.ndarray(shape=(len(buf) - 7,), dtype="<u8", buffer=buf, strides=(1,))
    limit = u64.shape[0] - 1
    n_words = (int(lens.max()) + 7) // 8
    words = []
    for w in range(max(n_words, 1)):
        if w == 0:  # (every string starts inside its chunk, so inside the word view)
            word = u64[starts]
            word &= _LOW[np.minimum(lens, 8)]  # (in place, as below: a pass fewer each)
        else:
            word = u64[np.minimum(starts + 8 * w, limit)]
            word &= _LOW[np.clip(lens - 8 * w, 0, 8)]
        words.append(word)
    if n_words <= 1 and int(lens.max()) < 8:
        key = lens.astype(np.uint64)
        key <<= np.uint64(56)
        key |= words[0]
        uniq, ids = _unique_ids(key)
    else:
        key = lens.astype(np.uint64)
        for word in words:  # a hash: checked below, exact by construction when it is not
            key = key * np.uint64(0x9E3779B97F4A7C15) ^ word
        uniq, ids = _unique_ids(key)
        rep = np.empty(uniq.shape[0], dtype=INT)
        rep[ids] = np.arange(ids.shape[0])
        if not all((w == w[rep][ids]).all() for w in (*words, lens)):
            table = np.stack([*(w.view(np.int64) for w in words), lens.astype(np.int64)], 1)
            _, ids = np.unique(table, axis=0, return_inverse=True)
            ids = ids.reshape(-1)
    rep = np.empty(int(ids.max()) + 1, dtype=INT)
    rep[ids] = np.arange(ids.shape[0])
    names = [
        buf[s : s + n].decode("utf-8")
        for s, n in zip(starts[rep].tolist(), lens[rep].tolist(), strict=True)
    ]
    return ids.astype(INT), names


def _unique_ids(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted distinct keys, index of each key among them)``; cheap when few are distinct."""
    uniq = _distinct(key[:4096])
    ids = _few_ids(uniq, key)
    if ids is None:
        ids = np.minimum(np.searchsorted(uniq, key), uniq.shape[0] - 1)
    miss = uniq[ids] != key
    if miss.any():
        uniq = _distinct(np.concatenate([uniq, key[miss]]))
        ids = np.searchsorted(uniq, key)
    return uniq, ids


def _few_ids(uniq: np.ndarray, key: np.ndarray) -> np.ndarray | None:
    """The index in ``uniq`` of each key, for the keys that are in it (any index for the
    others), through a table of 64 slots; ``None`` when ``uniq`` has too many keys for one.

    A label set is a handful of keys: a multiply and a shift put each in a slot of its own
    (one of a few multipliers does), where a binary search per key (``np.searchsorted``)
    took three times as long (0.83 ms against 0.27 ms for the labels of a 2 MB chunk)."""
    if uniq.shape[0] > _FEW:
        return None
    shift = np.uint64(64 - _SLOT_BITS)
    for mult in _MULTIPLIERS:
        slot = ((uniq * mult) >> shift).view(np.int64)  # (wraps around: a hash)
        if _distinct(slot).shape[0] == uniq.shape[0]:
            table = np.zeros(1 << _SLOT_BITS, dtype=np.int64)
            table[slot] = np.arange(uniq.shape[0])
            return table[((key * mult) >> shift).view(np.int64)]
    return None


_FEW, _SLOT_BITS = 16, 6
_MULTIPLIERS = tuple(
    np.uint64(m) for m in (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9)
)


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted. (``np.unique`` would do, but numpy 2 imports
    ``numpy.ma`` on its first call: 8 ms of every command's start.)"""
    values = np.sort(values)
    keep = np.ones(values.shape[0], dtype=bool)
    keep[1:] = values[1:] != values[:-1]
    return values[keep]


def _replay(
    o: _Options, buf: bytes, tok_off, ts, tl, line0: int, s: int
) -> Callable[[], Exception]:
    """The reference decoder's own error for sentence ``s``."""

    def error() -> Exception:
        lo, hi = int(tok_off[s]), int(tok_off[s + 1])
        tags = [
            buf[a : a + n].decode("utf-8")
            for a, n in zip(ts[lo:hi].tolist(), tl[lo:hi].tolist(), strict=True)
        ]
        try:
            decode(
                tags,
                scheme=o.scheme,
                repair=o.repair,  # type: ignore[arg-type]
                context=lambda i: f"{o.path} line {line0 + i}",
            )
        except InvalidInputError as exc:
            return exc
        raise AssertionError(
            f"{o.path} line {line0}: the columnar decoder found an error "
            "that the reference decoder does not"
        )  # pragma: no cover

    return error


def _malformed(o: _Options, buf: bytes, start: int, end: int, n: int) -> Callable[[], Exception]:
    def error() -> Exception:
        line = buf[start:end].decode("utf-8").rstrip()
        cols = splitter(o.delimiter)(line)
        return malformed_line(o.path, n, line, cols, column_need(o.tag_column), o.tag_column)

    return error


def _parse_reference(
    text: str, first_line: int, o: _Options, cut_short: bool = False
) -> tuple[ConllBlock, int]:
    """A chunk read by the reference line loop (it holds whitespace only Python splits on);
    ``cut_short`` as for :func:`_parse`."""
    records: list[Record] = []
    error: Callable[[], Exception] | None = None
    ended = []

    def lines() -> Iterator[str]:
        yield from io.StringIO(text)
        ended.append(True)  # what is flushed from here on was open at the chunk's end

    try:
        for record in records_from_lines(
            lines(),
            path=o.path,
            scheme=o.scheme,
            repair=o.repair,
            split=splitter(o.delimiter),
            tag_column=o.tag_column,
            comment=o.comment,
            first_line=first_line,
        ):
            if cut_short and ended:
                break
            records.append(record)
    except InvalidInputError as exc:
        if not (cut_short and ended):
            error = _raise_as(exc)
    pieces: list[bytes] = []
    tok_start: list[int] = []
    tok_len: list[int] = []
    spans: list[tuple[int, int, int, str]] = []
    at = 0
    for s, r in enumerate(records):
        assert r.tokens is not None
        for tok in r.tokens:
            b = tok.encode("utf-8")
            pieces.append(b + b"\n")
            tok_start.append(at)
            tok_len.append(len(b))
            at += len(b) + 1
        spans.extend((s, x.start, x.end, x.label) for x in r.spans)
    names: dict[str, int] = {}
    label_ids = [names.setdefault(x[3], len(names)) for x in spans]
    sent_line = [int(r.key.rsplit(":", 1)[1]) for r in records]
    lengths = [len(r.tokens or ()) for r in records]
    z = np.zeros(len(tok_start), dtype=INT)
    span_sent, span_start, span_end = (np.array([x[i] for x in spans], dtype=INT) for i in range(3))
    block = ConllBlock(
        o,
        b"".join(pieces) + _PAD,
        np.array(sent_line, dtype=INT),
        np.append(0, np.cumsum(lengths)).astype(INT),
        np.array(tok_start, dtype=INT),
        np.array(tok_len, dtype=INT),
        z,
        z,
        span_sent,
        span_start,
        span_end,
        np.array(label_ids, dtype=INT),
        list(names),
        np.array([r.repaired for r in records], dtype=INT),
        error,
    )
    return block, text.count("\n")


def _raise_as(exc: Exception) -> Callable[[], Exception]:
    return lambda: exc


# -- pairing two files ----------------------------------------------------------------------


class _BlockOptions(TypedDict):
    """The options of :func:`conll_blocks` that both files of a pair are read with."""

    scheme: str | Scheme
    repair: str
    delimiter: str
    comment: str | None
    chunk_bytes: int


def conll_pair_batches(
    gold: Path | str,
    pred: Path | str,
    *,
    scheme: str | Scheme = "IOB2",
    repair: str = "conlleval",
    gold_tag_column: int = -1,
    pred_tag_column: int = -1,
    delimiter: str = "auto",
    comment: str | None = "#",
    unit: str = "token",
    gold_info: SideInfo | None = None,
    pred_info: SideInfo | None = None,
    batch_sentences: int = BATCH_SENTENCES,
    chunk_bytes: int = CHUNK_BYTES,
    parts: RangePair | None = None,
    align: str = "text",
) -> Iterator[SpanBatch]:
    """Columnar batches of a gold and a predicted CoNLL file, paired by position.

    Same documents, spans, counts and errors as ``documents(pair_records(read_conll(gold),
    read_conll(pred)), unit=unit, align=align)``; ``gold_info``/``pred_info`` are filled in
    the same way. ``align="position"``: the tokens of each sentence pair by position, their
    strings may differ (counted in ``pred_info.alignment``, see :mod:`.align`).

    ``parts``: read only those ranges of the two files (:func:`.ranges.plan_ranges`), their
    sentences paired with each other: a worker's share. Messages that number sentences then
    count from the ranges' starts, and an empty range is no error.
    """
    if unit not in ("token", "char"):
        raise ValueError(f"unit must be 'token' or 'char', not {unit!r}")
    differences = differences_for(align, pred_info)
    options: _BlockOptions = {
        "scheme": scheme,
        "repair": repair,
        "delimiter": delimiter,
        "comment": comment,
        "chunk_bytes": chunk_bytes,
    }
    # (Reading the two files in two threads was tried: the numpy calls on a chunk are too
    # short to overlap under the GIL, and it cost a quarter more CPU for no gain in time.)
    g = Side(
        conll_blocks(
            gold, tag_column=gold_tag_column, part=None if parts is None else parts.gold, **options
        )
    )
    p = Side(
        conll_blocks(
            pred, tag_column=pred_tag_column, part=None if parts is None else parts.pred, **options
        )
    )
    done = 0
    for gb, glo, ghi, pb, plo, phi in aligned(
        g, p, gold_name=str(gold), pred_name=str(pred), where=_where, most=batch_sentences
    ):
        batch = _batch(gb, glo, ghi, pb, plo, phi, unit, done, differences)
        for info, block, lo, hi, cols in (
            (gold_info, gb, glo, ghi, batch.gold),
            (pred_info, pb, plo, phi, batch.pred),
        ):
            if info is not None:
                info.documents += hi - lo
                info.spans += len(cols)
                info.repaired += int(block.repaired[lo:hi].sum())
        done += ghi - glo
        yield batch


def _where(block: ConllBlock, j: int) -> str:
    return f"{block.opts.path} line {int(block.sent_line[j])}"


def _batch(
    g: ConllBlock,
    glo: int,
    ghi: int,
    p: ConllBlock,
    plo: int,
    phi: int,
    unit: str,
    done: int,
    differences: TokenDifferences | None = None,
) -> SpanBatch:
    """The batch of gold sentences ``glo:ghi`` and predicted ``plo:phi`` (``done``: the
    sentences paired before them). ``differences``: pair tokens by position, counting the
    differing ones there; the predicted spans then sit on the gold tokens."""
    n = ghi - glo
    bad = _differing_sentences(g, glo, ghi, p, plo, phi)
    if differences is not None:
        if bad.shape[0]:
            _count_differences(g, glo, p, plo, bad, done, differences)
        bad = bad[:0]
    for j in bad.tolist():
        gr, pr = g.record(glo + j), p.record(plo + j)
        if unit == "token" or gr.char_text() != pr.char_text():
            to_document(gr, pr, index=done + j + 1, unit=unit)  # raises the reference's error
            raise AssertionError("tokens differ but the reference pairs them")  # pragma: no cover
    names = list(g.labels)
    known = {name: i for i, name in enumerate(names)}
    remap = np.array([known.setdefault(name, len(known)) for name in p.labels], dtype=INT)
    names = list(known)
    gold = _side_columns(g, glo, ghi, unit, None)
    pred = _side_columns(p, plo, phi, unit, remap, None if differences is None else (g, glo))
    ntok = np.diff(g.tok_off[glo : ghi + 1])
    if unit == "token":
        lengths = ntok
        texts, tokens = None, _Tokens(g, glo, ghi)
    else:
        chars = g.char_lengths()
        per = (
            np.add.reduceat(
                chars[g.tok_off[glo] : g.tok_off[ghi]], g.tok_off[glo:ghi] - g.tok_off[glo]
            )
            if n
            else np.zeros(0, dtype=INT)
        )
        lengths = np.where(ntok > 0, per + ntok - 1, 0)
        texts, tokens = _Texts(g, glo, ghi), None
    return SpanBatch(
        doc_ids=_Keys(g.opts.name, g.sent_line[glo:ghi]),
        lengths=lengths.astype(INT),
        gold=gold,
        pred=pred,
        labels=names,
        texts=texts,
        tokens=tokens,
    )


def _side_columns(
    b: ConllBlock,
    lo: int,
    hi: int,
    unit: str,
    remap: np.ndarray | None,
    tokens: tuple[ConllBlock, int] | None = None,
) -> SpanColumns:
    """The spans of ``b``'s sentences ``lo:hi``; in char unit measured on the tokens of
    ``tokens`` (a block and its sentence matching ``lo``, sentences of the same lengths;
    ``None``: ``b``'s own)."""
    a, z = np.searchsorted(b.span_sent, [lo, hi])
    doc = b.span_sent[a:z] - lo
    start, end = b.span_start[a:z], b.span_end[a:z]
    label = b.span_label[a:z] if remap is None else remap[b.span_label[a:z]]
    if unit == "char":
        t, tlo = (b, lo) if tokens is None else tokens
        chars = t.char_lengths()
        offsets = t.tok_off[tlo : tlo + hi - lo]
        first_tok = offsets[doc]
        # Character offset of every token in its sentence: tokens joined by single spaces.
        width = chars + 1
        at = np.zeros(width.shape[0] + 1, dtype=INT)
        np.cumsum(width, out=at[1:])
        base = at[offsets][doc]
        s_tok, e_tok = first_tok + start, first_tok + end - 1
        start = at[s_tok] - base
        end = at[e_tok] - base + chars[e_tok]
    counts = np.bincount(doc, minlength=hi - lo)
    item = np.arange(doc.shape[0], dtype=INT) - np.repeat(np.cumsum(counts) - counts, counts)
    return SpanColumns(doc.astype(INT), start.astype(INT), end.astype(INT), label.astype(INT), item)


def _differing_sentences(
    g: ConllBlock, glo: int, ghi: int, p: ConllBlock, plo: int, phi: int
) -> np.ndarray:
    """Sentences (relative to ``glo``/``plo``) whose tokens differ between the two files,
    compared as 8-byte words, all at once."""
    gn = np.diff(g.tok_off[glo : ghi + 1])
    pn = np.diff(p.tok_off[plo : phi + 1])
    if (gn == pn).all():  # the usual case: token ranges line up one to one
        gt0, pt0 = int(g.tok_off[glo]), int(p.tok_off[plo])
        n = int(g.tok_off[ghi]) - gt0
        gl, pl = g.tok_len[gt0 : gt0 + n], p.tok_len[pt0 : pt0 + n]
        gs, ps = g.tok_start[gt0 : gt0 + n], p.tok_start[pt0 : pt0 + n]
        bad_tok = _differing_tokens(g, gs, gl, p, ps, pl)
        if not bad_tok.shape[0]:
            return bad_tok
        tok_first = g.tok_off[glo:ghi] - gt0
        return np.unique(np.searchsorted(tok_first, bad_tok, side="right") - 1)
    differ = gn != pn
    same = ~differ
    gt = np.repeat(g.tok_off[glo:ghi][same], gn[same]) + _within(gn[same])
    pt = np.repeat(p.tok_off[plo:phi][same], pn[same]) + _within(pn[same])
    sent = np.repeat(np.flatnonzero(same), gn[same])
    bad_tok = _differing_tokens(
        g, g.tok_start[gt], g.tok_len[gt], p, p.tok_start[pt], p.tok_len[pt]
    )
    differ[sent[bad_tok]] = True
    return np.flatnonzero(differ)


def _count_differences(
    g: ConllBlock,
    glo: int,
    p: ConllBlock,
    plo: int,
    bad: np.ndarray,
    done: int,
    differences: TokenDifferences,
) -> None:
    """Pair the tokens of sentences ``bad`` (relative to ``glo``/``plo``, whose tokens
    differ) by position, as :func:`.align.align_by_position` does for each: a sentence of
    different lengths is its error, else the differing tokens are counted in
    ``differences`` and the first few named."""
    gn = g.tok_off[glo + bad + 1] - g.tok_off[glo + bad]
    pn = p.tok_off[plo + bad + 1] - p.tok_off[plo + bad]
    uneven = np.flatnonzero(gn != pn)
    if uneven.shape[0]:
        j = int(bad[uneven[0]])
        align_by_position(
            g.record(glo + j), p.record(plo + j), index=done + j + 1, differences=TokenDifferences()
        )  # raises the reference's error
        raise AssertionError("lengths differ but the reference pairs them")  # pragma: no cover
    within = _within(gn)
    gt = np.repeat(g.tok_off[glo + bad], gn) + within
    pt = np.repeat(p.tok_off[plo + bad], gn) + within
    tok = _differing_tokens(g, g.tok_start[gt], g.tok_len[gt], p, p.tok_start[pt], p.tok_len[pt])
    differences.tokens += int(tok.shape[0])
    differences.sentences += int(bad.shape[0])
    room = differences.limit - len(differences.examples)
    if room > 0:
        sentence = np.repeat(bad, gn)
        for k in tok[:room].tolist():
            j, i = int(sentence[k]), int(within[k])
            differences.examples.append(
                difference_example(
                    _where(g, glo + j),
                    _where(p, plo + j),
                    i,
                    _token(g, int(gt[k])),
                    _token(p, int(pt[k])),
                )
            )


def _token(block: ConllBlock, t: int) -> str:
    """Token ``t`` of a block, as a string."""
    start = int(block.tok_start[t])
    return block.buf[start : start + int(block.tok_len[t])].decode("utf-8")


def _within(counts: np.ndarray) -> np.ndarray:
    """0, 1, ... counts[0] - 1, 0, 1, ... for each count."""
    return np.arange(int(counts.sum()), dtype=INT) - np.repeat(np.cumsum(counts) - counts, counts)


def _differing_tokens(g: ConllBlock, gs, gl, p: ConllBlock, ps, pl) -> np.ndarray:
    """Indices of the tokens whose bytes differ (token ``i`` is ``gs[i]:gs[i] + gl[i]`` in
    ``g``'s chunk and ``ps[i]:ps[i] + pl[i]`` in ``p``'s).

    The first ``_WORD_BYTES`` bytes are compared 8 at a time for all tokens at once; the few
    tokens still equal past that are compared as byte strings, so the time stays linear in
    the bytes however long one token is."""
    bad = gl != pl
    gu, pu = g.u64(), p.u64()
    glim, plim = gu.shape[0] - 1, pu.shape[0] - 1
    longest = int(gl.max()) if gl.shape[0] else 0
    for w in range(0, min(longest, _WORD_BYTES), 8):
        if w == 0:  # every token starts inside its chunk, so inside the word view
            diff = gu[gs]  # (in place from here: a new array each step is a pass more)
            diff ^= pu[ps]
            diff &= _LOW[gl if longest <= 8 else np.minimum(gl, 8)]
            bad |= diff != 0
            del diff
            continue
        rows = np.flatnonzero(~bad & (gl > w))
        if not rows.shape[0]:
            break
        mask = _LOW[np.minimum(gl[rows] - w, 8)]
        diff = (gu[np.minimum(gs[rows] + w, glim)] ^ pu[np.minimum(ps[rows] + w, plim)]) & mask
        bad[rows[diff != 0]] = True
    if longest > _WORD_BYTES:
        gbuf, pbuf = memoryview(g.buf), memoryview(p.buf)
        rows = np.flatnonzero(~bad & (gl > _WORD_BYTES))
        for i, a, b, n in zip(
            rows.tolist(), gs[rows].tolist(), ps[rows].tolist(), gl[rows].tolist(), strict=True
        ):
            if gbuf[a : a + n] != pbuf[b : b + n]:
                bad[i] = True
    return np.flatnonzero(bad)


_WORD_BYTES = 64  # bytes of a token compared as words; the rest as byte strings


class _Keys(Sequence[str]):
    """Document ids of a batch, made when asked for: ``"<gold file name>:<line>"``."""

    def __init__(self, name: str, lines: np.ndarray) -> None:
        self.name, self.lines = name, lines

    def __len__(self) -> int:
        return int(self.lines.shape[0])

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [f"{self.name}:{x}" for x in self.lines[i].tolist()]
        return f"{self.name}:{int(self.lines[i])}"

    def __iter__(self) -> Iterator[str]:
        name = self.name
        return (f"{name}:{x}" for x in self.lines.tolist())


_Row = TypeVar("_Row")


class _Sentences(Sequence[_Row]):
    """Sentences ``lo:hi`` of a block, each made by :meth:`_row` when asked for."""

    def __init__(self, block: ConllBlock, lo: int, hi: int) -> None:
        self.block, self.lo, self.hi = block, lo, hi

    def __len__(self) -> int:
        return self.hi - self.lo

    @abstractmethod
    def _row(self, j: int) -> _Row:
        """Sentence ``j`` of the block."""

    @overload
    def __getitem__(self, d: int) -> _Row: ...
    @overload
    def __getitem__(self, d: slice) -> list[_Row]: ...
    def __getitem__(self, d: int | slice) -> _Row | list[_Row]:
        if isinstance(d, slice):
            return [self[i] for i in range(*d.indices(len(self)))]
        if not -len(self) <= d < len(self):
            raise IndexError(d)
        return self._row(self.lo + (d % len(self)))


class _Tokens(_Sentences[tuple[str, ...]]):
    """Token strings of a batch's sentences, decoded when an error record needs them."""

    def _row(self, j: int) -> tuple[str, ...]:
        return self.block.tokens(j)


class _Texts(_Sentences[str]):
    """The char-unit text of a batch's sentences: tokens joined by single spaces."""

    def _row(self, j: int) -> str:
        return " ".join(self.block.tokens(j))
