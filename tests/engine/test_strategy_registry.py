"""One strategy registry: a strategy declares its name, score-key infix, thresholds and
options, and everything else reads them. A new strategy is one class and one registry line."""

from __future__ import annotations

import inspect

import attrs
import numpy as np
import pytest

from spacy_span_eval import Document, Ledger, Settings, SpanEvaluator
from spacy_span_eval.engine.columns import group_key, overlap_pairs
from spacy_span_eval.engine.settings import STRATEGY_NAMES
from spacy_span_eval.engine.strategies import (
    BUILT_IN,
    STRATEGIES,
    Cover,
    Match,
    Option,
    Strategy,
    get_strategy,
    register,
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
    assert [e.kind for e in run.errors] == ["wrong_label", "false_positive"]
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

    from spacy_span_eval.adapters.scorers import score_ents

    from spacy_doc_factory import make_doc

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
    assert list(overlap.to_dict()) == [
        "strategy",
        "thresholds",
        "unit",
        "coverage",
        "one_to_one",
        "min_gold",
        "min_pred",
        "beta",
        "zero_division",
        "max_errors",
        "context",
        "levels",
        "per_document",
        "label_map",
        "hierarchy",
    ]
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
