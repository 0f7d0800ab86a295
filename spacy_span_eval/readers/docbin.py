"""spaCy ``.spacy`` files (``DocBin``): one record per ``Doc``, read as plain data.

A DocBin is one serialized blob, so the file itself is loaded at once; the ``Doc`` objects are
rebuilt one at a time as the records are consumed, each read into a record by
:func:`doc_record` (a pipeline's ``Doc`` too): its text, tokens and spans of the chosen source
(``Doc.ents`` or a span group), so no ``Doc`` goes on to pairing.

The blob is zlib-compressed msgpack; a file of DocBins written one after another is read
whole, blob by blob. Before spaCy inflates it whole, it is inflated here a
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

from ..adapters.spacy_docs import doc_content, stored_doc_id
from ..errors import InvalidInputError
from .base import Record, empty_input
from .options import ReadingOptions

if TYPE_CHECKING:
    from collections import Counter

    from spacy.tokens import Doc

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


def docbin_blobs(path: Path | str, data: bytes) -> list[bytes]:
    """The DocBin blobs of ``data``: one, or several when DocBins were written one after
    another (spaCy would read the first alone). Each is inflated a block at a time, nothing
    kept, and the file is refused once they inflate past :func:`inflate_limit`. Bytes that
    are not zlib are a blob of their own, which spaCy's reading refuses."""
    limit, why = inflate_limit(len(data))
    blobs: list[bytes] = []
    total, rest = 0, data
    while rest:
        inflater = zlib.decompressobj()
        tail = rest
        try:
            while tail and not inflater.eof and total <= limit:
                total += len(inflater.decompress(tail, _BLOCK))
                tail = inflater.unconsumed_tail
        except zlib.error:
            return [*blobs, rest]
        if total > limit:
            raise InvalidInputError(
                f"{path}: refused: this .spacy file of {len(data):,} bytes inflates to more "
                f"than {limit:,} bytes ({why})"
            )
        blobs.append(rest[: len(rest) - len(inflater.unused_data)])
        rest = inflater.unused_data
    return blobs


def read_docbin(
    path: Path | str, options: ReadingOptions | None = None, notes: Counter[str] | None = None
) -> Iterator[Record]:
    """Yield one record per ``Doc`` of a ``.spacy`` file (the format's reader: ``notes``
    are never needed), as :func:`doc_record` reads it.

    A document's id is the one stored under ``user_data["span_eval_id"]`` (see
    :mod:`spacy_span_eval.spacy_docs`), when the DocBin kept user data; else it pairs by
    position."""
    options = options or ReadingOptions()
    for where, key, doc_id, doc in docbin_docs(path):
        yield doc_record(doc, where, key, options, doc_id)


def doc_record(
    doc: Doc, where: str, key: str, options: ReadingOptions, doc_id: str | None = None
) -> Record:
    """One side of a document read from a spaCy ``Doc``, its spans those of
    ``options.source`` (:func:`~..adapters.spacy_docs.doc_content`); its id ``doc_id``, else
    the one stored in the doc."""
    if doc_id is None and (stored := stored_doc_id(doc)) is not None:
        doc_id = str(stored)
    name = doc_id if doc_id is not None else key
    text, tokens, starts, spans = doc_content(doc, options.source, options.side, name)
    return Record(where, key, doc_id, spans, text, tokens, starts=starts)


def docbin_docs(path: Path | str) -> Iterator[tuple[str, str, str | None, Doc]]:
    """The ``Doc`` objects of a ``.spacy`` file, rebuilt one at a time (in a fresh vocab),
    each with where it is, its key (``FILE#N``) and the id stored in it."""
    from spacy.tokens import DocBin  # (spaCy: only when a .spacy file is read)
    from spacy.vocab import Vocab

    if not Path(path).is_file():
        if Path(path).exists():
            raise InvalidInputError(
                f"{path}: not a regular file; a .spacy DocBin is read whole, so give a file"
            )
        raise FileNotFoundError(f"{path}: no such file")
    docbins = []
    for blob in docbin_blobs(path, Path(path).read_bytes()):
        try:
            docbins.append(DocBin(store_user_data=True).from_bytes(blob))
        except Exception as exc:  # msgpack/zlib/KeyError: whatever a corrupt blob raises
            raise InvalidInputError(
                f"{path}: not a readable spaCy DocBin ({type(exc).__name__}: {exc})"
            ) from None
    if not sum(map(len, docbins)):
        raise empty_input(path, "documents")
    vocab, name = Vocab(), Path(path).name
    docs = (doc for docbin in docbins for doc in docbin.get_docs(vocab))
    for i, doc in enumerate(docs, 1):
        stored = stored_doc_id(doc)
        yield f"{path} document {i}", f"{name}#{i}", None if stored is None else str(stored), doc


def docbin_fields(path: Path, field: str, options: ReadingOptions) -> Iterator[tuple[str, object]]:
    """Each ``Doc``'s ``user_data[field]``, by its stored id, else ``FILE#N``."""
    for _, key, doc_id, doc in docbin_docs(path):
        yield key if doc_id is None else doc_id, doc.user_data.get(field)
