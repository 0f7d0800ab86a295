"""``--sweep``'s cost: one evaluation of ``--spans`` predicted spans (default 200,000) with the
sweep against the same evaluation without it, for two_sided and exact; medians of
``--repeat`` runs of wall seconds in this process, and their ratio (the goal: at most 2x).

The documents are synthetic: gold spans in random places, each predicted as it is, shifted,
cut in two, or missed, plus spurious predictions, every prediction with a random score.

    python bench/bench_sweep.py [--spans 200000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from spacy_span_eval.engine.batching import documents_to_batch
from spacy_span_eval.engine.evaluator import SpanEvaluator
from spacy_span_eval.engine.spans import Document, Span

LABELS = ("PER", "ORG", "LOC", "DATE")


def documents(n_spans: int, seed: int = 7) -> list[Document]:
    rng = random.Random(seed)
    docs, made = [], 0
    while made < n_spans:
        gold, pred, at = [], [], 0
        for _ in range(8):
            at += rng.randint(2, 30)
            start, end, label = at, at + rng.randint(1, 12), rng.choice(LABELS)
            at = end
            gold.append((start, end, label))
            kind = rng.random()
            score = lambda: round(rng.random(), 3)  # noqa: E731
            if kind < 0.6:
                pred.append(Span(start, end, label, score()))
            elif kind < 0.75:
                pred.append(Span(start + 1, end + 1, label, score()))
            elif kind < 0.85 and end - start > 1:
                middle = (start + end) // 2
                pred += [Span(start, middle, label, score()), Span(middle, end, label, score())]
            if rng.random() < 0.15:
                pred.append(Span(end + 1, end + 3, rng.choice(LABELS), score()))
        length = at + 10
        docs.append(Document.create(id=str(len(docs)), gold=gold, pred=pred, length=length))
        made += len(pred)
    return docs


def seconds(evaluator: SpanEvaluator, batches: list) -> float:
    start = time.perf_counter()
    evaluator.tally_batches(batches).result()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    docs = documents(args.spans)
    batches = [documents_to_batch(docs[i : i + 2048]) for i in range(0, len(docs), 2048)]
    n_pred = sum(len(b.pred) for b in batches)
    print(f"{len(docs):,} documents, {n_pred:,} predicted spans")
    for strategy in ("two_sided", "exact"):
        plain, swept = (
            SpanEvaluator(strategy=strategy),
            SpanEvaluator(strategy=strategy, sweep=True),
        )
        a, b = [], []
        for _ in range(args.repeat):  # interleaved, so load hits both alike
            a.append(seconds(plain, batches))
            b.append(seconds(swept, batches))
        ma, mb = statistics.median(a), statistics.median(b)
        print(
            f"{strategy:>10}: evaluation {ma:.3f} s, with --sweep {mb:.3f} s, ratio {mb / ma:.2f}x"
        )


if __name__ == "__main__":
    main()
