"""The CLI as a user runs it: the console script and ``python -m spacy_span_eval``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import flat, write_pair

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


@pytest.mark.parametrize("command", [[script], [sys.executable, "-m", "spacy_span_eval"]],
                         ids=["console-script", "python-m"])
def test_evaluate_json_and_exit_codes(inputs, tmp_path, command):
    base = [c() if callable(c) else c for c in command]
    done = subprocess.run([*base, "evaluate", *inputs, "--strategy", "exact", "--format",
                           "json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)["result"]["levels"]["labels"][0]
    assert run["per_label"]["PER"]["tp"] == 0 and run["per_label"]["LOC"]["tp"] == 1

    floors = tmp_path / "floors.json"
    floors.write_text('{"floors": {"PER": {"recall": 0.5}}}')
    done = subprocess.run([*base, "gate", *inputs, "--floors", str(floors), "-s", "exact"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "PER recall 0.0000 < floor 0.5" in flat(done.stdout + done.stderr)

    done = subprocess.run([*base, "evaluate", inputs[0], str(tmp_path / "nope.conll")],
                          capture_output=True, text=True, timeout=120)
    # which stream the message takes is test_messages_go_to_stderr_without_colour's business
    assert done.returncode == 2 and "nope.conll: no such file" in flat(done.stdout + done.stderr)
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.xfail(strict=True, reason="issue 11: messages go to stdout, with colour codes "
                   "when it is not a terminal (SPEC 7: messages to stderr, results to stdout)")
def test_messages_go_to_stderr_without_colour(inputs, tmp_path):
    done = subprocess.run([sys.executable, "-m", "spacy_span_eval", "evaluate", inputs[0],
                           str(tmp_path / "nope.conll"), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "nope.conll: no such file" in flat(done.stderr)
    assert done.stdout == ""  # `-f json > out.json` must not capture the message
    assert "\x1b[" not in done.stderr
