"""``evaluate --n-process N`` against one process on large CoNLL pairs.

Two corpora (``--corpus``): ``varied``, the seeded 1M-sentence gold and prediction files of
``bench_reader_memory.py`` (3-12 tokens a sentence, valid IOB2); and ``repeated``, where every
sentence is the same 20 tokens ``w0`` ... ``w19`` (~2.6 entities a sentence, 10% of the
predicted tags replaced at random, so some predicted chunks are repaired), which no sentence
match can cut: the plan counts sentences instead. ``repeated`` has 200,000 sentences unless
``--full`` (1M sentences, about 130 MB a file). For each corpus it writes (or reuses) the files
in ``--out``, then runs ``spacy_span_eval.api.evaluate_files`` in fresh
processes, the modes in turn (1, N, 1, N, ...), each reporting its wall time (the call, and
the whole process from the parent), its CPU time and its children's (the workers), and peak
RSS. Prints medians and checks that every run printed the same JSON report (exit 1 if not).

    python bench/bench_parallel_reading.py                        # both corpora, N = 2
    python bench/bench_parallel_reading.py --corpus repeated --full --repeat 3
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

import numpy as np
from bench_reader_memory import corpus_pair
from compiled import compile_package

REPEATED_LABELS = ("PER", "ORG", "LOC", "MISC")
REPEATED_WIDTH = 20  # tokens a sentence, w0 ... w19 in every one


def repeated_pair(out: Path, sentences: int) -> tuple[Path, Path]:
    """The ``repeated`` corpus of ``sentences`` sentences in ``out``, written unless there."""
    out.mkdir(parents=True, exist_ok=True)
    gold = out / f"gold-repeated-{sentences}.conll"
    pred = out / f"pred-repeated-{sentences}.conll"
    if not (gold.exists() and pred.exists()):
        print(f"writing {sentences} repeated sentences to {out} ...", flush=True)
        write_repeated(gold, pred, sentences)
    return gold, pred


def write_repeated(gold: Path, pred: Path, n: int, seed: int = 26) -> None:
    """Every sentence ``w0 ... w19``; a token starts an entity with probability 0.13, which
    goes on to the next token (not itself a start) with probability 0.3 (~2.6 entities a
    sentence). In the predictions 10% of the tags are perturbed: an entity tag has its prefix
    swapped (B <-> I) or its label changed; an ``O`` becomes ``I-`` of a random label one
    time in five (a chunk to repair), else stays."""
    rng = np.random.default_rng(seed)
    n_labels = len(REPEATED_LABELS)
    tags = ["O"] + [f"{p}-{x}" for x in REPEATED_LABELS for p in "BI"]  # O, B-PER, I-PER, ...
    shape = (n, REPEATED_WIDTH)
    begin = rng.random(shape) < 0.13
    label = rng.integers(0, n_labels, shape)
    inside = np.zeros(shape, dtype=bool)
    inside[:, 1:] = begin[:, :-1] & ~begin[:, 1:] & (rng.random(shape)[:, 1:] < 0.3)
    label[:, 1:] = np.where(inside[:, 1:], label[:, :-1], label[:, 1:])
    code = np.where(begin, 1 + 2 * label, np.where(inside, 2 + 2 * label, 0))
    noisy = rng.random(shape) < 0.1
    how = rng.random(shape)
    other = (label + rng.integers(1, n_labels, shape)) % n_labels
    swapped = np.where(code % 2 == 1, code + 1, code - 1)  # B <-> I, same label
    relabelled = np.where(code % 2 == 1, 1, 2) + 2 * other
    entity = np.where(how < 0.5, swapped, relabelled)
    stray = np.where(how < 0.2, 2 + 2 * other, 0)
    pred_code = np.where(noisy, np.where(code > 0, entity, stray), code)
    tokens = [f"w{i} " for i in range(REPEATED_WIDTH)]
    for path, codes in ((gold, code), (pred, pred_code)):
        with open(path, "w", encoding="utf-8") as fh:
            for lo in range(0, n, 50_000):
                block = codes[lo : lo + 50_000].tolist()
                fh.write(
                    "".join(
                        "".join(t + tags[c] + "\n" for t, c in zip(tokens, row, strict=True)) + "\n"
                        for row in block
                    )
                )


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
    parser.add_argument(
        "--corpus", choices=("varied", "repeated", "both"), default="both", help="which pair"
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="the repeated corpus at 1M sentences (default 200,000)",
    )
    parser.add_argument("--measure", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    compile_package()  # (time what users run: .pyc files ready)
    if args.measure:
        n, strategy, errors, gold, pred = args.measure
        print(json.dumps(measure(gold, pred, int(n), strategy, int(errors))))
        return 0

    pairs = []
    if args.corpus in ("varied", "both"):
        pairs.append(("varied", args.sentences, *corpus_pair(args.out, args.sentences)))
    if args.corpus in ("repeated", "both"):
        n = 1_000_000 if args.full else 200_000
        pairs.append(("repeated", n, *repeated_pair(args.out, n)))
    failed = 0
    ratios = []
    for name, sentences, gold, pred in pairs:
        ratio, same = bench_pair(args, name, sentences, gold, pred)
        ratios.append((name, ratio))
        failed += not same
    print()
    for name, ratio in ratios:
        print(f"{name}: --n-process {args.n_process} vs 1, whole process: {ratio:.2f}x")
    return 1 if failed else 0


def bench_pair(
    args: argparse.Namespace, name: str, sentences: int, gold: Path, pred: Path
) -> tuple[float, bool]:
    """Runs one pair in both modes, prints its table; the whole-process ratio, and whether
    every run printed the same report."""
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
        f"\n{name}: {sentences:,} sentences ({size:.0f} MiB a file), {args.strategy}, "
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
        return one["process"] / many["process"], False
    print("every run printed the same report")
    return one["process"] / many["process"], True


if __name__ == "__main__":
    sys.exit(main())
