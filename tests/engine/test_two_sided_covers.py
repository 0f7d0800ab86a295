"""Wrong-label cells under ``two_sided`` (semantics §4): a missed annotation is put in the cell of
the other label whose predictions cover it at IoU >= tau (the highest IoU wins)."""

from __future__ import annotations

import pytest

from spacy_span_eval import Document, SpanEvaluator


def cell(gold, pred, tau=0.5):
    doc = Document.create(id="d", length=40, gold=gold, pred=pred)
    scores = SpanEvaluator(thresholds=tau, max_errors=None).evaluate([doc]).scores()
    (record,) = [e for e in scores.errors if e.label == "X"]
    return record.kind, record.predicted_label


def test_a_cover_at_exactly_tau_is_a_wrong_label_cell():
    assert cell([(0, 10, "X")], [(0, 5, "Y")]) == ("wrong_label", "Y")  # IoU 5/10
    assert cell([(0, 10, "X")], [(0, 4, "Y")]) == ("false_negative", None)
    # two candidates whose union [0,5) has IoU 5/10
    assert cell([(0, 10, "X")], [(0, 3, "Y"), (3, 5, "Y")]) == ("wrong_label", "Y")
    assert cell([(0, 10, "X")], [(0, 3, "Y"), (3, 5, "Y")], tau=0.6) == ("false_negative", None)


def test_the_label_with_the_highest_iou_takes_the_cell():
    # Y's two spans reach IoU 0.5 together, Z's one span 0.6: Z.
    assert cell([(0, 10, "X")], [(0, 3, "Y"), (3, 5, "Y"), (0, 6, "Z")]) == ("wrong_label", "Z")
    # Y's pair reaches 0.7, Z's single span 0.6: Y.
    assert cell([(0, 10, "X")], [(0, 3, "Y"), (3, 7, "Y"), (0, 6, "Z")]) == ("wrong_label", "Y")


def test_the_strategy_defaults():
    from spacy_span_eval.engine.strategies import TwoSided

    strategy = TwoSided((0.5,))
    assert (strategy.coverage, strategy.one_to_one) == ("best", False)


@pytest.mark.parametrize(
    "gold,pred,records",
    [
        # (kind, side, label, best_iou) in document order: a wrong-label record's IoU is its
        # cover's, the figure its words ("X predicted as Y") are about
        (
            [(0, 5, "X")],
            [(0, 5, "Y")],
            [("wrong_label", "gold", "X", 1.0), ("wrong_label", "predicted", "Y", 1.0)],
        ),
        (
            [(0, 10, "X")],
            [(0, 5, "Y")],
            [("wrong_label", "predicted", "Y", 0.5), ("wrong_label", "gold", "X", 0.5)],
        ),
        # two Y predictions cover X together (IoU of their union: 8/10)
        (
            [(0, 10, "X")],
            [(0, 4, "Y"), (4, 8, "Y")],
            [
                ("wrong_label", "predicted", "Y", 0.8),
                ("wrong_label", "gold", "X", 0.8),
                ("wrong_label", "predicted", "Y", 0.8),
            ],
        ),
        # a same-label miss keeps its same-label IoU (2/10)
        (
            [(0, 10, "X")],
            [(0, 2, "X")],
            [("boundary", "predicted", "X", 0.2), ("boundary", "gold", "X", 0.2)],
        ),
    ],
)
def test_a_wrong_label_record_carries_the_iou_of_the_cover(gold, pred, records):
    doc = Document.create(id="d", length=40, gold=gold, pred=pred)
    errors = SpanEvaluator(thresholds=0.5, max_errors=None).evaluate([doc]).scores().errors
    assert [(e.kind, e.side, e.label, round(e.best_iou, 6)) for e in errors] == records
