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
import re
import time
from collections import Counter

import pytest

from spacy_span_eval.engine.spans import Span
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers import labelstudio
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.readers.pairing import NOT_IN_GOLD
from spacy_span_eval.readers.source import read_records

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
    gold, pred = (
        re.search(rf"\b{side}: \S+ \(\w+, ([\d,]+) spans?\b", output).group(1)
        for side in ("gold", "predicted")
    )
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


def test_the_newest_prediction_of_a_version_is_read(tmp_path):
    older = {**prediction("v1", ALICE), "id": 5, "created_at": "2024-01-01T00:00:00Z"}
    newer = {**prediction("v1", ALICE, BOB), "id": 4, "created_at": "2024-05-01T00:00:00Z"}
    path = export(tmp_path, [annotation(1, ALICE, BOB, PARIS)], [older, newer])
    code, out = cli("evaluate", path, path)
    assert code == 0, out
    assert gold_and_pred(out) == ("3", "2")
    assert "further predictions of the same model version not read 1" in out


def test_an_empty_model_version_is_not_a_missing_one(tmp_path):
    empty = prediction("", ALICE)
    missing = {k: v for k, v in prediction("", ALICE, BOB).items() if k != "model_version"}
    path = export(tmp_path, [annotation(1, ALICE, BOB, PARIS)], [empty, missing])
    code, out = cli("evaluate", path, path)
    assert code == 2
    assert "2 model versions ('', (no model_version))" in out
    code, out = cli("evaluate", path, path, "--model-version", "")
    assert code == 0, out
    assert gold_and_pred(out) == ("3", "1")


def test_predictions_of_a_task_nobody_annotated_are_read(tmp_path):
    annotated = {"id": 1, "data": {"text": TEXT}, "annotations": [annotation(1, ALICE)]}
    open_task = {"id": 2, "data": {"text": TEXT}, "predictions": [prediction("v1", ALICE, BOB)]}
    path = tmp_path / "export.json"
    path.write_text(json.dumps([annotated, open_task]), "utf-8")
    code, out = cli("evaluate", path, path)
    assert code == 2
    assert "document '2'" in out and "1 were 'unannotated' answers" in out
    assert "use --pairs gold" in out
    code, out = cli("evaluate", path, path, "--pairs", "gold", "-f", "json")
    assert code == 0, out
    report = json.loads(out)
    assert report["inputs"]["predicted"]["notes"][NOT_IN_GOLD] == 1


@pytest.mark.parametrize(
    ("first", "second", "gold"),
    [  # the most recent: the latest updated_at, its created_at breaking a tie
        (
            {"updated_at": "2024-06-01T00:00:00Z", "created_at": "2024-01-01T00:00:00Z"},
            {"updated_at": "2024-05-01T00:00:00Z", "created_at": "2024-05-01T00:00:00Z"},
            "first",
        ),
        (
            {"updated_at": "2024-06-01T00:00:00Z", "created_at": "2024-02-01T00:00:00Z"},
            {"updated_at": "2024-06-01T00:00:00Z", "created_at": "2024-01-01T00:00:00Z"},
            "first",
        ),
    ],
)
def test_the_most_recent_is_updated_at_then_created_at(tmp_path, first, second, gold):
    for order in ((first, second), (second, first)):
        a = annotation(1, ALICE, BOB, PARIS, **order[0])
        b = annotation(2, ALICE, **order[1])
        code, out = cli("evaluate", export(tmp_path, [a, b]), export(tmp_path, [a, b]))
        assert code == 0, out
        wanted = "3" if (order[0] is first) == (gold == "first") else "1"
        assert gold_and_pred(out)[0] == wanted


# The same project exported twice, as Label Studio writes each: the full export, and JSON-MIN
# (one record per completed annotation, newest first; a task nobody annotated is one record
# with annotation_id null and no region key).
ANN = {"id": 1, "email": "ann@example.com", "first_name": "", "last_name": ""}
BOB_USER = {"id": 2, "email": "bob@example.com", "first_name": "", "last_name": ""}
FULL = [
    {
        "id": 1,
        "data": {"text": TEXT},
        "annotations": [
            annotation(
                11,
                ALICE,
                BOB,
                PARIS,
                completed_by=ANN,
                lead_time=4.2,
                created_at="2024-01-01T10:00:00.000000Z",
                updated_at="2024-01-02T10:00:00.000000Z",
            ),
            annotation(
                12,
                ALICE,
                completed_by=BOB_USER,
                lead_time=3.0,
                created_at="2024-02-01T10:00:00.000000Z",
                updated_at="2024-02-01T10:00:00.000000Z",
            ),
        ],
        "predictions": [],
    },
    {"id": 2, "data": {"text": TEXT}, "annotations": [], "predictions": []},
    {
        "id": 3,
        "data": {"text": TEXT},
        "annotations": [
            annotation(
                13,
                BOB,
                completed_by=ANN,
                lead_time=2.0,
                created_at="2024-03-01T10:00:00.000000Z",
                updated_at="2024-03-01T10:00:00.000000Z",
            ),
        ],
        "predictions": [],
    },
]


def regions(*spans):
    return [{"start": s, "end": e, "text": TEXT[s:e], "labels": [label]} for s, e, label in spans]


def min_record(task, spans, who, annotation_id, created, updated, lead_time):
    record = {"text": TEXT, "id": task}
    if annotation_id is not None:
        record["label"] = regions(*spans)
    return {
        **record,
        "annotator": who,
        "annotation_id": annotation_id,
        "created_at": created,
        "updated_at": updated,
        "lead_time": lead_time,
    }


JSON_MIN = [
    min_record(
        1,
        [ALICE],
        "bob@example.com",
        12,
        "2024-02-01T10:00:00.000000Z",
        "2024-02-01T10:00:00.000000Z",
        3.0,
    ),
    min_record(
        1,
        [ALICE, BOB, PARIS],
        "ann@example.com",
        11,
        "2024-01-01T10:00:00.000000Z",
        "2024-01-02T10:00:00.000000Z",
        4.2,
    ),
    min_record(2, [], None, None, None, None, None),
    min_record(
        3,
        [BOB],
        "ann@example.com",
        13,
        "2024-03-01T10:00:00.000000Z",
        "2024-03-01T10:00:00.000000Z",
        2.0,
    ),
]


@pytest.mark.parametrize(
    "chosen", [[], ["--annotator", "ann@example.com"], ["--annotator", "bob@example.com"]]
)
def test_json_min_scores_as_the_full_export_does(tmp_path, chosen):
    full, small = tmp_path / "full.json", tmp_path / "min.json"
    full.write_text(json.dumps(FULL), "utf-8")
    small.write_text(json.dumps(JSON_MIN), "utf-8")
    pred = tmp_path / "pred.jsonl"
    pred.write_text(
        "".join(
            json.dumps({"id": i, "text": TEXT, "spans": [{"start": 0, "end": 11, "label": "PER"}]})
            + "\n"
            for i in (1, 2, 3)
        ),
        "utf-8",
    )
    reports = {}
    for path in (full, small):
        code, out = cli("evaluate", path, pred, "--pairs", "gold", "-f", "json", *chosen)
        assert code == 0, out
        reports[path.name] = json.loads(out)
    gold = {
        name: {k: v for k, v in r["inputs"]["gold"].items() if k not in ("path", "format")}
        for name, r in reports.items()
    }
    assert gold["full.json"] == gold["min.json"]  # the same documents, spans and notes
    skipped = gold["min.json"]["notes"]["tasks without a completed annotation skipped"]
    assert skipped == (2 if "bob@example.com" in chosen else 1)  # (bob did not do task 3)
    assert reports["full.json"]["result"] == reports["min.json"]["result"]
    expected = {(): (2, 2), ("ann@example.com",): (2, 4), ("bob@example.com",): (1, 1)}
    assert (gold["min.json"]["documents"], gold["min.json"]["spans"]) == expected[tuple(chosen[1:])]


def test_a_json_min_record_whose_id_is_not_a_string_or_integer_is_refused(tmp_path):
    small = tmp_path / "min.json"
    small.write_text(json.dumps([{**JSON_MIN[0], "id": 1.5}]), "utf-8")
    code, out = cli("evaluate", small, small)
    assert code == 2
    assert "field 'id' must be a string or an integer, not 1.5" in out


def test_the_annotators_are_named_by_email_else_id_in_order_of_first_appearance(tmp_path):
    ann = {"id": 7, "email": "ann@example.com"}
    path = export(
        tmp_path,
        [
            annotation(1, ALICE, completed_by=ann),
            annotation(2, BOB, completed_by=9),
            annotation(3, PARIS, completed_by={"id": 5}, was_cancelled=True),  # not completed
            annotation(4, ALICE, completed_by=ann),
            annotation(5, completed_by={"id": 8}),
        ],
    )
    assert labelstudio.annotators(path) == ["ann@example.com", "9", "8"]
    nobody = export(tmp_path, [annotation(1, ALICE, completed_by=9), annotation(6, PARIS)])
    with pytest.raises(InvalidInputError, match=r"task 1 \(line 1\): annotation #1 names no "):
        labelstudio.annotators(nobody)  # (read once per annotator, it would be no one's)
    small = tmp_path / "min.json"
    small.write_text(json.dumps(JSON_MIN), "utf-8")
    assert labelstudio.annotators(small, min_format=True) == ["bob@example.com", "ann@example.com"]


@pytest.mark.parametrize(
    ("annotations", "gold"),
    [
        ([{"id": None}, {"id": 3}], 1),  # a missing id is the oldest
        ([{"id": 0}, {"id": True}], 0),  # so is one that is no integer
        ([{"id": 0}, {}], 0),
        ([{"id": -1}, {}], 1),  # as old as a missing one: the last wins
        ([{"updated_at": "2024-01-01T00:00:00Z"}, {"updated_at": 5}], 0),
        ([{"updated_at": "2024-01-01T00:00:00Z"}, {"updated_at": "yesterday"}], 0),
        # aware dates compare in UTC; naive ones as written, whatever the local zone
        ([{"updated_at": "2024-01-01T11:00:00Z"}, {"updated_at": "2024-01-01T12:00:00+02:00"}], 0),
        ([{"updated_at": "2024-01-01T11:00:00Z"}, {"updated_at": "2024-01-01T15:00:00"}], 1),
    ],
)
def test_the_most_recent_annotation_by_hand(monkeypatch, annotations, gold):
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert labelstudio.gold_annotation(annotations) is annotations[gold]
    finally:
        monkeypatch.undo()
        time.tzset()


def predicted(path, **options):
    reading = ReadingOptions(side="predicted", **options)
    return [r.spans for r in read_records(path, "labelstudio", reading, Counter())]


def spans_of(*spans):
    return tuple(Span(*s) for s in spans)


@pytest.mark.parametrize(
    ("dates", "read"),
    [([{}, {}], ALICE), ([{"updated_at": "2024-01-01"}, {"updated_at": "2024-01-02"}], BOB)],
)
def test_of_predictions_alike_the_first_is_read_else_the_newest(tmp_path, dates, read):
    """``created_at`` first, then ``updated_at``; the first of equals."""
    offered = [
        {"model_version": "v1", "result": result(spans), **d}
        for spans, d in zip([ALICE, BOB], dates, strict=True)
    ]
    path = export(tmp_path, [], offered)
    assert predicted(path) == [spans_of(read)]


def test_the_refusals_of_model_versions_word_for_word(tmp_path):
    path = tmp_path / "export.json"
    tasks = [
        {"data": {"text": TEXT}, "predictions": [{"model_version": v} for v in ("v2", "v1")]},
        {"data": {"text": TEXT}, "predictions": 5},
    ]
    path.write_text(json.dumps(tasks), "utf-8")
    with pytest.raises(InvalidInputError) as exc:
        predicted(path)
    assert str(exc.value) == (
        f"{path}: predictions from 2 model versions (v1, v2); choose one with --model-version"
    )
    path = export(tmp_path, [annotation(1, ALICE)])
    with pytest.raises(InvalidInputError) as exc:
        predicted(path, model_version="v9")
    assert (
        str(exc.value) == f"{path}: no predictions of --model-version 'v9' (versions found: none)"
    )
