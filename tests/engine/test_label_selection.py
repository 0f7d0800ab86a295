"""``SpanEvaluator(labels=...)``: scoring a keep-set of labels is scoring the documents with
the other labels' spans removed by hand (gold, predicted and unaligned on both sides), at
every level, for every strategy; the selection is part of the settings."""

from __future__ import annotations

import importlib.util
import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_span_eval import Document, Hierarchy, Span, SpanEvaluator
from spacy_span_eval.engine.batching import SpanBatch
from spacy_span_eval.engine.columns import SpanColumns
from spacy_span_eval.errors import EmptyEvaluationError, InvalidSpanError, UnknownLabelError


def _invariants():
    """The property tests' document generator and strategy configurations."""
    try:
        import test_invariants
    except ImportError:  # the module lives in another folder of tests/
        path = next(Path(__file__).resolve().parents[1].rglob("test_invariants.py"))
        spec = importlib.util.spec_from_file_location("_invariants_for_labels", path)
        test_invariants = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(test_invariants)
    return test_invariants


_INV = _invariants()
documents, CONFIGS = _INV.documents, _INV.CONFIGS

RAW = ["A", "B", "C", "D"]  # "D" appears in unaligned spans only
LABEL_MAPS = [
    None,
    {"mapping": {"A": "X", "B": "X"}, "strict": False},  # two raw labels, one scored label
    {"mapping": {"A": "X", "B": "X", "C": "C", "D": "D"}, "strict": True},
]
SCORED = ["A", "B", "C", "D", "X", "NOT_THERE"]  # names a keep-set may hold (after the map)


def hierarchy_for() -> Hierarchy:
    # strict: every scored name has a projection at every level
    return Hierarchy(
        {
            "branch": {"A": "AB", "B": "AB", "X": "AB", "C": "CD", "D": "CD"},
            "binary": dict.fromkeys(["A", "B", "C", "D", "X"], "ANY"),
        }
    )


@st.composite
def with_unaligned(draw):
    """The property tests' documents, plus unaligned predictions and gold spans."""
    docs = draw(documents())
    out = []
    for d in docs:

        def unaligned(d=d):
            start = draw(st.integers(0, d.length - 1))
            end = draw(st.integers(start + 1, d.length))
            return Span(start, end, draw(st.sampled_from(RAW))), "starts inside a token"

        out.append(
            Document.create(
                id=d.id,
                length=d.length,
                gold=d.gold,
                pred=d.pred,
                unaligned_pred=[unaligned() for _ in range(draw(st.integers(0, 2)))],
                unaligned_gold=[unaligned() for _ in range(draw(st.integers(0, 2)))],
            )
        )
    return out


def kept_by_hand(label_map: dict | None, chosen: set[str]):
    """Whether a raw label is scored: its mapped name is chosen (a label the strict map
    does not know is kept, so that scoring reports it)."""

    def keep(label: str) -> bool:
        if not chosen:
            return True
        if label_map is None:
            return label in chosen
        mapping = label_map["mapping"]
        if label in mapping:
            return mapping[label] in chosen
        if label_map["strict"] and label not in set(mapping.values()):
            return True
        return label in chosen

    return keep


def filtered_by_hand(docs, keep):
    return [
        Document.create(
            id=d.id,
            length=d.length,
            gold=[s for s in d.gold if keep(s.label)],
            pred=[s for s in d.pred if keep(s.label)],
            unaligned_pred=[u for u in d.unaligned_pred if keep(u[0].label)],
            unaligned_gold=[u for u in d.unaligned_gold if keep(u[0].label)],
        )
        for d in docs
    ]


def evaluator(config, label_map, **extra) -> SpanEvaluator:
    mapping = None if label_map is None else label_map["mapping"]
    strict = False if label_map is None else label_map["strict"]
    return SpanEvaluator(
        max_errors=None,
        hierarchy=hierarchy_for(),
        batch_size=3,
        per_document=True,
        label_map=mapping,
        strict_labels=strict,
        **config,
        **extra,
    )


def outcome(ev: SpanEvaluator, docs):
    """The result's JSON, its per-document rows, and its settings' JSON apart; or the error."""
    try:
        result = ev.evaluate(docs)
    except (EmptyEvaluationError, UnknownLabelError) as exc:
        return type(exc).__name__
    out = result.to_dict()
    return out.pop("settings"), out, result.document_rows()


@settings(max_examples=150, deadline=None)
@given(
    docs=with_unaligned(),
    config=st.sampled_from(CONFIGS),
    label_map=st.sampled_from(LABEL_MAPS),
    chosen=st.sets(st.sampled_from(SCORED), max_size=3),
)
def test_a_keep_set_scores_as_the_documents_without_the_other_labels(
    docs, config, label_map, chosen
):
    selected = outcome(evaluator(config, label_map, labels=chosen), docs)
    by_hand = outcome(
        evaluator(config, label_map), filtered_by_hand(docs, kept_by_hand(label_map, chosen))
    )
    if isinstance(by_hand, str):
        assert selected == by_hand
        return
    settings_dict, result, rows = selected
    assert result == by_hand[1]
    assert rows == by_hand[2]
    if chosen:
        assert settings_dict.pop("labels") == sorted(chosen)
    assert settings_dict == by_hand[0]


@settings(max_examples=60, deadline=None)
@given(
    docs=with_unaligned(),
    config=st.sampled_from(CONFIGS),
    chosen=st.sets(st.sampled_from(["A", "B", "C"]), min_size=1, max_size=2),
    data=st.data(),
)
def test_parts_with_the_same_selection_merge_into_the_whole(docs, config, chosen, data):
    ev = evaluator(config, None, labels=chosen)
    cut = data.draw(st.integers(0, len(docs)))
    whole = ev.tally(docs)
    again = pickle.loads(pickle.dumps(ev))  # as a worker process receives it
    merged = ev.tally(docs[:cut]) + again.tally(docs[cut:])
    assert again.settings == ev.settings
    assert merged.n_documents == whole.n_documents == len(docs)
    try:
        expected = whole.result().to_dict()
    except EmptyEvaluationError:
        return
    assert merged.result().to_dict() == expected


def token_document() -> Document:
    return Document.create(
        id="t1",
        unit="token",
        tokens=["Ping", "Ann", "at", "10.0.0.1:80"],
        gold=[(1, 2, "PERSON")],
        pred=[(1, 2, "PERSON")],
        unaligned_gold=[(Span(27, 35, "IP_ADDRESS"), "starts inside a token")],
    )


def test_unaligned_gold_of_another_label_is_left_out():
    everything = SpanEvaluator(unit="token").evaluate([token_document()])
    assert set(everything.per_label) == {"IP_ADDRESS", "PERSON"}
    assert everything.micro.recall() == 0.5

    result = SpanEvaluator(unit="token", labels=("PERSON",)).evaluate([token_document()])
    assert list(result.per_label) == ["PERSON"]
    assert result.micro.num_annotated == 1 and result.micro.recall() == 1.0
    assert result.scores().entity_agnostic.num_annotated == 1
    assert result.scores().errors == ()
    assert "unaligned_gold" not in result.notes
    assert result.to_dict()["settings"]["labels"] == ["PERSON"]


def test_records_confusion_and_document_rows_hold_the_chosen_labels_alone():
    docs = [
        Document.create(
            id="d1",
            text="Ann met Bob in Paris.",
            gold=[(0, 3, "PER"), (8, 11, "PER"), (15, 20, "LOC")],
            pred=[(0, 3, "PER"), (8, 11, "ORG"), (15, 18, "LOC")],
        ),
        Document.create(
            id="d2",
            text="Acme hired Cy.",
            gold=[(0, 4, "ORG"), (11, 13, "PERSON")],
            pred=[(5, 10, "ORG")],
        ),
    ]
    ev = SpanEvaluator(
        labels=("PER",), label_map={"PERSON": "PER"}, per_document=True, thresholds=(0.5,)
    )
    result = ev.evaluate(docs)
    run = result.scores()
    assert list(run.per_label) == ["PER"]
    assert run.per_label["PER"].to_row() == (3, 1, 1, 2, 1, 0)
    # Bob's annotation is missed (the ORG prediction on it is gone); Cy is missed in d2.
    assert [
        (e.document, e.start, e.end, e.kind, e.label, e.predicted_label) for e in run.errors
    ] == [
        ("d1", 8, 11, "false_negative", "PER", None),
        ("d2", 11, 13, "false_negative", "PER", None),
    ]
    assert run.confusion == {("PER", "PER"): 1, ("PER", None): 2}
    assert run.entity_agnostic.to_row() == (3, 1, 1, 2, 1, 0)
    rows = result.document_rows()
    assert {r["document"] for r in rows} == {"d1", "d2"}  # every document is still there
    assert {r["label"] for r in rows if r["row"] == "label"} == {"PER"}
    d2 = next(r for r in rows if r["document"] == "d2" and r["row"] == "document")
    assert (d2["num_annotated"], d2["num_predicted"], d2["errors"]) == (1, 0, 1)
    assert result.n_documents == 2


def test_the_selection_is_a_setting():
    a = SpanEvaluator(labels=["PER", "LOC", "PER"])
    assert a.labels == a.settings.labels == ("LOC", "PER")
    assert SpanEvaluator(labels="PER").labels == ("PER",)
    assert SpanEvaluator(labels=()).settings == SpanEvaluator().settings
    assert "labels" not in SpanEvaluator().settings.to_dict()
    assert a.settings == SpanEvaluator(labels=("LOC", "PER")).settings
    docs = [Document.create(id="d", text="Ann", gold=[(0, 3, "PER")], pred=[])]
    with pytest.raises(ValueError, match="labels: LOC, PER vs PER"):
        a.tally(docs) + SpanEvaluator(labels=("PER",)).tally(docs)
    with pytest.raises(ValueError, match="labels: all vs LOC, PER"):
        SpanEvaluator().tally(docs, into=a.tally(docs))
    with pytest.raises(ValueError, match="non-empty strings"):
        SpanEvaluator(labels=("PER", ""))


def test_a_label_the_strict_map_does_not_know_is_kept_and_reported():
    docs = [Document.create(id="d", text="Ann Bob", gold=[(0, 3, "PER")], pred=[(4, 7, "PERS")])]
    with pytest.raises(UnknownLabelError, match="'PERS'"):
        SpanEvaluator(labels=("PER",), label_map={"PER": "PER"}, strict_labels=True).evaluate(docs)


def test_a_strict_hierarchy_needs_no_projection_of_labels_not_chosen():
    docs = [
        Document.create(
            id="d", text="Ann in Oslo", gold=[(0, 3, "PER"), (7, 11, "LOC")], pred=[(0, 3, "PER")]
        )
    ]
    hierarchy = Hierarchy({"binary": {"PER": "ENTITY"}})
    with pytest.raises(UnknownLabelError):
        SpanEvaluator(hierarchy=hierarchy).evaluate(docs)
    result = SpanEvaluator(hierarchy=hierarchy, labels=("PER",)).evaluate(docs)
    assert result.scores(level="binary").per_label["ENTITY"].to_row() == (1, 1, 1, 0, 1, 0)


def test_a_bad_span_of_a_label_not_chosen_is_still_an_error():
    cols = SpanColumns.from_arrays([0, 0], [0, 5], [3, 4], [0, 1])  # the second is inverted
    batch = SpanBatch(
        doc_ids=["d"],
        lengths=np.array([10]),
        gold=cols,
        pred=SpanColumns.empty(),
        labels=["PER", "LOC"],
    )
    with pytest.raises(InvalidSpanError, match="'LOC'"):
        SpanEvaluator(labels=("PER",)).tally_batch(batch)


def test_no_selection_passes_the_batch_through_unchanged():
    ev = SpanEvaluator()
    cols = SpanColumns.from_arrays([0], [0], [3], [0])
    batch = SpanBatch(doc_ids=["d"], lengths=np.array([10]), gold=cols, pred=cols, labels=["PER"])
    assert ev.projection.select(batch) is batch
    assert SpanEvaluator(labels=("PER",)).projection.select(batch) is batch
