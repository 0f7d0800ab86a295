"""The window search of SPEC 2.1 finds the best IoU over all subsets (checked by brute force)."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.strategies.intervals import best_window, best_window_reference


def brute_force_iou(g: tuple[int, int], cands: list[tuple[int, int]]) -> Fraction:
    """Max over every non-empty subset, computed on explicit sets of unit positions."""
    gold = set(range(*g))
    best = Fraction(0)
    for k in range(1, len(cands) + 1):
        for subset in combinations(cands, k):
            covered = set().union(*(set(range(s, e)) for s, e in subset))
            best = max(best, Fraction(len(gold & covered), len(gold | covered)))
    return best


@st.composite
def gold_and_candidates(draw):
    length = draw(st.integers(2, 30))
    gs = draw(st.integers(0, length - 1))
    ge = draw(st.integers(gs + 1, length))
    cands = []
    for _ in range(draw(st.integers(1, 7))):
        s = draw(st.integers(0, ge - 1))
        e = draw(st.integers(max(s + 1, gs + 1), length))
        cands.append((s, e))
    return length, (gs, ge), cands


@settings(max_examples=400, deadline=None)
@given(case=gold_and_candidates())
def test_window_search_equals_brute_force_over_all_subsets(case):
    _, (gs, ge), cands = case
    inter, union, selection = best_window(gs, ge, cands)
    assert Fraction(inter, union) == brute_force_iou((gs, ge), cands)
    assert selection, "the best selection is never empty"


@st.composite
def crowded_candidates(draw):
    """Many candidates around one annotation: nested, duplicated, sticking out on either side
    or both, so every kind of window the search distinguishes shows up."""
    length = draw(st.integers(2, 60))
    gs = draw(st.integers(0, length - 1))
    ge = draw(st.integers(gs + 1, length))
    cands = []
    for _ in range(draw(st.integers(1, 30))):
        if cands and draw(st.integers(0, 5)) == 0:
            cands.append(draw(st.sampled_from(cands)))  # an identical duplicate
            continue
        s = draw(st.integers(0, ge - 1))
        e = draw(st.integers(max(s + 1, gs + 1), length))
        cands.append((s, e))
    return (gs, ge), cands


@settings(max_examples=400, deadline=None)
@given(case=st.one_of(gold_and_candidates().map(lambda c: c[1:]), crowded_candidates()))
def test_window_search_returns_the_reference_window(case):
    # The incremental search must pick the very window the first (cubic) search picked:
    # same IoU as a fraction and the same selection before the minimal-cover reduction.
    (gs, ge), cands = case
    assert best_window(gs, ge, cands) == best_window_reference(gs, ge, cands)


@settings(max_examples=150, deadline=None)
@given(case=gold_and_candidates(), data=st.data())
def test_engine_verdicts_equal_brute_force(case, data):
    length, (gs, ge), cands = case
    # Other annotations and non-overlapping predictions around it must not change the verdict.
    extra_gold = data.draw(st.lists(st.tuples(st.integers(0, length - 1), st.integers(1, 5)),
                                    max_size=3))
    gold = [(gs, ge, "X")] + [(s, min(length, s + n), "X") for s, n in extra_gold]
    doc = Document.create(id="d", length=length, gold=gold, pred=[(s, e, "X") for s, e in cands])
    taus = (0.2, 0.4, 0.5, 0.6, 0.8, 1.0)
    result = SpanEvaluator(thresholds=taus, max_errors=None).evaluate([doc])
    for tau in taus:
        expected_tp = 0
        for s, e, _ in gold:
            overlapping = [(cs, ce) for cs, ce in cands if cs < e and ce > s]
            if overlapping and brute_force_iou((s, e), overlapping) >= Fraction(str(tau)):
                expected_tp += 1
        assert result.scores(tau).per_label["X"].tp == expected_tp
