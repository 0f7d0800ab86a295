"""``evaluate --strategy semeval`` through the command line on a ``.spacy`` gold whose
IP_ADDRESS span falls inside a token (kept beside the Doc by ``convert``), scored in token
unit against a pipeline: the schemas count that span as missed, as the ledger counts it as a
false negative (semantics §2.5)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from spacy_span_eval.cli import app

from conftest import converted_gold_and_ruler

TEXT = "John wrote from 10.0.0.1abc in Rome today"
RECORD = {
    "id": "a",
    "text": TEXT,
    "spans": [
        {"start": 0, "end": 4, "label": "PERSON"},
        {"start": 16, "end": 24, "label": "IP_ADDRESS"},  # inside the token "10.0.0.1abc"
        {"start": 31, "end": 35, "label": "LOC"},
    ],
}
COUNTS = ("correct", "incorrect", "partial", "missed", "spurious")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("semeval_unaligned")
    patterns = [{"label": "PERSON", "pattern": "John"}, {"label": "ORG", "pattern": "Rome"}]
    gold, model = converted_gold_and_ruler(root, RECORD, patterns)
    args = ["evaluate", str(gold), "--model", str(model), "--unit", "token"]
    result = CliRunner().invoke(app, [*args, "--strategy", "semeval", "-f", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["result"]["notes"] == {"unaligned_gold": 1}
    return out["result"]["levels"]["labels"][0]


def row(table: dict, schema: str) -> tuple[int, ...]:
    return tuple(table[schema][c] for c in COUNTS)


def test_overall_every_schema_misses_the_unaligned_span(report):
    overall = report["schemas"]["overall"]
    # PERSON found; "Rome" LOC predicted ORG (same boundaries); IP_ADDRESS unaligned
    assert row(overall, "strict") == (1, 1, 0, 1, 0)
    assert row(overall, "exact") == (2, 0, 0, 1, 0)
    assert row(overall, "partial") == (2, 0, 0, 1, 0)
    assert row(overall, "ent_type") == (1, 1, 0, 1, 0)
    assert (overall["strict"]["possible"], overall["strict"]["actual"]) == (3, 2)


def test_per_label_the_unaligned_label_has_its_row(report):
    per_label = report["schemas"]["per_label"]
    assert sorted(per_label) == ["IP_ADDRESS", "LOC", "ORG", "PERSON"]
    assert row(per_label["IP_ADDRESS"], "strict") == (0, 0, 0, 1, 0)
    assert row(per_label["LOC"], "strict") == (0, 0, 0, 1, 0)
    assert row(per_label["ORG"], "strict") == (0, 0, 0, 0, 1)
    assert row(per_label["PERSON"], "strict") == (1, 0, 0, 0, 0)
    for label, ledger in report["per_label"].items():
        strict = per_label[label]["strict"]
        assert (strict["possible"], strict["actual"]) == (
            ledger["num_annotated"],
            ledger["num_predicted"],
        ), label
