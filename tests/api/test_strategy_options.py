"""A strategy's options reach every door: the API (and so the command line's --option), the
floors file's gate section, and the spaCy scorers' config."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from spacy_span_eval.api import evaluate_files, gate_files
from spacy_span_eval.cli import app
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.jobs.options import ScoringOptions

GOLD = "John B-PER\nSmith I-PER\nlives O\nin O\nParis B-LOC\n"
PRED = "John B-PER\nSmith O\nlives O\nin O\nParis B-LOC\n"


@pytest.fixture
def pair(tmp_path):
    (tmp_path / "gold.conll").write_text(GOLD)
    (tmp_path / "pred.conll").write_text(PRED)
    return tmp_path / "gold.conll", tmp_path / "pred.conll"


def test_key_value_texts_become_typed_options():
    given = ("coverage=pooled", "one_to_one=true", "min_gold=0.7")
    options = ScoringOptions(strategy_options=given[:2]).strategy_options
    assert options == (("coverage", "pooled"), ("one_to_one", True))
    assert ScoringOptions(strategy="overlap", strategy_options=given[2:]).strategy_options == (
        ("min_gold", 0.7),
    )
    with pytest.raises(InvalidInputError, match="--option takes KEY=VALUE"):
        ScoringOptions(strategy_options=("coverage",))
    with pytest.raises(ValueError, match="min_gold applies to the overlap strategy only"):
        ScoringOptions(strategy="two_sided", strategy_options=given[2:])


def test_the_api_and_the_command_line_score_with_the_options(pair):
    report = evaluate_files(*pair, strategy="overlap", strategy_options={"min_gold": 0.9})
    assert report.result.settings.min_gold == 0.9
    runner = CliRunner()
    ok = runner.invoke(
        app, ["evaluate", *map(str, pair), "-s", "overlap", "--option", "min_gold=0.9"]
    )
    assert ok.exit_code == 0 and "min_gold 0.9" in ok.output
    bad = runner.invoke(app, ["evaluate", *map(str, pair), "--option", "min_gold=0.9"])
    assert bad.exit_code == 2 and "min_gold applies to the overlap strategy only" in bad.output


def test_the_floors_gate_section_sets_options_under_the_command_line(pair, tmp_path):
    floors = tmp_path / "floors.json"
    gate = {"strategy": "overlap", "min_gold": 0.9}
    floors.write_text(json.dumps({"floors": {"PER": {"recall": 0.1}}, "gate": gate}))
    assert gate_files(*pair, floors=floors).result.settings.min_gold == 0.9
    chosen = gate_files(*pair, floors=floors, strategy_options={"min_gold": 0.6})
    assert chosen.result.settings.min_gold == 0.6
    floors.write_text(json.dumps({"floors": {"PER": {"recall": 0.1}}, "gate": {"min_gold": 2}}))
    with pytest.raises(ValueError, match="min_gold must be in"):
        gate_files(*pair, floors=floors, strategy="overlap")


def test_the_scorers_take_the_options_from_their_config():
    from spacy_span_eval.adapters.scorers import ScorerSettings, make_ents_scorer

    settings = ScorerSettings.of("two_sided", strategy_options={"coverage": "pooled"})
    assert settings.settings.coverage == "pooled"
    assert callable(make_ents_scorer(strategy_options={"coverage": "pooled"}))
    with pytest.raises(ValueError, match="coverage"):
        ScorerSettings.of("two_sided", strategy_options={"coverage": "most"})
