"""Ledger columns are named once (LedgerField), and F-beta has one implementation."""

from __future__ import annotations

import itertools
from dataclasses import fields

import numpy as np
import pytest

from spacy_span_eval import Document, Ledger, SpanEvaluator
from spacy_span_eval.engine.ledger import (
    FIELD_NAMES,
    N_FIELDS,
    LedgerField,
    f_beta,
    f_beta_array,
    ledger_figures,
    ratio,
)


def test_the_enum_names_the_ledger_attributes_in_order():
    assert [f.name for f in fields(Ledger)] == [f.key for f in LedgerField] == list(FIELD_NAMES)
    assert [int(f) for f in LedgerField] == list(range(N_FIELDS))


def test_rows_round_trip():
    ledger = Ledger(num_annotated=4, num_predicted=5, tp=3, fn=1, credited=4, fp=1)
    row = np.array(ledger.to_row())
    assert row[LedgerField.CREDITED] == 4 and row[LedgerField.FN] == 1
    assert Ledger.from_row(row) == ledger
    assert Ledger.from_row(row.astype(np.float64)) == ledger
    assert Ledger.from_row(list(ledger.to_row())) == ledger
    assert list(ledger.to_dict())[:N_FIELDS] == list(FIELD_NAMES)


RATIOS = [None, 0.0, 0.25, 0.5, 1.0, 1 / 3]


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("zero_division", [None, 0.0, 1.0])
def test_scalar_and_array_f_beta_agree_exactly(beta, zero_division):
    pairs = list(itertools.product(RATIOS, RATIOS))
    p = np.array([np.nan if a is None else a for a, _ in pairs])
    r = np.array([np.nan if b is None else b for _, b in pairs])
    got = f_beta_array(p, r, beta, zero_division)
    for (a, b), value in zip(pairs, got.tolist(), strict=True):
        want = f_beta(a, b, beta, zero_division)
        assert (want is None and np.isnan(value)) or want == value, (a, b)


def test_the_undefined_rules():
    assert f_beta(None, 0.0) == 0.0 and f_beta(0.0, None) == 0.0
    assert f_beta(None, 0.5) is None and f_beta(None, None) is None
    assert f_beta(None, 0.5, zero_division=1.0) == 1.0
    assert f_beta(0.0, 0.0) == 0.0
    assert f_beta(0.5, 1.0) == pytest.approx(2 / 3)


# Ledgers with no predictions, no gold, both and neither: every figure defined or not, for
# the vectorised figures to follow (here and in the bootstrap's resamples).
LEDGER_CASES = [
    Ledger(0, 0, 0, 0, 0, 0),
    Ledger(3, 0, 0, 3, 0, 0),
    Ledger(0, 2, 0, 0, 0, 2),
    Ledger(4, 5, 3, 1, 4, 1),
    Ledger(2, 2, 0, 2, 0, 2),
    Ledger(1, 3, 1, 0, 1, 2),
]


def test_ledger_figures_are_the_ledgers_own():
    cases = LEDGER_CASES
    rows = np.array([c.to_row() for c in cases], dtype=float)
    for beta, z in itertools.product((0.5, 1.0, 2.0), (None, 0.0)):
        got = ledger_figures(rows, beta=beta, zero_division=z)
        for i, ledger in enumerate(cases):
            for name, want in (
                ("precision", ledger.precision(z)),
                ("recall", ledger.recall(z)),
                ("f", ledger.f(beta, z)),
            ):
                value = got[name][i]
                assert (want is None and np.isnan(value)) or value == want


# -------------------------------------------------------------------------------------------------
# Ledgers and tallies as values: ratios and F by hand, the invariant check, and adding up.
# -------------------------------------------------------------------------------------------------

# gold 4, predicted 5, 3 annotations found, 2 predictions credited: P 2/5, R 3/4.
L = Ledger(num_annotated=4, num_predicted=5, tp=3, fn=1, credited=2, fp=3)


def test_ratios_by_hand():
    assert (L.precision(), L.recall()) == (0.4, 0.75)
    assert L.f() == pytest.approx(2 * 0.4 * 0.75 / (0.4 + 0.75))
    assert L.f(beta=2.0) == pytest.approx(5 * 0.4 * 0.75 / (4 * 0.4 + 0.75))
    assert L.f(beta=0.5) == pytest.approx(1.25 * 0.4 * 0.75 / (0.25 * 0.4 + 0.75))


def test_undefined_ratios_are_none_unless_zero_division_says_otherwise():
    empty = Ledger(num_annotated=2, fn=2)  # nothing predicted
    assert empty.precision() is None and empty.recall() == 0.0
    assert empty.f() == 0.0  # recall 0: F is 0 whatever precision would be
    assert empty.precision(zero_division=1.0) == 1.0
    assert Ledger().f() is None and Ledger().f(zero_division=0.5) == 0.5
    assert ratio(1, 0) is None and ratio(1, 0, 0.0) == 0.0 and ratio(1, 4) == 0.25


def test_f_beta_edges():
    assert f_beta(None, 0.5) is None and f_beta(0.5, None, zero_division=0.0) == 0.0
    assert f_beta(None, 0.0) == 0.0 and f_beta(0.0, None) == 0.0
    assert f_beta(0.0, 0.0) == 0.0  # both defined and zero: no division by zero
    assert f_beta(1.0, 1.0, beta=3.0) == 1.0
    assert f_beta(0.5, 1.0) == pytest.approx(2 / 3)  # beta defaults to 1


def test_to_dict_is_counts_then_ratios():
    assert L.to_dict(beta=2.0) == {
        "num_annotated": 4,
        "num_predicted": 5,
        "tp": 3,
        "fn": 1,
        "credited": 2,
        "fp": 3,
        "precision": 0.4,
        "recall": 0.75,
        "f": pytest.approx(5 * 0.3 / 2.35),
    }
    assert Ledger(num_predicted=1, fp=1).to_dict(zero_division=0.0)["recall"] == 0.0
    assert Ledger(num_annotated=1, fn=1).to_dict(zero_division=1.0)["precision"] == 1.0
    assert L.to_dict()["f"] == pytest.approx(2 * 0.4 * 0.75 / 1.15)  # beta defaults to 1


@pytest.mark.parametrize(
    "ledger",
    [
        Ledger(num_annotated=1, tp=-1, fn=2),
        Ledger(num_annotated=1, tp=2, fn=-1),
        Ledger(num_predicted=1, credited=-1, fp=2),
        Ledger(num_predicted=1, credited=2, fp=-1),
        Ledger(num_annotated=2, tp=1, fn=0),
        Ledger(num_predicted=2, credited=0, fp=1),
    ],
    ids=["tp<0", "fn<0", "credited<0", "fp<0", "tp+fn", "credited+fp"],
)
def test_check_catches_each_broken_invariant(ledger):
    with pytest.raises(AssertionError, match="Ledger"):
        ledger.check()


def test_ledgers_and_tallies_add_and_sum():
    assert L + L == Ledger(8, 10, tp=6, fn=2, credited=4, fp=6)
    assert sum([L, L, L]) == Ledger(12, 15, tp=9, fn=3, credited=6, fp=9)
    with pytest.raises(TypeError, match="unsupported operand"):
        L + 1  # noqa: B018
    ev = SpanEvaluator(strategy="exact")
    parts = [
        [Document.create(id=i, length=10, gold=[(0, 2, "X")], pred=[(0, 2, "X")])] for i in range(3)
    ]
    total = sum(ev.tally(part) for part in parts)
    assert total.n_documents == 3
    assert total.result().micro == Ledger(3, 3, tp=3, fn=0, credited=3, fp=0)


def test_tallies_of_different_settings_do_not_merge():
    doc = [Document.create(id="d", length=10, gold=[(0, 2, "X")], pred=[])]
    with pytest.raises(
        ValueError,
        match="^cannot merge tallies scored under different settings: strategy: 'exact' vs 'token'",
    ):
        SpanEvaluator(strategy="exact").tally(doc) + SpanEvaluator(strategy="token").tally(doc)
    with pytest.raises(TypeError, match="unsupported operand"):
        SpanEvaluator().tally(doc) + 1  # noqa: B018


def test_per_document_rows_are_kept_only_when_asked_for():
    docs = [
        Document.create(id=i, length=10, gold=[(0, 2, "X")], pred=[(0, 2, "X")]) for i in range(3)
    ]
    assert SpanEvaluator().evaluate(docs).documents is None
    assert SpanEvaluator(per_document=True).evaluate(docs).documents is not None
    assert SpanEvaluator().evaluate(docs).n_documents == 3
