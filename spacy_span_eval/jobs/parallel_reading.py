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

from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from contextlib import closing
from dataclasses import dataclass, field
from functools import partial
from itertools import chain

from ..engine.batching import SpanBatch
from ..engine.evaluator import SpanEvaluator
from ..engine.tally import Tally
from ..readers.align import SideInfo
from ..readers.columnar import ColumnPair
from ..readers.ranges import RangePair
from .chunks import Part, score_batches
from .options import worker_count
from .pools import pool_context, worker_pool

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
    """A worker's answer: the :class:`~.chunks.Part` of its ranges and what each side read
    (``info``: documents, spans, repairs, notes and, with ``--align position``, the differing
    tokens); ``part`` is ``None`` when the ranges could not be read as one process reads them.
    ``ids``: the documents' ids, when the files pair by id (``same_ids``)."""

    part: Part | None
    info: dict[str, SideInfo] = field(default_factory=dict)
    ids: list[str] | None = None


def tally_part(
    evaluator: SpanEvaluator, pair: ColumnPair, parts: RangePair, views: bool = False
) -> PartTally:
    """The unit of work: read ``parts`` of ``pair``, score them. ``views`` as in
    :func:`.chunks.score_batches`."""
    ids: list[str] | None = [] if parts.same_ids else None
    try:
        batches, info = pair.read(parts)
        if ids is not None:
            batches = _noting_ids(batches, ids)
        part = score_batches(evaluator, batches, views=views)
    except Exception:  # noqa: BLE001 - one process reads the pair again and names it
        return PartTally(None)
    return PartTally(part, info, ids)


def _noting_ids(batches: Iterable[SpanBatch], ids: list[str]) -> Iterator[SpanBatch]:
    for batch in batches:
        ids.extend(batch.doc_ids)
        yield batch


def _add_read(into: SideInfo, read: SideInfo) -> None:
    """Count what ``read`` (a later part of the same side) read into ``into``."""
    into.documents += read.documents
    into.spans += read.spans
    into.repaired += read.repaired
    for name in ("tokens", "correct_tags"):
        if getattr(read, name) is not None:
            setattr(into, name, (getattr(into, name) or 0) + getattr(read, name))
    into.notes.update(read.notes)
    into.notes.docstarts += read.notes.docstarts
    if read.alignment is not None:
        if into.alignment is None:
            into.alignment = read.alignment
        else:
            into.alignment.add(read.alignment)


class _Merged:
    """The parts merged so far, in document order, and what their sides read."""

    def __init__(self, evaluator: SpanEvaluator, pair: ColumnPair) -> None:
        self.total = Part(Tally.empty(evaluator.settings))
        self.sides = pair.sides()
        self.seen: set[str] = set()  # ids, when the files pair by id: none may repeat

    def add(self, done: PartTally) -> bool:
        """Merge the next part; ``False`` where it was not read as one process reads it
        (or repeats an id: one process then says where)."""
        if done.part is None:
            return False
        if done.ids is not None:
            before = len(self.seen)
            self.seen.update(done.ids)
            if len(self.seen) != before + len(done.ids):
                return False
        self.total = self.total + done.part
        for side, read in done.info.items():
            _add_read(self.sides[side], read)
        return True


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
    two parts, or a worker could not read its share as one process would. The caller then
    reads it in one process. ``part_bytes``: default from the gold file's size
    (:data:`PART_BYTES`); ``pool``: an executor to run the parts in instead of a new process
    pool (it is not shut down). No more workers than the gold file has parts (said on stderr
    when that caps ``n_process``). ``reasons``: where the pair is big enough to cut but read
    in one process after all, why (one line, for the caller to say once the pair is read)."""
    why = reasons if reasons is not None else []
    planned = _plan(pair, n_process, part_bytes, cap_workers=pool is None, why=why)
    if planned is None:
        return None
    parts, n_process = planned
    merged = _Merged(evaluator, pair)
    work = partial(tally_part, evaluator, pair, views=views)

    def merge_all(executor: Executor) -> bool:
        with closing(_in_order(executor, work, parts, n_process)) as answers:
            return all(map(merged.add, answers))

    if pool is not None:
        ok = merge_all(pool)
    else:
        with worker_pool(n_process, context=pool_context()) as own:
            ok = merge_all(own)
            if not ok:  # (one process reads the pair again: the running parts are not needed)
                own.terminate_workers()
    if not ok:
        why.append(
            "a part could not be read as one process reads it (its two ranges did not hold "
            "the same sentences, or it holds an error)"
        )
        return None
    if not merged.sides["gold"].documents:
        return None  # (no document at all: one process raises the reference's error)
    for side, read in merged.sides.items():
        _add_read(info[side], read)
    return merged.total


def _plan(
    pair: ColumnPair, n_process: int, part_bytes: int | None, *, cap_workers: bool, why: list[str]
) -> tuple[Iterator[RangePair], int] | None:
    """The parts to read and how many workers read them, or ``None`` where the pair is read
    in one piece (with the reason in ``why`` where it is big enough to cut)."""
    try:
        size = pair.size()
        if part_bytes is None:
            part_bytes = max(MIN_PART_BYTES, min(PART_BYTES, size // (4 * n_process)))
        parts_about = -(-size // part_bytes)
        if cap_workers and 2 <= parts_about < n_process:
            n_process = worker_count(n_process, parts=parts_about)
        plan = pair.plan(part_bytes, taper=TAPER * n_process)
        first = None if plan is None else next(plan, None)
    except (OSError, ValueError):
        return None  # the reading route meets it again and names it
    if plan is None:
        if parts_about >= 2:
            why.append("a JSON array is read in one piece (JSON Lines files are cut)")
        return None
    if first is None or first.gold.stop is None:  # (one range: the whole pair)
        if parts_about >= 2:
            why.append(
                "no place was found where both files start the same sentence "
                "(a lone carriage return, or fewer sentences in one file)"
            )
        return None
    return chain([first], plan), n_process


def _in_order(
    pool: Executor,
    work: Callable[[RangePair], PartTally],
    parts: Iterable[RangePair],
    n_process: int,
) -> Generator[PartTally, None, None]:
    """``work`` run on every part in ``pool``: the answers in part order (error records stay
    in document order). The parts not started are cancelled when the caller stops.

    Every worker is kept busy: a new part is handed out as soon as any part finishes (not
    the oldest, which left a worker idle while a long part ran on the other), a queued part
    at hand for each worker; and only so many finished but unmerged answers are held."""
    pending: deque[Future[PartTally]] = deque()
    try:
        for part in parts:
            pending.append(pool.submit(work, part))
            while pending and (pending[0].done() or len(pending) >= MAX_HELD * n_process):
                yield pending.popleft().result()
            running = [f for f in pending if not f.done()]
            while len(running) >= 2 * n_process:
                wait(running, return_when=FIRST_COMPLETED)
                while pending and pending[0].done():
                    yield pending.popleft().result()
                running = [f for f in pending if not f.done()]
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()
