"""``--labels`` through the command line on a ``.spacy`` gold whose IP_ADDRESS span falls
inside a token (kept beside the Doc by ``convert``), scored in token unit against a pipeline:
the other label's unaligned gold is left out with its label, as the aligned spans are."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from spacy_span_eval.cli import app

from conftest import converted_gold_and_ruler

RECORD = {
    "id": "a",
    "text": "John wrote from 10.0.0.1abc today",
    "spans": [
        {"start": 0, "end": 4, "label": "PERSON"},
        {"start": 16, "end": 24, "label": "IP_ADDRESS"},
    ],
}


@pytest.fixture(scope="module")
def gold_and_model(tmp_path_factory):
    patterns = [{"label": "PERSON", "pattern": "John"}]
    return converted_gold_and_ruler(tmp_path_factory.mktemp("labels"), RECORD, patterns)


def scores(gold, model, *extra):
    args = ["evaluate", str(gold), "--model", str(model), "--unit", "token", "-f", "json"]
    result = CliRunner().invoke(app, [*args, *extra])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    level = report["result"]["levels"]["labels"][0]
    return sorted(level["per_label"]), level["micro"]["recall"], report["result"]["notes"]


def test_without_labels_the_unaligned_gold_span_is_a_miss(gold_and_model):
    labels, recall, notes = scores(*gold_and_model)
    assert labels == ["IP_ADDRESS", "PERSON"] and recall == 0.5
    assert notes == {"unaligned_gold": 1}


def test_labels_leave_out_the_other_labels_unaligned_gold(gold_and_model):
    labels, recall, notes = scores(*gold_and_model, "--labels", "PERSON")
    assert labels == ["PERSON"] and recall == 1.0 and notes == {}
