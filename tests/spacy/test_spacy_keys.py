"""Mode ``add``: every key spaCy's own scorer writes is exactly what spaCy writes.

Differential tests against spaCy on random examples whose reference and predicted docs are
tokenized differently: random texts, two random tokenizations of each, random entities
(sometimes on a partially annotated reference) and random overlapping span groups. spaCy's
figures come from spaCy's stock components scoring the same examples (``ner``, ``spancat``,
``spancat_singlelabel`` with their default scorers); ours from the same components configured
with this package's scorers. Compared key by key, values exactly equal."""

from __future__ import annotations

import math

import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st
from spacy.scorer import Scorer, get_ner_prf
from spacy.tokens import Doc
from spacy.tokens import Span as SpacySpan
from spacy.training import Example

from spacy_span_eval.adapters.scorers import make_ents_scorer

from spacy_doc_factory import NLP, make_doc, score_ents, score_spans

OURS_ENTS = {"@scorers": "spacy_span_eval.ents_scorer.v1"}
OURS_SPANS = {"@scorers": "spacy_span_eval.spans_scorer.v1"}


def pipelines(scorers: bool):
    """Unfitted stock components: scoring reads only the examples, not the models."""
    nlp = spacy.blank("en")
    ner = {"scorer": OURS_ENTS} if scorers else {}
    spans = {"scorer": OURS_SPANS} if scorers else {}
    nlp.add_pipe("ner", config=ner)
    nlp.add_pipe("spancat", config={"spans_key": "sc", **spans})
    nlp.add_pipe(
        "spancat_singlelabel",
        name="single",
        config={"spans_key": "one", "allow_overlap": False, **spans},
    )
    return nlp


SPACY_NLP, OUR_NLP = pipelines(False), pipelines(True)


def same(ours, theirs, where: str = "") -> None:
    """Equal, key by key; floats exactly (NaN never appears)."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and ours.keys() == theirs.keys(), where
        for key in theirs:
            same(ours[key], theirs[key], f"{where}.{key}")
        return
    assert type(ours) is type(theirs), (where, ours, theirs)
    assert ours == theirs, (where, ours, theirs)
    assert not (isinstance(ours, float) and math.isnan(ours)), where


# -- random examples ----------------------------------------------------------------------------
@st.composite
def texts(draw):
    """Atoms (short strings) with a space or not after each: the text both sides share."""
    n = draw(st.integers(1, 10))
    atoms = draw(st.lists(st.text("abc-", min_size=1, max_size=3), min_size=n, max_size=n))
    spaces = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    spaces[-1] = False
    return atoms, spaces


@st.composite
def tokenization(draw, text):
    """One tokenization of the text: atoms not separated by a space may be fused."""
    atoms, spaces = text
    words, after = [atoms[0]], [spaces[0]]
    for atom, space in zip(atoms[1:], spaces[1:], strict=True):
        if not after[-1] and draw(st.booleans()):
            words[-1] += atom
            after[-1] = space
        else:
            words.append(atom)
            after.append(space)
    return words, after


@st.composite
def token_spans(draw, n: int, overlap: bool):
    spans = []
    for _ in range(draw(st.integers(0, 4))):
        start = draw(st.integers(0, n - 1))
        end = draw(st.integers(start + 1, min(n, start + 3)))
        spans.append((start, end, draw(st.sampled_from("AB"))))
    if not overlap:
        kept, used = [], set()
        for s, e, lab in spans:
            if not used & set(range(s, e)):
                kept.append((s, e, lab))
                used |= set(range(s, e))
        spans = kept
    return spans


@st.composite
def docs(draw, text, reference: bool):
    words, spaces = draw(tokenization(text))
    doc = Doc(NLP.vocab, words=words, spaces=spaces)
    ents = [SpacySpan(doc, s, e, label=lab) for s, e, lab in draw(token_spans(len(doc), False))]
    if reference and draw(st.booleans()):  # partially annotated: some tokens left missing
        taken = {i for ent in ents for i in range(ent.start, ent.end)}
        outside = [
            SpacySpan(doc, i, i + 1)
            for i in range(len(doc))
            if i not in taken and draw(st.booleans())
        ]
        doc.set_ents(ents, outside=outside, default="unmodified")
    elif draw(st.booleans()) or not reference:
        doc.ents = ents
    for key in ("sc", "one"):
        if not reference or draw(st.integers(0, 4)):  # sometimes a reference lacks the group
            doc.spans[key] = [
                SpacySpan(doc, s, e, label=lab) for s, e, lab in draw(token_spans(len(doc), True))
            ]
    return doc


@st.composite
def examples(draw):
    out = []
    for _ in range(draw(st.integers(1, 4))):
        text = draw(texts())
        out.append(Example(draw(docs(text, False)), draw(docs(text, True))))
    return out


@settings(max_examples=150, deadline=None)
@given(examples())
def test_add_mode_writes_exactly_spacys_keys_on_random_tokenizations(egs):
    theirs = Scorer(SPACY_NLP).score(egs)
    ours = Scorer(OUR_NLP).score(egs)  # nothing to score in a source: None, as spaCy's
    assert set(theirs) <= set(ours)
    for key in theirs:
        same(ours[key], theirs[key], key)
    # and this package's own keys sit beside them, with their ledgers
    assert "ents_iou_per_type" in ours and "spans_sc_iou_per_type" in ours


@settings(max_examples=100, deadline=None)
@given(examples(), st.sampled_from(["char", "token"]), st.sampled_from([None, {"A": "B"}]))
def test_spacys_keys_do_not_depend_on_our_settings(egs, unit, label_map):
    ents = score_ents(egs, unit=unit, label_map=label_map, beta=2.0, thresholds=[0.3, 0.9])
    spans = score_spans(egs, spans_key="sc", unit=unit, label_map=label_map)
    for key, value in get_ner_prf(egs).items():
        same(ents[key], value, key)
    spacy_spans = Scorer.score_spans(
        egs,
        "spans_sc",
        getter=lambda doc, attr: doc.spans.get("sc", []),
        has_annotation=lambda doc: "sc" in doc.spans,
        allow_overlap=True,
    )
    for key, value in spacy_spans.items():
        same(spans[key], value, key)


# -- cases by hand --------------------------------------------------------------------------------
def smith_led_example() -> Example:
    gold = make_doc(["The", "Smith-led", "team"], ents=["O", "B-PER", "O"])
    pred = make_doc(
        ["The", "Smith", "-", "led", "team"],
        spaces=[True, False, False, True, False],
        ents=["O", "B-PER", "O", "O", "O"],
    )
    return Example(pred, gold)


def test_smith_led_scores_as_spacy_scores_it():
    eg = smith_led_example()
    scores = make_ents_scorer()([eg])
    assert get_ner_prf([eg])["ents_f"] == 1.0  # spaCy aligns "Smith" to "Smith-led"
    assert (scores["ents_p"], scores["ents_r"], scores["ents_f"]) == (1.0, 1.0, 1.0)
    # our own figures keep their semantics: "Smith" covers 5/9 of "Smith-led" in char unit
    assert scores["ents_iou_per_type"]["PER"]["tp"] == 1.0
    token = make_ents_scorer(unit="token")([eg])
    assert token["ents_f"] == 1.0 and token["ents_iou_per_type"]["PER"]["fn"] == 1.0
    assert token["ents_unaligned"] == 1.0


def test_spacys_per_type_format_has_no_none_and_no_counts():
    words = ["a", "b", "c"]
    eg = Example(make_doc(words, ents=["O", "O", "B-Y"]), make_doc(words, ents=["B-X", "O", "O"]))
    scores = make_ents_scorer()([eg])
    assert scores["ents_per_type"] == {
        "X": {"p": 0.0, "r": 0.0, "f": 0.0},
        "Y": {"p": 0.0, "r": 0.0, "f": 0.0},
    }
    assert scores["ents_iou_per_type"]["X"]["p"] is None  # ours: undefined stays None
    assert scores["ents_iou_per_type"]["X"]["num_annotated"] == 1.0


@pytest.mark.parametrize("allow_overlap", [True, False])
def test_the_components_settings_reach_spacys_span_scorer(allow_overlap):
    # "b c" overlaps "a b": without allow_overlap spaCy aligns it to "c" only, whose text
    # differs, and leaves it out; what the component passes along decides, as in spaCy.
    words = ["a", "b", "c"]
    eg = Example(
        make_doc(words, spans={"sc": [(0, 2, "A"), (1, 3, "B")]}),
        make_doc(words, spans={"sc": [(0, 2, "A")]}),
    )
    ours = score_spans([eg], spans_key="sc", allow_overlap=allow_overlap)
    assert ours["spans_sc_p"] == (0.5 if allow_overlap else 1.0)
    theirs = Scorer.score_spans(
        [eg],
        "spans_sc",
        getter=lambda doc, attr: doc.spans.get("sc", []),
        has_annotation=lambda doc: "sc" in doc.spans,
        allow_overlap=allow_overlap,
    )
    same({k: ours[k] for k in theirs}, theirs)
    assert ours["spans_sc_iou_per_type"]["B"]["num_predicted"] == 1.0  # ours counts it always
