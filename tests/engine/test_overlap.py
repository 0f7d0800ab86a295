"""``overlap`` (semantics §2.3) against values worked out by hand, and the Feedback Prize
competition
score recomputed from scratch.

A same-label pair matches when the overlap is at least ``min_gold`` of the gold span **and**
``min_pred`` of the predicted span; matching is one-to-one, greedy, best overlap first (larger
share of the gold span, then of the predicted span; ties: gold start, then pred start), per
document and label.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_span_eval import Document, Ledger, SpanEvaluator


def run(gold, pred, *, length=40, **options):
    """Score one document; spans are ``(start, end)`` of label X or ``(start, end, label)``."""

    def spans(items):
        return [s if len(s) == 3 else (*s, "X") for s in items]

    doc = Document.create(id="d", length=length, gold=spans(gold), pred=spans(pred))
    return SpanEvaluator(strategy="overlap", max_errors=None, **options).evaluate([doc]).scores()


def errors(scores, kind):
    return sorted((e.start, e.end, e.label) for e in scores.errors if e.kind == kind)


# -- one pair, both sides of each share threshold ------------------------------------------------
# (gold, pred, |g ∩ p| / |g|, |g ∩ p| / |p|, match at the default 0.5 / 0.5)
PAIRS = [
    ((0, 10), (0, 5), "5/10", "5/5", True),  # gold share exactly 0.5
    ((0, 10), (0, 4), "4/10", "4/4", False),  # gold share just under
    ((0, 10), (5, 10), "5/10", "5/5", True),  # exactly 0.5, from the right
    ((0, 4), (0, 8), "4/4", "4/8", True),  # pred share exactly 0.5
    ((0, 4), (0, 9), "4/4", "4/9", False),  # pred share just under
    ((2, 6), (0, 8), "4/4", "4/8", True),  # pred share 0.5, gold nested inside
    ((0, 10), (5, 20), "5/10", "5/15", False),  # gold side holds, pred side does not
    ((5, 20), (0, 10), "5/15", "5/10", False),  # pred side holds, gold side does not
    ((0, 10), (4, 14), "6/10", "6/10", True),
    ((0, 3), (1, 3), "2/3", "2/2", True),
    ((0, 3), (2, 3), "1/3", "1/1", False),
    ((0, 5), (5, 10), "0/5", "0/5", False),  # touching is not overlapping
    ((0, 10), (0, 10), "10/10", "10/10", True),
]


@pytest.mark.parametrize(
    "gold,pred,share_g,share_p,match", PAIRS, ids=[f"g{g}-p{p}" for g, p, *_ in PAIRS]
)
def test_one_pair_on_each_side_of_the_default_thresholds(gold, pred, share_g, share_p, match):
    inter = max(0, min(gold[1], pred[1]) - max(gold[0], pred[0]))
    assert Fraction(share_g) == Fraction(inter, gold[1] - gold[0])  # the table is right
    assert Fraction(share_p) == Fraction(inter, pred[1] - pred[0])
    ledger = run([gold], [pred]).per_label["X"]
    hits = int(match)
    assert ledger == Ledger(
        num_annotated=1, num_predicted=1, tp=hits, fn=1 - hits, credited=hits, fp=1 - hits
    )


# (min_gold, min_pred, gold, pred, match): each configured threshold met exactly, then missed.
CONFIGURED = [
    (0.8, 0.3, (0, 10), (0, 8), True),  # gold share 0.8 == min_gold
    (0.8, 0.3, (0, 10), (0, 7), False),  # 0.7 < 0.8
    (0.8, 0.3, (0, 3), (0, 10), True),  # pred share 0.3 == min_pred
    (0.8, 0.3, (0, 3), (0, 11), False),  # 3/11 < 0.3
    (0.3, 0.8, (0, 10), (0, 3), True),  # thresholds swapped: gold share 0.3 is enough
    (0.3, 0.8, (0, 3), (0, 10), False),  # ... but pred share 0.3 is not
    (1.0, 1.0, (0, 10), (0, 10), True),  # only identical spans match
    (1.0, 1.0, (0, 10), (0, 9), False),
]


@pytest.mark.parametrize("min_gold,min_pred,gold,pred,match", CONFIGURED)
def test_configured_thresholds_are_inclusive_and_each_applies_to_its_own_side(
    min_gold, min_pred, gold, pred, match
):
    ledger = run([gold], [pred], min_gold=min_gold, min_pred=min_pred).per_label["X"]
    assert (ledger.tp, ledger.credited) == (int(match), int(match))


def test_thresholds_out_of_range_are_refused():
    with pytest.raises(ValueError, match=r"min_gold must be in \(0, 1\], not 0"):
        run([(0, 2)], [(0, 2)], min_gold=0)
    with pytest.raises(ValueError, match=r"min_pred must be in \(0, 1\], not 1.5"):
        run([(0, 2)], [(0, 2)], min_pred=1.5)


def test_a_pair_matches_only_within_its_label_and_its_document():
    assert run([(0, 10, "X")], [(0, 10, "Y")]).micro.tp == 0
    docs = [
        Document.create(id="a", length=20, gold=[(0, 10, "X")], pred=[]),
        Document.create(id="b", length=20, gold=[], pred=[(0, 10, "X")]),
    ]
    micro = SpanEvaluator(strategy="overlap").evaluate(docs).micro
    assert micro == Ledger(num_annotated=1, num_predicted=1, tp=0, fn=1, credited=0, fp=1)


def test_the_reported_score_is_the_smaller_share_of_the_best_pair():
    # gold [0,10) and pred [5,20): shares 5/10 and 5/15 -> no match, best score 1/3.
    scores = run([(0, 10)], [(5, 20)])
    (fn,) = [e for e in scores.errors if e.side == "gold"]
    (fp,) = [e for e in scores.errors if e.side == "predicted"]
    assert fn.best_iou == pytest.approx(1 / 3) and fp.best_iou == pytest.approx(1 / 3)


# -- one-to-one, greedy, with its tie-breaks ------------------------------------------------
def test_two_qualifying_predictions_for_one_annotation_credit_one():
    # [0,6): shares 0.6 / 1.0; [0,10): 1.0 / 1.0 -> the identical one wins, [0,6) is an FP.
    scores = run([(0, 10)], [(0, 6), (0, 10)])
    assert scores.per_label["X"] == Ledger(1, 2, tp=1, fn=0, credited=1, fp=1)
    assert errors(scores, "false_positive") == [(0, 6, "X")]


def test_one_prediction_qualifying_for_two_annotations_counts_once():
    # [0,10) against gold [0,6) (0.6 of the pred) and [0,10) (identical): the identical one.
    scores = run([(0, 6), (0, 10)], [(0, 10)])
    assert scores.per_label["X"] == Ledger(2, 1, tp=1, fn=1, credited=1, fp=0)
    assert errors(scores, "false_negative") == [(0, 6, "X")]


def test_greedy_best_first_not_a_maximum_matching():
    # g1 [0,10), g2 [6,16); p1 [2,12) covers 0.8 of g1 and 0.6 of g2; p2 [0,6) covers 0.6 of g1
    # and none of g2. Best first: (g1, p1) at 0.8 is taken, so g2 and p2 are left over, although
    # g1-p2 and g2-p1 would match both.
    scores = run([(0, 10), (6, 16)], [(2, 12), (0, 6)])
    assert scores.per_label["X"] == Ledger(2, 2, tp=1, fn=1, credited=1, fp=1)
    assert errors(scores, "false_negative") == [(6, 16, "X")]
    assert errors(scores, "false_positive") == [(0, 6, "X")]


def test_best_is_the_larger_gold_share_before_the_pred_share():
    # p1 [0,6): shares 0.6 / 1.0; p2 [2,12): 0.8 / 0.8. The larger gold share wins even though
    # p1 covers more of itself.
    scores = run([(0, 10)], [(0, 6), (2, 12)])
    assert errors(scores, "false_positive") == [(0, 6, "X")]


def test_equal_gold_shares_are_broken_by_the_pred_share():
    # p1 [0,12): 1.0 / 10/12; p2 [0,11): 1.0 / 10/11 -> p2, the tighter one.
    scores = run([(0, 10)], [(0, 12), (0, 11)])
    assert errors(scores, "false_positive") == [(0, 12, "X")]


def test_equal_shares_are_broken_by_gold_start():
    # One prediction [0,10) covers [0,5) and [5,10) alike (1.0 / 0.5 each): the earlier gold.
    scores = run([(5, 10), (0, 5)], [(0, 10)])
    assert errors(scores, "false_negative") == [(5, 10, "X")]


def test_equal_shares_and_gold_are_broken_by_pred_start():
    # [0,5) and [5,10) cover gold [0,10) alike (0.5 / 1.0 each): the earlier prediction.
    scores = run([(0, 10)], [(5, 10), (0, 5)])
    assert errors(scores, "false_positive") == [(5, 10, "X")]


def test_the_matching_does_not_depend_on_input_order():
    gold, pred = [(0, 10), (6, 16), (20, 24)], [(2, 12), (0, 6), (20, 28), (21, 24)]
    want = run(gold, pred)
    for seed in range(5):
        rng = random.Random(seed)
        g, p = gold[:], pred[:]
        rng.shuffle(g)
        rng.shuffle(p)
        got = run(g, p)
        assert got.per_label == want.per_label
        assert errors(got, "false_positive") == errors(want, "false_positive")


# -- wrong-label cells -------------------------------------------------------------------------
def test_a_missed_annotation_covered_by_another_label_is_a_wrong_label_error():
    scores = run([(0, 10, "X")], [(0, 5, "Y")])  # shares 0.5 / 1.0: it would qualify
    (record,) = [e for e in scores.errors if e.label == "X"]
    assert (record.kind, record.predicted_label) == ("wrong_label", "Y")
    # Share 0.5 of the prediction but 1/3 of the gold: not a cover, a plain miss.
    scores = run([(0, 10, "X")], [(5, 20, "Y")])
    (record,) = [e for e in scores.errors if e.label == "X"]
    assert (record.kind, record.predicted_label) == ("false_negative", None)


def test_the_wrong_label_cell_takes_the_label_covering_most_of_the_gold():
    # Y covers 0.6 of the gold, Z 0.8 (both within their own spans): Z.
    scores = run([(0, 10, "X")], [(0, 6, "Y"), (0, 8, "Z")])
    (record,) = [e for e in scores.errors if e.label == "X"]
    assert (record.kind, record.predicted_label) == ("wrong_label", "Z")
    # Two candidates of one label, the second qualifying: still a cover by that label.
    scores = run([(0, 10, "X")], [(0, 3, "Y"), (2, 10, "Y")])
    (record,) = [e for e in scores.errors if e.label == "X"]
    assert (record.kind, record.predicted_label) == ("wrong_label", "Y")
    # A label's best candidate speaks for it: Y's [0,9) (0.9) beats Z's [0,8) (0.8), although
    # Y's other candidate covers only 0.6.
    scores = run([(0, 10, "X")], [(0, 6, "Y"), (0, 9, "Y"), (0, 8, "Z")])
    (record,) = [e for e in scores.errors if e.label == "X"]
    assert (record.kind, record.predicted_label) == ("wrong_label", "Y")


def test_candidates_of_another_label_that_each_fail_one_side_are_no_cover():
    # Y [0,3): 0.3 of the gold (too little); Y [5,25): 0.5 of the gold but 0.25 of itself.
    scores = run([(0, 10, "X")], [(0, 3, "Y"), (5, 25, "Y")], length=30)
    (record,) = [e for e in scores.errors if e.label == "X"]
    assert (record.kind, record.predicted_label) == ("false_negative", None)


# -- the competition score, recomputed from scratch ---------------------------------------------
def feedback_prize_score(docs) -> tuple[dict[str, tuple[int, int, int]], Fraction | None]:
    """Per label ``(TP, FP, FN)`` and the macro F1 of semantics §2.3, in fractions.

    Written from the rule, not from the engine: every qualifying (gold, pred) pair of a
    document and label, best first by (gold share, pred share) and then by position, taken
    when neither side is taken yet.
    """
    counts: dict[str, list[int]] = {}
    for doc in docs:
        labels = {s.label for s in doc.gold} | {s.label for s in doc.pred}
        for label in labels:
            gold = [s for s in doc.gold if s.label == label]
            pred = [s for s in doc.pred if s.label == label]
            pairs = []
            for gi, g in enumerate(gold):
                for pi, p in enumerate(pred):
                    inter = min(g.end, p.end) - max(g.start, p.start)
                    share_g, share_p = Fraction(inter, len(g)), Fraction(inter, len(p))
                    if inter > 0 and share_g >= Fraction(1, 2) and share_p >= Fraction(1, 2):
                        pairs.append(((-share_g, -share_p, g.start, p.start), gi, pi))
            used_g, used_p = set(), set()
            for _, gi, pi in sorted(pairs):
                if gi not in used_g and pi not in used_p:
                    used_g.add(gi)
                    used_p.add(pi)
            c = counts.setdefault(label, [0, 0, 0])
            c[0] += len(used_g)
            c[1] += len(pred) - len(used_p)
            c[2] += len(gold) - len(used_g)
    f1 = [Fraction(tp, 1) / (tp + Fraction(fp + fn, 2)) for tp, fp, fn in counts.values()]
    score = sum(f1, Fraction(0)) / len(f1) if f1 else None
    return {k: tuple(v) for k, v in counts.items()}, score


def _layout(draw, length: int, labels: str) -> list[tuple[int, int, str]]:
    """Non-overlapping spans of a document, as essays' discourse elements are."""
    cuts = sorted(draw(st.sets(st.integers(0, length), min_size=2, max_size=12)))
    out = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        if draw(st.booleans()):
            out.append((a, b, draw(st.sampled_from(labels))))
    return out


@st.composite
def essays(draw):
    docs = []
    for i in range(draw(st.integers(1, 4))):
        length = draw(st.integers(4, 60))
        docs.append(
            Document.create(
                id=i,
                length=length,
                gold=_layout(draw, length, "ABC"),
                pred=_layout(draw, length, "ABC"),
            )
        )
    return docs


@settings(max_examples=300, deadline=None)
@given(essays())
def test_macro_f1_is_the_competition_score_recomputed_independently(docs):
    counts, score = feedback_prize_score(docs)
    if score is None:
        return  # nothing to score: an empty evaluation is refused elsewhere
    scores = SpanEvaluator(strategy="overlap").evaluate(docs).scores()
    for label, (tp, fp, fn) in counts.items():
        ledger = scores.per_label[label]
        assert (ledger.tp, ledger.credited, ledger.fp, ledger.fn) == (tp, tp, fp, fn), label
    assert set(scores.per_label) == set(counts)
    assert scores.macro["f"] == pytest.approx(float(score), abs=1e-12)


def test_competition_score_on_a_worked_example():
    # Two essays, labels Claim and Lead. By hand:
    #   Claim: essay 1 gold [0,10) pred [3,10) -> 0.7 / 1.0 TP; gold [20,30) pred [24,40)
    #          -> 0.6 / 0.375: FN + FP. essay 2 gold [0,8) pred [0,8) TP.  TP 2, FP 1, FN 1
    #          -> F1 = 2 / (2 + 1) = 2/3.
    #   Lead:  essay 1 gold [40,50), no prediction -> FN; essay 2 pred [10,20), no gold -> FP.
    #          TP 0, FP 1, FN 1 -> F1 = 0.
    # Competition score: (2/3 + 0) / 2 = 1/3.
    docs = [
        Document.create(
            id=1,
            length=60,
            gold=[(0, 10, "Claim"), (20, 30, "Claim"), (40, 50, "Lead")],
            pred=[(3, 10, "Claim"), (24, 40, "Claim")],
        ),
        Document.create(
            id=2, length=30, gold=[(0, 8, "Claim")], pred=[(0, 8, "Claim"), (10, 20, "Lead")]
        ),
    ]
    scores = SpanEvaluator(strategy="overlap").evaluate(docs).scores()
    assert scores.per_label["Claim"] == Ledger(3, 3, tp=2, fn=1, credited=2, fp=1)
    assert scores.per_label["Lead"] == Ledger(1, 1, tp=0, fn=1, credited=0, fp=1)
    assert scores.per_label["Claim"].f() == pytest.approx(2 / 3)
    assert scores.macro["f"] == pytest.approx(1 / 3)
    assert feedback_prize_score(docs)[1] == Fraction(1, 3)


def test_wrong_label_covers_away_from_the_start_and_on_each_threshold():
    def cell(gold, pred):
        (record,) = [e for e in run(gold, pred).errors if e.label == "X"]
        return record.kind, record.predicted_label

    # Gold [10,20): Y [12,20) covers 0.8 of it and is all inside it.
    assert cell([(10, 20, "X")], [(10, 13, "Y"), (12, 20, "Y")]) == ("wrong_label", "Y")
    # Exactly half of the gold, with a second candidate that does not qualify.
    assert cell([(0, 10, "X")], [(0, 5, "Y"), (7, 9, "Y")]) == ("wrong_label", "Y")
    # Exactly half of the prediction, likewise; and as the only candidate.
    assert cell([(0, 4, "X")], [(0, 8, "Y"), (3, 12, "Y")]) == ("wrong_label", "Y")
    assert cell([(0, 4, "X")], [(0, 8, "Y")]) == ("wrong_label", "Y")
    # Labels compete on the share of the gold: Z's 0.8 beats Y's 0.6 (although Y's
    # prediction lies wholly inside the gold and Z's does too).
    assert cell([(0, 10, "X")], [(0, 6, "Y"), (8, 30, "Y"), (0, 8, "Z")]) == ("wrong_label", "Z")


def test_the_strategy_defaults_to_half_on_each_side():
    from spacy_span_eval.engine.strategies import Overlap

    strategy = Overlap((None,))
    assert (strategy.min_gold, strategy.min_pred) == (0.5, 0.5)
