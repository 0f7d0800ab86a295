"""The semeval strategy (semantics §2.5): nervaluate's four schemas, counted by hand here.

Every expected count below is worked out from the MUC / SemEval-2013 definitions in the
comments, not from the code; tests/engine/test_semeval_vs_nervaluate.py checks the same figures
against nervaluate itself.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from spacy_span_eval import Document, Ledger, SpanEvaluator
from spacy_span_eval.cli import app

from conftest import shuffled_documents

COUNTS = ("correct", "incorrect", "partial", "missed", "spurious")
SCHEMAS = ("strict", "exact", "partial", "ent_type")


def scores(gold, pred, length=40, **kw):
    doc = Document.create(id="d", length=length, gold=gold, pred=pred)
    return SpanEvaluator(strategy="semeval", max_errors=None, **kw).evaluate([doc]).scores()


def counts(run, label=None):
    """``{schema: (correct, incorrect, partial, missed, spurious)}``."""
    return {schema: tuple(row[k] for k in COUNTS) for schema, row in run.side.rows(label).items()}


# The worked example: four annotations, four predictions, one of each kind of error.
GOLD = [(0, 3, "PER"), (5, 8, "LOC"), (10, 14, "ORG"), (20, 22, "PER")]
PRED = [
    (0, 3, "PER"),  # the same span: correct everywhere
    (5, 9, "LOC"),  # right label, one token too long
    (10, 14, "PER"),  # right boundaries, wrong label
    (25, 27, "ORG"),
]  # nothing there; and gold (20, 22) is never found


def test_the_four_schemas_overall_on_the_worked_example():
    run = scores(GOLD, PRED)
    # strict: only (0, 3) is right in both; LOC and ORG/PER overlap, so incorrect.
    # exact: boundaries only, so (10, 14) is correct too; LOC stays incorrect.
    # partial: LOC becomes a partial match (half credit), (10, 14) correct.
    # ent_type: LOC overlaps with its label, correct; ORG/PER is incorrect.
    assert counts(run) == {
        "strict": (1, 2, 0, 1, 1),
        "exact": (2, 1, 0, 1, 1),
        "partial": (2, 0, 1, 1, 1),
        "ent_type": (2, 1, 0, 1, 1),
    }
    partial = run.side.row("partial")
    assert (partial["possible"], partial["actual"]) == (4, 4)
    assert partial["precision"] == partial["recall"] == pytest.approx((2 + 0.5) / 4)
    assert run.side.row("strict")["f"] == pytest.approx(0.25)


def test_per_label_each_label_is_matched_among_its_own_spans():
    run = scores(GOLD, PRED)
    # PER: (0, 3) correct; (20, 22) missed; the PER prediction (10, 14) overlaps no PER
    # annotation, so it is spurious.
    assert counts(run, "PER") == {s: (1, 0, 0, 1, 1) for s in SCHEMAS}
    # ORG: (10, 14) missed, (25, 27) spurious: no ORG pair overlaps.
    assert counts(run, "ORG") == {s: (0, 0, 0, 1, 1) for s in SCHEMAS}
    # LOC: one pair with other boundaries.
    assert counts(run, "LOC") == {
        "strict": (0, 1, 0, 0, 0),
        "exact": (0, 1, 0, 0, 0),
        "partial": (0, 0, 1, 0, 0),
        "ent_type": (1, 0, 0, 0, 0),
    }


def test_the_ledger_is_the_strict_schema_per_label():
    run = scores(GOLD, PRED)
    # tp = credited = strict correct; fn = incorrect + missed; fp = incorrect + spurious.
    assert run.per_label == {
        "PER": Ledger(2, 2, 1, 1, 1, 1),
        "LOC": Ledger(1, 1, 0, 1, 0, 1),
        "ORG": Ledger(1, 1, 0, 1, 0, 1),
    }
    assert run.threshold is None
    strict = run.side.row("strict")
    assert run.micro.precision() == strict["precision"]
    assert run.micro.recall() == strict["recall"]


def test_spans_are_half_open():
    # (0, 3) and (3, 6) touch but do not overlap: a miss and a spurious prediction.
    run = scores([(0, 3, "PER")], [(3, 6, "PER")])
    assert counts(run)["partial"] == (0, 0, 0, 1, 1)
    run = scores([(0, 3, "PER")], [(2, 6, "PER")])
    assert counts(run)["partial"] == (0, 0, 1, 0, 0)


def test_a_correct_pair_is_taken_before_an_overlapping_one_in_any_order():
    # nervaluate lets the first prediction in the list take the annotation; here the exact
    # one wins whatever the order: 1 correct and 1 spurious under every schema but ent_type,
    # where both overlap with the label, so the better IoU (the exact one) is correct.
    gold = [(0, 5, "PER")]
    for pred in ([(0, 3, "PER"), (0, 5, "PER")], [(0, 5, "PER"), (0, 3, "PER")]):
        run = scores(gold, pred)
        assert counts(run) == {s: (1, 0, 0, 0, 1) for s in SCHEMAS}
        assert run.per_label["PER"] == Ledger(1, 2, 1, 0, 1, 1)


def test_the_assignment_prefers_the_higher_iou_then_positions():
    # One prediction (2, 8) overlaps annotations (0, 4) (IoU 2/8) and (6, 10) (IoU 2/8): a
    # tie, broken by the earlier gold start. (6, 10) is then missed.
    run = scores([(0, 4, "X"), (6, 10, "X")], [(2, 8, "X")])
    assert counts(run)["partial"] == (0, 0, 1, 1, 0)
    errors = [(e.kind, e.side, e.start, e.end) for e in run.errors]
    assert ("boundary", "gold", 0, 4) in errors and ("boundary", "gold", 6, 10) in errors
    # With (2, 9) the second annotation overlaps more (3/8 against 2/9) and is taken.
    run = scores([(0, 4, "X"), (6, 10, "X")], [(2, 9, "X")])
    assert counts(run)["ent_type"] == (1, 0, 0, 1, 0)


def test_overall_matching_crosses_labels_the_per_label_one_does_not():
    run = scores([(0, 4, "PER")], [(0, 4, "ORG")])
    assert counts(run) == {
        "strict": (0, 1, 0, 0, 0),
        "exact": (1, 0, 0, 0, 0),
        "partial": (1, 0, 0, 0, 0),
        "ent_type": (0, 1, 0, 0, 0),
    }
    assert counts(run, "PER") == {s: (0, 0, 0, 1, 0) for s in SCHEMAS}
    assert counts(run, "ORG") == {s: (0, 0, 0, 0, 1) for s in SCHEMAS}
    assert run.confusion == {("PER", "ORG"): 1}  # same boundaries: a wrong-label cell


def test_identical_spans_on_one_side_are_one():
    # Semantics §3 (self-agreement): the second copy is the same span, not a spurious one;
    # nervaluate would count it spurious. Spans of one extent and two labels stay two.
    run = scores([(0, 2, "A")], [(0, 2, "A"), (0, 2, "A")])
    assert counts(run)["strict"] == (1, 0, 0, 0, 0)
    assert run.per_label["A"] == Ledger(1, 1, 1, 0, 1, 0)
    both = [(0, 2, "A"), (0, 2, "B")]
    run = scores(both, [*both, (0, 2, "B")])
    assert counts(run)["strict"] == (2, 0, 0, 0, 0)
    assert counts(run)["exact"] == (2, 0, 0, 0, 0)
    assert run.entity_agnostic == Ledger(1, 1, 1, 0, 1, 0)


def test_undefined_ratios_are_none_and_beta_applies():
    run = scores([(0, 2, "A")], [])
    row = run.side.row("strict")
    assert row["precision"] is None and row["recall"] == 0 and row["f"] == 0
    run = scores([(0, 4, "A"), (6, 8, "A")], [(0, 4, "A")], beta=2.0)
    row = run.side.row("strict")
    assert row["f"] == pytest.approx(5 * 1.0 * 0.5 / (4 * 1.0 + 0.5))


def test_json_keeps_a_label_called_overall_apart():
    run = scores([(0, 2, "overall"), (4, 6, "B")], [(0, 2, "overall")])
    data = json.loads(json.dumps(run.to_dict(), allow_nan=False))
    table = data["schemas"]
    assert table["title"].startswith("SemEval-2013")
    assert set(table["per_label"]) == {"overall", "B"}
    assert table["overall"]["strict"]["missed"] == 1
    assert table["per_label"]["overall"]["strict"]["missed"] == 0
    assert (
        "schemas"
        not in SpanEvaluator(strategy="exact")
        .evaluate([Document.create(id="d", length=3, gold=[(0, 1, "A")], pred=[])])
        .scores()
        .to_dict()
    )


@st.composite
def corpora(draw):
    docs = []
    for i in range(draw(st.integers(1, 5))):
        length = draw(st.integers(1, 20))

        def spans(length=length):
            out = []
            for _ in range(draw(st.integers(0, 5))):
                s = draw(st.integers(0, length - 1))
                out.append((s, draw(st.integers(s + 1, length)), draw(st.sampled_from("AB"))))
            return out

        docs.append(Document.create(id=f"d{i}", length=length, gold=spans(), pred=spans()))
    if not any(d.gold or d.pred for d in docs):  # an empty evaluation is an error (§3)
        docs[0] = Document.create(id="d0", length=docs[0].length, gold=[(0, 1, "A")], pred=[])
    return docs


def side_dict(result):
    return {level: [run.side.to_dict() for run in runs] for level, runs in result.levels.items()}


@settings(max_examples=80, deadline=None)
@given(docs=corpora(), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_order_independent_and_additive(docs, seed, data):
    ev = SpanEvaluator(strategy="semeval", max_errors=None, batch_size=2)
    whole = ev.evaluate(docs)
    rng = random.Random(seed)
    shuffled = shuffled_documents(docs, rng)
    assert side_dict(ev.evaluate(shuffled)) == side_dict(whole)
    cut = data.draw(st.integers(0, len(docs)))
    merged = (ev.tally(docs[:cut]) + ev.tally(docs[cut:])).result()
    assert merged.to_dict() == whole.to_dict()
    # The side table adds up and agrees with the ledger (semantics §2.5).
    run = whole.scores()
    per_doc = [ev.evaluate([d]).scores() for d in docs if d.gold or d.pred]
    for schema in SCHEMAS:
        for k in COUNTS:
            assert run.side.row(schema)[k] == sum(r.side.row(schema)[k] for r in per_doc)
    for label, ledger in run.per_label.items():
        strict = run.side.row("strict", label)
        assert ledger.tp == ledger.credited == strict["correct"]
        # identical spans on one side are one (semantics §3)
        assert (
            ledger.num_annotated
            == strict["possible"]
            == sum(s.label == label for d in docs for s in set(d.gold))
        )
        assert (
            ledger.num_predicted
            == strict["actual"]
            == sum(s.label == label for d in docs for s in set(d.pred))
        )
        ledger.check()
    overall = run.side.rows()
    for row in overall.values():
        assert row["possible"] == run.micro.num_annotated
        assert row["actual"] == run.micro.num_predicted
        assert row["correct"] + row["incorrect"] + row["partial"] <= min(
            row["possible"], row["actual"]
        )
    assert overall["strict"]["correct"] == run.micro.tp
    # exact and partial share their matches (same boundaries first, then the same pairs).
    assert overall["exact"]["correct"] == overall["partial"]["correct"]
    assert overall["exact"]["incorrect"] == overall["partial"]["partial"]


def test_spacy_score_keys_carry_every_schema():
    spacy = pytest.importorskip("spacy")
    from spacy.training import Example

    from spacy_span_eval.adapters.scorers import score_ents

    nlp = spacy.blank("en")
    text = "John Smith lives in New York City"
    ref, pred = nlp(text), nlp(text)
    ref.ents = [ref.char_span(0, 10, "PER"), ref.char_span(20, 33, "LOC")]
    pred.ents = [pred.char_span(0, 4, "PER"), pred.char_span(20, 33, "LOC")]
    got = score_ents([Example(pred, ref)], strategy="semeval")
    assert got["ents_semeval_f"] == got["ents_semeval_strict_f"] == 0.5
    assert got["ents_semeval_partial_f"] == 0.75  # (1 + 1/2) / 2
    assert got["ents_semeval_ent_type_f"] == 1.0
    assert got["ents_semeval_partial_per_type"]["PER"] == {"p": 0.5, "r": 0.5, "f": 0.5}
    assert got["ents_f"] == 0.5  # spaCy's own exact keys beside them


def test_cli_prints_the_four_schemas_side_by_side(tmp_path):
    gold, pred = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    text = "Ann met Bob in Paris"
    gold.write_text(
        json.dumps(
            {
                "id": 1,
                "text": text,
                "spans": [
                    {"start": 0, "end": 3, "label": "PER"},
                    {"start": 8, "end": 11, "label": "PER"},
                    {"start": 15, "end": 20, "label": "LOC"},
                ],
            }
        )
        + "\n"
    )
    pred.write_text(
        json.dumps(
            {
                "id": 1,
                "text": text,
                "spans": [
                    {"start": 0, "end": 3, "label": "PER"},
                    {"start": 8, "end": 14, "label": "PER"},
                    {"start": 15, "end": 20, "label": "ORG"},
                ],
            }
        )
        + "\n"
    )
    result = CliRunner().invoke(
        app, ["evaluate", str(gold), str(pred), "--strategy", "semeval", "--errors", "10"]
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "SemEval-2013 schemas" in out
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.strip()}
    # correct incorrect partial missed spurious possible actual
    assert lines["strict"][:7] == ["1", "2", "0", "0", "0", "3", "3"]
    assert lines["partial"][:7] == ["2", "0", "1", "0", "0", "3", "3"]
    assert lines["ent_type"][:7] == ["2", "1", "0", "0", "0", "3", "3"]
    assert "boundary (gold)" in out and "boundary (pred)" in out
    data = json.loads(
        CliRunner()
        .invoke(
            app, ["evaluate", str(gold), str(pred), "--strategy", "semeval", "--format", "json"]
        )
        .stdout
    )
    (run,) = data["result"]["levels"]["labels"]
    assert run["schemas"]["overall"]["exact"]["correct"] == 2
