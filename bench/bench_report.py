"""Time and peak memory of ``report`` next to ``evaluate`` on the same CoNLL pair.

Writes a seeded gold file and a perturbed prediction file of N short sentences (default
200,000; the generator of ``bench_reader_memory.py``), then runs the two commands in turn as
fresh processes, the way a user runs them::

    python -m spacy_span_eval evaluate GOLD PRED --silent
    python -m spacy_span_eval report GOLD PRED -o OUT.html --silent

Each run's wall seconds, CPU seconds (user + system) and peak RSS are the operating system's
accounting of that one child (``os.wait4``). Runs alternate (evaluate, report, evaluate, ...)
so a drift in the machine's speed hits both; the ratios are those of the medians.

    python bench/bench_report.py                        # 200k sentences, 3 runs each
    python bench/bench_report.py --sentences 20000 --runs 1

The goals: ``report`` within 500 MB peak RSS and 3x the time of ``evaluate``; the
script exits 1 when either is missed (time: the CPU ratio, which other work on the machine
moves less than the wall ratio).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_reader_memory import corpus_pair
from compiled import compile_package

RSS_BUDGET_MB = 500.0
TIME_BUDGET = 3.0


def run_once(args: list[str]) -> dict[str, float]:
    """Wall and CPU seconds and peak RSS (MB) of one fresh process running ``args``."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = code = os.waitstatus_to_exitcode(status)
        if code != 0:
            errors.seek(0)
            raise SystemExit(f"{' '.join(args)} exited {code}:\n{errors.read().decode()}")
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
    }  # KiB on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=3, help="runs of each command")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    args = parser.parse_args()
    compile_package()  # (time what users run: .pyc files ready)

    gold, pred = corpus_pair(args.out, args.sentences)
    page = args.out / f"report-{args.sentences}.html"
    cli = [sys.executable, "-m", "spacy_span_eval"]
    commands = {
        "evaluate": [*cli, "evaluate", str(gold), str(pred), "--silent"],
        "report": [*cli, "report", str(gold), str(pred), "-o", str(page), "--silent"],
    }
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, command in commands.items():
            runs[name].append(run_once(command))
            print(f"  {name}: {runs[name][-1]['wall']:.1f} s", flush=True)

    median = {
        name: {key: statistics.median(r[key] for r in rs) for key in rs[0]}
        for name, rs in runs.items()
    }
    print(
        f"\n{args.sentences:,} sentences, {gold.stat().st_size / 2**20:.0f} MiB per file, "
        f"median of {args.runs} run(s) each"
    )
    print(f"{'command':<10}{'wall s':>9}{'cpu s':>9}{'peak RSS MB':>13}")
    for name, m in median.items():
        print(f"{name:<10}{m['wall']:>9.2f}{m['cpu']:>9.2f}{m['rss_mb']:>13.0f}")
    wall_ratio = median["report"]["wall"] / median["evaluate"]["wall"]
    cpu_ratio = median["report"]["cpu"] / median["evaluate"]["cpu"]
    print(
        f"\nreport / evaluate: {wall_ratio:.2f}x wall, {cpu_ratio:.2f}x cpu "
        f"(goal <= {TIME_BUDGET:g}x); report peak RSS {median['report']['rss_mb']:.0f} MB "
        f"(goal <= {RSS_BUDGET_MB:.0f} MB)"
    )
    missed = []
    if median["report"]["rss_mb"] > RSS_BUDGET_MB:
        missed.append("peak RSS")
    if cpu_ratio > TIME_BUDGET:
        missed.append("time")
    if missed:
        print(f"goal missed: {', '.join(missed)}")
        return 1
    print("within both goals")
    return 0


if __name__ == "__main__":
    sys.exit(main())
