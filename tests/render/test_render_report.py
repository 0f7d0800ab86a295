"""The report renderer (text, Markdown, JSON) composes the result and the gate verdict: what
each format puts where, its defaults, and the JSON layout."""

from __future__ import annotations

import json
import re

import pytest

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.engine.gates import Floors, check_gate
from spacy_span_eval.jobs.evaluate import Report
from spacy_span_eval.render.report import render_report
from spacy_span_eval.render.text import (
    result_markdown,
    result_text,
    verdict_markdown,
    verdict_text,
)

INPUTS = {
    "gold": {"path": "gold.jsonl", "format": "jsonl", "documents": 1, "spans": 2, "repaired": 0},
    "predicted": {
        "path": "pred.jsonl",
        "format": "jsonl",
        "documents": 1,
        "spans": 2,
        "repaired": 0,
    },
}


def report(*, gated: bool) -> Report:
    # One hit, one miss, one spurious prediction: P 1/2, R 1/2 -- and three error records.
    doc = Document.create(
        id="d",
        text="Ana met Bo in Rome",
        gold=[(0, 3, "PER"), (8, 10, "PER")],
        pred=[(0, 3, "PER"), (14, 18, "PER")],
    )
    result = SpanEvaluator(strategy="exact").evaluate([doc])
    verdict = (
        check_gate(result, Floors.from_dict({"floors": {"PER": {"recall": 0.9}}}))
        if gated
        else None
    )
    return Report("gate" if gated else "evaluate", result, INPUTS, verdict)


def test_text_is_the_default_format_without_error_rows():
    plain = report(gated=False)
    text = render_report(plain)
    assert text == result_text(plain.result, errors=0, inputs=INPUTS)
    assert "gold: gold.jsonl (jsonl, 2 spans)\n" in text
    # no error rows unless asked for (the miss is "Bo", the spurious span "Rome")
    assert not re.search(r"\bBo\b|\bRome\b", text)
    assert re.search(r"\bBo\b|\bRome\b", render_report(plain, errors=1))


def test_text_and_markdown_put_the_verdict_after_a_blank_line():
    gated = report(gated=True)
    assert render_report(gated, "text") == (
        result_text(gated.result, errors=0, inputs=INPUTS) + "\n\n" + verdict_text(gated.verdict)
    )
    assert render_report(gated, "markdown", errors=2) == (
        result_markdown(gated.result, errors=2, inputs=INPUTS)
        + "\n\n"
        + verdict_markdown(gated.verdict)
    )
    assert render_report(report(gated=False), "markdown") == result_markdown(
        report(gated=False).result, errors=0, inputs=INPUTS
    )


def test_markdown_names_the_inputs_and_lists_the_errors_asked_for():
    text = render_report(report(gated=False), "markdown", errors=2)
    assert "gold.jsonl" in text and "pred.jsonl" in text
    assert "Rome" in text and "Bo" in text


def test_json_is_the_report_dict_indented_by_two():
    gated = report(gated=True)
    text = render_report(gated, "json")
    assert text.startswith('{\n  "schema": "spacy-span-eval/report",\n  "version": 1,\n')
    assert json.loads(text) == json.loads(json.dumps(gated.to_dict()))
    data = json.loads(text)
    assert data["gate"]["passed"] is False and data["command"] == "gate"
    assert data["result"]["levels"]["labels"][0]["micro"]["precision"] == 0.5


def test_an_unknown_format_is_refused_naming_the_choices():
    with pytest.raises(
        ValueError,
        match="^"
        + re.escape("unknown output format 'html'; choose one of text, json, markdown")
        + "$",
    ):
        render_report(report(gated=False), "html")
