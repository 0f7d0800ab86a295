"""Time and peak memory of ``report`` next to ``evaluate`` on the same CoNLL pair.

Writes a seeded gold file and a perturbed prediction file of N short sentences (default
200,000; the generator of ``bench_reader_memory.py``), then runs the two commands in turn as
fresh processes, the way a user runs them::

    python -m spacy_span_eval evaluate GOLD PRED -f json --silent
    python -m spacy_span_eval report GOLD PRED -o OUT.html --silent

``evaluate`` writes JSON so that it computes what the page shows beside the tables (the
error kinds and the most frequent error strings, which the plain text table leaves out).

Each run's wall seconds, CPU seconds (user + system) and peak RSS are the operating system's
accounting of that one child (``os.wait4``). Runs alternate (evaluate, report, evaluate, ...)
so a drift in the machine's speed hits both; the ratios are those of the medians.

    python bench/bench_report.py                        # 200k sentences, 3 runs each
    python bench/bench_report.py --sentences 20000 --runs 1
    python bench/bench_report.py --labels 100 1000 5000 --runs 1   # the labels axis
    python bench/bench_report.py --per-document --runs 1            # 1M sentences' rows

The goals: ``report`` within 500 MB peak RSS and 3x the time of ``evaluate``; the
script exits 1 when either is missed (time: the CPU ratio, which other work on the machine
moves less than the wall ratio).
"""

from __future__ import annotations

import argparse
import os
import random
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
LABELS_TIME_S = 30.0
LABELS_RSS_MB = 1000.0


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


def labels_pair(out: Path, n_labels: int, sentences: int, seed: int = 7) -> tuple[Path, Path]:
    """A CoNLL pair of ``sentences`` sentences whose entities spread over ``n_labels``
    labels (the labels axis: how the page grows with the number of labels)."""
    out.mkdir(parents=True, exist_ok=True)
    gold = out / f"gold-{n_labels}-labels-{sentences}.conll"
    pred = out / f"pred-{n_labels}-labels-{sentences}.conll"
    if gold.exists() and pred.exists():
        return gold, pred
    rng = random.Random(seed)
    labels = [f"L{i:05d}" for i in range(n_labels)]
    with open(gold, "w", encoding="utf-8") as g, open(pred, "w", encoding="utf-8") as p:
        for _ in range(sentences):
            for i in range(rng.randint(4, 10)):
                word = f"w{rng.randrange(1000)}"
                if i % 3 == 1:
                    label = labels[rng.randrange(n_labels)]
                    r = rng.random()
                    guess = "O" if r < 0.1 else f"B-{labels[rng.randrange(n_labels)]}"
                    g.write(f"{word}\tB-{label}\n")
                    p.write(f"{word}\t{f'B-{label}' if r >= 0.2 else guess}\n")
                else:
                    g.write(f"{word}\tO\n")
                    p.write(f"{word}\tO\n")
            g.write("\n")
            p.write("\n")
    return gold, pred


def labels_axis(out: Path, counts: list[int], sentences: int, runs: int) -> int:
    """``report`` on pairs of 100, 1,000, 5,000 labels: median wall seconds and peak RSS;
    the goal is under 30 s and 1 GB at 5,000 labels."""
    cli = [sys.executable, "-m", "spacy_span_eval"]
    print(f"{'labels':>8}{'wall s':>9}{'cpu s':>9}{'peak RSS MB':>13}{'page MB':>9}")
    missed = False
    for n in counts:
        gold, pred = labels_pair(out, n, sentences)
        page = out / f"report-{n}-labels.html"
        command = [*cli, "report", str(gold), str(pred), "-o", str(page), "--silent"]
        results = [run_once(command) for _ in range(runs)]
        m = {key: statistics.median(r[key] for r in results) for key in results[0]}
        size = page.stat().st_size / 2**20
        print(
            f"{n:>8,}{m['wall']:>9.2f}{m['cpu']:>9.2f}{m['rss_mb']:>13.0f}{size:>9.1f}", flush=True
        )
        if n >= 5000 and (m["wall"] > LABELS_TIME_S or m["rss_mb"] > LABELS_RSS_MB):
            missed = True
    if missed:
        print(f"goal missed: {LABELS_TIME_S:g} s and {LABELS_RSS_MB:g} MB at 5,000 labels")
        return 1
    return 0


def per_document_rows(out: Path, sentences: int, runs: int) -> int:
    """``evaluate --per-document FILE.jsonl`` on ``sentences`` sentences: median wall and CPU
    seconds and peak RSS; the goal is under 500 MB at 1,000,000 sentences."""
    gold, pred = corpus_pair(out, sentences)
    rows = out / f"documents-{sentences}.jsonl"
    cli = [sys.executable, "-m", "spacy_span_eval"]
    command = [*cli, "evaluate", str(gold), str(pred), "--per-document", str(rows), "--silent"]
    results = [run_once(command) for _ in range(runs)]
    m = {key: statistics.median(r[key] for r in results) for key in results[0]}
    size = rows.stat().st_size / 2**20
    print(f"{'sentences':>10}{'wall s':>9}{'cpu s':>9}{'peak RSS MB':>13}{'file MB':>9}")
    print(f"{sentences:>10,}{m['wall']:>9.2f}{m['cpu']:>9.2f}{m['rss_mb']:>13.0f}{size:>9.1f}")
    if sentences >= 1_000_000 and m["rss_mb"] > RSS_BUDGET_MB:
        print(f"goal missed: {RSS_BUDGET_MB:g} MB at 1,000,000 sentences")
        return 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=3, help="runs of each command")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    parser.add_argument(
        "--labels",
        type=int,
        nargs="*",
        help="the labels axis instead: report on pairs of this many labels "
        "(e.g. 100 1000 5000), 20,000 sentences unless --sentences says otherwise",
    )
    parser.add_argument(
        "--per-document",
        action="store_true",
        help="evaluate --per-document FILE.jsonl instead, on 1,000,000 sentences unless "
        "--sentences says otherwise",
    )
    args = parser.parse_args()
    compile_package()  # (time what users run: .pyc files ready)
    if args.per_document:
        sentences = args.sentences if args.sentences != 200_000 else 1_000_000
        return per_document_rows(args.out, sentences, args.runs)
    if args.labels:
        sentences = args.sentences if args.sentences != 200_000 else 20_000
        return labels_axis(args.out, args.labels, sentences, args.runs)

    gold, pred = corpus_pair(args.out, args.sentences)
    page = args.out / f"report-{args.sentences}.html"
    cli = [sys.executable, "-m", "spacy_span_eval"]
    commands = {
        "evaluate": [*cli, "evaluate", str(gold), str(pred), "-f", "json", "--silent"],
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
