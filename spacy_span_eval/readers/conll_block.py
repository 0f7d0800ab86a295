"""One side's sentences from one chunk of a CoNLL file, as columns: what the chunk parsers
make and the batch assembly reads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..engine.columns import INT
from ..engine.spans import Span
from .base import Record
from .conll_bytes import PAD
from .schemes import Scheme

__all__ = ["ConllBlock", "ConllOptions", "TokenRows", "tags_of"]


@dataclass(frozen=True)
class ConllOptions:
    """How one file is read (the options of :func:`.conll.read_conll`)."""

    path: Path | str
    scheme: Scheme
    repair: str
    tag_column: int
    delimiter: str
    comment: str | None

    @property
    def name(self) -> str:
        return Path(self.path).name


@dataclass(frozen=True)
class TokenRows:
    """The token lines of a chunk, as a layout parser finds them: each one's line (counted
    from the chunk's first, 0) and its token and tag as byte ranges of the chunk. Token lines
    stop at the first malformed line, if any: ``malformed``. ``docstarts``: the tags of the
    ``-DOCSTART-`` lines (as :func:`.conll.records_from_lines` notes them)."""

    n_lines: int
    line: np.ndarray
    tok_start: np.ndarray
    tok_len: np.ndarray
    tag_start: np.ndarray
    tag_len: np.ndarray
    malformed: int | None = None
    docstarts: tuple[str | None, ...] = ()


def tags_of(chunk: bytes, start: np.ndarray, size: np.ndarray) -> tuple[str | None, ...]:
    """The tags at ``chunk[start:start + size]`` (``None`` where ``size`` is -1: no tag
    column), of a few lines: the ``-DOCSTART-`` ones."""
    return tuple(
        None if n < 0 else chunk[s : s + n].decode("utf-8")
        for s, n in zip(start.tolist(), size.tolist(), strict=True)
    )


@dataclass
class ConllBlock:
    """One side's sentences from one chunk of its file, as columns.

    ``buf`` is the chunk (newlines normalized, padded with :data:`.conll_bytes.PAD`); tokens
    are byte ranges of it. ``error``, when set, is what the reference raises right after
    these sentences.
    """

    opts: ConllOptions
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
    docstarts: tuple[str | None, ...] = ()  # the TokenRows'
    _chars: np.ndarray | None = None

    @classmethod
    def empty(
        cls, opts: ConllOptions, error: Callable[[], Exception] | None, buf: bytes = PAD
    ) -> ConllBlock:
        """A block of no sentences, which fails with ``error`` (if any)."""
        z = np.zeros(0, dtype=INT)
        return cls(opts, buf, z, np.zeros(1, dtype=INT), z, z, z, z, z, z, z, z, [], z, error)

    def __len__(self) -> int:
        return int(self.sent_line.shape[0])

    def where(self, j: int) -> str:
        """Sentence ``j``'s place, as messages name it."""
        return f"{self.opts.path} line {int(self.sent_line[j])}"

    def key(self, j: int) -> str:
        """Sentence ``j``'s document id."""
        return f"{self.opts.name}:{int(self.sent_line[j])}"

    def text(self, j: int) -> str:
        """Sentence ``j``'s text in the char unit: its tokens joined by single spaces."""
        return " ".join(self.tokens(j))

    def token(self, t: int) -> str:
        """Token ``t`` (counted over the block), as a string."""
        start = int(self.tok_start[t])
        return self.buf[start : start + int(self.tok_len[t])].decode("utf-8")

    def tokens(self, j: int) -> tuple[str, ...]:
        """Sentence ``j``'s tokens, as strings."""
        lo, hi = int(self.tok_off[j]), int(self.tok_off[j + 1])
        return tuple(
            self.buf[s : s + n].decode("utf-8")
            for s, n in zip(
                self.tok_start[lo:hi].tolist(), self.tok_len[lo:hi].tolist(), strict=True
            )
        )

    def record(self, j: int) -> Record:
        """Sentence ``j`` as the reference reader's record (for messages)."""
        lo, hi = np.searchsorted(self.span_sent, [j, j + 1])
        spans = tuple(
            Span(int(s), int(e), self.labels[int(k)])
            for s, e, k in zip(
                self.span_start[lo:hi], self.span_end[lo:hi], self.span_label[lo:hi], strict=True
            )
        )
        return Record(
            where=self.where(j),
            key=self.key(j),
            id=None,
            spans=spans,
            tokens=self.tokens(j),
            repaired=int(self.repaired[j]),
        )

    def char_lengths(self) -> np.ndarray:
        """Length of every token in characters (bytes, less UTF-8 continuation bytes)."""
        if self._chars is None:
            size = len(self.buf) - len(PAD)
            arr = np.frombuffer(self.buf, dtype=np.uint8, count=size)
            cont = np.zeros(size + 1, dtype=np.int64)
            np.cumsum((arr & 0xC0) == 0x80, out=cont[1:])
            self._chars = self.tok_len - (
                cont[self.tok_start + self.tok_len] - cont[self.tok_start]
            )
        return self._chars
