"""Text tables set the summary rows apart from the labels' rows: labels called ``micro``,
``macro`` and ``any entity`` sit above a rule line, the summary rows below it."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from spacy_span_eval.cli import app

runner = CliRunner()
SUMMARY_RULE = "-- summary rows, not labels"
TEXT = "a b c d"
GOLD = [(0, 1, "micro"), (2, 3, "macro"), (4, 5, "any entity"), (6, 7, "PER")]


def _write(path, spans, n=12):
    record = {"text": TEXT, "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in spans]}
    path.write_text("".join(json.dumps({**record, "id": f"d{i}"}) + "\n" for i in range(n)))
    return str(path)


@pytest.fixture
def files(tmp_path):
    gold = _write(tmp_path / "gold.jsonl", GOLD)
    a = _write(tmp_path / "a.jsonl", GOLD[:1] + GOLD[2:])  # misses "macro"
    b = _write(tmp_path / "b.jsonl", GOLD[2:])  # misses "micro" and "macro"
    return gold, a, b


def _split(text: str) -> tuple[list[str], list[str]]:
    """Row names above the summary rule (after the header's divider) and below it."""
    lines = text.splitlines()
    rule = next(i for i, ln in enumerate(lines) if ln.startswith(SUMMARY_RULE))
    divider = max(i for i, ln in enumerate(lines[:rule]) if ln.startswith("---"))
    above = [ln.split("  ")[0].strip() for ln in lines[divider + 1 : rule] if ln.strip()]
    below = []
    for ln in lines[rule + 1 :]:
        if not ln.strip():
            break
        below.append(ln.split("  ")[0].strip())
    return above, below


@pytest.mark.parametrize("extra", [[], ["--wide"], ["-t", "0.5", "-t", "0.9"]])
def test_evaluate_table_rules_off_the_summary_rows(files, extra):
    result = runner.invoke(app, ["evaluate", files[0], files[1], *extra])
    assert result.exit_code == 0, result.output
    above, below = _split(result.stdout)
    assert above == ["PER", "any entity", "macro", "micro"]
    assert below == ["micro", "macro", "weighted", "any entity"]


def test_compare_table_rules_off_micro_and_macro(files):
    result = runner.invoke(app, ["compare", *files, "--resamples", "50"])
    assert result.exit_code == 0, result.output
    above, below = _split(result.stdout)
    assert [name for name in above if name] == ["PER", "any entity", "macro", "micro"]
    assert [name for name in below if name] == ["micro", "macro"]
