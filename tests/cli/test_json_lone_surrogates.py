"""A JSON string with a lone surrogate (``"\\ud800"``: no character, not encodable as UTF-8) is
refused when the file is read, naming the file and the record's line, not later, when an
output cannot be written."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from spacy_span_eval.cli import app

runner = CliRunner()
GOOD = {"text": "Ana smiled", "spans": [{"start": 0, "end": 3, "label": "PER"}]}


@pytest.mark.parametrize(
    "bad",
    [
        '{"text": "Ana \\ud800 smiled", "spans": [{"start": 0, "end": 3, "label": "PER"}]}',
        '{"text": "Ana smiled", "spans": [{"start": 0, "end": 3, "label": "P\\udc00"}]}',
    ],
)
@pytest.mark.parametrize("layout", ["jsonl", "array"])
def test_a_lone_surrogate_is_refused_at_read_time(tmp_path, bad, layout):
    good = json.dumps(GOOD)
    path = tmp_path / "gold.jsonl"
    if layout == "jsonl":
        path.write_text(f"{good}\n{good}\n{bad}\n", encoding="utf-8")
    else:
        path.write_text(f"[\n{good},\n{good},\n{bad}\n]\n", encoding="utf-8")
    result = runner.invoke(app, ["evaluate", str(path), str(path), "-f", "json"])
    assert result.exit_code == 2, result.output
    line = 3 if layout == "jsonl" else 4  # an array's "[" is on line 1
    assert f"{path} line {line}" in result.stderr
    assert "surrogate" in result.stderr


def test_an_escaped_surrogate_pair_is_a_character_and_reads(tmp_path):
    record = '{"text": "\\ud83d\\ude00 Ana", "spans": [{"start": 2, "end": 5, "label": "PER"}]}'
    path = tmp_path / "gold.jsonl"
    path.write_text(record + "\n", encoding="utf-8")
    result = runner.invoke(app, ["evaluate", str(path), str(path), "-f", "json"])
    assert result.exit_code == 0, result.output
