"""Benchmark: one process vs a local process pool vs a local Dask cluster, same numbers.

Generates a PII-style corpus (``demo_corpus`` sentences and their imperfect "model"
predictions) as JSON-lines shards, then scores it, each mode in a fresh process:

* ``single``     - this process reads and scores (``evaluator.tally``);
* ``processes``  - this process reads, ``--workers`` local processes score
                   (``score_documents(n_process=...)``, what ``--n-process`` runs);
* ``processes-parse`` - this process only splits lines; the workers parse and score them
                   (``score_documents(lines, n_process=..., parse=...)``);
* ``dask-stream``- this process reads, a local Dask cluster scores
                   (``score_documents(dask_scheduler=...)``, what ``--dask-scheduler`` runs);
* ``dask-bag``   - the cluster's workers read their own blocks of the files and score them
                   (``score_bag(db.read_text(...))``: the data is scored where it lies);
* ``shards``     - the ceiling: each of ``--workers`` processes scores whole shard files on
                   its own, no streaming at all (what the machine gives two independent jobs).

Prints wall time (cluster start-up excluded), speed-up over ``single``, CPU time of all the
mode's processes (start-up included; it tells contention from overhead on a shared machine),
peak RSS of the main process and of each worker (exact high-water marks from /proc on Linux),
and checks that every mode produced the identical result.
Needs ``pip install 'spacy-span-eval[dask]'``.

    python bench/bench_parallel.py                      # 2M sentences (several minutes)
    python bench/bench_parallel.py --sentences 100000   # a quick run
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from spacy_span_eval import SpanEvaluator
from spacy_span_eval.engine.rows import document_from_row
from spacy_span_eval.jobs.dask_scoring import score_bag
from spacy_span_eval.jobs.scoring import score_documents
from spacy_span_eval.readers.demo_corpus import gold_documents, recognizer

MODES = ("single", "processes", "processes-parse", "dask-stream", "dask-bag", "shards")
MIB = 1024 * 1024


def evaluator(max_errors: int) -> SpanEvaluator:
    return SpanEvaluator(thresholds=(0.5, 0.75, 0.9), max_errors=max_errors)


# -- corpus ----------------------------------------------------------------------------------
def write_shard(args: tuple[Path, int, int]) -> int:
    """One shard of sentences as JSON lines; a shard's seed makes it reproducible alone."""
    path, shard, n = args
    with path.open("w", encoding="utf-8") as out:
        for s in gold_documents(n, seed=1000 + shard):
            row = {
                "id": f"s{shard}-{s.id}",
                "text": s.text,
                "gold": [[x.start, x.end, x.label] for x in s.spans],
                "pred": [[x.start, x.end, x.label] for x in recognizer(s)],
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return n


def make_corpus(workdir: Path, sentences: int, shards: int) -> list[Path]:
    sizes = [sentences // shards + (i < sentences % shards) for i in range(shards)]
    paths = [workdir / f"corpus-{i:02d}.jsonl" for i in range(shards)]
    with multiprocessing.get_context("spawn").Pool(shards) as pool:
        pool.map(
            write_shard, [(p, i, n) for i, (p, n) in enumerate(zip(paths, sizes, strict=True))]
        )
    return paths


def read_lines(paths: list[Path]) -> Iterator[str]:
    for path in paths:
        with path.open(encoding="utf-8") as lines:
            yield from lines


def parse_line(line: str):
    return document_from_row(json.loads(line), unit="char")


def read_documents(paths: list[Path]) -> Iterator:
    """What a JSONL reader does: parse, validate, yield documents one at a time."""
    return map(parse_line, read_lines(paths))


def score_shard(max_errors: int, path: Path):
    return evaluator(max_errors).tally(read_documents([path]))


# -- memory ----------------------------------------------------------------------------------
def _high_water_mib(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class WorkerPeaks(threading.Thread):
    """Samples the high-water RSS of every descendant process (the workers) until stopped."""

    def __init__(self, interval: float = 0.2) -> None:
        super().__init__(daemon=True)
        import psutil

        self.me, self.interval = psutil.Process(), interval
        self.peaks: dict[int, float] = {}
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.sample()
            self.done.wait(self.interval)

    def sample(self) -> None:
        for child in self.me.children(recursive=True):
            try:
                if "resource_tracker" in " ".join(child.cmdline()):
                    continue
                peak = _high_water_mib(child.pid) or child.memory_info().rss / MIB
            except Exception:  # the process ended between listing and reading
                continue
            self.peaks[child.pid] = max(self.peaks.get(child.pid, 0.0), peak)

    def stop(self) -> list[float]:
        self.sample()
        self.done.set()
        self.join()
        return sorted(self.peaks.values(), reverse=True)


# -- one mode, in its own process ----------------------------------------------------------
def run_mode(
    mode: str, paths: list[Path], workers: int, partition_size: int, max_errors: int
) -> dict:
    ev = evaluator(max_errors)
    startup = 0.0
    watcher = WorkerPeaks()
    watcher.start()
    if mode == "single":
        t0 = time.perf_counter()
        tally = ev.tally(read_documents(paths))
    elif mode == "processes":
        t0 = time.perf_counter()
        tally = score_documents(
            read_documents(paths), ev, n_process=workers, partition_size=partition_size
        )
    elif mode == "shards":
        t0 = time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            tally = sum(
                pool.map(partial(score_shard, max_errors), paths, chunksize=1), ev.tally([])
            )
    elif mode == "processes-parse":
        t0 = time.perf_counter()
        tally = score_documents(
            read_lines(paths),
            ev,
            n_process=workers,
            partition_size=partition_size,
            parse=parse_line,
        )
    else:
        import dask.bag as db
        from distributed import Client, LocalCluster

        s0 = time.perf_counter()
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",
        )
        client = Client(cluster)
        startup = time.perf_counter() - s0
        t0 = time.perf_counter()
        if mode == "dask-stream":
            tally = score_documents(
                read_documents(paths), ev, dask_scheduler=client, partition_size=partition_size
            )
        else:
            size = sum(p.stat().st_size for p in paths)
            lines = sum(1 for p in paths for _ in p.open("rb"))
            blocksize = max(1 << 16, int(partition_size * size / max(lines, 1)))
            tally = score_bag(
                db.read_text([str(p) for p in paths], blocksize=blocksize).map(json.loads), ev
            )
    wall = time.perf_counter() - t0
    peaks = watcher.stop()
    if mode.startswith("dask"):
        client.close()
        cluster.close()
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    result = tally.result().to_dict()
    digest = hashlib.sha256(json.dumps(result, sort_keys=True).encode()).hexdigest()
    micro = result["levels"]["labels"][0]["micro"]
    return {
        "mode": mode,
        "wall_s": wall,
        "startup_s": startup,
        "documents": tally.n_documents,
        "cpu_s": sum(u.ru_utime + u.ru_stime for u in used),
        "main_peak_mib": used[0].ru_maxrss / 1024,
        "worker_peaks_mib": peaks[:workers] if mode != "single" else [],
        "digest": digest,
        "f": micro["f"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=2_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--partition-size",
        type=int,
        default=8192,
        help="documents per unit of work (Dask bag: block size to match)",
    )
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument(
        "--max-errors",
        type=int,
        default=1000,
        help="error records kept per threshold (each partition makes its own)",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=None,
        help="where the corpus is written (default: a temporary folder)",
    )
    parser.add_argument("--run", choices=MODES, help=argparse.SUPPRESS)  # child process
    parser.add_argument("--paths", nargs="*", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.run:
        print(
            json.dumps(
                run_mode(args.run, args.paths, args.workers, args.partition_size, args.max_errors)
            )
        )
        return
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        t0 = time.perf_counter()
        paths = make_corpus(Path(tmp), args.sentences, shards=max(2, args.workers))
        mib = sum(p.stat().st_size for p in paths) / MIB
        print(
            f"corpus: {args.sentences:,} sentences, {mib:,.0f} MiB of JSON lines, generated "
            f"in {time.perf_counter() - t0:.1f}s; {args.workers} workers, partitions of "
            f"{args.partition_size:,} documents, max_errors {args.max_errors}, "
            f"{os.cpu_count()} CPUs"
        )
        rows = []
        for mode in args.modes.split(","):
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--run",
                    mode,
                    "--workers",
                    str(args.workers),
                    "--partition-size",
                    str(args.partition_size),
                    "--max-errors",
                    str(args.max_errors),
                    "--paths",
                    *map(str, paths),
                ],
                check=True,
                capture_output=True,
                text=True,
            )
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
            report(rows)
    digests = {r["digest"] for r in rows}
    print(
        "identical results in every mode"
        if len(digests) == 1
        else f"RESULTS DIFFER between modes: {[(r['mode'], r['digest'][:12]) for r in rows]}"
    )
    if len(digests) != 1:
        sys.exit(1)


def report(rows: list[dict]) -> None:
    r = rows[-1]
    base = next((x["wall_s"] for x in rows if x["mode"] == "single"), None)
    speed = f"{base / r['wall_s']:.2f}x" if base else "n/a"
    workers = ", ".join(f"{m:,.0f}" for m in r["worker_peaks_mib"]) or "-"
    start = f" (+{r['startup_s']:.1f}s cluster start)" if r["startup_s"] else ""
    print(
        f"{r['mode']:<15} wall {r['wall_s']:7.1f}s{start}  speed-up {speed:>6}  "
        f"CPU {r['cpu_s']:6.1f}s  docs {r['documents']:,}  peak RSS main "
        f"{r['main_peak_mib']:,.0f} MiB, workers [{workers}] MiB  micro F {r['f']:.4f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
