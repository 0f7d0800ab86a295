"""Where a pair is scored: the one place that picks this process, worker processes or Dask.

Every command (evaluate, gate, report, compare) opens its pair (:func:`~..readers.open_pair`)
and calls :func:`score`. :func:`road_for` picks one road, and each
road gives the tally one process gives (see docs/parallel.md):

* :class:`OnCluster` (``run.dask_scheduler``): units of whole batches scored on that cluster
  (:mod:`.dask_scoring`);
* :class:`InParts` (``run.n_process`` > 1, and the pair can be read in byte ranges:
  ``source.parts``): each worker reads and scores its own ranges (:mod:`.parallel_reading`);
  a pair that cannot be cut after all is read in this process;
* :class:`InPool` (``run.n_process`` > 1 otherwise): batches read here, scored by a pool of
  processes (:mod:`.pools`);
* :class:`InThisProcess`: else, and when a pipeline's own processes ran it
  (``source.pipeline``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from ..engine.evaluator import SpanEvaluator
from ..engine.spans import Document
from ..engine.tally import Tally
from ..readers.source import PairSource
from .chunks import (
    Part,
    chunk_batches,
    chunk_documents,
    merge_in_order,
    score_batches,
    score_chunk,
)
from .options import CONNECT_TIMEOUT, RunOptions, notice, worker_count

__all__ = [
    "Elsewhere",
    "InParts",
    "InPool",
    "InThisProcess",
    "OnCluster",
    "Road",
    "chunk_road",
    "road_for",
    "score",
    "score_documents",
]


class Road(Protocol):
    """One way to score a source: every road gives the part one process gives."""

    def score(self, source: PairSource, evaluator: SpanEvaluator, *, views: bool) -> Part: ...


def score(
    source: PairSource,
    evaluator: SpanEvaluator,
    *,
    run: RunOptions | None = None,
    views: bool = False,
) -> Part:
    """The tally of ``source``'s batches under ``evaluator``, scored where ``run`` says, as a
    :class:`~.chunks.Part`; ``views``: with the documents its kept error records point to (an
    error browser's)."""
    return road_for(source, run or RunOptions()).score(source, evaluator, views=views)


def road_for(source: PairSource, run: RunOptions) -> Road:
    """The road ``run`` asks for, as far as ``source`` allows it."""
    road = chunk_road(run, pipeline=source.pipeline)
    if isinstance(road, InPool) and source.parts is not None:
        return InParts(road.n_process)
    return road or InThisProcess()


def chunk_road(run: RunOptions, *, pipeline: bool = False) -> Elsewhere | None:
    """Where units of work read in this process are scored: a pool, a Dask cluster, or
    ``None`` (here: one process asked for, or a pipeline's own processes ran it)."""
    if run.dask_scheduler is not None:
        if run.n_process != 1 and not pipeline:
            raise ValueError(
                "give n_process or dask_scheduler, not both "
                "(the cluster decides how many processes score)"
            )
        return OnCluster(run.dask_scheduler, run.connect_timeout)
    workers = 1 if pipeline else worker_count(run.n_process)
    return None if workers == 1 else InPool(workers)


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

    Documents are read from ``docs`` here, cut into units of work on the engine's own batch
    boundaries (turned into columns here, unless ``parse`` runs in the workers), scored
    elsewhere and merged back in order: the same ledgers, confusion cells and first error
    records as ``evaluator.tally(docs)``, with only a few units in flight at a time.
    """
    run = RunOptions(n_process, dask_scheduler=dask_scheduler, connect_timeout=connect_timeout)
    road = chunk_road(run)
    if road is None:
        return evaluator.tally(docs if parse is None else map(parse, docs))
    chunks = chunk_documents(docs, evaluator, partition_size, parse=parse)
    return road.score_chunks(chunks, evaluator, work=partial(score_chunk, parse=parse)).tally


@dataclass(frozen=True)
class InThisProcess:
    """Read and score in this process."""

    def score(self, source: PairSource, evaluator: SpanEvaluator, *, views: bool) -> Part:
        return score_batches(evaluator, source.batches(), views=views)


@dataclass(frozen=True)
class InParts:
    """Workers read and score their own byte ranges of the pair."""

    n_process: int

    def score(self, source: PairSource, evaluator: SpanEvaluator, *, views: bool) -> Part:
        from .parallel_reading import score_pair_in_processes

        assert source.parts is not None
        reasons: list[str] = []
        part = score_pair_in_processes(
            source.parts,
            evaluator,
            n_process=self.n_process,
            info=source.info,
            views=views,
            reasons=reasons,
        )
        if part is None:  # (the pair cannot be cut after all)
            whole = InThisProcess().score(source, evaluator, views=views)
            for reason in reasons:  # (an error read in one process says it all)
                notice(f"--n-process {self.n_process}: the pair was read in one process: {reason}")
            return whole
        source.check_unchanged()  # (the workers read the files, not the stream)
        return part.shown()


class Elsewhere:
    """The roads that read batches here and score them elsewhere, in units of work merged
    back in order (:func:`.chunks.merge_in_order`): :meth:`workers` says where."""

    def score(self, source: PairSource, evaluator: SpanEvaluator, *, views: bool) -> Part:
        return self.score_chunks(chunk_batches(source.batches()), evaluator, views=views).shown()

    def score_chunks(
        self,
        chunks: Iterable[Sequence[Any]],
        evaluator: SpanEvaluator,
        *,
        views: bool = False,
        work: Callable[..., Part] = score_chunk,
    ) -> Part:
        """Units of work (lists of batches) scored with ``submit(work, evaluator, chunk,
        views)``, two per slot in flight, merged in order into one :class:`~.chunks.Part`;
        ``views`` as :func:`.chunks.score_batches`."""
        with self.workers() as (submit, slots):
            part: Part = merge_in_order(
                lambda chunk: submit(work, evaluator, chunk, views),
                chunks,
                settings=evaluator.settings,
                max_in_flight=2 * slots,
                start=Part(Tally.empty(evaluator.settings)),
            )
            return part

    def workers(self) -> AbstractContextManager[tuple[Callable[..., Any], int]]:
        """A submit function and how many units of work it runs at once, while in use."""
        raise NotImplementedError


@dataclass(frozen=True)
class InPool(Elsewhere):
    """Batches read here, scored by a pool of worker processes (spawned: safe in threaded
    callers). Ctrl-C stops the pool from this process: the workers ignore it, the chunks not
    started are cancelled, the workers are terminated (:func:`.pools.worker_pool`), and the
    ``KeyboardInterrupt`` reaches the caller alone."""

    n_process: int

    @contextmanager
    def workers(self) -> Iterator[tuple[Callable[..., Any], int]]:
        import multiprocessing  # (with the pools' concurrent.futures: on demand)

        from .pools import worker_pool

        with worker_pool(self.n_process, context=multiprocessing.get_context("spawn")) as pool:
            yield pool.submit, self.n_process


@dataclass(frozen=True)
class OnCluster(Elsewhere):
    """Batches read here, scored on a Dask cluster (an address or a ``distributed.Client``)
    that must answer within ``connect_timeout`` seconds."""

    scheduler: Any
    connect_timeout: float = CONNECT_TIMEOUT

    def workers(self) -> AbstractContextManager[tuple[Callable[..., Any], int]]:
        from .dask_scoring import cluster  # (socket, uuid...: on demand)

        return cluster(self.scheduler, connect_timeout=self.connect_timeout)
