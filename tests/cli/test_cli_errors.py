"""Bad input through the CLI: exit 2 and one clear message naming file and line or document."""

from __future__ import annotations

import pytest

from conftest import cli, jsonl, write_pair

GOLD_CONLL = "John B-PER\nSmith I-PER\nsaid O\n\nParis B-LOC\nis O\nbig O\n"


def test_malformed_conll_line(tmp_path):
    g, p = write_pair(tmp_path, GOLD_CONLL, GOLD_CONLL.replace("is O", "is"))
    code, out = cli("evaluate", g, p)
    assert code == 2 and "pred.conll line 6: malformed line" in out


def test_unknown_tag_prefix(tmp_path):
    g, p = write_pair(tmp_path, GOLD_CONLL.replace("Smith I-PER", "Smith M-PER"), GOLD_CONLL)
    code, out = cli("evaluate", g, p)
    assert code == 2 and "gold.conll line 2" in out and "'M-PER'" in out


def test_jsonl_syntax_error(tmp_path):
    good = jsonl({"text": "Ana", "spans": []})
    g, p = write_pair(tmp_path, good + good, good + '{"text": "Ana", "spans": [\n', ".jsonl")
    code, out = cli("evaluate", g, p)
    assert code == 2 and "pred.jsonl line 2: invalid JSON" in out


def test_span_offsets_outside_the_text(tmp_path):
    g, p = write_pair(
        tmp_path,
        jsonl({"id": "d1", "text": "Ana", "spans": []}),
        jsonl({"id": "d1", "text": "Ana", "spans": [{"start": 0, "end": 9, "label": "PER"}]}),
        ".jsonl",
    )
    code, out = cli("evaluate", g, p)
    assert code == 2 and "pred.jsonl line 1" in out and "'d1'" in out
    assert "past the end of the document (3)" in out


def test_unknown_label_under_a_strict_map(tmp_path):
    g, p = write_pair(tmp_path, GOLD_CONLL, GOLD_CONLL.replace("B-LOC", "B-GPE"))
    label_map = tmp_path / "labels.json"
    label_map.write_text('{"PERSON": ["PER"], "LOCATION": ["LOC"]}')
    code, out = cli("evaluate", g, p, "--label-map", label_map, "--strict-labels")
    assert code == 2 and "'GPE' is not in the strict label map" in out
    assert "gold.conll:5" in out and "predicted span #0" in out  # document = gold file:line
    code, _ = cli("evaluate", g, p, "--label-map", label_map)  # pass-through: fine
    assert code == 0


def test_document_mismatch_names_both_files(tmp_path):
    g, p = write_pair(tmp_path, GOLD_CONLL, GOLD_CONLL.replace("Paris", "Rome"))
    code, out = cli("evaluate", g, p)
    assert code == 2 and "✘ document 'gold.conll:5': gold and predicted texts differ" in out
    assert "gold.conll line 5" in out and "pred.conll line 5" in out
    assert "'Paris' != 'Rome'" in out


def test_document_count_mismatch(tmp_path):
    g, p = write_pair(tmp_path, GOLD_CONLL, GOLD_CONLL.split("\n\n")[0] + "\n")
    code, out = cli("evaluate", g, p)
    assert code == 2 and "has more documents than" in out and "gold.conll line 5" in out


@pytest.mark.parametrize(
    "gold,pred,suffix,why",
    [
        ("", GOLD_CONLL, ".conll", "gold.conll: no sentences found (empty input)"),
        (GOLD_CONLL, "\n\n", ".conll", "pred.conll: no sentences found (empty input)"),
        ("", "", ".jsonl", "gold.jsonl: no records found (empty input)"),
        ("Ana O\n", "Ana O\n", ".conll", "nothing to evaluate"),
    ],
)
def test_empty_input(tmp_path, gold, pred, suffix, why):
    g, p = write_pair(tmp_path, gold, pred, suffix)
    code, out = cli("evaluate", g, p)
    assert code == 2 and why in out


@pytest.mark.parametrize(
    "args,why",
    [
        (["--model", "x"], "not both"),
        (["-t", "1.5"], "IoU thresholds must be in (0, 1]"),
        (["--unit", "char", "--input-format", "jsonl"], "invalid JSON"),
    ],
)
def test_usage_errors(tmp_path, args, why):
    g, p = write_pair(tmp_path, GOLD_CONLL, GOLD_CONLL)
    code, out = cli("evaluate", g, p, *args)
    assert code == 2 and why in out


def test_neither_pred_nor_model(tmp_path):
    g, _ = write_pair(tmp_path, GOLD_CONLL, GOLD_CONLL)
    code, out = cli("evaluate", g)
    assert code == 2 and "neither" in out


def test_missing_file_and_bad_choices(tmp_path):
    g, _ = write_pair(tmp_path, GOLD_CONLL, GOLD_CONLL)
    code, out = cli("evaluate", g, tmp_path / "missing.conll")
    assert code == 2 and "missing.conll: no such file" in out
    code, _ = cli("evaluate", g, g, "--strategy", "fuzzy")
    assert code == 2
    code, _ = cli("evaluate", g, g, "--format", "html")
    assert code == 2


def test_bad_label_map_and_floors_files(tmp_path):
    g, p = write_pair(tmp_path, GOLD_CONLL, GOLD_CONLL)
    bad = tmp_path / "labels.json"
    bad.write_text("{not json")
    code, out = cli("evaluate", g, p, "--label-map", bad)
    assert code == 2 and "labels.json: cannot parse JSON" in out
    floors = tmp_path / "floors.json"
    floors.write_text('{"floors": {"PER": {"recal": 0.9}}}')
    code, out = cli("gate", g, p, "--floors", floors)
    assert code == 2 and "unknown figure 'recal'" in out


def test_a_label_missing_from_the_hierarchy_names_the_file(tmp_path):
    g, p = write_pair(tmp_path, GOLD_CONLL, GOLD_CONLL)
    tree = tmp_path / "tree.json"
    tree.write_text('{"branch": {"PER": "person"}}')
    code, out = cli("evaluate", g, p, "--hierarchy", tree)
    assert code == 2 and "'LOC' has no projection at hierarchy level 'branch'" in out
    assert "tree.json" in out
