"""Two files' blocks of documents, walked side by side: the columnar form of pairing by position.

A block is anything with ``len()`` (its documents, all valid) and ``error`` (``None``, or a
function returning the exception the reference reader raises right after those documents;
such a block is a side's last). :func:`aligned` yields runs of documents that both sides
have, and raises what :func:`.pairing.pair_records` would, in the same order: gold's next
document's error, then the prediction's, then a count mismatch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .pairing import count_mismatch

__all__ = ["Side", "aligned"]


class Side:
    """A file's blocks, consumed some documents at a time."""

    def __init__(self, blocks: Iterator[Any]) -> None:
        self.blocks = blocks
        self.block: Any = None
        self.at = 0

    def available(self) -> int:
        """Documents ready in the current block; 0 at the end or at an error."""
        while self.block is None or (self.at == len(self.block) and self.block.error is None):
            self.block, self.at = next(self.blocks, None), 0
            if self.block is None:
                return 0
        return len(self.block) - self.at

    @property
    def error(self) -> Callable[[], Exception] | None:
        return None if self.block is None else self.block.error

    def take(self, n: int) -> tuple[Any, int, int]:
        lo = self.at
        self.at += n
        return self.block, lo, self.at


def aligned(
    gold: Side,
    pred: Side,
    *,
    gold_name: str,
    pred_name: str,
    where: Callable[[Any, int], str],
    most: int,
) -> Iterator[tuple[Any, int, int, Any, int, int]]:
    """``(gold block, lo, hi, predicted block, lo, hi)`` runs of at most ``most`` documents
    with equal counts, in order; ``where(block, i)`` locates a document for messages."""
    done = 0
    while True:
        ga = gold.available()
        pa = pred.available()
        if not ga or not pa:
            if not ga and gold.error is not None:
                raise gold.error()
            if not pa and pred.error is not None:
                raise pred.error()
            if not ga and not pa:
                return
            longer, name, other = (
                (pred, pred_name, gold_name) if not ga else (gold, gold_name, pred_name)
            )
            raise count_mismatch(done + 1, where(longer.block, longer.at), name, other)
        n = min(ga, pa, most)
        yield (*gold.take(n), *pred.take(n))
        done += n
