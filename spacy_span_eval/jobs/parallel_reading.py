"""Parallel reading: workers read their own byte ranges of a file pair and return tallies.

The file pair is cut into pairs of byte ranges that hold the same documents
(:mod:`..readers.ranges`); a worker reads one pair of ranges with the columnar readers
(:meth:`..readers.columnar.ColumnPair.read`), scores it, and returns the tally with what it
read (documents, spans, repairs per side). Tallies are merged in range order, which is
document order, so the result is the single-process one, error records included (see
``docs/parallel.md``). Only the plan and the tallies cross between processes.

Whatever a worker cannot do as one process would — its ranges hold an error, or hold
different numbers of documents (the plan's guess was wrong) — it reports, and the whole
pair is then read again in this process, which fails or succeeds exactly as one process
does (with its own messages, which number documents from the start of the files).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from itertools import chain
from typing import cast

from ..engine.batching import SpanBatch
from ..engine.evaluator import SpanEvaluator
from ..engine.tally import Tally
from ..readers.align import TokenDifferences
from ..readers.columnar import ColumnPair
from ..readers.pairing import SideInfo
from ..readers.ranges import RangePair
from .chunks import Part, Room, error_room, score_batches
from .options import worker_count
from .pools import WorkerPool, pool_context, worker_pool

__all__ = [
    "MIN_PART_BYTES",
    "PART_BYTES",
    "PartTally",
    "pool_context",
    "score_pair_in_processes",
    "tally_part",
]

#: Bytes of the gold file per unit of work (the predictions file is cut to match): about a
#: quarter of each worker's share, at least MIN_PART_BYTES, at most PART_BYTES.
PART_BYTES = 16 << 20
MIN_PART_BYTES = 1 << 20
#: Towards the end, a part is at most 1 / (TAPER x workers) of what is left, so that the
#: workers finish together (the plan's ``taper``).
TAPER = 1
#: Answers (finished, not yet merged, or running) held per worker at most.
MAX_HELD = 8


@dataclass
class PartTally:
    """A worker's answer: the :class:`~.chunks.Part` of its ranges and, per side,
    ``(documents, spans, repaired)``; ``part`` is ``None`` when the ranges could not be read as
    one process reads them. ``ids``: the documents' ids, when the files pair by id
    (``same_ids``). ``alignment``: with ``--align position``, the differing tokens found.
    ``notes``: per side, what the readers counted (texts differing in trailing whitespace)."""

    part: Part | None
    sides: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    ids: list[str] | None = None
    alignment: TokenDifferences | None = None
    notes: dict[str, Counter] = field(default_factory=dict)


def tally_part(
    evaluator: SpanEvaluator,
    pair: ColumnPair,
    parts: RangePair,
    room: Room | None = None,
    views: bool = False,
) -> PartTally:
    """The unit of work: read ``parts`` of ``pair``, score them. ``room`` and ``views`` as
    in :func:`.chunks.score_batches`."""
    ids: list[str] | None = [] if parts.same_ids else None
    try:
        batches, info = pair.read(parts)
        if ids is not None:
            batches = _noting_ids(batches, ids)
        part = score_batches(evaluator, batches, room=room, views=views)
    except Exception:  # noqa: BLE001 - one process reads the pair again and names it
        return PartTally(None)
    return PartTally(
        part,
        {side: (i.documents, i.spans, i.repaired) for side, i in info.items()},
        ids,
        info["predicted"].alignment,
        {side: i.notes for side, i in info.items()},
    )


def _noting_ids(batches: Iterable[SpanBatch], ids: list[str]) -> Iterator[SpanBatch]:
    for batch in batches:
        ids.extend(batch.doc_ids)
        yield batch


def score_pair_in_processes(
    pair: ColumnPair,
    evaluator: SpanEvaluator,
    *,
    n_process: int,
    info: dict[str, SideInfo],
    part_bytes: int | None = None,
    pool: Executor | None = None,
    views: bool = False,
    reasons: list[str] | None = None,
) -> Part | None:
    """The :class:`~.chunks.Part` of the whole pair, read and scored by ``n_process`` workers,
    with ``info`` filled in; ``None`` (``info`` untouched) where the pair is not read in
    parts: it cannot be cut (:meth:`..readers.columnar.ColumnPair.plan`), is smaller than
    two parts, or a
    worker could not read its share as one process would. The caller then reads it in one
    process. ``part_bytes``: default from the gold file's size (:data:`PART_BYTES`);
    ``pool``: an executor to run the parts in instead of a new process pool (it is not shut
    down). No more workers than the gold file has parts (said on stderr when that caps
    ``n_process``). ``reasons``: where the pair is big enough to cut but read in one
    process after all, why (one line, for the caller to say once the pair is read)."""
    why = reasons if reasons is not None else []
    try:
        size = pair.size()
        if part_bytes is None:
            share = size // (4 * n_process)
            part_bytes = max(MIN_PART_BYTES, min(PART_BYTES, share))
        parts_about = -(-size // part_bytes)
        if pool is None and 2 <= parts_about < n_process:
            n_process = worker_count(n_process, parts=parts_about)
        plan = pair.plan(part_bytes, taper=TAPER * n_process)
        first = None if plan is None else next(plan, None)
    except (OSError, ValueError):
        return None  # the reading route meets it again and names it
    if plan is None:
        if parts_about >= 2:
            why.append("a JSON array is read in one piece (JSON Lines files are cut)")
        return None
    if first is None or first.gold.stop is None:
        if parts_about >= 2:
            why.append(
                "no place was found where both files start the same sentence "
                "(a lone carriage return, or fewer sentences in one file)"
            )
        return None  # (one range: the whole pair)
    parts = chain([first], plan)
    total = Part(Tally.empty(evaluator.settings))
    sides = {side: [0, 0, 0] for side in info}
    notes: dict[str, Counter] = {side: Counter() for side in info}
    alignment = TokenDifferences() if pair.align == "position" else None
    seen: set[str] = set()  # ids, when the files pair by id: none may repeat
    own = pool is None
    scope: AbstractContextManager[Executor] = (
        worker_pool(n_process, context=pool_context()) if pool is None else nullcontext(pool)
    )
    pending: deque[Future] = deque()

    def merge_oldest() -> bool:
        nonlocal total
        done: PartTally = pending.popleft().result()
        if done.part is None:
            return False
        if done.ids is not None:
            before = len(seen)
            seen.update(done.ids)
            if len(seen) != before + len(done.ids):
                return False  # a repeated id: one process says where
        total = total + done.part
        if alignment is not None and done.alignment is not None:
            alignment.add(done.alignment)
        for side, counts in done.sides.items():
            sides[side] = [a + b for a, b in zip(sides[side], counts, strict=True)]
        for side, counted in done.notes.items():
            notes[side].update(counted)
        return True

    def merge_finished() -> bool:
        """Merge the parts at the head of the queue that are done (in order: error records
        stay in document order)."""
        while pending and pending[0].done():
            if not merge_oldest():
                return False
        return True

    ok = True
    with scope as pool:
        try:
            for part in parts:
                pending.append(
                    pool.submit(tally_part, evaluator, pair, part, error_room(total), views)
                )
                ok = merge_finished()
                # Keep every worker busy: wait for any part to finish (not the oldest,
                # which left a worker idle while a long part ran on the other), a queued
                # part at hand for each worker; and hold only so many finished but
                # unmerged answers.
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
            raise  # (the pool terminates its workers)
        for future in pending:
            future.cancel()
        if own and not ok:
            # (one process reads the pair again: the parts still running are not needed)
            cast(WorkerPool, pool).terminate_workers()
    if not ok:
        why.append(
            "a part could not be read as one process reads it (its two ranges did not hold "
            "the same sentences, or it holds an error)"
        )
        return None
    if not sides["gold"][0]:
        return None  # (no document at all: one process raises the reference's error)
    for side, (documents, spans, repaired) in sides.items():
        info[side].documents += documents
        info[side].spans += spans
        info[side].repaired += repaired
        info[side].notes.update(notes[side])
    if alignment is not None:
        info["predicted"].alignment = alignment
    return total
