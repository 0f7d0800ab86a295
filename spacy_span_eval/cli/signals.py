"""SIGTERM and SIGHUP stop a command as Ctrl-C does (semantics §7), in the CLI process only.

The default action of either signal ends the process on the spot: no ``finally`` runs, so
worker processes are left running (holding the caller's output pipes) and temporary files
stay. While a command runs, :func:`stop_on_signals` turns them into :class:`Stopped`, raised
in the main thread, and every ``finally`` on the way out runs: the worker pools terminate
their workers (:mod:`..jobs.pools`), spaCy's ``nlp.pipe`` closes its own, an output being
written is removed (:func:`..jobs.outputs.write_atomic`). The entry point then says so in
one line and exits with 128 + the signal's number (143 for SIGTERM, 129 for SIGHUP), as a
shell reports a process a signal ended; a child process still running then is stopped too
(:func:`stop_children`).

:class:`Stopped` is a :class:`SystemExit`, not a :class:`KeyboardInterrupt`: nothing on the
way catches it as an error (click turns a ``KeyboardInterrupt`` outside a command's own
handling into "Aborted!" and exit 1, which reads as a breached gate). Used as a library, the
package installs no handler.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

__all__ = [
    "SIGNALS",
    "Stopped",
    "exit_now",
    "exit_stopped",
    "stop_children",
    "stop_on_signals",
    "stopped_by_signals",
]

#: The signals that stop a command as Ctrl-C does (those this platform has).
SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class Stopped(SystemExit):
    """A command stopped by a signal; ``code`` is the exit code, 128 + the signal number."""

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """Raise :class:`Stopped` in the main thread on SIGTERM and SIGHUP within the block (a
    no-op outside the main thread). A process forked inside the block inherits the handler:
    there it exits at once, with the same code and without a word (a worker is stopped by
    the process that started it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    owner = os.getpid()

    def stop(signum: int, frame: object) -> None:
        if os.getpid() != owner:
            os._exit(128 + signum)
        raise Stopped(signum)

    previous = {signum: signal.signal(signum, stop) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def stop_children(timeout: float = 2.0) -> None:
    """Terminate the child processes this process started through :mod:`multiprocessing`
    that still run (killed after ``timeout`` seconds), and wait for them: on the way out
    after an interrupt, whatever a ``finally`` could not stop (a generator left suspended
    holds spaCy's workers, say) does not outlive the process."""
    if "multiprocessing" not in sys.modules:
        return  # (nothing was started through it)
    import multiprocessing  # (loaded only where it was used: a start-up need not)

    from ..jobs.pools import stop_processes

    stop_processes(multiprocessing.active_children(), timeout)


def exit_now(code: int) -> NoReturn:
    """Exit without running exit handlers: after an interrupt, a worker pool's queue may
    still wait for a worker that is gone, and the process must not hang on it at exit.
    Further interrupts are ignored and the children still running are stopped first
    (:func:`stop_children`). (Outputs are written atomically, so there is no half-written
    file to flush.)"""
    for signum in (signal.SIGINT, *SIGNALS):
        signal.signal(signum, signal.SIG_IGN)
    stop_children()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def exit_stopped(stopped: Stopped) -> NoReturn:
    """One line on stderr, then :func:`exit_now` with the signal's exit code."""
    from ..api import msg  # (the API loads the engine, which --help need not)

    msg.fail(f"Stopped by {stopped.name}")
    exit_now(128 + stopped.signum)


def stopped_by_signals(command: Callable[..., Any]) -> Callable[..., Any]:
    """A typer command run within :func:`stop_on_signals`, exiting by :func:`exit_stopped`
    when a signal stops it: for commands that do not run through the console script's
    entry point (spaCy's CLI runs the plugin's, :mod:`.spacy_plugin`)."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        with stop_on_signals():
            try:
                return command(*args, **kwargs)
            except Stopped as stopped:
                exit_stopped(stopped)

    return run
