"""Tag decoding on columns: every sentence of a file at once, by the rules of :mod:`.schemes`.

:func:`spacy_span_eval.schemes.decode` walks one sentence's tags in Python and stays the
reference. This module applies the same rules to whole arrays: each token is a prefix code
(``0`` for ``O``, ``1 + k`` for the scheme's ``k``-th prefix, ``-1`` for a tag the scheme does
not have) and a label id, sentences are given by their lengths. The transition table is the
reference's own :attr:`Scheme.table`, looked up for every (previous token, token) pair at
once, so the two cannot drift apart; ``tests/readers/test_schemes_columns.py`` checks them against
each other and against seqeval on random sequences.

Why it works in one pass: with a sentinel ``O`` after every sentence, each non-``O`` token is
inside exactly one chunk, every chunk opens where the table says ``opens`` and closes at the
next position where it says ``closes``, and those two lists pair up one to one. A chunk is
ill-formed when its opening or its closing transition is not allowed.

Nothing here builds an error message: the first event that would make the reference raise
(an unknown tag, or an ill-formed chunk under ``repair="error"``) is returned as a
:class:`DecodeEvent`, and the caller replays that one sentence through the reference decoder
for its exact message.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import product

import numpy as np

from .schemes import OUTSIDE, REPAIR_POLICIES, Scheme, get_scheme

__all__ = [
    "DecodeEvent",
    "DecodedColumns",
    "SchemeTables",
    "decode_columns",
    "scheme_tables",
]

INT = np.int64
OUTSIDE_CODE = 0
UNKNOWN_CODE = -1
# Order of events at one token index, as the reference loop meets them: the tag is parsed
# first, then the chunk before it is closed, then a new one is opened.
EVENT_KINDS: tuple[str, ...] = ("tag", "end", "start")


@dataclass(frozen=True)
class SchemeTables:
    """A scheme's transition table as flat arrays, indexed by
    ``(previous code * n_codes + code) * 2 + same label``."""

    scheme: Scheme
    n_codes: int
    closes: np.ndarray
    close_ok: np.ndarray
    opens: np.ndarray
    open_ok: np.ndarray
    byte_code: np.ndarray  # uint8 prefix byte -> code (UNKNOWN_CODE where not a prefix)


@cache
def _tables(name: str) -> SchemeTables:
    sch = get_scheme(name)
    every = (OUTSIDE, *sch.prefixes)
    # (in the order of the flat index: previous code, code, same label)
    keys = product(every, every, (False, True))
    flags = np.array([sch.table[key] for key in keys], dtype=bool).T.copy()
    byte_code = np.full(256, UNKNOWN_CODE, dtype=np.int8)
    for k, prefix in enumerate(sch.prefixes, 1):
        if len(prefix.encode("utf-8")) != 1:  # pragma: no cover - every built-in prefix is
            raise ValueError(f"{sch.name}: prefix {prefix!r} is not one byte")  # one letter
        byte_code[ord(prefix)] = k
    closes, close_ok, opens, open_ok = flags
    return SchemeTables(sch, len(every), closes, close_ok, opens, open_ok, byte_code)


def scheme_tables(scheme: str | Scheme) -> SchemeTables:
    """The (cached) array tables of a scheme, by name or instance."""
    return _tables(get_scheme(scheme).name)


@dataclass(frozen=True)
class DecodeEvent:
    """Where the reference decoder would raise: sentence, token index, what (see
    :data:`EVENT_KINDS`)."""

    sentence: int
    index: int
    kind: str

    def key(self) -> tuple[int, int, int]:
        return self.sentence, self.index, EVENT_KINDS.index(self.kind)


@dataclass(frozen=True)
class DecodedColumns:
    """Spans of many sentences as columns (in sentence, then start order), the ill-formed
    chunks per sentence, and the first event that makes the reference raise (``None``: none).

    Sentences from ``error.sentence`` on are not meaningful: the reference stops there.
    """

    sentence: np.ndarray
    start: np.ndarray
    end: np.ndarray
    label: np.ndarray
    repaired: np.ndarray
    error: DecodeEvent | None


def decode_columns(
    codes: np.ndarray,
    labels: np.ndarray,
    lengths: np.ndarray,
    *,
    scheme: str | Scheme = "IOB2",
    repair: str = "conlleval",
) -> DecodedColumns:
    """Decode every sentence at once.

    ``codes``: one prefix code per token (``0`` = ``O``, ``1 + k`` = ``scheme.prefixes[k]``,
    ``-1`` = a tag the scheme does not have). ``labels``: one label id per token (ignored for
    ``O``). ``lengths``: tokens per sentence, in order; they must add up to ``len(codes)``.
    """
    if repair not in REPAIR_POLICIES:
        raise ValueError(f"unknown repair policy {repair!r}; valid policies: {REPAIR_POLICIES}")
    tables = scheme_tables(scheme)
    codes = np.asarray(codes, dtype=np.int8)
    labels = np.asarray(labels, dtype=INT)
    lengths = np.asarray(lengths, dtype=INT)
    if int(lengths.sum()) != codes.shape[0]:
        raise ValueError(
            f"sentence lengths add up to {int(lengths.sum())}, not {codes.shape[0]} tokens"
        )
    tok_first = np.cumsum(lengths) - lengths  # first token of each sentence
    unknown = np.flatnonzero(codes == UNKNOWN_CODE)
    error = _first_event(unknown, tok_first, "tag")
    if unknown.size:
        codes = np.where(codes == UNKNOWN_CODE, OUTSIDE_CODE, codes).astype(np.int8)
    opens, bad_open, closes, bad_close = _chunk_edges(codes, labels, lengths, tok_first, tables)
    bad = bad_open | bad_close
    # (each token's sentence, then the openings': one pass, not a binary search per opening)
    sent = np.repeat(np.arange(lengths.shape[0], dtype=INT), lengths)[opens]
    start = opens - tok_first[sent]
    end = closes - tok_first[sent]
    label = labels[opens]
    repaired = np.bincount(sent[bad], minlength=lengths.shape[0]).astype(INT)
    if repair == "error":
        events = (
            error,
            _first_event(closes[bad_close], tok_first, "end"),
            _first_event(opens[bad_open], tok_first, "start"),
        )
        error = min((e for e in events if e is not None), key=DecodeEvent.key, default=None)
    if repair == "discard":
        keep = ~bad
        sent, start, end, label = sent[keep], start[keep], end[keep], label[keep]
    return DecodedColumns(
        sent.astype(INT), start.astype(INT), end.astype(INT), label.astype(INT), repaired, error
    )


def _chunk_edges(
    codes: np.ndarray,
    labels: np.ndarray,
    lengths: np.ndarray,
    tok_first: np.ndarray,
    tables: SchemeTables,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(openings, which are ill-formed, closings, which are ill-formed)``, paired one to
    one, as token indices (a closing at a sentence's end is at the next sentence's first
    token, where no token closes: the previous token is O there)."""
    filled = lengths > 0
    starts = tok_first[filled]
    lasts = starts + lengths[filled] - 1
    # Transitions into every token (the previous token is O at a sentence start); from O to
    # O nothing happens, so only tokens that are not O or follow one that is not are looked up.
    prev = np.empty_like(codes)
    prev[:1] = OUTSIDE_CODE
    prev[1:] = codes[:-1]
    prev[starts] = OUTSIDE_CODE
    active = np.flatnonzero((codes != OUTSIDE_CODE) | (prev != OUTSIDE_CODE))
    cur_a, prev_a = codes[active], prev[active]
    same = (
        (labels[active] == labels[active - 1]) & (prev_a != OUTSIDE_CODE) & (cur_a != OUTSIDE_CODE)
    )
    index = (prev_a.astype(np.int16) * tables.n_codes + cur_a) * 2 + same
    # ... and out of every sentence's last token into the sentinel O after it.
    end_index = codes[lasts].astype(np.int16) * tables.n_codes * 2
    opens_at = np.flatnonzero(tables.opens[index])
    closes_at = np.flatnonzero(tables.closes[index])
    end_closes = np.flatnonzero(tables.closes[end_index])
    closes = np.concatenate([active[closes_at], lasts[end_closes] + 1])
    close_ok = np.concatenate(
        [tables.close_ok[index[closes_at]], tables.close_ok[end_index[end_closes]]]
    )
    order = np.argsort(closes, kind="stable")
    opens = active[opens_at]
    if opens.shape != closes.shape:  # pragma: no cover - guaranteed by the scheme rules
        raise AssertionError("chunk openings and closings do not pair up")
    return opens, ~tables.open_ok[index[opens_at]], closes[order], ~close_ok[order]


def _first_event(positions: np.ndarray, tok_first: np.ndarray, kind: str) -> DecodeEvent | None:
    """The first of ``positions`` as an event: tags or openings at a token, closings before
    a token or at the end of a sentence (then the next sentence's first token)."""
    if not positions.size:
        return None
    pos = int(positions[0])
    # A closing belongs to the sentence of the token before it; no token closes a chunk at
    # a sentence's first token (the previous token is O there).
    s = int(np.searchsorted(tok_first, pos - (kind == "end"), side="right")) - 1
    return DecodeEvent(s, pos - int(tok_first[s]), kind)
