"""Reference tests: our tag decoding against seqeval 1.2.2, exhaustively on short sequences.

* ``repair="conlleval"`` against seqeval's default mode (``get_entities``, conlleval's rules):
  identical for every scheme on every sequence of length 0..3 over two labels. seqeval's
  default mode does not know BILOU's ``U``/``L`` (it warns), so BILOU is compared with ``U``
  read as ``S`` and ``L`` as ``E`` -- which is how we decode it.
* ``repair="discard"`` against seqeval's strict mode (``seqeval.scheme`` classes with
  ``Entities``): identical for IOB2, IOE2, IOBES and BILOU; for IOB1 and IOE1 every
  difference is listed in ``STRICT_DIVERGENCES`` below with its reason (and in
  ``docs/tag_schemes.md``). A difference that is not listed fails the test, and so does a
  listed one that no longer happens.
"""

from __future__ import annotations

import itertools
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from seqeval import scheme as seqeval_scheme
from seqeval.metrics.sequence_labeling import get_entities

from spacy_span_eval.engine.spans import Span
from spacy_span_eval.readers.schemes import SCHEMES, decode

LABELS = ("PER", "LOC")
MAX_LENGTH = 3
STRICT_SCHEMES = ("IOB1", "IOB2", "IOE1", "IOE2", "IOBES", "BILOU")  # seqeval has no IO class
BILOU_AS_IOBES = {"U": "S", "L": "E"}


def tag_set(scheme: str) -> list[str]:
    return ["O", *(f"{p}-{label}" for p in SCHEMES[scheme].prefixes for label in LABELS)]


def all_sequences(scheme: str) -> list[tuple[str, ...]]:
    alphabet = tag_set(scheme)
    return [seq for n in range(MAX_LENGTH + 1) for seq in itertools.product(alphabet, repeat=n)]


def seqeval_default(seq: tuple[str, ...] | list[str], scheme: str) -> set[Span]:
    tags = list(seq)
    if scheme == "BILOU":
        tags = [t if t == "O" else BILOU_AS_IOBES.get(t[0], t[0]) + t[1:] for t in tags]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would mean seqeval did not understand a tag
        chunks = get_entities(tags)
    # seqeval: (label, first, last) with an inclusive end
    return {Span(first, last + 1, label) for label, first, last in chunks}


def seqeval_strict(seq: tuple[str, ...] | list[str], scheme: str) -> set[Span]:
    token_class = getattr(seqeval_scheme, scheme)
    entities = seqeval_scheme.Entities([list(seq)], token_class, suffix=False).entities[0]
    return {Span(e.start, e.end, e.tag) for e in entities}


def ours(seq: tuple[str, ...] | list[str], scheme: str, repair: str) -> set[Span]:
    result = decode(seq, scheme=scheme, repair=repair)  # type: ignore[arg-type]
    assert list(result.spans) == sorted(set(result.spans))
    return set(result.spans)


def test_the_exhaustive_sets_have_the_expected_sizes():
    # 1 + k + k^2 + k^3 sequences for k tags (O plus every prefix with both labels)
    sizes = {scheme: len(all_sequences(scheme)) for scheme in SCHEMES}
    assert sizes == {
        "IOB1": 156,
        "IOB2": 156,
        "IOE1": 156,
        "IOE2": 156,
        "IOBES": 820,
        "BILOU": 820,
        "IO": 40,
    }


# --- default mode --------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_conlleval_repair_equals_seqeval_default_mode(scheme):
    differences = [
        (seq, ours(seq, scheme, "conlleval"), seqeval_default(seq, scheme))
        for seq in all_sequences(scheme)
        if ours(seq, scheme, "conlleval") != seqeval_default(seq, scheme)
    ]
    assert differences == []


def test_seqeval_default_mode_does_not_know_bilou_prefixes():
    # Why BILOU is compared with U/L read as S/E: seqeval's default mode warns on U-/L- tags
    # and then chunks them by label changes only, merging two adjacent unit chunks.
    with pytest.warns(UserWarning, match="seems not to be NE tag"):
        raw = get_entities(["U-PER", "U-PER"])
    assert raw == [("PER", 0, 1)]
    assert ours(("U-PER", "U-PER"), "BILOU", "conlleval") == {Span(0, 1, "PER"), Span(1, 2, "PER")}
    assert seqeval_default(("U-PER", "U-PER"), "BILOU") == {Span(0, 1, "PER"), Span(1, 2, "PER")}


# --- strict mode ---------------------------------------------------------------------------

# Reasons, one per kind of deliberate difference (see docs/tag_schemes.md).
B_TAIL = (
    "IOB1: a chunk whose B- may not begin it (after O, the sentence start or another label) is "
    "ill-formed and discarded whole; seqeval skips the B- but restarts the chunk at the I- "
    "after it (its start table has B->I for any label), keeping the chunk's tail"
)
B_B_END = (
    "IOB1: a well-formed chunk ending in B-X followed by B-Y is kept (only the B-Y chunk is "
    "ill-formed); seqeval drops it too (its end table has B->B only for the same label)"
)
E_START = (
    "IOE1: a one-token E-X chunk that does not follow an E-X (after O, the sentence start, or "
    "another label) is well-formed when a chunk of label X follows; seqeval's start table has "
    "no O->E, I->E or E->E-of-another-label, so it never finds that chunk (seqeval marks its "
    "IOE1 as incomplete: 'IOE1 hasn't yet been able to handle some cases')"
)

# scheme, tags, ours with repair="discard", seqeval strict, reason. X and Y stand for the two
# labels: each row is checked as (X, Y) = (PER, LOC) and (LOC, PER).
STRICT_DIVERGENCES = [
    ("IOB1", "B-X I-X", "", "X[1:2]", B_TAIL),
    ("IOB1", "O B-X I-X", "", "X[2:3]", B_TAIL),
    ("IOB1", "B-X I-X O", "", "X[1:2]", B_TAIL),
    ("IOB1", "B-X I-X I-X", "", "X[1:3]", B_TAIL),
    ("IOB1", "B-X I-X I-Y", "Y[2:3]", "X[1:2] Y[2:3]", B_TAIL),
    ("IOB1", "B-X I-X B-X", "X[2:3]", "X[1:2] X[2:3]", B_TAIL),
    ("IOB1", "B-X I-X B-Y", "", "X[1:2]", B_TAIL),
    ("IOB1", "B-X B-Y I-Y", "", "Y[2:3]", B_TAIL),
    ("IOB1", "I-X B-Y I-Y", "X[0:1]", "X[0:1] Y[2:3]", B_TAIL),
    ("IOB1", "B-X B-X B-Y", "X[1:2]", "", B_B_END),
    ("IOB1", "I-X B-X B-Y", "X[0:1] X[1:2]", "X[0:1]", B_B_END),
    ("IOE1", "E-X I-X", "X[0:1] X[1:2]", "X[1:2]", E_START),
    ("IOE1", "E-X E-X", "X[0:1]", "", E_START),
    ("IOE1", "O E-X I-X", "X[1:2] X[2:3]", "X[2:3]", E_START),
    ("IOE1", "O E-X E-X", "X[1:2]", "", E_START),
    ("IOE1", "I-X E-Y I-Y", "X[0:1] Y[1:2] Y[2:3]", "X[0:1] Y[2:3]", E_START),
    ("IOE1", "I-X E-Y E-Y", "X[0:1] Y[1:2]", "X[0:1]", E_START),
    ("IOE1", "E-X I-X O", "X[0:1] X[1:2]", "X[1:2]", E_START),
    ("IOE1", "E-X I-X I-X", "X[0:1] X[1:3]", "X[1:3]", E_START),
    ("IOE1", "E-X I-X I-Y", "X[0:1] X[1:2] Y[2:3]", "X[1:2] Y[2:3]", E_START),
    ("IOE1", "E-X I-X E-X", "X[0:1]", "", E_START),
    ("IOE1", "E-X I-X E-Y", "X[0:1] X[1:2]", "X[1:2]", E_START),
    ("IOE1", "E-X E-X O", "X[0:1]", "", E_START),
    ("IOE1", "E-X E-X I-X", "X[0:1] X[1:2] X[2:3]", "X[1:2] X[2:3]", E_START),
    ("IOE1", "E-X E-X I-Y", "X[0:1] Y[2:3]", "Y[2:3]", E_START),
    ("IOE1", "E-X E-X E-X", "X[0:1] X[1:2]", "X[1:2]", E_START),
    ("IOE1", "E-X E-X E-Y", "X[0:1]", "", E_START),
    ("IOE1", "E-X E-Y I-Y", "Y[1:2] Y[2:3]", "Y[2:3]", E_START),
    ("IOE1", "E-X E-Y E-Y", "Y[1:2]", "", E_START),
]


def _fill(text: str, x: str, y: str) -> str:
    return text.replace("X", "\0").replace("Y", y).replace("\0", x)


def _spans(text: str) -> set[Span]:
    out = set()
    for item in text.split():
        label, _, rest = item.partition("[")
        start, _, end = rest.rstrip("]").partition(":")
        out.add(Span(int(start), int(end), label))
    return out


def expected_divergences(scheme: str) -> dict[tuple[str, ...], tuple[set[Span], set[Span], str]]:
    table = {}
    for row_scheme, seq, mine, theirs, reason in STRICT_DIVERGENCES:
        if row_scheme != scheme:
            continue
        for x, y in itertools.permutations(LABELS):
            key = tuple(_fill(seq, x, y).split())
            assert key not in table, f"{scheme} row listed twice: {key}"
            table[key] = (_spans(_fill(mine, x, y)), _spans(_fill(theirs, x, y)), reason)
    return table


@pytest.mark.parametrize("scheme", STRICT_SCHEMES)
def test_discard_repair_equals_seqeval_strict_mode_except_listed_divergences(scheme):
    expected = expected_divergences(scheme)
    found = {}
    for seq in all_sequences(scheme):
        mine, theirs = ours(seq, scheme, "discard"), seqeval_strict(seq, scheme)
        if mine != theirs:
            found[seq] = (mine, theirs)
    unlisted = {seq: found[seq] for seq in found.keys() - expected.keys()}
    stale = sorted(expected.keys() - found.keys())
    assert unlisted == {}, "differences from seqeval strict mode that are not listed"
    assert stale == [], "listed differences that no longer happen"
    for seq, (mine, theirs) in found.items():
        assert (mine, theirs) == expected[seq][:2], seq


def test_every_divergence_reason_is_used():
    assert {row[4] for row in STRICT_DIVERGENCES} == {B_TAIL, B_B_END, E_START}


@pytest.mark.parametrize("scheme", ("IOB2", "IOE2", "IOBES", "BILOU"))
def test_repaired_count_is_what_seqeval_strict_mode_leaves_out(scheme):
    for seq in all_sequences(scheme):
        default, strict = seqeval_default(seq, scheme), seqeval_strict(seq, scheme)
        assert strict <= default
        assert decode(seq, scheme=scheme).repaired == len(default - strict), seq


def test_io_has_nothing_to_repair():
    for seq in all_sequences("IO"):
        assert decode(seq, scheme="IO", repair="error").repaired == 0


# --- longer sequences ----------------------------------------------------------------------


def _label(tag: str) -> str:
    return tag.partition("-")[2]


def seqeval_strict_predicted(seq: list[str], scheme: str) -> set[Span]:
    """seqeval's strict result predicted from ours and the listed reasons only."""
    kept = decode(seq, scheme=scheme).spans
    well_formed = set(decode(seq, scheme=scheme, repair="discard").spans)
    if scheme not in ("IOB1", "IOE1"):
        return well_formed
    out = set()
    padded = ["O", *seq, "O"]  # padded[i + 1] is seq[i]
    for span in kept:
        first, last = seq[span.start], seq[span.end - 1]
        before, after = padded[span.start], padded[span.end + 1]
        if scheme == "IOB1":
            if span in well_formed:
                ends_b_before_other_b = (
                    last[0] == "B" and after[0] == "B" and _label(after) != span.label
                )
                if not ends_b_before_other_b:  # B_B_END
                    out.add(span)
            elif len(span) > 1:  # B_TAIL
                out.add(Span(span.start + 1, span.end, span.label))
        elif span in well_formed:
            lone_e = len(span) == 1 and first[0] == "E"
            after_same_e = before[0] == "E" and _label(before) == span.label
            if not (lone_e and not after_same_e):  # E_START
                out.add(span)
    return out


def long_sequences(scheme: str) -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(tag_set(scheme)), min_size=MAX_LENGTH + 1, max_size=16)


@pytest.mark.slow  # repeats the exhaustive short sequences at scale
@pytest.mark.parametrize("scheme", list(SCHEMES))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_longer_sequences_match_seqeval_default_mode(scheme, data):
    seq = data.draw(long_sequences(scheme))
    assert ours(seq, scheme, "conlleval") == seqeval_default(seq, scheme)


@pytest.mark.slow  # as above
@pytest.mark.parametrize("scheme", STRICT_SCHEMES)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_longer_sequences_differ_from_seqeval_strict_mode_only_for_listed_reasons(scheme, data):
    seq = data.draw(long_sequences(scheme))
    assert seqeval_strict(seq, scheme) == seqeval_strict_predicted(seq, scheme)
