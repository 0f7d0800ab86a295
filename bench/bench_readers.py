"""Reading + scoring files end to end, each tool a fresh process, all timed in one run.

Writes into a temporary folder:

* a CoNLL pair of ``--sentences`` sentences x 20 tokens (default 100,000; the corpus of
  ``bench_engine.py``: ~3 entities a sentence, 6 labels, 10% perturbed), tab-separated;
* a presidio-style JSON pair of ``--records`` records (default 15,000; synthetic texts with
  names, places, dates, phone numbers and e-mail addresses; ~10% of predicted spans moved or
  dropped), indented as presidio-research writes it.

Then times, as fresh processes started in turn (A B C ... A B C ...), medians of
``--repeat`` rounds (seqeval, which takes ~15 s a run, ``--seqeval-repeat``):

* ``spacy-span-eval evaluate`` (``python -m spacy_span_eval``), exact and two_sided, and
  two_sided ``-f json`` (which also counts the confusion cells, error kinds and frequent
  error strings the text output does not show);
* the same evaluation through ``spacy_span_eval.api.evaluate_files`` without the CLI
  module, which today imports spaCy (via the report) before doing anything: this is what
  the command costs once its imports are lazy;
* seqeval's ``classification_report`` (default mode) including reading both files;
* a minimal ``json.load`` + set-intersection script for the presidio pair;
* interpreter start alone, and the imports, to show the fixed cost of each process.

Wall and CPU seconds (user + system of the child) are printed with the ratios the
goals use. Before timing, the results are checked: our exact micro precision and recall equal
seqeval's, and the presidio script's.

    python bench/bench_readers.py [--sentences 100000] [--records 15000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

from bench_engine import LABELS, TOKENS, make_corpus, per_sentence, to_tags  # noqa: E402
from compiled import compile_package  # noqa: E402

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
    "Porto",
    "Ana",
    "Zoë",
    "Kraków",
]

SEQEVAL = """
import json, sys, warnings
from seqeval.metrics import classification_report

def read(path):
    out, cur = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip()
            if not line:
                if cur:
                    out.append(cur)
                    cur = []
                continue
            cur.append(line.split()[-1])
    if cur:
        out.append(cur)
    return out

y_true, y_pred = read(sys.argv[1]), read(sys.argv[2])
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    report = classification_report(y_true, y_pred, output_dict=True)
if len(sys.argv) > 3:
    micro = report["micro avg"]
    with open(sys.argv[3], "w") as f:
        json.dump({"precision": float(micro["precision"]), "recall": float(micro["recall"])}, f)
"""

PRESIDIO_SETS = """
import json, sys
from collections import Counter

def spans(record):
    return {(s["start_position"], s["end_position"], s["entity_type"]) for s in record["spans"]}

gold = json.load(open(sys.argv[1], encoding="utf-8"))
pred = json.load(open(sys.argv[2], encoding="utf-8"))
tp, n_gold, n_pred = Counter(), Counter(), Counter()
for g, p in zip(gold, pred):
    a, b = spans(g), spans(p)
    for s in a & b:
        tp[s[2]] += 1
    for s in a:
        n_gold[s[2]] += 1
    for s in b:
        n_pred[s[2]] += 1
result = {"precision": sum(tp.values()) / sum(n_pred.values()),
          "recall": sum(tp.values()) / sum(n_gold.values())}
if len(sys.argv) > 3:
    with open(sys.argv[3], "w") as f:
        json.dump(result, f)
"""

API = (
    "import sys; from spacy_span_eval.api import evaluate_files; "
    "evaluate_files(sys.argv[1], sys.argv[2], strategy=sys.argv[3], silent=False)"
)


def write_conll(folder: Path, n: int) -> tuple[Path, Path]:
    gold, pred = make_corpus(n)
    rng = np.random.default_rng(1)
    words = rng.integers(0, len(WORDS), size=(n, TOKENS))
    paths = folder / "gold.conll", folder / "pred.conll"
    for path, cols in zip(paths, (gold, pred), strict=True):
        tags = to_tags(per_sentence(cols, n))
        with open(path, "w", encoding="utf-8") as fh:
            for i, sentence in enumerate(tags):
                fh.write(
                    "".join(f"{WORDS[w]}\t{t}\n" for w, t in zip(words[i], sentence, strict=True))
                )
                fh.write("\n")
    return paths


NAMES = ["Ana Costa", "Chen Wei", "Zoë Kraus", "Łukasz Nowak", "María José Pérez"]
PLACES = ["Porto", "New York", "Kraków", "São Paulo", "Graz"]
FILLERS = ["Please contact", "The meeting with", "As agreed,", "Call", "We met"]


def _record(rng: random.Random, i: int) -> tuple[str, list[dict]]:
    """A synthetic presidio-style text and its spans."""
    parts: list[str] = []
    spans: list[dict] = []
    at = 0
    pieces = [
        (rng.choice(FILLERS) + " ", None),
        (rng.choice(NAMES), "PERSON"),
        (" in ", None),
        (rng.choice(PLACES), "LOCATION"),
    ]
    if rng.random() < 0.6:
        pieces += [
            (" on ", None),
            (f"{rng.randint(1, 28)} March {rng.randint(1990, 2030)}", "DATE_TIME"),
        ]
    if rng.random() < 0.5:
        pieces += [
            (" at ", None),
            (f"+1-{rng.randint(200, 999)}-555-{rng.randint(1000, 9999)}", "PHONE_NUMBER"),
        ]
    if rng.random() < 0.3:
        pieces += [(" or ", None), (f"user{i}@example.org", "EMAIL_ADDRESS")]
    pieces.append((f' about case {i}, said the "note".\n', None))
    for text, label in pieces:
        parts.append(text)
        if label:
            spans.append(
                {
                    "entity_type": label,
                    "entity_value": text,
                    "start_position": at,
                    "end_position": at + len(text),
                }
            )
        at += len(text)
    return "".join(parts), spans


def write_presidio(folder: Path, n: int, seed: int = 5) -> tuple[Path, Path]:
    rng = random.Random(seed)
    gold_records, pred_records = [], []
    for i in range(n):
        text, spans = _record(rng, i)
        record = {
            "full_text": text,
            "masked": None,
            "spans": spans,
            "template_id": i % 97,
            "metadata": None,
        }
        predicted = []
        for span in spans:
            r = rng.random()
            if r < 0.04:
                continue
            if r < 0.08:
                span = {**span, "start_position": span["start_position"] + 1}
            elif r < 0.10:
                span = {**span, "entity_type": "ORGANIZATION"}
            predicted.append(span)
        gold_records.append(record)
        pred_records.append({**record, "spans": predicted})
    paths = folder / "gold.json", folder / "pred.json"
    for path, records in zip(paths, (gold_records, pred_records), strict=True):
        path.write_text(json.dumps(records, indent=4, ensure_ascii=False), encoding="utf-8")
    return paths


def run(cmd: list[str], env: dict) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh process (its output is discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def check(py: str, folder: Path, env: dict, conll, presidio) -> None:
    """Our exact micro P and R equal seqeval's (CoNLL) and the set script's (presidio)."""
    for (gold, pred), script, name in (
        (conll, "seqeval_report.py", "CoNLL"),
        (presidio, "presidio_sets.py", "presidio"),
    ):
        theirs_path, ours_path = folder / f"{name}.theirs.json", folder / f"{name}.ours.json"
        subprocess.run(
            [py, str(folder / script), str(gold), str(pred), str(theirs_path)],
            cwd=REPO,
            env=env,
            check=True,
        )
        subprocess.run(
            [
                py,
                "-m",
                "spacy_span_eval",
                "evaluate",
                str(gold),
                str(pred),
                "--strategy",
                "exact",
                "--format",
                "json",
                "--output",
                str(ours_path),
                "--silent",
            ],
            cwd=REPO,
            env=env,
            check=True,
        )
        theirs = json.loads(theirs_path.read_text())
        micro = json.loads(ours_path.read_text())["result"]["levels"]["labels"][0]["micro"]
        for key in ("precision", "recall"):
            if abs(micro[key] - theirs[key]) > 1e-9:
                raise SystemExit(f"{name}: our exact {key} {micro[key]} != {theirs[key]}")
        print(
            f"check {name}: exact micro P {micro['precision']:.6f} R {micro['recall']:.6f} "
            "= the other tool's"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=100_000)
    ap.add_argument("--records", type=int, default=15_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seqeval-repeat", type=int, default=3)
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args()
    compile_package()  # (time what users run: .pyc files ready)
    py = args.python
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with tempfile.TemporaryDirectory(prefix="bench_readers_") as tmp:
        folder = Path(tmp)
        conll = write_conll(folder, args.sentences)
        presidio = write_presidio(folder, args.records)
        (folder / "seqeval_report.py").write_text(SEQEVAL)
        (folder / "presidio_sets.py").write_text(PRESIDIO_SETS)
        sizes = ", ".join(f"{p.name} {p.stat().st_size / 1e6:.1f} MB" for p in (*conll, *presidio))
        print(
            f"data: {args.sentences} sentences x {TOKENS} tokens, {len(LABELS)} labels; "
            f"{args.records} presidio records ({sizes})"
        )
        check(py, folder, env, conll, presidio)
        g, p = map(str, conll)
        jg, jp = map(str, presidio)
        cli = [py, "-m", "spacy_span_eval", "evaluate"]
        tools = {
            "python -c pass": [py, "-c", "pass"],
            "spacy-span-eval --version": [py, "-m", "spacy_span_eval", "--version"],
            "import spacy_span_eval.api": [py, "-c", "import spacy_span_eval.api"],
            "import spacy_span_eval.cli": [py, "-c", "import spacy_span_eval.cli"],
            "CoNLL: CLI evaluate exact": [*cli, g, p, "--strategy", "exact"],
            "CoNLL: CLI evaluate two_sided": [*cli, g, p],
            "CoNLL: CLI evaluate two_sided -f json": [*cli, g, p, "-f", "json"],
            "CoNLL: evaluate_files exact": [py, "-c", API, g, p, "exact"],
            "CoNLL: evaluate_files two_sided": [py, "-c", API, g, p, "two_sided"],
            "CoNLL: seqeval classification_report": [py, str(folder / "seqeval_report.py"), g, p],
            "presidio: CLI evaluate exact": [*cli, jg, jp, "--strategy", "exact"],
            "presidio: evaluate_files exact": [py, "-c", API, jg, jp, "exact"],
            "presidio: json.load + sets": [py, str(folder / "presidio_sets.py"), jg, jp],
        }
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in tools}
        for r in range(args.repeat):
            for name, cmd in tools.items():
                if "seqeval" in name and r >= args.seqeval_repeat:
                    continue
                times[name].append(run(cmd, env))
    med = {
        name: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t))
        for name, t in times.items()
    }
    print(f"\n{'process':40} {'runs':>4} {'wall s':>8} {'cpu s':>8}")
    for name, (wall, cpu) in med.items():
        print(f"{name:40} {len(times[name]):4d} {wall:8.3f} {cpu:8.3f}")
    seq_w, seq_c = med["CoNLL: seqeval classification_report"]
    base_w, base_c = med["presidio: json.load + sets"]
    version_wall = med["spacy-span-eval --version"][0]
    print(f"\nspacy-span-eval --version: {version_wall:.3f} s wall (goal <= 0.10)")
    print(
        "ratios (wall; cpu in brackets; goals: CoNLL CLI exact >= 35x, two_sided >= 30x, "
        "-f json >= 25x, presidio CLI <= 1.8x)"
    )
    for name in (
        "CLI evaluate exact",
        "evaluate_files exact",
        "CLI evaluate two_sided",
        "CLI evaluate two_sided -f json",
        "evaluate_files two_sided",
    ):
        w, c = med[f"CoNLL: {name}"]
        print(f"  seqeval / CoNLL {name:28} {seq_w / w:6.1f}x  [{seq_c / c:5.1f}x]")
    for name in ("CLI evaluate exact", "evaluate_files exact"):
        w, c = med[f"presidio: {name}"]
        print(f"  presidio {name} / json.load + sets  {w / base_w:6.2f}x  [{c / base_c:5.2f}x]")


if __name__ == "__main__":
    main()
