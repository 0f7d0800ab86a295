"""Tag-scheme decoding and encoding (semantics §5): hand-built tables and properties."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_span_eval.engine.spans import Span
from spacy_span_eval.errors import InvalidInputError, InvalidSpanError
from spacy_span_eval.readers import schemes
from spacy_span_eval.readers.schemes import (
    REPAIR_POLICIES,
    SCHEME_ALIASES,
    SCHEMES,
    Decoded,
    Scheme,
    decode,
    encode,
    get_scheme,
)


def spans(text: str) -> tuple[Span, ...]:
    """``"PER[0:2] LOC[3:4]"`` -> spans."""
    out = []
    for item in text.split():
        label, _, rest = item.partition("[")
        start, _, end = rest.rstrip("]").partition(":")
        out.append(Span(int(start), int(end), label))
    return tuple(out)


def tags(text: str) -> list[str]:
    return text.split()


# --- names ---------------------------------------------------------------------------------


def test_public_surface_is_complete():
    for name in schemes.__all__:
        assert hasattr(schemes, name), name
    assert set(SCHEMES) == {"IOB1", "IOB2", "IOE1", "IOE2", "IOBES", "BILOU", "IO"}
    assert REPAIR_POLICIES == ("conlleval", "discard", "error")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("IOB2", "IOB2"),
        ("iob2", "IOB2"),
        ("BIO", "IOB2"),
        ("bio", "IOB2"),
        ("IOB1", "IOB1"),
        ("IOE1", "IOE1"),
        ("ioe2", "IOE2"),
        ("IOBES", "IOBES"),
        ("BIOES", "IOBES"),
        ("bioes", "IOBES"),
        ("BILOU", "BILOU"),
        ("bilou", "BILOU"),
        ("BIOUL", "BILOU"),
        ("IO", "IO"),
    ],
)
def test_get_scheme_names_and_aliases(name, expected):
    scheme = get_scheme(name)
    assert isinstance(scheme, Scheme)
    assert scheme is SCHEMES[expected]
    assert get_scheme(scheme) is scheme


@pytest.mark.parametrize("name", ["IOB", "BIOLU", "", "IOB3", "conll"])
def test_unknown_scheme_lists_the_valid_ones(name):
    with pytest.raises(ValueError, match="unknown tag scheme") as info:
        get_scheme(name)
    for valid in [*SCHEMES, *SCHEME_ALIASES]:
        assert valid in str(info.value)


def test_unknown_repair_policy():
    with pytest.raises(ValueError, match="repair policy 'strict'.*conlleval"):
        decode(["O"], repair="strict")  # type: ignore[arg-type]


def test_decoded_is_a_frozen_value():
    result = decode(tags("B-PER I-PER"))
    assert result == Decoded((Span(0, 2, "PER"),), 0)
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field"):
        result.repaired = 3  # type: ignore[misc]


# --- well-formed sequences -----------------------------------------------------------------

WELL_FORMED = [
    # scheme, tags, spans
    ("IOB2", "", ""),
    ("IOB2", "O O O", ""),
    ("IOB2", "B-PER I-PER O B-LOC", "PER[0:2] LOC[3:4]"),
    ("IOB2", "B-PER B-PER", "PER[0:1] PER[1:2]"),
    ("IOB2", "B-PER I-PER B-LOC I-LOC", "PER[0:2] LOC[2:4]"),
    # "Barack Obama visited New York City yesterday"
    ("IOB2", "B-PER I-PER O B-LOC I-LOC I-LOC O", "PER[0:2] LOC[3:6]"),
    ("IOB2", "B-DATE-TIME I-DATE-TIME", "DATE-TIME[0:2]"),
    ("IOB1", "I-PER I-PER O I-LOC", "PER[0:2] LOC[3:4]"),
    ("IOB1", "I-PER B-PER", "PER[0:1] PER[1:2]"),
    ("IOB1", "I-PER I-LOC", "PER[0:1] LOC[1:2]"),
    ("IOB1", "I-PER I-PER B-PER I-PER", "PER[0:2] PER[2:4]"),
    ("IOB1", "I-PER B-PER B-PER", "PER[0:1] PER[1:2] PER[2:3]"),
    ("IOE1", "I-PER I-PER O I-LOC", "PER[0:2] LOC[3:4]"),
    ("IOE1", "E-PER I-PER", "PER[0:1] PER[1:2]"),
    ("IOE1", "I-PER E-PER I-PER I-PER", "PER[0:2] PER[2:4]"),
    ("IOE1", "I-PER I-LOC", "PER[0:1] LOC[1:2]"),
    ("IOE1", "E-PER E-PER I-PER", "PER[0:1] PER[1:2] PER[2:3]"),
    ("IOE2", "I-PER E-PER O E-LOC", "PER[0:2] LOC[3:4]"),
    ("IOE2", "E-PER E-PER", "PER[0:1] PER[1:2]"),
    ("IOE2", "I-PER E-PER I-LOC E-LOC", "PER[0:2] LOC[2:4]"),
    ("IOBES", "B-PER I-PER E-PER O S-LOC", "PER[0:3] LOC[4:5]"),
    ("IOBES", "S-PER S-PER B-LOC E-LOC", "PER[0:1] PER[1:2] LOC[2:4]"),
    ("IOBES", "B-PER E-PER B-PER E-PER", "PER[0:2] PER[2:4]"),
    ("BILOU", "B-PER I-PER L-PER O U-LOC", "PER[0:3] LOC[4:5]"),
    ("BILOU", "U-PER U-PER B-LOC L-LOC", "PER[0:1] PER[1:2] LOC[2:4]"),
    ("IO", "I-PER I-PER O I-LOC I-PER", "PER[0:2] LOC[3:4] PER[4:5]"),
    ("IO", "I-PER I-LOC", "PER[0:1] LOC[1:2]"),
]


@pytest.mark.parametrize(("scheme", "text", "expected"), WELL_FORMED)
@pytest.mark.parametrize("repair", REPAIR_POLICIES)
def test_well_formed_sequences_decode_the_same_under_every_policy(scheme, text, expected, repair):
    result = decode(tags(text), scheme=scheme, repair=repair)
    assert result == Decoded(spans(expected), 0)


def test_default_scheme_is_iob2_and_default_repair_is_conlleval():
    assert decode(tags("B-PER B-PER")) == decode(tags("B-PER B-PER"), scheme="IOB2")
    assert decode(tags("O I-PER")) == Decoded(spans("PER[1:2]"), 1)


def test_tags_may_be_any_sequence():
    assert decode(("B-PER", "I-PER")).spans == spans("PER[0:2]")


# --- ill-formed sequences ------------------------------------------------------------------

ILL_FORMED = [
    # scheme, tags, conlleval spans, discard spans, repaired, error token, error text
    ("IOB2", "O I-PER", "PER[1:2]", "", 1, 1, "'I-PER' after 'O' begins a PER chunk"),
    ("IOB2", "I-PER I-PER", "PER[0:2]", "", 1, 0, "after the start of the sentence"),
    ("IOB2", "B-PER I-LOC", "PER[0:1] LOC[1:2]", "PER[0:1]", 1, 1, "'I-LOC' after 'B-PER'"),
    (
        "IOB2",
        "B-PER I-PER I-LOC I-LOC O I-ORG",
        "PER[0:2] LOC[2:4] ORG[5:6]",
        "PER[0:2]",
        2,
        2,
        "a chunk begins with B-",
    ),
    ("IOB1", "B-PER I-PER", "PER[0:2]", "", 1, 0, "B- begins a chunk only right after"),
    ("IOB1", "O B-PER", "PER[1:2]", "", 1, 1, "'B-PER' after 'O'"),
    ("IOB1", "I-PER B-LOC", "PER[0:1] LOC[1:2]", "PER[0:1]", 1, 1, "'B-LOC' after 'I-PER'"),
    ("IOE1", "I-PER E-PER", "PER[0:2]", "", 1, 1, "before the end of the sentence"),
    ("IOE1", "E-PER O", "PER[0:1]", "", 1, 0, "E- ends a chunk only right before"),
    ("IOE1", "E-PER I-LOC", "PER[0:1] LOC[1:2]", "LOC[1:2]", 1, 0, "'E-PER' before 'I-LOC'"),
    ("IOE2", "I-PER I-PER O", "PER[0:2]", "", 1, 1, "'I-PER' before 'O' ends a PER chunk"),
    ("IOE2", "I-PER", "PER[0:1]", "", 1, 0, "a chunk ends with E-"),
    ("IOE2", "I-PER E-LOC", "PER[0:1] LOC[1:2]", "LOC[1:2]", 1, 0, "before 'E-LOC'"),
    ("IOBES", "E-PER", "PER[0:1]", "", 1, 0, "a chunk begins with B- or S-"),
    ("IOBES", "I-PER E-PER", "PER[0:2]", "", 1, 0, "'I-PER' after the start"),
    ("IOBES", "B-PER O", "PER[0:1]", "", 1, 0, "a chunk ends with E- or S-"),
    ("IOBES", "B-PER I-PER S-PER", "PER[0:2] PER[2:3]", "PER[2:3]", 1, 1, "before 'S-PER'"),
    ("IOBES", "S-PER E-PER", "PER[0:1] PER[1:2]", "PER[0:1]", 1, 1, "'E-PER' after 'S-PER'"),
    # one chunk ill-formed at both ends counts once; two ill-formed chunks count twice
    ("IOBES", "I-PER I-PER O", "PER[0:2]", "", 1, 0, "begins a PER chunk"),
    ("IOBES", "B-PER I-LOC E-LOC", "PER[0:1] LOC[1:3]", "", 2, 0, "before 'I-LOC'"),
    ("BILOU", "L-PER", "PER[0:1]", "", 1, 0, "a chunk begins with B- or U-"),
    ("BILOU", "B-PER U-PER", "PER[0:1] PER[1:2]", "PER[1:2]", 1, 0, "ends with L- or U-"),
    ("BILOU", "U-PER L-PER", "PER[0:1] PER[1:2]", "PER[0:1]", 1, 1, "'L-PER' after 'U-PER'"),
    ("BILOU", "B-PER I-PER O", "PER[0:2]", "", 1, 1, "'I-PER' before 'O'"),
    ("BILOU", "B-PER I-LOC L-LOC", "PER[0:1] LOC[1:3]", "", 2, 0, "before 'I-LOC'"),
]


@pytest.mark.parametrize(
    ("scheme", "text", "conlleval", "discard", "repaired", "position", "message"), ILL_FORMED
)
def test_ill_formed_sequences_follow_the_repair_policy(
    scheme, text, conlleval, discard, repaired, position, message
):
    seq = tags(text)
    assert decode(seq, scheme=scheme) == Decoded(spans(conlleval), repaired)
    assert decode(seq, scheme=scheme, repair="conlleval") == Decoded(spans(conlleval), repaired)
    assert decode(seq, scheme=scheme, repair="discard") == Decoded(spans(discard), repaired)
    with pytest.raises(InvalidInputError, match=f"^token {position}: ill-formed") as info:
        decode(seq, scheme=scheme, repair="error")
    text_of_error = str(info.value)
    assert text_of_error.startswith(f"token {position}: ill-formed {scheme} chunk: tag ")
    assert repr(seq[position]) in text_of_error
    assert message in text_of_error


def test_io_never_repairs():
    assert decode(tags("I-PER I-LOC I-LOC O I-PER"), scheme="IO", repair="error") == Decoded(
        spans("PER[0:1] LOC[1:3] PER[4:5]"), 0
    )


def test_repaired_chunks_are_counted_per_sentence():
    seq = tags("I-PER O I-LOC I-LOC O B-ORG I-ORG O I-MISC")
    assert decode(seq) == Decoded(spans("PER[0:1] LOC[2:4] ORG[5:7] MISC[8:9]"), 3)
    assert decode(seq, repair="discard") == Decoded(spans("ORG[5:7]"), 3)


# --- invalid tags and error context --------------------------------------------------------

INVALID_TAGS = [
    # scheme, tag, what the message says
    ("IOB2", "PER", "has no prefix"),
    ("IOB2", "B_PER", "has no prefix"),
    ("IOB2", "", "is empty"),
    ("IOB2", "B-", "has an empty label"),
    ("IOB2", "E-PER", "prefix 'E', which IOB2 does not use (prefixes: B-, I-, or 'O')"),
    ("IOB2", "S-PER", "prefix 'S'"),
    ("IOB2", "b-PER", "prefix 'b'"),
    ("IOB2", "BI-PER", "prefix 'BI'"),
    ("IOB2", "-PER", "prefix ''"),
    ("IOB1", "E-PER", "prefix 'E', which IOB1 does not use"),
    ("IOE1", "B-PER", "prefix 'B', which IOE1 does not use (prefixes: I-, E-, or 'O')"),
    ("IOE2", "B-PER", "prefix 'B'"),
    ("IOBES", "U-PER", "prefix 'U', which IOBES does not use (prefixes: B-, I-, E-, S-, or 'O')"),
    ("IOBES", "L-PER", "prefix 'L'"),
    ("BILOU", "S-PER", "prefix 'S', which BILOU does not use (prefixes: B-, I-, L-, U-, or 'O')"),
    ("BILOU", "E-PER", "prefix 'E'"),
    ("IO", "B-PER", "prefix 'B', which IO does not use (prefixes: I-, or 'O')"),
    ("IO", "PER", "has no prefix; in IO a tag is 'O' or one of I- followed by a label"),
    ("IOB2", "o", "has no prefix"),
    ("IOB2", None, "is not a string"),
]


@pytest.mark.parametrize(("scheme", "tag", "message"), INVALID_TAGS)
@pytest.mark.parametrize("repair", REPAIR_POLICIES)
def test_invalid_tags_are_errors_under_every_policy(scheme, tag, message, repair):
    with pytest.raises(InvalidInputError, match=re.escape(message)) as info:
        decode(["O", "O", tag], scheme=scheme, repair=repair)  # type: ignore[list-item]
    assert str(info.value).startswith(f"token 2: tag {tag!r} ")
    assert message in str(info.value)


def test_context_string_prefixes_messages():
    with pytest.raises(InvalidInputError, match=r"^train\.conll, sentence 4, token 1: tag 'X-PER'"):
        decode(["O", "X-PER"], context="train.conll, sentence 4")
    with pytest.raises(InvalidInputError, match=r"^train\.conll, sentence 4, token 1: ill-formed"):
        decode(["O", "I-PER"], repair="error", context="train.conll, sentence 4")


def test_context_function_names_the_line_of_the_token():
    def where(i: int) -> str:
        return f"train.conll line {17 + i}"

    with pytest.raises(InvalidInputError, match=r"^train\.conll line 19 \(token 2\): tag 'PER'"):
        decode(["B-PER", "I-PER", "PER"], context=where)
    with pytest.raises(
        InvalidInputError, match=r"^train\.conll line 18 \(token 1\): ill-formed IOE2 chunk"
    ):
        decode(["E-PER", "I-PER", "O"], scheme="IOE2", repair="error", context=where)


def test_invalid_input_error_is_a_value_error():
    with pytest.raises(ValueError, match="tag 'PER' has no prefix"):
        decode(["PER"])


# --- encode --------------------------------------------------------------------------------

ENCODED = [
    ("IOB1", "I-X B-X I-X O I-Y O"),
    ("IOB2", "B-X B-X I-X O B-Y O"),
    ("IOE1", "E-X I-X I-X O I-Y O"),
    ("IOE2", "E-X I-X E-X O E-Y O"),
    ("IOBES", "S-X B-X E-X O S-Y O"),
    ("BILOU", "U-X B-X L-X O U-Y O"),
]


@pytest.mark.parametrize(("scheme", "expected"), ENCODED)
def test_encode_writes_each_scheme(scheme, expected):
    given_spans = [(4, 5, "Y"), (1, 3, "X"), Span(0, 1, "X")]  # any order, tuples or Spans
    assert encode(given_spans, 6, scheme=scheme) == tags(expected)
    assert decode(tags(expected), scheme=scheme) == Decoded(spans("X[0:1] X[1:3] Y[4:5]"), 0)


def test_encode_io_and_defaults():
    assert encode([(0, 1, "X"), (1, 3, "Y")], 4, scheme="IO") == tags("I-X I-Y I-Y O")
    assert encode([], 3) == ["O", "O", "O"]
    assert encode([(0, 2, "DATE-TIME")], 2) == ["B-DATE-TIME", "I-DATE-TIME"]


def test_encode_io_refuses_adjacent_spans_of_one_label():
    with pytest.raises(InvalidInputError, match="IO cannot tell them apart"):
        encode([(0, 1, "X"), (1, 3, "X")], 4, scheme="IO")


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_encode_refuses_overlapping_spans(scheme):
    with pytest.raises(InvalidInputError, match="overlap"):
        encode([(0, 2, "X"), (1, 3, "Y")], 4, scheme=scheme)
    with pytest.raises(InvalidInputError, match="overlap"):
        encode([(0, 2, "X"), (0, 2, "X")], 4, scheme=scheme)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ((2, 2, "X"), "needs 0 <= start < end <= 4"),
        ((3, 2, "X"), "needs 0 <= start < end"),
        ((-1, 2, "X"), "needs 0 <= start"),
        ((2, 5, "X"), "end <= 4"),
        ((0, 1, ""), "label must be a non-empty string"),
        ((0.0, 1, "X"), "offsets must be integers"),
    ],
)
def test_encode_refuses_bad_spans(bad, message):
    with pytest.raises(InvalidSpanError, match=message):
        encode([bad], 4)


# --- properties ----------------------------------------------------------------------------

LABELS = ("PER", "LOC", "DATE-TIME")


@st.composite
def laid_out_spans(draw, *, separate_same_label: bool):
    """Non-overlapping spans and a length; optionally no two same-label spans touch."""
    pieces = draw(
        st.lists(
            st.tuples(st.integers(0, 3), st.integers(1, 4), st.sampled_from(LABELS)),
            max_size=8,
        )
    )
    out: list[Span] = []
    pos = 0
    for gap, length, label in pieces:
        if gap == 0 and out and out[-1].label == label and separate_same_label:
            gap = 1
        out.append(Span(pos + gap, pos + gap + length, label))
        pos += gap + length
    return out, pos + draw(st.integers(0, 3))


@pytest.mark.parametrize("scheme", [s for s in SCHEMES if SCHEMES[s].separates_adjacent])
@given(data=laid_out_spans(separate_same_label=False))
def test_encode_decode_round_trip(scheme, data):
    given_spans, length = data
    encoded = encode(given_spans, length, scheme=scheme)
    assert len(encoded) == length
    for repair in REPAIR_POLICIES:
        assert decode(encoded, scheme=scheme, repair=repair) == Decoded(tuple(given_spans), 0)


@given(data=laid_out_spans(separate_same_label=True))
def test_encode_decode_round_trip_io(data):
    given_spans, length = data
    encoded = encode(given_spans, length, scheme="IO")
    assert decode(encoded, scheme="IO", repair="error") == Decoded(tuple(given_spans), 0)


def tag_sequences(scheme: str) -> st.SearchStrategy[list[str]]:
    prefixes = SCHEMES[scheme].prefixes
    tag_set = ["O", *(f"{p}-{label}" for p in prefixes for label in LABELS)]
    return st.lists(st.sampled_from(tag_set), max_size=24)


@pytest.mark.parametrize("scheme", list(SCHEMES))
@settings(max_examples=200)
@given(data=st.data())
def test_repair_policies_agree_on_what_is_ill_formed(scheme, data):
    seq = data.draw(tag_sequences(scheme))
    kept = decode(seq, scheme=scheme)
    dropped = decode(seq, scheme=scheme, repair="discard")
    # Chunks are conlleval's under every policy; discard only drops the ill-formed ones.
    assert kept.repaired == dropped.repaired
    assert set(dropped.spans) <= set(kept.spans)
    assert len(kept.spans) - len(dropped.spans) == kept.repaired
    # In order, non-overlapping, covering exactly the non-O tokens.
    assert list(kept.spans) == sorted(kept.spans)
    covered = [i for span in kept.spans for i in range(span.start, span.end)]
    assert covered == [i for i, tag in enumerate(seq) if tag != "O"]
    if kept.repaired:
        with pytest.raises(InvalidInputError, match="ill-formed"):
            decode(seq, scheme=scheme, repair="error")
    else:
        assert decode(seq, scheme=scheme, repair="error") == kept
    # Re-encoding the repaired spans gives a well-formed sequence with the same spans.
    again = encode(kept.spans, len(seq), scheme=scheme)
    assert decode(again, scheme=scheme, repair="error") == Decoded(kept.spans, 0)
    if not kept.repaired:
        assert again == seq


def test_parse_messages_word_for_word():
    iob2 = get_scheme("IOB2")
    cases = [
        (
            (["PER"], {}),
            "token 0: tag 'PER' has no prefix; in IOB2 a tag is 'O' or one of B-, I- followed by "
            "a label",
        ),
        (
            ([""], {"index": 2}),
            "token 2: tag '' is empty; in IOB2 a tag is 'O' or one of B-, I- followed by a label",
        ),
        (([5], {"index": 3, "context": "f.conll"}), "f.conll, token 3: tag 5 is not a string"),
        (
            (["B-"], {"index": 3, "context": "f.conll"}),
            "f.conll, token 3: tag 'B-' has an empty label",
        ),
        (
            (["X-PER"], {"context": lambda i: f"line {i + 7}"}),
            "line 7 (token 0): tag 'X-PER' has prefix 'X', which IOB2 does not use (prefixes: "
            "B-, I-, or 'O')",
        ),
    ]
    for (args, kwargs), message in cases:
        with pytest.raises(InvalidInputError, match=f"^{re.escape(message)}$"):
            iob2.parse(*args, **kwargs)
    assert iob2.parse("B-DATE-TIME") == ("B", "DATE-TIME")  # split on the first "-"


@pytest.mark.parametrize(
    "call,error,message",
    [
        (
            lambda: encode([(0, 2, "X"), (1, 3, "Y")], 4),
            InvalidInputError,
            "spans (0, 2, 'X') and (1, 3, 'Y') overlap; a tag sequence can only carry "
            "non-overlapping spans",
        ),
        (
            lambda: encode([(0, 1, "X"), (1, 3, "X")], 4, scheme="IO"),
            InvalidInputError,
            "spans (0, 1, 'X') and (1, 3, 'X') are adjacent with one label; IO cannot tell them "
            "apart (use IOB2 or IOBES)",
        ),
        (
            lambda: encode([(0, 5, "X")], 4),
            InvalidSpanError,
            "span #0 (0, 5, 'X'): needs 0 <= start < end <= 4",
        ),
        (
            lambda: get_scheme("x"),
            ValueError,
            "unknown tag scheme 'x'; valid schemes: IOB1, IOB2, "
            "IOE1, IOE2, IOBES, BILOU, IO, BIO, BIOES, BIOUL",
        ),
        (
            lambda: get_scheme(5),
            ValueError,
            "unknown tag scheme 5; valid schemes: IOB1, IOB2, "
            "IOE1, IOE2, IOBES, BILOU, IO, BIO, BIOES, BIOUL",
        ),
    ],
)
def test_encode_and_scheme_messages_word_for_word(call, error, message):
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        call()


def test_decoding_stays_right_when_the_tag_cache_is_cleared(monkeypatch):
    # The parsed-tag cache is bounded; past the bound it starts again with only "O" in it.
    monkeypatch.setattr(schemes, "_PARSE_CACHE_LIMIT", 3)
    seq = ["B-A", "I-A", "O", "B-B", "O", "B-C", "I-C", "O", "B-D", "O"]
    want = Decoded(spans("A[0:2] B[3:4] C[5:7] D[8:9]"), 0)
    for _ in range(3):
        assert decode(seq) == want
    assert len(get_scheme("IOB2")._parsed) <= 3


# -------------------------------------------------------------------------------------------------
# Tag schemes as values: the whole message of every kind of ill-formed chunk (a chunk begun
# or ended with a prefix the scheme does not allow there, or allows only next to a chunk of
# the same label), with and without a context; the tags ``encode`` writes for one chunk; and
# the cache of parsed tags.
#
# The tests above check which chunks are ill-formed and parts of the messages; here each
# message is written out in full, as a user reads it.
# -------------------------------------------------------------------------------------------------


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
