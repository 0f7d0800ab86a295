"""Predictions an adapter could not put in the unit are counted as unmatched and reported,
never dropped (semantics §1), and their records do not depend on batch boundaries."""

from __future__ import annotations

import pytest

from spacy_span_eval import Document, Ledger, Span, SpanEvaluator


def docs():
    out = []
    for i in range(6):
        out.append(
            Document.create(
                id=f"d{i}",
                unit="token",
                tokens=["Smith-led", "team", "won"],
                gold=[(0, 1, "PER")],
                pred=[(1, 2, "ORG")] if i % 2 else [],
                unaligned_pred=[(Span(0, 1, "PER"), "ends inside gold token 0 ('Smith-led')")],
            )
        )
    return out


def test_unaligned_predictions_are_false_positives_with_a_reason():
    result = SpanEvaluator(unit="token", max_errors=None, per_document=True).evaluate(docs())
    run = result.scores()
    assert run.per_label["PER"] == Ledger(
        num_annotated=6, num_predicted=6, tp=0, fn=6, credited=0, fp=6
    )
    assert result.notes["unaligned_predictions"] == 6
    reasons = [e.reason for e in run.errors if e.reason]
    assert len(reasons) == 6 and "Smith-led" in reasons[0]
    assert run.confusion[(None, "PER")] == 6
    assert run.entity_agnostic.num_predicted == 6 + 3
    assert result.documents.total("PER")[0].tolist() == [6, 6, 0, 6, 0, 6]


@pytest.mark.parametrize("cap", [1, 4, 7, None])
def test_kept_records_do_not_depend_on_batch_size(cap):
    def records(batch_size):
        ev = SpanEvaluator(unit="token", max_errors=cap, batch_size=batch_size)
        return [e.to_dict() for e in ev.evaluate(docs()).scores().errors]

    assert records(1) == records(2) == records(4) == records(100)
