"""How often ``compare`` calls two exchangeable systems different: the paired test's size.

Two systems that differ by chance alone (each document's gold and difficulty drawn once,
both predictions drawn independently from the same perturbation of it: ``tests/synthetic.py``)
are compared ``--runs`` times on 10, 30 and 100 documents, with the permutation test (the
default) and the centred paired bootstrap. A valid test calls at most ``alpha`` of them
significant at ``alpha``, give or take its Monte-Carlo error; the bound printed is ``alpha``
plus two standard errors, ``2 sqrt(alpha (1 - alpha) / runs)``.

    python bench/compare_null.py [--runs 1000] [--resamples 199] [--seed 0]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The exchangeable systems are the tests' helper, not part of the package.
sys.path.insert(0, str(REPO / "tests"))
from synthetic import null_rejections  # noqa: E402

ALPHA = 0.05


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=199)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 30, 100])
    args = parser.parse_args()
    bound = ALPHA + 2 * math.sqrt(ALPHA * (1 - ALPHA) / args.runs)
    print(f"share called significant at p < {ALPHA} over {args.runs} null runs (bound {bound:.3f})")
    print(f"{'documents':>9}  {'method':<11}  {'precision':>9}  {'recall':>6}  {'F':>6}")
    for n in args.sizes:
        for method in ("permutation", "bootstrap"):
            rates = null_rejections(
                n, runs=args.runs, seed=args.seed, method=method, resamples=args.resamples
            )
            over = "  over the bound" if max(rates.values()) > bound else ""
            print(
                f"{n:>9}  {method:<11}  {rates['precision']:>9.3f}  {rates['recall']:>6.3f}  "
                f"{rates['f']:>6.3f}{over}"
            )


if __name__ == "__main__":
    main()
