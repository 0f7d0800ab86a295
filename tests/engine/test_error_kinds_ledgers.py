"""Whole-corpus error kinds (engine.error_kinds) add up to the ledgers, per label: FN =
missed + boundary + wrong label on the gold side, FP = spurious + boundary + wrong label on the
predicted side (docs/semantics.md §4); the gold side equals the records' kinds, counted
without a cap; the most frequent strings count every error span that has text."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import astuple

import pytest

from spacy_span_eval import Document, Ledger, SpanEvaluator
from spacy_span_eval.engine.error_kinds import KindCounts, error_kinds, frequent_strings
from spacy_span_eval.engine.spans import Span
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.readers.source import open_pair

from conftest import SHARED_CORPORA, data_path
from synthetic import perturb

GOLD_KIND = {"false_negative": "missed", "boundary": "boundary", "wrong_label": "wrong_label"}


def check_against_ledgers(run) -> None:
    kinds = run.error_kinds()
    assert kinds is not None and set(kinds) == set(run.per_label)
    records = Counter((e.label, e.kind) for e in run.errors if e.side == "gold")
    pred_records = Counter((e.label, e.kind) for e in run.errors if e.side != "gold")
    assert len(run.errors) == run.micro.fn + run.micro.fp  # uncapped
    for label, k in kinds.items():
        ledger = run.per_label[label]
        assert k.fn == ledger.fn and k.fp == ledger.fp, label
        assert min(astuple(k)) >= 0, (label, k)
        assert k.missed == records[(label, "false_negative")]
        assert k.boundary_gold == records[(label, "boundary")]
        assert k.wrong_label_gold == records[(label, "wrong_label")]
        # every record has the kind the table counts it as (a boundary prediction that also
        # relabels another annotation: wrong label, on both)
        assert k.spurious == pred_records[(label, "false_positive")]
        assert k.boundary_predicted == pred_records[(label, "boundary")]
        assert k.wrong_label_predicted == pred_records[(label, "wrong_label")]
    total = sum(kinds.values(), KindCounts())
    assert (total.fn, total.fp) == (run.micro.fn, run.micro.fp)
    as_json = run.to_dict()["error_kinds"]
    assert as_json["micro"]["fn"]["total"] == run.micro.fn
    for label, k in kinds.items():
        assert as_json["per_label"][label] == k.to_dict()


STRING_KIND = {
    ("gold", "false_negative"): "missed",
    ("gold", "wrong_label"): "relabelled",
    ("predicted", "false_positive"): "spurious",
}


def check_strings(run) -> None:
    """The string counts hold every missed, relabelled and spurious record with text, as the
    kinds table counts them (boundary errors and relabelling predictions are in none)."""
    counted = Counter()
    for (label, kind, _, _), n in run.strings.items():
        counted[(label, kind)] += n
    with_text = Counter(
        (e.label, STRING_KIND[(e.side, e.kind)])
        for e in run.errors
        if e.text is not None and (e.side, e.kind) in STRING_KIND
    )
    assert +counted == with_text
    for by_kind in run.frequent_errors().values():
        for rows in by_kind.values():
            assert len(rows) <= 10
            assert [n for *_, n in rows] == sorted((n for *_, n in rows), reverse=True)


def docs(seed: int) -> list[Document]:
    rng = random.Random(seed)
    words = "Ada met Bob at Acme Corp in Paris on Monday with Eve".split()
    text = " ".join(words)
    offsets = []
    at = 0
    for w in words:
        offsets.append((at, at + len(w)))
        at += len(w) + 1
    labels = ["PER", "ORG", "LOC", "DATE"]
    out = []
    for d in range(60):
        gold = []
        for i in range(0, len(words), 2):
            if rng.random() < 0.6:
                s, e = offsets[i][0], offsets[min(i + rng.randrange(2), len(words) - 1)][1]
                gold.append(Span(s, e, rng.choice(labels)))
        pred = perturb(gold, len(text), labels, rng, rate=0.6)
        out.append(Document.create(id=f"d{d}", text=text, gold=gold, pred=pred))
    return out


@pytest.mark.parametrize("strategy", ["exact", "two_sided", "overlap", "token", "semeval"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kinds_equal_ledgers_on_fixtures(strategy, seed):
    ev = SpanEvaluator(strategy=strategy, max_errors=None)
    run = ev.evaluate(docs(seed)).scores()
    check_against_ledgers(run)
    check_strings(run)


def test_frequent_strings_are_whole_corpus_even_with_a_cap():
    full = SpanEvaluator(max_errors=None).evaluate(docs(4)).scores()
    capped = SpanEvaluator(max_errors=3).evaluate(docs(4)).scores()
    assert len(capped.errors) == 3
    assert capped.frequent_errors() == full.frequent_errors()
    assert capped.error_kinds() == full.error_kinds()


CORPORA = SHARED_CORPORA


def perturbed_corpus(path, reading: dict, seed: int = 0) -> tuple[str, list[Document]]:
    """Each gold document of a corpus with a seeded perturbation of its spans as predictions."""
    source = open_pair(path, path, reading=ReadingOptions(**reading))
    rng = random.Random(seed)
    out = []
    for batch in source.batches():
        labels = list(batch.labels)
        for i, doc_id in enumerate(batch.doc_ids):
            rows = (batch.gold.doc == i).nonzero()[0]
            gold = [
                Span(int(batch.gold.start[r]), int(batch.gold.end[r]), labels[batch.gold.label[r]])
                for r in rows
            ]
            length = int(batch.lengths[i])
            out.append(
                Document.create(
                    id=doc_id,
                    unit=source.unit,
                    text=batch.texts[i] if batch.texts else None,
                    tokens=batch.tokens[i] if batch.tokens else None,
                    length=length,
                    gold=gold,
                    pred=perturb(gold, length, sorted(set(labels)), rng),
                )
            )
    return source.unit, out


@pytest.mark.parametrize("parts,reading", CORPORA, ids=[p[0] for p, _ in CORPORA])
def test_kinds_equal_ledgers_on_every_shared_corpus(parts, reading):
    unit, documents = perturbed_corpus(data_path(*parts), reading)
    run = SpanEvaluator(unit=unit, max_errors=None).evaluate(documents).scores()
    assert run.micro.fn > 0 and run.micro.fp > 0
    check_against_ledgers(run)
    check_strings(run)


def test_frequent_strings_are_the_top_of_each_label_and_kind_most_frequent_first_ties_by_text():
    strings = {
        ("PER", "missed", "Bob", ""): 3,
        ("PER", "missed", "Al", ""): 1,
        ("PER", "missed", "Ann", ""): 3,
        ("PER", "missed", "Cy", ""): 2,
        ("PER", "relabelled", "Rome", "LOC"): 2,
        ("PER", "relabelled", "Rome", "GPE"): 2,
        ("LOC", "spurious", "x", ""): 1,
    }
    assert frequent_strings(strings, top=2) == {
        "LOC": {"missed": [], "spurious": [("x", "", 1)], "relabelled": []},
        "PER": {
            "missed": [("Ann", "", 3), ("Bob", "", 3)],
            "spurious": [],
            "relabelled": [("Rome", "GPE", 2), ("Rome", "LOC", 2)],
        },
    }
    many = {("PER", "missed", f"w{i:02}", ""): 20 - i for i in range(12)}
    assert [t for t, _, _ in frequent_strings(many)["PER"]["missed"]] == [
        f"w{i:02}" for i in range(10)
    ]


def test_kinds_by_hand_from_ledgers_cells_and_boundary_counts():
    # PER: 5 FN (1 relabelled as LOC, 1 boundary), 4 FP (3 in the "no label" row, 1 of them
    # a boundary error; so 1 relabels another label's annotation)
    per_label = {
        "PER": Ledger(6, 5, tp=1, fn=5, credited=1, fp=4),
        "LOC": Ledger(2, 1, tp=1, fn=1, credited=0, fp=1),
    }
    confusion = {
        ("PER", "LOC"): 1,
        ("PER", None): 4,
        ("LOC", "PER"): 1,
        (None, "PER"): 3,
        ("PER", "PER"): 1,
    }
    boundary = {("PER", None): 1, (None, "PER"): 1}
    kinds = error_kinds(per_label, confusion, boundary)
    assert list(kinds) == ["PER", "LOC"]
    assert kinds["PER"] == KindCounts(
        missed=3,
        boundary_gold=1,
        wrong_label_gold=1,
        spurious=2,
        boundary_predicted=1,
        wrong_label_predicted=1,
    )
    assert kinds["LOC"] == KindCounts(missed=0, wrong_label_gold=1, wrong_label_predicted=1)
    assert kinds["PER"].to_dict() == {
        "fn": {"missed": 3, "boundary": 1, "wrong_label": 1, "total": 5},
        "fp": {"spurious": 2, "boundary": 1, "wrong_label": 1, "total": 4},
    }
    total = kinds["PER"] + kinds["LOC"]
    assert total == KindCounts(3, 1, 2, 2, 1, 2) and (total.fn, total.fp) == (6, 5)
