"""Tag lists to chunks, every sentence at once, by seqeval's two decoders.

The input is encoded once: each distinct tag string gets an id (a dict over the distinct tags,
so the per-token work is one lookup), and the sentences are laid end to end with an ``O``
after each, as seqeval's default mode lays them (``get_entities`` on nested lists). Each
distinct tag is then parsed once, the way seqeval parses it, into a prefix class and a type;
the decoders look up a transition table for every (previous token, token) pair at once.

* default mode (:func:`lenient_chunks`): a chunk ends before a token and starts at it by the
  conlleval-style rules of seqeval's ``get_entities``; a chunk runs from the last start
  before its end (position 0 when there was none, as in seqeval).
* strict mode (:func:`strict_chunks`): a scheme's start/inside/end tables
  (:mod:`.scheme`). The tokens between two tokens that are not *inside* (a chunk cannot run
  past one) form a segment; the first start in a segment opens the segment's only candidate
  chunk, which runs to the segment's end and is kept when the pair there matches *end*.

Chunks are columns in positions of the laid-out sequence: ``(type id, first, stop)``, ``stop``
exclusive. Both sides of a comparison share the encoding, so equal chunks have equal rows.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain
from typing import Any

import numpy as np

from .scheme import LETTERS, PREFIX_CODES, Token, scheme_tables

INT = np.int64
OUTSIDE = "O"
# seqeval's default mode sorts tag letters into these classes; "x" is any other letter.
CLASSES = "OBIES.x"
CLASS_CODES = {letter: k for k, letter in enumerate(CLASSES[:-1])}
OTHER = len(CLASSES) - 1


def _lenient_tables() -> tuple[np.ndarray, np.ndarray]:
    n = len(CLASSES)
    ends = np.zeros((n, n, 2), dtype=bool)
    starts = np.zeros((n, n, 2), dtype=bool)
    for p, prev in enumerate(CLASSES):
        for c, cur in enumerate(CLASSES):
            for same in (0, 1):
                ends[p, c, same] = (
                    prev in "ES"
                    or (prev in "BI" and cur in "BSO")
                    or (prev not in "O." and not same)
                )
                starts[p, c, same] = (
                    cur in "BS" or (prev in "ESO" and cur in "EI") or (cur not in "O." and not same)
                )
    return ends.reshape(-1), starts.reshape(-1)


LENIENT_ENDS, LENIENT_STARTS = _lenient_tables()


@dataclass(frozen=True)
class Chunks:
    """Chunks as columns: type id, first position, stop position (exclusive)."""

    type: np.ndarray
    first: np.ndarray
    stop: np.ndarray

    def __len__(self) -> int:
        return int(self.type.shape[0])


@dataclass
class Encoded:
    """One side's sentences laid end to end (``ids``: vocabulary ids, an ``O`` after every
    sentence and one at the end) and what is needed to map positions back: ``lengths`` and
    ``sentence_first`` (first position of each sentence)."""

    ids: np.ndarray
    lengths: np.ndarray
    sentence_first: np.ndarray
    vocab: list[Any]


def encode(*sides: Sequence[Any], nested: bool | None = None) -> list[Encoded]:
    """Encode each side with one shared vocabulary (``O`` is id 0). ``nested``: lay the
    items out as sentences (default: when any item of that side is a list, as seqeval
    decides); else the side is one sentence."""
    laid_out: list[Sequence[Any]] = []
    vocab_map: dict[Any, int] = {OUTSIDE: 0}
    for seq in sides:
        is_nested = any(isinstance(s, list) for s in seq) if nested is None else nested
        laid_out.append(seq if is_nested else [seq])
        for tag in set().union(*laid_out[-1]).difference(vocab_map):
            vocab_map[tag] = len(vocab_map)
    vocab = list(vocab_map)
    out = []
    for sentences in laid_out:
        lengths = np.fromiter(map(len, sentences), dtype=INT, count=len(sentences))
        tags = chain.from_iterable(sentences)
        ids = np.fromiter(
            map(vocab_map.__getitem__, tags), dtype=np.int32, count=int(lengths.sum())
        )
        ends = np.cumsum(lengths)
        laid = np.append(np.insert(ids, ends, 0), 0)  # an O after every sentence and at the end
        first = ends - lengths + np.arange(lengths.shape[0], dtype=INT)
        out.append(Encoded(laid, lengths, first, vocab))
    return out


def check_lengths(y_true: Sequence[Any], y_pred: Sequence[Any]) -> None:
    """Raise what seqeval raises when the sides are not lists of lists of equal lengths."""
    if {type(s) for s in y_true} | {type(s) for s in y_pred} != {list}:
        raise TypeError("Found input variables without list of list.")
    len_true, len_pred = list(map(len, y_true)), list(map(len, y_pred))
    if len(y_true) != len(y_pred) or len_true != len_pred:
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples:\n{len_true}\n{len_pred}"
        )


UNKNOWN = -1
EMPTY = -2


@dataclass(frozen=True)
class Tags:
    """Each vocabulary tag parsed as one of seqeval's modes parses it: its ``code`` (default
    mode: a class of :data:`CLASSES`; strict mode: a prefix code, ``UNKNOWN`` for another
    letter, ``EMPTY`` for the empty string) and its type id."""

    code: np.ndarray
    type: np.ndarray
    types: list[str]
    suspicious: np.ndarray  # (default mode) warns "... seems not to be NE tag."


def parse_tags(vocab: Sequence[Any], suffix: bool, *, strict: bool) -> Tags:
    n = len(vocab)
    code = np.empty(n, dtype=np.int8)  # every table index built from it fits in one byte
    type_ids = np.empty(n, dtype=INT if strict else np.int32)
    suspicious = np.zeros(n, dtype=bool)
    type_map: dict[str, int] = {}
    marks = ("-B", "-I", "-E", "-S") if suffix else ("B-", "I-", "E-", "S-")
    for k, tag in enumerate(vocab):
        if not strict and tag not in ("O", "B", "I", "E", "S"):
            suspicious[k] = not (tag.endswith(marks) if suffix else tag.startswith(marks))
        letter, rest = (tag[-1:], tag[:-1]) if suffix else (tag[:1], tag[1:])
        if strict:
            code[k] = PREFIX_CODES.get(letter, UNKNOWN if letter else EMPTY)
            name = rest.strip("-")
        else:
            code[k] = CLASS_CODES.get(letter or OUTSIDE, OTHER)
            name = rest.rsplit("-", maxsplit=1)[0] if suffix else rest.split("-", maxsplit=1)[-1]
        type_ids[k] = type_map.setdefault(name or "_", len(type_map))
    return Tags(code, type_ids, list(type_map), suspicious)


# --- default mode ---------------------------------------------------------------------------


def lenient_chunks(enc: Encoded, tags: Tags) -> Chunks:
    """The chunks of seqeval's ``get_entities`` (default mode), with its warnings."""
    ids = enc.ids
    warn_suspicious(tags, enc)
    cls = tags.code[ids]  # int8: every table index below fits in one byte
    typ = tags.type[ids]
    index = np.empty_like(cls)
    index[0] = CLASS_CODES[OUTSIDE] * len(CLASSES)
    index[1:] = cls[:-1] * len(CLASSES)
    index += cls
    index *= 2
    index[1:] += typ[1:] == typ[:-1]  # at 0 the previous type is "" (never equal)
    ends = np.flatnonzero(LENIENT_ENDS[index])
    # A chunk runs from the last start before its end (position 0 when there was none).
    last_start = np.where(LENIENT_STARTS[index], np.arange(index.shape[0], dtype=np.int32), 0)
    np.maximum.accumulate(last_start, out=last_start)
    first = np.zeros(ends.shape[0], dtype=INT)
    inside = ends > 0
    first[inside] = last_start[ends[inside] - 1]
    return Chunks(typ[ends - 1], first.astype(INT), ends.astype(INT))


def warn_suspicious(tags: Tags, *sides: Encoded) -> None:
    """Warn about each side's odd tags in turn, as seqeval does each time it decodes them."""
    if not tags.suspicious.any():
        return
    for enc in sides:
        for pos in np.flatnonzero(tags.suspicious[enc.ids]).tolist():
            tag = enc.vocab[enc.ids[pos]]
            # (from here, one place, as seqeval's: the default filter shows it once, however
            # many computations a call makes)
            warnings.warn(f"{tag} seems not to be NE tag.", stacklevel=1)
            if tag == "":
                raise IndexError("string index out of range")


# --- strict mode ----------------------------------------------------------------------------


def strict_chunks(enc: Encoded, tags: Tags, scheme: type[Token], *, suffix: bool) -> Chunks:
    """The entities of seqeval's strict mode (``Entities``) for ``scheme``, or its error."""
    start_t, inside_t, end_t, allowed = scheme_tables(scheme.__name__)
    ids = enc.ids
    code = tags.code[ids]
    _check_strict(enc, code, allowed, scheme, suffix)
    typ = tags.type[ids]
    prev_code = np.roll(code, 1)
    prev_code[0] = PREFIX_CODES[OUTSIDE]
    prev_typ = np.roll(typ, 1)
    prev_typ[0] = tags.type[0]  # the O before the first token
    index = (prev_code * len(PREFIX_CODES) + code) * 2 + (typ == prev_typ)
    starts = np.flatnonzero(start_t[index])
    heads = np.flatnonzero(~inside_t[index])  # always holds the last position (an O)
    segment = np.searchsorted(heads, starts, side="right")
    firsts = starts[np.diff(segment, prepend=-1) != 0]
    stops = heads[np.searchsorted(heads, firsts, side="right")]
    kept = end_t[index[stops]]
    firsts, stops = firsts[kept], stops[kept]
    return Chunks(typ[firsts], firsts.astype(INT), stops.astype(INT))


def _check_strict(
    enc: Encoded, code: np.ndarray, allowed: np.ndarray, scheme: type[Token], suffix: bool
) -> None:
    """Raise what seqeval raises on the first sentence with a tag it cannot read (while
    building the sentence's tokens) or one the scheme does not allow (while decoding)."""
    unreadable = code < 0
    bad = unreadable | ~allowed[np.where(unreadable, 0, code)]
    if not bad.any():
        return
    first_bad = int(np.flatnonzero(bad)[0])
    s = int(np.searchsorted(enc.sentence_first, first_bad, side="right")) - 1
    lo = int(enc.sentence_first[s])
    hi = lo + int(enc.lengths[s])
    unread = np.flatnonzero(unreadable[lo:hi])
    if unread.size:
        pos = lo + int(unread[0])
        if code[pos] == EMPTY:
            raise IndexError("string index out of range")
        tag = enc.vocab[enc.ids[pos]]
        raise KeyError(tag[-1] if suffix else tag[0])
    tag = enc.vocab[enc.ids[first_bad]]
    flag = "|".join(letter for letter in LETTERS if letter in scheme.allowed)  # (Prefix order)
    raise ValueError(f"Invalid token is found: {tag}. Allowed prefixes are: {flag}.")


@dataclass(frozen=True)
class Decoded:
    """Both sides of a comparison: their encodings, their chunks over one list of ``types``,
    and what warns again about odd tags each time seqeval would decode them anew."""

    enc_true: Encoded
    enc_pred: Encoded
    true: Chunks
    pred: Chunks
    types: list[str]
    again: Callable[[], None] | None


def decode(
    y_true: Sequence[Any], y_pred: Sequence[Any], *, suffix: bool, scheme: type[Token] | None
) -> Decoded:
    """Both sides' chunks: by seqeval's default decoder (warning as it does) when ``scheme``
    is ``None``, else by its strict decoder for ``scheme``."""
    enc_true, enc_pred = encode(y_true, y_pred, nested=scheme is not None or None)
    tags = parse_tags(enc_true.vocab, suffix, strict=scheme is not None)
    again: Callable[[], None] | None = None
    if scheme is None:
        true, pred = lenient_chunks(enc_true, tags), lenient_chunks(enc_pred, tags)
        again = partial(warn_suspicious, tags, enc_true, enc_pred)
    else:
        true = strict_chunks(enc_true, tags, scheme, suffix=suffix)
        pred = strict_chunks(enc_pred, tags, scheme, suffix=suffix)
    return Decoded(enc_true, enc_pred, true, pred, tags.types, again)
