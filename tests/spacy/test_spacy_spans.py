"""A span-group pipeline (span_ruler) on re3d's overlapping entities, scored through the
registered spans scorer: same figures as the engine, exact part equal to spaCy's own."""

from __future__ import annotations

import json
from itertools import combinations

import pytest
import spacy
from spacy.pipeline.span_ruler import overlapping_labeled_spans_score
from spacy.training import Example

from spacy_span_eval import SpanEvaluator

from conftest import data_path
from spacy_doc_factory import examples_to_documents

TEST_SOURCE = "CENTCOM"  # held out; the rules come from the other sources


def read_json_lines(path):
    return [
        json.loads(line)
        for line in path.read_text(encoding="utf-8-sig").splitlines()
        if line.strip()
    ]


@pytest.fixture(scope="module")
def re3d():
    """``{source: [(text, [(begin, end, type), ...]), ...]}`` from the mongoexport files."""
    root = data_path("re3d")
    out = {}
    for sub in sorted(p for p in root.iterdir() if (p / "documents.json").exists()):
        docs = {d["_id"]: (d["text"], []) for d in read_json_lines(sub / "documents.json")}
        for ent in read_json_lines(sub / "entities.json"):
            docs[ent["documentId"]][1].append((ent["begin"], ent["end"], ent["type"]))
        out[sub.name] = list(docs.values())
    return out


def gold_doc(nlp, text, entities):
    """A reference doc with ``spans["sc"]``. A few re3d offsets cut a spaCy token: those are
    widened to whole tokens, and the one annotation of a lone space is left out (gold
    construction, not scoring; the scorer itself rejects an empty span, never moves one)."""
    doc = nlp.make_doc(text)
    spans = [
        doc.char_span(b, e, label=t, alignment_mode="expand")
        for b, e, t in entities
        if text[b:e].strip()
    ]
    doc.spans["sc"] = spans
    return doc


@pytest.fixture(scope="module")
def pipeline_and_examples(re3d):
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe(
        "span_ruler",
        config={
            "spans_key": "sc",
            "phrase_matcher_attr": "LOWER",
            "scorer": {
                "@scorers": "spacy_span_eval.spans_scorer.v1",
                "spans_key": "sc",
                "thresholds": [0.5, 0.75],
            },
        },
    )
    patterns = {
        (t, text[b:e])
        for name, docs in re3d.items()
        if name != TEST_SOURCE
        for text, ents in docs
        for b, e, t in ents
        if e - b > 2
    }
    ruler.add_patterns([{"label": t, "pattern": p} for t, p in sorted(patterns)])
    examples = [
        Example(nlp.make_doc(text), gold_doc(nlp, text, ents)) for text, ents in re3d[TEST_SOURCE]
    ]
    return nlp, examples


def overlapping_pairs(spans) -> int:
    return sum(1 for a, b in combinations(spans, 2) if a.start < b.end and b.start < a.end)


def test_the_data_and_the_predictions_overlap(re3d, pipeline_and_examples):
    nlp, examples = pipeline_and_examples
    kept = sum(len(eg.reference.spans["sc"]) for eg in examples)
    assert kept == sum(len(ents) for _, ents in re3d[TEST_SOURCE]) - 1  # the lone space
    assert sum(overlapping_pairs(eg.reference.spans["sc"]) for eg in examples) > 50
    predicted = [nlp(eg.predicted) for eg in examples]
    assert sum(overlapping_pairs(doc.spans["sc"]) for doc in predicted) > 10


def test_spans_scorer_reports_what_the_engine_computes(pipeline_and_examples):
    nlp, examples = pipeline_and_examples
    scores = nlp.evaluate(examples)
    predicted = [Example(nlp(nlp.make_doc(eg.reference.text)), eg.reference) for eg in examples]
    direct = SpanEvaluator(thresholds=(0.5, 0.75)).evaluate(
        examples_to_documents(predicted, source="sc")
    )
    for tau, key in ((0.5, "spans_sc_iou"), (0.75, "spans_sc_iou75")):
        run = direct.scores(tau)
        assert scores[f"{key}_f"] == pytest.approx(run.micro.f(), abs=1e-12)
        per_type = scores[f"{key}_per_type"]
        assert set(per_type) == set(run.per_label)
        for label, ledger in run.per_label.items():
            row = per_type[label]
            assert [
                row[k] for k in ("num_annotated", "num_predicted", "tp", "fn", "credited", "fp")
            ] == [
                ledger.num_annotated,
                ledger.num_predicted,
                ledger.tp,
                ledger.fn,
                ledger.credited,
                ledger.fp,
            ]
            assert row["tp"] + row["fn"] == row["num_annotated"]
            assert row["credited"] + row["fp"] == row["num_predicted"]


def test_exact_keys_equal_spacys_span_ruler_scorer(pipeline_and_examples):
    nlp, examples = pipeline_and_examples
    scores = nlp.evaluate(examples)
    predicted = [Example(nlp(nlp.make_doc(eg.reference.text)), eg.reference) for eg in examples]
    theirs = overlapping_labeled_spans_score(predicted, spans_key="sc")
    for k in "prf":
        assert scores[f"spans_sc_{k}"] == pytest.approx(theirs[f"spans_sc_{k}"], abs=1e-12)
    for label, row in theirs["spans_sc_per_type"].items():
        mine = scores["spans_sc_per_type"][label]
        for k in "prf":
            assert (mine[k] or 0.0) == pytest.approx(row[k], abs=1e-12), (label, k)


def test_two_sided_recall_is_never_below_exact_recall(pipeline_and_examples):
    nlp, examples = pipeline_and_examples
    scores = nlp.evaluate(examples)
    for label, row in scores["spans_sc_per_type"].items():  # spaCy's: 0.0 where ours is None
        assert (scores["spans_sc_iou_per_type"][label]["r"] or 0.0) >= row["r"], label
    assert scores["spans_sc_iou_r"] > scores["spans_sc_r"]  # partial matches get credit
