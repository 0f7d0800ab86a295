"""compute() against evaluate's "seqeval" metric, rebuilt from seqeval 1.2.2 as that metric
builds its dict (a classification_report with output_dict=True, the micro row as the overall
figures, the macro and weighted rows dropped, and token accuracy), and the helper that turns a
Trainer's arrays into tag lists."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from seqeval.metrics.sequence_labeling import get_entities
from seqeval_oracle import evaluate_style
from test_seqeval_dropin_differential import corpora, same

from spacy_span_eval import Document, EmptyEvaluationError, SpanEvaluator
from spacy_span_eval.seqeval import compute, tags_from_ids
from spacy_span_eval.seqeval._scores import warning_class, zero_value
from spacy_span_eval.seqeval._tags import decode
from spacy_span_eval.seqeval.scheme import SCHEMES


def quietly(call: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return call()
        except Exception as exc:  # noqa: BLE001 - compared by class
            return type(exc)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=corpora(odd=False),
    strict=st.booleans(),
    zero_division=st.sampled_from(("warn", 0, 1)),
)
def test_compute_equals_evaluates_dict_key_for_key(case, strict, zero_division):
    scheme, suffix, y_true, y_pred = case
    options: dict[str, Any] = {"suffix": suffix, "zero_division": zero_division}
    if strict:
        options.update(mode="strict", scheme=scheme)
    expected = quietly(lambda: evaluate_style(y_pred, y_true, **dict(options)))
    got = quietly(lambda: compute(predictions=y_pred, references=y_true, **options))
    assert same(expected, got), (expected, got)


def test_compute_on_odd_tags_agrees_too():
    y_true = [["B-PER", "I-PER", "O", "X-LOC"], ["PER", "I-LOC"]]
    y_pred = [["B-PER", "O", "O", "X-LOC"], ["B-PER", "I-LOC"]]
    expected = quietly(lambda: evaluate_style(y_pred, y_true))
    assert same(expected, quietly(lambda: compute(predictions=y_pred, references=y_true)))


def test_compute_warns_as_evaluates_metric_does():
    """Odd tags warn each time seqeval decodes them (five times, the accuracy not among them),
    an undefined ratio once per average computed."""
    y_true, y_pred = [["B-PER", "X", "O"]], [["B-PER", "O", "PER"]]

    def warned(call: Any) -> list[tuple[type, str]]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        return [(w.category, str(w.message)) for w in caught]

    got = warned(lambda: compute(predictions=y_pred, references=y_true))
    assert got == warned(lambda: evaluate_style(y_pred, y_true))
    assert [m for _, m in got].count("X seems not to be NE tag.") == 5


def test_strict_mode_detects_the_scheme_of_suffix_tags():
    tags = [["PER-B", "PER-I", "O", "LOC-B"]]
    options: dict[str, Any] = {"mode": "strict", "suffix": True}
    scores = compute(predictions=tags, references=tags, **options)
    assert (scores["overall_f1"], scores["PER"]["number"], scores["LOC"]["number"]) == (1, 1, 1)
    assert same(evaluate_style(tags, tags, **options), scores)


def test_an_unknown_scheme_name_is_refused_as_evaluate_does():
    with pytest.raises(ValueError, match="Scheme should be one of"):
        compute(predictions=[["O"]], references=[["O"]], scheme="IOX")


def test_two_sided_figures_sit_beside_the_exact_ones():
    references = [["B-PER", "I-PER", "I-PER", "O", "B-LOC"]]
    predictions = [["B-PER", "I-PER", "O", "O", "B-LOC"]]
    scores = compute(
        predictions=predictions,
        references=references,
        strategy="two_sided",
        thresholds=(0.5, 0.75),
    )
    exact = compute(predictions=predictions, references=references)
    assert {k: v for k, v in scores.items() if "iou" not in k and not isinstance(v, dict)} == {
        k: v for k, v in exact.items() if not isinstance(v, dict)
    }
    # PER overlaps 2 of 3 tokens: IoU 2/3 counts at 0.5, not at 0.75
    assert scores["PER"]["f1"] == 0.0
    assert scores["PER"]["iou_f"] == 1.0
    assert scores["PER"]["iou_f@0.75"] == 0.0
    assert scores["overall_f1"] == 0.5
    assert scores["overall_iou_f"] == 1.0
    assert scores["overall_iou_f@0.75"] == 0.5
    assert set(scores["LOC"]) == {
        "precision", "recall", "f1", "number",
        "iou_precision", "iou_recall", "iou_f",
        "iou_precision@0.75", "iou_recall@0.75", "iou_f@0.75",
    }  # fmt: skip


def runs_across_a_sentence_end(tags, suffix):
    """Whether seqeval's default mode, which lays the sentences end to end with an O between
    them, finds a chunk that covers one of those O's (a chunk with no start runs back to the
    first token): one document per sentence cannot hold it (the test below shows the whole
    chunk scored)."""
    gaps, at = [], 0
    for sentence in tags:
        at += len(sentence) + 1
        gaps.append(at - 1)
    chunks = quietly(lambda: get_entities(tags, suffix=suffix))
    return any(first <= gap <= last for _, first, last in chunks for gap in gaps)


def sentence_documents(y_true, y_pred, suffix, scheme):
    """One engine document per sentence, its spans the chunks decoded from that sentence."""
    docs = []
    for k, (true, pred) in enumerate(zip(y_true, y_pred, strict=True)):
        both = quietly(lambda: decode([true], [pred], suffix=suffix, scheme=scheme))  # noqa: B023
        spans = [
            [
                (f, s, both.types[t])
                for t, f, s in zip(c.type.tolist(), c.first.tolist(), c.stop.tolist(), strict=True)
            ]
            for c in (both.true, both.pred)
        ]
        docs.append(
            Document.create(id=k, gold=spans[0], pred=spans[1], unit="token", length=len(true))
        )
    return docs


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=corpora(odd=False),
    strict=st.booleans(),
    zero_division=st.sampled_from(("warn", 0, 1)),
)
def test_two_sided_keys_equal_the_engine_on_the_same_sentences(case, strict, zero_division):
    scheme, suffix, y_true, y_pred = case
    if not strict:
        assume(not any(runs_across_a_sentence_end(tags, suffix) for tags in (y_true, y_pred)))
    options: dict[str, Any] = {"suffix": suffix, "zero_division": zero_division}
    if strict:
        options.update(mode="strict", scheme=scheme)
    thresholds = (0.5, 0.75, 1.0)
    got = quietly(
        lambda: compute(
            predictions=y_pred,
            references=y_true,
            strategy="two_sided",
            thresholds=thresholds,
            **options,
        )
    )
    if isinstance(got, type):  # seqeval's own error (strict mode): nothing to compare
        assert got is quietly(lambda: evaluate_style(y_pred, y_true, **dict(options)))
        return
    docs = sentence_documents(y_true, y_pred, suffix, SCHEMES[scheme] if strict else None)
    evaluator = SpanEvaluator(strategy="two_sided", thresholds=thresholds, unit="token")
    zero = zero_value(zero_division)
    try:
        result = evaluator.evaluate(docs)
    except EmptyEvaluationError:
        assert [v for k, v in got.items() if "iou" in k] == [zero] * 9
        return
    for k, threshold in enumerate(thresholds):
        run, tail = result.scores(threshold), "" if k == 0 else f"@{threshold:g}"
        expected = {"": run.micro, **run.per_label}
        for name, ledger in expected.items():
            row = got[name] if name else got
            stem = "iou_" if name else "overall_iou_"
            assert row[f"{stem}precision{tail}"] == ledger.precision(zero)
            assert row[f"{stem}recall{tail}"] == ledger.recall(zero)
            assert row[f"{stem}f{tail}"] == ledger.f(zero_division=zero)


@pytest.mark.parametrize("scheme", ["IOB2", None])  # None: detected from the references
def test_two_sided_keys_in_strict_mode(scheme):
    # PER: gold tokens [0, 3), predicted [0, 2), IoU 2/3; LOC found exactly, in the second sentence
    scores = compute(
        predictions=[["B-PER", "I-PER", "O"], ["O", "B-LOC"]],
        references=[["B-PER", "I-PER", "I-PER"], ["O", "B-LOC"]],
        mode="strict",
        scheme=scheme,
        strategy="two_sided",
        thresholds=(0.5, 0.75),
    )
    assert (scores["overall_f1"], scores["PER"]["f1"], scores["LOC"]["f1"]) == (0.5, 0.0, 1.0)
    assert (scores["overall_iou_f"], scores["PER"]["iou_f"], scores["LOC"]["iou_f"]) == (1, 1, 1)
    assert scores["overall_iou_f@0.75"] == scores["overall_f1"]


def test_a_chunk_that_ends_in_the_next_sentence_meets_the_chunks_there():
    # gold "X" starts nothing, so its chunk runs from position 0 over the O laid after the
    # first sentence: [0, 3), its last token the next sentence's first; the prediction's
    # [2, 4) meets it, IoU 1/4, and gold PER [3, 4) is missed: at 0.25, precision 1/1,
    # recall 1/2
    scores = quietly(
        lambda: compute(
            predictions=[["O"], ["I", "I"]],
            references=[["O"], ["X", "B-PER"]],
            strategy="two_sided",
            thresholds=(0.5, 0.25),
        )
    )
    assert (scores["overall_f1"], scores["overall_iou_f"]) == (0, 0)
    assert scores["overall_iou_f@0.25"] == 2 / 3


def test_a_chunk_seqeval_runs_across_a_sentence_end_is_scored_whole():
    # "X" keeps a chunk open past the O between the sentences: gold is laid [0, 6), the
    # prediction [2, 6); IoU 4/6
    scores = quietly(
        lambda: compute(
            predictions=[["O"], ["I", "I", "I", "I"]],
            references=[["O"], ["X", "I", "I", "I"]],
            strategy="two_sided",
        )
    )
    assert scores["overall_iou_f"] == scores["_"]["iou_f"] == 1.0


@pytest.mark.parametrize("zero_division, zero", [("warn", 0.0), (0, 0.0), (1, 1.0)])
def test_two_sided_keys_with_no_entity_are_zeros_as_seqevals(zero_division, zero):
    # a Trainer's evaluation shard may hold no entity at all
    options: dict[str, Any] = {"predictions": [["O"]], "references": [["O"]]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = compute(**options, strategy="two_sided", zero_division=zero_division)
    exact = quietly(lambda: compute(**options, zero_division=zero_division))
    assert scores == {
        **exact,
        "overall_iou_precision": zero,
        "overall_iou_recall": zero,
        "overall_iou_f": zero,
    }
    assert scores["overall_f1"] == zero
    warned = any(w.category is warning_class() for w in caught)
    assert warned == (zero_division == "warn")


def test_an_unknown_strategy_is_refused():
    with pytest.raises(ValueError, match="strategy"):
        compute(predictions=[["O"]], references=[["O"]], strategy="overlap")


ID2LABEL = {0: "O", 1: "B-PER", 2: "I-PER"}


@pytest.mark.parametrize(
    "predictions, label_ids, expected",
    [
        # label ids, -100 where a position is not scored
        (
            np.array([[1, 2, 0, 0], [0, 1, 1, 2]]),
            np.array([[1, 2, -100, -100], [0, -100, 1, 2]]),
            ([["B-PER", "I-PER"], ["O", "B-PER", "I-PER"]],) * 2,
        ),
        # logits: the argmax over the last axis
        (
            np.array([[[0.9, 0.05, 0.05], [0.1, 0.2, 0.7], [0.3, 0.6, 0.1]]]),
            np.array([[0, 2, -100]]),
            ([["O", "I-PER"]], [["O", "I-PER"]]),
        ),
        # nothing scored in a row: an empty list, not a dropped row
        (np.array([[1, 1]]), np.array([[-100, -100]]), ([[]], [[]])),
    ],
)  # fmt: skip
def test_tags_from_ids(predictions, label_ids, expected):
    assert tags_from_ids(predictions, label_ids, ID2LABEL) == expected


def test_tags_from_ids_takes_a_list_of_names_and_string_keys():
    ids = np.array([[1, 2]])
    assert tags_from_ids(ids, ids, ["O", "B-PER", "I-PER"]) == ([["B-PER", "I-PER"]],) * 2
    assert (
        tags_from_ids(ids, ids, {"0": "O", "1": "B-PER", "2": "I-PER"})
        == ([["B-PER", "I-PER"]],) * 2
    )


def test_tags_from_ids_takes_the_first_output_of_a_model_with_several():
    # the Trainer hands a tuple of arrays (logits, then e.g. hidden states)
    logits = np.eye(3)[np.array([[1, 2, 0]])]
    labels = np.array([[1, 2, -100]])
    hidden = np.zeros((1, 3, 8))
    assert tags_from_ids((logits, hidden), labels, ID2LABEL) == tags_from_ids(
        logits, labels, ID2LABEL
    )


@pytest.mark.parametrize(
    "predictions, shape",
    [
        (np.zeros((2, 3)), (2, 3)),
        # a model with several outputs: the first one's shape, not numpy's error on the tuple
        ((np.zeros((2, 3, 3)), np.zeros((2, 8))), (2, 3, 3)),
    ],
)  # fmt: skip
def test_tags_from_ids_refuses_shapes_that_do_not_fit(predictions, shape):
    with pytest.raises(ValueError) as caught:
        tags_from_ids(predictions, np.zeros((2, 4), dtype=int), ID2LABEL)
    assert str(caught.value) == (
        f"predictions of shape {shape} do not fit label ids of shape (2, 4): "
        "give logits (..., n_labels) or ids of the labels' shape"
    )


def test_tags_from_ids_with_no_label_names():
    nothing_scored = np.full((1, 2), -100)
    assert tags_from_ids(np.zeros((1, 2), dtype=int), nothing_scored, {}) == ([[]], [[]])
    with pytest.raises(ValueError, match="label id 0 is not in id2label"):
        tags_from_ids(np.zeros((1, 2), dtype=int), np.zeros((1, 2), dtype=int), {})


@pytest.mark.parametrize(
    "predictions, label_ids, id2label, unnamed",
    [
        # padding with -1 where ignore_index is -100: not the last label, read from the end
        (np.array([[1, 2, 0]]), np.array([[1, 2, -1]]), ID2LABEL, -1),
        # an id in a gap of the map: not a None tag that fails later in compute
        (np.array([[1, 2]]), np.array([[1, 2]]), {0: "O", 1: "B-PER", 3: "I-PER"}, 2),
        # a predicted id past the last label, or logits over more labels than the map names
        (np.array([[1, 3]]), np.array([[1, 2]]), ID2LABEL, 3),
        (np.eye(4)[np.array([[1, 3]])], np.array([[1, 2]]), ID2LABEL, 3),
    ],
)  # fmt: skip
def test_tags_from_ids_refuses_an_id_without_a_label(predictions, label_ids, id2label, unnamed):
    with pytest.raises(ValueError, match=f"label id {unnamed} is not in id2label"):
        tags_from_ids(predictions, label_ids, id2label)


def test_tags_from_ids_feeds_compute():
    logits = np.eye(3)[np.array([[1, 2, 0, 1]])]
    labels = np.array([[1, 2, 0, -100]])
    predictions, references = tags_from_ids(logits, labels, ID2LABEL)
    assert compute(predictions=predictions, references=references)["overall_f1"] == 1.0
