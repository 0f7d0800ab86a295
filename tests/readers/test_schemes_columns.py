"""The columnar decoder against the reference decoder and seqeval, on random tag sequences.

``decode_columns`` decodes many sentences at once from prefix codes; ``schemes.decode`` (one
sentence, in Python) is the reference. They must agree on every scheme and repair policy:
same spans, same repaired counts, and the same first error (sentence, token, kind).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from seqeval.metrics.sequence_labeling import get_entities

from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers.schemes import OUTSIDE, REPAIR_POLICIES, SCHEMES, decode, get_scheme
from spacy_span_eval.readers.schemes_columns import (
    INT,
    UNKNOWN_CODE,
    decode_columns,
    scheme_tables,
)

LABELS = ("PER", "LOC", "DATE-TIME")
BAD_TAGS = ("X-PER", "B-", "B", "", "O-PER", "Q", "-PER", "b-PER")


def sentences_for(scheme: str, *, bad: bool) -> st.SearchStrategy[list[list[str]]]:
    tags = ["O", *(f"{p}-{label}" for p in SCHEMES[scheme].prefixes for label in LABELS)]
    tag = (
        st.sampled_from(tags)
        if not bad
        else st.one_of(st.sampled_from(tags), st.sampled_from(BAD_TAGS))
    )
    return st.lists(st.lists(tag, max_size=9), min_size=1, max_size=6)


def run_columns(sentences: list[list[str]], scheme: str, repair: str):
    codes, labels, names = encode_tags([t for s in sentences for t in s], scheme)
    out = decode_columns(codes, labels, [len(s) for s in sentences], scheme=scheme, repair=repair)
    per_sentence = [[] for _ in sentences]
    for s, a, b, k in zip(out.sentence, out.start, out.end, out.label, strict=True):
        per_sentence[int(s)].append((int(a), int(b), names[int(k)]))
    return out, per_sentence


def run_reference(sentences: list[list[str]], scheme: str, repair: str):
    """Spans and repairs of each sentence up to the first that raises, and that error."""
    decoded = []
    for k, tags in enumerate(sentences):
        try:
            decoded.append(decode(tags, scheme=scheme, repair=repair))  # type: ignore[arg-type]
        except InvalidInputError as exc:
            return decoded, (k, exc)
    return decoded, None


def encode_tags(tags: list[str], scheme: str = "IOB2") -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Tag strings as ``(codes, label ids, label names)`` for :func:`decode_columns`: a
    plain loop (the CoNLL reader computes the codes from the file's bytes)."""
    sch = get_scheme(scheme)
    code_of = {p: k for k, p in enumerate(sch.prefixes, 1)}
    names: dict[str, int] = {}
    codes = np.zeros(len(tags), dtype=np.int8)
    labels = np.zeros(len(tags), dtype=INT)
    for i, tag in enumerate(tags):
        if tag == OUTSIDE:
            continue
        prefix, sep, label = tag.partition("-") if isinstance(tag, str) else ("", "", "")
        if not sep or not label or prefix not in code_of:
            codes[i] = UNKNOWN_CODE
            continue
        codes[i] = code_of[prefix]
        labels[i] = names.setdefault(label, len(names))
    return codes, labels, list(names)


@pytest.mark.parametrize("scheme", list(SCHEMES))
@pytest.mark.parametrize("repair", REPAIR_POLICIES)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_columns_equal_the_reference_decoder(scheme, repair, data):
    sentences = data.draw(sentences_for(scheme, bad=data.draw(st.booleans())))
    out, got = run_columns(sentences, scheme, repair)
    want, error = run_reference(sentences, scheme, repair)
    if error is None:
        assert out.error is None
    else:
        k, exc = error
        assert out.error is not None and out.error.sentence == k
        # The reference names the token it stopped at: the tag itself, the token that ends
        # an ill-formed chunk (the one before the event), or the one that begins it.
        named = int(re.search(r"token (\d+)", str(exc)).group(1))
        expected = out.error.index - 1 if out.error.kind == "end" else out.error.index
        assert named == expected
        assert ("has" in str(exc) or "is empty" in str(exc)) == (out.error.kind == "tag")
    for k, decoded in enumerate(want):
        assert got[k] == [(s.start, s.end, s.label) for s in decoded.spans]
        assert int(out.repaired[k]) == decoded.repaired


def seqeval_chunks(tags: list[str], scheme: str) -> list[tuple[int, int, str]]:
    if scheme == "BILOU":  # seqeval's default mode knows S/E, not U/L
        tags = [t if t == "O" else {"U": "S", "L": "E"}.get(t[0], t[0]) + t[1:] for t in tags]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return sorted((first, last + 1, label) for label, first, last in get_entities(tags))


@pytest.mark.parametrize("scheme", list(SCHEMES))
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_conlleval_repair_equals_seqeval_default_mode(scheme, data):
    sentences = data.draw(sentences_for(scheme, bad=False))
    _, got = run_columns(sentences, scheme, "conlleval")
    for tags, spans in zip(sentences, got, strict=True):
        assert sorted(spans) == seqeval_chunks(tags, scheme)


def test_hand_checked_example():
    # IOB2: "B-PER I-PER O I-LOC" has PER [0, 2) and an ill-formed LOC [3, 4) (I- after O);
    # the second sentence "B-LOC B-LOC" has two one-token chunks.
    tags = [["B-PER", "I-PER", "O", "I-LOC"], ["B-LOC", "B-LOC"]]
    codes, labels, names = encode_tags([t for s in tags for t in s], "IOB2")
    assert codes.tolist() == [1, 2, 0, 2, 1, 1] and names == ["PER", "LOC"]
    kept = decode_columns(codes, labels, [4, 2], scheme="IOB2", repair="conlleval")
    assert list(
        zip(
            kept.sentence.tolist(),
            kept.start.tolist(),
            kept.end.tolist(),
            kept.label.tolist(),
            strict=True,
        )
    ) == [(0, 0, 2, 0), (0, 3, 4, 1), (1, 0, 1, 1), (1, 1, 2, 1)]
    assert kept.repaired.tolist() == [1, 0] and kept.error is None
    dropped = decode_columns(codes, labels, [4, 2], scheme="IOB2", repair="discard")
    assert dropped.start.tolist() == [0, 0, 1] and dropped.repaired.tolist() == [1, 0]
    error = decode_columns(codes, labels, [4, 2], scheme="IOB2", repair="error").error
    assert (error.sentence, error.index, error.kind) == (0, 3, "start")


def test_unknown_tag_is_the_first_event_even_before_a_later_ill_formed_chunk():
    codes, labels, _ = encode_tags(["O", "Z-PER", "I-PER", "O"], "IOB2")
    assert codes.tolist() == [0, -1, 2, 0]
    event = decode_columns(codes, labels, [4], scheme="IOB2", repair="error").error
    assert (event.sentence, event.index, event.kind) == (0, 1, "tag")


def test_a_chunk_ill_formed_at_its_end_is_reported_at_the_sentence_end():
    # IOE2: a chunk must end with E-; "I-PER" at the end of sentence 1 ends badly.
    codes, labels, _ = encode_tags(["E-PER", "I-PER"], "IOE2")
    event = decode_columns(codes, labels, [1, 1], scheme="IOE2", repair="error").error
    assert (event.sentence, event.index, event.kind) == (1, 1, "end")


def test_lengths_must_cover_the_tokens():
    with pytest.raises(ValueError, match="add up to 3, not 2"):
        decode_columns(np.zeros(2, dtype=np.int8), np.zeros(2), [3])
    with pytest.raises(ValueError, match="repair"):
        decode_columns(np.zeros(0, dtype=np.int8), np.zeros(0), [], repair="fix")


def test_tables_come_from_the_reference_table():
    tables = scheme_tables("BIOES")  # an alias
    assert type(tables.scheme) is type(SCHEMES["IOBES"]) and tables.n_codes == 5
    assert [chr(b) for b in np.flatnonzero(tables.byte_code > 0)] == ["B", "E", "I", "S"]
    every = ("O", *SCHEMES["IOBES"].prefixes)
    for p, prev in enumerate(every):
        for c, cur in enumerate(every):
            for same in (0, 1):
                i = (p * 5 + c) * 2 + same
                got = (tables.closes[i], tables.close_ok[i], tables.opens[i], tables.open_ok[i])
                assert got == SCHEMES["IOBES"].table[prev, cur, bool(same)]
