"""Tallies as values: what a tally holds after scoring, what adding two of them gives (every
level, threshold, confusion cell, boundary count, error string, record, side-table count,
note and per-document row), and the messages of an empty evaluation, word for word.

Adding tallies (``a + b``) goes through ``ViewTally.merge``; scoring the documents in one
tally does not, so the sum of the parts is checked against the whole, and the counts against
hand values.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from spacy_span_eval import Document, Hierarchy, Ledger, Span, SpanEvaluator
from spacy_span_eval.engine.error_records import document_order
from spacy_span_eval.engine.ledger import N_FIELDS
from spacy_span_eval.engine.tally import Tally, ViewTally
from spacy_span_eval.errors import EmptyEvaluationError

# "a": Ann found; Rome predicted as ORG (same boundaries); Tom predicted, not in gold.
TEXT_A = "Ann saw Rome and Tom"
# "b": Paris predicted as "Par" (a boundary error); Eve missed.
TEXT_B = "Paris is where Eve is"
DOC_A = Document.create(
    id="a",
    text=TEXT_A,
    gold=[(0, 3, "PER"), (8, 12, "LOC")],
    pred=[(0, 3, "PER"), (8, 12, "ORG"), (17, 20, "PER")],
)
DOC_B = Document.create(
    id="b", text=TEXT_B, gold=[(0, 5, "LOC"), (15, 18, "PER")], pred=[(0, 3, "LOC")]
)
COARSE = Hierarchy({"coarse": {"PER": "NAME", "LOC": "PLACE", "ORG": "PLACE"}})


def evaluator(**settings) -> SpanEvaluator:
    return SpanEvaluator(hierarchy=COARSE, per_document=True, max_errors=None, **settings)


def same_result(got, want) -> None:
    """Two results alike in everything they report."""
    assert got.to_dict() == want.to_dict()
    for level in want.levels:
        for g, w in zip(got.levels[level], want.levels[level], strict=True):
            assert g.strings == w.strings and g.boundary == w.boundary
            assert g.confusion == w.confusion and g.errors == w.errors
    assert got.documents.rows("LOC", 0).tolist() == want.documents.rows("LOC", 0).tolist()


# -- what one tally holds ---------------------------------------------------------------------
def test_a_semeval_tally_holds_the_strict_ledgers_and_the_schemas_by_hand():
    tally = evaluator(strategy="semeval").tally([DOC_A, DOC_B])
    assert tally.n_documents == 2 and list(tally.views) == ["labels", "coarse"]
    result = tally.result()
    labels = result.scores(level="labels")
    assert labels.per_label == {
        "LOC": Ledger(2, 1, tp=0, fn=2, credited=0, fp=1),  # Rome as ORG, Par for Paris
        "ORG": Ledger(0, 1, tp=0, fn=0, credited=0, fp=1),
        "PER": Ledger(2, 2, tp=1, fn=1, credited=1, fp=1),  # Ann found, Eve missed, Tom
    }
    coarse = result.scores(level="coarse")
    assert coarse.per_label == {
        "NAME": Ledger(2, 2, tp=1, fn=1, credited=1, fp=1),
        "PLACE": Ledger(2, 2, tp=1, fn=1, credited=1, fp=1),  # Rome (ORG -> PLACE) found
    }
    # Any entity: Ann and Rome have the same boundaries; Tom, Par, Paris and Eve do not match.
    assert labels.entity_agnostic == Ledger(4, 4, tp=2, fn=2, credited=2, fp=2)
    # Per label, each schema among the label's own spans: PER: Ann correct, Eve missed, Tom
    # spurious. LOC: Par overlaps Paris (incorrect / partial / incorrect / correct), Rome
    # missed. ORG: the Rome prediction spurious.
    side = labels.side
    assert side.row("strict", "PER") | {} == {
        "correct": 1,
        "incorrect": 0,
        "partial": 0,
        "missed": 1,
        "spurious": 1,
        "possible": 2,
        "actual": 2,
        "precision": 0.5,
        "recall": 0.5,
        "f": 0.5,
    }
    counts = ("correct", "incorrect", "partial", "missed", "spurious")
    assert {row: tuple(side.row(row, "LOC")[c] for c in counts) for row in side.table.rows} == {
        "strict": (0, 1, 0, 1, 0),
        "exact": (0, 1, 0, 1, 0),
        "partial": (0, 0, 1, 1, 0),
        "ent_type": (1, 0, 0, 1, 0),
    }
    assert tuple(side.row("strict", "ORG")[c] for c in counts) == (0, 0, 0, 0, 1)
    # Overall, across labels: Rome-as-ORG is one pair (exact and partial correct, strict and
    # ent_type incorrect).
    assert {row: tuple(side.row(row)[c] for c in counts) for row in side.table.rows} == {
        "strict": (1, 2, 0, 1, 1),
        "exact": (2, 1, 0, 1, 1),
        "partial": (2, 0, 1, 1, 1),
        "ent_type": (2, 1, 0, 1, 1),
    }
    assert result.scores(level="coarse").side.row("strict", "PLACE")["correct"] == 1


def test_tally_empty_starts_every_count_at_zero():
    settings = evaluator(strategy="two_sided", thresholds=(0.5, 0.9)).settings
    tally = Tally.empty(settings)
    assert tally.agnostic.shape == (2, N_FIELDS) and tally.agnostic.dtype == np.int64
    assert not tally.agnostic.any()
    assert list(tally.views) == ["labels", "coarse"]
    assert all(v.n_thresholds == 2 and v.counts == {} for v in tally.views.values())
    assert tally.n_documents == 0 and tally.notes == Counter() and tally.left_out == Counter()
    assert tally.documents is not None and tally.documents.n_documents == 0
    assert Tally.empty(SpanEvaluator().settings).documents is None
    # it is where the parallel roads start their sums: per-document rows merge into it
    ev = evaluator(strategy="two_sided", thresholds=(0.5, 0.9))
    whole = ev.tally([DOC_A, DOC_B])
    started = Tally.empty(ev.settings) + whole
    assert started.documents.n_thresholds == whole.documents.n_thresholds == 2
    assert started.result().document_rows() == whole.result().document_rows()


def test_a_new_view_has_an_empty_list_per_threshold():
    view = ViewTally(3)
    assert view.confusion == [Counter()] * 3 and view.errors == [[]] * 3
    assert view.boundary == [Counter()] * 3 and view.strings == [Counter()] * 3
    assert view.confusion[0] is not view.confusion[1] and view.errors[0] is not view.errors[2]
    assert view.side == {} and view.side_overall is None


def test_add_rows_copies_then_adds():
    view = ViewTally(1)
    rows = np.array([[[1, 2, 1, 0, 1, 1]]])
    view.add_rows(["X"], rows)
    rows[0, 0, 0] = 99  # the tally kept its own copy
    view.add_rows(["X"], np.array([[[2, 0, 1, 1, 0, 0]]]))
    assert view.counts["X"].tolist() == [[3, 2, 2, 1, 1, 1]]


# -- adding tallies -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "settings",
    [
        {"strategy": "semeval"},
        {"strategy": "two_sided", "thresholds": (0.5, 0.9)},
        {"strategy": "overlap", "min_gold": 0.6},
    ],
    ids=["semeval", "two_sided", "overlap"],
)
def test_the_sum_of_the_parts_is_the_whole(settings):
    ev = evaluator(**settings)
    whole = ev.tally([DOC_A, DOC_B])
    parts = ev.tally([DOC_A]) + ev.tally([DOC_B])
    assert parts.n_documents == 2 and parts.notes == whole.notes
    assert parts.agnostic.tolist() == whole.agnostic.tolist()
    same_result(parts.result(), whole.result())
    assert sum([ev.tally([DOC_A]), ev.tally([DOC_B])]).result().to_dict() == (
        whole.result().to_dict()
    )


def test_added_side_tables_hold_both_parts_overall_and_per_label():
    ev = evaluator(strategy="semeval")
    a, b = ev.tally([DOC_A]), ev.tally([DOC_B])
    total = a + b
    view = total.views["labels"]
    # PER strict: a has Ann correct and Tom spurious; b has Eve missed.
    strict_per = view.side["PER"][0, 0].tolist()
    assert strict_per == [1, 0, 0, 1, 1]
    # LOC only in b (a's Rome was predicted as ORG: missed per label).
    assert view.side["LOC"][0].tolist() == [
        [0, 1, 0, 1, 0],
        [0, 1, 0, 1, 0],
        [0, 0, 1, 1, 0],
        [1, 0, 0, 1, 0],
    ]
    assert view.side_overall[0, 0].tolist() == [1, 2, 0, 1, 1]
    # The parts are left as they were.
    assert a.views["labels"].side["PER"][0, 0].tolist() == [1, 0, 0, 0, 1]
    assert b.views["labels"].side_overall[0, 0].tolist() == [0, 1, 0, 1, 0]


def test_added_details_hold_both_parts():
    ev = evaluator(strategy="exact")
    total = ev.tally([DOC_A]) + ev.tally([DOC_B])
    view = total.views["labels"]
    (confusion,) = view.confusion
    assert confusion == Counter(
        {
            ("PER", "PER"): 1,
            ("LOC", "ORG"): 1,
            (None, "PER"): 1,
            ("LOC", None): 1,
            ("PER", None): 1,
            (None, "LOC"): 1,
        }
    )
    (boundary,) = view.boundary
    assert boundary == Counter({("LOC", None): 1, (None, "LOC"): 1})  # Par for Paris
    (strings,) = view.strings  # a relabelled span counts once, under its gold label
    assert sorted(strings.elements()) == sorted(
        [
            ("LOC", "relabelled", "Rome", "ORG"),  # (Paris found as Par: boundary, in none)
            ("PER", "missed", "Eve", ""),
            ("PER", "spurious", "Tom", ""),
        ]
    )
    (errors,) = view.errors  # (the result lists them in document order)
    # one record per fn and fp: LOC fn 2, PER fn 1; ORG, LOC and PER fp 1 each
    assert [(e.document, e.kind, e.text) for e in sorted(errors, key=document_order)] == [
        ("a", "wrong_label", "Rome"),
        ("a", "wrong_label", "Rome"),  # the ORG prediction's record
        ("a", "false_positive", "Tom"),
        ("b", "boundary", "Par"),
        ("b", "boundary", "Paris"),
        ("b", "false_negative", "Eve"),
    ]
    assert total.documents.n_documents == 2


def test_added_error_records_keep_a_sample_of_max_errors():
    ev = SpanEvaluator(strategy="exact", max_errors=2)
    total = ev.tally([DOC_A]) + ev.tally([DOC_B])
    (errors,) = total.views["labels"].errors
    assert len(errors) == 2
    whole = ev.tally([DOC_A, DOC_B]).result().scores()
    assert total.result().scores().errors == whole.errors


def test_added_tallies_add_their_notes_documents_and_left_out_spans():
    ev = SpanEvaluator(strategy="token", labels=["PER"], per_document=True)
    a, b = ev.tally([DOC_A]), ev.tally([DOC_B])
    total = a + b
    # token notes: positions of Ann/Tom (a) and Eve (b) are not shared; nothing collapsed.
    assert total.left_out == Counter({"LOC": 3, "ORG": 1})  # Rome, Paris, Par; Rome as ORG
    assert total.left_out == a.left_out + b.left_out and a.left_out == Counter({"LOC": 1, "ORG": 1})
    assert total.notes == a.notes + b.notes
    assert total.n_documents == 2
    assert [doc for doc, _ in total.documents.by_document()] == ["a", "b"]
    # Per-document rows only when both parts kept them.
    plain = SpanEvaluator(strategy="token", labels=["PER"])
    assert plain.tally([DOC_A]).documents is None
    assert (plain.tally([DOC_A]) + plain.tally([DOC_B])).documents is None


def test_sum_starts_from_zero_and_nothing_else():
    ev = SpanEvaluator(strategy="exact")
    a = ev.tally([DOC_A])
    assert 0 + a is a and sum([a]) is a
    with pytest.raises(TypeError, match="unsupported operand"):
        1 + a  # noqa: B018
    with pytest.raises(TypeError, match="unsupported operand"):
        a + Ledger()  # noqa: B018


# -- an empty evaluation --------------------------------------------------------------------------
def test_an_evaluation_without_any_span_names_its_documents():
    docs = [Document.create(id=i, length=5, gold=[], pred=[]) for i in range(3)]
    with pytest.raises(EmptyEvaluationError) as info:
        SpanEvaluator().tally(docs).result()
    assert str(info.value) == (
        "nothing to evaluate: 3 documents with no gold and no predicted spans at all "
        "(an empty evaluation must not pass as perfect)"
    )


def test_labels_found_in_neither_side_name_the_labels_that_were_found():
    many = [(2 * i, 2 * i + 1, "ORG") for i in range(1200)]
    docs = [
        Document.create(id="a", length=2400, gold=many, pred=[(0, 1, "ORG")]),
        Document.create(id="b", length=10, gold=[(0, 2, "LOC")], pred=[]),
    ]
    with pytest.raises(EmptyEvaluationError) as info:
        SpanEvaluator(strategy="exact", labels=["PER", "DATE"]).tally(docs).result()
    assert str(info.value) == (
        "--labels DATE,PER: found in neither gold nor predictions (2 documents); "
        "the labels found (spans): LOC (1), ORG (1,201)"
    )


def test_labels_found_only_in_predictions_still_score():
    docs = [Document.create(id="a", length=10, gold=[(0, 2, "LOC")], pred=[(3, 5, "PER")])]
    result = SpanEvaluator(strategy="exact", labels=["PER"]).tally(docs).result()
    assert result.micro == Ledger(0, 1, tp=0, fn=0, credited=0, fp=1)


def test_side_tables_add_up_batch_by_batch():
    # One document a batch: each label's schema counts are added to what the first batch left.
    one_by_one = evaluator(strategy="semeval", batch_size=1).tally([DOC_A, DOC_B])
    view = one_by_one.views["labels"]
    assert view.side["PER"][0, 0].tolist() == [1, 0, 0, 1, 1]  # strict: Ann; Eve; Tom
    assert view.side["LOC"][0, :, 3].tolist() == [1, 1, 1, 1]  # Rome missed in every schema
    assert view.side_overall[0, 0].tolist() == [1, 2, 0, 1, 1]
    same_result(one_by_one.result(), evaluator(strategy="semeval").tally([DOC_A, DOC_B]).result())


def test_side_tables_hold_only_the_labels_with_counts():
    result = SpanEvaluator(strategy="semeval", labels=["PER"]).evaluate([DOC_A, DOC_B])
    side = result.scores().side
    assert list(side.per_label) == ["PER"]
    assert list(side.to_dict()["per_label"]) == ["PER"]


# -- what a result offers beside its JSON ---------------------------------------------------------
def test_tidy_rows_and_frame_of_a_result():
    result = SpanEvaluator(strategy="exact", beta=2.0).evaluate([DOC_A, DOC_B])
    rows = result.rows()
    # labels: LOC, ORG, PER, then micro, the averages and any entity; no hierarchy here.
    assert [(r["level"], r["row"], r["label"]) for r in rows] == [
        ("labels", "label", "LOC"),
        ("labels", "label", "ORG"),
        ("labels", "label", "PER"),
        ("labels", "micro", None),
        ("labels", "macro", None),
        ("labels", "weighted", None),
        ("labels", "entity_agnostic", None),
    ]
    per = rows[2]  # PER: 2 gold, 2 predicted, Ann found: P = R = 1/2, F2 = 1/2
    assert (per["tp"], per["fp"], per["precision"], per["recall"]) == (1, 1, 0.5, 0.5)
    assert per["f"] == pytest.approx(0.5) and per["threshold"] is None
    pd = pytest.importorskip("pandas")
    table = result.to_frame()
    assert isinstance(table, pd.DataFrame) and table.shape == (7, 13)
    assert table["label"].tolist()[:3] == ["LOC", "ORG", "PER"]
    assert table["num_annotated"].tolist() == [2, 0, 2, 4, pd.NA, pd.NA, 4]
    # micro: 4 gold, 4 predicted (Rome as ORG, Par, Tom; Ann): 1 credited.
    assert table.iloc[3][["num_predicted", "credited", "fp"]].tolist() == [4, 1, 3]


def test_tidy_rows_of_a_result_per_document():
    result = SpanEvaluator(strategy="exact", per_document=True).evaluate([DOC_A, DOC_B])
    pytest.importorskip("pandas")
    table = result.to_frame(per_document=True)
    documents = table[table["row"] == "document"]
    assert documents["document"].tolist() == ["a", "b"]
    assert documents["errors"].tolist() == [3, 3]  # a: Rome (fn + fp), Tom; b: Paris, Par, Eve
    assert documents["tp"].tolist() == [1, 0]


def test_the_notebook_view_is_an_html_table_of_the_labels():
    html = SpanEvaluator(strategy="exact").evaluate([DOC_A, DOC_B])._repr_html_()
    assert html.startswith('<div class="spacy-span-eval-result">')
    assert "<b>exact</b>" in html and ">PER<" in html and ">ORG<" in html


# -- ledger rows, the tally's unit ----------------------------------------------------------------
def test_ledger_rows_are_read_and_written_in_field_order():
    from spacy_span_eval.engine.ledger import FIELD_NAMES, LedgerField, has_spans

    assert FIELD_NAMES == ("num_annotated", "num_predicted", "tp", "fn", "credited", "fp")
    assert LedgerField.CREDITED.key == "credited" and N_FIELDS == 6
    ledger = Ledger.from_row(np.array([4, 5, 3, 1, 2, 3]))
    assert ledger == Ledger(num_annotated=4, num_predicted=5, tp=3, fn=1, credited=2, fp=3)
    assert type(ledger.tp) is int and ledger.to_row() == (4, 5, 3, 1, 2, 3)
    rows = np.array(
        [[0, 0, 0, 0, 0, 0], [1, 0, 0, 1, 0, 0], [0, 2, 0, 0, 0, 2], [3, 1, 1, 2, 1, 0]]
    )
    assert has_spans(rows).tolist() == [False, True, True, True]


def test_ratio_arrays_by_hand():
    from spacy_span_eval.engine.ledger import ratio_array

    num, den = np.array([1, 2, 0, 3]), np.array([4, 0, 0, 3])
    got = ratio_array(num, den)
    assert got[[0, 3]].tolist() == [0.25, 1.0] and np.isnan(got[[1, 2]]).all()
    assert ratio_array(num, den, 0.0).tolist() == [0.25, 0.0, 0.0, 1.0]
    assert ratio_array(num, den, 1).tolist() == [0.25, 1.0, 1.0, 1.0]
    assert ratio_array(np.array([[1], [2]]), np.array([2, 4])).tolist() == [[0.5, 0.25], [1, 0.5]]


def test_f_beta_arrays_by_hand():
    from spacy_span_eval.engine.ledger import f_beta_array, ledger_figures

    nan = np.nan
    p = np.array([0.5, nan, 0.0, nan, 0.4, nan, 0.0])
    r = np.array([1.0, 0.0, nan, 0.5, nan, nan, 0.0])
    # F1(1/2, 1) = 2/3; an undefined ratio beside a 0 gives 0; beside 0.5 or 0.4: undefined,
    # or zero_division; both 0: 0.
    got = f_beta_array(p, r)
    assert got[[0, 1, 2, 6]].tolist() == pytest.approx([2 / 3, 0, 0, 0])
    assert np.isnan(got[[3, 4, 5]]).all()
    filled = f_beta_array(p, r, zero_division=0.25)
    assert filled.tolist() == pytest.approx([2 / 3, 0, 0, 0.25, 0.25, 0.25, 0])
    # F2(1/2, 1) = 5 * 1/2 / (4 * 1/2 + 1) = 5/6; F0.5(1/2, 1) = 1.25 * 1/2 / (1/8 + 1) = 5/9
    assert f_beta_array(0.5, 1.0, beta=2.0) == pytest.approx(5 / 6)
    assert f_beta_array(0.5, 1.0, beta=0.5) == pytest.approx(5 / 9)
    rows = np.array([[4, 5, 3, 1, 2, 3], [2, 0, 0, 2, 0, 0]])
    figures = ledger_figures(rows, beta=2.0)
    assert figures["precision"][0] == 0.4 and np.isnan(figures["precision"][1])
    assert figures["recall"].tolist() == [0.75, 0.0]
    # F2 of P 2/5, R 3/4: 5 * 0.3 / (1.6 + 0.75) = 1.5 / 2.35; recall 0 beside undefined: 0
    assert figures["f"].tolist() == pytest.approx([1.5 / 2.35, 0.0])
    filled = ledger_figures(rows, zero_division=1.0)
    assert filled["precision"].tolist() == [0.4, 1.0]
    assert filled["f"].tolist() == pytest.approx([2 * 0.3 / 1.15, 0.0])


def test_a_ledger_that_adds_up_passes_its_check():
    for ledger in (Ledger(4, 5, tp=3, fn=1, credited=2, fp=3), Ledger(2, 0, tp=0, fn=2), Ledger()):
        ledger.check()  # raises nothing


def test_ratio_arrays_of_a_single_span_and_undefined_recall_filled():
    from spacy_span_eval.engine.ledger import ledger_figures, ratio_array

    assert ratio_array(np.array([1, 0]), np.array([1, 1])).tolist() == [1.0, 0.0]
    # no gold: recall is zero_division too
    figures = ledger_figures(np.array([[0, 2, 0, 0, 1, 1]]), zero_division=0.5)
    assert (figures["precision"].tolist(), figures["recall"].tolist()) == ([0.5], [0.5])
    assert figures["f"].tolist() == [0.5]


def test_ledgers_sum_from_zero_and_nothing_else():
    one = Ledger(1, 2, tp=1, fn=0, credited=1, fp=1)
    assert sum([one, one]) == Ledger(2, 4, tp=2, fn=0, credited=2, fp=2)
    assert 0 + one is one
    with pytest.raises(TypeError, match="unsupported operand"):
        1 + one  # noqa: B018


def test_document_rows_need_per_document_counts_and_read_the_settings():
    with pytest.raises(ValueError) as info:
        SpanEvaluator(strategy="exact").evaluate([DOC_A]).document_rows()
    assert str(info.value) == (
        "no per-document counts: score with SpanEvaluator(per_document=True), "
        "evaluate_files(per_document=True) or evaluate --per-document"
    )
    result = SpanEvaluator(strategy="exact", per_document=True, zero_division=1.0).evaluate(
        [DOC_A, Document.create(id="c", length=9, gold=[(0, 2, "LOC")], pred=[])]
    )
    rows = result.document_rows(per_label=False)
    assert [(r["document"], r["row"]) for r in rows] == [("a", "document"), ("c", "document")]
    assert rows[1]["precision"] == 1.0 and rows[1]["recall"] == 0.0  # no predictions in c
    assert len(result.document_rows()) > 2  # with per-label rows
    per_label = [r for r in result.document_rows() if r["row"] == "label"]
    assert [(r["document"], r["label"]) for r in per_label] == [
        ("a", "LOC"),
        ("a", "ORG"),
        ("a", "PER"),
        ("c", "LOC"),
    ]


def test_document_rows_read_beta():
    result = SpanEvaluator(strategy="exact", per_document=True, beta=2.0).evaluate([DOC_A])
    (row,) = result.document_rows(per_label=False)
    # a: 2 gold, 3 predicted, Ann alone right: P 1/3, R 1/2, F2 = 5 * 1/6 / (4/3 + 1/2) = 5/11
    assert row["f"] == pytest.approx(5 / 11)


def test_sums_refuse_other_settings_word_for_word_and_add_notes():
    doc = [Document.create(id="d", length=10, gold=[(0, 2, "X")], pred=[])]
    with pytest.raises(ValueError) as info:
        SpanEvaluator(strategy="exact").tally(doc) + SpanEvaluator(strategy="token").tally(doc)
    assert str(info.value) == (
        "cannot merge tallies scored under different settings: strategy: 'exact' vs 'token'"
    )
    twice = [Document.create(id="t", length=9, gold=[(0, 2, "X"), (0, 2, "X")], pred=[])]
    ev = SpanEvaluator(strategy="exact")
    one = ev.tally(twice)
    assert one.notes["gold_duplicates_collapsed"] == 1
    assert (one + ev.tally(twice)).notes["gold_duplicates_collapsed"] == 2


def test_a_result_carries_each_threshold_and_the_settings_ratios_read():
    result = SpanEvaluator(thresholds=(0.5, 0.9), zero_division=0.5, beta=2.0).evaluate([DOC_B])
    runs = result.levels["labels"]
    assert [r.threshold for r in runs] == [0.5, 0.9]
    assert {(r.beta, r.zero_division) for r in runs} == {(2.0, 0.5)}


def test_a_result_holds_the_boundary_counts_strings_and_side_figures_of_the_tally():
    run = SpanEvaluator(strategy="semeval", zero_division=0.5).evaluate([DOC_A, DOC_B]).scores()
    assert run.boundary == {("LOC", None): 1, (None, "LOC"): 1}  # Par for Paris
    assert run.strings[("PER", "missed", "Eve", "")] == 1
    # ORG has no gold: its strict recall is zero_division's 0.5
    assert run.side.row("strict", "ORG")["recall"] == 0.5


# -- span-length buckets (semantics §10) ------------------------------------------------------
def random_docs(n: int, seed: int) -> list[Document]:
    """Documents of 20 one-letter tokens with spans of 1 to 8 characters, some predictions
    moved, shortened, relabelled or made up."""
    rng = np.random.default_rng(seed)
    docs = []
    for d in range(n):
        gold, pred = set(), set()
        for _ in range(rng.integers(0, 5)):
            start, length, label = int(rng.integers(0, 30)), int(rng.integers(1, 9)), "AB"[d % 2]
            gold.add((start, start + length, label))
            kind = rng.integers(0, 5)
            if kind < 2:
                pred.add((start, start + length, label))
            elif kind == 2:
                pred.add((start, start + max(1, length - 2), label))
            elif kind == 3:
                pred.add((start, start + length, "C"))
        if rng.random() < 0.3:
            start = int(rng.integers(0, 30))
            pred.add((start, start + int(rng.integers(1, 9)), "A"))
        docs.append(Document.create(id=f"d{d}", text="x" * 40, gold=gold, pred=pred))
    return docs


EDGES = (1, 2, 3, 4, 6)


def bucket_of(length: int) -> int:
    return max(i for i, edge in enumerate(EDGES) if edge <= length)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_span_length_buckets_equal_a_brute_force_count(seed):
    docs = random_docs(1000, seed)
    lengths = SpanEvaluator(strategy="exact", span_lengths=EDGES).evaluate(docs).lengths
    want: dict[str, np.ndarray] = {}
    for doc in docs:
        gold = {(s.start, s.end, s.label) for s in doc.gold}
        pred = {(s.start, s.end, s.label) for s in doc.pred}
        for spans, other, (n, hit, miss) in ((gold, pred, (0, 2, 3)), (pred, gold, (1, 4, 5))):
            for span in spans:
                rows = want.setdefault(span[2], np.zeros((1, len(EDGES), N_FIELDS), int))
                rows[0, bucket_of(span[1] - span[0]), [n, hit if span in other else miss]] += 1
    assert {k: v.tolist() for k, v in lengths.items()} == {k: v.tolist() for k, v in want.items()}


@pytest.mark.parametrize("strategy", ["two_sided", "overlap", "exact"])
def test_span_length_buckets_add_up_to_each_sides_totals_and_over_parts(strategy):
    docs = random_docs(300, 7)
    taus = {"two_sided": (0.3, 0.5, 1.0), "overlap": (0.0,), "exact": (None,)}[strategy]
    evaluator = SpanEvaluator(strategy=strategy, thresholds=taus, span_lengths=EDGES)
    result = evaluator.evaluate(docs)
    for label, ledger_rows in result.lengths.items():
        for t, tau in enumerate(result.settings.thresholds):
            total = Ledger.from_row(ledger_rows[t].sum(axis=0))
            assert total == result.scores(tau).per_label[label]
    parts = evaluator.tally(docs[:100]) + evaluator.tally(docs[100:])
    merged = parts.result().lengths
    assert {k: v.tolist() for k, v in merged.items()} == {
        k: v.tolist() for k, v in result.lengths.items()
    }


@pytest.mark.parametrize("edges", [(2, 3), (1, 1), (1, 3, 2)])
def test_span_length_edges_rise_from_one(edges):
    with pytest.raises(ValueError, match="span-length edges must rise from 1"):
        SpanEvaluator(span_lengths=edges)


# -- unaligned and identical spans in the counts (engine.verdicts) ----------------------------

NOT_ON_TOKENS = "not on token boundaries"


def unaligned_doc(**spans) -> Document:
    """Ten tokens: A (0, 2) found; what the reader could not put on tokens, given in ``spans``."""
    return Document.create(
        id="d", length=10, unit="token", gold=[(0, 2, "A")], pred=[(0, 2, "A")], **spans
    )


def test_identical_spans_and_unaligned_ones_count_once_at_every_level_with_their_notes():
    # gold (0, 2, A) twice; an unaligned prediction twice; an unaligned B annotation twice with
    # one reason and once with another (not identical: the reason is part of it)
    doc = Document.create(
        id="d",
        length=10,
        unit="token",
        gold=[(0, 2, "A"), (0, 2, "A")],
        pred=[(0, 2, "A"), (5, 6, "B")],
        unaligned_pred=[(Span(3, 7, "A"), NOT_ON_TOKENS)] * 2,
        unaligned_gold=[(Span(3, 4, "B"), NOT_ON_TOKENS)] * 2 + [(Span(3, 4, "B"), "other")],
    )
    both = Hierarchy({"branch": {"A": "X", "B": "X"}})
    result = SpanEvaluator(unit="token", max_errors=None, hierarchy=both).evaluate([doc])
    assert result.notes == {
        "unaligned_predictions": 2,  # as the reader gave them, at the labels level alone
        "unaligned_gold": 3,
        "gold_duplicates_collapsed": 2,  # one aligned, one unaligned
        "pred_duplicates_collapsed": 1,
        "gold_duplicates_collapsed_at_branch": 2,
        "pred_duplicates_collapsed_at_branch": 1,
        "gold_duplicates_collapsed_any_entity": 2,
        "pred_duplicates_collapsed_any_entity": 1,
    }
    run = result.scores()
    assert run.per_label == {
        "A": Ledger(1, 2, tp=1, fn=0, credited=1, fp=1),
        "B": Ledger(2, 1, tp=0, fn=2, credited=0, fp=1),
    }
    assert run.entity_agnostic == Ledger(3, 3, tp=1, fn=2, credited=1, fp=2)
    assert result.scores(level="branch").per_label == {
        "X": Ledger(3, 3, tp=1, fn=2, credited=1, fp=2)
    }
    assert [(e.kind, e.label, e.start, e.reason) for e in run.errors] == [
        ("false_negative", "B", 3, NOT_ON_TOKENS),
        ("false_negative", "B", 3, "other"),
        ("false_positive", "A", 3, NOT_ON_TOKENS),
        ("false_positive", "B", 5, None),
    ]


def test_unaligned_spans_are_missed_and_spurious_in_every_semeval_schema():
    doc = unaligned_doc(
        unaligned_pred=[(Span(3, 7, "A"), NOT_ON_TOKENS)],
        unaligned_gold=[(Span(3, 4, "B"), NOT_ON_TOKENS), (Span(5, 6, "B"), NOT_ON_TOKENS)],
    )
    side = SpanEvaluator(unit="token", strategy="semeval").evaluate([doc]).scores().side
    counts = ("correct", "incorrect", "partial", "missed", "spurious")
    for label, want in ((None, (1, 0, 0, 2, 1)), ("A", (1, 0, 0, 0, 1)), ("B", (0, 0, 0, 2, 0))):
        for row in side.table.rows:
            got = side.row(row, label) if label else side.row(row)
            assert tuple(got[c] for c in counts) == want, (row, label)


def test_unaligned_spans_count_in_the_bucket_of_their_own_length():
    doc = unaligned_doc(
        unaligned_pred=[(Span(3, 7, "A"), NOT_ON_TOKENS)],
        unaligned_gold=[(Span(3, 4, "B"), NOT_ON_TOKENS), (Span(5, 6, "B"), NOT_ON_TOKENS)],
    )
    lengths = SpanEvaluator(unit="token", span_lengths=(1, 3)).evaluate([doc]).lengths
    # (annotated, predicted, tp, fn, credited, fp) of lengths 1-2, then 3 and more
    assert {label: rows.tolist() for label, rows in lengths.items()} == {
        "A": [[[1, 1, 1, 0, 1, 0], [0, 1, 0, 0, 0, 1]]],  # (0, 2) found; the 4-token one
        "B": [[[2, 0, 0, 2, 0, 0], [0, 0, 0, 0, 0, 0]]],  # two 1-token ones missed
    }


def test_the_strategys_own_notes_are_counted_at_the_labels_level_alone():
    # token: A (0, 3) and A (1, 4) share tokens 1 and 2; at the branch level B joins A, and
    # there (0, 2) and (1, 2) are still two extents
    doc = Document.create(
        id="d",
        length=10,
        unit="token",
        gold=[(0, 3, "A"), (1, 4, "A")],
        pred=[(0, 2, "A"), (1, 2, "B"), (5, 6, "A")],
    )
    joined = Hierarchy({"branch": {"A": "X", "B": "X"}})
    evaluator = SpanEvaluator(unit="token", strategy="token", hierarchy=joined)
    assert evaluator.evaluate([doc]).notes == {"gold_positions_shared": 2}


def test_document_rows_kept_at_one_threshold_are_that_thresholds_counts():
    # "a": (0, 2) for (0, 3) is found at IoU 0.5, an FN and an FP at 1.0; "b" is found at both
    docs = [
        Document.create(id="a", text="Ada met Bob", gold=[(0, 3, "PER")], pred=[(0, 2, "PER")]),
        Document.create(id="b", text="Ada met Bob", gold=[(8, 11, "PER")], pred=[(8, 11, "PER")]),
    ]
    result = SpanEvaluator(thresholds=(0.5, 1.0), per_document=(1.0,)).evaluate(docs)
    assert result.documents.rows("PER", 1).tolist() == [[1, 1, 0, 1, 0, 1], [1, 1, 1, 0, 1, 0]]
