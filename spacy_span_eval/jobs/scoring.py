"""Where a pair is scored: the one place that picks this process, worker processes or Dask.

Every command (evaluate, gate, report, compare) opens its pair (:func:`~..readers.open_pair`)
and calls :func:`score` (or :func:`score_part`). :func:`road_for` picks one road, and each
road gives the tally one process gives (see docs/parallel.md):

* :class:`OnCluster` (``run.dask_scheduler``): units of whole batches scored on that cluster
  (:mod:`.dask_scoring`);
* :class:`InParts` (``run.n_process`` > 1, and the pair can be read in byte ranges:
  ``source.parts``): each worker reads and scores its own ranges (:mod:`.parallel_reading`);
  a pair that cannot be cut after all is read in this process;
* :class:`InPool` (``run.n_process`` > 1 otherwise): batches read here, scored by a pool of
  processes (:mod:`.parallel`);
* :class:`InThisProcess`: else, and when a pipeline's own processes ran it
  (``source.pipeline``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..engine.evaluator import SpanEvaluator
from ..engine.tally import Tally
from ..readers.source import PairSource
from .chunks import Part, chunk_batches, score_batches
from .options import CONNECT_TIMEOUT, RunOptions, notice, worker_count

__all__ = [
    "InParts",
    "InPool",
    "InThisProcess",
    "OnCluster",
    "Road",
    "road_for",
    "score",
    "score_part",
]


class Road(Protocol):
    """One way to score a source: every road gives the part one process gives."""

    def score(self, source: PairSource, evaluator: SpanEvaluator, *, views: bool) -> Part: ...


def score(source: PairSource, evaluator: SpanEvaluator, *, run: RunOptions | None = None) -> Tally:
    """The tally of ``source``'s batches under ``evaluator``, scored where ``run`` says."""
    return score_part(source, evaluator, run=run).tally


def score_part(
    source: PairSource,
    evaluator: SpanEvaluator,
    *,
    run: RunOptions | None = None,
    views: bool = False,
) -> Part:
    """:func:`score` as a :class:`~.chunks.Part`; ``views``: with the documents its kept error
    records point to (an error browser's)."""
    return road_for(source, run or RunOptions()).score(source, evaluator, views=views)


def road_for(source: PairSource, run: RunOptions) -> Road:
    """The road ``run`` asks for, as far as ``source`` allows it."""
    if run.dask_scheduler is not None:
        if run.n_process != 1 and not source.pipeline:
            raise ValueError(
                "give n_process or dask_scheduler, not both "
                "(the cluster decides how many processes score)"
            )
        return OnCluster(run.dask_scheduler, run.connect_timeout)
    workers = 1 if source.pipeline else worker_count(run.n_process)
    if workers == 1:
        return InThisProcess()
    return InParts(workers) if source.parts is not None else InPool(workers)


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


@dataclass(frozen=True)
class InPool:
    """Batches read here, scored by a pool of worker processes."""

    n_process: int

    def score(self, source: PairSource, evaluator: SpanEvaluator, *, views: bool) -> Part:
        from .parallel import run_in_processes  # (imports multiprocessing: on demand)

        return run_in_processes(
            chunk_batches(source.batches()), evaluator, n_process=self.n_process, views=views
        ).shown()


@dataclass(frozen=True)
class OnCluster:
    """Batches read here, scored on a Dask cluster (an address or a ``distributed.Client``)
    that must answer within ``connect_timeout`` seconds."""

    scheduler: Any
    connect_timeout: float = CONNECT_TIMEOUT

    def score(self, source: PairSource, evaluator: SpanEvaluator, *, views: bool) -> Part:
        from .dask_scoring import score_chunks_on_cluster  # (socket, uuid...: on demand)

        return score_chunks_on_cluster(
            chunk_batches(source.batches()),
            evaluator,
            self.scheduler,
            views=views,
            connect_timeout=self.connect_timeout,
        ).shown()
