"""Every command's JSON on every shared corpus, recorded once and checked after a change.

A restructuring must not move a number: ``--record DIR`` runs evaluate, gate, compare and
the Markdown/text tables over each corpus in ``../shared/data`` (gold against seeded,
perturbed predictions written by this script, independent of the package's own code) and
keeps the outputs; ``--check DIR`` runs the same again and lists every output that differs
byte for byte (exit 1), so "no number changed" is one command:

    python bench/same_outputs.py --record build/outputs-before   # on the old commit
    python bench/same_outputs.py --check build/outputs-before    # on the new one
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

DATA = Path(os.environ.get("SPACY_SPAN_EVAL_DATA", Path(__file__).parents[2] / "shared" / "data"))


def perturb_conll(gold: Path, out: Path, seed: int) -> None:
    """Tags relabelled, dropped, added and broken at random; every other column kept."""
    rng = random.Random(seed)
    lines = gold.read_text(encoding="utf-8").splitlines()
    labels = sorted(
        {ln.split()[-1][2:] for ln in lines if ln.split() and ln.split()[-1][1:2] == "-"}
    )
    result = []
    for line in lines:
        parts = line.split()
        if not parts or line.startswith("-DOCSTART-") or line.startswith("#"):
            result.append(line)
            continue
        tag, roll = parts[-1], rng.random()
        if tag != "O" and roll < 0.06:
            tag = tag[:2] + rng.choice(labels)
        elif tag != "O" and roll < 0.10:
            tag = "O"
        elif tag == "O" and roll < 0.02:
            tag = rng.choice("BI") + "-" + rng.choice(labels)
        sep = "\t" if "\t" in line else " "
        result.append(line.rsplit(sep, 1)[0] + sep + tag)
    out.write_text("\n".join(result) + "\n", encoding="utf-8")


def perturb_presidio(gold: Path, out: Path, seed: int) -> None:
    """Spans shifted, relabelled, dropped; records and texts kept."""
    rng = random.Random(seed)
    records = json.loads(gold.read_text(encoding="utf-8"))
    labels = sorted({s["entity_type"] for r in records for s in r["spans"]})
    for record in records:
        kept = []
        for span in record["spans"]:
            roll = rng.random()
            if roll < 0.08:
                continue
            span = dict(span)
            if roll < 0.16:
                span["entity_type"] = rng.choice(labels)
            elif roll < 0.30:
                end = span["end_position"] + rng.choice([-2, -1, 1, 2])
                span["end_position"] = max(
                    span["start_position"] + 1, min(end, len(record["full_text"]))
                )
                span["entity_value"] = record["full_text"][
                    span["start_position"] : span["end_position"]
                ]
            kept.append(span)
        record["spans"] = kept
    out.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")


def pairs(work: Path) -> list[tuple[str, Path, Path, Path]]:
    """(name, gold, predictions A, predictions B) for each corpus present."""
    conll = {
        "btc": DATA / "btc" / "btc.test",
        "wikigold": DATA / "wikigold" / "wikigold.conll.txt",
        "sec": DATA / "sec_filings" / "FIN3.test.txt",
        "re3d_conll": DATA / "re3d" / "conll_split_juand-r" / "re3d-test.conll",
        "btc_section": DATA / "btc" / "sections" / "a.conll",
    }
    found = []
    for name, gold in conll.items():
        if gold.exists():
            a, b = work / f"{name}.a.conll", work / f"{name}.b.conll"
            perturb_conll(gold, a, seed=1)
            perturb_conll(gold, b, seed=2)
            found.append((name, gold, a, b))
    presidio = DATA / "presidio_synth" / "synth_dataset_v2.json"
    if presidio.exists():
        a, b = work / "presidio.a.json", work / "presidio.b.json"
        perturb_presidio(presidio, a, seed=1)
        perturb_presidio(presidio, b, seed=2)
        found.append(("presidio", presidio, a, b))
    return found


def commands(name: str, gold: Path, a: Path, b: Path, work: Path) -> dict[str, list[str]]:
    floors = work / "floors.json"
    floors.write_text(
        json.dumps({"floors": {"*": {"recall": 0.9, "precision": 0.5}}}), encoding="utf-8"
    )
    scheme = ["--scheme", "IOB1"] if name == "wikigold" else []
    base = [str(gold), str(a), *scheme]
    runs = {
        "evaluate.json": ["evaluate", *base, "-f", "json", "-t", "0.5", "-t", "1.0"],
        "evaluate.md": ["evaluate", *base, "-f", "markdown", "--errors", "5"],
        "evaluate.txt": ["evaluate", *base, "--wide"],
        "gate.json": ["gate", *base, "--floors", str(floors), "-f", "json"],
        "compare.json": ["compare", str(gold), str(a), str(b), *scheme, "-f", "json"],
        "compare.txt": ["compare", str(gold), str(a), str(b), *scheme, "--resamples", "200"],
        "evaluate.parallel.json": ["evaluate", *base, "-f", "json", "--n-process", "2"],
    }
    for strategy in ("exact", "overlap", "token", "semeval"):
        runs[f"evaluate.{strategy}.json"] = ["evaluate", *base, "-s", strategy, "-f", "json"]
    return runs


def run_all(out: Path) -> dict[str, bytes]:
    results: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, gold, a, b in pairs(work):
            for key, args in commands(name, gold, a, b, work).items():
                done = subprocess.run(
                    [sys.executable, "-m", "spacy_span_eval", *args],
                    capture_output=True,
                    check=False,
                )
                text = done.stdout.replace(tmp.encode(), b"<work>").replace(
                    str(DATA).encode(), b"<data>"
                )
                text += b"\nexit %d\n" % done.returncode
                results[f"{name}.{key}"] = text
                print(f"{name}.{key}: exit {done.returncode}", file=sys.stderr)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--record", type=Path, help="write every output into this folder")
    mode.add_argument("--check", type=Path, help="compare every output with this folder's")
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"no corpora at {DATA} (set SPACY_SPAN_EVAL_DATA)", file=sys.stderr)
        return 2
    results = run_all(args.record or args.check)
    if args.record:
        args.record.mkdir(parents=True, exist_ok=True)
        for key, text in results.items():
            (args.record / key).write_bytes(text)
        print(f"{len(results)} outputs recorded in {args.record}")
        return 0
    differ = [k for k, text in results.items() if (args.check / k).read_bytes() != text]
    missing = sorted({p.name for p in args.check.iterdir()} - set(results))
    for key in differ + missing:
        print(f"differs: {key}")
    print(
        f"{len(results) - len(differ)} of {len(results)} outputs identical; {len(missing)} missing"
    )
    return 1 if differ or missing else 0


if __name__ == "__main__":
    sys.exit(main())
