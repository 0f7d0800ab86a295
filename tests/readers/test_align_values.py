"""The values of the two alignments, pinned on tiny hand-worked cases.

``--align position`` (:mod:`spacy_span_eval.readers.align`): the counts of differing tokens
add up over sentences and over parts read apart, the examples stop at the limit, and the
messages name the side and the token. ``--align chars``
(:mod:`spacy_span_eval.readers.char_align`): on texts with one quote changed, a few characters
inserted before, inside or after a span, or one deleted, the character mapping, the placed and
unplaced spans, the counts and the messages are written out by hand (offsets in comments).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from spacy_span_eval import Span
from spacy_span_eval.errors import DocumentMismatchError, InvalidInputError
from spacy_span_eval.readers.align import (
    TokenDifferences,
    align_by_position,
    difference_example,
    differences_for,
    text_pairing,
)
from spacy_span_eval.readers.base import Record
from spacy_span_eval.readers.char_align import (
    TRAILING_WHITESPACE,
    CharDifferences,
    CharMapping,
    TextPairing,
    align_texts,
    reconcile,
)
from spacy_span_eval.readers.conll import read_conll
from spacy_span_eval.readers.pairing import SideInfo, documents, pair_records

from conftest import cli

# -- --align position ----------------------------------------------------------------------


def _sentence(where: str, *tokens: str) -> Record:
    return Record(where=where, key=where, id=None, tokens=tokens)


def test_a_token_without_a_line_is_named_by_its_number_from_one():
    # token 0 is "token 1", token 2 "token 3"; a record at "FILE line N" names line N + i
    assert (
        difference_example("doc 'a'", "doc 'b'", 0, "gt", "get")
        == "doc 'a', token 1: 'gt' vs doc 'b', token 1: 'get'"
    )
    assert (
        difference_example("g.conll line 10", "doc 'b'", 2, "x", "y")
        == "g.conll line 12: 'x' vs doc 'b', token 3: 'y'"
    )


@pytest.mark.parametrize("text_side", ["gold", "predicted"])
def test_a_text_record_is_refused_naming_its_own_side(text_side):
    tokens = _sentence("t.conll line 4", "Ann", "left")
    text = Record(where="x.jsonl line 7", key="x", id=None, text="Ann left")
    gold, pred = (text, tokens) if text_side == "gold" else (tokens, text)
    with pytest.raises(InvalidInputError) as info:
        align_by_position(gold, pred, index=1, differences=TokenDifferences())
    assert str(info.value) == (
        "x.jsonl line 7: --align position pairs tokens by position and needs token input "
        "on both sides (CoNLL); this record has only a text: align character texts "
        "with --align chars"
    )


def test_different_token_counts_name_the_sentence_and_both_places():
    gold = _sentence("g.conll line 10", "a", "b", "c")
    pred = _sentence("p.conll line 12", "a", "b")
    with pytest.raises(DocumentMismatchError) as info:
        align_by_position(gold, pred, index=4, differences=TokenDifferences())
    assert str(info.value) == (
        "sentence 4: gold has 3 tokens, the predictions 2; --align position pairs tokens by "
        "position and needs the same number in each sentence (gold g.conll line 10, "
        "predicted p.conll line 12)"
    )


def test_counts_add_up_over_sentences_and_examples_stop_at_the_limit():
    diffs = TokenDifferences(limit=3)
    # sentence 1: 2 tokens differ (2 examples, room for 1 more)
    s1 = _sentence("g line 1", "a", "b", "c"), _sentence("p line 1", "A", "B", "c")
    # sentence 2: 3 differ, only the first fills the last place
    s2 = _sentence("g line 5", "d", "e", "f"), _sentence("p line 5", "D", "E", "F")
    # sentence 3: 1 differs, no room left
    s3 = _sentence("g line 9", "g", "h"), _sentence("p line 9", "g", "H")
    same = _sentence("g line 12", "i"), _sentence("p line 12", "i")
    out = [
        align_by_position(g, p, index=k, differences=diffs)
        for k, (g, p) in enumerate((s1, same, s2, s3), 1)
    ]
    assert [r.tokens for r in out] == [("a", "b", "c"), ("i",), ("d", "e", "f"), ("g", "h")]
    assert out[1] is same[1]  # identical tokens: the predicted record as it is
    assert (diffs.tokens, diffs.sentences) == (2 + 3 + 1, 3)
    assert diffs.examples == [
        "g line 1: 'a' vs p line 1: 'A'",
        "g line 2: 'b' vs p line 2: 'B'",
        "g line 5: 'd' vs p line 5: 'D'",
    ]
    assert diffs.to_dict() == {
        "align": "position",
        "differing_tokens": 6,
        "sentences": 3,
        "examples": diffs.examples,
    }


def test_parts_read_apart_add_their_counts_and_keep_the_first_examples():
    first = TokenDifferences(tokens=2, sentences=1, examples=["a1", "a2"], limit=3)
    later = TokenDifferences(tokens=5, sentences=2, examples=["b1", "b2", "b3"])
    first.add(later)
    assert (first.tokens, first.sentences, first.examples) == (7, 3, ["a1", "a2", "b1"])
    assert later.examples == ["b1", "b2", "b3"]
    first.add(TokenDifferences(tokens=1, sentences=1, examples=["c1"]))
    assert (first.tokens, first.sentences, first.examples) == (8, 4, ["a1", "a2", "b1"])


# Sentence 1 (lines 1-3): "gt" -> "get"; sentence 2 (lines 5-6): equal; sentence 3 (lines
# 8-10): "Rome" -> "ROME" and "." -> "!".
GOLD = "I O\ngt O\nAnn B-PER\n\nok O\nBob B-PER\n\nin O\nRome B-LOC\n. O\n"
PRED = "I O\nget O\nAnn B-PER\n\nok O\nBob O\n\nin O\nROME B-LOC\n! O\n"


def test_the_record_stream_counts_every_sentence_pair(tmp_path):
    gold, pred = tmp_path / "g.conll", tmp_path / "p.conll"
    gold.write_text(GOLD)
    pred.write_text(PRED)
    info = SideInfo(str(pred), "conll")
    pairs = pair_records(read_conll(gold), read_conll(pred), gold_name="g", pred_name="p")
    docs = list(documents(pairs, unit="token", pred_info=info, align="position"))
    assert [list(d.pred) for d in docs] == [[Span(2, 3, "PER")], [], [Span(1, 2, "LOC")]]
    assert info.to_dict()["alignment"] == {
        "align": "position",
        "differing_tokens": 3,
        "sentences": 2,
        "examples": [
            f"{gold} line 2: 'gt' vs {pred} line 2: 'get'",
            f"{gold} line 9: 'Rome' vs {pred} line 9: 'ROME'",
            f"{gold} line 10: '.' vs {pred} line 10: '!'",
        ],
    }


def test_only_position_counts_tokens_and_an_unknown_mode_is_named():
    info = SideInfo("p", "conll")
    for mode in ("text", "chars"):
        assert differences_for(mode, info) is None
    assert info.alignment is None
    counted = differences_for("position", info)
    assert isinstance(counted, TokenDifferences) and info.alignment is counted
    assert isinstance(differences_for("position", None), TokenDifferences)
    with pytest.raises(ValueError) as error:
        differences_for("fuzzy", info)
    assert str(error.value) == "unknown alignment 'fuzzy'; choose one of text, position, chars"


def test_chars_in_token_unit_is_refused_and_other_modes_pass():
    with pytest.raises(InvalidInputError) as info:
        text_pairing("chars", "token")
    assert str(info.value) == (
        "--align chars aligns character texts and places character offsets, but this pair is "
        "scored in token unit: add --unit char (token files are then read as their tokens "
        "joined by spaces), or pair CoNLL tokens with --align position"
    )
    for mode in ("text", "position"):
        plain = text_pairing(mode, "token")
        assert (plain.align, plain.notes, plain.differences) == (mode, None, None)


def test_chars_in_char_unit_reports_on_the_predicted_side():
    info = SideInfo("p", "jsonl")
    pairing = text_pairing("chars", "char", info)
    assert pairing.align == "chars"
    assert isinstance(pairing.differences, CharDifferences)
    assert info.char_alignment is pairing.differences and pairing.notes is info.notes
    text = SideInfo("p", "jsonl")
    plain = text_pairing("text", "char", text)
    assert (plain.align, plain.differences, text.char_alignment) == ("text", None, None)
    assert plain.notes is text.notes
    alone = text_pairing("chars", "char")
    assert alone.notes is None and isinstance(alone.differences, CharDifferences)


# -- --align chars: the character mapping --------------------------------------------------

#: One quote rewritten, same length: ``'`` at offset 8 becomes a backtick.
G_SUB = "He said 'hi' to Ann in Rome today."
P_SUB = "He said `hi' to Ann in Rome today."
#: Four characters inserted before a span: "Mr. " (offsets 0-3); 36 of 40 kept, exactly 90%.
G_INS = "Obama spoke in Paris today and left."
P_INS = "Mr. Obama spoke in Paris today and left."
#: One character inserted inside a span: "." at offset 2 of "St. Louis".
G_IN = "St Louis is a city on the Mississippi."
P_IN = "St. Louis is a city on the Mississippi."
#: One character deleted (gold "." at offset 20) inside a span that ends the text.
G_DEL = "They flew home to St. Louis"
P_DEL = "They flew home to St Louis"


def test_a_substituted_character_keeps_its_counterpart():
    m = align_texts(G_SUB, P_SUB, doc="d")
    n = len(G_SUB)  # 34
    assert list(m.to_gold) == list(range(n))
    assert list(m.gold_changed) == [i == 8 for i in range(n)]
    assert list(m.pred_changed) == [i == 8 for i in range(n)]
    assert m.shared == n - 1


def test_inserted_characters_have_no_counterpart():
    m = align_texts(G_INS, P_INS, doc="d")
    assert list(m.to_gold) == [-1, -1, -1, -1, *range(36)]
    assert list(m.gold_changed) == [False] * 36
    assert list(m.pred_changed) == [True] * 4 + [False] * 36
    assert m.shared == 36


def test_a_deleted_character_is_changed_on_the_gold_side():
    m = align_texts(G_DEL, P_DEL, doc="d")
    assert list(m.to_gold) == [*range(20), *range(21, 27)]
    assert list(m.gold_changed) == [i == 20 for i in range(27)]
    assert list(m.pred_changed) == [False] * 26
    assert m.shared == 26


def test_texts_keeping_too_little_are_refused_with_their_share():
    # 8 of 10 characters kept (distance 2, within the bound of 2): the share is given
    with pytest.raises(DocumentMismatchError) as info:
        align_texts("abcdefghij", "abcdefghXY", doc="d7")
    assert str(info.value) == (
        "document 'd7': gold and predicted texts share 80% of their characters; --align chars "
        "pairs texts that keep at least 90% of them, and these look like different documents"
    )
    # 36 of 41 kept (five characters "Mrs. " inserted): 87.8%, one short of 36.9
    with pytest.raises(DocumentMismatchError, match="share 88% of their"):
        align_texts(G_INS, "Mrs. " + G_INS, doc="d8")


def test_texts_too_far_apart_are_refused_without_a_share():
    # distance far above 2 * 10% of 24: refused before any alignment
    with pytest.raises(DocumentMismatchError) as info:
        align_texts("Alice met Bob in Paris.", "Something else entirely!", doc="d9")
    assert str(info.value) == (
        "document 'd9': gold and predicted texts share less than 90% of their characters; "
        "--align chars pairs texts that keep at least 90% of them, and these look like "
        "different documents"
    )
    # 3 of 10 characters rewritten: distance 3 is over the bound (2 * 10% of 10 = 2), so the
    # texts are refused before their share (70%) is worked out
    with pytest.raises(DocumentMismatchError, match="share less than 90% of their"):
        align_texts("abcdefghij", "abcdefgXYZ", doc="d10")


def test_a_long_text_with_many_changes_still_pairs():
    """70 characters rewritten in 800: more than the first band (64) holds, less than the
    bound (160). Every "#" must be an edit of its own, so the distance is 70, all of them
    substitutions (equal lengths), 730 characters kept (91%)."""
    gold = "abcdefghij" * 80
    pred = "".join("#" if i % 11 == 5 and i < 770 else c for i, c in enumerate(gold))
    assert pred.count("#") == 70
    diffs = CharDifferences()
    placed, lost, trailing = reconcile(
        gold, pred, [Span(0, 10, "X")], [], align="chars", doc="long", differences=diffs
    )
    assert (placed, lost, trailing) == ([Span(0, 10, "X")], [], False)
    assert (diffs.documents, diffs.changed_characters, diffs.spans_over_changes) == (1, 70, 1)


# -- placing a span -----------------------------------------------------------------------

#: predicted 0 1 2 3 4 5 -> gold 0 1 (none) 2 3 5
MAPPING = CharMapping(
    to_gold=[0, 1, -1, 2, 3, 5],
    gold_changed=[False] * 6,
    pred_changed=[False, False, True, False, False, False],
    shared=5,
)


@pytest.mark.parametrize(
    "span,placed",
    [
        (Span(0, 2, "X"), Span(0, 2, "X")),  # from the first character
        (Span(0, 1, "X"), Span(0, 1, "X")),  # one character, on gold 0
        (Span(3, 6, "Y"), Span(2, 6, "Y")),  # to the last character (gold 5)
        (Span(4, 5, "Y"), Span(3, 4, "Y")),
        (Span(2, 4, "X"), None),  # starts on a character gold does not have
        (Span(1, 3, "X"), None),  # ends on one
        (Span(2, 3, "X"), None),
        (Span(4, 7, "X"), None),  # past the predicted text
        (Span(-1, 2, "X"), None),
        (Span(0, 0, "X"), None),  # empty
    ],
)
def test_a_span_is_placed_by_its_first_and_last_character(span, placed):
    assert MAPPING.place(span) == placed


def test_a_mapping_that_would_reverse_a_span_places_nothing():
    reversed_ = CharMapping(to_gold=[3, 1], gold_changed=[], pred_changed=[], shared=0)
    assert reversed_.place(Span(0, 2, "X")) is None


# -- reconciling two texts ------------------------------------------------------------------

LOST = "ends in trailing whitespace that the gold text does not have"


def test_trailing_whitespace_keeps_offsets_up_to_the_gold_end():
    # gold is 13 characters; a span ending at 13 stays, one reaching into "  " is lost
    gold, pred = " Ann met Bob.", " Ann met Bob.  "
    spans = [Span(1, 4, "PER"), Span(9, 13, "PER"), Span(13, 15, "X")]
    diffs = CharDifferences()
    out = reconcile(gold, pred, spans, [], align="chars", doc="d", differences=diffs)
    assert out == ([Span(1, 4, "PER"), Span(9, 13, "PER")], [(Span(13, 15, "X"), LOST)], True)
    assert diffs == CharDifferences()  # not an alignment: nothing counted
    # the gold side with the trailing newline: every predicted span fits
    out = reconcile(
        pred + "\n", pred.rstrip(), spans[:2], [], align="text", doc="d", differences=None
    )
    assert out == (spans[:2], [], True)


@pytest.mark.parametrize("align", ["text", "position"])
def test_texts_that_differ_do_not_pair_without_chars(align):
    assert reconcile(G_SUB, P_SUB, [], [], align=align, doc="d", differences=None) is None


def _unplaced(start: int, end: int, text: str) -> str:
    return (
        f"--align chars: predicted span [{start}, {end}) {text!r} starts or ends on "
        "characters the gold text does not have"
    )


def test_a_span_on_inserted_characters_is_unplaced_and_the_others_move():
    # P_INS: "Mr. " 0-3, "Obama" 4-8, "Paris" 19-23; G_INS: "Obama" 0-4, "Paris" 15-19
    diffs = CharDifferences()
    pred_spans = [Span(0, 9, "PER"), Span(4, 9, "PER"), Span(19, 24, "LOC")]
    gold_spans = [Span(0, 5, "PER"), Span(15, 20, "LOC")]
    out = reconcile(
        G_INS, P_INS, pred_spans, gold_spans, align="chars", doc="d1", differences=diffs
    )
    assert out == (
        [Span(0, 5, "PER"), Span(15, 20, "LOC")],
        [(Span(0, 9, "PER"), _unplaced(0, 9, "Mr. Obama"))],
        False,
    )
    assert diffs.to_dict() == {
        "align": "chars",
        "documents": 1,
        "changed_characters": 4,
        "spans_over_changes": 0,
        "unplaced_spans": 1,
        "examples": [f"document 'd1': {_unplaced(0, 9, 'Mr. Obama')}"],
    }


def test_a_span_over_an_inserted_character_is_placed_and_counted():
    # "St. Louis" [0, 9) in P_IN ends on "s" (gold 7): gold [0, 8) "St Louis"
    diffs = CharDifferences()
    out = reconcile(
        G_IN,
        P_IN,
        [Span(0, 9, "LOC"), Span(27, 38, "LOC")],  # "Mississippi" after the change
        [Span(0, 8, "LOC"), Span(26, 37, "LOC")],
        align="chars",
        doc="d2",
        differences=diffs,
    )
    assert out == ([Span(0, 8, "LOC"), Span(26, 37, "LOC")], [], False)
    assert (diffs.documents, diffs.changed_characters) == (1, 1)
    assert (diffs.spans_over_changes, diffs.unplaced_spans) == (1, 0)
    assert diffs.examples == ["document 'd2': predicted 'St. Louis' placed on gold 'St Louis'"]


def test_a_gold_span_over_a_deleted_character_is_counted():
    # gold "They" [0, 4) is untouched; "St. Louis" [18, 27) ends the gold text and lost ".";
    # predicted "St Louis" [18, 26) is placed on gold [18, 27)
    diffs = CharDifferences()
    out = reconcile(
        G_DEL,
        P_DEL,
        [Span(18, 26, "LOC")],
        [Span(0, 4, "PER"), Span(18, 27, "LOC")],
        align="chars",
        doc="d3",
        differences=diffs,
    )
    assert out == ([Span(18, 27, "LOC")], [], False)
    assert (diffs.changed_characters, diffs.spans_over_changes) == (1, 1)
    assert diffs.examples == [
        "document 'd3': gold span 'St. Louis' touches characters the predicted text changed"
    ]


def test_a_span_after_an_insertion_is_untouched():
    # "Rome" [15, 19) in both; "," inserted at 19, right after it
    diffs = CharDifferences()
    out = reconcile(
        "Ann met Bob in Rome today.",
        "Ann met Bob in Rome, today.",
        [Span(15, 19, "LOC")],
        [Span(15, 19, "LOC")],
        align="chars",
        doc="d4",
        differences=diffs,
    )
    assert out == ([Span(15, 19, "LOC")], [], False)
    assert (diffs.spans_over_changes, diffs.examples) == (0, [])


def test_changed_characters_count_the_side_with_more_and_documents_add_up():
    # two "''" become '"': gold loses 4 characters to the change, the prediction 2
    gold = "He said ''no'' to Acme Corp in Boston today."
    pred = 'He said "no" to Acme Corp in Boston today.'
    diffs = CharDifferences()
    reconcile(gold, pred, [], [], align="chars", doc="a", differences=diffs)
    assert (diffs.documents, diffs.changed_characters) == (1, 4)
    reconcile(G_SUB, P_SUB, [], [], align="chars", doc="b", differences=diffs)
    assert (diffs.documents, diffs.changed_characters) == (2, 5)


def test_examples_stop_at_the_limit_but_every_span_is_counted():
    spans = [Span(s, e, "PER") for s, e in ((0, 9), (1, 9), (2, 9), (3, 9), (0, 2), (0, 3))]
    diffs = CharDifferences()
    _, lost, _ = reconcile(G_INS, P_INS, spans, [], align="chars", doc="d", differences=diffs)
    assert [s for s, _ in lost] == spans
    assert diffs.unplaced_spans == 6 and len(diffs.examples) == 5
    assert diffs.examples[-1] == f"document 'd': {_unplaced(0, 2, 'Mr')}"


def test_without_a_report_the_spans_still_move():
    out = reconcile(G_IN, P_IN, [Span(0, 9, "LOC")], [], align="chars", doc="d", differences=None)
    assert out == ([Span(0, 8, "LOC")], [], False)


def test_a_pairing_counts_trailing_whitespace_in_its_notes_only():
    notes: Counter = Counter()
    diffs = CharDifferences()
    pairing = TextPairing("chars", notes, diffs)
    assert pairing.reconcile("Ann.\n", "Ann.", [Span(0, 3, "PER")], [], doc="t") == (
        [Span(0, 3, "PER")],
        [],
    )
    pairing.reconcile("Bob.", "Bob. ", [], [], doc="u")
    assert notes == Counter({TRAILING_WHITESPACE: 2})
    placed = pairing.reconcile(G_INS, P_INS, [Span(0, 9, "PER")], [Span(0, 5, "PER")], doc="d5")
    assert placed == ([], [(Span(0, 9, "PER"), _unplaced(0, 9, "Mr. Obama"))])
    assert notes == Counter({TRAILING_WHITESPACE: 2})  # an alignment is no trailing note
    assert diffs.documents == 1 and diffs.examples[0].startswith("document 'd5': ")
    assert TextPairing("text", notes, None).reconcile(G_SUB, P_SUB, [], [], doc="v") is None
    quiet = TextPairing("text", None, None)
    assert quiet.reconcile("Ann", "Ann ", [], [], doc="w") == ([], [])


def test_the_command_line_reports_the_alignment(tmp_path):
    gold, pred = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    gold.write_text(json.dumps({"id": "a", "text": G_IN, "spans": []}) + "\n")
    spans = [{"start": 0, "end": 9, "label": "LOC"}]
    pred.write_text(json.dumps({"id": "a", "text": P_IN, "spans": spans}) + "\n")
    code, out = cli("evaluate", gold, pred, "--align", "chars", "--format", "json")
    assert code == 0, out
    report = json.JSONDecoder().raw_decode(out[out.index("{") :])[0]
    assert report["inputs"]["predicted"]["alignment"] == {
        "align": "chars",
        "documents": 1,
        "changed_characters": 1,
        "spans_over_changes": 1,
        "unplaced_spans": 0,
        "examples": ["document 'a': predicted 'St. Louis' placed on gold 'St Louis'"],
    }


def test_spans_over_changes_add_up_over_documents():
    diffs = CharDifferences()
    seen = []
    for gold, pred, pred_spans, gold_spans in (
        (G_IN, P_IN, [Span(0, 9, "LOC")], []),  # a predicted span over the inserted "."
        (G_IN, P_IN, [Span(0, 9, "LOC")], []),
        (G_DEL, P_DEL, [], [Span(18, 27, "LOC")]),  # a gold span over the deleted "."
        (G_DEL, P_DEL, [], [Span(18, 27, "LOC")]),
    ):
        reconcile(gold, pred, pred_spans, gold_spans, align="chars", doc="d", differences=diffs)
        seen.append(diffs.spans_over_changes)
    assert seen == [1, 2, 3, 4]
    assert (diffs.documents, diffs.changed_characters) == (4, 4)


def test_a_refusal_names_the_document():
    with pytest.raises(DocumentMismatchError, match="^document 'd11': gold and predicted"):
        reconcile("abcdefghij", "abcdefghXY", [], [], align="chars", doc="d11", differences=None)
