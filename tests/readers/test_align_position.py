"""``--align position``: CoNLL files whose token strings differ (a system normalized some
tokens) but whose sentences have the same number of tokens are scored by position, as
conlleval does; the differing tokens are counted and the first few named with file and line;
different token counts stay an error naming the sentence. The default still refuses them."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from spacy_span_eval.api import evaluate_files, run_evaluate
from spacy_span_eval.cli import app
from spacy_span_eval.readers.align import TokenDifferences, align_by_position
from spacy_span_eval.readers.base import Record
from spacy_span_eval.readers.options import ReadingOptions

runner = CliRunner()

# Sentence 1 (lines 1-4): "gt" normalized to "get", the PER found.
# Sentence 2 (lines 6-9): the URL replaced, ORG found, LOC missed.
GOLD = "Ann B-PER\ngt O\nthe O\nbook O\n\nAcme B-ORG\nat O\nhttp://x.co/a O\nParis B-LOC\n"
PRED = "Ann B-PER\nget O\nthe O\nbook O\n\nAcme B-ORG\nat O\n<URL> O\nParis O\n"


@pytest.fixture
def files(tmp_path):
    gold, pred = tmp_path / "gold.conll", tmp_path / "pred.conll"
    gold.write_text(GOLD)
    pred.write_text(PRED)
    return gold, pred


def test_the_default_refuses_different_tokens(files):
    result = runner.invoke(app, ["evaluate", *map(str, files)])
    assert result.exit_code == 2
    assert "sentence 1" in " ".join(result.output.split())


def test_position_scores_as_conlleval_and_names_the_differences(files):
    gold, pred = files
    result = runner.invoke(
        app,
        [
            "evaluate",
            str(gold),
            str(pred),
            "--align",
            "position",
            "--strategy",
            "exact",
            "-f",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    micro = report["result"]["levels"]["labels"][0]["micro"]
    # conlleval: found 2, correct 2, gold 3.
    assert (micro["num_annotated"], micro["num_predicted"], micro["tp"]) == (3, 2, 2)
    alignment = report["inputs"]["predicted"]["alignment"]
    assert alignment == {
        "align": "position",
        "differing_tokens": 2,
        "sentences": 2,
        "examples": [
            f"{gold} line 2: 'gt' vs {pred} line 2: 'get'",
            f"{gold} line 8: 'http://x.co/a' vs {pred} line 8: '<URL>'",
        ],
    }
    assert "alignment" not in report["inputs"]["gold"]
    text = runner.invoke(app, ["evaluate", str(gold), str(pred), "--align", "position"])
    assert text.exit_code == 0
    assert "Tokens paired by position: 2 predicted token(s) in 2 sentence(s) differ" in text.stdout
    assert f"{pred} line 2: 'get'" in text.stdout


def test_different_token_counts_stay_an_error_naming_the_sentence(files, tmp_path):
    gold, _ = files
    pred = tmp_path / "short.conll"
    pred.write_text(PRED.replace("at O\n", ""))
    result = runner.invoke(app, ["evaluate", str(gold), str(pred), "--align", "position"])
    assert result.exit_code == 2
    message = " ".join(result.output.split())
    assert "sentence 2: gold has 4 tokens, the predictions 3" in message
    assert f"{gold} line 6" in message and f"{pred} line 6" in message


def test_json_input_is_refused_with_position(tmp_path):
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    for f in (gold, pred):
        f.write_text('{"text": "Ann smiled", "spans": [{"start": 0, "end": 3, "label": "PER"}]}\n')
    result = runner.invoke(app, ["evaluate", str(gold), str(pred), "--align", "position"])
    assert result.exit_code == 2 and "needs token input" in " ".join(result.output.split())


def test_identical_tokens_report_no_difference(files):
    gold, _ = files
    report = evaluate_files(gold, gold, strategy="exact")
    assert "alignment" not in report.inputs["predicted"] and report.result.micro.tp == 3
    aligned = run_evaluate(gold, gold, reading=ReadingOptions(align="position"))
    assert aligned.inputs["predicted"]["alignment"]["differing_tokens"] == 0
    assert aligned.result.micro.tp == 3


def test_only_the_first_examples_are_kept():
    diffs = TokenDifferences(limit=3)
    gold = Record(where="g.conll line 10", key="g:10", id=None, tokens=tuple("abcdef"))
    pred = Record(where="p.conll line 12", key="p:12", id=None, tokens=tuple("ABCDEf"))
    out = align_by_position(gold, pred, index=1, differences=diffs)
    assert out.tokens == gold.tokens
    assert (diffs.tokens, diffs.sentences) == (5, 1)
    assert diffs.examples == [
        "g.conll line 10: 'a' vs p.conll line 12: 'A'",
        "g.conll line 11: 'b' vs p.conll line 13: 'B'",
        "g.conll line 12: 'c' vs p.conll line 14: 'C'",
    ]
