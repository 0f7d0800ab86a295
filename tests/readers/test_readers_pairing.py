"""Pairing gold and predictions: by id or position, in a unit, and every mismatch an error."""

from __future__ import annotations

from collections import Counter

import pytest

from spacy_span_eval import DocumentMismatchError, InvalidInputError, Span
from spacy_span_eval.readers.base import Record
from spacy_span_eval.readers.docbin import doc_record
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.readers.pairing import (
    NOT_IN_GOLD,
    Notes,
    SideInfo,
    documents,
    pair_records,
    to_document,
    tokens_to_chars,
)


def rec(where, text=None, spans=(), *, id=None, tokens=None, repaired=0):
    return Record(
        where=where,
        key=where.replace(" line ", ":"),
        id=id,
        spans=tuple(Span(*s) for s in spans),
        text=text,
        tokens=None if tokens is None else tuple(tokens),
        repaired=repaired,
    )


def pairs(gold, pred, **kwargs):
    return list(pair_records(gold, pred, gold_name="gold.jsonl", pred_name="pred.jsonl", **kwargs))


def test_pairs_by_position_without_ids():
    gold = [rec("g line 1", "a"), rec("g line 2", "b")]
    pred = [rec("p line 1", "a"), rec("p line 2", "b")]
    assert [(g.where, p.where) for g, p in pairs(gold, pred)] == [
        ("g line 1", "p line 1"),
        ("g line 2", "p line 2"),
    ]


def test_pairs_by_id_in_any_order():
    gold = [rec(f"g line {i}", t, id=t) for i, t in enumerate("abcd", 1)]
    pred = [rec(f"p line {i}", t, id=t) for i, t in enumerate("dbac", 1)]
    got = pairs(gold, pred)
    # Each pair holds the gold record on the left: the gold file's line, then the predictions'.
    assert sorted((g.id, g.where, p.id, p.where) for g, p in got) == [
        ("a", "g line 1", "a", "p line 3"),
        ("b", "g line 2", "b", "p line 2"),
        ("c", "g line 3", "c", "p line 4"),
        ("d", "g line 4", "d", "p line 1"),
    ]


def test_ids_on_one_side_only_pair_by_position():
    gold = [rec("g line 1", "a", id="x"), rec("g line 2", "b", id="y")]
    pred = [rec("p line 1", "a"), rec("p line 2", "b")]
    assert [g.id for g, _ in pairs(gold, pred)] == ["x", "y"]


@pytest.mark.parametrize(
    "gold_n,pred_n,longer,doc", [(3, 2, "gold.jsonl", 3), (2, 4, "pred.jsonl", 3)]
)
def test_count_mismatch_names_first_unpaired_and_both_files(gold_n, pred_n, longer, doc):
    gold = [rec(f"g line {i}", "t") for i in range(1, gold_n + 1)]
    pred = [rec(f"p line {i}", "t") for i in range(1, pred_n + 1)]
    with pytest.raises(DocumentMismatchError, match=f"^{longer} has more documents") as info:
        pairs(gold, pred)
    message = str(info.value)
    assert message.startswith(f"{longer} has more documents")
    assert f"document {doc} (" in message and "gold.jsonl" in message and "pred.jsonl" in message


def test_id_on_one_side_only_is_an_error_naming_it():
    gold = [rec("g line 1", "a", id="a"), rec("g line 2", "b", id="b")]
    pred = [rec("p line 1", "a", id="a"), rec("p line 2", "c", id="c")]
    with pytest.raises(
        DocumentMismatchError,
        match=r"'b' \(g line 2\) is in gold\.jsonl but "
        r"not in pred\.jsonl",
    ):
        pairs(gold, pred)


def test_duplicate_and_missing_ids_are_errors():
    gold = [rec("g line 1", "a", id="a"), rec("g line 2", "a", id="a")]
    pred = [rec("p line 1", "a", id="a"), rec("p line 2", "a", id="b")]
    with pytest.raises(InvalidInputError, match=r"g line 2: document id 'a' appears twice"):
        pairs(gold, pred)
    gold = [rec("g line 1", "a", id="a"), rec("g line 2", "a")]
    with pytest.raises(InvalidInputError, match=r"g line 2: record has no id"):
        pairs(gold, pred)


def test_empty_side_is_an_error():
    with pytest.raises(InvalidInputError, match=r"pred\.jsonl: no documents found"):
        pairs([rec("g line 1", "a")], [])


def test_documents_in_char_unit_and_side_counts():
    gold = [rec("g line 1", "Ana in Porto", [(0, 3, "PER")], id="d1")]
    pred = [rec("p line 1", "Ana in Porto", [(0, 3, "PER"), (7, 12, "LOC")], id="d1")]
    gi, pi = SideInfo("gold.jsonl", "jsonl"), SideInfo("pred.jsonl", "jsonl")
    docs = list(documents(pairs(gold, pred), unit="char", gold_info=gi, pred_info=pi))
    assert docs[0].id == "d1" and docs[0].pred == (Span(0, 3, "PER"), Span(7, 12, "LOC"))
    assert (gi.documents, gi.spans, pi.spans) == (1, 1, 2)


def test_text_mismatch_names_document_both_places_and_position():
    gold = [rec("g line 1", "Ana in Porto")]
    pred = [rec("p line 1", "Ana in Porta")]
    with pytest.raises(DocumentMismatchError, match="position 11") as info:
        list(documents(pairs(gold, pred), unit="char"))
    message = str(info.value)
    assert message.startswith("document 'g:1': gold and predicted")  # (one prefix)
    assert "g line 1" in message and "p line 1" in message and "position 11" in message


def test_token_mismatch_names_sentence_both_files_and_lines():
    gold = [rec("gold.conll line 1", tokens=["a"]), rec("gold.conll line 3", tokens=["b", "c"])]
    pred = [rec("pred.conll line 1", tokens=["a"]), rec("pred.conll line 4", tokens=["b"])]
    with pytest.raises(DocumentMismatchError, match="lengths 2 != 1") as info:
        list(documents(pairs(gold, pred), unit="token"))
    message = str(info.value)
    assert message.startswith("document 'gold.conll:3': gold and predicted")
    assert "gold.conll line 3" in message and "pred.conll line 4" in message
    assert "lengths 2 != 1" in message


def test_token_records_in_char_unit():
    tokens = ["New", "York", "is", "big"]
    spans = [Span(0, 2, "LOC"), Span(3, 4, "ADJ")]
    assert tokens_to_chars(tuple(tokens), spans) == [Span(0, 8, "LOC"), Span(12, 15, "ADJ")]
    gold = [rec("g line 1", tokens=tokens, spans=[(0, 2, "LOC")], repaired=2)]
    pred = [rec("p line 1", tokens=tokens, spans=[(1, 2, "LOC")])]
    gi = SideInfo("g", "conll")
    doc = next(documents(pairs(gold, pred), unit="char", gold_info=gi))
    assert doc.text == "New York is big" and doc.pred == (Span(4, 8, "LOC"),)
    assert gi.repaired == 2


def test_text_records_cannot_be_scored_in_token_unit():
    with pytest.raises(InvalidInputError, match=r"g line 1: token unit needs tokens"):
        list(documents(pairs([rec("g line 1", "a")], [rec("p line 1", "a")]), unit="token"))


# -------------------------------------------------------------------------------------------------
# Pairing's values, read exactly: which record lands on which side of a pair (gold and
# predicted records differ in place, spans and id, so a swap shows), every message word for
# word (count mismatches, ids unpaired, repeated or missing, empty inputs, the documents a
# reader dropped), what ``--pairs gold`` counts, and what the side counters and ``to_dict``
# hold after the documents stream past. Expected strings are written out by hand from
# semantics §1 and the module's documented messages.
# -------------------------------------------------------------------------------------------------

GOLD, PRED = "gold.jsonl", "pred.jsonl"


def gold_recs(ids, *, with_ids=True):
    return [rec(f"g line {i}", "t", id=d if with_ids else None) for i, d in enumerate(ids, 1)]


def pred_recs(ids, *, with_ids=True):
    return [rec(f"p line {i}", "t", id=d if with_ids else None) for i, d in enumerate(ids, 1)]


def places(got):
    return [(g.where, p.where) for g, p in got]


def message(exc_type, gold, pred, **kwargs) -> str:
    with pytest.raises(exc_type) as info:
        pairs(gold, pred, **kwargs)
    return str(info.value)


# -- by id: who waits, who pairs, and the gold record always on the left --------------------


def test_in_order_ids_pair_every_document_not_only_the_first():
    got = pairs(gold_recs("abc"), pred_recs("abc"))
    assert places(got) == [
        ("g line 1", "p line 1"),
        ("g line 2", "p line 2"),
        ("g line 3", "p line 3"),
    ]


def test_out_of_order_ids_keep_gold_on_the_left_whichever_side_arrives_last():
    # zip: (a, b) both wait; (b, a): gold b finds predicted b waiting -> (g2, p1), then
    # predicted a finds gold a waiting -> (g1, p2); (c, c) pairs in order -> (g3, p3).
    got = pairs(gold_recs("abc"), pred_recs("bac"))
    assert places(got) == [
        ("g line 2", "p line 1"),
        ("g line 1", "p line 2"),
        ("g line 3", "p line 3"),
    ]
    assert [(g.id, p.id) for g, p in got] == [("b", "b"), ("a", "a"), ("c", "c")]


def test_a_predicted_record_after_gold_ran_out_still_finds_its_partner():
    # gold [a], predicted [x, a] with --pairs gold: a waits in gold, then predicted a (gold
    # side exhausted) pairs with it; x is left out and counted.
    notes = (Notes(), Notes())
    got = pairs(gold_recs("a"), pred_recs("xa"), pairs="gold", notes=notes)
    assert places(got) == [("g line 1", "p line 2")]
    assert notes[1] == Counter({NOT_IN_GOLD: 1}) and notes[0] == Counter()


def test_a_gold_record_after_predictions_ran_out_is_unpaired():
    text = message(DocumentMismatchError, gold_recs("ab"), pred_recs("a"))
    assert text == (
        "document 'b' (g line 2) is in gold.jsonl but not in pred.jsonl "
        "(documents pair by id; 1 unpaired)"
    )


def test_unpaired_predictions_name_the_first_and_count_them():
    # gold [a, b], predicted [c, a, d, b]: c and d wait unpaired.
    text = message(DocumentMismatchError, gold_recs("ab"), pred_recs("cadb"))
    assert text == (
        "document 'c' (p line 1) is in pred.jsonl but not in gold.jsonl "
        "(documents pair by id; 2 unpaired)"
    )


def test_unpaired_on_both_sides_names_the_gold_one_first():
    text = message(DocumentMismatchError, gold_recs("ab"), pred_recs("ac"))
    assert text == (
        "document 'b' (g line 2) is in gold.jsonl but not in pred.jsonl "
        "(documents pair by id; 1 unpaired)"
    )


# -- ids repeated or missing, on either side, in order or not ---------------------------------


def test_repeated_gold_id_in_order_names_gold_and_its_line():
    text = message(InvalidInputError, gold_recs("aa"), pred_recs("aa"))
    assert text == "g line 2: document id 'a' appears twice in gold.jsonl"


def test_repeated_predicted_id_in_order_names_the_predictions():
    # (b, a) both wait; (a, a) is in order: gold a is new, predicted a was seen.
    text = message(InvalidInputError, gold_recs("ba"), pred_recs("aa"))
    assert text == "p line 2: document id 'a' appears twice in pred.jsonl"


def test_repeated_predicted_id_out_of_order_names_the_predictions():
    text = message(InvalidInputError, gold_recs("abc"), pred_recs("bbc"))
    assert text == "p line 2: document id 'b' appears twice in pred.jsonl"


def test_repeated_gold_id_out_of_order_names_gold():
    text = message(InvalidInputError, gold_recs("aa"), pred_recs("bc"))
    assert text == "g line 2: document id 'a' appears twice in gold.jsonl"


def test_missing_predicted_id_names_the_predictions_and_the_cure():
    pred = [rec("p line 1", "t", id="a"), rec("p line 2", "t")]
    text = message(InvalidInputError, gold_recs("ab"), pred)
    assert text == (
        "p line 2: record has no id, but pred.jsonl pairs documents by id "
        "(its first record has one); give every record an id, or none"
    )


def test_missing_gold_id_in_an_in_order_pair_is_caught_too():
    # gold's second record has no id and the predictions' second none either: ids equal
    # (None == None), so the in-order road must still check them.
    gold = [rec("g line 1", "t", id="a"), rec("g line 2", "t")]
    pred = [rec("p line 1", "t", id="a"), rec("p line 2", "t")]
    text = message(InvalidInputError, gold, pred)
    assert text.startswith("g line 2: record has no id, but gold.jsonl pairs documents by id")


# -- by position ------------------------------------------------------------------------------


def test_position_count_mismatch_messages_word_for_word():
    text = message(
        DocumentMismatchError, gold_recs("ab", with_ids=False), pred_recs("abcd", with_ids=False)
    )
    assert text == (
        "pred.jsonl has more documents than gold.jsonl: document 3 (p line 3) "
        "has no partner in gold.jsonl"
    )
    text = message(
        DocumentMismatchError, gold_recs("abc", with_ids=False), pred_recs("a", with_ids=False)
    )
    assert text == (
        "gold.jsonl has more documents than pred.jsonl: document 2 (g line 2) "
        "has no partner in pred.jsonl"
    )


def test_pairs_gold_by_position_counts_every_extra_prediction():
    # 2 gold, 5 predicted: the 3 after gold's end are left out (1 seen + 2 still unread).
    notes = (Notes(), Notes())
    got = pairs(
        gold_recs("ab", with_ids=False),
        pred_recs("abcde", with_ids=False),
        pairs="gold",
        notes=notes,
    )
    assert places(got) == [("g line 1", "p line 1"), ("g line 2", "p line 2")]
    assert notes[1] == Counter({NOT_IN_GOLD: 3}) and notes[0] == Counter()


@pytest.mark.parametrize("with_ids", [True, False], ids=["by-id", "by-position"])
def test_pairs_gold_adds_to_what_the_predicted_notes_hold(with_ids):
    notes = (Notes(), Notes({NOT_IN_GOLD: 4, "relations ignored": 2}))
    pairs(
        gold_recs("a", with_ids=with_ids),
        pred_recs("ayz", with_ids=with_ids),
        pairs="gold",
        notes=notes,
    )
    assert notes[1] == Counter({NOT_IN_GOLD: 6, "relations ignored": 2})


@pytest.mark.parametrize("with_ids", [True, False], ids=["by-id", "by-position"])
def test_pairs_gold_without_notes_given_still_leaves_the_extra_predictions_out(with_ids):
    got = pairs(gold_recs("a", with_ids=with_ids), pred_recs("az", with_ids=with_ids), pairs="gold")
    assert places(got) == [("g line 1", "p line 1")]


@pytest.mark.parametrize("with_ids", [True, False], ids=["by-id", "by-position"])
def test_pairs_both_is_strict_about_extra_predictions(with_ids):
    with pytest.raises(DocumentMismatchError, match=r"pred\.jsonl"):
        pairs(gold_recs("a", with_ids=with_ids), pred_recs("az", with_ids=with_ids))


def test_pairs_gold_still_fails_on_a_gold_document_without_predictions():
    notes = (Notes(), Notes())
    with pytest.raises(DocumentMismatchError) as info:
        pairs(gold_recs("abc"), pred_recs("ax"), pairs="gold", notes=notes)
    assert str(info.value) == (
        "document 'b' (g line 2) is in gold.jsonl but not in pred.jsonl "
        "(documents pair by id; 2 unpaired)"
    )


# -- empty inputs -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n_gold,n_pred,named", [(0, 2, "gold.jsonl"), (2, 0, "pred.jsonl"), (0, 0, "gold.jsonl")]
)
def test_empty_input_is_named_exactly(n_gold, n_pred, named):
    text = message(InvalidInputError, gold_recs("ab"[:n_gold]), pred_recs("ab"[:n_pred]))
    assert text == f"{named}: no documents found (empty input); nothing to score"


def test_first_records_are_not_lost_when_the_pairing_road_is_chosen():
    # The first record of each side is read to choose id or position; both stay in the pairs.
    assert [g.id for g, _ in pairs(gold_recs("ab"), pred_recs("ab"))] == ["a", "b"]
    got = pairs(gold_recs("ab", with_ids=False), pred_recs("ab", with_ids=False))
    assert places(got) == [("g line 1", "p line 1"), ("g line 2", "p line 2")]


# -- what the reader dropped, in the unpaired message -----------------------------------------


def test_unpaired_predictions_say_how_many_gold_dropped_and_hint_pairs_gold():
    gold_notes = Notes()
    gold_notes.dropped = {"x": "reject", "y": "ignore", "q": "ignore"}
    text = message(
        DocumentMismatchError,
        gold_recs("a"),
        pred_recs("xayz"),
        notes=(gold_notes, Notes()),
    )
    # unpaired x, y, z: x and y were dropped by the gold reader (q is not unpaired here)
    assert text == (
        "document 'x' (p line 1) is in pred.jsonl but not in gold.jsonl "
        "(documents pair by id; 3 unpaired: 2 were 'ignore'/'reject' answers in gold.jsonl, "
        "dropped by the reader; use --pairs gold)"
    )


def test_unpaired_gold_says_what_the_predicted_reader_dropped_without_the_hint():
    pred_notes = Notes()
    pred_notes.dropped = {"b": "ignore"}
    text = message(
        DocumentMismatchError, gold_recs("ab"), pred_recs("a"), notes=(Notes(), pred_notes)
    )
    assert text == (
        "document 'b' (g line 2) is in gold.jsonl but not in pred.jsonl "
        "(documents pair by id; 1 unpaired: 1 were 'ignore' answers in pred.jsonl, "
        "dropped by the reader)"
    )


def test_dropped_documents_that_are_not_the_unpaired_ones_add_nothing():
    gold_notes = Notes()
    gold_notes.dropped = {"q": "ignore"}
    text = message(
        DocumentMismatchError, gold_recs("a"), pred_recs("az"), notes=(gold_notes, Notes())
    )
    assert text == (
        "document 'z' (p line 2) is in pred.jsonl but not in gold.jsonl "
        "(documents pair by id; 1 unpaired)"
    )


def test_plain_counters_as_notes_give_the_plain_message():
    text = message(
        DocumentMismatchError, gold_recs("a"), pred_recs("az"), notes=(Counter(), Counter())
    )
    assert text == (
        "document 'z' (p line 2) is in pred.jsonl but not in gold.jsonl "
        "(documents pair by id; 1 unpaired)"
    )


def test_notes_start_with_no_dropped_documents_and_count_like_a_counter():
    notes = Notes({"a": 2}, b=1)
    assert notes == Counter({"a": 2, "b": 1})
    assert notes.dropped == {}
    notes.dropped["x"] = "ignore"
    assert Notes().dropped == {}  # each Notes its own dict


# -- documents: the side counters and to_dict -------------------------------------------------


def test_side_counters_add_documents_spans_and_repairs_per_side():
    gold = [
        rec("g line 1", tokens=["Ana", "ran"], spans=[(0, 1, "PER")], repaired=1, id="d1"),
        rec(
            "g line 2",
            tokens=["Bo", "sat", "here"],
            spans=[(0, 1, "PER"), (2, 3, "LOC")],
            repaired=2,
            id="d2",
        ),
    ]
    pred = [
        rec("p line 1", tokens=["Ana", "ran"], spans=[(0, 2, "PER")], repaired=3, id="d1"),
        rec("p line 2", tokens=["Bo", "sat", "here"], id="d2"),
    ]
    gi, pi = SideInfo(GOLD, "jsonl"), SideInfo(PRED, "conll")
    docs = list(documents(pairs(gold, pred), unit="token", gold_info=gi, pred_info=pi))
    assert [d.id for d in docs] == ["d1", "d2"]
    assert docs[1].gold == (Span(0, 1, "PER"), Span(2, 3, "LOC")) and docs[1].pred == ()
    assert gi.to_dict() == {
        "path": GOLD,
        "format": "jsonl",
        "documents": 2,
        "spans": 3,
        "repaired": 3,
    }
    assert pi.to_dict() == {
        "path": PRED,
        "format": "conll",
        "documents": 2,
        "spans": 1,
        "repaired": 3,
    }


def test_counters_start_from_what_they_hold():
    gi = SideInfo(GOLD, "jsonl", documents=5, spans=7, repaired=1)
    pi = SideInfo(PRED, "jsonl")
    gold = [rec("g line 1", "Ana ran.", [(0, 3, "PER")], repaired=2)]
    pred = [rec("p line 1", "Ana ran.", [(0, 3, "PER"), (4, 7, "V")])]
    list(documents(pairs(gold, pred), unit="char", gold_info=gi, pred_info=pi))
    assert (gi.documents, gi.spans, gi.repaired) == (6, 8, 3)
    assert (pi.documents, pi.spans, pi.repaired) == (1, 2, 0)


def test_trailing_whitespace_prediction_is_unaligned_counted_and_noted():
    gold = [rec("g line 1", "Ana ran.", [(0, 3, "PER")], id="d1")]
    pred = [rec("p line 1", "Ana ran.  ", [(0, 3, "PER"), (8, 10, "X")], id="d1")]
    gi, pi = SideInfo(GOLD, "jsonl"), SideInfo(PRED, "jsonl")
    (doc,) = documents(pairs(gold, pred), unit="char", gold_info=gi, pred_info=pi)
    assert doc.id == "d1" and doc.unit == "char" and doc.text == "Ana ran."
    assert doc.gold == (Span(0, 3, "PER"),) and doc.pred == (Span(0, 3, "PER"),)
    assert doc.unaligned_pred == (
        (Span(8, 10, "X"), "ends in trailing whitespace that the gold text does not have"),
    )
    # the unaligned prediction still counts among the predicted side's spans
    assert (gi.spans, pi.spans) == (1, 2)
    assert pi.to_dict() == {
        "path": PRED,
        "format": "jsonl",
        "documents": 1,
        "spans": 2,
        "repaired": 0,
        "notes": {"texts differing from gold only in trailing whitespace": 1},
    }


@pytest.mark.parametrize(
    ("pred_text", "pred_spans"),
    [
        ("  Ana ran.", [(2, 5, "PER")]),  # the offsets of the text as written
        ("  Ana ran.", [(0, 3, "PER")]),  # the gold offsets
        ("\nAna ran.  ", [(1, 4, "PER")]),  # leading and trailing
    ],
)
def test_leading_whitespace_is_a_text_difference_not_forgiven(pred_text, pred_spans):
    """Only trailing whitespace pairs as it is: leading whitespace would shift every offset
    after it, so the pair is the document's error, never a guess."""
    gold = [rec("g line 1", "Ana ran.", [(0, 3, "PER")], id="d1")]
    pred = [rec("p line 1", pred_text, pred_spans, id="d1")]
    with pytest.raises(DocumentMismatchError, match="document 'd1': gold and predicted texts"):
        list(documents(pairs(gold, pred), unit="char"))


def test_align_chars_moves_predictions_onto_the_gold_text_and_reports_it():
    # gold has two spaces before Porto, the prediction one: Porto moves from 15 to 16.
    gold = [rec("g line 1", "Ana met Bob in  Porto.", [(0, 3, "PER"), (16, 21, "LOC")], id="d1")]
    pred = [rec("p line 1", "Ana met Bob in Porto.", [(0, 3, "PER"), (15, 20, "LOC")], id="d1")]
    gi, pi = SideInfo(GOLD, "jsonl"), SideInfo(PRED, "jsonl")
    (doc,) = documents(pairs(gold, pred), unit="char", gold_info=gi, pred_info=pi, align="chars")
    assert doc.id == "d1" and doc.text == "Ana met Bob in  Porto."
    assert doc.gold == (Span(0, 3, "PER"), Span(16, 21, "LOC"))
    assert doc.pred == (Span(0, 3, "PER"), Span(16, 21, "LOC"))
    assert pi.to_dict() == {
        "path": PRED,
        "format": "jsonl",
        "documents": 1,
        "spans": 2,
        "repaired": 0,
        "alignment": {
            "align": "chars",
            "documents": 1,
            "changed_characters": 1,
            "spans_over_changes": 0,
            "unplaced_spans": 0,
            "examples": [],
        },
    }
    assert "alignment" not in gi.to_dict()


def test_align_position_reports_the_differing_tokens_on_the_predicted_side():
    gold = [rec("g line 1", tokens=["Ana", "ran", "home"], spans=[(0, 1, "PER")])]
    pred = [rec("p line 1", tokens=["Ana", "run", "home"], spans=[(0, 1, "PER"), (2, 3, "LOC")])]
    gi, pi = SideInfo(GOLD, "conll"), SideInfo(PRED, "conll")
    (doc,) = documents(
        pairs(gold, pred), unit="token", gold_info=gi, pred_info=pi, align="position"
    )
    assert doc.tokens == ("Ana", "ran", "home")
    assert doc.pred == (Span(0, 1, "PER"), Span(2, 3, "LOC"))
    assert pi.to_dict()["alignment"] == {
        "align": "position",
        "differing_tokens": 1,
        "sentences": 1,
        "examples": ["g line 2: 'ran' vs p line 2: 'run'"],
    }
    assert "alignment" not in gi.to_dict()


def test_document_ids_fall_back_to_the_gold_key():
    gold = [rec("g line 4", "Ana ran.")]
    pred = [rec("p line 9", "Ana ran.")]
    (doc,) = documents(pairs(gold, pred), unit="char")
    assert doc.id == "g:4"


def test_second_pair_mismatch_names_document_two_and_both_places():
    gold = [rec("g line 1", "Ana ran."), rec("g line 2", "Bo sat.")]
    pred = [rec("p line 1", "Ana ran."), rec("p line 5", "Bo sit.")]
    with pytest.raises(DocumentMismatchError) as info:
        list(documents(pairs(gold, pred), unit="char"))
    text = str(info.value)
    assert text.startswith("document 'g:2': gold and predicted")
    assert text.endswith("; gold g line 2, predicted p line 5")


def test_token_records_scored_in_char_unit_join_tokens_by_one_space():
    gold = [rec("g line 1", tokens=["New", "York", "is", "big"], spans=[(0, 2, "LOC")])]
    pred = [
        rec("p line 1", tokens=["New", "York", "is", "big"], spans=[(1, 2, "LOC"), (3, 4, "A")])
    ]
    (doc,) = documents(pairs(gold, pred), unit="char")
    # "New York is big": New 0-3, York 4-8, is 9-11, big 12-15
    assert doc.text == "New York is big"
    assert doc.gold == (Span(0, 8, "LOC"),)
    assert doc.pred == (Span(4, 8, "LOC"), Span(12, 15, "A"))


def test_to_document_without_a_text_pairing_leaves_differing_texts_an_error():
    gold = rec("g line 1", "Ana ran.", [(0, 3, "PER")], id="d1")
    pred = rec("p line 1", "Ana ran.  ", [(0, 3, "PER")], id="d1")
    with pytest.raises(DocumentMismatchError) as info:
        to_document(gold, pred, unit="char")
    text = str(info.value)
    assert text.startswith("document 'd1': gold and predicted")
    assert text.endswith("; gold g line 1, predicted p line 1")


def test_token_unit_on_a_text_record_names_it_and_the_cure():
    gold = rec("g line 1", "Ana ran.")
    pred = rec("p line 1", tokens=["Ana", "ran", "."])
    with pytest.raises(InvalidInputError) as info:
        to_document(gold, pred, unit="token")
    assert str(info.value) == (
        "g line 1: token unit needs tokens, and this record has only a text; "
        "score it with --unit char (or give CoNLL or .spacy input)"
    )


# -- spaCy Docs on one side or both (the DocBin reader's records) -----------------------------

TEXT = "Ana met Bob in Porto."  # Ana 0-3, met 4-7, Bob 8-11, in 12-14, Porto 15-20, . 20-21
TOKENS = ("Ana", "met", "Bob", "in", "Porto", ".")
KEPT_GOLD_KEY = "span_eval_kept_gold"  # where convert keeps gold a Doc cannot hold


@pytest.fixture(scope="module")
def nlp():
    spacy = pytest.importorskip("spacy")
    return spacy.blank("en")


def make_doc(nlp, text=TEXT, ents=(), group=(), kept=()):
    """A Doc with entities and an "sc" span group (character offsets), and gold spans kept
    beside it (as convert stores them: [start, end, label] rows per source)."""
    doc = nlp(text)
    doc.ents = [doc.char_span(s, e, label=lab) for s, e, lab in ents]
    doc.spans["sc"] = [doc.char_span(s, e, label=lab) for s, e, lab in group]
    if kept:
        doc.user_data[KEPT_GOLD_KEY] = {"ents": [list(row) for row in kept]}
    return doc


def doc_rec(where, doc, id="d7", source="ents"):
    """The DocBin reader's record of ``doc``, gold or predicted as ``where`` says."""
    options = ReadingOptions(source=source, side="gold" if where.startswith("g") else "predicted")
    return doc_record(doc, where, where.replace(" document ", "#"), options, id)


@pytest.fixture
def gold_doc(nlp):
    return make_doc(nlp, ents=[(0, 3, "PER"), (15, 20, "LOC")], group=[(8, 11, "PER")])


@pytest.fixture
def pred_doc(nlp):
    return make_doc(nlp, ents=[(0, 3, "PER"), (8, 11, "ORG")], group=[(15, 20, "GPE")])


def test_two_docs_pair_in_token_unit_from_the_chosen_span_group(gold_doc, pred_doc):
    got = pairs(
        [doc_rec("g.spacy document 1", gold_doc, source="sc")],
        [doc_rec("p.spacy document 1", pred_doc, source="sc")],
    )
    (doc,) = documents(got, unit="token")
    assert doc.id == "d7" and doc.unit == "token" and doc.tokens == TOKENS
    assert doc.gold == (Span(2, 3, "PER"),) and doc.pred == (Span(4, 5, "GPE"),)


def test_two_docs_pair_by_their_entities_unless_told_otherwise(gold_doc, pred_doc):
    got = pairs(
        [doc_rec("g.spacy document 1", gold_doc, id=None)],
        [doc_rec("p.spacy document 1", pred_doc, id=None)],
    )
    (doc,) = documents(got, unit="char")
    assert doc.id == "g.spacy#1" and doc.unit == "char" and doc.text == TEXT
    assert doc.gold == (Span(0, 3, "PER"), Span(15, 20, "LOC"))
    assert doc.pred == (Span(0, 3, "PER"), Span(8, 11, "ORG"))
    direct = to_document(
        doc_rec("g.spacy document 1", gold_doc),
        doc_rec("p.spacy document 1", pred_doc),
        unit="token",
    )
    assert direct.gold == (Span(0, 1, "PER"), Span(4, 5, "LOC"))
    assert direct.pred == (Span(0, 1, "PER"), Span(2, 3, "ORG"))


def test_two_docs_with_different_texts_name_both_places(nlp, gold_doc):
    other = make_doc(nlp, "Ana met Bob in Paris.")
    with pytest.raises(DocumentMismatchError) as info:
        to_document(
            doc_rec("g.spacy document 1", gold_doc),
            doc_rec("p.spacy document 2", other),
            unit="token",
        )
    text = str(info.value)
    assert text.startswith("document 'd7'")
    assert text.endswith(" (gold g.spacy document 1, predicted p.spacy document 2)")


def test_two_docs_differing_in_trailing_whitespace_pair_in_char_unit(nlp, gold_doc):
    # The prediction's text has two more spaces: its spans are placed on gold's text.
    padded = make_doc(nlp, TEXT + "  ", ents=[(8, 11, "ORG")])
    pi = SideInfo(PRED, "spacy")
    got = pairs([doc_rec("g.spacy document 1", gold_doc)], [doc_rec("p.spacy document 1", padded)])
    (doc,) = documents(got, unit="char", pred_info=pi)
    assert doc.id == "d7" and doc.text == TEXT
    assert doc.gold == (Span(0, 3, "PER"), Span(15, 20, "LOC"))
    assert doc.pred == (Span(8, 11, "ORG"),)
    assert pi.notes == Counter({"texts differing from gold only in trailing whitespace": 1})


def test_gold_doc_with_kept_spans_against_conll_tokens(nlp):
    # Kept beside the Doc: CITY 16-20 starts inside "Porto" (unaligned gold in token unit),
    # PREP 12-14 is the token "in" (token 3).
    gold = make_doc(
        nlp, ents=[(0, 3, "PER"), (15, 20, "LOC")], kept=[(16, 20, "CITY"), (12, 14, "PREP")]
    )
    pred = rec("p line 1", tokens=TOKENS, spans=[(0, 1, "PER"), (2, 3, "ORG")], id="d7")
    gi, pi = SideInfo(GOLD, "spacy"), SideInfo(PRED, "conll")
    (doc,) = documents(
        pairs([doc_rec("g.spacy document 1", gold)], [pred]),
        unit="token",
        gold_info=gi,
        pred_info=pi,
    )
    assert doc.id == "d7" and doc.tokens == TOKENS
    assert doc.gold == (Span(0, 1, "PER"), Span(4, 5, "LOC"), Span(3, 4, "PREP"))
    assert doc.pred == (Span(0, 1, "PER"), Span(2, 3, "ORG"))
    ((span, reason),) = doc.unaligned_gold
    assert span == Span(16, 20, "CITY")
    assert reason.startswith("gold span not on token boundaries (kept beside the Doc): ")
    assert (gi.spans, pi.spans) == (4, 2)  # 3 gold spans + 1 unaligned; 2 predicted


def test_gold_doc_with_kept_spans_against_a_text_record_in_char_unit(nlp):
    gold = make_doc(nlp, ents=[(0, 3, "PER")], group=[(8, 11, "PER")], kept=[(16, 20, "CITY")])
    pred = rec("p line 1", TEXT, [(0, 3, "PER"), (15, 20, "LOC")], id="d7")
    (doc,) = documents(pairs([doc_rec("g.spacy document 1", gold)], [pred]), unit="char")
    assert doc.text == TEXT and doc.unit == "char"
    assert doc.gold == (Span(0, 3, "PER"), Span(16, 20, "CITY"))
    assert doc.pred == (Span(0, 3, "PER"), Span(15, 20, "LOC"))
    assert doc.unaligned_gold == ()
    (doc,) = documents(
        pairs([doc_rec("g.spacy document 1", gold, source="sc")], [pred]), unit="char"
    )
    assert doc.gold == (Span(8, 11, "PER"),)  # no spans kept for "sc"


def test_a_malformed_kept_span_names_the_document_by_its_pair_id(nlp):
    gold = make_doc(nlp, kept=[(5, 3, "X")])
    pred = rec("p line 1", TEXT, id="d7")
    with pytest.raises(InvalidInputError) as info:
        to_document(doc_rec("g.spacy document 1", gold), pred, unit="char")
    assert str(info.value) == (
        "document 'd7', user_data['span_eval_kept_gold']['ents'] #0 [5, 3, 'X']: "
        "offsets outside the text (0 <= start < end <= 21)"
    )


def test_a_predicted_doc_carrying_kept_gold_is_refused_by_name(nlp):
    gold = rec("g line 1", TEXT, [(0, 3, "PER")], id="d7")
    pred = make_doc(nlp, ents=[(0, 3, "PER")], kept=[(16, 20, "CITY")])
    with pytest.raises(InvalidInputError) as info:
        to_document(gold, doc_rec("p.spacy document 1", pred), unit="char")
    assert str(info.value).startswith(
        "document 'd7': the predicted doc carries gold spans kept beside it "
        "(user_data['span_eval_kept_gold']['ents'], written by convert)."
    )


def test_a_predicted_doc_against_conll_tokens_reads_its_entities_as_tokens(nlp, pred_doc):
    gold = rec("g line 1", tokens=TOKENS, spans=[(0, 1, "PER")], id="d7")
    (doc,) = documents(pairs([gold], [doc_rec("p.spacy document 1", pred_doc)]), unit="token")
    assert doc.gold == (Span(0, 1, "PER"),)
    assert doc.pred == (Span(0, 1, "PER"), Span(2, 3, "ORG"))
    (doc,) = documents(
        pairs([gold], [doc_rec("p.spacy document 1", pred_doc, source="sc")]), unit="token"
    )
    assert doc.pred == (Span(4, 5, "GPE"),)


@pytest.mark.parametrize("side", ["gold", "predicted"])
def test_ids_on_one_side_only_pair_by_position_in_file_order(side):
    # gold [a, b] and predicted [b, a]: ids on one side only, so the files pair line by line
    gold, pred = gold_recs("ab", with_ids=side == "gold"), pred_recs("ba", with_ids=side != "gold")
    assert places(pairs(gold, pred)) == [("g line 1", "p line 1"), ("g line 2", "p line 2")]


def test_token_mismatch_in_the_third_sentence_is_named_once_by_its_document():
    gold = [rec(f"g line {i}", tokens=["a", "b"]) for i in (1, 4, 7)]
    pred = [
        rec("p line 1", tokens=["a", "b"]),
        rec("p line 4", tokens=["a", "b"]),
        rec("p line 7", tokens=["a"]),
    ]
    with pytest.raises(DocumentMismatchError) as info:
        list(documents(pairs(gold, pred), unit="token"))
    text = str(info.value)
    assert text.startswith("document 'g:7': gold and predicted")
    assert text.endswith("; gold g line 7, predicted p line 7")


def test_align_chars_names_the_document_of_a_prediction_it_can_not_place():
    # "Porto," ends on the comma gold does not have: unplaced, with the document's id
    gold = [rec("g line 1", "Ana met Bob in Porto today.", [(0, 3, "PER")], id="d1")]
    pred = [
        rec("p line 1", "Ana met Bob in Porto, today.", [(0, 3, "PER"), (15, 21, "LOC")], id="d1")
    ]
    pi = SideInfo(PRED, "jsonl")
    (doc,) = documents(pairs(gold, pred), unit="char", pred_info=pi, align="chars")
    reason = (
        "--align chars: predicted span [15, 21) 'Porto,' starts or ends on characters the "
        "gold text does not have"
    )
    assert doc.pred == (Span(0, 3, "PER"),)
    assert doc.unaligned_pred == ((Span(15, 21, "LOC"), reason),)
    alignment = pi.to_dict()["alignment"]
    assert alignment["unplaced_spans"] == 1
    assert alignment["examples"] == [f"document 'd1': {reason}"]


def test_two_docs_with_different_texts_in_token_unit_are_compared_as_docs(nlp, gold_doc):
    other = make_doc(nlp, "Ana met Bob in Paris.")
    got = pairs([doc_rec("g.spacy document 1", gold_doc)], [doc_rec("p.spacy document 2", other)])
    with pytest.raises(DocumentMismatchError) as info:
        list(documents(got, unit="token"))
    text = str(info.value)
    assert text.startswith("document 'd7'")
    assert text.endswith(" (gold g.spacy document 1, predicted p.spacy document 2)")


def test_align_position_names_the_sentence_whose_token_counts_differ():
    gold = [rec("g line 1", tokens=["a", "b"]), rec("g line 4", tokens=["c", "d"])]
    pred = [rec("p line 1", tokens=["a", "b"]), rec("p line 4", tokens=["c", "d", "e"])]
    with pytest.raises(DocumentMismatchError) as info:
        list(documents(pairs(gold, pred), unit="token", align="position"))
    assert str(info.value) == (
        "sentence 2: gold has 2 tokens, the predictions 3; --align position pairs tokens by "
        "position and needs the same number in each sentence (gold g line 4, predicted p line 4)"
    )
