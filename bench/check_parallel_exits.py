"""Back-to-back ``spacy-span-eval evaluate GOLD PRED --n-process 2`` runs: does any of them
print a traceback or an OS error on its way out?

Writes (or reuses) a seeded CoNLL pair of ``bench_reader_memory.py``'s corpus and the same
sentences as a JSON Lines pair (no ids: paired by position, cut by counting), both large
enough to be read in parts (docs/parallel.md: at least two parts of 1 MB), then runs the
command ``--runs`` times on each pair and counts the runs whose stderr holds "Traceback" or
"Errno", or whose exit code is not 0. Exit 1 when any run did.

    python bench/check_parallel_exits.py --runs 50
    python bench/check_parallel_exits.py --runs 10 --sentences 50000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from bench_reader_memory import corpus_pair

BAD = ("Traceback", "Errno")


def jsonl_pair(gold: Path, pred: Path) -> tuple[Path, Path]:
    """The CoNLL pair's sentences as JSON Lines (text = tokens joined by spaces, spans in
    characters), next to it; written unless there already."""
    out = gold.with_suffix(".jsonl"), pred.with_suffix(".jsonl")
    if all(p.exists() for p in out):
        return out
    for source, target in zip((gold, pred), out, strict=True):
        with open(source, encoding="utf-8") as fh, open(target, "w", encoding="utf-8") as w:
            tokens: list[tuple[str, str]] = []
            for line in fh:
                line = line.strip()
                if line:
                    word, tag = line.split("\t")
                    tokens.append((word, tag))
                    continue
                if tokens:
                    w.write(json.dumps(_record(tokens)) + "\n")
                    tokens = []
            if tokens:
                w.write(json.dumps(_record(tokens)) + "\n")
    return out


def _record(tokens: list[tuple[str, str]]) -> dict:
    text, spans, start, label, end = "", [], 0, None, 0
    for word, tag in tokens:
        begin = len(text) + (1 if text else 0)
        text = f"{text} {word}" if text else word
        if tag.startswith("I-") and label == tag[2:]:
            end = len(text)
            continue
        if label is not None:
            spans.append({"start": start, "end": end, "label": label})
        label = tag[2:] if tag != "O" else None
        start, end = begin, len(text)
    if label is not None:
        spans.append({"start": start, "end": end, "label": label})
    return {"text": text, "spans": spans}


def command() -> list[str]:
    script = Path(sys.executable).with_name("spacy-span-eval")
    return [str(script)] if script.exists() else [sys.executable, "-m", "spacy_span_eval"]


def check(name: str, gold: Path, pred: Path, runs: int, n_process: int) -> int:
    bad = 0
    samples: list[str] = []
    start = time.perf_counter()
    for _ in range(runs):
        done = subprocess.run(
            [*command(), "evaluate", str(gold), str(pred), "--n-process", str(n_process)],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        if done.returncode != 0 or any(word in done.stderr for word in BAD):
            bad += 1
            if len(samples) < 3:
                samples.append(f"exit {done.returncode}: {done.stderr.strip()[-600:]}")
    size = gold.stat().st_size / 2**20
    print(
        f"{name:6} ({size:.1f} MiB a file): {bad} of {runs} runs printed a traceback or an "
        f"error, or failed ({time.perf_counter() - start:.0f} s)",
        flush=True,
    )
    for sample in samples:
        print("   ", sample.replace("\n", "\n    "))
    return bad


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--sentences", type=int, default=100_000)
    parser.add_argument("--n-process", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    args = parser.parse_args()
    gold, pred = corpus_pair(args.out, args.sentences)
    pairs = {"CoNLL": (gold, pred), "JSONL": jsonl_pair(gold, pred)}
    bad = sum(check(name, g, p, args.runs, args.n_process) for name, (g, p) in pairs.items())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
