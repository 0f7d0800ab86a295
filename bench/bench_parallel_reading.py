"""``evaluate --n-process N`` against one process on a large CoNLL pair.

Writes (or reuses) the seeded 1M-sentence gold and prediction files of
``bench_reader_memory.py``, then runs ``spacy_span_eval.api.evaluate_files`` in fresh
processes, the modes in turn (1, N, 1, N, ...), each reporting its wall time (the call, and
the whole process from the parent), its CPU time and its children's (the workers), and peak
RSS. Prints medians and checks that every run printed the same JSON report (exit 1 if not).

    python bench/bench_parallel_reading.py                        # 1M sentences, N = 2
    python bench/bench_parallel_reading.py --sentences 200000 --repeat 3

On a shared machine wall times say little: the CPU columns and the estimate from them
("what two free cores would give": the single-process CPU over the larger of the parallel
run's main-process CPU and its total CPU split over N cores) are the steadier figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_reader_memory import corpus_pair
from compiled import compile_package


def measure(gold: str, pred: str, n_process: int, strategy: str, errors: int) -> dict:
    from spacy_span_eval.api import evaluate_files

    wall0, cpu0 = time.perf_counter(), time.process_time()
    report = evaluate_files(
        gold, pred, strategy=strategy, n_process=n_process, silent=True, errors=errors
    )
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "wall": wall,
        "cpu": cpu,
        "children_cpu": kids.ru_utime + kids.ru_stime,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "children_rss_mb": kids.ru_maxrss / 1024,
        "sentences": report.inputs["gold"]["documents"],
        "report": json.dumps(report.to_dict(), sort_keys=True),
    }


def run_child(gold: Path, pred: Path, n_process: int, strategy: str, errors: int) -> dict:
    # As the ``spacy-span-eval`` script runs (``__main__.py``): OpenBLAS at one thread, or
    # its threads spin for ~50 ms of CPU after numpy's import, a core taken from the workers.
    env = {**os.environ, "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")}
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            "--measure",
            str(n_process),
            strategy,
            str(errors),
            str(gold),
            str(pred),
        ],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    process = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"n_process={n_process} failed:\n{done.stderr}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["process"] = process
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=1_000_000)
    parser.add_argument("--n-process", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--strategy", default="exact")
    parser.add_argument(
        "--errors",
        type=int,
        default=20,
        help="error records kept (evaluate's --errors; its default is 0)",
    )
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    parser.add_argument("--measure", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    compile_package()  # (time what users run: .pyc files ready)
    if args.measure:
        n, strategy, errors, gold, pred = args.measure
        print(json.dumps(measure(gold, pred, int(n), strategy, int(errors))))
        return 0

    gold, pred = corpus_pair(args.out, args.sentences)
    modes = [1, args.n_process]
    runs: dict[int, list[dict]] = {m: [] for m in modes}
    loads = []
    for _ in range(args.repeat):
        for m in modes:
            loads.append(os.getloadavg()[0])
            runs[m].append(run_child(gold, pred, m, args.strategy, args.errors))
    reports = {r.pop("report") for rs in runs.values() for r in rs}
    med = {m: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for m, rs in runs.items()}
    size = gold.stat().st_size / 2**20
    print(
        f"\n{args.sentences:,} sentences ({size:.0f} MiB a file), {args.strategy}, "
        f"--errors {args.errors}, "
        f"{args.repeat} runs per mode, load average {min(loads):.1f}-{max(loads):.1f} "
        f"on {os.cpu_count()} CPUs"
    )
    print(
        f"{'n_process':>9} {'call s':>8} {'process s':>10} {'CPU s':>7} {'workers CPU s':>14} "
        f"{'RSS MB':>7} {'worker RSS MB':>14} {'sentences/s':>12}"
    )
    for m in modes:
        r = med[m]
        print(
            f"{m:>9} {r['wall']:8.2f} {r['process']:10.2f} {r['cpu']:7.2f} "
            f"{r['children_cpu']:14.2f} {r['rss_mb']:7.0f} {r['children_rss_mb']:14.0f} "
            f"{r['sentences'] / r['wall']:12,.0f}"
        )
    one, many = med[1], med[args.n_process]
    total = many["cpu"] + many["children_cpu"]
    free = one["cpu"] / max(many["cpu"], total / args.n_process)
    print(
        f"\nspeed-up (median call wall): {one['wall'] / many['wall']:.2f}x; "
        f"whole process: {one['process'] / many['process']:.2f}x"
    )
    print(
        f"CPU: one process {one['cpu']:.2f} s; n_process={args.n_process}: {total:.2f} s in "
        f"all ({many['cpu']:.2f} s main); what {args.n_process} free cores would give: "
        f"{free:.2f}x"
    )
    if len(reports) != 1:
        print("REPORTS DIFFER between runs")
        return 1
    print("every run printed the same report")
    return 0


if __name__ == "__main__":
    sys.exit(main())
