"""spaCy ``.spacy`` files (``DocBin``): one record per ``Doc``, spans read by the adapter.

A DocBin is one serialized blob, so the file itself is loaded at once; the ``Doc`` objects are
rebuilt one at a time as the records are consumed. Which spans count (``Doc.ents`` or a span
group) is chosen when the records are paired (:func:`.pairing.to_document`).

The blob is zlib-compressed msgpack. Before spaCy inflates it whole, it is inflated here a
block at a time, kept nowhere, to check its size: past :func:`inflate_limit` (100x the file
plus 64 MiB, or ``SPACY_SPAN_EVAL_DOCBIN_MAX_MB`` MiB) the file is refused, so a small file
that inflates to gigabytes costs a few megabytes of memory, not gigabytes.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ..adapters.spacy_docs import stored_doc_id
from ..errors import InvalidInputError
from .base import Record, empty_input

if TYPE_CHECKING:
    from spacy.vocab import Vocab

#: Inflated bytes allowed per byte of the file, and on top of that (small files).
INFLATE_RATIO, INFLATE_FLOOR = 100, 64 << 20
#: Names an absolute limit in MiB instead (for a DocBin that does compress that well).
LIMIT_VARIABLE = "SPACY_SPAN_EVAL_DOCBIN_MAX_MB"
_BLOCK = 1 << 20  # bytes inflated at a time


def inflate_limit(file_size: int) -> tuple[int, str]:
    """The most bytes a ``.spacy`` file of ``file_size`` bytes may inflate to, and where that
    limit comes from (for the message)."""
    given = os.environ.get(LIMIT_VARIABLE, "").strip()
    if not given:
        return (
            INFLATE_RATIO * file_size + INFLATE_FLOOR,
            f"{INFLATE_RATIO}x its size plus {INFLATE_FLOOR >> 20} MiB; if it is genuine, "
            f"set {LIMIT_VARIABLE} to a limit in MiB",
        )
    try:
        mib = float(given)
    except ValueError:
        mib = -1.0
    if not 0 < mib < float("inf"):
        raise InvalidInputError(f"{LIMIT_VARIABLE}={given!r}: give a positive number of MiB")
    return int(mib * (1 << 20)), f"{LIMIT_VARIABLE}={given}"


def check_inflated_size(path: Path | str, data: bytes) -> None:
    """Refuse ``data`` (a DocBin's bytes) when it inflates past :func:`inflate_limit`;
    inflated a block at a time, nothing kept. A blob that is not zlib is left to spaCy."""
    limit, why = inflate_limit(len(data))
    inflater = zlib.decompressobj()
    total, rest = 0, data
    try:
        while rest and total <= limit:
            total += len(inflater.decompress(rest, _BLOCK))
            rest = inflater.unconsumed_tail
        if total <= limit:
            total += len(inflater.flush())
    except zlib.error:
        return  # (spaCy's own error names it)
    if total > limit:
        raise InvalidInputError(
            f"{path}: refused: this .spacy file of {len(data):,} bytes inflates to more than "
            f"{limit:,} bytes ({why})"
        )


def read_docbin(path: Path | str, *, vocab: Vocab | None = None) -> Iterator[Record]:
    """Yield one record per ``Doc`` of a ``.spacy`` file.

    A document's id is the one stored under ``user_data["span_eval_id"]`` (see
    :mod:`spacy_span_eval.spacy_docs`), when the DocBin kept user data; else it pairs by
    position. ``vocab`` defaults to a fresh, empty one.
    """
    from spacy.tokens import DocBin  # (spaCy: only when a .spacy file is read)
    from spacy.vocab import Vocab

    if not Path(path).is_file():
        if Path(path).exists():
            raise InvalidInputError(
                f"{path}: not a regular file; a .spacy DocBin is read whole, so give a file"
            )
        raise FileNotFoundError(f"{path}: no such file")
    data = Path(path).read_bytes()
    check_inflated_size(path, data)
    try:
        docbin = DocBin(store_user_data=True).from_bytes(data)
    except Exception as exc:  # msgpack/zlib/KeyError: whatever a corrupt blob raises
        raise InvalidInputError(
            f"{path}: not a readable spaCy DocBin ({type(exc).__name__}: {exc})"
        ) from None
    if not len(docbin):
        raise empty_input(path, "documents")
    name = Path(path).name
    for i, doc in enumerate(docbin.get_docs(vocab if vocab is not None else Vocab()), 1):
        stored = stored_doc_id(doc)
        yield Record(
            where=f"{path} document {i}",
            key=f"{name}#{i}",
            id=None if stored is None else str(stored),
            doc=doc,
        )
