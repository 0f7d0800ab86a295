"""Holm's step-down adjustment, worked by hand, and where the paired test applies it: over the
labels of each figure, never to micro or macro."""

from __future__ import annotations

import pytest

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.engine.paired import holm, holm_over_slices, paired_test


def test_holm_on_known_p_values():
    # Sorted: 0.01, 0.02, 0.03, 0.04, 0.20 (m = 5).
    # 5 * 0.01 = 0.05; 4 * 0.02 = 0.08; 3 * 0.03 = 0.09; 2 * 0.04 = 0.08 -> max so far 0.09;
    # 1 * 0.20 = 0.20. Back in the input order:
    adjusted = holm([0.03, 0.20, 0.01, 0.04, 0.02])
    assert adjusted == pytest.approx([0.09, 0.20, 0.05, 0.09, 0.08])


def test_holm_caps_at_one_keeps_ties_and_skips_missing_tests():
    assert holm([0.5, None, 0.4]) == pytest.approx([0.8, None, 0.8])
    assert holm([0.01, 0.01]) == pytest.approx([0.02, 0.02])
    assert holm([0.7, 0.9, 0.6]) == pytest.approx([1.0, 1.0, 1.0])
    assert holm([0.04695]) == [0.04695]  # a family of one is left as it is
    assert holm([]) == [] and holm([None]) == [None]


def _corpus(missed: dict[str, int], n: int = 20) -> list[Document]:
    docs = []
    for label in ("LOC", "ORG", "PER"):
        for i in range(n):
            pred = [] if i < missed.get(label, 0) else [(0, 3, label)]
            docs.append(
                Document.create(
                    id=f"{label}{i}", text="Ana smiled", gold=[(0, 3, label)], pred=pred
                )
            )
    return docs


def test_paired_test_adjusts_labels_per_figure_and_leaves_micro_and_macro_alone():
    a = SpanEvaluator(per_document=True).evaluate(_corpus({}))
    b = SpanEvaluator(per_document=True).evaluate(_corpus({"LOC": 6, "ORG": 2}))
    test = paired_test(a, b, resamples=500, seed=3)
    for f in ("precision", "recall", "f"):
        raw = [test.per_label[lab].figures[f].p_value for lab in ("LOC", "ORG", "PER")]
        got = [test.per_label[lab].figures[f].p_holm for lab in ("LOC", "ORG", "PER")]
        assert got == pytest.approx(holm(raw)), f
        assert all(test.per_label[lab].figures[f].family == 3 for lab in test.per_label)
        for aggregate in (test.micro, test.macro):
            d = aggregate.figures[f]
            assert (d.p_holm, d.family, d.adjusted) == (None, 0, False)
            assert d.decisive_p == d.p_value
    assert test.family_sizes() == {"precision": 3, "recall": 3, "f": 3}
    # JSON: a label keeps its p_value and adds p_holm; micro and macro carry no p_holm.
    data = test.to_dict()
    loc = data["per_label"]["LOC"]["figures"]["recall"]
    assert loc["p_value"] == test.per_label["LOC"].figures["recall"].p_value
    assert loc["p_holm"] == test.per_label["LOC"].figures["recall"].p_holm
    assert data["per_label"]["LOC"]["p_holm"] == test.per_label["LOC"].figures["f"].p_holm
    assert "p_holm" not in data["micro"] and "p_holm" not in data["micro"]["figures"]["recall"]
    assert "p_holm" not in data["macro"]["figures"]["f"]


def test_a_slice_is_tested_alone_and_holm_spans_slices_and_labels():
    docs_a, docs_b = _corpus({}), _corpus({"LOC": 6, "ORG": 2})
    a, b = (SpanEvaluator(per_document=True).evaluate(d) for d in (docs_a, docs_b))
    halves = {"first": range(0, 30), "second": range(30, 60)}  # LOC+ORG half, ORG+PER half
    tests = {k: paired_test(a, b, resamples=300, seed=5, documents=v) for k, v in halves.items()}
    for name, members in halves.items():
        alone = paired_test(
            *(
                SpanEvaluator(per_document=True).evaluate([d[i] for i in members])
                for d in (docs_a, docs_b)
            ),
            resamples=300,
            seed=5,
        )
        assert tests[name].n_documents == 30
        for label, d in alone.per_label.items():
            got = tests[name].per_label[label].figures["recall"]
            assert (got.difference, got.p_value) == (
                d.figures["recall"].difference,
                d.figures["recall"].p_value,
            )
    adjusted = holm_over_slices(tests)
    raw = [d.figures["recall"].p_value for t in tests.values() for d in t.per_label.values()]
    got = [d.figures["recall"].p_holm for t in adjusted.values() for d in t.per_label.values()]
    assert got == pytest.approx(holm(raw))
    # a label without spans in a slice has no test: 2 labels in each half, 4 tests in all
    assert {
        d.figures["recall"].family for t in adjusted.values() for d in t.per_label.values()
    } == {4}
    assert adjusted["first"].micro == tests["first"].micro
