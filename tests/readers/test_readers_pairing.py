"""Pairing gold and predictions: by id or position, in a unit, and every mismatch an error."""

from __future__ import annotations

import pytest

from spacy_span_eval import DocumentMismatchError, InvalidInputError, Span
from spacy_span_eval.readers.base import Record
from spacy_span_eval.readers.pairing import SideInfo, documents, pair_records, tokens_to_chars


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


def pairs(gold, pred):
    return list(pair_records(gold, pred, gold_name="gold.jsonl", pred_name="pred.jsonl"))


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
    assert message.startswith("document 1: document 'g:1'")
    assert "g line 1" in message and "p line 1" in message and "position 11" in message


def test_token_mismatch_names_sentence_both_files_and_lines():
    gold = [rec("gold.conll line 1", tokens=["a"]), rec("gold.conll line 3", tokens=["b", "c"])]
    pred = [rec("pred.conll line 1", tokens=["a"]), rec("pred.conll line 4", tokens=["b"])]
    with pytest.raises(DocumentMismatchError, match="lengths 2 != 1") as info:
        list(documents(pairs(gold, pred), unit="token"))
    message = str(info.value)
    assert message.startswith("sentence 2")
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
