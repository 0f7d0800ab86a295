"""``exact`` (semantics §2.2) against plain set arithmetic, duplicates included.

Identical duplicates collapse as in a set: the ledger counts distinct ``(start, end, label)``
per document, and the note ``*_duplicates_collapsed`` says how many rows that removed. Both
are recomputed here from the input, never from what the engine reports.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_span_eval import Document, Ledger, SpanEvaluator

LABELS = "AB"


@st.composite
def documents(draw):
    docs = []
    for i in range(draw(st.integers(1, 4))):
        length = draw(st.integers(1, 8))
        span = st.tuples(
            st.integers(0, length - 1), st.integers(1, 3), st.sampled_from(LABELS)
        ).map(lambda t, n=length: (t[0], min(n, t[0] + t[1]), t[2]))
        # few distinct spans, drawn with repetition, so identical duplicates are common
        docs.append(
            Document.create(
                id=i,
                length=length,
                gold=draw(st.lists(span, max_size=6)),
                pred=draw(st.lists(span, max_size=6)),
            )
        )
    return docs


def set_ledgers(docs) -> dict[str, Ledger]:
    out: dict[str, Counter] = {}
    for d in docs:
        gold = {(s.start, s.end, s.label) for s in d.gold}
        pred = {(s.start, s.end, s.label) for s in d.pred}
        for label in {x[2] for x in gold | pred}:
            g = {x for x in gold if x[2] == label}
            p = {x for x in pred if x[2] == label}
            c = out.setdefault(label, Counter())
            c.update(
                num_annotated=len(g),
                num_predicted=len(p),
                tp=len(g & p),
                fn=len(g - p),
                credited=len(g & p),
                fp=len(p - g),
            )
    return {label: Ledger(**c) for label, c in out.items()}


@settings(max_examples=200, deadline=None)
@given(documents())
def test_exact_is_set_arithmetic_and_duplicates_are_counted_from_the_input(docs):
    emitted_gold = sum(len(d.gold) for d in docs)
    emitted_pred = sum(len(d.pred) for d in docs)
    distinct_gold = sum(len({(s.start, s.end, s.label) for s in d.gold}) for d in docs)
    distinct_pred = sum(len({(s.start, s.end, s.label) for s in d.pred}) for d in docs)
    if not emitted_gold and not emitted_pred:
        return  # an empty evaluation is refused (tested elsewhere)
    result = SpanEvaluator(strategy="exact").evaluate(docs)
    want = set_ledgers(docs)
    assert {k: v for k, v in result.per_label.items() if v != Ledger()} == want
    assert result.micro.num_predicted == distinct_pred
    assert result.notes.get("pred_duplicates_collapsed", 0) == emitted_pred - distinct_pred
    assert result.notes.get("gold_duplicates_collapsed", 0) == emitted_gold - distinct_gold


def test_a_duplicated_prediction_is_one_prediction():
    doc = Document.create(
        id="d",
        length=10,
        gold=[(0, 2, "A")],
        pred=[(0, 2, "A"), (0, 2, "A"), (4, 6, "A"), (4, 6, "A"), (4, 6, "B")],
    )
    result = SpanEvaluator(strategy="exact").evaluate([doc])
    assert result.per_label["A"] == Ledger(1, 2, tp=1, fn=0, credited=1, fp=1)
    assert result.per_label["B"] == Ledger(0, 1, tp=0, fn=0, credited=0, fp=1)
    assert result.notes["pred_duplicates_collapsed"] == 2
    # B's [4,6) is no duplicate of A's; with every label collapsed into one it is, so the
    # any-entity level counts two predictions: [0,2) and [4,6)
    assert result.scores().entity_agnostic == Ledger(1, 2, tp=1, fn=0, credited=1, fp=1)


def test_exact_on_offsets_too_large_to_pack_into_one_integer():
    # 20 documents a billion characters long: (doc, start, end, label) no longer packs into an
    # int64 code (20 * 1e9 * 1e9 > 2**62), so rows are matched through their distinct tuples.
    n = 10**9
    docs = [
        Document.create(
            id=i,
            length=n,
            gold=[(n - 10, n - 5, "A"), (n - 4, n, "B"), (0, 3, "A")],
            pred=[(n - 10, n - 5, "A"), (n - 4, n, "A"), (0, 3, "A"), (0, 3, "A"), (n - 3, n, "B")]
            if i % 2
            else [(0, 3, "A")],
        )
        for i in range(20)
    ]
    result = SpanEvaluator(strategy="exact").evaluate(docs)
    assert result.per_label == set_ledgers(docs)
    # odd documents: both A found, a spurious A where B is, a duplicate; even: A [0,3) only
    assert result.per_label["A"] == Ledger(40, 40, tp=30, fn=10, credited=30, fp=10)
    assert result.notes["pred_duplicates_collapsed"] == 10


def wrong_label_cells(gold, pred):
    doc = Document.create(id="d", length=40, gold=gold, pred=pred)
    scores = SpanEvaluator(strategy="exact", max_errors=None).evaluate([doc]).scores()
    return [(e.kind, e.predicted_label) for e in scores.errors if e.side == "gold"]


def test_a_miss_covered_exactly_by_another_label_is_a_wrong_label_cell():
    assert wrong_label_cells([(0, 4, "X")], [(0, 4, "Y")]) == [("wrong_label", "Y")]
    # sharing one boundary is not covering it, with one candidate or two
    assert wrong_label_cells([(0, 4, "X")], [(0, 3, "Y")]) == [("false_negative", None)]
    assert wrong_label_cells([(0, 4, "X")], [(0, 3, "Y"), (1, 4, "Y")]) == [
        ("false_negative", None)
    ]
    # two labels cover it exactly: the alphabetically first, however many candidates each has
    assert wrong_label_cells([(0, 4, "X")], [(0, 2, "Z"), (0, 4, "Z"), (0, 4, "Y")]) == [
        ("wrong_label", "Y")
    ]
    assert wrong_label_cells([(0, 4, "X")], [(0, 2, "A"), (0, 4, "A"), (0, 4, "Z")]) == [
        ("wrong_label", "A")
    ]
