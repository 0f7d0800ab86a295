"""The hints printed under a report, word for word: predicted labels gold never has (with a
``--label-map`` example pairing the first of them with the first gold label never predicted),
``--labels`` found on neither side, and a side most of whose chunks were repaired (IOB1?).

The corpus: ART found (gold 1, predicted 1); LOC (gold 1) and MISC (gold 2) never predicted;
GPE (1 span) and ORGS (2 spans) predicted but never in gold.
"""

from __future__ import annotations

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.render.text import hint_console, input_hints, label_hints

TEXT = "a b c d e f g h"


def _run(gold, pred):
    doc = Document.create(id="h", text=TEXT, gold=gold, pred=pred)
    return SpanEvaluator(strategy="exact").evaluate([doc]).scores()


def corpus():
    gold = [(0, 1, "ART"), (2, 3, "LOC"), (4, 5, "MISC"), (6, 7, "MISC")]
    pred = [(0, 1, "ART"), (8, 9, "GPE"), (10, 11, "ORGS"), (12, 13, "ORGS")]
    return _run(gold, pred)


MAP_HINT = (
    "Predicted labels never found in gold score 0: GPE (1 span), ORGS (2 spans). If the "
    "systems name a gold label differently, map it with --label-map "
    '(e.g. {"GPE": "LOC"} if they name the same thing).'
)


def test_predicted_only_labels_are_named_with_a_mapping_example():
    assert label_hints(corpus()) == [MAP_HINT]


def test_chosen_labels_on_neither_side_are_named_in_order():
    lines = label_hints(corpus(), ["ART", "XYZ", "LOC", "QQQ"])
    assert lines == [MAP_HINT, "--labels: XYZ, QQQ found in neither gold nor predictions."]


def test_no_example_without_a_gold_label_never_predicted():
    run = _run([(0, 1, "ART")], [(0, 1, "ART"), (2, 3, "GPE")])
    assert label_hints(run, ["ART"]) == [
        "Predicted labels never found in gold score 0: GPE (1 span). If the systems name a "
        "gold label differently, map it with --label-map."
    ]


def test_no_hint_when_every_label_is_on_both_sides():
    run = _run([(0, 1, "ART"), (2, 3, "LOC")], [(0, 1, "ART"), (4, 5, "LOC")])
    assert label_hints(run, ["ART", "LOC"]) == []


def test_console_hints_are_warnings_with_their_prefix():
    assert hint_console(corpus(), ["XYZ"]) == [
        ("warn", "hint: " + MAP_HINT),
        ("warn", "hint: --labels: XYZ found in neither gold nor predictions."),
    ]
    assert hint_console(corpus(), (), "b: ") == [("warn", "hint: b: " + MAP_HINT)]


def test_a_side_with_most_chunks_repaired_may_be_iob1():
    # gold: 6 of 10 repaired (more than half); predicted: 5 of 10 (half, not more); a side
    # with no spans at all says nothing.
    inputs = {
        "gold": {"path": "g", "format": "conll", "spans": 10, "repaired": 6},
        "predicted": {"path": "p", "format": "conll", "spans": 10, "repaired": 5},
        "other": {"path": "o", "format": "conll", "spans": 0, "repaired": 0},
    }
    assert input_hints(inputs) == [
        (
            "warn",
            "hint: gold: 6 of 10 chunks were repaired (most open with I-, as in IOB1 files): "
            "read with --scheme IOB1?",
        )
    ]
    many = {"predicted": {"path": "p", "format": "conll", "spans": 2400, "repaired": 1300}}
    assert input_hints(many) == [
        (
            "warn",
            "hint: predicted: 1,300 of 2,400 chunks were repaired (most open with I-, as in IOB1 "
            "files): read with --scheme IOB1?",
        )
    ]
    assert input_hints(None) == []
