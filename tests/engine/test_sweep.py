"""The score sweep (semantics §9): every point equals scoring the kept predictions from scratch;
average precision, best-F score and calibration error by hand and against a reference."""

from __future__ import annotations

import dataclasses
import json
import random
import warnings

import numpy as np
import pytest
from spacy.tokens import Doc, DocBin
from spacy.tokens import Span as SpacySpan
from spacy.vocab import Vocab

from spacy_span_eval import InvalidInputError
from spacy_span_eval.engine.evaluator import SpanEvaluator
from spacy_span_eval.engine.ledger import Ledger, LedgerField
from spacy_span_eval.engine.spans import Document, Span
from spacy_span_eval.readers.options import ReadingOptions
from spacy_span_eval.readers.pairing import tokens_to_chars
from spacy_span_eval.readers.schemes import decode
from spacy_span_eval.readers.source import open_pair

from conftest import data_path, needs, token_tag_sentences

LABELS = ("A", "B")
FIELDS = [f.key for f in LedgerField]


def _random_docs(rng: random.Random, n_docs: int = 12) -> list[Document]:
    docs = []
    for d in range(n_docs):
        length = 40
        gold = [(s, s + rng.randint(1, 8), rng.choice(LABELS)) for s in rng.sample(range(30), 4)]
        pred = []
        for _ in range(rng.randint(0, 9)):
            if gold and rng.random() < 0.5:  # near a gold span
                s, e, lab = rng.choice(gold)
                start = max(0, s + rng.randint(-2, 2))
                end = min(length, max(start + 1, e + rng.randint(-2, 2)))
            else:
                start = rng.randrange(35)
                end = start + rng.randint(1, 5)
                lab = rng.choice(LABELS)
            pred.append(Span(start, end, lab, round(rng.random(), 1)))
        if pred and rng.random() < 0.3:  # an identical duplicate with another score
            p = rng.choice(pred)
            pred.append(Span(p.start, p.end, p.label, round(rng.random(), 1)))
        unaligned = [(Span(0, 3, "A", round(rng.random(), 1)), "cannot project")] * (d % 4 == 0)
        docs.append(
            Document.create(
                id=str(d), gold=gold, pred=pred, length=length, unaligned_pred=unaligned
            )
        )
    return docs


def _kept(docs: list[Document], s: float) -> list[Document]:
    return [
        Document.create(
            id=d.id,
            gold=d.gold,
            pred=[p for p in d.pred if p.score >= s],
            length=d.length,
            unaligned_pred=[(u, why) for u, why in d.unaligned_pred if u.score >= s],
        )
        for d in docs
    ]


def _at(entry: dict, s: float) -> dict[str, int]:
    """The sweep's ledger at threshold ``s``: its lowest point at or above ``s``."""
    points = [p for p in entry["points"] if p["score"] >= s]
    if points:
        return {k: points[-1][k] for k in FIELDS}
    # above every score: nothing predicted, every gold span missed
    annotated = entry["points"][-1]["num_annotated"] if entry["points"] else None
    return {"num_predicted": 0, "tp": 0, "credited": 0, "fp": 0, "num_annotated": annotated}


SETTINGS = [
    {"strategy": "two_sided", "thresholds": (0.5, 1.0)},
    {"strategy": "two_sided", "thresholds": (0.5,), "one_to_one": True},
    {"strategy": "two_sided", "thresholds": (0.5,), "coverage": "pooled"},
    {"strategy": "exact"},
    {"strategy": "overlap"},
]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "-".join(map(str, s.values())))
@pytest.mark.parametrize("seed", range(6))
def test_every_point_equals_a_fresh_evaluation_of_the_kept_predictions(settings, seed):
    rng = random.Random(seed)
    docs = _random_docs(rng)
    result = SpanEvaluator(sweep=True, **settings).evaluate(docs)
    assert result.sweep is not None
    for s in [rng.random() for _ in range(8)] + [0.0, 0.5, 1.0, 1.5]:
        fresh = SpanEvaluator(**settings).evaluate(_kept(docs, s))
        for t, run in enumerate(fresh.levels["labels"]):
            sweep = result.sweep[t]
            assert sweep["threshold"] == run.threshold
            for label in LABELS:
                want = run.per_label.get(label, Ledger()).to_dict()
                got = _at(sweep["per_label"][label], s)
                assert {k: v for k, v in got.items() if v is not None} == {
                    k: want[k] for k in FIELDS if got.get(k) is not None
                }, (label, s)
            got = _at(sweep["micro"], s)
            assert got["tp"] == run.micro.tp and got["credited"] == run.micro.credited
            assert got["num_predicted"] == run.micro.num_predicted


def _reference_ap(scores: list[float], positive: list[bool], n_gold: int) -> float:
    """Average precision from its definition: sum over thresholds, high to low, of the recall
    gained times the precision there (scikit-learn's ``average_precision_score``)."""
    ap, last_recall = 0.0, 0.0
    for s in sorted(set(scores), reverse=True):
        kept = [p for c, p in zip(scores, positive, strict=True) if c >= s]
        precision, recall = sum(kept) / len(kept), sum(kept) / n_gold
        ap += (recall - last_recall) * precision
        last_recall = recall
    return ap


@pytest.mark.parametrize("seed", range(5))
def test_average_precision_is_scikit_learns_on_exact_matching(seed):
    rng = random.Random(seed)
    n = 30  # gold spans; each prediction is one gold span (positive) or a miss, none twice
    gold = [(2 * i, 2 * i + 1, "A") for i in range(n)]
    chosen = rng.sample(range(n), 18)
    pred = [Span(2 * i, 2 * i + 1, "A", round(rng.random(), 2)) for i in chosen]
    pred += [Span(2 * i + 1, 2 * i + 2, "A", round(rng.random(), 2)) for i in range(8)]
    doc = Document.create(id="d", gold=gold, pred=pred, length=2 * n + 2)
    ap = SpanEvaluator(strategy="exact", sweep=True).evaluate([doc]).sweep[0]["per_label"]["A"]
    positive = [p.end - p.start == 1 and p.start % 2 == 0 for p in pred]
    scores = [p.score for p in pred]
    want = _reference_ap(scores, positive, n)
    assert ap["average_precision"] == pytest.approx(want)
    metrics = needs("sklearn.metrics", "scikit-learn, in the test extra")
    # scikit-learn's recall counts the gold spans no prediction reaches as never found
    y_true = positive + [True] * (n - sum(positive))
    y_score = scores + [-1.0] * (n - sum(positive))
    sk = metrics.average_precision_score(y_true, y_score)
    assert ap["average_precision"] == pytest.approx(sk - _tail(n, sum(positive), len(pred)))
    # where the definitions meet (every gold span predicted once): scikit-learn's own AP
    found = [p for p in pred if p.end - p.start == 1 and p.start % 2 == 0]
    only_found = Document.create(
        id="d", gold=[(p.start, p.end, "A") for p in found], pred=pred, length=2 * n + 2
    )
    met = SpanEvaluator(strategy="exact", sweep=True).evaluate([only_found]).sweep[0]
    assert met["per_label"]["A"]["average_precision"] == pytest.approx(
        metrics.average_precision_score(positive, scores)
    )


def _tail(n_gold: int, found: int, n_pred: int) -> float:
    """What scikit-learn adds for the never-found gold, scored below every prediction."""
    return (n_gold - found) / n_gold * n_gold / (n_pred + n_gold - found)


DOC = Document.create(
    id="d",
    gold=[(0, 4, "P"), (10, 15, "L")],
    pred=[
        Span(0, 4, "P", 0.9),
        Span(0, 2, "P", 0.95),
        Span(10, 13, "L", 0.3),
        Span(20, 22, "L", 0.6),
    ],
    length=30,
)


@pytest.mark.parametrize(
    ("strategy", "label", "ap", "best", "points"),
    [
        # (score, tp, credited, num_predicted) from the highest score down; best-F ties
        # go to the highest score
        ("two_sided", "P", 1.0, 0.95, [(0.95, 1, 1, 1), (0.9, 1, 1, 2)]),
        ("two_sided", "L", 0.5, 0.3, [(0.6, 0, 0, 1), (0.3, 1, 1, 2)]),
        ("exact", "P", 0.5, 0.9, [(0.95, 0, 0, 1), (0.9, 1, 1, 2)]),
        ("exact", "L", 0.0, 0.6, [(0.6, 0, 0, 1), (0.3, 0, 0, 2)]),
    ],
)
def test_hand_worked_sweeps(strategy, label, ap, best, points):
    entry = SpanEvaluator(strategy=strategy, sweep=True).evaluate([DOC]).sweep[0]
    mine = entry["per_label"][label]
    assert mine["average_precision"] == ap
    assert (mine["best"] or {}).get("score") == best
    got = [(p["score"], p["tp"], p["credited"], p["num_predicted"]) for p in mine["points"]]
    assert got == points


@pytest.mark.parametrize(
    ("scores", "credited", "ece"),
    [
        ([0.9, 0.9], [True, True], 0.1),  # one bin: mean 0.9, all right
        ([0.95, 0.05], [True, False], 0.05),  # two bins, each 0.05 off
        ([0.5, 0.5], [True, False], 0.0),
    ],
)
def test_expected_calibration_error(scores, credited, ece):
    gold = [(4 * i, 4 * i + 2, "A") for i, c in enumerate(credited) if c]
    pred = [Span(4 * i, 4 * i + 2, "A", s) for i, s in enumerate(scores)]
    doc = Document.create(id="d", gold=gold or [(30, 31, "A")], pred=pred, length=40)
    micro = SpanEvaluator(strategy="exact", sweep=True).evaluate([doc]).sweep[0]["micro"]
    assert micro["ece"] == pytest.approx(ece)
    assert sum(b["predictions"] for b in micro["reliability"]) == len(scores)


@pytest.mark.parametrize(
    ("score", "low", "chance"),
    [(1e20, 0.9, 1.0), (1e308, 0.9, 1.0), (1.0, 0.9, 1.0), (-1e20, 0.0, 0.0)],
)
def test_a_score_outside_0_1_is_calibrated_as_a_chance_of_0_or_1(score, low, chance):
    pred = [Span(0, 2, "A", score), Span(0, 2, "A", score * 0.9), Span(3, 5, "A", score)]
    doc = Document.create(id="d", gold=[(0, 2, "A")], pred=pred, length=9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        micro = SpanEvaluator(strategy="exact", sweep=True).evaluate([doc]).sweep[0]["micro"]
    (shown,) = [b for b in micro["reliability"] if b["predictions"]]
    assert (shown["low"], shown["mean_score"], shown["credited"]) == (low, chance, 0.5)
    assert micro["ece"] == abs(chance - 0.5)


def test_predictions_without_a_score_are_an_error_naming_how_many_and_where():
    doc = Document.create(
        id="d", gold=[(0, 2, "A")], pred=[Span(0, 2, "A", 0.5), (3, 4, "A"), (5, 6, "B")], length=9
    )
    with pytest.raises(
        InvalidInputError,
        match=r"2 prediction\(s\) have no score .*'d', predicted span #1 \(3, 4, 'A'\)",
    ):
        SpanEvaluator(sweep=True).evaluate([doc])


@pytest.mark.parametrize("strategy", ["token", "semeval"])
def test_strategies_that_cannot_be_swept_exactly_refuse(strategy):
    with pytest.raises(InvalidInputError, match=f"the {strategy} strategy cannot be swept"):
        SpanEvaluator(strategy=strategy, sweep=True)


def test_the_lowest_point_is_the_run_itself_and_tallies_add():
    docs = _random_docs(random.Random(9))
    ev = SpanEvaluator(sweep=True)
    whole = ev.evaluate(docs)
    parts = (ev.tally(docs[:5]) + ev.tally(docs[5:])).result()
    assert parts.sweep == whole.sweep
    lowest = whole.sweep[0]["micro"]["points"][-1]
    assert {k: lowest[k] for k in FIELDS} == {k: getattr(whole.micro, k) for k in FIELDS}
    assert np.isfinite(whole.sweep[0]["map"])


def test_a_sweep_at_chosen_thresholds_is_the_full_sweep_there():
    docs = _random_docs(random.Random(4))
    taus = (0.5, 0.75, 1.0)
    full = SpanEvaluator(thresholds=taus, sweep=True).evaluate(docs).sweep
    chosen = SpanEvaluator(thresholds=taus, sweep=(0.75,)).evaluate(docs).sweep
    assert chosen == [full[1]]


@pytest.mark.parametrize("seed", range(3))
def test_map_over_iou_thresholds_is_the_mean_of_each_thresholds_map(seed):
    from spacy_span_eval.engine.settings import MAP_THRESHOLDS

    docs = _random_docs(random.Random(seed))
    result = SpanEvaluator(sweep=True, thresholds=(0.75,), map_thresholds=True).evaluate(docs)
    each = SpanEvaluator(sweep=True, thresholds=MAP_THRESHOLDS).evaluate(docs).sweep
    assert result.map_thresholds["maps"] == [e["map"] for e in each]
    assert result.map_thresholds["map"] == pytest.approx(np.mean([e["map"] for e in each]))
    assert [e["threshold"] for e in result.sweep] == [0.75]  # the scored thresholds alone
    assert result.sweep[0] == each[5]


@pytest.mark.parametrize(
    "settings, why",
    [({"strategy": "exact"}, "IoU thresholds"), ({"sweep": False}, "needs --sweep")],
)
def test_map_over_iou_thresholds_needs_a_two_sided_sweep(settings, why):
    with pytest.raises(InvalidInputError, match=why):
        SpanEvaluator(**{"sweep": True, "map_thresholds": True, **settings})


# -- three corpora with scores: every point is a fresh evaluation of the kept predictions -----
# (presidio's synthetic PII, BTC as spancat span groups, wikigold as GLiNER-style JSONL; the
# predictions of each come from one seeded scheme: most gold spans found, some with a moved
# boundary or another label, candidates at random like a suggester's, scores rounded so that
# they tie, and now and then a prediction twice)


def _suggested(rng: random.Random, gold, length: int, labels, unit_size: int) -> list[tuple]:
    """Scored predictions ``(start, end, label, score)`` near ``gold`` and at random."""
    out = []
    for start, end, label in gold:
        if rng.random() < 0.8:
            out.append((start, end, label, round(rng.uniform(0.3, 1.0), 2)))
        if rng.random() < 0.3:
            moved = min(length - 1, max(0, start + rng.choice((-1, 1)) * unit_size))
            other = rng.choice(labels) if rng.random() < 0.3 else label
            out.append((moved, min(length, max(moved + 1, end)), other, round(rng.random(), 2)))
    for _ in range(rng.randint(0, 3)):
        start = rng.randrange(max(1, length - 1))
        end = min(length, start + rng.randint(1, 3) * unit_size)
        out.append((start, end, rng.choice(labels), round(rng.uniform(0.0, 0.8), 2)))
    if out and rng.random() < 0.2:
        out.append(rng.choice(out)[:3] + (round(rng.random(), 2),))
    return out


def _presidio(folder, rng):
    records = json.loads(data_path("presidio_synth", "synth_dataset_v2.json").read_bytes())[:300]
    labels = sorted({s["entity_type"] for r in records for s in r["spans"]})
    pred = []
    for r in records:
        gold = [(s["start_position"], s["end_position"], s["entity_type"]) for s in r["spans"]]
        spans = _suggested(rng, gold, len(r["full_text"]), labels, 3)
        keys = ("start_position", "end_position", "entity_type", "score")
        pred.append(
            {"full_text": r["full_text"], "spans": [dict(zip(keys, s, strict=True)) for s in spans]}
        )
    (folder / "gold.json").write_text(json.dumps(records))
    (folder / "pred.json").write_text(json.dumps(pred))
    return folder / "gold.json", folder / "pred.json", ReadingOptions()


def _spancat(folder, rng):
    """BTC as spancat writes it: the gold and the predictions in ``doc.spans["sc"]``, the
    predictions' scores in the group's ``attrs["scores"]`` (overlapping candidates allowed).
    (Not a trained model: the candidates come from the seeded scheme above.)"""
    sentences = token_tag_sentences(data_path("btc", "btc.test"))[:400]
    vocab = Vocab()
    sides = DocBin(store_user_data=True), DocBin(store_user_data=True)
    for words, tags in sentences:
        gold = [(s.start, s.end, s.label) for s in decode(tags).spans]
        scored = _suggested(rng, gold, len(words), ["PER", "ORG", "LOC"], 1)
        for side, spans in zip(sides, (gold, scored), strict=True):
            doc = Doc(vocab, words=words)
            doc.spans["sc"] = [SpacySpan(doc, s, e, label=lab) for s, e, lab, *_ in spans]
            if spans is scored:
                doc.spans["sc"].attrs["scores"] = np.array([x[3] for x in scored])
            side.add(doc)
    for name, side in zip(("gold", "pred"), sides, strict=True):
        side.to_disk(folder / f"{name}.spacy")
    return folder / "gold.spacy", folder / "pred.spacy", ReadingOptions(source="sc")


def _gliner(folder, rng):
    """wikigold as text, and GLiNER's entities for predictions (``text`` and ``score``)."""
    sentences = token_tag_sentences(data_path("wikigold", "wikigold.conll.txt"))[:400]
    gold_rows, pred_rows = [], []
    for i, (words, tags) in enumerate(sentences):
        text = " ".join(words)
        spans = tokens_to_chars(tuple(words), decode(tags, scheme="IOB1").spans)
        gold = [(s.start, s.end, s.label) for s in spans]
        scored = _suggested(rng, gold, len(text), ["PER", "ORG", "LOC", "MISC"], 2)
        gold_rows.append(
            {"id": i, "text": text, "spans": [dict(zip(KEYS, s, strict=True)) for s in gold]}
        )
        entities = [
            dict(zip(KEYS, s[:3], strict=True), text=text[s[0] : s[1]], score=s[3]) for s in scored
        ]
        pred_rows.append({"id": i, "text": text, "spans": entities})
    for name, rows in (("gold", gold_rows), ("pred", pred_rows)):
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder / "gold.jsonl", folder / "pred.jsonl", ReadingOptions()


KEYS = ("start", "end", "label")
CORPUS_SETTINGS = [
    {"strategy": "two_sided", "thresholds": (0.5, 1.0)},
    {"strategy": "exact"},
    {"strategy": "overlap"},
]


def _kept_batch(batch, s: float):
    """The batch with the predictions scored below ``s`` left out."""
    keep = np.flatnonzero(batch.pred.score >= s)
    unaligned = [u for u in batch.unaligned if u[1].score >= s]
    return dataclasses.replace(batch, pred=batch.pred.take(keep), unaligned=unaligned)


@pytest.mark.parametrize("corpus", [_presidio, _spancat, _gliner], ids=lambda c: c.__name__[1:])
def test_every_point_on_three_scored_corpora_is_a_fresh_evaluation(tmp_path, corpus):
    rng = random.Random(38)
    gold, pred, reading = corpus(tmp_path, rng)
    source = open_pair(gold, pred, reading=reading)
    batches = list(source.batches())
    scores = np.concatenate([b.pred.score for b in batches])
    assert len(scores) > 500 and not np.isnan(scores).any()
    thresholds = [rng.random() for _ in range(25)] + rng.sample(sorted(set(scores)), 25)
    for settings in CORPUS_SETTINGS:
        swept = SpanEvaluator(unit=source.unit, sweep=True, **settings)
        result = swept.tally_batches(batches).result()
        fresh = SpanEvaluator(unit=source.unit, max_errors=0, **settings)
        for s in thresholds:
            kept = fresh.tally_batches(_kept_batch(b, s) for b in batches).result()
            for sweep, run in zip(result.sweep, kept.levels["labels"], strict=True):
                for label, entry in [*sweep["per_label"].items(), ("micro", sweep["micro"])]:
                    want = run.micro if label == "micro" else run.per_label.get(label, Ledger())
                    got = {k: v for k, v in _at(entry, s).items() if v is not None}
                    assert got == {k: want.to_dict()[k] for k in got}, (settings, s, label)
