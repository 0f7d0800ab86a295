"""spaCy Example/Doc -> engine Document: offsets, ids, units, projection, mismatches."""

from __future__ import annotations

import numpy as np
import pytest
from spacy.training import Example

from spacy_span_eval import (
    DocumentMismatchError,
    InvalidInputError,
    InvalidSpanError,
    Span,
    SpanEvaluator,
)
from spacy_span_eval.adapters.spacy_docs import (
    DOC_ID_KEY,
    KEPT_GOLD_KEY,
    check_predicted,
    docs_to_document,
    example_to_document,
    has_source_annotation,
    set_kept_gold,
    span_scores,
    stored_doc_id,
)

from spacy_doc_factory import examples_to_documents, make_doc


def test_char_unit_uses_character_offsets_and_text():
    words = ["Jo", "lives", "in", "New", "York"]
    gold = make_doc(words, ents=["B-PER", "O", "O", "B-LOC", "I-LOC"])
    pred = make_doc(words, ents=["B-PER", "O", "O", "O", "B-LOC"])
    doc = example_to_document(Example(pred, gold))
    assert doc.text == "Jo lives in New York"
    assert doc.gold == (Span(0, 2, "PER"), Span(12, 20, "LOC"))
    assert doc.pred == (Span(0, 2, "PER"), Span(16, 20, "LOC"))
    assert doc.id == "0"


def test_token_unit_uses_token_indices_when_tokenization_agrees():
    gold = make_doc(["New", "York", "is", "big"], ents=["B-LOC", "I-LOC", "O", "O"])
    pred = make_doc(["New", "York", "is", "big"], ents=["B-LOC", "O", "O", "O"])
    doc = docs_to_document(gold, pred, unit="token")
    assert doc.tokens == ("New", "York", "is", "big")
    assert doc.gold == (Span(0, 2, "LOC"),)
    assert doc.pred == (Span(0, 1, "LOC"),)
    assert doc.unaligned_pred == ()


def test_spans_key_source_reads_the_group_and_a_missing_group_is_empty():
    words = ["the", "Royal", "Navy", "fleet"]
    gold = make_doc(words, spans={"sc": [(1, 3, "ORG"), (1, 4, "MIL")]})
    pred = make_doc(words, spans={"other": [(0, 1, "X")]})
    doc = docs_to_document(gold, pred, source="sc")
    assert doc.gold == (Span(4, 14, "ORG"), Span(4, 20, "MIL"))
    assert doc.pred == ()
    assert has_source_annotation(gold, "sc") and not has_source_annotation(pred, "sc")


def test_differing_texts_raise_naming_the_document():
    gold = make_doc(["Jo", "lives", "here"])
    pred = make_doc(["Jo", "lived", "here"])
    with pytest.raises(DocumentMismatchError) as exc:
        docs_to_document(gold, pred, doc_id="doc-7")
    assert str(exc.value) == (
        "document 'doc-7': reference and predicted texts differ at character 7 "
        "('s here' != 'd here')"
    )


def test_same_text_different_tokens_is_not_a_mismatch_in_char_unit():
    gold = make_doc(["Smith-led", "team"], ents=["B-PER", "O"])
    pred = make_doc(
        ["Smith", "-", "led", "team"],
        spaces=[False, False, True, False],
        ents=["B-PER", "O", "O", "O"],
    )
    doc = docs_to_document(gold, pred)
    assert doc.gold == (Span(0, 9, "PER"),)
    assert doc.pred == (Span(0, 5, "PER"),)


def test_token_unit_projects_or_reports_but_never_drops():
    # Reference: one token "Smith-led"; prediction tokenizes it into three.
    gold = make_doc(["Smith-led", "team", "won"], ents=["B-PER", "O", "O"])
    pred = make_doc(
        ["Smith", "-", "led", "team", "won"],
        spaces=[False, False, True, True, False],
        ents=["B-PER", "O", "O", "B-ORG", "O"],
    )
    doc = docs_to_document(gold, pred, unit="token", doc_id="d")
    assert doc.pred == (Span(1, 2, "ORG"),)  # "team" projects onto reference token 1
    assert len(doc.unaligned_pred) == 1
    span, reason = doc.unaligned_pred[0]
    assert span == Span(0, 5, "PER")  # kept in character offsets
    assert "end character 5" in reason and "'Smith-led'" in reason


def test_token_unit_projection_of_a_span_covering_several_reference_tokens():
    gold = make_doc(["Smith", "-", "led"], spaces=[False, False, False], ents=["B-PER", "O", "O"])
    pred = make_doc(["Smith-led"], ents=["B-ORG"])
    doc = docs_to_document(gold, pred, unit="token")
    assert doc.pred == (Span(0, 3, "ORG"),)
    assert doc.unaligned_pred == ()


def test_unaligned_predictions_are_counted_as_false_positives():
    gold = make_doc(["Smith-led", "team"], ents=["B-PER", "O"])
    pred = make_doc(
        ["Smith", "-", "led", "team"],
        spaces=[False, False, True, False],
        ents=["B-PER", "O", "O", "O"],
    )
    result = SpanEvaluator(unit="token").evaluate([docs_to_document(gold, pred, unit="token")])
    ledger = result.per_label["PER"]
    assert (ledger.num_annotated, ledger.num_predicted, ledger.fn, ledger.fp) == (1, 1, 1, 1)
    assert result.notes["unaligned_predictions"] == 1


def test_ids_explicit_then_stored_then_position():
    docs = []
    for i in range(3):
        gold = make_doc(["a", "b"], ents=["B-X", "O"])
        if i == 1:
            gold.user_data[DOC_ID_KEY] = "file.conll:12"
        docs.append(Example(make_doc(["a", "b"]), gold))
    assert [d.id for d in examples_to_documents(docs)] == ["0", "file.conll:12", "2"]
    assert example_to_document(docs[1], doc_id="mine").id == "mine"
    assert example_to_document(docs[1]).id == "file.conll:12"


def test_unknown_unit_is_rejected():
    doc = make_doc(["a"])
    with pytest.raises(ValueError, match="unit"):
        docs_to_document(doc, doc, unit="word")


def test_a_stored_id_is_read_from_the_predicted_doc_when_the_reference_has_none():
    gold = make_doc(["a", "b"], ents=["B-X", "O"])
    pred = make_doc(["a", "b"])
    pred.user_data[DOC_ID_KEY] = "pred.jsonl:3"
    assert docs_to_document(gold, pred).id == "pred.jsonl:3"


def kept_gold_doc(rows):
    doc = make_doc(["Ring", "0100ext2", "today"], ents=["O", "O", "O"])
    doc.user_data[KEPT_GOLD_KEY] = {"ents": rows}
    return doc


def test_malformed_kept_gold_is_refused_naming_the_id_given():
    gold = kept_gold_doc([[5, 99, "PHONE"]])
    with pytest.raises(InvalidSpanError) as caught:
        docs_to_document(gold, make_doc(["Ring", "0100ext2", "today"]), doc_id="d-9")
    assert str(caught.value) == (
        "document 'd-9', user_data['span_eval_kept_gold']['ents'] #0 [5, 99, 'PHONE']: "
        "offsets outside the text (0 <= start < end <= 19)"
    )


def test_a_predicted_doc_carrying_kept_gold_is_refused_naming_the_id_given():
    gold = make_doc(["Ring", "0100ext2", "today"], ents=["O", "O", "O"])
    with pytest.raises(InvalidInputError) as caught:
        docs_to_document(gold, kept_gold_doc([[5, 9, "PHONE"]]), doc_id="d-9")
    assert str(caught.value).startswith(
        "document 'd-9': the predicted doc carries gold spans kept beside it "
        "(user_data['span_eval_kept_gold']['ents'], written by convert)"
    )


def test_the_reference_as_its_own_prediction_may_carry_kept_gold():
    """Its kept gold is gold, read once: a miss, as the doc's own spans cannot hold it."""
    gold = kept_gold_doc([[5, 9, "PHONE"]])
    doc = docs_to_document(gold, gold)
    assert (doc.gold, doc.pred) == ((Span(5, 9, "PHONE"),), ())


def scored_group(scores):
    doc = make_doc(["a", "b", "c"], spans={"sc": [(0, 1, "X"), (1, 3, "Y")]})
    doc.spans["sc"].attrs["model"] = "spancat"  # attrs other than scores are left alone
    if scores is not None:
        doc.spans["sc"].attrs["scores"] = scores
    return doc.spans["sc"]


@pytest.mark.parametrize(
    ("scores", "read"),
    [
        ([0.25, 1], [0.25, 1.0]),
        (np.array([0.5, 0.75], dtype=np.float32), [0.5, 0.75]),
        (None, [None, None]),  # no scores
        ([0.5], [None, None]),  # not one per span
        ([0.5, 0.25, 0.125], [None, None]),
        (["high", "low"], [None, None]),  # not numbers
        ([0.5, None], [None, None]),
        (0.5, [None, None]),  # one number for the group
        ([0.5, float("inf")], [None, None]),  # not finite
        (np.array([np.nan, 0.5]), [None, None]),
    ],
)
def test_a_span_groups_scores_are_read_only_as_one_number_per_span(scores, read):
    assert span_scores(scored_group(scores)) == read


def test_doc_ents_have_no_scores():
    doc = make_doc(["a", "b"], ents=["B-X", "O"])
    assert span_scores(doc.ents) == [None]


def test_a_predicted_doc_carrying_kept_gold_is_refused_word_for_word():
    doc = make_doc(["a", "b"], spans={"sc": [(0, 1, "X")]})
    check_predicted(doc, "sc", "p-1")  # nothing kept beside it
    doc.user_data[KEPT_GOLD_KEY] = {"ents": [[0, 1, "X"]]}
    check_predicted(doc, "sc", "p-1")  # kept for another source
    doc.user_data[KEPT_GOLD_KEY]["sc"] = [[0, 1, "X"]]
    check_predicted(doc, "sc", "p-1", doc)  # the reference itself
    with pytest.raises(InvalidInputError) as caught:
        check_predicted(doc, "sc", "p-1", make_doc(["a", "b"]))
    assert str(caught.value) == (
        "document 'p-1': the predicted doc carries gold spans kept beside it "
        "(user_data['span_eval_kept_gold']['sc'], written by convert). Predictions must be "
        "spans of the Doc; if this doc is a copy of the reference, remove that key, and score "
        "predictions a tokenizer cannot hold from a JSONL file in char unit"
    )


@pytest.mark.parametrize(
    ("kept", "source", "annotated"),
    [
        ({"ents": [[0, 1, "X"]]}, "ents", True),
        ({"ents": [[0, 1, "X"]]}, "sc", False),
        ({"sc": [[0, 1, "X"]]}, "sc", True),
        ({"sc": []}, "sc", False),
        ([[0, 1, "X"]], "sc", True),  # (malformed: refused when read)
        (None, "ents", False),
    ],
)
def test_gold_kept_beside_a_doc_annotates_it_for_its_source(kept, source, annotated):
    doc = make_doc(["a", "b"])
    if kept is not None:
        doc.user_data[KEPT_GOLD_KEY] = kept
    assert has_source_annotation(doc, source) is annotated


@pytest.mark.parametrize(
    ("gold_id", "pred_id", "stored"),
    [(None, None, None), ("g", None, "g"), (None, "p", "p"), ("g", "p", "g"), (0, "p", 0)],
)
def test_the_stored_id_is_the_first_docs_that_has_one(gold_id, pred_id, stored):
    docs = [make_doc(["a"]), make_doc(["a"])]
    for doc, value in zip(docs, (gold_id, pred_id), strict=True):
        if value is not None:
            doc.user_data[DOC_ID_KEY] = value
    assert stored_doc_id(*docs) == stored


def test_kept_gold_is_stored_as_plain_lists_added_to_what_is_there():
    doc = make_doc(["Ring", "0100ext2"])
    set_kept_gold(doc, "ents", [])
    assert KEPT_GOLD_KEY not in doc.user_data  # nothing to keep: nothing stored
    doc.user_data[KEPT_GOLD_KEY] = "junk"
    set_kept_gold(doc, "ents", [Span(5, 9, "PHONE")])
    set_kept_gold(doc, "ents", [Span(0, 4, "VERB")])
    set_kept_gold(doc, "sc", [Span(5, 13, "CODE")])
    assert doc.user_data[KEPT_GOLD_KEY] == {
        "ents": [[5, 9, "PHONE"], [0, 4, "VERB"]],
        "sc": [[5, 13, "CODE"]],
    }
