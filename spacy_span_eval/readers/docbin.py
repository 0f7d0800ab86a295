"""spaCy ``.spacy`` files (``DocBin``): one record per ``Doc``, spans read by the adapter.

A DocBin is one serialized blob, so the file itself is loaded at once; the ``Doc`` objects are
rebuilt one at a time as the records are consumed. Which spans count (``Doc.ents`` or a span
group) is chosen when the records are paired (:func:`.pairing.to_document`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..errors import InvalidInputError
from .base import Record, empty_input


def read_docbin(path: Path | str, *, vocab=None) -> Iterator[Record]:
    """Yield one record per ``Doc`` of a ``.spacy`` file.

    A document's id is the one stored under ``user_data["span_eval_id"]`` (see
    :mod:`spacy_span_eval.spacy_docs`), when the DocBin kept user data; else it pairs by
    position. ``vocab`` defaults to a fresh, empty one.
    """
    from spacy.tokens import DocBin
    from spacy.vocab import Vocab

    from ..adapters.spacy_docs import stored_doc_id

    if not Path(path).is_file():
        if Path(path).exists():
            raise InvalidInputError(
                f"{path}: not a regular file; a .spacy DocBin is read whole, so give a file"
            )
        raise FileNotFoundError(f"{path}: no such file")
    try:
        docbin = DocBin(store_user_data=True).from_disk(path)
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
