"""The CLI as a user runs it: the console script and ``python -m spacy_span_eval``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli_process, flat, needs, write_pair

pytestmark = pytest.mark.slow

GOLD = "John B-PER\nSmith I-PER\nsaid O\n\nParis B-LOC\nis O\n"
PRED = "John B-PER\nSmith O\nsaid O\n\nParis B-LOC\nis O\n"


def script() -> str:
    path = Path(sys.executable).with_name("spacy-span-eval")
    if not path.exists():
        pytest.fail(f"console script not installed at {path} (pip install -e .)")
    return str(path)


@pytest.fixture
def inputs(tmp_path):
    return tuple(map(str, write_pair(tmp_path, GOLD, PRED)))


@pytest.mark.parametrize(
    "command",
    [[script], [sys.executable, "-m", "spacy_span_eval"]],
    ids=["console-script", "python-m"],
)
def test_evaluate_json_and_exit_codes(inputs, tmp_path, command):
    base = [c() if callable(c) else c for c in command]
    done = subprocess.run(
        [*base, "evaluate", *inputs, "--strategy", "exact", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)["result"]["levels"]["labels"][0]
    assert run["per_label"]["PER"]["tp"] == 0 and run["per_label"]["LOC"]["tp"] == 1

    floors = tmp_path / "floors.json"
    floors.write_text('{"floors": {"PER": {"recall": 0.5}}}')
    done = subprocess.run(
        [*base, "gate", *inputs, "--floors", str(floors), "-s", "exact"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # The table is a result (stdout); the verdict's breach line is a message (stderr).
    assert done.returncode == 1 and "PER recall 0.0000 < floor 0.5" in flat(done.stderr)
    assert "PER recall 0.0000 0.5 FAIL" in flat(done.stdout)

    done = subprocess.run(
        [*base, "evaluate", inputs[0], str(tmp_path / "nope.conll"), "-f", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"\u2718 {tmp_path / 'nope.conll'}: no such file"]
    assert "\x1b[" not in done.stderr  # no colour: stderr is not a terminal


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(c) for c in path.read_text().split()] if path.exists() else []


def _interrupt_when_workers_run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Start the CLI in its own process group, wait for two worker processes, then send
    Ctrl-C to the whole group (as a terminal does)."""
    import os
    import signal
    import time

    proc = cli_process(args, cwd)
    try:
        deadline = time.monotonic() + 60
        while len(_children(proc.pid)) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        assert proc.poll() is None, "finished before it could be interrupted"
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:  # a failed check must not leave the process or its pipes behind
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.fixture(scope="module")
def big_conll(tmp_path_factory) -> Path:
    import random

    rng = random.Random(0)
    path = tmp_path_factory.mktemp("big") / "big.conll"
    tags = ["O", "O", "O", "B-PER", "I-PER", "B-LOC"]
    # 2M sentences (a 2,000-sentence block written 1,000 times): long enough that the
    # columnar readers' workers are still running when the interrupt comes.
    block = "".join(
        "".join(f"w{t} {rng.choice(tags)}\n" for t in range(rng.randint(3, 12))) + "\n"
        for _ in range(2_000)
    )
    with path.open("w") as fh:
        for _ in range(1_000):
            fh.write(block)
    return path


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_ctrl_c_under_n_process_2_is_one_line(big_conll, tmp_path):
    done = _interrupt_when_workers_run(
        ["evaluate", str(big_conll), str(big_conll), "--n-process", "2"], tmp_path
    )
    assert done.returncode == 130, done.stderr
    assert done.stdout == "" and done.stderr == "\u2718 Interrupted\n"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_ctrl_c_under_a_pipeline_with_n_process_2_is_one_line(big_conll, tmp_path):
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.to_disk(tmp_path / "blank")
    done = _interrupt_when_workers_run(
        ["evaluate", str(big_conll), "--model", str(tmp_path / "blank"), "--n-process", "2"],
        tmp_path,
    )
    assert done.returncode == 130, done.stderr
    assert done.stdout == "" and done.stderr == "\u2718 Interrupted\n"


def test_a_silent_scheduler_fails_within_the_connect_timeout(inputs, tmp_path):
    """A server that accepts the connection and never answers: exit 2 after about
    --connect-timeout, one line, and no "Exception ignored" noise at exit."""
    import socket
    import threading
    import time

    needs("distributed", "the dask extra")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted = []
    threading.Thread(
        target=lambda: [accepted.append(server.accept()) for _ in range(8)], daemon=True
    ).start()
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "spacy_span_eval",
            "evaluate",
            *inputs,
            "--dask-scheduler",
            address,
            "--connect-timeout",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    took = time.monotonic() - started
    server.close()
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"\u2718 cannot connect to the Dask scheduler at {address!r} within 1 s (no answer)\n"
    )
    assert took < 30  # the import of the CLI included; the old default waited 30-60 s


@pytest.mark.parametrize(
    "answer", [b"", b"HTTP/1.1 400 Bad Request\r\n\r\n" * 50], ids=["hangs-up", "not-dask"]
)
def test_a_scheduler_that_is_not_dask_is_one_line_without_noise_at_exit(inputs, tmp_path, answer):
    """A server that answers the connection with something else (or hangs up): the client
    that failed to start is closed, so it prints no "Exception ignored" traceback at exit."""
    import socket
    import threading

    needs("distributed", "the dask extra")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)

    def serve() -> None:
        while True:
            peer, _ = server.accept()
            peer.sendall(answer)
            peer.close()

    threading.Thread(target=serve, daemon=True).start()
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    done = subprocess.run(
        [sys.executable, "-m", "spacy_span_eval", "evaluate", *inputs, "--dask-scheduler"]
        + [address, "--connect-timeout", "5"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    server.close()
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(
        f"\u2718 cannot connect to the Dask scheduler at {address!r} within 5 s ("
    )
    assert done.stderr.count("\n") == 1, done.stderr
