"""spacy_span_eval.seqeval against seqeval 1.2.2 on the same Python lists, in one process.

Random IOB2 sentences (100k of 20 tokens by default; every tag drawn independently, so about
half the chunks are ill-formed and both libraries' repair rules are exercised). Two timings:

* ``classification_report``: the text report, default mode, from lists of tag lists;
* ``compute``: Hugging Face ``evaluate``'s "seqeval" dict, against that dict built from seqeval
  as the metric builds it (``classification_report(output_dict=True)`` + ``accuracy_score``).

Each pair is run interleaved ``--repeat`` times and the medians compared; the outputs are
asserted identical first. Goal: 30x or more on both.

``--two-sided`` times ``compute(..., strategy="two_sided")`` against the default ``compute``
instead (interleaved, medians; goal: 2x or less), and seqeval's dict once when seqeval is
installed:

    python bench/bench_seqeval_dropin.py [--sentences 100000] [--length 20] [--repeat 3]
    python bench/bench_seqeval_dropin.py --two-sided --sentences 20000 [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from spacy_span_eval import seqeval as ours

# evaluate's dict built from seqeval: the tests' reference (tests/seqeval_oracle.py).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

LABELS = ("PER", "LOC", "ORG", "MISC")


def corpus(n: int, length: int, seed: int) -> tuple[list[list[str]], list[list[str]]]:
    rng = random.Random(seed)
    tags = ["O"] * 6 + [f"{p}-{label}" for p in "BI" for label in LABELS]
    true = [[rng.choice(tags) for _ in range(length)] for _ in range(n)]
    pred = [[t if rng.random() < 0.8 else rng.choice(tags) for t in s] for s in true]
    return true, pred


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def compare(name: str, theirs: Callable[[], Any], mine: Callable[[], Any], repeat: int) -> float:
    t_theirs, t_mine = [], []
    for _ in range(repeat):
        t, expected = timed(theirs)
        t_theirs.append(t)
        t, got = timed(mine)
        t_mine.append(t)
        assert got == expected, f"{name}: the outputs differ"
    a, b = statistics.median(t_theirs), statistics.median(t_mine)
    print(f"{name:24s} seqeval {a:8.3f} s   spacy_span_eval.seqeval {b:7.3f} s   {a / b:6.1f}x")
    return a / b


def two_sided(true: list[list[str]], pred: list[list[str]], repeat: int) -> None:
    """The two-sided ``compute`` against the default one (and seqeval's dict, once)."""
    t_plain, t_two = [], []
    for _ in range(repeat):
        t, plain = timed(lambda: ours.compute(predictions=pred, references=true))
        t_plain.append(t)
        t, both = timed(
            lambda: ours.compute(predictions=pred, references=true, strategy="two_sided")
        )
        t_two.append(t)
        assert {k: v for k, v in both.items() if "iou" not in k and not isinstance(v, dict)} == {
            k: v for k, v in plain.items() if not isinstance(v, dict)
        }, "the two-sided keys changed seqeval's"
    a, b = statistics.median(t_plain), statistics.median(t_two)
    print(f"compute                    {a:7.3f} s")
    print(f"compute(strategy=two_sided) {b:6.3f} s   ratio {b / a:5.2f}x (goal <= 2x)")
    try:
        from seqeval_oracle import evaluate_style
    except ImportError:
        print("seqeval is not installed: no seqeval timing")
        return
    t, _ = timed(lambda: evaluate_style(pred, true))
    print(f"seqeval (evaluate's dict)  {t:7.3f} s   (once)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=100_000)
    parser.add_argument("--length", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--two-sided", action="store_true", help="time the two-sided compute")
    args = parser.parse_args()
    true, pred = corpus(args.sentences, args.length, args.seed)
    print(f"{args.sentences} sentences x {args.length} tokens, IOB2; medians of {args.repeat}")
    if args.two_sided:
        two_sided(true, pred, args.repeat)
        return
    from seqeval.metrics import classification_report
    from seqeval_oracle import evaluate_style

    ratios = [
        compare(
            "classification_report",
            lambda: classification_report(true, pred, digits=4),
            lambda: ours.classification_report(true, pred, digits=4),
            args.repeat,
        ),
        compare(
            "compute (evaluate)",
            lambda: evaluate_style(pred, true),
            lambda: ours.compute(predictions=pred, references=true),
            args.repeat,
        ),
    ]
    print("goal 30x:", "met" if min(ratios) >= 30 else "NOT met")


if __name__ == "__main__":
    main()
