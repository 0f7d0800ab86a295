"""The chunked JSON readers against the reader they replaced (``json_oracle``), record for record.

Random record files (JSON Lines with blank and CRLF lines, or one array, compact or
indented, with a BOM or not), records valid and invalid in every way the checks know, broken
JSON, and random bytes; chunk sizes down to a few bytes. Same records, same errors. Then
file pairs through ``char_pair_batches`` against the reference route (by id and by position).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from spacy_span_eval import SpanEvaluator
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers import jsonio, jsonl
from spacy_span_eval.readers.align import SideInfo
from spacy_span_eval.readers.char_columns import char_pair_batches
from spacy_span_eval.readers.jsonl import JSONL_FIELDS, PRESIDIO_FIELDS, read_char_records
from spacy_span_eval.readers.pairing import documents, pair_records

import json_oracle

FIELDS = {"jsonl": JSONL_FIELDS, "presidio": PRESIDIO_FIELDS}
SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
TEXT = st.text(st.sampled_from('ab "\\\n\té日\u2028\x00'), min_size=1, max_size=12)
ODD_VALUES = [1.5, True, None, "3", [1], float("nan"), 2**70]


@st.composite
def spans(draw, fields, length):
    out = []
    for _ in range(draw(st.integers(0, 3))):
        if length and draw(st.integers(0, 24)):  # mostly inside the text
            start = draw(st.integers(0, length - 1))
            end = draw(st.integers(start + 1, length))
        else:
            start = draw(st.integers(-1, length + 1))
            end = draw(st.integers(start, length + 2))
        span = {
            fields.start: start,
            fields.end: end,
            fields.label: draw(st.sampled_from(["PER", "PER", "LOC", "DATE_TIME", "é"])),
        }
        if draw(st.integers(0, 60)) == 0:
            span[fields.label] = ""
        if draw(st.integers(0, 30)) == 0:
            span[draw(st.sampled_from([fields.start, fields.end, fields.label]))] = draw(
                st.sampled_from(ODD_VALUES)
            )
        if draw(st.integers(0, 30)) == 0:
            del span[draw(st.sampled_from(list(span)))]
        if draw(st.booleans()):
            span["entity_value"] = "x"
        out.append(span)
    return out


@st.composite
def records(draw, fields):
    text = draw(TEXT)
    record = {fields.text: text}
    if draw(st.integers(0, 3)):
        record[fields.spans] = draw(spans(fields, len(text)))
    kind = draw(st.integers(0, 120))
    if kind == 0:
        return draw(st.sampled_from([[1, 2], "text", 3, None]))
    if kind == 1:
        record[fields.text] = draw(st.sampled_from(ODD_VALUES))
    if kind == 2:
        record[fields.spans] = draw(st.sampled_from([{"a": 1}, "x", None]))
    if kind == 3:
        record["score"] = float("nan")
    return record


@st.composite
def files(draw, fields, ids=None):
    rows = draw(st.lists(records(fields), max_size=8))
    if ids is None:
        ids = draw(st.sampled_from(["none", "str", "int", "some", "none", "str", "odd"]))
    for i, row in enumerate(rows):
        if isinstance(row, dict) and (ids in ("str", "int") or (ids == "some" and i % 2)):
            row[fields.id] = f"d{i}" if ids == "str" else i
        elif isinstance(row, dict) and ids == "odd" and i == 1:
            row[fields.id] = draw(st.sampled_from(ODD_VALUES))
    ascii_only = draw(st.booleans())
    if draw(st.booleans()):
        newline = draw(st.sampled_from(["\n", "\r\n", "\n\n", "\n \n", "\r"]))
        text = newline.join(json.dumps(r, ensure_ascii=ascii_only) for r in rows) + newline
        suffix = ".jsonl"
    else:
        text = json.dumps(
            rows, ensure_ascii=ascii_only, indent=draw(st.sampled_from([None, 0, 2, "\t", 24]))
        )
        if draw(st.booleans()):
            text = text.replace("\n", "\r\n")
        suffix = ".json"
    if draw(st.integers(0, 9)) == 0:  # break it
        at = draw(st.integers(0, len(text)))
        text = (
            text[:at]
            + draw(st.sampled_from(["", ",", "]", "}", "x", "[", '"', "\\"]))
            + text[at + draw(st.integers(0, 2)) :]
        )
    if draw(st.integers(0, 9)) == 0:
        text = "\ufeff" + text
    return text, suffix


def read(module, path, fields, side="gold"):
    out = []
    try:
        for r in module.read_char_records(path, fields, side=side):
            out.append((r.where, r.key, r.id, r.text, r.spans))
    except InvalidInputError as exc:
        out.append(("error", type(exc).__name__, str(exc)))
    return out


def same_outcome(got, want):
    if want and want[-1][0] == "error" and "not UTF-8" in want[-1][2]:
        assert got[:-1] == want[:-1] and got[-1][:2] == want[-1][:2]
        assert "not UTF-8 text (" in got[-1][2]
    else:
        assert got == want


@SETTINGS
@given(
    data=st.data(),
    layout=st.sampled_from(["jsonl", "presidio"]),
    chunk=st.sampled_from([7, 64, 1 << 22]),
)
def test_random_files_read_as_the_old_reader_reads_them(tmp_path, monkeypatch, data, layout, chunk):
    fields = FIELDS[layout]
    text, suffix = data.draw(files(fields))
    path = tmp_path / f"data{suffix}"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    want = read(json_oracle, path, fields)
    monkeypatch.setattr(jsonio, "_CHUNK", chunk)
    same_outcome(read(jsonl, path, fields), want)


@SETTINGS
@given(
    data=st.binary(max_size=200),
    suffix=st.sampled_from([".jsonl", ".json"]),
    head=st.sampled_from([b"", b"[", b'[{"text": "', b"\xef\xbb\xbf"]),
)
@example(data=b"\xef", suffix=".jsonl", head=b"")  # cut inside a BOM: empty, as utf-8-sig reads
def test_bad_bytes_fail_as_the_old_reader_fails(tmp_path, data, suffix, head):
    path = tmp_path / f"bytes{suffix}"
    path.write_bytes(head + data)
    # (Default chunks: the reference decodes 8 KB blocks, and reports an invalid byte before
    # the lines of its block; a chunk of a few bytes would read those lines first.)
    same_outcome(read(jsonl, path, JSONL_FIELDS), read(json_oracle, path, JSONL_FIELDS))


def test_line_numbers_of_a_long_array_are_each_records_first_line(tmp_path, monkeypatch):
    rows = [
        {
            "full_text": f"t{i}\n",
            "spans": [{"entity_type": "X", "start_position": 0, "end_position": 1}] * (i % 3),
        }
        for i in range(3000)
    ]
    path = tmp_path / "synth.json"
    path.write_text(json.dumps(rows, indent=4), encoding="utf-8")
    monkeypatch.setattr(jsonio, "_CHUNK", 4096)
    got = [r.where for r in read_char_records(path, PRESIDIO_FIELDS)]
    lines = path.read_text(encoding="utf-8").split("\n")
    assert len(got) == 3000
    assert all(lines[int(w.rsplit(" ", 1)[1]) - 1] == "    {" for w in got)
    assert [r.where for r in json_oracle.read_char_records(path, PRESIDIO_FIELDS)] == got


# -- pairs ------------------------------------------------------------------------------------


def reference_result(gold, pred, gold_fields, pred_fields, strategy):
    gi, pi = SideInfo(str(gold), "g"), SideInfo(str(pred), "p")
    try:
        pairs = pair_records(
            json_oracle.read_char_records(gold, gold_fields),
            json_oracle.read_char_records(pred, pred_fields, side="predicted"),
            gold_name=str(gold),
            pred_name=str(pred),
        )
        ev = SpanEvaluator(strategy=strategy, max_errors=5)
        docs = documents(pairs, unit="char", gold_info=gi, pred_info=pi)
        return ev.evaluate(docs).to_dict(), gi.to_dict(), pi.to_dict()
    except InvalidInputError as exc:
        return type(exc).__name__, str(exc)


def columnar_result(gold, pred, gold_fields, pred_fields, strategy, batch):
    gi, pi = SideInfo(str(gold), "g"), SideInfo(str(pred), "p")
    try:
        batches = char_pair_batches(
            gold,
            pred,
            gold_fields=gold_fields,
            pred_fields=pred_fields,
            gold_info=gi,
            pred_info=pi,
            batch_size=batch,
        )
        ev = SpanEvaluator(strategy=strategy, max_errors=5)
        return ev.tally_batches(batches).result().to_dict(), gi.to_dict(), pi.to_dict()
    except InvalidInputError as exc:
        return type(exc).__name__, str(exc)


@st.composite
def pair_files(draw):
    rng = random.Random(draw(st.integers(0, 10**6)))
    ids = draw(st.sampled_from(["none", "str", "str", "int", "some"]))
    docs = []
    for i in range(draw(st.integers(1, 10))):
        text = "".join(rng.choice("ab é") for _ in range(rng.randint(0, 12)))
        starts = [rng.randrange(len(text)) for _ in range(rng.randint(0, 3))] if text else []
        gold = sorted(
            {(s, min(len(text), s + rng.randint(1, 4)), rng.choice(["PER", "LOC"])) for s in starts}
        )
        pred = [
            (max(0, s + rng.choice([0, 0, -1])), e, rng.choice([lab, "LOC"]))
            for s, e, lab in gold
            if rng.random() < 0.8
        ]
        docs.append((i, text, gold, pred))
    edits = draw(
        st.lists(
            st.sampled_from(["shuffle", "drop", "text", "dup", "extra", "noid", "bad-span"]),
            max_size=2,
        )
    )
    return rng, ids, docs, edits


def dump(path, rows, fields, ids, as_array):
    out = []
    for i, text, spans in rows:
        row = {
            fields.text: text,
            fields.spans: [
                {fields.start: s, fields.end: e, fields.label: lab} for s, e, lab in spans
            ],
        }
        if ids == "str" or (ids == "some" and i % 2):
            row[fields.id] = f"doc-{i}"
        elif ids == "int":
            row[fields.id] = i
        out.append(row)
    path.write_text(
        json.dumps(out, indent=1) if as_array else "".join(json.dumps(r) + "\n" for r in out),
        encoding="utf-8",
    )


@SETTINGS
@given(
    case=pair_files(),
    layouts=st.sampled_from([("jsonl", "jsonl"), ("presidio", "jsonl"), ("presidio", "presidio")]),
    strategy=st.sampled_from(["exact", "two_sided"]),
    batch=st.sampled_from([1, 4, 4096]),
    arrays=st.tuples(st.booleans(), st.booleans()),
)
def test_pairs_score_and_fail_as_the_reference_route(
    tmp_path, case, layouts, strategy, batch, arrays
):
    rng, ids, docs, edits = case
    gold_rows = [(i, text, gold) for i, text, gold, _ in docs]
    pred_rows = [(i, text, pred) for i, text, _, pred in docs]
    for edit in edits:
        if not pred_rows:
            break
        k = rng.randrange(len(pred_rows))
        i, text, spans = pred_rows[k]
        if edit == "shuffle":
            rng.shuffle(pred_rows)
        elif edit == "drop":
            del pred_rows[k]
        elif edit == "text":
            pred_rows[k] = (i, text + "!", spans)
        elif edit == "dup":
            pred_rows.append(pred_rows[k])
        elif edit == "extra":
            gold_rows.append((len(docs) + 5, "extra", []))
        elif edit == "noid":
            pred_rows[k] = (-1, text, spans)  # -1: no id under "some", odd under "str"
        else:
            pred_rows[k] = (i, text, [*spans, (0, len(text) + 1, "PER")])
    assume(pred_rows)
    gf, pf = FIELDS[layouts[0]], FIELDS[layouts[1]]
    gold, pred = tmp_path / "gold.json", tmp_path / "pred.json"
    dump(gold, gold_rows, gf, ids, arrays[0])
    dump(pred, pred_rows, pf, ids, arrays[1])
    want = reference_result(gold, pred, gf, pf, strategy)
    assume(want[0] != "EmptyEvaluationError")
    assert columnar_result(gold, pred, gf, pf, strategy, batch) == want


def test_a_text_mismatch_names_both_places(tmp_path):
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    gold.write_text('{"text": "Ana in Porto", "spans": []}\n' * 3)
    pred.write_text('{"text": "Ana in Porto", "spans": []}\n' * 2 + '{"text": "Ana in Porta"}\n')
    got = columnar_result(gold, pred, JSONL_FIELDS, JSONL_FIELDS, "exact", 4096)
    assert got == reference_result(gold, pred, JSONL_FIELDS, JSONL_FIELDS, "exact")
    assert got[1].startswith("document 'g.jsonl:3': gold and predicted") and "position 11" in got[1]


@pytest.mark.parametrize(
    "span,why",
    [
        ({"start": 0, "end": 9, "label": "X"}, "past the end"),
        ({"start": 2, "end": 1, "label": "X"}, "inverted"),
        ({"start": 0, "end": 1, "label": ""}, "non-empty"),
    ],
)
def test_the_first_bad_span_is_named_once_checked_as_arrays(tmp_path, span, why):
    path = tmp_path / "pred.jsonl"
    good = {"id": "ok", "text": "abc", "spans": [{"start": 0, "end": 1, "label": "X"}]}
    bad = {
        "id": "d2",
        "text": "abc",
        "spans": [
            {"start": 0, "end": 1, "label": "X"},
            span,
            {"start": -5, "end": 1, "label": "X"},
        ],
    }
    path.write_text("\n".join(json.dumps(r) for r in (good, good | {"id": "x"}, bad)))
    got = read(jsonl, path, JSONL_FIELDS, side="predicted")
    assert got == read(json_oracle, path, JSONL_FIELDS, side="predicted")
    assert len(got) == 3 and got[-1][1] == "InvalidSpanError"
    assert "pred.jsonl line 3: document 'd2', predicted span #1" in got[-1][2]
    assert why in got[-1][2]
