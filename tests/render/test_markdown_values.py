"""``-f markdown``, written out whole: the summary list, one heading per table (its level
says where it sits), the per-threshold column names, right-aligned figures, the strategy's
side table and the error records, on the corpora of test_text_table_values.py (their figures
are worked by hand there). The kind tables between them are test_error_kinds_markdown.py's
subject; they are here because the page runs on through them."""

from __future__ import annotations

from test_text_table_values import (
    UNPLACED,
    error_result,
    hierarchy_result,
    main_docs,
    main_result,
)

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.render.text import result_markdown

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
- Notes: unaligned predictions 0

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
    "| LOC | Paris ×1 | Pari ×1; met ×1 |  |\n| PER |  |  | Bob → ORG ×1 |",
)


def test_thresholds_side_by_side_each_with_its_kinds_and_records():
    expected = (
        MAIN_HEAD
        + MAIN_KINDS_05
        + "\n\nFirst 3 of 3 errors at IoU >= 0.5:\n\n"
        + ERRORS_HEADER
        + "| false_positive | d1 | [4, 7) | LOC | LOC | 'met' | 0.00 |\n"
        + "| wrong_label | d1 | [8, 11) | PER | ORG | 'Bob' | 0.00 |\n"
        + "| false_positive | d1 | [8, 11) | ORG | ORG | 'Bob' | 0.00 |\n\n"
        + MAIN_KINDS_09
        + "\n\nFirst 4 of 5 errors at IoU >= 0.9:\n\n"
        + ERRORS_HEADER
        + "| false_positive | d1 | [4, 7) | LOC | LOC | 'met' | 0.00 |\n"
        + "| wrong_label | d1 | [8, 11) | PER | ORG | 'Bob' | 0.00 |\n"
        + "| false_positive | d1 | [8, 11) | ORG | ORG | 'Bob' | 0.00 |\n"
        + "| boundary (pred) | d1 | [23, 27) | LOC | LOC | 'Pari' | 0.80 |"
    )
    assert result_markdown(main_result(), errors=4) == expected


def test_no_error_records_unless_asked():
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
    "| National Aeronautics and Space Admin Corp ×1 |  |\n"
    "| PER | Ann ×1 | An ×1 |  |",
)
# One threshold: the records' title does not name it (the table's heading does).
ERR_RECORDS = (
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
    expected = ERR_HEAD + table + ERR_KINDS + ERR_RECORDS
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
    expected = ERR_HEAD + table + ERR_KINDS + ERR_RECORDS
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
- Notes: unaligned predictions 0

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
        "| LOC | Paris ×1 | Pari ×1; met ×1 |  |\n| PER |  |  | Bob → ORG ×1 |",
    )
    assert result_markdown(result) == expected


def test_wide_tables_of_every_hierarchy_level():
    expected = (
        """## Span evaluation

- Documents: 1
- Notes: unaligned predictions 0

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
    assert lines[2:5] == [
        "- Documents: 1",
        "- gold: g.jsonl (jsonl, 1 spans, repaired chunks: 0)",
        "- Notes: unaligned predictions 0",
    ]
    assert lines[-1] == "| false_negative | p\\|q | [0, 3) | X |  | 'a\\|b' | 0.00 |"
