"""The token lines of a CoNLL chunk in the common layout, found without looking at lines one
by one: every line blank, or with the same number of single separators of one kind (tabs, or
spaces), no empty column, no comment. Anything else is left to :mod:`.conll_general`.

Arrays of a chunk's lines are changed in place where the old values are read no more: each
new array would be one more pass over memory.
"""

from __future__ import annotations

import numpy as np

from .conll import DOCSTART, column_need
from .conll_block import ConllOptions, TokenRows, tags_of
from .conll_bytes import equals

__all__ = ["uniform_rows"]

_DOCSTART = DOCSTART.encode("ascii")
_MAX_SEPARATORS = 64  # per line: more columns than that are left to the general parser


def uniform_rows(
    arr: np.ndarray, chunk: bytes, pos: np.ndarray, byte: np.ndarray, o: ConllOptions
) -> TokenRows | None:
    """The token lines of a chunk in the common layout, or ``None`` where it is not so.
    ``pos``: the positions of the chunk's bytes up to 32, ``byte``: those bytes."""
    is_nl = byte == 10
    rows = _separator_rows(byte, is_nl, o.delimiter)
    if rows is None:
        return None
    bounds = _line_bounds(pos, is_nl, rows)
    if bounds is None:
        return None
    start, end = bounds
    n_lines = int(np.count_nonzero(is_nl))
    # Lines partition the chunk: every other line is blank iff the lengths add up.
    if int(end.sum()) - int(start.sum()) + n_lines != len(chunk):
        return None
    fields = _fields(pos[rows], start, end, o.tag_column)
    if fields is None:
        return None
    tok_len, tag_start, tag_len = fields
    lead = o.comment.encode("utf-8")[:1] if o.comment else b""
    if lead and lead in chunk and (arr[start] == lead[0]).any():  # (memchr first)
        return None
    k = rows.shape[1]
    line = np.arange(0, -rows.shape[0] * k, -k)  # newlines before each row
    line += rows[:, 0]
    doc = np.flatnonzero(tok_len == len(_DOCSTART))  # (cheaper than ``in chunk``)
    docstarts: tuple[str | None, ...] = ()
    if doc.shape[0]:
        doc = doc[equals(arr, start[doc], _DOCSTART)]
        if doc.shape[0]:
            docstarts = tags_of(chunk, tag_start[doc], tag_len[doc])
            keep = np.ones(rows.shape[0], dtype=bool)
            keep[doc] = False
            line, start, tok_len, tag_start, tag_len = (
                a[keep] for a in (line, start, tok_len, tag_start, tag_len)
            )
    return TokenRows(n_lines, line, start, tok_len, tag_start, tag_len, None, docstarts)


def _separator_rows(byte: np.ndarray, is_nl: np.ndarray, delimiter: str) -> np.ndarray | None:
    """The whitespace entries of the separators, a row per token line: all of one kind, the
    same number on every line, next to each other in the entries (single separators)."""
    sep = np.flatnonzero(~is_nl)
    if not sep.shape[0]:
        return None
    kind = int(byte[sep[0]])
    if (
        kind not in (9, 32)
        or (kind == 32 and delimiter == "tab")
        or int(np.count_nonzero(byte == kind)) != sep.shape[0]
    ):
        return None
    head = sep[:_MAX_SEPARATORS]
    step = np.flatnonzero(head[1:] != head[:-1] + 1)
    k = int(step[0]) + 1 if step.shape[0] else head.shape[0]  # separators per line
    if (k == head.shape[0] and k < sep.shape[0]) or sep.shape[0] % k:
        return None
    rows = sep.reshape(-1, k)
    if k > 1 and not (rows[:, 1:] == rows[:, :-1] + 1).all():
        return None
    return rows


def _line_bounds(
    pos: np.ndarray, is_nl: np.ndarray, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(start, end)`` of each row's line, the end being its newline; ``None`` where a row
    is not a whole line's separators."""
    first = rows[:, 0]
    start = pos[first - 1]  # the newline before each line (the first may start the chunk)
    start += 1
    if first[0] == 0:
        start[0] = 0
    elif not is_nl[first[0] - 1]:
        return None
    # Each row's separators end at a newline; so the next row starts after one.
    after = rows[:, -1] + 1
    if not is_nl[after].all():
        return None
    return start, pos[after]


def _fields(
    cuts: np.ndarray, start: np.ndarray, end: np.ndarray, tag_column: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(token length, tag start, tag length)`` of each line, cut at the separators
    ``cuts`` (a row per line); ``None`` where a column is empty or missing. ``cuts`` and
    ``end`` are read no more: their memory is reused."""
    k = cuts.shape[1]
    tok_len = cuts[:, 0] - start
    ncols = k + 1
    col = tag_column if tag_column >= 0 else ncols + tag_column
    if not (0 <= col < ncols) or ncols < column_need(tag_column):
        return None
    if not (
        (tok_len > 0).all()
        and (k == 1 or (cuts[:, 1:] > cuts[:, :-1] + 1).all())
        and (col == k or (end > cuts[:, -1] + 1).all())  # (col == k: tag_len, below)
    ):
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
    else:  # the last column ends the line
        tag_len = end
        tag_len -= tag_start
    if not (tag_len > 0).all():
        return None
    return tok_len, tag_start, tag_len
