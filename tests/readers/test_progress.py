"""Progress bars: on stderr, with records per second, for long file runs and model runs; never
on stdout, never when stderr is not a terminal (unless forced), never with --quiet/--silent."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from spacy_span_eval.cli import app
from spacy_span_eval.readers.progress import PROGRESS_AFTER, PROGRESS_ENV, with_progress

runner = CliRunner()


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def no_forcing(monkeypatch):
    monkeypatch.delenv(PROGRESS_ENV, raising=False)


def run(items, stream, **kwargs) -> list:
    return list(with_progress(items, desc="Scoring x.conll", stream=stream, **kwargs))


def test_a_terminal_gets_a_bar_with_the_rate_and_the_items_pass_unchanged():
    screen = Terminal()
    assert run(range(50), screen, enabled=True, after=10) == list(range(50))
    shown = screen.getvalue()
    assert "Scoring x.conll: 10doc" in shown and "doc/s" in shown  # it starts at `after`


@pytest.mark.parametrize(
    ("stream", "enabled", "items"),
    [
        (io.StringIO(), True, 50),  # not a terminal
        (Terminal(), False, 50),  # --quiet / --silent
        (Terminal(), True, 10),  # a short run: no more than `after` records
    ],
    ids=["not-a-tty", "quiet", "short-run"],
)
def test_no_bar(stream, enabled, items):
    assert run(range(items), stream, enabled=enabled, after=10) == list(range(items))
    assert stream.getvalue() == ""


def test_the_environment_forces_bars_on_or_off(monkeypatch):
    monkeypatch.setenv(PROGRESS_ENV, "1")
    piped = io.StringIO()
    run(range(20), piped, enabled=True, after=0)
    assert "Scoring x.conll" in piped.getvalue()
    quiet = io.StringIO()
    run(range(20), quiet, enabled=False, after=0)  # --quiet wins
    assert quiet.getvalue() == ""
    monkeypatch.setenv(PROGRESS_ENV, "0")
    screen = Terminal()
    run(range(20), screen, enabled=True, after=0)
    assert screen.getvalue() == ""


def test_a_model_run_shows_its_bar_from_the_first_document():
    screen = Terminal()
    run(range(3), screen, enabled=True, after=0)
    assert "Scoring x.conll: 0doc" in screen.getvalue()


@pytest.fixture
def long_pair(tmp_path):
    """Just over PROGRESS_AFTER one-token sentences per file."""
    gold, pred = tmp_path / "gold.conll", tmp_path / "pred.conll"
    n = PROGRESS_AFTER + 200
    gold.write_text("John B-PER\n\n" * n)
    pred.write_text("John B-PER\n\n" * (n - 1) + "John O\n\n")
    return str(gold), str(pred)


@pytest.mark.parametrize("command", ["evaluate", "report"])
def test_cli_bar_is_on_stderr_only(long_pair, tmp_path, command, monkeypatch):
    monkeypatch.setenv(PROGRESS_ENV, "1")  # the runner's stderr is no terminal
    extra = ["-o", str(tmp_path / "page.html"), "--resamples", "5"] if command == "report" else []
    result = runner.invoke(app, [command, *long_pair, *extra])
    assert result.exit_code == 0, result.output
    assert "Scoring pred.conll" in result.stderr and "doc/s" in result.stderr
    assert "Scoring" not in result.stdout and "doc/s" not in result.stdout
    for flag in ("--quiet", "-q", "--silent"):
        result = runner.invoke(app, [command, *long_pair, *extra, flag])
        assert result.exit_code == 0 and "doc/s" not in result.stderr, flag


def test_no_bar_when_stderr_is_not_a_terminal(long_pair):
    """A fresh process with stderr on a pipe, nothing forced: no bar anywhere."""
    env_code = (
        f"import os; os.environ.pop({PROGRESS_ENV!r}, None); "
        "from spacy_span_eval.cli import main; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", env_code, "evaluate", *long_pair],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "doc/s" not in done.stderr + done.stdout and "F1" in done.stdout
