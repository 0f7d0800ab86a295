"""A failed gate says why on the console (stderr) whatever the output format or destination
(SPEC §7); the report itself goes where it was asked to, untouched by the messages."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from spacy_span_eval.cli import app

GOLD = "John B-PER\nSmith I-PER\nsaw O\nMary B-PER\n\nParis B-LOC\nsleeps O\n"
PRED = "John B-PER\nSmith I-PER\nsaw O\nMary O\n\nParis B-LOC\nsleeps O\n"


@pytest.fixture
def pair(tmp_path):
    (tmp_path / "g.conll").write_text(GOLD)
    (tmp_path / "p.conll").write_text(PRED)
    (tmp_path / "floors.json").write_text(
        json.dumps({"floors": {"PER": {"recall": 0.9}, "LOC": {"recall": 0.9}}})
    )
    return tmp_path


@pytest.mark.parametrize("fmt", ["json", "text", "markdown"])
@pytest.mark.parametrize("to_file", [True, False])
def test_a_failed_gate_names_the_breach_on_stderr(pair, fmt, to_file):
    args = ["gate", pair / "g.conll", pair / "p.conll", "--floors", pair / "floors.json"]
    args += ["-f", fmt] + (["-o", pair / "out"] if to_file else [])
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 1
    err = " ".join(result.stderr.split())
    assert "Gate failed: 1 of 2 floors and 0 of 2 support checks" in err  # (one each a label)
    assert "PER recall 0.5000 < floor 0.9" in err  # label, figure, value and floor
    assert "LOC" not in err.split("Gate failed", 1)[1]  # the floor that held is not a breach
    if fmt == "json":
        shown = (pair / "out").read_text() if to_file else result.stdout
        assert json.loads(shown)["gate"]["passed"] is False  # stdout stays pure JSON
    if to_file:
        assert "Saved the" in err and result.stdout == ""


def test_a_silent_gate_says_nothing_and_exits_1(pair):
    args = [
        "gate",
        pair / "g.conll",
        pair / "p.conll",
        "--floors",
        pair / "floors.json",
        "-f",
        "json",
        "-o",
        pair / "out",
        "--silent",
    ]
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", "")
