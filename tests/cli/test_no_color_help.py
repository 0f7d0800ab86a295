"""With ``NO_COLOR`` set, ``--help`` and a usage error carry no escape codes, even on a
terminal (rich's own ``NO_COLOR`` keeps bold and dim); without a terminal there are none
either way."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

pytestmark = pytest.mark.processes  # the CLI on a pseudo-terminal, a process per case

ESC = b"\x1b["
CASES = [["--help"], ["compare", "--help"], ["evaluate", "--no-such-option"], ["nonsense"]]


def _on_a_terminal(args: list[str], env: dict[str, str]) -> tuple[int, bytes]:
    """Run the CLI with stdout and stderr on a pseudo-terminal; its exit code and output."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "spacy_span_eval", *args],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env=env,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closes when the process ends
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return proc.wait(timeout=60), b"".join(chunks)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(COLUMNS="100", TERM="xterm-256color", **extra)
    return env


@pytest.mark.parametrize("args", CASES)
def test_no_color_on_a_terminal_means_no_escape_codes(args):
    code, out = _on_a_terminal(args, _env(NO_COLOR="1"))
    assert code in (0, 2), out
    assert b"Usage" in out
    assert ESC not in out, out[:400]


@pytest.mark.parametrize("args", CASES[::2])
def test_no_terminal_means_no_escape_codes(args):
    for env in (_env(), _env(NO_COLOR="1")):
        run = subprocess.run(
            [sys.executable, "-m", "spacy_span_eval", *args],
            capture_output=True,
            env=env,
            timeout=60,
        )
        assert run.returncode in (0, 2)
        assert ESC not in run.stdout and ESC not in run.stderr


def test_a_terminal_without_no_color_still_gets_its_styles():
    # The check above is not vacuous: the same terminal without NO_COLOR is styled.
    _, out = _on_a_terminal(["--help"], _env())
    assert ESC in out
