"""Peak memory and speed of reading + scoring many short CoNLL sentences, next to seqeval.

Writes a seeded gold file and a perturbed prediction file of N short sentences (default one
million), then scores them in fresh processes, each reporting its own peak RSS:

* ``ours-exact`` and ``ours-two_sided``: ``spacy_span_eval.api.evaluate_files`` — the
  CLI's path: streaming CoNLL reader, pairing, engine in batches;
* ``seqeval``: the same files read into lists (seqeval needs them whole) and
  ``classification_report`` in its default mode.

    python bench/bench_reader_memory.py                 # 1M sentences
    python bench/bench_reader_memory.py --sentences 100000 --skip-seqeval

The budget is 500 MB peak RSS for our runs; the script exits 1 when it is exceeded.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

BUDGET_MB = 500.0
WORDS = [
    "the",
    "a",
    "report",
    "said",
    "on",
    "Monday",
    "in",
    "of",
    "and",
    "to",
    "was",
    "new",
    "market",
    "shares",
    "rose",
    "fell",
    "by",
    "percent",
    "after",
    "talks",
]
NAMES = {
    "PER": ["Ana", "Bram Costa", "Chen Wei Li"],
    "LOC": ["Porto", "New York", "Graz"],
    "ORG": ["Acme", "Bluefin Bank", "Orchid Labs Inc"],
    "MISC": ["Euro", "Dutch"],
}


def corpus_pair(out: Path, sentences: int) -> tuple[Path, Path]:
    """The gold and predicted files of ``sentences`` sentences in ``out``, written unless
    they are there already (the benches that use this corpus share the files)."""
    out.mkdir(parents=True, exist_ok=True)
    gold, pred = out / f"gold-{sentences}.conll", out / f"pred-{sentences}.conll"
    if not (gold.exists() and pred.exists()):
        print(f"writing {sentences} sentences to {out} ...", flush=True)
        write_corpus(gold, pred, sentences)
    return gold, pred


def write_corpus(gold: Path, pred: Path, n: int, seed: int = 13) -> None:
    """``n`` sentences of 3-12 tokens, ~1.5 entities each; predictions miss, shift, relabel
    and invent some (always valid IOB2)."""
    rng = random.Random(seed)
    labels = sorted(NAMES)
    with open(gold, "w", encoding="utf-8") as g, open(pred, "w", encoding="utf-8") as p:
        for _ in range(n):
            tokens: list[str] = []
            gold_tags: list[str] = []
            pred_tags: list[str] = []
            size = rng.randint(3, 12)
            while len(tokens) < size:
                if rng.random() < 0.25:
                    label = rng.choice(labels)
                    words = rng.choice(NAMES[label]).split()
                    tokens += words
                    gold_tags += [f"B-{label}"] + [f"I-{label}"] * (len(words) - 1)
                    r = rng.random()
                    if r < 0.08:
                        pred_tags += ["O"] * len(words)
                    elif r < 0.16:
                        other = rng.choice([x for x in labels if x != label])
                        pred_tags += [f"B-{other}"] + [f"I-{other}"] * (len(words) - 1)
                    elif r < 0.24 and len(words) > 1:
                        pred_tags += [f"B-{label}"] + [f"I-{label}"] * (len(words) - 2) + ["O"]
                    else:
                        pred_tags += gold_tags[-len(words) :]
                else:
                    tokens.append(rng.choice(WORDS))
                    gold_tags.append("O")
                    spurious = rng.random() < 0.02
                    pred_tags.append(f"B-{rng.choice(labels)}" if spurious else "O")
            g.write("".join(f"{t}\t{tag}\n" for t, tag in zip(tokens, gold_tags, strict=True)))
            p.write("".join(f"{t}\t{tag}\n" for t, tag in zip(tokens, pred_tags, strict=True)))
            g.write("\n")
            p.write("\n")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def measure_ours(gold: str, pred: str, strategy: str) -> dict:
    from spacy_span_eval.api import evaluate_files

    start = time.perf_counter()
    report = evaluate_files(gold, pred, strategy=strategy, silent=True)
    seconds = time.perf_counter() - start
    micro = report.result.micro
    return {
        "seconds": seconds,
        "sentences": report.inputs["gold"]["documents"],
        "precision": micro.precision(),
        "recall": micro.recall(),
        "f": micro.f(),
    }


def measure_seqeval(gold: str, pred: str) -> dict:
    import warnings

    from seqeval.metrics import classification_report

    def tags(path: str) -> list[list[str]]:
        out, cur = [], []
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    cur.append(line.rstrip("\n").split("\t")[-1])
                elif cur:
                    out.append(cur)
                    cur = []
        if cur:
            out.append(cur)
        return out

    start = time.perf_counter()
    y_true, y_pred = tags(gold), tags(pred)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = classification_report(y_true, y_pred, output_dict=True)
    seconds = time.perf_counter() - start
    micro = report["micro avg"]
    return {
        "seconds": seconds,
        "sentences": len(y_true),
        "precision": micro["precision"],
        "recall": micro["recall"],
        "f": micro["f1-score"],
    }


def run_child(kind: str, gold: Path, pred: Path) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--measure", kind, str(gold), str(pred)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{kind} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    parser.add_argument("--skip-seqeval", action="store_true")
    parser.add_argument(
        "--measure", nargs=3, metavar=("KIND", "GOLD", "PRED"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.measure:
        kind, gold, pred = args.measure
        if kind == "seqeval":
            figures = measure_seqeval(gold, pred)
        else:
            figures = measure_ours(gold, pred, kind.split("-", 1)[1])
        figures["peak_rss_mb"] = peak_rss_mb()
        print(json.dumps(figures))
        return 0

    gold, pred = corpus_pair(args.out, args.sentences)
    kinds = ["ours-exact", "ours-two_sided"] + ([] if args.skip_seqeval else ["seqeval"])
    rows = {kind: run_child(kind, gold, pred) for kind in kinds}
    print(f"\n{args.sentences} sentences, {gold.stat().st_size / 2**20:.0f} MiB per file")
    print(f"{'run':<16}{'peak RSS MB':>12}{'seconds':>10}{'sentences/s':>13}{'micro F1':>10}")
    for kind, r in rows.items():
        rate = r["sentences"] / r["seconds"]
        print(
            f"{kind:<16}{r['peak_rss_mb']:>12.0f}{r['seconds']:>10.1f}{rate:>13,.0f}{r['f']:>10.4f}"
        )
    if "seqeval" in rows:
        ours, theirs = rows["ours-exact"], rows["seqeval"]
        assert abs(ours["f"] - theirs["f"]) < 1e-9, "exact micro F1 differs from seqeval's"
        print(
            f"\nours-exact vs seqeval: {theirs['seconds'] / ours['seconds']:.2f}x the speed, "
            f"{ours['peak_rss_mb'] / theirs['peak_rss_mb']:.2f}x the peak memory "
            "(same micro F1)"
        )
    over = [k for k in rows if k.startswith("ours") and rows[k]["peak_rss_mb"] > BUDGET_MB]
    if over:
        print(f"over the {BUDGET_MB:.0f} MB budget: {', '.join(over)}")
        return 1
    print(f"within the {BUDGET_MB:.0f} MB budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
