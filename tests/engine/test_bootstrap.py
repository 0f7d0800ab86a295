"""Bootstrap intervals over documents: a resample's ledger is the engine's ledger of the
resampled corpus, intervals are deterministic for a seed, undefined ratios are counted and
left out, and more support gives a narrower interval (BTC test with a perturbed prediction)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.engine import resampling
from spacy_span_eval.engine.bootstrap import bootstrap_intervals, wilson_interval
from spacy_span_eval.engine.ledger import ledger_figures as figures
from spacy_span_eval.engine.resampling import resample_weights
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
    from spacy_span_eval import Ledger

    cases = [
        Ledger(0, 0, 0, 0, 0, 0),
        Ledger(3, 0, 0, 3, 0, 0),
        Ledger(0, 2, 0, 0, 0, 2),
        Ledger(4, 5, 3, 1, 4, 1),
        Ledger(2, 2, 0, 2, 0, 2),
        Ledger(1, 3, 1, 0, 1, 2),
    ]
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
