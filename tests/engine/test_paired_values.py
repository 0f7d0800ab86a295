"""The paired test checked value by value against an oracle written apart from the package:
the documents' counts written down by hand for two systems on the same gold, the paired
resamples drawn again with numpy's generator as the module documents (one
``integers(0, n, n)`` call per resample; for randomization one ``integers(0, 2, n)`` swap
mask per resample), figures in exact fractions, the two-sided p-values counted as the
docstring defines them (bootstrap: ``|d* - d| >= |d|``, randomization: ``|d'| >= |d|``,
``p = (1 + extreme) / (1 + defined)``), and Holm's adjustment worked by hand. Also the
pairing of documents by id (order, duplicates, documents on one side only) and the JSON
keys."""

from __future__ import annotations

import numpy as np
import pytest
from test_bootstrap_values import FIGS, SPECS, counts, draws, make_docs, percentile_interval, table

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.engine.paired import paired_test

# System A is test_bootstrap_values.SPECS (imported); B has the same gold spans in every document
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
LABELS = ["LOC", "MISC", "ORG", "PER"]
ROWS = [*LABELS, "micro", "macro"]


def evaluate(docs, **settings):
    return SpanEvaluator(strategy="exact", per_document=True, **settings).evaluate(docs)


def _pick(t, name):
    if name in ("micro", "macro"):
        return t[name]
    return t["labels"][LABELS.index(name)]


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


def oracle(specs_a, specs_b, *, method, resamples, seed, confidence, beta=1.0, zero_division=None):
    """``{row: {figure: dict(a, b, difference, low, high, p_value, undefined, p_holm)}}``."""
    ca, cb = counts(specs_a, LABELS), counts(specs_b, LABELS)
    n = len(specs_a)

    def tab(c):
        return table(c, beta, zero_division)

    full_a, full_b = tab(ca.sum(axis=0)), tab(cb.sum(axis=0))
    weights = draws(n, resamples, seed)
    boot = [(tab(np.tensordot(w, ca, axes=1)), tab(np.tensordot(w, cb, axes=1))) for w in weights]
    if method == "randomization":
        rng = np.random.default_rng(seed)
        null_tables = []
        for _ in range(resamples):
            swap = rng.integers(0, 2, n).astype(bool)[:, None, None]
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
                p = (1 + extreme) / (1 + len(null))
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
        adjusted = holm_by_hand([out[label][f]["p_value"] for label in LABELS])
        for label, p_holm in zip(LABELS, adjusted, strict=True):
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
    return evaluate(make_docs(SPECS_A)), evaluate(make_docs(SPECS_B))


@pytest.mark.parametrize(
    "method, seed, confidence", [("bootstrap", 3, 0.9), ("randomization", 5, 0.8)]
)
def test_every_difference_is_the_oracles(systems, method, seed, confidence):
    a, b = systems
    test = paired_test(a, b, resamples=300, seed=seed, confidence=confidence, method=method)
    want = oracle(SPECS_A, SPECS_B, method=method, resamples=300, seed=seed, confidence=confidence)
    assert test.labels == LABELS
    assert (test.method, test.resamples, test.seed, test.confidence) == (
        method,
        300,
        seed,
        confidence,
    )
    assert (test.threshold, test.n_documents) == (None, 12)
    families = {f: sum(want[lab][f]["p_value"] is not None for lab in LABELS) for f in FIGS}
    # LOC precision (B never predicts LOC) and MISC precision (A never predicts MISC) have no
    # difference; MISC recall is undefined on both sides, and MISC's F too (A: P and R
    # undefined; B: P = 0, so F = 0)
    assert families == {"precision": 2, "recall": 3, "f": 3}
    assert test.family_sizes() == families
    for label in LABELS:
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
    ps = [want[lab]["f"]["p_value"] for lab in LABELS if want[lab]["f"]["p_value"] is not None]
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
    want = oracle(SPECS_A, SPECS_B, method="bootstrap", resamples=200, seed=1, confidence=0.9)
    for name, row, _ in test.named_rows():
        f = want[name]["f"]
        flat = (row.f_a, row.f_b, row.difference, row.low, row.high, row.p_value)
        for got, key in zip(flat, ("a", "b", "difference", "low", "high", "p_value"), strict=True):
            assert got == (None if f[key] is None else pytest.approx(f[key], abs=1e-12)), key
        assert row.undefined == f["undefined"]
        if name in LABELS:
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
    a = evaluate(make_docs(SPECS_A), zero_division=0.0)
    b = evaluate(make_docs(SPECS_B), zero_division=0.0)
    test = paired_test(a, b, resamples=200, seed=2, confidence=0.9)
    want = oracle(
        SPECS_A,
        SPECS_B,
        method="bootstrap",
        resamples=200,
        seed=2,
        confidence=0.9,
        zero_division=0.0,
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
    b = evaluate(list(reversed(make_docs(SPECS_B))))
    test = paired_test(a, b, resamples=200, seed=4, confidence=0.9)
    want = oracle(SPECS_A, SPECS_B, method="bootstrap", resamples=200, seed=4, confidence=0.9)
    for name, row, aggregate in test.named_rows():
        for f in FIGS:
            fam = test.family_sizes()[f]
            assert_figure(row.figures[f], want[name][f], adjusted=not aggregate, family=fam)
    again = paired_test(
        a, b, resamples=200, seed=4, confidence=0.9, method="randomization"
    ).to_dict()
    rand = oracle(SPECS_A, SPECS_B, method="randomization", resamples=200, seed=4, confidence=0.9)
    assert again["micro"]["p_value"] == pytest.approx(rand["micro"]["f"]["p_value"])
    assert again["per_label"]["PER"]["p_value"] == pytest.approx(rand["PER"]["f"]["p_value"])


# -- pairing errors ---------------------------------------------------------------------------
def renamed(ids):
    """One-span documents called ``ids``."""
    return evaluate(
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
        paired_test(a, a, resamples=5, seed=0, method="permutation")
    assert str(info.value) == "unknown method 'permutation'; choose one of bootstrap, randomization"


# -- the JSON form ----------------------------------------------------------------------------
def test_paired_test_to_dict_keys_and_values(systems):
    test = paired_test(*systems, resamples=100, seed=6, confidence=0.9, method="randomization")
    want = oracle(SPECS_A, SPECS_B, method="randomization", resamples=100, seed=6, confidence=0.9)
    data = test.to_dict()
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
    assert [data[k] for k in list(data)[:6]] == ["randomization", None, 100, 6, 0.9, 12]
    assert list(data["per_label"]) == LABELS
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
