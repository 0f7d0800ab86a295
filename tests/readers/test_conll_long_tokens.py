"""Tokens and tags of any length are read in time linear in their bytes (semantics §7's line
bound is far above them): a megabyte-long token is compared, and a megabyte-long tag interned,
in one pass over its bytes, not one pass over every token per 8 bytes of the longest."""

from __future__ import annotations

import time

import pytest

from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers.conll_columns import conll_pair_batches

MB = 1 << 20


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def spans(batch) -> list[tuple[int, int, int, str]]:
    cols = batch.gold
    return [
        (int(d), int(s), int(e), batch.labels[int(x)])
        for d, s, e, x in zip(cols.doc, cols.start, cols.end, cols.label, strict=True)
    ]


def test_megabytes_long_token_and_tag_are_read_in_well_under_a_second(tmp_path):
    token, tag = "a" * (4 * MB), "L" * (4 * MB)
    text = f"{token} B-{tag}\nb I-{tag}\n\nc B-PER\nd O\n"
    gold, pred = write(tmp_path, "gold.conll", text), write(tmp_path, "pred.conll", text)
    t0 = time.perf_counter()
    (batch,) = conll_pair_batches(gold, pred)
    assert time.perf_counter() - t0 < 1.0  # a few hundredths; word by word it took seconds
    assert spans(batch) == [(0, 0, 2, tag), (1, 0, 1, "PER")]
    assert len(batch.tokens[0][0]) == 4 * MB


@pytest.mark.parametrize("at", [0, 100, MB - 1])
def test_a_megabyte_token_that_differs_at_one_byte_is_a_text_difference(tmp_path, at):
    token = "a" * MB
    other = token[:at] + "b" + token[at + 1 :]
    gold = write(tmp_path, "gold.conll", f"{token} B-PER\n")
    pred = write(tmp_path, "pred.conll", f"{other} B-PER\n")
    with pytest.raises(InvalidInputError, match="texts differ"):
        list(conll_pair_batches(gold, pred))


def test_long_tags_that_differ_past_their_first_words_are_two_labels(tmp_path):
    one, two = "X" * 200 + "1", "X" * 200 + "2"
    text = f"a B-{one}\nb O\n\nc B-{two}\nd B-{one}\n"
    path = write(tmp_path, "gold.conll", text)
    (batch,) = conll_pair_batches(path, path)
    assert [label for *_, label in spans(batch)] == [one, two, one]
