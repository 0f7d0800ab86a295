"""The ``boundary`` error kind (semantics §4) under every strategy: the right label, the wrong
extent. Each case is worked out by hand from §2's rules; tests/engine/test_invariants.py checks the
same definition by brute force on random documents."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from typer.testing import CliRunner

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.cli import app
from spacy_span_eval.jobs.system_run import run_system
from spacy_span_eval.render.html import render_page
from spacy_span_eval.render.text import result_text


def errors(gold, pred, length=30, **kw):
    doc = Document.create(id="d", length=length, gold=gold, pred=pred)
    run = SpanEvaluator(max_errors=None, **kw).evaluate([doc]).scores()
    return run, sorted((e.kind, e.side, e.start, e.end) for e in run.errors)


@pytest.mark.parametrize(
    "kw",
    [
        {"strategy": "exact"},
        {"strategy": "semeval"},
        {"strategy": "two_sided", "thresholds": 0.8},
        {"strategy": "overlap"},
    ],
)
def test_one_token_too_short_is_a_boundary_error_on_both_sides(kw):
    # (0, 3) against (0, 4): not the same span, IoU 3/4 < 0.8. Its overlap shares (3/4 and 1)
    # pass overlap's default floors (1/2 each), so there the prediction is (0, 1) (1/4).
    end = 1 if kw["strategy"] == "overlap" else 3
    run, got = errors([(0, 4, "PER")], [(0, end, "PER")], **kw)
    assert got == [("boundary", "gold", 0, 4), ("boundary", "predicted", 0, end)]
    assert run.confusion == {("PER", None): 1, (None, "PER"): 1}
    assert run.boundary == {("PER", None): 1, (None, "PER"): 1}
    assert run.per_label["PER"].fn == run.per_label["PER"].fp == 1


def test_positions_have_no_boundaries_under_the_token_strategy():
    # Position 3 is predicted PER and is not gold: a spurious position, nothing more.
    run, got = errors([(0, 3, "PER")], [(0, 4, "PER")], strategy="token")
    assert got == [("false_positive", "predicted", 3, 4)]
    assert run.boundary == {}


def test_a_complete_miss_and_a_spurious_prediction_stay_what_they_were():
    run, got = errors([(0, 3, "PER")], [(5, 8, "PER")], strategy="exact")
    assert got == [("false_negative", "gold", 0, 3), ("false_positive", "predicted", 5, 8)]
    assert run.boundary == {}


def test_a_wrong_label_comes_before_a_boundary():
    # ORG covers the PER annotation exactly (a wrong-label cell); the short PER prediction is
    # then a spurious one, not the prediction side of a boundary error.
    run, got = errors([(0, 4, "PER")], [(0, 4, "ORG"), (0, 2, "PER")], strategy="exact")
    assert got == [
        ("false_positive", "predicted", 0, 2),
        ("wrong_label", "gold", 0, 4),
        ("wrong_label", "predicted", 0, 4),
    ]
    assert run.confusion == {("PER", "ORG"): 1, (None, "PER"): 1}


@pytest.mark.parametrize(
    "pred, kinds",
    [
        # the ORG prediction that gives the PER annotation its label: wrong label on both sides
        ([(0, 4, "ORG")], [("wrong_label", "gold", 0, 4), ("wrong_label", "predicted", 0, 4)]),
        # an ORG prediction elsewhere relabels nothing: spurious
        (
            [(6, 8, "ORG")],
            [("false_negative", "gold", 0, 4), ("false_positive", "predicted", 6, 8)],
        ),
        # a PER prediction too short that also covers... nothing of another label: boundary
        ([(0, 3, "PER")], [("boundary", "gold", 0, 4), ("boundary", "predicted", 0, 3)]),
    ],
)
def test_a_predicted_record_has_the_kind_the_kinds_table_counts_it_as(pred, kinds):
    run, got = errors([(0, 4, "PER")], pred, strategy="exact")
    assert got == kinds
    counted = Counter()
    for label, k in run.error_kinds().items():
        counted.update({(label, "wrong_label"): k.wrong_label_predicted})
        counted.update(
            {(label, "false_positive"): k.spurious, (label, "boundary"): k.boundary_predicted}
        )
    records = Counter((e.label, e.kind) for e in run.errors if e.side == "predicted")
    assert +counted == records


def test_a_prediction_lost_to_a_one_to_one_assignment_is_not_a_boundary():
    # Two annotations, one prediction that finds either alone (overlap shares 1 and 3/4;
    # IoU 1 and 3/4), but only one may have it: (0, 4), the better match.
    for kw in ({"strategy": "overlap"}, {"strategy": "two_sided", "one_to_one": True}):
        _, got = errors([(0, 4, "A"), (1, 4, "A")], [(0, 4, "A")], **kw)
        assert got == [("false_negative", "gold", 1, 4)], kw
    # semeval finds an annotation only with the same boundaries, and two identical
    # annotations are one (semantics §3): nothing is lost.
    _, got = errors([(0, 2, "A"), (0, 2, "A")], [(0, 2, "A")], strategy="semeval")
    assert got == []


def test_the_prediction_side_is_the_uncredited_predictions_overlapping_a_boundary_miss():
    # two_sided at 0.5: (0, 10) is found by (0, 9); (20, 30) is not found by (20, 22)
    # (IoU 0.2). (8, 21) overlaps both annotations and is credited by neither: it is the
    # prediction side of the (20, 30) boundary error. (0, 9) is credited: no record.
    run, got = errors(
        [(0, 10, "X"), (20, 30, "X")],
        [(0, 9, "X"), (20, 22, "X"), (8, 21, "X")],
        strategy="two_sided",
        thresholds=0.5,
        length=40,
    )
    assert got == [
        ("boundary", "gold", 20, 30),
        ("boundary", "predicted", 8, 21),
        ("boundary", "predicted", 20, 22),
    ]
    assert run.boundary == {("X", None): 1, (None, "X"): 2}


def test_json_text_and_report_carry_the_kind():
    text = "We moved here from Cyprus (Greek) last May."
    start = text.index("Cyprus")
    doc = Document.create(
        id="s", text=text, gold=[(start, start + 14, "LOC")], pred=[(start, start + 6, "LOC")]
    )
    result = SpanEvaluator(max_errors=None).evaluate([doc])
    data = json.loads(json.dumps(result.to_dict()))
    (run,) = data["levels"]["labels"]
    assert [(e["kind"], e["side"], e["text"]) for e in run["errors"]] == [
        ("boundary", "predicted", "Cyprus"),
        ("boundary", "gold", "Cyprus (Greek)"),
    ]
    assert {(c["gold"], c["predicted"]): (c["count"], c["boundary"]) for c in run["confusion"]} == {
        ("LOC", None): (1, 1),
        (None, "LOC"): (1, 1),
    }
    assert "boundary (gold)" in result_text(result, errors=5)
    html = render_page([run_system([doc], name="sys", errors=10)])
    # One card for the error: the gold span and the prediction with other boundaries.
    assert re.findall(r'class="error-card" data-kind="(\w+)"', html) == ["boundary"]
    assert 'value="boundary">wrong boundaries (1 kept)' in html
    assert "gold LOC “Cyprus (Greek)” predicted with other boundaries as “Cyprus”" in html


def test_the_cli_prints_boundary_records(tmp_path):
    gold, pred = tmp_path / "g.jsonl", tmp_path / "p.jsonl"
    text = "Ann met Bob in Paris"
    gold.write_text(
        json.dumps({"text": text, "spans": [{"start": 8, "end": 11, "label": "PER"}]}) + "\n"
    )
    pred.write_text(
        json.dumps({"text": text, "spans": [{"start": 8, "end": 14, "label": "PER"}]}) + "\n"
    )
    result = CliRunner().invoke(
        app, ["evaluate", str(gold), str(pred), "--errors", "5", "--strategy", "exact"]
    )
    assert result.exit_code == 0, result.output
    assert "boundary (gold)" in result.stdout and "boundary (pred)" in result.stdout
