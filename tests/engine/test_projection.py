"""Label projection's values, read exactly on one hand-built batch: which rows a keep-set
leaves (with their documents, offsets, items and renumbered label ids), which unaligned spans
on either side stay, when the batch comes back untouched, how the label map and each
hierarchy level rename gold, predicted and unaligned labels into one sorted list, and the
message naming the first span of a label that can not be mapped. Gold and predictions differ
in every document, so a swapped side changes a row the test reads.
"""

from __future__ import annotations

import numpy as np
import pytest

from spacy_span_eval import Document, Span, SpanEvaluator
from spacy_span_eval.engine.batching import documents_to_batch
from spacy_span_eval.engine.labels import Hierarchy, LabelMap
from spacy_span_eval.engine.projection import LabelProjection
from spacy_span_eval.errors import UnknownLabelError

# The batch, by hand. Labels are numbered in order of first use, gold first:
#   PER 0, LOC 1, ORG 2, MISC 3 (DATE and TIME appear in unaligned spans only).
#   gold rows (doc, start, end, label, item): d0 PER 0-2, LOC 3-5, ORG 6-8; d1 MISC 1-3
#   pred rows:                                d0 PER 0-2, MISC 3-5;       d1 ORG 4-6, LOC 7-9
#   unaligned predictions: d0 LOC 10-12, d1 DATE 12-14
#   unaligned gold:        d1 ORG 15-17, d1 TIME 2-4
U_LOC = (0, Span(10, 12, "LOC"), "r1")
U_DATE = (1, Span(12, 14, "DATE"), "r2")
UG_ORG = (1, Span(15, 17, "ORG"), "r3")
UG_TIME = (1, Span(2, 4, "TIME"), "r4")


def batch():
    d0 = Document.create(
        id="d0",
        length=20,
        gold=[Span(0, 2, "PER"), Span(3, 5, "LOC"), Span(6, 8, "ORG")],
        pred=[Span(0, 2, "PER"), Span(3, 5, "MISC")],
        unaligned_pred=[(U_LOC[1], U_LOC[2])],
    )
    d1 = Document.create(
        id="d1",
        length=20,
        gold=[Span(1, 3, "MISC")],
        pred=[Span(4, 6, "ORG"), Span(7, 9, "LOC")],
        unaligned_pred=[(U_DATE[1], U_DATE[2])],
        unaligned_gold=[(UG_ORG[1], UG_ORG[2]), (UG_TIME[1], UG_TIME[2])],
    )
    out = documents_to_batch([d0, d1])
    assert list(out.labels) == ["PER", "LOC", "ORG", "MISC"]  # the numbering above
    return out


def rows(cols):
    """(doc, start, end, label id, item) per row."""
    return list(
        zip(
            cols.doc.tolist(),
            cols.start.tolist(),
            cols.end.tolist(),
            cols.label.tolist(),
            cols.item.tolist(),
            strict=True,
        )
    )


# -- select: the keep-set ---------------------------------------------------------------------

SELECTIONS = {
    # keep LOC, MISC: ids LOC 0, MISC 1; both unaligned gold spans and DATE go
    "loc-misc": (
        {"LOC", "MISC"},
        ["LOC", "MISC"],
        [(0, 3, 5, 0, 1), (1, 1, 3, 1, 0)],
        [(0, 3, 5, 1, 1), (1, 7, 9, 0, 1)],
        [U_LOC],
        [],
    ),
    # ORG goes from the rows (ids PER 0, LOC 1, MISC 2); every unaligned prediction stays
    "no-org": (
        {"PER", "LOC", "MISC", "DATE"},
        ["PER", "LOC", "MISC"],
        [(0, 0, 2, 0, 0), (0, 3, 5, 1, 1), (1, 1, 3, 2, 0)],
        [(0, 0, 2, 0, 0), (0, 3, 5, 2, 1), (1, 7, 9, 1, 1)],
        [U_LOC, U_DATE],
        [],
    ),
    # MISC goes (ids PER 0, LOC 1, ORG 2); every unaligned gold span stays, DATE goes
    "no-misc": (
        {"PER", "ORG", "TIME", "LOC"},
        ["PER", "LOC", "ORG"],
        [(0, 0, 2, 0, 0), (0, 3, 5, 1, 1), (0, 6, 8, 2, 2)],
        [(0, 0, 2, 0, 0), (1, 4, 6, 2, 0), (1, 7, 9, 1, 1)],
        [U_LOC],
        [UG_ORG, UG_TIME],
    ),
    # every row stays; only the unaligned DATE and TIME go
    "rows-all-kept": (
        {"PER", "LOC", "ORG", "MISC"},
        ["PER", "LOC", "ORG", "MISC"],
        [(0, 0, 2, 0, 0), (0, 3, 5, 1, 1), (0, 6, 8, 2, 2), (1, 1, 3, 3, 0)],
        [(0, 0, 2, 0, 0), (0, 3, 5, 3, 1), (1, 4, 6, 2, 0), (1, 7, 9, 1, 1)],
        [U_LOC],
        [UG_ORG],
    ),
}


@pytest.mark.parametrize("name", list(SELECTIONS))
def test_select_keeps_the_chosen_labels_rows_renumbered(name):
    chosen, labels, gold, pred, unaligned, unaligned_gold = SELECTIONS[name]
    b = batch()
    kept = LabelProjection(None, None, chosen).select(b)
    assert kept is not b
    assert list(kept.labels) == labels
    assert rows(kept.gold) == gold
    assert rows(kept.pred) == pred
    assert list(kept.unaligned) == unaligned
    assert list(kept.unaligned_gold) == unaligned_gold
    assert list(kept.doc_ids) == ["d0", "d1"]  # documents stay


def test_select_drops_rows_even_when_no_unaligned_span_changes():
    d = Document.create(
        id="x", length=10, gold=[Span(0, 2, "A"), Span(3, 4, "B")], pred=[Span(3, 4, "B")]
    )
    b = documents_to_batch([d])
    kept = LabelProjection(None, None, {"B"}).select(b)
    assert list(kept.labels) == ["B"]
    assert rows(kept.gold) == [(0, 3, 4, 0, 1)]
    assert rows(kept.pred) == [(0, 3, 4, 0, 0)]
    assert list(kept.unaligned) == [] and list(kept.unaligned_gold) == []


def test_select_with_no_predictions_at_all_keeps_the_empty_side():
    d = Document.create(id="x", length=10, gold=[Span(0, 2, "A"), Span(3, 4, "B")], pred=[])
    kept = LabelProjection(None, None, {"A"}).select(documents_to_batch([d]))
    assert rows(kept.gold) == [(0, 0, 2, 0, 0)] and rows(kept.pred) == []


@pytest.mark.parametrize("chosen", [(), {"PER", "LOC", "ORG", "MISC", "DATE", "TIME", "X"}])
def test_select_returns_the_batch_itself_when_every_span_is_kept(chosen):
    b = batch()
    assert LabelProjection(None, None, chosen).select(b) is b


def test_select_reads_the_keep_set_after_the_label_map():
    # PER and MISC map to NAME: choosing NAME keeps both (ids PER 0, MISC 1), nothing else
    b = batch()
    kept = LabelProjection(LabelMap({"PER": "NAME", "MISC": "NAME"}), None, {"NAME"}).select(b)
    assert list(kept.labels) == ["PER", "MISC"]
    assert rows(kept.gold) == [(0, 0, 2, 0, 0), (1, 1, 3, 1, 0)]
    assert rows(kept.pred) == [(0, 0, 2, 0, 0), (0, 3, 5, 1, 1)]
    assert list(kept.unaligned) == [] and list(kept.unaligned_gold) == []


def test_keeps_reads_raw_labels_through_the_map():
    loose = LabelProjection(LabelMap({"PERSON": "PER", "GPE": "LOC"}), None, {"PER"})
    assert [loose.keeps(x) for x in ("PERSON", "PER", "GPE", "LOC", "DATE")] == [
        True,
        True,
        False,
        False,
        False,
    ]
    strict = LabelProjection(LabelMap({"PERSON": "PER", "GPE": "LOC"}, strict=True), None, {"PER"})
    # DATE is unknown to the strict map: kept, so that scoring reports it
    assert [strict.keeps(x) for x in ("PERSON", "PER", "GPE", "LOC", "DATE")] == [
        True,
        True,
        False,
        False,
        True,
    ]
    plain = LabelProjection(None, None, ["PER"])
    assert [plain.keeps(x) for x in ("PER", "PERSON")] == [True, False]
    assert LabelProjection(None, None).keeps("ANYTHING") is True
    assert plain.labels == frozenset({"PER"})


# -- mapped and view: the labels each level sees -----------------------------------------------


def test_mapped_names_the_batch_labels_after_the_map():
    assert LabelProjection(None, None).mapped(batch()) == ["PER", "LOC", "ORG", "MISC"]
    proj = LabelProjection(LabelMap({"MISC": "OTHER", "PER": "NAME"}), None)
    assert proj.mapped(batch()) == ["NAME", "LOC", "ORG", "OTHER"]


HIERARCHY = Hierarchy(
    {
        "coarse": {
            "PER": "ENT",
            "LOC": "ENT",
            "ORG": "ENT",
            "OTHER": "MISC",
            "DATE": "NUM",
            "HOUR": "NUM",
        }
    }
)


def projection():
    # MISC -> OTHER (a row label), TIME -> HOUR (an unaligned gold label); DATE passes as is
    return LabelProjection(LabelMap({"MISC": "OTHER", "TIME": "HOUR"}), HIERARCHY)


def test_base_level_sorts_row_and_unaligned_labels_into_one_list():
    b = batch()
    proj = projection()
    view = proj.view("labels", proj.mapped(b), b)
    # names: rows PER, LOC, ORG, OTHER; unaligned LOC, DATE; unaligned gold ORG, HOUR
    # sorted: DATE 0, HOUR 1, LOC 2, ORG 3, OTHER 4, PER 5
    assert view.level == "labels"
    assert view.labels == ["DATE", "HOUR", "LOC", "ORG", "OTHER", "PER"]
    assert view.gold.label.tolist() == [5, 2, 3, 4]  # PER, LOC, ORG, MISC->OTHER
    assert view.pred.label.tolist() == [5, 4, 3, 2]  # PER, MISC->OTHER, ORG, LOC
    assert view.unaligned.tolist() == [2, 0]  # LOC, DATE
    assert view.unaligned_gold.tolist() == [3, 1]  # ORG, TIME->HOUR
    # only the labels change: the rows stay where they were
    assert rows(view.gold)[3] == (1, 1, 3, 4, 0) and rows(view.pred)[1] == (0, 3, 5, 4, 1)


def test_a_hierarchy_level_projects_the_mapped_labels_of_every_span():
    b = batch()
    proj = projection()
    view = proj.view("coarse", proj.mapped(b), b)
    # ENT 0, MISC 1, NUM 2
    assert view.level == "coarse"
    assert view.labels == ["ENT", "MISC", "NUM"]
    assert view.gold.label.tolist() == [0, 0, 0, 1]
    assert view.pred.label.tolist() == [0, 1, 0, 0]
    assert view.unaligned.tolist() == [0, 2]  # LOC -> ENT, DATE -> NUM
    assert view.unaligned_gold.tolist() == [0, 2]  # ORG -> ENT, TIME -> HOUR -> NUM


def test_unaligned_only_labels_join_the_list_from_either_side():
    # no label map: DATE only in unaligned predictions, TIME only in unaligned gold
    b = batch()
    view = LabelProjection(None, None).view("labels", list(b.labels), b)
    # DATE 0, LOC 1, MISC 2, ORG 3, PER 4, TIME 5
    assert view.labels == ["DATE", "LOC", "MISC", "ORG", "PER", "TIME"]
    assert view.gold.label.tolist() == [4, 1, 3, 2]
    assert view.unaligned.tolist() == [1, 0]
    assert view.unaligned_gold.tolist() == [3, 5]


def test_label_ids_are_integers_even_with_no_unaligned_spans():
    d = Document.create(id="x", length=10, gold=[Span(0, 2, "A")], pred=[Span(3, 4, "B")])
    b = documents_to_batch([d])
    view = LabelProjection(None, None).view("labels", list(b.labels), b)
    assert view.labels == ["A", "B"]
    assert view.unaligned.dtype == np.int64 and view.unaligned.shape == (0,)
    assert view.unaligned_gold.dtype == np.int64 and view.unaligned_gold.shape == (0,)
    assert view.gold.label.tolist() == [0] and view.pred.label.tolist() == [1]


# -- labels that can not be mapped: the first span that uses them -------------------------------


def bad_batch(gold_first: bool):
    """BAD is used by several spans: its first use is the one a message names."""
    if gold_first:  # in d0's predictions and in d1's gold (item 1): gold is named first
        docs = [
            Document.create(id="e0", length=9, gold=[Span(0, 1, "A")], pred=[Span(2, 3, "BAD")]),
            Document.create(id="e1", length=9, gold=[Span(0, 1, "A"), Span(2, 3, "BAD")], pred=[]),
        ]
    else:  # predictions only: e1's spans #1 and #2, then e2's #0
        docs = [
            Document.create(id="e0", length=9, gold=[Span(0, 1, "A")], pred=[Span(0, 1, "A")]),
            Document.create(
                id="e1",
                length=9,
                gold=[],
                pred=[Span(0, 1, "A"), Span(2, 3, "BAD"), Span(4, 5, "BAD")],
            ),
            Document.create(id="e2", length=9, gold=[], pred=[Span(0, 1, "BAD")]),
        ]
    return documents_to_batch(docs)


@pytest.mark.parametrize(
    "gold_first,where",
    [(True, "document 'e1', gold span #1"), (False, "document 'e1', predicted span #1")],
)
def test_a_label_the_strict_map_does_not_know_names_its_first_span(gold_first, where):
    proj = LabelProjection(LabelMap({"A": "A"}, strict=True), None)
    with pytest.raises(UnknownLabelError) as info:
        proj.mapped(bad_batch(gold_first))
    assert str(info.value) == (f"{where}: label 'BAD' is not in the strict label map (known: A)")


def test_a_label_without_a_projection_names_its_first_span_and_the_level():
    proj = LabelProjection(None, Hierarchy({"coarse": {"A": "X"}}))
    b = bad_batch(False)
    proj.view("labels", proj.mapped(b), b)  # the base level needs no projection
    with pytest.raises(UnknownLabelError) as info:
        proj.view("coarse", proj.mapped(b), b)
    assert str(info.value) == (
        "document 'e1', predicted span #1: label 'BAD' has no projection at hierarchy "
        "level 'coarse'"
    )


@pytest.mark.parametrize("side,what", [("pred", "prediction"), ("gold", "gold span")])
def test_an_unaligned_label_that_can_not_be_mapped_names_its_span(side, what):
    unaligned = {f"unaligned_{side}": [(Span(2, 4, "BAD"), "r")]}
    docs = [
        Document.create(id="e0", length=9, gold=[Span(0, 1, "A")], pred=[Span(0, 1, "A")]),
        Document.create(id="e1", length=9, gold=[], pred=[Span(5, 6, "A")], **unaligned),
    ]
    b = documents_to_batch(docs)
    strict = LabelProjection(LabelMap({"A": "A"}, strict=True), None)
    with pytest.raises(UnknownLabelError) as info:
        strict.view("labels", strict.mapped(b), b)
    assert str(info.value) == (
        f"document 'e1', unaligned {what} Span(start=2, end=4, label='BAD'): "
        "label 'BAD' is not in the strict label map (known: A)"
    )
    levels = LabelProjection(None, Hierarchy({"coarse": {"A": "X"}}))
    with pytest.raises(UnknownLabelError) as info:
        levels.view("coarse", levels.mapped(b), b)
    assert str(info.value) == (
        f"document 'e1', unaligned {what} Span(start=2, end=4, label='BAD'): "
        "label 'BAD' has no projection at hierarchy level 'coarse'"
    )


# -- the road a user takes --------------------------------------------------------------------


def test_evaluator_scores_the_keep_set_after_the_map_at_every_level():
    # Keep NAME (PER and MISC mapped): gold d0 PER, d1 MISC; pred d0 PER, d0 MISC.
    # labels: NAME gold 2 pred 2; d0 PER 0-2 matches, d0 MISC 3-5 vs gold LOC (not kept): FP,
    # d1 MISC 1-3 gold: FN -> tp 1, fp 1, fn 1. coarse: every NAME -> ENT, the same counts.
    docs = [
        Document.create(
            id=f"d{i}",
            length=20,
            gold=list(b_gold),
            pred=list(b_pred),
        )
        for i, (b_gold, b_pred) in enumerate(
            [
                ([Span(0, 2, "PER"), Span(3, 5, "LOC")], [Span(0, 2, "PER"), Span(3, 5, "MISC")]),
                ([Span(1, 3, "MISC")], [Span(4, 6, "ORG")]),
            ]
        )
    ]
    ev = SpanEvaluator(
        label_map={"PER": "NAME", "MISC": "NAME"},
        hierarchy=Hierarchy({"coarse": {"NAME": "ENT", "LOC": "ENT", "ORG": "ENT"}}),
        labels=["NAME"],
        strategy="exact",
    )
    result = ev.evaluate(docs)
    for level in ("labels", "coarse"):
        run = result.scores(level=level)
        name = "NAME" if level == "labels" else "ENT"
        assert list(run.per_label) == [name]
        ledger = run.per_label[name]
        assert (ledger.num_annotated, ledger.num_predicted, ledger.tp, ledger.fp, ledger.fn) == (
            2,
            2,
            1,
            1,
            1,
        )
