"""JSONL and presidio readers: shapes, streaming JSON arrays, and errors naming file and line."""

from __future__ import annotations

import json
import re

import pytest

from spacy_span_eval import InvalidInputError, InvalidSpanError, Span
from spacy_span_eval.readers import jsonio
from spacy_span_eval.readers.formats import infer_format
from spacy_span_eval.readers.jsonio import iter_json_values
from spacy_span_eval.readers.jsonl import read_jsonl
from spacy_span_eval.readers.presidio import read_presidio
from spacy_span_eval.readers.source import read_records as read

RECORDS = [
    {
        "id": "a",
        "text": "Ana lives in Porto",
        "spans": [{"start": 0, "end": 3, "label": "PER"}, {"start": 13, "end": 18, "label": "LOC"}],
    },
    {"id": 7, "text": "Nothing here"},
    {"text": "Multi\nline text", "spans": [{"start": 6, "end": 10, "label": "X", "id": 1}]},
]


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_jsonl_records(tmp_path):
    got = list(read_jsonl(write_jsonl(tmp_path / "g.jsonl", RECORDS)))
    assert [r.id for r in got] == ["a", "7", None]
    assert got[0].spans == (Span(0, 3, "PER"), Span(13, 18, "LOC"))
    assert got[1].spans == () and got[1].text == "Nothing here"
    assert got[2].key == "g.jsonl:3" and got[2].where.endswith("g.jsonl line 3")
    assert all(r.unit == "char" for r in got)


def test_blank_lines_are_skipped_and_counted(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text("\n" + json.dumps(RECORDS[0]) + "\n\n" + json.dumps(RECORDS[2]) + "\n")
    got = list(read_jsonl(path))
    assert [r.where.rsplit(" ", 1)[1] for r in got] == ["2", "4"]


@pytest.mark.parametrize("chunk", [7, 64, 1 << 20])
def test_a_json_array_streams_in_chunks_with_line_numbers(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(jsonio, "_CHUNK", chunk)
    path = tmp_path / "g.json"
    path.write_text(json.dumps(RECORDS, indent=2), encoding="utf-8")
    values = list(iter_json_values(path))
    assert [v for _, v in values] == RECORDS
    lines = path.read_text().split("\n")
    for line_no, _ in values:  # each value is reported at the line where it starts
        assert lines[line_no - 1].strip() == "{"
    assert [r.id for r in read_jsonl(path)] == ["a", "7", None]


def test_presidio_records(tmp_path):
    path = tmp_path / "synth.json"
    path.write_text(
        json.dumps(
            [
                {
                    "full_text": "Call Ana at 555",
                    "masked": "...",
                    "template_id": 3,
                    "spans": [
                        {
                            "entity_type": "PERSON",
                            "entity_value": "Ana",
                            "start_position": 5,
                            "end_position": 8,
                        },
                        {"entity_type": "PHONE_NUMBER", "start_position": 12, "end_position": 15},
                    ],
                },
                {"full_text": "None", "spans": []},
            ]
        )
    )
    assert infer_format(path) == "presidio"
    got = list(read_presidio(path))
    assert got[0].spans == (Span(5, 8, "PERSON"), Span(12, 15, "PHONE_NUMBER"))
    assert got[0].text == "Call Ana at 555" and got[1].spans == ()


@pytest.mark.parametrize(
    "name,expected",
    [
        ("a.jsonl", "jsonl"),
        ("a.ndjson", "jsonl"),
        ("a.spacy", "spacy"),
        ("a.conll", "conll"),
        ("train", "conll"),
        ("btc.dev", "conll"),
        ("a.txt", "conll"),
        ("a.JSONL", "jsonl"),
    ],
)
def test_format_inference(tmp_path, name, expected):
    assert infer_format(tmp_path / name) == expected


def test_json_with_text_records_is_jsonl(tmp_path):
    path = tmp_path / "records.json"
    path.write_text(json.dumps(RECORDS))
    assert infer_format(path) == "jsonl"
    assert len(list(read(path))) == 3


@pytest.mark.parametrize(
    "content,line,why",
    [
        ('{"text": "ok", "spans": []}\n{"text": "broken", "spans": [}\n', 2, "invalid JSON"),
        ('{"text": "ok"}\n[1, 2]\n', 2, "expected a JSON object"),
        ('{"spans": []}\n', 1, "field 'text' is missing"),
        ('{"text": 3}\n', 1, "not a string"),
        ('{"text": "ab", "spans": {"start": 0}}\n', 1, "must be a list"),
        ('{"text": "ab", "spans": [{"start": 0, "end": 1}]}\n', 1, "has no 'label'"),
        ('{"text": "ab", "spans": [[0, 1, "X"]]}\n', 1, "must be an object"),
        ('{"text": "ab", "id": [1]}\n', 1, "string or an integer"),
    ],
)
def test_bad_jsonl_names_file_and_line(tmp_path, content, line, why):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(InvalidInputError, match=re.escape(why)) as info:
        list(read_jsonl(path))
    assert f"bad.jsonl line {line}" in str(info.value) and why in str(info.value)


@pytest.mark.parametrize(
    "span,why",
    [
        ({"start": 2, "end": 40, "label": "X"}, "past the end of the document (11)"),
        ({"start": -1, "end": 2, "label": "X"}, "negative"),
        ({"start": 3, "end": 3, "label": "X"}, "empty"),
        ({"start": 1.5, "end": 3, "label": "X"}, "integers"),
        ({"start": 1, "end": 3, "label": ""}, "non-empty"),
    ],
)
def test_offsets_outside_the_text_name_file_line_and_document(tmp_path, span, why):
    path = write_jsonl(
        tmp_path / "pred.jsonl", [RECORDS[1], {"id": "d2", "text": "Hello world", "spans": [span]}]
    )
    with pytest.raises(InvalidSpanError, match=re.escape(why)) as info:
        list(read_jsonl(path, side="predicted"))
    message = str(info.value)
    assert "pred.jsonl line 2" in message and "'d2'" in message and why in message
    assert "predicted span #0" in message


@pytest.mark.parametrize(
    "content,why",
    [
        ('[{"text": "a"}, {"text": "b"}', "not closed"),
        ('[{"text": "a"}, {"text": "b"', "Expecting"),
        ('[{"text": "a"} {"text": "b"}]', "expected ','"),
        ('[{"text": "a"}]\n]', "extra data"),
        ('[{"text": "a"},\n\n {"text": tru}]', "line 3"),
    ],
)
def test_bad_json_array_names_file_and_line(tmp_path, content, why):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(InvalidInputError, match=r"bad\.json line \d+: invalid JSON") as info:
        list(read(path, "jsonl"))
    assert why in str(info.value)


@pytest.mark.parametrize("content", ["", "\n\n", "[]", "  [ \n ] \n"])
def test_empty_input_is_an_error(tmp_path, content):
    path = tmp_path / "empty.jsonl"
    path.write_text(content)
    with pytest.raises(InvalidInputError, match=r"empty\.jsonl: no records found"):
        list(read_jsonl(path))
