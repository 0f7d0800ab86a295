"""The two_sided window search and its interval arithmetic, value by value (semantics §2.1).

``best_window`` is checked against an oracle written here that visits every window and
counts units as Python sets (nothing of the package's arithmetic in it), on hand-picked
shapes whose answers are worked out in the comments and on a seeded sweep of small random
shapes, also shifted past 2**30 where the search switches to exact Python integers.
``covered``, ``iou_parts`` and ``minimal_cover`` get hand-worked values; the TwoSided
strategy's ``select``, ``cover``, ``pair_cover`` and ``match`` are read on small batches
whose IoUs are written out as fractions. Fast: every case is a few spans.
"""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from spacy_span_eval.engine.columns import SpanColumns
from spacy_span_eval.engine.strategies.intervals import (
    _suffix_max,
    _uncovered,
    best_window,
    covered,
    iou_parts,
    minimal_cover,
)
from spacy_span_eval.engine.strategies.two_sided import TwoSided, pairwise_iou


def oracle_window(gs, ge, cands):
    """Every window ``[a, b)`` of semantics §2.1, units counted as sets; highest IoU, then
    fewer spans, smaller a, smaller b. Returns ``(inter, union, selection)``."""
    a_opts = sorted({gs} | {s for s, _ in cands if s <= gs})
    b_opts = sorted({ge} | {e for _, e in cands if e >= ge})
    g = set(range(gs, ge))
    best = None
    for a in a_opts:
        for b in b_opts:
            sel = tuple(i for i, (s, e) in enumerate(cands) if s >= a and e <= b)
            if not sel:
                continue
            units = set()
            for i in sel:
                units |= set(range(*cands[i]))
            inter, union = len(g & units), len(g | units)
            key = (-Fraction(inter, union), len(sel), a, b)
            if best is None or key < best[0]:
                best = (key, inter, union, sel)
    return best[1:]


def oracle_cover(cands, sel):
    """Minimal cover by units: at the first uncovered unit, the selected span over it that
    ends furthest (ties: smaller start, then earlier index)."""
    todo = set()
    for i in sel:
        todo |= set(range(*cands[i]))
    chosen = []
    while todo:
        x = min(todo)
        pick = max(
            (i for i in sel if cands[i][0] <= x < cands[i][1]),
            key=lambda i: (cands[i][1], -cands[i][0], -i),
        )
        chosen.append(pick)
        todo -= set(range(*cands[pick]))
    return tuple(sorted(chosen))


def random_shape(rng, width=14, most=7):
    gs = rng.randrange(1, width - 3)
    ge = rng.randrange(gs + 1, min(width, gs + 7))
    cands = []
    for _ in range(rng.randrange(1, most + 1)):
        s = rng.randrange(0, ge)
        e = rng.randrange(max(s, gs) + 1, width + 1)
        cands.append((s, e))
    return gs, ge, cands


# --- covered / iou_parts -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("g", "spans", "expected"),
    [
        ((2, 10), [(0, 4)], 2),  # [2, 4)
        ((2, 10), [(8, 15)], 2),  # [8, 10)
        ((2, 10), [(3, 5), (7, 9)], 4),  # two pieces with a gap: 2 + 2
        ((2, 10), [(7, 9), (3, 5)], 4),  # the same, given in the other order
        ((2, 10), [(3, 6), (4, 5)], 3),  # nested: [3, 6)
        ((2, 10), [(3, 6), (5, 8)], 5),  # overlapping: [3, 8)
        ((2, 10), [(3, 6), (6, 8)], 5),  # touching: [3, 8)
        ((2, 10), [(3, 5), (4, 6), (8, 12)], 5),  # [3, 6) and [8, 10)
        ((2, 10), [(0, 12)], 8),  # all of g
        ((2, 10), [(0, 2), (10, 12)], 0),  # only touching g from outside
        ((2, 10), [(0, 2), (1, 5)], 3),  # one touching from outside, then [2, 5)
        ((2, 10), [(12, 14), (0, 1), (3, 5)], 2),  # outside on both sides, then [3, 5)
        ((0, 20), [(1, 3), (5, 9), (6, 7), (12, 14)], 8),  # 2 + 4 + 2
        ((0, 20), [(1, 3), (3, 5), (10, 11)], 5),  # [1, 5) and [10, 11)
    ],
)
def test_covered_counts_the_units_of_g_under_the_union(g, spans, expected):
    assert covered(*g, spans) == expected


def test_iou_parts_is_intersection_and_hull_of_g_and_the_spans():
    # g [4, 10); spans [2, 5) and [8, 13): g ∩ ∪ = [4, 5) + [8, 10) = 3; hull [2, 13) = 11
    assert iou_parts(4, 10, [(2, 5), (8, 13)]) == (3, 11)
    # inner only: [5, 7) inside g [4, 10): 2 of a hull of 6
    assert iou_parts(4, 10, [(5, 7)]) == (2, 6)
    # a span further left than another's start: hull from the smallest start, 1, to 10
    assert iou_parts(4, 10, [(3, 6), (1, 5)]) == (2, 9)
    # the largest end decides the right edge, 14, not the last one listed
    assert iou_parts(4, 10, [(9, 14), (5, 12)]) == (5, 10)


# --- the small helpers of the search -------------------------------------------------------


def test_suffix_max_holds_the_top_of_each_suffix_and_its_last_index():
    top, at = _suffix_max(np.array([3, 1, 3, 2, -1]))
    # from k on: max of [3,1,3,2,-1] = 3 (last at 2); [1,3,2,-1] 3 at 2; [3,2,-1] 3 at 2;
    # [2,-1] 2 at 3; [-1] at 4
    assert top.tolist() == [3, 3, 3, 2, -1]
    assert at.tolist() == [2, 2, 2, 3, 4]
    top, at = _suffix_max(np.array([5, 5, 5]))
    assert (top.tolist(), at.tolist()) == ([5, 5, 5], [2, 2, 2])
    top, at = _suffix_max(np.array([1, 2, 3]))
    assert (top.tolist(), at.tolist()) == ([3, 3, 3], [2, 2, 2])
    top, at = _suffix_max(np.array([4, 9, 1, 9, 0]))
    assert (top.tolist(), at.tolist()) == ([9, 9, 9, 9, 0], [3, 3, 3, 3, 4])


def test_uncovered_counts_what_the_spans_leave_open_before_t():
    # spans [2, 5), [3, 4), [8, 9), [9, 10), unsorted: pieces [2, 5) and [8, 10)
    u = _uncovered(np.array([8, 3, 2, 9]), np.array([9, 4, 5, 10]))
    t = np.array([0, 1, 2, 3, 5, 6, 8, 9, 10, 12])
    # U(3) = 3 - 1 = 2; U(6) = 6 - 3; U(9) = 9 - 3 - 1; U(12) = 12 - 5
    assert u(t).tolist() == [0, 1, 2, 2, 2, 3, 5, 5, 5, 7]
    # a span reaching past a later one's end, and a gap right at the start
    u = _uncovered(np.array([0, 1, 6]), np.array([5, 3, 7]))
    assert u(np.array([0, 4, 5, 6, 7, 9])).tolist() == [0, 0, 0, 1, 1, 3]
    # no spans: all of [0, t) is open, and t itself is not changed
    t = np.array([0, 3, 7])
    out = _uncovered(np.array([], dtype=np.int64), np.array([], dtype=np.int64))(t)
    assert out.tolist() == [0, 3, 7]
    out[0] = 99
    assert t.tolist() == [0, 3, 7]


# --- best_window ---------------------------------------------------------------------------

# (g, candidates, (inter, union, selection)), each worked by hand.
WINDOWS = [
    # one inner candidate: [3, 5) in g [2, 8): 2/6
    ((2, 8), [(3, 5)], (2, 6, (0,))),
    # left [0, 5) and right [5, 10) cover g [2, 8) between them: 6/10 beats either alone
    # ([0, 5): 3/8, [5, 10): 3/8)
    ((2, 8), [(0, 5), (5, 10)], (6, 10, (0, 1))),
    # the same, the right one given first: the selection is in input order
    ((2, 8), [(5, 10), (0, 5)], (6, 10, (0, 1))),
    # a far-reaching left candidate drags the union: [0, 4) alone 2/8 < [2, 4)... only
    # inner [3, 7) 4/6 beats [0, 4)+[3, 7) = 5/8 (0.625 < 0.667)
    ((2, 8), [(0, 4), (3, 7)], (4, 6, (1,))),
    # a "both" candidate [1, 9) over g [2, 8): 6/8; a right one [6, 20) is worse with it
    ((2, 8), [(1, 9), (6, 20)], (6, 8, (0,))),
    # two "both" candidates: the shorter [1, 9) wins (6/8 > 6/10)
    ((2, 8), [(0, 10), (1, 9)], (6, 8, (1,))),
    # "both" [0, 10) 6/10 against inner [2, 7) 5/6: the inner one wins
    ((2, 8), [(0, 10), (2, 7)], (5, 6, (1,))),
    # "both" [0, 10) 6/10 against left [1, 4) 2/7 and right [6, 9) 2/7 (together 4/8 = 0.5)
    ((2, 8), [(0, 10), (1, 4), (6, 9)], (6, 10, (0, 1, 2))),
    # a tie of IoU: [2, 5) and [5, 8) each 3/6, together 6/6: the pair
    ((2, 8), [(2, 5), (5, 8)], (6, 6, (0, 1))),
    # left [1, 4) and right [6, 9) are 2/7 each, but together 4/8 beat either
    ((2, 8), [(6, 9), (1, 4)], (4, 8, (0, 1))),
    # both inner, equal IoU 2/6 and one span: a = g.start for both, smaller b... both have
    # b = g.end; the window selects both (4/6), which is better anyway
    ((2, 8), [(2, 4), (6, 8)], (4, 6, (0, 1))),
    # identical duplicates: one window selects both; 3/6 with two spans
    ((2, 8), [(3, 6), (3, 6)], (3, 6, (0, 1))),
    # the both window holds an inner span: [0, 10) with [3, 4) inside: 6/10 either way;
    # it is the only kind of window reaching 6/10 (inner alone 1/6): both selected
    ((2, 8), [(0, 10), (3, 4)], (6, 10, (0, 1))),
]


@pytest.mark.parametrize(("g", "cands", "expected"), WINDOWS)
def test_best_window_on_hand_worked_shapes(g, cands, expected):
    assert oracle_window(*g, cands) == expected  # the oracle agrees with the hand
    assert best_window(*g, cands) == expected


def test_best_window_refuses_no_candidates():
    with pytest.raises(ValueError, match="^best_window needs at least one candidate$"):
        best_window(2, 8, [])


def test_best_window_returns_plain_ints():
    inter, union, sel = best_window(2, 8, [(0, 5), (5, 10)])
    assert type(inter) is int and type(union) is int
    assert all(type(i) is int for i in sel)


@pytest.mark.parametrize("seed", range(6))
def test_best_window_equals_the_oracle_on_random_shapes(seed):
    rng = random.Random(seed)
    for _ in range(120):
        gs, ge, cands = random_shape(rng)
        assert best_window(gs, ge, cands) == oracle_window(gs, ge, cands), (gs, ge, cands)


@pytest.mark.parametrize("seed", range(3))
def test_best_window_equals_the_oracle_on_crowded_shapes(seed):
    # more candidates in less room: many ties, duplicates, and "both" candidates
    rng = random.Random(100 + seed)
    for _ in range(80):
        gs, ge, cands = random_shape(rng, width=10, most=9)
        assert best_window(gs, ge, cands) == oracle_window(gs, ge, cands), (gs, ge, cands)


@pytest.mark.parametrize("shift", [(1 << 30) - 5, 1 << 31, 1 << 40])
def test_best_window_is_exact_far_from_zero(shift):
    rng = random.Random(7)
    for _ in range(60):
        gs, ge, cands = random_shape(rng)
        inter, union, sel = oracle_window(gs, ge, cands)
        moved = [(s + shift, e + shift) for s, e in cands]
        assert best_window(gs + shift, ge + shift, moved) == (inter, union, sel)


def test_best_window_is_exact_over_a_span_past_2_to_the_30():
    # a candidate reaching 2**31 to the right: the union is a long one, products are big
    big = 1 << 31
    cands = [(0, 5), (4, big), (5, 9)]
    # g [2, 10): [0, 5) alone 3/10, [0,5)+[5,9) 7/10, [5, 9) alone 4/8, with [4, big) the
    # union is huge: the best is [0, 5) + [5, 9), 7/10
    assert best_window(2, 10, cands) == (7, 10, (0, 2))
    cands = [(-big, 3), (1, 10), (3, 9)]
    # g [2, 10): [1, 10) is left, 8/9 with the inner [3, 9) (in every window); with
    # [-big, 3) the union is huge
    assert best_window(2, 10, cands) == (8, 9, (1, 2))


@pytest.mark.parametrize("scale", [3**19, 3**21, 3**25])
def test_best_window_scaled_past_2_to_the_30_keeps_its_selection(scale):
    # Stretching every coordinate by the same factor stretches the intersection and the
    # union by it and keeps every IoU, so the same window wins; the products the search
    # compares then pass 64 bits (scale 3**25: union ~ 2**43, products ~ 2**86) and are not
    # powers of two times small numbers, which floats would still hold exactly.
    rng = random.Random(11)
    shapes = [(*g, cands) for g, cands, _ in WINDOWS] + [random_shape(rng) for _ in range(40)]
    for gs, ge, cands in shapes:
        inter, union, sel = oracle_window(gs, ge, cands)
        stretched = [(s * scale, e * scale) for s, e in cands]
        got = best_window(gs * scale, ge * scale, stretched)
        assert got == (inter * scale, union * scale, sel), (gs, ge, cands)


def test_best_window_with_many_tight_both_candidates():
    # 1100 copies of the "both" span [0, 12) over g [3, 9), plus an inner one: the candidate
    # blocks are worked in chunks; the window [0, 12) selects everything, IoU 6/12
    cands = [(0, 12)] * 1100 + [(4, 5)]
    inter, union, sel = best_window(3, 9, cands)
    assert (inter, union) == (6, 12)
    assert sel == tuple(range(1101))
    # the same with a shorter "both" span last: only it and the inner span inside it
    cands = [(0, 12)] * 1100 + [(4, 5), (2, 10)]
    assert best_window(3, 9, cands) == (6, 8, (1100, 1101))


# --- minimal_cover -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cands", "sel", "expected"),
    [
        # a nested span drops out
        ([(0, 10), (2, 5)], (0, 1), (0,)),
        # identical duplicates: the earlier one stays
        ([(3, 6), (3, 6)], (0, 1), (0,)),
        # a chain of three, where the middle one is needed
        ([(0, 4), (3, 8), (7, 12)], (0, 1, 2), (0, 1, 2)),
        # a chain where the middle one is redundant: [0, 5) then [4, 12) reaches further
        ([(0, 5), (3, 6), (4, 12)], (0, 1, 2), (0, 2)),
        # two pieces with a gap, each with a nested span
        ([(8, 9), (0, 3), (7, 11), (1, 2)], (0, 1, 2, 3), (1, 2)),
        # equal ends at the same point: the smaller start covers it
        ([(2, 6), (0, 6)], (0, 1), (1,)),
        # only the selected spans count
        ([(0, 10), (2, 5), (4, 8)], (1, 2), (1, 2)),
        # touching spans are both needed
        ([(0, 3), (3, 6)], (0, 1), (0, 1)),
        # the furthest end from the same start, given later
        ([(0, 3), (0, 7), (5, 9)], (0, 1, 2), (1, 2)),
        # nothing selected
        ([(0, 3)], (), ()),
    ],
)
def test_minimal_cover_on_hand_worked_selections(cands, sel, expected):
    assert oracle_cover(cands, sel) == expected
    assert minimal_cover(cands, sel) == expected


def test_minimal_cover_equals_the_oracle_on_random_selections():
    rng = random.Random(3)
    for _ in range(300):
        cands = []
        for _ in range(rng.randrange(1, 8)):
            s = rng.randrange(0, 12)
            cands.append((s, rng.randrange(s + 1, 14)))
        sel = tuple(i for i in range(len(cands)) if rng.random() < 0.8)
        assert minimal_cover(cands, sel) == oracle_cover(cands, sel), (cands, sel)


# --- TwoSided: select, cover, pair_cover ---------------------------------------------------


def test_select_with_one_candidate_is_its_pairwise_iou():
    best = TwoSided((0.5,), coverage="best", one_to_one=False)
    # g [2, 8), p [0, 5): 3 of a hull of 8
    assert best.select(2, 8, [(0, 5)]) == (3, 8, (0,))


def test_select_pooled_takes_every_candidate():
    pooled = TwoSided((0.5,), coverage="pooled", one_to_one=False)
    # g [2, 8), [0, 4) and [3, 7): units [2, 7) = 5 of hull [0, 8) = 8; nothing is reduced
    assert pooled.select(2, 8, [(0, 4), (3, 7)]) == (5, 8, (0, 1))
    # even a nested one stays
    assert pooled.select(2, 8, [(2, 8), (3, 4)]) == (6, 6, (0, 1))


def test_select_best_reduces_the_window_to_its_minimal_cover():
    best = TwoSided((0.5,), coverage="best", one_to_one=False)
    # g [2, 8): [2, 8) and [3, 4) nested: window selects both (6/6), the cover only [2, 8)
    assert best.select(2, 8, [(3, 4), (2, 8)]) == (6, 6, (1,))
    # [0, 4) and [3, 7): the inner [3, 7) alone wins, 4/6
    assert best.select(2, 8, [(0, 4), (3, 7)]) == (4, 6, (1,))


def test_cover_passes_at_thresholds_up_to_its_iou_inclusive():
    strat = TwoSided((0.25, 0.5, 0.6, 0.75), coverage="best", one_to_one=False)
    # g [2, 8), [0, 5) and [5, 10): 6/10 = 0.6, equal to the third threshold
    c = strat.cover(2, 8, [(0, 5), (5, 10)])
    assert c.score == pytest.approx(0.6)
    assert c.selection == (0, 1)
    assert c.passes.tolist() == [True, True, True, False]


def test_pairwise_iou_is_overlap_over_hull():
    gs, ge = np.array([2, 2, 0]), np.array([8, 8, 4])
    ps, pe = np.array([0, 4, 0]), np.array([5, 6, 4])
    # [2,8)/[0,5): 3/8; [2,8)/[4,6): 2/6; [0,4)/[0,4): 1
    assert pairwise_iou(gs, ge, ps, pe).tolist() == [3 / 8, 2 / 6, 1.0]


def test_pair_cover_is_the_iou_and_its_verdict_per_threshold():
    strat = TwoSided((0.3, 0.5), coverage="best", one_to_one=False)
    iou, ok = strat.pair_cover(
        np.array([2, 0]), np.array([8, 4]), np.array([0, 0]), np.array([5, 2])
    )
    # 3/8 = 0.375 and 2/4 = 0.5
    assert iou.tolist() == [3 / 8, 0.5]
    assert ok.tolist() == [[True, True], [False, True]]


# --- TwoSided.match on a small batch -------------------------------------------------------


def columns(spans):
    """``(doc, start, end, label)`` rows."""
    doc, start, end, label = zip(*spans, strict=True) if spans else ((), (), (), ())
    return SpanColumns.from_arrays(doc, start, end, label)


def test_match_reads_scores_verdicts_and_credits():
    strat = TwoSided((0.5, 0.6), coverage="best", one_to_one=False)
    gold = columns(
        [
            (0, 2, 8, 0),  # g0: two halves [0,5) and [5,10): 6/10
            (0, 20, 24, 0),  # g1: one pred [21, 24): 3/4
            (0, 30, 34, 1),  # g2: no candidate of its label (pred of label 0 overlaps)
            (1, 2, 8, 0),  # g3: in doc 1, the same extent as g0 but a far-reaching pred
        ]
    )
    pred = columns(
        [
            (0, 0, 5, 0),  # p0
            (0, 5, 10, 0),  # p1
            (0, 21, 24, 0),  # p2
            (0, 30, 34, 0),  # p3: wrong label for g2
            (1, 0, 20, 0),  # p4: g3 [2, 8) over [0, 20): 6/20
            (1, 6, 7, 0),  # p5: inner [6, 7): 1/6; with p4 nothing changes (6/20)
        ]
    )
    m = strat.match(gold, pred, n_labels=2)
    # g3: windows: [6,7) alone 1/6 = 0.167; [0,20) with [6,7): 6/20 = 0.3: so 0.3
    assert m.gold_score.tolist() == pytest.approx([0.6, 0.75, 0.0, 0.3])
    # g0's 6/10 reaches 0.6 exactly: a TP there too (IoU >= tau)
    assert m.gold_tp.tolist() == [[True, True, False, False], [True, True, False, False]]
    # g0 credits p0 and p1, g1 credits p2
    assert m.pred_credited.tolist() == [[True, True, True, False, False, False]] * 2
    assert m.gold_tp.dtype == bool and m.pred_credited.dtype == bool
    # best pairwise IoU per prediction: p0 3/8, p1 3/8, p2 3/4, p3 none of its label,
    # p4 6/20, p5 1/6
    assert m.pred_score.tolist() == pytest.approx([3 / 8, 3 / 8, 3 / 4, 0.0, 0.3, 1 / 6])
    assert m.found_alone.tolist() == m.gold_tp.tolist()


def test_match_without_any_pair_is_all_fn_and_fp():
    strat = TwoSided((0.5,), coverage="best", one_to_one=False)
    m = strat.match(columns([(0, 0, 4, 0)]), columns([(0, 6, 9, 0), (0, 0, 4, 1)]), n_labels=2)
    assert m.gold_tp.tolist() == [[False]]
    assert m.pred_credited.tolist() == [[False, False]]
    assert m.gold_score.tolist() == [0.0]
    assert m.pred_score.tolist() == [0.0, 0.0]


def test_match_pooled_credits_every_candidate_of_a_tp():
    strat = TwoSided((0.4,), coverage="pooled", one_to_one=False)
    # g [2, 8) with [0, 4) and [3, 7): pooled 5/8 = 0.625; both credited (the best window
    # alone would be [3, 7), 4/6)
    m = strat.match(columns([(0, 2, 8, 0)]), columns([(0, 0, 4, 0), (0, 3, 7, 0)]), 1)
    assert m.gold_score.tolist() == [0.625]
    assert m.pred_credited.tolist() == [[True, True]]


# --- TwoSided one_to_one -------------------------------------------------------------------


def test_one_to_one_assigns_in_order_of_best_iou_and_leaves_the_last_with_nothing():
    # label 0: g0 [0, 10), g1 [2, 10), g2 [1, 10); p0 [0, 10), p1 [2, 5)
    # free best IoUs: g0 1 (p0), g1 8/10 (p0), g2 9/10 (p0); order g0, g2, g1
    # g0 takes p0; g2 has p1 left: [2, 5) in [1, 10) = 3/9; g1 has nothing left: 0
    gold = columns([(0, 0, 10, 0), (0, 2, 10, 0), (0, 1, 10, 0)])
    pred = columns([(0, 0, 10, 0), (0, 2, 5, 0)])
    m = TwoSided((0.3, 0.5), coverage="best", one_to_one=True).match(gold, pred, 1)
    assert m.gold_tp.tolist() == [[True, False, True], [True, False, False]]
    assert m.pred_credited.tolist() == [[True, True], [True, False]]
    # the reported score and found_alone are the free ones
    assert m.gold_score.tolist() == pytest.approx([1.0, 0.8, 0.9])
    assert m.found_alone.tolist() == [[True, True, True], [True, True, True]]
    # without one_to_one all three are found by p0, and p1 is credited by none (minimal cover)
    m = TwoSided((0.3, 0.5), coverage="best", one_to_one=False).match(gold, pred, 1)
    assert m.gold_tp.tolist() == [[True, True, True], [True, True, True]]
    assert m.pred_credited.tolist() == [[True, False], [True, False]]


def test_one_to_one_tie_of_iou_goes_to_the_earlier_start():
    # p [2, 6) over g_b [4, 8) and g_a [0, 4): 2/6 each; g_a starts first and takes it
    gold = columns([(0, 4, 8, 0), (0, 0, 4, 0)])
    pred = columns([(0, 2, 6, 0)])
    m = TwoSided((0.3,), coverage="best", one_to_one=True).match(gold, pred, 1)
    assert m.gold_tp.tolist() == [[False, True]]
    assert m.pred_credited.tolist() == [[True]]


def test_one_to_one_tie_of_iou_and_start_goes_to_the_earlier_end():
    # p [2, 8) over g_b [4, 14) (4/12) and g_a [4, 6) (2/6): g_a ends first and takes it
    gold = columns([(0, 4, 14, 0), (0, 4, 6, 0)])
    pred = columns([(0, 2, 8, 0)])
    m = TwoSided((0.3,), coverage="best", one_to_one=True).match(gold, pred, 1)
    assert m.gold_tp.tolist() == [[False, True]]


def test_one_to_one_keeps_the_free_selection_of_an_untouched_annotation():
    # g0 [0, 10) with p0 [0, 5) and p1 [5, 10) (10/10), g1 [12, 16) with p2 [12, 16) and
    # p3 [14, 20) shared with g2 [15, 20): g1 takes p2 (1.0); g2 then p3 alone 5/6;
    # label 1 has its own group, untouched
    gold = columns([(0, 0, 10, 0), (0, 12, 16, 0), (0, 15, 20, 0), (0, 0, 3, 1)])
    pred = columns([(0, 0, 5, 0), (0, 5, 10, 0), (0, 12, 16, 0), (0, 14, 20, 0), (0, 0, 3, 1)])
    m = TwoSided((0.8,), coverage="best", one_to_one=True).match(gold, pred, 2)
    # g1 free: windows [12,16) 4/4 (p2 alone) beat [12,20) with p3: 4/8
    # g2 free: p3 [14, 20) over [15, 20): 5/6; p2 [12, 16) over it 1/8
    assert m.gold_tp.tolist() == [[True, True, True, True]]
    assert m.pred_credited.tolist() == [[True, True, True, True, True]]


def test_one_to_one_marks_the_right_prediction_taken_when_an_annotation_is_not_first():
    # gold rows: gX [20, 30), gA [0, 10), gC [2, 10); preds q0 [20, 30), q1 [0, 3),
    # q2 [0, 10), q3 [2, 5). Free: gX 1 (q0), gA 1 (q2; q1 and q3 nested), gC 8/10 (q2).
    # Order gA (1, start 0), gX (1, start 20), gC: gA takes q2, gX q0; gC has q1 and q3 left:
    # q3 alone 3/8 beats q1 + q3 (3/10).
    gold = columns([(0, 20, 30, 0), (0, 0, 10, 0), (0, 2, 10, 0)])
    pred = columns([(0, 20, 30, 0), (0, 0, 3, 0), (0, 0, 10, 0), (0, 2, 5, 0)])
    m = TwoSided((0.3, 0.5), coverage="best", one_to_one=True).match(gold, pred, 1)
    assert m.gold_tp.tolist() == [[True, True, True], [True, True, False]]
    assert m.pred_credited.tolist() == [[True, False, True, True], [True, False, True, False]]


def test_one_to_one_goes_on_after_an_annotation_left_with_nothing():
    # gA [0, 10), gB [5, 10), gC [8, 14); p0 [0, 10), p2 [12, 20).
    # Free: gA 1, gB 5/10, gC 4/20 (p0 + p2; p0 alone 2/14, p2 alone 2/12).
    # gA takes p0; gB has nothing left (0); gC then has p2 only: 2/12 = 0.167.
    gold = columns([(0, 0, 10, 0), (0, 5, 10, 0), (0, 8, 14, 0)])
    pred = columns([(0, 0, 10, 0), (0, 12, 20, 0)])
    m = TwoSided((0.15, 0.18), coverage="best", one_to_one=True).match(gold, pred, 1)
    assert m.gold_tp.tolist() == [[True, False, True], [True, False, False]]
    assert m.pred_credited.tolist() == [[True, True], [True, False]]
    assert m.gold_score.tolist() == pytest.approx([1.0, 0.5, 0.2])
