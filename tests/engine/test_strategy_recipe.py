"""The "new strategy" recipe of docs/architecture.md, followed with a toy: the toy strategy's
module (``SameStart``, in test_strategy_registry) and its registry line reach the evaluator,
the settings and the spaCy score keys (test_strategy_registry), the API and every command;
its name in ``STRATEGY_NAMES`` adds it to the command line's ``--strategy`` choices."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_strategy_registry import SameStart, same_start  # noqa: F401 (the fixture)
from typer.testing import CliRunner

from spacy_span_eval.api import compare_files, evaluate_files, gate_files
from spacy_span_eval.cli import app

# The gold PER starts one token before the predicted one: found with slack=1 only.
GOLD = "John B-PER\nSmith I-PER\nmet O\nParis B-LOC\n"
PRED = "John O\nSmith B-PER\nmet O\nParis B-LOC\n"


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "gold.conll").write_text(GOLD)
    (tmp_path / "pred.conll").write_text(PRED)
    return tmp_path / "gold.conll", tmp_path / "pred.conll"


@pytest.mark.usefixtures("same_start")
def test_the_api_scores_with_a_registered_strategy_and_its_options(pair):
    strict = evaluate_files(*pair, strategy="same_start").result
    assert strict.settings.strategy == "same_start" and strict.settings.slack == 0
    assert strict.scores().per_label["PER"].tp == 0
    loose = evaluate_files(*pair, strategy="same_start", strategy_options={"slack": 1})
    assert loose.result.settings.to_dict()["slack"] == 1
    assert loose.result.scores().per_label["PER"].tp == 1
    floors = pair[0].parent / "floors.json"
    gate = {"strategy": "same_start", "slack": 1}
    floors.write_text(json.dumps({"floors": {"PER": {"recall": 0.5}}, "gate": gate}))
    gated = gate_files(*pair, floors=floors)
    assert gated.result.settings.slack == 1 and gated.verdict.passed
    compared = compare_files(pair[0], pair[1], pair[1], strategy="same_start", resamples=10)
    assert [run.result.settings.strategy for run in compared.runs] == ["same_start"] * 2


# A fresh interpreter, so that the toy leaks into no other test: it takes the recipe's two
# lines (the name in STRATEGY_NAMES, the registry line), then builds the command line.
CLI_PROBE = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from spacy_span_eval.engine import settings
    settings.STRATEGY_NAMES += ("same_start",)
    from spacy_span_eval.engine.strategies import register
    from test_strategy_registry import SameStart
    register(SameStart)
    from typer.testing import CliRunner
    from spacy_span_eval.cli import app
    runner = CliRunner()
    done = runner.invoke(app, ["evaluate", *sys.argv[2:4], "-s", "same_start", "-f", "json"])
    shown = runner.invoke(app, ["evaluate", "--help"], env={"COLUMNS": "200"})
    print(json.dumps([done.exit_code, done.output, shown.output]))
""")


@pytest.mark.processes  # (a Python process of its own)
def test_the_command_line_offers_a_strategy_named_in_strategy_names(pair):
    done = subprocess.run(
        [sys.executable, "-c", CLI_PROBE, str(Path(__file__).parent), *map(str, pair)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    code, output, shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert code == 0, output
    result = json.loads(output)["result"]
    assert result["settings"]["strategy"] == "same_start" and result["settings"]["slack"] == 0
    assert "same_start" in shown


@pytest.mark.usefixtures("same_start")
def test_without_its_name_the_command_line_refuses_it(pair):
    done = CliRunner().invoke(app, ["evaluate", *map(str, pair), "--strategy", "same_start"])
    assert done.exit_code == 2 and SameStart.name in done.output
