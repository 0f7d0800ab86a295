"""Bootstrap intervals checked value by value against an oracle written apart from the
package: the resamples drawn again with numpy's generator as the module documents (one
``integers(0, n, n)`` call per resample from ``default_rng(seed)``), each resample's counts
summed from per-document counts written down by hand (exact matching, so a matched span is
both a true positive and a credited prediction), precision, recall and F-beta worked in
exact fractions, and numpy's percentiles of them. Wilson bounds come from the textbook
formula with ``statistics.NormalDist``. Also: the resampling settings' checks and messages,
the sparse rows' operations against dense numpy, and the keys of the JSON form."""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.engine import resampling
from spacy_span_eval.engine.bootstrap import bootstrap_intervals, wilson_interval
from spacy_span_eval.engine.ledger import ledger_figures as figures
from spacy_span_eval.engine.paired import paired_test
from spacy_span_eval.engine.resampling import SparseRows, resample_weights
from spacy_span_eval.errors import InvalidInputError

FIGS = ("precision", "recall", "f")


# -- the oracle -------------------------------------------------------------------------------
def make_docs(specs: list[dict[str, tuple[int, int, int]]], prefix: str = "d") -> list[Document]:
    """One document per spec: ``{label: (matched, gold only, predicted only)}``, each span on a
    token of its own (so exact matching finds exactly the ``matched`` pairs)."""
    docs = []
    for i, spec in enumerate(specs):
        gold, pred, at = [], [], 0
        for label, (matched, gold_only, pred_only) in spec.items():
            for kind in ["m"] * matched + ["g"] * gold_only + ["p"] * pred_only:
                span = (4 * at, 4 * at + 3, label)
                at += 1
                if kind in "mg":
                    gold.append(span)
                if kind in "mp":
                    pred.append(span)
        text = " ".join(["tok"] * max(at, 1))
        docs.append(Document.create(id=f"{prefix}{i}", text=text, gold=gold, pred=pred))
    return docs


def counts(specs, labels) -> np.ndarray:
    """``(documents, labels, 3)``: gold spans, predicted spans, matched spans."""
    out = np.zeros((len(specs), len(labels), 3), dtype=np.int64)
    for i, spec in enumerate(specs):
        for j, label in enumerate(labels):
            m, g, p = spec.get(label, (0, 0, 0))
            out[i, j] = (m + g, m + p, m)
    return out


def draws(n: int, resamples: int, seed: int) -> np.ndarray:
    """``(resamples, n)``: how often each document is drawn, drawn as the module documents."""
    rng = np.random.default_rng(seed)
    return np.array(
        [np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(resamples)],
        dtype=np.int64,
    )


def ratio(num, den, zero_division=None):
    if den == 0:
        return None if zero_division is None else Fraction(zero_division)
    return Fraction(int(num), int(den))


def prf(gold, predicted, matched, beta=1.0, zero_division=None):
    """Precision, recall, F-beta of one ledger (``None``: undefined), by the ledger's rules."""
    p = ratio(matched, predicted, zero_division)
    r = ratio(matched, gold, zero_division)
    b2 = Fraction(beta) ** 2
    if p is None or r is None:
        other = r if p is None else p
        f = Fraction(0) if other == 0 else None
    elif b2 * p + r == 0:
        f = Fraction(0)
    else:
        f = (1 + b2) * p * r / (b2 * p + r)
    return {"precision": p, "recall": r, "f": f}


def table(c: np.ndarray, beta=1.0, zero_division=None) -> dict:
    """Figures of one corpus ``(labels, 3)``: ``{"labels": [{figure: x}], "micro": ...,
    "macro": ..., "present": n}``; macro: the mean over labels with any span, undefined
    values left out."""
    per_label = [prf(*row, beta=beta, zero_division=zero_division) for row in c]
    micro = prf(*c.sum(axis=0), beta=beta, zero_division=zero_division)
    present = [i for i, row in enumerate(c) if row[0] + row[1] > 0]
    macro = {}
    for f in FIGS:
        values = [per_label[i][f] for i in present if per_label[i][f] is not None]
        macro[f] = sum(values) / len(values) if values else None
    return {"labels": per_label, "micro": micro, "macro": macro, "present": len(present)}


def percentile_interval(values, confidence):
    defined = [float(v) for v in values if v is not None]
    undefined = len(values) - len(defined)
    if not defined:
        return None, None, undefined
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(np.array(defined), [tail, 100 - tail])
    return float(low), float(high), undefined


def oracle_intervals(specs, labels, *, resamples, seed, confidence, beta=1.0, zero_division=None):
    """``{row: {figure: (estimate, low, high, undefined)}}`` for each label, micro, macro."""
    c = counts(specs, labels)
    full = table(c.sum(axis=0), beta, zero_division)
    boot = [
        table(np.tensordot(w, c, axes=1), beta, zero_division)
        for w in draws(len(specs), resamples, seed)
    ]
    out = {}
    rows = [(label, lambda t, i=i: t["labels"][i]) for i, label in enumerate(labels)]
    rows += [("micro", lambda t: t["micro"]), ("macro", lambda t: t["macro"])]
    for name, pick in rows:
        out[name] = {}
        for f in FIGS:
            est = pick(full)[f]
            low, high, undefined = percentile_interval([pick(t)[f] for t in boot], confidence)
            out[name][f] = (None if est is None else float(est), low, high, undefined)
    return out


def assert_interval(interval, want):
    estimate, low, high, undefined = want
    assert interval.estimate == pytest.approx(estimate)
    assert interval.low == pytest.approx(low, abs=1e-12)
    assert interval.high == pytest.approx(high, abs=1e-12)
    assert interval.undefined == undefined


def wilson(k: int, n: int, confidence: float) -> tuple[float, float]:
    """The Wilson score interval, textbook form."""
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def f_beta(p: float, r: float, beta: float) -> float:
    b2 = beta * beta
    return (1 + b2) * p * r / (b2 * p + r)


# Twelve documents, no two with the same counts (so the documents themselves are drawn, not
# groups of alike ones). LOC is predicted in d6 alone: its precision is undefined in a
# resample without d6, (11/12)^12 = 35% of them.
SPECS: list[dict[str, tuple[int, int, int]]] = [
    {"PER": (2, 0, 1), "ORG": (1, 1, 0)},
    {"PER": (1, 1, 0)},
    {"ORG": (0, 1, 1)},
    {"PER": (3, 0, 0), "LOC": (0, 1, 0)},
    {"ORG": (2, 0, 1)},
    {"PER": (0, 2, 1)},
    {"LOC": (1, 0, 1)},
    {"PER": (1, 0, 2), "ORG": (0, 0, 1)},
    {"ORG": (1, 2, 0)},
    {"PER": (2, 1, 1)},
    {"LOC": (0, 1, 0), "PER": (0, 0, 1)},
    {},
]
LABELS = ["LOC", "ORG", "PER"]


def evaluate(specs, **settings):
    return SpanEvaluator(strategy="exact", per_document=True, **settings).evaluate(make_docs(specs))


# -- percentile intervals against the oracle ----------------------------------------------------
@pytest.mark.parametrize("confidence, beta, seed", [(0.9, 2.0, 7), (0.95, 1.0, 3), (0.8, 0.5, 11)])
def test_every_interval_is_the_percentile_interval_of_the_redrawn_resamples(confidence, beta, seed):
    result = evaluate(SPECS, beta=beta)
    bi = bootstrap_intervals(
        result, resamples=300, seed=seed, confidence=confidence, small_sample=False
    )
    want = oracle_intervals(
        SPECS, LABELS, resamples=300, seed=seed, confidence=confidence, beta=beta
    )
    assert bi.labels == LABELS
    for label in LABELS:
        for f in FIGS:
            assert_interval(bi.per_label[label][f], want[label][f])
    for f in FIGS:
        assert_interval(bi.micro[f], want["micro"][f])
        assert_interval(bi.macro[f], want["macro"][f])
        assert bi.per_label[label][f].wilson is False and bi.micro[f].wilson is False
    # LOC's precision is undefined where d6 is not drawn: some, not all, resamples
    assert 0 < want["LOC"]["precision"][3] < 300
    # supports: gold spans for recall and F, predicted spans for precision, labels for macro
    # (LOC: gold 1 + 1 + 1 = 3, predicted 1 + 1 = 2; micro: 24 gold, 24 predicted)
    assert [bi.per_label["LOC"][f].support for f in FIGS] == [2, 3, 3]
    assert [bi.micro[f].support for f in FIGS] == [24, 24, 24]
    assert [bi.macro[f].support for f in FIGS] == [3, 3, 3]
    assert (bi.resamples, bi.seed, bi.confidence, bi.n_documents) == (300, seed, confidence, 12)


def test_zero_division_fills_the_micro_figure_of_a_resample_without_predictions():
    """Only d0 predicts anything; a resample without d0 ((2/3)^3 = 30% of them) has no
    predictions at all, and zero_division=0 makes its micro precision 0 (not undefined)."""
    specs = [{"PER": (1, 0, 1)}, {"PER": (0, 1, 0)}, {"PER": (0, 2, 0), "ORG": (0, 1, 0)}]
    result = evaluate(specs, zero_division=0.0)
    bi = bootstrap_intervals(result, resamples=200, seed=5, confidence=0.9, small_sample=False)
    want = oracle_intervals(
        specs, ["ORG", "PER"], resamples=200, seed=5, confidence=0.9, zero_division=0.0
    )
    for f in FIGS:
        assert_interval(bi.micro[f], want["micro"][f])
        assert_interval(bi.per_label["PER"][f], want["PER"][f])
        assert_interval(bi.macro[f], want["macro"][f])
    assert bi.micro["precision"].undefined == 0
    assert bi.micro["precision"].low == 0.0


def test_a_macro_of_one_label_is_that_label_and_undefined_where_no_label_has_it():
    """One label: macro is its figure (a mean of one value). Macro precision is undefined in
    a resample where nothing was predicted (no document of the first two drawn)."""
    specs = [{"PER": (1, 0, 0)}, {"PER": (0, 0, 1)}, {"PER": (0, 1, 0)}, {"PER": (0, 3, 0)}]
    result = evaluate(specs)
    bi = bootstrap_intervals(result, resamples=200, seed=2, confidence=0.9, small_sample=False)
    want = oracle_intervals(specs, ["PER"], resamples=200, seed=2, confidence=0.9)
    for f in FIGS:
        assert_interval(bi.macro[f], want["macro"][f])
        assert_interval(bi.macro[f], want["PER"][f])
    # P = 1/2, R = 1/5, F = 2 * (1/10) / (7/10) = 2/7
    assert bi.macro["f"].estimate == pytest.approx(2 / 7)
    assert bi.macro["precision"].undefined == want["macro"]["precision"][3] > 0


def test_an_interval_with_every_resample_undefined_keeps_its_estimate_and_support():
    """One resample that misses d6 (LOC's only predictions): LOC's precision has no
    interval, but its estimate (1 of 2) and support (2 predicted) stand."""
    seed = next(s for s in range(100) if draws(12, 1, s)[0, 6] == 0)
    bi = bootstrap_intervals(evaluate(SPECS), resamples=1, seed=seed, small_sample=False)
    loc = bi.per_label["LOC"]["precision"]
    assert (loc.estimate, loc.low, loc.high, loc.undefined, loc.support) == (0.5, None, None, 1, 2)
    assert loc.to_dict() == {
        "estimate": 0.5,
        "low": None,
        "high": None,
        "undefined": 1,
        "support": 2,
        "wilson": False,
    }


def test_recall_of_a_label_never_in_gold_has_support_zero_not_none():
    specs = [{"PER": (1, 0, 0)}, {"MISC": (0, 0, 1)}, {"PER": (0, 1, 0)}]
    bi = bootstrap_intervals(evaluate(specs), resamples=20, seed=0)
    recall = bi.per_label["MISC"]["recall"]
    assert (recall.estimate, recall.low, recall.undefined, recall.support) == (None, None, 20, 0)


# -- Wilson and the small-sample widening --------------------------------------------------------
@pytest.mark.parametrize("k, n", [(0, 1), (3, 7), (5, 5), (40, 60), (199, 200), (1, 1000)])
@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99])
def test_wilson_interval_is_the_textbook_formula(k, n, confidence):
    assert wilson_interval(k, n, confidence) == pytest.approx(wilson(k, n, confidence), abs=1e-12)


def test_wilson_interval_defaults_to_95_percent_and_never_passes_one():
    assert wilson_interval(3, 7) == pytest.approx(wilson(3, 7, 0.95), abs=1e-12)
    # in floating point the upper end of n of n can come out a hair above 1 (10 of 10 at
    # 80%: 1.0000000000000002); it is capped at 1
    assert wilson_interval(10, 10, 0.8)[1] == 1.0
    for n in range(1, 200):
        assert wilson_interval(n, n, 0.8)[1] <= 1.0 and wilson_interval(n, n)[1] <= 1.0
        assert 0.0 <= wilson_interval(0, n)[0] < 1e-15
    assert wilson_interval(0, 0) is None and wilson_interval(0, -1) is None


def test_five_of_five_at_90_percent_is_widened_to_the_90_percent_wilson_bound():
    specs = [{"PER": (1, 0, 0)}] * 5
    bi = bootstrap_intervals(evaluate(specs), resamples=50, seed=0, confidence=0.9)
    low = wilson(5, 5, 0.9)[0]  # 0.6486, not 95%'s 0.5655
    for f in FIGS:
        interval = bi.per_label["PER"][f]
        assert (interval.low, interval.high) == (pytest.approx(low, abs=1e-12), 1.0)
        assert interval.wilson is True
    assert bi.micro["recall"].low == pytest.approx(low, abs=1e-12)


def test_a_constant_f_beta_is_widened_to_the_f_beta_of_the_wilson_ends():
    """Four alike documents, one PER found and one spurious PER each: P = 1/2, R = 1 in every
    resample. With beta = 2, F = 5 * (1/2) / (4 * 1/2 + 1) = 5/6; its interval is the F2 of
    the Wilson ends of P (4 of 8) and R (4 of 4)."""
    specs = [{"PER": (1, 0, 1)}] * 4
    bi = bootstrap_intervals(evaluate(specs, beta=2.0), resamples=50, seed=1, confidence=0.9)
    p, r = wilson(4, 8, 0.9), wilson(4, 4, 0.9)
    per = bi.per_label["PER"]
    assert (per["precision"].low, per["precision"].high) == pytest.approx(p, abs=1e-12)
    assert (per["recall"].low, per["recall"].high) == pytest.approx((r[0], 1.0), abs=1e-12)
    assert per["f"].estimate == pytest.approx(5 / 6)
    want = (f_beta(p[0], r[0], 2.0), f_beta(p[1], r[1], 2.0))
    assert (per["f"].low, per["f"].high) == pytest.approx(want, abs=1e-12)
    assert want[0] < 5 / 6 < want[1] and per["f"].wilson


def test_small_sample_intervals_are_the_percentile_ones_widened_to_wilson():
    """Every label's and micro's P and R interval covers the Wilson interval of its spans; F's
    covers the F of the Wilson ends as every figure here rests on fewer than 100 spans; the
    ``wilson`` flag says whether an end moved. Macro keeps the percentile interval."""
    conf = 0.9
    result = evaluate(SPECS)
    bi = bootstrap_intervals(result, resamples=300, seed=4, confidence=conf)
    want = oracle_intervals(SPECS, LABELS, resamples=300, seed=4, confidence=conf)
    c = counts(SPECS, LABELS).sum(axis=0)
    rows = [(label, bi.per_label[label], c[i]) for i, label in enumerate(LABELS)]
    moved_f = 0
    for name, got, (gold, pred, matched) in [*rows, ("micro", bi.micro, c.sum(axis=0))]:
        p, r = wilson(matched, pred, conf), wilson(matched, gold, conf)
        f = (f_beta(p[0], r[0], 1.0), f_beta(p[1], r[1], 1.0))
        for fig, bound in (("precision", p), ("recall", r), ("f", f)):
            _, low, high, _ = want[name][fig]
            interval = got[fig]
            assert interval.low == pytest.approx(min(low, bound[0]), abs=1e-12), (name, fig)
            assert interval.high == pytest.approx(max(high, bound[1]), abs=1e-12), (name, fig)
            assert interval.wilson == (bound[0] < low or bound[1] > high), (name, fig)
            moved_f += fig == "f" and interval.wilson
    assert moved_f >= 2
    for f in FIGS:
        assert_interval(bi.macro[f], want["macro"][f])
        assert bi.macro[f].wilson is False


def one_span_docs(n: int, found: int) -> list[dict[str, tuple[int, int, int]]]:
    """``n`` documents with one gold and one predicted PER; the first ``found`` match, the
    others' prediction is elsewhere."""
    return [{"PER": (1, 0, 0)} if i < found else {"PER": (0, 1, 1)} for i in range(n)]


def test_f_is_widened_to_the_wilson_ends_below_100_spans_only():
    """P = R = F = k/n in each resample. At 99 spans F's interval reaches the F of the Wilson
    ends (79 of 99), lower than the percentile end; at 100 spans (80 of 100) it does not, and
    stays the percentile interval, while P and R still reach their Wilson ends."""
    below = bootstrap_intervals(evaluate(one_span_docs(99, 79)), resamples=400, seed=8)
    f = below.per_label["PER"]["f"]
    assert f.low == pytest.approx(wilson(79, 99, 0.95)[0], abs=1e-12) and f.wilson
    at = bootstrap_intervals(evaluate(one_span_docs(100, 80)), resamples=400, seed=8)
    plain = bootstrap_intervals(
        evaluate(one_span_docs(100, 80)), resamples=400, seed=8, small_sample=False
    )
    low = wilson(80, 100, 0.95)[0]
    f, plain_f = at.per_label["PER"]["f"], plain.per_label["PER"]["f"]
    assert (f.low, f.high, f.wilson) == (plain_f.low, plain_f.high, False)
    assert f.low > low + 0.005
    assert at.per_label["PER"]["recall"].low == pytest.approx(low, abs=1e-12)
    assert at.per_label["PER"]["recall"].wilson


def test_an_interval_wider_than_wilson_at_both_ends_is_not_flagged():
    """Ten documents of ten PER: five found whole, five missed whole. Recall 50 of 100 is
    clustered by document, so its percentile interval (about 0.2-0.8) holds Wilson's
    0.40-0.60 on both sides: no end moves, ``wilson`` stays False. Precision (50 of 50, 1.0
    in every resample) is widened."""
    specs = [{"PER": (10, 0, 0)}] * 5 + [{"PER": (0, 10, 0)}] * 5
    bi = bootstrap_intervals(evaluate(specs), resamples=200, seed=0)
    plain = bootstrap_intervals(evaluate(specs), resamples=200, seed=0, small_sample=False)
    recall, plain_recall = bi.per_label["PER"]["recall"], plain.per_label["PER"]["recall"]
    w = wilson(50, 100, 0.95)
    assert recall.low < w[0] and recall.high > w[1]
    assert (recall.low, recall.high, recall.wilson) == (plain_recall.low, plain_recall.high, False)
    assert bi.per_label["PER"]["precision"].wilson is True
    assert bi.to_dict()["per_label"]["PER"]["recall"]["wilson"] is False


# -- settings and their messages ----------------------------------------------------------------
@pytest.fixture(scope="module")
def small_result():
    return evaluate(SPECS)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"seed": -1}, "seed must be a whole number >= 0, not -1"),
        ({"seed": 1.5}, "seed must be a whole number >= 0, not 1.5"),
        ({"resamples": 0}, "resamples must be a whole number >= 1, not 0"),
        ({"confidence": 0}, "confidence must be a number in (0, 1), not 0"),
        ({"confidence": 0.0}, "confidence must be a number in (0, 1), not 0.0"),
        ({"confidence": 1}, "confidence must be a number in (0, 1), not 1"),
        ({"confidence": "0.9"}, "confidence must be a number in (0, 1), not '0.9'"),
        ({"confidence": True}, "confidence must be a number in (0, 1), not True"),
        ({"confidence": None}, "confidence must be a number in (0, 1), not None"),
    ],
)
def test_bad_resampling_settings_are_refused_with_their_message(small_result, kwargs, message):
    with pytest.raises(InvalidInputError) as info:
        bootstrap_intervals(small_result, **kwargs)
    assert str(info.value) == message


def test_check_resampling_takes_a_minimum_of_resamples():
    resampling.check_resampling(resamples=5, seed=0, confidence=0.5, min_resamples=5)
    with pytest.raises(InvalidInputError, match=r"^resamples must be a whole number >= 6, not 5$"):
        resampling.check_resampling(resamples=5, seed=0, confidence=0.5, min_resamples=6)


def test_the_default_threshold_is_the_first_one_kept_per_document():
    """per_document=0.9 keeps rows at the second threshold only: the intervals are at 0.9
    (where the half-overlapping prediction is no match), and 0.5 has no rows to resample."""
    docs = [
        Document.create(
            id=f"d{i}", text="Ana Berg sang", gold=[(0, 8, "PER")], pred=[(0, 3, "PER")]
        )
        for i in range(3)
    ]
    result = SpanEvaluator(thresholds=(0.5, 0.9), per_document=0.9).evaluate(docs)
    bi = bootstrap_intervals(result, resamples=10, seed=0, small_sample=False)
    assert bi.threshold == 0.9
    assert bi.per_label["PER"]["recall"].estimate == 0.0
    assert bootstrap_intervals(result, threshold=0.9, resamples=10, seed=0) is not None
    with pytest.raises(KeyError) as info:
        bootstrap_intervals(result, threshold=0.5, resamples=10, seed=0)
    assert info.value.args[0] == (
        "threshold 0.5 has no per-document counts; kept at [0.9] "
        "(per_document=True keeps every threshold)"
    )
    with pytest.raises(KeyError) as info:
        bootstrap_intervals(result, threshold=0.7, resamples=10, seed=0)
    assert info.value.args[0] == "threshold 0.7 was not scored; scored: [0.5, 0.9]"


def test_resampling_needs_per_document_counts():
    result = SpanEvaluator(strategy="exact").evaluate(make_docs(SPECS))
    with pytest.raises(ValueError) as info:
        bootstrap_intervals(result, resamples=5)
    assert str(info.value) == (
        "bootstrap_intervals needs per-document counts: "
        "evaluate with SpanEvaluator(per_document=True)"
    )
    with pytest.raises(ValueError) as info:
        paired_test(result, result, resamples=5)
    assert str(info.value) == (
        "paired_test needs per-document counts: evaluate with SpanEvaluator(per_document=True)"
    )


# -- drawing ------------------------------------------------------------------------------------
def test_resample_weights_are_the_documented_draws_in_blocks_of_bounded_size(monkeypatch):
    want = draws(10, 5, 21)
    (block,) = list(resample_weights(10, resamples=5, seed=21))
    assert block.dtype == np.float64 and np.array_equal(block, want)
    # 25 cells a block: two rows of 10 documents, then the one left
    monkeypatch.setattr(resampling, "_BLOCK_CELLS", 25)
    blocks = list(resample_weights(10, resamples=5, seed=21))
    assert [b.shape for b in blocks] == [(2, 10), (2, 10), (1, 10)]
    assert np.array_equal(np.concatenate(blocks), want)
    # fewer cells than a row: one row a block
    monkeypatch.setattr(resampling, "_BLOCK_CELLS", 7)
    assert [b.shape for b in resample_weights(10, resamples=3, seed=21)] == [(1, 10)] * 3


def test_a_single_document_is_drawn_once_in_every_resample():
    assert [b.tolist() for b in resample_weights(1, resamples=3, seed=0)] == [[[1.0]] * 3]
    bi = bootstrap_intervals(evaluate([{"PER": (2, 1, 1)}]), resamples=4, seed=0)
    recall = bi.per_label["PER"]["recall"]  # 2 of 3 in the one document, so in every resample
    assert (recall.estimate, recall.low, recall.high) == pytest.approx((2 / 3, *wilson(2, 3, 0.95)))
    assert bi.n_documents == 1


@pytest.mark.parametrize(
    "n, resamples, message",
    [
        (0, 3, "cannot resample an evaluation without documents"),
        (4, 0, "resamples must be >= 1, not 0"),
        (4, -2, "resamples must be >= 1, not -2"),
    ],
)
def test_drawing_refuses_no_documents_or_no_resamples(n, resamples, message):
    with pytest.raises(ValueError) as info:
        next(resample_weights(n, resamples=resamples, seed=0))
    assert str(info.value) == message
    with pytest.raises(ValueError) as info:
        resampling.resampled_sums(np.ones((n, 2)), resamples=resamples, seed=0)
    assert str(info.value) == message


def grouped_oracle(m: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """The documented draw for corpora of few distinct rows: alike rows grouped (ordered by
    one random projection, seeded 0x5EED), group counts drawn ``Multinomial(n, size / n)``."""
    n = m.shape[0]
    key = m @ np.random.default_rng(0x5EED).uniform(1.0, 2.0, m.shape[1])
    _, first, row_of = np.unique(key, return_index=True, return_inverse=True)
    sizes = np.bincount(row_of.ravel(), minlength=len(first))
    group_counts = np.random.default_rng(seed).multinomial(n, sizes / n, size=resamples)
    return group_counts @ m[first]


@pytest.mark.parametrize("data_seed", [1, 4])
def test_sums_of_a_corpus_of_few_distinct_rows_are_the_grouped_draws(data_seed):
    """Six kinds of rows over 60 documents, the last five empty (documents without spans)."""
    rng = np.random.default_rng(data_seed)
    kinds = np.where(rng.random((6, 9)) < 0.4, rng.integers(1, 5, (6, 9)), 0).astype(float)
    m = np.vstack([kinds[rng.integers(0, 6, 55)], np.zeros((5, 9))])
    got = resampling.resampled_sums(m, resamples=25, seed=3)
    assert np.array_equal(got, grouped_oracle(m, 25, 3))
    sparse = resampling.resampled_sums(SparseRows.of(m), resamples=25, seed=3)
    assert np.array_equal(got, sparse)


@pytest.mark.parametrize("kinds, grouped", [(10, True), (11, False)])
def test_groups_are_drawn_where_at_most_a_quarter_of_the_rows_differ(kinds, grouped):
    """40 documents: 10 distinct rows are a quarter (group counts drawn), 11 are more (the
    documents drawn)."""
    m = np.zeros((40, 3))
    m[:, 0] = np.arange(40) % kinds + 1
    m[:, 2] = 1
    got = resampling.resampled_sums(m, resamples=30, seed=5)
    want = grouped_oracle(m, 30, 5) if grouped else draws(40, 30, 5) @ m
    assert np.array_equal(got, want)
    assert (got[:, 2] == 40).all()


def test_sums_of_mostly_distinct_rows_are_the_document_draws():
    rng = np.random.default_rng(13)
    m = np.where(rng.random((30, 7)) < 0.3, rng.integers(1, 4, (30, 7)), 0).astype(float)
    got = resampling.resampled_sums(m, resamples=40, seed=9)
    assert np.array_equal(got, draws(30, 40, 9) @ m)


# -- sparse rows against dense numpy -------------------------------------------------------------
def sparse_pair():
    a = np.array(
        [[0, 2, 0, 1], [0, 0, 0, 0], [3, 0, 0, 1], [0, 1, 1, 0], [1, 0, 0, 5]], dtype=np.int64
    )
    b = np.array(
        [[1, 2, 0, 0], [0, 0, 4, 0], [3, 0, 1, 2], [0, 0, 1, 0], [0, 0, 0, 4]], dtype=np.int64
    )
    return a, b


def test_sparse_rows_hold_the_non_zero_cells_in_row_then_column_order():
    a, _ = sparse_pair()
    s = SparseRows.of(a)
    assert (s.n_rows, s.n_cols) == (5, 4)
    assert s.row.tolist() == [0, 0, 2, 2, 3, 3, 4, 4]
    assert s.col.tolist() == [1, 3, 0, 3, 1, 2, 0, 3]
    assert s.val.tolist() == [2.0, 1.0, 3.0, 1.0, 1.0, 1.0, 1.0, 5.0]
    assert s.val.dtype == np.float64 and s.dense().dtype == np.float64
    assert np.array_equal(s.dense(), a) and s.sum().tolist() == [4.0, 3.0, 1.0, 7.0]


def test_sparse_rows_side_by_side_minus_and_taken_are_numpys():
    a, b = sparse_pair()
    sa, sb = SparseRows.of(a), SparseRows.of(b)
    beside = sa.beside(sb)
    assert (beside.n_rows, beside.n_cols) == (5, 8)
    assert np.array_equal(beside.dense(), np.hstack([a, b]))
    assert beside.col.min() >= 0 and beside.row.tolist() == sorted(beside.row.tolist())
    diff = sb.minus(sa)
    assert np.array_equal(diff.dense(), b - a)
    # zeros dropped: the cells that differ, and only them (row 4 column 3: 4 - 5 = -1 kept)
    assert diff.val.size == np.count_nonzero(b - a) and (diff.val != 0).all()
    assert diff.val.tolist() == (b - a)[np.nonzero(b - a)].tolist()
    assert sa.minus(sa).val.size == 0
    order = np.array([4, 0, 3, 2, 1])
    assert np.array_equal(sa.take(order).dense(), a[order])
    w = np.array([[1, 0, 2, 0, 1], [0, 3, 0, 1, 1]], dtype=np.float64)
    assert np.array_equal(sa.times(w), w @ a) and np.array_equal(diff.times(w), w @ (b - a))


@pytest.mark.parametrize("fill, block_cells", [(0.0, None), (0.03, None), (0.1, None), (0.1, 50)])
def test_weights_times_rows_of_few_cells_is_the_dense_product(fill, block_cells, monkeypatch):
    """Below one cell in eight the product gathers each cell's weights and sums them per
    column (in blocks of resamples bounded by ``_BLOCK_CELLS``): numpy's ``w @ m``."""
    rng = np.random.default_rng(int(fill * 100) + (block_cells or 0))
    m = np.where(rng.random((90, 40)) < fill, rng.integers(1, 7, (90, 40)), 0).astype(float)
    m[:, 5] = 0  # a column without cells
    w = rng.integers(0, 4, (23, 90)).astype(np.float64)
    sparse = SparseRows.of(m)
    assert 8 * sparse.val.size < m.size
    if block_cells:
        monkeypatch.setattr(resampling, "_BLOCK_CELLS", block_cells)
    got = sparse.times(w)
    assert got.shape == (23, 40) and got.dtype == np.float64
    assert np.array_equal(got, w @ m)


def test_more_resamples_than_rows_in_blocks_fill_every_resample(monkeypatch):
    """A block holds at most ``_BLOCK_CELLS`` gathered weights: 5 cells, 12 per block, so
    two resamples a block, 40 resamples (more than the 12 rows) in 20 blocks."""
    m = np.zeros((12, 50))
    m[[0, 3, 3, 7, 11], [4, 4, 30, 9, 49]] = [2, 1, 3, 1, 5]
    w = np.random.default_rng(2).integers(0, 3, (40, 12)).astype(np.float64)
    monkeypatch.setattr(resampling, "_BLOCK_CELLS", 12)
    assert np.array_equal(SparseRows.of(m).times(w), w @ m)


# -- the JSON form and the module's defaults -----------------------------------------------------
def test_intervals_to_dict_keys_and_values():
    specs = [{"PER": (1, 0, 0)}] * 5
    bi = bootstrap_intervals(evaluate(specs), resamples=30, seed=6, confidence=0.9)
    data = bi.to_dict()
    assert list(data) == [
        "method",
        "threshold",
        "resamples",
        "seed",
        "confidence",
        "documents",
        "per_label",
        "micro",
        "macro",
    ]
    assert (
        data["method"]
        == "percentile bootstrap over documents, widened to the Wilson score interval"
    )
    assert (data["threshold"], data["resamples"], data["seed"]) == (None, 30, 6)
    assert (data["confidence"], data["documents"]) == (0.9, 5)
    low = wilson(5, 5, 0.9)[0]
    assert data["per_label"]["PER"]["recall"] == {
        "estimate": 1.0,
        "low": pytest.approx(low, abs=1e-12),
        "high": 1.0,
        "undefined": 0,
        "support": 5,
        "wilson": True,
    }
    assert list(data["micro"]) == list(FIGS) and list(data["macro"]) == list(FIGS)
    assert data["macro"]["f"] == {
        "estimate": 1.0,
        "low": 1.0,
        "high": 1.0,
        "undefined": 0,
        "support": 1,
        "wilson": False,
    }
    plain = bootstrap_intervals(evaluate(specs), resamples=30, seed=6, small_sample=False)
    assert plain.to_dict()["method"] == "percentile bootstrap over documents"


def test_figures_default_to_f1_and_undefined_as_nan():
    rows = np.array([[4, 2, 2, 2, 1, 1], [0, 0, 0, 0, 0, 0]], dtype=float)
    got = figures(rows)
    # P = 1/2, R = 2/4: F1 = 1/2 (F2 would be 1/2 as well: use P != R below)
    assert got["precision"][0] == 0.5 and got["recall"][0] == 0.5 and got["f"][0] == 0.5
    assert np.isnan(got["precision"][1]) and np.isnan(got["f"][1])
    rows = np.array([[4, 2, 1, 3, 2, 0]], dtype=float)  # P = 1, R = 1/4
    assert figures(rows)["f"][0] == pytest.approx(2 * 0.25 / 1.25)  # F1 = 0.4
    assert figures(rows, zero_division=0.0)["f"][0] == pytest.approx(0.4)
