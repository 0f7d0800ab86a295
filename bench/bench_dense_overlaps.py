"""Dense overlaps in one document: the window search of two_sided.

One 100,000-character document, label X: gold i = [10i, 10i + 50000) and prediction
i = [10i + 5, 10i + 40005), clipped to the text, so every annotation has every prediction as a
candidate. Times a whole ``SpanEvaluator.evaluate`` with the current window search, with the
first (cubic) search, ``best_window_reference``, swapped in, and with ``exact``; prints medians
of ``--repeat`` runs and their ratios. The reference is only run up to ``--reference-max``
spans per side (it took 3.4 s at 200 and did not finish 500 in 120 s). Both searches must give
the same ledger; the script stops if they do not.

Then the known slow shape, predictions sticking out on both sides of many annotations: gold
i = [50i, 50i + 30000), prediction j = [25j, 25j + 32000), 400 gold and 800 predictions by
default (``--straddle``), so each annotation has every prediction as a candidate, about 80 of
them sticking out on both sides and the rest on one side. Goal: < 2 s.

    python bench/bench_dense_overlaps.py [--sizes 200 500 1000] [--repeat 3] [--reference-max 200]
        [--straddle 400 800]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from spacy_span_eval import Document, SpanEvaluator
from spacy_span_eval.engine.strategies import two_sided

# The first search is a test helper, not part of the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from reference_windows import best_window_reference  # noqa: E402

LENGTH = 100_000
GOALS = {500: 2.0, 1000: 10.0}  # seconds, two_sided with the current search
STRADDLE_GOAL = 2.0  # seconds, the 400 + 800 straddling case


def dense_document(n: int) -> Document:
    gold = [(10 * i, min(LENGTH, 10 * i + 50_000), "X") for i in range(n)]
    pred = [(10 * i + 5, min(LENGTH, 10 * i + 40_005), "X") for i in range(n)]
    return Document.create(id=f"dense-{n}", length=LENGTH, gold=gold, pred=pred)


def straddling_document(n_gold: int, n_pred: int) -> Document:
    """Predictions 2,000 chars longer than the annotations, at half their spacing."""
    gold = [(50 * i, 50 * i + 30_000, "X") for i in range(n_gold)]
    pred = [(25 * j, 25 * j + 32_000, "X") for j in range(n_pred)]
    length = max(e for _, e, _ in gold + pred)
    return Document.create(id="straddle", length=length, gold=gold, pred=pred)


@contextmanager
def reference_search():
    """The engine with the first window search in place of the current one."""
    current = two_sided.best_window
    two_sided.best_window = best_window_reference
    try:
        yield
    finally:
        two_sided.best_window = current


def timed(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 500, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reference-max", type=int, default=200)
    parser.add_argument(
        "--one-to-one", action="store_true", help="also time two_sided with one_to_one=True"
    )
    parser.add_argument(
        "--straddle",
        type=int,
        nargs=2,
        default=[400, 800],
        metavar=("GOLD", "PRED"),
        help="sizes of the straddling case (0 0 skips it)",
    )
    args = parser.parse_args()

    print(f"one document of {LENGTH:,} chars, label X, medians of {args.repeat} run(s)")
    header = (
        f"{'n gold + n pred':>16} {'two_sided':>10} {'reference':>10} {'ref/new':>8} "
        f"{'exact':>8} {'new/exact':>9}  goal"
    )
    print(header)
    for n in args.sizes:
        doc = dense_document(n)

        def score(strategy="two_sided", doc=doc, **extra):
            return SpanEvaluator(strategy=strategy, unit="char", **extra).evaluate([doc])

        t_new, new = timed(score, args.repeat)
        t_exact, _ = timed(lambda: score("exact"), args.repeat)
        ref_cell = ratio_cell = "-"
        if n <= args.reference_max:
            with reference_search():
                t_ref, ref = timed(score, args.repeat)
            if ref.per_label != new.per_label:
                raise SystemExit(
                    f"n={n}: the two searches disagree: {ref.per_label} vs {new.per_label}"
                )
            ref_cell, ratio_cell = f"{t_ref:.3f}", f"{t_ref / t_new:.1f}x"
        goal = GOALS.get(n)
        verdict = "" if goal is None else f"< {goal:g} s: {'met' if t_new < goal else 'MISSED'}"
        print(
            f"{f'{n} + {n}':>16} {t_new:>10.3f} {ref_cell:>10} {ratio_cell:>8} "
            f"{t_exact:>8.3f} {t_new / t_exact:>8.1f}x  {verdict}"
        )
        ledger = new.per_label["X"]
        print(
            f"{'':>16} two_sided ledger: tp {ledger.tp}, credited {ledger.credited}, fp {ledger.fp}"
        )
        if args.one_to_one:
            t_121, strict = timed(lambda: score(one_to_one=True), args.repeat)
            ledger = strict.per_label["X"]
            print(
                f"{'':>16} one_to_one {t_121:.3f} s: tp {ledger.tp}, "
                f"credited {ledger.credited}, fp {ledger.fp}"
            )

    n_gold, n_pred = args.straddle
    if n_gold and n_pred:
        doc = straddling_document(n_gold, n_pred)
        t_new, new = timed(
            lambda: SpanEvaluator(strategy="two_sided", unit="char").evaluate([doc]), args.repeat
        )
        ledger = new.per_label["X"]
        verdict = "met" if t_new < STRADDLE_GOAL else "MISSED"
        print(
            f"straddling {n_gold} gold + {n_pred} predictions: two_sided {t_new:.3f} s "
            f"(< {STRADDLE_GOAL:g} s: {verdict}); tp {ledger.tp}, credited {ledger.credited}, "
            f"fp {ledger.fp}"
        )


if __name__ == "__main__":
    main()
