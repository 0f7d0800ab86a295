"""Gates (semantics §6): breached floors name label, figure and floor; no gold spans is no pass."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_span_eval import Document, InvalidInputError, SpanEvaluator
from spacy_span_eval.engine.gates import (
    FIGURES,
    Check,
    Floor,
    Floors,
    check_gate,
    exact_figures,
)
from spacy_span_eval.engine.ledger import Ledger
from spacy_span_eval.engine.settings import as_decimal
from spacy_span_eval.engine.spans import Span
from spacy_span_eval.readers.settings_files import load_floors

# SSN: 4 gold, 3 found exactly (recall 0.75), 1 spurious (precision 0.75).
# EMAIL: 2 gold, both found; PHONE: predicted once, never in gold.
GOLD = [
    (0, 5, "SSN"),
    (10, 15, "SSN"),
    (20, 25, "SSN"),
    (30, 35, "SSN"),
    (40, 45, "EMAIL"),
    (50, 55, "EMAIL"),
]
PRED = [
    (0, 5, "SSN"),
    (10, 15, "SSN"),
    (20, 25, "SSN"),
    (60, 65, "SSN"),
    (40, 45, "EMAIL"),
    (50, 55, "EMAIL"),
    (70, 75, "PHONE"),
]


@pytest.fixture(scope="module")
def result():
    doc = Document.create(id="d", length=80, gold=GOLD, pred=PRED)
    return SpanEvaluator(strategy="exact").evaluate([doc])


def gate(floors: dict, **options) -> Floors:
    return Floors.from_dict(
        {"floors": floors, **({"gate": options} if options else {})}, source="floors.json"
    )


def test_floors_that_hold_pass(result):
    verdict = check_gate(
        result,
        gate(
            {
                "SSN": {"recall": 0.75, "precision": 0.7, "f": 0.75, "min_support": 4},
                "EMAIL": {"recall": 1.0},
            }
        ),
    )
    assert verdict.passed and not verdict.breaches
    assert [(c.label, c.figure) for c in verdict.checks] == [
        ("SSN", "support"),
        ("SSN", "recall"),
        ("SSN", "precision"),
        ("SSN", "f"),
        ("EMAIL", "support"),
        ("EMAIL", "recall"),
    ]


@pytest.mark.parametrize(
    "figure,floor,value", [("recall", 0.8, 0.75), ("precision", 0.9, 0.75), ("f", 0.76, 0.75)]
)
def test_a_breached_floor_names_label_figure_value_and_floor(result, figure, floor, value):
    verdict = check_gate(result, gate({"SSN": {figure: floor}, "EMAIL": {"recall": 0.5}}))
    assert not verdict.passed
    (breach,) = verdict.breaches
    assert (breach.label, breach.figure, breach.value, breach.floor) == (
        "SSN",
        figure,
        value,
        Decimal(str(floor)),
    )
    assert breach.describe() == f"SSN {figure} 0.7500 < floor {floor}"


@pytest.mark.parametrize(
    "figure,value,bound,passed,shown",
    [
        ("recall", 0.75, "0.7", True, "0.7500"),  # four decimals when they read right
        ("f", 2 / 3, "0.66667", False, "0.666667"),  # "0.6667 < floor 0.66667" reads as a pass
        ("recall", 0.69996, "0.7", False, "0.69996"),
        ("recall", 0.95, "0.95", True, "0.9500"),  # exactly at the floor holds
        ("ungrounded_rate", 0.0200004, "0.02", False, "0.0200004"),  # a ceiling: above it
        ("ungrounded_rate", 0.02, "0.02", True, "0.0200"),
    ],
)
def test_a_figure_is_shown_on_its_side_of_the_bound(figure, value, bound, passed, shown):
    check = Check("SSN", figure, value, Decimal(bound), passed)
    assert check.shown() == shown
    assert check.describe().split()[2] == shown


def test_min_support_is_a_floor(result):
    verdict = check_gate(result, gate({"EMAIL": {"recall": 0.5, "min_support": 3}}))
    (breach,) = verdict.breaches
    assert (breach.figure, breach.value, breach.floor) == ("support", 2, 3)


@pytest.mark.parametrize("label", ["PHONE", "PASSPORT"])
def test_a_label_without_gold_spans_fails_missing_evidence(result, label):
    verdict = check_gate(result, gate({label: {"precision": 0.0}, "SSN": {"recall": 0.5}}))
    assert not verdict.passed
    (breach,) = verdict.breaches
    assert (breach.label, breach.figure, breach.value) == (label, "support", 0)
    assert "missing evidence" in breach.describe()


def test_an_undefined_figure_fails():
    doc = Document.create(id="d", length=10, gold=[(0, 2, "SSN")], pred=[(3, 5, "X")])
    result = SpanEvaluator(strategy="exact").evaluate([doc])
    verdict = check_gate(result, gate({"SSN": {"precision": 0.0}}))
    (breach,) = verdict.breaches
    assert breach.value is None and "undefined" in breach.describe()


def test_gate_threshold_level_and_strategy(result):
    doc = Document.create(id="d", length=10, gold=[(0, 4, "X")], pred=[(0, 3, "X")])
    two_sided = SpanEvaluator(thresholds=(0.5, 0.9)).evaluate([doc])
    assert check_gate(two_sided, gate({"X": {"recall": 1.0}})).passed  # first: 0.5
    failed = check_gate(two_sided, gate({"X": {"recall": 1.0}}, threshold=0.9))
    assert not failed.passed and failed.threshold == 0.9
    with pytest.raises(InvalidInputError, match="0.75"):
        check_gate(two_sided, gate({"X": {"recall": 1.0}}, threshold=0.75))
    with pytest.raises(InvalidInputError, match="floors are for the 'exact' strategy"):
        check_gate(two_sided, gate({"X": {"recall": 1.0}}, strategy="exact"))
    with pytest.raises(InvalidInputError, match="level 'branch' was not scored"):
        check_gate(result, gate({"X": {"recall": 1.0}}, level="branch"))


@pytest.mark.parametrize(
    "data,why",
    [
        ({}, "'floors' must map"),
        ({"floors": {}}, "'floors' must map"),
        ({"floors": {"X": {"recall": 1.5}}}, "recall floor must be a number in [0, 1]"),
        ({"floors": {"X": {"recall": "high"}}}, "recall floor must be a number"),
        ({"floors": {"X": {"recal": 0.5}}}, "unknown figure 'recal'"),
        ({"floors": {"X": {"min_support": 2.5}}}, "min_support must be a whole number"),
        ({"floors": {"X": {"recall": 0.5, "every": ""}}}, "every must name a slice field"),
        (
            {"floors": {"X": {"recall": 0.5, "every": "span-length"}}},
            "every must name a gold field: span-length slices hold spans, not documents",
        ),
        (
            {"floors": {"X": {"recall": 0.5, "every": "span-length:1,3"}}},
            "every must name a gold field: span-length slices hold spans, not documents",
        ),
        ({"floors": {"X": {"min_slice_support": -1}}}, "min_slice_support must be a whole"),
        ({"floors": {"X": {"min_slice_support": 3}}}, "min_slice_support needs every"),
        ({"floors": {"X": {}}}, "expected figures"),
        ({"floors": {"X": {"recall": 0.5}}, "gate": {"tau": 0.5}}, "'gate' may set"),
        ({"floors": {"X": {"recall": 0.5}}, "extra": 1}, "unknown top-level key(s) extra"),
    ],
)
def test_bad_floors_name_the_file(data, why):
    with pytest.raises(InvalidInputError, match=re.escape(why)) as info:
        Floors.from_dict(data, source="floors.json")
    assert str(info.value).startswith("floors.json: ") and why in str(info.value)


@pytest.mark.parametrize(
    "suffix,text",
    [
        (
            ".json",
            '{"gate": {"threshold": 0.5}, "floors": {"SSN": {"recall": 0.9, "min_support": 10}}}',
        ),
        (
            ".yaml",
            "gate:\n  threshold: 0.5\nfloors:\n  SSN:\n    recall: 0.9\n    min_support: 10\n",
        ),
        (
            ".cfg",
            "[gate]\nthreshold = 0.5\n\n[floors]\n\n[floors.SSN]\nrecall = 0.9\nmin_support = 10\n",
        ),
    ],
)
def test_floors_files(tmp_path, suffix, text):
    path = tmp_path / f"floors{suffix}"
    path.write_text(text)
    floors = load_floors(path)
    assert floors.floors == (Floor("SSN", recall=0.9, min_support=10),)
    assert floors.threshold == 0.5 and floors.source == str(path)


def test_verdict_to_dict_is_json_safe(result):
    import json

    verdict = check_gate(result, gate({"SSN": {"recall": 0.8}, "PHONE": {"recall": 0.1}}))
    data = json.loads(json.dumps(verdict.to_dict()))
    assert data["passed"] is False and data["breaches"] == 2
    assert data["checks"][1] == {
        "label": "SSN",
        "figure": "recall",
        "value": 0.75,
        "floor": 0.8,
        "passed": False,
        "reason": None,
    }


# -- floors are the decimals written (semantics §6)
# ---------------------------------------------------
def nineteen_of_twenty(strategy: str = "exact"):
    """Recall 19/20 (0.95 exactly), precision 19/19."""
    gold = [(i * 3, i * 3 + 2, "SSN") for i in range(20)]
    doc = Document.create(id="d", length=60, gold=gold, pred=gold[:19])
    return SpanEvaluator(strategy=strategy).evaluate([doc])


@pytest.mark.parametrize(
    "suffix,text",
    [
        (".json", '{"floors": {"SSN": {"recall": 0.95, "f": 0.9743589743589743}}}'),
        (".json", '{"floors": {"SSN": {"recall": 0.950}}}'),
        (".yaml", "floors:\n  SSN:\n    recall: 0.95\n"),
        (".cfg", "[floors]\n\n[floors.SSN]\nrecall = 0.95\n"),
    ],
)
def test_recall_19_of_20_meets_a_floor_of_0_95_in_every_format(tmp_path, suffix, text):
    path = tmp_path / f"floors{suffix}"
    path.write_text(text)
    verdict = check_gate(nineteen_of_twenty(), load_floors(path))
    assert verdict.passed, [c.describe() for c in verdict.checks]
    recall = next(c for c in verdict.checks if c.figure == "recall")
    assert str(recall.floor) in ("0.95", "0.950")  # as written


def test_a_floor_just_above_the_figure_fails(tmp_path):
    path = tmp_path / "floors.json"
    path.write_text('{"floors": {"SSN": {"recall": 0.9500000000000001}}}')
    verdict = check_gate(nineteen_of_twenty(), load_floors(path))
    assert not verdict.passed
    assert verdict.breaches[0].describe() == "SSN recall 0.9500 < floor 0.9500000000000001"


def test_floors_given_in_python_are_the_decimals_their_floats_print_as():
    floor = Floor("SSN", recall=0.95, precision=1, f=Decimal("0.97"))
    assert (floor.recall, floor.precision, floor.f) == (Decimal("0.95"), 1, Decimal("0.97"))
    assert check_gate(nineteen_of_twenty(), Floors((floor,))).passed
    with pytest.raises(InvalidInputError, match="recall floor must be a number in"):
        Floor("SSN", recall=float("nan"))


def test_the_gate_table_and_json_show_the_floor_as_written(tmp_path):
    from spacy_span_eval.render.text import verdict_text

    path = tmp_path / "floors.json"
    path.write_text('{"floors": {"SSN": {"recall": 0.95}}}')
    verdict = check_gate(nineteen_of_twenty(), load_floors(path))
    assert "0.95 " in verdict_text(verdict) and "0.9500000000000001" not in verdict_text(verdict)
    assert verdict.to_dict()["checks"][1]["floor"] == 0.95


ledgers = st.builds(
    lambda a, tp, p, cr: Ledger(a, p, min(tp, a), a - min(tp, a), min(cr, p), p - min(cr, p)),
    st.integers(0, 30),
    st.integers(0, 30),
    st.integers(0, 30),
    st.integers(0, 30),
)


@settings(max_examples=300, deadline=None)
@given(ledgers, st.sampled_from([0.5, 1.0, 2.0]), st.sampled_from([None, 0.0, 1.0]))
def test_exact_figures_are_the_ledgers_own(ledger, beta, zero_division):
    exact = exact_figures(ledger, beta, zero_division)
    floats = {
        "recall": ledger.recall(zero_division),
        "precision": ledger.precision(zero_division),
        "f": ledger.f(beta, zero_division),
    }
    for figure, value in floats.items():
        if value is None:
            assert exact[figure] is None, figure
        else:
            assert float(exact[figure]) == pytest.approx(value, abs=1e-12), figure


@pytest.mark.parametrize(
    "gate_options,why",
    [
        ({"strategy": "best"}, "gate.strategy 'best' is not a strategy; use one of two_sided"),
        ({"strategy": 3}, "gate.strategy 3 is not a strategy"),
        ({"threshold": 1.5}, "gate.threshold must be an IoU threshold in (0, 1], not 1.5"),
        ({"threshold": 0}, "gate.threshold must be an IoU threshold in (0, 1], not 0"),
        ({"threshold": "high"}, "gate.threshold must be an IoU threshold in (0, 1], not 'high'"),
        ({"threshold": True}, "gate.threshold must be an IoU threshold"),
        ({"level": ""}, "gate.level must be a level name"),
    ],
)
def test_bad_gate_options_name_the_key(gate_options, why):
    with pytest.raises(InvalidInputError) as info:
        gate({"X": {"recall": 0.5}}, **gate_options)
    assert str(info.value).startswith("floors.json: ") and why in str(info.value)


def test_an_f_floor_met_exactly_passes():
    # 3 gold, 5 predictions, 3 right: P 3/5, R 1, F = 2 * 3/5 / (8/5) = 3/4.
    doc = Document.create(
        id="d",
        length=40,
        gold=[(0, 2, "X"), (4, 6, "X"), (8, 10, "X")],
        pred=[(0, 2, "X"), (4, 6, "X"), (8, 10, "X"), (12, 14, "X"), (16, 18, "X")],
    )
    result = SpanEvaluator(strategy="exact").evaluate([doc])
    assert (result.micro.precision(), result.micro.recall()) == (0.6, 1.0)
    verdict = check_gate(result, gate({"X": {"f": 0.75}}))
    assert verdict.passed, [c.describe() for c in verdict.checks]


def test_a_recall_floor_met_exactly_passes():
    # Recall 19/20 is one correctly rounded division: the same float as the decimal 0.95.
    doc = Document.create(
        id="d",
        length=200,
        gold=[(10 * i, 10 * i + 5, "X") for i in range(20)],
        pred=[(10 * i, 10 * i + 5, "X") for i in range(19)],
    )
    result = SpanEvaluator(strategy="exact").evaluate([doc])
    assert check_gate(result, gate({"X": {"recall": 0.95}})).passed
    assert not check_gate(result, gate({"X": {"recall": 0.951}})).passed


# -- the exact words a user reads ---------------------------------------------------------------
@pytest.mark.parametrize(
    "data,message",
    [
        (
            {"floors": {"X": {"recall": 0.5}}, "extra": 1, "a": 2},
            "floors.json: unknown top-level key(s) a, extra; expected 'floors' and optionally "
            "'gate'",
        ),
        (
            {"floors": {"X": {"recall": 0.5}}, "gate": {"tau": 0.5}},
            "floors.json: 'gate' may set strategy, threshold, level, coverage, one_to_one, "
            "min_gold, min_pred only, found {'tau': 0.5}",
        ),
        (
            {"floors": {}},
            "floors.json: 'floors' must map each gated label to its floors, e.g. "
            '{"SSN": {"recall": 0.95}}',
        ),
        (
            {"floors": {"X": {"recall": 0.5}}, "gate": {"threshold": True}},
            "floors.json: gate.threshold must be an IoU threshold in (0, 1], not True",
        ),
        (
            {"floors": {"X": {"recall": 0.5}}, "gate": {"threshold": "0.5"}},
            "floors.json: gate.threshold must be an IoU threshold in (0, 1], not '0.5'",
        ),
        (
            {"floors": {"": {"recall": 0.5}}},
            "floors.json: floors for '': a label must be a non-empty string",
        ),
        (
            {"floors": {5: {"recall": 0.5}}},
            "floors.json: floors for 5: a label must be a non-empty string",
        ),
        (
            {"floors": {"X": {"recal": 0.5}}},
            "floors.json: floors for 'X': unknown figure 'recal'; use recall, precision, f, "
            "ungrounded_rate, min_support, every or min_slice_support",
        ),
        (
            {"floors": {"X": {"min_support": -1}}},
            "floors.json: floors for 'X': min_support must be a whole number >= 0, not -1",
        ),
    ],
)
def test_bad_floors_messages_word_for_word(data, message):
    with pytest.raises(InvalidInputError, match=f"^{re.escape(message)}$"):
        Floors.from_dict(data, source="floors.json")


def test_a_floor_of_zero_support_is_allowed_and_the_source_defaults_to_floors():
    floors = Floors.from_dict({"floors": {"X": {"min_support": 0}}})
    assert floors.floors == (Floor("X", min_support=0),) and floors.source == "floors"


def test_describe_and_to_dict_word_for_word(result):
    verdict = check_gate(
        result, gate({"PHONE": {"precision": 0.5}, "SSN": {"recall": 0.5, "f": 0.9}})
    )
    assert [c.describe() for c in verdict.checks] == [
        "PHONE support 0 < floor 1 (no gold spans: missing evidence is not a pass)",
        "SSN support 4 >= floor 1",
        "SSN recall 0.7500 >= floor 0.5",
        "SSN f 0.7500 < floor 0.9",
    ]
    assert verdict.to_dict() == {
        "passed": False,
        "floors": "floors.json",
        "strategy": "exact",
        "threshold": None,
        "level": "labels",
        "breaches": 2,
        "checks": [
            {
                "label": "PHONE",
                "figure": "support",
                "value": 0,
                "floor": 1,
                "passed": False,
                "reason": "no gold spans: missing evidence is not a pass",
            },
            {
                "label": "SSN",
                "figure": "support",
                "value": 4,
                "floor": 1,
                "passed": True,
                "reason": None,
            },
            {
                "label": "SSN",
                "figure": "recall",
                "value": 0.75,
                "floor": 0.5,
                "passed": True,
                "reason": None,
            },
            {
                "label": "SSN",
                "figure": "f",
                "value": 0.75,
                "floor": 0.9,
                "passed": False,
                "reason": None,
            },
        ],
    }


def test_an_undefined_figure_is_described_as_such():
    doc = Document.create(id="d", length=10, gold=[(0, 2, "SSN")], pred=[])
    result = SpanEvaluator(strategy="exact").evaluate([doc])
    (_, check) = check_gate(result, gate({"SSN": {"precision": 0.0}})).checks
    assert check.describe() == "SSN precision undefined < floor 0.0 (undefined: no predictions)"


def test_zero_division_given_to_the_evaluation_reaches_the_gate():
    # SSN has gold but no predictions: precision is undefined, unless zero_division says 1.
    doc = Document.create(id="d", length=10, gold=[(0, 2, "SSN")], pred=[])
    result = SpanEvaluator(strategy="exact", zero_division=1.0).evaluate([doc])
    verdict = check_gate(result, gate({"SSN": {"precision": 1.0}}))
    assert verdict.passed and verdict.checks[1].value == 1.0


def test_the_gate_reads_the_hierarchy_level_it_names():
    from spacy_span_eval import Hierarchy

    # A and B both fold into G; at the base level there is no label G at all.
    doc = Document.create(
        id="d", length=20, gold=[(0, 2, "A"), (4, 6, "B")], pred=[(0, 2, "B"), (4, 6, "B")]
    )
    result = SpanEvaluator(
        strategy="exact", hierarchy=Hierarchy({"branch": {"A": "G", "B": "G"}})
    ).evaluate([doc])
    verdict = check_gate(result, gate({"G": {"recall": 1.0}}, level="branch"))
    assert verdict.passed and verdict.level == "branch"
    assert [(c.figure, c.value) for c in verdict.checks] == [("support", 2), ("recall", 1.0)]
    assert not check_gate(result, gate({"A": {"recall": 1.0}})).passed  # labels: A is 0/1


def test_every_floor_is_checked_after_a_label_without_support():
    verdict = check_gate(
        _result(),
        gate({"PHONE": {"recall": 0.5}, "SSN": {"recall": 0.9}, "EMAIL": {"recall": 0.5}}),
    )
    assert [(c.label, c.figure, c.passed) for c in verdict.checks] == [
        ("PHONE", "support", False),
        ("SSN", "support", True),
        ("SSN", "recall", False),
        ("EMAIL", "support", True),
        ("EMAIL", "recall", True),
    ]


def _result():
    doc = Document.create(id="d", length=80, gold=GOLD, pred=PRED)
    return SpanEvaluator(strategy="exact").evaluate([doc])


def test_an_unscored_level_names_the_levels_that_were():
    from spacy_span_eval import Hierarchy

    doc = Document.create(id="d", length=10, gold=[(0, 2, "A")], pred=[(0, 2, "A")])
    result = SpanEvaluator(hierarchy=Hierarchy({"branch": {"A": "G"}})).evaluate([doc])
    with pytest.raises(
        InvalidInputError,
        match=re.escape("floors.json: gate level 'leaf' was not scored (scored: labels, branch)"),
    ):
        check_gate(result, gate({"A": {"recall": 1.0}}, level="leaf"))


# -------------------------------------------------------------------------------------------------
# Gates as values: the headline and breach lines word for word, floors given as decimals,
# ints and strings, the verdict's JSON numbers, exact fractions by hand, and a gate read at the
# evaluation's own beta and ``zero_division``.
#
# The tests above check the floors files and most messages; the ones below pin what the
# mutants of ``engine/gates.py`` left alive there.
# -------------------------------------------------------------------------------------------------

# X: 4 gold, 3 found; 5 predicted, 3 credited: R 3/4, P 3/5, F1 2/3.
GOLD_X = [(0, 2, "X"), (4, 6, "X"), (8, 10, "X"), (12, 14, "X")]
PRED_X = [(0, 2, "X"), (4, 6, "X"), (8, 10, "X"), (16, 18, "X"), (20, 22, "X")]


def doc() -> Document:
    return Document.create(id="d", length=30, gold=GOLD_X, pred=PRED_X)


def evaluate(**settings):
    return SpanEvaluator(**{"strategy": "exact", **settings}).evaluate([doc()])


def gate_without_source(floors: dict, **options) -> Floors:
    return Floors.from_dict({"floors": floors, **({"gate": options} if options else {})})


# -- the lines a user reads -------------------------------------------------------------------
def test_a_passed_gate_is_one_line_naming_the_floors_and_where_they_were_read():
    verdict = check_gate(evaluate(), gate_without_source({"X": {"recall": 0.75, "precision": 0.6}}))
    assert verdict.passed and verdict.breaches == ()
    assert verdict.lines() == ["Gate passed: 2 floors and 1 support check of floors hold (exact)"]


@pytest.mark.parametrize(
    ("floors", "headline"),
    [
        ({"X": {"recall": 0.5}}, "Gate passed: 1 floor and 1 support check of floors hold"),
        ({"X": {"min_support": 4}}, "Gate passed: 1 support check of floors hold"),
        (
            {"X": {"recall": 0.5, "f": 0.5}, "Y": {"min_support": 1}},
            "Gate failed: 0 of 2 floors and 1 of 2 support checks of floors breached",
        ),
        (
            {"X": {"recall": 0.8, "min_support": 5}},
            "Gate failed: 1 of 1 floor and 1 of 1 support check of floors breached",
        ),
    ],
)
def test_the_headline_counts_floors_and_support_checks_apart(floors, headline):
    verdict = check_gate(evaluate(), gate_without_source(floors))
    assert verdict.lines()[0] == f"{headline} (exact)"


def test_a_failed_gate_counts_its_breaches_and_lists_each():
    result = SpanEvaluator(thresholds=(0.5, 0.75)).evaluate([doc()])
    floors = Floors.from_dict(
        {
            "floors": {"X": {"recall": 0.8, "f": 0.6}, "Y": {"recall": 0.1}},
            "gate": {"threshold": 0.75},
        },
        source="gate.json",
    )
    verdict = check_gate(result, floors)
    assert not verdict.passed and len(verdict.breaches) == 2
    assert verdict.lines() == [
        "Gate failed: 1 of 2 floors and 1 of 2 support checks of gate.json breached "
        "(two_sided at IoU >= 0.75)",
        "X recall 0.7500 < floor 0.8",
        "Y support 0 < floor 1 (no gold spans: missing evidence is not a pass)",
    ]
    assert (verdict.strategy, verdict.threshold, verdict.level, verdict.source) == (
        "two_sided",
        0.75,
        "labels",
        "gate.json",
    )


def test_a_check_describes_ints_as_ints_and_ratios_to_four_places():
    assert Check("X", "support", 12, 10, True).describe() == "X support 12 >= floor 10"
    assert Check("X", "f", 2 / 3, Decimal("0.7"), False).describe() == "X f 0.6667 < floor 0.7"
    assert (
        Check("X", "recall", None, Decimal("0"), False, "why").describe()
        == "X recall undefined < floor 0 (why)"
    )


def test_the_verdict_json_keeps_floors_as_written_and_counts_as_ints():
    verdict = check_gate(
        evaluate(), gate_without_source({"X": {"precision": 0.7, "min_support": 5}})
    )
    text = json.dumps(verdict.to_dict())
    assert (
        '"checks": [{"label": "X", "figure": "support", "value": 4, "floor": 5, "passed": false'
        in text
    )
    assert '"value": 0.6, "floor": 0.7, "passed": false' in text
    data = json.loads(text)
    assert type(data["checks"][0]["floor"]) is int and type(data["checks"][1]["floor"]) is float
    assert data["breaches"] == 2 and data["passed"] is False and data["floors"] == "floors"


# -- floors: the decimals written ---------------------------------------------------------------
def test_as_decimal_keeps_what_was_written():
    assert as_decimal(0.1, "f") == Decimal(
        "0.1"
    )  # the float's shortest form, not 0.1000000000000000055...
    assert as_decimal(1, "f") == Decimal(1) and as_decimal(0, "f") == Decimal(0)
    assert as_decimal("0.250", "f") == Decimal("0.250")
    assert str(as_decimal("0.250", "f")) == "0.250"
    assert as_decimal(Decimal("1"), "f") == 1


@pytest.mark.parametrize(
    "value,shown",
    [
        (Decimal("1.5"), "1.5"),
        (Decimal("-0.1"), "-0.1"),
        (Decimal("NaN"), "NaN"),
        (1.5, "1.5"),
        (-1, "-1"),
        ("high", "'high'"),
        ("Infinity", "'Infinity'"),
        (True, "True"),
        (None, "None"),
        ([0.5], "[0.5]"),
    ],
)
def test_as_decimal_refuses_what_is_no_number_in_zero_to_one_showing_it_as_given(value, shown):
    with pytest.raises(InvalidInputError) as info:
        as_decimal(value, "the floor")
    assert str(info.value) == f"the floor must be a number in [0, 1], not {shown}"


def test_a_floor_given_in_python_names_its_label_and_figure_when_refused():
    with pytest.raises(InvalidInputError) as info:
        Floor("SSN", precision=Decimal("1.01"))
    assert (
        str(info.value) == "floors for 'SSN': precision floor must be a number in [0, 1], not 1.01"
    )
    floor = Floor("SSN", f="0.5", recall=None)
    assert floor.f == Decimal("0.5") and floor.recall is None and floor.precision is None


def test_a_gate_threshold_given_as_a_decimal_is_shown_as_written():
    with pytest.raises(InvalidInputError) as info:
        gate_without_source({"X": {"recall": 0.5}}, threshold=Decimal("1.25"))
    assert str(info.value) == "floors: gate.threshold must be an IoU threshold in (0, 1], not 1.25"
    assert gate_without_source({"X": {"recall": 0.5}}, threshold=Decimal("0.75")).threshold == 0.75
    assert gate_without_source({"X": {"recall": 0.5}}, threshold=1).threshold == 1.0


def test_gate_options_are_read_as_given():
    floors = gate_without_source({"X": {"recall": 0.5}}, strategy="exact", level="labels")
    assert (floors.strategy, floors.level, floors.threshold) == ("exact", "labels", None)
    assert Floors.from_dict({"floors": {"X": {"f": 1}}, "gate": None}).strategy is None
    with pytest.raises(InvalidInputError) as info:
        Floors.from_dict({"floors": {"X": {"f": 1}}, "gate": ["threshold"]})
    assert (
        str(info.value)
        == "floors: 'gate' may set strategy, threshold, level, coverage, one_to_one, min_gold, "
        "min_pred only, found ['threshold']"
    )
    with pytest.raises(InvalidInputError) as info:
        gate_without_source({"X": {"recall": 0.5}}, level=3)
    assert str(info.value) == "floors: gate.level must be a level name, not 3"
    with pytest.raises(InvalidInputError) as info:
        Floors.from_dict({"floors": [["X", {"recall": 0.5}]]})
    assert str(info.value).startswith("floors: 'floors' must map each gated label")


@pytest.mark.parametrize(
    "spec,why",
    [
        ({"recall": "0.9"}, "recall floor must be a number in [0, 1], not '0.9'"),
        ({"f": Decimal("2")}, "f floor must be a number in [0, 1], not 2"),
        ({"min_support": True}, "min_support must be a whole number >= 0, not True"),
        ({"min_support": 2.0}, "min_support must be a whole number >= 0, not 2.0"),
        ([0.9], 'expected figures such as {"recall": 0.9}, found [0.9]'),
    ],
)
def test_bad_figures_word_for_word(spec, why):
    with pytest.raises(InvalidInputError) as info:
        Floors.from_dict({"floors": {"X": spec}}, source="f.yaml")
    assert str(info.value) == f"f.yaml: floors for 'X': {why}"


def test_every_figure_and_the_support_floor_are_read():
    floors = gate_without_source(
        {"X": {"recall": 0.25, "precision": 0.5, "f": 1, "min_support": 3}}
    )
    (floor,) = floors.floors
    assert (floor.label, floor.recall, floor.precision, floor.f, floor.min_support) == (
        "X",
        Decimal("0.25"),
        Decimal("0.5"),
        Decimal(1),
        3,
    )
    assert FIGURES == ("recall", "precision", "f")


# -- exact fractions -------------------------------------------------------------------------
def test_exact_figures_by_hand():
    ledger = Ledger(4, 5, tp=3, fn=1, credited=3, fp=2)
    # R 3/4, P 3/5; F1 = 2PR / (P + R) = (18/20) / (27/20) = 2/3
    assert exact_figures(ledger) == {
        "recall": Fraction(3, 4),
        "precision": Fraction(3, 5),
        "f": Fraction(2, 3),
    }
    # F2 = 5 * 3/5 * 3/4 / (4 * 3/5 + 3/4) = (9/4) / (63/20) = 5/7
    assert exact_figures(ledger, beta=2.0)["f"] == Fraction(5, 7)
    # F0.5 = 1.25 * 9/20 / (0.25 * 3/5 + 3/4) = (9/16) / (9/10) = 5/8
    assert exact_figures(ledger, beta=0.5)["f"] == Fraction(5, 8)
    # beta 0.1 is the decimal 1/10, not its binary float
    assert exact_figures(ledger, beta=0.1)["f"] == (1 + Fraction(1, 100)) * Fraction(9, 20) / (
        Fraction(1, 100) * Fraction(3, 5) + Fraction(3, 4)
    )


def test_exact_figures_where_a_ratio_is_undefined():
    no_predictions = Ledger(2, 0, tp=0, fn=2)
    assert exact_figures(no_predictions) == {"recall": 0, "precision": None, "f": 0}
    assert exact_figures(no_predictions, zero_division=1.0) == {
        "recall": 0,
        "precision": 1,
        "f": 0,
    }
    no_gold = Ledger(0, 2, credited=0, fp=2)
    assert exact_figures(no_gold) == {"recall": None, "precision": 0, "f": 0}
    nothing = Ledger()
    assert exact_figures(nothing) == {"recall": None, "precision": None, "f": None}
    assert exact_figures(nothing, zero_division=0.25) == {
        "recall": Fraction(1, 4),
        "precision": Fraction(1, 4),
        "f": Fraction(1, 4),
    }
    zeros = Ledger(1, 1, tp=0, fn=1, credited=0, fp=1)
    assert exact_figures(zeros) == {"recall": 0, "precision": 0, "f": 0}
    assert exact_figures(Ledger(2, 1, tp=2, fn=0, credited=1, fp=0)) == {
        "recall": 1,
        "precision": 1,
        "f": 1,
    }


def test_exact_figures_with_only_precision_or_recall_defined_and_positive():
    only_recall = Ledger(2, 0, tp=0, fn=2)  # recall 0: F 0 whatever zero_division
    assert exact_figures(only_recall, zero_division=0.5)["f"] == 0
    odd = Ledger(0, 3, credited=1, fp=2)  # precision 1/3, recall undefined
    assert exact_figures(odd) == {"recall": None, "precision": Fraction(1, 3), "f": None}
    # zero_division 1/2 stands for the recall: F1 = 2 * 1/3 * 1/2 / (1/3 + 1/2) = 2/5
    assert exact_figures(odd, zero_division=0.5) == {
        "recall": Fraction(1, 2),
        "precision": Fraction(1, 3),
        "f": Fraction(2, 5),
    }


# -- a gate reads the evaluation's own settings ---------------------------------------------------
def test_a_gate_reads_f_at_the_evaluations_beta():
    # F2 of R 3/4, P 3/5 is 5/7 = 0.714...: a floor of 0.71 holds, 0.72 does not; F1 is 2/3.
    result = evaluate(beta=2.0)
    held = check_gate(result, gate_without_source({"X": {"f": 0.71}}))
    assert held.passed and held.checks[1].value == pytest.approx(5 / 7)
    assert not check_gate(result, gate_without_source({"X": {"f": 0.72}})).passed
    assert not check_gate(evaluate(), gate_without_source({"X": {"f": 0.71}})).passed


def test_a_figure_met_exactly_by_its_fraction_passes_and_one_just_above_fails():
    result = evaluate()
    assert check_gate(result, gate_without_source({"X": {"precision": 0.6, "recall": 0.75}})).passed
    failed = check_gate(result, gate_without_source({"X": {"precision": Decimal("0.6000001")}}))
    assert [c.passed for c in failed.checks] == [True, False]
    # F1 is 2/3 exactly: a floor a hair below it holds, a hair above it does not.
    below, above = "0." + "6" * 28, "0." + "6" * 27 + "7"
    assert check_gate(result, gate_without_source({"X": {"f": Decimal(below)}})).passed
    assert not check_gate(result, gate_without_source({"X": {"f": Decimal(above)}})).passed


def test_an_unknown_gate_strategy_lists_every_strategy():
    with pytest.raises(InvalidInputError) as info:
        gate_without_source({"X": {"recall": 0.5}}, strategy="iou")
    assert str(info.value) == (
        "floors: gate.strategy 'iou' is not a strategy; "
        "use one of two_sided, exact, overlap, token, semeval"
    )


def test_the_verdict_json_word_for_word():
    result = SpanEvaluator(thresholds=(0.5, 0.75)).evaluate([doc()])
    verdict = check_gate(
        result, gate_without_source({"X": {"recall": 0.7}}, threshold=0.75, level="labels")
    )
    assert verdict.to_dict() == {
        "passed": True,
        "floors": "floors",
        "strategy": "two_sided",
        "threshold": 0.75,
        "level": "labels",
        "checks": [
            {
                "label": "X",
                "figure": "support",
                "value": 4,
                "floor": 1,
                "passed": True,
                "reason": None,
            },
            {
                "label": "X",
                "figure": "recall",
                "value": 0.75,
                "floor": 0.7,
                "passed": True,
                "reason": None,
            },
        ],
        "breaches": 0,
    }


# -- check_gate: where it reads and what it refuses, word for word ---------------------------------
def test_check_gate_refuses_floors_for_another_strategy_level_or_threshold():
    result = SpanEvaluator(thresholds=(0.5, 0.75)).evaluate([doc()])
    cases = [
        (
            {"strategy": "exact"},
            "floors: the floors are for the 'exact' strategy, but the evaluation used 'two_sided'",
        ),
        ({"level": "coarse"}, "floors: gate level 'coarse' was not scored (scored: labels)"),
        ({"threshold": 0.9}, "floors: threshold 0.9 was not scored; scored: [0.5, 0.75]"),
    ]
    for options, message in cases:
        with pytest.raises(InvalidInputError) as info:
            check_gate(result, gate_without_source({"X": {"recall": 0.5}}, **options))
        assert str(info.value) == message
    assert check_gate(
        result, gate_without_source({"X": {"recall": 0.5}}, strategy="two_sided")
    ).passed


def test_check_gate_names_every_level_scored_and_reads_the_one_named():
    from spacy_span_eval import Hierarchy

    levels = Hierarchy({"coarse": {"X": "ANY"}, "binary": {"X": "ENT"}})
    result = SpanEvaluator(strategy="exact", hierarchy=levels).evaluate([doc()])
    with pytest.raises(InvalidInputError) as info:
        check_gate(result, gate_without_source({"X": {"recall": 0.5}}, level="fine"))
    assert str(info.value) == (
        "floors: gate level 'fine' was not scored (scored: labels, coarse, binary)"
    )
    verdict = check_gate(result, gate_without_source({"ANY": {"recall": 0.75}}, level="coarse"))
    assert verdict.passed and verdict.level == "coarse"
    assert [(c.label, c.figure, c.value) for c in verdict.checks] == [
        ("ANY", "support", 4),
        ("ANY", "recall", 0.75),
    ]


def test_an_every_floor_from_python_names_the_arguments_it_needs():
    floors = gate_without_source({"X": {"recall": 0.5, "every": "meta.src"}})
    result = evaluate(per_document=True)
    with pytest.raises(InvalidInputError) as info:
        check_gate(result, floors)
    assert str(info.value) == (
        "the floors for 'X' hold in every slice of 'meta.src': that needs each document's value "
        "(slices={'meta.src': [value, ...]}, in the documents' order) and per-document counts "
        "(per_document=True)"
    )
    verdict = check_gate(result, floors, slices={"meta.src": ["a"]})
    assert [c.slice for c in verdict.checks if c.slice] == ["meta.src=a", "meta.src=a"]


def test_a_support_floor_met_exactly_passes_and_every_label_is_checked():
    verdict = check_gate(
        evaluate(),
        gate_without_source({"Y": {"recall": 0.5}, "X": {"min_support": 4, "recall": 0.75}}),
    )
    assert [(c.label, c.figure, c.value, c.passed, c.reason) for c in verdict.checks] == [
        ("Y", "support", 0, False, "no gold spans: missing evidence is not a pass"),
        ("X", "support", 4, True, None),
        ("X", "recall", 0.75, True, None),
    ]


def test_an_undefined_precision_fails_with_its_reason_unless_zero_division_fills_it():
    no_predictions = Document.create(id="d", length=10, gold=[(0, 2, "X")], pred=[])
    floors = gate_without_source({"X": {"precision": 0.0, "recall": 0.0, "f": 0.0}})
    verdict = check_gate(SpanEvaluator(strategy="exact").evaluate([no_predictions]), floors)
    assert [(c.figure, c.value, c.passed, c.reason) for c in verdict.checks] == [
        ("support", 1, True, None),
        ("recall", 0.0, True, None),
        ("precision", None, False, "undefined: no predictions"),
        ("f", 0.0, True, None),
    ]
    filled = SpanEvaluator(strategy="exact", zero_division=0.5).evaluate([no_predictions])
    verdict = check_gate(filled, gate_without_source({"X": {"precision": 0.5}}))
    assert verdict.passed and verdict.checks[1].value == 0.5 and verdict.checks[1].reason is None
    assert not check_gate(filled, gate_without_source({"X": {"precision": 0.6}})).passed


# -- a gate's report as a command renders it ----------------------------------------------------
def test_a_gate_report_renders_with_its_verdict_in_every_format_and_on_the_console():
    from spacy_span_eval.jobs.evaluate import Report
    from spacy_span_eval.render.report import check_output_format, json_text, render_outputs

    result = SpanEvaluator(strategy="exact", per_document=True).evaluate([doc()])
    verdict = check_gate(result, gate_without_source({"X": {"recall": 0.8}}))
    report = Report("gate", result, verdict=verdict)
    console = [
        ("fail", "Gate failed: 1 of 1 floor and 0 of 1 support check of floors breached (exact)"),
        ("text", "  X recall 0.7500 < floor 0.8"),
    ]
    as_json = render_outputs(report, "json", documents_format="jsonl")
    assert as_json.report.startswith('{\n  "schema": ')
    data = json.loads(as_json.report)
    assert data["command"] == "gate" and data["gate"]["breaches"] == 1
    assert as_json.console == console and as_json.documents is not None
    text = render_outputs(report)
    assert text.documents is None and text.console == console
    assert text.report.endswith("X       recall    0.7500     0.8   FAIL  \n")
    markdown = render_outputs(report, "markdown", errors=1)
    assert "0.7500" in markdown.report.rsplit("\n\n", 1)[1]  # the verdict table comes last
    assert json_text({"a": [1]}) == '{\n  "a": [\n    1\n  ]\n}'
    with pytest.raises(ValueError):
        json_text({"a": float("nan")})
    with pytest.raises(ValueError) as info:
        check_output_format("xml")
    assert str(info.value) == "unknown output format 'xml'; choose one of text, json, markdown"


def test_rendering_defaults_and_console_hints():
    from spacy_span_eval.jobs.evaluate import Report
    from spacy_span_eval.render.report import render_outputs

    result = SpanEvaluator(strategy="exact").evaluate([doc()])
    verdict = check_gate(result, gate_without_source({"X": {"recall": 0.5}}))
    inputs = {"gold": {"path": "g.conll", "format": "conll", "spans": 4, "repaired": 3}}
    report = Report("gate", result, inputs=inputs, verdict=verdict)
    rendered = render_outputs(report, labels=("Z",))
    assert rendered.console == [
        (
            "warn",
            "hint: gold: 3 of 4 chunks were repaired (most open with I-, as in IOB1 files): "
            "read with --scheme IOB1?",
        ),
        ("warn", "hint: --labels: Z found in neither gold nor predictions."),
        ("good", "Gate passed: 1 floor and 1 support check of floors hold (exact)"),
    ]
    for output_format in ("text", "markdown"):
        plain = render_outputs(report, output_format).report
        assert plain == render_outputs(report, output_format, errors=0, wide=False).report
        assert plain != render_outputs(report, output_format, errors=1).report
        assert plain != render_outputs(report, output_format, wide=True).report


# Choosing score thresholds (semantics §9). SSN: 4 gold; from the highest score down the
# predictions are hit, miss, hit, hit, miss (one gold span never predicted); EMAIL: 1 of 1.
SCORED = Document.create(
    id="d",
    length=80,
    gold=[*GOLD[:4], GOLD[4]],
    pred=[
        Span(0, 5, "SSN", 0.9),
        Span(60, 65, "SSN", 0.8),
        Span(10, 15, "SSN", 0.7),
        Span(20, 25, "SSN", 0.5),
        Span(70, 75, "SSN", 0.4),
        Span(40, 45, "EMAIL", 0.3),
    ],
)


@pytest.fixture(scope="module")
def swept():
    return SpanEvaluator(sweep=True, thresholds=(0.5, 1.0)).evaluate([SCORED])


@pytest.mark.parametrize(
    "floor, score, precision, recall",
    [
        (0.25, 0.9, 1.0, 0.25),
        (0.3, 0.7, 2 / 3, 0.5),  # the highest score whose recall meets the floor
        (0.5, 0.7, 2 / 3, 0.5),
        (0.75, 0.5, 3 / 4, 0.75),
    ],
)
def test_a_recall_floor_is_met_at_the_highest_score_that_meets_it(
    swept, floor, score, precision, recall
):
    verdict = check_gate(swept, gate({"SSN": {"recall": floor}}), choose_thresholds=True)
    assert verdict.passed
    assert verdict.thresholds()["score_thresholds"]["SSN"] == {
        "threshold": score,
        "precision": pytest.approx(precision),
        "recall": recall,
        "f": pytest.approx(2 * precision * recall / (precision + recall)),
    }
    assert verdict.checks[1].score == score


def test_a_recall_floor_out_of_reach_names_the_label_and_its_best_recall(swept):
    verdict = check_gate(
        swept, gate({"SSN": {"recall": 1.0}, "EMAIL": {"recall": 1.0}}), choose_thresholds=True
    )
    assert not verdict.passed
    assert [c.describe() for c in verdict.breaches] == [
        "SSN recall 0.7500 < floor 1.0 at score >= 0.5 (the best recall at any score threshold)"
    ]
    assert list(verdict.thresholds()["score_thresholds"]) == ["EMAIL"]
    assert verdict.thresholds()["spancat_threshold"] is None


@pytest.mark.parametrize(
    "precision_floor, shared",
    [(0.6, 0.3), (0.65, None)],  # at 0.3 SSN keeps 5 predictions, 3 hits: precision 0.6
)
def test_one_threshold_serves_every_label_when_every_floor_holds_at_the_lowest(
    swept, precision_floor, shared
):
    floors = gate({"SSN": {"recall": 0.5, "precision": precision_floor}, "EMAIL": {"recall": 1}})
    verdict = check_gate(swept, floors, choose_thresholds=True)
    assert verdict.passed
    assert {k: v["threshold"] for k, v in verdict.score_thresholds.items()} == {
        "SSN": 0.7,
        "EMAIL": 0.3,
    }
    assert verdict.shared_threshold == shared
    assert verdict.to_dict()["spancat_threshold"] == shared


@pytest.mark.parametrize(
    "other",
    [{"EMAIL": {"recall": 1, "min_support": 2}}, {"PHONE": {"recall": 0.5}}],  # 1 gold, none
)
def test_no_threshold_serves_every_label_when_a_support_floor_fails(swept, other):
    floors = gate({"SSN": {"recall": 0.5}, **other})
    verdict = check_gate(swept, floors, choose_thresholds=True)
    assert not verdict.passed and verdict.score_thresholds["SSN"]["threshold"] == 0.7
    assert verdict.shared_threshold is None


@pytest.mark.parametrize("iou, score", [(0.5, 0.9), (1.0, 0.6)])
def test_thresholds_are_chosen_at_the_gates_iou_threshold(iou, score):
    doc = Document.create(
        id="d",
        length=20,
        gold=[(0, 5, "A"), (10, 15, "A")],
        pred=[Span(0, 4, "A", 0.9), Span(10, 15, "A", 0.6)],  # the first at IoU 0.8
    )
    result = SpanEvaluator(sweep=True, thresholds=(0.5, 1.0)).evaluate([doc])
    verdict = check_gate(
        result, gate({"A": {"recall": 0.5}}, threshold=iou), choose_thresholds=True
    )
    assert verdict.threshold == iou and verdict.score_thresholds["A"]["threshold"] == score


def test_choosing_thresholds_needs_a_sweep_of_the_labels_level(result):
    with pytest.raises(InvalidInputError, match="needs the sweep of the labels level"):
        check_gate(result, gate({"SSN": {"recall": 0.5}}), choose_thresholds=True)


def test_choosing_thresholds_needs_the_sweep_at_the_gates_iou_threshold():
    result = SpanEvaluator(sweep=(0.5,), thresholds=(0.5, 1.0)).evaluate([SCORED])
    with pytest.raises(
        InvalidInputError, match="at the gate's threshold .gate level 'labels', no sweep there"
    ):
        check_gate(result, gate({"SSN": {"recall": 0.5}}, threshold=1.0), choose_thresholds=True)


# -- a ceiling: the share of predicted strings found nowhere (semantics §11) -----------------
@pytest.fixture(scope="module")
def strings_result():
    doc = Document.create(
        id="d",
        text="hello and Bonn here.",
        gold=[(0, 5, "A"), (10, 14, "B")],
        pred=[(0, 5, "A")],
        unaligned_pred=[(Span(0, 0, "A"), "ungrounded string 'Zed'")],
        strings=[("A", "hello"), ("A", "Zed")],
    )
    return SpanEvaluator(strategy="exact").evaluate([doc])


@pytest.mark.parametrize(
    "label,most,passed,described",
    [
        ("A", 0.5, True, "A ungrounded_rate 0.5000 <= most 0.5"),
        ("A", 0.49, False, "A ungrounded_rate 0.5000 > most 0.49"),
        ("B", 1, False, "B ungrounded_rate undefined > most 1 (undefined: no predicted strings)"),
    ],
)
def test_an_ungrounded_rate_is_a_most(strings_result, label, most, passed, described):
    verdict = check_gate(strings_result, gate({label: {"ungrounded_rate": most}}))
    (check,) = [c for c in verdict.checks if c.figure == "ungrounded_rate"]
    assert (check.passed, check.describe()) == (passed, described)
    assert verdict.lines()[-1] == "Ungrounded strings: 1 of 2 (0.5000)"
    assert verdict.to_dict()["ungrounded"] == [1, 2]
    assert strings_result.scores().per_label["A"].fp == 1
