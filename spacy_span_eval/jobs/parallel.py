"""A local pool scoring units of work read in this process, giving exactly the tally one
process gives: the units are merged back **in order** (:func:`.chunks.merge_chunks`), so
the same batches give the same ledgers, confusion cells and first ``max_errors`` error
records as ``evaluator.tally(docs)``; only a few are in flight at a time, so memory does
not grow with the corpus. :func:`.scoring.score_documents` and the ``InPool`` road use it.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..engine.evaluator import SpanEvaluator
from .chunks import Part, merge_chunks, score_chunk
from .pools import worker_pool


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
