"""With a cap, the kept error records are a seeded, stratified sample of the whole corpus:
every kind and label before any gets a second record, spread over the documents, the same
whatever the batch boundaries, and listed in document order."""

from __future__ import annotations

from collections import Counter

from spacy_span_eval import Document, Span, SpanEvaluator
from spacy_span_eval.engine.error_records import stratified


def corpus(n: int = 400) -> list[Document]:
    """Each document one missed PER; every tenth also a spurious LOC and a relabelled ORG."""
    docs = []
    for i in range(n):
        text = "Ada met Bob in Rome"
        gold, pred = [(0, 3, "PER")], []
        if i % 10 == 0:
            gold.append((8, 11, "ORG"))
            pred += [(8, 11, "PER"), (15, 19, "LOC")]
        docs.append(Document.create(id=f"doc-{i}", text=text, gold=gold, pred=pred))
    return docs


def test_every_kind_and_label_is_in_a_small_sample():
    run = SpanEvaluator(max_errors=6).evaluate(corpus()).scores()
    kinds = Counter((e.kind, e.label) for e in run.errors)
    # missed PER, relabelled ORG, spurious LOC and the relabelling PER prediction: all four
    assert set(kinds) == {
        ("false_negative", "PER"),
        ("wrong_label", "ORG"),
        ("false_positive", "LOC"),
        ("wrong_label", "PER"),  # (its side: predicted)
    }
    assert max(kinds.values()) == 2 and len(run.errors) == 6


def test_the_sample_spans_the_corpus_not_its_start():
    run = SpanEvaluator(max_errors=40).evaluate(corpus()).scores()
    numbers = [int(e.document.split("-")[1]) for e in run.errors]
    assert numbers == sorted(numbers)  # listed in document order
    assert max(numbers) > 300 and min(numbers) < 100


def test_the_sample_does_not_depend_on_batches():
    docs = corpus()
    samples = {
        size: SpanEvaluator(max_errors=25, batch_size=size).evaluate(docs).scores().errors
        for size in (7, 64, 1000)
    }
    assert samples[7] == samples[64] == samples[1000]
    # and merging parts in either order gives it too
    a = SpanEvaluator(max_errors=25).tally(docs[:150])
    b = SpanEvaluator(max_errors=25).tally(docs[150:])
    assert (a + b).result().scores().errors == (b + a).result().scores().errors == samples[7]


def test_stratified_keeps_rank_order_over_groups():
    run = SpanEvaluator(max_errors=None).evaluate(corpus(50)).scores()
    every = list(run.errors)
    assert stratified(every, len(every)) == sorted(
        every, key=lambda e: (int(e.document.split("-")[1]), e.start, e.end, e.side != "gold")
    )
    assert stratified(every, 0) == [] and stratified([], 5) == []


def test_without_a_cap_the_records_are_listed_as_a_cap_lists_them():
    """Document order by id (numbers as numbers), then start, end, side, label and kind,
    whatever order the documents and spans come in or the parts are merged in."""
    docs = [
        Document.create(
            id=f"doc-{i}",
            text="Ada met Bob in Rome",
            gold=[(8, 11, "PER"), (0, 3, "ORG"), (0, 3, "LOC")],
            pred=[(15, 19, "PER"), (0, 7, "LOC")],
            unaligned_pred=[(Span(8, 12, "PER"), "inside a token")],
            unaligned_gold=[(Span(8, 12, "PER"), "inside a token")],
        )
        for i in (10, 2, 9, 1)
    ]
    every = SpanEvaluator(max_errors=None, batch_size=2).evaluate(docs).scores().errors
    capped = SpanEvaluator(max_errors=10**6).evaluate(docs).scores().errors
    assert every == capped and len(every) == 28
    a = SpanEvaluator(max_errors=None).tally(docs[:2])
    b = SpanEvaluator(max_errors=None).tally(docs[2:])
    assert (b + a).result().scores().errors == every
