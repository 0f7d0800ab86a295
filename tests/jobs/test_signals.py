"""SIGTERM and SIGHUP stop ``evaluate --n-process 2`` as Ctrl-C does (semantics §7): one line,
exit 128 + the signal's number, the caller's pipes closed at once, no worker left; SIGKILL of
the main process leaves no worker either (the workers' parent-death signal).

Each road that starts worker processes: a CoNLL pair read in parts (forked pool,
jobs/parallel_reading.py), a DocBin pair scored by the spawned pool of documents
(jobs/scoring.py, InPool), and a pipeline run by spaCy's own ``nlp.pipe(n_process=2)``.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

import pytest

from conftest import cli_process

pytestmark = [
    pytest.mark.processes,
    pytest.mark.skipif(
        not Path("/proc/self/stat").exists() or sys.platform != "linux",
        reason="needs Linux /proc (and prctl)",
    ),
]

TAGS = ["O", "O", "O", "B-PER", "I-PER", "B-LOC", "O", "B-ORG", "I-ORG"]
WORDS = ["the", "report", "said", "on", "Monday", "in", "of", "and", "market", "shares"]


@pytest.fixture(scope="module")
def conll(tmp_path_factory) -> Path:
    """400,000 sentences (a 2,000-sentence block written 200 times, ~20 MB): still being
    read by two workers a second after they start."""
    rng = random.Random(7)
    path = tmp_path_factory.mktemp("conll") / "gold.conll"
    block = "".join(
        "".join(f"{rng.choice(WORDS)}{t} {rng.choice(TAGS)}\n" for t in range(rng.randint(3, 12)))
        + "\n"
        for _ in range(2_000)
    )
    with path.open("w") as fh:
        for _ in range(200):
            fh.write(block)
    return path


@pytest.fixture(scope="module")
def docbins(tmp_path_factory) -> tuple[Path, Path]:
    """A DocBin pair of 20,000 documents (three units of work for the pool of documents;
    the reading, in the main process, takes seconds)."""
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import DocBin, Span

    nlp = spacy.blank("en")
    rng = random.Random(8)
    folder = tmp_path_factory.mktemp("docbin")
    gold, pred = DocBin(), DocBin()
    for _ in range(20_000):
        n = rng.randint(4, 12)
        start = rng.randrange(n - 1)
        text = " ".join(rng.choice(WORDS) for _ in range(n))
        for docs, length in ((gold, 1), (pred, rng.choice((1, 2)))):
            doc = nlp.make_doc(text)
            doc.ents = [Span(doc, start, start + length, label="PER")]
            docs.add(doc)
    gold.to_disk(folder / "gold.spacy")
    pred.to_disk(folder / "pred.spacy")
    return folder / "gold.spacy", folder / "pred.spacy"


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory) -> Path:
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns([{"label": "PER", "pattern": "report0"}])
    path = tmp_path_factory.mktemp("model") / "rules"
    nlp.to_disk(path)
    return path


def _stat(pid: int) -> list[str] | None:
    """Fields of /proc/PID/stat after the command name (state first), or None."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def workers_of(pid: int) -> dict[int, str]:
    """The worker processes of ``pid``, each with its start time (the resource tracker of a
    spawning pool is a child too, not a worker)."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        fields = _stat(int(stat.parent.name))
        if fields is None or int(fields[1]) != pid:
            continue
        with suppress(OSError):
            if b"resource_tracker" in (stat.parent / "cmdline").read_bytes():
                continue
        found[int(stat.parent.name)] = fields[19]
    return found


def still_running(workers: dict[int, str]) -> list[int]:
    """Those of ``workers`` that run (a zombie has exited; a new process with a reused pid
    has another start time)."""
    alive = []
    for pid, started in workers.items():
        fields = _stat(pid)
        if fields is not None and fields[19] == started and fields[0] not in ("Z", "X"):
            alive.append(pid)
    return alive


def stop_while_workers_run(
    args: list[str], signum: int, cwd: Path, *, workers: int = 2, to_worker: bool = False
) -> tuple[subprocess.CompletedProcess, list[int]]:
    """Start ``spacy-span-eval ARGS`` with its output on pipes, wait until it runs
    ``workers`` worker processes, send ``signum`` to the main process alone (``to_worker``:
    to one worker alone), and collect
    its output (which returns once every process holding the pipes has exited). Returns
    the run and those of its workers still running 2 s after it ended."""
    proc = cli_process(args, cwd)
    try:
        deadline = time.monotonic() + 120
        found: dict[int, str] = {}
        while len(found) < workers and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
            found = workers_of(proc.pid)
        assert proc.poll() is None, "finished before the signal could stop it"
        assert len(found) >= workers, f"no {workers} workers within the deadline"
        time.sleep(0.2)
        # read afresh: a child caught between its fork and its exec still bore this
        # process's command line, so the resource tracker could pass for a worker
        found = workers_of(proc.pid)
        assert found, "the workers ended before the signal could stop them"
        os.kill(min(found) if to_worker else proc.pid, signum)
        out, err = proc.communicate(timeout=30)
        deadline = time.monotonic() + 2
        while still_running(found) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = still_running(found)
    finally:  # a failed check must leave neither the process, its workers nor their pipes
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), left


def assert_stopped(done: subprocess.CompletedProcess, signum: int) -> None:
    assert done.returncode == 128 + signum, done.stderr
    assert done.stdout == ""
    assert done.stderr == f"\u2718 Stopped by {signal.Signals(signum).name}\n"


SIGNALS = [pytest.param(signal.SIGTERM, id="SIGTERM"), pytest.param(signal.SIGHUP, id="SIGHUP")]


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_signal_stops_the_workers_reading_a_pair(conll, tmp_path, signum):
    done, left = stop_while_workers_run(
        ["evaluate", str(conll), str(conll), "--n-process", "2"], signum, tmp_path
    )
    assert_stopped(done, signum)
    assert left == []


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_signal_stops_the_pool_of_documents(docbins, tmp_path, signum):
    gold, pred = docbins
    # (the reading, in the main process, is slower than the scoring: one worker is enough)
    done, left = stop_while_workers_run(
        ["evaluate", str(gold), str(pred), "--n-process", "2"], signum, tmp_path, workers=1
    )
    assert_stopped(done, signum)
    assert left == []


@pytest.mark.parametrize("signum", SIGNALS)
def test_a_signal_stops_the_processes_of_a_pipeline(conll, pipeline, tmp_path, signum):
    done, left = stop_while_workers_run(
        ["evaluate", str(conll), "--model", str(pipeline), "--n-process", "2"], signum, tmp_path
    )
    assert_stopped(done, signum)
    assert left == []


@pytest.mark.parametrize("road", ["pair", "pipeline"])
def test_killing_the_main_process_leaves_no_worker(conll, pipeline, tmp_path, road):
    args = (
        ["evaluate", str(conll), str(conll)]
        if road == "pair"
        else ["evaluate", str(conll), "--model", str(pipeline)]
    )
    done, left = stop_while_workers_run([*args, "--n-process", "2"], signal.SIGKILL, tmp_path)
    assert done.returncode == -signal.SIGKILL
    assert left == []


def test_a_killed_worker_is_one_line_saying_what_to_try(conll, docbins, tmp_path):
    gold, pred = docbins
    for args, workers in (([conll, conll], 2), ([gold, pred], 1)):
        done, left = stop_while_workers_run(
            ["evaluate", *map(str, args), "--n-process", "2"],
            signal.SIGKILL,
            tmp_path,
            workers=workers,
            to_worker=True,
        )
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr == (
            "\u2718 a worker process died (killed, or out of memory); run again with fewer "
            "--n-process or more memory\n"
        )
        assert left == []
