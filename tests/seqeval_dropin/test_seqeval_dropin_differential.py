"""Reference test: every figure of spacy_span_eval.seqeval against the installed seqeval 1.2.2,
on random tag lists of every scheme, well-formed or not, in both modes.

Each call is made on both sides with the same arguments; results (numbers, arrays, dicts, text
reports, their types), warnings (class and message, in order) and exceptions (class; and
message where seqeval's does not print a set, whose order is arbitrary) must agree.
"""

# ruff: noqa: B023 - every lambda is called at once, in the loop turn that makes it

from __future__ import annotations

import linecache
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from seqeval import metrics as ref_metrics
from seqeval import scheme as ref_scheme
from seqeval.metrics import sequence_labeling as ref_labeling

from spacy_span_eval import seqeval as ours

PREFIXES = {
    "IOB1": "IOB",
    "IOB2": "IOB",
    "IOE1": "IOE",
    "IOE2": "IOE",
    "IOBES": "IOBES",
    "BILOU": "BILOU",
}
SCHEMES = tuple(PREFIXES)
LABELS = ("PER", "LOC", "MISC-X")
# Tags seqeval reads in odd ways: no prefix, a bare prefix, unknown letters, a dot, empty label.
ODD = ("PER", "B", "I", "B-", "X-PER", ".", "-", "O-PER", "MISC", "U-LOC")
SCORES = ("precision_score", "recall_score", "f1_score")
AVERAGES = (None, "micro", "macro", "weighted")
ZERO_DIVISIONS = ("warn", 0, 1)


def tag_alphabet(scheme: str, suffix: bool, odd: bool) -> list[str]:
    tags = ["O"] + [
        f"{label}-{p}" if suffix else f"{p}-{label}" for p in PREFIXES[scheme] for label in LABELS
    ]
    return tags + list(ODD) if odd else tags


@st.composite
def corpora(draw: Any, *, odd: bool) -> tuple[str, bool, list[list[str]], list[list[str]]]:
    scheme = draw(st.sampled_from(SCHEMES))
    suffix = draw(st.booleans())
    alphabet = tag_alphabet(scheme, suffix, odd)
    tag = st.sampled_from(alphabet)
    lengths = draw(st.lists(st.integers(0, 8), min_size=1, max_size=5))
    y_true = [draw(st.lists(tag, min_size=n, max_size=n)) for n in lengths]
    y_pred = [draw(st.lists(tag, min_size=n, max_size=n)) for n in lengths]
    return scheme, suffix, y_true, y_pred


def outcome(call: Any) -> tuple[Any, list[tuple[type, str]], Any]:
    """(result, warnings, exception) of ``call()``, comparable across the two libraries."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result, error = call(), None
        except Exception as exc:  # noqa: BLE001 - the class is what is compared
            text = str(exc)
            result, error = None, (type(exc), None if "{" in text else text)
    seen = [(w.category, str(w.message)) for w in caught if "Mean of empty" not in str(w.message)]
    return result, seen, error


def same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (float, np.floating)) and np.isnan(a):
        return bool(np.isnan(b))
    return bool(a == b)


def agree(ref_call: Any, our_call: Any) -> None:
    ref, our = outcome(ref_call), outcome(our_call)
    assert same(ref[0], our[0]), (ref[0], our[0])
    assert ref[1] == our[1]
    assert ref[2] == our[2]


FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(case=corpora(odd=True), average=st.sampled_from(AVERAGES))
@pytest.mark.parametrize("zero_division", ZERO_DIVISIONS)
def test_default_mode_scores_agree(case, average, zero_division):
    _, suffix, y_true, y_pred = case
    for name in SCORES:
        kwargs = {"average": average, "suffix": suffix, "zero_division": zero_division}
        agree(
            lambda: getattr(ref_metrics, name)(y_true, y_pred, sample_weight=[1] * 2, **kwargs),
            lambda: getattr(ours, name)(y_true, y_pred, sample_weight=[1] * 2, **kwargs),
        )


UNDEFINED = [
    ([["B-PER", "O"]], [["O", "O"]]),  # no predicted chunk: precision undefined
    ([["O", "O"]], [["B-PER", "O"]]),  # no gold chunk: recall undefined
    ([["O"]], [["O"]]),  # neither
]


@pytest.mark.parametrize(("y_true", "y_pred"), UNDEFINED)
def test_scores_called_with_their_defaults_agree_where_a_ratio_is_undefined(y_true, y_pred):
    """Each score with its defaults alone: zero_division's "warn" (a warning and 0), micro."""
    for name in SCORES:
        agree(
            lambda: getattr(ref_metrics, name)(y_true, y_pred),
            lambda: getattr(ours, name)(y_true, y_pred),
        )


@FAST
@given(case=corpora(odd=True))
def test_scores_called_with_their_defaults_agree(case):
    _, _, y_true, y_pred = case
    for name in SCORES:
        agree(
            lambda: getattr(ref_metrics, name)(y_true, y_pred),
            lambda: getattr(ours, name)(y_true, y_pred),
        )


@FAST
@given(case=corpora(odd=True), beta=st.sampled_from((0.0, 0.5, 1.0, 2.0, float("inf"))))
def test_precision_recall_fscore_support_agrees(case, beta):
    _, suffix, y_true, y_pred = case
    for average in AVERAGES:
        agree(
            lambda: ref_labeling.precision_recall_fscore_support(
                y_true, y_pred, average=average, beta=beta, suffix=suffix
            ),
            lambda: ours.precision_recall_fscore_support(
                y_true, y_pred, average=average, beta=beta, suffix=suffix
            ),
        )


@FAST
@given(case=corpora(odd=True), digits=st.integers(0, 5), output_dict=st.booleans())
def test_default_mode_reports_agree(case, digits, output_dict):
    _, suffix, y_true, y_pred = case
    kwargs = {"digits": digits, "suffix": suffix, "output_dict": output_dict}
    agree(
        lambda: ref_metrics.classification_report(y_true, y_pred, **kwargs),
        lambda: ours.classification_report(y_true, y_pred, **kwargs),
    )


@FAST
@given(case=corpora(odd=True), flat=st.booleans())
def test_get_entities_accuracy_and_token_counts_agree(case, flat):
    _, suffix, y_true, y_pred = case
    if flat:
        y_true, y_pred = [t for s in y_true for t in s], [t for s in y_pred for t in s]
    agree(
        lambda: ref_labeling.get_entities(y_true, suffix),
        lambda: ours.get_entities(y_true, suffix),
    )
    agree(
        lambda: ref_metrics.accuracy_score(y_true, y_pred),
        lambda: ours.accuracy_score(y_true, y_pred),
    )
    agree(
        lambda: ref_metrics.performance_measure(y_true, y_pred),
        lambda: ours.performance_measure(y_true, y_pred),
    )


@FAST
@given(
    case=corpora(odd=False),
    average=st.sampled_from(AVERAGES),
    zero_division=st.sampled_from(ZERO_DIVISIONS),
    wrong_scheme=st.booleans(),
)
def test_strict_mode_scores_agree(case, average, zero_division, wrong_scheme):
    """Every scheme, including tag lists of another scheme's prefixes (seqeval raises)."""
    scheme, suffix, y_true, y_pred = case
    if wrong_scheme:
        scheme = {"IOB1": "IOE2", "IOE1": "IOB2", "IOBES": "BILOU"}.get(scheme, "IOB1")
    kwargs = {"average": average, "suffix": suffix, "zero_division": zero_division}
    for name in SCORES:
        agree(
            lambda: getattr(ref_metrics, name)(
                y_true, y_pred, mode="strict", scheme=getattr(ref_scheme, scheme), **kwargs
            ),
            lambda: getattr(ours, name)(
                y_true, y_pred, mode="strict", scheme=getattr(ours, scheme), **kwargs
            ),
        )


@FAST
@given(case=corpora(odd=False), detect=st.booleans(), output_dict=st.booleans())
def test_strict_mode_reports_agree(case, detect, output_dict):
    scheme, suffix, y_true, y_pred = case
    kwargs = {"suffix": suffix, "output_dict": output_dict, "mode": "strict"}
    agree(
        lambda: ref_metrics.classification_report(
            y_true, y_pred, scheme=None if detect else getattr(ref_scheme, scheme), **kwargs
        ),
        lambda: ours.classification_report(
            y_true, y_pred, scheme=None if detect else getattr(ours, scheme), **kwargs
        ),
    )


@pytest.mark.parametrize(
    "y_true, y_pred",
    [
        ([["O"]], [[]]),
        ([[]], [["O"]]),
        (["B-PER"], ["B-PER"]),
        ([["B-PER"]], [("B-PER",)]),
        ([["B-PER"], ["O"]], [["B-PER"], ("O",)]),  # one side both lists and a tuple
    ],
)
def test_the_same_errors_on_inputs_that_do_not_fit(y_true, y_pred):
    agree(lambda: ref_metrics.f1_score(y_true, y_pred), lambda: ours.f1_score(y_true, y_pred))
    if not any(isinstance(s, tuple) for s in y_pred):  # (see docs/seqeval.md)
        # the report decodes before it checks (a flat list is one sentence there), and warns
        agree(
            lambda: ref_metrics.classification_report(y_true, y_pred),
            lambda: ours.classification_report(y_true, y_pred),
        )


@pytest.mark.parametrize("kwargs", [{"average": "samples"}, {"beta": -1.0}])
def test_the_same_errors_on_bad_arguments(kwargs):
    args = ([["B-PER"]], [["B-PER"]])
    agree(
        lambda: ref_labeling.precision_recall_fscore_support(*args, **kwargs),
        lambda: ours.precision_recall_fscore_support(*args, **kwargs),
    )


def test_empty_input_warns_as_seqeval_does():
    for average in AVERAGES:
        agree(
            lambda: ref_metrics.f1_score([[]], [[]], average=average),
            lambda: ours.f1_score([[]], [[]], average=average),
        )
    with pytest.warns(RuntimeWarning):
        ours.f1_score([[]], [[]], average="macro")


@pytest.mark.parametrize(
    "y_true, y_pred",
    [
        ([["B-PER", "X-PER"]], [["B-PER", "O"]]),  # a letter seqeval does not know: KeyError
        ([["B-PER", "O"]], [["O", "Z-LOC"]]),  # ... on the predicted side
        ([["B-PER"], ["E-PER", "X-PER"]], [["B-PER"], ["O", "O"]]),  # KeyError before ValueError
        ([["B-PER", ""]], [["B-PER", "O"]]),  # the empty tag
        ([["B-PER", "S-PER"]], [["B-PER", "O"]]),  # a prefix IOB2 does not allow: ValueError
        ([["B-PER", "S-PER"], ["X-PER"]], [["B-PER", "O"], ["O"]]),  # ValueError first
    ],
)
@pytest.mark.parametrize("mode", [None, "strict"])
def test_the_same_errors_on_tags_seqeval_cannot_read(y_true, y_pred, mode):
    for name in SCORES:
        agree(
            lambda: getattr(ref_metrics, name)(y_true, y_pred, mode=mode, scheme=ref_scheme.IOB2),
            lambda: getattr(ours, name)(y_true, y_pred, mode=mode, scheme=ours.IOB2),
        )
    agree(
        lambda: ref_metrics.classification_report(y_true, y_pred, mode=mode),
        lambda: ours.classification_report(y_true, y_pred, mode=mode),
    )


def test_under_the_default_filter_each_warning_shows_as_often_as_seqeval_s():
    # Python shows a warning once per place it points at: seqeval's point at one place each,
    # so a report that computes four times (per type, micro, macro, weighted) shows each once.
    y_true, y_pred = [["B-PER", "O", "U-LOC"]], [["O", "B-LOC", "L-LOC"]]

    def shown(metrics: Any) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            metrics.classification_report(y_true, y_pred)
            metrics.f1_score(y_true, y_pred)
            metrics.classification_report(y_true, y_pred, output_dict=True)
        return [f"{w.category.__name__}: {w.message}" for w in caught]

    assert shown(ours) == shown(ref_metrics)
    assert len(shown(ours)) == 3


@pytest.mark.parametrize(
    "y_true, y_pred, accuracy, tp_fp_fn_tn",
    [
        # y_true holds lists, so both sides are flattened: y_pred's strings into their letters,
        # then cut to y_true's two tags, ("B-PER", "B") and ("O", "-")
        ([["B-PER", "O"]], ["B-PER", "O"], 0.0, (0, 2, 0, 0)),
        # the longer side is cut (its O is never compared), the share is over y_true's length
        ([["B-PER", "I-PER", "O"]], [["B-PER", "I-PER"]], 2 / 3, (2, 0, 0, 0)),
        ([["B-PER", "I-PER", "O"]], [["B-PER"], ["I-PER", "B-LOC", "O"]], 2 / 3, (2, 1, 0, 0)),
    ],
)  # fmt: skip
def test_accuracy_and_token_counts_flatten_by_the_gold_side_and_cut_the_longer(
    y_true, y_pred, accuracy, tp_fp_fn_tn
):
    counts = dict(zip(("TP", "FP", "FN", "TN"), tp_fp_fn_tn, strict=True))
    assert ours.accuracy_score(y_true, y_pred) == accuracy
    assert ours.performance_measure(y_true, y_pred) == counts
    agree(lambda: ref_metrics.accuracy_score(y_true, y_pred), lambda: accuracy)
    agree(lambda: ref_metrics.performance_measure(y_true, y_pred), lambda: counts)


def test_precision_recall_fscore_support_defaults_to_f1():
    # PER found, LOC missed: precision 1/1, recall 1/2, F1 2/3 (F2 would be 5/9)
    y_true, y_pred = [["B-PER", "O", "B-LOC"]], [["B-PER", "O", "O"]]
    expected = (1.0, 0.5, 2 / 3, 2)
    assert ours.precision_recall_fscore_support(y_true, y_pred, average="micro") == expected
    agree(
        lambda: ref_labeling.precision_recall_fscore_support(y_true, y_pred, average="micro"),
        lambda: ours.precision_recall_fscore_support(y_true, y_pred, average="micro"),
    )


@pytest.mark.parametrize(
    "y_true, y_pred",
    [
        ([["PER-B", "PER-X"]], [["PER-B", "O"]]),  # KeyError: the letter at the end, X
        ([["PER-B", "O"]], [["PER-B", "PER-"]]),  # ... here "-"
    ],
)
def test_strict_mode_names_the_unknown_letter_at_the_end_of_a_suffix_tag(y_true, y_pred):
    for name in SCORES:
        agree(
            lambda: getattr(ref_metrics, name)(
                y_true, y_pred, mode="strict", scheme=ref_scheme.IOB2, suffix=True
            ),
            lambda: getattr(ours, name)(
                y_true, y_pred, mode="strict", scheme=ours.IOB2, suffix=True
            ),
        )


@pytest.mark.parametrize("message", ["seems not to be NE tag", "ill-defined and being set to 0.0"])
def test_each_kind_of_warning_points_at_the_one_line_that_warns(message):
    """(so that the default filter shows each once, as above; seqeval's point at its own line)"""
    y_true, y_pred = [["B-PER", "O", "U-LOC"]], [["O", "PER", "L-LOC"]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours.classification_report(y_true, y_pred)
        ours.f1_score(y_true, y_pred)
    places = {(w.filename, w.lineno) for w in caught if message in str(w.message)}
    assert len(places) == 1
    ((filename, lineno),) = places
    assert "warnings.warn(" in linecache.getline(filename, lineno)


@pytest.mark.parametrize(
    "tags, suffix, chunks, warned",
    [
        # a bare B, I, E, S or O is read without a warning (type "_"); U is no such letter
        ("B I E S O E U S", False, [("_", 0, 2), ("_", 3, 3), ("_", 5, 5), ("_", 7, 7)], ["U"]),
        ("PER-E PER-S E S", True, [("PER", 0, 0), ("PER", 1, 1), ("_", 2, 2), ("_", 3, 3)], []),
    ],
)
def test_a_bare_prefix_letter_is_a_chunk_of_no_type_read_without_a_warning(
    tags, suffix, chunks, warned
):
    tags = tags.split()
    result, seen, error = outcome(lambda: ours.get_entities(tags, suffix))
    assert (result, error) == (chunks, None)
    assert seen == [(UserWarning, f"{tag} seems not to be NE tag.") for tag in warned]
    agree(lambda: ref_labeling.get_entities(tags, suffix), lambda: ours.get_entities(tags, suffix))


def test_a_report_with_more_digits_than_any_name_is_as_wide_as_its_digits():
    y_true, y_pred = [["B-PER", "O"]], [["B-PER", "O"]]
    text = ours.classification_report(y_true, y_pred, digits=14)
    assert text.splitlines()[2] == f"{'PER':>14} " + f" {1:>9.14f}" * 3 + f" {1:>9}"
    agree(
        lambda: ref_metrics.classification_report(y_true, y_pred, digits=14),
        lambda: ours.classification_report(y_true, y_pred, digits=14),
    )


@pytest.mark.parametrize(
    "y_pred, zero_division, expected",
    [
        # no gold chunk: recall is zero_division's value ("warn": 0), and so are precision
        # and F where nothing is predicted; where something is, they are 0
        ([["B-PER", "O"]], "warn", (0.0, 0.0, 0.0, 0)),
        ([["B-PER", "O"]], 1, (0.0, 1.0, 0.0, 0)),
        ([["O", "O"]], 0, (0.0, 0.0, 0.0, 0)),
        ([["O", "O"]], 1, (1.0, 1.0, 1.0, 0)),
    ],
)
def test_the_weighted_average_with_no_gold_chunk(y_pred, zero_division, expected):
    y_true = [["O", "O"]]
    kwargs = {"average": "weighted", "zero_division": zero_division}
    result, _, error = outcome(
        lambda: ours.precision_recall_fscore_support(y_true, y_pred, **kwargs)
    )
    assert (result, error) == (expected, None)
    agree(
        lambda: ref_labeling.precision_recall_fscore_support(y_true, y_pred, **kwargs),
        lambda: ours.precision_recall_fscore_support(y_true, y_pred, **kwargs),
    )


def test_strict_mode_names_the_first_suffix_tag_whose_scheme_it_cannot_detect():
    y_true, y_pred = [["PER-B", "PER-X", "LOC-Z"]], [["PER-B", "O", "O"]]
    result, _, error = outcome(
        lambda: ours.classification_report(y_true, y_pred, mode="strict", suffix=True)
    )
    assert error == (ValueError, "This scheme is not supported: PER-X")
    agree(
        lambda: ref_metrics.classification_report(y_true, y_pred, mode="strict", suffix=True),
        lambda: ours.classification_report(y_true, y_pred, mode="strict", suffix=True),
    )
