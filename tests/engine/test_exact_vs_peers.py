"""Differential test: ``exact`` equals seqeval (default mode), spaCy's ``Scorer.score_spans``
and nervaluate's ``strict`` schema on the Broad Twitter Corpus test set against a seeded
perturbed copy, to 1e-9."""

from __future__ import annotations

import random
import warnings

import pytest

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.readers.schemes import decode

from conftest import data_path, to_iob2, token_tag_sentences
from synthetic import perturb


@pytest.fixture(scope="module")
def btc_pairs():
    sentences = token_tag_sentences(data_path("btc", "btc.test"))
    rng = random.Random(2026)
    labels = ["PER", "ORG", "LOC"]
    pairs = []
    for tokens, tags in sentences:
        gold = list(decode(tags, scheme="IOB2").spans)
        pred = perturb(gold, len(tokens), labels, rng)
        pairs.append((tokens, tags, gold, pred))
    assert len(pairs) > 1000
    return pairs


def ours(pairs):
    docs = [
        Document.create(id=i, unit="token", tokens=tokens, gold=gold, pred=pred)
        for i, (tokens, _, gold, pred) in enumerate(pairs)
    ]
    return SpanEvaluator(strategy="exact", unit="token").evaluate(docs).scores()


def test_exact_equals_seqeval_default_mode(btc_pairs):
    from seqeval.metrics import classification_report

    y_true = [tags for _, tags, _, _ in btc_pairs]
    y_pred = [to_iob2(pred, len(tokens)) for tokens, _, _, pred in btc_pairs]
    with warnings.catch_warnings():
        # seqeval warns about undefined ratios for labels it never saw predicted.
        warnings.simplefilter("ignore", category=UserWarning)
        report = classification_report(y_true, y_pred, output_dict=True)
    run = ours(btc_pairs)
    assert set(run.per_label) == {k for k in report if k.isupper()}
    for label, ledger in run.per_label.items():
        expected = report[label]
        assert ledger.num_annotated == expected["support"]
        assert ledger.precision(0.0) == pytest.approx(expected["precision"], abs=1e-9)
        assert ledger.recall(0.0) == pytest.approx(expected["recall"], abs=1e-9)
        assert ledger.f(zero_division=0.0) == pytest.approx(expected["f1-score"], abs=1e-9)
    micro = report["micro avg"]
    assert run.micro.precision() == pytest.approx(micro["precision"], abs=1e-9)
    assert run.micro.recall() == pytest.approx(micro["recall"], abs=1e-9)
    assert run.micro.f() == pytest.approx(micro["f1-score"], abs=1e-9)
    macro = report["macro avg"]
    assert run.macro["f"] == pytest.approx(macro["f1-score"], abs=1e-9)


def test_exact_equals_spacy_score_spans(btc_pairs):
    from spacy.scorer import Scorer
    from spacy.tokens import Doc
    from spacy.training import Example
    from spacy.vocab import Vocab

    vocab = Vocab()
    examples = []
    for tokens, _, gold, pred in btc_pairs:
        tokens = [t or "_" for t in tokens]  # BTC has empty tokens; spaCy Docs reject them
        reference = Doc(vocab, words=tokens, ents=to_iob2(gold, len(tokens)))
        predicted = Doc(vocab, words=tokens, ents=to_iob2(pred, len(tokens)))
        examples.append(Example(predicted, reference))
    expected = Scorer.score_spans(examples, "ents")
    run = ours(btc_pairs)
    assert run.micro.precision() == pytest.approx(expected["ents_p"], abs=1e-9)
    assert run.micro.recall() == pytest.approx(expected["ents_r"], abs=1e-9)
    assert run.micro.f() == pytest.approx(expected["ents_f"], abs=1e-9)
    assert set(run.per_label) == set(expected["ents_per_type"])
    for label, prf in expected["ents_per_type"].items():
        ledger = run.per_label[label]
        assert ledger.precision(0.0) == pytest.approx(prf["p"], abs=1e-9)
        assert ledger.recall(0.0) == pytest.approx(prf["r"], abs=1e-9)
        assert ledger.f(zero_division=0.0) == pytest.approx(prf["f"], abs=1e-9)


def test_exact_equals_nervaluate_strict_and_any_entity_equals_its_exact_schema(btc_pairs):
    """nervaluate (SemEval 2013 schemas): ``strict`` (same boundaries and type) is our
    ``exact``, per label and pooled; its ``exact`` schema (same boundaries, any type) is our
    entity-agnostic level, which must not fuse adjacent spans of different labels."""
    from nervaluate import Evaluator

    y_true = [tags for _, tags, _, _ in btc_pairs]
    y_pred = [to_iob2(pred, len(tokens)) for tokens, _, _, pred in btc_pairs]
    labels = ["PER", "ORG", "LOC"]
    theirs = Evaluator(y_true, y_pred, tags=labels, loader="list").evaluate()
    run = ours(btc_pairs)

    def same(ledger, result):
        assert (ledger.tp, ledger.num_predicted, ledger.num_annotated) == (
            result.correct,
            result.actual,
            result.possible,
        )
        assert ledger.precision() == pytest.approx(result.precision, abs=1e-12)
        assert ledger.recall() == pytest.approx(result.recall, abs=1e-12)
        assert ledger.f() == pytest.approx(result.f1, abs=1e-12)

    same(run.micro, theirs["overall"]["strict"])
    same(run.entity_agnostic, theirs["overall"]["exact"])
    assert run.entity_agnostic.tp > run.micro.tp  # the two levels differ on this data
    assert set(run.per_label) == set(labels)
    for label in labels:
        same(run.per_label[label], theirs["entities"][label]["strict"])
