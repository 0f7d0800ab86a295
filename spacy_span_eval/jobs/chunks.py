"""Chunks of a document stream, scored one by one and merged back in stream order.

The shared machinery of local process pools (:mod:`.parallel`) and Dask clusters
(:mod:`.dask_scoring`): chunks are cut exactly where the evaluator would cut batches, a worker
tallies one chunk, and the caller merges tallies in submission order, so the result equals
``evaluator.tally(docs)`` whatever runs the chunks.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any, Protocol

from ..engine.batching import batches, checked_documents, documents_to_batch
from ..engine.evaluator import SpanEvaluator
from ..engine.settings import Settings
from ..engine.spans import Document
from ..engine.tally import ErrorRoom, Tally

#: Default chunk: this many engine batches (``evaluator.batch_size`` documents each).
BATCHES_PER_CHUNK = 4

#: Per level, the error records per threshold a merged total can still take.
Room = ErrorRoom


class _Result(Protocol):
    def result(self) -> Tally: ...

    def cancel(self) -> bool: ...


def chunk_documents(docs: Iterable[Any], evaluator: SpanEvaluator,
                    partition_size: int | None = None, *,
                    parse: Callable[[Any], Document] | None = None) -> Iterator[list[Any]]:
    """Chunks cut exactly where ``evaluator.tally`` would cut batches: lists of columnar
    batches, or (with ``parse``) lists of batch-sized lists of raw items.

    Whole batches: each worker then scores exactly the batches one process would (same
    sizes, same label interning), which keeps "identical" easy to reason about.
    """
    size = evaluator.batch_size
    if partition_size is None:
        per_chunk = BATCHES_PER_CHUNK
    elif partition_size < 1:
        raise ValueError(f"partition_size must be a positive number of documents, "
                         f"not {partition_size!r}")
    else:
        per_chunk = -(-partition_size // size)
    groups: Iterator[Any]
    if parse is None:
        groups = (documents_to_batch(group) for group in batches(
            checked_documents(docs, evaluator.settings.unit), size))
    else:
        groups = batches(docs, size)
    while chunk := list(islice(groups, per_chunk)):
        yield chunk


def tally_chunk(evaluator: SpanEvaluator, chunk: list[Any],
                parse: Callable[[Any], Document] | None = None,
                room: Room | None = None) -> Tally:
    """The unit of work a worker runs: one chunk's batches, summed in order.

    ``room``: per level, how many error records per threshold the merged total could still
    take when the chunk was sent; records past that would be dropped on merge, so they are
    neither built nor shipped back (they cost more than the chunk costs to score).
    """
    parts = chunk if parse is None else (documents_to_batch(list(map(parse, part)))
                                         for part in chunk)
    return evaluator.tally_batches(parts, room=room)


def error_room(total: Tally) -> Room | None:
    """Error records the total can still take, per level and threshold (None: no cap)."""
    cap = total.settings.max_errors
    if cap is None:
        return None
    return {level: [max(0, cap - len(kept)) for kept in view.errors]
            for level, view in total.views.items()}


def merge_in_order(submit: Callable[[list[Any], Room | None], _Result],
                   chunks: Iterable[list[Any]], *, settings: Settings,
                   max_in_flight: int) -> Tally:
    """Submit chunks while at most ``max_in_flight`` are unmerged; merge in submission order.

    Waiting on the oldest chunk (not the first to finish) is what keeps the error records in
    stream order; the bound is what keeps memory flat on a corpus of any size.
    """
    if max_in_flight < 1:
        raise ValueError("max_in_flight must be at least 1")
    total = Tally.empty(settings)
    pending: deque[_Result] = deque()
    try:
        for chunk in chunks:
            pending.append(submit(chunk, error_room(total)))
            if len(pending) >= max_in_flight:
                total = total + pending.popleft().result()
        while pending:
            total = total + pending.popleft().result()
    except BaseException:
        for future in pending:
            future.cancel()
        raise
    return total
