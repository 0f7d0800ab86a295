"""Property tests of every invariant in semantics §2-§4, on random documents with overlaps."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction
from itertools import combinations, product

from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_span_eval import Document, Hierarchy, SpanEvaluator

from conftest import shuffled_documents

LABELS = ["A", "B", "C"]


@st.composite
def documents(draw, max_docs: int = 6):
    n_docs = draw(st.integers(1, max_docs))
    docs = []
    for i in range(n_docs):
        length = draw(st.integers(1, 24))

        def span(length=length):
            start = draw(st.integers(0, length - 1))
            end = draw(st.integers(start + 1, length))
            return (start, end, draw(st.sampled_from(LABELS)))

        def copies(spans, most: int):
            """Identical duplicates and nested spans of ``spans`` (semantics §2.1's redundant
            predictions), same label, or a prediction that repeats an annotation."""
            out = []
            for _ in range(draw(st.integers(0, most)) if spans else 0):
                s, e, label = draw(st.sampled_from(spans))
                if draw(st.booleans()):
                    s = draw(st.integers(s, e - 1))
                    e = draw(st.integers(s + 1, e))
                out.append((s, e, label))
            return out

        gold = [span() for _ in range(draw(st.integers(0, 5)))]
        pred = [span() for _ in range(draw(st.integers(0, 5)))]
        gold += copies(gold, 1)
        pred += copies(pred + gold, 2)
        docs.append(Document.create(id=f"d{i}", length=length, gold=gold, pred=pred))
    if not any(d.gold or d.pred for d in docs):
        docs[0] = Document.create(id="d0", length=docs[0].length, gold=[(0, 1, "A")], pred=[])
    return docs


CONFIGS = [
    {"strategy": "two_sided", "thresholds": (0.3, 0.5, 0.75, 1.0)},
    {"strategy": "two_sided", "thresholds": (0.5, 0.9), "coverage": "pooled"},
    {"strategy": "two_sided", "thresholds": (0.25, 0.5), "one_to_one": True},
    {"strategy": "exact"},
    {"strategy": "overlap"},
    {"strategy": "token"},
    {"strategy": "semeval"},
]
HIERARCHY = Hierarchy({"binary": {label: "ANY" for label in LABELS}})
configs = st.sampled_from(CONFIGS)


def evaluator(config, **extra):
    return SpanEvaluator(max_errors=None, hierarchy=HIERARCHY, batch_size=3, **config, **extra)


def found_alone(config, tau, g, cands) -> bool:
    """Whether same-label predictions ``cands`` find annotation ``g`` by the strategy's own
    rule, with no other annotation competing for them (an independent reading of §2)."""
    strategy = config["strategy"]
    if strategy in ("exact", "semeval", "token"):
        return g in cands
    if strategy == "overlap":
        return any(min(g[1], e) - max(g[0], s) >= 0.5 * max(g[1] - g[0], e - s) for s, e in cands)

    def iou(sel):
        covered = set().union(*(range(s, e) for s, e in sel))
        inside = set(range(*g))
        return Fraction(len(inside & covered), len(inside | covered))

    if config.get("coverage") == "pooled":
        return iou(cands) >= Fraction(tau)
    return any(
        iou(sel) >= Fraction(tau)
        for n in range(1, len(cands) + 1)
        for sel in combinations(cands, n)
    )


def emitted(docs, level_map=None):
    """Predicted spans per label at a level, identical ones (same extent, same label at the
    level) once per document (semantics §3, self-agreement)."""
    counts = Counter()
    for d in docs:
        for *_extent, label in {(s.start, s.end, level_map(s.label)) for s in d.pred}:
            counts[label] += 1
    return counts


@settings(max_examples=150, deadline=None)
@given(docs=documents(), config=configs)
def test_ledgers_records_and_confusion_obey_the_spec(docs, config):
    result = evaluator(config).evaluate(docs)
    by_id = {d.id: d for d in docs}
    for level, runs in result.levels.items():
        project = (lambda label: label) if level == "labels" else (lambda label: "ANY")
        for run in runs:
            for ledger in [*run.per_label.values(), run.micro, run.entity_agnostic]:
                ledger.check()
            records = Counter((e.label, e.side) for e in run.errors)
            rows = Counter()
            for (gold_label, _), n in run.confusion.items():
                rows[gold_label] += n
            for label, ledger in run.per_label.items():
                assert records[label, "gold"] == ledger.fn
                assert records[label, "predicted"] == ledger.fp
                assert rows[label] == ledger.num_annotated
                assert run.confusion.get((label, label), 0) == ledger.tp
            assert len(run.errors) == run.micro.fn + run.micro.fp
            # boundary (semantics §4), by brute force: a missed annotation that predictions of
            # its label overlap but, even with nothing competing for them, do not find; and the
            # uncredited predictions of its label overlapping it.
            boundary_cells, boundary_gold = Counter(), []
            for e in run.errors:
                assert e.side == (
                    "predicted"
                    if e.kind == "false_positive"
                    else "gold"
                    if e.kind == "false_negative"
                    else e.side
                )
                if e.kind == "wrong_label" and e.side == "predicted":  # it relabels a gold span
                    assert any(
                        project(g.label) != e.label and g.start < e.end and e.start < g.end
                        for g in by_id[e.document].gold
                    )
                if e.side != "gold":
                    continue
                cands = [
                    (s.start, s.end)
                    for s in by_id[e.document].pred
                    if project(s.label) == e.label and s.start < e.end and e.start < s.end
                ]
                near = (
                    e.kind != "wrong_label"
                    and bool(cands)
                    and not found_alone(config, run.threshold, (e.start, e.end), cands)
                )
                assert (e.kind == "boundary") == near, e
                if near:
                    boundary_cells[e.label] += 1
                    boundary_gold.append(e)
            for e in run.errors:
                if e.side == "predicted":
                    near = e.reason is None and any(
                        g.document == e.document
                        and g.label == e.label
                        and g.start < e.end
                        and e.start < g.end
                        for g in boundary_gold
                    )
                    # (a relabelling prediction is wrong label first)
                    assert (e.kind == "boundary") == (near and e.kind != "wrong_label"), e
            for (gold_label, predicted), n in run.boundary.items():
                assert 0 < n <= run.confusion[gold_label, predicted]
                assert None in (gold_label, predicted)  # the "no label" row or column
            assert {g: n for (g, p), n in run.boundary.items() if p is None} == boundary_cells
        if config["strategy"] != "token":
            expected = emitted(docs, project)
            got = {k: v.num_predicted for k, v in runs[0].per_label.items() if v.num_predicted}
            assert got == dict(expected)
            # what was collapsed is in the notes, per level
            suffix = "" if level == "labels" else f"_at_{level}"
            collapsed = result.notes.get(f"pred_duplicates_collapsed{suffix}", 0)
            assert runs[0].micro.num_predicted + collapsed == sum(len(d.pred) for d in docs)
            collapsed = result.notes.get(f"gold_duplicates_collapsed{suffix}", 0)
            assert runs[0].micro.num_annotated + collapsed == sum(len(d.gold) for d in docs)
    json.dumps(result.to_dict(), allow_nan=False)


def counters(result):
    return {
        level: [
            (run.threshold, dict(run.per_label), run.entity_agnostic, dict(run.confusion))
            for run in runs
        ]
        for level, runs in result.levels.items()
    }


def records(result):
    return {
        level: [sorted(json.dumps(e.to_dict(), sort_keys=True) for e in run.errors) for run in runs]
        for level, runs in result.levels.items()
    }


@settings(max_examples=100, deadline=None)
@given(docs=documents(), config=configs, seed=st.integers(0, 2**32 - 1))
def test_order_of_documents_and_spans_does_not_matter(docs, config, seed):
    rng = random.Random(seed)
    shuffled = shuffled_documents(docs, rng)
    a, b = evaluator(config).evaluate(docs), evaluator(config).evaluate(shuffled)
    assert counters(a) == counters(b)
    assert records(a) == records(b)


@settings(max_examples=100, deadline=None)
@given(docs=documents(), config=configs, data=st.data())
def test_splitting_the_corpus_anywhere_and_merging_gives_the_same_result(docs, config, data):
    cut = data.draw(st.integers(0, len(docs)))
    ev = evaluator(config)
    whole = ev.tally(docs)
    merged = ev.tally(docs[:cut]) + ev.tally(docs[cut:])
    assert counters(whole.result()) == counters(merged.result())
    assert whole.result().to_dict() == merged.result().to_dict()
    # With a cap, records are the first ones in stream order either way.
    capped = SpanEvaluator(max_errors=2, **config)
    assert (
        capped.tally(docs).result().to_dict()
        == (capped.tally(docs[:cut]) + capped.tally(docs[cut:])).result().to_dict()
    )


@settings(max_examples=100, deadline=None)
@given(docs=documents())
def test_recall_and_precision_never_rise_as_the_threshold_rises(docs):
    taus = (0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
    for coverage, one_to_one in product(("best", "pooled"), (False, True)):
        result = SpanEvaluator(thresholds=taus, coverage=coverage, one_to_one=one_to_one).evaluate(
            docs
        )
        runs = result.levels["labels"]
        for label in runs[0].per_label:
            tps = [r.per_label[label].tp for r in runs]
            credited = [r.per_label[label].credited for r in runs]
            assert tps == sorted(tps, reverse=True)
            assert credited == sorted(credited, reverse=True)


@settings(max_examples=60, deadline=None)
@given(docs=documents())
def test_entity_agnostic_level_does_not_fuse_adjacent_spans(docs):
    result = SpanEvaluator(max_errors=None).evaluate(docs)
    agnostic = result.scores().entity_agnostic
    # identical extents on one side are one span (semantics §3), whatever their labels
    assert agnostic.num_annotated == sum(len({(s.start, s.end) for s in d.gold}) for d in docs)
    assert agnostic.num_predicted == sum(len({(s.start, s.end) for s in d.pred}) for d in docs)
    relabelled = [
        Document.create(
            id=d.id,
            length=d.length,
            gold=[(s.start, s.end, "ANY") for s in d.gold],
            pred=[(s.start, s.end, "ANY") for s in d.pred],
        )
        for d in docs
    ]
    assert SpanEvaluator().evaluate(relabelled).micro == agnostic


@settings(max_examples=80, deadline=None)
@given(docs=documents(), config=configs, data=st.data())
def test_per_document_rows_add_up_to_the_ledgers_and_merge_in_order(docs, config, data):
    ev = SpanEvaluator(per_document=True, batch_size=2, **config)
    result = ev.evaluate(docs)
    counts = result.documents
    assert counts.doc_ids == [d.id for d in docs]
    for t, run in enumerate(result.levels["labels"]):
        for label, ledger in run.per_label.items():
            assert tuple(counts.total(label)[t]) == tuple(
                ledger.to_dict()[k]
                for k in ("num_annotated", "num_predicted", "tp", "fn", "credited", "fp")
            )
    cut = data.draw(st.integers(0, len(docs)))
    merged = (ev.tally(docs[:cut]) + ev.tally(docs[cut:])).documents
    assert merged.doc_ids == counts.doc_ids
    assert set(merged.counts) == set(counts.counts)
    for label in counts.counts:
        assert (merged.counts[label] == counts.counts[label]).all()


def test_overlap_wrong_label_cell_does_not_depend_on_prediction_order():
    # Found by the order property: two A predictions qualify equally for the B annotation.
    gold = [(0, 1, "A"), (0, 1, "B")]
    pred = [(0, 1, "A"), (0, 2, "A")]
    runs = [
        SpanEvaluator(strategy="overlap", max_errors=None)
        .evaluate([Document.create(id="d", length=2, gold=gold, pred=p)])
        .scores()
        for p in (pred, pred[::-1])
    ]
    assert runs[0].confusion == runs[1].confusion == {("A", "A"): 1, ("B", "A"): 1, (None, "A"): 1}
