"""Tag schemes as values: the whole message of every kind of ill-formed chunk (a chunk begun
or ended with a prefix the scheme does not allow there, or allows only next to a chunk of
the same label), with and without a context; the tags ``encode`` writes for one chunk; and
the cache of parsed tags.

``test_schemes.py`` checks which chunks are ill-formed and parts of the messages; here each
message is written out in full, as a user reads it.
"""

from __future__ import annotations

import pytest

from spacy_span_eval.engine.spans import Span
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers import schemes
from spacy_span_eval.readers.schemes import SCHEMES, Decoded, decode, encode, get_scheme


@pytest.mark.parametrize(
    "scheme,text,message",
    [
        (
            "IOB2",
            "B-PER I-PER I-LOC",
            "token 2: ill-formed IOB2 chunk: tag 'I-LOC' after 'I-PER' begins a LOC chunk, "
            "but in IOB2 a chunk begins with B-",
        ),
        (
            "IOB1",
            "B-PER I-PER",
            "token 0: ill-formed IOB1 chunk: tag 'B-PER' after the start of the sentence begins "
            "a PER chunk, but in IOB1 B- begins a chunk only right after a chunk of the same "
            "label",
        ),
        (
            "IOBES",
            "O E-PER",
            "token 1: ill-formed IOBES chunk: tag 'E-PER' after 'O' begins a PER chunk, but in "
            "IOBES a chunk begins with B- or S-",
        ),
        (
            "IOE1",
            "I-PER E-PER",
            "token 1: ill-formed IOE1 chunk: tag 'E-PER' before the end of the sentence ends a "
            "PER chunk, but in IOE1 E- ends a chunk only right before a chunk of the same label",
        ),
        (
            "IOE2",
            "E-LOC I-PER O",
            "token 1: ill-formed IOE2 chunk: tag 'I-PER' before 'O' ends a PER chunk, but in "
            "IOE2 a chunk ends with E-",
        ),
        (
            "BILOU",
            "B-PER U-PER",
            "token 0: ill-formed BILOU chunk: tag 'B-PER' before 'U-PER' ends a PER chunk, but "
            "in BILOU a chunk ends with L- or U-",
        ),
    ],
)
def test_an_ill_formed_chunk_is_named_in_full(scheme, text, message):
    with pytest.raises(InvalidInputError) as info:
        decode(text.split(), scheme=scheme, repair="error")
    assert str(info.value) == message


def test_an_ill_formed_chunk_names_the_place_a_context_gives():
    with pytest.raises(InvalidInputError) as info:
        decode(["O", "I-PER"], repair="error", context=lambda i: f"gold.conll line {i + 10}")
    assert str(info.value) == (
        "gold.conll line 11 (token 1): ill-formed IOB2 chunk: tag 'I-PER' after 'O' begins a "
        "PER chunk, but in IOB2 a chunk begins with B-"
    )
    with pytest.raises(InvalidInputError) as info:
        decode(["I-X", "I-X"], scheme="IOE2", repair="error", context="pred.conll, sentence 2")
    assert str(info.value) == (
        "pred.conll, sentence 2, token 1: ill-formed IOE2 chunk: tag 'I-X' before the end of "
        "the sentence ends a X chunk, but in IOE2 a chunk ends with E-"
    )


def test_a_repaired_chunk_keeps_or_drops_its_span_and_is_counted():
    seq = ["I-PER", "I-PER", "O", "B-LOC", "I-LOC", "B-ORG"]
    assert decode(seq) == Decoded((Span(0, 2, "PER"), Span(3, 5, "LOC"), Span(5, 6, "ORG")), 1)
    assert decode(seq, repair="discard") == Decoded((Span(3, 5, "LOC"), Span(5, 6, "ORG")), 1)
    # Under IOE2 every one of them is ill-formed at its end: three repairs.
    ioe = ["I-PER", "I-PER", "O", "E-LOC", "I-ORG"]
    assert decode(ioe, scheme="IOE2") == Decoded(
        (Span(0, 2, "PER"), Span(3, 4, "LOC"), Span(4, 5, "ORG")), 2
    )
    assert decode(ioe, scheme="IOE2", repair="discard") == Decoded((Span(3, 4, "LOC"),), 2)


@pytest.mark.parametrize(
    "scheme,joined_before,joined_after,one,three",
    [
        ("IOB1", False, False, ["I-X"], ["I-X", "I-X", "I-X"]),
        ("IOB1", True, False, ["B-X"], ["B-X", "I-X", "I-X"]),
        ("IOB1", False, True, ["I-X"], ["I-X", "I-X", "I-X"]),
        ("IOB2", True, True, ["B-X"], ["B-X", "I-X", "I-X"]),
        ("IOE1", False, True, ["E-X"], ["I-X", "I-X", "E-X"]),
        ("IOE1", True, False, ["I-X"], ["I-X", "I-X", "I-X"]),
        ("IOE2", False, False, ["E-X"], ["I-X", "I-X", "E-X"]),
        ("IOBES", True, True, ["S-X"], ["B-X", "I-X", "E-X"]),
        ("BILOU", False, False, ["U-X"], ["B-X", "I-X", "L-X"]),
        ("IO", True, True, ["I-X"], ["I-X", "I-X", "I-X"]),
    ],
)
def test_the_tags_of_one_chunk(scheme, joined_before, joined_after, one, three):
    sch = get_scheme(scheme)
    joined = {"joined_before": joined_before, "joined_after": joined_after}
    assert sch.chunk_tags(1, "X", **joined) == one
    assert sch.chunk_tags(3, "X", **joined) == three
    assert sch.chunk_tags(2, "X", **joined) == [three[0], three[2]]


def test_encode_marks_chunks_joined_to_one_of_the_same_label_only():
    spans = [(0, 1, "X"), (1, 3, "X"), (3, 4, "Y"), (5, 6, "Y")]
    assert encode(spans, 6, scheme="IOB1") == ["I-X", "B-X", "I-X", "I-Y", "O", "I-Y"]
    assert encode(spans, 6, scheme="IOE1") == ["E-X", "I-X", "I-X", "I-Y", "O", "I-Y"]
    assert encode([Span(2, 3, "Z")], 4, scheme="bilou") == ["O", "O", "U-Z", "O"]


def test_a_scheme_shows_its_name():
    assert repr(get_scheme("bioes")) == "<tag scheme IOBES>"
    assert [repr(s) for s in SCHEMES.values()][:2] == ["<tag scheme IOB1>", "<tag scheme IOB2>"]


def test_a_scheme_object_is_its_own_scheme_and_names_are_case_insensitive():
    iob1 = get_scheme("IOB1")
    assert get_scheme(iob1) is iob1 and get_scheme("iob1") is iob1
    assert get_scheme("bio") is get_scheme("IOB2")
    assert decode(["B-X", "B-X"], scheme=iob1) == Decoded((Span(0, 1, "X"), Span(1, 2, "X")), 1)


def test_the_parsed_tag_cache_starts_again_with_only_outside_in_it(monkeypatch):
    monkeypatch.setattr(schemes, "_PARSE_CACHE_LIMIT", 3)
    iob2 = get_scheme("IOB2")
    assert iob2.parse("B-A") == ("B", "A") and iob2.parse("I-A") == ("I", "A")
    assert iob2._parsed == {"O": ("O", None), "B-A": ("B", "A"), "I-A": ("I", "A")}
    assert iob2.parse("B-B") == ("B", "B")
    assert iob2._parsed == {"O": ("O", None), "B-B": ("B", "B")}
    assert iob2.parse("O") == ("O", None)


def test_a_tag_that_is_not_a_string_is_named():
    with pytest.raises(InvalidInputError) as info:
        decode(["B-X", None], context="f.conll")
    assert str(info.value) == "f.conll, token 1: tag None is not a string"
    with pytest.raises(InvalidInputError) as info:
        decode([["B-X"]])
    assert str(info.value) == "token 0: tag ['B-X'] is not a string"


def test_encode_writes_iob2_unless_told_and_marks_the_last_joined_pair():
    assert encode([(0, 2, "X")], 3) == ["B-X", "I-X", "O"]
    assert encode([(0, 1, "X"), (1, 2, "X")], 2, scheme="IOE1") == ["E-X", "I-X"]
    assert encode([(0, 1, "X"), (2, 3, "X"), (3, 4, "X")], 4, scheme="IOE1") == [
        "I-X",
        "O",
        "E-X",
        "I-X",
    ]


@pytest.mark.parametrize(
    "spans,length,scheme,message",
    [
        (
            [(3, 5, "Y"), (0, 4, "X")],
            6,
            "IOB2",
            "spans (0, 4, 'X') and (3, 5, 'Y') overlap; a tag sequence can only carry "
            "non-overlapping spans",
        ),
        (
            [(2, 4, "X"), (0, 2, "X")],
            4,
            "IO",
            "spans (0, 2, 'X') and (2, 4, 'X') are adjacent with one label; IO cannot tell them "
            "apart (use IOB2 or IOBES)",
        ),
        (
            [(0, 1, "X"), (1, 1.5, "X")],
            3,
            "IOB2",
            "span #1 (1, 1.5, 'X'): offsets must be integers",
        ),
        ([(True, 2, "X")], 3, "IOB2", "span #0 (True, 2, 'X'): offsets must be integers"),
        ([(0, 2, "")], 3, "IOB2", "span #0 (0, 2, ''): label must be a non-empty string"),
        ([(0, 2, 5)], 3, "IOB2", "span #0 (0, 2, 5): label must be a non-empty string"),
        ([(2, 2, "X")], 3, "IOB2", "span #0 (2, 2, 'X'): needs 0 <= start < end <= 3"),
        ([(-1, 2, "X")], 3, "IOB2", "span #0 (-1, 2, 'X'): needs 0 <= start < end <= 3"),
    ],
)
def test_encode_refusals_word_for_word(spans, length, scheme, message):
    with pytest.raises(InvalidInputError) as info:
        encode(spans, length, scheme=scheme)
    assert str(info.value) == message


def test_io_writes_adjacent_spans_of_different_labels():
    assert encode([(0, 2, "X"), (2, 3, "Y")], 3, scheme="IO") == ["I-X", "I-X", "I-Y"]


def test_an_unknown_repair_policy_lists_the_valid_ones():
    with pytest.raises(ValueError) as info:
        decode(["O"], repair="fix")
    assert str(info.value) == (
        "unknown repair policy 'fix'; valid policies: ('conlleval', 'discard', 'error')"
    )
