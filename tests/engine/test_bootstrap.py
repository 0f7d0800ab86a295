"""Bootstrap intervals over documents: a resample's ledger is the engine's ledger of the
resampled corpus, intervals are deterministic for a seed, undefined ratios are counted and
left out, and more support gives a narrower interval (BTC test with a perturbed prediction)."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest
from test_ledger import LEDGER_CASES

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.engine import paired, resampling
from spacy_span_eval.engine.bootstrap import bootstrap_intervals, wilson_interval
from spacy_span_eval.engine.ledger import ledger_figures as figures
from spacy_span_eval.engine.paired import paired_test
from spacy_span_eval.engine.resampling import SparseRows, resample_weights
from spacy_span_eval.errors import InvalidInputError
from spacy_span_eval.readers.schemes import decode

from conftest import data_path, token_tag_sentences
from synthetic import perturb

TEXTS = [
    (
        "d0",
        "Ana Berg met Bram in Lisbon",
        [(0, 8, "PER"), (13, 17, "PER"), (21, 27, "LOC")],
        [(0, 3, "PER"), (13, 17, "PER"), (21, 27, "ORG")],
    ),
    (
        "d1",
        "Chen works at Acme Health",
        [(0, 4, "PER"), (14, 25, "ORG")],
        [(0, 4, "PER"), (14, 18, "ORG")],
    ),
    ("d2", "Nothing to see here", [], [(0, 7, "MISC")]),
    ("d3", "Dalia flew to Graz", [(0, 5, "PER"), (14, 18, "LOC")], [(0, 5, "PER")]),
    (
        "d4",
        "Orchid Labs hired Ivo",
        [(0, 11, "ORG"), (18, 21, "PER")],
        [(0, 11, "ORG"), (18, 21, "PER"), (7, 11, "LOC")],
    ),
    ("d5", "Plain text", [], []),
]


def small_docs(prefix: str = "", repeat: dict[str, int] | None = None) -> list[Document]:
    docs = []
    for doc_id, text, gold, pred in TEXTS:
        for k in range((repeat or {}).get(doc_id, 1)):
            docs.append(
                Document.create(id=f"{prefix}{doc_id}#{k}", text=text, gold=gold, pred=pred)
            )
    return docs


def evaluate(docs, **settings):
    settings.setdefault("thresholds", (0.5, 0.9))
    return SpanEvaluator(per_document=True, **settings).evaluate(docs)


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_a_resample_is_the_ledger_of_the_resampled_corpus(seed):
    """With one resample the interval collapses to that resample's figure, which must equal
    re-scoring the corpus with each document repeated as often as it was drawn."""
    result = evaluate(small_docs(), thresholds=(0.5, 0.9))
    (weights,) = list(resample_weights(len(TEXTS), resamples=1, seed=seed))
    repeat = {doc_id: int(w) for (doc_id, *_), w in zip(TEXTS, weights[0], strict=True)}
    rescored = SpanEvaluator(thresholds=(0.9,)).evaluate(small_docs(repeat=repeat)).scores()
    bi = bootstrap_intervals(result, threshold=0.9, resamples=1, seed=seed, small_sample=False)
    rows = [(bi.per_label[name], ledger) for name, ledger in rescored.per_label.items()]
    for row, ledger in [*rows, (bi.micro, rescored.micro)]:
        for figure, value in (
            ("precision", ledger.precision()),
            ("recall", ledger.recall()),
            ("f", ledger.f()),
        ):
            interval = row[figure]
            if value is None:
                assert interval.low is None and interval.undefined == 1
            else:
                assert interval.low == pytest.approx(value) == interval.high
    assert bi.macro["f"].low == pytest.approx(rescored.macro["f"])


def test_weights_draw_every_document_n_times_in_total():
    blocks = list(resample_weights(50, resamples=30, seed=3))
    weights = np.concatenate(blocks)
    assert weights.shape == (30, 50)
    assert (weights.sum(axis=1) == 50).all()
    assert (weights >= 0).all() and np.array_equal(weights, np.round(weights))


def test_deterministic_for_a_seed_and_independent_of_block_size(monkeypatch):
    result = evaluate(small_docs())
    first = bootstrap_intervals(result, resamples=200, seed=11).to_dict()
    assert bootstrap_intervals(result, resamples=200, seed=11).to_dict() == first
    monkeypatch.setattr(resampling, "_BLOCK_CELLS", 7)  # one resample per block
    assert bootstrap_intervals(result, resamples=200, seed=11).to_dict() == first
    assert bootstrap_intervals(result, resamples=200, seed=12).to_dict() != first


def test_estimates_are_the_full_corpus_figures():
    result = evaluate(small_docs())
    run = result.scores(0.5)
    bi = bootstrap_intervals(result, resamples=50, seed=0)
    for label, ledger in run.per_label.items():
        assert bi.per_label[label]["precision"].estimate == ledger.precision()
        assert bi.per_label[label]["recall"].estimate == ledger.recall()
        assert bi.per_label[label]["f"].estimate == ledger.f()
    assert bi.micro["f"].estimate == pytest.approx(run.micro.f())
    assert bi.macro["f"].estimate == pytest.approx(run.macro["f"])
    assert bi.macro["recall"].estimate == pytest.approx(run.macro["recall"])
    for row in (*bi.per_label.values(), bi.micro, bi.macro):
        for interval in row.values():
            if interval.low is not None:
                assert 0 <= interval.low <= interval.high <= 1


@pytest.mark.parametrize("members", [[0, 1, 3], [2, 4, 5], [4]])
def test_a_slice_resamples_its_own_documents_as_if_evaluated_alone(members):
    docs = small_docs()
    whole = bootstrap_intervals(evaluate(docs), resamples=200, seed=3, documents=members)
    alone = bootstrap_intervals(evaluate([docs[i] for i in members]), resamples=200, seed=3)
    assert whole.n_documents == alone.n_documents == len(members)
    assert (whole.micro, whole.macro) == (alone.micro, alone.macro)
    for label, row in whole.per_label.items():
        if label in alone.per_label:
            assert row == alone.per_label[label]
        else:  # no span of it in the slice: nothing to show
            assert all(i.estimate is None and i.low is None for i in row.values())


def test_undefined_ratios_are_counted_and_left_out():
    result = evaluate(small_docs())
    bi = bootstrap_intervals(result, resamples=400, seed=5)
    misc = bi.per_label["MISC"]  # predicted once (document d2), never in gold
    assert misc["recall"].estimate is None
    assert misc["recall"].low is None and misc["recall"].undefined == 400
    # Precision of MISC is undefined exactly when d2 was not drawn: (5/6)^6 of the time.
    share = misc["precision"].undefined / 400
    assert 0.2 < share < 0.45
    # 0 of 1 prediction credited: every resample says 0, the Wilson bound says up to 0.79.
    assert misc["precision"].low == 0.0
    assert misc["precision"].high == pytest.approx(0.7935, abs=1e-4)
    plain = bootstrap_intervals(result, resamples=400, seed=5, small_sample=False)
    plain_misc = plain.per_label["MISC"]["precision"]
    assert plain_misc.low == plain_misc.high == 0.0
    assert misc["f"].undefined == misc["precision"].undefined
    assert bi.micro["f"].undefined == 0


def test_zero_division_fills_undefined_ratios():
    result = evaluate(small_docs(), zero_division=0.0)
    bi = bootstrap_intervals(result, resamples=100, seed=5)
    assert bi.per_label["MISC"]["recall"].undefined == 0
    assert bi.per_label["MISC"]["recall"].high == 0.0


def test_vectorized_figures_follow_the_ledger_rules():
    cases = LEDGER_CASES
    rows = np.array(
        [[c.num_annotated, c.num_predicted, c.tp, c.fn, c.credited, c.fp] for c in cases],
        dtype=float,
    )
    for beta in (0.5, 1.0, 2.0):
        got = figures(rows, beta=beta)
        for i, ledger in enumerate(cases):
            for name, want in (
                ("precision", ledger.precision()),
                ("recall", ledger.recall()),
                ("f", ledger.f(beta)),
            ):
                value = got[name][i]
                assert (want is None and np.isnan(value)) or value == pytest.approx(want)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda r: bootstrap_intervals(r, resamples=0),
            ValueError,
            "resamples must be a whole number >= 1, not 0",
        ),
        (
            lambda r: bootstrap_intervals(r, confidence=1.0),
            ValueError,
            r"confidence must be a number in \(0, 1\), not 1.0",
        ),
        (lambda r: bootstrap_intervals(r, threshold=0.7), KeyError, "threshold 0.7 was not scored"),
    ],
)
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call(evaluate(small_docs()))


def test_needs_per_document_counts():
    result = SpanEvaluator().evaluate(small_docs())
    with pytest.raises(ValueError, match="per_document=True"):
        bootstrap_intervals(result)


# -- BTC test set ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def btc_result():
    """BTC test with a seeded perturbed prediction; LOC kept only in the first documents so
    that PER has at least ten times its support."""
    sentences = token_tag_sentences(data_path("btc", "btc.test"))
    rng = random.Random(2026)
    docs = []
    for i, (tokens, tags) in enumerate(sentences):
        gold = list(decode(tags, scheme="IOB2").spans)
        pred = perturb(gold, len(tokens), ["PER", "ORG", "LOC"], rng)
        if i >= 800:
            gold = [s for s in gold if s.label != "LOC"]
            pred = [s for s in pred if s.label != "LOC"]
        docs.append(Document.create(id=i, unit="token", tokens=tokens, gold=gold, pred=pred))
    return SpanEvaluator(unit="token", thresholds=(0.5,), per_document=True).evaluate(docs)


def width(interval) -> float:
    return interval.high - interval.low


def test_btc_more_support_gives_a_narrower_interval(btc_result):
    run = btc_result.scores()
    per, loc = run.per_label["PER"], run.per_label["LOC"]
    assert per.num_annotated >= 10 * loc.num_annotated > 0
    bi = bootstrap_intervals(btc_result, resamples=1000, seed=42)
    for figure in ("precision", "recall", "f"):
        assert width(bi.per_label["PER"][figure]) < width(bi.per_label["LOC"][figure]), figure
        assert (
            bi.per_label["PER"][figure].low
            <= bi.per_label["PER"][figure].estimate
            <= bi.per_label["PER"][figure].high
        )
    # Pooling every label narrows the micro interval below each label's.
    assert width(bi.micro["f"]) < min(width(bi.per_label[k]["f"]) for k in bi.labels)


def test_btc_intervals_are_deterministic_for_a_seed(btc_result):
    a = bootstrap_intervals(btc_result, resamples=300, seed=2026)
    b = bootstrap_intervals(btc_result, resamples=300, seed=2026)
    c = bootstrap_intervals(btc_result, resamples=300, seed=2027)
    assert a == b
    assert a.micro["f"] != c.micro["f"]


# -- small samples ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "k, n, low, high",
    [(5, 5, 0.5655, 1.0), (0, 10, 0.0, 0.2775), (50, 100, 0.4038, 0.5962), (1, 2, 0.0945, 0.9055)],
)
def test_wilson_interval_known_values(k, n, low, high):
    assert wilson_interval(k, n, 0.95) == pytest.approx((low, high), abs=1e-4)
    assert wilson_interval(k, 0 * n, 0.95) is None


def five_found(extra_label_docs: int = 0) -> list[Document]:
    """Five documents with one PER each, all found exactly; ``extra_label_docs`` documents
    with an ORG found exactly too."""
    docs = [
        Document.create(id=f"p{i}", text="Ana smiled", gold=[(0, 3, "PER")], pred=[(0, 3, "PER")])
        for i in range(5)
    ]
    docs += [
        Document.create(id=f"o{i}", text="Acme sold", gold=[(0, 4, "ORG")], pred=[(0, 4, "ORG")])
        for i in range(extra_label_docs)
    ]
    return docs


def test_five_of_five_is_not_certain():
    result = evaluate(five_found(), thresholds=(0.5,))
    plain = bootstrap_intervals(result, resamples=200, seed=0, small_sample=False)
    plain_recall = plain.per_label["PER"]["recall"]
    assert (plain_recall.low, plain_recall.high) == (1.0, 1.0)
    honest = bootstrap_intervals(result, resamples=200, seed=0)
    recall = honest.per_label["PER"]["recall"]
    assert recall.low == pytest.approx(0.5655, abs=1e-4) and recall.high == 1.0
    assert recall.wilson and recall.support == 5 and recall.estimate == 1.0
    precision, f = honest.per_label["PER"]["precision"], honest.per_label["PER"]["f"]
    assert precision.low == pytest.approx(0.5655, abs=1e-4) and precision.support == 5
    # F of the two lower Wilson ends (P = R = 0.5655) is 0.5655 too.
    assert f.low == pytest.approx(0.5655, abs=1e-4) and f.high == 1.0
    assert honest.to_dict()["per_label"]["PER"]["recall"]["support"] == 5
    assert "Wilson" in honest.to_dict()["method"]


def test_more_spans_give_a_tighter_small_sample_bound():
    result = evaluate(five_found(extra_label_docs=200), thresholds=(0.5,))
    bi = bootstrap_intervals(result, resamples=200, seed=0)
    assert bi.per_label["ORG"]["recall"].low == pytest.approx(0.9812, abs=1e-4)  # 200 of 200
    assert bi.per_label["ORG"]["recall"].low > bi.per_label["PER"]["recall"].low
    assert bi.micro["recall"].support == 205
    assert bi.macro["f"].support == 2  # labels


@pytest.mark.parametrize("n,distinct,seed", [(1, 1, 0), (7, 2, 1), (300, 300, 4), (64, 17, 5)])
def test_sums_of_mostly_distinct_documents_are_the_weights_product(n, distinct, seed):
    """Fewer than four documents per distinct row: the documents themselves are drawn, the
    same draws as :func:`resample_weights`."""
    rng = np.random.default_rng(seed)
    kinds = rng.integers(0, 5, (distinct, 12)).astype(np.float64)
    m = kinds[np.arange(n) % distinct]
    got = resampling.resampled_sums(m, resamples=37, seed=seed)
    want = np.concatenate([w @ m for w in resampling.resample_weights(n, resamples=37, seed=seed)])
    assert got.shape == (37, 12) and np.array_equal(got, want)


def test_sums_of_alike_documents_draw_groups_with_the_same_distribution():
    """Many documents alike: group counts are drawn (multinomial); each resample still
    draws n documents, and over many resamples the sums have the documents' mean and
    spread."""
    rng = np.random.default_rng(9)
    n = 4000
    kinds = rng.integers(0, 6, (40, 8)).astype(np.float64)
    m = kinds[rng.integers(0, 40, n)]
    ones = np.ones((n, 1))
    assert (
        resampling.resampled_sums(np.hstack([m, ones]), resamples=50, seed=1)[:, -1] == n
    ).all()  # n draws a resample
    got = resampling.resampled_sums(m, resamples=3000, seed=2)
    assert np.array_equal(got, resampling.resampled_sums(m, resamples=3000, seed=2))
    want = np.concatenate([w @ m for w in resampling.resample_weights(n, resamples=3000, seed=2)])
    # the same mean (n x the mean row) and spread, within what 3000 resamples can tell
    se = want.std(axis=0) / np.sqrt(3000)
    assert np.all(np.abs(got.mean(axis=0) - m.sum(axis=0)) < 5 * se)
    assert np.allclose(got.std(axis=0), want.std(axis=0), rtol=0.1)


# -------------------------------------------------------------------------------------------------
# Bootstrap intervals checked value by value against an oracle written apart from the
# package: the resamples drawn again with numpy's generator as the module documents (one
# ``integers(0, n, n)`` call per resample from ``default_rng(seed)``), each resample's counts
# summed from per-document counts written down by hand (exact matching, so a matched span is
# both a true positive and a credited prediction), precision, recall and F-beta worked in
# exact fractions, and numpy's percentiles of them. Wilson bounds come from the textbook
# formula with ``statistics.NormalDist``. Also: the resampling settings' checks and messages,
# the sparse rows' operations against dense numpy, and the keys of the JSON form.
# -------------------------------------------------------------------------------------------------

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


def evaluate_specs(specs, **settings):
    return SpanEvaluator(strategy="exact", per_document=True, **settings).evaluate(make_docs(specs))


# -- percentile intervals against the oracle ----------------------------------------------------
@pytest.mark.parametrize("confidence, beta, seed", [(0.9, 2.0, 7), (0.95, 1.0, 3), (0.8, 0.5, 11)])
def test_every_interval_is_the_percentile_interval_of_the_redrawn_resamples(confidence, beta, seed):
    result = evaluate_specs(SPECS, beta=beta)
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
    result = evaluate_specs(specs, zero_division=0.0)
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
    result = evaluate_specs(specs)
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
    bi = bootstrap_intervals(evaluate_specs(SPECS), resamples=1, seed=seed, small_sample=False)
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
    bi = bootstrap_intervals(evaluate_specs(specs), resamples=20, seed=0)
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
    bi = bootstrap_intervals(evaluate_specs(specs), resamples=50, seed=0, confidence=0.9)
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
    bi = bootstrap_intervals(evaluate_specs(specs, beta=2.0), resamples=50, seed=1, confidence=0.9)
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
    result = evaluate_specs(SPECS)
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
    below = bootstrap_intervals(evaluate_specs(one_span_docs(99, 79)), resamples=400, seed=8)
    f = below.per_label["PER"]["f"]
    assert f.low == pytest.approx(wilson(79, 99, 0.95)[0], abs=1e-12) and f.wilson
    at = bootstrap_intervals(evaluate_specs(one_span_docs(100, 80)), resamples=400, seed=8)
    plain = bootstrap_intervals(
        evaluate_specs(one_span_docs(100, 80)), resamples=400, seed=8, small_sample=False
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
    bi = bootstrap_intervals(evaluate_specs(specs), resamples=200, seed=0)
    plain = bootstrap_intervals(evaluate_specs(specs), resamples=200, seed=0, small_sample=False)
    recall, plain_recall = bi.per_label["PER"]["recall"], plain.per_label["PER"]["recall"]
    w = wilson(50, 100, 0.95)
    assert recall.low < w[0] and recall.high > w[1]
    assert (recall.low, recall.high, recall.wilson) == (plain_recall.low, plain_recall.high, False)
    assert bi.per_label["PER"]["precision"].wilson is True
    assert bi.to_dict()["per_label"]["PER"]["recall"]["wilson"] is False


# -- settings and their messages ----------------------------------------------------------------
@pytest.fixture(scope="module")
def small_result():
    return evaluate_specs(SPECS)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"seed": -1}, "seed must be a whole number >= 0, not -1"),
        ({"seed": 1.5}, "seed must be a whole number >= 0, not 1.5"),
        ({"resamples": 0}, "resamples must be a whole number >= 1, not 0"),
        ({"resamples": 10**14}, "resamples must be at most 100000, not 100000000000000"),
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
    bi = bootstrap_intervals(evaluate_specs([{"PER": (2, 1, 1)}]), resamples=4, seed=0)
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


# The JSON forms of the intervals and of the paired test: the same keys, in this order.
JSON_KEYS = [
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


# -- the JSON form and the module's defaults -----------------------------------------------------
def test_intervals_to_dict_keys_and_values():
    specs = [{"PER": (1, 0, 0)}] * 5
    bi = bootstrap_intervals(evaluate_specs(specs), resamples=30, seed=6, confidence=0.9)
    data = bi.to_dict()
    assert list(data) == JSON_KEYS
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
    plain = bootstrap_intervals(evaluate_specs(specs), resamples=30, seed=6, small_sample=False)
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


# -------------------------------------------------------------------------------------------------
# The paired test checked value by value against an oracle written apart from the package:
# the documents' counts written down by hand for two systems on the same gold, the paired
# resamples drawn again with numpy's generator as the module documents (one
# ``integers(0, n, n)`` call per resample; for random permutations one ``integers(0, 2, n)``
# swap mask per resample), figures in exact fractions, the two-sided p-values counted as the
# docstring defines them (bootstrap: ``|d* - d| >= |d|``, permutation: ``|d'| >= |d|``,
# ``p = (1 + extreme) / (1 + defined)``; the exact permutation test: ``extreme / defined``
# over all ``2 ** n`` assignments, the observed one among them), and Holm's adjustment
# worked by hand. Also the
# pairing of documents by id (order, duplicates, documents on one side only) and the JSON
# keys.
# -------------------------------------------------------------------------------------------------

# System A is SPECS (above); B has the same gold spans in every document
# (matched + gold only equal per label), found differently. B never predicts LOC (its LOC
# precision is undefined, A's is 1/2); B alone predicts MISC, never in gold (A's MISC
# precision is undefined, recall undefined on both sides).
SPECS_A = SPECS
SPECS_B: list[dict[str, tuple[int, int, int]]] = [
    {"PER": (1, 1, 0), "ORG": (2, 0, 0)},
    {"PER": (2, 0, 1)},
    {"ORG": (1, 0, 0)},
    {"PER": (2, 1, 0), "LOC": (0, 1, 0)},
    {"ORG": (2, 0, 0)},
    {"PER": (0, 2, 0)},
    {"LOC": (0, 1, 0)},
    {"PER": (1, 0, 0)},
    {"ORG": (3, 0, 1)},
    {"PER": (3, 0, 0)},
    {"LOC": (0, 1, 0)},
    {"MISC": (0, 0, 1)},
]
PAIRED_LABELS = ["LOC", "MISC", "ORG", "PER"]
ROWS = [*PAIRED_LABELS, "micro", "macro"]


def evaluate_docs(docs, **settings):
    return SpanEvaluator(strategy="exact", per_document=True, **settings).evaluate(docs)


def _pick(t, name):
    if name in ("micro", "macro"):
        return t[name]
    return t["labels"][PAIRED_LABELS.index(name)]


def _minus(x, y):
    return None if x is None or y is None else x - y


def holm_by_hand(p_values):
    """Holm step-down: sort the m defined p-values, multiply the j-th smallest by m - j + 1
    (j from 1), cap at 1, and carry the running maximum; None stays None."""
    defined = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(defined)
    out = [None] * len(p_values)
    running = 0.0
    for j, (p, i) in enumerate(defined, start=1):
        running = max(running, min(1.0, (m - j + 1) * p))
        out[i] = running
    return out


def oracle(
    specs_a,
    specs_b,
    *,
    method,
    resamples,
    seed,
    confidence,
    beta=1.0,
    zero_division=None,
    exact=False,
):
    """``{row: {figure: dict(a, b, difference, low, high, p_value, undefined, p_holm)}}``."""
    ca, cb = counts(specs_a, PAIRED_LABELS), counts(specs_b, PAIRED_LABELS)
    n = len(specs_a)

    def tab(c):
        return table(c, beta, zero_division)

    full_a, full_b = tab(ca.sum(axis=0)), tab(cb.sum(axis=0))
    weights = draws(n, resamples, seed)
    boot = [(tab(np.tensordot(w, ca, axes=1)), tab(np.tensordot(w, cb, axes=1))) for w in weights]
    if method == "permutation":
        rng = np.random.default_rng(seed)
        swaps = (
            list(itertools.product([0, 1], repeat=n))
            if exact
            else [rng.integers(0, 2, n) for _ in range(resamples)]
        )
        null_tables = []
        for mask in swaps:
            swap = np.array(mask, dtype=bool)[:, None, None]
            null_tables.append(
                (tab(np.where(swap, cb, ca).sum(axis=0)), tab(np.where(swap, ca, cb).sum(axis=0)))
            )
    out = {}
    for name in ROWS:
        out[name] = {}
        for f in FIGS:
            a, b = _pick(full_a, name)[f], _pick(full_b, name)[f]
            d = _minus(a, b)
            stars = [_minus(_pick(x, name)[f], _pick(y, name)[f]) for x, y in boot]
            low, high, undefined = percentile_interval(stars, confidence)
            p = None
            if d is not None:
                if method == "bootstrap":
                    null = [s - d for s in stars if s is not None]
                else:
                    null = [_minus(_pick(x, name)[f], _pick(y, name)[f]) for x, y in null_tables]
                    null = [s for s in null if s is not None]
                extreme = sum(abs(s) >= abs(d) for s in null)
                p = extreme / len(null) if exact else (1 + extreme) / (1 + len(null))
            out[name][f] = {
                "a": None if a is None else float(a),
                "b": None if b is None else float(b),
                "difference": None if d is None else float(d),
                "low": low,
                "high": high,
                "p_value": p,
                "undefined": undefined,
            }
    for f in FIGS:
        adjusted = holm_by_hand([out[label][f]["p_value"] for label in PAIRED_LABELS])
        for label, p_holm in zip(PAIRED_LABELS, adjusted, strict=True):
            out[label][f]["p_holm"] = p_holm
    return out


def assert_figure(got, want, *, adjusted: bool, family: int):
    for key in ("a", "b", "difference", "low", "high", "p_value"):
        value = getattr(got, key)
        if want[key] is None:
            assert value is None, key
        else:
            assert value == pytest.approx(want[key], abs=1e-12), key
    assert got.undefined == want["undefined"]
    if adjusted:
        assert got.family == family and got.adjusted
        if want["p_holm"] is None:
            assert got.p_holm is None
        else:
            assert got.p_holm == pytest.approx(want["p_holm"], abs=1e-12)
        assert got.decisive_p == got.p_holm
    else:
        assert (got.family, got.p_holm, got.adjusted) == (0, None, False)
        assert got.decisive_p == got.p_value


@pytest.fixture(scope="module")
def systems():
    return evaluate_docs(make_docs(SPECS_A)), evaluate_docs(make_docs(SPECS_B))


@pytest.mark.parametrize(
    "method, seed, confidence, exact",
    [("bootstrap", 3, 0.9, False), ("permutation", 5, 0.8, True), ("permutation", 4, 0.9, False)],
)
def test_every_difference_is_the_oracles(systems, method, seed, confidence, exact, monkeypatch):
    """12 documents: 4,096 assignments, all tried by default; random ones when the cap on
    assignments tried is lowered below that."""
    if not exact:
        monkeypatch.setattr(paired, "EXACT_ASSIGNMENTS", 2)
    a, b = systems
    test = paired_test(a, b, resamples=300, seed=seed, confidence=confidence, method=method)
    want = oracle(
        SPECS_A,
        SPECS_B,
        method=method,
        resamples=300,
        seed=seed,
        confidence=confidence,
        exact=exact,
    )
    assert test.labels == PAIRED_LABELS
    assert (test.method, test.exact, test.resamples, test.seed, test.confidence) == (
        method,
        exact,
        300,
        seed,
        confidence,
    )
    assert (test.threshold, test.n_documents) == (None, 12)
    families = {f: sum(want[lab][f]["p_value"] is not None for lab in PAIRED_LABELS) for f in FIGS}
    # LOC precision (B never predicts LOC) and MISC precision (A never predicts MISC) have no
    # difference; MISC recall is undefined on both sides, and MISC's F too (A: P and R
    # undefined; B: P = 0, so F = 0)
    assert families == {"precision": 2, "recall": 3, "f": 3}
    assert test.family_sizes() == families
    for label in PAIRED_LABELS:
        for f in FIGS:
            assert_figure(
                test.per_label[label].figures[f],
                want[label][f],
                adjusted=True,
                family=families[f],
            )
    for name, row in (("micro", test.micro), ("macro", test.macro)):
        for f in FIGS:
            assert_figure(row.figures[f], want[name][f], adjusted=False, family=0)
    # some p-value is small enough for Holm to matter, and some p-values differ
    ps = [
        want[lab]["f"]["p_value"] for lab in PAIRED_LABELS if want[lab]["f"]["p_value"] is not None
    ]
    assert len(set(ps)) > 1
    # the undefined differences carry each side's figure
    loc_p = test.per_label["LOC"].figures["precision"]
    assert (loc_p.a, loc_p.b, loc_p.difference, loc_p.p_value) == (0.5, None, None, None)
    assert (loc_p.low, loc_p.high, loc_p.undefined) == (None, None, 300)
    misc_p = test.per_label["MISC"].figures["precision"]
    assert (misc_p.a, misc_p.b, misc_p.difference, misc_p.p_holm) == (None, 0.0, None, None)
    assert misc_p.undefined == 300


def test_the_flat_fields_are_f(systems):
    a, b = systems
    test = paired_test(a, b, resamples=200, seed=1, confidence=0.9)
    want = oracle(
        SPECS_A, SPECS_B, method="permutation", resamples=200, seed=1, confidence=0.9, exact=True
    )
    for name, row, _ in test.named_rows():
        f = want[name]["f"]
        flat = (row.f_a, row.f_b, row.difference, row.low, row.high, row.p_value)
        for got, key in zip(flat, ("a", "b", "difference", "low", "high", "p_value"), strict=True):
            assert got == (None if f[key] is None else pytest.approx(f[key], abs=1e-12)), key
        assert row.undefined == f["undefined"]
        if name in PAIRED_LABELS:
            assert row.p_holm == (
                None if f["p_holm"] is None else pytest.approx(f["p_holm"], abs=1e-12)
            )
        else:
            assert row.p_holm is None
    # PER's F1 = 2 matched / (gold + predicted): A 13 gold, 15 predicted, 9 matched: 18/28;
    # B 13 gold, 10 predicted, 9 matched: 18/23
    per = test.per_label["PER"]
    assert (per.f_a, per.f_b) == (pytest.approx(18 / 28), pytest.approx(18 / 23))
    assert per.difference == pytest.approx(18 / 28 - 18 / 23)


def test_named_rows_flag_the_aggregates(systems):
    test = paired_test(*systems, resamples=20, seed=0)
    rows = test.named_rows()
    assert [(name, aggregate) for name, _, aggregate in rows] == [
        ("LOC", False),
        ("MISC", False),
        ("ORG", False),
        ("PER", False),
        ("micro", True),
        ("macro", True),
    ]
    assert rows[-2][1] is test.micro and rows[-1][1] is test.macro


def test_zero_division_fills_the_undefined_differences(systems):
    """With zero_division = 0 every figure is defined: LOC's and MISC's precision have a
    difference and a p-value, and MISC's recall (0 - 0) has p = 1."""
    a = evaluate_docs(make_docs(SPECS_A), zero_division=0.0)
    b = evaluate_docs(make_docs(SPECS_B), zero_division=0.0)
    test = paired_test(a, b, resamples=200, seed=2, confidence=0.9)
    want = oracle(
        SPECS_A,
        SPECS_B,
        method="permutation",
        resamples=200,
        seed=2,
        confidence=0.9,
        zero_division=0.0,
        exact=True,
    )
    assert test.family_sizes() == {"precision": 4, "recall": 4, "f": 4}
    for name, row, aggregate in test.named_rows():
        for f in FIGS:
            assert_figure(row.figures[f], want[name][f], adjusted=not aggregate, family=4)
    misc_r = test.per_label["MISC"].figures["recall"]
    assert (misc_r.a, misc_r.b, misc_r.difference, misc_r.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert test.per_label["LOC"].figures["precision"].difference == 0.5


def test_documents_pair_by_id_whatever_their_order(systems):
    """B scored on its documents in reverse order: each document still meets its own
    counterpart, so every figure is the oracle's of the pairs."""
    a, _ = systems
    b = evaluate_docs(list(reversed(make_docs(SPECS_B))))
    test = paired_test(a, b, resamples=200, seed=4, confidence=0.9)
    want = oracle(
        SPECS_A, SPECS_B, method="permutation", resamples=200, seed=4, confidence=0.9, exact=True
    )
    for name, row, aggregate in test.named_rows():
        for f in FIGS:
            fam = test.family_sizes()[f]
            assert_figure(row.figures[f], want[name][f], adjusted=not aggregate, family=fam)
    again = paired_test(a, b, resamples=200, seed=4, confidence=0.9, method="bootstrap").to_dict()
    boot = oracle(SPECS_A, SPECS_B, method="bootstrap", resamples=200, seed=4, confidence=0.9)
    assert again["micro"]["p_value"] == pytest.approx(boot["micro"]["f"]["p_value"])
    assert again["per_label"]["PER"]["p_value"] == pytest.approx(boot["PER"]["f"]["p_value"])


# -- pairing errors ---------------------------------------------------------------------------
def renamed(ids):
    """One-span documents called ``ids``."""
    return evaluate_docs(
        [
            Document.create(id=i, text="Ana sang", gold=[(0, 3, "PER")], pred=[(0, 3, "PER")])
            for i in ids
        ]
    )


UNIQUE = "paired test: document ids must be unique to pair two systems"


def different(example: str) -> str:
    return (
        "paired test: the two systems were scored on different documents "
        f"(e.g. {example!r} is on one side only)"
    )


@pytest.mark.parametrize(
    "ids_a, ids_b, message",
    [
        (["x", "y", "z"], ["x", "y", "y"], UNIQUE),
        (["x", "x", "z"], ["x", "y", "z"], UNIQUE),
        (["x", "y", "z", "w"], ["x", "p", "q", "w"], different("y")),
        (["x", "y"], ["x", "y", "q"], different("q")),
        (["x", "y", "q"], ["x", "y"], different("q")),
        (["x", "y", "z"], ["z", "y", "x", "q", "r"], different("q")),
    ],
)
def test_systems_on_different_or_ambiguous_documents_are_refused(ids_a, ids_b, message):
    with pytest.raises(ValueError) as info:
        paired_test(renamed(ids_a), renamed(ids_b), resamples=5, seed=0)
    assert str(info.value) == message


def test_settings_the_two_sides_must_share():
    a = renamed(["x", "y"])
    b = SpanEvaluator(strategy="exact", per_document=True, beta=2.0).evaluate(
        make_docs([{"PER": (1, 0, 0)}] * 2, prefix="")
    )
    with pytest.raises(ValueError) as info:
        paired_test(a, b, resamples=5, seed=0)
    assert str(info.value) == "paired test: the two results use different beta or zero_division"
    with pytest.raises(ValueError) as info:
        paired_test(a, a, resamples=5, seed=0, method="randomization")
    assert str(info.value) == "unknown method 'randomization'; choose one of permutation, bootstrap"


# -- the JSON form ----------------------------------------------------------------------------
def test_paired_test_to_dict_keys_and_values(systems):
    test = paired_test(*systems, resamples=100, seed=6, confidence=0.9)
    want = oracle(
        SPECS_A, SPECS_B, method="permutation", resamples=100, seed=6, confidence=0.9, exact=True
    )
    data = test.to_dict()
    assert list(data) == [*JSON_KEYS[:6], "exact", "small_sample", *JSON_KEYS[6:]]
    assert [data[k] for k in list(data)[:8]] == ["permutation", None, 100, 6, 0.9, 12, True, True]
    assert list(data["per_label"]) == PAIRED_LABELS
    per = data["per_label"]["PER"]
    assert list(per) == [
        "f_a",
        "f_b",
        "difference",
        "low",
        "high",
        "p_value",
        "p_holm",
        "undefined",
        "figures",
    ]
    f = want["PER"]["f"]
    assert per == {
        "f_a": pytest.approx(f["a"]),
        "f_b": pytest.approx(f["b"]),
        "difference": pytest.approx(f["difference"]),
        "low": pytest.approx(f["low"]),
        "high": pytest.approx(f["high"]),
        "p_value": pytest.approx(f["p_value"]),
        "p_holm": pytest.approx(f["p_holm"]),
        "undefined": f["undefined"],
        "figures": per["figures"],
    }
    assert list(per["figures"]) == list(FIGS)
    recall = want["PER"]["recall"]
    assert per["figures"]["recall"] == {
        "a": pytest.approx(recall["a"]),
        "b": pytest.approx(recall["b"]),
        "difference": pytest.approx(recall["difference"]),
        "low": pytest.approx(recall["low"]),
        "high": pytest.approx(recall["high"]),
        "p_value": pytest.approx(recall["p_value"]),
        "undefined": recall["undefined"],
        "p_holm": pytest.approx(recall["p_holm"]),
    }
    assert list(per["figures"]["recall"])[-1] == "p_holm"
    micro = data["micro"]
    assert list(micro) == [
        "f_a",
        "f_b",
        "difference",
        "low",
        "high",
        "p_value",
        "undefined",
        "figures",
    ]
    assert micro["undefined"] == want["micro"]["f"]["undefined"] == 0
    loc_p = data["per_label"]["LOC"]["figures"]["precision"]
    assert loc_p == {
        "a": 0.5,
        "b": None,
        "difference": None,
        "low": None,
        "high": None,
        "p_value": None,
        "undefined": 100,
        "p_holm": None,
    }
    misc = data["per_label"]["MISC"]
    assert (misc["f_a"], misc["f_b"], misc["undefined"], misc["p_holm"]) == (None, 0.0, 100, None)
