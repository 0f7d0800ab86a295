"""The report streams: what it keeps grows with the labels and the error cap, plus one compact
row of counts per document and label at the main threshold; and its numbers are those of
scoring the whole corpus at once."""

from __future__ import annotations

import random

import numpy as np
import pytest
from document_cells import append

from spacy_span_eval import Document, Settings, SpanEvaluator
from spacy_span_eval.engine.bootstrap import bootstrap_intervals
from spacy_span_eval.engine.document_counts import DocumentCounts
from spacy_span_eval.engine.ledger import N_FIELDS
from spacy_span_eval.engine.paired import paired_test
from spacy_span_eval.jobs import system_run
from spacy_span_eval.jobs.system_run import report_thresholds, run_system
from spacy_span_eval.readers.demo_corpus import gold_documents, recognizer

from synthetic import perturb


def corpus(n: int = 300, seed: int = 5) -> list[Document]:
    """The demo corpus's sentences against a seeded, perturbed recognizer."""
    rng = random.Random(seed)
    docs = []
    for s in gold_documents(n):
        pred = perturb(list(recognizer(s)), len(s.text), ["PER", "ORG", "LOC"], rng, rate=0.5)
        docs.append(Document.create(id=s.id, text=s.text, gold=s.spans, pred=pred))
    return docs


def scores(result) -> dict:
    """The result's JSON without the one setting that differs: where rows were kept."""
    out = result.to_dict()
    out["settings"].pop("per_document")
    return out


# -- settings: which thresholds keep per-document rows ---------------------------------------
def test_per_document_names_the_thresholds_it_keeps():
    s = Settings(thresholds=(0.25, 0.5, 1.0), per_document=(1.0, 0.25))
    assert s.per_document == (0.25, 1.0) and s.document_thresholds == (0, 2)
    assert Settings(thresholds=(0.5,), per_document=0.5).per_document is True
    assert Settings(thresholds=(0.5, 0.75), per_document=(0.75, 0.5)) == Settings(
        thresholds=(0.5, 0.75), per_document=True
    )
    assert Settings(strategy="exact", per_document=(None,)).per_document is True
    assert Settings(thresholds=(0.5,), per_document=False).document_thresholds == ()
    with pytest.raises(ValueError, match=r"not scored: \[0\.9\]"):
        Settings(thresholds=(0.5,), per_document=(0.9,))


def test_details_name_the_thresholds_that_keep_confusion_cells_and_records():
    s = Settings(thresholds=(0.25, 0.5, 1.0), details=(1.0, 0.25))
    assert s.details == (0.25, 1.0) and s.detail_thresholds == (0, 2)
    assert Settings(thresholds=(0.5, 1.0)).detail_thresholds == (0, 1)  # default: all
    assert Settings(thresholds=(0.5,), details=0.5) == Settings(thresholds=(0.5,))
    assert "details" in Settings(details=False).difference(Settings())
    with pytest.raises(ValueError, match=r"details names thresholds that are not scored"):
        Settings(thresholds=(0.5,), details=(0.9,))
    none = SpanEvaluator(thresholds=(0.5, 1.0), details=False).evaluate(corpus(30))
    assert all(not run.confusion and not run.errors for run in none.levels["labels"])


def test_rows_at_one_threshold_give_the_same_intervals_and_test():
    docs, taus = corpus(), (0.25, 0.5, 0.75)
    every = SpanEvaluator(thresholds=taus, per_document=True).evaluate(docs)
    main = SpanEvaluator(thresholds=taus, per_document=(0.5,)).evaluate(docs)
    assert main.documents.kept == (1,)
    assert next(iter(main.documents.counts.values())).shape[1:] == (1, N_FIELDS)
    assert scores(main) == scores(every)
    assert (
        bootstrap_intervals(main, threshold=0.5, resamples=200).to_dict()
        == bootstrap_intervals(every, threshold=0.5, resamples=200).to_dict()
    )
    other = SpanEvaluator(thresholds=taus, per_document=(0.5,)).evaluate(corpus(seed=6))
    every_other = SpanEvaluator(thresholds=taus, per_document=True).evaluate(corpus(seed=6))
    assert (
        paired_test(main, other, threshold=0.5, resamples=200).to_dict()
        == paired_test(every, every_other, threshold=0.5, resamples=200).to_dict()
    )
    with pytest.raises(KeyError, match="0.75 has no per-document counts; kept at"):
        bootstrap_intervals(main, threshold=0.75, resamples=10)


# -- compact rows -----------------------------------------------------------------------------
def test_rows_are_int32_and_read_only():
    counts = DocumentCounts(1)
    one = np.ones((1, 1, N_FIELDS), dtype=np.int64)
    for i in range(3000):
        append(counts, [f"d{i}"], {"PER": one} if i % 3 == 0 else {})
    per = counts.counts["PER"]
    assert per.dtype == np.int32 and per.shape == (3000, 1, N_FIELDS)
    assert per[:, 0, 0].tolist() == [1 if i % 3 == 0 else 0 for i in range(3000)]
    assert len(per.base) <= 2 * 3000  # capacity: at most twice what it holds
    assert not per.flags.writeable


def test_a_label_first_seen_late_has_zero_rows_before_and_counts_past_int32_widen():
    counts = DocumentCounts(2, kept=(1,))
    append(counts, ["a", "b"], {})
    big = np.full((1, 1, N_FIELDS), 2**31, dtype=np.int64)
    append(counts, ["c"], {"ORG": big})
    org = counts.counts["ORG"]
    assert org.dtype == np.int64 and org[:, 0, 0].tolist() == [0, 0, 2**31]
    assert counts.total("ORG")[0, 0] == 2**31
    assert counts.rows("ORG", 1)[:, 0].tolist() == [0, 0, 2**31]
    assert counts.rows("MISC", 1).shape == (3, N_FIELDS)
    with pytest.raises(KeyError, match="not kept at threshold index 0"):
        counts.rows("ORG", 0)
    with pytest.raises(ValueError, match="shape"):
        append(counts, ["d"], {"ORG": np.zeros((1, 2, N_FIELDS), dtype=np.int64)})


def test_merged_counts_equal_appended_ones():
    docs = corpus(60)
    ev = SpanEvaluator(thresholds=(0.5, 1.0), per_document=(1.0,), batch_size=7)
    whole = ev.tally(docs).documents
    merged = (ev.tally(docs[:25]) + ev.tally(docs[25:])).documents
    assert merged.doc_ids == whole.doc_ids and set(merged.counts) == set(whole.counts)
    for label, rows in whole.counts.items():
        assert (merged.counts[label] == rows).all()


# -- a running tally --------------------------------------------------------------------------
def test_scoring_into_a_running_tally_equals_scoring_the_stream_at_once():
    docs = corpus()
    ev = SpanEvaluator(thresholds=(0.5, 0.9), per_document=True, max_errors=7, batch_size=16)
    total = ev.tally([])
    for lo in range(0, len(docs), 50):
        assert ev.tally(docs[lo : lo + 50], into=total) is total
    whole = ev.tally(docs)
    assert total.result().to_dict() == whole.result().to_dict()
    assert total.documents.doc_ids == whole.documents.doc_ids
    other = SpanEvaluator(thresholds=(0.5,), per_document=True)
    with pytest.raises(ValueError, match="different settings: thresholds"):
        other.tally(docs[:3], into=total)


def test_a_running_tally_builds_records_for_its_sample_alone(monkeypatch, built_records):
    monkeypatch.setattr(system_run, "CHUNK", 20)  # many chunks
    cap = 5
    run = run_system(corpus(), name="sys", errors=cap)
    assert len(report_thresholds("two_sided", 0.5)) == 20
    assert len(run.errors) == cap
    # The main threshold's alone (not per threshold), and per batch at most cap per kind
    # and label: fewer than one per error.
    errors = run.main.micro.fn + run.main.micro.fp
    assert cap <= len(built_records) < errors
    assert {e.document for e in run.errors} == set(run.documents)


# -- the report's system run ------------------------------------------------------------------
def test_report_run_keeps_rows_at_its_main_threshold_and_documents_for_its_records():
    docs = corpus()
    run = run_system(iter(docs), name="sys", threshold=0.75, errors=12, extra_thresholds=(0.33,))
    taus = run.result.settings.thresholds
    assert len(taus) == 21 and run.result.documents.kept == (taus.index(0.75),)
    assert len(run.documents) <= 12
    assert {e.document for e in run.errors} == set(run.documents)
    # the same numbers as scoring the corpus at once with every row kept
    whole = SpanEvaluator(
        thresholds=taus, per_document=True, max_errors=12, details=(0.75,)
    ).evaluate(docs)
    assert scores(run.result) == scores(whole)
    # confusion cells and records at the main threshold alone; every threshold's ledgers
    everything = SpanEvaluator(thresholds=taus, max_errors=12).evaluate(docs)
    for got, full in zip(run.result.levels["labels"], everything.levels["labels"], strict=True):
        assert (got.per_label, got.entity_agnostic) == (full.per_label, full.entity_agnostic)
        if got.threshold == 0.75:
            assert (got.confusion, got.boundary, got.errors) == (
                full.confusion,
                full.boundary,
                full.errors,
            )
        else:
            assert (dict(got.confusion), dict(got.boundary), got.errors) == ({}, {}, ())
    assert (
        bootstrap_intervals(run.result, threshold=0.75, resamples=100).to_dict()
        == bootstrap_intervals(whole, threshold=0.75, resamples=100).to_dict()
    )


def test_resampling_products_run_on_one_blas_thread(monkeypatch):
    """On a busy machine a second BLAS thread made them 10-20x slower (see bootstrap.py)."""
    from threadpoolctl import threadpool_info

    from spacy_span_eval.engine import resampling

    seen = []
    original = resampling.resample_weights

    def watched(*args, **kwargs):
        seen.extend(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")
        return original(*args, **kwargs)

    monkeypatch.setattr(resampling, "resample_weights", watched)
    result = SpanEvaluator(per_document=True).evaluate(corpus(40))
    bootstrap_intervals(result, resamples=20)
    paired_test(result, result, resamples=20)
    assert seen and set(seen) == {1}
