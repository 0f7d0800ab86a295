"""JSONL and presidio readers: shapes, streaming JSON arrays, and errors naming file and line."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from spacy_span_eval import InvalidInputError, InvalidSpanError, Span
from spacy_span_eval.readers import jsonio
from spacy_span_eval.readers.detect import sniff
from spacy_span_eval.readers.formats import FORMATS
from spacy_span_eval.readers.jsonio import iter_json_values
from spacy_span_eval.readers.jsonl import (
    JSONL_FIELDS,
    PRESIDIO_FIELDS,
    char_record_chunks,
    read_char_records,
    read_jsonl,
)
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.readers.ranges import ByteRange
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
    assert all(r.tokens is None and r.text is not None for r in got)  # character offsets


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
    assert sniff(path) == "presidio"
    got = list(read_char_records(path, PRESIDIO_FIELDS))
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
    assert sniff(tmp_path / name) == expected


def test_json_with_text_records_is_jsonl(tmp_path):
    path = tmp_path / "records.json"
    path.write_text(json.dumps(RECORDS))
    assert sniff(path) == "jsonl"
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
        list(read_jsonl(path, ReadingOptions(side="predicted")))
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


# -------------------------------------------------------------------------------------------------
# The JSONL character-offset reader, value by value, on both of its roads.
#
# A chunk of records is decoded typed (msgspec) and its spans checked as arrays, or, when the
# typed decoder refuses it (an unknown key, a float offset, an offset past 64 bits...), decoded
# by the standard library and checked record by record. Either way the records, their ids and
# keys, the chunk's columns and every error message (file, line, document, key, span) must be
# the ones written out here by hand, and the records before a bad one are still handed out.
# -------------------------------------------------------------------------------------------------


def _line(record: dict) -> str:
    return json.dumps(record) + "\n"


# Four records, every span inside its text; offsets 0 and len(text) both occur, one record
# has no spans, ids are a string, an integer and absent.
GOOD = [
    {
        "id": "a",
        "text": "Ana met Bo",
        "spans": [{"start": 0, "end": 3, "label": "PER"}, {"start": 8, "end": 10, "label": "PER"}],
    },
    {"id": 7, "text": "Porto", "spans": [{"start": 0, "end": 5, "label": "LOC"}]},
    {"text": "none here"},
    {
        "text": "Bo in Rome",
        "spans": [{"start": 6, "end": 10, "label": "LOC"}, {"start": 0, "end": 2, "label": "PER"}],
    },
]
# What GOOD reads as: (line, key, id, text, spans)
GOOD_READ = [
    (1, "a", "a", "Ana met Bo", (Span(0, 3, "PER"), Span(8, 10, "PER"))),
    (2, "7", "7", "Porto", (Span(0, 5, "LOC"),)),
    (3, "g.jsonl:3", None, "none here", ()),
    (4, "g.jsonl:4", None, "Bo in Rome", (Span(6, 10, "LOC"), Span(0, 2, "PER"))),
]
# An unknown key makes the typed decoder refuse the chunk: the reference road reads it.
UNKNOWN = {"note": "kept aside"}


def _write(path, records):
    path.write_text("".join(_line(r) for r in records), encoding="utf-8")
    return path


def _as_tuples(records):
    return [(r.where, r.key, r.id, r.text, r.spans) for r in records]


def _expected(path, rows):
    return [(f"{path} line {n}", key, i, text, spans) for n, key, i, text, spans in rows]


def _error_after(iterator):
    """The records an iterator hands out before it raises, and what it raises."""
    got = []
    with pytest.raises(InvalidInputError) as info:
        for record in iterator:
            got.append(record)
    return got, info.value


# -- the records ----------------------------------------------------------------------------


@pytest.mark.parametrize("road", ["typed", "reference"])
def test_records_carry_where_key_id_text_and_spans(tmp_path, road):
    records = [dict(r) for r in GOOD]
    if road == "reference":
        records[0] = {**records[0], **UNKNOWN}
    path = _write(tmp_path / "g.jsonl", records)
    got = list(read_jsonl(path))
    assert _as_tuples(got) == _expected(path, GOOD_READ)
    assert [(r.tokens, r.text is not None) for r in got] == [(None, True)] * 4  # characters


@pytest.mark.parametrize("road", ["typed", "reference"])
def test_the_chunk_holds_the_records_as_columns(tmp_path, road):
    records = [dict(r) for r in GOOD]
    if road == "reference":
        records[2] = {**records[2], **UNKNOWN}
    path = _write(tmp_path / "g.jsonl", records)
    (chunk,) = list(char_record_chunks(path, JSONL_FIELDS))
    assert chunk.error is None
    assert len(chunk) == 4
    assert chunk.name == "g.jsonl"
    assert chunk.lines == [1, 2, 3, 4]
    assert chunk.texts == ["Ana met Bo", "Porto", "none here", "Bo in Rome"]
    assert chunk.ids == ["a", "7", None, None]
    # spans per record 2, 1, 0, 2 -> offsets 0, 2, 3, 3, 5
    assert chunk.span_off.tolist() == [0, 2, 3, 3, 5]
    assert chunk.start.tolist() == [0, 8, 0, 6, 0]
    assert chunk.end.tolist() == [3, 10, 5, 10, 2]
    # labels numbered in the order they first occur: PER 0, LOC 1
    assert chunk.labels == ["PER", "LOC"]
    assert chunk.label.tolist() == [0, 0, 1, 1, 0]
    for column in (chunk.span_off, chunk.start, chunk.end, chunk.label):
        assert column.dtype == np.int64
    assert chunk.keys(1, 4) == ["7", "g.jsonl:3", "g.jsonl:4"]
    assert chunk.keys(0, 1) == ["a"]
    assert chunk.key(3) == "g.jsonl:4" and chunk.key(0) == "a"
    assert chunk.spans(3) == (Span(6, 10, "LOC"), Span(0, 2, "PER"))
    assert chunk.spans(2) == ()


@pytest.mark.parametrize("road", ["typed", "reference"])
def test_a_chunk_without_spans_still_has_integer_columns(tmp_path, road):
    records = [{"id": "x", "text": "abc"}, {"text": "de", "spans": []}]
    if road == "reference":
        records[0] = {**records[0], **UNKNOWN}
    path = _write(tmp_path / "g.jsonl", records)
    (chunk,) = list(char_record_chunks(path, JSONL_FIELDS))
    assert chunk.span_off.tolist() == [0, 0, 0]
    assert chunk.labels == []
    for column in (chunk.span_off, chunk.start, chunk.end, chunk.label):
        assert column.dtype == np.int64 and column.shape == (
            (3,) if column is chunk.span_off else (0,)
        )
    assert chunk.keys(0, 2) == ["x", "g.jsonl:2"]


def test_spans_null_is_no_spans_on_the_reference_road(tmp_path):
    path = _write(
        tmp_path / "g.jsonl",
        [
            {"text": "abc", "spans": None, **UNKNOWN},
            {"text": "abcd", "spans": [{"start": 1, "end": 4, "label": "X"}], **UNKNOWN},
        ],
    )
    got = list(read_jsonl(path))
    assert [r.spans for r in got] == [(), (Span(1, 4, "X"),)]


@pytest.mark.parametrize("road", ["typed", "reference"])
def test_records_of_many_chunks_all_come_through(tmp_path, monkeypatch, road):
    monkeypatch.setattr(jsonio, "_CHUNK", 96)  # a few records per chunk
    records = [
        {"id": f"d{i}", "text": f"doc {i}", "spans": [{"start": 0, "end": 3, "label": f"L{i % 3}"}]}
        for i in range(12)
    ]
    if road == "reference":
        records = [{**r, **UNKNOWN} for r in records]
    path = _write(tmp_path / "g.jsonl", records)
    assert len(list(char_record_chunks(path, JSONL_FIELDS))) > 2
    got = list(read_jsonl(path))
    assert [(r.id, r.text, r.spans) for r in got] == [
        (f"d{i}", f"doc {i}", (Span(0, 3, f"L{i % 3}"),)) for i in range(12)
    ]
    assert [r.where for r in got] == [f"{path} line {i}" for i in range(1, 13)]


@pytest.mark.parametrize("road", ["typed", "reference"])
def test_an_error_in_a_later_chunk_comes_after_the_earlier_records(tmp_path, monkeypatch, road):
    monkeypatch.setattr(jsonio, "_CHUNK", 96)
    records = [{"id": f"d{i}", "text": f"doc {i}"} for i in range(10)]
    records[8] = {"id": "d8", "text": "doc 8", "spans": [{"start": 2, "end": 9, "label": "X"}]}
    if road == "reference":
        records = [{**r, **UNKNOWN} for r in records]
    path = _write(tmp_path / "g.jsonl", records)
    got, error = _error_after(read_jsonl(path, ReadingOptions(side="predicted")))
    assert [r.id for r in got] == [f"d{i}" for i in range(8)]
    assert str(error) == (
        f"{path} line 9: document 'd8', predicted span #0 (2, 9, 'X'): "
        "end is past the end of the document (5)"
    )


def test_a_part_of_the_file_reads_only_its_records(tmp_path):
    path = _write(tmp_path / "g.jsonl", GOOD)
    lines = path.read_bytes().splitlines(keepends=True)
    at = len(lines[0]) + len(lines[1])  # the third record starts here
    chunks = list(char_record_chunks(path, JSONL_FIELDS, part=ByteRange(at, None, 3)))
    assert [line for c in chunks for line in c.lines] == [3, 4]
    assert [t for c in chunks for t in c.texts] == ["none here", "Bo in Rome"]
    stop = at + len(lines[2])
    (chunk,) = list(char_record_chunks(path, JSONL_FIELDS, part=ByteRange(at, stop, 3)))
    assert chunk.lines == [3] and chunk.texts == ["none here"]


# -- bad spans: the array check and the message ---------------------------------------------


@pytest.mark.parametrize(
    "span,why",
    [
        ({"start": -1, "end": 2, "label": "X"}, "(-1, 2, 'X'): start is negative"),
        ({"start": 3, "end": 3, "label": "X"}, "(3, 3, 'X'): span is empty (end == start)"),
        ({"start": 3, "end": 2, "label": "X"}, "(3, 2, 'X'): span is inverted (end < start)"),
        (
            {"start": 2, "end": 7, "label": "X"},
            "(2, 7, 'X'): end is past the end of the document (6)",
        ),
        ({"start": 1, "end": 3, "label": ""}, "(1, 3, ''): label must be a non-empty string"),
    ],
)
@pytest.mark.parametrize("road", ["typed", "reference"])
def test_a_bad_span_stops_the_file_after_the_records_before_it(tmp_path, span, why, road):
    # record 3 holds a good span, then the bad one; records 1 and 2 come out first
    bad = {"id": "d3", "text": "abcdef", "spans": [{"start": 0, "end": 6, "label": "Y"}, span]}
    records = [GOOD[0], GOOD[1], bad, GOOD[3]]
    if road == "reference":
        records[2] = {**bad, **UNKNOWN}
    path = _write(tmp_path / "p.jsonl", records)
    got, error = _error_after(read_jsonl(path, ReadingOptions(side="predicted")))
    assert isinstance(error, InvalidSpanError)
    assert _as_tuples(got) == _expected(path, [(1, *GOOD_READ[0][1:]), (2, *GOOD_READ[1][1:])])
    assert str(error) == f"{path} line 3: document 'd3', predicted span #1 {why}"


@pytest.mark.parametrize("road", ["typed", "reference"])
def test_a_bad_span_without_an_id_names_the_document_by_file_and_line(tmp_path, road):
    bad = {"text": "abc", "spans": [{"start": 1, "end": 9, "label": "Y"}]}
    records = [GOOD[2], bad]
    if road == "reference":
        records[1] = {**bad, **UNKNOWN}
    path = _write(tmp_path / "nameless.jsonl", records)
    got, error = _error_after(read_jsonl(path))  # side: gold unless told
    assert [r.key for r in got] == ["nameless.jsonl:1"]
    assert str(error) == (
        f"{path} line 2: document 'nameless.jsonl:2', gold span #0 (1, 9, 'Y'): "
        "end is past the end of the document (3)"
    )


def test_the_first_bad_record_is_named_when_later_ones_are_bad_too(tmp_path):
    # line 2: an empty label; line 3: past the end. The typed check must stop at line 2.
    records = [
        GOOD[1],
        {"id": "e", "text": "abc", "spans": [{"start": 0, "end": 1, "label": ""}]},
        {"id": "f", "text": "abc", "spans": [{"start": 0, "end": 8, "label": "Z"}]},
    ]
    path = _write(tmp_path / "p.jsonl", records)
    got, error = _error_after(read_jsonl(path))
    assert [r.id for r in got] == ["7"]
    assert str(error) == (
        f"{path} line 2: document 'e', gold span #0 (0, 1, ''): label must be a non-empty string"
    )
    # past the end first, then the empty label: still the first one
    path = _write(tmp_path / "q.jsonl", [GOOD[1], records[2], records[1]])
    got, error = _error_after(read_jsonl(path))
    assert [r.id for r in got] == ["7"]
    assert str(error) == (
        f"{path} line 2: document 'f', gold span #0 (0, 8, 'Z'): "
        "end is past the end of the document (3)"
    )


def test_an_empty_label_beside_good_labels_is_the_only_bad_span(tmp_path):
    records = [
        GOOD[0],
        {"id": "e", "text": "abcd", "spans": [{"start": 1, "end": 2, "label": "PER"}]},
        {"id": "f", "text": "abcd", "spans": [{"start": 1, "end": 2, "label": ""}]},
    ]
    path = _write(tmp_path / "p.jsonl", records)
    got, error = _error_after(read_jsonl(path))
    assert [(r.id, r.spans) for r in got] == [
        ("a", (Span(0, 3, "PER"), Span(8, 10, "PER"))),
        ("e", (Span(1, 2, "PER"),)),
    ]
    assert str(error) == (
        f"{path} line 3: document 'f', gold span #0 (1, 2, ''): label must be a non-empty string"
    )


def test_the_typed_chunk_is_cut_before_the_bad_record(tmp_path):
    bad = {"id": "z", "text": "ab", "spans": [{"start": 0, "end": 3, "label": "Q"}]}
    path = _write(tmp_path / "p.jsonl", [GOOD[0], GOOD[1], bad, GOOD[3]])
    (chunk,) = list(char_record_chunks(path, JSONL_FIELDS))
    assert chunk.lines == [1, 2] and chunk.ids == ["a", "7"]
    assert chunk.texts == ["Ana met Bo", "Porto"]
    assert chunk.span_off.tolist() == [0, 2, 3]
    assert chunk.start.tolist() == [0, 8, 0]
    assert chunk.end.tolist() == [3, 10, 5]
    assert chunk.label.tolist() == [0, 0, 1]
    assert str(chunk.error()) == (
        f"{path} line 3: document 'z', gold span #0 (0, 3, 'Q'): "
        "end is past the end of the document (2)"
    )


def test_the_first_record_bad_leaves_an_empty_chunk(tmp_path):
    bad = {"text": "ab", "spans": [{"start": 1, "end": 1, "label": "Q"}]}
    path = _write(tmp_path / "p.jsonl", [bad, GOOD[1]])
    (chunk,) = list(char_record_chunks(path, JSONL_FIELDS, side="predicted"))
    assert len(chunk) == 0 and chunk.span_off.tolist() == [0]
    assert str(chunk.error()) == (
        f"{path} line 1: document 'p.jsonl:1', predicted span #0 (1, 1, 'Q'): "
        "span is empty (end == start)"
    )


def test_read_char_records_words_messages_for_the_gold_side_unless_told(tmp_path):
    bad = {"id": "q", "text": "ab", "spans": [{"start": 0, "end": 5, "label": "Q"}]}
    path = _write(tmp_path / "p.jsonl", [bad])
    message = (
        f"{path} line 1: document 'q', {{}} span #0 (0, 5, 'Q'): "
        "end is past the end of the document (2)"
    )
    with pytest.raises(InvalidSpanError) as info:
        list(read_char_records(path, JSONL_FIELDS))
    assert str(info.value) == message.format("gold")
    (chunk,) = list(char_record_chunks(path, JSONL_FIELDS))
    assert str(chunk.error()) == message.format("gold")
    with pytest.raises(InvalidSpanError) as info:
        list(read_char_records(path, JSONL_FIELDS, side="predicted"))
    assert str(info.value) == message.format("predicted")


# -- offsets past 64 bits: the typed records go the reference road ---------------------------


def test_an_offset_past_64_bits_sends_the_chunk_down_the_reference_road(tmp_path):
    records = [
        {"id": 5, "text": "abc"},
        {"text": "abcd", "spans": [{"start": 1, "end": 3, "label": "X"}]},
        {"id": "b", "text": "xyz", "spans": [{"start": 0, "end": 1, "label": "Y"}]},
        {"text": "abc", "spans": [{"start": 1, "end": 2**64 - 1, "label": "Y"}]},
    ]
    path = _write(tmp_path / "big.jsonl", records)
    got, error = _error_after(read_jsonl(path))
    assert _as_tuples(got) == _expected(
        path,
        [
            (1, "5", "5", "abc", ()),
            (2, "big.jsonl:2", None, "abcd", (Span(1, 3, "X"),)),
            (3, "b", "b", "xyz", (Span(0, 1, "Y"),)),
        ],
    )
    assert str(error) == (
        f"{path} line 4: document 'big.jsonl:4', gold span #0 (1, <a 20-digit number>, 'Y'): "
        "end is past the end of the document (3)"
    )


# -- the reference road's record checks ------------------------------------------------------


@pytest.mark.parametrize(
    "record,why",
    [
        ([1, 2], "expected a JSON object, found list"),
        (
            ["Ann here", {"entities": [[0, 3, "PER"]]}],
            "expected a JSON object, found list; the record looks like 'tuples': "
            "read it with --input-format tuples",
        ),
        ("just text", "expected a JSON object, found str"),
        ({"spans": []}, "field 'text' is missing"),
        ({"text": 3}, "field 'text' is int, not a string"),
        (
            {"full_text": "Ann", "spans": []},
            "field 'text' is missing; the record looks like 'presidio': "
            "read it with --input-format presidio",
        ),
        (
            {"text": 3, "full_text": "Ann"},
            "field 'text' is int, not a string; the record looks like 'presidio': "
            "read it with --input-format presidio",
        ),
        ({"text": "ab", "id": True}, "field 'id' must be a string or an integer, not True"),
        ({"text": "ab", "id": [1]}, "field 'id' must be a string or an integer, not [1]"),
        ({"text": "ab", "spans": {"start": 0}}, "field 'spans' must be a list of spans, not dict"),
        ({"text": "ab", "spans": "0-1"}, "field 'spans' must be a list of spans, not str"),
        (
            {"text": "ab", "spans": [{"start": 0, "end": 1, "label": "A"}, [0, 1, "X"]]},
            "span #1 must be an object with 'start', 'end' and 'label', not [0, 1, 'X']",
        ),
        (
            {
                "text": "ab",
                "spans": [{"start": 0, "end": 1, "label": "A"}, {"end": 1, "label": "X"}],
            },
            "span #1 has no 'start': {'end': 1, 'label': 'X'}",
        ),
        (
            {"text": "ab", "spans": [{"start": 0, "label": "X"}]},
            "span #0 has no 'end': {'start': 0, 'label': 'X'}",
        ),
        (
            {"text": "ab", "spans": [{"start": 0, "end": 1}]},
            "span #0 has no 'label': {'start': 0, 'end': 1}",
        ),
        (
            {"text": "ab", "entities": [{"start": 0, "end": 1, "label": "X"}]},
            "the key 'entities' holds spans, and the jsonl reader does not read 'entities'; "
            "they would be read as nothing (the jsonl reader reads spans under 'spans', as "
            "objects with 'start', 'end' and 'label')",
        ),
        (  # spaCy's own name for entities: the advice is a rename, no other format
            {"text": "ab", "ents": [{"start": 0, "end": 1, "label": "X"}]},
            "the key 'ents' holds spans, and the jsonl reader does not read 'ents'; they would "
            "be read as nothing (the jsonl reader reads spans under 'spans', as objects with "
            "'start', 'end' and 'label')",
        ),
    ],
)
def test_a_bad_record_is_named_by_file_line_and_key(tmp_path, record, why):
    path = tmp_path / "bad.jsonl"
    path.write_text(_line(GOOD[1]) + "\n" + _line(record), encoding="utf-8")  # line 3
    got, error = _error_after(read_jsonl(path))
    assert [r.id for r in got] == ["7"]
    assert str(error) == f"{path} line 3: {why}"


def test_a_float_offset_takes_the_reference_road_and_names_the_span(tmp_path):
    records = [GOOD[0], {"text": "abc", "spans": [{"start": 1.5, "end": 2, "label": "Y"}]}]
    path = _write(tmp_path / "f.jsonl", records)
    got, error = _error_after(read_jsonl(path, ReadingOptions(side="predicted")))
    assert [r.id for r in got] == ["a"]
    assert str(error) == (
        f"{path} line 2: document 'f.jsonl:2', predicted span #0 (1.5, 2, 'Y'): "
        "offsets must be integers"
    )


def test_presidio_records_on_the_reference_road_use_presidio_keys(tmp_path):
    records = [
        {
            "full_text": "Call Ana",
            "other": 1,
            "spans": [{"entity_type": "PERSON", "start_position": 5, "end_position": 8}],
        },
        {"full_text": "x", "entities": [{"start": 0, "end": 1, "label": "X"}]},
    ]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    got, error = _error_after(read_char_records(path, PRESIDIO_FIELDS))
    assert [(r.text, r.spans) for r in got] == [("Call Ana", (Span(5, 8, "PERSON"),))]
    assert str(error) == (
        f"{path} line 1: the key 'entities' holds spans, and the presidio reader does not "
        "read 'entities'; they would be read as nothing (the presidio reader reads spans "
        "under 'spans', as objects with 'start_position', 'end_position' and 'entity_type')"
    )


@pytest.mark.parametrize("content", ["", "\n \n"])
def test_no_records_is_an_error_naming_the_file(tmp_path, content):
    path = tmp_path / "empty.jsonl"
    path.write_text(content)
    with pytest.raises(InvalidInputError) as info:
        list(read_jsonl(path))
    assert str(info.value) == f"{path}: no records found (empty input); nothing to score"


def test_a_presidio_record_with_a_bad_text_gets_no_hint_to_read_it_as_presidio(tmp_path):
    # the record has presidio's shape and is read as presidio: the message names the field
    # and does not suggest the format it is already read with
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"full_text": 5, "spans": []}) + "\n", encoding="utf-8")
    with pytest.raises(InvalidInputError) as info:
        list(read_char_records(path, PRESIDIO_FIELDS))
    assert str(info.value) == f"{path} line 1: field 'full_text' is int, not a string"


# -- scores (semantics §9) -------------------------------------------------------------------

SCORED = [
    {"id": "a", "text": "Ana lives", "spans": [{"start": 0, "end": 3, "label": "P", "score": 0.9}]},
    {"id": "b", "text": "Bo", "spans": [{"start": 0, "end": 2, "label": "P", "confidence": 1}]},
    {"id": "c", "text": "Cy", "spans": [{"start": 0, "end": 2, "label": "P"}]},
    # GLiNER's shape: start, end, text, label, score
    {"text": "Di", "spans": [{"start": 0, "end": 2, "text": "Di", "label": "P", "score": 0.25}]},
]


@pytest.mark.parametrize("standard_road", [False, True])
def test_span_scores_read_on_both_roads(tmp_path, standard_road):
    records = [dict(r, meta={"k": [1]}) for r in SCORED] if standard_road else SCORED
    path = write_jsonl(tmp_path / "p.jsonl", records)
    assert [[s.score for s in r.spans] for r in read_jsonl(path)] == [[0.9], [1.0], [None], [0.25]]
    (chunk,) = char_record_chunks(path, JSONL_FIELDS)
    assert np.array_equal(chunk.score, [0.9, 1.0, np.nan, 0.25], equal_nan=True)


def test_presidio_score_is_read(tmp_path):
    span = {"start_position": 0, "end_position": 2, "entity_type": "P", "score": 0.5}
    path = write_jsonl(tmp_path / "p.json", [{"full_text": "Di", "spans": [span]}])
    assert [s.score for s in next(read_char_records(path, PRESIDIO_FIELDS)).spans] == [0.5]


@pytest.mark.parametrize("score", ['"high"', "true", "1e999"])
def test_a_score_that_is_no_finite_number_is_an_error(tmp_path, score):
    path = tmp_path / "p.jsonl"
    path.write_text(
        '{"text": "Di", "spans": [{"start": 0, "end": 2, "label": "P", "score": ' + score + "}]}\n"
    )
    with pytest.raises(InvalidInputError, match=r"p.jsonl line 1: span #0 score must be"):
        list(read_jsonl(path))


def test_spans_without_scores_carry_no_score_column(tmp_path):
    (chunk,) = char_record_chunks(write_jsonl(tmp_path / "g.jsonl", RECORDS), JSONL_FIELDS)
    assert chunk.score is None


@pytest.mark.parametrize(
    ("result_score", "prediction_score", "expected"),
    [(0.8, 0.3, 0.8), (None, 0.3, 0.3), (None, None, None)],
)
def test_labelstudio_prediction_scores(tmp_path, result_score, prediction_score, expected):
    from collections import Counter

    from spacy_span_eval.readers.labelstudio import read_labelstudio

    result = {"type": "labels", "value": {"start": 0, "end": 2, "labels": ["P"]}}
    if result_score is not None:
        result["score"] = result_score
    prediction = {"result": [result]} | (
        {} if prediction_score is None else {"score": prediction_score}
    )
    task = {
        "id": 1,
        "data": {"text": "Di"},
        "annotations": [{"result": []}],
        "predictions": [prediction],
    }
    path = tmp_path / "ls.json"
    path.write_text(json.dumps([task]))
    (record,) = read_labelstudio(path, ReadingOptions(side="predicted"), Counter())
    assert [s.score for s in record.spans] == [expected]


@pytest.mark.parametrize(
    ("field", "want"),
    [
        ("source", {"g.jsonl:1": "mail", "g.jsonl:3": "(none)", "g.jsonl:4": "7"}),
        ("meta.j", {"g.jsonl:1": "(none)", "g.jsonl:3": "EU", "g.jsonl:4": "(none)"}),
        ("meta.k.l", {"g.jsonl:1": "(none)", "g.jsonl:3": "deep", "g.jsonl:4": "(none)"}),
        ("a.b", {"g.jsonl:1": "dotted key", "g.jsonl:3": "(none)", "g.jsonl:4": "(none)"}),
    ],
)
def test_slice_values_name_documents_as_results_do(tmp_path, field, want):
    lines = [
        {"text": "a", "source": "mail", "a.b": "dotted key"},
        {"text": "b", "meta": {"j": "EU", "k": {"l": "deep"}}},
        {"text": "c", "source": 7, "meta": "not an object"},
    ]
    path = tmp_path / "g.jsonl"
    path.write_text(json.dumps(lines[0]) + "\n\n" + "\n".join(map(json.dumps, lines[1:])) + "\n")
    got = FORMATS["jsonl"].slice_values(path, [field], ReadingOptions())[field]
    assert got == {k: [v] for k, v in want.items()}
    names = [record.key for record in read(path)]
    assert names == list(want)
