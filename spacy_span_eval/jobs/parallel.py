"""Parallel scoring of a document stream, giving exactly the tally one process gives.

Documents are read from the caller's iterator in this process, cut into chunks on the
engine's own batch boundaries and turned into columns here (columns pickle far faster than
``Document`` objects), scored elsewhere, and merged back **in chunk order**. Same batches +
same merge order = the same ledgers, confusion cells and the same first ``max_errors`` error
records as ``evaluator.tally(docs)``. Only a few chunks are in flight at a time, so memory
does not grow with the corpus.

``score_documents`` is the one entry point the CLI needs: ``n_process`` runs a local process
pool, ``dask_scheduler`` sends the same chunks to an existing Dask cluster. When reading and
validating documents costs more than scoring them (JSON lines, say), pass raw items and a
``parse`` function, so that the workers build the documents too.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from ..engine.evaluator import SpanEvaluator
from ..engine.spans import Document
from ..engine.tally import Tally
from .chunks import Part, chunk_documents, merge_chunks, score_chunk
from .options import CONNECT_TIMEOUT, worker_count
from .options import resolve_n_process as resolve_n_process  # (imported from here too)
from .pools import worker_pool


def score_documents(
    docs: Iterable[Document] | Iterable[Any],
    evaluator: SpanEvaluator,
    *,
    n_process: int = 1,
    dask_scheduler: Any = None,
    partition_size: int | None = None,
    parse: Callable[[Any], Document] | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> Tally:
    """Score ``docs`` with ``evaluator``, locally or on a cluster; same tally as one process.

    ``n_process``: worker processes on this machine (``1``: in this process; ``-1``: one per
    CPU). ``dask_scheduler``: a scheduler address (``"tcp://host:8786"``) or a
    ``distributed.Client``; needs the project's ``dask`` extra (``pip install -e ".[dask]"``
    in the clone). ``partition_size``: documents per unit of work, rounded up to whole engine
    batches (default ``4 * evaluator.batch_size``). ``parse``: when given, ``docs`` are raw
    items (JSON lines, row dicts...) and ``parse(item) -> Document`` runs in the workers; it
    must pickle (a module-level function or a ``functools.partial`` of one).
    ``connect_timeout``: seconds to wait for the scheduler at ``dask_scheduler`` to answer.
    """
    if dask_scheduler is None:
        workers = worker_count(n_process)
        if workers == 1:
            return evaluator.tally(docs if parse is None else map(parse, docs))
    elif n_process != 1:
        raise ValueError(
            "give n_process or dask_scheduler, not both "
            "(the cluster decides how many processes score)"
        )
    chunks = chunk_documents(docs, evaluator, partition_size, parse=parse)
    work = partial(score_chunk, parse=parse)
    if dask_scheduler is None:
        return run_in_processes(chunks, evaluator, n_process=workers, work=work).tally
    from .dask_scoring import score_chunks_on_cluster  # (socket, uuid...: for a cluster)

    return score_chunks_on_cluster(
        chunks, evaluator, dask_scheduler, work=work, connect_timeout=connect_timeout
    ).tally


def run_in_processes(
    chunks: Iterable[Sequence[Any]],
    evaluator: SpanEvaluator,
    *,
    n_process: int,
    views: bool = False,
    work: Callable[..., Part] = score_chunk,
) -> Part:
    """Score units of work (lists of batches) on a local pool of ``n_process`` processes
    (spawned: safe in threaded callers) and merge them in order; ``views`` as
    :func:`.chunks.score_batches`.

    Ctrl-C stops the pool from this process: the workers ignore it, the chunks not started
    are cancelled, the workers are terminated (:func:`.pools.worker_pool`), and the
    ``KeyboardInterrupt`` reaches the caller alone."""
    with worker_pool(n_process, context=multiprocessing.get_context("spawn")) as pool:
        return merge_chunks(pool.submit, chunks, evaluator, slots=n_process, views=views, work=work)
