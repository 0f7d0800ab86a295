"""Where a pair is scored: the one place that picks this process, worker processes or Dask.

Every command (evaluate, gate, report, compare) opens its pair (:func:`~..readers.open_pair`)
and calls :func:`score`; each road gives the tally one process gives (see docs/parallel.md):

* ``run.dask_scheduler``: units of whole batches scored on that cluster
  (:mod:`.dask_scoring`);
* ``run.n_process`` > 1, and the pair can be read in byte ranges (``source.parts``): each
  worker reads and scores its own ranges (:mod:`.parallel_reading`); a pair that cannot be
  cut after all is read here;
* ``run.n_process`` > 1 otherwise: batches read here, scored by a pool (:mod:`.parallel`);
* else, or when a pipeline's own processes ran it (``source.pipeline``): in this process.
"""

from __future__ import annotations

from ..engine.evaluator import SpanEvaluator
from ..engine.tally import Tally
from ..readers.source import PairSource
from .chunks import Part, chunk_batches, score_batches
from .options import RunOptions, resolve_n_process

__all__ = ["score", "score_part"]


def score(source: PairSource, evaluator: SpanEvaluator, *, run: RunOptions | None = None
          ) -> Tally:
    """The tally of ``source``'s batches under ``evaluator``, scored where ``run`` says."""
    return score_part(source, evaluator, run=run).tally


def score_part(source: PairSource, evaluator: SpanEvaluator, *, run: RunOptions | None = None,
               views: bool = False) -> Part:
    """:func:`score` as a :class:`~.chunks.Part`; ``views``: with the documents its kept error
    records point to (an error browser's)."""
    run = run or RunOptions()
    if run.dask_scheduler is not None:
        from .dask_scoring import score_chunks_on_cluster  # (socket, uuid...: on demand)

        if run.n_process != 1 and not source.pipeline:
            raise ValueError("give n_process or dask_scheduler, not both "
                             "(the cluster decides how many processes score)")
        return score_chunks_on_cluster(chunk_batches(source.batches()), evaluator,
                                       run.dask_scheduler, views=views,
                                       connect_timeout=run.connect_timeout).shown()
    workers = 1 if source.pipeline else resolve_n_process(run.n_process)
    if workers > 1 and source.parts is not None:
        from .parallel_reading import score_pair_in_processes

        part = score_pair_in_processes(source.parts, evaluator, n_process=workers,
                                       info=source.info, views=views)
        if part is not None:
            return part.shown()
    elif workers > 1:
        from .parallel import run_in_processes  # (imports multiprocessing: on demand)

        return run_in_processes(chunk_batches(source.batches()), evaluator,
                                n_process=workers, views=views).shown()
    return score_batches(evaluator, source.batches(), views=views)
