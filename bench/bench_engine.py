"""Engine throughput against seqeval, nervaluate and a naive exact-set matcher.

A synthetic corpus (default 100k sentences x 20 tokens, ~3 entities each, 6 labels, 10% of
entities perturbed) is scored from pre-extracted spans. Every tool is timed in this one run;
figures are medians of ``--repeat`` runs, reported as sentences/second and as ratios against
the naive matcher.

    python bench/bench_engine.py [--sentences 100000] [--repeat 3] [--skip-peers]
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections import Counter

import numpy as np

from spacy_span_eval import Document, SpanBatch, SpanColumns, SpanEvaluator

LABELS = ["PER", "ORG", "LOC", "DATE", "EMAIL", "PHONE"]
TOKENS = 20


def make_corpus(n: int, seed: int = 0):
    """Columns of gold and predicted token spans, 3 entity slots per sentence."""
    rng = np.random.default_rng(seed)
    slots = np.array([0, 7, 14])
    starts = (slots[None, :] + rng.integers(0, 2, size=(n, 3))).reshape(-1)
    ends = starts + rng.integers(1, 4, size=n * 3)
    labels = rng.integers(0, len(LABELS), size=n * 3)
    doc = np.repeat(np.arange(n), 3)
    keep = rng.random(n * 3) < 0.97  # "~3" entities: some sentences have fewer
    gold = (doc[keep], starts[keep], ends[keep], labels[keep])

    d, s, e, lab = (a.copy() for a in gold)
    m = len(d)
    r = rng.random(m)
    hit = r < 0.10
    kind = rng.integers(0, 4, size=m)
    s = np.where(hit & (kind == 0), np.maximum(s - 1, 0), s)  # start shifted left
    e = np.where(hit & (kind == 1), e + 1, e)  # end shifted right (slots leave room)
    lab = np.where(hit & (kind == 2), (lab + 1) % len(LABELS), lab)  # label swap
    drop = hit & (kind == 3)
    d, s, e, lab = d[~drop], s[~drop], e[~drop], lab[~drop]
    spurious = rng.random(n) < 0.05
    sd = np.flatnonzero(spurious)
    d = np.concatenate([d, sd])
    s = np.concatenate([s, np.full(sd.size, 19)])
    e = np.concatenate([e, np.full(sd.size, 20)])
    lab = np.concatenate([lab, rng.integers(0, len(LABELS), size=sd.size)])
    order = np.lexsort((s, d))
    pred = (d[order], s[order], e[order], lab[order])
    return gold, pred


def per_sentence(cols, n):
    out = [[] for _ in range(n)]
    for d, s, e, lab in zip(*(c.tolist() for c in cols), strict=True):
        out[d].append((s, e, LABELS[lab]))
    return out


def to_tags(spans_per_sentence):
    tags = []
    for spans in spans_per_sentence:
        t = ["O"] * TOKENS
        for s, e, lab in spans:
            t[s] = "B-" + lab
            for i in range(s + 1, e):
                t[i] = "I-" + lab
        tags.append(t)
    return tags


def naive_exact(gold_sents, pred_sents):
    """What a careful user writes by hand: per-sentence sets and per-label counters."""
    tp, fp, fn = Counter(), Counter(), Counter()
    for gold, pred in zip(gold_sents, pred_sents, strict=True):
        g, p = set(gold), set(pred)
        for span in g & p:
            tp[span[2]] += 1
        for span in p - g:
            fp[span[2]] += 1
        for span in g - p:
            fn[span[2]] += 1
    return tp, fp, fn


def timed(fn, repeat):
    """Median wall and median CPU (process) seconds of ``repeat`` runs."""
    times, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(times), statistics.median(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--batch", type=int, default=20_000, help="documents per columnar batch")
    ap.add_argument("--skip-peers", action="store_true")
    args = ap.parse_args()
    n = args.sentences
    gold, pred = make_corpus(n)
    gold_sents, pred_sents = per_sentence(gold, n), per_sentence(pred, n)
    print(
        f"corpus: {n} sentences x {TOKENS} tokens, {len(gold[0])} gold / {len(pred[0])} "
        f"predicted spans, {len(LABELS)} labels"
    )

    def batches():
        out = []
        for lo in range(0, n, args.batch):
            hi = min(n, lo + args.batch)
            gsel = (gold[0] >= lo) & (gold[0] < hi)
            psel = (pred[0] >= lo) & (pred[0] < hi)
            out.append(
                SpanBatch(
                    doc_ids=[str(i) for i in range(lo, hi)],
                    lengths=np.full(hi - lo, TOKENS),
                    gold=SpanColumns.from_arrays(gold[0][gsel] - lo, *(c[gsel] for c in gold[1:])),
                    pred=SpanColumns.from_arrays(pred[0][psel] - lo, *(c[psel] for c in pred[1:])),
                    labels=LABELS,
                )
            )
        return out

    span_batches = batches()

    def create():
        return [
            Document.create(id=i, unit="token", length=TOKENS, gold=g, pred=p)
            for i, (g, p) in enumerate(zip(gold_sents, pred_sents, strict=True))
        ]

    docs = create()
    results: dict[str, tuple[float, float]] = {}

    def ours(strategy, source):
        ev = SpanEvaluator(strategy=strategy, unit="token")
        if source == "columns":
            return lambda: sum(ev.tally_batch(b) for b in span_batches).result()
        return lambda: ev.evaluate(docs)

    for strategy in ("two_sided", "exact"):
        for source in ("columns", "documents"):
            results[f"spacy-span-eval {strategy} ({source})"] = timed(
                ours(strategy, source), args.repeat
            )
    # Not a scoring row: what building the Document objects costs (validation included).
    results["(building the Documents: Document.create)"] = timed(create, args.repeat)
    results["naive exact-set matcher"] = timed(
        lambda: naive_exact(gold_sents, pred_sents), args.repeat
    )
    # Sanity: our exact micro equals the naive matcher's.
    tp, fp, fn = naive_exact(gold_sents, pred_sents)
    micro = SpanEvaluator(strategy="exact", unit="token").evaluate(docs).micro
    assert (micro.tp, micro.fp, micro.fn) == (
        sum(tp.values()),
        sum(fp.values()),
        sum(fn.values()),
    ), "exact disagrees with naive"

    if not args.skip_peers:
        y_true, y_pred = to_tags(gold_sents), to_tags(pred_sents)
        from seqeval.metrics import classification_report

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results["seqeval classification_report"] = timed(
                lambda: classification_report(y_true, y_pred, output_dict=True), args.repeat
            )
        from nervaluate import Evaluator

        results["nervaluate"] = timed(
            lambda: Evaluator(y_true, y_pred, tags=LABELS, loader="list").evaluate(), args.repeat
        )

    naive, naive_cpu = results["naive exact-set matcher"]
    print(f"\n{'tool':48} {'median s':>9} {'CPU s':>7} {'sent/s':>11} {'vs naive':>9} {'(CPU)':>7}")
    for name, (seconds, cpu) in results.items():
        print(
            f"{name:48} {seconds:9.3f} {cpu:7.3f} {n / seconds:11,.0f} {naive / seconds:8.2f}x "
            f"{naive_cpu / cpu:6.2f}x"
        )


if __name__ == "__main__":
    main()
