"""One strategy registry: a strategy declares its name, score-key infix, thresholds and
options, and everything else reads them. A new strategy is one class and one registry line."""

from __future__ import annotations

import inspect
import re
from fractions import Fraction

import attrs
import numpy as np
import pytest
from test_settings_merge import SETTINGS_KEYS

from spacy_span_eval import Document, Ledger, Settings, SpanEvaluator
from spacy_span_eval.engine.columns import SpanColumns, group_key, overlap_pairs
from spacy_span_eval.engine.settings import STRATEGY_NAMES
from spacy_span_eval.engine.strategies import (
    BUILT_IN,
    STRATEGIES,
    Cover,
    Match,
    Option,
    Outcome,
    Strategy,
    get_strategy,
    option_default,
    option_names,
    register,
    resolve_options,
)
from spacy_span_eval.engine.strategies.registry import RESERVED_NAMES


class SameStart(Strategy):
    """Toy: an annotation is found by an overlapping prediction of its label that starts at
    most ``slack`` positions away; no one-to-one constraint."""

    name = "same_start"
    infix = "start"
    options = (Option("slack", 0, lambda v: isinstance(v, int) and v >= 0, "an int >= 0"),)
    slack: int

    def match(self, gold, pred, n_labels):
        pg, pp = overlap_pairs(gold, pred, group_key(gold, n_labels), group_key(pred, n_labels))
        ok = np.abs(gold.start[pg] - pred.start[pp]) <= self.slack
        tp = np.zeros(len(gold), dtype=bool)
        tp[pg[ok]] = True
        credited = np.zeros(len(pred), dtype=bool)
        credited[pp[ok]] = True
        return Match(tp[None, :], credited[None, :], tp.astype(float), credited.astype(float))

    def pair_cover(self, gs, ge, ps, pe):
        ok = np.abs(gs - ps) <= self.slack
        return ok.astype(float), np.broadcast_to(ok, (self.n, ok.shape[0]))

    def cover(self, g_start, g_end, cands):
        for i, (s, _) in enumerate(cands):
            if abs(s - g_start) <= self.slack:
                return Cover(1.0, (i,), np.ones(self.n, dtype=bool))
        return Cover(0.0, (), np.zeros(self.n, dtype=bool))


@pytest.fixture
def same_start():
    register(SameStart)  # the one registry line a new strategy needs
    yield SameStart
    del STRATEGIES[SameStart.name]


def docs():
    return [
        Document.create(
            id="d",
            length=12,
            gold=[(0, 3, "PER"), (5, 8, "LOC")],
            pred=[(1, 4, "PER"), (6, 8, "ORG")],
        )
    ]


def test_a_registered_strategy_scores_through_the_evaluator(same_start):
    result = SpanEvaluator(strategy="same_start", slack=1, max_errors=None).evaluate(docs())
    run = result.scores()
    assert run.threshold is None
    assert run.per_label == {
        "PER": Ledger(1, 1, 1, 0, 1, 0),
        "LOC": Ledger(1, 0, 0, 1, 0, 0),
        "ORG": Ledger(0, 1, 0, 0, 0, 1),
    }
    assert run.confusion == {("PER", "PER"): 1, ("LOC", "ORG"): 1}
    assert [(e.kind, e.side) for e in run.errors] == [
        ("wrong_label", "gold"),
        ("wrong_label", "predicted"),
    ]
    settings = result.settings
    assert settings.slack == 1 and settings.option("slack") == 1
    assert settings.to_dict()["slack"] == 1 and settings.to_dict()["strategy"] == "same_start"
    # Its default applies when the option is left out; tallies merge as any other.
    strict = SpanEvaluator(strategy="same_start")
    assert strict.settings.slack == 0
    both = strict.tally(docs()) + strict.tally(docs())
    assert both.result().scores().per_label["PER"] == Ledger(2, 2, 0, 2, 0, 2)


def test_a_registered_strategy_checks_its_options(same_start):
    with pytest.raises(ValueError, match=r"slack must be an int >= 0, not -1"):
        SpanEvaluator(strategy="same_start", slack=-1)
    with pytest.raises(ValueError, match=r"min_gold applies to the overlap strategy only"):
        SpanEvaluator(strategy="same_start", min_gold=0.7)
    with pytest.raises(ValueError, match=r"unknown option 'slak'"):
        SpanEvaluator(strategy="same_start", slak=1)
    with pytest.raises(ValueError, match=r"slack applies to the same_start strategy only"):
        SpanEvaluator(strategy="two_sided", slack=2)


def test_a_registered_strategy_names_its_spacy_score_keys(same_start):
    from spacy.training import Example

    from spacy_doc_factory import make_doc, score_ents

    words = ["Anna", "met", "Bob", "Smith"]
    gold = make_doc(words, ents=["B-PER", "O", "B-PER", "I-PER"])
    pred = make_doc(words, ents=["B-PER", "O", "O", "B-PER"])
    scores = score_ents([Example(pred, gold)], strategy="same_start")
    assert scores["ents_start_r"] == 0.5 and scores["ents_r"] == 0.5
    assert "ents_iou_f" not in scores


def test_register_refuses_ambiguous_names(same_start):
    class Twin(SameStart):
        infix = "twin"

    class Copycat(SameStart):
        name = "copycat"

    class Clash(SameStart):
        name, infix = "clash", "clash"
        options = (Option.fraction("min_gold", 0.9),)

    class Shadow(SameStart):
        name, infix = "shadow", "shadow"
        options = (Option.flag("unit"),)

    for cls, message in (
        (Twin, "name 'same_start' is taken"),
        (Copycat, "infix 'start'"),
        (Clash, "with default 0.5"),
        (Shadow, "'unit' is already a setting"),
    ):
        with pytest.raises(ValueError, match=message):
            register(cls)
    assert set(STRATEGIES) == {*STRATEGY_NAMES, "same_start"}


def test_the_built_in_registry():
    assert (
        STRATEGY_NAMES
        == tuple(cls.name for cls in BUILT_IN)
        == ("two_sided", "exact", "overlap", "token", "semeval")
    )
    assert {name: cls.infix for name, cls in STRATEGIES.items()} == {
        "two_sided": "iou",
        "exact": "exact",
        "overlap": "overlap",
        "token": "token",
        "semeval": "semeval",
    }
    assert [name for name, cls in STRATEGIES.items() if cls.uses_thresholds] == ["two_sided"]
    assert {name: [o.name for o in cls.options] for name, cls in STRATEGIES.items()} == {
        "two_sided": ["coverage", "one_to_one"],
        "exact": [],
        "overlap": ["min_gold", "min_pred"],
        "token": [],
        "semeval": [],
    }
    assert [name for name, cls in STRATEGIES.items() if cls.side_table] == ["semeval"]
    with pytest.raises(ValueError, match="unknown strategy 'nope'; choose one of two_sided"):
        get_strategy("nope")


def test_reserved_names_cover_every_setting_and_evaluator_keyword():
    evaluator = {
        p.name
        for p in inspect.signature(SpanEvaluator).parameters.values()
        if p.kind is p.KEYWORD_ONLY
    }
    options = {o.name for cls in STRATEGIES.values() for o in cls.options}
    assert {f.name for f in attrs.fields(Settings)} <= RESERVED_NAMES | options
    assert evaluator - options <= RESERVED_NAMES


def test_options_of_the_built_in_strategies():
    two_sided = SpanEvaluator(coverage="pooled").settings
    assert two_sided.coverage == "pooled" and two_sided.one_to_one is False
    assert two_sided.min_gold == 0.5  # another strategy's option reads as its default
    overlap = Settings(strategy="overlap", min_gold=0.7)
    assert overlap.strategy_options == (("min_gold", 0.7), ("min_pred", 0.5))
    assert overlap.thresholds == (None,)
    assert list(overlap.to_dict()) == SETTINGS_KEYS
    # Another strategy's option at its default is no choice (SpanEvaluator passes them all).
    assert SpanEvaluator(strategy="exact", coverage="best").settings.strategy == "exact"
    for bad in (
        {"strategy": "exact", "one_to_one": True},
        {"strategy": "overlap", "coverage": "pooled"},
        {"min_gold": 0.7},
        {"strategy": "overlap", "min_pred": 0},
    ):
        with pytest.raises(ValueError):
            SpanEvaluator(**bad)
    with pytest.raises(AttributeError):
        _ = two_sided.no_such_option


@pytest.mark.parametrize("name", [cls.name for cls in BUILT_IN])
def test_match_is_what_run_finds_for_every_built_in_strategy(name):
    """``match`` is part of the strategy interface (``run`` may do more, as collapsing
    duplicates): on a batch without duplicates the two agree."""
    from spacy_span_eval.engine.columns import SpanColumns

    gold = SpanColumns.from_arrays([0, 0, 1], [0, 5, 2], [3, 9, 6], [0, 1, 0])
    pred = SpanColumns.from_arrays([0, 0, 1], [0, 6, 2], [3, 9, 5], [0, 1, 1])
    strategy = get_strategy(name)((0.5,))
    got, want = strategy.match(gold, pred, 2), strategy.run(gold, pred, 2).match
    assert np.array_equal(got.gold_tp, want.gold_tp)
    assert np.array_equal(got.pred_credited, want.pred_credited)


# -------------------------------------------------------------------------------------------------
# The strategy interface and registry as values: options declared, checked and resolved, and
# what ``register`` accepts and refuses, with every message word for word.
#
# The built-in strategies declare their options and register themselves when the package is
# imported, before any test runs, so a test that only goes through them never runs
# ``Option.choice``, ``Option.flag``, ``Option.fraction`` or ``register`` (and mutation testing,
# which swaps functions in after the import, never sees them). Here each test declares its own
# options and registers its own toy strategies, under fresh names, and the registry is put back
# as it was after every test.
# -------------------------------------------------------------------------------------------------

BUILT_IN_NAMES = ["two_sided", "exact", "overlap", "token", "semeval"]


@pytest.fixture(autouse=True)
def registry_as_it_was():
    """Whatever a test registers is gone afterwards; the built-in strategies stay."""
    before = dict(STRATEGIES)
    yield
    STRATEGIES.clear()
    STRATEGIES.update(before)


def toy(name: str, infix: str | None = None, options: tuple[Option, ...] = ()) -> type[Strategy]:
    """A fresh strategy class that has not been registered."""
    return type(
        f"Toy_{name}",
        (Strategy,),
        {"name": name, "infix": infix if infix is not None else f"{name}_key", "options": options},
    )


def message(exc_info) -> str:
    return str(exc_info.value)


# -- Option: declared here, so the constructors run inside the test ------------------------------
def test_a_choice_option_takes_one_of_its_values_and_says_which():
    option = Option.choice("mode", "fast", ("fast", "slow", 3))
    assert (option.name, option.default, option.expected) == (
        "mode",
        "fast",
        "'fast' or 'slow' or 3",
    )
    assert [option.check(v) for v in ("fast", "slow", 3, "Fast", None, 4)] == [
        True,
        True,
        True,
        False,
        False,
        False,
    ]
    option.validate("slow")  # allowed: no error
    with pytest.raises(ValueError) as info:
        option.validate("medium")
    assert message(info) == "mode must be 'fast' or 'slow' or 3, not 'medium'"


def test_a_choice_of_one_value_names_it_alone():
    option = Option.choice("coverage", None, (None,))
    assert option.expected == "None" and option.default is None
    assert option.check(None) and not option.check(0)


def test_a_flag_option_is_false_unless_told_and_takes_only_true_or_false():
    option = Option.flag("strict")
    assert (option.name, option.default, option.expected) == ("strict", False, "True or False")
    assert Option.flag("loose", True).default is True
    assert option.check(True) and option.check(False)
    assert not option.check(None) and not option.check("yes") and not option.check(2)
    with pytest.raises(ValueError) as info:
        option.validate("yes")
    assert message(info) == "strict must be True or False, not 'yes'"


def test_a_fraction_option_takes_a_share_in_zero_exclusive_to_one_inclusive():
    option = Option.fraction("share", 0.25)
    assert (option.name, option.default, option.expected) == ("share", 0.25, "in (0, 1]")
    allowed = [0.5, 1, 1.0, 0.001, Fraction(1, 3)]
    refused = [0, 0.0, -0.5, 1.0000001, 1.5, 2, True, False, "0.5", None]
    assert [option.check(v) for v in allowed] == [True] * len(allowed)
    assert [option.check(v) for v in refused] == [False] * len(refused)
    for bad, shown in ((0, "0"), (True, "True"), (1.5, "1.5"), ("0.5", "'0.5'")):
        with pytest.raises(ValueError) as info:
            option.validate(bad)
        assert message(info) == f"share must be in (0, 1], not {shown}"


def test_a_check_is_given_the_value_itself():
    seen = []
    option = Option("n", 1, lambda v: seen.append(v) or v == 1, "one")
    option.validate(1)
    assert seen == [1]
    with pytest.raises(ValueError, match=r"^n must be one, not 2$"):
        option.validate(2)


# -- Strategy: its options resolved and set ----------------------------------------------------
class Windowed(Strategy):
    """A toy whose ``match`` records what it was given."""

    name = "windowed_toy"
    infix = "windowed_toy"
    options = (Option.choice("side", "left", ("left", "right")), Option("width", 3, bool, "set"))

    def match(self, gold, pred, n_labels):
        self.seen = (gold, pred, n_labels)
        return Match(
            np.ones((1, len(gold)), dtype=bool),
            np.zeros((1, len(pred)), dtype=bool),
            np.full(len(gold), 0.25),
            np.zeros(len(pred)),
        )


def test_a_strategy_sets_each_option_given_or_its_default():
    strategy = Windowed((0.5, 0.75), width=7)
    assert (strategy.side, strategy.width) == ("left", 7)
    assert strategy.thresholds == (0.5, 0.75) and strategy.n == 2
    assert Windowed((None,)).n == 1 and Windowed((None,), side="right").side == "right"
    assert Windowed.resolve_options({"width": 9}) == {"side": "left", "width": 9}
    assert list(Windowed.resolve_options({"width": 9, "side": "right"})) == ["side", "width"]


def test_a_strategy_refuses_an_option_it_does_not_declare_naming_those_it_takes():
    with pytest.raises(ValueError) as info:
        Windowed((None,), widht=2)
    assert message(info) == "the windowed_toy strategy has no option 'widht'; it takes side, width"
    with pytest.raises(ValueError) as info:
        get_strategy("exact")((None,), coverage="best")
    assert message(info) == "the exact strategy has no option 'coverage'"


def test_a_strategy_checks_the_value_given_and_its_default():
    with pytest.raises(ValueError) as info:
        Windowed((None,), side="up")
    assert message(info) == "side must be 'left' or 'right', not 'up'"
    with pytest.raises(ValueError) as info:
        Windowed((None,), width=0)
    assert message(info) == "width must be set, not 0"


def test_run_is_match_on_the_rows_given():
    gold = SpanColumns.from_arrays([0, 0], [0, 4], [2, 6], [0, 1])
    pred = SpanColumns.from_arrays([0], [1], [3], [1])
    strategy = Windowed((None,))
    outcome = strategy.run(gold, pred, 2)
    assert isinstance(outcome, Outcome)
    assert outcome.gold is gold and outcome.pred is pred and outcome.notes == {}
    assert strategy.seen == (gold, pred, 2)
    assert outcome.match.gold_tp.tolist() == [[True, True]]
    assert outcome.match.gold_score.tolist() == [0.25, 0.25]


def test_the_base_strategy_derives_no_side_figures():
    assert Strategy.side_figures("row", {"tp": 1}) == {}
    assert Strategy.describe({"x": 1}) is None


# -- register -------------------------------------------------------------------------------
def test_register_adds_the_class_under_its_name_and_returns_it():
    cls = toy("fresh_one", options=(Option.fraction("min_gold", 0.5), Option.flag("lenient")))
    assert register(cls) is cls
    assert STRATEGIES["fresh_one"] is cls and get_strategy("fresh_one") is cls
    assert list(STRATEGIES) == [*BUILT_IN_NAMES, "fresh_one"]
    # Registering the same class again changes nothing (it does not clash with itself).
    assert register(cls) is cls and list(STRATEGIES) == [*BUILT_IN_NAMES, "fresh_one"]
    assert option_names() == ("coverage", "one_to_one", "min_gold", "min_pred", "lenient")


@pytest.mark.parametrize(
    "attrs,why",
    [
        ({"name": "", "infix": "i"}, "Nameless must declare a non-empty 'name'"),
        ({"name": 5, "infix": "i"}, "Nameless must declare a non-empty 'name'"),
        ({"infix": "i"}, "Nameless must declare a non-empty 'name'"),
        ({"name": "n"}, "Nameless must declare a non-empty 'infix'"),
        ({"name": "n", "infix": ""}, "Nameless must declare a non-empty 'infix'"),
        ({"name": "n", "infix": None}, "Nameless must declare a non-empty 'infix'"),
    ],
)
def test_register_refuses_a_strategy_without_a_name_or_infix(attrs, why):
    cls = type("Nameless", (Strategy,), attrs)
    with pytest.raises(TypeError) as info:
        register(cls)
    assert message(info) == why
    assert list(STRATEGIES) == BUILT_IN_NAMES


def test_register_refuses_a_taken_name_or_infix_naming_the_owner():
    with pytest.raises(ValueError) as info:
        register(toy("overlap", infix="overlap_two"))
    assert message(info) == "strategy name 'overlap' is taken by Overlap"
    with pytest.raises(ValueError) as info:
        register(toy("token_two", infix="token"))
    assert message(info) == "score-key infix 'token' is taken by the token strategy"
    register(toy("mine"))
    with pytest.raises(ValueError) as info:
        register(toy("mine", infix="other"))
    assert message(info) == "strategy name 'mine' is taken by Toy_mine"
    assert list(STRATEGIES) == [*BUILT_IN_NAMES, "mine"]


def test_register_refuses_an_option_named_like_a_setting():
    for setting in ("strategy", "thresholds", "unit", "beta", "labels", "strategy_options"):
        with pytest.raises(ValueError) as info:
            register(toy("shadow", options=(Option.flag("lenient"), Option.flag(setting))))
        assert message(info) == f"shadow: option {setting!r} is already a setting"
    assert "shadow" not in STRATEGIES


def test_register_refuses_a_default_its_own_check_refuses():
    with pytest.raises(ValueError) as info:
        register(toy("bad_default", options=(Option.fraction("reach", 0),)))
    assert message(info) == "reach must be in (0, 1], not 0"
    # A default of None is refused by a check that refuses None.
    with pytest.raises(ValueError) as info:
        register(toy("bad_none", options=(Option.flag("lenient", None),)))
    assert message(info) == "lenient must be True or False, not None"
    assert list(STRATEGIES) == BUILT_IN_NAMES


def test_an_option_shared_with_another_strategy_must_share_its_default():
    # overlap declares min_gold = 0.5: the same default is one option, another is refused.
    same = toy("same_share", options=(Option.fraction("min_gold", 0.5),))
    assert register(same) is same
    with pytest.raises(ValueError) as info:
        register(toy("clash", options=(Option.flag("fresh"), Option.fraction("min_gold", 0.9))))
    assert message(info) == (
        "clash: option 'min_gold' is declared by another strategy with default 0.5, not 0.9"
    )
    with pytest.raises(ValueError) as info:
        register(toy("clash2", options=(Option.choice("one_to_one", True, (True, False)),)))
    assert message(info) == (
        "clash2: option 'one_to_one' is declared by another strategy with default False, not True"
    )
    assert list(STRATEGIES) == [*BUILT_IN_NAMES, "same_share"]


def test_registering_a_changed_strategy_again_checks_it_against_the_others():
    first = toy("first_toy", options=(Option("reach", 0, lambda v: v >= 0, ">= 0"),))
    second = toy("second_toy", options=(Option("reach", 0, lambda v: v >= 0, ">= 0"),))
    register(first)
    register(second)
    # first, registered before second, now declares another default and second's infix.
    first.options = (Option("reach", 4, lambda v: v >= 0, ">= 0"),)
    with pytest.raises(ValueError) as info:
        register(first)
    assert message(info) == (
        "first_toy: option 'reach' is declared by another strategy with default 0, not 4"
    )
    first.options = ()
    first.infix = "second_toy_key"
    with pytest.raises(ValueError) as info:
        register(first)
    assert message(info) == "score-key infix 'second_toy_key' is taken by the second_toy strategy"


# -- reading the registry -----------------------------------------------------------------------
def test_get_strategy_lists_the_choices_when_the_name_is_unknown():
    assert get_strategy("overlap").name == "overlap"
    for bad in ("nope", ["exact"]):
        with pytest.raises(ValueError) as info:
            get_strategy(bad)
        assert message(info) == (
            f"unknown strategy {bad!r}; choose one of two_sided, exact, overlap, token, semeval"
        )


def test_option_default_reads_the_declaring_strategy():
    assert option_default("coverage") == "best"
    assert option_default("one_to_one") is False
    assert option_default("min_pred") == 0.5
    with pytest.raises(KeyError) as info:
        option_default("slack")
    assert info.value.args == ("slack",)
    overlap = get_strategy("overlap")
    with pytest.raises(KeyError):
        option_default("min_gold", exclude=overlap)
    assert option_default("coverage", exclude=overlap) == "best"


def test_resolve_options_keeps_its_own_and_accepts_others_at_their_default():
    assert resolve_options("overlap", {"min_gold": 0.7, "coverage": "best"}) == {
        "min_gold": 0.7,
        "min_pred": 0.5,
    }
    assert resolve_options("two_sided", {"one_to_one": True, "min_pred": 0.5}) == {
        "coverage": "best",
        "one_to_one": True,
    }
    assert resolve_options("exact", {}) == {}


@pytest.mark.parametrize(
    "strategy,given,why",
    [
        ("exact", {"min_gold": 0.7}, "min_gold applies to the overlap strategy only, not to exact"),
        (
            "overlap",
            {"min_gold": 0.7, "coverage": "pooled"},
            "coverage applies to the two_sided strategy only, not to overlap",
        ),
        ("exact", {"slack": 1}, "unknown option 'slack' (no strategy takes it)"),
        ("overlap", {"min_pred": 0}, "min_pred must be in (0, 1], not 0"),
        ("nope", {}, "unknown strategy 'nope'; choose one of two_sided, exact, overlap, token, "),
    ],
)
def test_resolve_options_refusals_word_for_word(strategy, given, why):
    with pytest.raises(ValueError) as info:
        resolve_options(strategy, given)
    assert message(info).startswith(why)


def test_an_option_two_strategies_declare_names_both_owners():
    register(toy("gold_share", options=(Option.fraction("min_gold", 0.5),)))
    with pytest.raises(ValueError, match=re.escape("token")) as info:
        resolve_options("token", {"min_gold": 0.6})
    assert message(info) == (
        "min_gold applies to the overlap and gold_share strategy only, not to token"
    )
    assert resolve_options("gold_share", {"min_gold": 0.6}) == {"min_gold": 0.6}


def test_same_boundary_strategies_match_as_they_run():
    # gold 0..3 X and 5..9 Y (doc 0), 2..6 X (doc 1); predictions: 0..3 X (found), 5..9 X
    # (wrong label), 2..6 X in doc 0 (wrong document).
    gold = SpanColumns.from_arrays([0, 0, 1], [0, 5, 2], [3, 9, 6], [0, 1, 0])
    pred = SpanColumns.from_arrays([0, 0, 0], [0, 5, 2], [3, 9, 6], [0, 0, 0])
    for name in ("exact", "semeval"):
        match = get_strategy(name)((None,)).match(gold, pred, 2)
        assert match.gold_tp.tolist() == [[True, False, False]], name
        assert match.pred_credited.tolist() == [[True, False, False]], name


def test_overlap_names_its_shares_in_a_title():
    overlap = get_strategy("overlap")
    assert overlap.describe({"min_gold": 0.75, "min_pred": 1.0}) == "min_gold 0.75, min_pred 1"
    assert overlap.describe({"min_gold": 0.5, "min_pred": 0.125}) == "min_gold 0.5, min_pred 0.125"


# -- covers: how another label's predictions cover an annotation (confusion cells) ------------
def cover_of(strategy, g_start, g_end, cands):
    c = strategy.cover(g_start, g_end, cands)
    return c.score, c.selection, c.passes.tolist()


def test_an_exact_cover_is_the_first_candidate_with_the_same_boundaries():
    exact = get_strategy("exact")((None, None))
    assert cover_of(exact, 1, 4, [(0, 3), (1, 4), (1, 4)]) == (1.0, (1,), [True, True])
    assert cover_of(exact, 1, 4, [(1, 5), (0, 4), (2, 4)]) == (0.0, (), [False, False])
    assert cover_of(exact, 1, 4, []) == (0.0, (), [False, False])
    score, passes = exact.pair_cover(
        np.array([0, 2, 5]), np.array([3, 4, 9]), np.array([0, 2, 5]), np.array([3, 5, 8])
    )
    assert score.tolist() == [1.0, 0.0, 0.0]
    assert passes.tolist() == [[True, False, False], [True, False, False]]


def test_an_overlap_cover_takes_the_largest_share_of_the_gold_span_then_of_itself():
    overlap = get_strategy("overlap")((None,))
    # gold [0, 10): [0, 4) covers 0.4 of it (too little); [2, 8) 0.6; [0, 10) all; [5, 15)
    # half of each (exactly at both floors).
    assert cover_of(overlap, 0, 10, [(0, 4), (2, 8), (0, 10), (5, 15)]) == (1.0, (2,), [True])
    assert cover_of(overlap, 0, 10, [(0, 4), (5, 15)]) == (0.5, (1,), [True])
    # equal share of the gold span: the larger share of the candidate wins ([0, 10) of itself 1)
    assert cover_of(overlap, 0, 10, [(0, 12), (0, 10)]) == (1.0, (1,), [True])
    assert cover_of(overlap, 2, 8, [(0, 12), (2, 9)]) == (1.0, (1,), [True])
    # equal shares both ways: the earlier start, whichever order the candidates come in
    assert cover_of(overlap, 0, 10, [(4, 10), (0, 6)]) == (0.6, (1,), [True])
    assert cover_of(overlap, 0, 10, [(0, 6), (4, 10)]) == (0.6, (0,), [True])
    assert cover_of(overlap, 0, 10, [(0, 4), (6, 10)]) == (0.0, (), [False])
    assert cover_of(overlap, 0, 10, []) == (0.0, (), [False])


def test_an_overlap_cover_reads_both_floors():
    overlap = get_strategy("overlap")
    strict_pred = overlap((None, None), min_gold=0.5, min_pred=0.9)
    # [0, 12) covers all of [0, 10) but only 10/12 of it lies in gold
    assert cover_of(strict_pred, 0, 10, [(0, 12)]) == (0.0, (), [False, False])
    assert cover_of(strict_pred, 0, 10, [(0, 12), (1, 10)]) == (0.9, (1,), [True, True])
    strict_gold = overlap((None,), min_gold=0.8, min_pred=0.5)
    assert cover_of(strict_gold, 0, 10, [(2, 9)]) == (0.0, (), [False])
    assert cover_of(strict_gold, 0, 10, [(2, 10)]) == (0.8, (0,), [True])
    score, passes = strict_gold.pair_cover(
        np.array([0, 0, 0]), np.array([10, 10, 10]), np.array([2, 2, 0]), np.array([9, 10, 21])
    )
    # [2, 9): 0.7 of gold; [2, 10): 0.8; [0, 21): all of gold but 10/21 < 0.5 of itself
    assert score.tolist() == [0.0, 0.8, 0.0]
    assert passes.tolist() == [[False, True, False]]


def test_covers_say_where_they_pass_in_booleans_and_take_the_first_of_identical_candidates():
    exact = get_strategy("exact")((None, None))
    overlap = get_strategy("overlap")((None, None))
    for strategy in (exact, overlap):
        for cands in ([(0, 10), (0, 10)], [(20, 30)]):
            cover = strategy.cover(0, 10, cands)
            assert cover.passes.dtype == bool and cover.passes.shape == (2,)
        assert strategy.cover(0, 10, [(0, 10), (0, 10)]).selection == (0,)
        _, passes = strategy.pair_cover(
            np.array([0]), np.array([10]), np.array([0]), np.array([10])
        )
        assert passes.dtype == bool and passes.shape == (2, 1)
    # A pair at exactly half of the prediction passes min_pred 0.5.
    score, passes = overlap.pair_cover(np.array([0]), np.array([10]), np.array([0]), np.array([20]))
    assert score.tolist() == [1.0] and passes.tolist() == [[True], [True]]
