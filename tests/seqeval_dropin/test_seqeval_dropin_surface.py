"""The public surface: seqeval's names, with seqeval's signatures, and an ``__all__`` that
names exactly what the package exports."""

from __future__ import annotations

import doctest
import inspect

import pytest
from seqeval import metrics as ref_metrics
from seqeval import scheme as ref_scheme
from seqeval.metrics import sequence_labeling as ref_labeling

import spacy_span_eval.seqeval as ours
from spacy_span_eval.seqeval import hf
from spacy_span_eval.seqeval import metrics as our_metrics
from spacy_span_eval.seqeval import scheme as our_scheme

FUNCTIONS = (
    "accuracy_score",
    "classification_report",
    "f1_score",
    "get_entities",
    "performance_measure",
    "precision_recall_fscore_support",
    "precision_score",
    "recall_score",
)
SCHEMES = ("IOB1", "IOB2", "IOE1", "IOE2", "IOBES", "BILOU")


def parameters(fn):
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_every_function_has_seqevals_signature(name):
    assert parameters(getattr(ours, name)) == parameters(getattr(ref_labeling, name))
    assert getattr(our_metrics, name) is getattr(ours, name)


def test_seqeval_metrics_exports_nothing_we_lack():
    public = {n for n in dir(ref_metrics) if not n.startswith("_")} - {"sequence_labeling", "v1"}
    assert public <= set(ours.__all__)


@pytest.mark.parametrize("name", SCHEMES)
def test_every_scheme_class_is_there(name):
    assert getattr(ours, name) is getattr(our_scheme, name)
    assert hasattr(ref_scheme, name)


def test_all_is_complete():
    exported = {n for n, v in vars(ours).items() if not n.startswith("_") and callable(v)}
    assert set(ours.__all__) == exported
    assert sorted(ours.__all__) == list(ours.__all__)


@pytest.mark.parametrize("module", [our_metrics, hf], ids=lambda m: m.__name__)
def test_the_docstring_examples_run(module):
    failed, tried = doctest.testmod(module, verbose=False)
    assert tried > 0
    assert failed == 0


def test_a_scheme_class_carries_the_tables_it_is_built_from():
    """(the shipped schemes are built at import; this builds one in the test)"""
    made = our_scheme._scheme(
        "T", allowed="IOB", start=("* B *",), inside=("B I =",), end=("I O *",)
    )
    assert issubclass(made, our_scheme.Token) and made.__name__ == "T"
    assert (made.allowed, made.start, made.inside, made.end) == (
        "IOB",
        ("* B *",),
        ("B I =",),
        ("I O *",),
    )


@pytest.mark.parametrize("scheme", ["IOX", 42, our_scheme.Prefix])
def test_a_strict_score_refuses_a_scheme_that_is_none_of_the_six(scheme):
    """(seqeval fails calling it; a name of one of the six is taken, below)"""
    message = f"scheme {scheme!r} is not one of IOB1, IOB2, IOE1, IOE2, IOBES, BILOU"
    for score in (ours.precision_score, ours.recall_score, ours.f1_score):
        with pytest.raises(TypeError) as caught:
            score([["B-PER"]], [["B-PER"]], mode="strict", scheme=scheme)
        assert str(caught.value) == message
    assert (
        ours.f1_score([["B-PER", "I-PER"]], [["I-PER", "I-PER"]], mode="strict", scheme="IOB2") == 0
    )


def test_auto_detect_has_seqevals_signature():
    assert parameters(our_scheme.auto_detect) == parameters(ref_scheme.auto_detect)
    assert our_scheme.auto_detect([["B-PER", "I-PER", "O"]]) is our_scheme.IOB2


OWN_TAGS = {
    "IOB1": "I-PER I-PER B-PER O",
    "IOB2": "B-PER I-PER O B-LOC",
    "IOE1": "I-PER E-PER I-PER O",
    "IOE2": "I-PER E-PER O E-LOC",
    "IOBES": "B-PER E-PER S-PER O",
    "BILOU": "B-PER L-PER U-PER O",
}


@pytest.mark.parametrize("name", SCHEMES)
def test_a_strict_score_takes_seqevals_own_scheme_class_and_the_name(name):
    y = [OWN_TAGS[name].split()]  # two chunks in the scheme's own tags
    ours_class = getattr(ours, name)
    report = ours.classification_report(y, y, mode="strict", scheme=ours_class)
    for scheme in (getattr(ref_scheme, name), name):
        assert ours.f1_score(y, y, mode="strict", scheme=scheme) == 1.0
        assert ours.classification_report(y, y, mode="strict", scheme=scheme) == report
