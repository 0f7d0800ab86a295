"""A gate's verdict as the CLI prints it: the check table (text and Markdown) and the console
lines, cell by cell, on a gate with every kind of check: a support count, a figure that holds,
one breached, one undefined (no predictions) and a label with no gold spans at all.

The corpus is test_text_table_values.py's ``zd_docs`` (two_sided at IoU >= 0.5, beta 2):
  PER gold 2, recall 1/2 >= 0.5 holds, F2 2.5/4.5 = .5556 >= 0.5 holds
  LOC gold 1, never predicted: recall 0 < 0.5, precision undefined
  LONG never occurs: support 0 < 1
"""

from __future__ import annotations

from test_text_table_values import zd_docs

from spacy_span_eval import Floors, SpanEvaluator, check_gate
from spacy_span_eval.render.text import verdict_console, verdict_markdown, verdict_text

# 62 characters: past the label column's cap of 60.
LONG = "GEOPOLITICAL_ENTITY_WITH_A_VERY_LONG_NAME_FROM_AN_OLD_SCHEMA_X"
NO_GOLD = "FAIL: no gold spans: missing evidence is not a pass"


def verdict():
    result = SpanEvaluator(strategy="two_sided", beta=2.0).evaluate(zd_docs())
    floors = {
        "PER": {"recall": 0.5, "f": 0.5},
        "LOC": {"precision": 0.5, "recall": 0.5},
        LONG: {"recall": 0.8},
    }
    return check_gate(result, Floors.from_dict({"floors": floors}, source="floors.json"))


def test_check_table_in_text():
    assert len(LONG) == 62
    pad = " " * 57  # PER, LOC: padded to 60
    lines = [ln.rstrip() for ln in verdict_text(verdict()).split("\n")]
    assert lines == [
        "",
        "label" + " " * 55 + "   figure       value   floor   result",
        "-" * 60 + "   ---------   ------   -----   " + "-" * len(NO_GOLD),
        "PER" + pad + "   support          2       1   pass",
        "PER" + pad + "   recall      0.5000     0.5   pass",
        "PER" + pad + "   f           0.5556     0.5   pass",
        "LOC" + pad + "   support          1       1   pass",
        "LOC" + pad + "   recall      0.0000     0.5   FAIL",
        "LOC" + pad + "   precision        -     0.5   FAIL: undefined: no predictions",
        LONG + "   support          0       1   " + NO_GOLD,
        "",
    ]


HEADLINE = "Gate failed: 3 of 7 floor(s) of floors.json breached (two_sided at IoU >= 0.5)"
BREACHES = [
    "LOC recall 0.0000 < floor 0.5",
    "LOC precision undefined < floor 0.5 (undefined: no predictions)",
    f"{LONG} support 0 < floor 1 (no gold spans: missing evidence is not a pass)",
]


def test_check_table_in_markdown():
    assert verdict_markdown(verdict()) == "\n".join(
        [
            "### Gate",
            "",
            f"- {HEADLINE}",
            *(f"- {line}" for line in BREACHES),
            "",
            "| label | figure | value | floor | result |",
            "| --- | --- | --- | --- | --- |",
            "| PER | support | 2 | 1 | pass |",
            "| PER | recall | 0.5000 | 0.5 | pass |",
            "| PER | f | 0.5556 | 0.5 | pass |",
            "| LOC | support | 1 | 1 | pass |",
            "| LOC | recall | 0.0000 | 0.5 | FAIL |",
            "| LOC | precision | - | 0.5 | FAIL: undefined: no predictions |",
            f"| {LONG} | support | 0 | 1 | {NO_GOLD} |",
        ]
    )


def test_console_lines_of_a_failed_gate():
    v = verdict()
    assert verdict_console(v.lines(), v.passed) == [
        ("fail", HEADLINE),
        *(("text", f"  {line}") for line in BREACHES),
    ]
    assert verdict_console(v.lines(), v.passed, prefix="gold: ")[0] == ("fail", "gold: " + HEADLINE)


def test_console_lines_of_a_passed_gate():
    result = SpanEvaluator(strategy="two_sided", beta=2.0).evaluate(zd_docs())
    passed = check_gate(result, Floors.from_dict({"floors": {"PER": {"recall": 0.5}}}))
    assert verdict_console(passed.lines(), passed.passed) == [
        ("good", "Gate passed: 2 floor(s) of floors hold (two_sided at IoU >= 0.5)")
    ]
