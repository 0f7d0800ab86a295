"""``compare``'s disagreement view: per label, the gold spans one system finds at the
threshold and the other misses, counted against counts worked out by hand on a small corpus,
and a bounded, seeded sample of them."""

from __future__ import annotations

import json

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
    from spacy_span_eval import Document, SpanEvaluator
    from spacy_span_eval.engine.batching import documents_to_batch
    from spacy_span_eval.jobs.disagreements import disagreements_of

    text, gold = "Ada met Bob in Rome", [(0, 3, "PER"), (8, 11, "PER")]

    def doc(doc_id, pred):
        return Document.create(id=doc_id, text=text, gold=gold, pred=pred)

    touching = [(3, 7, "LOC"), (11, 14, "LOC")]  # end at Ada's end, start at Bob's end
    a = [doc("d1", [(0, 3, "PER"), *touching]), doc("a only", [])]
    b = [doc("d1", [(8, 11, "PER"), *touching]), doc("b only", []), doc("b only too", [])]
    d = disagreements_of(
        SpanEvaluator(max_errors=0, thresholds=(0.5,)),
        [documents_to_batch(a)],
        [documents_to_batch(b)],
        names=("A", "B"),
        threshold=0.5,
    )
    assert d.unpaired_documents == 3
    assert [(x.direction, x.start, x.pred_a, x.pred_b) for x in d.shown] == [
        ("a_only", 0, ((0, 3, "PER"),), ()),
        ("b_only", 8, (), ((8, 11, "PER"),)),
    ]
