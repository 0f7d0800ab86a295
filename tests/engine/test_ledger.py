"""Ledger columns are named once (LedgerField), and F-beta has one implementation."""

from __future__ import annotations

import itertools
from dataclasses import fields

import numpy as np
import pytest

from spacy_span_eval import Ledger
from spacy_span_eval.engine.ledger import (
    FIELD_NAMES,
    N_FIELDS,
    LedgerField,
    f_beta,
    f_beta_array,
    ledger_figures,
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


def test_ledger_figures_are_the_ledgers_own():
    cases = [
        Ledger(0, 0, 0, 0, 0, 0),
        Ledger(3, 0, 0, 3, 0, 0),
        Ledger(0, 2, 0, 0, 0, 2),
        Ledger(4, 5, 3, 1, 4, 1),
        Ledger(2, 2, 0, 2, 0, 2),
        Ledger(1, 3, 1, 0, 1, 2),
    ]
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
