"""JSON exports are read or refused, never read as empty (spans under a key a reader does not
read would score as "no gold" with exit 0).

Label Studio's JSON-MIN export, doccano's ``entities`` lists and spaCy's training tuples are
formats of their own, found by shape, read by ``evaluate`` and ``convert`` alike; a record with
spans under any other key, or a file given an ``--input-format`` it is not in, is refused with
exit 2, naming the file, the line or record and the key. The files are hand-written in each
tool's documented shape; the text is "Barack Obama visited Paris." with PER [0, 12) and
LOC [21, 26) (and "Bob ran." with PER [0, 3) where there are two documents).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers.detect import sniff
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.readers.source import read_records

from conftest import cli

TEXT = "Barack Obama visited Paris."
PER = {"start": 0, "end": 12, "text": "Barack Obama", "labels": ["PER"]}
LOC = {"start": 21, "end": 26, "text": "Paris", "labels": ["LOC"]}


def write(path, content):
    path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    return path


def lines(path, *records):
    return write(path, "".join(json.dumps(r) + "\n" for r in records))


def micro(output: str) -> list[str]:
    """The micro row's gold/pred/TP/FN columns of a --wide table."""
    row = output.split(" micro ", 1)[1].split()
    return row[:4]


# A JSON-MIN export: one flat record per task, regions under the labeling config's name.
JSON_MIN = [
    {
        "id": 1,
        "text": TEXT,
        "label": [PER, LOC],
        "annotator": 1,
        "annotation_id": 3,
        "created_at": "2024-05-01T10:00:00.000000Z",
        "updated_at": "2024-05-01T10:00:00.000000Z",
        "lead_time": 4.2,
    },
    {"id": 2, "text": "Bob ran.", "ner": [{"start": 0, "end": 3, "labels": ["PER"]}]},
]


@pytest.mark.parametrize(
    ("name", "content", "fmt", "spans"),
    [
        ("min.json", JSON_MIN, "labelstudio-min", 3),
        (
            "doccano.jsonl",
            [{"id": 1, "text": TEXT, "entities": [[0, 12, "PER"], [21, 26, "LOC"]]}],
            "doccano",
            2,
        ),
        (
            "doccano_v2.jsonl",
            [
                {
                    "id": 7,
                    "text": TEXT,
                    "entities": [
                        {"id": 1, "label": "PER", "start_offset": 0, "end_offset": 12},
                        {"id": 2, "label": "LOC", "start_offset": 21, "end_offset": 26},
                    ],
                    "relations": [],
                }
            ],
            "doccano",
            2,
        ),
        (
            "train.jsonl",
            [
                [TEXT, {"entities": [[0, 12, "PER"], [21, 26, "LOC"]]}],
                ["Bob ran.", {"entities": [[0, 3, "PER"]]}],
            ],
            "tuples",
            3,
        ),
        (
            "spans.jsonl",
            [{"id": "a", "text": TEXT, "spans": [[0, 12, "PER"], [21, 26, "LOC"]]}],
            "tuples",
            2,
        ),
    ],
)
def test_each_export_is_found_by_shape_and_every_span_scored(tmp_path, name, content, fmt, spans):
    path = tmp_path / name
    path = lines(path, *content) if name.endswith("l") else write(path, content)
    assert sniff(path) == fmt
    code, out = cli("evaluate", path, path, "--wide")
    assert code == 0, out
    assert f"({fmt}, {spans} spans" in out
    assert micro(out) == [str(spans), str(spans), str(spans), "0"]
    code, out = cli("convert", path, tmp_path / "out.spacy")
    assert code == 0, out
    assert f"{spans} spans" in out


def test_training_tuples_in_one_json_array_are_read_too(tmp_path):
    path = write(
        tmp_path / "train.json",
        [[TEXT, {"entities": [[0, 12, "PER"]], "cats": {"news": 1.0}}], ["Bob ran.", {}]],
    )
    assert sniff(path) == "tuples"
    code, out = cli("evaluate", path, path)
    assert code == 0, out
    assert "(tuples, 1 span)" in out
    assert "cats ignored 1" in out


def test_json_min_regions_under_two_keys_are_refused(tmp_path):
    record = {"id": 1, "text": TEXT, "person": [PER], "place": [LOC]}
    path = write(tmp_path / "min.json", [record])
    code, out = cli("evaluate", path, path, "--input-format", "labelstudio-min")
    assert code == 2
    assert "min.json line 1: 2 keys hold regions ('person', 'place')" in out


@pytest.mark.parametrize("fmt", ["labelstudio", "labelstudio-min"])
def test_label_studio_errors_name_the_line_a_record_starts_on(tmp_path, fmt):
    """An indented JSON array (as Label Studio writes it): the bad record is the second, on
    the line its object opens on, not "record N" or "task N" for a line number."""
    good = {"id": 1, "text": TEXT, "label": [PER]}
    bad = {"id": 2, "text": TEXT, "person": [PER], "place": [LOC]}
    if fmt == "labelstudio":
        good, bad = {"id": 1, "data": {"text": TEXT}}, {"data": "not an object"}
    path = write(tmp_path / "x.json", json.dumps([good, bad], indent=2))
    opens = json.dumps([good, bad], indent=2).splitlines().index("  {", 2) + 1
    code, out = cli("evaluate", path, path, "--input-format", fmt)
    assert code == 2, out
    assert f"x.json line {opens}: " in out, out


SPAN_FORMS = {
    "objects": [{"start": 0, "end": 12, "label": "PER"}],
    "offsets": [{"start_offset": 0, "end_offset": 12, "label": "PER"}],
    "regions": [PER],
    "lists": [[0, 12, "PER"]],
    "nested": {"entities": [[0, 12, "PER"]]},
}


@pytest.mark.parametrize("key", ["label", "entities", "ents", "annotations", "spans", "anything"])
@pytest.mark.parametrize("form", list(SPAN_FORMS))
@pytest.mark.parametrize("fmt", ["jsonl", "presidio", "prodigy", "doccano", "labelstudio-min"])
def test_spans_under_a_key_the_reader_does_not_read_are_refused(tmp_path, key, form, fmt):
    text_key = "full_text" if fmt == "presidio" else "text"
    record = {"id": "d1", text_key: TEXT, key: SPAN_FORMS[form]}
    if fmt == "doccano" and key in ("label", "entities"):
        record = {**record, key: [], "extra": SPAN_FORMS[form]}
        key = "extra"
    own = key == "spans" and fmt in ("jsonl", "presidio", "prodigy")
    if (own and form in ("objects", "regions")) or (fmt == "labelstudio-min" and form == "regions"):
        return  # the reader's own key and shape (JSON-MIN's regions are under any key)
    path = lines(tmp_path / "data.jsonl", {"id": "d0", text_key: "x"}, record)
    code, out = cli("evaluate", path, path, "--input-format", fmt)
    assert code == 2, out
    assert "data.jsonl" in out and ("line 2" in out or "record 2" in out), out
    if not own:  # (under its own key, the reader refuses the span as it is)
        assert f"the key {key!r} holds spans" in out


@pytest.mark.parametrize(
    ("fmt", "keys", "values"),
    [
        ("doccano", ("label", "entities"), ([[0, 12, "PER"]], [[21, 26, "LOC"]])),
        ("doccano", ("label", "entities"), ([], [[21, 26, "LOC"]])),
        ("doccano", ("label", "entities"), ([[0, 12, "PER"]], [])),
        ("doccano", ("label", "entities"), ([[0, 12, "PER"]], None)),
        ("tuples", ("spans", "entities"), ([[0, 12, "PER"]], [[21, 26, "LOC"]])),
        ("tuples", ("spans", "entities"), ([[0, 12, "PER"]], [])),
        ("tuples", ("spans", "entities"), (None, [[21, 26, "LOC"]])),
    ],
)
def test_a_record_with_both_span_keys_is_refused_naming_the_line_and_both(
    tmp_path, fmt, keys, values
):
    """Read from one key, the other's spans (or its absence of them) would be lost."""
    record = {"id": "d1", "text": TEXT, **dict(zip(keys, values, strict=True))}
    path = lines(tmp_path / "x.jsonl", {"id": "d0", "text": "x"}, record)
    code, out = cli("evaluate", path, path, "--input-format", fmt)
    assert code == 2, out
    assert f"x.jsonl line 2: the record has both {keys[0]!r} and {keys[1]!r}" in out, out


def test_a_file_given_another_format_is_refused_with_the_format_it_looks_like(tmp_path):
    path = write(tmp_path / "min.json", JSON_MIN)
    code, out = cli("evaluate", path, path, "--input-format", "labelstudio")
    assert code == 2
    assert "min.json line 1" in out
    assert "--input-format labelstudio-min" in out
    code, out = cli("convert", path, tmp_path / "o.spacy", "--input-format", "jsonl")
    assert code == 2
    assert "the key 'label' holds spans" in out
    assert not (tmp_path / "o.spacy").exists()


def test_offsets_without_a_label_are_not_spans(tmp_path):
    """spaCy-style tokens carry start/end but no label: read past, not refused."""
    record = {
        "text": "Bob ran.",
        "tokens": [{"text": "Bob", "start": 0, "end": 3, "id": 0}],
        "spans": [{"start": 0, "end": 3, "label": "PER"}],
        "meta": {"source": "hand"},
    }
    path = lines(tmp_path / "t.jsonl", record)
    code, out = cli("evaluate", path, path)
    assert code == 0, out
    assert "(jsonl, 1 span)" in out


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ('{"text": "ab", "spans": [], "spans": []}\n', "given twice"),
        ('{"text": "a\\ud800", "spans": []}\n', "lone surrogate"),
        ('{"text": "ab", "ents": [[0, 1, "X"]], "ents": []}\n', "given twice"),
    ],
)
def test_repeated_keys_and_lone_surrogates_are_still_refused(tmp_path, content, why):
    path = write(tmp_path / "bad.jsonl", content)
    code, out = cli("evaluate", path, path)
    assert code == 2
    assert "bad.jsonl line 1" in out and why in out


# -- bad bytes --------------------------------------------------------------------------------

FUZZ = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
leaves = st.none() | st.booleans() | st.integers(-2, 30) | st.text(max_size=6)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    *("text", "label", "labels", "start", "end", "entities", "id", "spans"),
                    *("data", "annotations", "predictions", "result", "value", "type", "answer"),
                    *("start_offset", "end_offset", "_annotator_id", "_view_id", "model_version"),
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=10,
)


READABLE = {"text": "Bob", "spans": [{"start": 0, "end": 3, "label": "PER"}]}


@FUZZ
@given(
    fmt=st.sampled_from(["labelstudio-min", "tuples", "doccano", "prodigy", "labelstudio", None]),
    records=st.lists(values, max_size=3),
    cut=st.integers(0, 400),
    junk=st.binary(max_size=6),
)
# bytes that leave the records readable: a blank line, a space, a byte order mark
@example(fmt=None, records=[READABLE], cut=0, junk=b"\n")
@example(fmt=None, records=[READABLE], cut=0, junk=b" ")
@example(fmt=None, records=[READABLE], cut=0, junk=b"\xef\xbb\xbf")
def test_the_json_readers_fed_bad_bytes_exit_2_with_a_message_or_0_if_they_still_read(
    tmp_path, fmt, records, cut, junk
):
    data = "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")
    raw = data[:cut] + junk + data[cut:]
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(raw)
    code, out = cli("evaluate", path, path, *(("--input-format", fmt) if fmt else ()))
    assert code in (0, 2), out
    if code == 2:
        assert "✘" in out or "Error" in out
    else:
        # a clean exit only where the bytes are still records: UTF-8 text (a byte order mark
        # allowed), one JSON value on each line that is not blank
        lines = raw.decode("utf-8-sig").split("\n")
        assert [json.loads(line) for line in lines if line.strip()], out
        assert "micro" in out, out


def test_a_training_tuple_with_spans_under_a_key_it_does_not_read_is_refused(tmp_path):
    path = lines(tmp_path / "t.jsonl", [TEXT, {"entities": [], "spans": [[0, 12, "PER"]]}])
    code, out = cli("evaluate", path, path, "--input-format", "tuples")
    assert code == 2, out
    assert "the key 'spans' holds spans, and the tuples reader does not read 'spans'" in out


@pytest.mark.parametrize("side", ["gold", "predicted"])
def test_a_training_tuple_span_past_the_text_is_refused_naming_its_side(tmp_path, side):
    good = lines(tmp_path / "good.jsonl", ["Bob ran.", {"entities": [[0, 3, "PER"]]}])
    bad = lines(tmp_path / "bad.jsonl", ["Bob ran.", {"entities": [[0, 30, "PER"]]}])
    code, out = cli("evaluate", *((bad, good) if side == "gold" else (good, bad)))
    assert code == 2, out
    assert f"{side} span #0 (0, 30, 'PER'): end is past the end of the document (8)" in out


def test_one_training_tuple_on_one_line_is_one_document(tmp_path):
    path = write(tmp_path / "one.jsonl", json.dumps(["Bob ran.", {"entities": [[0, 3, "PER"]]}]))
    assert sniff(path) == "tuples"
    code, out = cli("evaluate", path, path)
    assert code == 0, out
    assert "(tuples, 1 span)" in out


@pytest.mark.parametrize(
    ("record", "looks"),
    [
        ({"data": {"text": TEXT}, "annotations": []}, "labelstudio"),
        ([TEXT, {"entities": [[0, 12, "PER"]]}], "tuples"),
        ({"full_text": TEXT, "spans": []}, "presidio"),
    ],
)
def test_generic_records_given_another_tools_file_name_the_format(tmp_path, record, looks):
    path = lines(tmp_path / "x.jsonl", record, record)
    code, out = cli("evaluate", path, path, "--input-format", "jsonl")
    assert code == 2
    assert "x.jsonl line 1" in out
    assert f"read it with --input-format {looks}" in out


REPEATED = {
    "prodigy": '{"text": "ab", "answer": "accept", "spans": [], "spans": []}',
    "doccano": '{"text": "ab", "label": [], "label": [[0, 1, "X"]]}',
    "labelstudio-min": '{"text": "ab", "id": 1, "id": 2}',
    "labelstudio": '{"data": {"text": "ab"}, "annotations": [], "annotations": []}',
    "tuples": '["ab", {"entities": [], "entities": [[0, 1, "X"]]}]',
}
SURROGATE = {
    "prodigy": '{"text": "a\\udc00", "answer": "accept", "spans": []}',
    "doccano": '{"text": "a\\udc00", "label": []}',
    "labelstudio-min": '{"text": "a\\udc00", "id": 1}',
    "labelstudio": '{"data": {"text": "a\\udc00"}, "annotations": [{"result": []}]}',
    "tuples": '["a\\udc00", {"entities": []}]',
}


@pytest.mark.parametrize("fmt", list(REPEATED))
@pytest.mark.parametrize("surrogate", [False, True])
def test_the_tools_readers_refuse_repeated_keys_and_lone_surrogates(tmp_path, fmt, surrogate):
    record = (SURROGATE if surrogate else REPEATED)[fmt]
    path = write(tmp_path / "bad.jsonl", record + "\n")
    code, out = cli("evaluate", path, path, "--input-format", fmt)
    assert code == 2, out
    assert "bad.jsonl line 1" in out
    assert ("lone surrogate" if surrogate else "given twice") in out


@st.composite
def documents(draw):
    docs = []
    for i in range(draw(st.integers(1, 4))):
        text = draw(st.text(st.sampled_from("ab é\n🙂"), min_size=1, max_size=20))
        spans = []
        for _ in range(draw(st.integers(0, 3))):
            start = draw(st.integers(0, len(text) - 1))
            end = draw(st.integers(start + 1, len(text)))
            spans.append((start, end, draw(st.sampled_from(["PER", "LOC"]))))
        docs.append((f"d{i}", text, spans))
    return docs


def utf16(text, i):
    return len(text[:i].encode("utf-16-le")) // 2


WRITERS = {
    "labelstudio-min": lambda i, t, spans: {
        "id": i,
        "text": t,
        "label": [
            {"start": utf16(t, s), "end": utf16(t, e), "text": t[s:e], "labels": [lab]}
            for s, e, lab in spans
        ],
    },
    "doccano": lambda i, t, spans: {"id": i, "text": t, "entities": [list(s) for s in spans]},
    "tuples": lambda i, t, spans: [t, {"id": i, "entities": [list(s) for s in spans]}],
}


@FUZZ
@given(docs=documents(), fmt=st.sampled_from(list(WRITERS)), array=st.booleans())
def test_every_span_written_in_each_new_shape_is_read_back(tmp_path, docs, fmt, array):
    from collections import Counter

    from spacy_span_eval.readers.options import ReadingOptions
    from spacy_span_eval.readers.source import read_records

    rows = [WRITERS[fmt](*doc) for doc in docs]
    path = write(tmp_path / "x.json", rows) if array else lines(tmp_path / "x.jsonl", *rows)
    if any(spans for _, _, spans in docs):  # (a file without spans has no one shape)
        assert sniff(path) == fmt
    notes: Counter = Counter()
    got = {
        r.id: sorted((s.start, s.end, s.label) for s in r.spans)
        for r in read_records(path, None, ReadingOptions(), notes)
    }
    assert got == {i: sorted(spans) for i, _, spans in docs}
    assert not notes


def test_a_first_record_without_spans_does_not_decide_the_format(tmp_path):
    path = write(tmp_path / "min.json", [{"id": 0, "text": "Nothing here."}, *JSON_MIN])
    assert sniff(path) == "labelstudio-min"
    code, out = cli("evaluate", path, path)
    assert code == 0, out
    assert "(labelstudio-min, 3 spans" in out


HINT = "give --input-format for the tool that wrote the file"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '["Ada", {"entities": [[0, 3, "PER"]]}]\n["Bob", [1]]\n',
            'line 2: a training tuple is ["text", {"entities": [...]}], and its second item '
            "is list",
        ),
        (
            '["\\ud800", {"entities": []}]\n',
            "line 1: invalid JSON: the text holds a lone surrogate escape (\\ud800-\\udfff "
            "without its pair), which is no character",
        ),
        (
            '["Ada", {"entities": [], "id": [[0, 3, "X"]]}]\n',
            "line 1: field 'id' must be a string or an integer, not [[0, 3, 'X']]",
        ),
        (
            '{"text": "Ada", "id": [[0, 3, "X"]], "spans": []}\n',
            "line 1: field 'id' must be a string or an integer, not [[0, 3, 'X']]",
        ),
        (
            '["Ada", {"entities": [], "spans": [[0, 3, "X"]]}]\n',
            "line 1: the key 'spans' holds spans, and the tuples reader does not read 'spans'; "
            f"they would be read as nothing ({HINT})",
        ),
        (
            '{"text": 5, "spans": [[0, 3, "X"]]}\n',
            f"line 1: field 'text' is missing or not a string; {HINT}",
        ),
        (
            '{"text": "Ada", "labels": [[0, 3, "X"]]}\n',
            "line 1: the key 'labels' holds spans, and the tuples reader does not read 'labels'; "
            f"they would be read as nothing ({HINT})",
        ),
        (
            '{"text": "Ada", "spans": [], "entities": []}\n',
            "line 1: the record has both 'spans' and 'entities'; a tuples record keeps its "
            "spans under one of them",
        ),
        (
            "5\n",
            'line 1: expected ["text", {"entities": [...]}] or an object with "text", found '
            f"int; {HINT}",
        ),
        (
            '{"text": "Ada", "spans": [[0, 3, "X"], [0, 3]]}\n',
            'line 1: spans #1 must be [start, end, "LABEL"], not [0, 3]',
        ),
        ('{"text": "Ada", "spans": 5}\n', "line 1: field 'spans' must be a list of spans"),
        (
            '{"text": "Ada", "spans": [[0, 3, "X"]]}\n{"text": "Bob", "spans": [[0, 9, "X"]]}\n',
            "line 2: document 't.jsonl:2', predicted span #0 (0, 9, 'X'): end is past the end "
            "of the document (3)",
        ),
    ],
)
def test_a_bad_tuples_record_is_refused_naming_the_line_and_field(tmp_path, content, message):
    path = write(tmp_path / "t.jsonl", content)
    with pytest.raises(InvalidInputError) as exc:
        list(read_records(path, "tuples", ReadingOptions(side="predicted")))
    assert str(exc.value) == f"{path} {message}"
