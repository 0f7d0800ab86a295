"""Bad input is an error naming the document and the span, never clipped or dropped."""

from __future__ import annotations

import re

import numpy as np
import pytest

from spacy_span_eval import (
    Document,
    DocumentMismatchError,
    EmptyEvaluationError,
    InvalidSpanError,
    SpanBatch,
    SpanColumns,
    SpanEvaluator,
    UnknownLabelError,
)


@pytest.mark.parametrize(
    "span,why",
    [
        ((-1, 3, "X"), "start is negative"),
        ((3, 3, "X"), "empty"),
        ((5, 3, "X"), "inverted"),
        ((3, 11, "X"), "past the end of the document (10)"),
        ((1, 2, ""), "non-empty"),
        ((1.0, 2, "X"), "integers"),
    ],
)
@pytest.mark.parametrize("side", ["gold", "pred"])
def test_invalid_span_names_document_side_and_span(span, why, side):
    kwargs = {"gold": [(0, 1, "X")], "pred": [(0, 1, "X")]}
    kwargs[side] = [(0, 1, "X"), span]
    with pytest.raises(InvalidSpanError, match=re.escape(why)) as info:
        Document.create(id="doc-7", length=10, **kwargs)
    message = str(info.value)
    assert "'doc-7'" in message and "span #1" in message and why in message
    assert ("gold" if side == "gold" else "predicted") in message


def test_columnar_batches_are_checked_too():
    cols = SpanColumns.from_arrays([0, 1], [0, 4], [2, 9], [0, 0])
    batch = SpanBatch(
        doc_ids=["a", "b"],
        lengths=np.array([5, 5]),
        gold=cols,
        pred=SpanColumns.empty(),
        labels=["X"],
    )
    with pytest.raises(InvalidSpanError, match=r"document 'b', gold span #0 \(4, 9, 'X'\)"):
        SpanEvaluator().tally_batch(batch)


def test_texts_that_differ_are_a_mismatch_naming_the_document():
    with pytest.raises(DocumentMismatchError, match=r"'n-3'.*position 4"):
        Document.pair(id="n-3", gold_text="John Smith", pred_text="JohnXSmith", gold=[], pred=[])
    with pytest.raises(DocumentMismatchError, match="lengths 2 != 3"):
        Document.pair(
            id="t", gold_text=["a", "b"], pred_text=["a", "b", "c"], gold=[], pred=[], unit="token"
        )


def test_length_that_contradicts_the_text_is_a_mismatch():
    with pytest.raises(DocumentMismatchError, match="length 4 does not match"):
        Document.create(id="x", text="hello", length=4, gold=[], pred=[])


def test_empty_evaluation_is_an_error_not_a_perfect_score():
    docs = [Document.create(id=i, length=5, gold=[], pred=[]) for i in range(3)]
    with pytest.raises(EmptyEvaluationError, match="3 document"):
        SpanEvaluator().evaluate(docs)
    with pytest.raises(
        EmptyEvaluationError,
        match=re.escape(
            "nothing to evaluate: 0 documents with no gold and no predicted spans at all "
            "(an empty evaluation must not pass as perfect)"
        )
        + "$",
    ):
        SpanEvaluator().evaluate([])


def test_strict_label_map_names_the_document_of_an_unknown_label():
    docs = [
        Document.create(id="ok", length=9, gold=[(0, 2, "PER")], pred=[]),
        Document.create(id="bad", length=9, gold=[], pred=[(0, 2, "GPE")]),
    ]
    ev = SpanEvaluator(label_map={"PERSON": "PER"}, strict_labels=True)
    with pytest.raises(UnknownLabelError, match=r"document 'bad', predicted span #0.*'GPE'"):
        ev.evaluate(docs)


def test_label_map_applies_before_matching():
    doc = Document.create(id="d", length=9, gold=[(0, 2, "PER")], pred=[(0, 2, "PERSON")])
    result = SpanEvaluator(label_map={"PERSON": "PER"}).evaluate([doc])
    assert list(result.per_label) == ["PER"] and result.per_label["PER"].tp == 1


@pytest.mark.parametrize(
    "settings,message",
    [
        ({"strategy": "nope"}, "unknown strategy 'nope'"),
        ({"thresholds": ()}, "needs at least one IoU threshold"),
        ({"thresholds": (0.0,)}, r"thresholds must be in \(0, 1\], not 0.0"),
        ({"thresholds": (1.5,)}, r"thresholds must be in \(0, 1\], not 1.5"),
        ({"thresholds": (0.5, 0.5)}, r"duplicate thresholds in \(0.5, 0.5\)"),
        ({"coverage": "all"}, "coverage must be 'best' or 'pooled', not 'all'"),
        (
            {"beta": 0},
            "beta must be a finite number > 0 \\(e.g. 1.0, or 2.0 to weigh recall higher\\), not 0",
        ),
        ({"unit": "word"}, "unit must be one of .*, not 'word'"),
        (
            {"strategy": "exact", "one_to_one": True},
            "one_to_one applies to the two_sided strategy only, not to exact",
        ),
        ({"max_errors": -1}, "max_errors \\(None keeps all\\) must be a whole number >= 0, not -1"),
    ],
)
def test_bad_settings_are_rejected(settings, message):
    with pytest.raises(ValueError, match=message):
        SpanEvaluator(**settings)


def test_a_label_missing_from_a_hierarchy_level_names_the_document():
    from spacy_span_eval import Hierarchy

    docs = [
        Document.create(id="ok", length=9, gold=[(0, 2, "PER")], pred=[]),
        Document.create(id="odd", length=9, gold=[(3, 5, "GPE")], pred=[]),
    ]
    ev = SpanEvaluator(hierarchy=Hierarchy({"binary": {"PER": "PII"}}))
    with pytest.raises(UnknownLabelError, match=r"document 'odd', gold span #0.*'GPE'.*binary"):
        ev.evaluate(docs)
