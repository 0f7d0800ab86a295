"""Gold spans an adapter could not put in the unit (a gold span inside a token, scored in token
unit) are still gold: counted as FN with a reason, never dropped (semantics §1), in every ledger,
cell, record, note and per-document row, and independent of batch boundaries."""

from __future__ import annotations

import pytest

from spacy_span_eval import Document, Ledger, Span, SpanEvaluator
from spacy_span_eval.engine.labels import Hierarchy

REASON = "gold span kept beside the Doc: start character 5 falls inside token 'Ana'"


def docs():
    out = []
    for i in range(6):
        out.append(
            Document.create(
                id=f"d{i}",
                unit="token",
                tokens=["Call", "Ana", "now"],
                gold=[(1, 2, "PER")] if i % 2 else [],
                pred=[(1, 2, "PER")] if i % 3 == 0 else [],
                unaligned_gold=[(Span(5, 7, "PER"), REASON)],
            )
        )
    return out


def test_unaligned_gold_is_a_false_negative_with_a_reason():
    result = SpanEvaluator(unit="token", max_errors=None, per_document=True).evaluate(docs())
    run = result.scores()
    # 3 aligned gold (d1, d3, d5) + 6 unaligned; predictions in d0, d3: only d3's matches
    assert run.per_label["PER"] == Ledger(
        num_annotated=9, num_predicted=2, tp=1, fn=8, credited=1, fp=1
    )
    assert result.notes["unaligned_gold"] == 6
    assert "unaligned_predictions" not in result.notes
    missed = [e for e in run.errors if e.reason == REASON]
    assert len(missed) == 6
    assert {(e.kind, e.start, e.end, e.label, e.predicted_label) for e in missed} == {
        ("false_negative", 5, 7, "PER", None)
    }
    assert run.confusion[("PER", None)] == 2 + 6
    assert sum(n for (row, _), n in run.confusion.items() if row == "PER") == 9
    assert run.entity_agnostic.num_annotated == 9 and run.entity_agnostic.fn == 8
    assert result.documents.total("PER")[0].tolist() == [9, 2, 1, 8, 1, 1]
    per_doc = result.documents.counts["PER"][:, 0, 0].tolist()  # num_annotated per document
    assert per_doc == [1, 2, 1, 2, 1, 2]


def test_label_map_and_hierarchy_apply_to_unaligned_gold():
    ev = SpanEvaluator(
        unit="token",
        label_map={"PER": "PERSON"},
        hierarchy=Hierarchy(levels={"binary": {"PERSON": "ENTITY"}}),
    )
    result = ev.evaluate(docs())
    assert result.scores().per_label["PERSON"].num_annotated == 9
    assert result.scores(level="binary").per_label["ENTITY"].fn == 8
    assert result.notes["unaligned_gold"] == 6  # counted once, not once per level


def test_unaligned_gold_with_an_unmapped_label_names_the_document():
    ev = SpanEvaluator(unit="token", label_map={"LOC": "LOC"}, strict_labels=True)
    doc = Document.create(
        id="x",
        unit="token",
        tokens=["a"],
        gold=[],
        pred=[(0, 1, "LOC")],
        unaligned_gold=[(Span(0, 1, "ZZZ"), "inside a token")],
    )
    with pytest.raises(ValueError, match=r"'x'.*unaligned gold span"):
        ev.evaluate([doc])


def test_a_document_with_only_unaligned_gold_is_not_an_empty_evaluation():
    doc = Document.create(
        id="x",
        unit="token",
        tokens=["Ana"],
        gold=[],
        pred=[],
        unaligned_gold=[(Span(0, 2, "PER"), "inside a token")],
    )
    run = SpanEvaluator(unit="token").evaluate([doc]).scores()
    assert run.micro.recall() == 0.0 and run.micro.precision() is None


@pytest.mark.parametrize("cap", [1, 4, 9, None])
def test_kept_records_do_not_depend_on_batch_size(cap):
    def records(batch_size):
        ev = SpanEvaluator(unit="token", max_errors=cap, batch_size=batch_size)
        return [e.to_dict() for e in ev.evaluate(docs()).scores().errors]

    assert records(1) == records(2) == records(4) == records(100)
