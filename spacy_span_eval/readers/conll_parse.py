"""One CoNLL chunk as a :class:`~.conll_block.ConllBlock`: its token lines (found by
:mod:`.conll_uniform`, else :mod:`.conll_general`), cut into sentences, the tags decoded by
:func:`.schemes_columns.decode_columns`.

Anything that would raise in the reference reader (a malformed line, an unknown tag, an
ill-formed chunk under ``repair="error"``) is located by the arrays, and that one sentence or
line is then replayed through the reference code, so messages are the reference's own.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from ..engine.columns import INT
from ..errors import InvalidInputError
from .base import not_utf8
from .conll import records_from_lines, splitter
from .conll_block import ConllBlock, ConllOptions, TokenRows
from .conll_bytes import PAD, ascii_spaces, intern
from .conll_general import general_rows
from .conll_uniform import uniform_rows
from .schemes import Scheme
from .schemes_columns import OUTSIDE_CODE, UNKNOWN_CODE, decode_columns, scheme_tables

__all__ = ["parse_chunk"]


def parse_chunk(
    chunk: bytes, offset: int, first_line: int, o: ConllOptions, cut_short: bool
) -> tuple[ConllBlock, int]:
    """The block of a chunk that starts at byte ``offset`` and line ``first_line`` of its
    file, and the number of lines it holds. ``cut_short``: the file goes on past the chunk
    (and fails there), so a sentence still open at the chunk's end is never complete."""
    if not chunk.isascii():
        try:
            chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            failure = not_utf8(o.path, exc, offset)
            return ConllBlock.empty(o, lambda: failure), 0
    buf = chunk + PAD
    # (the layout is found on the bytes with non-ASCII spaces read as ASCII ones; tokens and
    # tags are read from ``buf`` as they are)
    arr = ascii_spaces(buf)
    rows = _token_rows(arr, chunk, o)
    if rows is None:  # nothing but whitespace
        return ConllBlock.empty(o, None, buf), chunk.count(b"\n")
    tok_off, sent_line = _sentences(rows, first_line, cut_short)
    n_tok = int(tok_off[-1])
    ts, tl = rows.tag_start[:n_tok], rows.tag_len[:n_tok]
    codes, labels, names = _tags(arr, buf, ts, tl, o.scheme)
    dec = decode_columns(codes, labels, np.diff(tok_off), scheme=o.scheme, repair=o.repair)
    valid = int(sent_line.shape[0])
    error: Callable[[], Exception] | None = None
    if dec.error is not None or rows.malformed is not None:
        valid = valid if dec.error is None else dec.error.sentence
        error = partial(_reference_error, o, chunk, first_line)
    n = int(tok_off[valid])
    stop = int(np.searchsorted(dec.sentence, valid))
    block = ConllBlock(
        o,
        buf,
        sent_line[:valid].astype(INT),
        tok_off[: valid + 1],
        rows.tok_start[:n],
        rows.tok_len[:n],
        ts[:n],
        tl[:n],
        dec.sentence[:stop],
        dec.start[:stop],
        dec.end[:stop],
        dec.label[:stop],
        names,
        dec.repaired[:valid],
        error,
        rows.docstarts,
    )
    return block, rows.n_lines


def _token_rows(arr: np.ndarray, chunk: bytes, o: ConllOptions) -> TokenRows | None:
    """The chunk's token lines (``None``: nothing but whitespace), from the positions of its
    whitespace bytes, which are let go on return."""
    # (int64 positions: numpy gathers with int64 indices directly, and converts any other)
    pos = np.flatnonzero(arr[: len(chunk)] <= 32)
    byte = arr[pos]
    return uniform_rows(arr, chunk, pos, byte, o) or general_rows(arr, chunk, pos, byte, o)


def _sentences(rows: TokenRows, first_line: int, cut_short: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets of each sentence's tokens, plus the end; file line of each sentence)``:
    sentences are runs of consecutive token lines. One still open where the token lines stop
    (at a malformed line, or at the end of a cut-short chunk) is never complete: dropped."""
    line = rows.line
    new = np.ones(line.shape[0], dtype=bool)
    new[1:] = line[1:] - line[:-1] > 1
    sent_first = np.flatnonzero(new)
    n_tok = line.shape[0]
    open_end = rows.n_lines if cut_short else -1
    if rows.malformed is not None:
        open_end = rows.malformed
    if n_tok and line[-1] == open_end - 1:
        n_tok = int(sent_first[-1])
        sent_first = sent_first[:-1]
    return np.append(sent_first, n_tok).astype(INT), first_line + line[sent_first]


def _tags(
    arr: np.ndarray, buf: bytes, ts: np.ndarray, tl: np.ndarray, scheme: Scheme
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``(prefix codes, label ids, label names)`` of the tags ``arr[ts:ts + tl]``: a code is 0
    for ``O``, 1 + k for the scheme's k-th prefix followed by ``-`` and a label, -1 for
    anything else."""
    b0 = arr[ts]
    outside = (tl == 1) & (b0 == 79)
    codes = np.full(ts.shape[0], OUTSIDE_CODE, dtype=np.int8)
    rest = np.flatnonzero(~outside)
    if rest.shape[0]:
        good = (tl[rest] >= 3) & (arr[ts[rest] + 1] == 45)
        codes[rest] = np.where(good, scheme_tables(scheme).byte_code[b0[rest]], UNKNOWN_CODE)
    labelled = np.flatnonzero(codes > 0)
    labels = np.zeros(ts.shape[0], dtype=INT)
    if not labelled.shape[0]:
        return codes, labels, []
    label_s, label_n = ts[labelled], tl[labelled]
    label_s += 2  # (in place: the label after the prefix and its "-")
    label_n -= 2
    labels[labelled], names = intern(buf, label_s, label_n)
    return codes, labels, names


def _reference_error(o: ConllOptions, chunk: bytes, first_line: int) -> Exception:
    """The reference line loop's own error for a chunk (from file line ``first_line``) in which
    the arrays found one (a malformed line, an unknown tag or an ill-formed chunk under
    ``repair="error"``): its first, which the arrays' is."""
    try:
        for _ in records_from_lines(
            chunk.decode("utf-8").split("\n"),
            path=o.path,
            scheme=o.scheme,
            repair=o.repair,
            split=splitter(o.delimiter),
            tag_column=o.tag_column,
            comment=o.comment,
            first_line=first_line,
        ):
            pass
    except InvalidInputError as exc:
        return exc
    raise AssertionError(
        f"{o.path} line {first_line}: the columnar reader found an error in the lines from "
        "here that the reference reader does not"
    )  # pragma: no cover
