"""Scoring on Dask: each partition becomes a tally where its data lives; tallies are merged.

Tallies add (semantics §2: scoring a corpus in any split and summing gives the same ledger), so a
partition-wise map followed by a tree reduction in partition order gives the numbers one
process gives, and the kept error records are the first ``max_errors`` in partition order.
Dask schedules, retries and moves data; nothing here does. Needs the project's ``dask``
extra, ``pip install -e ".[dask]"`` in the clone (``score_dataframe`` also needs
``dask[dataframe]``).

Elements of a bag (and rows of a dataframe) are :class:`~.spans.Document` values or mappings
shaped like a dataframe row (see :func:`~.rows.document_from_row`).
"""

from __future__ import annotations

import importlib
import logging
import math
import operator
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import CancelledError
from contextlib import contextmanager
from functools import partial, reduce
from itertools import count
from typing import Any
from uuid import uuid4

from ..engine.evaluator import SpanEvaluator
from ..engine.rows import ROW_FIELDS, as_document
from ..engine.settings import Settings
from ..engine.tally import Tally
from ..errors import InvalidInputError, LostWorkError
from .options import CONNECT_TIMEOUT

#: What installs Dask: the project's own extra, from the clone (no package index serves it).
INSTALL_HINT = (
    ", which the project's dask extra installs: "
    'pip install -e ".[dask]" in the spacy-span-eval clone'
)


def _require(module: str, hint: str = INSTALL_HINT) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"scoring on Dask needs {module!r}{hint}") from exc


# -- partition map and reduction ----------------------------------------------------------
def tally_partition(evaluator: SpanEvaluator, items: Iterable[Any]) -> Tally:
    """One partition's tally, computed on the worker that holds the partition."""
    unit = evaluator.settings.unit
    return evaluator.tally(as_document(item, unit) for item in items)


def sum_tallies(settings: Settings, tallies: Iterable[Tally]) -> Tally:
    """Merge in the order given (dask passes partition order), starting from an empty tally."""
    return reduce(operator.add, tallies, Tally.empty(settings))


def bag_tally(bag: Any, evaluator: SpanEvaluator, *, split_every: int | None = None) -> Any:
    """A lazy ``dask.bag.Item`` holding the bag's :class:`~.tally.Tally`.

    Use it to compose with other Dask work (``client.compute(item)``); ``split_every`` is the
    fan-in of the tree reduction (Dask's default when ``None``).
    """
    _require("dask.bag")
    return bag.reduction(
        partial(tally_partition, evaluator),
        partial(sum_tallies, evaluator.settings),
        split_every=split_every,
        name="spacy-span-eval-tally",
    )


def score_bag(
    bag: Any, evaluator: SpanEvaluator, *, split_every: int | None = None, scheduler: Any = None
) -> Tally:
    """Score a ``dask.bag.Bag`` of documents (or row mappings) into a tally.

    Runs on the active ``distributed`` client if there is one, else on ``scheduler`` or
    Dask's default for bags.
    """
    item = bag_tally(bag, evaluator, split_every=split_every)
    tally: Tally = item.compute(scheduler=scheduler) if scheduler is not None else item.compute()
    return tally


def score_dataframe(
    df: Any,
    evaluator: SpanEvaluator,
    *,
    columns: Mapping[str, str] | None = None,
    split_every: int | None = None,
    scheduler: Any = None,
) -> Tally:
    """Score a Dask dataframe with one row per document (fields as in
    :func:`~.rows.document_from_row`).

    ``columns`` maps a field to the dataframe's column name when they differ, e.g.
    ``{"id": "doc_id", "gold": "gold_spans"}``. Other columns are not read.
    """
    _require("dask.dataframe", ": pip install 'dask[dataframe]'")
    names = {field: field for field in ROW_FIELDS}
    names.update(columns or {})
    unknown = set(names) - set(ROW_FIELDS)
    if unknown:
        raise ValueError(f"unknown fields in columns: {sorted(unknown)}; known: {ROW_FIELDS}")
    present = {field: col for field, col in names.items() if col in df.columns}
    for field in ("id", "gold", "pred"):
        if field not in present:
            raise ValueError(f"the dataframe has no {names[field]!r} column (field {field!r})")
    picked = df[list(present.values())].rename(columns={c: f for f, c in present.items()})
    bag = picked.to_bag(index=False, format="dict")
    return score_bag(bag, evaluator, split_every=split_every, scheduler=scheduler)


# -- a document stream on an existing cluster -----------------------------------------------
def connect(address: str, *, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A ``distributed.Client`` of the scheduler at ``address``, or an
    :class:`~spacy_span_eval.errors.InvalidInputError` within about ``timeout`` seconds.

    A TCP address is tried with a plain socket first, so a dead or unroutable host fails
    without a half-built client. The client is then built in a daemon thread that is given
    up on at the deadline (distributed waits for a silent peer's handshake without a time
    limit). A client that fails to start closes itself then (:func:`_closing_client`), not
    at exit on a stopped event loop, which prints "Exception ignored" tracebacks.
    """
    distributed = _require("distributed")
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise InvalidInputError(
            f"the connect timeout must be a number of seconds > 0, not {timeout!r}"
        )
    where = f"the Dask scheduler at {address!r}"
    if not isinstance(address, str) or not address:
        raise InvalidInputError(f"{where}: give an address such as tcp://host:8786")
    from distributed.comm.addressing import get_address_host_port, parse_address

    deadline = time.monotonic() + timeout
    try:
        scheme, _ = parse_address(address)
        if scheme in ("tcp", "tls"):
            host, port = get_address_host_port(address)
            socket.create_connection((host, port), timeout=timeout).close()
    except ValueError as exc:
        raise InvalidInputError(f"{where}: not an address ({exc})") from None
    except OSError as exc:
        raise InvalidInputError(
            f"cannot reach {where} within {timeout:g} s "
            f"({exc.strerror or exc or type(exc).__name__})"
        ) from None
    left = max(0.5, deadline - time.monotonic())
    built: dict[str, Any] = {}

    def build() -> None:
        try:
            client = _closing_client(distributed.Client)
            built["client"] = client(address, set_as_default=False, timeout=left)
        except Exception as exc:  # OSError, TimeoutError, a reply that is not Dask's...
            built["error"] = exc

    thread = threading.Thread(target=build, name="spacy-span-eval-connect", daemon=True)
    thread.start()
    thread.join(left + 0.5)
    if "client" in built:
        return built["client"]
    error = built.get("error")
    detail = "no answer" if error is None else " ".join(str(error).split()) or type(error).__name__
    raise InvalidInputError(f"cannot connect to {where} within {timeout:g} s ({detail})")


def _closing_client(client: type[Any]) -> type[Any]:
    """``distributed.Client`` closed when its start fails (its constructor raises then, and
    the half-built client left behind would close itself on a stopped event loop at exit)."""

    class Closing(client):  # type: ignore[misc]  # (distributed is untyped here: Any)
        def start(self, **kwargs: Any) -> None:
            try:
                super().start(**kwargs)
            except BaseException:
                self.close()
                raise

    return Closing


@contextmanager
def cluster(
    scheduler: Any, *, connect_timeout: float = CONNECT_TIMEOUT
) -> Iterator[tuple[Callable[..., Any], int]]:
    """A submit on a ``distributed`` cluster (an address or a ``Client``) and its threads,
    for units of work read here (:class:`.scoring.OnCluster`). An address that does not
    answer within ``connect_timeout`` seconds is an input error.

    Chunks travel inside their tasks (not scattered), so the scheduler can rerun a chunk
    whose worker died. A scheduler that goes away meanwhile, or workers that die each time
    they run a chunk, raise :class:`~spacy_span_eval.errors.LostWorkError`
    (``distributed``'s own log lines about it are left unprinted where the client is this
    function's own).
    """
    distributed = _require("distributed")
    own = not isinstance(scheduler, distributed.Client)
    client = connect(scheduler, timeout=connect_timeout) if own else scheduler
    run, numbers = uuid4().hex, count()

    def submit(*args: Any) -> Any:
        key = f"spacy-span-eval-chunk-{run}-{next(numbers)}"
        return client.submit(*args, pure=False, key=key)

    where = f"the Dask scheduler at {scheduler if own else client.scheduler.address!r}"
    # (distributed's tracebacks when the scheduler goes: the error below says it in one line)
    handlers = _log_handlers("distributed") if own else set()
    for handler in handlers:
        handler.addFilter(_drop)
    try:
        yield submit, max(1, sum(client.nthreads().values()))
    except distributed.KilledWorker:
        raise LostWorkError(
            "the Dask workers died each time they ran a part (killed, or out of memory); "
            "check them, then run again"
        ) from None
    except (CancelledError, distributed.comm.CommClosedError) as exc:
        why = getattr(exc, "reason", None) or f"{type(exc).__name__}: {exc}"
        raise LostWorkError(
            f"{where} went away mid-run ({why}); check it and its workers, then run again"
        ) from None
    finally:
        if own:
            client.close()
        for handler in handlers:
            handler.removeFilter(_drop)


def _drop(record: logging.LogRecord) -> bool:
    return False


def _log_handlers(name: str) -> set[logging.Handler]:
    """The handlers of logger ``name`` and of the loggers below it."""
    loggers = logging.Logger.manager.loggerDict.items()
    return {
        handler
        for found, logger in loggers
        if isinstance(logger, logging.Logger) and (found == name or found.startswith(f"{name}."))
        for handler in logger.handlers
    }
