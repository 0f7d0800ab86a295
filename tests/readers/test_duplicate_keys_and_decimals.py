"""A key given twice is an error naming the file, the key and its line, never "the last one
wins" (semantics §7): in floors files and label maps (JSON, YAML, ``.cfg``) and in JSON data
records, on the typed fast road and the reference road alike. And a floor is the decimal
written in every settings format, to the last digit (semantics §6)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spacy_span_eval.readers.settings_files import load_floors

from conftest import cli, jsonl

DOC = {"text": "Bob met Ann.", "spans": [{"start": 0, "end": 3, "label": "PER"}]}


@pytest.fixture
def pair(tmp_path):
    g, p = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    g.write_text(jsonl(DOC))
    p.write_text(jsonl(DOC))
    return str(g), str(p)


# -- settings files ---------------------------------------------------------------------------

FLOORS_TWICE = {
    # name: (text, the key named, its line)
    "floors.json": (
        '{"floors": {\n  "PER": {"recall": 0.99},\n  "PER": {"recall": 0.1}\n}}\n',
        "PER",
        3,
    ),
    "inner.json": ('{"floors": {"PER": {\n  "recall": 0.99,\n  "recall": 0.1}}}\n', "recall", 3),
    "floors.yaml": ("floors:\n  PER: {recall: 0.99}\n  PER: {recall: 0.1}\n", "PER", 3),
    "inner.yaml": ("floors:\n  PER:\n    recall: 0.99\n    recall: 0.1\n", "recall", 4),
    "floors.cfg": (
        "[floors]\n\n[floors.PER]\nrecall = 0.99\n\n[floors.PER]\nrecall = 0.1\n",
        "[floors.PER]",
        6,
    ),
    "inner.cfg": ("[floors]\n\n[floors.PER]\nrecall = 0.99\nrecall = 0.1\n", "recall", 5),
}


@pytest.mark.parametrize("name", list(FLOORS_TWICE))
def test_a_floor_given_twice_is_refused_naming_file_key_and_line(pair, tmp_path, name):
    text, key, line = FLOORS_TWICE[name]
    floors = tmp_path / name
    floors.write_text(text)
    code, out = cli("gate", *pair, "--floors", floors)
    assert code == 2, out  # (JSON: the last PER won, recall 0.1, and the gate passed)
    assert f"{floors} line {line}:" in out and "given twice" in out, out
    assert (repr(key) if not key.startswith("[") else key) in out, out


def test_an_inline_object_in_a_cfg_value_with_a_key_twice_is_refused(pair, tmp_path):
    floors = tmp_path / "floors.cfg"
    floors.write_text('[floors]\nPER = {"recall": 0.99, "recall": 0.1}\n')
    code, out = cli("gate", *pair, "--floors", floors)
    assert code == 2 and f"{floors} [floors] PER: the key 'recall' is given twice" in out, out


@pytest.mark.parametrize(
    "name, text, line",
    [
        ("map.json", '{"PER": "PERSON",\n "PER": "LOC"}', 2),
        ("map.yaml", "PER: PERSON\nPER: LOC\n", 2),
        ("map.cfg", '[label_map]\nPER = "PERSON"\nPER = "LOC"\n', 3),
    ],
)
def test_a_label_map_alias_given_twice_is_refused(pair, tmp_path, name, text, line):
    path = tmp_path / name
    path.write_text(text)
    code, out = cli("evaluate", *pair, "--label-map", path)
    assert code == 2 and f"{path} line {line}:" in out and "'PER'" in out, out
    assert "given twice" in out, out


def recall_95(tmp_path):
    """20 gold PER spans, 19 found: recall exactly 19/20 = 0.95."""
    gold = [
        {"id": str(i), "text": "Bob met Ann.", "spans": [{"start": 0, "end": 3, "label": "PER"}]}
        for i in range(20)
    ]
    pred = [dict(d, spans=d["spans"] if i else []) for i, d in enumerate(gold)]
    g, p = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    g.write_text(jsonl(*gold))
    p.write_text(jsonl(*pred))
    return str(g), str(p)


FLOOR = "0.950000000000000000001"  # just above 19/20; a float reads it as 0.95


@pytest.mark.parametrize(
    "name, text",
    [
        ("floors.json", f'{{"floors": {{"PER": {{"recall": {FLOOR}}}}}}}'),
        ("floors.yaml", f"floors:\n  PER:\n    recall: {FLOOR}\n"),
        ("floors.cfg", f"[floors]\n\n[floors.PER]\nrecall = {FLOOR}\n"),
        ("inline.cfg", f'[floors]\nPER = {{"recall": {FLOOR}}}\n'),
    ],
)
def test_a_floor_is_the_decimal_written_in_every_format(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    (floor,) = load_floors(path).floors
    assert floor.recall == Decimal(FLOOR) and str(floor.recall) == FLOOR
    # recall 19/20 = 0.95 is below the floor as written (a float floor would let it pass).
    code, out = cli("gate", *recall_95(tmp_path), "--floors", path, "-s", "exact")
    assert code == 1 and f"PER recall 0.9500 < floor {FLOOR}" in out, out


def test_yaml_numbers_that_are_not_decimals_keep_their_meaning(tmp_path):
    path = tmp_path / "floors.yaml"
    path.write_text("floors:\n  PER: {recall: .5, precision: 1e-1, min_support: 3}\n")
    (floor,) = load_floors(path).floors
    assert (floor.recall, floor.precision, floor.min_support) == (Decimal("0.5"), Decimal("0.1"), 3)
    path.write_text("floors:\n  PER: {recall: .nan}\n")
    code, out = cli("gate", *recall_95(tmp_path), "--floors", path)
    assert code == 2 and "must be a number in [0, 1]" in out, out


# -- JSON data records ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "record, key",
    [
        (
            '{"text": "Bob met Ann.", "spans": [{"start": 0, "end": 3, '
            '"label": "PER", "label": "LOC"}]}',
            "label",
        ),
        (
            '{"text": "Bob met Ann.", "spans": [], '
            '"spans": [{"start": 0, "end": 3, "label": "PER"}]}',
            "spans",
        ),
        ('{"id": "a", "text": "Bob met Ann.", "id": "b", "spans": []}', "id"),
        # a field the reader skips, and a key spelt with an escape
        ('{"text": "Bob met Ann.", "spans": [], "meta": {"source": 1, "source": 2}}', "source"),
        ('{"text": "Bob met Ann.", "spans": [], "meta": {"s\\u006frt": 1, "sort": 2}}', "sort"),
    ],
)
def test_a_jsonl_record_with_a_key_twice_is_refused(tmp_path, record, key):
    good = json.dumps(DOC)
    path, pred = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    path.write_text(f"{good}\n{good}\n{record}\n{good}\n")
    pred.write_text(path.read_text())
    code, out = cli("evaluate", path, pred)
    assert code == 2 and f"{path} line 3:" in out, out
    assert f"the key {key!r} is given twice" in out, out


def test_presidio_json_with_a_key_twice_names_the_line_of_the_second(tmp_path):
    records = [
        {
            "full_text": "Bob met Ann.",
            "spans": [{"entity_type": "PER", "start_position": 0, "end_position": 3}],
        }
    ] * 3
    text = json.dumps(records, indent=2)
    lines = text.splitlines()
    at = max(i for i, ln in enumerate(lines) if '"entity_type"' in ln)
    lines.insert(at + 1, '          "entity_type": "LOC",')
    path = tmp_path / "gold.json"
    path.write_text("\n".join(lines) + "\n")
    code, out = cli("evaluate", path, path, "--input-format", "presidio")
    assert code == 2 and f"{path} line {at + 2}:" in out, out
    assert "the key 'entity_type' is given twice" in out, out


def test_the_rest_of_a_long_file_is_checked_too(tmp_path):
    """Past the first chunk (4 MiB), on the typed road, and split among workers."""
    good = json.dumps(dict(DOC, text="Bob met Ann. " * 40))
    n = 12_000
    bad = good.replace('"label": "PER"', '"label": "PER", "label": "LOC"')
    body = [good] * n
    body[n - 5] = bad
    path = tmp_path / "gold.jsonl"
    path.write_text("\n".join(body) + "\n")
    assert path.stat().st_size > 5 << 20
    for extra in ((), ("--n-process", "2")):
        code, out = cli("evaluate", path, path, *extra)
        assert code == 2 and f"{path} line {n - 4}:" in out and "'label' is given twice" in out, out


def test_tool_exports_with_a_key_twice_are_refused(tmp_path):
    prodigy = tmp_path / "prodigy.jsonl"
    prodigy.write_text(
        '{"text": "Bob met Ann.", "answer": "accept", "answer": "reject",'
        ' "spans": [{"start": 0, "end": 3, "label": "PER"}]}\n'
    )
    code, out = cli("evaluate", prodigy, prodigy, "--input-format", "prodigy")
    assert code == 2 and f"{prodigy} line 1:" in out and "'answer' is given twice" in out, out


# -- the scan that sends a chunk to the reference road ----------------------------------------

keys = st.sampled_from(["a", "b", "ab", "text", "spans", "x" * 9, "x" * 10, 'q"', "é", "\\"])
scalars = st.one_of(st.integers(), st.text(alphabet='ab:{}[],"\\ \n', max_size=6), st.none())


def pairs_json(value) -> str:
    """JSON text of nested ``("obj", [(key, value), ...])`` / lists / scalars, keys repeated
    as drawn (so some objects have a key twice)."""
    if isinstance(value, tuple):
        return "{" + ", ".join(f"{json.dumps(k)}: {pairs_json(v)}" for k, v in value[1]) + "}"
    if isinstance(value, list):
        return "[" + ",".join(pairs_json(v) for v in value) + "]"
    return json.dumps(value)


values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(st.tuples(keys, inner), max_size=4).map(lambda ps: ("obj", ps)),
    ),
    max_leaves=12,
)


@given(st.lists(values.map(lambda v: ("obj", [("k", v)])), min_size=1, max_size=4))
def test_the_scan_never_misses_a_key_given_twice(records):
    from spacy_span_eval.readers.json_scan import may_repeat_keys
    from spacy_span_eval.readers.jsonio import unique_keys

    body = ("[" + ",".join(pairs_json(r) for r in records) + "]").encode()
    try:
        json.loads(body, object_pairs_hook=unique_keys)
    except ValueError:
        assert may_repeat_keys(body)


@given(st.lists(values.map(lambda v: ("obj", [("k", v)])), min_size=1, max_size=4))
def test_the_array_scan_never_misses_a_key_given_twice(records):
    """A JSON array's chunk is checked from the marks its element scan found."""
    from spacy_span_eval.readers.json_scan import scan_array as _scan_array
    from spacy_span_eval.readers.jsonio import unique_keys

    body = ("[" + ",\n ".join(pairs_json(r) for r in records) + "]").encode()
    try:
        json.loads(body, object_pairs_hook=unique_keys)
    except ValueError:
        # the body is one whole, well-formed array, so the scan always finds its elements
        scan = _scan_array(body, 1, True)
        assert scan is not None
        assert scan[4]()


@pytest.mark.parametrize(
    "body",
    [
        b'[][{"text": "x"}]]',  # a JSON Lines chunk whose first line is "][...": closed at once
        b'[{"a": 1}]{"b": 2}]',
    ],
)
def test_the_scan_answers_for_a_body_that_is_no_json(body):
    """The answer is trusted only for valid JSON, but it is an answer, not an exception."""
    from spacy_span_eval.readers.json_scan import may_repeat_keys

    assert may_repeat_keys(body) in (True, False)


def test_the_scan_lets_ordinary_records_through():
    from spacy_span_eval.readers.json_scan import may_repeat_keys
    from spacy_span_eval.readers.json_scan import scan_array as _scan_array

    body = ("[" + ",".join([json.dumps(DOC)] * 50) + "]").encode()
    assert not may_repeat_keys(body)
    assert not _scan_array(body, 1, True)[4]()
