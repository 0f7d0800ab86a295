"""Gates (semantics §6): breached floors name label, figure and floor; no gold spans is no pass."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_span_eval import Document, InvalidInputError, SpanEvaluator
from spacy_span_eval.engine.gates import Floor, Floors, check_gate, exact_figures
from spacy_span_eval.engine.ledger import Ledger
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
            "floors.json: floors for 'X': unknown figure 'recal'; use recall, precision, f or "
            "min_support",
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
