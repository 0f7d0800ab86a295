"""The ``span_eval`` component: leaves docs alone, scores like the engine, shows in the table."""

from __future__ import annotations

import pytest
import spacy
from spacy.tokens import Doc
from spacy.tokens import Span as SpacySpan
from spacy.training import Example

from spacy_span_eval import SpanEvaluator
from spacy_span_eval.adapters.component import SpanEvalComponent
from spacy_span_eval.adapters.scorers import ScorerSettings

from spacy_doc_factory import examples_to_documents

WORDS = ["Jo", "Smith", "visited", "New", "York", "and", "the", "Royal", "Navy", "base"]
GOLD_ENTS = ["B-PER", "I-PER", "O", "B-LOC", "I-LOC", "O", "O", "B-ORG", "I-ORG", "O"]
# The ruler finds "Smith" (5 of the 8 characters of "Jo Smith": IoU 0.625), "New York"
# (exact), "Royal Navy base" ("Royal Navy" is 10 of its 15: IoU 0.667) and a spurious LOC
# "visited". Three annotations, four predictions:
#   IoU >= 0.5:  credited 3 of 4, found 3 of 3 -> P 3/4, R 1,   F 6/7
#   IoU >= 0.75: credited 1 of 4, found 1 of 3 -> P 1/4, R 1/3, F 2/7
#   exact:       as at 0.75.
PATTERNS = [
    {"label": "PER", "pattern": "Smith"},
    {"label": "LOC", "pattern": "New York"},
    {"label": "ORG", "pattern": "Royal Navy base"},
    {"label": "LOC", "pattern": "visited"},
]
AT_50, AT_75 = (3 / 4, 1.0, 6 / 7), (1 / 4, 1 / 3, 2 / 7)


def ruler_pipeline(patterns=PATTERNS, **span_eval_config):
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns(patterns)
    nlp.add_pipe("span_eval", config=span_eval_config)
    return nlp


def prf(scores: dict, key: str) -> tuple:
    return scores[f"{key}_p"], scores[f"{key}_r"], scores[f"{key}_f"]


def gold_example(nlp) -> Example:
    gold = Doc(nlp.vocab, words=WORDS, spaces=[True] * 9 + [False], ents=GOLD_ENTS)
    gold.spans["sc"] = [
        SpacySpan(gold, 0, 2, "PER"),
        SpacySpan(gold, 7, 9, "ORG"),
        SpacySpan(gold, 7, 10, "FACILITY"),
    ]
    return Example(nlp.make_doc(gold.text), gold)


def test_component_leaves_docs_untouched():
    nlp = spacy.blank("en")
    nlp.add_pipe("span_eval")
    doc = nlp.make_doc("Jo Smith visited New York")
    doc.ents = [SpacySpan(doc, 3, 5, "LOC")]
    doc.spans["sc"] = [SpacySpan(doc, 0, 2, "PER")]
    before = (doc.to_bytes(), [(s.start, s.end, s.label_) for s in doc.spans["sc"]])
    out = nlp(doc)
    assert out is doc
    assert (out.to_bytes(), [(s.start, s.end, s.label_) for s in out.spans["sc"]]) == before
    assert list(nlp.pipe([doc])) == [doc]


def test_scores_equal_the_engine_on_the_same_docs():
    nlp = ruler_pipeline(thresholds=[0.5, 0.75])
    example = gold_example(nlp)
    scores = nlp.evaluate([example])
    predicted = [Example(nlp(nlp.make_doc(example.reference.text)), example.reference)]
    direct = SpanEvaluator(thresholds=(0.5, 0.75)).evaluate(examples_to_documents(predicted))
    for tau, key in ((0.5, "span_eval"), (0.5, "span_eval_iou50"), (0.75, "span_eval_iou75")):
        run = direct.scores(tau)
        assert scores[f"{key}_p"] == run.micro.precision()
        assert scores[f"{key}_r"] == run.micro.recall()
        assert scores[f"{key}_f"] == run.micro.f()
        for label, ledger in run.per_label.items():
            row = scores[f"{key}_per_type"][label]
            assert (row["tp"], row["fn"], row["credited"], row["fp"]) == (
                ledger.tp,
                ledger.fn,
                ledger.credited,
                ledger.fp,
            )
    # the figures worked out by hand (see PATTERNS)
    assert prf(scores, "span_eval") == prf(scores, "span_eval_iou50") == pytest.approx(AT_50)
    assert prf(scores, "span_eval_iou75") == pytest.approx(AT_75)
    assert prf(scores, "span_eval_exact") == pytest.approx(AT_75)
    assert scores["span_eval_per_type"]["LOC"] == pytest.approx(
        {
            "p": 1 / 2,
            "r": 1.0,
            "f": 2 / 3,
            "num_annotated": 1.0,
            "num_predicted": 2.0,
            "tp": 1.0,
            "fn": 0.0,
            "credited": 1.0,
            "fp": 1.0,
        }
    )
    # "Smith" covers 5/8 of "Jo Smith": a TP at 0.5, not at 0.75; exact says it is wrong
    assert scores["span_eval_iou75_per_type"]["PER"]["tp"] == 0.0
    assert scores["span_eval_exact_per_type"]["PER"]["tp"] == 0.0
    assert scores["span_eval_per_type"]["PER"]["tp"] == 1.0
    # the ruler's own (spaCy) keys are not touched by the component
    assert scores["ents_f"] == scores["span_eval_exact_f"]


def test_a_spans_key_source_and_the_name_as_key_prefix():
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("span_ruler", config={"spans_key": "sc"})
    ruler.add_patterns(
        [{"label": "ORG", "pattern": "Royal Navy"}, {"label": "FACILITY", "pattern": "Navy base"}]
    )
    nlp.add_pipe("span_eval", name="iou_check", config={"source": "sc"})
    scores = nlp.evaluate([gold_example(nlp)])
    per_type = scores["iou_check_per_type"]
    assert per_type["ORG"]["tp"] == 1.0
    # "Navy base" vs "Royal Navy base": IoU 9/15 in characters
    assert per_type["FACILITY"]["tp"] == 1.0
    assert per_type["PER"]["fn"] == 1.0
    assert scores["iou_check_exact_per_type"]["FACILITY"]["tp"] == 0.0


def test_default_score_weights_show_its_f_without_changing_selection():
    nlp = ruler_pipeline()
    weights = nlp.config["training"]["score_weights"]
    assert weights["span_eval_f"] == 0.0
    assert weights["ents_f"] == 1.0


def test_component_survives_a_save_and_load(tmp_path):
    # The ruler says PERSON; only the label map makes it the gold's PER.
    patterns = [dict(p, label="PERSON") if p["label"] == "PER" else p for p in PATTERNS]
    nlp = ruler_pipeline(patterns, unit="token", label_map={"PERSON": "PER"})
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    component = loaded.get_pipe("span_eval")
    assert component.settings.settings.unit == "token"
    assert dict(component.settings.settings.label_map.mapping) == {"PERSON": "PER"}
    scores = loaded.evaluate([gold_example(loaded)])
    # Token unit: "Smith" is 1 of the 2 tokens of "Jo Smith" (IoU 0.5), "Royal Navy base" 2 of
    # 3 against "Royal Navy": the same verdicts as in characters at 0.5.
    assert prf(scores, "span_eval") == pytest.approx(AT_50)
    assert scores["span_eval_per_type"]["PER"]["tp"] == 1.0
    assert "PERSON" not in scores["span_eval_per_type"]


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("ents", "is not 'ents' nor starts with ents_, such as 'eval_ents'"),
        ("spans_sc", "is not 'spans' nor starts with spans_, such as 'eval_spans'"),
        ("token", "is not 'token', such as 'eval_token'"),
    ],
)
def test_a_component_name_that_takes_another_scorers_keys_is_refused_with_the_rule(name, rule):
    nlp = spacy.blank("en")
    with pytest.raises(
        ValueError, match=f"collides with the score keys of .*Choose a name that {rule}"
    ):
        nlp.add_pipe("span_eval", name=name)


def test_a_refused_name_is_told_every_key_it_would_write_and_each_strategys_infix():
    with pytest.raises(ValueError) as caught:
        spacy.blank("en").add_pipe("span_eval", name="sents")
    assert str(caught.value) == (
        "span_eval component name 'sents' collides with the score keys of spaCy's sentence "
        "scores (sents_p/_r/_f): it would write sents_f, sents_exact_f and sents_{infix}_f "
        "(infixes: exact, iou, overlap, semeval, token), keys that read as theirs. Choose a "
        "name that is not 'sents', such as 'eval_sents'"
    )


def test_built_by_hand_it_scores_doc_ents_under_its_own_name_in_replace_mode():
    """Outside a pipeline (where spaCy names a component itself): the name given, else
    ``span_eval``; ``Doc.ents``; keys named after it, with the exact figures beside them."""
    nlp = ruler_pipeline()
    example = Example(
        nlp(nlp.make_doc(gold_example(nlp).reference.text)), gold_example(nlp).reference
    )
    default = SpanEvalComponent()
    assert (default.name, default.source, default.settings.mode) == ("span_eval", "ents", "replace")
    scores = SpanEvalComponent("eval_ents").score([example])
    assert prf(scores, "eval_ents") == pytest.approx(AT_50)
    assert prf(scores, "eval_ents_exact") == pytest.approx(AT_75)
    assert prf(default.score([example]), "span_eval") == pytest.approx(AT_50)


def test_settings_that_keep_spacys_keys_are_refused():
    with pytest.raises(ValueError) as caught:
        SpanEvalComponent(settings=ScorerSettings())
    assert str(caught.value) == (
        "span_eval names its keys after the component: its settings' mode must be 'replace', "
        "not 'add'"
    )
