"""Label Studio's full export: which annotation is gold, which predictions are read, and every
other annotation and prediction counted in the notes.

Gold is the annotation marked ``ground_truth`` when one is, else the most recent completed
one (``updated_at``, else ``created_at``, else ``id``); ``--model-version`` picks the
predictions, and a file with several versions and no choice is refused, naming them. The
export is hand-written in Label Studio's documented shape: one task, "Alice Smith met Bob
Jones in Paris." (PER [0, 11), PER [16, 25), LOC [29, 34)).
"""

from __future__ import annotations

import json

import pytest

from conftest import cli

TEXT = "Alice Smith met Bob Jones in Paris."
ALICE, BOB, PARIS = (0, 11, "PER"), (16, 25, "PER"), (29, 34, "LOC")


def result(*spans):
    return [
        {
            "id": f"r{start}",
            "from_name": "label",
            "to_name": "text",
            "type": "labels",
            "value": {"start": start, "end": end, "text": TEXT[start:end], "labels": [label]},
        }
        for start, end, label in spans
    ]


def annotation(id_, *spans, **fields):
    return {"id": id_, "was_cancelled": False, "result": result(*spans), **fields}


def prediction(version, *spans):
    return {
        "id": 100 + len(spans),
        "model_version": version,
        "score": 0.5,
        "result": result(*spans),
    }


def export(tmp_path, annotations, predictions=()):
    task = {
        "id": 1,
        "data": {"text": TEXT},
        "annotations": list(annotations),
        "predictions": list(predictions),
    }
    path = tmp_path / "export.json"
    path.write_text(json.dumps([task]), "utf-8")
    return path


def gold_and_pred(output: str) -> tuple[str, str]:
    """The gold and predicted span counts the summary prints."""
    gold = output.split("gold: ", 1)[1].split(" spans", 1)[0].rsplit(" ", 1)[1]
    pred = output.split("predicted: ", 1)[1].split(" spans", 1)[0].rsplit(" ", 1)[1]
    return gold, pred


@pytest.mark.parametrize("starred_first", [True, False])
def test_the_ground_truth_annotation_is_gold_wherever_it_stands(tmp_path, starred_first):
    starred = annotation(7, ALICE, BOB, PARIS, ground_truth=True, updated_at="2024-01-01T00:00Z")
    later = annotation(8, ALICE, updated_at="2024-06-01T00:00:00Z")
    order = [starred, later] if starred_first else [later, starred]
    path = export(tmp_path, order)
    code, out = cli("evaluate", path, path)
    assert code == 0, out
    assert gold_and_pred(out)[0] == "3"
    assert (
        "further completed annotations not used (gold: the ground_truth one, else the most "
        "recent) 1" in out
    )


def test_without_a_star_the_most_recent_completed_annotation_is_gold(tmp_path):
    path = export(
        tmp_path,
        [
            annotation(1, ALICE, BOB, updated_at="2024-03-01T12:00:00.000000Z"),
            annotation(2, ALICE, updated_at="2024-01-01T12:00:00.000000Z"),
            {**annotation(3, ALICE, BOB, PARIS), "was_cancelled": True},
        ],
    )
    code, out = cli("evaluate", path, path)
    assert code == 0, out
    assert gold_and_pred(out)[0] == "2"  # not the older one, not the cancelled one
    assert "cancelled annotations not used 1" in out
    assert "further completed annotations not used" in out


def test_without_dates_the_highest_id_is_the_most_recent(tmp_path):
    path = export(tmp_path, [annotation(9, ALICE, BOB, PARIS), annotation(4, ALICE)])
    code, out = cli("evaluate", path, path)
    assert code == 0, out
    assert gold_and_pred(out)[0] == "3"


def test_predictions_of_one_version_are_read_without_a_choice(tmp_path):
    path = export(tmp_path, [annotation(1, ALICE, BOB, PARIS)], [prediction("v1", ALICE)])
    code, out = cli("evaluate", path, path)
    assert code == 0, out
    assert gold_and_pred(out) == ("3", "1")
    assert "predictions not read (the gold side reads annotations) 1" in out
    assert "annotations not read (the predicted side reads predictions) 1" in out


def test_several_model_versions_are_refused_naming_them_and_one_is_chosen(tmp_path):
    path = export(
        tmp_path,
        [annotation(1, ALICE, BOB, PARIS)],
        [prediction("v1", ALICE), prediction("v2", ALICE, BOB)],
    )
    code, out = cli("evaluate", path, path)
    assert code == 2
    assert "2 model versions (v1, v2)" in out and "--model-version" in out
    code, out = cli("evaluate", path, path, "--model-version", "v2")
    assert code == 0, out
    assert gold_and_pred(out) == ("3", "2")
    assert "predictions of other model versions not read 1" in out
    code, out = cli("evaluate", path, path, "--model-version", "v3")
    assert code == 2
    assert "no predictions of --model-version 'v3' (versions found: v1, v2)" in out
