"""Parallel scoring of a document stream, giving exactly the tally one process gives.

Documents are read from the caller's iterator in this process, cut into chunks on the
engine's own batch boundaries and turned into columns here (columns pickle an order of
magnitude faster than ``Document`` objects), scored elsewhere, and merged back **in chunk
order**. Same batches + same merge order = the same ledgers, confusion cells and the same
first ``max_errors`` error records as ``evaluator.tally(docs)``. Only a few chunks are in
flight at a time, so memory does not grow with the corpus.

``score_documents`` is the one entry point the CLI needs: ``n_process`` runs a local process
pool, ``dask_scheduler`` sends the same chunks to an existing Dask cluster. When reading and
validating documents costs more than scoring them (JSON lines: about 4:1), pass raw items and
a ``parse`` function, so that the workers build the documents too.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from itertools import islice
from typing import Any, Protocol

from .batching import SpanBatch, batches, documents_to_batch
from .engine import SpanEvaluator
from .settings import Settings
from .spans import Document
from .tally import Tally

#: Default chunk: this many engine batches (``evaluator.batch_size`` documents each).
BATCHES_PER_CHUNK = 4

#: Per level, the error records per threshold a merged total can still take.
Room = dict[str, list[int]]


class _Result(Protocol):
    def result(self) -> Tally: ...

    def cancel(self) -> bool: ...


def score_documents(
    docs: Iterable[Document] | Iterable[Any],
    evaluator: SpanEvaluator,
    *,
    n_process: int = 1,
    dask_scheduler: Any = None,
    partition_size: int | None = None,
    parse: Callable[[Any], Document] | None = None,
) -> Tally:
    """Score ``docs`` with ``evaluator``, locally or on a cluster; same tally as one process.

    ``n_process``: worker processes on this machine (``1``: in this process; ``-1``: one per
    CPU). ``dask_scheduler``: a scheduler address (``"tcp://host:8786"``) or a
    ``distributed.Client``; needs ``pip install 'spacy-span-eval[dask]'``. ``partition_size``:
    documents per unit of work, rounded up to whole engine batches (default
    ``4 * evaluator.batch_size``). ``parse``: when given, ``docs`` are raw items (JSON lines,
    row dicts...) and ``parse(item) -> Document`` runs in the workers; it must pickle (a
    module-level function or a ``functools.partial`` of one).
    """
    if dask_scheduler is not None:
        if n_process != 1:
            raise ValueError("give n_process or dask_scheduler, not both "
                             "(the cluster decides how many processes score)")
        from .dask_scoring import score_on_cluster

        return score_on_cluster(docs, evaluator, dask_scheduler, partition_size=partition_size,
                                parse=parse)
    workers = resolve_n_process(n_process)
    if workers == 1:
        return evaluator.tally(docs if parse is None else map(parse, docs))
    return score_in_processes(docs, evaluator, n_process=workers, partition_size=partition_size,
                              parse=parse)


def resolve_n_process(n_process: int) -> int:
    """spaCy's convention: a positive count, or ``-1`` for one process per CPU."""
    if n_process == -1:
        return os.cpu_count() or 1
    if isinstance(n_process, bool) or not isinstance(n_process, int) or n_process < 1:
        raise ValueError(f"n_process must be a positive integer or -1 (all CPUs), "
                         f"not {n_process!r}")
    return n_process


def score_in_processes(docs: Iterable[Any], evaluator: SpanEvaluator, *, n_process: int,
                       partition_size: int | None = None,
                       parse: Callable[[Any], Document] | None = None) -> Tally:
    """Score on a local pool of ``n_process`` processes (spawned: safe in threaded callers)."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=n_process, mp_context=context) as pool:
        return merge_in_order(
            lambda chunk, room: pool.submit(tally_chunk, evaluator, chunk, parse, room),
            chunk_documents(docs, evaluator, partition_size, parse=parse),
            settings=evaluator.settings,
            max_in_flight=2 * n_process,
        )


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
    groups: Iterator[Any] = batches(docs, size)
    if parse is None:
        groups = (documents_to_batch(group) for group in groups)
    while chunk := list(islice(groups, per_chunk)):
        yield chunk


def tally_chunk(evaluator: SpanEvaluator, chunk: list[Any],
                parse: Callable[[Any], Document] | None = None,
                room: Room | None = None) -> Tally:
    """The unit of work a worker runs: one chunk's batches, summed in order.

    ``room``: per level, how many error records per threshold the merged total could still
    take when the chunk was sent; records past that would be dropped on merge, so they are
    not shipped back (they cost more to pickle than the chunk costs to score).
    """
    total = Tally.empty(evaluator.settings)
    for part in chunk:
        batch: SpanBatch = part if parse is None else documents_to_batch(list(map(parse, part)))
        total = total + evaluator.tally_batch(batch)
    for level, rooms in (room or {}).items():
        view = total.views[level]
        view.errors = [kept[:n] for kept, n in zip(view.errors, rooms, strict=True)]
    return total


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
