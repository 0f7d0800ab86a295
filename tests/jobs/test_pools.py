"""Worker pools (jobs/pools.py, processes.py): shut down and waited for on a normal end,
terminated at once on any exception, their workers dying with the process that started them;
no private attribute of concurrent.futures or multiprocessing read anywhere in the package."""

from __future__ import annotations

import ctypes
import multiprocessing
import multiprocessing.queues
import os
import re
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from spacy_span_eval.jobs import pools
from spacy_span_eval.jobs.pools import pool_context, stop_processes, worker_pool
from spacy_span_eval.processes import die_with_parent, forks_die_with_this_process

linux = pytest.mark.skipif(sys.platform != "linux", reason="prctl is Linux's")
PACKAGE = Path(pools.__file__).resolve().parent.parent
PR_GET_PDEATHSIG = 2


def death_signal() -> int:
    """This process's parent-death signal (0: none)."""
    value = ctypes.c_int(0)
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(PR_GET_PDEATHSIG, ctypes.byref(value), 0, 0, 0) == 0
    return value.value


def worker_state() -> dict:
    return {
        "pid": os.getpid(),
        "parent": os.getppid(),
        "sigint": signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
        "sigterm": signal.getsignal(signal.SIGTERM) is signal.SIG_DFL,
        "death": death_signal() if sys.platform == "linux" else None,
    }


def nap(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def exit_with_death_signal() -> None:
    os._exit(death_signal())


def kill_wrongly_parented() -> None:
    die_with_parent(os.getppid() + 1)  # as if the parent had gone before this ran
    os._exit(0)


def running(pids) -> list[int]:
    """Those of ``pids`` that still run (a zombie has exited)."""
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X"):
            alive.append(pid)
    return alive


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_pool_left_normally_has_waited_for_its_workers(method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} here")
    threads = threading.active_count()
    with worker_pool(2, context=multiprocessing.get_context(method)) as pool:
        states = [pool.submit(worker_state).result() for _ in range(4)]
        workers = pool.workers()
    assert workers and all(p.exitcode == 0 for p in workers)
    assert threading.active_count() == threads  # (no pool thread left: the next one may fork)
    assert {s["pid"] for s in states} <= {p.pid for p in workers}
    for state in states:
        assert state["parent"] == os.getpid()
        assert state["sigint"] and state["sigterm"]
        if sys.platform == "linux":
            assert state["death"] == signal.SIGKILL


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_submits_ignore_ctrl_c_only_while_a_worker_may_start(method, monkeypatch):
    """A submit that may start a worker ignores Ctrl-C (the worker inherits that); once every
    worker has started, a Ctrl-C during a submit reaches the run (ignored, it would be lost
    and the run would go on to its end)."""
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} here")
    ignoring = []

    def noted():
        ignoring.append(len(pool.workers()))
        return real()

    real = pools.interrupts_ignored
    monkeypatch.setattr(pools, "interrupts_ignored", noted)
    with worker_pool(2, context=multiprocessing.get_context(method)) as pool:
        for _ in range(200):
            if len(pool.workers()) == 2:
                break
            pool.submit(nap, 0.05)
        assert len(pool.workers()) == 2
        started = len(ignoring)
        [pool.submit(nap, 0) for _ in range(5)][-1].result()
    assert started >= 1 and all(n < 2 for n in ignoring)
    assert len(ignoring) == started


@pytest.mark.parametrize("stop", [RuntimeError, KeyboardInterrupt, SystemExit])
def test_an_exception_terminates_the_workers_at_once(stop):
    start = time.monotonic()
    with pytest.raises(stop), worker_pool(2, context=pool_context()) as pool:
        futures = [pool.submit(nap, 30) for _ in range(6)]
        while len([p for p in pool.workers() if p.is_alive()]) < 2:
            time.sleep(0.01)
        raise stop()
    assert time.monotonic() - start < 10  # (the naps were 30 s)
    assert all(p.exitcode is not None for p in pool.workers())
    assert all(f.done() for f in futures)  # cancelled, or failed with the pool
    assert not running(p.pid for p in pool.workers())


def test_terminate_workers_stops_a_pool_that_runs():
    with worker_pool(2, context=pool_context()) as pool:
        futures = [pool.submit(nap, 30) for _ in range(4)]
        while len([p for p in pool.workers() if p.is_alive()]) < 2:
            time.sleep(0.01)
        pool.terminate_workers()
        assert all(p.exitcode is not None for p in pool.workers())
        assert all(f.done() for f in futures)
    assert not running(p.pid for p in pool.workers())


def test_stop_processes_kills_what_ignores_sigterm():
    context = multiprocessing.get_context("spawn")
    process = context.Process(target=signal.pause)
    # (a spawned child keeps an ignored signal ignored)
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        process.start()
    finally:
        signal.signal(signal.SIGTERM, previous)
    stop_processes([process], timeout=0.5)
    process.join(5)
    assert process.exitcode == -signal.SIGKILL


@linux
def test_a_worker_whose_parent_is_gone_ends_itself():
    process = multiprocessing.get_context("fork").Process(target=kill_wrongly_parented)
    process.start()
    process.join(10)
    assert process.exitcode == -signal.SIGKILL


@linux
def test_forks_inside_the_block_get_the_death_signal():
    context = multiprocessing.get_context("fork")
    codes = []
    for inside in (True, False, True):
        process = context.Process(target=exit_with_death_signal)
        if inside:
            with forks_die_with_this_process():
                process.start()
        else:
            process.start()
        process.join(10)
        codes.append(process.exitcode)
    assert codes == [signal.SIGKILL, 0, signal.SIGKILL]


def test_pool_context_forks_on_linux_when_alone():
    expected = "fork" if sys.platform == "linux" and threading.active_count() == 1 else "spawn"
    assert pool_context().get_start_method() == expected


# The executor's and the processes' private attributes (names too common elsewhere left out).
COMMON = {"_name", "_args", "_kwargs", "_target", "_closed", "_config"}


def private_names() -> set[str]:
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(1)
    try:
        names = set(vars(pool)) | set(dir(ProcessPoolExecutor))
    finally:
        pool.shutdown()
    process = multiprocessing.get_context("spawn").Process(target=print)
    names |= set(vars(process))
    return {n for n in names if n.startswith("_") and not n.startswith("__")} - COMMON


def test_no_private_attribute_of_the_pools_is_read():
    names = private_names()
    assert {"_processes", "_executor_manager_thread", "_popen"} <= names
    alternatives = "|".join(map(re.escape, sorted(names)))
    pattern = re.compile(rf"""[."']({alternatives})\b""")
    found = [
        f"{path.relative_to(PACKAGE)}:{n}: {m.group(1)}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for m in [pattern.search(line)]
        if m
    ]
    assert found == []


def test_a_thread_that_cannot_start_fails_the_work_instead_of_hanging(monkeypatch):
    """Out of memory, the pool's thread dies starting the thread that feeds the workers:
    the work fails with that error (it waited for ever), and no traceback is printed."""

    def no_thread(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(multiprocessing.queues.Queue, "_start_thread", no_thread)
    printed = []
    monkeypatch.setattr(threading, "excepthook", printed.append)
    with pytest.raises(RuntimeError, match="can't start new thread"):
        with worker_pool(1, context=multiprocessing.get_context("fork")) as pool:
            pool.submit(pow, 2, 3).result()
    assert printed == []
    assert threading.excepthook == printed.append  # (the pool's hook is gone)
