"""Local worker processes: started in one place, stopped in one place, never left behind.

Both local pools (the parts of a file pair, :mod:`.parallel_reading`; the chunks of a
document stream, :class:`.scoring.InPool`) run in :func:`worker_pool`:

- **Normal end**: the pool is shut down and waited for (its workers have exited when the
  ``with`` block is left; the next pool finds no thread of this one running, so it may
  fork).
- **An exception, Ctrl-C, or a signal the CLI turns into an exception**: the parts not
  started are cancelled and the workers are terminated at once (not left to finish their
  parts), then waited for; the exception goes on.
- **A thread of the pool fails** (no memory to start the thread that feeds the workers, say):
  the work handed out fails with its exception, instead of waiting for a thread that is gone
  (:func:`worker_pool`'s thread hook), and the pool stops as on any exception.
- **The process is killed** (SIGKILL, a crash): on Linux each worker asked the kernel to
  kill it when its parent dies (``prctl(PR_SET_PDEATHSIG)``,
  :func:`..processes.die_with_parent`), so none outlives the process holding its output
  pipes. Elsewhere this is not available.

How a pool knows its own workers without reading the executor's private attributes:
:class:`concurrent.futures.ProcessPoolExecutor` makes every worker through the
``mp_context`` it is given (``mp_context.Process(...)``), so the pool is handed a context
that delegates everything to the real one and notes each process it makes
(:class:`_NotingContext`). That holds whichever thread starts a worker and whatever else
this process runs: the processes of other pools, of spaCy's ``nlp.pipe`` or of the caller
are never touched. The workers are stopped through :class:`multiprocessing.Process`'s
public ``terminate``/``kill``/``sentinel``.

spaCy's ``nlp.pipe(n_process=...)`` starts its own processes (``multiprocessing.Process``
with the default context, forked on Linux); :func:`..processes.forks_die_with_this_process`
gives those the same death signal (:mod:`..readers.model`).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from concurrent.futures import Future, InvalidStateError, ProcessPoolExecutor
from contextlib import contextmanager, nullcontext, suppress
from multiprocessing.connection import wait as wait_for
from typing import Any, ParamSpec, TypeVar

from ..processes import die_with_parent

__all__ = [
    "STOP_SECONDS",
    "WorkerPool",
    "interrupts_ignored",
    "pool_context",
    "setup_worker",
    "stop_processes",
    "worker_pool",
]

_P = ParamSpec("_P")
_T = TypeVar("_T")

#: Seconds a terminated worker has to exit before it is killed.
STOP_SECONDS = 2.0


def pool_context() -> multiprocessing.context.BaseContext:
    """``fork`` on Linux when no other Python thread runs (a worker then starts in
    milliseconds, with everything imported), else ``spawn``. A thread could hold a lock
    across the fork; the native threads of numpy's BLAS pool are fork-safe."""
    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


@contextmanager
def interrupts_ignored() -> Iterator[None]:
    """Ignore Ctrl-C while worker processes are started: a child keeps an ignored SIGINT
    ignored (a spawned interpreter too), so a worker never sees it, even before its
    initializer runs. (Only the main thread can change signal handlers; elsewhere this does
    nothing.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def setup_worker(parent: int | None = None) -> None:
    """Worker initializer: Ctrl-C is left to the parent, which stops the pool (a worker that
    took it too would print its own traceback); SIGTERM and SIGHUP end the worker (a forked
    worker inherits the handlers of the process that forked it, and the CLI's raise an
    exception meant for the main process alone); the worker dies with its ``parent``
    (:func:`die_with_parent`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    die_with_parent(parent)


class _NotingContext:
    """A multiprocessing context that notes the processes made through it (and is the real
    context in every other respect)."""

    def __init__(self, context: multiprocessing.context.BaseContext) -> None:
        self._context: Any = context  # (the typeshed's BaseContext lists no Process)
        self.processes: list[multiprocessing.process.BaseProcess] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    def Process(self, *args: Any, **kwargs: Any) -> multiprocessing.process.BaseProcess:  # noqa: N802
        process: multiprocessing.process.BaseProcess = self._context.Process(*args, **kwargs)
        self.processes.append(process)
        return process


class WorkerPool(ProcessPoolExecutor):
    """A process pool whose workers run :func:`setup_worker`, start with Ctrl-C ignored,
    and can be terminated at once (:meth:`terminate_workers`). Made by
    :func:`worker_pool`."""

    def __init__(self, n_process: int, context: multiprocessing.context.BaseContext) -> None:
        self.__noting = _NotingContext(context)
        self.__n_process = n_process
        self.__futures: weakref.WeakSet[Future[Any]] = weakref.WeakSet()
        self.__failure: BaseException | None = None
        # A forkserver's children are the server's, not this process's: no parent to check.
        method = context.get_start_method()
        parent = os.getpid() if method in ("fork", "spawn") else None
        super().__init__(
            max_workers=n_process,
            mp_context=self.__noting,  # type: ignore[call-overload]  # duck-typed
            initializer=setup_worker,
            initargs=(parent,),
        )

    def submit(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> Future[_T]:
        # A submit may start a worker until all have started; after that, a Ctrl-C ignored
        # here would be lost (the run would go on to the end).
        starting = len(self.__noting.processes) < self.__n_process
        with interrupts_ignored() if starting else nullcontext():
            future = super().submit(fn, *args, **kwargs)
        self.__futures.add(future)
        if self.__failure is not None:  # (its thread may fail before the future is noted)
            self.fail(self.__failure)
        return future

    def fail(self, exc: BaseException) -> None:
        """The work handed out and not done fails with ``exc`` (a thread the pool needs is
        gone, so no answer will come), and so does any handed out later."""
        self.__failure = exc
        for future in list(self.__futures):
            with suppress(InvalidStateError):  # (done meanwhile)
                future.set_exception(exc)

    def workers(self) -> list[multiprocessing.process.BaseProcess]:
        """The worker processes started so far (running or not)."""
        return list(self.__noting.processes)

    def terminate_workers(self) -> None:
        """Stop now: the work not started is cancelled, the workers are terminated (killed
        after :data:`STOP_SECONDS`), and the pool is shut down once they are gone. (As
        Python 3.14's method of the same name, by the workers this pool noted.)"""
        stop_processes(self.workers())
        with suppress(RuntimeError):  # (its thread never started: nothing to wait for)
            self.shutdown(wait=True, cancel_futures=True)


def stop_processes(
    processes: list[multiprocessing.process.BaseProcess], timeout: float = STOP_SECONDS
) -> None:
    """Terminate ``processes`` (started ones that are still running) and wait until they
    have exited; those still running after ``timeout`` seconds are killed."""
    started = [p for p in processes if p.pid is not None]
    for process in started:
        if process.exitcode is None:
            process.terminate()
    running = [p.sentinel for p in started if p.exitcode is None]
    left = set(running) - set(wait_for(running, timeout)) if running else set()
    for process in started:
        if process.sentinel in left:
            process.kill()
    if left:
        wait_for(list(left), timeout)


@contextmanager
def worker_pool(
    n_process: int, *, context: multiprocessing.context.BaseContext | None = None
) -> Iterator[WorkerPool]:
    """A pool of ``n_process`` worker processes for the ``with`` block (``context``: how they
    are started, default :func:`pool_context`). Left normally, the pool is shut down and its
    workers waited for; left by any exception (``KeyboardInterrupt`` and ``SystemExit``
    included), the work not started is cancelled and the workers are terminated first. A
    thread started meanwhile that ends by an exception fails the pool's work with it
    (:meth:`WorkerPool.fail`), unprinted."""
    pool = WorkerPool(n_process, context or pool_context())
    done = False
    before, chained = set(threading.enumerate()), threading.excepthook

    def failed(args: threading.ExceptHookArgs) -> None:
        if args.thread in before or args.exc_value is None:
            chained(args)
        else:
            pool.fail(args.exc_value)

    threading.excepthook = failed
    try:
        yield pool
        pool.shutdown(wait=True)
        done = True
    finally:
        threading.excepthook = chained
        if not done:
            pool.terminate_workers()
