"""``--pairs gold``: score the gold file's documents; predictions for other documents are
counted in the notes and left out (a gold document without predictions stays an error). The
default stays: every document of either file must pair, and the message for an unpaired one
says how many were answers the gold reader dropped (Prodigy's ``ignore``/``reject``).
"""

from __future__ import annotations

import json

import pytest

from spacy_span_eval.api import evaluate_files

from conftest import cli


def jsonl(path, *records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


def prodigy(doc_id, text, spans, answer=None):
    record = {
        "text": text,
        "meta": {"id": doc_id},
        "_input_hash": int(doc_id[1:]),
        "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in spans],
    }
    if answer is not None:
        record["answer"] = answer
    return record


@pytest.fixture
def prodigy_pair(tmp_path):
    gold = jsonl(
        tmp_path / "gold.jsonl",
        prodigy("d1", "Alice met Bob.", [(0, 5, "PER"), (10, 13, "PER")], "accept"),
        prodigy("d2", "Skip me.", [], "ignore"),
        prodigy("d3", "Not this one.", [], "reject"),
    )
    pred = jsonl(
        tmp_path / "pred.jsonl",
        prodigy("d1", "Alice met Bob.", [(0, 5, "PER")]),
        prodigy("d2", "Skip me.", []),
        prodigy("d3", "Not this one.", [(0, 3, "ORG")]),
    )
    return gold, pred


def test_unpaired_predictions_name_the_answers_gold_dropped(prodigy_pair):
    code, out = cli("evaluate", *prodigy_pair)
    assert code == 2
    assert "2 unpaired: 2 were 'ignore'/'reject' answers in" in out
    assert "dropped by the reader; use --pairs gold" in out


def test_pairs_gold_scores_the_gold_documents_and_counts_the_rest(prodigy_pair):
    code, out = cli("evaluate", *prodigy_pair, "--pairs", "gold", "--wide")
    assert code == 0, out
    assert "Documents: 1" in out
    assert "ignored examples skipped 1, rejected examples skipped 1" in out
    assert "predicted documents not in gold left out (--pairs gold) 2" in out


def test_pairs_gold_reaches_the_api(prodigy_pair):
    result = evaluate_files(*prodigy_pair, pairs="gold")
    notes = result.inputs["predicted"]["notes"]
    assert notes["predicted documents not in gold left out (--pairs gold)"] == 2


@pytest.mark.parametrize("ids", [True, False], ids=["by-id", "by-position"])
def test_pairs_gold_works_for_generic_records_too(tmp_path, ids):
    def record(i, text, spans):
        out = {"text": text, "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in spans]}
        return {"id": f"d{i}", **out} if ids else out

    gold = jsonl(tmp_path / "g.jsonl", record(1, "Ann ran.", [(0, 3, "PER")]))
    pred = jsonl(
        tmp_path / "p.jsonl",
        record(1, "Ann ran.", [(0, 3, "PER")]),
        record(2, "Bo sat.", [(0, 2, "PER")]),
    )
    code, out = cli("evaluate", gold, pred)
    assert code == 2
    code, out = cli("evaluate", gold, pred, "--pairs", "gold")
    assert code == 0, out
    assert "predicted documents not in gold left out (--pairs gold) 1" in out


def test_a_gold_document_without_predictions_is_still_an_error(tmp_path):
    gold = jsonl(
        tmp_path / "g.jsonl",
        {"id": "a", "text": "Ann ran.", "spans": []},
        {"id": "b", "text": "Bo sat.", "spans": []},
    )
    pred = jsonl(tmp_path / "p.jsonl", {"id": "a", "text": "Ann ran.", "spans": []})
    code, out = cli("evaluate", gold, pred, "--pairs", "gold")
    assert code == 2
    assert "document 'b'" in out and "1 unpaired" in out
