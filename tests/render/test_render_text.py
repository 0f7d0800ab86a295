"""The plain-text report, cell by cell: whole tables written out by hand for small asymmetric
corpora (P != R, gold != predictions, macro != weighted), so a swapped figure, a lost column
group, a wrong alignment or a missing error record changes a line the test compares.

The corpora are built here and reused by the Markdown and gate-verdict tests
(the Markdown tests below, test_text_gate_verdict.py). The figures are worked by hand in the
comments above each builder.
"""

from __future__ import annotations

import pytest

from spacy_span_eval import Document, Floors, Hierarchy, Span, SpanEvaluator, check_gate
from spacy_span_eval.render.report import hint_console, input_hints, label_hints, verdict_console
from spacy_span_eval.render.summary import alignment_line, count, summary_lines
from spacy_span_eval.render.text import (
    _grouped_table,
    result_markdown,
    result_text,
    verdict_markdown,
    verdict_text,
)

# -- the corpora -------------------------------------------------------------------------------

# One document, char unit. Gold: Ada PER, Bob PER, Acme ORG, Paris LOC. Predicted: Ada PER,
# Bob ORG (relabelled), Acme ORG, met LOC (spurious), Pari LOC (IoU with Paris 4/5 = 0.8).
#   at IoU >= 0.5 (Pari found):        at IoU >= 0.9 (Pari a boundary error):
#   PER gold 2 pred 1 TP 1: 1, .5, 2/3       same
#   ORG gold 1 pred 2 TP 1: .5, 1, 2/3       same
#   LOC gold 1 pred 2 TP 1: .5, 1, 2/3       TP 0: 0, 0, 0
#   micro 4/5, TP 3: .6, .75, 2/3            TP 2: .4, .5, 4/9
#   macro P (1+.5+.5)/3, R (.5+1+1)/3        P (1+.5+0)/3 = .5, R (.5+1+0)/3 = .5, F 4/9
#   weighted (support 2,1,1): P 3/4, R 3/4   P (2+.5)/4 = .625, R 2/4, F (2*2/3+2/3)/4 = .5
#   any entity: Bob counts, TP 4: .8, 1      TP 3: .6, .75, 2/3
#   errors: met FP, Bob wrong label (gold) and FP (ORG): 3   + Pari and Paris boundary: 5
MAIN_TEXT = "Ada met Bob at Acme in Paris"


def _at(text: str, word: str, label: str) -> tuple[int, int, str]:
    start = text.index(word)
    return start, start + len(word), label


def main_docs() -> list[Document]:
    t = MAIN_TEXT
    gold = [_at(t, "Ada", "PER"), _at(t, "Bob", "PER"), _at(t, "Acme", "ORG")]
    gold.append(_at(t, "Paris", "LOC"))
    pred = [_at(t, "Ada", "PER"), _at(t, "Bob", "ORG"), _at(t, "Acme", "ORG")]
    pred += [_at(t, "met", "LOC"), _at(t, "Pari", "LOC")]
    return [Document.create(id="d1", text=t, gold=gold, pred=pred)]


def main_result(**options):
    return SpanEvaluator(strategy="two_sided", thresholds=(0.5, 0.9), **options).evaluate(
        main_docs()
    )


# Gold: Ann PER, Rome LOC, Bo PER; predicted: Ann PER, Oslo ORG. LOC is never predicted (P
# undefined), ORG never in gold (R undefined). beta 2: F2 = 5PR / (4P + R).
#   PER gold 2 pred 1 TP 1: P 1, R .5, F2 2.5/4.5 = .5556 (F1 2/3)
#   micro gold 3 pred 2 TP 1: P .5, R 1/3, F2 (5/6)/(7/3) = 5/14 = .3571 (F1 .4)
#   zero_division 1: LOC P 1, ORG R 1 (F 0 both: the other ratio is 0)
#     macro P (1+0+1)/3, R (0+1+.5)/3 = .5, F2 .5556/3 = .1852
#     weighted (support LOC 1, ORG 0, PER 2): P (1+2)/3 = 1, R 1/3, F2 2*.5556/3 = .3704
#   undefined ratios left out: macro P (0+1)/2 = .5, R (0+.5)/2 = .25
ZD_TEXT = "Ann saw Rome and Oslo with Bo"


def zd_docs() -> list[Document]:
    t = ZD_TEXT
    bo = t.rindex("Bo")
    gold = [_at(t, "Ann", "PER"), _at(t, "Rome", "LOC"), (bo, bo + 2, "PER")]
    pred = [_at(t, "Ann", "PER"), _at(t, "Oslo", "ORG")]
    return [Document.create(id="z", text=t, gold=gold, pred=pred)]


# Error records of every shape, at IoU >= 0.9: a boundary pair (An for Ann, IoU 2/3), a
# 40-character text (shown whole) and a 41-character one (cut to 37 + "..."), a document
# without text (no text to show), and spans the reader could not place (their reason shown).
#   PER gold 2 (Ann, Bob) pred 3 (An, Bob, unplaced) TP 1: P 1/3, R 1/2, F 2/5
#   LOC gold 2 (e2, unplaced gold) pred 0: P -, R 0; ORG gold 1 pred 1 TP 0: 0, 0, 0
#   micro gold 5 pred 4 TP 1: .25, .2, 2/9; macro P (0+1/3)/2 = 1/6, R .5/3, F .4/3
#   weighted (support 2, 1, 2): P (2/3)/3 = .2222 (LOC undefined), R 1/5, F .8/5 = .16
#   errors: fn 4 + fp 3 = 7
A40 = "Royal Society for the Protection of Bird"
B41 = "National Aeronautics and Space Admin Corp"
ERR_TEXT = f"Ann joined {A40} after {B41}."
UNPLACED = (
    "--align chars: predicted span [2, 5) 'b x' starts or ends on characters the gold text "
    "does not have"
)


def error_docs() -> list[Document]:
    t = ERR_TEXT
    e1 = Document.create(
        id="e1",
        text=t,
        gold=[(0, 3, "PER"), _at(t, A40, "ORG")],
        pred=[(0, 2, "PER"), _at(t, B41, "ORG")],
    )
    e2 = Document.create(id="e2", length=10, gold=[(0, 4, "LOC")], pred=[])
    e3 = Document.create(
        id="e3",
        text="Bob x",
        gold=[(0, 3, "PER")],
        pred=[(0, 3, "PER")],
        unaligned_pred=[(Span(2, 5, "PER"), UNPLACED)],
        unaligned_gold=[(Span(4, 5, "LOC"), "gold span not on token boundaries")],
    )
    return [e1, e2, e3]


def error_result():
    return SpanEvaluator(strategy="two_sided", thresholds=(0.9,)).evaluate(error_docs())


# The ZD corpus, exact matching, with a coarser level: person (PER), place (LOC, ORG).
#   place gold 1 (Rome) pred 1 (Oslo) TP 0: 0, 0, 0; person as PER: 1, .5, 2/3
#   macro P (1+0)/2, R (.5+0)/2, F (2/3)/2; weighted (2, 1): P 2/3, R 1/3, F (4/3)/3
HIERARCHY = Hierarchy({"kind": {"PER": "person", "LOC": "place", "ORG": "place"}})


def hierarchy_result():
    return SpanEvaluator(strategy="exact", hierarchy=HIERARCHY).evaluate(zd_docs())


# -- side-by-side tables -----------------------------------------------------------------------

MAIN_TEXT_TABLE = """
== two_sided · char unit
                              IoU >= 0.5              IoU >= 0.9
                        ----------------------  ----------------------
label       gold  pred       P       R      F1       P       R      F1
----------  ----  ----  ------  ------  ------  ------  ------  ------
LOC            1     2  0.5000  1.0000  0.6667  0.0000  0.0000  0.0000
ORG            1     2  0.5000  1.0000  0.6667  0.5000  1.0000  0.6667
PER            2     1  1.0000  0.5000  0.6667  1.0000  0.5000  0.6667
-- summary rows, not labels ------------------------------------------
micro          4     5  0.6000  0.7500  0.6667  0.4000  0.5000  0.4444
macro                   0.6667  0.8333  0.6667  0.5000  0.5000  0.4444
weighted                0.7500  0.7500  0.6667  0.6250  0.5000  0.5000
any entity     4     5  0.8000  1.0000  0.8889  0.6000  0.7500  0.6667"""

MAIN_ERRORS = """
First 3 of 3 errors at IoU >= 0.5:

kind                 document   span      label   predicted   text    best
------------------   --------   -------   -----   ---------   -----   ----
false_positive       d1         [4, 7)    LOC     LOC         'met'   0.00
wrong_label (gold)   d1         [8, 11)   PER     ORG         'Bob'   1.00
wrong_label (pred)   d1         [8, 11)   ORG     ORG         'Bob'   1.00

First 4 of 5 errors at IoU >= 0.9:

kind                 document   span       label   predicted   text     best
------------------   --------   --------   -----   ---------   ------   ----
false_positive       d1         [4, 7)     LOC     LOC         'met'    0.00
wrong_label (gold)   d1         [8, 11)    PER     ORG         'Bob'    1.00
wrong_label (pred)   d1         [8, 11)    ORG     ORG         'Bob'    1.00
boundary (pred)      d1         [23, 27)   LOC     LOC         'Pari'   0.80
"""

SUMMARY = """
Documents: 1"""


def test_two_thresholds_share_one_table_with_a_titled_column_group_each():
    assert result_text(main_result()) == MAIN_TEXT_TABLE + "\n" + SUMMARY


def test_side_by_side_errors_name_their_threshold_and_stop_at_the_limit():
    # 4 records asked: all 3 at 0.5, the first 4 of 5 at 0.9 (by start: Pari before Paris).
    out = result_text(main_result(), errors=4)
    assert out == MAIN_TEXT_TABLE + MAIN_ERRORS + "\n" + SUMMARY


def test_no_error_records_unless_asked():
    text = result_text(main_result())
    assert "errors" not in text and "false_positive" not in text


def test_one_threshold_is_titled_by_it_and_has_no_column_groups():
    # beta 2 names the F column F2; zero_division 1 fills LOC's P and ORG's R.
    result = SpanEvaluator(strategy="two_sided", beta=2.0, zero_division=1.0).evaluate(zd_docs())
    assert result_text(result) == (
        """
== two_sided · IoU >= 0.5 · char unit
label       gold  pred       P       R      F2
----------  ----  ----  ------  ------  ------
LOC            1     0  1.0000  0.0000  0.0000
ORG            0     1  0.0000  1.0000  0.0000
PER            2     1  1.0000  0.5000  0.5556
-- summary rows, not labels ------------------
micro          3     2  0.5000  0.3333  0.3571
macro                   0.6667  0.5000  0.1852
weighted                1.0000  0.3333  0.3704
any entity     3     2  0.5000  0.3333  0.3571
"""
        + SUMMARY
    )


def test_an_undefined_ratio_shows_as_a_dash_without_zero_division():
    result = SpanEvaluator(strategy="two_sided", beta=2.0).evaluate(zd_docs())
    lines = result_text(result).split("\n")
    assert lines[4] == "LOC            1     0       -  0.0000  0.0000"
    assert lines[5] == "ORG            0     1  0.0000       -  0.0000"
    assert lines[9] == "macro                   0.5000  0.2500  0.1852"


def test_wide_ledger_fills_undefined_ratios_with_zero_division():
    result = SpanEvaluator(strategy="two_sided", beta=2.0, zero_division=1.0).evaluate(zd_docs())
    assert result_text(result, wide=True) == (
        """
== two_sided · IoU >= 0.5 · char unit

label        gold   pred   TP   FN   credited   FP        P        R       F2
----------   ----   ----   --   --   --------   --   ------   ------   ------
LOC             1      0    0    1          0    0   1.0000   0.0000   0.0000
ORG             0      1    0    0          0    1   0.0000   1.0000   0.0000
PER             2      1    1    1          1    0   1.0000   0.5000   0.5556
-- summary rows, not labels -------------------------------------------------
micro           3      2    1    2          1    1   0.5000   0.3333   0.3571
macro                                                0.6667   0.5000   0.1852
weighted                                             1.0000   0.3333   0.3704
any entity      3      2    1    2          1    1   0.5000   0.3333   0.3571

"""
        + SUMMARY
    )


def test_each_hierarchy_level_has_its_own_table():
    assert result_text(hierarchy_result()) == (
        """
== exact · char unit · level 'labels'
label       gold  pred       P       R      F1
----------  ----  ----  ------  ------  ------
LOC            1     0       -  0.0000  0.0000
ORG            0     1  0.0000       -  0.0000
PER            2     1  1.0000  0.5000  0.6667
-- summary rows, not labels ------------------
micro          3     2  0.5000  0.3333  0.4000
macro                   0.5000  0.2500  0.2222
weighted                1.0000  0.3333  0.4444
any entity     3     2  0.5000  0.3333  0.4000

== exact · char unit · level 'kind'
label       gold  pred       P       R      F1
----------  ----  ----  ------  ------  ------
person         2     1  1.0000  0.5000  0.6667
place          1     1  0.0000  0.0000  0.0000
-- summary rows, not labels ------------------
micro          3     2  0.5000  0.3333  0.4000
macro                   0.5000  0.2500  0.3333
weighted                0.6667  0.3333  0.4444
any entity     3     2  0.5000  0.3333  0.4000
"""
        + SUMMARY
    )


# -- error records -----------------------------------------------------------------------------

ERR_LEDGER = """
label        gold   pred   TP   FN   credited   FP        P        R       F1
----------   ----   ----   --   --   --------   --   ------   ------   ------
LOC             2      0    0    2          0    0        -   0.0000   0.0000
ORG             1      1    0    1          0    1   0.0000   0.0000   0.0000
PER             2      3    1    1          1    2   0.3333   0.5000   0.4000
-- summary rows, not labels -------------------------------------------------
micro           5      4    1    4          1    3   0.2500   0.2000   0.2222
macro                                                0.1667   0.1667   0.1333
weighted                                             0.2222   0.2000   0.1600
any entity      5      4    1    4          1    3   0.2500   0.2000   0.2222
"""

# The text column is 48 wide (its cap): the unplaced span's reason runs past it.
ERR_RECORDS = (
    """First 7 of 7 errors:

kind              document   span       label   predicted   text                                               best
---------------   --------   --------   -----   ---------   ------------------------------------------------   ----
boundary (pred)   e1         [0, 2)     PER     PER         'An'                                               0.67
boundary (gold)   e1         [0, 3)     PER     PER         'Ann'                                              0.67
false_negative    e1         [11, 51)   ORG                 'Royal Society for the Protection of Bird'         0.00
false_positive    e1         [58, 99)   ORG     ORG         'National Aeronautics and Space Admin ...'         0.00
false_negative    e2         [0, 4)     LOC                                                                    0.00
false_positive    e3         [2, 5)     PER     PER         """  # noqa: E501
    + UNPLACED
    + """   0.00
false_negative    e3         [4, 5)     LOC                 gold span not on token boundaries                  0.00
"""  # noqa: E501
)

ERR_SUMMARY = """
Documents: 3
Notes: unaligned gold 1, unaligned predictions 1"""


def test_wide_error_records_show_each_kind_side_text_and_reason():
    assert len(A40) == 40 and len(B41) == 41
    out = result_text(error_result(), errors=10, wide=True)
    assert out == (
        "\n== two_sided · IoU >= 0.9 · char unit\n"
        + ERR_LEDGER
        + "\n"
        + ERR_RECORDS
        + "\n"
        + ERR_SUMMARY
    )


def test_one_threshold_errors_are_titled_without_it():
    out = result_text(error_result(), errors=10)
    table = """
== two_sided · IoU >= 0.9 · char unit
label       gold  pred       P       R      F1
----------  ----  ----  ------  ------  ------
LOC            2     0       -  0.0000  0.0000
ORG            1     1  0.0000  0.0000  0.0000
PER            2     3  0.3333  0.5000  0.4000
-- summary rows, not labels ------------------
micro          5     4  0.2500  0.2000  0.2222
macro                   0.1667  0.1667  0.1333
weighted                0.2222  0.2000  0.1600
any entity     5     4  0.2500  0.2000  0.2222
"""
    assert out == table + ERR_RECORDS + "\n" + ERR_SUMMARY


# -- the strategy's side table -----------------------------------------------------------------

# SemEval-2013 schemas on the main corpus. strict: Ada and Acme correct; Bob (label) and Pari
# (boundary) incorrect; met spurious: P 2/5, R 2/4. exact (boundaries only): 3 correct, Pari
# incorrect. partial: Pari half credit, P 3.5/5, R 3.5/4. ent_type: Pari's label counts, Bob not.
SEMEVAL_SIDE = """SemEval-2013 schemas (as nervaluate), overall:

schema     correct   incorrect   partial   missed   spurious   possible   actual        P        R       F1
--------   -------   ---------   -------   ------   --------   --------   ------   ------   ------   ------
strict           2           2         0        0          1          4        5   0.4000   0.5000   0.4444
exact            3           1         0        0          1          4        5   0.6000   0.7500   0.6667
partial          3           0         1        0          1          4        5   0.7000   0.8750   0.7778
ent_type         3           1         0        0          1          4        5   0.6000   0.7500   0.6667
"""  # noqa: E501


def test_semeval_prints_its_schema_table_under_the_labels():
    result = SpanEvaluator(strategy="semeval").evaluate(main_docs())
    assert result_text(result) == (
        """
== semeval · char unit
label       gold  pred       P       R      F1
----------  ----  ----  ------  ------  ------
LOC            1     2  0.0000  0.0000  0.0000
ORG            1     2  0.5000  1.0000  0.6667
PER            2     1  1.0000  0.5000  0.6667
-- summary rows, not labels ------------------
micro          4     5  0.4000  0.5000  0.4444
macro                   0.5000  0.5000  0.4444
weighted                0.6250  0.5000  0.5000
any entity     4     5  0.6000  0.7500  0.6667
"""
        + SEMEVAL_SIDE
        + "\n"
        + SUMMARY
    )


def test_semeval_wide_prints_its_schema_table_after_the_ledger():
    result = SpanEvaluator(strategy="semeval").evaluate(main_docs())
    out = result_text(result, wide=True)
    assert (
        "any entity      4      5    3    1          3    2   0.6000   0.7500   0.6667\n\n" in out
    )
    assert out.endswith("\n\n" + SEMEVAL_SIDE + "\n" + SUMMARY)


# -- layout ------------------------------------------------------------------------------------


def test_a_long_label_widens_the_wide_label_column_to_its_cap_of_40():
    label = "INTERNATIONAL_NON_GOVERNMENTAL_ORGANISATION_X"  # 45 characters
    doc = Document.create(
        id="n", text="UNICEF and WHO", gold=[(0, 6, label), (11, 14, label)], pred=[(0, 6, label)]
    )
    out = result_text(SpanEvaluator(strategy="exact").evaluate([doc]), wide=True)
    lines = out.split("\n")
    pad = " " * 35  # "micro" and "label" padded to 40
    assert (
        lines[3]
        == "label" + pad + "   gold   pred   TP   FN   credited   FP        P        R       F1"
    )
    assert lines[5] == label + "      2      1    1    1          1    0   1.0000   0.5000   0.6667"
    assert (
        lines[7]
        == "micro" + pad + "      2      1    1    1          1    0   1.0000   0.5000   0.6667"
    )


def test_a_group_title_wider_than_its_columns_widens_the_group_last_column():
    # Columns P, R, F1 of widths 1, 1, 2 span 1+1+2 + 2 gaps of 2 = 8; "IoU >= 0.5" (10) widens
    # F1 by 2, "IoU >= 0.75" (11) the last F1 by 3. The first group (untitled) spans
    # 5+4+4 + 4 = 17 blanks.
    header = ["label", "gold", "pred", "P", "R", "F1", "P", "R", "F1"]
    rows = [["X", "1", "0", "-", "0", "0", "-", "0", "0"]]
    groups = [("", 3), ("IoU >= 0.5", 3), ("IoU >= 0.75", 3)]
    assert _grouped_table(groups, header, rows).split("\n") == [
        " " * 17 + "  IoU >= 0.5  IoU >= 0.75",
        " " * 17 + "  ----------  -----------",
        "label  gold  pred  P  R    F1  P  R     F1",
        "-----  ----  ----  -  -  ----  -  -  -----",
        "X         1     0  -  0     0  -  0      0",
    ]


# -- input notes -------------------------------------------------------------------------------


def test_alignment_by_characters_names_documents_characters_and_spans():
    alignment = {
        "align": "chars",
        "documents": 1234,
        "changed_characters": 56789,
        "spans_over_changes": 2,
        "unplaced_spans": 3,
        "examples": ["document 'a': one", "document 'b': two"],
    }
    assert alignment_line(alignment) == (
        "Texts aligned by characters: 1,234 documents differ from gold in 56,789 "
        "characters; spans on changed characters: 3 predicted not placed (scored as "
        "unaligned), 2 kept; first: document 'a': one; document 'b': two"
    )
    one = {**alignment, "documents": 1, "changed_characters": 1, "examples": []}
    assert alignment_line(one) == (
        "Texts aligned by characters: 1 document differs from gold in 1 character; spans on "
        "changed characters: 3 predicted not placed (scored as unaligned), 2 kept"
    )


def test_alignment_by_position_names_tokens_and_sentences():
    alignment = {
        "align": "position",
        "differing_tokens": 1500,
        "sentences": 2,
        "examples": ["g line 1: 'a' vs p line 1: 'b'", "g line 4: 'c' vs p line 4: 'd'"],
    }
    assert alignment_line(alignment) == (
        "Tokens paired by position: 1,500 predicted tokens in 2 sentences differ from "
        "gold; first: g line 1: 'a' vs p line 1: 'b'; g line 4: 'c' vs p line 4: 'd'"
    )
    one = {**alignment, "differing_tokens": 1, "sentences": 1, "examples": ["x"]}
    assert alignment_line(one) == (
        "Tokens paired by position: 1 predicted token in 1 sentence differs from gold; first: x"
    )
    assert alignment_line({**alignment, "differing_tokens": 0, "examples": []}) == (
        "Tokens paired by position: every predicted token equals its gold token"
    )


def test_alignment_reaches_the_summary_under_its_side():
    inputs = {
        "gold": {"path": "g.conll", "format": "conll", "spans": 4, "repaired": 0},
        "predicted": {
            "path": "p.conll",
            "format": "conll",
            "spans": 1200,
            "repaired": 3,
            "alignment": {
                "align": "position",
                "differing_tokens": 0,
                "sentences": 0,
                "examples": [],
            },
            "notes": {
                "texts differing from gold only in trailing whitespace": 2,
                "predicted documents not in gold left out (--pairs gold)": 1,
            },
        },
    }
    out = result_text(main_result(), inputs=inputs)
    assert out.endswith(
        "\n\nDocuments: 1\n"
        "gold: g.conll (conll, 4 spans, repaired chunks: 0)\n"
        "predicted: p.conll (conll, 1,200 spans, repaired chunks: 3)\n"
        "Tokens paired by position: every predicted token equals its gold token\n"
        "  read: texts differing from gold only in trailing whitespace 2, "
        "predicted documents not in gold left out (--pairs gold) 1\n"
        "Notes: unaligned predictions 0"
    )


ALIGNED = {"align": "position", "differing_tokens": 0, "sentences": 0, "examples": []}


@pytest.mark.parametrize(
    ("info", "line"),
    [
        # tags read into chunks: the repaired ones are always reported, 0 too (semantics §5)
        (
            {"format": "conll", "spans": 4, "repaired": 0},
            "gold: g (conll, 4 spans, repaired chunks: 0)",
        ),
        (
            {"format": "conll", "spans": 1, "repaired": 1},
            "gold: g (conll, 1 span, repaired chunks: 1)",
        ),
        # spans read as spans: no chunks to repair
        ({"format": "jsonl", "spans": 1, "repaired": 0}, "gold: g (jsonl, 1 span)"),
        ({"format": "spacy", "spans": 2001, "repaired": 0}, "gold: g (spacy, 2,001 spans)"),
    ],
)
def test_a_side_names_its_spans_and_repaired_chunks_only_where_tags_are_read(info, line):
    assert summary_lines(main_result(), {"gold": {"path": "g", **info}}) == ["Documents: 1", line]


@pytest.mark.parametrize(
    ("alignment", "notes"),
    [
        (None, []),  # nothing aligned, nothing unaligned: no notes line
        (
            ALIGNED,
            [
                "Tokens paired by position: every predicted token equals its gold token",
                "Notes: unaligned predictions 0",
            ],
        ),
    ],
)
def test_unaligned_predictions_are_counted_where_an_alignment_was_made(alignment, notes):
    info = {"path": "p", "format": "conll", "spans": 5, "repaired": 0}
    inputs = {"predicted": {**info, "alignment": alignment} if alignment else info}
    assert summary_lines(main_result(), inputs)[2:] == notes


def test_documents_carry_thousands_separators():
    docs = [Document.create(id=str(i), text="ab", gold=[(0, 2, "X")], pred=[]) for i in range(2001)]
    assert summary_lines(SpanEvaluator(strategy="exact").evaluate(docs)) == ["Documents: 2,001"]


def test_a_label_opening_with_a_space_keeps_it_and_its_row_stays_aligned():
    doc = Document.create(id="d", text="ab cd", gold=[(0, 2, " PER")], pred=[(0, 2, " PER")])
    lines = result_text(SpanEvaluator(strategy="exact").evaluate([doc])).split("\n")
    assert lines[2:5] == [
        "label       gold  pred       P       R      F1",
        "----------  ----  ----  ------  ------  ------",
        " PER           1     1  1.0000  1.0000  1.0000",
    ]


def test_a_strategy_with_options_names_them_in_the_title():
    result = SpanEvaluator(strategy="overlap", min_gold=0.25, min_pred=0.75).evaluate(zd_docs())
    assert result_text(result).split("\n")[1] == (
        "== overlap · min_gold 0.25, min_pred 0.75 · char unit"
    )


def test_counts_carry_thousands_separators_and_none_is_blank():
    assert [count(n) for n in (None, 0, 999, 1000, 1234567)] == [
        "",
        "0",
        "999",
        "1,000",
        "1,234,567",
    ]


def test_wide_tables_of_every_hierarchy_level_name_their_level():
    out = result_text(hierarchy_result(), wide=True)
    titles = [line for line in out.split("\n") if line.startswith("==")]
    assert titles == [
        "== exact · char unit · level 'labels'",
        "== exact · char unit · level 'kind'",
    ]
    assert "place           1      1    0    1          0    1   0.0000   0.0000   0.0000" in out


# The gate verdict as the CLI prints it: the check table (text and Markdown) and the console
# lines, cell by cell, on a gate with every kind of check: a support count, a figure that holds,
# one breached, one undefined (no predictions) and a label with no gold spans at all.
#
# The corpus is ``zd_docs`` above (two_sided at IoU >= 0.5, beta 2):
#   PER gold 2, recall 1/2 >= 0.5 holds, F2 2.5/4.5 = .5556 >= 0.5 holds
#   LOC gold 1, never predicted: recall 0 < 0.5, precision undefined
#   LONG never occurs: support 0 < 1

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


HEADLINE = (
    "Gate failed: 2 of 4 floors and 1 of 3 support checks of floors.json breached "
    "(two_sided at IoU >= 0.5)"
)
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
        (
            "good",
            "Gate passed: 1 floor and 1 support check of floors hold (two_sided at IoU >= 0.5)",
        )
    ]


# The hints printed under a report, word for word: predicted labels gold never has (with a
# ``--label-map`` example pairing each with the gold label its predictions cover most),
# ``--labels`` found on neither side, and a side most of whose chunks were repaired (IOB1?).
#
# The corpus: ART found (gold 1, predicted 1); LOC (gold 1) and MISC (gold 2) never predicted;
# GPE (1 span, on a MISC span) and ORGS (2 spans, on no gold span) predicted but never in gold.

TEXT = "a b c d e f g h"


def _run(gold, pred):
    doc = Document.create(id="h", text=TEXT, gold=gold, pred=pred)
    return SpanEvaluator(strategy="exact").evaluate([doc]).scores()


def corpus():
    gold = [(0, 1, "ART"), (2, 3, "LOC"), (4, 5, "MISC"), (6, 7, "MISC")]
    pred = [(0, 1, "ART"), (4, 5, "GPE"), (10, 11, "ORGS"), (12, 13, "ORGS")]
    return _run(gold, pred)


MAP_HINT = (
    "Predicted labels never found in gold score 0: GPE (1 span), ORGS (2 spans). If the "
    "systems name a gold label differently, map it with --label-map "
    '(e.g. {"GPE": "MISC"} if they name the same thing).'
)


def test_predicted_only_labels_are_named_with_a_mapping_example():
    assert label_hints(corpus()) == [MAP_HINT]


def test_chosen_labels_on_neither_side_are_named_in_order():
    lines = label_hints(corpus(), ["ART", "XYZ", "LOC", "QQQ"])
    assert lines == [MAP_HINT, "--labels: XYZ, QQQ found in neither gold nor predictions."]


@pytest.mark.parametrize(
    ("gold", "pred", "example"),
    [
        # GPE lies on gold LOC twice and on DATE once: LOC, though DATE sorts first
        (
            [(0, 1, "LOC"), (2, 3, "LOC"), (4, 5, "DATE"), (6, 7, "DATE")],
            [(0, 1, "GPE"), (2, 3, "GPE"), (4, 5, "GPE")],
            ' (e.g. {"GPE": "LOC"} if they name the same thing)',
        ),
        # a tie: the label first in order
        (
            [(0, 1, "LOC"), (2, 3, "FAC")],
            [(0, 1, "GPE"), (2, 3, "GPE")],
            ' (e.g. {"GPE": "FAC"} if they name the same thing)',
        ),
        # each predicted-only label with the gold label it covers
        (
            [(0, 1, "LOC"), (2, 3, "PER")],
            [(0, 1, "GPE"), (2, 3, "PERSON")],
            ' (e.g. {"GPE": "LOC", "PERSON": "PER"} if they name the same thing)',
        ),
        # GPE on no gold span, though LOC is never predicted: no example to give
        ([(0, 1, "ART"), (4, 5, "LOC")], [(0, 1, "ART"), (2, 3, "GPE")], ""),
    ],
)
def test_the_mapping_example_pairs_the_gold_label_the_predictions_cover_most(gold, pred, example):
    (line,) = label_hints(_run(gold, pred))
    assert line.endswith(f"map it with --label-map{example}.")


def test_without_confusion_cells_the_example_names_no_gold_label():
    doc = Document.create(id="h", text=TEXT, gold=[(0, 1, "LOC")], pred=[(0, 1, "GPE")])
    run = SpanEvaluator(strategy="exact", details=False).evaluate([doc]).scores()
    (line,) = label_hints(run)
    assert line.endswith('--label-map (e.g. {"GPE": "GOLD_LABEL"} if they name the same thing).')


@pytest.mark.parametrize(
    ("unit", "counted"), [("char", "GPE (4 characters)"), ("token", "GPE (2 tokens)")]
)
def test_the_token_strategy_hint_counts_positions_in_the_unit(unit, counted):
    # one predicted span: "bb c" in char unit, tokens 1-2 in token unit
    doc = Document.create(id="h", text="a bb c", gold=[(0, 1, "LOC")], pred=[(2, 6, "GPE")])
    if unit == "token":
        gold, pred = [(0, 1, "LOC")], [(1, 3, "GPE")]
        doc = Document.create(id="h", unit="token", length=4, gold=gold, pred=pred)
    result = SpanEvaluator(strategy="token", unit=unit).evaluate([doc])
    (line,) = label_hints(result.scores(), counted=result.settings.counted)
    assert f"score 0: {counted}." in line


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


# -------------------------------------------------------------------------------------------------
# ``-f markdown``, written out whole: the summary list, one heading per table (its level
# says where it sits), the per-threshold column names, right-aligned figures, the strategy's
# side table and the error records, on the corpora above (their figures are worked by hand
# there). The kind tables between them are test_error_kinds_markdown.py's
# subject; they are here because the page runs on through them.
# -------------------------------------------------------------------------------------------------

KINDS_HEADER = (
    "| label | missed | boundary (gold) | wrong label (gold) | FN | spurious | boundary (pred) "
    "| wrong label (pred) | FP |\n"
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
)
KINDS_NOTE = (
    " (the whole corpus: FN = missed + boundary + wrong label, "
    "FP = spurious + boundary + wrong label)\n\n"
)
STRINGS_HEADER = "| label | missed | spurious | relabelled |\n| --- | --- | --- | --- |\n"
ERRORS_HEADER = (
    "| kind | document | span | label | predicted | text | best |\n"
    "| --- | --- | --- | --- | --- | --- | --- |\n"
)


def kinds(where: str, rows: str, strings: str) -> str:
    return (
        f"**Errors by kind{where}**"
        + KINDS_NOTE
        + KINDS_HEADER
        + rows
        + f"\n**Most frequent error strings{where}** (top 10 per label and kind)\n\n"
        + STRINGS_HEADER
        + strings
    )


MAIN_HEAD = """## Span evaluation

- Documents: 1

### two_sided · char unit

| label | gold | pred | P @0.5 | R @0.5 | F1 @0.5 | P @0.9 | R @0.9 | F1 @0.9 |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| LOC | 1 | 2 | 0.5000 | 1.0000 | 0.6667 | 0.0000 | 0.0000 | 0.0000 |
| ORG | 1 | 2 | 0.5000 | 1.0000 | 0.6667 | 0.5000 | 1.0000 | 0.6667 |
| PER | 2 | 1 | 1.0000 | 0.5000 | 0.6667 | 1.0000 | 0.5000 | 0.6667 |
| micro | 4 | 5 | 0.6000 | 0.7500 | 0.6667 | 0.4000 | 0.5000 | 0.4444 |
| macro |  |  | 0.6667 | 0.8333 | 0.6667 | 0.5000 | 0.5000 | 0.4444 |
| weighted |  |  | 0.7500 | 0.7500 | 0.6667 | 0.6250 | 0.5000 | 0.5000 |
| any entity | 4 | 5 | 0.8000 | 1.0000 | 0.8889 | 0.6000 | 0.7500 | 0.6667 |

"""

# At 0.5: met spurious, Bob relabelled (a wrong label on both sides). At 0.9 also Paris/Pari.
MAIN_KINDS_05 = kinds(
    " at τ = 0.5",
    "| LOC | 0 | 0 | 0 | 0 | 1 | 0 | 0 | 1 |\n"
    "| ORG | 0 | 0 | 0 | 0 | 0 | 0 | 1 | 1 |\n"
    "| PER | 0 | 0 | 1 | 1 | 0 | 0 | 0 | 0 |\n"
    "| all labels | 0 | 0 | 1 | 1 | 1 | 0 | 1 | 2 |\n",
    "| LOC |  | met ×1 |  |\n| PER |  |  | Bob → ORG ×1 |",
)
MAIN_KINDS_09 = kinds(
    " at τ = 0.9",
    "| LOC | 0 | 1 | 0 | 1 | 1 | 1 | 0 | 2 |\n"
    "| ORG | 0 | 0 | 0 | 0 | 0 | 0 | 1 | 1 |\n"
    "| PER | 0 | 0 | 1 | 1 | 0 | 0 | 0 | 0 |\n"
    "| all labels | 0 | 1 | 1 | 2 | 1 | 1 | 1 | 3 |\n",
    "| LOC |  | met ×1 |  |\n| PER |  |  | Bob → ORG ×1 |",  # (Paris/Pari: boundary)
)


def test_thresholds_side_by_side_each_with_its_kinds_and_records():
    expected = (
        MAIN_HEAD
        + MAIN_KINDS_05
        + "\n\nFirst 3 of 3 errors at IoU >= 0.5:\n\n"
        + ERRORS_HEADER
        + "| false_positive | d1 | [4, 7) | LOC | LOC | 'met' | 0.00 |\n"
        + "| wrong_label (gold) | d1 | [8, 11) | PER | ORG | 'Bob' | 1.00 |\n"
        + "| wrong_label (pred) | d1 | [8, 11) | ORG | ORG | 'Bob' | 1.00 |\n\n"
        + MAIN_KINDS_09
        + "\n\nFirst 4 of 5 errors at IoU >= 0.9:\n\n"
        + ERRORS_HEADER
        + "| false_positive | d1 | [4, 7) | LOC | LOC | 'met' | 0.00 |\n"
        + "| wrong_label (gold) | d1 | [8, 11) | PER | ORG | 'Bob' | 1.00 |\n"
        + "| wrong_label (pred) | d1 | [8, 11) | ORG | ORG | 'Bob' | 1.00 |\n"
        + "| boundary (pred) | d1 | [23, 27) | LOC | LOC | 'Pari' | 0.80 |"
    )
    assert result_markdown(main_result(), errors=4) == expected


def test_markdown_has_no_error_records_unless_asked():
    assert result_markdown(main_result()) == MAIN_HEAD + MAIN_KINDS_05 + "\n\n" + MAIN_KINDS_09


ERR_HEAD = """## Span evaluation

- Documents: 3
- Notes: unaligned gold 1, unaligned predictions 1

### two_sided · IoU >= 0.9 · char unit

"""
ERR_KINDS = kinds(
    " at τ = 0.9",
    "| LOC | 2 | 0 | 0 | 2 | 0 | 0 | 0 | 0 |\n"
    "| ORG | 1 | 0 | 0 | 1 | 1 | 0 | 0 | 1 |\n"
    "| PER | 0 | 1 | 0 | 1 | 1 | 1 | 0 | 2 |\n"
    "| all labels | 3 | 1 | 0 | 4 | 2 | 1 | 0 | 3 |\n",
    "| ORG | Royal Society for the Protection of Bird ×1 "
    "| National Aeronautics and Space Admin Corp ×1 |  |",  # (Ann/An: boundary)
)
# One threshold: the records' title does not name it (the table's heading does).
MD_ERR_RECORDS = (
    "\n\nFirst 7 of 7 errors:\n\n"
    + ERRORS_HEADER
    + "| boundary (pred) | e1 | [0, 2) | PER | PER | 'An' | 0.67 |\n"
    + "| boundary (gold) | e1 | [0, 3) | PER | PER | 'Ann' | 0.67 |\n"
    + "| false_negative | e1 | [11, 51) | ORG |  | 'Royal Society for the Protection of Bird' "
    + "| 0.00 |\n"
    + "| false_positive | e1 | [58, 99) | ORG | ORG | 'National Aeronautics and Space Admin ...' "
    + "| 0.00 |\n"
    + "| false_negative | e2 | [0, 4) | LOC |  |  | 0.00 |\n"
    + f"| false_positive | e3 | [2, 5) | PER | PER | {UNPLACED} | 0.00 |\n"
    + "| false_negative | e3 | [4, 5) | LOC |  | gold span not on token boundaries | 0.00 |"
)


def test_one_threshold_heading_names_it_and_records_show_every_kind():
    table = """| label | gold | pred | P | R | F1 |
| --- | ---: | ---: | ---: | ---: | ---: |
| LOC | 2 | 0 | - | 0.0000 | 0.0000 |
| ORG | 1 | 1 | 0.0000 | 0.0000 | 0.0000 |
| PER | 2 | 3 | 0.3333 | 0.5000 | 0.4000 |
| micro | 5 | 4 | 0.2500 | 0.2000 | 0.2222 |
| macro |  |  | 0.1667 | 0.1667 | 0.1333 |
| weighted |  |  | 0.2222 | 0.2000 | 0.1600 |
| any entity | 5 | 4 | 0.2500 | 0.2000 | 0.2222 |

"""
    expected = ERR_HEAD + table + ERR_KINDS + MD_ERR_RECORDS
    assert result_markdown(error_result(), errors=10) == expected


def test_wide_ledger_table_and_its_records():
    table = """| label | gold | pred | TP | FN | credited | FP | P | R | F1 |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| LOC | 2 | 0 | 0 | 2 | 0 | 0 | - | 0.0000 | 0.0000 |
| ORG | 1 | 1 | 0 | 1 | 0 | 1 | 0.0000 | 0.0000 | 0.0000 |
| PER | 2 | 3 | 1 | 1 | 1 | 2 | 0.3333 | 0.5000 | 0.4000 |
| micro | 5 | 4 | 1 | 4 | 1 | 3 | 0.2500 | 0.2000 | 0.2222 |
| macro |  |  |  |  |  |  | 0.1667 | 0.1667 | 0.1333 |
| weighted |  |  |  |  |  |  | 0.2222 | 0.2000 | 0.1600 |
| any entity | 5 | 4 | 1 | 4 | 1 | 3 | 0.2500 | 0.2000 | 0.2222 |

"""
    expected = ERR_HEAD + table + ERR_KINDS + MD_ERR_RECORDS
    assert result_markdown(error_result(), errors=10, wide=True) == expected


def test_wide_records_are_capped_without_naming_the_threshold():
    md = result_markdown(main_result(), errors=2, wide=True)
    lines = md.split("\n")
    assert "First 2 of 3 errors:" in lines and "First 2 of 5 errors:" in lines
    assert "at IoU" not in md
    assert lines.count("### two_sided · IoU >= 0.5 · char unit") == 1
    assert lines.count("### two_sided · IoU >= 0.9 · char unit") == 1


def test_semeval_schema_table_follows_the_labels_table():
    result = SpanEvaluator(strategy="semeval").evaluate(main_docs())
    expected = """## Span evaluation

- Documents: 1

### semeval · char unit

| label | gold | pred | P | R | F1 |
| --- | ---: | ---: | ---: | ---: | ---: |
| LOC | 1 | 2 | 0.0000 | 0.0000 | 0.0000 |
| ORG | 1 | 2 | 0.5000 | 1.0000 | 0.6667 |
| PER | 2 | 1 | 1.0000 | 0.5000 | 0.6667 |
| micro | 4 | 5 | 0.4000 | 0.5000 | 0.4444 |
| macro |  |  | 0.5000 | 0.5000 | 0.4444 |
| weighted |  |  | 0.6250 | 0.5000 | 0.5000 |
| any entity | 4 | 5 | 0.6000 | 0.7500 | 0.6667 |

SemEval-2013 schemas (as nervaluate), overall:

| schema | correct | incorrect | partial | missed | spurious | possible | actual | P | R | F1 |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| strict | 2 | 2 | 0 | 0 | 1 | 4 | 5 | 0.4000 | 0.5000 | 0.4444 |
| exact | 3 | 1 | 0 | 0 | 1 | 4 | 5 | 0.6000 | 0.7500 | 0.6667 |
| partial | 3 | 0 | 1 | 0 | 1 | 4 | 5 | 0.7000 | 0.8750 | 0.7778 |
| ent_type | 3 | 1 | 0 | 0 | 1 | 4 | 5 | 0.6000 | 0.7500 | 0.6667 |

""" + kinds(
        "",
        "| LOC | 0 | 1 | 0 | 1 | 1 | 1 | 0 | 2 |\n"
        "| ORG | 0 | 0 | 0 | 0 | 0 | 0 | 1 | 1 |\n"
        "| PER | 0 | 0 | 1 | 1 | 0 | 0 | 0 | 0 |\n"
        "| all labels | 0 | 1 | 1 | 2 | 1 | 1 | 1 | 3 |\n",
        "| LOC |  | met ×1 |  |\n| PER |  |  | Bob → ORG ×1 |",  # (Paris/Pari: boundary)
    )
    assert result_markdown(result) == expected


def test_wide_tables_of_every_hierarchy_level():
    expected = (
        """## Span evaluation

- Documents: 1

### exact · char unit · level 'labels'

| label | gold | pred | TP | FN | credited | FP | P | R | F1 |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| LOC | 1 | 0 | 0 | 1 | 0 | 0 | - | 0.0000 | 0.0000 |
| ORG | 0 | 1 | 0 | 0 | 0 | 1 | 0.0000 | - | 0.0000 |
| PER | 2 | 1 | 1 | 1 | 1 | 0 | 1.0000 | 0.5000 | 0.6667 |
| micro | 3 | 2 | 1 | 2 | 1 | 1 | 0.5000 | 0.3333 | 0.4000 |
| macro |  |  |  |  |  |  | 0.5000 | 0.2500 | 0.2222 |
| weighted |  |  |  |  |  |  | 1.0000 | 0.3333 | 0.4444 |
| any entity | 3 | 2 | 1 | 2 | 1 | 1 | 0.5000 | 0.3333 | 0.4000 |

"""
        + kinds(
            "",
            "| LOC | 1 | 0 | 0 | 1 | 0 | 0 | 0 | 0 |\n"
            "| ORG | 0 | 0 | 0 | 0 | 1 | 0 | 0 | 1 |\n"
            "| PER | 1 | 0 | 0 | 1 | 0 | 0 | 0 | 0 |\n"
            "| all labels | 2 | 0 | 0 | 2 | 1 | 0 | 0 | 1 |\n",
            "| LOC | Rome ×1 |  |  |\n| ORG |  | Oslo ×1 |  |\n| PER | Bo ×1 |  |  |",
        )
        + """

### exact · char unit · level 'kind'

| label | gold | pred | TP | FN | credited | FP | P | R | F1 |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| person | 2 | 1 | 1 | 1 | 1 | 0 | 1.0000 | 0.5000 | 0.6667 |
| place | 1 | 1 | 0 | 1 | 0 | 1 | 0.0000 | 0.0000 | 0.0000 |
| micro | 3 | 2 | 1 | 2 | 1 | 1 | 0.5000 | 0.3333 | 0.4000 |
| macro |  |  |  |  |  |  | 0.5000 | 0.2500 | 0.3333 |
| weighted |  |  |  |  |  |  | 0.6667 | 0.3333 | 0.4444 |
| any entity | 3 | 2 | 1 | 2 | 1 | 1 | 0.5000 | 0.3333 | 0.4000 |

"""
        + kinds(
            "",
            "| person | 1 | 0 | 0 | 1 | 0 | 0 | 0 | 0 |\n"
            "| place | 1 | 0 | 0 | 1 | 1 | 0 | 0 | 1 |\n"
            "| all labels | 2 | 0 | 0 | 2 | 1 | 0 | 0 | 1 |\n",
            "| person | Bo ×1 |  |  |\n| place | Rome ×1 | Oslo ×1 |  |",
        )
    )
    assert result_markdown(hierarchy_result(), wide=True) == expected


def test_each_hierarchy_level_heading_names_its_level():
    lines = result_markdown(hierarchy_result()).split("\n")
    headings = [line for line in lines if line.startswith("#")]
    assert headings == [
        "## Span evaluation",
        "### exact · char unit · level 'labels'",
        "### exact · char unit · level 'kind'",
    ]
    assert "| place | 1 | 1 | 0.0000 | 0.0000 | 0.0000 |" in lines


def test_inputs_are_listed_and_pipes_in_records_escaped():
    doc = Document.create(id="p|q", text="a|b c", gold=[(0, 3, "X")], pred=[])
    result = SpanEvaluator(strategy="exact").evaluate([doc])
    inputs = {"gold": {"path": "g.jsonl", "format": "jsonl", "spans": 1, "repaired": 0}}
    lines = result_markdown(result, errors=1, inputs=inputs).split("\n")
    assert lines[2:5] == ["- Documents: 1", "- gold: g.jsonl (jsonl, 1 span)", ""]
    assert lines[-1] == "| false_negative | p\\|q | [0, 3) | X |  | 'a\\|b' | 0.00 |"


def test_the_strings_table_counts_as_the_score_table_does():
    """Predictions as strings: 1,200 strings (one found nowhere) print with thousands
    separators, like every count of the score table above them."""
    words = [f"w{i:04}" for i in range(1199)]
    pred = [(6 * i, 6 * i + 5, "X") for i in range(len(words))]
    strings = [("X", w) for w in [*words, "nowhere"]]
    unaligned = [(Span(0, 0, "X"), "ungrounded string 'nowhere'")]
    doc = Document.create(
        id="d", text=" ".join(words), gold=[], pred=pred, strings=strings, unaligned_pred=unaligned
    )
    shown = result_text(SpanEvaluator(strategy="exact").evaluate([doc]))
    assert "X           1,200            1   0.0008" in shown
    assert "overall     1,200            1   0.0008" in shown
