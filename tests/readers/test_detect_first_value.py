"""Format detection reads only the head of a JSON file (``detect.first_value``): the same
first record as the readers' own chunked decoding, on any bytes."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers import detect
from spacy_span_eval.readers.jsonio import iter_json_values


def reference_first(path):
    """What detection used to do: the first value the readers yield (``None``: none)."""
    return next(iter(iter_json_values(path)), (0, None))[1]


records = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
layouts = st.sampled_from(["array", "array-indented", "lines", "lines-blank-first"])


def write(path, values, layout, bom):
    if layout == "array":
        text = json.dumps(values, ensure_ascii=False)
    elif layout == "array-indented":
        text = "\n  " + json.dumps(values, indent=4, ensure_ascii=False)
    elif layout == "lines":
        text = "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in values)
    else:
        text = "\n \n" + "".join(json.dumps(v, ensure_ascii=False) + "\r\n" for v in values)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))


LOOSE = [HealthCheck.function_scoped_fixture]


@settings(max_examples=150, deadline=None, suppress_health_check=LOOSE)
@given(values=st.lists(records, max_size=4), layout=layouts, bom=st.booleans())
def test_first_value_is_the_readers_first_value(tmp_path, values, layout, bom):
    path = tmp_path / "records.json"
    write(path, values, layout, bom)
    try:
        expected = reference_first(path)
    except InvalidInputError:  # (JSON Lines whose first line is an array: read as an array)
        assert detect.record_format(path) == "jsonl"
        return
    assert detect.first_value(path) == expected


def test_a_first_record_longer_than_the_head_is_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(detect, "HEAD_BYTES", 16)
    path = tmp_path / "big.json"
    record = {"full_text": "x" * 1000, "spans": [{"start": 0, "end": 3}]}
    path.write_text(json.dumps([record, {"text": "later"}], indent=2))
    assert detect.first_value(path) == record
    assert detect.record_format(path) == "presidio"
    path.write_text("\n".join(json.dumps(r) for r in ([record] * 3)))
    assert detect.first_value(path) == record


@settings(max_examples=300, deadline=None, suppress_health_check=LOOSE)
@given(
    data=st.binary(max_size=64) | st.text(alphabet='[]{}",: \n\rabc0é', max_size=40).map(str.encode)
)
def test_any_bytes_detect_as_before(tmp_path, data):
    """Where the readers fail on the first record, detection says ``jsonl`` (the reader then
    names the problem); elsewhere both see the same record."""
    path = tmp_path / "odd.json"
    path.write_bytes(data)
    try:
        expected = detect.shape(reference_first(path))
    except (InvalidInputError, OSError):
        expected = "jsonl"
    assert detect.record_format(path) == expected


@pytest.mark.parametrize("text", ["", "   \n", "[]", " [ ] "])
def test_empty_files_and_arrays_have_no_first_record(tmp_path, text):
    path = tmp_path / "empty.json"
    path.write_text(text)
    assert detect.first_value(path) is None
    assert detect.record_format(path) == "jsonl"


def test_a_value_nested_too_deeply_is_left_to_the_reader(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert detect.record_format(path) == "jsonl"  # the reader then names file and line
