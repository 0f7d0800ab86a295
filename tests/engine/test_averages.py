"""Micro, macro and weighted averages (semantics §3) recomputed by hand from the ledgers.

One ``exact`` evaluation where every label has its own precision, recall and support:

=====  ====  ====  ==  ===========  ===========  ===========
label  gold  pred  TP  P            R            F1
=====  ====  ====  ==  ===========  ===========  ===========
A      4     2     1   1/2          1/4          1/3
B      1     3     1   1/3          1            1/2
C      0     1     0   0            undefined    0
D      2     0     0   undefined    0            0
=====  ====  ====  ==  ===========  ===========  ===========

Macro: the plain mean over labels whose figure is defined. Weighted: the mean weighted by
gold support (C weighs nothing). A weighting by predictions (A 2, B 3, C 1, D 0) gives other
numbers everywhere, and so does counting undefined figures as 0.
"""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

from spacy_span_eval import Document, Ledger, SpanEvaluator

GOLD = [
    (0, 2, "A"),
    (3, 5, "A"),
    (6, 8, "A"),
    (9, 11, "A"),
    (12, 14, "B"),
    (15, 17, "D"),
    (18, 20, "D"),
]
PRED = [
    (0, 2, "A"),
    (3, 4, "A"),  # A: one exact, one cut short
    (12, 14, "B"),
    (21, 23, "B"),
    (24, 26, "B"),
    (27, 29, "C"),
]


def evaluate(**options):
    doc = Document.create(id="d", length=30, gold=GOLD, pred=PRED)
    return SpanEvaluator(strategy="exact", **options).evaluate([doc]).scores()


def f1(p, r):
    return 2 * p * r / (p + r)


def test_the_ledgers_are_the_table():
    s = evaluate()
    assert s.per_label == {
        "A": Ledger(4, 2, tp=1, fn=3, credited=1, fp=1),
        "B": Ledger(1, 3, tp=1, fn=0, credited=1, fp=2),
        "C": Ledger(0, 1, tp=0, fn=0, credited=0, fp=1),
        "D": Ledger(2, 0, tp=0, fn=2, credited=0, fp=0),
    }
    assert s.micro == Ledger(7, 6, tp=2, fn=5, credited=2, fp=4)


def test_micro_pools_the_counts():
    micro = evaluate().micro
    assert micro.precision() == pytest.approx(float(F(2, 6)))
    assert micro.recall() == pytest.approx(float(F(2, 7)))
    assert micro.f() == pytest.approx(float(f1(F(2, 6), F(2, 7))))


def test_macro_is_the_mean_over_labels_with_a_defined_figure():
    macro = evaluate().macro
    assert macro["precision"] == pytest.approx(float((F(1, 2) + F(1, 3) + 0) / 3))  # D undefined
    assert macro["recall"] == pytest.approx(float((F(1, 4) + 1 + 0) / 3))  # C undefined
    assert macro["f"] == pytest.approx(float((F(1, 3) + F(1, 2) + 0 + 0) / 4))
    assert macro["labels"] == 4


def test_weighted_is_weighted_by_gold_support():
    weighted = evaluate().weighted
    # Weights A 4, B 1, C 0, D 2; D's precision is undefined, so it leaves that mean.
    assert weighted["precision"] == pytest.approx(float((4 * F(1, 2) + 1 * F(1, 3)) / 5))
    assert weighted["recall"] == pytest.approx(float((4 * F(1, 4) + 1 * 1 + 2 * 0) / 7))
    assert weighted["f"] == pytest.approx(float((4 * F(1, 3) + 1 * F(1, 2) + 2 * 0) / 7))
    assert weighted["labels"] == 3  # C has no support


def test_weighted_is_not_weighted_by_predictions():
    weighted = evaluate().weighted
    by_predictions = float((2 * F(1, 3) + 3 * F(1, 2) + 1 * 0 + 0 * 0) / 6)
    assert weighted["f"] != pytest.approx(by_predictions)


def test_zero_division_fills_the_undefined_figures_before_averaging():
    s = evaluate(zero_division=0.0)
    assert s.macro["precision"] == pytest.approx(float((F(1, 2) + F(1, 3) + 0 + 0) / 4))
    assert s.macro["recall"] == pytest.approx(float((F(1, 4) + 1 + 0 + 0) / 4))
    # Weighted: D now has precision 0 with weight 2.
    assert s.weighted["precision"] == pytest.approx(float((4 * F(1, 2) + F(1, 3) + 0) / 7))
    s = evaluate(zero_division=1.0)
    assert s.macro["precision"] == pytest.approx(float((F(1, 2) + F(1, 3) + 0 + 1) / 4))
    assert s.macro["recall"] == pytest.approx(float((F(1, 4) + 1 + 1 + 0) / 4))


def test_beta_reaches_every_average():
    s = evaluate(beta=2.0)

    def f2(p, r):
        return 5 * p * r / (4 * p + r)

    assert s.per_label["A"].f(2.0) == pytest.approx(float(f2(F(1, 2), F(1, 4))))
    assert s.macro["f"] == pytest.approx(float((f2(F(1, 2), F(1, 4)) + f2(F(1, 3), 1)) / 4))
    assert s.weighted["f"] == pytest.approx(float((4 * f2(F(1, 2), F(1, 4)) + f2(F(1, 3), 1)) / 7))
    assert s.to_dict()["micro"]["f"] == pytest.approx(float(f2(F(2, 6), F(2, 7))))


def test_only_undefined_figures_average_to_undefined():
    # One label, predicted but never in gold: recall undefined, so every recall mean is too.
    doc = Document.create(id="d", length=5, gold=[], pred=[(0, 2, "X")])
    s = SpanEvaluator(strategy="exact").evaluate([doc]).scores()
    assert s.macro["recall"] is None and s.weighted["recall"] is None
    assert s.macro["precision"] == 0.0 and s.weighted["precision"] is None
    assert s.weighted["labels"] == 0 and s.macro["labels"] == 1


def test_the_json_carries_the_same_averages():
    s = evaluate()
    data = json.loads(json.dumps(s.to_dict()))
    assert data["macro"] == pytest.approx(s.macro)
    assert data["weighted"]["recall"] == pytest.approx(float((4 * F(1, 4) + 1) / 7))
    assert data["per_label"]["C"]["recall"] is None
    assert data["per_label"]["D"]["precision"] is None
    assert data["per_label"]["A"] == {
        "num_annotated": 4,
        "num_predicted": 2,
        "tp": 1,
        "fn": 3,
        "credited": 1,
        "fp": 1,
        "precision": 0.5,
        "recall": 0.25,
        "f": pytest.approx(1 / 3),
    }
    assert data["errors_total"] == 5 + 4
