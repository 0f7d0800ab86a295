"""The line bound (semantics §7: a file without line ends is an error naming the line, not a 2 GB
buffer) on the columnar readers too: the CoNLL file pairs of :mod:`.conll_columns` and the
JSON records of :mod:`.jsonio` stop at the same line as the reference readers
(:func:`~spacy_span_eval.readers.base.bounded_lines`), after the same documents. The bound is
lowered here so the files stay small."""

from __future__ import annotations

import json

import pytest

from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers import base, conll_chunks, jsonio, pairing
from spacy_span_eval.readers.char_columns import char_pair_batches
from spacy_span_eval.readers.conll import read_conll
from spacy_span_eval.readers.conll_columns import conll_blocks, conll_pair_batches
from spacy_span_eval.readers.jsonl import read_jsonl

LIMIT = 1000


@pytest.fixture(autouse=True)
def small_bound(monkeypatch):
    for module in (base, conll_chunks, jsonio):
        monkeypatch.setattr(module, "MAX_LINE_CHARS", LIMIT)


def conll_text(long_at_sentence: int, width: int = LIMIT + 5, char: str = "x") -> str:
    """Four sentences of two tokens; the first token of sentence ``long_at_sentence`` (from
    0) is ``width`` characters long."""
    out = []
    for s in range(4):
        token = char * width if s == long_at_sentence else f"w{s}"
        out.append(f"{token} B-PER\nand O\n")
    return "\n".join(out)


def reference(path) -> tuple[int, str]:
    """Records read by the reference reader before its error, and the error."""
    n = 0
    with pytest.raises(InvalidInputError) as info:
        for _ in read_conll(path):
            n += 1
    return n, str(info.value)


def columnar(path, chunk_bytes: int) -> tuple[int, str]:
    n = 0
    for block in conll_blocks(path, chunk_bytes=chunk_bytes):
        n += len(block)
        if block.error is not None:
            return n, str(block.error())
    raise AssertionError("no error")


@pytest.mark.parametrize("chunk_bytes", [16, 64, 1 << 20])
@pytest.mark.parametrize("sentence", [0, 2, 3])
@pytest.mark.parametrize("char", ["x", "é"])
def test_conll_columns_stop_where_the_reference_stops(tmp_path, chunk_bytes, sentence, char):
    path = tmp_path / "long.conll"
    path.write_text(conll_text(sentence, char=char), encoding="utf-8")
    want = reference(path)
    assert want == (
        sentence,
        f"{path} line {3 * sentence + 1}: the line is longer than "
        f"{LIMIT:,} characters; is this a text file of the right format?",
    )
    assert columnar(path, chunk_bytes) == want


def test_a_line_at_the_bound_is_read(tmp_path):
    path = tmp_path / "ok.conll"
    path.write_text(conll_text(1, width=LIMIT - len(" B-PER\n")), encoding="utf-8")
    assert len(list(read_conll(path))) == 4
    assert sum(len(b) for b in conll_blocks(path, chunk_bytes=16)) == 4


def test_a_file_without_line_ends(tmp_path):
    path = tmp_path / "zeros.conll"
    path.write_bytes(b"\0" * (10 * LIMIT))
    assert (
        columnar(path, 64)
        == reference(path)
        == (
            0,
            f"{path} line 1: the line is longer than {LIMIT:,} characters; is this a text "
            "file of the right format?",
        )
    )


def test_conll_pair_raises_what_the_reference_pairing_raises(tmp_path):
    gold, pred = tmp_path / "gold.conll", tmp_path / "pred.conll"
    gold.write_text(conll_text(2), encoding="utf-8")
    pred.write_text(conll_text(1), encoding="utf-8")
    with pytest.raises(InvalidInputError) as ref:
        list(
            pairing.documents(
                pairing.pair_records(
                    read_conll(gold), read_conll(pred), gold_name=str(gold), pred_name=str(pred)
                ),
                unit="token",
            )
        )
    with pytest.raises(InvalidInputError) as got:
        list(conll_pair_batches(gold, pred, chunk_bytes=32))
    assert (
        str(got.value)
        == str(ref.value)
        == (
            f"{pred} line 4: the line is longer than {LIMIT:,} characters; is this a text file "
            "of the right format?"
        )
    )


def records(n: int, long_at: int | None, *, width: int = LIMIT + 5) -> str:
    out = []
    for i in range(n):
        text = "x" * width if i == long_at else f"doc {i}"
        out.append(json.dumps({"id": f"d{i}", "text": text, "spans": []}))
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("chunk", [32, 1 << 22])
@pytest.mark.parametrize("long_at", [0, 3])
def test_json_lines_stop_at_the_long_line(tmp_path, monkeypatch, chunk, long_at):
    monkeypatch.setattr(jsonio, "_CHUNK", chunk)
    path = tmp_path / "long.jsonl"
    path.write_text(records(5, long_at), encoding="utf-8")
    seen = []
    with pytest.raises(InvalidInputError) as info:
        seen.extend(r.id for r in read_jsonl(path))
    assert seen == [f"d{i}" for i in range(long_at)]
    assert str(info.value) == (
        f"{path} line {long_at + 1}: the line is longer than "
        f"{LIMIT:,} characters; is this a text file of the right "
        "format?"
    )
    with pytest.raises(InvalidInputError) as pair:
        list(char_pair_batches(path, path))
    assert str(pair.value) == str(info.value)


def test_json_lines_without_line_ends(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonio, "_CHUNK", 64)
    path = tmp_path / "zeros.jsonl"
    path.write_bytes(b"\0" * (10 * LIMIT))
    with pytest.raises(InvalidInputError, match=r"line 1: the line is longer than 1,000"):
        list(read_jsonl(path))


def test_json_array_element_too_long(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonio, "_CHUNK", 64)
    path = tmp_path / "long.json"
    path.write_text(
        "[\n"
        + json.dumps({"text": "ok", "spans": []})
        + ",\n"
        + json.dumps({"text": "x" * (3 * LIMIT), "spans": []})
        + "\n]\n",
        encoding="utf-8",
    )
    seen = []
    with pytest.raises(InvalidInputError) as info:
        seen.extend(r.text for r in read_jsonl(path))
    assert seen == ["ok"]
    assert str(info.value).startswith(
        f"{path} line 3: the array element is longer than {LIMIT:,} characters"
    )


def test_deep_and_long_numbers_name_the_line_on_the_fast_path(tmp_path, monkeypatch):
    for module in (base, conll_chunks, jsonio):
        monkeypatch.setattr(module, "MAX_LINE_CHARS", 1 << 26)
    path = tmp_path / "bad.jsonl"
    good = json.dumps({"id": "a", "text": "Ana", "spans": []})
    path.write_text(good + "\n" + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    seen = []
    with pytest.raises(InvalidInputError) as info:
        seen.extend(r.id for r in read_jsonl(path))
    assert seen == ["a"]
    assert str(info.value) == f"{path} line 2: invalid JSON: nested too deeply to be read"
    path.write_text(
        good
        + "\n"
        + good
        + "\n"
        + '{"text": "Ana", "spans": [{"start": '
        + "9" * 5000
        + ', "end": 1, "label": "X"}]}\n',
        encoding="utf-8",
    )
    with pytest.raises(
        InvalidInputError,
        match=r"line 3: invalid JSON: a number is too "
        r"long to be read",
    ):
        list(read_jsonl(path))
