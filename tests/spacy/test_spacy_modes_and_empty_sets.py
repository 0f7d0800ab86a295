"""Both key modes select models on the shipped score weights, and an evaluation with nothing
to score gives spaCy's answer (``None`` figures), through ``nlp.evaluate`` and spaCy's
training evaluation, in both modes, for the ents and spans scorers and the component."""

from __future__ import annotations

from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example
from spacy.training.loop import create_evaluation_callback
from thinc.api import Config

ROOT = Path(__file__).resolve().parents[2]
WORDS = ["Jo", "Smith", "visited", "New", "York", "today"]
GOLD = ["B-PER", "I-PER", "O", "B-LOC", "I-LOC", "O"]
# "Smith" covers 5 of the 8 characters of "Jo Smith" (IoU 0.625); "New York" is exact:
# two-sided P 1, R 1, F 1; exact P 1/2, R 1/2, F 1/2.
PATTERNS = [{"label": "PER", "pattern": "Smith"}, {"label": "LOC", "pattern": "New York"}]
NO_MATCH = [{"label": "LOC", "pattern": "Zzyzx"}]  # a ruler that finds nothing here
ENTS_SCORER = "spacy_span_eval.ents_scorer.v1"
SPANS_SCORER = "spacy_span_eval.spans_scorer.v1"


def shipped_weights() -> dict:
    """``[training.score_weights]`` of configs/ner.cfg."""
    return dict(Config().from_disk(ROOT / "configs" / "ner.cfg")["training"]["score_weights"])


def ent_ruler(mode: str, patterns=PATTERNS):
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler", config={"scorer": {"@scorers": ENTS_SCORER, "mode": mode}})
    ruler.add_patterns(patterns)
    return nlp


def gold_examples(nlp) -> list[Example]:
    gold = Doc(nlp.vocab, words=WORDS, ents=GOLD)
    return [Example(nlp.make_doc(gold.text), gold)]


# -- replace mode still writes the keys the shipped score weights select on --------------------
@pytest.mark.parametrize("mode", ["add", "replace"])
def test_the_shipped_score_weights_select_models_in_both_modes(mode):
    nlp = ent_ruler(mode)
    weights = shipped_weights()
    score, scores = create_evaluation_callback(nlp, lambda _nlp: gold_examples(nlp), weights)()
    assert scores["ents_iou_f"] == pytest.approx(1.0)
    assert score == pytest.approx(1.0)  # ents_iou_f, weight 1.0: not a silent 0.0
    for key, weight in weights.items():
        if weight is not None:
            assert key in scores, key


def test_replace_mode_writes_the_strategy_keys_under_both_names():
    scores = ent_ruler("replace").evaluate(gold_examples(ent_ruler("replace")))
    for k in ("p", "r", "f", "per_type"):
        assert scores[f"ents_iou_{k}"] == scores[f"ents_{k}"]
    assert scores["ents_iou_f"] == pytest.approx(1.0)
    assert scores["ents_exact_f"] == pytest.approx(0.5)


def test_replace_mode_writes_the_strategy_keys_for_span_groups_too():
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe(
        "span_ruler",
        config={
            "spans_key": "sc",
            "scorer": {"@scorers": SPANS_SCORER, "spans_key": "sc", "mode": "replace"},
        },
    )
    ruler.add_patterns(PATTERNS)
    gold = Doc(nlp.vocab, words=WORDS, ents=GOLD)
    gold.spans["sc"] = list(gold.ents)
    scores = nlp.evaluate([Example(nlp.make_doc(gold.text), gold)])
    assert scores["spans_sc_iou_f"] == scores["spans_sc_f"] == pytest.approx(1.0)
    assert scores["spans_sc_exact_f"] == pytest.approx(0.5)


# -- nothing to score: spaCy's None figures, never an error -------------------------------------
def unannotated_examples(nlp) -> list[Example]:
    """A dev set without NER annotation (no ENT_IOB at all, no span group)."""
    return [Example(nlp.make_doc(t), nlp.make_doc(t)) for t in ("Jo runs", "It rains")]


def clean_examples(nlp) -> list[Example]:
    """Annotated, with no entity in it; a model that rightly finds nothing."""
    out = []
    for text in ("Jo runs", "It rains"):
        gold = nlp.make_doc(text)
        gold.set_ents([], default="outside")
        gold.spans["sc"] = []
        out.append(Example(nlp.make_doc(text), gold))
    return out


EMPTY_SETS = [(unannotated_examples, 2.0), (clean_examples, 0.0)]


@pytest.mark.parametrize(("examples", "unannotated"), EMPTY_SETS)
@pytest.mark.parametrize("mode", ["add", "replace"])
def test_ents_scorer_with_nothing_to_score_reports_none_like_spacy(mode, examples, unannotated):
    ours_nlp = ent_ruler(mode, patterns=NO_MATCH)
    stock = spacy.blank("en")
    stock.add_pipe("entity_ruler").add_patterns(NO_MATCH)
    theirs = stock.evaluate(examples(stock))
    assert theirs["ents_f"] is None and theirs["ents_per_type"] is None  # spaCy's contract
    ours = ours_nlp.evaluate(examples(ours_nlp))
    for key in ("ents_p", "ents_r", "ents_f", "ents_per_type"):
        assert ours[key] is None, key  # add: spaCy's own keys, unchanged; replace: ours
    for key in ("ents_iou_p", "ents_iou_r", "ents_iou_f", "ents_iou_per_type"):
        assert ours[key] is None, key
    if mode == "replace":
        assert ours["ents_exact_f"] is None and ours["ents_exact_per_type"] is None
    assert ours["ents_unannotated"] == unannotated
    assert ours["ents_unaligned"] == 0.0


@pytest.mark.parametrize(("examples", "unannotated"), EMPTY_SETS)
@pytest.mark.parametrize("mode", ["add", "replace"])
def test_spans_scorer_with_nothing_to_score_reports_none_like_spacy(mode, examples, unannotated):
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "span_ruler",
        config={
            "spans_key": "sc",
            "scorer": {"@scorers": SPANS_SCORER, "spans_key": "sc", "mode": mode},
        },
    ).add_patterns(NO_MATCH)
    stock = spacy.blank("en")
    stock_scorer = {"@scorers": "spacy.overlapping_labeled_spans_scorer.v1", "spans_key": "sc"}
    stock.add_pipe("span_ruler", config={"spans_key": "sc", "scorer": stock_scorer})
    stock.get_pipe("span_ruler").add_patterns(NO_MATCH)
    theirs = stock.evaluate(examples(stock))
    ours = nlp.evaluate(examples(nlp))
    for key in ("spans_sc_p", "spans_sc_r", "spans_sc_f", "spans_sc_per_type"):
        assert theirs[key] is None and ours[key] is None, key
    assert ours["spans_sc_iou_f"] is None and ours["spans_sc_iou_per_type"] is None
    assert ours["spans_sc_unannotated"] == unannotated


def test_several_thresholds_and_side_tables_are_none_too():
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "entity_ruler",
        config={"scorer": {"@scorers": ENTS_SCORER, "thresholds": [0.5, 0.75]}},
    ).add_patterns(NO_MATCH)
    scores = nlp.evaluate(clean_examples(nlp))
    assert scores["ents_iou50_f"] is None and scores["ents_iou75_per_type"] is None
    semeval = spacy.blank("en")
    semeval.add_pipe(
        "entity_ruler", config={"scorer": {"@scorers": ENTS_SCORER, "strategy": "semeval"}}
    ).add_patterns(NO_MATCH)
    scores = semeval.evaluate(clean_examples(semeval))
    assert scores["ents_semeval_f"] is None
    assert scores["ents_semeval_partial_f"] is None
    assert scores["ents_semeval_partial_per_type"] is None


@pytest.mark.parametrize("examples", [unannotated_examples, clean_examples])
def test_component_with_nothing_to_score_reports_none(examples):
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns(NO_MATCH)
    nlp.add_pipe("span_eval")
    scores = nlp.evaluate(examples(nlp))
    assert scores["ents_f"] is None  # the ruler's own (spaCy's) keys, as spaCy writes them
    for key in ("span_eval_p", "span_eval_r", "span_eval_f", "span_eval_per_type"):
        assert scores[key] is None, key
    assert scores["span_eval_exact_f"] is None


def test_training_evaluation_on_an_unannotated_dev_set_goes_on():
    """``spacy train``'s evaluation: the undefined figures are dropped, nothing crashes."""
    nlp = ent_ruler("add", patterns=NO_MATCH)
    score, scores = create_evaluation_callback(
        nlp, lambda _nlp: unannotated_examples(nlp), shipped_weights()
    )()
    assert score == 0.0
    assert "ents_iou_f" not in scores and scores["ents_unannotated"] == 2.0
