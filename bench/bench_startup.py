"""Start-up of the command line: each command a fresh process, all in turn in one run (A B C
... A B C ...), medians of wall and CPU seconds (user + system), next to ``python -c pass``.

The commands: ``--version`` (answered before the command line is built), ``--help`` and
``evaluate --help`` (the command tree, no numpy, no engine), and ``evaluate`` on ten CoNLL
sentences as text and as JSON (everything a scoring command loads). ``--against DIR`` also
times a second source tree (an older checkout's folder holding ``spacy_span_eval``), run for
run, with the ratio of the medians.

    python bench/bench_startup.py [--repeat 11] [--against OLD_TREE]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SENTENCES = "".join("John\tB-PER\nSmith\tI-PER\nsaid\tO\n\n" for _ in range(10))


def run(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh process (its output is discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--against", type=Path, help="another tree to time run for run")
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    trees = {"this tree": REPO}
    if args.against is not None:
        trees["against"] = args.against.resolve()
    with tempfile.TemporaryDirectory(prefix="bench_startup_") as tmp:
        gold = Path(tmp) / "gold.conll"
        gold.write_text(SENTENCES)
        g = str(gold)
        commands = {
            "--version": ["--version"],
            "--help": ["--help"],
            "evaluate --help": ["evaluate", "--help"],
            "evaluate, 10 sentences": ["evaluate", g, g, "--strategy", "exact"],
            "evaluate, 10 sentences, -f json": [
                "evaluate",
                g,
                g,
                "--strategy",
                "exact",
                "-f",
                "json",
            ],
        }
        base: list[tuple[float, float]] = []
        times: dict[tuple[str, str], list[tuple[float, float]]] = {
            (c, t): [] for c in commands for t in trees
        }
        for _ in range(args.repeat):
            base.append(run([args.python, "-c", "pass"], REPO))
            for name, command in commands.items():
                for tree, cwd in trees.items():  # (the working folder's package is imported)
                    times[(name, tree)].append(
                        run([args.python, "-m", "spacy_span_eval", *command], cwd)
                    )

    def med(runs: list[tuple[float, float]]) -> tuple[float, float]:
        return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)

    print(f"{'process':34} {'tree':10} {'wall s':>8} {'cpu s':>8}")
    print(f"{'python -c pass':34} {'':10} {med(base)[0]:8.3f} {med(base)[1]:8.3f}")
    for name in commands:
        for tree in trees:
            wall, cpu = med(times[(name, tree)])
            print(f"{name:34} {tree:10} {wall:8.3f} {cpu:8.3f}")
        if len(trees) == 2:
            ours, theirs = med(times[(name, "this tree")]), med(times[(name, "against")])
            print(f"{'':34} {'ratio':10} {ours[0] / theirs[0]:8.2f} {ours[1] / theirs[1]:8.2f}")
    print(f"\n--version wall: {med(times[('--version', 'this tree')])[0]:.3f} s (goal <= 0.10)")


if __name__ == "__main__":
    main()
