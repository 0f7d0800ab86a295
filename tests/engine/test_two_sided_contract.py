"""semantics §2.1's contract table, in both coverage modes, and the "Cyprus Greek" borderline."""

from __future__ import annotations

import pytest

from spacy_span_eval import Document, Ledger, SpanEvaluator

# (scenario, gold spans, predicted spans, expected ledger of label X at tau = 0.5)
CONTRACT = [
    (
        "2 preds jointly cover 1 gold",
        [(0, 10)],
        [(0, 5), (5, 10)],
        Ledger(num_annotated=1, num_predicted=2, tp=1, fn=0, credited=2, fp=0),
    ),
    (
        "2 preds jointly fail",
        [(0, 10)],
        [(0, 2), (8, 10)],
        Ledger(num_annotated=1, num_predicted=2, tp=0, fn=1, credited=0, fp=2),
    ),
    (
        "2 standalone preds, no gold",
        [],
        [(0, 3), (5, 8)],
        Ledger(num_annotated=0, num_predicted=2, tp=0, fn=0, credited=0, fp=2),
    ),
    (
        "1 pred covers 2 golds, each >= tau",
        [(0, 5), (5, 10)],
        [(0, 10)],
        Ledger(num_annotated=2, num_predicted=1, tp=2, fn=0, credited=1, fp=0),
    ),
    (
        "1 pred covers 2 golds, each < tau",
        [(0, 4), (6, 10)],
        [(0, 10)],
        Ledger(num_annotated=2, num_predicted=1, tp=0, fn=2, credited=0, fp=1),
    ),
    (
        "1 pred matches long gold, swallows short one",
        [(0, 10), (2, 4)],
        [(0, 10)],
        Ledger(num_annotated=2, num_predicted=1, tp=1, fn=1, credited=1, fp=0),
    ),
]


def score(gold, pred, *, length=40, **settings):
    doc = Document.create(
        id="d",
        length=length,
        gold=[(s, e, "X") for s, e in gold],
        pred=[(s, e, "X") for s, e in pred],
    )
    return SpanEvaluator(max_errors=None, **settings).evaluate([doc])


@pytest.mark.parametrize("coverage", ["best", "pooled"])
@pytest.mark.parametrize("scenario,gold,pred,expected", CONTRACT, ids=[c[0] for c in CONTRACT])
def test_contract_table(scenario, gold, pred, expected, coverage):
    result = score(gold, pred, coverage=coverage, thresholds=0.5)
    ledger = result.per_label["X"]
    assert ledger == expected
    ledger.check()


def test_precision_is_credited_over_predicted_not_tp_over_predicted():
    # One wide prediction makes two annotations TP: tp/np would be 2.0.
    result = score([(0, 5), (5, 10)], [(0, 10)])
    ledger = result.per_label["X"]
    assert ledger.tp / ledger.num_predicted == 2.0
    assert ledger.precision() == 1.0
    assert ledger.recall() == 1.0


def test_best_coverage_ignores_a_neighbour_that_only_brushes_the_annotation():
    gold, pred = [(0, 10)], [(0, 10), (9, 30)]
    best = score(gold, pred, coverage="best").per_label["X"]
    pooled = score(gold, pred, coverage="pooled").per_label["X"]
    assert best == Ledger(1, 2, tp=1, fn=0, credited=1, fp=1)
    assert pooled == Ledger(1, 2, tp=0, fn=1, credited=0, fp=2)


def test_predictions_are_not_consumed_by_default_but_are_with_one_to_one():
    gold, pred = [(0, 5), (5, 10)], [(0, 10)]
    assert score(gold, pred).per_label["X"].tp == 2
    strict = score(gold, pred, one_to_one=True).per_label["X"]
    assert strict == Ledger(2, 1, tp=1, fn=1, credited=1, fp=0)


def test_one_to_one_falls_back_to_remaining_candidates():
    # Both golds' best selection is the wide span; the first (higher IoU) keeps it, the second
    # falls back to its own exact candidate.
    gold, pred = [(0, 6), (6, 10)], [(0, 7), (6, 10)]
    free = score(gold, pred).per_label["X"]
    strict = score(gold, pred, one_to_one=True).per_label["X"]
    assert free.tp == strict.tp == 2
    assert strict.credited == 2


def test_cyprus_greek_borderline_is_fn_and_fp_not_tp():
    text = "We moved here from Cyprus (Greek)"
    start = text.index("Cyprus")
    doc = Document.create(
        id="sentence-292",
        text=text,
        gold=[(start, len(text), "LOCATION")],
        pred=[
            (start, start + len("Cyprus"), "LOCATION"),
            (text.index("Greek"), text.index("Greek") + len("Greek"), "DEMOGRAPHIC"),
        ],
    )
    result = SpanEvaluator(unit="char", thresholds=0.5, max_errors=None).evaluate([doc])
    location = result.per_label["LOCATION"]
    assert location == Ledger(num_annotated=1, num_predicted=1, tp=0, fn=1, credited=0, fp=1)
    assert result.per_label["DEMOGRAPHIC"] == Ledger(0, 1, 0, 0, 0, 1)
    # The right label with the wrong extent: a boundary error on both sides (semantics §4).
    kinds = sorted((e.kind, e.side, e.text) for e in result.scores().errors)
    assert kinds == [
        ("boundary", "gold", "Cyprus (Greek)"),
        ("boundary", "predicted", "Cyprus"),
        ("false_positive", "predicted", "Greek"),
    ]
    fn = [e for e in result.scores().errors if e.side == "gold"]
    assert fn[0].best_iou == pytest.approx(6 / 14)
    assert result.scores().confusion == {
        ("LOCATION", None): 1,
        (None, "LOCATION"): 1,
        (None, "DEMOGRAPHIC"): 1,
    }
    assert result.scores().boundary == {("LOCATION", None): 1, (None, "LOCATION"): 1}


def test_wrong_label_cell_represents_the_prediction_once():
    doc = Document.create(id="d", length=20, gold=[(0, 5, "PER")], pred=[(0, 5, "ORG")])
    run = SpanEvaluator(max_errors=None).evaluate([doc]).scores()
    assert run.confusion == {("PER", "ORG"): 1}
    kinds = sorted((e.kind, e.side) for e in run.errors)
    assert kinds == [("wrong_label", "gold"), ("wrong_label", "predicted")]
    assert run.per_label["PER"].fn == 1 and run.per_label["ORG"].fp == 1


def test_several_thresholds_in_one_pass_match_separate_runs():
    gold, pred = [(0, 10), (12, 20)], [(0, 7), (12, 19)]
    together = score(gold, pred, thresholds=(0.5, 0.75, 0.9))
    for tau in (0.5, 0.75, 0.9):
        alone = score(gold, pred, thresholds=tau)
        assert together.scores(tau).per_label == alone.per_label


# -- minimal cover (semantics §2.1: redundant predictions earn nothing) ---------------------------


def fp_spans(result, label="X", tau=None):
    return sorted(
        (e.start, e.end)
        for e in result.scores(tau).errors
        if e.side == "predicted" and e.label == label
    )


def test_a_nested_prediction_is_not_credited():
    text = "We flew over the Americas"
    start = text.index("the Americas")
    doc = Document.create(
        id="d",
        text=text,
        gold=[(start, len(text), "LOC")],
        pred=[(start, len(text), "LOC"), (start + 4, len(text), "LOC")],
    )
    result = SpanEvaluator(unit="char", max_errors=None).evaluate([doc])
    assert result.per_label["LOC"] == Ledger(1, 2, tp=1, fn=0, credited=1, fp=1)
    (fp,) = [e for e in result.scores().errors if e.side == "predicted"]
    assert fp.text == "Americas"


@pytest.mark.parametrize(
    "gold,pred,expected,fps",
    [
        # an identical duplicate is one span with the first (semantics §3, self-agreement)
        ([(0, 5)], [(0, 5), (0, 5)], Ledger(1, 1, tp=1, fn=0, credited=1, fp=0), []),
        # on both sides: one annotation, one prediction
        ([(0, 5), (0, 5)], [(0, 5), (0, 5)], Ledger(1, 1, tp=1, fn=0, credited=1, fp=0), []),
        # (2, 4) is nested in (0, 5): the window holds both, the cover the longer one
        ([(0, 5)], [(0, 5), (2, 4)], Ledger(1, 2, tp=1, fn=0, credited=1, fp=1), [(2, 4)]),
        # (5, 8) lies inside (0, 6) ∪ (4, 10): the window holds all three, the cover two
        (
            [(0, 10)],
            [(0, 6), (4, 10), (5, 8)],
            Ledger(1, 3, tp=1, fn=0, credited=2, fp=1),
            [(5, 8)],
        ),
        # at x = 4 both (2, 8) and (1, 8) reach 8: the smaller start is taken
        (
            [(0, 10)],
            [(0, 4), (2, 8), (1, 8), (6, 10)],
            Ledger(1, 4, tp=1, fn=0, credited=3, fp=1),
            [(2, 8)],
        ),
        # the union has two pieces inside the annotation; each is covered on its own
        (
            [(0, 12)],
            [(0, 3), (1, 3), (6, 12), (8, 12), (7, 9)],
            Ledger(1, 5, tp=1, fn=0, credited=2, fp=3),
            [(1, 3), (7, 9), (8, 12)],
        ),
        # touching spans are one piece, and neither is redundant
        ([(0, 10)], [(0, 5), (5, 10)], Ledger(1, 2, tp=1, fn=0, credited=2, fp=0), []),
    ],
    ids=[
        "duplicate",
        "duplicate-both-sides",
        "nested",
        "nested-in-union",
        "tie-smaller-start",
        "two-pieces",
        "touching",
    ],
)
def test_the_winning_window_is_reduced_to_its_minimal_cover(gold, pred, expected, fps):
    result = score(gold, pred, thresholds=0.5)
    assert result.per_label["X"] == expected
    assert fp_spans(result) == fps


def test_pooled_coverage_keeps_the_seeds_rule_and_credits_every_candidate():
    # S = C with no reduction (documented in docs/two_sided.md): the nested span is credited.
    gold, pred = [(0, 10)], [(0, 10), (4, 10)]
    assert score(gold, pred, coverage="pooled").per_label["X"] == Ledger(1, 2, 1, 0, 2, 0)
    assert score(gold, pred, coverage="best").per_label["X"] == Ledger(1, 2, 1, 0, 1, 1)


def test_a_redundant_wrong_label_prediction_is_not_represented_by_the_wrong_label_cell():
    doc = Document.create(
        id="d",
        length=20,
        gold=[(0, 10, "PER")],
        pred=[(0, 6, "ORG"), (4, 10, "ORG"), (5, 8, "ORG")],
    )
    run = SpanEvaluator(max_errors=None).evaluate([doc]).scores()
    # The cover of PER by ORG is (0, 6) + (4, 10); (5, 8) is an FP of its own in the O row.
    assert run.confusion == {("PER", "ORG"): 1, (None, "ORG"): 1}
    assert run.per_label["ORG"].fp == 3


# -- one_to_one: one assignment for every threshold (semantics §2.1) ------------------------------

ISSUE_11_GOLD = [(1, 3), (2, 3), (2, 4)]
ISSUE_11_PRED = [(0, 3), (0, 2), (2, 4), (1, 4)]


def test_one_to_one_credits_never_rise_with_the_threshold_on_the_issue_case():
    # Best IoUs before any assignment: (2, 4) 1, (1, 3) 2/3, (2, 3) 1/2. (2, 4) takes (2, 4);
    # (1, 3) then wins (1, 4) alone (2/3, one span); (2, 3) is left with (0, 3) at 1/3.
    # Before the fix, tau 0.5 credited 2 predictions and tau 0.6 credited 3.
    taus = (0.3, 0.5, 0.6, 0.7, 1.0)
    result = score(ISSUE_11_GOLD, ISSUE_11_PRED, thresholds=taus, one_to_one=True)
    got = {
        t: (result.scores(t).per_label["X"].tp, result.scores(t).per_label["X"].credited)
        for t in taus
    }
    assert got == {0.3: (3, 3), 0.5: (2, 2), 0.6: (2, 2), 0.7: (1, 1), 1.0: (1, 1)}
    assert fp_spans(result, tau=0.5) == [(0, 2), (0, 3)]  # (2, 4) and (1, 4) credited
    assert fp_spans(result, tau=0.3) == [(0, 2)]
    misses = [(e.start, e.end) for e in result.scores(0.7).errors if e.side == "gold"]
    assert sorted(misses) == [(1, 3), (2, 3)]


def test_one_to_one_order_is_the_best_iou_before_assignment():
    # (0, 11) ranks before (10, 22) by its best IoU (10/11 against 10/12), so after (0, 10)
    # takes (0, 10) it takes (10, 20), at 1/20, and (10, 22) is left with nothing, whatever tau.
    gold, pred = [(0, 10), (0, 11), (10, 22)], [(0, 10), (10, 20)]
    for tau in (0.05, 0.5, 0.8):
        ledger = score(gold, pred, thresholds=tau, one_to_one=True).per_label["X"]
        tp = 2 if tau == 0.05 else 1
        assert ledger == Ledger(3, 2, tp=tp, fn=3 - tp, credited=tp, fp=2 - tp), tau
    # Without one_to_one all three keep their own best selections.
    assert score(gold, pred, thresholds=0.8).per_label["X"] == Ledger(3, 2, 3, 0, 2, 0)


def test_one_to_one_ties_go_to_the_earlier_annotation():
    # Both annotations reach 1/2 with the one prediction; the earlier start takes it.
    result = score([(4, 8), (0, 4)], [(0, 8)], thresholds=0.5, one_to_one=True)
    assert result.per_label["X"] == Ledger(2, 1, tp=1, fn=1, credited=1, fp=0)
    (fn,) = [e for e in result.scores().errors if e.side == "gold"]
    assert (fn.start, fn.end) == (4, 8)


def test_one_to_one_takes_only_the_minimal_cover():
    # (0, 10) goes first (IoU 1, earlier start); its window holds (0, 10) and the nested
    # (5, 8), and it takes only (0, 10), its minimal cover: (5, 8) is left for the (5, 8)
    # annotation, so both are TP with one prediction each.
    gold, pred = [(0, 10), (5, 8)], [(0, 10), (5, 8)]
    assert score(gold, pred, one_to_one=True).per_label["X"] == Ledger(2, 2, 2, 0, 2, 0)
    assert score(gold, pred).per_label["X"] == Ledger(2, 2, 2, 0, 2, 0)
    # Identical annotations and predictions are one of each (semantics §3).
    gold, pred = [(0, 10), (0, 10)], [(0, 10), (0, 10)]
    assert score(gold, pred, one_to_one=True).per_label["X"] == Ledger(1, 1, 1, 0, 1, 0)
    assert score(gold, pred).per_label["X"] == Ledger(1, 1, 1, 0, 1, 0)
