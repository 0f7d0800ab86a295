"""``compare``'s disagreement view: per label, the gold spans one system finds at the
threshold and the other misses, counted against counts worked out by hand on a small corpus,
and a bounded, seeded sample of them."""

from __future__ import annotations

import json
import zlib

import pytest
from disagreement_corpus import EXPECTED, write_files

from spacy_span_eval.api import compare_files


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return write_files(tmp_path_factory.mktemp("disagree"))


def _compare(files, **kw):
    return compare_files(*files, names=("A", "B"), resamples=20, **kw)


def test_counts_per_label_and_direction_equal_the_hand_worked_ones(files):
    d = _compare(files).disagreements
    assert d is not None
    assert d.counts == EXPECTED
    assert d.total("a_only") == 3 and d.total("b_only") == 3
    assert d.unpaired_documents == 0


def test_the_sample_shows_every_disagreement_when_there_is_room(files):
    d = _compare(files).disagreements
    shown = {(x.document, x.text, x.label, x.direction) for x in d.shown}
    assert shown == {
        ("d1", "Ann Lee", "PER", "a_only"),
        ("d1", "Bob", "PER", "b_only"),
        ("d2", "Paris", "LOC", "a_only"),
        ("d2", "Rome", "LOC", "b_only"),
        ("d3", "Mia", "PER", "a_only"),
        ("d3", "Zeta", "ORG", "b_only"),
    }
    rome = next(x for x in d.shown if x.text == "Rome")
    assert rome.pred_a == ((10, 14, "PER"),) and rome.pred_b == ((10, 14, "LOC"),)


def test_a_small_sample_is_spread_over_labels_and_directions_and_seeded(files):
    from spacy_span_eval.jobs.compare import compare

    small = compare(*files, names=("A", "B"), resamples=20, disagreements=5).disagreements
    again = compare(*files, names=("A", "B"), resamples=20, disagreements=5).disagreements
    assert len(small.shown) == 5
    assert small.shown == again.shown
    groups = {(x.direction, x.label) for x in small.shown}
    # five groups have a disagreement (PER both ways, LOC both ways, ORG b_only): one each
    assert len(groups) == 5
    assert small.counts == EXPECTED  # counts are of all, whatever the sample


def test_json_and_markdown_carry_the_counts(files):
    c = _compare(files)
    from spacy_span_eval.render.comparison import render_comparison

    data = json.loads(render_comparison(c, "json"))
    assert data["disagreements"]["per_label"] == EXPECTED
    assert data["disagreements"]["total"] == {"a_only": 3, "b_only": 3}
    md = render_comparison(c, "markdown")
    assert "| PER " in md and "A right, B wrong" in md


def test_on_btc_the_counts_add_up_to_each_systems_ledgers(tmp_path):
    """Token unit, a real corpus: per label, A's TP = a_only + both, B's TP = b_only + both,
    and the four counts add up to the gold support."""
    import random

    from conftest import data_path, perturbed_sentences, token_tag_sentences, two_column

    sentences = token_tag_sentences(data_path("btc", "btc.test"))
    paths = [tmp_path / "gold.conll"]
    paths[0].write_text(two_column(sentences), encoding="utf-8")
    for name, rate, seed in (("a", 0.3, 1), ("b", 0.9, 2)):
        pred = perturbed_sentences(sentences, ["PER", "ORG", "LOC"], random.Random(seed), rate=rate)
        paths.append(tmp_path / f"{name}.conll")
        paths[-1].write_text(two_column(pred), encoding="utf-8")
    c = compare_files(*paths, names=("A", "B"), resamples=20)
    d = c.disagreements
    assert d is not None and d.n_disagreements > 1000
    for run, key in zip(c.runs, ("a_only", "b_only"), strict=True):
        for label, ledger in run.main.per_label.items():
            counts = d.counts[label]
            assert ledger.tp == counts[key] + counts["both"]
            assert ledger.num_annotated == sum(counts.values())
    assert len(d.shown) == 200 and {x.unit for x in d.shown} == {"token"}
    assert all(x.text for x in d.shown)


@pytest.mark.parametrize("strategy", ["two_sided", "exact", "overlap", "token", "semeval"])
def test_each_systems_tp_is_its_one_sided_plus_both_found(files, strategy):
    from spacy_span_eval.jobs.compare import compare
    from spacy_span_eval.jobs.options import ScoringOptions

    c = compare(*files, names=("A", "B"), resamples=20, scoring=ScoringOptions(strategy=strategy))
    d = c.disagreements
    for run, key in zip(c.runs, ("a_only", "b_only"), strict=True):
        for label, ledger in run.main.per_label.items():
            assert ledger.tp == d.counts[label][key] + d.counts[label]["both"]
            assert ledger.num_annotated == sum(d.counts[label].values())


def test_label_selection_applies(files):
    from spacy_span_eval.jobs.compare import compare
    from spacy_span_eval.jobs.options import ScoringOptions

    d = compare(
        *files, names=("A", "B"), resamples=20, scoring=ScoringOptions(labels=("PER",))
    ).disagreements
    assert d.counts == {"PER": EXPECTED["PER"]}
    assert {x.label for x in d.shown} == {"PER"}


def test_unpaired_documents_of_both_sides_count_and_only_overlapping_predictions_are_listed():
    """Each side's predictions on a card are those that overlap the gold span (one shared
    character at least): a prediction that only touches it is left off, on either side."""
    from spacy_span_eval import Document

    text, gold = "Ada met Bob in Rome", [(0, 3, "PER"), (8, 11, "PER")]

    def doc(doc_id, pred):
        return Document.create(id=doc_id, text=text, gold=gold, pred=pred)

    # start at Ada's end, end at Bob's start, start at Bob's end
    touching = [(3, 7, "LOC"), (4, 8, "LOC"), (11, 14, "LOC")]
    a = [doc("d1", [(0, 3, "PER"), *touching]), doc("a only", [])]
    b = [doc("d1", [(8, 11, "PER"), *touching]), doc("b only", []), doc("b only too", [])]
    d = _between(a, b)
    assert d.unpaired_documents == 3
    assert [(x.direction, x.start, x.pred_a, x.pred_b) for x in d.shown] == [
        ("a_only", 0, ((0, 3, "PER"),), ()),
        ("b_only", 8, (), ((8, 11, "PER"),)),
    ]


def test_the_rows_put_the_labels_with_most_disagreements_first_then_by_name():
    from spacy_span_eval.jobs.disagreements import Disagreements

    def c(a_only, b_only):
        return {"a_only": a_only, "b_only": b_only, "both": 5, "neither": 1}

    d = Disagreements(
        ("A", "B"), 0.5, {"PER": c(2, 0), "MISC": c(0, 0), "LOC": c(1, 1), "ORG": c(0, 3)}
    )
    assert d.rows() == [
        ("ORG", 0, 3, 5, 1),
        ("LOC", 1, 1, 5, 1),
        ("PER", 2, 0, 5, 1),
        ("MISC", 0, 0, 5, 1),
    ]


def _between(a, b, *, thresholds=(0.5,), threshold=0.5, **kw):
    """The disagreements of A's documents ``a`` and B's ``b``, each side one batch, scored
    at ``thresholds`` and read at ``threshold``."""
    from spacy_span_eval import SpanEvaluator
    from spacy_span_eval.engine.batching import documents_to_batch
    from spacy_span_eval.jobs.disagreements import disagreements_of

    return disagreements_of(
        SpanEvaluator(max_errors=0, thresholds=thresholds),
        [documents_to_batch(a)],
        [documents_to_batch(b)],
        names=("A", "B"),
        threshold=threshold,
        **kw,
    )


def _one_sided(n_docs, sample, ids=None):
    """``n_docs`` documents of one PER span each, found by A and missed by B."""
    from spacy_span_eval import Document

    text, gold = "Ada left", [(0, 3, "PER")]
    ids = ids or [f"d{i}" for i in range(1, n_docs + 1)]
    a = [Document.create(id=i, text=text, gold=gold, pred=gold) for i in ids]
    b = [Document.create(id=i, text=text, gold=gold, pred=[]) for i in ids]
    return _between(a, b, sample=sample)


@pytest.mark.parametrize("sample", [0, 1, 3, 11, 12, 13])
def test_the_sample_keeps_those_of_lowest_seeded_priority_in_document_order(sample):
    """Each disagreement's priority is the CRC-32 of its document id and offsets; the sample
    keeps the ``sample`` of lowest priority, whatever order the documents come in, and lists
    them with the documents' numbers compared as numbers (d9 before d10)."""
    ids = [f"d{i}" for i in range(1, 13)]
    priority = {i: zlib.crc32(f"{i}\x000\x003".encode()) for i in ids}
    kept = sorted(ids, key=priority.get)[:sample]
    expected = [i for i in ids if i in kept]
    for order in (ids, ids[::-1]):
        d = _one_sided(12, sample, ids=order)
        assert [x.document for x in d.shown] == expected
        assert d.counts == {"PER": {"a_only": 12, "b_only": 0, "both": 0, "neither": 0}}


@pytest.mark.parametrize("first, second", [("PER", "LOC"), ("LOC", "PER")])
def test_on_a_tie_of_priority_the_sample_keeps_the_first_met(first, second):
    """Two labels on the same offsets share a priority: a sample of one keeps the first met;
    a sample of two lists both, by label."""
    from spacy_span_eval import Document

    gold = [(0, 3, first), (0, 3, second)]
    shown = []
    for sample in (1, 2):
        a = [Document.create(id="d", text="Ada left", gold=gold, pred=gold)]
        b = [Document.create(id="d", text="Ada left", gold=gold, pred=[])]
        d = _between(a, b, sample=sample)
        shown.append([x.label for x in d.shown])
    assert shown == [[first], ["LOC", "PER"]]


def test_every_label_shows_its_first_before_any_label_shows_a_second():
    """Two labels, six documents each, a sample of three: each label's span of lowest
    priority, then the lower of the two labels' second ones."""
    from spacy_span_eval import Document

    spans = {"PER": (0, 3), "LOC": (8, 14)}
    ids = [f"d{i}" for i in range(1, 7)]
    docs = []
    for label, (start, end) in spans.items():
        docs += [(f"{label}{i}", [(start, end, label)]) for i in ids]
    a = [Document.create(id=i, text="Ada in Lisbon!", gold=g, pred=g) for i, g in docs]
    b = [Document.create(id=i, text="Ada in Lisbon!", gold=g, pred=[]) for i, g in docs]
    d = _between(a, b, sample=3)
    ranked = []
    for label, (start, end) in spans.items():
        priority = sorted(zlib.crc32(f"{label}{i}\x00{start}\x00{end}".encode()) for i in ids)
        ranked += [(rank, p, label) for rank, p in enumerate(priority)]
    chosen = sorted(ranked)[:3]
    assert sorted(
        (x.label, zlib.crc32(f"{x.document}\x00{x.start}\x00{x.end}".encode())) for x in d.shown
    ) == sorted((label, p) for _, p, label in chosen)


def test_the_flags_are_read_at_the_threshold_asked_among_the_evaluators():
    """A finds one token of a three-token name (IoU 1/3): a disagreement at 0.3, none at 0.5,
    with both thresholds scored."""
    from spacy_span_eval import Document

    gold = [(0, 3, "PER")]
    a = [Document.create(id="d", text="Ana de Berg", gold=gold, pred=[(0, 1, "PER")])]
    b = [Document.create(id="d", text="Ana de Berg", gold=gold, pred=[])]
    found = []
    for threshold in (0.3, 0.5):
        d = _between(a, b, thresholds=(0.3, 0.5), threshold=threshold)
        found.append(d.total("a_only"))
    assert found == [1, 0]


def test_documents_pair_across_batches_of_either_side_in_any_order():
    """A's documents come one batch each, in the reverse order; B's in one batch: each pairs
    with its own, whichever side comes last, and A stays A."""
    from spacy_span_eval import Document, SpanEvaluator
    from spacy_span_eval.engine.batching import documents_to_batch
    from spacy_span_eval.jobs.disagreements import disagreements_of

    gold = [(0, 3, "PER")]

    def doc(doc_id, pred):
        return Document.create(id=doc_id, text="Ada left", gold=gold, pred=pred)

    d = disagreements_of(
        SpanEvaluator(max_errors=0, thresholds=(0.5,)),
        [documents_to_batch([doc("d2", gold)]), documents_to_batch([doc("d1", gold)])],
        [documents_to_batch([doc("d1", []), doc("d2", [])])],
        names=("A", "B"),
        threshold=0.5,
    )
    assert (d.total("a_only"), d.total("b_only"), d.unpaired_documents) == (2, 0, 0)
    assert [(x.document, x.direction) for x in d.shown] == [("d1", "a_only"), ("d2", "a_only")]


def test_a_gold_span_of_one_side_alone_is_skipped_and_the_rest_still_counted():
    """The two sides' gold differ (not the same file): a span only A's gold has is no
    disagreement, and the shared ones after it still count."""
    from spacy_span_eval import Document

    text, shared = "Ada in Lisbon!", [(7, 13, "LOC")]
    a_gold = [(0, 3, "PER"), *shared]
    d = _between(
        [Document.create(id="d", text=text, gold=a_gold, pred=a_gold)],
        [Document.create(id="d", text=text, gold=shared, pred=[])],
    )
    assert d.counts == {"LOC": {"a_only": 1, "b_only": 0, "both": 0, "neither": 0}}
