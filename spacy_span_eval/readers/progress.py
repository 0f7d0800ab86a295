"""A progress bar on stderr for long reads and pipeline runs (tqdm), with records per second.

Shown only where someone watches: when the command was not asked to be quiet (``--quiet``,
``--silent``, or the Python API's default ``silent=True``) and stderr is a terminal. The
environment variable ``SPACY_SPAN_EVAL_PROGRESS`` overrides the terminal check: ``1`` shows
the bar on any stderr (a log file, a test's pipe), ``0`` never shows it. Nothing is ever
written to stdout, which carries the results.

A file run's bar appears once more than :data:`PROGRESS_AFTER` records have been read, so a
small file scores without one; a pipeline run shows its bar from the first document.
tqdm is imported only when a bar is shown.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TYPE_CHECKING, TypeVar

from ..errors import printable

if TYPE_CHECKING:
    from tqdm import tqdm

__all__ = [
    "PROGRESS_AFTER",
    "PROGRESS_ENV",
    "progress_wanted",
    "with_progress",
]

T = TypeVar("T")

#: Records a file run reads before its bar appears.
PROGRESS_AFTER = 5000
#: ``1``: show bars on any stderr; ``0``: never show them.
PROGRESS_ENV = "SPACY_SPAN_EVAL_PROGRESS"


def progress_wanted(enabled: bool, stream: IO[str] | None = None) -> bool:
    """Whether a bar shows: ``enabled`` (not quiet), and ``stream`` (default stderr) is a
    terminal unless :data:`PROGRESS_ENV` says otherwise."""
    if not enabled:
        return False
    forced = os.environ.get(PROGRESS_ENV, "").strip()
    if forced in ("0", "1"):
        return forced == "1"
    try:
        return bool((sys.stderr if stream is None else stream).isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def with_progress(
    items: Iterable[T],
    *,
    desc: str,
    unit: str = "doc",
    enabled: bool,
    after: int = PROGRESS_AFTER,
    stream: IO[str] | None = None,
    size: Callable[[T], int] = lambda item: 1,
) -> Iterator[T]:
    """``items`` unchanged, with a bar counting them (``size`` each: a columnar batch counts
    its documents) and their rate once more than ``after`` have passed, when
    :func:`progress_wanted`. The bar is cleared at the end."""
    if not progress_wanted(enabled, stream):
        yield from items
        return
    seen, bar = 0, None
    try:
        for item in items:
            n = size(item)
            if bar is None and seen + n > after:  # the run is long enough
                bar = _bar(desc, unit, seen, stream)
            yield item
            seen += n
            if bar is not None:
                bar.update(n)
    finally:
        if bar is not None:
            bar.close()


def _bar(desc: str, unit: str, initial: int, stream: IO[str] | None) -> tqdm[None]:
    """A bar that clears itself at the end, on ``stream`` (default stderr)."""
    from tqdm import tqdm  # (only when a bar shows)

    return tqdm(
        desc=printable(desc),
        unit=unit,
        initial=initial,
        leave=False,
        dynamic_ncols=True,
        file=sys.stderr if stream is None else stream,
    )
