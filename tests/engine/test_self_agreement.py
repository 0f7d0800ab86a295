"""Self-agreement (semantics §3): identical spans on one side at one level are one span there,
so anything scored against itself is perfect: P = R = F = 1 at every level, strategy, unit and
threshold, with how many spans were collapsed counted in the notes.

Random documents with overlapping, nested and identical spans, of several labels (and label
aliases that the label map joins), scored against themselves; hand-worked counts and notes
for the re3d case (one extent with two labels) and for a span given twice; and every shared
corpus that can be read as gold scored against itself through the API.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_span_eval import Document, Hierarchy, Ledger, Span, SpanEvaluator
from spacy_span_eval.engine.strategies import BUILT_IN

from conftest import SHARED_CORPORA, data_path

# "A2" is an alias of "A" (the label map joins them); the hierarchy folds labels twice.
LABELS = ["A", "A2", "B", "C"]
LABEL_MAP = {"A2": "A"}
CANONICAL = {label: LABEL_MAP.get(label, label) for label in LABELS}
HIERARCHY = Hierarchy(
    {"branch": {"A": "AB", "B": "AB", "C": "C"}, "binary": {"A": "X", "B": "X", "C": "X"}}
)
UNITS = ("char", "token")
CONFIGS = [
    {"strategy": "two_sided", "thresholds": (0.1, 0.5, 0.75, 1.0)},
    {"strategy": "two_sided", "thresholds": (0.3, 1.0), "coverage": "pooled"},
    {"strategy": "two_sided", "thresholds": (0.5, 0.9), "one_to_one": True},
    {"strategy": "two_sided", "thresholds": (0.5,), "one_to_one": True, "coverage": "pooled"},
    {"strategy": "exact"},
    {"strategy": "overlap"},
    {"strategy": "overlap", "min_gold": 1.0, "min_pred": 1.0},
    {"strategy": "token"},
    {"strategy": "semeval"},
]


def test_every_built_in_strategy_is_tried():
    assert {c["strategy"] for c in CONFIGS} == {s.name for s in BUILT_IN}


@st.composite
def self_documents(draw, max_docs: int = 5):
    """Documents whose spans overlap, nest, repeat exactly, or repeat an extent under another
    label; the predictions are the annotations (in another order, when drawn so)."""
    docs = []
    for i in range(draw(st.integers(1, max_docs))):
        length = draw(st.integers(1, 20))

        def span(length=length):
            start = draw(st.integers(0, length - 1))
            end = draw(st.integers(start + 1, length))
            return (start, end, draw(st.sampled_from(LABELS)))

        spans = [span() for _ in range(draw(st.integers(0, 6)))]
        for _ in range(draw(st.integers(0, 4)) if spans else 0):
            s, e, label = draw(st.sampled_from(spans))
            how = draw(st.sampled_from(["same", "other label", "nested"]))
            if how == "other label":
                label = draw(st.sampled_from(LABELS))
            elif how == "nested":
                s = draw(st.integers(s, e - 1))
                e = draw(st.integers(s + 1, e))
            spans.append((s, e, label))
        pred = draw(st.permutations(spans))
        docs.append((f"d{i}", length, spans, pred))
    if not any(spans for _, _, spans, _ in docs):
        docs[0] = ("d0", docs[0][1], [(0, 1, "A")], [(0, 1, "A")])
    return docs


def build(docs, unit):
    return [
        Document.create(id=i, length=n, gold=gold, pred=pred, unit=unit)
        for i, n, gold, pred in docs
    ]


def assert_perfect(result):
    """P = R = F = 1 everywhere: every ledger, average, side table row; no error record; only
    diagonal confusion cells."""
    for level, runs in result.levels.items():
        for run in runs:
            where = (level, run.threshold)
            for ledger in [*run.per_label.values(), run.micro, run.entity_agnostic]:
                assert ledger.fn == ledger.fp == 0, (where, ledger)
                assert ledger.tp == ledger.credited == ledger.num_annotated == ledger.num_predicted
                assert ledger.precision() == ledger.recall() == ledger.f() == 1.0, where
            for average in (run.macro, run.weighted):
                assert average["precision"] == average["recall"] == average["f"] == 1.0, where
            assert run.errors == (), where
            assert all(gold == pred for gold, pred in run.confusion), (where, run.confusion)
            assert not run.boundary, where
            if run.side is not None:
                for label in (None, *run.per_label):
                    for schema, row in run.side.rows(label).items():
                        assert row["precision"] == row["recall"] == 1.0, (where, label, schema)


def extents_overlap(docs) -> bool:
    """Whether two different extents of one document overlap (whatever their labels)."""
    for _, _, spans, _ in docs:
        extents = {(s, e) for s, e, _ in spans}
        if any(a[0] < b[1] and b[0] < a[1] for a, b in combinations(extents, 2)):
            return True
    return False


def distinct_counts(docs, project):
    """Per level label, the distinct (document, start, end, label) spans of ``docs``."""
    seen = {(i, s, e, project(label)) for i, _, spans, _ in docs for s, e, label in spans}
    return Counter(label for *_, label in seen)


@settings(max_examples=60, deadline=None)
@given(docs=self_documents(), unit=st.sampled_from(UNITS))
def test_anything_scored_against_itself_is_perfect(docs, unit):
    documents = build(docs, unit)
    overlapping = extents_overlap(docs)
    for config in CONFIGS:
        if overlapping and config.get("coverage") == "pooled":
            # The original rule selects every candidate (semantics §2.1): an annotation's
            # overlapping neighbours drag its IoU down even against itself. Identical spans,
            # the case self-agreement is about, are one and so never do.
            continue
        ev = SpanEvaluator(
            unit=unit,
            label_map=LABEL_MAP,
            hierarchy=HIERARCHY,
            max_errors=None,
            per_document=True,
            batch_size=2,
            **config,
        )
        result = ev.evaluate(documents)
        assert_perfect(result)
        # the per-document rows see the same distinct spans
        counts = result.documents
        for label, rows in counts.counts.items():
            assert (rows[..., 2] == rows[..., 0]).all() and (rows[..., 5] == 0).all(), label
        if config["strategy"] == "token":
            continue
        # every level counts each distinct span once; what was collapsed is in the notes
        levels = {
            "labels": ("", CANONICAL.get),
            "branch": ("_at_branch", lambda x: HIERARCHY.project("branch", CANONICAL[x])),
            "binary": ("_at_binary", lambda x: "X"),
        }
        total = sum(len(spans) for _, _, spans, _ in docs)
        for level, (suffix, project) in levels.items():
            run = result.levels[level][0]
            expected = distinct_counts(docs, project)
            assert {k: v.num_annotated for k, v in run.per_label.items()} == dict(expected)
            for side in ("gold", "pred"):
                collapsed = result.notes.get(f"{side}_duplicates_collapsed{suffix}", 0)
                assert collapsed == total - sum(expected.values()), (level, side)
        extents = distinct_counts(docs, lambda label: None)[None]
        assert result.scores().entity_agnostic.num_annotated == extents
        for side in ("gold", "pred"):
            assert result.notes.get(f"{side}_duplicates_collapsed_any_entity", 0) == total - extents


# -- worked by hand ---------------------------------------------------------------------------


def evaluate(gold, pred, length=20, **kw):
    doc = Document.create(id="d", length=length, gold=gold, pred=pred)
    return SpanEvaluator(max_errors=None, **kw).evaluate([doc])


def test_one_extent_with_two_labels_is_two_spans_per_label_and_one_span_of_any_entity():
    # The re3d case: (0, 5) is both an Organisation and a Location. Per label the two are
    # different spans; as "any entity" they are one extent on each side, so the any-entity
    # ledger is 2 annotations, 2 predictions, both found (it was 3 and 3 with one FP:
    # the second identical prediction was redundant, while both identical annotations were
    # found).
    spans = [(0, 5, "Org"), (0, 5, "Loc"), (6, 9, "Org")]
    result = evaluate(spans, spans)
    run = result.scores()
    assert run.per_label == {
        "Loc": Ledger(1, 1, tp=1, fn=0, credited=1, fp=0),
        "Org": Ledger(2, 2, tp=2, fn=0, credited=2, fp=0),
    }
    assert run.micro == Ledger(3, 3, tp=3, fn=0, credited=3, fp=0)
    assert run.entity_agnostic == Ledger(2, 2, tp=2, fn=0, credited=2, fp=0)
    assert result.notes == {
        "gold_duplicates_collapsed_any_entity": 1,
        "pred_duplicates_collapsed_any_entity": 1,
    }
    notes = json.loads(json.dumps(result.to_dict()))["notes"]
    assert notes == {
        "gold_duplicates_collapsed_any_entity": 1,
        "pred_duplicates_collapsed_any_entity": 1,
    }


def test_the_same_span_given_twice_is_one_span():
    # (0, 5, "Org") predicted twice against one annotation: one prediction, credited (the
    # second copy used to be an FP); the notes say one predicted span was collapsed, at the
    # labels level and as any entity.
    result = evaluate([(0, 5, "Org")], [(0, 5, "Org"), (0, 5, "Org")])
    run = result.scores()
    assert run.per_label == {"Org": Ledger(1, 1, tp=1, fn=0, credited=1, fp=0)}
    assert run.entity_agnostic == Ledger(1, 1, tp=1, fn=0, credited=1, fp=0)
    assert run.errors == ()
    assert result.notes == {
        "pred_duplicates_collapsed": 1,
        "pred_duplicates_collapsed_any_entity": 1,
    }
    # Annotated twice: one annotation (num_annotated counts it once, as spaCy's and
    # seqeval's sets do).
    result = evaluate([(0, 5, "Org"), (0, 5, "Org")], [(0, 5, "Org")])
    assert result.scores().per_label["Org"] == Ledger(1, 1, tp=1, fn=0, credited=1, fp=0)
    assert result.notes == {
        "gold_duplicates_collapsed": 1,
        "gold_duplicates_collapsed_any_entity": 1,
    }


def test_records_cells_and_document_rows_see_the_distinct_spans():
    # Gold (0, 5) A; predicted (0, 5) B twice: one wrong-label prediction. Its one copy is the
    # (A, B) cell's; no copy is left over in the "no label" row.
    result = evaluate(
        [(0, 5, "A"), (10, 12, "A")],
        [(0, 5, "B"), (0, 5, "B"), (10, 12, "A"), (10, 12, "A")],
        per_document=True,
    )
    run = result.scores()
    assert run.per_label == {
        "A": Ledger(2, 1, tp=1, fn=1, credited=1, fp=0),
        "B": Ledger(0, 1, tp=0, fn=0, credited=0, fp=1),
    }
    assert run.confusion == {("A", "A"): 1, ("A", "B"): 1}
    assert sorted((e.kind, e.side, e.label) for e in run.errors) == [
        ("wrong_label", "gold", "A"),
        ("wrong_label", "predicted", "B"),
    ]
    assert [tuple(row) for row in result.documents.rows("B", 0)] == [(0, 1, 0, 0, 0, 1)]
    assert result.notes == {
        "pred_duplicates_collapsed": 2,
        "pred_duplicates_collapsed_any_entity": 2,
    }


def test_a_hierarchy_level_collapses_labels_it_joins():
    spans = [(0, 5, "PER"), (0, 5, "ORG")]
    hierarchy = Hierarchy({"branch": {"PER": "WHO", "ORG": "WHO"}})
    result = evaluate(spans, spans[:1], hierarchy=hierarchy)
    labels, branch = result.scores(level="labels"), result.scores(level="branch")
    assert labels.per_label["ORG"] == Ledger(1, 0, tp=0, fn=1, credited=0, fp=0)
    assert branch.per_label == {"WHO": Ledger(1, 1, tp=1, fn=0, credited=1, fp=0)}
    assert result.notes == {
        "gold_duplicates_collapsed_at_branch": 1,
        "gold_duplicates_collapsed_any_entity": 1,
    }
    assert_perfect(evaluate(spans, spans, hierarchy=hierarchy))


def test_pooled_coverage_collapses_identical_spans_too():
    spans = [(0, 5, "Org"), (0, 5, "Loc"), (0, 5, "Org"), (6, 9, "Org")]
    result = evaluate(spans, spans, coverage="pooled", thresholds=(0.5, 1.0))
    assert_perfect(result)
    assert result.scores().entity_agnostic == Ledger(2, 2, tp=2, fn=0, credited=2, fp=0)


def test_the_label_map_joins_aliases_before_identical_spans_are_collapsed():
    result = evaluate(
        [(0, 5, "PERSON"), (0, 5, "PER")], [(0, 5, "PER")], label_map={"PERSON": "PER"}
    )
    assert result.scores().per_label == {"PER": Ledger(1, 1, tp=1, fn=0, credited=1, fp=0)}
    assert result.notes["gold_duplicates_collapsed"] == 1


def test_identical_unaligned_spans_are_one():
    # A prediction that could not be put in the unit, given twice: one unmatched prediction.
    doc = Document.create(
        id="d",
        length=10,
        unit="token",
        gold=[(0, 2, "A")],
        pred=[(0, 2, "A")],
        unaligned_pred=[(Span(3, 7, "A"), "not on token boundaries")] * 2,
        unaligned_gold=[(Span(3, 7, "B"), "not on token boundaries")] * 2,
    )
    result = SpanEvaluator(unit="token", max_errors=None).evaluate([doc])
    run = result.scores()
    assert run.per_label["A"] == Ledger(1, 2, tp=1, fn=0, credited=1, fp=1)
    assert run.per_label["B"] == Ledger(1, 0, tp=0, fn=1, credited=0, fp=0)
    assert len(run.errors) == 2
    assert result.notes["pred_duplicates_collapsed"] == 1
    assert result.notes["gold_duplicates_collapsed"] == 1
    assert result.notes["unaligned_predictions"] == 2  # what the reader could not place


def test_unaligned_spans_of_other_labels_at_the_same_offsets_are_not_duplicates():
    # same offsets, two labels: two predictions (one span at the any-entity level)
    doc = Document.create(
        id="d",
        length=10,
        unit="token",
        gold=[(0, 2, "A")],
        pred=[(0, 2, "A")],
        unaligned_pred=[(Span(3, 7, label), "not on token boundaries") for label in "AC"],
    )
    result = SpanEvaluator(unit="token", max_errors=None).evaluate([doc])
    run = result.scores()
    assert run.per_label["A"] == Ledger(1, 2, tp=1, fn=0, credited=1, fp=1)
    assert run.per_label["C"] == Ledger(0, 1, tp=0, fn=0, credited=0, fp=1)
    assert [(e.label, e.side) for e in run.errors] == [("A", "predicted"), ("C", "predicted")]
    assert "pred_duplicates_collapsed" not in result.notes
    assert result.notes["pred_duplicates_collapsed_any_entity"] == 1


def test_no_duplicates_no_new_notes():
    result = evaluate([(0, 5, "A"), (0, 3, "B")], [(0, 5, "A"), (2, 5, "A")])
    assert result.notes == {}
    assert result.to_dict()["notes"] == {}


# -- the shared corpora, each scored against itself ------------------------------------------

CORPORA = SHARED_CORPORA


@pytest.mark.slow  # every shared corpus
@pytest.mark.parametrize("parts,reading", CORPORA, ids=[p[0] for p, _ in CORPORA])
def test_every_shared_corpus_against_itself_is_perfect(parts, reading):
    from spacy_span_eval.api import evaluate_files

    path = data_path(*parts)
    started = time.perf_counter()
    for strategy in (s.name for s in BUILT_IN):
        thresholds = (0.5, 0.75, 1.0) if strategy == "two_sided" else None
        report = evaluate_files(
            path,
            path,
            strategy=strategy,
            errors=1_000_000,  # every record there would be (none, if all is well)
            **({"thresholds": thresholds} if thresholds else {}),
            **reading,
        )
        assert_perfect(report.result)
    assert time.perf_counter() - started < 30  # (about a second each here)
