"""``token`` (semantics §2.4) against positions counted by hand.

Every position a span covers carries the span's label; P/R/F are over labelled positions. A
position covered twice by one label counts once; a position covered by two labels counts
once for each.
"""

from __future__ import annotations

import pytest

from spacy_span_eval import Document, Ledger, SpanEvaluator


def scores(gold, pred, *, unit="token", **doc):
    if unit == "token" and "tokens" not in doc:
        doc["length"] = 12
    d = Document.create(id="d", unit=unit, gold=gold, pred=pred, **doc)
    return SpanEvaluator(strategy="token", unit=unit, max_errors=None).evaluate([d]).scores()


def test_shifted_span_counts_its_positions():
    # gold X covers 0 1 2, pred X covers 1 2 3: positions 1, 2 agree; 0 missed; 3 spurious.
    s = scores([(0, 3, "X")], [(1, 4, "X")])
    assert s.per_label["X"] == Ledger(
        num_annotated=3, num_predicted=3, tp=2, fn=1, credited=2, fp=1
    )
    assert s.per_label["X"].precision() == pytest.approx(2 / 3)


def test_lengths_differ_so_precision_and_recall_differ():
    # gold X covers 2..6 (5 positions), pred X covers 4..5 (2): P 2/2, R 2/5.
    x = scores([(2, 7, "X")], [(4, 6, "X")]).per_label["X"]
    assert x == Ledger(5, 2, tp=2, fn=3, credited=2, fp=0)
    assert (x.precision(), x.recall()) == (1.0, pytest.approx(0.4))


def test_a_position_with_two_labels_counts_for_each():
    # gold X covers 0 1, gold Y covers 1 2 (position 1 has both); pred X covers 0 1 2.
    s = scores([(0, 2, "X"), (1, 3, "Y")], [(0, 3, "X")])
    assert s.per_label["X"] == Ledger(2, 3, tp=2, fn=0, credited=2, fp=1)
    assert s.per_label["Y"] == Ledger(2, 0, tp=0, fn=2, credited=0, fp=0)
    assert s.micro == Ledger(4, 3, tp=2, fn=2, credited=2, fp=1)
    # Any entity: labels collapse, so position 1 is one position; 0 1 2 against 0 1 2.
    assert s.entity_agnostic == Ledger(3, 3, tp=3, fn=0, credited=3, fp=0)


def test_a_wrong_label_scores_nothing_for_either_label():
    s = scores([(0, 2, "X")], [(0, 2, "Y")])
    assert s.per_label["X"] == Ledger(2, 0, tp=0, fn=2, credited=0, fp=0)
    assert s.per_label["Y"] == Ledger(0, 2, tp=0, fn=0, credited=0, fp=2)
    assert s.entity_agnostic == Ledger(2, 2, tp=2, fn=0, credited=2, fp=0)


def test_positions_covered_twice_by_one_label_count_once():
    # gold X [0,3) and X [2,5) cover 0..4: 5 positions, not 6 (position 2 shared).
    d = Document.create(
        id="d", unit="token", length=8, gold=[(0, 3, "X"), (2, 5, "X")], pred=[(4, 6, "X")]
    )
    result = SpanEvaluator(strategy="token", unit="token").evaluate([d])
    assert result.micro == Ledger(5, 2, tp=1, fn=4, credited=1, fp=1)
    assert result.notes["gold_positions_shared"] == 1
    assert result.notes.get("pred_positions_shared", 0) == 0


def test_positions_across_documents_add_up():
    docs = [
        Document.create(id="a", unit="token", length=5, gold=[(0, 2, "X")], pred=[(0, 1, "X")]),
        Document.create(id="b", unit="token", length=5, gold=[(3, 5, "X")], pred=[(0, 5, "X")]),
    ]
    result = SpanEvaluator(strategy="token", unit="token").evaluate(docs)
    # a: gold 0 1, pred 0 -> tp 1, fn 1. b: gold 3 4, pred 0..4 -> tp 2, fp 3.
    assert result.micro == Ledger(4, 6, tp=3, fn=1, credited=3, fp=3)


def test_char_unit_counts_characters_spaces_included():
    text = "Ana Berg met Bo Li"
    #       0123456789012345678
    # gold PER "Ana Berg" [0,8) and "Bo Li" [13,18); pred PER "Berg met Bo" [4,15).
    # gold characters: 8 + 5 = 13; pred characters: 11.
    # shared: "Berg" 4..7 (4) and "Bo" 13..14 (2) = 6; " met " (8..12) is predicted only.
    s = scores([(0, 8, "PER"), (13, 18, "PER")], [(4, 15, "PER")], unit="char", text=text)
    assert s.per_label["PER"] == Ledger(13, 11, tp=6, fn=7, credited=6, fp=5)
    assert s.per_label["PER"].f() == pytest.approx(2 * 6 / (13 + 11))


def test_error_records_are_positions():
    s = scores([(0, 2, "X")], [(1, 3, "X")], tokens=["a", "b", "c", "d"])
    assert sorted((e.kind, e.start, e.end) for e in s.errors) == [
        ("false_negative", 0, 1),
        ("false_positive", 2, 3),
    ]
    assert {e.text for e in s.errors} == {"a", "c"}


def test_prediction_positions_covered_twice_are_noted():
    d = Document.create(
        id="d", unit="token", length=8, gold=[(0, 4, "X")], pred=[(0, 3, "X"), (2, 4, "X")]
    )
    result = SpanEvaluator(strategy="token", unit="token").evaluate([d])
    assert result.micro == Ledger(4, 4, tp=4, fn=0, credited=4, fp=0)
    assert result.notes["pred_positions_shared"] == 1
    assert result.notes.get("gold_positions_shared", 0) == 0
