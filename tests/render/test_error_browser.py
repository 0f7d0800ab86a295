"""The error browser without a browser: one card per relabelled span with its boundary IoU,
labels drawn in lanes (overlapping spans never share one), the kind filter built from the
kinds present, and search and paging controls in the page itself."""

from __future__ import annotations

import re
from dataclasses import replace

import attrs
import pytest

from spacy_span_eval import Document
from spacy_span_eval.engine.records import ErrorRecord
from spacy_span_eval.jobs.system_run import boundary_iou, run_system
from spacy_span_eval.render.html import render_page
from spacy_span_eval.render.html.errors_view import error_cards

TEXT = "Smith met Jones at Acme Health today"
SMITH, JONES, ACME = (0, 5), (10, 15), (19, 30)


def cards_of(gold, pred, **kw):
    docs = [Document.create(id="d", text=TEXT, gold=gold, pred=pred)]
    run = run_system(docs, name="sys", errors=100, **kw)
    return run, error_cards(run.name, run.errors, run.documents, run.relabels())


def test_a_relabelled_span_is_one_card_with_its_boundary_iou():
    run, cards = cards_of([(*SMITH, "PER")], [(*SMITH, "ORG")])
    assert [(e.kind, e.side) for e in run.errors] == [
        ("wrong_label", "gold"),
        ("wrong_label", "predicted"),
    ]
    (card,) = cards
    assert card.kind == "wrong_label" and card.labels == ("PER", "ORG")
    assert card.score_name == "boundary IoU" and card.best_iou == 1.0 and card.records == 2
    assert "predicted as ORG (boundary IoU 1.00)" in card.summary
    # Both the gold PER and the ORG prediction are the spans in error.
    assert card.html.count("✗") == 2


def test_a_relabelled_span_with_other_boundaries():
    # Gold ORG "Acme Health" [19, 30); predicted LOC "Acme" [19, 23): IoU 4/11.
    run, cards = cards_of([(*ACME, "ORG")], [(19, 23, "LOC")], threshold=0.3)
    (card,) = cards
    assert card.kind == "wrong_label" and card.best_iou == pytest.approx(4 / 11)
    assert "boundary IoU 0.36" in card.summary


def test_a_relabelling_prediction_kept_alone_is_carded_wrong_label():
    # The gold PER "Smith" record is not kept, the ORG prediction's is: its card is a
    # wrong-label card, as the kinds table counts it, never "matches no gold span".
    run, _ = cards_of([(*SMITH, "PER")], [(*SMITH, "ORG")])
    assert set(run.relabels()) == {0}  # the gold record's, not the prediction's
    alone = [e for e in run.errors if e.side == "predicted"]
    (card,) = error_cards(run.name, alone, run.documents, {})
    assert (card.kind, card.kind_title, card.labels) == (
        "wrong_label",
        "wrong label",
        ("ORG", "PER"),
    )
    # it covers the gold span exactly: the card's IoU is that cover's, not a same-label 0
    assert card.summary == "predicted ORG “Smith” covers gold PER: wrong label (boundary IoU 1.00)"
    assert (card.score_name, card.best_iou) == ("boundary IoU", 1.0)


def test_sampled_relabellings_are_all_wrong_label_cards():
    # Bob, Ann and Joe: gold PER, predicted ORG; two records kept of six.
    text = "Bob met Ann and Joe."
    spans = [(0, 3), (8, 11), (16, 19)]
    doc = Document.create(
        id="d", text=text, gold=[(*s, "PER") for s in spans], pred=[(*s, "ORG") for s in spans]
    )
    run = run_system([doc], name="sys", errors=2)
    assert sorted((e.kind, e.side) for e in run.errors) == [
        ("wrong_label", "gold"),
        ("wrong_label", "predicted"),
    ]
    html = render_page([run])
    assert "matches no gold span" not in html
    assert set(re.findall(r'class="error-card" data-kind="(\w+)"', html)) == {"wrong_label"}


def test_a_false_positive_elsewhere_keeps_its_own_card():
    run, cards = cards_of([(*SMITH, "PER")], [(*SMITH, "ORG"), (*JONES, "ORG")])
    assert [c.kind for c in cards] == ["wrong_label", "false_positive"]
    assert [c.records for c in cards] == [2, 1]
    assert cards[1].score_name == "best IoU" and cards[1].where == "[10, 15)"


@pytest.mark.parametrize(
    "start, end, spans, iou",
    [
        (0, 10, [(0, 10)], 1.0),
        (0, 10, [(0, 5)], 0.5),
        (0, 10, [(5, 15)], 5 / 15),
        (0, 10, [(0, 4), (6, 10)], 0.8),
        (0, 10, [(0, 6), (4, 10)], 1.0),
        (0, 4, [(6, 9)], 0.0),
    ],
)
def test_boundary_iou(start, end, spans, iou):
    assert boundary_iou(start, end, spans) == pytest.approx(iou)


def tags(html: str) -> list[tuple[str, int, str]]:
    """Each label tag of a card: its side, its lane and its text."""
    return [
        (side, int(lane), text)
        for side, lane, text in re.findall(
            r'<span class="tag (\w+)[^"]*" style="--k:(\d+)"[^>]*>([^<]*)</span>', html
        )
    ]


def test_overlapping_spans_get_their_own_lanes_and_others_share():
    # Gold MISC "Smith met" over gold PER "Smith"; gold PER "Jones" clear of both; predicted
    # PER over "Smith met".
    run, cards = cards_of(
        [(*SMITH, "PER"), (*JONES, "PER"), (0, 9, "MISC")], [(0, 9, "PER")], threshold=0.9
    )
    html = next(c.html for c in cards if c.kind == "false_negative")
    # Gold above the words, predicted below, each side in its own lanes; the overlapping
    # gold spans apart, "Jones" back in the first lane.
    assert tags(html) == [
        ("gold", 0, "MISC"),
        ("gold", 1, "PER"),
        ("pred", 0, "PER"),
        ("gold", 0, "PER ✗"),
    ]


def page_with(kinds: list[str]) -> str:
    docs = [Document.create(id="d", text=TEXT, gold=[(*SMITH, "PER")], pred=[])]
    run = run_system(docs, name="sys", errors=10)
    (record,) = run.errors
    extra = tuple(attrs.evolve(record, kind=k) for k in kinds)
    main = attrs.evolve(run.main, errors=(record, *extra))
    levels = {
        name: tuple(main if r.threshold == run.threshold else r for r in runs)
        for name, runs in run.result.levels.items()
    }
    run.result = replace(run.result, levels=levels)
    return render_page([run])


def test_the_kind_filter_lists_the_kinds_present():
    html = page_with([])
    options = re.findall(
        r'<option value="(\w+)">([^<]*)</option>',
        html.split('id="filter-kind"')[1].split("</select>")[0],
    )
    assert options == [("false_negative", "missed (FN) (1 kept)")]
    # A kind the browser has no title for still gets an option, a colour and its cards.
    html = page_with(["boundary"])
    options = re.findall(
        r'<option value="(\w+)">', html.split('id="filter-kind"')[1].split("</select>")[0]
    )
    assert options == ["false_negative", "boundary"]
    assert '.error-card[data-kind="boundary"]' in html
    assert html.count('data-kind="boundary"') == 2  # the CSS rule and the card


def test_search_and_paging_are_in_the_page():
    html = page_with([])
    assert 'id="filter-text"' in html and 'id="page-prev"' in html
    assert 'id="page-next"' in html and 'data-page-size="50"' in html
    for fetching in (" src=", "<link", "@import", "url(", 'href="http'):
        assert fetching not in html


def test_unaligned_record_keeps_its_reason_card():
    record = ErrorRecord(
        "false_positive",
        "d",
        3,
        7,
        "PER",
        "PER",
        None,
        None,
        None,
        0.0,
        "cannot be put on the gold tokens",
    )
    (card,) = error_cards("sys", [record], {})
    assert "cannot be put on the gold tokens" in card.html and card.records == 1
