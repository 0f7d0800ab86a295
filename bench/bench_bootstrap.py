"""Bootstrap intervals and the paired test on the whole BTC test set.

The BTC test set (2,001 documents) is scored against a seeded perturbed prediction with
per-document counts; then ``bootstrap_intervals`` (1,000 resamples by default) and
``paired_test`` (against a second, worse prediction) are timed. Resampling never re-scores:
it multiplies a (resamples x documents) count matrix by the per-document ledger rows. For
scale, one engine pass over the corpus is timed too. Figures are medians of ``--repeat`` runs.

    python bench/bench_bootstrap.py [--resamples 1000] [--repeat 5] [--data PATH]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.engine.bootstrap import bootstrap_intervals
from spacy_span_eval.engine.paired import paired_test
from spacy_span_eval.readers.conll import read_conll

REPO = Path(__file__).resolve().parent.parent
# The seeded perturbation is the tests' helper, not part of the package.
sys.path.insert(0, str(REPO / "tests"))
from synthetic import perturb  # noqa: E402


def documents(path: Path, *, rate: float, seed: int) -> list[Document]:
    """Each sentence with its gold spans and a seeded perturbed prediction."""
    rng = random.Random(seed)
    out = []
    for i, record in enumerate(read_conll(path)):
        gold, n = list(record.spans), len(record.tokens or ())
        pred = perturb(gold, n, ["PER", "ORG", "LOC"], rng, rate=rate)
        out.append(Document.create(id=i, unit="token", tokens=record.tokens, gold=gold, pred=pred))
    return out


def timed(job, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = job()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main() -> None:
    default = Path(os.environ.get("SPACY_SPAN_EVAL_DATA", REPO.parent / "shared" / "data"))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path, default=default / "btc" / "btc.test")
    args = parser.parse_args()

    good = documents(args.data, rate=0.3, seed=2026)
    poor = documents(args.data, rate=0.6, seed=7)
    evaluator = SpanEvaluator(unit="token", thresholds=(0.5,), per_document=True)
    t_eval, result = timed(lambda: evaluator.evaluate(good), args.repeat)
    other = evaluator.evaluate(poor)
    t_boot, intervals = timed(
        lambda: bootstrap_intervals(result, resamples=args.resamples, seed=0), args.repeat
    )
    t_pair, _ = timed(
        lambda: paired_test(result, other, resamples=args.resamples, seed=0, method="bootstrap"),
        args.repeat,
    )
    t_rand, test = timed(
        lambda: paired_test(result, other, resamples=args.resamples, seed=0), args.repeat
    )

    n_docs = result.documents.n_documents
    print(
        f"BTC test: {n_docs} documents, {result.scores().micro.num_annotated} gold spans; "
        f"{args.resamples} resamples; median of {args.repeat}"
    )
    print(f"  engine pass (per-document counts)   {t_eval * 1000:8.1f} ms")
    print(f"  bootstrap_intervals                 {t_boot * 1000:8.1f} ms")
    print(f"  paired_test (bootstrap)             {t_pair * 1000:8.1f} ms")
    print(f"  paired_test (permutation)           {t_rand * 1000:8.1f} ms")
    micro = intervals.micro["f"]
    print(
        f"  micro F1 {micro.estimate:.4f} [{micro.low:.4f}, {micro.high:.4f}]; "
        f"vs worse: {test.micro.difference:+.4f}, p = {test.micro.p_value:.3g}"
    )


if __name__ == "__main__":
    main()
