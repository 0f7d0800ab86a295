"""seqeval's strict-mode tag schemes as data: ``IOB1``, ``IOB2``, ``IOE1``, ``IOE2``, ``IOBES``,
``BILOU`` (pass one as ``scheme=`` with ``mode="strict"``).

Each scheme is a small class that names its prefixes and three pattern tables, written as
``"<previous prefix> <prefix> <label>"`` rows: ``*`` is any prefix or any label, ``=`` the same
label as the previous token, ``!`` another one. A chunk *starts* at a token whose pair with the
token before it matches ``start``, runs while the pairs match ``inside``, and is kept only when
the pair at the first token after it matches ``end``. :func:`scheme_tables` turns the rows into
boolean arrays indexed by ``(previous prefix code, prefix code, same label)``, which the
decoder in :mod:`._tags` looks up for every token at once.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from functools import cache
from typing import ClassVar

import numpy as np

__all__ = [
    "BILOU",
    "IOB1",
    "IOB2",
    "IOBES",
    "IOE1",
    "IOE2",
    "PREFIX_CODES",
    "Prefix",
    "Token",
    "auto_detect",
    "resolve_scheme",
    "scheme_tables",
]


class Prefix(enum.Flag):
    """The prefix letters seqeval knows, in its order (its error messages print them)."""

    I = enum.auto()  # noqa: E741 - the tag letter
    O = enum.auto()  # noqa: E741
    B = enum.auto()
    E = enum.auto()
    S = enum.auto()
    U = enum.auto()
    L = enum.auto()
    ANY = I | O | B | E | S | U | L


LETTERS = "IOBESUL"
PREFIX_CODES: dict[str, int] = {letter: k for k, letter in enumerate(LETTERS)}


class Token:
    """A strict-mode scheme: the prefixes it allows and its start/inside/end tables."""

    allowed: ClassVar[str] = ""
    start: ClassVar[tuple[str, ...]] = ()
    inside: ClassVar[tuple[str, ...]] = ()
    end: ClassVar[tuple[str, ...]] = ()


def _scheme(
    name: str, allowed: str, start: tuple[str, ...], inside: tuple[str, ...], end: tuple[str, ...]
) -> type[Token]:
    return type(name, (Token,), {"allowed": allowed, "start": start, "inside": inside, "end": end})


IOB1 = _scheme(
    "IOB1",
    allowed="IOB",
    start=("O I *", "I I !", "B I *", "I B =", "B B ="),
    inside=("B I =", "I I ="),
    end=("I I !", "I O *", "I B *", "B O *", "B I !", "B B ="),
)
IOE1 = _scheme(
    "IOE1",
    allowed="IOE",
    start=("O I *", "I I !", "E I *", "E E ="),
    inside=("I I =", "I E ="),
    end=("I I !", "I O *", "I E !", "E I =", "E E ="),
)
IOB2 = _scheme(
    "IOB2",
    allowed="IOB",
    start=("* B *",),
    inside=("B I =", "I I ="),
    end=("I O *", "I I !", "I B *", "B O *", "B I !", "B B *"),
)
IOE2 = _scheme(
    "IOE2",
    allowed="IOE",
    start=("O I *", "O E *", "E I *", "E E *", "I I !", "I E !"),
    inside=("I E =", "I I ="),
    end=("E * *",),
)
IOBES = _scheme(
    "IOBES",
    allowed="IOBES",
    start=("* B *", "* S *"),
    inside=("B I =", "B E =", "I I =", "I E ="),
    end=("S * *", "E * *"),
)
BILOU = _scheme(
    "BILOU",
    allowed="BILOU",
    start=("* B *", "* U *"),
    inside=("B I =", "B L =", "I I =", "I L ="),
    end=("U * *", "L * *"),
)

SCHEMES: dict[str, type[Token]] = {
    cls.__name__: cls for cls in (IOB1, IOE1, IOB2, IOE2, IOBES, BILOU)
}


def resolve_scheme(scheme: object) -> type[Token] | None:
    """Our scheme class for ``scheme``: one of ours, seqeval's own class of the same name, or
    a name; ``None`` for anything else."""
    if isinstance(scheme, type) and issubclass(scheme, Token):
        return scheme
    name = scheme if isinstance(scheme, str) else getattr(scheme, "__name__", None)
    return SCHEMES.get(name) if isinstance(name, str) else None


def _table(rows: Iterable[str]) -> np.ndarray:
    n = len(LETTERS)
    table = np.zeros((n, n, 2), dtype=bool)
    for row in rows:
        prev, cur, label = row.split()
        prevs = range(n) if prev == "*" else [PREFIX_CODES[prev]]
        curs = range(n) if cur == "*" else [PREFIX_CODES[cur]]
        table[np.ix_(prevs, curs, {"*": (0, 1), "=": (1,), "!": (0,)}[label])] = True
    return table.reshape(-1)


@cache
def scheme_tables(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(start, inside, end, allowed)`` of the scheme called ``name``: the first three
    indexed by ``(previous code * 7 + code) * 2 + same label``, ``allowed`` by prefix code."""
    scheme = SCHEMES[name]
    allowed = np.array([letter in scheme.allowed for letter in LETTERS], dtype=bool)
    return _table(scheme.start), _table(scheme.inside), _table(scheme.end), allowed


_DETECTABLE: tuple[tuple[type[Token], tuple[str, ...]], ...] = (
    (IOB2, ("IOB", "IB", "BO", "B")),
    (IOE2, ("IOE", "IE", "EO", "E")),
    (IOBES, ("IOBES", "IBES", "IOBE", "OBES", "IBE", "BES", "OBE", "BE", "S")),
    (BILOU, ("IOBLU", "IBLU", "IOBL", "OBLU", "IBL", "BLU", "OBL", "BL", "U")),
)


def auto_detect(
    sequences: Sequence[Sequence[str]], suffix: bool = False, delimiter: str = "-"
) -> type[Token]:
    """The scheme whose prefix set is exactly the one used in ``sequences`` (seqeval's rule:
    IOB2, IOE2, IOBES or BILOU); ``ValueError`` otherwise."""
    seen: set[str] = set()
    for tokens in sequences:
        for token in set(tokens):
            letter = token[-1] if suffix else token[0]
            if letter not in PREFIX_CODES:
                raise ValueError(f"This scheme is not supported: {_first_unknown(tokens, suffix)}")
            seen.add(letter)
    for scheme, prefix_sets in _DETECTABLE:
        if any(seen == set(letters) for letters in prefix_sets):
            return scheme
    raise ValueError(f"This scheme is not supported: { ({Prefix[letter] for letter in seen}) }")


def _first_unknown(tokens: Sequence[str], suffix: bool) -> str:
    return next(t for t in tokens if (t[-1] if suffix else t[0]) not in PREFIX_CODES)
