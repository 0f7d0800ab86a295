"""Parallel reading: workers read their own byte ranges of a file pair and return tallies.

The file pair is cut into pairs of byte ranges that hold the same documents
(:mod:`..readers.ranges`); a worker reads one pair of ranges with the columnar readers
(:func:`..readers.columnar.read_columns`), scores it, and returns the tally with what it
read (documents, spans, repairs per side). Tallies are merged in range order, which is
document order, so the result is the single-process one, error records included (see
``docs/parallel.md``). Only the plan and the tallies cross between processes.

Whatever a worker cannot do as one process would — its ranges hold an error, or hold
different numbers of documents (the plan's guess was wrong) — it reports, and the whole
pair is then read again in this process, which fails or succeeds exactly as one process
does (with its own messages, which number documents from the start of the files).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from ..engine.batching import SpanBatch
from ..engine.evaluator import SpanEvaluator
from ..engine.tally import Tally
from ..readers.columnar import column_ranges, read_columns
from ..readers.pairing import SideInfo
from ..readers.ranges import RangePair
from .chunks import Room, error_room
from .parallel import setup_worker

__all__ = ["MIN_PART_BYTES", "PART_BYTES", "FilePair", "PartTally", "join_exiting_pools",
           "pool_context", "score_pair_in_processes", "tally_part"]

#: Bytes of the gold file per unit of work (the predictions file is cut to match): about a
#: quarter of each worker's share, at least MIN_PART_BYTES, at most PART_BYTES.
PART_BYTES = 16 << 20
MIN_PART_BYTES = 1 << 20
#: Towards the end, a part is at most 1 / (TAPER x workers) of what is left, so that the
#: workers finish together (the plan's ``taper``).
TAPER = 1
#: Answers (finished, not yet merged, or running) held per worker at most.
MAX_HELD = 8


@dataclass(frozen=True)
class FilePair:
    """A gold and a predictions file and how to read them (what ``read_columns`` takes)."""

    gold: str
    pred: str
    gold_format: str
    pred_format: str
    unit: str
    gold_options: Any  # readers.ReadOptions
    pred_options: Any

    def read(self, parts: RangePair | None = None):
        """``(batches, info)`` of the pair or of ``parts`` of it (``None``: not a pair the
        columnar readers read)."""
        return read_columns(self.gold, self.pred, gold_format=self.gold_format,
                            pred_format=self.pred_format, unit=self.unit,
                            gold_options=self.gold_options, pred_options=self.pred_options,
                            parts=parts)

    def plan(self, part_bytes: int, taper: int = 0) -> Iterator[RangePair] | None:
        return column_ranges(self.gold, self.pred, gold_format=self.gold_format,
                             pred_format=self.pred_format, unit=self.unit,
                             gold_options=self.gold_options, pred_options=self.pred_options,
                             part_bytes=part_bytes, taper=taper)


@dataclass
class PartTally:
    """A worker's answer: the tally of its ranges and, per side, ``(documents, spans,
    repaired)``; ``tally`` is ``None`` when the ranges could not be read as one process
    reads them. ``ids``: the documents' ids, when the files pair by id (``same_ids``)."""

    tally: Tally | None
    sides: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    ids: list[str] | None = None


def tally_part(evaluator: SpanEvaluator, pair: FilePair, parts: RangePair,
               room: Room | None = None) -> PartTally:
    """The unit of work: read ``parts`` of ``pair``, score them. ``room`` as in
    :func:`.chunks.tally_chunk`: error records the merged total can still take."""
    ids: list[str] | None = [] if parts.same_ids else None
    try:
        batches, info = pair.read(parts)
        if ids is not None:
            batches = _noting_ids(batches, ids)
        tally = evaluator.tally_batches(batches, room=room)
    except Exception:  # noqa: BLE001 - one process reads the pair again and names it
        return PartTally(None)
    return PartTally(tally, {side: (i.documents, i.spans, i.repaired)
                             for side, i in info.items()}, ids)


def _noting_ids(batches: Iterable[SpanBatch], ids: list[str]) -> Iterator[SpanBatch]:
    for batch in batches:
        ids.extend(batch.doc_ids)
        yield batch


#: The threads of pools whose parts are all done, left while their workers exit.
_EXITING: list[threading.Thread] = []


def _let_exit(pool: Executor) -> None:
    """Shut down a pool whose parts are all done without waiting for its workers to exit
    (a few milliseconds at the end of every run, in which the report can be written). The
    next :func:`pool_context` joins the pool's thread (it joins the workers), so that it
    finds none left; so does the interpreter when it exits."""
    thread = getattr(pool, "_executor_manager_thread", None)  # (shutdown drops it)
    if not isinstance(thread, threading.Thread):
        pool.shutdown(wait=True)
        return
    pool.shutdown(wait=False)
    _EXITING.append(thread)


def join_exiting_pools() -> None:
    """Wait until the workers of the runs that returned have exited (and are reaped: a
    caller that counts its children's CPU time then sees theirs)."""
    while _EXITING:
        _EXITING.pop().join()


def pool_context() -> multiprocessing.context.BaseContext:
    """``fork`` on Linux when no other Python thread runs (a worker then starts in
    milliseconds, with everything imported), else ``spawn``. A thread could hold a lock
    across the fork; the native threads of numpy's BLAS pool are fork-safe."""
    join_exiting_pools()
    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _stop_workers(pool: Executor) -> None:
    """Stop a pool now (Ctrl-C, an error): its workers are terminated, not left to finish
    their parts — the CLI exits at once after an interrupt, and a worker left running would
    outlive it holding its output pipes."""
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def score_pair_in_processes(pair: FilePair, evaluator: SpanEvaluator, *, n_process: int,
                            info: dict[str, SideInfo], part_bytes: int | None = None,
                            pool: Executor | None = None) -> Tally | None:
    """The tally of the whole pair, read and scored by ``n_process`` workers, with ``info``
    filled in; ``None`` (``info`` untouched) where the pair is not read in parts: it cannot
    be cut (:func:`..readers.columnar.column_ranges`), is smaller than two parts, or a
    worker could not read its share as one process would. The caller then reads it in one
    process. ``part_bytes``: default from the gold file's size (:data:`PART_BYTES`);
    ``pool``: an executor to run the parts in instead of a new process pool (it is not shut
    down)."""
    try:
        if part_bytes is None:
            share = os.path.getsize(pair.gold) // (4 * n_process)
            part_bytes = max(MIN_PART_BYTES, min(PART_BYTES, share))
        plan = pair.plan(part_bytes, taper=TAPER * n_process)
        first = None if plan is None else next(plan, None)
    except (OSError, ValueError):
        return None  # the reading route meets it again and names it
    if first is None or first.gold.stop is None:
        return None  # (one range: the whole pair)
    parts = chain([first], plan)  # type: ignore[arg-type]
    total = Tally.empty(evaluator.settings)
    sides = {side: [0, 0, 0] for side in info}
    seen: set[str] = set()  # ids, when the files pair by id: none may repeat
    own = pool is None
    if pool is None:
        pool = ProcessPoolExecutor(max_workers=n_process, mp_context=pool_context(),
                                   initializer=setup_worker)
    pending: deque[Future] = deque()

    def merge_oldest() -> bool:
        nonlocal total
        done: PartTally = pending.popleft().result()
        if done.tally is None:
            return False
        if done.ids is not None:
            before = len(seen)
            seen.update(done.ids)
            if len(seen) != before + len(done.ids):
                return False  # a repeated id: one process says where
        total = total + done.tally
        for side, counts in done.sides.items():
            sides[side] = [a + b for a, b in zip(sides[side], counts, strict=True)]
        return True

    def merge_finished() -> bool:
        """Merge the parts at the head of the queue that are done (in order: error records
        stay in document order)."""
        while pending and pending[0].done():
            if not merge_oldest():
                return False
        return True

    ok = True
    try:
        for part in parts:
            pending.append(pool.submit(tally_part, evaluator, pair, part, error_room(total)))
            ok = merge_finished()
            # Keep every worker busy: wait for any part to finish (not the oldest, which
            # left a worker idle while a long part ran on the other), a queued part at hand
            # for each worker; and hold only so many finished but unmerged answers.
            while ok and len(pending) >= MAX_HELD * n_process:
                ok = merge_oldest()
            running = [f for f in pending if not f.done()]
            while ok and len(running) >= 2 * n_process:
                wait(running, return_when=FIRST_COMPLETED)
                ok = merge_finished()
                running = [f for f in pending if not f.done()]
            if not ok:
                break
        while ok and pending:
            ok = merge_oldest()
    except BaseException:
        for future in pending:
            future.cancel()
        if own:
            _stop_workers(pool)
        raise
    for future in pending:
        future.cancel()
    if own and ok:
        _let_exit(pool)
    elif own:  # (one process reads the pair again: the parts still running are not needed)
        _stop_workers(pool)
    if not ok or not sides["gold"][0]:
        return None  # (no document at all: one process raises the reference's error)
    for side, (documents, spans, repaired) in sides.items():
        info[side].documents += documents
        info[side].spans += spans
        info[side].repaired += repaired
    return total

