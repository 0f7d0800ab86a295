"""``Document`` keeps its spans packed; what it shows and what batches get are unchanged.

The reference here is what a ``Document`` was before it packed its spans: ``validate_spans``
for what ``create`` accepts and the messages it raises, and the per-span flattening that
``documents_to_batch`` did (written out below) for the columns of a batch.
"""

from __future__ import annotations

import dataclasses
import pickle
import subprocess
import sys
from enum import IntEnum

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_span_eval import Document, InvalidSpanError, Span, SpanEvaluator
from spacy_span_eval.engine.batching import documents_to_batch
from spacy_span_eval.engine.spans import span_counts, validate_spans

LABELS = ["PER", "LOC", "ORG", "Zoë", "x" * 40]


def reference_batch(docs):
    """The flattening ``documents_to_batch`` did span by span before spans were packed."""
    label_ids: dict[str, int] = {}

    def side(spans_of):
        rows = [
            (d_i, s.start, s.end, label_ids.setdefault(s.label, len(label_ids)), item)
            for d_i, doc in enumerate(docs)
            for item, s in enumerate(spans_of(doc))
        ]
        return np.array(rows, dtype=np.int64).reshape(-1, 5)

    gold, pred = side(lambda d: d.gold), side(lambda d: d.pred)
    return {
        "gold": gold,
        "pred": pred,
        "labels": list(label_ids),
        "ids": [d.id for d in docs],
        "lengths": [d.length for d in docs],
        "texts": [d.text for d in docs],
        "tokens": [d.tokens for d in docs],
        "unaligned": [(i, s, r) for i, d in enumerate(docs) for s, r in d.unaligned_pred],
        "unaligned_gold": [(i, s, r) for i, d in enumerate(docs) for s, r in d.unaligned_gold],
    }


def as_reference(batch):
    def side(cols):
        return np.stack([cols.doc, cols.start, cols.end, cols.label, cols.item], 1).reshape(-1, 5)

    return {
        "gold": side(batch.gold),
        "pred": side(batch.pred),
        "labels": list(batch.labels),
        "ids": list(batch.doc_ids),
        "lengths": batch.lengths.tolist(),
        "texts": list(batch.texts),
        "tokens": list(batch.tokens),
        "unaligned": list(batch.unaligned),
        "unaligned_gold": list(batch.unaligned_gold),
    }


def same(a, b):
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            assert a[key].tolist() == b[key].tolist(), key
        else:
            assert a[key] == b[key], key


raw_spans = st.lists(
    st.tuples(st.integers(-2, 14), st.integers(-2, 14), st.sampled_from([*LABELS, ""])), max_size=6
)


@settings(max_examples=300, deadline=None)
@given(gold=raw_spans, pred=raw_spans, length=st.integers(0, 12), as_span=st.booleans())
def test_create_accepts_and_refuses_what_validate_spans_does(gold, pred, length, as_span):
    if as_span:
        gold = [Span(*s) for s in gold]
    try:
        want = (
            validate_spans(gold, length=length, doc_id="d", side="gold"),
            validate_spans(pred, length=length, doc_id="d", side="predicted"),
        )
    except InvalidSpanError as exc:
        with pytest.raises(InvalidSpanError) as got:
            Document.create(id="d", gold=gold, pred=pred, length=length)
        assert str(got.value) == str(exc)
        return
    doc = Document.create(id="d", gold=iter(gold), pred=pred, length=length)
    assert (doc.gold, doc.pred) == want
    assert span_counts(doc) == (len(want[0]), len(want[1]))


class Offset(IntEnum):
    ONE = 1
    THREE = 3


class Name(str):
    pass


def test_int_and_str_subclasses_take_the_reference_checks():
    doc = Document.create(
        id=1, gold=[(Offset.ONE, Offset.THREE, Name("PER"))], pred=[Span(0, 1, "LOC")], length=4
    )
    assert doc.gold == (Span(1, 3, "PER"),) and doc.pred == (Span(0, 1, "LOC"),)
    with pytest.raises(InvalidSpanError, match="offsets must be integers"):
        Document.create(id=1, gold=[(1.0, 3, "PER")], pred=[], length=4)
    with pytest.raises(InvalidSpanError, match="offsets must be integers"):
        Document.create(id=1, gold=[(np.int64(1), 3, "PER")], pred=[], length=4)
    with pytest.raises(InvalidSpanError, match="past the end"):
        Document.create(id=1, gold=[], pred=[(0, 2**70, "PER")], length=4)


def docs_strategy():
    span = st.builds(
        lambda s, n, lab: Span(s, s + n, lab),
        st.integers(0, 10),
        st.integers(1, 5),
        st.sampled_from(LABELS),
    )
    doc = st.builds(
        lambda i, g, p, ug, up, text: Document.create(
            id=i,
            gold=g,
            pred=p,
            text=text,
            unaligned_gold=[(s, "inside a token") for s in ug],
            unaligned_pred=[(s, "projection failed") for s in up],
        ),
        st.integers(0, 10**6),
        st.lists(span, max_size=5),
        st.lists(span, max_size=5),
        st.lists(span, max_size=2),
        st.lists(span, max_size=2),
        st.text(alphabet="ab ", min_size=15, max_size=20),
    )
    return st.lists(doc, max_size=12)


@settings(max_examples=200, deadline=None)
@given(docs=docs_strategy())
def test_batches_hold_what_the_span_by_span_flattening_gave(docs):
    batch = documents_to_batch(docs)
    same(as_reference(batch), reference_batch(docs))
    # Ids, texts and tokens are read on demand, and travel to workers as plain lists.
    moved = pickle.loads(pickle.dumps(batch))
    assert type(moved.doc_ids) is list and list(moved.doc_ids) == [d.id for d in docs]
    assert list(moved.texts) == [d.text for d in docs]
    assert batch.doc_ids[1:3] == [d.id for d in docs[1:3]]


def test_labels_are_numbered_by_first_appearance_even_when_rare():
    common = [
        Document.create(id=i, gold=[(0, 1, "A"), (1, 2, "B")], pred=[], length=3)
        for i in range(500)
    ]
    rare = Document.create(id="r", gold=[], pred=[(0, 1, "C"), (1, 2, "A")], length=3)
    batch = documents_to_batch([*common, rare, common[0]])
    assert list(batch.labels) == ["A", "B", "C"]
    assert batch.pred.label.tolist() == [2, 0]


def test_value_semantics_are_a_dataclasss():
    doc = Document.create(
        id=7,
        gold=[(0, 2, "PER")],
        pred=[Span(1, 2, "LOC")],
        text="abc",
        unaligned_pred=[(Span(0, 1, "ORG"), "why")],
    )
    twin = Document(
        id="7",
        length=3,
        gold=(Span(0, 2, "PER"),),
        pred=(Span(1, 2, "LOC"),),
        text="abc",
        unaligned_pred=((Span(0, 1, "ORG"), "why"),),
        unit="char",
    )
    assert doc == twin and hash(doc) == hash(twin) and repr(doc) == repr(twin)
    assert [f.name for f in dataclasses.fields(Document)][:4] == ["id", "length", "gold", "pred"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        doc.gold = ()  # type: ignore[misc]
    changed = dataclasses.replace(doc, pred=(Span(0, 3, "ORG"),))
    assert changed.pred == (Span(0, 3, "ORG"),) and changed.gold == doc.gold
    assert documents_to_batch([changed]).unaligned == [(0, Span(0, 1, "ORG"), "why")]
    assert pickle.loads(pickle.dumps(doc)) == doc


def test_a_pickled_document_carries_its_labels_not_this_processs_ids():
    doc = Document.create(id=1, gold=[(0, 1, "only-here-" + "a" * 5)], pred=[], length=2)
    code = (
        "import pickle, sys\n"
        "from spacy_span_eval.engine.spans import label_id\n"
        "for name in 'QRSTUVW': label_id(name)\n"  # other ids in the other process
        "doc = pickle.loads(sys.stdin.buffer.read())\n"
        "print(doc.gold[0].label)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], input=pickle.dumps(doc), capture_output=True, check=True
    )
    assert out.stdout.decode().strip() == "only-here-aaaaa"


def test_a_document_built_directly_is_checked_when_scored():
    bad = Document(id="b", length=5, gold=(Span(0, 9, "PER"),), pred=())
    with pytest.raises(InvalidSpanError, match=r"document 'b', gold span #0 .*past the end"):
        SpanEvaluator().evaluate([bad])
    with pytest.raises(InvalidSpanError, match="offsets must be integers"):
        Document(id="b", length=5, gold=((0.5, 2, "PER"),), pred=())
    with pytest.raises(InvalidSpanError, match="label must be a non-empty string"):
        Document(id="b", length=5, gold=(), pred=((0, 2, ["PER"]),))
    with pytest.raises(InvalidSpanError, match="do not fit in 64 bits"):
        Document(id="b", length=5, gold=((0, 2**64, "PER"),), pred=())


def test_prediction_scores_survive_packing_pickling_batches_and_rows():
    from spacy_span_eval.engine.batching import documents_to_batch
    from spacy_span_eval.engine.rows import document_from_row

    doc = Document.create(id="x", gold=[], pred=[Span(0, 2, "A", 0.5), (1, 2, "B")], length=5)
    again = pickle.loads(pickle.dumps(doc))
    assert [s.score for s in again.pred] == [0.5, None]
    plain = Document.create(id="y", gold=[], pred=[(0, 1, "A")], length=3)
    assert plain.scores is None and documents_to_batch([plain]).pred.score is None
    column = documents_to_batch([again, plain]).pred.score
    assert np.array_equal(column, [0.5, np.nan, np.nan], equal_nan=True)
    row = {
        "id": 1,
        "length": 5,
        "gold": [],
        "pred": [{"start": 0, "end": 1, "label": "A", "score": 0.3}, (1, 2, "B", None)],
    }
    assert [s.score for s in document_from_row(row, unit="char").pred] == [0.3, None]
