"""The token lines of a CoNLL chunk in any layout the reference reader accepts, split as its
``str.split`` splits them: runs of whitespace, leading and trailing whitespace, tabs and spaces
mixed, blank lines, ``-DOCSTART-`` lines, comment lines and malformed lines, all found by
vectorized rules over the positions of the chunk's whitespace bytes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine.columns import INT
from .conll import DOCSTART, column_need
from .conll_block import ConllOptions, TokenRows, tags_of
from .conll_bytes import equals
from .schemes import Scheme
from .schemes_columns import scheme_tables

__all__ = ["general_rows"]

# ASCII whitespace as str.split/str.strip see it; every one is a byte <= 32.
_WS = np.zeros(256, dtype=bool)
_WS[list(b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")] = True
_DOCSTART = DOCSTART.encode("ascii")


@dataclass
class _Lines:
    """Every line of a chunk: its span, and its token and tag fields as byte ranges.

    ``tag_len`` is 0 where the line has no column ``tag_column``.
    """

    start: np.ndarray
    blank: np.ndarray
    ncols: np.ndarray
    tok_start: np.ndarray
    tok_end: np.ndarray
    tag_start: np.ndarray
    tag_len: np.ndarray


def general_rows(
    arr: np.ndarray, chunk: bytes, pos: np.ndarray, byte: np.ndarray, o: ConllOptions
) -> TokenRows | None:
    """The token lines of a chunk (``None``: it is nothing but whitespace). ``pos``: the
    positions of the chunk's bytes up to 32, ``byte``: those bytes."""
    ws = _WS[byte]
    if not ws.all():
        pos, byte = pos[ws], byte[ws]
    if pos.shape[0] == len(chunk):
        return None
    lines = _lines(pos, byte, o)
    tok_lines, malformed, docstarts = _token_lines(arr, chunk, lines, o)
    tok_s = lines.tok_start[tok_lines]
    return TokenRows(
        int(lines.start.shape[0]),
        tok_lines,
        tok_s,
        lines.tok_end[tok_lines] - tok_s,
        lines.tag_start[tok_lines],
        lines.tag_len[tok_lines],
        int(malformed[0]) if malformed.shape[0] else None,
        docstarts,
    )


def _lines(pos: np.ndarray, byte: np.ndarray, o: ConllOptions) -> _Lines:
    """Split every line as the reference does: into words (runs of non-whitespace bytes),
    then the lines that split on tabs (``auto``: where the stripped line has a tab) into tab
    fields. ``pos``: the positions of the chunk's whitespace bytes, ``byte``: those bytes."""
    is_nl = byte == 10
    nl_entry = np.flatnonzero(is_nl)  # index into pos of every newline
    line_end = pos[nl_entry]
    line_start = np.concatenate(([0], line_end[:-1] + 1))
    term, w_start, w_end, ncols = _words(pos, is_nl, nl_entry.shape[0])
    first_word = np.cumsum(ncols) - ncols
    blank = ncols == 0
    filled = ~blank
    fw = np.where(filled, first_word, 0)
    lw = np.where(filled, first_word + ncols - 1, 0)
    k = o.tag_column
    j = k if k >= 0 else ncols + k
    ok_col = filled & (j >= 0) & (j < ncols)
    jw = np.where(ok_col, first_word + j, 0)
    tok_s, tok_e, tag_s, tag_e = w_start[fw], w_end[fw], w_start[jw], w_end[jw]
    is_tab = byte == 9
    if o.delimiter == "tab" or (o.delimiter == "auto" and is_tab.any()):
        line_first = np.concatenate(([0], nl_entry[:-1] + 1))  # each line's first entry
        tabs_before = np.cumsum(is_tab) - is_tab
        t_lo = tabs_before[line_first]
        ntabs = np.where(filled, tabs_before[term[lw]] - t_lo, 0)
        rows = np.flatnonzero(filled & (ntabs > 0) if o.delimiter == "auto" else filled)
        if rows.shape[0]:
            tabs = np.flatnonzero(is_tab)
            tabs = tabs if tabs.shape[0] else np.zeros(1, dtype=INT)
            tl, nt, top = t_lo[rows], ntabs[rows], tabs.shape[0] - 1
            nc = nt + 1
            ncols[rows] = nc
            tok_s[rows] = line_start[rows]
            tok_e[rows] = np.where(nt > 0, pos[tabs[np.minimum(tl, top)]], w_end[lw[rows]])
            jj = k if k >= 0 else nc + k
            good = (jj >= 0) & (jj < nc)
            jj = np.where(good, jj, 0)
            # The field is between entry e_lo (a tab, or the newline before the line) and
            # entry e_hi (a tab, or the end of the line's last word); strip = its words.
            e_lo = np.where(jj > 0, tabs[np.clip(tl + jj - 1, 0, top)], line_first[rows] - 1)
            e_hi = np.where(jj < nc - 1, tabs[np.clip(tl + jj, 0, top)], term[lw[rows]])
            wcum = np.zeros(pos.shape[0] + 1, dtype=INT)  # words ended at entries < e
            wcum[term + 1] = 1
            np.cumsum(wcum, out=wcum)
            first, last = wcum[e_lo + 1], wcum[e_hi + 1] - 1
            empty = first > last
            ok_col[rows] = good
            tag_s[rows] = np.where(empty, 0, w_start[np.minimum(first, w_start.shape[0] - 1)])
            tag_e[rows] = np.where(empty, 0, w_end[np.maximum(last, 0)])
    tag_len = np.where(ok_col, tag_e - tag_s, 0)
    return _Lines(line_start, blank, ncols, tok_s, tok_e, tag_s, tag_len)


def _words(
    pos: np.ndarray, is_nl: np.ndarray, n_lines: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The words of the lines (runs of non-whitespace bytes): the whitespace entry that ends
    each, where each starts and ends, and how many each line has."""
    before = np.empty_like(pos)
    before[:1] = -1
    before[1:] = pos[:-1]
    term = np.flatnonzero(pos - before > 1)
    nl_before = np.cumsum(is_nl) - is_nl  # newlines before each whitespace entry
    return term, before[term] + 1, pos[term], np.bincount(nl_before[term], minlength=n_lines)


def _token_lines(
    arr: np.ndarray, chunk: bytes, lines: _Lines, o: ConllOptions
) -> tuple[np.ndarray, np.ndarray, tuple[str | None, ...]]:
    """``(token lines, malformed lines, the -DOCSTART- lines' tags)``: lines that are blank,
    ``-DOCSTART-`` or comments set aside; token lines stop at the first malformed line."""
    need = column_need(o.tag_column)
    boundary = lines.blank
    docstarts: tuple[str | None, ...] = ()
    if _DOCSTART in chunk:
        tok_len = lines.tok_end - lines.tok_start
        # (not the blank lines: their token fields are the chunk's first word's)
        maybe = np.flatnonzero((tok_len == len(_DOCSTART)) & ~boundary)
        doc = maybe[equals(arr, lines.tok_start[maybe], _DOCSTART)]
        boundary = boundary.copy()
        boundary[doc] = True
        tag_len = np.where(lines.ncols[doc] < need, -1, lines.tag_len[doc])
        docstarts = tags_of(chunk, lines.tag_start[doc], tag_len)
    content = ~boundary
    if o.comment:
        prefix = o.comment.encode("utf-8")
        if (arr[lines.start] == prefix[0]).any():
            content = _drop_comments(arr, lines, boundary, prefix, o.scheme, need)
    malformed = np.flatnonzero(content & (lines.ncols < need))
    limit = int(malformed[0]) if malformed.shape[0] else content.shape[0]
    return np.flatnonzero(content[:limit]), malformed, docstarts


def _drop_comments(
    arr: np.ndarray, lines: _Lines, boundary: np.ndarray, prefix: bytes, scheme: Scheme, need: int
) -> np.ndarray:
    """Content lines once comments are set aside: lines that start with ``prefix`` and do
    not read as token lines, where nothing but comments came since the last boundary."""
    n_lines = boundary.shape[0]
    cand = np.flatnonzero(~boundary)
    cand = cand[equals(arr, lines.start[cand], prefix)]
    ts, tl = lines.tag_start[cand], lines.tag_len[cand]
    b0 = arr[ts]
    # The reference's _looks_like_token: enough columns, and a tag that is ``O`` or starts
    # with one of the scheme's prefixes and ``-``.
    tag_ok = ((tl == 1) & (b0 == 79)) | (
        (tl >= 2) & (arr[ts + 1] == 45) & (scheme_tables(scheme).byte_code[b0] > 0)
    )
    cand = cand[~((lines.ncols[cand] >= need) & tag_ok)]
    comment = np.zeros(n_lines, dtype=bool)
    comment[cand] = True
    if cand.shape[0]:
        last_other = np.maximum.accumulate(np.where(~comment, np.arange(n_lines), -1))
        at = last_other[cand]
        real = (at < 0) | boundary[np.maximum(at, 0)]
        comment[cand[~real]] = False
    return ~boundary & ~comment
