"""Scoring on Dask: each partition becomes a tally where its data lives; tallies are merged.

Tallies add (SPEC 2: scoring a corpus in any split and summing gives the same ledger), so a
partition-wise map followed by a tree reduction in partition order gives the numbers one
process gives, and the kept error records are the first ``max_errors`` in partition order.
Dask schedules, retries and moves data; nothing here does. Needs
``pip install 'spacy-span-eval[dask]'`` (``score_dataframe`` also needs ``dask[dataframe]``).

Elements of a bag (and rows of a dataframe) are :class:`~.spans.Document` values or mappings
shaped like a dataframe row (see :func:`document_from_row`).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Mapping, Sequence
from functools import partial, reduce
from itertools import count
from typing import Any
from uuid import uuid4

from .engine import SpanEvaluator
from .errors import InvalidInputError
from .parallel import chunk_documents, merge_in_order, tally_chunk
from .settings import Settings
from .spans import Document, Span

#: Row fields understood by :func:`document_from_row` (and columns read by score_dataframe).
ROW_FIELDS: tuple[str, ...] = ("id", "text", "tokens", "length", "gold", "pred")

INSTALL_HINT = "pip install 'spacy-span-eval[dask]'"


def _require(module: str, hint: str = INSTALL_HINT) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"scoring on Dask needs {module!r}: {hint}") from exc


# -- rows -> documents -----------------------------------------------------------------------
def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _span(raw: object) -> Span | tuple[int, int, object]:
    if isinstance(raw, Span):
        return raw
    if isinstance(raw, Mapping):
        start, end, label = raw["start"], raw["end"], raw["label"]
    else:
        start, end, label = raw  # type: ignore[misc]
    # operator.index takes numpy integers (parquet, arrow) but refuses floats: 3.7 is an
    # error for validation to report, never a silent int(3.7) == 3.
    try:
        return operator.index(start), operator.index(end), label
    except TypeError:
        return start, end, label  # validate_spans names the document and the span


def document_from_row(row: Mapping[str, Any], *, unit: str) -> Document:
    """A document from a row: ``id``, ``gold``, ``pred`` and one of ``text`` (char unit),
    ``tokens`` (token unit) or ``length``.

    ``gold``/``pred`` are sequences of spans, each ``(start, end, label)`` or a mapping with
    those keys (what parquet/arrow give for a list of structs). A missing span list is an
    error: write an empty list for "no spans", so a failed join is not scored as silence.
    """
    doc_id = row.get("id")
    if _missing(doc_id):
        raise InvalidInputError(f"row without an id: {dict(row)!r}")
    sides = {}
    for side in ("gold", "pred"):
        spans = row.get(side)
        if _missing(spans):
            raise InvalidInputError(f"document {str(doc_id)!r}: {side!r} is missing "
                                    "(give an empty list for no spans)")
        if isinstance(spans, str | bytes):
            # Dask's "dataframe.convert-string" turns object columns (lists of tuples) into
            # their repr; parsing that back would be a guess.
            raise InvalidInputError(
                f"document {str(doc_id)!r}: {side!r} is a string, not a list of spans (Dask "
                "converts object columns to strings: use an arrow list<struct> column, or "
                "dask.config.set({'dataframe.convert-string': False}) when building the frame)")
        sides[side] = [_span(s) for s in spans]
    text, tokens, length = (row.get(k) for k in ("text", "tokens", "length"))
    return Document.create(
        id=doc_id, gold=sides["gold"], pred=sides["pred"], unit=unit,  # type: ignore[arg-type]
        text=None if _missing(text) else text,
        tokens=None if _missing(tokens) else list(tokens),
        length=None if _missing(length) else operator.index(length),
    )


def as_document(item: Document | Mapping[str, Any], unit: str) -> Document:
    if isinstance(item, Document):
        return item
    if isinstance(item, Mapping):
        return document_from_row(item, unit=unit)
    raise TypeError(f"expected a Document or a row mapping, not {type(item).__name__}")


# -- partition map and reduction ----------------------------------------------------------
def tally_partition(evaluator: SpanEvaluator, items: Iterable[Any]):
    """One partition's tally, computed on the worker that holds the partition."""
    unit = evaluator.settings.unit
    return evaluator.tally(as_document(item, unit) for item in items)


def sum_tallies(settings: Settings, tallies: Iterable[Any]):
    """Merge in the order given (dask passes partition order), starting from an empty tally."""
    from .tally import Tally

    return reduce(operator.add, tallies, Tally.empty(settings))


def bag_tally(bag: Any, evaluator: SpanEvaluator, *, split_every: int | None = None):
    """A lazy ``dask.bag.Item`` holding the bag's :class:`~.tally.Tally`.

    Use it to compose with other Dask work (``client.compute(item)``); ``split_every`` is the
    fan-in of the tree reduction (Dask's default when ``None``).
    """
    _require("dask.bag")
    return bag.reduction(partial(tally_partition, evaluator),
                         partial(sum_tallies, evaluator.settings),
                         split_every=split_every, name="spacy-span-eval-tally")


def score_bag(bag: Any, evaluator: SpanEvaluator, *, split_every: int | None = None,
              scheduler: Any = None):
    """Score a ``dask.bag.Bag`` of documents (or row mappings) into a tally.

    Runs on the active ``distributed`` client if there is one, else on ``scheduler`` or
    Dask's default for bags.
    """
    item = bag_tally(bag, evaluator, split_every=split_every)
    return item.compute(scheduler=scheduler) if scheduler is not None else item.compute()


def score_dataframe(df: Any, evaluator: SpanEvaluator, *,
                    columns: Mapping[str, str] | None = None, split_every: int | None = None,
                    scheduler: Any = None):
    """Score a Dask dataframe with one row per document (fields as in
    :func:`document_from_row`).

    ``columns`` maps a field to the dataframe's column name when they differ, e.g.
    ``{"id": "doc_id", "gold": "gold_spans"}``. Other columns are not read.
    """
    _require("dask.dataframe", "pip install 'dask[dataframe]'")
    names = {field: field for field in ROW_FIELDS}
    names.update(columns or {})
    unknown = set(names) - set(ROW_FIELDS)
    if unknown:
        raise ValueError(f"unknown fields in columns: {sorted(unknown)}; known: {ROW_FIELDS}")
    present = {field: col for field, col in names.items() if col in df.columns}
    for field in ("id", "gold", "pred"):
        if field not in present:
            raise ValueError(f"the dataframe has no {names[field]!r} column (field {field!r})")
    picked = df[list(present.values())].rename(columns={c: f for f, c in present.items()})
    bag = picked.to_bag(index=False, format="dict")
    return score_bag(bag, evaluator, split_every=split_every, scheduler=scheduler)


# -- a document stream on an existing cluster -----------------------------------------------
def score_on_cluster(docs: Iterable[Document], evaluator: SpanEvaluator, scheduler: Any, *,
                     partition_size: int | None = None):
    """Score a stream read here on a ``distributed`` cluster (address or ``Client``).

    Chunks travel inside their tasks (not scattered), so the scheduler can rerun a chunk
    whose worker died; a bounded number is in flight, merged in order.
    """
    distributed = _require("distributed")
    own = not isinstance(scheduler, distributed.Client)
    client = distributed.Client(scheduler, set_as_default=False) if own else scheduler
    try:
        slots = max(1, sum(client.nthreads().values()))
        run, numbers = uuid4().hex, count()

        def submit(chunk: Sequence[Any]):
            return client.submit(tally_chunk, evaluator, chunk, pure=False,
                                 key=f"spacy-span-eval-chunk-{run}-{next(numbers)}")

        return merge_in_order(submit, chunk_documents(docs, evaluator, partition_size),
                              settings=evaluator.settings, max_in_flight=2 * slots)
    finally:
        if own:
            client.close()
