"""Tag schemes: token tags (IOB1, IOB2, IOE1, IOE2, IOBES, BILOU, IO) to spans and back.

semantics §5. A tag is ``"O"`` or ``"<PREFIX>-<LABEL>"``, split on the first ``-`` (so
``"B-DATE-TIME"`` has the label ``"DATE-TIME"``). Spans are half-open token ranges
``[start, end)``.

Decoding is one pass. Chunk boundaries are seqeval's default mode's for every scheme (which are
conlleval.pl's for IOB1, IOB2, IOE1, IOE2 and IO; conlleval.pl reads IOBES and BILOU otherwise,
e.g. ``S-PER S-PER`` as one chunk):
a chunk ends before a token when the previous token ends chunks (``E``/``S`` roles), when a
``B``/``I`` token is followed by ``B``/``S``/``O``, or when the label changes; a chunk starts
at every ``B``/``S`` token, at an ``I``/``E`` token after ``O``/``E``/``S``, and at a label
change. Each scheme then only says which chunks are *well-formed*: which prefixes may begin
and end a chunk. An ill-formed chunk is handled by the ``repair`` policy:

* ``"conlleval"`` keeps it as seqeval's default mode (and, for the IOB and IOE schemes,
  conlleval.pl) would,
* ``"discard"`` drops it (this matches seqeval's strict mode; see ``docs/tag_schemes.md``),
* ``"error"`` raises :class:`InvalidInputError` naming the token.

Either way :attr:`Decoded.repaired` counts the ill-formed chunks, so repairs are never hidden.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain, product
from typing import Literal

from ..engine.spans import Span
from ..errors import InvalidInputError, InvalidSpanError

__all__ = [
    "BILOU",
    "IO",
    "IOB1",
    "IOB2",
    "IOBES",
    "IOE1",
    "IOE2",
    "REPAIR_POLICIES",
    "SCHEMES",
    "SCHEME_ALIASES",
    "Decoded",
    "RepairPolicy",
    "Scheme",
    "decode",
    "encode",
    "get_scheme",
]

OUTSIDE = "O"
RepairPolicy = Literal["conlleval", "discard", "error"]
REPAIR_POLICIES: tuple[str, ...] = ("conlleval", "discard", "error")
# Where an error happened: a fixed prefix ("train.conll, sentence 4") or a function from
# token index to a location ("train.conll line 17"), as readers supply it.
Context = str | Callable[[int], str] | None

_PARSE_CACHE_LIMIT = 1 << 16


@dataclass(frozen=True, slots=True)
class Decoded:
    """Spans decoded from one tag sequence and how many ill-formed chunks were repaired.

    With ``repair="conlleval"`` the repaired chunks are among ``spans``; with
    ``repair="discard"`` they were dropped. ``repaired`` is the count either way.
    """

    spans: tuple[Span, ...]
    repaired: int = 0


@dataclass(eq=False, repr=False)
class Scheme:
    """A tag scheme as tables; :data:`SCHEMES` holds one of each.

    ``roles`` maps each prefix to its conlleval role (``B``, ``I``, ``E`` or ``S``), which
    fixes the chunk boundaries. ``first``/``last`` are the prefixes a well-formed chunk may
    begin/end with. ``first_if_joined``/``last_if_joined`` are allowed only where the chunk
    touches a chunk of the same label (IOB1's ``B``, IOE1's ``E``). ``single``/``begin``/
    ``inside``/``end`` are what :func:`encode` writes.
    """

    name: str
    roles: dict[str, str]
    first: str
    last: str
    single: str
    begin: str
    end: str
    first_if_joined: str = ""
    last_if_joined: str = ""
    inside: str = "I"
    separates_adjacent: bool = True
    prefixes: tuple[str, ...] = field(init=False)
    # (previous prefix, prefix, same label) -> (closes, close_ok, opens, open_ok)
    table: dict[tuple[str, str, bool], tuple[bool, bool, bool, bool]] = field(init=False)
    _parsed: dict[str, tuple[str, str | None]] = field(init=False)

    def __post_init__(self) -> None:
        self.prefixes = tuple(self.roles)
        every = (OUTSIDE, *self.prefixes)
        self.table = {key: self._transition(*key) for key in product(every, every, (False, True))}
        self._parsed = {OUTSIDE: (OUTSIDE, None)}

    def __repr__(self) -> str:
        return f"<tag scheme {self.name}>"

    def _transition(self, prev: str, cur: str, same: bool) -> tuple[bool, bool, bool, bool]:
        p = self.roles.get(prev, OUTSIDE)
        c = self.roles.get(cur, OUTSIDE)
        same = same and prev != OUTSIDE and cur != OUTSIDE
        closes = prev != OUTSIDE and (
            p in "ES" or (p in "BI" and c in "BSO") or (cur != OUTSIDE and not same)
        )
        opens = cur != OUTSIDE and (c in "BS" or (p in "ESO" and c in "IE") or not same)
        # A joined chunk: this one begins right where one of the same label ended.
        joined = closes and opens and same
        close_ok = prev in self.last or (prev in self.last_if_joined and joined)
        open_ok = cur in self.first or (cur in self.first_if_joined and joined)
        return closes, close_ok, opens, open_ok

    def parse(self, tag: str, *, index: int = 0, context: Context = None) -> tuple[str, str | None]:
        """Split ``tag`` into ``(prefix, label)``; ``("O", None)`` for outside. Raise if invalid."""
        try:
            return self._parsed[tag]
        except (KeyError, TypeError):
            pass
        if not isinstance(tag, str):
            raise InvalidInputError(f"{_where(context, index)}: tag {tag!r} is not a string")
        prefix, sep, label = tag.partition("-")
        if not sep:
            problem = "has no prefix" if tag else "is empty"
            raise InvalidInputError(
                f"{_where(context, index)}: tag {tag!r} {problem}; in {self.name} a tag is "
                f"'O' or one of {self._prefix_list()} followed by a label"
            )
        if prefix not in self.roles:
            raise InvalidInputError(
                f"{_where(context, index)}: tag {tag!r} has prefix {prefix!r}, which "
                f"{self.name} does not use (prefixes: {self._prefix_list()}, or 'O')"
            )
        if not label:
            raise InvalidInputError(f"{_where(context, index)}: tag {tag!r} has an empty label")
        if len(self._parsed) >= _PARSE_CACHE_LIMIT:
            self._parsed.clear()
            self._parsed[OUTSIDE] = (OUTSIDE, None)
        parsed = self._parsed[tag] = (prefix, label)
        return parsed

    def _prefix_list(self) -> str:
        return ", ".join(f"{p}-" for p in self.prefixes)

    def chunk_tags(
        self, length: int, label: str, *, joined_before: bool, joined_after: bool
    ) -> list[str]:
        """Tags for one chunk of ``length`` tokens (``joined_*``: touches a same-label chunk)."""
        first = self.first_if_joined if joined_before else ""
        last = self.last_if_joined if joined_after else ""
        if length == 1:
            return [f"{first or last or self.single}-{label}"]
        inside = [f"{self.inside}-{label}"] * (length - 2)
        return [f"{first or self.begin}-{label}", *inside, f"{last or self.end}-{label}"]


_BI, _IE, _BIES, _BILU = (
    {"B": "B", "I": "I"},
    {"I": "I", "E": "E"},
    {"B": "B", "I": "I", "E": "E", "S": "S"},
    {"B": "B", "I": "I", "L": "E", "U": "S"},
)
# ``I`` everywhere; ``B`` only on the first token of a chunk that directly follows a chunk of
# the same label (CoNLL-2003 as released).
IOB1 = Scheme(
    "IOB1", _BI, first="I", last="BI", single="I", begin="I", end="I", first_if_joined="B"
)
# ``B`` on the first token of every chunk, ``I`` on the rest (a.k.a. BIO).
IOB2 = Scheme("IOB2", _BI, first="B", last="BI", single="B", begin="B", end="I")
# ``I`` everywhere; ``E`` only on the last token of a chunk that is directly followed by a
# chunk of the same label.
IOE1 = Scheme("IOE1", _IE, first="IE", last="I", single="I", begin="I", end="I", last_if_joined="E")
# ``E`` on the last token of every chunk, ``I`` on the rest.
IOE2 = Scheme("IOE2", _IE, first="IE", last="E", single="E", begin="I", end="E")
# ``S`` for a one-token chunk, else ``B``, ``I``..., ``E`` (a.k.a. BIOES).
IOBES = Scheme("IOBES", _BIES, first="BS", last="ES", single="S", begin="B", end="E")
# IOBES spelled ``U`` (unit) and ``L`` (last): read with ``U`` as ``S`` and ``L`` as ``E``.
BILOU = Scheme("BILOU", _BILU, first="BU", last="LU", single="U", begin="B", end="L")
# ``I`` on every token of a chunk: adjacent chunks of one label cannot be told apart.
IO = Scheme(
    "IO", {"I": "I"}, first="I", last="I", single="I", begin="I", end="I", separates_adjacent=False
)

SCHEMES: dict[str, Scheme] = {s.name: s for s in (IOB1, IOB2, IOE1, IOE2, IOBES, BILOU, IO)}
SCHEME_ALIASES: dict[str, str] = {"BIO": "IOB2", "BIOES": "IOBES", "BIOUL": "BILOU"}


def get_scheme(name: str | Scheme) -> Scheme:
    """The scheme called ``name``, case-insensitive.

    Aliases: ``BIO`` = IOB2, ``BIOES`` = IOBES, ``BIOUL`` = BILOU. A :class:`Scheme` instance
    is returned as is. An unknown name raises ``ValueError`` listing the valid ones.
    """
    if isinstance(name, Scheme):
        return name
    key = name.upper() if isinstance(name, str) else name
    key = SCHEME_ALIASES.get(key, key)
    try:
        return SCHEMES[key]
    except (KeyError, TypeError):
        valid = ", ".join([*SCHEMES, *SCHEME_ALIASES])
        raise ValueError(f"unknown tag scheme {name!r}; valid schemes: {valid}") from None


def decode(
    tags: Sequence[str],
    *,
    scheme: str | Scheme = "IOB2",
    repair: RepairPolicy = "conlleval",
    context: Context = None,
) -> Decoded:
    """Decode one sentence's tags into spans, in order of start.

    ``context`` prefixes error messages: a string, or a function from token index to a
    location such as ``"train.conll line 17"``. Raises :class:`InvalidInputError` for a tag
    the scheme does not have and, with ``repair="error"``, for the first ill-formed chunk.
    """
    sch = get_scheme(scheme)
    if repair not in REPAIR_POLICIES:
        raise ValueError(f"unknown repair policy {repair!r}; valid policies: {REPAIR_POLICIES}")
    keep_bad = repair == "conlleval"
    raise_bad = repair == "error"
    parsed = sch._parsed
    table = sch.table
    spans: list[Span] = []
    repaired = 0
    prev_p, prev_l = OUTSIDE, None
    start, bad = 0, False
    for i, tag in enumerate(chain(tags, (OUTSIDE,))):  # (an O after the last token ends all)
        try:
            p, label = parsed[tag]
        except (KeyError, TypeError):
            p, label = sch.parse(tag, index=i, context=context)
        if p is OUTSIDE and prev_p is OUTSIDE:
            continue
        closes, close_ok, opens, open_ok = table[prev_p, p, label == prev_l]
        if closes:
            if not close_ok:
                if raise_bad:
                    raise InvalidInputError(_ill_formed(sch, tags, i - 1, context, begins=False))
                bad = True
            repaired += bad
            if keep_bad or not bad:
                # a chunk that closes was opened with a label: prev_l is not None here
                spans.append(Span(start, i, prev_l))  # type: ignore[arg-type]
        if opens:
            start, bad = i, not open_ok
            if bad and raise_bad:
                raise InvalidInputError(_ill_formed(sch, tags, i, context, begins=True))
        prev_p, prev_l = p, label
    return Decoded(tuple(spans), repaired)


def encode(
    spans: Iterable[Span | tuple[int, int, str]],
    length: int,
    *,
    scheme: str | Scheme = "IOB2",
) -> list[str]:
    """Tags for ``length`` tokens carrying ``spans``, which must not overlap.

    ``decode(encode(spans, n, scheme=s), scheme=s)`` gives the spans back, sorted, with
    nothing repaired. IO cannot write two adjacent spans of one label (they would read back
    as one); that, and overlapping spans, raise :class:`InvalidInputError`.
    """
    sch = get_scheme(scheme)
    items = sorted(_checked_spans(spans, length))
    tags = [OUTSIDE] * length
    for k, span in enumerate(items):
        before = items[k - 1] if k else None
        if before is not None and before.end > span.start:
            raise InvalidInputError(
                f"spans {_show(before)} and {_show(span)} overlap; "
                f"a tag sequence can only carry non-overlapping spans"
            )
        joined_before = (
            before is not None and before.end == span.start and (before.label == span.label)
        )
        if joined_before and not sch.separates_adjacent and before is not None:
            raise InvalidInputError(
                f"spans {_show(before)} and {_show(span)} are adjacent with one label; "
                f"{sch.name} cannot tell them apart (use IOB2 or IOBES)"
            )
        after = items[k + 1] if k + 1 < len(items) else None
        joined_after = after is not None and after.start == span.end and (after.label == span.label)
        tags[span.start : span.end] = sch.chunk_tags(
            span.end - span.start,
            span.label,
            joined_before=joined_before,
            joined_after=joined_after,
        )
    return tags


def _checked_spans(spans: Iterable[Span | tuple[int, int, str]], length: int) -> list[Span]:
    out: list[Span] = []
    for i, raw in enumerate(spans):
        span = raw if isinstance(raw, Span) else Span(*raw)
        start, end, label = span.start, span.end, span.label
        what = f"span #{i} {(start, end, label)!r}"
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (start, end)):
            raise InvalidSpanError(f"{what}: offsets must be integers")
        if not isinstance(label, str) or not label:
            raise InvalidSpanError(f"{what}: label must be a non-empty string")
        if not 0 <= start < end <= length:
            raise InvalidSpanError(f"{what}: needs 0 <= start < end <= {length}")
        out.append(span)
    return out


def _show(span: Span) -> str:
    return repr((span.start, span.end, span.label))


def _where(context: Context, index: int) -> str:
    if context is None:
        return f"token {index}"
    if callable(context):
        return f"{context(index)} (token {index})"
    return f"{context}, token {index}"


def _tag_at(tags: Sequence[str], i: int) -> str:
    return repr(tags[i]) if 0 <= i < len(tags) else "the end of the sentence"


def _ill_formed(sch: Scheme, tags: Sequence[str], i: int, context: Context, begins: bool) -> str:
    """The message for the ill-formed chunk that token ``i`` begins (or ends)."""
    prefix, label = sch.parse(tags[i], index=i, context=context)
    verb, near = ("begins", "after") if begins else ("ends", "before")
    if prefix in (sch.first_if_joined if begins else sch.last_if_joined):
        why = f"{prefix}- {verb} a chunk only right {near} a chunk of the same label"
    else:
        allowed = " or ".join(f"{p}-" for p in (sch.first if begins else sch.last))
        why = f"a chunk {verb} with {allowed}"
    if begins:
        neighbour = _tag_at(tags, i - 1) if i else "the start of the sentence"
    else:
        neighbour = _tag_at(tags, i + 1)
    return (
        f"{_where(context, i)}: ill-formed {sch.name} chunk: tag {tags[i]!r} {near} "
        f"{neighbour} {verb} a {label} chunk, but in {sch.name} {why}"
    )
