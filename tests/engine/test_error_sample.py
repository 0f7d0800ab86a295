"""With a cap, the kept error records are a seeded, stratified sample of the whole corpus:
every kind and label before any gets a second record, spread over the documents, the same
whatever the batch boundaries, and listed in document order."""

from __future__ import annotations

import re
import zlib
from collections import Counter

import numpy as np
import pytest

from spacy_span_eval import Document, Span, SpanEvaluator
from spacy_span_eval.engine.error_records import SAMPLE_SEED, _mix, stratified


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


#: splitmix64's increment, which the priorities also use to spread each value.
GOLDEN = 0x9E3779B97F4A7C15
M64 = (1 << 64) - 1


def splitmix64_finalizer(x: int) -> int:
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


@pytest.mark.parametrize(
    ("state", "value"),
    # splitmix64 seeded with 1234567: the first three outputs its reference code prints
    [
        (1234567 + GOLDEN, 6457827717110365317),
        (1234567 + 2 * GOLDEN, 3203168211198807973),
        (1234567 + 3 * GOLDEN, 9817491932198370423),
    ],
)
def test_the_priorities_mix_with_splitmix64s_finalizer(state, value):
    assert splitmix64_finalizer(state & M64) == value
    assert _mix(np.array([state & M64], dtype=np.uint64)).tolist() == [value]


def reference_priority(e) -> int:
    """A record's priority as the module's docstring describes it, in Python integers: the
    CRC-32 of its document id mixed with the seed, then its start, end and side (gold 1,
    predicted 2) each added spread by the golden ratio and mixed in."""
    x = zlib.crc32(e.document.encode("utf-8")) ^ SAMPLE_SEED
    for value in (e.start, e.end, 1 if e.side == "gold" else 2):
        x = splitmix64_finalizer((x + value * GOLDEN) & M64)
    return splitmix64_finalizer(x)


def reference_order(e) -> tuple:
    parts = tuple(
        (0, int(x), "") if x.isdigit() else (1, 0, x) for x in re.split(r"(\d+)", e.document)
    )
    return parts, e.start, e.end, e.side != "gold", e.label, e.kind


def reference_sample(records, cap: int) -> list:
    """The ``cap`` records of lowest (rank in their kind and label, priority, document
    order), listed in document order."""
    groups = {}
    for e in records:
        groups.setdefault((e.kind, e.label), []).append(e)
    keyed = []
    for members in groups.values():
        members.sort(key=lambda e: (reference_priority(e), reference_order(e)))
        keyed += [
            (rank, reference_priority(e), reference_order(e), e) for rank, e in enumerate(members)
        ]
    keyed.sort(key=lambda k: k[:3])
    return sorted((k[3] for k in keyed[:cap]), key=reference_order)


def mixed_corpus() -> list[Document]:
    """Each kind and side, over three labels, with unaligned spans on both sides, ids whose
    numbers sort as numbers, and texts long enough for offsets past 255."""
    text = ("Ada met Bob in Rome. " * 20).strip()
    docs = []
    for i in range(24):
        gold = [(0, 3, "PER"), (8, 11, "ORG"), (15, 19, "LOC"), (300 + i, 303 + i, "PER")]
        pred = [(0, 1, "PER"), (8, 11, "PER"), (21 * (i % 5), 21 * (i % 5) + 3, "LOC")]
        docs.append(
            Document.create(
                id=f"d{i}.x{i % 3}",
                text=text,
                gold=gold,
                pred=pred,
                unaligned_pred=[(Span(4, 6, "ORG"), "inside a token")] if i % 4 == 0 else [],
                unaligned_gold=[(Span(5, 7, "LOC"), "inside a token")] if i % 6 == 1 else [],
            )
        )
    return docs


@pytest.mark.parametrize(("batch_size", "caps"), [(3, [1, 5, 13, 40]), (1000, range(1, 70, 3))])
def test_a_capped_sample_is_the_lowest_ranks_and_priorities_of_the_whole_corpus(batch_size, caps):
    """Caps from one record to past the small groups' sizes and into the large: groups
    (kind, side and label) of 5 to 28 records."""
    docs = mixed_corpus()
    every = SpanEvaluator(max_errors=None).evaluate(docs).scores().errors
    assert sorted(Counter((e.kind, e.side) for e in every).items()) == [
        (("boundary", "gold"), 19),
        (("boundary", "predicted"), 19),
        (("false_negative", "gold"), 52),
        (("false_positive", "predicted"), 30),
        (("wrong_label", "gold"), 29),
        (("wrong_label", "predicted"), 29),
    ]
    for cap in caps:
        evaluator = SpanEvaluator(max_errors=cap, batch_size=batch_size)
        assert list(evaluator.evaluate(docs).scores().errors) == reference_sample(every, cap)


@pytest.mark.parametrize("batch_size", [1, 100])
@pytest.mark.parametrize("first", ["plumless", "buckeroo"])
def test_documents_whose_ids_share_a_crc32_are_sampled_by_document_order(batch_size, first):
    """``plumless`` and ``buckeroo`` have one CRC-32, so the same error in each has one
    priority: the tie goes to the document first in order, whatever the batches and the
    order the documents came in. (A missed LOC, of higher priority, puts the PER group
    second in a batch.)"""
    assert zlib.crc32(b"plumless") == zlib.crc32(b"buckeroo")
    docs = [
        Document.create(id=name, text="Ada met Bob", gold=[(0, 3, "PER")], pred=[])
        for name in sorted(("plumless", "buckeroo"), key=lambda name: name != first)
    ]
    docs.append(Document.create(id="a", text="Ada met Bob", gold=[(4, 7, "LOC")], pred=[]))
    run = SpanEvaluator(max_errors=1, batch_size=batch_size).evaluate(docs).scores()
    assert [e.document for e in run.errors] == ["buckeroo"]


def test_records_and_error_strings_are_kept_at_the_detailed_thresholds_alone():
    docs = corpus(20)
    run = SpanEvaluator(thresholds=(0.5, 1.0), details=(1.0,), max_errors=None).evaluate(docs)
    loose, strict = run.levels["labels"]
    assert loose.errors == () and not loose.strings
    assert len(strict.errors) == strict.micro.fn + strict.micro.fp == 26
    assert sum(strict.strings.values()) == 24  # the 20 missed, 2 relabelled, 2 spurious


def test_a_threshold_without_errors_leaves_the_next_ones_records_kept():
    """At IoU 0.5 the shorter prediction finds its annotation; at 1.0 it is two errors."""
    docs = [Document.create(id="d", text="Ada met Bob", gold=[(0, 3, "PER")], pred=[(0, 2, "PER")])]
    for cap in (None, 5):
        loose, strict = (
            SpanEvaluator(thresholds=(0.5, 1.0), max_errors=cap).evaluate(docs).levels["labels"]
        )
        assert loose.errors == ()
        assert [(e.kind, e.side, e.start, e.end) for e in strict.errors] == [
            ("boundary", "predicted", 0, 2),
            ("boundary", "gold", 0, 3),
        ]


def test_an_unaligned_span_is_a_record_of_its_own_side_label_and_reason():
    docs = [
        Document.create(
            id="d",
            text="Ada met Bob",
            gold=[],
            pred=[],
            unaligned_gold=[(Span(1, 2, "PER"), "inside token 0")],
            unaligned_pred=[(Span(5, 6, "ORG"), "inside token 1"), (Span(9, 10, "LOC"), "x")],
        )
    ]
    records = SpanEvaluator(max_errors=None).evaluate(docs).scores().errors
    common = {"document": "d", "text": None, "context_left": None, "context_right": None}
    assert [e.to_dict() for e in records] == [
        {
            **common,
            "kind": "false_negative",
            "start": 1,
            "end": 2,
            "label": "PER",
            "predicted_label": None,
            "best_iou": 0.0,
            "reason": "inside token 0",
            "side": "gold",
        },
        {
            **common,
            "kind": "false_positive",
            "start": 5,
            "end": 6,
            "label": "ORG",
            "predicted_label": "ORG",
            "best_iou": 0.0,
            "reason": "inside token 1",
            "side": "predicted",
        },
        {
            **common,
            "kind": "false_positive",
            "start": 9,
            "end": 10,
            "label": "LOC",
            "predicted_label": "LOC",
            "best_iou": 0.0,
            "reason": "x",
            "side": "predicted",
        },
    ]


FIELDS = ("kind", "side", "start", "end", "label", "predicted_label", "text", "context_left")


@pytest.mark.parametrize(
    ("doc", "unit", "expected", "expected_strings"),
    [
        (
            Document.create(
                id="d",
                text="Ada met Bob in Rome",
                gold=[(0, 3, "PER"), (8, 11, "ORG"), (15, 19, "LOC")],
                pred=[(0, 2, "PER"), (8, 11, "LOC")],
            ),
            "char",
            # (..., context_left, context_right, best_iou): four characters of context; a
            # wrong-label record's best_iou is its cover's
            [
                ("boundary", "predicted", 0, 2, "PER", "PER", "Ad", "", "a me", 2 / 3),
                ("boundary", "gold", 0, 3, "PER", "PER", "Ada", "", " met", 2 / 3),
                ("wrong_label", "gold", 8, 11, "ORG", "LOC", "Bob", "met ", " in ", 1.0),
                ("wrong_label", "predicted", 8, 11, "LOC", "LOC", "Bob", "met ", " in ", 1.0),
                ("false_negative", "gold", 15, 19, "LOC", None, "Rome", " in ", "", 0.0),
            ],
            ([("LOC", "Rome")], [("ORG", "Bob", "LOC")], []),
        ),
        (
            Document.create(
                id="t",
                unit="token",
                tokens="Ada met Bob in Rome".split(),
                gold=[(0, 2, "PER"), (2, 3, "ORG")],
                pred=[(2, 3, "LOC"), (3, 5, "PER")],
            ),
            "token",
            # one token of context
            [
                ("false_negative", "gold", 0, 2, "PER", None, "Ada met", "", "Bob", 0.0),
                ("wrong_label", "gold", 2, 3, "ORG", "LOC", "Bob", "met", "in", 1.0),
                ("wrong_label", "predicted", 2, 3, "LOC", "LOC", "Bob", "met", "in", 1.0),
                ("false_positive", "predicted", 3, 5, "PER", "PER", "in Rome", "Bob", "", 0.0),
            ],
            ([("PER", "Ada met")], [("ORG", "Bob", "LOC")], [("PER", "in Rome")]),
        ),
    ],
)
def test_each_record_gives_its_kind_labels_text_context_and_best_score(
    doc, unit, expected, expected_strings
):
    ev = SpanEvaluator(
        unit=unit, thresholds=(0.9,), max_errors=None, context=4 if unit == "char" else 1
    )
    run = ev.evaluate([doc]).scores()
    assert [
        (*(getattr(e, f) for f in FIELDS), e.context_right, e.best_iou) for e in run.errors
    ] == expected
    # the strings of the missed, relabelled and spurious ones (a run of tokens joined by spaces)
    missed, relabelled, spurious = expected_strings
    assert dict(run.strings) == {
        **{(label, "missed", text, ""): 1 for label, text in missed},
        **{(label, "relabelled", text, given): 1 for label, text, given in relabelled},
        **{(label, "spurious", text, ""): 1 for label, text in spurious},
    }


def two_label_corpus(gold, pred) -> list[Document]:
    return [
        Document.create(id=f"e{i}", text="Ada met Bob in Rome on Monday", gold=gold, pred=pred)
        for i in range(20)
    ]


@pytest.mark.parametrize(
    ("gold", "pred", "groups", "caps"),
    [
        # P missed, P found at other boundaries (both sides), P given Q (both sides), P
        # spurious, Q missed, Q spurious: boundary errors of P on both sides are one group
        (
            [(0, 3, "P"), (4, 7, "P"), (8, 11, "P"), (15, 19, "Q")],
            [(4, 6, "P"), (8, 11, "Q"), (12, 14, "P"), (20, 22, "Q")],
            7,
            [3, 8, 12, 17],
        ),
        ([(8, 11, "P")], [(8, 11, "Q"), (12, 14, "P")], 3, [3, 8, 12, 17]),  # P given Q, P spurious
        # P at other boundaries, Q missed: caps up to most of the records
        ([(4, 7, "P"), (15, 19, "Q")], [(4, 6, "P")], 2, [1, 2, *range(28, 40)]),
    ],
)
def test_a_capped_sample_of_equal_groups_takes_as_many_of_each(gold, pred, groups, caps):
    """Groups of kind and label, the sample taking a record of each before a second of any:
    a batch's candidates are the lowest of each kind, side and label, never of two of them
    together."""
    docs = two_label_corpus(gold, pred)
    every = SpanEvaluator(thresholds=(0.9,), max_errors=None).evaluate(docs).scores().errors
    assert len({(e.kind, e.label) for e in every}) == groups
    for cap in caps:
        capped = SpanEvaluator(thresholds=(0.9,), max_errors=cap).evaluate(docs).scores().errors
        assert list(capped) == reference_sample(every, cap)
        assert max(Counter((e.kind, e.label) for e in capped).values()) == -(-cap // groups)
