"""Credit selection of semantics §2.1 against a brute-force oracle written from docs/semantics.md's
words.

The oracle works on explicit sets of unit positions: it takes the best IoU over every subset of
the candidates, picks the winning window by docs/semantics.md's tie rules, and reduces it to the
minimal
cover by walking the uncovered positions. It shares no code with the package. The package must
agree on the IoU, on the winning selection index by index (nested spans, identical duplicates
and ties included), and on which predictions end up credited, row by row.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.engine.columns import SpanColumns
from spacy_span_eval.engine.strategies.intervals import best_window
from spacy_span_eval.engine.strategies.two_sided import TwoSided

from reference_windows import best_window_reference

# -- the oracle -----------------------------------------------------------------------------


def positions(spans) -> set[int]:
    return set().union(*(set(range(s, e)) for s, e in spans))


def iou(g: tuple[int, int], spans) -> Fraction:
    gold, cov = set(range(*g)), positions(spans)
    return Fraction(len(gold & cov), len(gold | cov))


def brute_force_iou(g: tuple[int, int], cands: list[tuple[int, int]]) -> Fraction:
    """Max over every non-empty subset."""
    return max(
        iou(g, subset) for k in range(1, len(cands) + 1) for subset in combinations(cands, k)
    )


def oracle_window(g: tuple[int, int], cands: list[tuple[int, int]]) -> tuple[Fraction, list[int]]:
    """The winning window: highest IoU, then fewer spans, then smaller a, then smaller b."""
    gs, ge = g
    keyed = []
    for a in {gs} | {s for s, _ in cands if s <= gs}:
        for b in {ge} | {e for _, e in cands if e >= ge}:
            sel = [i for i, (s, e) in enumerate(cands) if a <= s and e <= b]
            if sel:
                keyed.append(((-iou(g, [cands[i] for i in sel]), len(sel), a, b), sel))
    key, sel = min(keyed)
    return -key[0], sel


def oracle_minimal_cover(cands: list[tuple[int, int]], window: list[int]) -> list[int]:
    """At the first uncovered position x of the union, the window's span containing x that
    ends furthest (ties: smaller start, then earlier in the list); until the union is covered."""
    union, covered, chosen = positions(cands[i] for i in window), set(), []
    while covered != union:
        x = min(union - covered)
        i = min(
            (i for i in window if cands[i][0] <= x < cands[i][1]),
            key=lambda i: (-cands[i][1], cands[i][0], i),
        )
        chosen.append(i)
        covered |= set(range(*cands[i]))
    return sorted(chosen)


def oracle_selection(g, cands) -> tuple[Fraction, list[int]]:
    best, window = oracle_window(g, cands)
    assert best == brute_force_iou(g, cands), "semantics §2.1: the best window is the best subset"
    cover = oracle_minimal_cover(cands, window)
    union = positions(cands[i] for i in window)
    assert positions(cands[i] for i in cover) == union
    # Minimal: no smaller subset of the window has the same union.
    assert not any(
        positions(cands[i] for i in sub) == union
        for k in range(1, len(cover))
        for sub in combinations(window, k)
    )
    return best, cover


def oracle_credits(gold, pred, tau: Fraction, one_to_one: bool = False):
    """(TP per annotation, credited per prediction) for one label, by the oracle."""

    def cands_of(g, allowed):
        return [p for p in allowed if pred[p][0] < g[1] and pred[p][1] > g[0]]

    tp, credited = [False] * len(gold), [False] * len(pred)
    every = range(len(pred))
    if not one_to_one:
        for gi, g in enumerate(gold):
            cand = cands_of(g, every)
            if cand:
                best, sel = oracle_selection(g, [pred[p] for p in cand])
                if best >= tau:
                    tp[gi] = True
                    for i in sel:
                        credited[cand[i]] = True
        return tp, credited
    best_before = [
        oracle_selection(g, [pred[p] for p in c])[0] if (c := cands_of(g, every)) else Fraction(0)
        for g in gold
    ]
    order = sorted(
        range(len(gold)), key=lambda gi: (-best_before[gi], gold[gi][0], gold[gi][1], gi)
    )
    taken: set[int] = set()
    for gi in order:
        free = cands_of(gold[gi], [p for p in every if p not in taken])
        if not free:
            continue
        score, sel = oracle_selection(gold[gi], [pred[p] for p in free])
        taken |= {free[i] for i in sel}
        if score >= tau:
            tp[gi] = True
            for i in sel:
                credited[free[i]] = True
    return tp, credited


# -- inputs ---------------------------------------------------------------------------------


@st.composite
def gold_and_candidates(draw, max_cands: int = 7):
    """One annotation and candidates that all overlap it, with nested spans and identical
    duplicates drawn on purpose."""
    length = draw(st.integers(2, 30))
    gs = draw(st.integers(0, length - 1))
    ge = draw(st.integers(gs + 1, length))
    cands: list[tuple[int, int]] = []
    for _ in range(draw(st.integers(1, max_cands))):
        kind = draw(st.sampled_from(["free", "free", "duplicate", "nested"])) if cands else "free"
        if kind == "duplicate":
            cands.append(draw(st.sampled_from(cands)))
            continue
        if kind == "nested":
            s0, e0 = draw(st.sampled_from(cands))
            s = draw(st.integers(s0, e0 - 1))
            e = draw(st.integers(s + 1, e0))
            if s < ge and e > gs:
                cands.append((s, e))
                continue
        s = draw(st.integers(0, ge - 1))
        e = draw(st.integers(max(s + 1, gs + 1), length))
        cands.append((s, e))
    return length, (gs, ge), cands


@st.composite
def crowded_candidates(draw):
    """Many candidates around one annotation, so every kind of window shows up."""
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


@st.composite
def one_label_document(draw):
    """Several annotations and predictions of one label, nested and duplicated on both sides."""
    length = draw(st.integers(2, 16))

    def span():
        s = draw(st.integers(0, length - 1))
        return (s, draw(st.integers(s + 1, min(length, s + 8))))

    def with_copies(spans, extra):
        for _ in range(extra):
            s0, e0 = draw(st.sampled_from(spans))
            if draw(st.booleans()):
                spans.append((s0, e0))
            else:
                s = draw(st.integers(s0, e0 - 1))
                spans.append((s, draw(st.integers(s + 1, e0))))
        return spans

    gold = with_copies([span() for _ in range(draw(st.integers(1, 3)))], draw(st.integers(0, 1)))
    pred = with_copies([span() for _ in range(draw(st.integers(1, 4)))], draw(st.integers(0, 2)))
    if draw(st.booleans()):
        pred.append(draw(st.sampled_from(gold)))  # a prediction identical to an annotation
    return length, gold, pred


# -- the window search ----------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(case=gold_and_candidates())
def test_window_search_equals_brute_force_over_all_subsets(case):
    _, (gs, ge), cands = case
    inter, union, selection = best_window(gs, ge, cands)
    assert Fraction(inter, union) == brute_force_iou((gs, ge), cands)
    assert list(selection) == oracle_window((gs, ge), cands)[1]


@settings(max_examples=400, deadline=None)
@given(case=st.one_of(gold_and_candidates().map(lambda c: c[1:]), crowded_candidates()))
def test_window_search_returns_the_reference_window(case):
    # The incremental search must pick the very window the first (cubic) search picked:
    # same IoU as a fraction and the same selection before the minimal-cover reduction.
    (gs, ge), cands = case
    assert best_window(gs, ge, cands) == best_window_reference(gs, ge, cands)


# -- the winning selection, span by span -----------------------------------------------------

# (annotation, candidates, oracle's winning selection as indices): hand-checked cases.
CASES = [
    # docs/semantics.md's example, "the Americas" and "Americas": the nested one drops out
    ((0, 12), [(0, 12), (4, 12)], [0]),
    # identical duplicates: the earlier one
    ((0, 5), [(0, 5), (0, 5)], [0]),
    ((0, 5), [(2, 7), (0, 5), (0, 5)], [1]),
    # nested inside the union of two others, not inside either alone
    ((0, 10), [(0, 6), (4, 10), (5, 8)], [0, 1]),
    # cover tie at x = 4 on the end (8): the smaller start
    ((0, 10), [(0, 4), (2, 8), (1, 8), (6, 10)], [0, 2, 3]),
    # cover tie on end and start: the earlier in the list
    ((0, 10), [(0, 4), (3, 10), (3, 10)], [0, 1]),
    # three windows reach 1/2: [0, 4) and [2, 6) with two spans, [2, 4) with (2, 3) alone;
    # fewer spans wins although a = 0 comes first
    ((2, 4), [(0, 4), (2, 6), (2, 3)], [2]),
    # window tie on IoU and count: smaller a. (Windows with equal a and count select the same
    # spans, so the last tie, smaller b, never changes the selection.)
    ((4, 6), [(2, 6), (4, 8)], [0]),
    # a neighbour that only brushes the annotation is left out
    ((0, 10), [(0, 10), (9, 30)], [0]),
]


@pytest.mark.parametrize("g,cands,expected", CASES)
def test_hand_cases_agree_with_the_oracle_and_the_package(g, cands, expected):
    best, selection = oracle_selection(g, cands)
    assert selection == expected
    inter, union, sel = TwoSided((0.5,)).select(*g, cands)
    assert (Fraction(inter, union), list(sel)) == (best, expected)


@settings(max_examples=400, deadline=None)
@given(case=gold_and_candidates(max_cands=8))
def test_the_winning_selection_is_the_oracles_minimal_cover(case):
    _, g, cands = case
    best, selection = oracle_selection(g, cands)
    inter, union, sel = TwoSided((0.5,)).select(*g, cands)
    assert Fraction(inter, union) == best
    assert list(sel) == selection


TAUS = (0.2, 0.4, 0.5, 0.6, 0.8, 1.0)


def columns(spans):
    n = len(spans)
    return SpanColumns.from_arrays(
        np.zeros(n), [s for s, _ in spans], [e for _, e in spans], np.zeros(n)
    )


@settings(max_examples=300, deadline=None)
@given(case=one_label_document(), one_to_one=st.booleans())
def test_credited_predictions_equal_the_oracles_row_by_row(case, one_to_one):
    _, gold, pred = case
    match = TwoSided(TAUS, one_to_one=one_to_one).match(columns(gold), columns(pred), 1)
    for t, tau in enumerate(TAUS):
        tp, credited = oracle_credits(gold, pred, Fraction(str(tau)), one_to_one)
        assert match.gold_tp[t].tolist() == tp, tau
        assert match.pred_credited[t].tolist() == credited, tau


@settings(max_examples=150, deadline=None)
@given(case=one_label_document(), one_to_one=st.booleans())
def test_engine_false_positives_are_the_oracles_uncredited_predictions(case, one_to_one):
    length, gold, pred = case
    # The engine scores identical spans on one side as one (semantics §3, self-agreement);
    # the oracle is asked about those distinct spans.
    gold, pred = list(dict.fromkeys(gold)), list(dict.fromkeys(pred))
    doc = Document.create(
        id="d",
        length=length,
        gold=[(s, e, "X") for s, e in gold],
        pred=[(s, e, "X") for s, e in pred],
    )
    result = SpanEvaluator(
        thresholds=TAUS, max_errors=None, one_to_one=one_to_one, batch_size=1
    ).evaluate([doc])
    for tau in TAUS:
        tp, credited = oracle_credits(gold, pred, Fraction(str(tau)), one_to_one)
        run = result.scores(tau)
        fp = Counter((e.start, e.end) for e in run.errors if e.side == "predicted")
        fn = Counter((e.start, e.end) for e in run.errors if e.side == "gold")
        assert fp == Counter(p for p, c in zip(pred, credited, strict=True) if not c)
        assert fn == Counter(g for g, ok in zip(gold, tp, strict=True) if not ok)
        assert run.per_label["X"].credited == sum(credited)


@settings(max_examples=150, deadline=None)
@given(case=gold_and_candidates(), data=st.data())
def test_engine_verdicts_equal_brute_force(case, data):
    length, (gs, ge), cands = case
    # Other annotations and non-overlapping predictions around it must not change the verdict.
    extra_gold = data.draw(
        st.lists(st.tuples(st.integers(0, length - 1), st.integers(1, 5)), max_size=3)
    )
    gold = [(gs, ge, "X")] + [(s, min(length, s + n), "X") for s, n in extra_gold]
    gold = list(dict.fromkeys(gold))  # identical annotations are one (semantics §3)
    doc = Document.create(id="d", length=length, gold=gold, pred=[(s, e, "X") for s, e in cands])
    result = SpanEvaluator(thresholds=TAUS, max_errors=None).evaluate([doc])
    for tau in TAUS:
        expected_tp = 0
        for s, e, _ in gold:
            overlapping = [(cs, ce) for cs, ce in cands if cs < e and ce > s]
            if overlapping and brute_force_iou((s, e), overlapping) >= Fraction(str(tau)):
                expected_tp += 1
        assert result.scores(tau).per_label["X"].tp == expected_tp
