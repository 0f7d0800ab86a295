"""Processes this package starts die with the process that started them, however it ends.

On Linux a process can ask the kernel to send it a signal when its parent dies
(``prctl(PR_SET_PDEATHSIG)``, through ctypes: no library exposes it). The worker pools ask for
SIGKILL in every worker's initializer (:mod:`.jobs.pools`); the processes spaCy's
``nlp.pipe(n_process=...)`` forks take no initializer, so they ask in a fork hook
(:func:`forks_die_with_this_process`, :mod:`.readers.model`). Elsewhere nothing is done.

Here, below the readers and the jobs, because both need it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["die_with_parent", "forks_die_with_this_process"]

_PR_SET_PDEATHSIG = 1  # (linux/prctl.h)


def _prctl() -> Callable[..., int] | None:
    """libc's ``prctl`` through ctypes (no library exposes it), or ``None``."""
    if sys.platform != "linux":
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = (ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong)
    prctl.restype = ctypes.c_int
    return prctl


def die_with_parent(parent: int | None = None, *, prctl: Callable[..., int] | None = None) -> bool:
    """Linux: have the kernel send this process SIGKILL when its parent exits, however it
    exits; ``False`` elsewhere (nothing done). ``parent``: the pid this process was started
    by; if the parent is already gone (it died before this ran, and the death signal with
    it), this process ends now. The signal is tied to the *thread* that started the process:
    pools start their workers from the thread that submits work to them, which outlives
    the pool."""
    prctl = prctl or _prctl()
    if prctl is None or prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        return False
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)
    return True


# Forks of threads inside forks_die_with_this_process() (their thread ids).
_DYING_FORKS: set[int] = set()
_FORK_PARENT: list[int] = []  # (set just before a fork, read in the child)
_HOOKS: list[Callable[..., int]] = []  # (prctl, once the fork hooks are registered)


def _before_fork() -> None:
    _FORK_PARENT[:] = [os.getpid()] if threading.get_ident() in _DYING_FORKS else []


def _after_fork_in_child() -> None:
    parent = list(_FORK_PARENT)
    _DYING_FORKS.clear()
    _FORK_PARENT.clear()
    if parent:
        die_with_parent(parent[0], prctl=_HOOKS[0])


@contextmanager
def forks_die_with_this_process() -> Iterator[None]:
    """Processes forked by this thread inside the block die with this process
    (:func:`die_with_parent`), for processes started by code that takes no initializer
    (spaCy's ``nlp.pipe(n_process=...)``). Through :func:`os.register_at_fork`, registered
    on first use; nothing is done where ``prctl`` is not available."""
    if not _HOOKS:
        prctl = _prctl()
        if prctl is None or not hasattr(os, "register_at_fork"):
            yield
            return
        _HOOKS.append(prctl)
        os.register_at_fork(
            before=_before_fork,
            after_in_child=_after_fork_in_child,
            after_in_parent=_FORK_PARENT.clear,
        )
    me = threading.get_ident()
    mine = me not in _DYING_FORKS
    _DYING_FORKS.add(me)
    try:
        yield
    finally:
        if mine:
            _DYING_FORKS.discard(me)
