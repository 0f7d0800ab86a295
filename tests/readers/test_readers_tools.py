"""Readers for annotation tools: brat standoff, Prodigy JSONL, Label Studio
JSON export and doccano JSONL; chosen by ``--input-format`` or by shape; paired by id; every
span kept (semantics §1); what is read differently or left out is counted.

The fixtures in ``tests/readers/fixtures/tools`` were written for this project: two documents,
"Alice Smith joined Acme Corp in Paris." (PER [0, 11), ORG [19, 28), LOC [32, 37)) and
"Bob flew to New York City." (PER [0, 3), LOC [12, 25)). brat, doccano and Label Studio's
annotations hold that gold (brat's ORG as two fragments "Acme" [19, 23) and "Corp"
[24, 28)); Prodigy and Label Studio's predictions hold a system's output: PER "Alice" [0, 5)
(IoU 5/11, below 0.5), ORG and LOC of document 1 exact, PER "Bob" exact and LOC "New York"
[12, 20) (IoU 8/13). At IoU 0.5: gold 5, TP 4, FN 1; predicted 5, credited 4, FP 1.
"""

from __future__ import annotations

import json
import random
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spacy_span_eval.api import evaluate_files
from spacy_span_eval.cli import app
from spacy_span_eval.engine.spans import Span
from spacy_span_eval.errors import InvalidInputError, InvalidSpanError
from spacy_span_eval.jobs.convert import convert_split
from spacy_span_eval.readers import doccano
from spacy_span_eval.readers.detect import sniff
from spacy_span_eval.readers.labelstudio import annotators
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.readers.re3d import re3d_fields
from spacy_span_eval.readers.source import read_records as read

from conftest import data_path

TOOLS = Path(__file__).parent / "fixtures" / "tools"
BRAT, PRODIGY = TOOLS / "brat", TOOLS / "prodigy_pred.jsonl"
LABELSTUDIO, DOCCANO = TOOLS / "labelstudio.json", TOOLS / "doccano.jsonl"
DOC1 = (Span(0, 11, "PER"), Span(19, 28, "ORG"), Span(32, 37, "LOC"))
DOC2 = (Span(0, 3, "PER"), Span(12, 25, "LOC"))
PRED1 = (Span(0, 5, "PER"), Span(19, 28, "ORG"), Span(32, 37, "LOC"))
PRED2 = (Span(0, 3, "PER"), Span(12, 20, "LOC"))


def records(path, fmt=None, side="gold"):
    notes: Counter = Counter()
    out = [(r.id, r.spans, r.text) for r in read(path, fmt, ReadingOptions(side=side), notes)]
    return out, dict(notes)


@pytest.mark.parametrize(
    ("path", "fmt"),
    [(BRAT, "brat"), (PRODIGY, "prodigy"), (LABELSTUDIO, "labelstudio"), (DOCCANO, "doccano")],
)
def test_each_format_is_detected_by_its_shape(path, fmt):
    assert sniff(path) == fmt


def test_brat_reads_text_bound_spans_and_counts_the_rest():
    got, notes = records(BRAT)
    assert [(i, s) for i, s, _ in got] == [("news/1", DOC1), ("news/2", DOC2)]
    assert got[0][2] == "Alice Smith joined Acme Corp in Paris.\n"  # the .txt as on disk
    assert notes == {
        "discontinuous entities read as their outer extent": 1,
        "event triggers ignored": 1,
        "events ignored": 1,
        "relations ignored": 1,
        "attributes ignored": 1,
        "notes ignored": 1,
    }


def test_brat_problems_name_the_file_and_line(tmp_path):
    (tmp_path / "a.txt").write_text("abc")
    (tmp_path / "a.ann").write_text("T1\tX 0 2\tab\nT2\tX 1 two\tb\n")
    with pytest.raises(InvalidInputError, match=r"a\.ann line 2: offsets"):
        list(read(tmp_path, "brat"))
    (tmp_path / "a.ann").write_text("T1\tX 0 9\tab\n")  # beyond the text: never clipped
    with pytest.raises(InvalidInputError, match=r"a\.ann: .*past the end"):
        list(read(tmp_path, "brat"))
    (tmp_path / "a.ann").write_text("T1\tX 0 2\tab\n")
    (tmp_path / "b.ann").write_text("")
    with pytest.raises(InvalidInputError, match="no text file b.txt"):
        list(read(tmp_path, "brat"))


def test_a_brat_folder_without_an_ann_file_is_refused(tmp_path):
    (tmp_path / "a.txt").write_text("Bob")
    with pytest.raises(InvalidInputError) as exc:
        list(read(tmp_path, "brat"))
    assert str(exc.value) == f"{tmp_path}: no .ann files found (empty input); nothing to score"


def test_prodigy_reads_token_and_char_spans_and_skips_rejected_answers():
    got, notes = records(PRODIGY)
    assert [(i, s) for i, s, _ in got] == [("1", PRED1), ("2", PRED2)]
    assert notes == {"rejected examples skipped": 1, "ignored examples skipped": 1}


def test_prodigy_token_spans_need_the_tokens(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(
        json.dumps({"text": "a b", "spans": [{"token_start": 0, "token_end": 1, "label": "X"}]})
        + "\n"
    )
    with pytest.raises(InvalidInputError, match="token_end inclusive"):
        list(read(path, "prodigy"))


def test_label_studio_gold_is_the_completed_annotation_predictions_the_predictions():
    gold, gold_notes = records(LABELSTUDIO)
    pred, pred_notes = records(LABELSTUDIO, side="predicted")
    assert [(i, s) for i, s, _ in gold] == [("1", DOC1), ("2", DOC2)]  # not the cancelled one
    assert [(i, s) for i, s, _ in pred] == [("1", PRED1), ("2", PRED2)]
    assert gold_notes == {
        "cancelled annotations not used": 1,
        "choices results ignored": 1,
        "predictions not read (the gold side reads annotations)": 2,
        "tasks without a completed annotation skipped": 1,
    }
    assert pred_notes == {
        "annotations not read (the predicted side reads predictions)": 3,
        "tasks without a completed annotation or a prediction skipped": 1,
    }


def test_label_studio_offsets_count_utf16_units(tmp_path):
    text = "🙂 Ann and 🙂 Bo"  # each emoji is two UTF-16 units, one Python character
    task = {
        "id": 5,
        "data": {"text": text},
        "annotations": [
            {
                "result": [
                    {"type": "labels", "value": {"start": 3, "end": 6, "labels": ["PER"]}},
                    {"type": "labels", "value": {"start": 14, "end": 16, "labels": ["PER", "X"]}},
                ]
            }
        ],
    }
    path = tmp_path / "ls.json"
    path.write_text(json.dumps([task]))
    ((_, spans, _),), _ = records(path)
    assert [text[s.start : s.end] for s in spans] == ["Ann", "Bo", "Bo"]
    assert [s.label for s in spans] == ["PER", "PER", "X"]


def label_studio_task(tmp_path, text: str, start: int, end: int):
    result = {"type": "labels", "value": {"start": start, "end": end, "labels": ["X"]}}
    path = tmp_path / "ls.json"
    path.write_text(
        json.dumps([{"id": 1, "data": {"text": text}, "annotations": [{"result": [result]}]}])
    )
    return path


ASTRAL = "a\U00010000b Ann"  # U+10000, the first character of two UTF-16 units


@pytest.mark.parametrize(("start", "end", "span"), [(3, 4, (2, 3)), (4, 7, (3, 6))])
def test_label_studio_counts_the_first_astral_character_as_two_units(tmp_path, start, end, span):
    ((_, spans, _),), _ = records(label_studio_task(tmp_path, ASTRAL, start, end))
    assert spans == (Span(*span, "X"),)


def test_a_label_studio_offset_past_a_text_of_astral_characters_is_refused(tmp_path):
    path = label_studio_task(tmp_path, ASTRAL, 0, 40)
    with pytest.raises(InvalidSpanError) as exc:
        records(path)
    assert str(exc.value) == (
        f"{path} task 1 (line 1): document '1', gold span #0 (0, 40, 'X'): end is past the end "
        "of the document (7)"
    )


def test_doccano_reads_both_export_shapes():
    got, notes = records(DOCCANO)
    assert [(i, s) for i, s, _ in got] == [("news/1", DOC1), ("news/2", DOC2)]
    assert notes == {"relations ignored": 1}


@pytest.mark.parametrize("fmt", ["doccano", "prodigy", "labelstudio-min"])
def test_a_record_without_an_id_is_named_by_its_file_and_line(tmp_path, fmt):
    path = tmp_path / "d.jsonl"
    path.write_text(2 * (json.dumps({"text": "Bob met Ann."}) + "\n"), "utf-8")
    got = read(path, fmt, ReadingOptions(), Counter())
    assert [(r.key, r.id, r.where) for r in got] == [
        ("d.jsonl:1", None, f"{path} line 1"),
        ("d.jsonl:2", None, f"{path} line 2"),
    ]


@pytest.mark.parametrize(
    ("relations", "counted"),
    [([{"id": 1}, {"id": 2}], {"relations ignored": 2}), ([], {}), (None, {}), (3, {})],
)
@pytest.mark.parametrize(
    ("fmt", "spans"),
    [
        ("doccano", {"label": [[0, 3, "PER"]]}),
        ("prodigy", {"spans": [{"start": 0, "end": 3, "label": "PER"}]}),
    ],
)
def test_each_relation_left_out_is_counted(tmp_path, fmt, spans, relations, counted):
    path = tmp_path / "d.jsonl"
    record = {"id": 1, "text": "Bob met Ann.", **spans, "relations": relations}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    got, notes = records(path, fmt)
    assert [s for _, s, _ in got] == [(Span(0, 3, "PER"),)]
    assert notes == counted


@pytest.mark.parametrize(
    ("spans", "message"),
    [
        ({"label": [[0, 3, "PER"], [4, 9]]}, 'label #1 must be [start, end, "LABEL"], not [4, 9]'),
        (
            {"entities": [[0, 3, "PER"], {"start_offset": 4, "label": 5}]},
            'entities #1 must be [start, end, "LABEL"] or an object with',
        ),
    ],
)
def test_a_bad_doccano_span_is_named_by_its_key_and_position(tmp_path, spans, message):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": 1, "text": "Bob met Ann.", **spans}) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInputError) as exc:
        records(path, "doccano")
    assert message in str(exc.value)


MET = "Bob met Ann."
OWN_HINT = "give --input-format for the tool that wrote the file"
NOT_AN_ID = "must be a string or an integer, not"
NO_TEXT = "field 'text' is missing or not a string"
ONE = "and not exactly one string to take instead"
PER = {"start": 0, "end": 3, "labels": ["PER"]}


def ls_task(result):
    """A Label Studio export of one task whose one annotation has ``result`` (labels)."""
    return [{"data": {"text": MET}, "annotations": [{"result": [{"type": "labels", **result}]}]}]


PRODIGY_OFFSETS = "'start'/'end' nor 'token_start'/'token_end'"
NEED_TOKENS = "(token_end inclusive) need the record's 'tokens' list to hold them"
BOB = {"text": "Bob", "start": 0, "end": 3}
TOKEN_0_0 = {"token_start": 0, "token_end": 0, "label": "X"}
TOKEN_0_1 = {"token_start": 0, "token_end": 1, "label": "X"}


@pytest.mark.parametrize(
    ("fmt", "record", "message"),
    [
        # a document id is a string or an integer, and the refusal names the field read
        ("doccano", {"id": 1.5, "text": MET, "label": []}, f"field 'id' {NOT_AN_ID} 1.5"),
        ("labelstudio", [{"id": [1], "data": {"text": MET}}], f"field 'id' {NOT_AN_ID} [1]"),
        ("labelstudio-min", {"id": 1.5, "text": MET}, f"field 'id' {NOT_AN_ID} 1.5"),
        ("prodigy", {"id": True, "text": MET, "answer": "accept"}, f"field 'id' {NOT_AN_ID} True"),
        ("prodigy", {"meta": {"id": 2.5}, "text": MET}, f"field 'meta.id' {NOT_AN_ID} 2.5"),
        ("prodigy", {"_input_hash": 1.5, "text": MET}, f"field '_input_hash' {NOT_AN_ID} 1.5"),
        ("tuples", [MET, {"entities": [], "id": 1.5}], f"field 'id' {NOT_AN_ID} 1.5"),
        ("tuples", {"text": MET, "entities": [], "id": 1.5}, f"field 'id' {NOT_AN_ID} 1.5"),
        # a record of the format itself without its text gets no "looks like" hint
        ("doccano", {"id": 1, "label": []}, f"{NO_TEXT}; {OWN_HINT}"),
        ("prodigy", {"answer": "accept"}, f"{NO_TEXT}; {OWN_HINT}"),
        ("tuples", {"entities": []}, f"{NO_TEXT}; {OWN_HINT}"),
        (
            "labelstudio-min",
            {"id": 1, "label": []},
            f"{NO_TEXT}; the record looks like 'doccano': read it with --input-format doccano",
        ),
        # a doccano span's offsets are integers, named by key, position and offset
        (
            "doccano",
            {"text": MET, "label": [["0", 3, "X"]]},
            "label #0 start must be an integer, not '0'",
        ),
        (
            "doccano",
            {"text": MET, "label": [[0, 3.0, "X"]]},
            "label #0 end must be an integer, not 3.0",
        ),
        (
            "doccano",
            {"text": MET, "entities": [[0, 3, "X"], [4]]},
            'entities #1 must be [start, end, "LABEL"], not [4]',
        ),
        (
            "doccano",
            {"text": MET, "entities": [{"start_offset": None, "end_offset": 3, "label": "X"}]},
            "entities #0 start_offset must be an integer, not None",
        ),
        (
            "doccano",
            {"text": MET, "entities": [{"start": 0, "end": "3", "label": "X"}]},
            "entities #0 end must be an integer, not '3'",
        ),
        (
            "doccano",
            {"text": MET, "label": [], "entities": []},
            "the record has both 'label' and 'entities'; a doccano record keeps its spans under "
            "one of them",
        ),
        ("doccano", {"text": MET, "label": 3}, "field 'label' must be a list of spans"),
        ("doccano", MET, f"expected a JSON object, found str; {OWN_HINT}"),
        (
            "doccano",
            {"text": MET, "spans": [{"start": 0, "end": 3, "label": "PER"}]},
            "the key 'spans' holds spans, and the doccano reader does not read 'spans'; they "
            f"would be read as nothing ({OWN_HINT})",
        ),
        ("prodigy", MET, f"expected a JSON object, found str; {OWN_HINT}"),
        (
            "prodigy",
            {"text": MET, "label": [[0, 3, "PER"]]},
            "the key 'label' holds spans, and the prodigy reader does not read 'label'; they would "
            "be read as nothing (the record looks like 'doccano': read it with --input-format "
            "doccano)",
        ),
        # a Prodigy span: character offsets, else inclusive token indices into the tokens
        (
            "prodigy",
            {"text": MET, "spans": [{"start": "0", "end": 3, "label": "X"}]},
            "span #0 start must be an integer, not '0'",
        ),
        (
            "prodigy",
            {"text": MET, "spans": [{"start": 0, "end": 3.0, "label": "X"}]},
            "span #0 end must be an integer, not 3.0",
        ),
        (
            "prodigy",
            {"text": MET, "spans": [{"start": 0, "label": "X"}]},
            f"span #0 has neither {PRODIGY_OFFSETS}: {{'start': 0, 'label': 'X'}}",
        ),
        (
            "prodigy",
            {"text": MET, "spans": [{"token_start": 0, "label": "X"}]},
            f"span #0 has neither {PRODIGY_OFFSETS}: {{'token_start': 0, 'label': 'X'}}",
        ),
        (
            "prodigy",
            {"text": MET, "spans": [{"token_start": "0", "token_end": 0, "label": "X"}]},
            "span #0 token_start must be an integer, not '0'",
        ),
        (
            "prodigy",
            {"text": MET, "spans": [{"token_start": 0, "token_end": None, "label": "X"}]},
            "span #0 token_end must be an integer, not None",
        ),
        (
            "prodigy",
            {"text": MET, "spans": [TOKEN_0_1]},
            f"span #0 tokens 0..1 {NEED_TOKENS} (0 tokens)",
        ),
        (
            "prodigy",
            {"text": MET, "tokens": [BOB], "spans": [TOKEN_0_1]},
            f"span #0 tokens 0..1 {NEED_TOKENS} (1 tokens)",
        ),
        (
            "prodigy",
            {"text": MET, "tokens": [{"text": "Bob"}], "spans": [TOKEN_0_0]},
            "tokens need 'start' and 'end' character offsets to place token spans",
        ),
        (
            "prodigy",
            {"text": MET, "tokens": [{**BOB, "start": "0"}], "spans": [TOKEN_0_0]},
            "token start must be an integer, not '0'",
        ),
        (
            "prodigy",
            {"text": MET, "tokens": [{**BOB, "end": None}], "spans": [TOKEN_0_0]},
            "token end must be an integer, not None",
        ),
        # a Label Studio task's data, annotations and results
        (
            "labelstudio",
            [{"data": {"a": MET, "b": MET}, "annotations": [{}]}],
            f"no 'text' in the task's data, {ONE}",
        ),
        (
            "labelstudio",
            [{"data": {"a": 1}, "annotations": [{}]}],
            f"no 'text' in the task's data, {ONE}",
        ),
        ("labelstudio", [{"data": {}, "annotations": 5}], "'annotations' must be a list, not int"),
        (
            "labelstudio",
            [{"data": {"text": MET}, "predictions": 5}],
            "'predictions' must be a list, not int",
        ),
        ("labelstudio", ls_task({"value": 5}), "result #0 has no 'value' object: 5"),
        (
            "labelstudio",
            ls_task({"value": {"labels": []}}),
            "result #0 has no labels: {'labels': []}",
        ),
        (
            "labelstudio",
            ls_task({"value": {"labels": [1]}}),
            "result #0 labels must be strings: [1]",
        ),
        (
            "labelstudio",
            ls_task({"value": {**PER, "start": "0"}}),
            "result #0 start must be an integer, not '0'",
        ),
        (
            "labelstudio",
            ls_task({"value": {**PER, "end": None}}),
            "result #0 end must be an integer, not None",
        ),
        (
            "labelstudio",
            ls_task({"value": PER, "score": "high"}),
            "result #0 score must be a number, not 'high'",
        ),
        (
            "labelstudio",
            [{"data": {"text": MET}, "label": [[0, 3, "PER"]]}],
            "the key 'label' holds spans, and the labelstudio reader does not read 'label'; they "
            "would be read as nothing (the record looks like 'doccano': read it with "
            "--input-format doccano)",
        ),
        # a JSON-MIN record's regions sit under one key; its text and id hold no spans
        ("labelstudio-min", MET, f"expected a JSON object, found str; {OWN_HINT}"),
        (
            "labelstudio-min",
            {"text": MET, "label": [PER], "ner": [PER]},
            "2 keys hold regions ('label', 'ner'); a JSON-MIN record is read from one (export "
            "one labeling config's regions)",
        ),
        (
            "labelstudio-min",
            {"text": MET, "label": [PER], "entities": [[0, 3, "PER"]]},
            "the key 'entities' holds spans, and the labelstudio-min reader does not read "
            "'entities'; they would be read as nothing (the record looks like 'doccano': read it "
            "with --input-format doccano)",
        ),
        ("labelstudio-min", {"text": [[0, 3, "PER"]]}, f"{NO_TEXT}; {OWN_HINT}"),
        ("labelstudio-min", {"id": 1, "label": [PER]}, f"{NO_TEXT}; {OWN_HINT}"),
        (
            "labelstudio-min",
            {"id": [[0, 3, "X"]], "text": MET},
            f"field 'id' {NOT_AN_ID} [[0, 3, 'X']]",
        ),
        # the record's shape
        ("labelstudio", [{"id": 1}], f"a Label Studio task is an object with 'data'; {OWN_HINT}"),
        ("prodigy", {"text": MET, "spans": 5}, "field 'spans' must be a list"),
    ],
)
def test_a_bad_record_of_each_tool_is_refused_naming_the_field(tmp_path, fmt, record, message):
    path = tmp_path / ("export.json" if fmt == "labelstudio" else "export.jsonl")
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInputError) as exc:
        records(path, fmt)
    assert str(exc.value) == f"{path} line 1: {message}"


def test_label_studio_counts_results_other_than_labels_and_takes_a_lone_string_as_text(
    tmp_path,
):
    other = [5, {"type": "choices", "value": {}}, {"value": {}}]
    task = {
        "data": {"body": MET, "n": 1},
        "annotations": [{"result": [*other, {"type": "labels", "value": PER}]}],
    }
    path = tmp_path / "export.json"
    path.write_text(json.dumps([task]), "utf-8")
    got, notes = records(path, "labelstudio")
    assert got == [(None, (Span(0, 3, "PER"),), MET)]
    assert notes == {"untyped results ignored": 2, "choices results ignored": 1}
    # (a task without an id is named by its file and line)
    assert [r.key for r in read(path, "labelstudio", ReadingOptions(), Counter())] == [
        "export.json:1"
    ]


def test_label_studio_reads_the_chosen_annotators_last_annotation_and_counts_the_rest(tmp_path):
    """Without dates or ids the last completed annotation is the gold; ``annotators`` names
    each by email, else id."""
    ann = {"email": "ann@x.org", "id": 1}
    annotations = [
        {"completed_by": ann, "result": []},
        {"completed_by": ann, "result": [{"type": "labels", "value": PER}]},
        {"completed_by": ann, "was_cancelled": True, "result": []},
        {"completed_by": 2, "result": []},
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps([{"data": {"text": MET}, "annotations": annotations}]), "utf-8")
    assert annotators(path) == ["ann@x.org", "2"]
    notes: Counter = Counter()
    got = [r.spans for r in read(path, "labelstudio", ReadingOptions(annotator="1"), notes)]
    assert got == [(Span(0, 3, "PER"),)]
    assert dict(notes) == {
        "cancelled annotations not used": 1,
        "annotations of other annotators not read": 1,
        "further completed annotations not used (gold: the ground_truth one, else the most "
        "recent)": 1,
    }


def test_label_studio_annotators_refuse_annotations_that_are_no_list(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps([{"data": {"text": MET}, "annotations": 5}]), "utf-8")
    with pytest.raises(InvalidInputError) as exc:
        annotators(path)
    assert str(exc.value) == f"{path} line 1: 'annotations' must be a list, not int"


@pytest.mark.parametrize(
    "fields",
    [
        ({"annotation_id": 2}, {"annotation_id": 1}),
        ({"created_at": "2024-01-02"}, {"created_at": "2024-01-01"}),
        ({"updated_at": "2024-01-02"}, {"updated_at": "2024-01-01"}),
    ],
)
def test_a_json_min_records_annotation_keeps_its_id_and_date_for_the_choice_of_gold(
    tmp_path, fields
):
    """Two annotations of one task: the higher id, else the later date, is the gold."""
    rows = [
        {"id": 1, "text": MET, "label": [{**PER, "start": start, "end": start + 3}], **f}
        for start, f in zip([0, 8], fields, strict=True)
    ]
    path = tmp_path / "min.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    assert [s for _, s, _ in records(path, "labelstudio-min")[0]] == [(Span(0, 3, "PER"),)]


@pytest.mark.parametrize(
    ("options", "tasks"),
    [
        ({}, "tasks with a completed annotation"),
        ({"annotator": "x"}, "tasks with a completed annotation of annotator 'x'"),
        ({"side": "predicted"}, "tasks with a prediction or a completed annotation"),
    ],
)
def test_a_label_studio_export_with_nothing_to_read_is_refused(tmp_path, options, tasks):
    path = tmp_path / "export.json"
    cancelled = {"was_cancelled": True, "result": []}
    path.write_text(json.dumps([{"data": {"text": MET}, "annotations": [cancelled]}]), "utf-8")
    with pytest.raises(InvalidInputError) as exc:
        list(read(path, "labelstudio", ReadingOptions(**options), Counter()))
    assert str(exc.value) == f"{path}: no {tasks} found (empty input); nothing to score"


def test_label_studios_predicted_side_reads_each_task_with_a_prediction_or_an_annotation(
    tmp_path,
):
    """A task with neither is skipped; one annotated but not predicted predicts nothing."""
    labels = [{"type": "labels", "value": PER}]
    tasks = [
        {"id": 1, "data": {"text": MET}},
        {"id": 2, "data": {"text": MET}, "annotations": [{"result": labels}, {"result": []}]},
        {"id": 3, "data": {"text": MET}, "predictions": [{"result": labels}]},
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks), "utf-8")
    got, notes = records(path, "labelstudio", "predicted")
    assert [(i, s) for i, s, _ in got] == [("2", ()), ("3", (Span(0, 3, "PER"),))]
    assert notes == {
        "tasks without a completed annotation or a prediction skipped": 1,
        "annotations not read (the predicted side reads predictions)": 2,
        "tasks without predictions (nothing predicted)": 1,
    }


def test_a_label_studio_task_with_an_id_is_named_by_it_in_messages(tmp_path):
    path = tmp_path / "export.json"
    for task, where in [({"id": 7}, "task 7 (line 1)"), ({}, "line 1")]:
        path.write_text(
            json.dumps([{**task, "data": {"text": MET}, "annotations": [{"result": 5}]}]), "utf-8"
        )
        with pytest.raises(InvalidInputError) as exc:
            records(path, "labelstudio")
        assert str(exc.value) == f"{path} {where}: 'result' must be a list of results"


@pytest.mark.parametrize(
    "record",
    [
        {"id": 1, "text": MET, "label": [[0, 3, "PER"]]},
        {"id": 1, "data": MET, "label": [[0, 3, "PER"]]},  # doccano's older text field
        {"id": 1, "text": MET, "data": "Ann met Bob.", "label": [[0, 3, "PER"]]},  # text first
        {"id": 1, "text": MET, "entities": [{"start_offset": 0, "end_offset": 3, "label": "PER"}]},
        {"id": 1, "text": MET, "entities": [{"start": 0, "end": 3, "label": "PER"}]},
        # both pairs of offsets: start_offset and end_offset are read
        {
            "id": 1,
            "text": MET,
            "entities": [
                {"start_offset": 0, "end_offset": 3, "start": 4, "end": 7, "label": "PER"}
            ],
        },
    ],
)
def test_each_doccano_record_shape_reads_the_same_span(tmp_path, record):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert records(path, "doccano")[0] == [("1", (Span(0, 3, "PER"),), MET)]


@pytest.mark.parametrize(
    ("fmt", "record"),
    [
        ("doccano", {"id": 1, "text": MET, "label": [[0, 30, "PER"]]}),
        ("prodigy", {"id": 1, "text": MET, "spans": [{"start": 0, "end": 30, "label": "PER"}]}),
        (
            "labelstudio-min",
            {"id": 1, "text": MET, "label": [{"start": 0, "end": 30, "labels": ["PER"]}]},
        ),
    ],
)
@pytest.mark.parametrize("side", ["gold", "predicted"])
def test_a_span_past_the_text_is_refused_naming_its_side(tmp_path, fmt, record, side):
    path = tmp_path / "export.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(InvalidSpanError) as exc:
        records(path, fmt, side)
    assert str(exc.value) == (
        f"{path} line 1: document '1', {side} span #0 (0, 30, 'PER'): end is past the end of "
        "the document (12)"
    )


def cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def doccano_zip(path, members):
    """A zip as doccano's export writes it: one JSONL file per user (or ``all.jsonl``)."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, rows in members.items():
            zf.writestr(name, "".join(json.dumps(r) + "\n" for r in rows))
    return path


TEXT = "Bob flew to New York City."
ADMIN = [{"id": 1, "text": TEXT, "label": [[0, 3, "PER"], [12, 25, "LOC"]]}]
BOB = [{"id": 1, "text": TEXT, "label": [[0, 3, "PER"]]}]


def test_a_doccano_zip_is_read_member_by_member(tmp_path):
    both = doccano_zip(tmp_path / "export.zip", {"admin.jsonl": ADMIN, "bob.jsonl": BOB})
    run = cli("evaluate", both, both, "--gold-annotator", "admin", "--pred-annotator", "bob")
    assert run.exit_code == 0, run.output
    assert "(doccano, 2 spans" in run.output and "(doccano, 1 span)" in run.output
    assert "zip members of other users not read 1" in run.output
    run = cli("evaluate", both, both)
    assert run.exit_code == 2
    assert "export.zip: the annotations of 2 users (admin, bob)" in run.output
    assert "--annotator NAME" in run.output
    run = cli("evaluate", both, both, "--annotator", "carol")
    assert run.exit_code == 2 and "no member for annotator 'carol'" in run.output
    one = doccano_zip(tmp_path / "all.zip", {"all.jsonl": ADMIN})
    run = cli("evaluate", one, both, "--pred-annotator", "admin")
    assert run.exit_code == 0, run.output
    bad = doccano_zip(tmp_path / "bad.zip", {"all.jsonl": [{"id": 1, "text": TEXT, "label": 3}]})
    run = cli("evaluate", bad, bad)
    assert run.exit_code == 2 and "bad.zip:all.jsonl line 1" in run.output


@pytest.mark.parametrize(
    ("members", "annotator", "message"),
    [
        (
            {"admin.jsonl": ADMIN, "bob.jsonl": BOB},
            None,
            "the annotations of 2 users (admin, bob); choose one with --annotator NAME",
        ),
        ({"admin.jsonl": ADMIN}, "carol", "no member for annotator 'carol' (users: admin)"),
        ({}, None, "no member for annotator None (users: none)"),
    ],
)
def test_a_doccano_zip_without_the_member_to_read_is_refused_naming_its_users(
    tmp_path, members, annotator, message
):
    path = doccano_zip(tmp_path / "export.zip", members)
    with pytest.raises(InvalidInputError) as exc:
        list(read(path, "doccano", ReadingOptions(annotator=annotator), Counter()))
    assert str(exc.value) == f"{path}: {message}"


def test_a_doccano_zip_member_is_read_with_its_notes_and_leaves_no_file_behind(
    tmp_path, monkeypatch
):
    """The chosen member is extracted to a temporary folder, never the working directory."""
    admin = [{**ADMIN[0], "relations": [{"id": 1, "from_id": 1, "to_id": 2, "type": "in"}]}]
    path = doccano_zip(
        tmp_path / "export.zip", {"admin.jsonl": admin, "bob.jsonl": BOB, "carol.jsonl": BOB}
    )
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    notes: Counter = Counter()
    got = [(r.id, r.spans) for r in read(path, "doccano", ReadingOptions(annotator="admin"), notes)]
    assert got == [("1", (Span(0, 3, "PER"), Span(12, 25, "LOC")))]
    assert dict(notes) == {"zip members of other users not read": 2, "relations ignored": 1}
    assert list(work.iterdir()) == []


def test_a_doccano_zips_annotators_are_its_files_stems_and_a_jsonl_file_has_none(tmp_path):
    """``agree`` reads each user of a zip; folders in the zip are no users."""
    both = doccano_zip(tmp_path / "export.zip", {"admin.jsonl": ADMIN, "team/bob.jsonl": BOB})
    with zipfile.ZipFile(both, "a") as zf:
        zf.writestr(zipfile.ZipInfo("team/"), "")
    assert doccano.annotators(both) == ["admin", "bob"]
    plain = tmp_path / "admin.jsonl"
    plain.write_text(json.dumps(ADMIN[0]) + "\n", encoding="utf-8")
    assert doccano.annotators(plain) == []


def test_an_annotator_asked_of_a_plain_doccano_file_is_refused(tmp_path):
    """A doccano JSONL file holds one user's spans: ``--annotator`` there cannot choose."""
    plain = tmp_path / "admin.jsonl"
    plain.write_text("".join(json.dumps(r) + "\n" for r in ADMIN), encoding="utf-8")
    both = doccano_zip(tmp_path / "export.zip", {"admin.jsonl": ADMIN, "bob.jsonl": BOB})
    for args in (["--annotator", "admin"], ["--pred-annotator", "admin"]):
        run = cli("evaluate", both, plain, "--gold-annotator", "bob", *args)
        assert run.exit_code == 2, run.output
        assert f"{plain}: a doccano JSONL file holds one user's spans" in run.output
    run = cli("evaluate", plain, both, "--pred-annotator", "bob")
    assert run.exit_code == 0, run.output


def test_gold_and_predictions_in_different_tools_pair_by_id(tmp_path):
    out = tmp_path / "r.json"
    run = cli("evaluate", LABELSTUDIO, PRODIGY, "--format", "json", "-o", out)
    assert run.exit_code == 0, run.output
    report = json.loads(out.read_text())
    micro = report["result"]["levels"]["labels"][0]["micro"]
    assert {
        k: micro[k] for k in ("num_annotated", "tp", "fn", "num_predicted", "credited", "fp")
    } == {"num_annotated": 5, "tp": 4, "fn": 1, "num_predicted": 5, "credited": 4, "fp": 1}
    assert report["inputs"]["gold"]["format"] == "labelstudio"
    assert report["inputs"]["predicted"]["notes"] == {
        "ignored examples skipped": 1,
        "rejected examples skipped": 1,
    }


def test_one_label_studio_export_scores_its_predictions_against_its_annotations():
    run = cli("evaluate", LABELSTUDIO, LABELSTUDIO, "--wide")
    assert run.exit_code == 0, run.output
    micro = next(line.split() for line in run.output.splitlines() if line.startswith("micro"))
    assert micro[1:7] == ["5", "5", "4", "1", "4", "1"]
    assert "choices results ignored 1" in run.output


def test_brat_gold_against_doccano_is_perfect_and_the_reader_notes_are_shown():
    run = cli("evaluate", BRAT, DOCCANO, "--strategy", "exact", "--wide")
    assert run.exit_code == 0, run.output
    micro = next(line.split() for line in run.output.splitlines() if line.startswith("micro"))
    assert micro[1:] == ["5", "5", "5", "0", "5", "0", "1.0000", "1.0000", "1.0000"]
    assert "discontinuous entities read as their outer extent 1" in run.output


def test_input_format_overrides_the_shape(tmp_path):
    run = cli("evaluate", DOCCANO, DOCCANO, "--input-format", "jsonl")
    assert run.exit_code == 2  # read as generic records, a doccano line's spans go unread
    assert "the key 'label' holds spans" in run.output
    assert "--input-format doccano" in run.output


@pytest.mark.parametrize(
    "source",
    [BRAT, PRODIGY, LABELSTUDIO, DOCCANO],
    ids=["brat", "prodigy", "labelstudio", "doccano"],
)
def test_convert_writes_every_span_and_says_what_it_left_out(tmp_path, source):
    from spacy.tokens import DocBin
    from spacy.vocab import Vocab

    report = convert_split(str(source), tmp_path / "out.spacy")
    assert report.documents == 2 and report.spans == 5
    docs = list(DocBin().from_disk(tmp_path / "out.spacy").get_docs(Vocab()))
    assert sum(len(d.spans["sc"]) for d in docs) == 5
    expected = records(source)[1]
    assert dict(report.read) == expected
    run = cli("convert", source, tmp_path / "cli.spacy")
    assert run.exit_code == 0, run.output
    for what, n in expected.items():
        assert f"{n} {what}" in run.output


# --- A shared corpus in each tool's format --------------------------------------------------


def re3d_documents():
    """re3d's documents from its raw files: ``[(id, text, [(begin, end, type)])]``."""
    root = data_path("re3d")
    docs, spans = [], {}
    for part in sorted(p for p in root.iterdir() if (p / "documents.json").exists()):
        for line in (part / "entities.json").read_text(encoding="utf-8").splitlines():
            ent = json.loads(line)
            spans.setdefault(ent["documentId"], []).append((ent["begin"], ent["end"], ent["type"]))
        for line in (part / "documents.json").read_text(encoding="utf-8").splitlines():
            doc = json.loads(line)
            docs.append((doc["_id"], doc["text"]))
    return [(i, t, spans.get(i, [])) for i, t in docs]


def utf16(text: str, i: int) -> int:
    return len(text[:i].encode("utf-16-le")) // 2


def write_brat(folder: Path, docs):
    folder.mkdir()
    for doc_id, text, spans in docs:
        (folder / f"{doc_id}.txt").write_text(text, encoding="utf-8", newline="")
        lines = []
        for k, (s, e, label) in enumerate(spans, 1):
            cut = text.find(" ", s, e)  # a span with a space is written as two fragments
            offsets = f"{s} {cut};{cut + 1} {e}" if cut > s else f"{s} {e}"
            # brat writes a span's line ends as spaces: an .ann line ends at a line end
            lines.append(f"T{k}\t{label} {offsets}\t{text[s:e].replace(chr(10), ' ')}")
        lines.append("R1\tRel Arg1:T1 Arg2:T1" if spans else "")
        (folder / f"{doc_id}.ann").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_tools(tmp_path: Path, docs) -> dict[str, Path]:
    paths = {
        "brat": tmp_path / "brat",
        "prodigy": tmp_path / "p.jsonl",
        "labelstudio": tmp_path / "ls.json",
        "doccano": tmp_path / "d.jsonl",
    }
    write_brat(paths["brat"], docs)
    with paths["prodigy"].open("w", encoding="utf-8") as fh:
        for doc_id, text, spans in docs:
            fh.write(
                json.dumps(
                    {
                        "text": text,
                        "meta": {"id": doc_id},
                        "answer": "accept",
                        "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in spans],
                    }
                )
                + "\n"
            )
            fh.write(
                json.dumps({"text": "x", "meta": {"id": doc_id + "-r"}, "answer": "reject"}) + "\n"
            )
    paths["labelstudio"].write_text(
        json.dumps(
            [
                {
                    "id": doc_id,
                    "data": {"text": text},
                    "annotations": [
                        {
                            "result": [
                                {
                                    "type": "labels",
                                    "value": {
                                        "start": utf16(text, s),
                                        "end": utf16(text, e),
                                        "labels": [lab],
                                    },
                                }
                                for s, e, lab in spans
                            ]
                        }
                    ],
                }
                for doc_id, text, spans in docs
            ]
        ),
        encoding="utf-8",
    )
    with paths["doccano"].open("w", encoding="utf-8") as fh:
        for doc_id, text, spans in docs:
            fh.write(
                json.dumps(
                    {"id": doc_id, "text": text, "label": [[s, e, lab] for s, e, lab in spans]}
                )
                + "\n"
            )
    return paths


def test_re3d_in_each_tools_format_reads_back_every_span(tmp_path):
    docs = re3d_documents()
    total = sum(len(spans) for _, _, spans in docs)
    assert total > 3000
    paths = write_tools(tmp_path, docs)
    expected = {doc_id: sorted(Span(*s) for s in spans) for doc_id, _, spans in docs}
    for fmt, path in paths.items():
        assert sniff(path) == fmt
        got, notes = records(path)
        assert {i: sorted(s) for i, s, _ in got} == expected, fmt
        if fmt == "prodigy":
            assert notes == {"rejected examples skipped": len(docs)}
    brat_notes = records(paths["brat"])[1]
    assert brat_notes["relations ignored"] == sum(1 for _, _, s in docs if s)
    assert brat_notes["discontinuous entities read as their outer extent"] == sum(
        1 for _, t, spans in docs for s, e, _ in spans if t.find(" ", s, e) > s
    )


@pytest.mark.slow  # a whole shared corpus
def test_re3d_scored_across_tools_equals_the_generic_reader(tmp_path):
    docs = re3d_documents()
    rng = random.Random(13)
    predicted = [
        (
            i,
            t,
            [
                (s, max(s + 1, e - rng.choice((0, 0, 1, 3))), lab)
                for s, e, lab in spans
                if rng.random() > 0.1
            ],
        )
        for i, t, spans in docs
    ]
    for side in ("gold", "pred"):
        (tmp_path / side).mkdir()
    gold_paths = write_tools(tmp_path / "gold", docs)
    pred_paths = write_tools(tmp_path / "pred", predicted)
    generic = tmp_path / "generic"
    generic.mkdir()
    for name, rows in (("gold", docs), ("pred", predicted)):
        with (generic / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            for doc_id, text, spans in rows:
                fh.write(
                    json.dumps(
                        {
                            "id": doc_id,
                            "text": text,
                            "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in spans],
                        }
                    )
                    + "\n"
                )
    reference = evaluate_files(generic / "gold.jsonl", generic / "pred.jsonl").result.to_dict()
    for gold_fmt, pred_fmt in (
        ("brat", "prodigy"),
        ("labelstudio", "doccano"),
        ("doccano", "brat"),
    ):
        result = evaluate_files(gold_paths[gold_fmt], pred_paths[pred_fmt]).result.to_dict()
        assert result["levels"] == reference["levels"], (gold_fmt, pred_fmt)
    micro = reference["levels"]["labels"][0]["micro"]
    assert micro["num_annotated"] == sum(len(s) for _, _, s in docs)
    assert micro["num_predicted"] == sum(len(s) for _, _, s in predicted)


def test_reading_options_for_convert_take_every_tool_format():
    for fmt in ("brat", "prodigy", "labelstudio", "doccano", "re3d"):
        ReadingOptions(input_format=fmt)  # a known format
    run = cli("convert", "--help")
    assert "labelstudio" in run.output and "brat" in run.output


def write_re3d(folder: Path, documents, entities, relations=None) -> Path:
    """A re3d source folder: each list written one JSON value a line."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in (("documents", documents), ("entities", entities), ("relations", relations)):
        if rows is not None:
            (folder / f"{name}.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


ENT = {"documentId": "d1", "begin": 0, "end": 3, "type": "PER"}


def test_re3d_reads_each_document_with_its_entities_and_counts_the_relations(tmp_path):
    write_re3d(
        tmp_path / "src",
        [
            {"_id": "d1", "text": "Ada met Bob"},
            {"_id": 7, "text": "Rome"},
            {"_id": "d3", "text": ""},
        ],
        [ENT, {**ENT, "begin": 8, "end": 11, "type": "PER"}, {**ENT, "documentId": 7, "end": 4}],
        [{"r": 1}, {"r": 2}, {"r": 3}],
    )
    notes: Counter = Counter()
    got = [
        (r.where, r.key, r.id, r.text, r.spans)
        for r in read(tmp_path / "src", "re3d", ReadingOptions(side="predicted"), notes)
    ]
    docs = tmp_path / "src" / "documents.json"
    assert got == [
        (f"{docs} line 1", "d1", "d1", "Ada met Bob", (Span(0, 3, "PER"), Span(8, 11, "PER"))),
        (f"{docs} line 2", "7", "7", "Rome", (Span(0, 4, "PER"),)),
        (f"{docs} line 3", "d3", "d3", "", ()),
    ]
    assert notes == {"relations ignored": 3}
    fields = list(re3d_fields(tmp_path, "folder", ReadingOptions()))
    assert fields == [("d1", "src"), ("7", "src"), ("d3", "src")]


@pytest.mark.parametrize(
    ("documents", "entities", "message"),
    [
        (
            [{"_id": "d1", "text": "Ada"}],
            [[1]],
            "{e} line 1: an entity needs 'documentId', 'begin', 'end' and 'type'",
        ),
        (
            [{"_id": "d1", "text": "Ada"}],
            [{**ENT, "type": None}],
            "{e} line 1: an entity needs 'documentId', 'begin', 'end' and 'type'",
        ),
        (
            [{"_id": "d1", "text": "Ada"}],
            [{**ENT, "documentId": 1.5}],
            "{e} line 1: field 'documentId' must be a string or an integer, not 1.5",
        ),
        (
            [{"_id": "d1", "text": "Ada"}],
            [ENT, {**ENT, "begin": "0"}],
            "{e} line 2: begin must be an integer, not '0'",
        ),
        (
            [{"_id": "d1", "text": "Ada"}],
            [{**ENT, "end": 3.0}],
            "{e} line 1: end must be an integer, not 3.0",
        ),
        ([[1]], [ENT], "{d} line 1: a document needs '_id' and 'text'"),
        ([{"_id": "d1", "text": 5}], [ENT], "{d} line 1: a document needs '_id' and 'text'"),
        (
            [{"_id": True, "text": "Ada"}],
            [ENT],
            "{d} line 1: field '_id' must be a string or an integer, not True",
        ),
        ([{"text": "Ada"}], [ENT], "{d} line 1: a document needs '_id'"),
        (
            [{"_id": "d1", "text": "Ada"}],
            [ENT, {**ENT, "documentId": "d9"}],
            "{e}: entities of document 'd9', which documents.json does not have",
        ),
        (
            [{"_id": "d1", "text": "Ada"}],
            [{**ENT, "end": 9}],
            "{d} line 1: document 'd1', predicted span #0 (0, 9, 'PER'): end is past the end "
            "of the document (3)",
        ),
    ],
)
def test_a_bad_re3d_record_is_refused_naming_the_file_line_and_field(
    tmp_path, documents, entities, message
):
    src = write_re3d(tmp_path, documents, entities)
    want = message.format(e=src / "entities.json", d=src / "documents.json")
    with pytest.raises(InvalidInputError) as exc:
        list(read(src, "re3d", ReadingOptions(side="predicted")))
    assert str(exc.value) == want


def test_a_re3d_input_that_is_no_folder_or_holds_no_source_is_refused(tmp_path):
    (tmp_path / "documents.json").write_text("")
    with pytest.raises(InvalidInputError) as exc:
        list(read(tmp_path / "documents.json", "re3d"))
    assert str(exc.value) == (
        f"{tmp_path / 'documents.json'}: re3d input is a folder with documents.json and "
        "entities.json (or the corpus root holding such folders)"
    )
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidInputError) as exc:
        list(read(tmp_path / "empty", "re3d"))
    assert str(exc.value) == (
        f"{tmp_path / 'empty'}: no documents.json and entities.json found (empty input); "
        "nothing to score"
    )
    write_re3d(tmp_path / "bad", [{"_id": [1], "text": "Ada"}], [])
    with pytest.raises(InvalidInputError) as exc:
        list(re3d_fields(tmp_path / "bad", "folder", ReadingOptions()))
    assert str(exc.value) == (
        f"{tmp_path / 'bad'} line 1: field '_id' must be a string or an integer, not [1]"
    )
