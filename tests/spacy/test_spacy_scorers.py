"""Registered scorers: names resolve, key layout, JSON-safe values, agreement with spaCy's
own exact scorers, tokenization differences, and how the spans key is found."""

from __future__ import annotations

import json
import math
import random
import re
import tomllib

import numpy as np
import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy.attrs import ENT_IOB, ENT_TYPE
from spacy.scorer import Scorer, get_ner_prf
from spacy.tokens import Doc
from spacy.tokens import Span as SpacySpan
from spacy.training import Example
from spacy.util import registry

from spacy_span_eval import (
    DocumentMismatchError,
    EmptyEvaluationError,
    InvalidSpanError,
    SpanEvaluator,
)
from spacy_span_eval.adapters.scorers import (
    ScorerSettings,
    make_ents_scorer,
    make_spans_scorer,
    threshold_tag,
)
from spacy_span_eval.adapters.spacy_batches import examples_to_batch

from conftest import REPO, data_path
from spacy_doc_factory import NLP, examples_to_documents, make_doc, score_ents, score_spans

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
ENTRY_POINTS = PYPROJECT["project"]["entry-points"]


def walk(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from walk(v)
    else:
        yield value


# -- registration -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("group", "registry_name"), [("spacy_scorers", "scorers"), ("spacy_loggers", "loggers")]
)
def test_every_entry_point_resolves_through_spacy_registry(group, registry_name):
    names = ENTRY_POINTS[group]
    assert names, group
    for name, target in names.items():
        module, attr = target.split(":")
        func = registry.get(registry_name, name)
        assert func.__module__ == module and func.__name__ == attr


def test_the_factory_entry_point_is_a_spacy_factory():
    assert set(ENTRY_POINTS["spacy_factories"]) == {"span_eval"}
    assert spacy.blank("en").has_factory("span_eval")


def test_bad_settings_fail_when_the_config_is_resolved():
    nlp = spacy.blank("en")
    for bad, message in (
        ({"mode": "merge"}, "'merge' is not typing.Literal\\['add', 'replace'\\]"),
        ({"unit": "word"}, r"unit\tat root: 'word' is not typing.Literal"),
        ({"strategy": "fuzzy"}, r"strategy\tat root: 'fuzzy' is not typing"),
        ({"thresholds": [0.0]}, r"0.0 is not an IoU threshold in \(0, 1\]"),
        ({"average_precision": 1}, r"average_precision\tat root: 1 is not possible: Doc.ents"),
        ({"slice_by": ["source"]}, r"slice_by\tat root: \['source'\] is not"),
    ):
        with pytest.raises(ValueError, match=message):
            nlp.add_pipe(
                "entity_ruler",
                name=f"r{len(nlp.pipe_names)}",
                config={"scorer": {"@scorers": "spacy_span_eval.ents_scorer.v1", **bad}},
            )


# -- key layout ---------------------------------------------------------------------------------
@pytest.mark.parametrize("row", ["strict", "exact", "partial", "ent_type"])
def test_semeval_rows_per_type_hold_p_r_and_f(row):
    """Gold PER "Ann" and "Bob", predicted PER "Ann": in every schema 1 of 1 prediction is
    right and 1 of 2 annotations found, P 1, R 1/2, F 2/3."""
    words = ["Ann", "met", "Bob"]
    gold = make_doc(words, ents=["B-PER", "O", "B-PER"])
    scores = make_ents_scorer(strategy="semeval")(
        [Example(make_doc(words, ents=["B-PER", "O", "O"]), gold)]
    )
    per_type = scores[f"ents_semeval_{row}_per_type"]
    assert per_type == {"PER": {"p": 1.0, "r": 0.5, "f": pytest.approx(2 / 3)}}


def jo_example():
    """Gold PER "Jo", LOC "New York", DATE "today"; predicted PER "Jo", LOC "York".

    exact: 1 of 2 predictions right, 1 of 3 annotations found -> P 1/2, R 1/3, F 2/5.
    IoU >= 0.5 ("York" is 4 of the 8 characters of "New York"): P 2/2, R 2/3, F 4/5.
    IoU >= 0.75: as exact. Precision, recall and F differ everywhere, so a swap shows.
    """
    words = ["Jo", "lives", "in", "New", "York", "today"]
    gold = make_doc(words, ents=["B-PER", "O", "O", "B-LOC", "I-LOC", "B-DATE"])
    pred = make_doc(words, ents=["B-PER", "O", "O", "O", "B-LOC", "O"])
    return Example(pred, gold)


def test_add_mode_keeps_exact_ents_keys_and_adds_iou_keys():
    scores = make_ents_scorer()([jo_example()])
    assert (scores["ents_p"], scores["ents_r"], scores["ents_f"]) == pytest.approx(
        (1 / 2, 1 / 3, 2 / 5)
    )  # "York" != "New York"
    assert (scores["ents_iou_p"], scores["ents_iou_r"], scores["ents_iou_f"]) == pytest.approx(
        (1.0, 2 / 3, 4 / 5)
    )
    loc = scores["ents_iou_per_type"]["LOC"]
    assert loc == {
        "p": 1.0,
        "r": 1.0,
        "f": 1.0,
        "num_annotated": 1.0,
        "num_predicted": 1.0,
        "tp": 1.0,
        "fn": 0.0,
        "credited": 1.0,
        "fp": 0.0,
    }
    assert scores["ents_per_type"]["LOC"]["f"] == 0.0
    assert scores["ents_unaligned"] == 0.0 and scores["ents_unannotated"] == 0.0
    assert not any(k.startswith("ents_exact") for k in scores)


def test_replace_mode_puts_two_sided_figures_under_spacys_keys():
    scores = make_ents_scorer(mode="replace")([jo_example()])
    assert (scores["ents_p"], scores["ents_r"], scores["ents_f"]) == pytest.approx(
        (1.0, 2 / 3, 4 / 5)
    )
    assert scores["ents_per_type"]["LOC"]["f"] == 1.0
    assert (
        scores["ents_exact_p"],
        scores["ents_exact_r"],
        scores["ents_exact_f"],
    ) == pytest.approx((1 / 2, 1 / 3, 2 / 5))
    assert scores["ents_exact_per_type"]["LOC"]["f"] == 0.0
    # the strategy's own keys are there too, so score weights on them work in both modes
    for k in ("p", "r", "f", "per_type"):
        assert scores[f"ents_iou_{k}"] == scores[f"ents_{k}"]


def test_several_thresholds_get_suffixed_keys_and_the_first_also_plain():
    scores = make_ents_scorer(thresholds=[0.5, 0.75])([jo_example()])
    assert scores["ents_iou_f"] == scores["ents_iou50_f"] == pytest.approx(4 / 5)
    assert scores["ents_iou_r"] == scores["ents_iou50_r"] == pytest.approx(2 / 3)
    # "York" covers half of "New York": a miss at 0.75
    assert (
        scores["ents_iou75_p"],
        scores["ents_iou75_r"],
        scores["ents_iou75_f"],
    ) == pytest.approx((1 / 2, 1 / 3, 2 / 5))
    assert scores["ents_iou75_per_type"]["LOC"]["fn"] == 1.0


@pytest.mark.parametrize(
    ("tau", "tag"),
    [
        (0.5, "50"),
        (0.75, "75"),
        (1.0, "100"),
        (0.333, "33_3"),
        (0.05, "5"),
        # the percentage is rounded to six decimals before it is written
        (0.000123456789, "0_012346"),
    ],
)
def test_threshold_tags(tau, tag):
    assert threshold_tag(tau) == tag


def test_every_value_is_a_float_or_none_and_json_safe():
    words = ["a", "b", "c"]
    gold = make_doc(words, ents=["B-X", "O", "O"])
    pred = make_doc(words, ents=["O", "O", "B-Y"])
    scores = make_ents_scorer(thresholds=[0.5, 0.9])([Example(pred, gold)])
    assert scores["ents_iou_per_type"]["X"]["p"] is None  # X never predicted: undefined
    assert scores["ents_iou_per_type"]["Y"]["r"] is None  # Y never annotated: undefined
    for value in walk(scores):
        assert value is None or (type(value) is float and math.isfinite(value)), value
    json.dumps(scores, allow_nan=False)


def test_beta_applies_to_every_f_of_ours_and_spacys_keys_stay_f1():
    words = ["Jo", "and", "Al", "met", "Bo"]
    gold = make_doc(words, ents=["B-PER", "O", "B-PER", "O", "B-PER"])
    pred = make_doc(words, ents=["B-PER", "O", "O", "O", "O"])  # P 1/1, R 1/3
    for mode in ("add", "replace"):
        scores = make_ents_scorer(beta=2.0, mode=mode)([Example(pred, gold)])
        ours = "ents_iou" if mode == "add" else "ents"
        assert scores[f"{ours}_f"] == pytest.approx(5 * (1 / 3) / (4 + 1 / 3))
        assert scores[f"{ours}_per_type"]["PER"]["f"] == pytest.approx(5 * (1 / 3) / (4 + 1 / 3))
    assert scores["ents_exact_f"] == pytest.approx(5 * (1 / 3) / (4 + 1 / 3))
    added = make_ents_scorer(beta=2.0)([Example(pred, gold)])
    assert added["ents_f"] == pytest.approx(2 * (1 / 3) / (1 + 1 / 3))  # spaCy's F1


def test_label_map_canonicalizes_both_sides_before_scoring():
    words = ["Jo", "runs"]
    gold = make_doc(words, ents=["B-PER", "O"])
    pred = make_doc(words, ents=["B-PERSON", "O"])
    scores = make_ents_scorer(label_map={"PERSON": "PER"})([Example(pred, gold)])
    assert set(scores["ents_iou_per_type"]) == {"PER"} and scores["ents_iou_f"] == 1.0
    # spaCy's own keys are spaCy's figures: its scorer knows no label map
    assert scores["ents_f"] == 0.0 and set(scores["ents_per_type"]) == {"PER", "PERSON"}
    replaced = make_ents_scorer(label_map={"PERSON": "PER"}, mode="replace")
    assert replaced([Example(pred, gold)])["ents_exact_f"] == 1.0


def test_the_spans_scorer_maps_labels_too():
    words = ["Jo", "runs"]
    example = Example(
        make_doc(words, spans={"sc": [(0, 1, "PERSON")]}),
        make_doc(words, spans={"sc": [(0, 1, "PER")]}),
    )
    scores = make_spans_scorer("sc", label_map={"PERSON": "PER"})([example])
    assert set(scores["spans_sc_iou_per_type"]) == {"PER"} and scores["spans_sc_iou_f"] == 1.0


def new_york_example(source: str) -> Example:
    """Gold LOC "New York City" (13 characters), predicted LOC "New York" (8 of them, 0.62 of
    the gold span): overlap's match unless ``min_gold`` asks for more."""
    words = ["New", "York", "City"]
    if source == "ents":
        gold = make_doc(words, ents=["B-LOC", "I-LOC", "I-LOC"])
        return Example(make_doc(words, ents=["B-LOC", "I-LOC", "O"]), gold)
    gold = make_doc(words, spans={source: [(0, 3, "LOC")]})
    return Example(make_doc(words, spans={source: [(0, 2, "LOC")]}), gold)


@pytest.mark.parametrize("mode", ["add", "replace"])
@pytest.mark.parametrize(("options", "f"), [(None, 1.0), ({"min_gold": 0.7}, 0.0)])
def test_strategy_options_reach_the_strategy_and_not_the_exact_figures(mode, options, f):
    ents = make_ents_scorer("overlap", mode=mode, strategy_options=options)
    spans = make_spans_scorer("sc", "overlap", mode=mode, strategy_options=options)
    for scores, attr in (
        (ents([new_york_example("ents")]), "ents"),
        (spans([new_york_example("sc")]), "spans_sc"),
    ):
        assert scores[f"{attr}_overlap_f"] == f
        if mode == "replace":  # exact declares no options: they are not handed to it
            assert scores[f"{attr}_exact_f"] == 0.0


def test_scorer_settings_default_to_the_registered_scorers_defaults():
    """Two-sided at 0.5, F1, characters, spaCy's keys kept ("add"), no sweep, no slices,
    scores only."""
    assert ScorerSettings.of() == ScorerSettings()
    settings = ScorerSettings.of().settings
    assert (settings.strategy, settings.thresholds, settings.beta, settings.unit) == (
        "two_sided",
        (0.5,),
        1.0,
        "char",
    )
    assert (settings.sweep, settings.per_document, settings.max_errors, settings.details) == (
        False,
        False,
        0,
        False,
    )
    assert ScorerSettings.of().mode == "add" and ScorerSettings.of().slice_by is None


# -- agreement with spaCy's exact scorers ------------------------------------------------------
def perturb_ents(gold: Doc, rng: random.Random) -> Doc:
    pred = make_doc([t.text for t in gold], spaces=[bool(t.whitespace_) for t in gold])
    ents, taken = [], set()
    for ent in gold.ents:
        r = rng.random()
        start, end, label = ent.start, ent.end, ent.label_
        if r < 0.1:
            continue
        if r < 0.25:
            end = min(end + 1, len(pred))
        elif r < 0.3:
            label = "OTHER"
        span = set(range(start, end))
        if not span & taken:
            taken |= span
            ents.append(SpacySpan(pred, start, end, label=label))
    pred.ents = ents
    return pred


def btc_examples(limit: int) -> list[Example]:
    text = data_path("btc", "btc.test").read_text(encoding="utf-8")
    rng, out = random.Random(3), []
    for block in text.split("\n\n"):
        rows = [line.split("\t") for line in block.split("\n") if line]
        if not rows or not all(
            len(r) == 2 and r[0] and not any(c.isspace() for c in r[0]) for r in rows
        ):
            continue
        gold = Doc(NLP.vocab, words=[r[0] for r in rows], ents=[r[1] for r in rows])
        out.append(Example(perturb_ents(gold, rng), gold))
        if len(out) == limit:
            break
    return out


def assert_same_prf(ours: dict, theirs: dict, prefix: str, spacy_prefix: str) -> None:
    """Equal figures; where ours is undefined (None) spaCy reports 0.0."""

    def same(a, b):
        return b == pytest.approx(0.0 if a is None else a, abs=1e-12)

    for k in "prf":
        assert same(ours[f"{prefix}_{k}"], theirs[f"{spacy_prefix}_{k}"]), k
    mine, spacys = ours[f"{prefix}_per_type"], theirs[f"{spacy_prefix}_per_type"]
    assert set(mine) == set(spacys)
    for label, row in spacys.items():
        for k in "prf":
            assert same(mine[label][k], row[k]), (label, k)


@pytest.mark.parametrize("mode", ["add", "replace"])
def test_exact_strategy_equals_get_ner_prf_on_btc(mode):
    examples = btc_examples(600)
    theirs = get_ner_prf(examples)
    ours = make_ents_scorer(strategy="exact", mode=mode)(examples)
    assert_same_prf(ours, theirs, "ents", "ents")
    assert_same_prf(ours, theirs, "ents_exact", "ents")
    # and the two-sided default scorer carries the same exact keys in add mode
    assert_same_prf(make_ents_scorer()(examples), theirs, "ents", "ents")


def test_exact_spans_equal_score_spans_with_overlaps_and_nesting():
    rng = random.Random(5)

    def group(n: int) -> list[tuple[int, int, str]]:
        return [
            (s, rng.randint(s + 1, min(n, s + 4)), rng.choice("AB"))
            for s in (rng.randrange(n) for _ in range(rng.randint(0, 5)))
        ]

    examples = []
    for _ in range(60):
        words = [f"w{i}" for i in range(rng.randint(3, 12))]
        gold_spans = group(len(words))
        pred_spans = gold_spans[: rng.randint(0, len(gold_spans))] + group(len(words))
        examples.append(
            Example(
                make_doc(words, spans={"sc": pred_spans}), make_doc(words, spans={"sc": gold_spans})
            )
        )
    theirs = Scorer.score_spans(
        examples,
        "spans_sc",
        allow_overlap=True,
        getter=lambda doc, attr: doc.spans.get(attr[6:], []),
        has_annotation=lambda doc: "sc" in doc.spans,
    )
    ours = make_spans_scorer(spans_key="sc", strategy="exact")(examples)
    assert_same_prf(ours, theirs, "spans_sc", "spans_sc")


tags = st.sampled_from(["O", "O", "O", "B-A", "I-A", "B-B", "I-B"])


def valid_iob(seq: list[str]) -> list[str]:
    out, prev = [], "O"
    for tag in seq:
        if tag.startswith("I-") and prev[2:] != tag[2:]:
            tag = "B-" + tag[2:]
        out.append(tag)
        prev = tag
    return out


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(tags, min_size=1, max_size=9), st.lists(tags, min_size=1, max_size=9)),
        min_size=1,
        max_size=5,
    )
)
def test_exact_equals_get_ner_prf_on_random_docs(pairs):
    examples = []
    for g, p in pairs:
        n = min(len(g), len(p))
        words = [f"t{i}" for i in range(n)]
        examples.append(
            Example(make_doc(words, ents=valid_iob(p[:n])), make_doc(words, ents=valid_iob(g[:n])))
        )
    theirs = get_ner_prf(examples)
    if theirs["ents_per_type"] is None:
        ours = score_ents(examples, strategy="exact")
        assert {k: ours[f"ents_exact_{k[5:]}"] for k in theirs} == theirs  # all None
        return
    assert_same_prf(score_ents(examples, strategy="exact"), theirs, "ents", "ents")


# -- columnar fast path == Document path ---------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(tags, min_size=2, max_size=8),
            st.lists(st.booleans(), min_size=8, max_size=8),
            st.lists(tags, min_size=16, max_size=16),
        ),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from(["char", "token"]),
)
def test_batch_path_scores_like_the_document_path(docs, unit):
    examples = []
    for g_tags, splits, p_tags in docs:
        words = [f"ab{i}" for i in range(len(g_tags))]
        gold = make_doc(words, ents=valid_iob(g_tags))
        # the prediction splits some words in two ("a" + "b0"): a different tokenization
        p_words, p_spaces = [], []
        for i, w in enumerate(words):
            last = i == len(words) - 1
            if splits[i]:
                p_words += [w[:1], w[1:]]
                p_spaces += [False, not last]
            else:
                p_words.append(w)
                p_spaces.append(not last)
        pred = make_doc(p_words, spaces=p_spaces, ents=valid_iob(p_tags[: len(p_words)]))
        examples.append(Example(pred, gold))
    ev = SpanEvaluator(unit=unit, thresholds=(0.5, 0.8))
    try:
        expected = ev.evaluate(examples_to_documents(examples, unit=unit))
    except EmptyEvaluationError:
        return
    got = ev.tally_batch(examples_to_batch(examples, unit=unit).batch).result()
    for t in (0.5, 0.8):
        assert dict(got.scores(t).per_label) == dict(expected.scores(t).per_label)
    assert got.notes.get("unaligned_predictions", 0) == expected.notes.get(
        "unaligned_predictions", 0
    )


# -- Doc.ents read from token arrays -------------------------------------------------------------
# Any tags a Doc can hold: missing (0), I (1), O (2), B (3), with a label or none, also an I
# that starts nothing (Doc.ents raises on it) and a B without a label (Doc.ents reads an O).
TAG_ROWS = st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["", "PER", "LOC"])), max_size=6)
# token texts of different lengths, beyond ASCII, each followed by a space or not
TOKENS = st.lists(
    st.tuples(st.sampled_from(["a", "Bö", "三", "w12", "🙂x"]), st.booleans()),
    min_size=6,
    max_size=6,
)


def tagged_doc(
    words: list[str], rows: list[tuple[int, str]], spaces: list[bool] | None = None
) -> Doc:
    doc = make_doc(words, spaces) if words else Doc(NLP.vocab, words=[])
    if words:
        tags = [(iob, NLP.vocab.strings.add(label)) for iob, label in rows]
        doc.from_array([ENT_IOB, ENT_TYPE], np.array(tags, dtype="uint64"))
    return doc


def ents_rows(examples: list[Example], unit: str) -> tuple[list[tuple], list[tuple]]:
    """What Doc.ents says, per side: ``(document, start, end, label)`` (annotated examples)."""
    sides: tuple[list[tuple], list[tuple]] = ([], [])
    annotated = [eg for eg in examples if eg.reference.has_annotation("ENT_IOB")]
    for d, eg in enumerate(annotated):
        for rows, doc in zip(sides, (eg.reference, eg.predicted), strict=True):
            rows += [
                (
                    d,
                    *((e.start, e.end) if unit == "token" else (e.start_char, e.end_char)),
                    e.label_,
                )
                for e in doc.ents
            ]
    return sides


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(TAG_ROWS, TAG_ROWS, st.booleans(), TOKENS), min_size=1, max_size=5),
    st.sampled_from(["char", "token"]),
)
def test_entities_read_from_token_arrays_are_doc_ents(docs, unit):
    examples = []
    for g_rows, p_rows, itself, tokens in docs:
        words = [word for word, _ in tokens[: len(g_rows)]]
        spaces = [space for _, space in tokens[: len(g_rows)]]
        gold = tagged_doc(words, g_rows, spaces)
        p_rows = (p_rows + [(2, "")] * len(words))[: len(words)]
        examples.append(Example(gold if itself else tagged_doc(words, p_rows, spaces), gold))
    try:
        want = ents_rows(examples, unit)
    except ValueError as exc:  # E093: an I tag that starts no entity, raised as spaCy raises it
        with pytest.raises(ValueError, match=re.escape(str(exc))):
            examples_to_batch(examples, unit=unit)
        return
    batch = examples_to_batch(examples, unit=unit).batch
    got = tuple(
        [
            (d, start, end, batch.labels[label])
            for d, start, end, label in zip(
                *(getattr(cols, k).tolist() for k in ("doc", "start", "end", "label")), strict=True
            )
        ]
        for cols in (batch.gold, batch.pred)
    )
    assert got == want
    annotated = [eg.reference for eg in examples if eg.reference.has_annotation("ENT_IOB")]
    sizes = [len(doc) if unit == "token" else len(doc.text) for doc in annotated]
    assert batch.lengths.tolist() == sizes


def test_entities_of_other_tokens_of_one_count_are_read_off_their_own_doc():
    """Three examples: "xy" cut in two on the predicted side (more tokens), "abc" cut "ab c"
    and "a bc" (as many tokens, other ones), "abc" cut "ab c" on both sides. The predicted LOC
    "bc" of the second is characters 1 to 3 of its text, whatever the reference's tokens; the
    rows of the second (read span by span) and of the third (read from the token arrays) stay
    in document order."""
    examples = [
        Example(make_doc(["x", "y"], [False, False], ["O", "O"]), make_doc(["xy"], [False], ["O"])),
        Example(
            make_doc(["a", "bc"], [False, False], ["O", "B-LOC"]),
            make_doc(["ab", "c"], [False, False], ["O", "B-LOC"]),
        ),
        Example(
            make_doc(["ab", "c"], [False, False], ["B-LOC", "O"]),
            make_doc(["ab", "c"], [False, False], ["B-LOC", "O"]),
        ),
    ]
    want = ([(1, 2, 3, "LOC"), (2, 0, 2, "LOC")], [(1, 1, 3, "LOC"), (2, 0, 2, "LOC")])
    assert ents_rows(examples, "char") == want
    batch = examples_to_batch(examples, unit="char").batch
    got = tuple(
        list(
            zip(cols.doc.tolist(), cols.start.tolist(), cols.end.tolist(), ["LOC"] * 2, strict=True)
        )
        for cols in (batch.gold, batch.pred)
    )
    assert got == want and batch.labels == ["LOC"]
    assert batch.lengths.tolist() == [2, 3, 3]  # each text's length


@pytest.mark.parametrize("words", [["b"], ["b", "c"]])
def test_an_i_tag_that_starts_a_doc_after_an_entity_is_refused_as_doc_ents_refuses_it(words):
    """The first example ends in an entity; the second starts with an ``I`` tag, which
    continues nothing: spaCy's E093, whether that doc has one token or more."""
    ends_in_x = tagged_doc(["a"], [(3, "X")])
    starts_inside = tagged_doc(words, [(1, "X"), (2, "")][: len(words)])
    with pytest.raises(ValueError, match=r"\[E093\] .*I without B"):
        examples_to_batch([Example(ends_in_x, ends_in_x), Example(starts_inside, starts_inside)])


# -- tokenization differences (semantics §1)
# ----------------------------------------------------------
def smith_led_example() -> Example:
    # Reference: "Smith-led" is one token; the model's tokenizer split it in three.
    gold = make_doc(["The", "Smith-led", "team", "won"], ents=["O", "B-ORG", "I-ORG", "O"])
    pred = make_doc(
        ["The", "Smith", "-", "led", "team", "won"],
        spaces=[True, False, False, True, True, False],
        ents=["O", "B-PER", "O", "B-ORG", "I-ORG", "O"],
    )
    return Example(pred, gold)


def test_char_unit_scores_across_tokenizations():
    scores = make_ents_scorer(unit="char")([smith_led_example()])
    org = scores["ents_iou_per_type"]["ORG"]  # "led team" covers 8/14 of "Smith-led team"
    assert (org["tp"], org["credited"], org["num_predicted"]) == (1.0, 1.0, 1.0)
    assert scores["ents_iou_per_type"]["PER"]["fp"] == 1.0
    assert scores["ents_unaligned"] == 0.0


def test_token_unit_counts_unprojectable_predictions_instead_of_dropping_them():
    scores = make_ents_scorer(unit="token")([smith_led_example()])
    assert scores["ents_unaligned"] == 2.0  # "Smith" and "led team" end/start inside a token
    per_type = scores["ents_iou_per_type"]
    assert per_type["PER"]["num_predicted"] == 1.0 and per_type["PER"]["fp"] == 1.0
    assert per_type["ORG"]["num_predicted"] == 1.0 and per_type["ORG"]["fp"] == 1.0
    assert per_type["ORG"]["fn"] == 1.0
    total_predicted = sum(row["num_predicted"] for row in per_type.values())
    assert total_predicted == len(smith_led_example().predicted.ents)


# -- unannotated examples, empty evaluations ----------------------------------------------------
def test_examples_without_reference_annotation_are_skipped_and_counted():
    words = ["a", "b"]
    unannotated = Example(make_doc(words, ents=["B-X", "O"]), make_doc(words))
    scores = score_ents([jo_example(), unannotated])
    assert scores["ents_unannotated"] == 1.0
    assert scores["ents_iou_per_type"].keys() == {"DATE", "LOC", "PER"}


def test_nothing_to_score_gives_undefined_figures_and_counts_the_skipped_examples():
    words = ["a", "b"]
    scores = score_ents(
        [
            Example(make_doc(words), make_doc(words)),
            Example(make_doc(words), make_doc(words, ents=["O", "O"])),
        ]
    )
    assert scores["ents_unannotated"] == 1.0
    assert all(scores[f"ents_iou_{k}"] is None for k in ("p", "r", "f", "per_type"))


# -- the spans key ------------------------------------------------------------------------------
def spans_example(key="sc"):
    words = ["the", "Royal", "Navy", "fleet"]
    return Example(
        make_doc(words, spans={key: [(1, 3, "ORG")]}),
        make_doc(words, spans={key: [(1, 3, "ORG"), (1, 4, "MIL")]}),
    )


@pytest.mark.parametrize("unit", ["char", "token"])
@pytest.mark.parametrize("side", ["gold", "predicted"])
def test_a_span_without_a_label_is_refused_naming_the_document_side_and_span(side, unit):
    words = ["the", "Royal", "Navy", "fleet"]
    labelled = make_doc(words, spans={"sc": [(1, 3, "ORG")]})
    bare = make_doc(words, spans={"sc": [(1, 3, "")]})
    # (spaCy's Example takes the predicted doc first)
    example = Example(labelled, bare) if side == "gold" else Example(bare, labelled)
    with pytest.raises(InvalidSpanError) as info:
        examples_to_batch([example], source="sc", unit=unit)
    assert str(info.value) == (
        f"document '0', {side} span [4, 14) 'Royal Navy': label must be a non-empty string"
    )


@pytest.mark.parametrize("unit", ["char", "token"])
@pytest.mark.parametrize(
    ("pred_words", "where"),
    [
        # as many tokens as the reference, another text
        (["the", "Royal", "Army", "fleet"], "10 ('Navy fleet' != 'Army fleet')"),
        (["the", "Royal", "Navy", "fleet", "now"], "20 ('' != ' now')"),
    ],
)
def test_a_span_group_example_whose_texts_differ_is_refused_naming_where(unit, pred_words, where):
    gold = make_doc(["the", "Royal", "Navy", "fleet"], spans={"sc": [(1, 3, "ORG")]})
    example = Example(make_doc(pred_words, spans={"sc": [(1, 3, "ORG")]}), gold)
    with pytest.raises(DocumentMismatchError) as info:
        examples_to_batch([example], source="sc", unit=unit)
    assert (
        str(info.value)
        == f"document '0': reference and predicted texts differ at character {where}"
    )


@pytest.mark.parametrize("unit", ["char", "token"])
def test_doc_ents_of_the_same_tokens_spaced_otherwise_are_refused_as_other_texts(unit):
    """ "ab" and "a b ": the same two tokens, each followed by a space only on the predicted
    side (which has no entities)."""
    gold = make_doc(["a", "b"], [False, False], ["B-X", "O"])
    example = Example(make_doc(["a", "b"], [True, True]), gold)
    with pytest.raises(DocumentMismatchError) as info:
        examples_to_batch([example], unit=unit)
    assert str(info.value) == (
        "document '0': reference and predicted texts differ at character 1 ('b' != ' b ')"
    )


def test_a_span_group_over_the_same_number_of_other_tokens_is_projected_in_token_unit():
    """ "Royal-Navy" is one reference token and two predicted ones ("Royal-", "Navy"), the
    fleet one predicted token and two reference ones: as many tokens each, other tokens.
    The predicted "Navy" ends a reference token but starts inside one: unaligned."""
    gold = make_doc(
        ["Royal-Navy", "fl", "eet"], spaces=[True, False, False], spans={"sc": [(0, 1, "ORG")]}
    )
    pred = make_doc(
        ["Royal-", "Navy", "fleet"], spaces=[False, True, False], spans={"sc": [(1, 2, "ORG")]}
    )
    converted = examples_to_batch([Example(pred, gold)], source="sc", unit="token")
    assert converted.batch.pred.doc.tolist() == []
    ((d, span, why),) = converted.batch.unaligned
    assert (d, span.start, span.end, span.label) == (0, 6, 10, "ORG")
    assert why == (
        "cannot project onto reference tokens: start character 6 falls inside reference "
        "token 'Royal-Navy' [0, 10)"
    )
    assert make_spans_scorer("sc", unit="token")([Example(pred, gold)])["spans_sc_unaligned"] == 1.0


def test_the_batchs_labels_come_in_order_of_first_appearance_gold_first_document_by_document():
    """Document 0: gold B at token 1, predicted A at token 1; document 1: gold C and predicted
    D at token 0 (earlier in their text than document 0's), then 24 more labels, gold, in the
    group's order (more rows than a sort keeps in order unless asked to be stable)."""
    words = [f"w{i}" for i in range(26)]
    many = [(i, i + 1, f"L{i:02d}") for i in range(1, 25)]
    examples = [
        Example(
            make_doc(words, spans={"sc": [(1, 2, "A")]}),
            make_doc(words, spans={"sc": [(1, 2, "B")]}),
        ),
        Example(
            make_doc(words, spans={"sc": [(0, 1, "D")]}),
            make_doc(words, spans={"sc": [(0, 1, "C"), *many[::-1]]}),
        ),
    ]
    labels = examples_to_batch(examples, source="sc").batch.labels
    assert labels == ["B", "A", "C", *(label for *_, label in many[::-1]), "D"]


def test_doc_ents_read_both_ways_keep_each_documents_entities_in_order():
    """Document 0 (read from the token arrays) has one entity, document 1 (the first word cut
    in two on the predicted side: read span by span) 24 of 24 labels, read first."""
    words = [f"w{i}" for i in range(48)]
    tags = [f"B-L{i // 2:02d}" if i % 2 else "O" for i in range(48)]
    cut = make_doc(["w", "0", *words[1:]], [False, *[True] * 47, False], ["O", *tags])
    examples = [
        Example(make_doc(["a"], ents=["B-Z"]), make_doc(["a"], ents=["B-Z"])),
        Example(cut, make_doc(words, ents=tags)),
    ]
    batch = examples_to_batch(examples, unit="token").batch
    assert batch.labels == ["Z"] + [f"L{i:02d}" for i in range(24)]
    assert batch.gold.start.tolist() == [0, *range(1, 48, 2)]


def test_examples_to_batch_reads_doc_ents_in_characters_by_default():
    batch = examples_to_batch([jo_example()]).batch
    assert (batch.gold.start.tolist(), batch.gold.end.tolist()) == ([0, 12, 21], [2, 20, 26])


@pytest.mark.parametrize(("unit", "length"), [("char", 20), ("token", 4)])
def test_a_span_group_examples_length_is_in_the_unit(unit, length):
    example = spans_example()
    assert examples_to_batch([example], source="sc", unit=unit).batch.lengths.tolist() == [length]


def test_spacys_span_keys_skip_a_reference_without_the_group_as_ours_do():
    """The second reference has no "sc" group: spaCy's keys in add mode skip that example
    (its predicted span is no false positive), as the two-sided ones do."""
    words = ["the", "Royal", "Navy", "fleet"]
    skipped = Example(make_doc(words, spans={"sc": [(0, 1, "ORG")]}), make_doc(words))
    scores = make_spans_scorer("sc")([spans_example(), skipped])
    assert (scores["spans_sc_p"], scores["spans_sc_r"]) == (1.0, 0.5)
    assert scores["spans_sc_iou_p"] == 1.0 and scores["spans_sc_unannotated"] == 1.0


def test_spans_key_from_the_component_settings():
    scores = score_spans(
        [spans_example("grp")], spans_key="grp", threshold=0.3, labels=["ORG"]
    )  # what spancat's Pipe.score passes along
    assert scores["spans_grp_iou_per_type"]["ORG"]["tp"] == 1.0
    assert scores["spans_grp_iou_per_type"]["MIL"]["fn"] == 1.0


def test_spans_key_from_the_scorer_config_and_conflicts():
    scorer = make_spans_scorer(spans_key="sc")
    assert scorer([spans_example()])["spans_sc_iou_r"] == 0.5
    assert scorer([spans_example()], spans_key="sc")["spans_sc_iou_r"] == 0.5
    with pytest.raises(ValueError, match="'other'.*'sc'"):
        scorer([spans_example()], spans_key="other")
    with pytest.raises(ValueError) as caught:
        make_spans_scorer()([spans_example()])
    assert str(caught.value) == (
        "no spans key: the component does not pass one, so set spans_key in the scorer's "
        'config (e.g. spans_key = "sc")'
    )


def test_config_string_pipeline_scores_through_the_registered_scorer():
    config = """
    [nlp]
    lang = "en"
    pipeline = ["entity_ruler"]

    [components]

    [components.entity_ruler]
    factory = "entity_ruler"

    [components.entity_ruler.scorer]
    @scorers = "spacy_span_eval.ents_scorer.v1"
    thresholds = [0.5, 0.9]
    mode = "replace"
    """
    from thinc.api import Config

    nlp = spacy.util.load_model_from_config(Config().from_str(config), auto_fill=True)
    nlp.get_pipe("entity_ruler").add_patterns([{"label": "LOC", "pattern": "York"}])
    gold = make_doc(["Jo", "lives", "in", "New", "York"], ents=["O", "O", "O", "B-LOC", "I-LOC"])
    scores = nlp.evaluate([Example(nlp.make_doc(gold.text), gold)])
    assert scores["ents_f"] == 1.0 and scores["ents_iou90_f"] == 0.0
    assert scores["ents_exact_f"] == 0.0


# -- average precision over span-group scores (semantics §9) -------------------------------------
def scored_spans_example(scores=(0.9, 0.8, 0.6)):
    """Gold PER "Jo", LOC "New York", DATE "today"; predicted PER "Jo", PER "lives" (wrong),
    LOC "York" (half of "New York"), scored as spancat scores them (``attrs["scores"]``)."""
    words = ["Jo", "lives", "in", "New", "York", "today"]
    gold = make_doc(words, spans={"sc": [(0, 1, "PER"), (3, 5, "LOC"), (5, 6, "DATE")]})
    pred = make_doc(words, spans={"sc": [(0, 1, "PER"), (1, 2, "PER"), (4, 5, "LOC")]})
    if scores is not None:
        pred.spans["sc"].attrs["scores"] = np.array(scores)
    return Example(pred, gold)


# By hand, 3 gold: 0.9 TP, 0.8 FP, 0.6 TP two-sided ("York" has IoU 0.5), FP exact.
# two_sided micro AP: 1/3 * 1 + 0 * 1/2 + 1/3 * 2/3 = 5/9; exact: 1/3 * 1 = 1/3.
@pytest.mark.parametrize(
    ("strategy", "micro", "per_type"),
    [
        ("two_sided", 5 / 9, {"DATE": 0.0, "LOC": 1.0, "PER": 1.0}),
        ("exact", 1 / 3, {"DATE": 0.0, "LOC": 0.0, "PER": 1.0}),
    ],
)
@pytest.mark.parametrize("mode", ["add", "replace"])
def test_average_precision_from_span_group_scores(strategy, micro, per_type, mode):
    scorer = make_spans_scorer("sc", strategy, mode=mode, average_precision=True)
    scores = scorer([scored_spans_example()])
    assert scores["spans_sc_ap"] == pytest.approx(micro)
    assert scores["spans_sc_ap_per_type"] == pytest.approx(per_type)
    assert "spans_sc_ap" not in make_spans_scorer("sc", strategy)([scored_spans_example()])


def test_average_precision_keys_are_none_without_examples_and_refuse_unscored_spans():
    scorer = make_spans_scorer("sc", average_precision=True)
    empty = scorer([])
    assert empty["spans_sc_ap"] is None and empty["spans_sc_ap_per_type"] is None
    with pytest.raises(ValueError, match=r"average_precision = true: 3 prediction\(s\) have no"):
        scorer([scored_spans_example(scores=None)])
    with pytest.raises(ValueError, match="average_precision = true: the token strategy"):
        make_spans_scorer("sc", "token", average_precision=True)


def test_the_component_writes_average_precision_under_its_name():
    nlp = spacy.blank("en")
    on = nlp.add_pipe("span_eval", config={"source": "sc", "average_precision": True})
    off = nlp.add_pipe("span_eval", name="eval_off", config={"source": "sc"})
    scores = on.score([scored_spans_example()])
    assert scores["span_eval_ap"] == pytest.approx(5 / 9)
    assert scores["span_eval_ap_per_type"]["PER"] == 1.0
    assert not any(k.endswith("_ap") for k in off.score([scored_spans_example()]))


# -- slices by a Doc.user_data key (semantics §10) ------------------------------------------------
def sliced_btc_examples(n: int = 400) -> list[Example]:
    """BTC examples, each reference with a ``source`` in ``user_data`` (a string, a boolean
    and a number, read as JSON writes them), every seventh without one."""
    examples = btc_examples(n)
    for i, eg in enumerate(examples):
        if i % 7:
            eg.reference.user_data["source"] = ("news", True, 3)[i % 3]
    return examples


@pytest.mark.parametrize("mode", ["add", "replace"])
@pytest.mark.parametrize("thresholds", [(0.5,), (0.75, 0.5)])
def test_per_slice_equals_scoring_each_slices_examples_alone(mode, thresholds):
    examples = sliced_btc_examples()
    scorer = make_ents_scorer(thresholds=thresholds, mode=mode, slice_by="source")
    scores = scorer(examples)
    alone = make_ents_scorer(thresholds=thresholds, mode=mode)
    groups: dict[str, list[Example]] = {}
    for eg in examples:
        value = eg.reference.user_data.get("source")
        groups.setdefault({None: "(none)", True: "true"}.get(value, str(value)), []).append(eg)
    per_slice = scores["ents_per_slice"]
    assert set(per_slice) == set(groups) == {"news", "true", "3", "(none)"}
    for name, group in groups.items():
        own = alone(group)
        entry = per_slice[name]
        assert entry["per_type"] == own["ents_iou_per_type"]
        assert {k: entry[k] for k in "prf"} == {k: own[f"ents_iou_{k}"] for k in "prf"}
    fields = ("num_annotated", "num_predicted", "tp", "fn", "credited", "fp")
    whole = scores["ents_iou_per_type"]
    for label, row in whole.items():  # the slices add up to the whole
        for key in fields:
            total = sum(e["per_type"].get(label, {}).get(key, 0.0) for e in per_slice.values())
            assert total == row[key]
    f = [e["f"] for e in per_slice.values() if e["num_annotated"]]
    assert scores["ents_worst_slice_f"] == min(f) and "ents_per_slice" not in alone(examples)


def test_spans_per_slice_and_no_examples():
    examples = [scored_spans_example(), spans_example()]
    examples[1].reference.user_data["source"] = "navy"
    scores = make_spans_scorer("sc", slice_by="source")(examples)
    assert set(scores["spans_sc_per_slice"]) == {"(none)", "navy"}
    navy = scores["spans_sc_per_slice"]["navy"]  # ORG found, MIL missed: P 1, R 1/2
    assert (navy["p"], navy["r"], navy["num_annotated"], navy["fn"]) == (1.0, 0.5, 2.0, 1.0)
    assert set(navy["per_type"]) == {"ORG", "MIL"}
    assert scores["spans_sc_worst_slice_f"] == pytest.approx(2 / 3)
    empty = make_spans_scorer("sc", slice_by="source")([])
    assert empty["spans_sc_per_slice"] is None and empty["spans_sc_worst_slice_f"] is None


def sliced_example(gold, pred, source):
    words = ["Jo", "met", "Al"]
    example = Example(make_doc(words, spans={"sc": pred}), make_doc(words, spans={"sc": gold}))
    example.reference.user_data["source"] = source
    return example


def test_a_slice_without_gold_spans_is_shown_and_never_the_worst():
    """ "scan" holds a false positive alone: P 0, R undefined, F 0, but it has no gold span, so
    the worst slice is "mail" (F 1); with "scan" alone there is no worst slice."""
    found = sliced_example([(0, 1, "PER")], [(0, 1, "PER")], "mail")
    spurious = sliced_example([], [(2, 3, "PER")], "scan")
    scores = make_spans_scorer("sc", slice_by="source")([found, spurious])
    scan = scores["spans_sc_per_slice"]["scan"]
    assert (scan["p"], scan["r"], scan["f"], scan["fp"]) == (0.0, None, 0.0, 1.0)
    assert scores["spans_sc_worst_slice_f"] == 1.0
    alone = make_spans_scorer("sc", slice_by="source")([spurious])
    assert set(alone["spans_sc_per_slice"]) == {"scan"}
    assert alone["spans_sc_worst_slice_f"] is None


def test_the_component_slices_by_a_user_data_key_under_its_name():
    nlp = spacy.blank("en")
    component = nlp.add_pipe("span_eval", config={"slice_by": "source"})
    examples = sliced_btc_examples(100)
    scores = component.score(examples)
    per_slice = scores["span_eval_per_slice"]
    assert set(per_slice) == {"news", "true", "3", "(none)"}
    news = [eg for eg in examples if eg.reference.user_data.get("source") == "news"]
    assert per_slice["news"]["per_type"] == component.score(news)["span_eval_per_type"]
    assert scores["span_eval_worst_slice_f"] == min(
        e["f"] for e in per_slice.values() if e["num_annotated"]
    )


def test_spacy_evaluate_per_component_saves_the_slices_of_a_docbins_user_data(tmp_path):
    """The recipe of docs/spacy_integration.md: the slice travels in a ``.spacy`` file's
    ``user_data`` through spaCy's ``Corpus`` to the scorer, and ``spacy evaluate -P`` keeps
    the keys. "York" is half of "New York": a TP at IoU 0.5; "Ann" is missed."""
    from spacy.cli.evaluate import evaluate
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    scorer = {"@scorers": "spacy_span_eval.ents_scorer.v1", "slice_by": "source"}
    ruler = nlp.add_pipe("entity_ruler", config={"scorer": scorer})
    ruler.add_patterns([{"label": "LOC", "pattern": "York"}, {"label": "PER", "pattern": "Jo"}])
    nlp.to_disk(tmp_path / "model")
    db = DocBin(store_user_data=True)
    for words, ents, source in (
        (["Jo", "lives", "in", "New", "York"], ["B-PER", "O", "O", "B-LOC", "I-LOC"], "mail"),
        (["Jo", "met", "Ann"], ["B-PER", "O", "B-PER"], "scan"),
    ):
        doc = make_doc(words, ents=ents)
        doc.user_data["source"] = source
        db.add(doc)
    db.to_disk(tmp_path / "dev.spacy")
    data = evaluate(str(tmp_path / "model"), tmp_path / "dev.spacy", per_component=True)
    scores = data["entity_ruler"]
    assert {k: v["f"] for k, v in scores["ents_per_slice"].items()} == {
        "mail": 1.0,
        "scan": pytest.approx(2 / 3),
    }
    assert scores["ents_worst_slice_f"] == pytest.approx(2 / 3)


@pytest.mark.parametrize("mode", ["both", "ADD", ""])
def test_a_key_mode_other_than_add_or_replace_is_refused(mode):
    with pytest.raises(ValueError, match="'mode' must be in \\('add', 'replace'\\)"):
        ScorerSettings(mode=mode)
