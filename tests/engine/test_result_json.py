"""The result's JSON, field by field as ``docs/json_schema.md`` describes it, for one small
evaluation worked out by hand."""

from __future__ import annotations

import json

import pytest

from spacy_span_eval import Document, SpanEvaluator

TEXT = "Ana met Bo in Rome today"
# gold A "Ana", B "Bo"; predicted A "Ana" and A "Bo" (right place, wrong label)


def result(**options):
    doc = Document.create(
        id="d1", text=TEXT, gold=[(0, 3, "A"), (8, 10, "B")], pred=[(0, 3, "A"), (8, 10, "A")]
    )
    return SpanEvaluator(strategy="exact", context=5, **options).evaluate([doc])


def ledger(n_a, n_p, tp, fn, cr, fp, p, r, f):
    return {
        "num_annotated": n_a,
        "num_predicted": n_p,
        "tp": tp,
        "fn": fn,
        "credited": cr,
        "fp": fp,
        "precision": p,
        "recall": r,
        "f": f,
    }


def test_the_whole_document_with_zero_division_zero():
    data = json.loads(json.dumps(result(zero_division=0.0).to_dict(), allow_nan=False))
    assert list(data) == ["schema", "version", "settings", "documents", "notes", "levels"]
    assert (data["schema"], data["version"], data["documents"], data["notes"]) == (
        "spacy-span-eval/result",
        1,
        1,
        {},
    )
    assert data["settings"]["strategy"] == "exact" and data["settings"]["zero_division"] == 0.0
    assert data["settings"]["thresholds"] == [None] and data["settings"]["levels"] == ["labels"]
    (run,) = data["levels"]["labels"]
    assert run == {
        "threshold": None,
        "per_label": {
            "A": ledger(1, 2, 1, 0, 1, 1, 0.5, 1.0, pytest.approx(2 / 3)),
            # B was never predicted: precision undefined, so zero_division's 0.0
            "B": ledger(1, 0, 0, 1, 0, 0, 0.0, 0.0, 0.0),
        },
        "micro": ledger(2, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5),
        "macro": {"precision": 0.25, "recall": 0.5, "f": pytest.approx(1 / 3), "labels": 2},
        "weighted": {"precision": 0.25, "recall": 0.5, "f": pytest.approx(1 / 3), "labels": 2},
        # labels collapsed: both gold spans found exactly
        "entity_agnostic": ledger(2, 2, 2, 0, 2, 0, 1.0, 1.0, 1.0),
        "confusion": [
            {"gold": "A", "predicted": "A", "count": 1, "boundary": 0},
            {"gold": "B", "predicted": "A", "count": 1, "boundary": 0},
        ],
        "errors": [
            {
                "kind": "wrong_label",
                "document": "d1",
                "start": 8,
                "end": 10,
                "label": "B",
                "predicted_label": "A",
                "text": "Bo",
                "context_left": " met ",
                "context_right": " in R",
                "best_iou": 1.0,  # (A's prediction covers it exactly)
                "reason": None,
                "side": "gold",
            },
            {
                "kind": "wrong_label",
                "document": "d1",
                "start": 8,
                "end": 10,
                "label": "A",
                "predicted_label": "A",
                "text": "Bo",
                "context_left": " met ",
                "context_right": " in R",
                "best_iou": 1.0,
                "reason": None,
                "side": "predicted",
            },
        ],
        "errors_total": 2,
        # every error of the corpus by kind: B's annotation was given label A
        "error_kinds": {
            "per_label": {
                "A": kinds(fn=(0, 0, 0), fp=(0, 0, 1)),
                "B": kinds(fn=(0, 0, 1), fp=(0, 0, 0)),
            },
            "micro": kinds(fn=(0, 0, 1), fp=(0, 0, 1)),
        },
        "frequent_errors": {
            "B": {
                "missed": [],
                "spurious": [],
                "relabelled": [{"text": "Bo", "given": "A", "count": 1}],
            }
        },
    }


def kinds(fn: tuple[int, int, int], fp: tuple[int, int, int]) -> dict:
    return {
        "fn": {"missed": fn[0], "boundary": fn[1], "wrong_label": fn[2], "total": sum(fn)},
        "fp": {"spurious": fp[0], "boundary": fp[1], "wrong_label": fp[2], "total": sum(fp)},
    }


def test_undefined_ratios_are_null_by_default_at_every_level():
    (run,) = result().to_dict()["levels"]["labels"]
    assert run["per_label"]["B"]["precision"] is None and run["per_label"]["B"]["f"] == 0.0
    assert run["macro"]["precision"] == 0.5 and run["macro"]["labels"] == 2


def test_zero_division_reaches_micro_and_entity_agnostic():
    # Nothing predicted at all: micro and any-entity precision are undefined.
    doc = Document.create(id="d", length=10, gold=[(0, 2, "A")], pred=[])
    plain = SpanEvaluator(strategy="exact").evaluate([doc]).to_dict()["levels"]["labels"][0]
    filled = (
        SpanEvaluator(strategy="exact", zero_division=1.0)
        .evaluate([doc])
        .to_dict()["levels"]["labels"][0]
    )
    for key in ("micro", "entity_agnostic"):
        assert plain[key]["precision"] is None and filled[key]["precision"] == 1.0
    assert filled["per_label"]["A"]["precision"] == 1.0


def test_notes_are_sorted_and_carried():
    doc = Document.create(
        id="d",
        length=10,
        gold=[(0, 2, "A"), (0, 2, "A")],
        pred=[(4, 6, "A"), (4, 6, "A"), (4, 6, "A")],
    )
    data = SpanEvaluator(strategy="exact").evaluate([doc]).to_dict()
    assert list(data["notes"].items()) == [
        ("gold_duplicates_collapsed", 1),
        ("gold_duplicates_collapsed_any_entity", 1),
        ("pred_duplicates_collapsed", 2),
        ("pred_duplicates_collapsed_any_entity", 2),
    ]


# Where the other tests of this file read only some of it: the confusion list (its order,
# and each cell's boundary count), the side table of a strategy that keeps one, how many
# frequent error strings are kept by default, and the notes of a token-strategy evaluation
# whose first batch has no spans.

CONFUSED_TEXT = "Ana met Bo in Rome and Eva"


def confusion_document() -> Document:
    # gold: PER Ana, LOC Rome, PER Eva; predicted: PER "An" (Ana cut short), ORG Rome,
    # PER Bo (nothing there), LOC Eva
    return Document.create(
        id="a",
        text=CONFUSED_TEXT,
        gold=[(0, 3, "PER"), (14, 18, "LOC"), (23, 26, "PER")],
        pred=[(0, 2, "PER"), (14, 18, "ORG"), (8, 10, "PER"), (23, 26, "LOC")],
    )


def labels_level(strategy: str) -> dict:
    result = SpanEvaluator(strategy=strategy).evaluate([confusion_document()])
    return result.to_dict()["levels"]["labels"][0]


def test_confusion_cells_by_gold_then_predicted_the_no_label_row_and_column_last():
    assert labels_level("exact")["confusion"] == [
        {"gold": "LOC", "predicted": "ORG", "count": 1, "boundary": 0},
        {"gold": "PER", "predicted": "LOC", "count": 1, "boundary": 0},
        # Ana missed; "An", a PER prediction overlapping it, makes it a boundary error
        {"gold": "PER", "predicted": None, "count": 1, "boundary": 1},
        # "An" (overlaps Ana: boundary) and "Bo" (overlaps nothing)
        {"gold": None, "predicted": "PER", "count": 2, "boundary": 1},
    ]


def test_a_side_table_is_in_the_json():
    level = labels_level("semeval")
    overall = level["schemas"]["overall"]
    # strict: Rome and Eva relabelled (incorrect), Ana/"An" overlap but differ in boundaries
    # (incorrect), Bo spurious
    assert {k: overall["strict"][k] for k in ("correct", "incorrect", "missed", "spurious")} == {
        "correct": 0,
        "incorrect": 3,
        "missed": 0,
        "spurious": 1,
    }
    assert sorted(level["schemas"]["per_label"]) == ["LOC", "ORG", "PER"]


def test_ten_frequent_error_strings_are_kept_by_default():
    names = [f"N{i:02d}" for i in range(11)]
    docs = [
        Document.create(id=name, text=f"{name} came", gold=[(0, 3, "PER")], pred=[])
        for name in names
    ]
    scores = SpanEvaluator().evaluate(docs).scores()
    # each name missed once: ties broken by the string, so the first ten in order
    assert scores.frequent_errors()["PER"]["missed"] == [(n, "", 1) for n in names[:10]]
    assert len(scores.frequent_errors(top=11)["PER"]["missed"]) == 11


def test_a_batch_without_spans_shares_no_token_positions():
    docs = [
        Document.create(id="e", text="no names", gold=[], pred=[]),
        Document.create(id="f", text="Ana sang", gold=[(0, 3, "PER")], pred=[(0, 3, "PER")]),
    ]
    # one document a batch: the token strategy scores the first, spanless, batch too
    result = SpanEvaluator(strategy="token", batch_size=1).evaluate(docs)
    assert result.notes == {}
    assert result.scores().per_label["PER"].tp == 3  # one per character position
