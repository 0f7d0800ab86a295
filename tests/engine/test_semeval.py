"""The semeval strategy (semantics §2.5): nervaluate's four schemas, counted by hand here.

Every expected count below is worked out from the MUC / SemEval-2013 definitions in the
comments, not from the code; tests/engine/test_semeval_vs_nervaluate.py checks the same figures
against nervaluate itself.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from spacy_span_eval import Document, Ledger, SpanEvaluator
from spacy_span_eval.cli import app
from spacy_span_eval.engine.columns import SpanColumns, assign
from spacy_span_eval.engine.strategies.semeval import SemEval

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

    from spacy_doc_factory import score_ents

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


# -------------------------------------------------------------------------------------------------
# The semeval strategy's counts, read exactly on one hand-worked batch (semantics §2.5).
#
# One batch of two documents and three labels holds each case of the SemEval-2013 taxonomy:
# an exact match, a boundary error, a label error, a spurious and a missed span, two
# predictions competing for one annotation (the higher IoU wins), a correct pair that must be
# taken before a higher-IoU incorrect one, one prediction over two annotations, and a span in a
# second document that would pair with the first document's had documents been mixed. Every
# count, per schema, per label and overall, is worked out in the comments; then the greedy
# assignment's tie-breaks (gold start, gold end, prediction start, prediction end, labels) each
# get a case where the wrong order loses a match, and the figures (possible, actual, half
# credit for partial) are computed by hand.
# -------------------------------------------------------------------------------------------------

PER, LOC, ORG = 0, 1, 2


def columns(spans):
    """``(doc, start, end, label)`` rows."""
    doc, start, end, label = zip(*spans, strict=True) if spans else ((), (), (), ())
    return SpanColumns.from_arrays(doc, start, end, label)


def run(gold, pred, n_labels=3):
    return SemEval((None,)).run(columns(gold), columns(pred), n_labels)


def rows(table):
    """``{schema: (correct, incorrect, partial, missed, spurious)}`` of one (5, 4) table."""
    names = ("strict", "exact", "partial", "ent_type")
    return {name: tuple(int(v) for v in table[k]) for k, name in enumerate(names)}


BATCH_GOLD = [
    (0, 0, 3, PER),  # g0: p0 the same span
    (0, 5, 8, LOC),  # g1: p1 [5, 9), IoU 3/4
    (0, 10, 14, ORG),  # g2: p2 the same extent as PER
    (0, 20, 22, PER),  # g3: nothing there: missed
    (0, 30, 40, LOC),  # g4: p4 [30, 35) 5/10 and p5 [32, 40) 8/10 compete
    (0, 50, 54, ORG),  # g5: p6 same extent as PER (1.0), p7 ORG [50, 53) (3/4)
    (0, 58, 62, LOC),  # g6: p8 [60, 64) 2/6
    (0, 62, 66, LOC),  # g7: p8 too, 2/6: the tie goes to the earlier start, g6
    (1, 0, 3, PER),  # g8: doc 1; p0's extent, but in the other document: missed
]
BATCH_PRED = [
    (0, 0, 3, PER),  # p0
    (0, 5, 9, LOC),  # p1
    (0, 10, 14, PER),  # p2
    (0, 25, 27, ORG),  # p3: spurious
    (0, 30, 35, LOC),  # p4
    (0, 32, 40, LOC),  # p5
    (0, 50, 54, PER),  # p6
    (0, 50, 53, ORG),  # p7
    (0, 60, 64, LOC),  # p8
    (1, 30, 40, LOC),  # p9: g4's extent in doc 1: spurious
]


def test_overall_counts_of_every_schema():
    out = run(BATCH_GOLD, BATCH_PRED)
    # Pairs of a document, any label: g0-p0 1 (strict correct), g2-p2 1, g5-p6 1, g4-p5 .8,
    # g1-p1 .75, g5-p7 .75, g4-p4 .5, g6-p8 1/3, g7-p8 1/3.
    # strict: g0-p0 correct; then by IoU g2-p2, g5-p6, g4-p5, g1-p1, g6-p8 incorrect (g5-p7,
    #   g4-p4, g7-p8 find a side taken): 1 correct, 5 incorrect, missed g3 g7 g8, spurious
    #   p3 p4 p7 p9.
    # exact/partial: g0-p0, g2-p2, g5-p6 correct first; g4-p5, g1-p1, g6-p8 the others.
    # ent_type: same-label pairs first: g0-p0, g4-p5, g1-p1, g5-p7, g6-p8 correct; then
    #   g2-p2 incorrect; g5-p6 finds g5 taken: spurious p3 p4 p6 p9.
    assert rows(out.side.overall[0]) == {
        "strict": (1, 5, 0, 3, 4),
        "exact": (3, 3, 0, 3, 4),
        "partial": (3, 0, 3, 3, 4),
        "ent_type": (5, 1, 0, 3, 4),
    }


def test_per_label_counts_of_every_schema():
    out = run(BATCH_GOLD, BATCH_PRED)
    per = out.side.per_label[0]
    assert per.shape == (3, 4, 5)
    # Same-label pairs only: g0-p0 (PER, exact), g4-p5 .8, g1-p1 .75, g5-p7 .75 (ORG),
    # g4-p4 .5, g6-p8 1/3, g7-p8 1/3: matched g0-p0, g4-p5, g1-p1, g5-p7, g6-p8.
    # PER: gold g0 g3 g8 -> g0 matched; preds p0 p2 p6 -> p2, p6 spurious.
    assert rows(per[PER]) == {
        "strict": (1, 0, 0, 2, 2),
        "exact": (1, 0, 0, 2, 2),
        "partial": (1, 0, 0, 2, 2),
        "ent_type": (1, 0, 0, 2, 2),
    }
    # LOC: gold g1 g4 g6 g7 -> g1, g4, g6 matched with other boundaries, g7 missed;
    # preds p1 p4 p5 p8 p9 -> p4, p9 spurious.
    assert rows(per[LOC]) == {
        "strict": (0, 3, 0, 1, 2),
        "exact": (0, 3, 0, 1, 2),
        "partial": (0, 0, 3, 1, 2),
        "ent_type": (3, 0, 0, 1, 2),
    }
    # ORG: gold g2 (no ORG prediction over it: missed), g5 (p7); preds p3 spurious, p7.
    assert rows(per[ORG]) == {
        "strict": (0, 1, 0, 1, 1),
        "exact": (0, 1, 0, 1, 1),
        "partial": (0, 0, 1, 1, 1),
        "ent_type": (1, 0, 0, 1, 1),
    }


def test_the_ledger_and_scores_of_the_match():
    out = run(BATCH_GOLD, BATCH_PRED)
    m = out.match
    # the strict schema per label: only g0 and p0
    assert m.gold_tp.tolist() == [[True] + [False] * 8]
    assert m.pred_credited.tolist() == [[True] + [False] * 9]
    assert m.gold_tp.dtype == bool and m.pred_credited.dtype == bool  # masks (base.Match)
    # best same-label IoU: g0 1, g1 3/4, g2 none, g3 none, g4 8/10, g5 3/4, g6 g7 1/3, g8 none
    assert m.gold_score.tolist() == pytest.approx([1, 0.75, 0, 0, 0.8, 0.75, 1 / 3, 1 / 3, 0])
    # p0 1, p1 3/4, p2 none of its label, p3 none, p4 5/10, p5 8/10, p6 none, p7 3/4,
    # p8 1/3, p9 none
    assert m.pred_score.tolist() == pytest.approx([1, 0.75, 0, 0, 0.5, 0.8, 0, 0.75, 1 / 3, 0])
    assert m.found_alone.tolist() == [[True] + [False] * 8]
    assert out.gold is not None and len(out.gold) == 9 and len(out.pred) == 10


def test_credited_is_per_prediction_not_per_pair_index():
    # p0 is unmatched (spurious), p1 matches g0 exactly: credited must land on p1
    out = run([(0, 10, 14, PER)], [(0, 30, 32, PER), (0, 10, 14, PER)])
    assert out.match.pred_credited.tolist() == [[False, True]]
    assert out.match.gold_tp.tolist() == [[True]]
    # the first of two annotations has no prediction; the second is exact
    out = run([(0, 0, 2, LOC), (0, 10, 14, PER)], [(0, 10, 14, PER)])
    assert out.match.gold_tp.tolist() == [[False, True]]
    assert rows(out.side.per_label[0][PER])["strict"] == (1, 0, 0, 0, 0)
    assert rows(out.side.per_label[0][LOC])["strict"] == (0, 0, 0, 1, 0)


def test_no_pairs_at_all_is_all_missed_and_spurious():
    out = run([(0, 0, 3, PER), (0, 5, 8, LOC)], [(0, 10, 12, LOC)])
    assert rows(out.side.overall[0])["strict"] == (0, 0, 0, 2, 1)
    assert rows(out.side.per_label[0][LOC])["partial"] == (0, 0, 0, 1, 1)
    assert out.match.gold_score.tolist() == [0.0, 0.0]
    assert out.match.gold_tp.tolist() == [[False, False]]


# --- the order of the greedy assignment: each key decides a case ---------------------------
# In each case one span is claimed by two pairs of equal rank up to the key under test; the
# loser of the wrong order has a weaker partner left, so the right order matches two pairs and
# the wrong one only one (1 missed, 1 spurious more).


def strict_overall(gold, pred):
    return rows(run(gold, pred).side.overall[0])["strict"]


def test_tie_of_iou_goes_to_the_earlier_gold_start():
    # P [60, 64) over A [58, 62) and B [62, 66): 2/6 each. A first; B then takes Q [65, 70)
    # (1/8). B listed first, so input order would give B the prediction and leave A alone.
    gold = [(0, 62, 66, LOC), (0, 58, 62, LOC)]
    pred = [(0, 60, 64, LOC), (0, 65, 70, LOC)]
    assert strict_overall(gold, pred) == (0, 2, 0, 0, 0)


def test_tie_of_iou_and_start_goes_to_the_earlier_gold_end():
    # P [8, 14) over A [10, 12) (2/6) and B [10, 20) (4/12): tie. A (end 12) first; B then
    # takes Q [18, 30) (2/20).
    gold = [(0, 10, 20, LOC), (0, 10, 12, LOC)]
    pred = [(0, 8, 14, LOC), (0, 18, 30, LOC)]
    assert strict_overall(gold, pred) == (0, 2, 0, 0, 0)


def test_tie_of_iou_goes_to_the_earlier_prediction_start():
    # G [10, 14) under P1 [8, 14) (4/6) and P2 [10, 16) (4/6): P1 first; P2 then takes
    # H [15, 30) (1/20).
    gold = [(0, 10, 14, LOC), (0, 15, 30, LOC)]
    pred = [(0, 10, 16, LOC), (0, 8, 14, LOC)]
    assert strict_overall(gold, pred) == (0, 2, 0, 0, 0)


def test_tie_of_iou_and_start_goes_to_the_earlier_prediction_end():
    # G [10, 20) under P1 [10, 12) (2/10) and P2 [10, 60) (10/50): P1 first; P2 then takes
    # H [50, 100) (10/90).
    gold = [(0, 10, 20, LOC), (0, 50, 100, LOC)]
    pred = [(0, 10, 60, LOC), (0, 10, 12, LOC)]
    assert strict_overall(gold, pred) == (0, 2, 0, 0, 0)


def test_tie_of_extent_goes_to_the_smaller_gold_label():
    # P ORG [70, 74) over PER and LOC annotations of that extent (IoU 1, strict incorrect):
    # PER (0) first; LOC then takes Q LOC [73, 80) (1/10), incorrect overall.
    gold = [(0, 70, 74, LOC), (0, 70, 74, PER)]
    pred = [(0, 70, 74, ORG), (0, 73, 80, ORG)]
    assert strict_overall(gold, pred) == (0, 2, 0, 0, 0)


def test_tie_of_extent_goes_to_the_smaller_predicted_label():
    # G ORG [80, 84) under LOC and PER predictions of that extent: PER first; LOC then takes
    # H [83, 90) (1/10).
    gold = [(0, 80, 84, ORG), (0, 83, 90, ORG)]
    pred = [(0, 80, 84, LOC), (0, 80, 84, PER)]
    assert strict_overall(gold, pred) == (0, 2, 0, 0, 0)


def test_higher_iou_is_taken_before_an_earlier_start():
    # P [5, 15) over A [0, 8) (3/15) and B [10, 15) (5/10): B first (higher IoU) although A
    # starts earlier; A then takes Q [0, 2) (2/8).
    gold = [(0, 0, 8, LOC), (0, 10, 15, LOC)]
    pred = [(0, 5, 15, LOC), (0, 0, 2, LOC)]
    assert strict_overall(gold, pred) == (0, 2, 0, 0, 0)


# --- assign ---------------------------------------------------------------------------------


def test_assign_takes_pairs_greedily_in_the_given_order():
    # pairs: 0 (g0, p0), 1 (g0, p1), 2 (g1, p1), 3 (g2, p2) lone
    pg, pp = np.array([0, 0, 1, 2]), np.array([0, 1, 1, 2])
    g_pair, p_pair = assign(pg, pp, np.array([1, 0, 2, 3]), 4, 4)
    # pair 1 first: g0-p1; pair 0 finds g0 taken, pair 2 p1 taken; g1, g3, p0, p3 alone
    assert g_pair.tolist() == [1, -1, 3, -1]
    assert p_pair.tolist() == [-1, 1, 3, -1]
    g_pair, p_pair = assign(pg, pp, np.array([0, 2, 1, 3]), 4, 4)
    assert g_pair.tolist() == [0, 2, 3, -1]
    assert p_pair.tolist() == [0, 2, 3, -1]
    assert g_pair.dtype == np.int64 and p_pair.dtype == np.int64


def test_assign_sees_a_prediction_taken_by_the_first_pair():
    # pairs 0 (g0, p0), 1 (g1, p0), 2 (g1, p1): pair 0 takes p0 (its pair index is 0), so
    # pair 1 must find p0 taken and g1 goes to p1
    pg, pp = np.array([0, 1, 1]), np.array([0, 0, 1])
    g_pair, p_pair = assign(pg, pp, np.array([0, 1, 2]), 2, 2)
    assert g_pair.tolist() == [0, 2]
    assert p_pair.tolist() == [0, 2]
    # and the same on the gold side: pairs 0 (g0, p0), 1 (g0, p1), 2 (g1, p1)
    pg, pp = np.array([0, 0, 1]), np.array([0, 1, 1])
    g_pair, p_pair = assign(pg, pp, np.array([0, 1, 2]), 2, 2)
    assert g_pair.tolist() == [0, 2]
    assert p_pair.tolist() == [0, 2]


def test_assign_without_pairs_leaves_everything_unmatched():
    empty = np.array([], dtype=np.int64)
    g_pair, p_pair = assign(empty, empty, empty, 2, 3)
    assert g_pair.tolist() == [-1, -1]
    assert p_pair.tolist() == [-1, -1, -1]


def test_assign_with_only_lone_pairs_ignores_the_order():
    pg, pp = np.array([1, 0]), np.array([0, 2])
    g_pair, p_pair = assign(pg, pp, np.array([1, 0]), 2, 3)
    assert g_pair.tolist() == [1, 0]
    assert p_pair.tolist() == [0, -1, 1]


# --- side_figures ----------------------------------------------------------------------------


def test_side_figures_credit_a_partial_match_half():
    counts = {"correct": 3, "incorrect": 1, "partial": 2, "missed": 4, "spurious": 5}
    fig = SemEval.side_figures("partial", counts)
    # possible 3+1+2+4 = 10, actual 3+1+2+5 = 11, credit 3 + 2/2 = 4
    # P = 4/11, R = 4/10, F1 = 2PR/(P+R) = 2*(16/110)/(84/110) = 32/84 = 8/21
    assert fig["possible"] == 10 and fig["actual"] == 11
    assert fig["precision"] == pytest.approx(4 / 11)
    assert fig["recall"] == pytest.approx(0.4)
    assert fig["f"] == pytest.approx(8 / 21)
    assert list(fig) == ["possible", "actual", "precision", "recall", "f"]


def test_side_figures_beta_and_zero_division():
    counts = {"correct": 1, "incorrect": 0, "partial": 0, "missed": 3, "spurious": 0}
    fig = SemEval.side_figures("strict", counts, beta=2.0)
    # P = 1/1, R = 1/4; F2 = 5PR/(4P+R) = (5/4)/(17/4) = 5/17
    assert (fig["precision"], fig["recall"]) == (1.0, 0.25)
    assert fig["f"] == pytest.approx(5 / 17)
    # nothing predicted, nothing annotated: undefined unless zero_division is set
    none = {"correct": 0, "incorrect": 0, "partial": 0, "missed": 0, "spurious": 0}
    fig = SemEval.side_figures("strict", none)
    assert (fig["precision"], fig["recall"], fig["f"]) == (None, None, None)
    fig = SemEval.side_figures("strict", none, zero_division=1.0)
    assert (fig["precision"], fig["recall"], fig["f"]) == (1.0, 1.0, 1.0)
    # only missed: P undefined, R 0
    fig = SemEval.side_figures("exact", {**none, "missed": 2}, zero_division=0.5)
    assert (fig["possible"], fig["actual"]) == (2, 0)
    assert (fig["precision"], fig["recall"]) == (0.5, 0.0)


def test_counts_are_integers():
    out = run(BATCH_GOLD, BATCH_PRED)
    assert out.side.per_label.dtype == np.int64
    assert out.side.overall.dtype == np.int64


# --- many crowded spans against a greedy oracle written here -------------------------------

SCHEMA_RULES = {
    # schema: (correct when, the other kind's column)
    "strict": (lambda b, lab: b and lab, 1),
    "exact": (lambda b, lab: b, 1),
    "partial": (lambda b, lab: b, 2),
    "ent_type": (lambda b, lab: lab, 1),
}


def oracle_counts(gold, pred, same_label_only):
    """Greedy in the order of semantics §2.5 with Python sorting and exact fractions:
    ``{schema: [correct, incorrect, partial, missed, spurious]}``."""
    pairs = [
        (gi, pi)
        for gi, g in enumerate(gold)
        for pi, p in enumerate(pred)
        if g[0] == p[0] and g[1] < p[2] and p[1] < g[2] and (g[3] == p[3] or not same_label_only)
    ]
    out = {}
    for schema, (rule, other) in SCHEMA_RULES.items():

        def key(pair, rule=rule):
            g, p = gold[pair[0]], pred[pair[1]]
            ok = rule((g[1], g[2]) == (p[1], p[2]), g[3] == p[3])
            iou = Fraction(min(g[2], p[2]) - max(g[1], p[1]), max(g[2], p[2]) - min(g[1], p[1]))
            return (not ok, -iou, g[1], g[2], p[1], p[2], g[3], p[3]), ok

        counts = [0, 0, 0, 0, 0]
        g_used, p_used = set(), set()
        for pair in sorted(pairs, key=lambda pair: key(pair)[0]):
            if pair[0] in g_used or pair[1] in p_used:
                continue
            g_used.add(pair[0])
            p_used.add(pair[1])
            counts[0 if key(pair)[1] else other] += 1
        counts[3] = len(gold) - len(g_used)
        counts[4] = len(pred) - len(p_used)
        out[schema] = tuple(counts)
    return out


def crowded(rng, n, width):
    spans = set()
    while len(spans) < n:
        s = rng.randrange(0, width - 1)
        spans.add((0, s, rng.randrange(s + 1, min(width, s + 6) + 1), rng.randrange(3)))
    return sorted(spans, key=lambda _: rng.random())


@pytest.mark.parametrize("seed", range(4))
def test_crowded_documents_equal_the_greedy_oracle(seed):
    rng = random.Random(seed)
    gold, pred = crowded(rng, 70, 60), crowded(rng, 70, 60)
    out = run(gold, pred)
    assert rows(out.side.overall[0]) == oracle_counts(gold, pred, same_label_only=False)
    for lab in (PER, LOC, ORG):
        # per label: the label's annotations and predictions, matched among themselves
        mine = oracle_counts(
            [g for g in gold if g[3] == lab], [p for p in pred if p[3] == lab], True
        )
        assert rows(out.side.per_label[0][lab]) == mine
    # strict correct agrees in both scopes (semantics §2.5)
    strict_correct = [int(out.side.per_label[0][lab][0][0]) for lab in range(3)]
    assert sum(strict_correct) == int(out.side.overall[0][0][0])
