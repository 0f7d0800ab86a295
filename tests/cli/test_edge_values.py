"""Figures at the edges, read through the command line on asymmetric fixtures (P != R, gold
!= predictions, macro != weighted), so a swapped column, a swapped side or a swapped cell
changes a number the test reads. The expected values are worked by hand below each fixture.
"""

from __future__ import annotations

import json

import pytest

from conftest import cli

# Token, gold tag, predicted tag (a conlleval file). Worked by hand, exact matching:
#   gold  PER: John Smith, Ann, Bob      LOC: Paris, Rome
#   pred  PER: John Smith, Ann           LOC: visited, Rome      ORG: ".", left
#   PER  gold 3 pred 2 TP 2 -> P 1,   R 2/3
#   LOC  gold 2 pred 2 TP 1 -> P 1/2, R 1/2
#   ORG  gold 0 pred 2      -> P 0,   R undefined
#   micro gold 5 pred 6 TP 3 -> P 1/2, R 3/5, F 6/11
#   macro    P (1 + 1/2 + 0) / 3 = 1/2,          R (2/3 + 1/2) / 2 = 7/12
#   weighted P (3 * 1 + 2 * 1/2) / 5 = 4/5,      R (3 * 2/3 + 2 * 1/2) / 5 = 3/5
CONLLEVAL = """\
John B-PER B-PER
Smith I-PER I-PER
visited O B-LOC
Paris B-LOC O
. O B-ORG

Ann B-PER B-PER
saw O O
Rome B-LOC B-LOC

Bob B-PER O
left O B-ORG
"""


@pytest.fixture
def conlleval(tmp_path):
    path = tmp_path / "system.conll"
    path.write_text(CONLLEVAL, encoding="utf-8")
    return path


def _json(*args):
    code, out = cli("evaluate", *args, "--strategy", "exact", "-f", "json", "-o", "-")
    assert code == 0, out
    start = out.index("{")
    level = json.loads(out[start : out.rindex("}") + 1])["result"]["levels"]["labels"][0]
    return level


def test_predictions_read_from_their_own_tag_column(conlleval):
    level = _json(conlleval, conlleval, "--tag-column", "-2", "--pred-tag-column", "-1")
    micro = level["micro"]
    assert (micro["num_annotated"], micro["num_predicted"], micro["tp"]) == (5, 6, 3)
    assert micro["precision"] == pytest.approx(1 / 2)
    assert micro["recall"] == pytest.approx(3 / 5)
    assert micro["f"] == pytest.approx(6 / 11)
    assert level["per_label"]["PER"]["recall"] == pytest.approx(2 / 3)


def test_the_two_columns_swapped_swap_precision_and_recall(conlleval):
    level = _json(conlleval, conlleval, "--tag-column", "-1", "--pred-tag-column", "-2")
    micro = level["micro"]
    assert (micro["num_annotated"], micro["num_predicted"]) == (6, 5)
    assert (micro["precision"], micro["recall"]) == pytest.approx((3 / 5, 1 / 2))


def test_without_a_predicted_column_both_sides_read_the_same_column(conlleval):
    micro = _json(conlleval, conlleval, "--tag-column", "-2")["micro"]
    assert (micro["precision"], micro["recall"]) == (1.0, 1.0)


def _table_row(out: str, name: str) -> list[str]:
    # cli() flattens the output to one line; a row is the name, then its cells up to the next
    # row's name.
    names = ["LOC", "ORG", "PER", "--", "micro", "macro", "weighted", "any entity", "Documents"]
    after = out.split(f" {name} ", 1)[1]
    stop = min(
        (after.index(f" {n} ") for n in names if n != name and f" {n} " in after),
        default=len(after),
    )
    return after[:stop].split()


@pytest.mark.parametrize("wide", [False, True])
def test_text_table_summary_rows_hold_their_own_precision_and_recall(conlleval, wide):
    args = ["evaluate", conlleval, conlleval, "--tag-column", "-2", "--pred-tag-column", "-1"]
    code, out = cli(*args, "--strategy", "exact", *(["--wide"] if wide else []))
    assert code == 0, out
    # Each summary row ends with P, R, F1 (4 decimals).
    assert _table_row(out, "macro")[-3:-1] == ["0.5000", "0.5833"]
    assert _table_row(out, "weighted")[-3:-1] == ["0.8000", "0.6000"]
    assert _table_row(out, "micro")[-3:] == ["0.5000", "0.6000", "0.5455"]
    assert _table_row(out, "PER")[-3:-1] == ["1.0000", "0.6667"]


def test_a_tab_delimiter_refuses_a_space_separated_file(conlleval):
    code, out = cli("evaluate", conlleval, conlleval, "--delimiter", "tab", "--tag-column", "-2")
    assert code == 2, out
    assert "system.conll" in out and "line 1" in out


def test_capped_error_records_are_listed_by_start_then_end(tmp_path):
    # One document, gold missed three times: [0, 10), [2, 3) and [2, 8). By start then end:
    # [0, 10), [2, 3), [2, 8); ordered by end first it would begin with [2, 3).
    text = "abcdefghijklmnop"
    gold = tmp_path / "gold.jsonl"
    pred = tmp_path / "pred.jsonl"
    spans = [
        {"start": 2, "end": 8, "label": "X"},
        {"start": 0, "end": 10, "label": "X"},
        {"start": 2, "end": 3, "label": "X"},
    ]
    gold.write_text(json.dumps({"id": "d", "text": text, "spans": spans}) + "\n")
    pred.write_text(json.dumps({"id": "d", "text": text, "spans": []}) + "\n")
    code, out = cli(
        "evaluate", gold, pred, "--strategy", "exact", "--errors", "2", "-f", "json", "-o", "-"
    )
    assert code == 0, out
    level = json.loads(out[out.index("{") : out.rindex("}") + 1])["result"]["levels"]
    errors = level["labels"][0]["errors"]
    assert [(e["start"], e["end"]) for e in errors] == [(0, 10), (2, 3)]
    assert level["labels"][0]["errors_total"] == 3
